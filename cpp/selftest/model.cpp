// The model's tables: the BPE merge table (model/merge_table.h) against a map, the word
// cache's tiers (model/word_cache.h), the BPE cuts (model/bridge_cuts.h) against the merge
// results themselves, the CJK characters' ids (model/cjk_ids.h).
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>

#include "model/bridge_cuts.h"
#include "model/cjk_ids.h"
#include "model/merge_table.h"
#include "model/word_cache.h"
#include "model/word_seed.h"
#include "selftest/selftest.h"

namespace tagpipe::selftest {

// -- the BPE merge table (model/merge_table.h) against a map, in each of its slot forms ---

void check_merge_table(bool quick) {
  struct Shape {
    const char* name;
    uint32_t max_id, merges;
    bool affine;
  };
  // 64-bit slots with the result (llama-2), without it (GPT-2), ids so large that only the
  // 16-byte slots hold them, and a table of few slots.
  for (const Shape& shape : {Shape{"packed", 32000, 30000, false}, Shape{"affine", 50257, 50000, true},
                             Shape{"wide", 0x7FFFFFF0u, 20000, false}, Shape{"small", 40, 9, false}}) {
    std::mt19937_64 rng(7);
    std::vector<BpeMerge> merges;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>> want;  // pair -> (rank, result)
    const uint32_t count = quick ? std::min(shape.merges, 5000u) : shape.merges;
    for (uint32_t rank = 0; rank < count; rank++) {
      BpeMerge m{uint32_t(rng() % shape.max_id), uint32_t(rng() % shape.max_id),
                 shape.affine ? rank + 256 : uint32_t(rng() % shape.max_id)};
      if (rank % 97 == 3 && !merges.empty())
        m.left = merges[rank / 2].left, m.right = merges[rank / 2].right;  // listed twice
      merges.push_back(m);
      want[{m.left, m.right}] = {rank, m.result};  // (the last rank wins)
    }
    const MergeTable table(merges);
    int failures = 0;
    auto expect = [&](uint32_t left, uint32_t right) {
      const auto it = want.find({left, right});
      uint32_t rank = 0, result = 0;
      const bool found = table.find(left, right, rank, result);
      if (found != (it != want.end()) || (found && (rank != it->second.first || result != it->second.second)))
        failures++;
    };
    for (const BpeMerge& m : merges) expect(m.left, m.right);
    for (int k = 0; k < 200000; k++) expect(uint32_t(rng() % shape.max_id), uint32_t(rng() % shape.max_id));
    const bool wide = std::strcmp(shape.name, "wide") == 0;
    const bool ok = failures == 0 && table.compact() != wide;
    std::printf("[-] merge_table %-8s %u merges %s%s\n", shape.name, count, ok ? "ok" : "FAILED",
                table.compact() == wide ? " (wrong slot form)" : "");
    ok ? passed() : failed();
  }
}

// -- the word cache's tiers (model/word_cache.h) --------------------------------------------

namespace {

// The encoder's lookup: the inline tiers, then the long one.  False on a miss.
bool cache_find(const WordCache& cache, const uint8_t* p, uint32_t n, std::vector<uint32_t>& ids) {
  uint32_t out[WordCache::kRoom];
  const WordCache::Probe q = WordCache::probe(p, n);
  uint32_t got = cache.find<false>(p, n, q, out);
  if (got - 1 < WordCache::kRoom) return ids.assign(out, out + got), true;
  const uint32_t* in;
  if (got == WordCache::kMiss || !cache.find_long(p, n, q, in, got)) return false;
  return ids.assign(in, in + got), true;
}

}  // namespace

// Random pieces of 1..40 bytes with 0..20 ids (some past a medium entry's 21 bits), each
// copied to a page's end (the keys' exact reads) or followed by garbage (the fast reads
// mask it off): every one is found with its own ids.  Then a budget too small for them
// all: the cache is wiped as it fills, holds no more than its budget, and whatever it
// still answers is right.
void check_word_cache(bool quick) {
  std::mt19937_64 rng(11);
  std::map<std::vector<uint8_t>, std::vector<uint32_t>> want;
  const size_t count = quick ? 3000 : 30000;
  while (want.size() < count) {
    std::vector<uint8_t> key(1 + rng() % 40);
    for (auto& b : key) b = uint8_t(rng() % 4 ? 'a' + rng() % 6 : rng());  // (many share prefixes)
    std::vector<uint32_t> ids(rng() % 8 ? 1 + rng() % 12 : rng() % 21);
    for (auto& id : ids) id = uint32_t(rng() % 16 ? rng() % 262144 : rng() % 0xFFFFFFFFu);
    want.emplace(key, ids);
  }
  alignas(4096) static uint8_t page[2 * 4096];
  auto place = [&](const std::vector<uint8_t>& key, bool at_end) {
    uint8_t* p = at_end ? page + 4096 - key.size() : page + 100;
    for (size_t i = 0; i < 64; i++) page[100 + i] = uint8_t(rng());
    std::memcpy(p, key.data(), key.size());
    return p;
  };
  for (const size_t budget : {size_t(256) << 20, size_t(160) << 10}) {
    WordCache cache(budget);
    size_t k = 0, wrong = 0, missing = 0, over = 0;
    for (const auto& [key, ids] : want) {
      cache.insert(place(key, k++ % 3 == 0), uint32_t(key.size()), ids.data(), uint32_t(ids.size()));
      over += cache.used() > budget;
    }
    std::vector<uint32_t> got;
    for (const auto& [key, ids] : want) {
      const uint8_t* p = place(key, k++ % 2 == 0);
      if (!cache_find(cache, p, uint32_t(key.size()), got)) missing++;
      else wrong += got != ids;
    }
    const bool big = budget > (size_t(1) << 20);
    const bool ok = wrong == 0 && over == 0 && (big ? missing == 0 : missing < want.size());
    std::printf("[-] word_cache budget %zu KiB, %zu pieces: %zu wrong, %zu missing, %zu over budget %s\n", budget >> 10,
                want.size(), wrong, missing, over, ok ? "ok" : "FAILED");
    ok ? passed() : failed();
  }
}

// The word seed as the short tier's starting content: a cache takes it at its first
// table's growth (then every seed string is a hit with its id, and the pieces inserted
// before are still there), an explicit clear drops it, and a wipe the budget forces takes it
// again.  A budget a quarter of which cannot hold it leaves the cache without it.
void check_word_cache_seed(bool quick) {
  std::mt19937_64 rng(12);
  std::map<std::vector<uint8_t>, uint32_t> seeded, other;
  auto key = [&](size_t max) {
    std::vector<uint8_t> k(1 + rng() % max);
    for (auto& b : k) b = uint8_t('a' + rng() % 20);
    return k;
  };
  while (seeded.size() < 5000) seeded.emplace(key(15), uint32_t(rng() % 200000));
  WordSeed seed;
  seed.reserve(seeded.size());
  for (const auto& [k, id] : seeded) seed.put({reinterpret_cast<const char*>(k.data()), k.size()}, id);
  const size_t count = quick ? 200000 : 400000;
  while (other.size() < count) {
    std::vector<uint8_t> k = key(15);
    k.insert(k.begin(), 'z');  // (never a seed string)
    if (k.size() < 16) other.emplace(k, uint32_t(rng() % 200000));
  }
  std::vector<uint32_t> got;
  auto holds_seed = [&](const WordCache& c) {
    size_t right = 0;
    for (const auto& [k, id] : seeded)
      right += cache_find(c, k.data(), uint32_t(k.size()), got) && got.size() == 1 && got[0] == id;
    return right == seeded.size();
  };
  // A large budget: no seed in the first table; the seed at its growth, the first pieces kept.
  WordCache cache(size_t(256) << 20);
  cache.set_seed(&seed);
  size_t k = 0, kept = 0;
  bool before = false;
  for (auto it = other.begin(); k < 2000; ++it, ++k) {
    cache.insert(it->first.data(), uint32_t(it->first.size()), &it->second, 1);
    if (k == 100) before = !cache.seeded();
  }
  k = 0;
  for (auto it = other.begin(); k < 2000; ++it, ++k)
    kept += cache_find(cache, it->first.data(), uint32_t(it->first.size()), got) && got[0] == it->second;
  bool ok = before && cache.seeded() && holds_seed(cache) && kept == 2000;
  cache.clear();
  ok = ok && !cache.seeded() && !cache_find(cache, seeded.begin()->first.data(), 1, got);
  // A budget the pieces overflow: each wipe restarts from the seed.
  const size_t budget = size_t(16) << 20;
  WordCache small(budget);
  small.set_seed(&seed);
  size_t wipes = 0, over = 0, last = 0, unseeded = 0;
  for (const auto& [kk, id] : other) {
    small.insert(kk.data(), uint32_t(kk.size()), &id, 1);
    wipes += small.entries() < last, last = small.entries();
    over += small.used() > budget;
    unseeded += last > 600 && !small.seeded();
  }
  ok = ok && wipes > 0 && over == 0 && unseeded == 0 && holds_seed(small);
  WordCache tiny(size_t(8) << 20);  // (4 MiB of seed table: more than a quarter)
  tiny.set_seed(&seed);
  k = 0;
  for (auto it = other.begin(); k < 2000; ++it, ++k)
    tiny.insert(it->first.data(), uint32_t(it->first.size()), &it->second, 1);
  ok = ok && !tiny.seeded();
  std::printf("[-] word_cache seed %zu strings: taken at growth, %zu budget wipes re-seeded, %zu over budget %s\n",
              seeded.size(), wipes, over, ok ? "ok" : "FAILED");
  ok ? passed() : failed();
}

// -- BPE cuts (model/bridge_cuts.h) against the merge results themselves ------------------

namespace {

// Characters of every length to draw from, the first 24 (and ▁) far more often than the
// CJK tail.
struct CharPool {
  std::mt19937_64& rng;
  std::vector<uint32_t> pool;

