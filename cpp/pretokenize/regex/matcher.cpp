#include "pretokenize/regex/matcher.h"

#include <array>

#include "pretokenize/bytelevel.h"

namespace tagpipe::regex {
namespace {

const std::array<uint32_t, 256>& byte_chars() {
  static const auto t = [] {
    std::array<uint32_t, 256> a{};
    for (int b = 0; b < 256; b++) a[b] = pretok::byte_char(uint8_t(b));
    return a;
  }();
  return t;
}

struct Char {
  uint32_t cp, len;
};

}  // namespace

// One piece's search: the text, its bounds and the memo.
struct Matcher::Run {
  const Program& p;
  const uint8_t* text;
  uint32_t begin, end;
  bool mapped;
  MatchScratch& s;

  Char at(uint32_t i) const {
    const uint8_t b = text[i];
    if (mapped) return {byte_chars()[b], 1};
    if (b < 0x80) return {b, 1};
    if (b < 0xE0) return {(b & 0x1Fu) << 6 | (text[i + 1] & 0x3Fu), 2};
    if (b < 0xF0) return {(b & 0x0Fu) << 12 | (text[i + 1] & 0x3Fu) << 6 | (text[i + 2] & 0x3Fu), 3};
    return {(b & 0x07u) << 18 | (text[i + 1] & 0x3Fu) << 12 | (text[i + 2] & 0x3Fu) << 6 | (text[i + 3] & 0x3Fu), 4};
  }

  enum Visit { kNew, kFailed, kGood };

  // Marks (pc, pos) tried at this depth; kFailed or kGood if it already was.  (Deep: depth > 0,
  // a template argument so that the top level's hot loop pays nothing for the sub-searches.)
  template <bool Deep>
  Visit visit(uint32_t pc, uint32_t pos, uint32_t depth) {
    const uint32_t slot = p.slot[pc];
    if (slot == Program::kNoSlot) return kNew;
    const size_t bit = size_t(pos - begin) * p.slots + slot;
    uint64_t& w = s.memo[depth][bit >> 6];
    const uint64_t m = uint64_t(1) << (bit & 63);
    if (w & m) return Deep && (s.good[depth][bit >> 6] & m) ? kGood : kFailed;
    if (Deep) {
      if (!w) s.touched[depth].push_back(uint32_t(bit >> 6));
      s.trail[depth].push_back({bit, uint32_t(s.stack.size())});
    }
    w |= m;
    return kNew;
  }

  // Whether byte i is a '\n' character (on mapped text no byte stands for one: '\n' is 'Ċ').
  bool newline(uint32_t i) const { return !mapped && text[i] == '\n'; }

  // Whether the character before pos is in set `s` (false at the piece's start).
  bool before_in(uint32_t pos, const Set& s) const {
    if (pos == begin) return false;
    uint32_t i = pos - 1;
    if (!mapped)
      while (i > begin && (text[i] & 0xC0) == 0x80) --i;
    return s.test(at(i).cp);
  }

  bool check(const Inst& in, uint32_t pos) const {
    switch (in.x) {
      case kWord:
      case kNotWord: {
        const Set& w = p.sets[in.y];
        const bool edge = before_in(pos, w) != (pos < end && w.test(at(pos).cp));
        return edge == (in.x == kWord);
      }
      case kBol:  // (onig: after a newline only if the subject goes on past it)
        return pos == begin || (pos < end && newline(pos - 1));
      case kEol:
        return pos == end || newline(pos);
      case kBegin:
        return pos == begin;
      case kEnd:
        return pos == end;
      default:
        return pos == end || (pos + 1 == end && newline(pos));
    }
  }

  // A sub-search (LOOK/ATOMIC body) at depth+1.  Its memo is kept for the next one (a state
  // that failed fails again) but for the path of its match: the states on it are marked
  // good in a look-ahead (its body matches from them), or tried anew in an atomic group
  // (whose match end they do not record).
  bool sub(uint32_t pc, uint32_t pos, uint32_t depth, bool look, uint32_t& match_end) {
    const uint32_t d = depth + 1;
    const bool found = search<true>(pc, pos, d, match_end);
    if (found)
      for (const MatchScratch::Mark& k : s.trail[d]) {
        const uint64_t m = uint64_t(1) << (k.bit & 63);
        if (look) s.good[d][k.bit >> 6] |= m;
        else s.memo[d][k.bit >> 6] &= ~m;
      }
    s.trail[d].clear();
    return found;
  }

  // One step of instruction `in` at pos; false: this thread fails.
  bool step(const Inst& in, uint32_t& pc, uint32_t& pos, uint32_t depth) {
    switch (in.op) {
      case kClass: {
        if (pos >= end) return false;
        const Char c = at(pos);
        if (!p.sets[in.x].test(c.cp)) return false;
        pos += c.len, pc++;
        return true;
      }
      case kSplit:
        s.stack.push_back({in.y, pos}), pc = in.x;
        return true;
      case kJmp:
        pc = in.x;
        return true;
      case kLook: {
        uint32_t e;
        if (sub(in.x, pos, depth, true, e) == (in.y != 0)) return false;
        pc = in.z;
        return true;
      }
      case kAtomic: {
        uint32_t e;
        if (!sub(in.x, pos, depth, false, e)) return false;
        pos = e, pc = in.z;
        return true;
      }
      case kRun: {
        uint32_t n = 0;
        for (; n < in.z && pos < end; n++) {
          const Char c = at(pos);
          if (!p.sets[in.x].test(c.cp)) break;
          pos += c.len;
        }
        pc++;
        return n >= in.y;
      }
      default:
        pc++;
        return check(in, pos);  // kAssert
    }
  }

