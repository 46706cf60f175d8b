// Running a regex family 64 bytes at a time.
//
// The scalar state machines (gpt2.cpp, cl100k.cpp, ...) decide one match after another: a
// data-dependent branch or two per piece, which costs more than the rest of the work.  A
// family with block rules instead computes, for a whole 64-byte block, the mask of bytes
// where a match starts ("cuts") from the class window (kernels/window/window.h) with branch-free
// bit operations, and the mask of bytes where its rules are not trusted ("dirty":
// situations they do not model, such as a run of 4+ digits under \p{N}{1,3}).  A dirty
// block is handed to the family's scalar state machine, which is the specification.
//
// Both describe the same regex exactly, so they agree on every cut; the tests check the
// blocks against the scalar state machine (cpp/selftest) and both against the oracle.
#pragma once
#include <cstdint>

#include "dispatch/kernels.h"
#include "pretokenize/fsm/cursor.h"
#include "pretokenize/fold.h"
#include "kernels/window/window.h"

namespace tagpipe::fsm {

// Bit helpers over one block.  A mask has a bit per byte; masks "at starts" have bits
// only where characters start.
struct Bits {
  uint64_t start, cont;  // character starts, continuation bytes (inside the piece)
  uint64_t first;        // bit 0 in the piece's first block: a match starts there

  // X spread over the continuation bytes of each character whose start is in X.
  uint64_t spread(uint64_t x, uint64_t carry_in) const {
    if (!cont) return x;  // (an ASCII block: nothing to spread over -- most blocks of English and code)
    x |= carry_in & cont & 1;
    for (int k = 0; k < 3; k++) x |= (x << 1) & cont;
    return x;
  }
};

// prevchar(X): at each character start, whether the character before it is in X.
struct PrevChar {
  uint64_t carry = 0;  // X spread, bit 63 of the previous block
  uint64_t operator()(const Bits& b, uint64_t x) {
    const uint64_t s = b.spread(x, carry);
    const uint64_t out = ((s << 1) | carry) & b.start;
    carry = s >> 63;
    return out;
  }
};

// Cut changes a contraction makes past the end of its block.
struct Carried {
  uint32_t clear_below = 0;  // no cut before this position ...
  uint32_t cut_at = 0;       // ... and a cut here (0: none)

  void apply(uint32_t q, uint64_t& cut) const {
    if (clear_below > q) cut &= clear_below - q >= 64 ? 0 : ~uint64_t(0) << (clear_below - q);
    if (cut_at >= q && cut_at - q < 64) cut |= uint64_t(1) << (cut_at - q);
  }
};

// \p{N}{1,3}: a cut before the 4th, 7th, ... digit of every run (cl100k.cpp, o200k.cpp).
// Only digits are visited; a digit whose previous character is not one starts a run
// (already cut).
struct DigitTriples {
  uint32_t run = 0;  // digits so far in the run that reaches the end of the block

  void apply(uint64_t N, uint64_t pN, uint64_t& cut) {
    if (!(N | run)) return;
    uint32_t count = run;
    for (uint64_t m = N; m; m &= m - 1) {
      const uint64_t bit = m & -m;
      if (!(pN & bit)) count = 0;
      if (count == 3) cut |= bit, count = 0;
      count++;
    }
    run = count;  // a run continuing into the next block goes on counting there
  }
};

// \s*[\r\n]+ past an S/W run after a newline (cl100k.cpp, o200k.cpp): when another newline
// follows the run, the match of the newline before it runs on through it, so no match
// starts at the run's first character -- unless that newline was taken by an O run
// (`keep`: then a match starts there anyway).  Adding each run's first bit to the run's
// bytes finds the byte after it; where that is a newline, the run's start loses its cut.
// A run that reaches the block's end is followed in the tags past it.
struct NewlineRuns {
  uint64_t spread_carry = 0, carry = 0;