  explicit CharPool(std::mt19937_64& r) : rng(r) {
    for (uint32_t c : {'a', 'b', 'x', ' ', '.'}) pool.push_back(c);
    for (uint32_t c = 0x430; c < 0x440; c++) pool.push_back(c);         // Cyrillic
    pool.push_back(0xE9), pool.push_back(0x3B1);                        // é, α
    for (uint32_t k = 0; k < 300; k++) pool.push_back(0x4E00 + k * 7);  // CJK
    pool.push_back(0x2581), pool.push_back(0x1F600);                    // ▁, an emoji (not BMP)
  }
  uint32_t pick() {
    const uint64_t r = rng() % 8;
    return r == 0 ? pool[rng() % pool.size()] : r == 1 ? 0x2581u : pool[rng() % 24];
  }
  std::vector<uint8_t> text(size_t chars) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i < chars; i++) append_utf8(out, pick());
    return out;
  }
};

// The code points of t's characters.
void chars(const std::vector<uint8_t>& t, std::vector<uint32_t>& cps) {
  cps.clear();
  for (uint32_t k = 0; k < t.size(); k += utf8_length(t[k]))
    cps.push_back(code_point(t.data() + k, utf8_length(t[k]), uint32_t(t.size()) - k));
}

// A made-up vocabulary: merge results (ByteLevel), or merges as their left and right
// strings (whole characters), and the BridgeCuts built from it.
struct Vocab {
  bool whole;
  std::vector<std::vector<uint8_t>> results;
  std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> merges;  // (whole characters)
  std::vector<std::array<uint32_t, 4>> quads;  // each merge's (w, x, y, z), kAlone for none
  BridgeCuts bridges;

