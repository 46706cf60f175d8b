#include "model/bpe.h"

#include <algorithm>
#include <cstdio>

#include "pretokenize/bytelevel.h"

namespace tagpipe {
namespace {

constexpr uint32_t kMissing = StringTable::kMissing;

void append_utf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 63));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 63)), out += char(0x80 | (cp & 63));
  } else {
    out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 63));
    out += char(0x80 | ((cp >> 6) & 63)), out += char(0x80 | (cp & 63));
  }
}

}  // namespace

Bpe::Bpe(StringTable vocab, const std::vector<BpeMerge>& merges, BpeOptions options)
    : vocab_(std::move(vocab)), merger_(merges), opt_(std::move(options)) {
  merge_list_ = merges;
  {
    std::vector<uint32_t> ids;
    vocab_.for_each([&](std::string_view, uint32_t id) { ids.push_back(id); });
    std::sort(ids.begin(), ids.end());
    duplicate_ids_ = std::adjacent_find(ids.begin(), ids.end()) != ids.end();
  }
  // Byte-keyed view of the entries made only of ByteLevel characters.
  vocab_.for_each([&](std::string_view token, uint32_t id) {
    std::string bytes;
    const auto* s = reinterpret_cast<const uint8_t*>(token.data());
    for (size_t i = 0; i < token.size();) {
      const uint32_t len = utf8_length(s[i]);
      uint32_t cp = len == 1 ? s[i] : s[i] & (0xFF >> (len + 1));
      for (uint32_t k = 1; k < len; k++) cp = (cp << 6) | (s[i + k] & 0x3F);
      const int b = pretok::char_byte(cp);
      if (b < 0) return;
      bytes += char(b);
      i += len;
    }
    byte_vocab_.put(bytes, id);
  });
  // ignore_merges: the hashes of the vocabulary strings of 16+ bytes (whole_piece).
  for (int form = 0; form < 2 && opt_.ignore_merges; form++)
    (form ? byte_vocab_ : vocab_).for_each([&](std::string_view key, uint32_t) {
      if (key.size() >= 16) long_strings_[form].add(hash_bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
    });
  simple_bytes_ = opt_.prefix.empty() && opt_.suffix.empty();
  auto lookup = [&](const std::string& core, bool first, bool last) {
    std::string s = (first ? "" : opt_.prefix) + core + (last ? opt_.suffix : "");
    return vocab_.get(s);
  };
  // [continuing][last]: the first character of a piece takes no prefix, the last the suffix.
  for (int cont = 0; cont < 2; cont++)
    for (int l = 0; l < 2; l++) {
      for (int b = 0; b < 256; b++) {
        std::string c;
        append_utf8(pretok::byte_char(uint8_t(b)), c);
        byte_char_id_[cont][l][b] = lookup(c, !cont, l);
      }
      for (int b = 0; b < 128; b++) ascii_id_[cont][l][b] = lookup(std::string(1, char(b)), !cont, l);
    }
  for (int b = 0; b < 256; b++) missing_bytes_ += missing_byte_[b] = byte_char_id_[1][0][b] == kMissing;
  if (simple_bytes_) {
    bmp_id_.assign(0x10000, kMissing);
    vocab_.for_each([&](std::string_view token, uint32_t id) {
      const auto* t = reinterpret_cast<const uint8_t*>(token.data());
      if (token.empty() || utf8_length(t[0]) != token.size() || token.size() > 3) return;
      uint32_t cp = token.size() == 1 ? t[0] : t[0] & (0xFF >> (token.size() + 1));
      for (size_t k = 1; k < token.size(); k++) cp = (cp << 6) | (t[k] & 0x3F);
      bmp_id_[cp] = id;
    });
  }
  if (simple_bytes_ && !duplicate_ids_ &&
      std::find(byte_char_id_[1][0], byte_char_id_[1][0] + 256, kMissing) == byte_char_id_[1][0] + 256)
    chars_.build(merges, merger_.table(), byte_vocab_, byte_char_id_[1][0]);
  for (int b = 0; b < 256; b++) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_token_[b] = vocab_.get(name);
  }
  std::vector<uint32_t> special(byte_token_, byte_token_ + 256);  // <0xXX> tokens and unk (sorted)
  special.push_back(opt_.unk_id);
  std::sort(special.begin(), special.end());
  for (const BpeMerge& m : merges)
    merges_take_bytes_or_unk_ |= std::binary_search(special.begin(), special.end(), m.left) ||
                                 std::binary_search(special.begin(), special.end(), m.right);
  // (A <0xXX> or unk symbol is no text: a unit's guards, which read the text, need it never
  // to merge.  Not for a ByteLevel vocabulary: its pieces are ByteLevel ones.)
  if (simple_bytes_ && !duplicate_ids_ && !merges_take_bytes_or_unk_ && chars_.empty())
    plain_pairs_.build(merges, merger_.table(), vocab_, nullptr);
}