  // SW: S/W characters; starts: those right after a newline; NL: newline bytes; sw_tags,
  // newline: the tags of S/W (Cont included) and of a newline.
  void apply(const Bits& b, uint64_t SW, uint64_t starts, uint64_t NL, uint64_t keep, uint32_t q, const Cursor& c,
             TagSet sw_tags, int newline, uint64_t& cut) {
    const uint64_t sw_bytes = b.spread(SW, spread_carry);
    spread_carry = sw_bytes >> 63;
    uint64_t sum;
    const bool c1 = __builtin_add_overflow(sw_bytes, starts, &sum);
    const bool c2 = __builtin_add_overflow(sum, carry, &sum);
    carry = c1 | c2;
    for (uint64_t bad = sum & ~sw_bytes & NL; bad; bad &= bad - 1) {
      const uint64_t below = starts & ((bad & -bad) - 1);
      if (below) cut &= ~(uint64_t(1) << (63 - __builtin_clzll(below)) & ~keep);
    }
    if (!carry || !starts) return;
    const int s = 63 - __builtin_clzll(starts);  // the last run's start: does the run reach the end?
    if ((sw_bytes >> s) != (~uint64_t(0) >> s) || ((keep >> s) & 1)) return;
    uint32_t j = q + 64;
    while (j < c.end && ((sw_tags >> c.tags[j]) & 1)) j++;
    if (j < c.end && c.tags[j] == newline) cut &= ~(uint64_t(1) << s);
  }
};

// A contraction at each apostrophe that starts a match (in `cut`): the match is the
// contraction, so no cut inside it and a cut right after it.  `joins`: the contraction is
// the end of the match before it instead (o200k's letters(?i:'s|...)?), so no cut at the
// apostrophe either -- unless the letter before it ends a contraction ("x'd's": the match
// ended there, and the apostrophe starts the next).
inline void contractions(const Cursor& c, uint32_t q, uint64_t apostrophes, bool ignore_case, uint64_t& cut,
                         Carried& carried, bool joins = false) {
  uint64_t a = apostrophes & cut;
  uint32_t last_end = carried.cut_at;
  while (a) {
    const int j = __builtin_ctzll(a);
    a &= a - 1;
    if (!((cut >> j) & 1)) continue;  // an earlier contraction swallowed it
    if (joins && q + j == last_end) continue;
    const uint32_t end = contraction(c, q + j, ignore_case);
    if (!end) continue;
    last_end = end;
    const uint32_t k = end - q;  // 2..3 past j, possibly past the block
    const uint64_t above = joins ? ~uint64_t(0) << j : j == 63 ? 0 : ~uint64_t(0) << (j + 1);  // (no shift by 64)
    const uint64_t inside = k >= 64 ? above : ((uint64_t(1) << k) - 1) & above;
    cut &= ~inside;
    if (k < 64) {
      if (end < c.end) cut |= uint64_t(1) << k;
    } else {
      carried.clear_below = end;
      carried.cut_at = end < c.end ? end : 0;
    }
    a &= ~inside;
  }
}

// Drives `Rules` over the piece [begin, c.end) and reports each match to `fold`.
//   Rules::kRemap                 regex-alphabet tag -> class bits
//   rules.block(w, bits, q, c, cut, dirty)   fills cut / dirty for block q (cut includes bits.first)
//   Rules::match_end(c, i)        the scalar state machine: end of the match at i
template <class Rules>
void run_blocks(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  const WindowFn window = kernels::active().window;
  Rules rules;
  uint32_t last = begin;  // the last match start reported: everything before it is done
  Window w;
  for (uint32_t q = begin; q < c.end; q += 64) {
    window(c.tags, q, begin, c.end, Rules::kRemap, w);
    const Bits bits{w.start, ~w.start & (c.end - q >= 64 ? ~uint64_t(0) : (uint64_t(1) << (c.end - q)) - 1),
                    q == begin ? uint64_t(1) : 0};
    uint64_t cut = 0, dirty = 0;
    rules.block(w, bits, q, c, cut, dirty);
    if (dirty || last > q + 64) {
      // The scalar state machine from the last match start, through this block.
      uint32_t i = last;
      while (i < c.end && i < q + 64) {
        const uint32_t e = Rules::match_end(c, i);
        fold.segment(i, e, true);
        i = e;
      }
      last = i;
      continue;
    }
    if (last >= q) cut &= last - q >= 63 ? 0 : ~uint64_t(0) << (last - q + 1);  // decided already
    while (cut) {
      const uint32_t pos = q + uint32_t(__builtin_ctzll(cut));
      cut &= cut - 1;
      fold.segment(last, pos, true);
      last = pos;
    }
  }
  if (last < c.end) fold.segment(last, c.end, true);
}

}  // namespace tagpipe::fsm