  // The leftmost match starting in [from, end] (Oniguruma's search): true, with its bounds.
  bool find(uint32_t from, uint32_t& ms, uint32_t& me) {
    for (uint32_t pos = from; pos < end;) {
      const Char c = at(pos);
      if (p.may_start(c.cp) && search<false>(0, pos, 0, me)) {
        ms = pos;
        return true;
      }
      pos += c.len;
    }
    if (!p.may_be_empty || !search<false>(0, end, 0, me)) return false;
    ms = end;
    return true;
  }

  // After a match ending at pos, before the search from pos: the states of that match at pos
  // are marked but did not fail.  (Only a program that may match the empty string reaches
  // them again: the others need no clearing.)
  void forget(uint32_t pos) {
    if (!p.may_be_empty) return;
    const size_t lo = size_t(pos - begin) * p.slots, hi = lo + p.slots;
    for (size_t bit = lo; bit < hi; bit++) s.memo[0][bit >> 6] &= ~(uint64_t(1) << (bit & 63));
  }

  // Depth-first, first target of every SPLIT first: the first MATCH reached is
  // Oniguruma's match.  Its end goes to match_end (not known when a look-ahead's body reaches
  // a state marked good: then only that it matches counts).
  template <bool Deep>
  bool search(uint32_t pc0, uint32_t pos0, uint32_t depth, uint32_t& match_end) {
    const size_t base = s.stack.size();
    s.stack.push_back({pc0, pos0});
    while (s.stack.size() > base) {
      uint32_t pc = s.stack.back().pc, pos = s.stack.back().pos;
      s.stack.pop_back();
      if (Deep) {  // the states marked since this alternative was pushed failed
        auto& trail = s.trail[depth];
        while (!trail.empty() && trail.back().height > s.stack.size()) trail.pop_back();
      }
      for (;;) {
        const Visit v = visit<Deep>(pc, pos, depth);
        if (v == kFailed) break;
        const Inst& in = p.code[pc];
        if (v == kGood || in.op == kMatch) {
          s.stack.resize(base);
          match_end = pos;
          return true;
        }
        if (!step(in, pc, pos, depth)) break;
      }
    }
    return false;
  }

  // The memos of depth > 0 back to all-zero (they are kept for the whole piece).
  void clear_deeper() {
    for (uint32_t d = 1; d <= p.depth; d++) {
      for (uint32_t w : s.touched[d]) s.memo[d][w] = s.good[d][w] = 0;
      s.touched[d].clear();
    }
  }
};

Matcher::Matcher(Program p) : p_(std::move(p)) {}

template <class OnMatch>
void Matcher::each_match(const uint8_t* text, uint32_t begin, uint32_t end, bool mapped, MatchScratch& s,
                         OnMatch&& on_match) const {
  if (begin == end) return;  // (the oracle looks for no match in an empty piece)
  Run run{p_, text, begin, end, mapped, s};
  const size_t words = (size_t(end - begin + 1) * p_.slots + 63) / 64;
  s.memo[0].assign(words, 0);
  for (uint32_t d = 1; d <= p_.depth; d++) {
    if (s.memo[d].size() < words) {  // (kept all-zero between uses)
      s.memo[d].resize(words, 0);
      s.good[d].resize(words, 0);
    }
  }
  // onig's find_iter: search from `from`; an empty match where the last match ended is
  // skipped (the search goes on one character later); after any empty match the next
  // search starts one character later.
  uint32_t from = begin, last_end = 0, ms, me;
  bool any = false;
  while (run.find(from, ms, me)) {
    const bool empty = ms == me;
    if (!(empty && any && me == last_end)) {
      on_match(ms, me);
      last_end = me, any = true;
    }
    if (!empty) {
      from = me;
      run.forget(me);
    } else if (me < end) {
      from = me + run.at(me).len;
    } else {
      break;
    }
  }
  run.clear_deeper();
}

void Matcher::split(const uint8_t* text, uint32_t begin, uint32_t end, bool mapped, pretok::Fold& fold,
                    MatchScratch& s) const {
  uint32_t gap = begin;
  each_match(text, begin, end, mapped, s, [&](uint32_t ms, uint32_t me) {
    if (gap < ms) fold.segment(gap, ms, false);
    fold.segment(ms, me, true);
    gap = me;
  });
  if (gap < end) fold.segment(gap, end, false);
  fold.finish();
}

void Matcher::find_all(const uint8_t* text, uint32_t n, std::vector<pretok::Piece>& out, MatchScratch& s) const {
  out.clear();
  each_match(text, 0, n, false, s, [&](uint32_t ms, uint32_t me) {
    out.emplace_back();
    out.back().begin = ms, out.back().end = me;
  });
}

}  // namespace tagpipe::regex
