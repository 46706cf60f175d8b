#include "model/char_merges.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <unordered_map>

#include "common/utf8.h"

namespace tagpipe {
namespace {

// The merges by one operand: for each (dense) id, (rank, the other operand's dense id) of
// its merges.
struct ByOperand {
  std::vector<uint32_t> start;  // by id: where its merges begin in `rank` / `other`
  std::vector<uint32_t> rank, other;
  ByOperand(const std::vector<std::array<uint32_t, 2>>& pairs, uint32_t ids, bool by_left) : start(size_t(ids) + 1, 0) {
    const int mine = by_left ? 0 : 1;
    for (const auto& p : pairs) start[p[mine] + 1]++;
    for (uint32_t id = 0; id < ids; id++) start[id + 1] += start[id];
    rank.resize(pairs.size());
    other.resize(pairs.size());
    std::vector<uint32_t> at(start.begin(), start.end() - 1);
    for (uint32_t r = 0; r < pairs.size(); r++) {
      const uint32_t k = at[pairs[r][mine]]++;
      rank[k] = r, other[k] = pairs[r][1 - mine];
    }
  }
};

}  // namespace

void CharMerges::build(const std::vector<BpeMerge>& merges, const MergeTable& table, const StringTable& strings,
                       const uint32_t* byte_id) {
  // Ids are any 32-bit values: numbered densely, in the order seen, for the arrays below --
  // through an array by id when the ids are small (a hash map took gemma-3's load 0.1 s).
  uint64_t max_id = 0;
  size_t count = 0;
  strings.for_each([&](std::string_view, uint32_t id) { max_id = std::max<uint64_t>(max_id, id), count++; });
  for (const BpeMerge& m : merges) max_id = std::max<uint64_t>({max_id, m.left, m.right, m.result});
  const bool direct = max_id < 4 * (count + merges.size()) + 1024;
  std::vector<uint32_t> by_id(direct ? max_id + 1 : 0, UINT32_MAX);
  std::unordered_map<uint32_t, uint32_t> by_hash;
  std::vector<std::string_view> text;  // by dense id: its bytes, or empty (not one of `strings`)
  auto slot = [&](uint32_t id) -> uint32_t& {
    return direct && id <= max_id ? by_id[id] : by_hash.emplace(id, UINT32_MAX).first->second;
  };
  strings.for_each([&](std::string_view key, uint32_t id) {
    uint32_t& d = slot(id);
    if (d == UINT32_MAX) d = uint32_t(text.size()), text.push_back(key);
  });
  auto number = [&](uint32_t id) {  // (an id none of `strings` has: never a symbol here)
    uint32_t& d = slot(id);
    if (d == UINT32_MAX) d = uint32_t(text.size()), text.emplace_back();
    return d;
  };
  std::vector<std::array<uint32_t, 2>> pairs(merges.size());
  for (size_t r = 0; r < merges.size(); r++) pairs[r] = {number(merges[r].left), number(merges[r].right)};
  const uint32_t ids = uint32_t(text.size());
  const ByOperand by_left(pairs, ids, true), by_right(pairs, ids, false);
  guards_.assign(1, Guard{});
  // A guard's side and strings (ids, sorted) -> its index.  (The side too: the same strings
  // on the other side have other edge bytes.)
  std::map<std::pair<bool, std::vector<uint32_t>>, uint32_t> known;
  auto guard = [&](std::vector<uint32_t>& xs, bool left) -> uint32_t {
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    if (xs.empty()) return 0;
    auto [it, added] = known.emplace(std::make_pair(left, xs), uint32_t(guards_.size()));
    if (!added) return it->second;
    Guard g;
    g.first = uint32_t(strings_.size());
    for (uint32_t x : xs) {
      const std::string_view t = text[x];  // (not empty: the string of a token a word can hold)
      const uint8_t edge = uint8_t(left ? t.back() : t.front());
      g.edge[edge >> 6] |= uint64_t(1) << (edge & 63);
      strings_.push_back({uint32_t(bytes_.size()), uint32_t(t.size())});
      bytes_.append(t);
    }
    g.count = uint32_t(strings_.size()) - g.first;
    guards_.push_back(g);
    return it->second;
  };
  struct Part {
    uint32_t id, begin, end;  // the symbol and its bytes in the character
  };
  std::vector<Part> now, parts;
  std::vector<uint32_t> xs, ys;
  // The unit of len bytes that starts as the symbols in `now`, alone: its symbols, and its
  // guards (a Char whose length stays 0 when the unit is not worth it or not possible).
  auto unit = [&](uint32_t len, size_t max_guard, Char& c) {
    // Lowest rank first, leftmost among equal ones; every symbol on the way is a part.
    parts = now;
    uint32_t top = 0;  // R: the highest rank merged
    for (;;) {
      uint32_t best = UINT32_MAX, best_rank = UINT32_MAX, best_result = 0;
      for (uint32_t i = 0; i + 1 < now.size(); i++) {
        uint32_t rank, result;
        if (table.find(now[i].id, now[i + 1].id, rank, result) && rank < best_rank)
          best = i, best_rank = rank, best_result = result;
      }
      if (best == UINT32_MAX) break;
      top = std::max(top, best_rank);
      now[best] = {best_result, now[best].begin, now[best + 1].end};
      now.erase(now.begin() + best + 1);
      parts.push_back(now[best]);
    }
    if (now.size() == parts.size() || now.size() > 2) return;  // (no merge: as it started)
    for (Part& p : parts) p.id = number(p.id);  // (now: the real ids, for the symbols)
    // (L): the X of a merge (X, P), P a left part, rank <= R; (R): the Y of (P, Y).  An X
    // or Y that is none of `strings` is never a symbol of a word here.
    xs.clear(), ys.clear();
    for (const Part& p : parts) {
      if (p.id >= ids) continue;  // (numbered after the merges: no merge takes it)
      // (an operand's merges are in rank order: up to the first above R)
      if (p.begin == 0)
        for (uint32_t k = by_right.start[p.id]; k < by_right.start[p.id + 1] && by_right.rank[k] <= top; k++)
          if (!text[by_right.other[k]].empty()) xs.push_back(by_right.other[k]);
      if (p.end == len)
        for (uint32_t k = by_left.start[p.id]; k < by_left.start[p.id + 1] && by_left.rank[k] <= top; k++)
          if (!text[by_left.other[k]].empty()) ys.push_back(by_left.other[k]);
      if (xs.size() + ys.size() > max_guard) return;  // (checking them would cost more than a merge)
    }
    c.token[0] = now[0].id;
    c.token[1] = now.back().id;
    c.count = uint16_t(now.size());
    c.left = guard(xs, true);
    c.right = guard(ys, false);
    c.length = uint16_t(len);
  };
  if (!byte_id) {  // plain words: two characters that merge
    std::vector<std::pair<uint64_t, Char>> found;
    for (const BpeMerge& m : merges) {
      uint32_t rank, result;
      if (!table.find(m.left, m.right, rank, result)) continue;  // (a listed merge; twice: its last rank)
      const std::string_view a = text[number(m.left)], b = text[number(m.right)];
      if (a.empty() || b.empty() || utf8_chars(reinterpret_cast<const uint8_t*>(a.data()), a.size()) != 1 ||
          utf8_chars(reinterpret_cast<const uint8_t*>(b.data()), b.size()) != 1) continue;
      now = {{m.left, 0, uint32_t(a.size())}, {m.right, uint32_t(a.size()), uint32_t(a.size() + b.size())}};
      Char c;
      unit(uint32_t(a.size() + b.size()), kMaxPairGuard, c);
      if (c.length) found.push_back({uint64_t(m.left) << 32 | m.right, c});
    }
    size_t cap = 16;
    while (cap < 2 * found.size()) cap *= 2;
    plain_.assign(cap, PlainSlot{});
    plain_filter_.assign(kFilterBits / 64, 0);
    for (const auto& [key, c] : found) {
      const uint32_t f = plain_bit(key);
      plain_filter_[f >> 6] |= uint64_t(1) << (f & 63);
      size_t i = plain_index(key);
      while (plain_[i].key != kNoPair && plain_[i].key != key) i = (i + 1) & (plain_.size() - 1);
      plain_[i] = {key, c};
    }
    return;
  }
  chars_.assign(0x10000, Char{});
  for (uint32_t cp = 0x80; cp < 0x10000; cp++) {
    if (cp >= 0xD800 && cp < 0xE000) continue;  // (surrogates are not characters)
    uint8_t b[3];
    const uint32_t len = cp < 0x800 ? 2 : 3;
    if (len == 2) b[0] = uint8_t(0xC0 | cp >> 6), b[1] = uint8_t(0x80 | (cp & 63));
    else b[0] = uint8_t(0xE0 | cp >> 12), b[1] = uint8_t(0x80 | ((cp >> 6) & 63)), b[2] = uint8_t(0x80 | (cp & 63));
    now.clear();
    for (uint32_t i = 0; i < len; i++) now.push_back({byte_id[b[i]], i, i + 1});
    unit(len, SIZE_MAX, chars_[cp]);
  }
  pairs_.assign(128 * 128, Char{});
  for (uint32_t a = 0; a < 128; a++)
    for (uint32_t z = 0; z < 128; z++) {
      now = {{byte_id[a], 0, 1}, {byte_id[z], 1, 2}};
      unit(2, kMaxPairGuard, pairs_[a << 7 | z]);
    }
}

}  // namespace tagpipe
