// [0-9][0-9][0-9] (falcon, run after ByteLevel): leftmost, non-overlapping triples of ASCII
// digits; everything else is gap.
#include "alphabet_regex.h"
#include "fsm/patterns.h"

namespace tagpipe::fsm {

void ascii_digit_triples(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  using tables::regex::Digit;
  uint32_t gap = begin;
  for (uint32_t i = begin; i < c.end;) {
    if (c.tag(i) == Digit && c.tag(i + 1) == Digit && c.tag(i + 2) == Digit) {
      if (gap < i) fold.segment(gap, i, false);
      fold.segment(i, i + 3, true);
      i = gap = i + 3;
    } else {
      i = c.next(i);
    }
  }
  if (gap < c.end) fold.segment(gap, c.end, false);
}

}  // namespace tagpipe::fsm
