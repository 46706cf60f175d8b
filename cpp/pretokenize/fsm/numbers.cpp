// [0-9][0-9][0-9] (falcon, run after ByteLevel): leftmost, non-overlapping triples of ASCII
// digits; everything else is gap.
#include "alphabet_regex.h"
#include "pretokenize/fsm/patterns.h"

namespace tagpipe::fsm {

namespace {
// start(i): the first character at or after i where a triple may start (i itself for the
// specification; the fast form passes over everything but digits).
template <class Start>
void triples(const Cursor& c, uint32_t begin, pretok::Fold& fold, Start start) {
  using tables::regex::Digit;
  uint32_t gap = begin;
  for (uint32_t i = start(begin); i < c.end;) {
    if (c.tag(i) == Digit && c.tag(i + 1) == Digit && c.tag(i + 2) == Digit) {
      if (gap < i) fold.segment(gap, i, false);
      fold.segment(i, i + 3, true);
      gap = i + 3;
      i = start(gap);
    } else {
      i = start(c.next(i));
    }
  }
  if (gap < c.end) fold.segment(gap, c.end, false);
}
}  // namespace

void ascii_digit_triples(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  using tables::regex::Digit;
  triples(c, begin, fold, [&](uint32_t i) { return c.find(i, Digit, Digit); });
}
void ascii_digit_triples_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  triples(c, begin, fold, [](uint32_t i) { return i; });
}

}  // namespace tagpipe::fsm
