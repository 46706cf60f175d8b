#include "model/char_merges.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
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

// Token ids (any 32-bit values) numbered densely, in the order seen, with the text of each
// string: through an array by id when the ids are small (a hash map cost large
// vocabularies a noticeable share of their load time).
class DenseIds {
 public:
  DenseIds(const std::vector<BpeMerge>& merges, const StringTable& strings) {
    size_t count = 0;
    strings.for_each([&](std::string_view, uint32_t id) { max_id_ = std::max<uint64_t>(max_id_, id), count++; });
    for (const BpeMerge& m : merges) max_id_ = std::max<uint64_t>({max_id_, m.left, m.right, m.result});
    direct_ = max_id_ < 4 * (count + merges.size()) + 1024;
    by_id_.assign(direct_ ? max_id_ + 1 : 0, UINT32_MAX);
    strings.for_each([&](std::string_view key, uint32_t id) {
      uint32_t& d = slot(id);
      if (d == UINT32_MAX) d = uint32_t(text_.size()), text_.push_back(key);
    });
  }
  // The dense number of id (an id none of the strings has gets empty text: never a symbol).
  uint32_t number(uint32_t id) {
    uint32_t& d = slot(id);
    if (d == UINT32_MAX) d = uint32_t(text_.size()), text_.emplace_back();
    return d;
  }
  std::string_view text(uint32_t dense) const { return text_[dense]; }
  uint32_t size() const { return uint32_t(text_.size()); }

 private:
  uint32_t& slot(uint32_t id) {
    return direct_ && id <= max_id_ ? by_id_[id] : by_hash_.emplace(id, UINT32_MAX).first->second;
  }
  uint64_t max_id_ = 0;
  bool direct_ = false;
  std::vector<uint32_t> by_id_;
  std::unordered_map<uint32_t, uint32_t> by_hash_;
  std::vector<std::string_view> text_;  // by dense id: its bytes, or empty (not one of the strings)
};

}  // namespace

// The state of one build: the ids, the merges by operand, the guards made so far.
class CharMerges::Builder {
 public:
  Builder(CharMerges& out, const std::vector<BpeMerge>& merges, const MergeTable& table, const StringTable& strings)
      : out_(out), merges_(merges), table_(table), dense_(merges, strings), pairs_(merges.size()) {
    for (size_t r = 0; r < merges.size(); r++)
      pairs_[r] = {dense_.number(merges[r].left), dense_.number(merges[r].right)};
    ids_ = dense_.size();
    by_left_.emplace(pairs_, ids_, true);
    by_right_.emplace(pairs_, ids_, false);
    out_.guards_.assign(1, Guard{});
  }
  void plain_pairs();
  void byte_level(const uint32_t* byte_id);

 private:
  struct Part {
    uint32_t id, begin, end;  // the symbol and its bytes in the unit
  };
  void unit(uint32_t len, size_t max_guard, Char& c);
  uint32_t merge_alone();
  bool guard_strings(uint32_t len, uint32_t top, size_t max_guard);
  uint32_t guard(std::vector<uint32_t>& xs, bool left);

  CharMerges& out_;
  const std::vector<BpeMerge>& merges_;
  const MergeTable& table_;
  DenseIds dense_;
  std::vector<std::array<uint32_t, 2>> pairs_;  // each merge's operands, numbered
  uint32_t ids_ = 0;  // the ids numbered when the merges were (later ones are no merge's operand)
  std::optional<ByOperand> by_left_, by_right_;
  // A guard's side and strings (ids, sorted) -> its index.  (The side too: the same strings
  // on the other side have other edge bytes.)
  std::map<std::pair<bool, std::vector<uint32_t>>, uint32_t> known_;
  std::vector<Part> now_, parts_;  // the unit's symbols; every symbol on the way
  std::vector<uint32_t> xs_, ys_;
};

void CharMerges::build(const std::vector<BpeMerge>& merges, const MergeTable& table, const StringTable& strings,
                       const uint32_t* byte_id) {
  Builder b(*this, merges, table, strings);
  if (byte_id) b.byte_level(byte_id);
  else b.plain_pairs();
}

// Merges now_ alone -- lowest rank first, leftmost among equal ones -- with every symbol on
// the way in parts_; returns R, the highest rank merged.
uint32_t CharMerges::Builder::merge_alone() {
  parts_ = now_;
  uint32_t top = 0;
  for (;;) {
    uint32_t best = UINT32_MAX, best_rank = UINT32_MAX, best_result = 0;
    for (uint32_t i = 0; i + 1 < now_.size(); i++) {
      uint32_t rank, result;
      if (table_.find(now_[i].id, now_[i + 1].id, rank, result) && rank < best_rank)
        best = i, best_rank = rank, best_result = result;
    }
    if (best == UINT32_MAX) return top;
    top = std::max(top, best_rank);
    now_[best] = {best_result, now_[best].begin, now_[best + 1].end};
    now_.erase(now_.begin() + best + 1);
    parts_.push_back(now_[best]);
  }
}