const Bpe::Cuts& Bpe::piece_cuts(bool byte_mapped) const {
  prepare_cuts(byte_mapped);
  return cuts_[byte_mapped];
}

// BPE on every vocabulary string, kMaxJobs at a time round robin as in encode_many: each
// string's merge-table lookups miss the CPU caches, and one string alone waits for them one
// after another (llama-3, a 16 MiB table: 70 ms one by one).
const StringTable& Bpe::merges_differ(bool byte_mapped) const {
  std::call_once(differ_once_[byte_mapped], [&] {
    StringTable& differ = differ_[byte_mapped];
    struct Entry {
      std::string_view key;
      uint32_t id;
    };
    std::vector<Entry> all;
    (byte_mapped ? byte_vocab_ : vocab_).for_each([&](std::string_view key, uint32_t id) {
      if (key.size() >= 2) all.push_back({key, id});
    });
    BpeScratch sc;
    std::vector<uint32_t> out;
    auto check = [&](const Entry& e) {
      if (out.size() != 1 || out[0] != e.id) {
        differ.put(e.key, e.id);
        differ_shapes_[byte_mapped].add(e.key);
      }
      out.clear();
    };
    BpeMerger::SmallWord words[kMaxJobs];
    const Entry* owner[kMaxJobs];
    for (size_t first = 0; first < all.size(); first += kMaxJobs) {
      size_t live = 0;
      for (size_t j = first; j < std::min(all.size(), first + kMaxJobs); j++) {
        const auto* t = reinterpret_cast<const uint8_t*>(all[j].key.data());
        const uint32_t n = uint32_t(all[j].key.size());
        uint32_t init[kScanMax], m = 0;
        if (small_symbols(t, n, byte_mapped, init, m) && m) {
          merger_.start(words[live], init, m);
          owner[live++] = &all[j];
        } else {
          encode_merges(t, n, byte_mapped, out, sc);
          check(all[j]);
        }
      }
      while (live)
        for (size_t i = 0; i < live;) {
          if (!merger_.step(words[i])) {
            i++;
            continue;
          }
          merger_.emit(words[i], out);
          check(*owner[i]);
          --live;
          if (i != live) words[i] = words[live], owner[i] = owner[live];
        }
    }
  });
  return differ_[byte_mapped];
}

void Bpe::prepare_seed(bool byte_mapped) const {
  std::call_once(seed_once_[byte_mapped], [&] {
    // (A prefix or suffix makes a piece's symbols differ from its string's; with shared
    // ids merges_differ's test by id says nothing.)
    if (!simple_bytes_ || duplicate_ids_) return;
    const StringTable& table = byte_mapped ? byte_vocab_ : vocab_;
    // With ignore_merges a piece that is a vocabulary string is its token, whatever its merges.
    const StringTable* differ = opt_.ignore_merges ? nullptr : &merges_differ(byte_mapped);
    size_t count = 0;
    table.for_each([&](std::string_view key, uint32_t) { count += key.size() - 1 < 15; });
    WordSeed& seed = seed_[byte_mapped];
    seed.reserve(count);
    table.for_each([&](std::string_view key, uint32_t id) {
      if (key.size() - 1 < 15 && (!differ || differ->get(key) == kMissing)) seed.put(key, id);
    });
  });
}