  Vocab(CharPool& p, bool whole_) : whole(whole_) {
    draw(p);
    bridges.set_whole_chars(whole);
    for (const auto& r : results) bridges.add(r.data(), uint32_t(r.size()));
    for (const auto& [a, b] : merges) bridges.add_merge(a.data(), uint32_t(a.size()), b.data(), uint32_t(b.size()));
    bridges.finish();
    std::vector<uint32_t> a_cps, b_cps;
    for (const auto& [a, b] : merges) {
      chars(a, a_cps), chars(b, b_cps);
      const size_t al = a_cps.size();
      quads.push_back({al > 1 ? a_cps[al - 2] : BridgeCuts::kAlone, a_cps[al - 1], b_cps[0],
                       b_cps.size() > 1 ? b_cps[1] : BridgeCuts::kAlone});
    }
  }

  void draw(CharPool& p) {
    std::mt19937_64& rng = p.rng;
    for (int k = 0; k < (whole ? 1500 : 3000); k++) {  // (whole: fewer, so that a pair's quads differ)
      if (!whole) {
        results.push_back(p.text(1 + rng() % 4));
        continue;
      }
      const size_t left = 1 + rng() % 3;
      merges.emplace_back(p.text(left), p.text(1 + rng() % (4 - left)));
    }
    for (uint32_t k = 0; k < 200; k++) {  // CJK characters in results: a larger pair bitset
      std::vector<uint8_t> a, b;
      append_utf8(a, p.pool[24 + k]);
      append_utf8(b, p.pool[rng() % 24]);
      if (whole) merges.emplace_back(a, b);
      a.insert(a.end(), b.begin(), b.end());
      if (!whole) results.push_back(a);
    }
    if (!whole)
      for (int k = 0; k < 300; k++) {  // ByteLevel: results that start or end inside a character
        const std::vector<uint8_t> t = p.text(3);
        const size_t from = rng() % t.size(), to = from + 1 + rng() % (t.size() - from);
        results.emplace_back(t.begin() + long(from), t.begin() + long(to));
      }
  }
};