// The guard strings of a unit of len bytes whose merges went up to rank `top`: (L) the X of
// a merge (X, P), P a left part, rank <= R, in xs_; (R) the Y of (P, Y), P a right part, in
// ys_.  An X or Y that is none of the strings is never a symbol of a word here.  False when
// there are more than max_guard (checking them would cost more than a merge).
bool CharMerges::Builder::guard_strings(uint32_t len, uint32_t top, size_t max_guard) {
  for (Part& p : parts_) p.id = dense_.number(p.id);
  xs_.clear(), ys_.clear();
  for (const Part& p : parts_) {
    if (p.id >= ids_) continue;  // (numbered after the merges: no merge takes it)
    // (an operand's merges are in rank order: up to the first above R)
    const ByOperand &right = *by_right_, &left = *by_left_;
    if (p.begin == 0)
      for (uint32_t k = right.start[p.id]; k < right.start[p.id + 1] && right.rank[k] <= top; k++)
        if (!dense_.text(right.other[k]).empty()) xs_.push_back(right.other[k]);
    if (p.end == len)
      for (uint32_t k = left.start[p.id]; k < left.start[p.id + 1] && left.rank[k] <= top; k++)
        if (!dense_.text(left.other[k]).empty()) ys_.push_back(left.other[k]);
    if (xs_.size() + ys_.size() > max_guard) return false;
  }
  return true;
}

// The unit of len bytes that starts as the symbols in now_, alone: its symbols and guards,
// in c (whose length stays 0 when the unit is not worth it or not possible).
void CharMerges::Builder::unit(uint32_t len, size_t max_guard, Char& c) {
  const uint32_t top = merge_alone();
  if (now_.size() == parts_.size() || now_.size() > 2) return;  // (no merge: as it started)
  if (!guard_strings(len, top, max_guard)) return;
  c.token[0] = now_[0].id;  // (now_: the real ids, for the symbols)
  c.token[1] = now_.back().id;
  c.count = uint16_t(now_.size());
  c.left = guard(xs_, true);
  c.right = guard(ys_, false);
  c.length = uint16_t(len);
}

uint32_t CharMerges::Builder::guard(std::vector<uint32_t>& xs, bool left) {
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  if (xs.empty()) return 0;
  auto [it, added] = known_.emplace(std::make_pair(left, xs), uint32_t(out_.guards_.size()));
  if (!added) return it->second;
  Guard g;
  g.first = uint32_t(out_.strings_.size());
  for (uint32_t x : xs) {
    const std::string_view t = dense_.text(x);  // (not empty: the string of a token a word can hold)
    const uint8_t edge = uint8_t(left ? t.back() : t.front());
    g.edge[edge >> 6] |= uint64_t(1) << (edge & 63);
    out_.strings_.push_back({uint32_t(out_.bytes_.size()), uint32_t(t.size())});
    out_.bytes_.append(t);
  }
  g.count = uint32_t(out_.strings_.size()) - g.first;
  out_.guards_.push_back(g);
  return it->second;
}

// Plain words: two characters that merge.
void CharMerges::Builder::plain_pairs() {
  std::vector<std::pair<uint64_t, Char>> found;
  for (const BpeMerge& m : merges_) {
    uint32_t rank, result;
    if (!table_.find(m.left, m.right, rank, result)) continue;  // (a listed merge; twice: its last rank)
    const std::string_view a = dense_.text(dense_.number(m.left)), b = dense_.text(dense_.number(m.right));
    if (a.empty() || b.empty() || utf8_chars(reinterpret_cast<const uint8_t*>(a.data()), a.size()) != 1 ||
        utf8_chars(reinterpret_cast<const uint8_t*>(b.data()), b.size()) != 1)
      continue;
    now_ = {{m.left, 0, uint32_t(a.size())}, {m.right, uint32_t(a.size()), uint32_t(a.size() + b.size())}};
    Char c;
    unit(uint32_t(a.size() + b.size()), kMaxPairGuard, c);
    const uint64_t key = uint64_t(m.left) << 32 | m.right;
    if (c.length && key != kNoPair) found.push_back({key, c});  // (two ids 2^32 - 1: no unit, merged as usual)
  }
  size_t cap = 16;
  while (cap < 2 * found.size()) cap *= 2;
  out_.plain_.assign(cap, PlainSlot{});
  out_.plain_filter_.assign(kFilterBits / 64, 0);
  for (const auto& [key, c] : found) {
    const uint32_t f = plain_bit(key);
    out_.plain_filter_[f >> 6] |= uint64_t(1) << (f & 63);
    size_t i = out_.plain_index(key);
    while (out_.plain_[i].key != kNoPair && out_.plain_[i].key != key) i = (i + 1) & (out_.plain_.size() - 1);
    out_.plain_[i] = {key, c};
  }
}

// ByteLevel words: every 2- and 3-byte character, and every pair of ASCII bytes.
void CharMerges::Builder::byte_level(const uint32_t* byte_id) {
  out_.chars_.assign(0x10000, Char{});
  for (uint32_t cp = 0x80; cp < 0x10000; cp++) {
    if (cp >= 0xD800 && cp < 0xE000) continue;  // (surrogates are not characters)
    uint8_t b[3];
    const uint32_t len = cp < 0x800 ? 2 : 3;
    if (len == 2) b[0] = uint8_t(0xC0 | cp >> 6), b[1] = uint8_t(0x80 | (cp & 63));
    else b[0] = uint8_t(0xE0 | cp >> 12), b[1] = uint8_t(0x80 | ((cp >> 6) & 63)), b[2] = uint8_t(0x80 | (cp & 63));
    now_.clear();
    for (uint32_t i = 0; i < len; i++) now_.push_back({byte_id[b[i]], i, i + 1});
    unit(len, SIZE_MAX, out_.chars_[cp]);
  }
  out_.pairs_.assign(128 * 128, Char{});
  for (uint32_t a = 0; a < 128; a++)
    for (uint32_t z = 0; z < 128; z++) {
      now_ = {{byte_id[a], 0, 1}, {byte_id[z], 1, 2}};
      unit(2, kMaxPairGuard, out_.pairs_[a << 7 | z]);
    }
}

}  // namespace tagpipe