void Bpe::prepare_cuts(bool byte_mapped) const {
  std::call_once(cuts_once_[byte_mapped], [&] {
    Cuts& c = cuts_[byte_mapped];
    c.why_not = cut_rule(byte_mapped);
    c.unk_waits = !byte_mapped && !all_byte_tokens() && opt_.unk_id != BpeOptions::kNone;
    c.exact = c.why_not.empty();
    if (!c.exact) return;
    uint32_t max_id = 0;
    for (const BpeMerge& m : merge_list_) max_id = std::max({max_id, m.left, m.right, m.result});
    c.bridges.set_whole_chars(!byte_mapped);
    if (byte_mapped) {  // every merge result's inner boundaries
      std::vector<uint8_t> result(size_t(max_id) + 1, 0);  // by id: whether some merge gives it
      for (const BpeMerge& m : merge_list_) result[m.result] = 1;
      byte_vocab_.for_each([&](std::string_view key, uint32_t id) {
        if (id < result.size() && result[id]) c.bridges.add(reinterpret_cast<const uint8_t*>(key.data()), uint32_t(key.size()));
      });
    } else {  // every merge's split (its strings by id: no two strings share one, see cut_rule)
      std::vector<std::string_view> strings(size_t(max_id) + 1);
      vocab_.for_each([&](std::string_view key, uint32_t id) {
        if (id < strings.size()) strings[id] = key;
      });
      for (const BpeMerge& m : merge_list_) {
        const std::string_view a = strings[m.left], b = strings[m.right];
        if (!a.empty() && !b.empty())
          c.bridges.add_merge(reinterpret_cast<const uint8_t*>(a.data()), uint32_t(a.size()),
                              reinterpret_cast<const uint8_t*>(b.data()), uint32_t(b.size()));
      }
    }
    c.bridges.finish();
    if (opt_.ignore_merges) merges_differ(byte_mapped);  // (llama-3: 588 of 128k strings)
    if (byte_mapped) {  // (model/cjk_ids.h: why not for whole characters)
      BpeScratch sc;
      cjk_.build([&](const uint8_t* ch, std::vector<uint32_t>& ids) { encode(ch, 3, true, ids, sc); });
    }
  });
}

// Whether cuts() is exact for this vocabulary, per piece form (model/bridge_cuts.h): the
// symbols of a character never merge with anything unless the character is in the
// vocabulary -- so no character is dropped (its neighbours could then merge across it),
// and no merge takes a <0xXX> byte token or the unk token -- and nothing else changes how
// symbols merge.  ByteLevel pieces: every byte's character is in the vocabulary, or else
// cuts() leaves whole each piece that holds one that is not (cut_exception: falcon lacks 28
// of them, control characters and bytes no UTF-8 text has -- its Chinese clauses and long
// words are cut).  (The conditions alone: cheap, no bridges are built.)
std::string Bpe::cut_rule(bool byte_mapped) const {
  const bool all_bytes = all_byte_tokens();
  if (!simple_bytes_) return "continuing_subword_prefix / end_of_word_suffix";
  if (duplicate_ids_) return "two vocabulary strings share an id";
  if (!byte_mapped && !all_bytes && opt_.unk_id == BpeOptions::kNone)
    return "an unknown character is dropped (no unk token, no byte_fallback)";
  if (!byte_mapped && merges_take_bytes_or_unk_) return "a merge takes a <0xXX> or unk token";
  return "";
}