struct CutCounts {
  int missed = 0, false_bridges = 0, pairs = 0, boundaries = 0;
};

// Every character boundary of the piece s: whether a merge spans it (then it must be
// bridged) and, with whole characters, whether a merge's quad matches it side by side
// (else "bridged" is a false maybe).
void count_cuts(const std::vector<uint8_t>& s, const Vocab& v, std::vector<uint32_t>& cps, CutCounts& t) {
  const BridgeCuts& bridges = v.bridges;
  const bool whole = v.whole;
  const uint32_t n = uint32_t(s.size());
  chars(s, cps);
  uint32_t prev = 0, c = 0;  // s[p] is character c + 1
  for (uint32_t p = 1; p < n; p++) {
    if ((s[p] & 0xC0) == 0x80) continue;
    bool spanned = false, side_by_side = false;
    for (const auto& [a, b] : v.merges) {  // whole characters: a ends at p, b starts there
      if (a.size() <= p && b.size() <= n - p && std::memcmp(s.data() + p - a.size(), a.data(), a.size()) == 0 &&
          std::memcmp(s.data() + p, b.data(), b.size()) == 0)
        spanned = true;
    }
    for (const auto& [w, x, y, z] : v.quads)  // (side by side: a merge's quad matches)
      side_by_side |= x == cps[c] && y == cps[c + 1] && (w == BridgeCuts::kAlone || (c >= 1 && w == cps[c - 1])) &&
                      (z == BridgeCuts::kAlone || (c + 2 < cps.size() && z == cps[c + 2]));
    c++;
    for (const auto& r : v.results) {
      const uint32_t m = uint32_t(r.size());
      for (uint32_t o = p >= m ? p - m + 1 : 0; o < p && o + m <= n && !spanned; o++)
        spanned = std::memcmp(s.data() + o, r.data(), m) == 0;
      // (side by side: the two characters somewhere in r, x's last byte right before y's first)
      const uint32_t xl = p - prev, yl = utf8_length(s[p]);
      for (uint32_t o = 0; o + xl + yl <= m && !side_by_side; o++)
        side_by_side = (r[o] & 0xC0) != 0x80 && std::memcmp(r.data() + o, s.data() + prev, xl + yl) == 0;
    }
    const uint32_t x = code_point(s.data() + prev, p - prev, p - prev);
    const uint32_t y = code_point(s.data() + p, utf8_length(s[p]), n - p);
    // (whole characters: the pair, as Bpe::cuts asks, and then the quads, as Bpe::refine
    // asks inside a part -- neither may cut where a merge can split)
    const bool got = whole
                         ? bridges.bridged(x, y) && bridges.splits(c >= 2 ? cps[c - 2] : BridgeCuts::kAlone, x, y,
                                                                   c + 1 < cps.size() ? cps[c + 1] : BridgeCuts::kAlone)
                         : bridges.bridged(s.data(), n, prev, p);
    t.missed += spanned && !got;
    t.false_bridges += whole && got && !side_by_side;
    t.pairs += whole && !side_by_side;
    t.boundaries++;
    prev = p;
  }
}

}  // namespace