std::string Bpe::cut_exception(bool byte_mapped) const {
  if (!byte_mapped || !missing_bytes_ || !cut_rule(byte_mapped).empty()) return "";
  return "not a piece that holds one of the " + std::to_string(missing_bytes_) +
         " bytes whose ByteLevel character is not in the vocabulary";
}

// A plain piece's character, code point cp, is its own vocabulary token (not unk, not
// bytes).  (Outside the BMP, or kNoChar: counted as unknown -- a cut needs less.)
bool Bpe::known_char(uint32_t cp) const { return cp < 0x10000 && bmp_id_[cp] != kMissing; }

bool Bpe::cuts(const uint8_t* s, uint32_t n, uint64_t h, bool byte_mapped, std::vector<uint32_t>& at) const {
  at.clear();
  const Cuts& c = piece_cuts(byte_mapped);
  if (!c.exact || (h ? whole_piece(s, n, h, byte_mapped) : whole_piece(s, n, byte_mapped)) != kMissing)
    return false;  // (ignore_merges: one token)
  if (c.bridges.whole_chars()) {
    whole_char_cuts<false>(c, s, n, at);
  } else {  // (ByteLevel: no unk; a piece with a byte that is no token stays whole)
    if (missing_bytes_)
      for (uint32_t p = 0; p < n; p++)
        if (missing_byte_[s[p]]) return false;
    uint32_t prev = 0;  // where the character before p starts
    for (uint32_t p = 1; p < n; p++) {
      if ((s[p] & 0xC0) == 0x80) continue;  // (before a character's first byte only)
      if (!c.bridges.bridged(s, n, prev, p)) at.push_back(p);
      prev = p;
    }
  }
  return keep_cuts(s, n, byte_mapped, at);
}

bool Bpe::refine(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& at) const {
  at.clear();
  const Cuts& c = piece_cuts(byte_mapped);
  if (!c.exact || !c.bridges.whole_chars() || whole_piece(s, n, byte_mapped) != kMissing) return false;
  whole_char_cuts<true>(c, s, n, at);
  return keep_cuts(s, n, byte_mapped, at);
}

// Each character decoded once: the boundary at p is between x and y, w before x and z
// after y (BridgeCuts::kAlone past the piece's ends; kNoChar if cut short).  kQuads: asks
// BridgeCuts::splits, else BridgeCuts::bridged(x, y).
template <bool kQuads>
void Bpe::whole_char_cuts(const Cuts& c, const uint8_t* s, uint32_t n, std::vector<uint32_t>& at) const {
  auto decode = [&](uint32_t from, uint32_t& len) {
    if (from >= n) return len = 0, BridgeCuts::kAlone;
    len = std::min(utf8_length(s[from]), n - from);
    return code_point(s + from, utf8_length(s[from]), n - from);
  };
  // The cuts go to a block on the stack, each boundary written and counted only if cut: no
  // branch on the answer, which comes every few characters in no pattern (Russian words).
  // (Measured, fresh: llama2 Russian 1.01x, Chinese 1.03x, gemma3 Russian and Chinese 1.05x.
  // The same in the ByteLevel loop of cuts(): llama3, gpt2, gpt-4o Chinese 0.99-1.00x.)
  constexpr uint32_t kBlock = 64;
  uint32_t block[kBlock], count = 0;
  uint32_t xl, yl, zl = 0;
  uint32_t w = BridgeCuts::kAlone, x = decode(0, xl), y = decode(xl, yl), z = BridgeCuts::kAlone;
  for (uint32_t p = xl; p < n; p += yl, yl = zl, w = x, x = y, y = z) {
    z = decode(p + yl, zl);
    // (refine: the part's boundaries all have a bridged pair, else cuts() had cut there)
    const bool bridged = kQuads ? c.bridges.splits(w, x, y, z) : c.bridges.bridged(x, y);
    // An unk waits for the next known character (byte-fallback bytes go before it; with
    // fuse_unk the next unk joins it): never a cut between two unknown characters.
    const bool waits = c.unk_waits && !known_char(x) && !known_char(y);
    block[count] = p;
    count += !bridged & !waits;
    if (count == kBlock) at.insert(at.end(), block, block + kBlock), count = 0;
  }
  at.insert(at.end(), block, block + count);
}

// With ignore_merges no part may be a string whose merges differ (it would be that token
// there, its merges' ids in the whole piece): then no cut at all.  Whether any cut is left.
bool Bpe::keep_cuts(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& at) const {
  if (opt_.ignore_merges && !at.empty()) {
    const StringTable& differ = merges_differ(byte_mapped);
    uint32_t begin = 0;
    for (size_t k = 0; k <= at.size(); k++) {
      const uint32_t end = k < at.size() ? at[k] : n;
      if (differ_shapes_[byte_mapped].may_hold(s + begin, end - begin) &&
          differ.get(s + begin, end - begin) != kMissing) {
        at.clear();
        break;
      }
      begin = end;
    }
  }
  return !at.empty();
}

// byte_fallback with every <0xXX> token: no character is ever unknown to it.
bool Bpe::all_byte_tokens() const {
  if (!opt_.byte_fallback) return false;
  for (int b = 0; b < 256; b++)
    if (byte_token_[b] == kMissing) return false;
  return true;
}

bool Bpe::byte_fallback_ok(const uint8_t* c, uint32_t len) const {
  for (uint32_t k = 0; k < len; k++)
    if (byte_token_[c[k]] == kMissing) return false;
  return true;
}

// One character of the piece (merge_word's loop body): c[0..len) in the piece's content.
void Bpe::add_char(const uint8_t* c, uint32_t len, bool first, bool last, bool byte_mapped, BpeScratch& sc,
                   uint32_t& pending_unk) const {
  uint32_t id = kMissing;
  if (byte_mapped) id = byte_char_id_[!first][last][c[0]];
  else if (len == 1) id = ascii_id_[!first][last][c[0]];
  const bool fast = byte_mapped || len == 1;
  std::string& s = sc.text;
  if (!fast || id == kMissing) {  // the character's vocabulary string, with prefix / suffix
    s.clear();
    if (!first) s += opt_.prefix;
    if (byte_mapped) append_utf8(pretok::byte_char(c[0]), s);
    else s.append(reinterpret_cast<const char*>(c), len);
    if (last) s += opt_.suffix;
    if (!fast) id = vocab_.get(s);
  }
  if (id != kMissing) {
    if (pending_unk != kMissing) sc.merge.push(pending_unk), pending_unk = kMissing;
    sc.merge.push(id);
    return;
  }
  if (opt_.byte_fallback) {
    bool all = true;
    for (unsigned char b : s) all &= byte_token_[b] != kMissing;
    if (all) {  // (the oracle leaves a pending unk where it is: it follows these bytes)
      for (unsigned char b : s) sc.merge.push(byte_token_[b]);
      return;
    }
  }
  if (opt_.unk_id != BpeOptions::kNone) {
    if (pending_unk != kMissing && !opt_.fuse_unk) sc.merge.push(pending_unk);
    pending_unk = opt_.unk_id;
  }
  // no unk token: the character is dropped
}

uint32_t Bpe::whole_piece(const uint8_t* s, uint32_t n, bool byte_mapped) const {
  return opt_.ignore_merges ? whole_piece(s, n, hash_bytes(s, n), byte_mapped) : kMissing;
}

uint32_t Bpe::whole_piece(const uint8_t* s, uint32_t n, uint64_t h, bool byte_mapped) const {
  if (!opt_.ignore_merges) return kMissing;
  // A long piece -- a Chinese clause, for Bpe::cuts -- is seldom a vocabulary string.
  if (n >= 16 && !long_strings_[byte_mapped].may_hold(h)) return kMissing;
  return (byte_mapped ? byte_vocab_ : vocab_).get(s, n, h);
}