// Random merges over a pool of characters of every length, and random pieces: a boundary
// must be bridged where a merge could cross it (else a cut would change the BPE).  With
// whole characters: where some merge's left string ends and its right one starts, as they
// occur in the piece; few boundaries that no merge's quad (model/bridge_cuts.h) matches may
// be called bridged (the Bloom filters' false "maybe").  ByteLevel: wherever some merge
// result spans the boundary as it occurs in the piece.
void check_bridge_cuts(bool quick) {
  std::mt19937_64 rng(11);
  CharPool pool(rng);
  for (const bool whole : {true, false}) {
    const Vocab v(pool, whole);
    CutCounts t;
    std::vector<uint32_t> cps;
    for (int rep = 0; rep < (quick ? 2000 : 20000); rep++) count_cuts(pool.text(2 + rng() % 12), v, cps, t);
    // (whole characters: a false "bridged" -- a cut not taken -- for at most about one pair in 10)
    const bool ok = t.missed == 0 && t.false_bridges * 10 <= t.pairs;
    std::printf("[-] bridge_cuts %-11s %d boundaries %s (%d unbridged spans", whole ? "whole chars" : "bytes",
                t.boundaries, ok ? "ok" : "FAILED", t.missed);
    if (whole) std::printf(", %d of %d unmatched quads falsely bridged", t.false_bridges, t.pairs);
    std::printf(")\n");
    ok ? passed() : failed();
  }
}

// -- the CJK characters' ids (model/cjk_ids.h) -----------------------------------------------

// A table built from a made-up encoder -- 0 to 4 ids per character, some past 21 bits --
// asked every three bytes there are, and two- and four-byte parts: a character of the range
// with 1..3 ids that fit gets exactly them, anything else (no ids, too many, too large,
// another lead byte, a byte that does not continue the character, another length) 0.
void check_cjk_ids() {
  auto made_up = [](uint32_t cp, std::vector<uint32_t>& ids) {
    for (uint32_t j = 0; j < cp % 5; j++) ids.push_back(cp % 13 == 0 && j == 1 ? 0x1FFFFF + cp % 2 : cp * 5 + j);
  };
  CjkIds table;
  table.build([&](const uint8_t* c, std::vector<uint32_t>& ids) { made_up(code_point(c, 3, 3), ids); });
  size_t wrong = 0, found = 0;
  std::vector<uint32_t> want;
  for (uint32_t x = 0; x < (1u << 24); x++) {
    const uint8_t c[4] = {uint8_t(x >> 16), uint8_t(x >> 8), uint8_t(x), 0x80};
    want.clear();
    const bool in_range = c[0] >= 0xE3 && c[0] <= 0xE9 && (c[1] & 0xC0) == 0x80 && (c[2] & 0xC0) == 0x80;
    if (in_range) made_up(code_point(c, 3, 3), want);
    bool fits = !want.empty() && want.size() <= 3;
    for (uint32_t id : want) fits &= id < 0x1FFFFF;
    uint32_t out[CjkIds::kIds];
    const uint32_t got = table.ids(c, 3, out);
    found += got != 0;
    wrong += fits ? got != want.size() || !std::equal(want.begin(), want.end(), out) : got != 0;
    if ((x & 0xFFF) == 0) wrong += table.ids(c, 2, out) != 0 || table.ids(c, 4, out) != 0;
  }
  const bool ok = wrong == 0 && found > 0;
  std::printf("[-] cjk_ids every 3-byte part: %zu answered, %zu wrong %s\n", found, wrong, ok ? "ok" : "FAILED");
  ok ? passed() : failed();
}

}  // namespace tagpipe::selftest