// One character of a plain piece as a BMP vocabulary token, or (bytes = true) as its
// <0xXX> tokens when it has none and byte_fallback has them all; false when neither
// (no unk can be pending here: that case takes the general path).
bool Bpe::bmp_symbol(const uint8_t* c, uint32_t len, uint32_t left, uint32_t& id, bool& bytes) const {
  const uint32_t cp = bmp_code_point(c, len, left);
  if (cp == kNotBmp) return false;
  id = bmp_id_[cp];
  bytes = id == kMissing && opt_.byte_fallback && byte_fallback_ok(c, len);
  return id != kMissing || bytes;
}

// The initial symbols of the common short pieces, when there are at most kScanMax: a
// ByteLevel word whose bytes are all tokens, or a plain word of BMP tokens (and <0xXX>
// byte-fallback tokens), with no continuing_subword_prefix / end_of_word_suffix.
bool Bpe::small_symbols(const uint8_t* s, uint32_t n, bool byte_mapped, uint32_t* ids, uint32_t& count) const {
  count = 0;
  if (!simple_bytes_ || duplicate_ids_) return false;
  if (byte_mapped) {
    if (!chars_.empty()) return chars_.symbols(s, n, byte_char_id_[1][0], ids, kScanMax, count);
    if (n > kScanMax) return false;
    bool all_known = true;
    for (uint32_t i = 0; i < n; i++) {
      ids[i] = byte_char_id_[1][0][s[i]];  // (no prefix/suffix: every variant is the same)
      all_known &= ids[i] != kMissing;
    }
    count = n;
    return all_known;
  }
  uint32_t at[kScanMax + 1];  // where each symbol starts
  for (uint32_t i = 0; i < n;) {
    const uint32_t len = utf8_length(s[i]);
    uint32_t id = kMissing;
    bool bytes = false;
    if (!bmp_symbol(s + i, len, n - i, id, bytes)) return false;
    for (uint32_t k = 0; k < (bytes ? len : 1); k++) {
      if (count == kScanMax) return false;
      at[count] = i + k;
      ids[count++] = bytes ? byte_token_[s[i + k]] : id;
    }
    i += len;
  }
  at[count] = n;
  if (!plain_pairs_.plain_empty()) plain_pairs_.pair_up(s, n, at, ids, count);
  return true;
}

void Bpe::encode_many(BpeJob* jobs, size_t count, bool byte_mapped, std::vector<uint32_t>& ids,
                      BpeScratch& sc) const {
  BpeMerger::SmallWord words[kMaxJobs];
  BpeJob* owner[kMaxJobs];
  size_t live = 0;
  const WordSeed& seed = seed_[byte_mapped];
  for (size_t j = 0; j < count; j++) {
    BpeJob& job = jobs[j];
    job.first = uint32_t(ids.size());
    job.count = 0;
    if (job.n == 0) continue;
    // A short vocabulary string that is its own token: the seed says so in one probe (the
    // encoder prefetched its slot at the cache miss).  With ignore_merges the seed holds
    // every string of 1..15 bytes: whole_piece's answer for them.
    const bool seeded = job.n - 1 < 15 && seed.size() != 0;
    const uint32_t whole = seeded ? seed.find(job.s, job.n) : whole_piece(job.s, job.n, byte_mapped);
    if (whole != kMissing) {
      ids.push_back(whole);
      job.count = 1;
      job.whole = true;
      continue;
    }
    uint32_t init[kScanMax], m = 0;
    if (live < kMaxJobs && small_symbols(job.s, job.n, byte_mapped, init, m) && m) {
      merger_.start(words[live], init, m);
      owner[live++] = &job;
      continue;
    }
    encode_merges(job.s, job.n, byte_mapped, ids, sc);  // (the rare ones, one after another)
    job.count = uint32_t(ids.size()) - job.first;
  }
  while (live)
    for (size_t i = 0; i < live;) {
      if (!merger_.step(words[i])) {
        i++;
        continue;
      }
      BpeJob& job = *owner[i];
      job.first = uint32_t(ids.size());
      merger_.emit(words[i], ids);
      job.count = uint32_t(ids.size()) - job.first;
      --live;
      if (i != live) words[i] = words[live], owner[i] = owner[live];
    }
}

void Bpe::encode(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& out,
                 BpeScratch& sc) const {
  if (n == 0) return;
  if (const uint32_t id = whole_piece(s, n, byte_mapped); id != kMissing) {
    out.push_back(id);
    return;
  }
  encode_merges(s, n, byte_mapped, out, sc);
}

void Bpe::encode_merges(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& out,
                        BpeScratch& sc) const {
  if (n == 0) return;
  uint32_t ids[kScanMax], count = 0;
  if (small_symbols(s, n, byte_mapped, ids, count)) {
    if (count) merger_.merge_small(ids, count, out);
    return;
  }
  sc.merge.symbols.clear();
  // Without ByteLevel, a word of more than kScanMax characters, each a BMP token
  // (a Chinese sentence in a Metaspace pipeline): the tournament tree.
  if (!byte_mapped && simple_bytes_ && !duplicate_ids_) {
    bool fast = true;
    for (uint32_t i = 0; i < n && fast;) {
      const uint32_t len = utf8_length(s[i]);
      uint32_t id = kMissing;
      bool bytes = false;
      fast = bmp_symbol(s + i, len, n - i, id, bytes);
      for (uint32_t k = 0; fast && k < (bytes ? len : 1); k++) {
        const int32_t at = int32_t(sc.merge.symbols.size());
        sc.merge.symbols.push_back({bytes ? byte_token_[s[i + k]] : id, at - 1, at + 1, true});
      }
      i += len;
    }
    if (fast) {
      merger_.merge_large(sc.merge, out);
      return;
    }
    sc.merge.symbols.clear();
  }
  if (byte_mapped && simple_bytes_ && !duplicate_ids_) {  // a long ByteLevel word
    // Its initial symbols: units where chars_ is built (then every byte is a token), else bytes.
    uint32_t m = n;
    bool all_known = true;
    sc.initial.resize(n);
    if (!chars_.empty()) {
      chars_.symbols(s, n, byte_char_id_[1][0], sc.initial.data(), n, m);
    } else {
      for (uint32_t i = 0; i < n; i++) {
        sc.initial[i] = byte_char_id_[1][0][s[i]];
        all_known &= sc.initial[i] != kMissing;
      }
    }
    if (all_known) {
      sc.merge.symbols.resize(m);
      for (uint32_t i = 0; i < m; i++) sc.merge.symbols[i] = {sc.initial[i], int32_t(i) - 1, int32_t(i) + 1, true};
      merger_.merge_large(sc.merge, out);
      return;
    }
  }
  uint32_t pending_unk = kMissing;
  for (uint32_t i = 0; i < n;) {
    const uint32_t len = byte_mapped ? 1 : std::min(utf8_length(s[i]), n - i);
    add_char(s + i, len, i == 0, i + len == n, byte_mapped, sc, pending_unk);
    i += len;
  }
  if (pending_unk != kMissing) sc.merge.push(pending_unk);
  if (sc.merge.symbols.empty()) return;
  sc.merge.symbols.back().next = int32_t(sc.merge.symbols.size());
  if (!duplicate_ids_) {
    if (sc.merge.symbols.size() <= kScanMax) {
      uint32_t ids[kScanMax];
      for (size_t i = 0; i < sc.merge.symbols.size(); i++) ids[i] = sc.merge.symbols[i].id;
      merger_.merge_small(ids, uint32_t(sc.merge.symbols.size()), out);
    } else {
      merger_.merge_large(sc.merge, out);
    }
    return;
  }
  merger_.merge_queue(sc.merge, out);
}

}  // namespace tagpipe
