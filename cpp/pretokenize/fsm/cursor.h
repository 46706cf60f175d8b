// Reading a tag stream inside one piece: the helpers every state machine is written with.
//
// tags[i] is the alphabet tag of the character starting at byte i, or Cont (0) on a
// continuation byte.  A class set is a bitmask over tags; every set used for a run
// includes bit 0 (Cont), so a run skips the rest of each character for free.
#pragma once
#include <cstdint>

namespace tagpipe::fsm {

using TagSet = uint32_t;  // bit t: tag t is in the set (alphabets used here have < 32 tags)

constexpr TagSet bits() { return 0; }
template <class... T>
constexpr TagSet bits(int t, T... rest) { return (TagSet(1) << t) | bits(rest...); }

struct Cursor {
  const uint8_t* tags;
  const uint8_t* bytes;
  uint32_t end;       // the piece's end: the end of the input for the pattern
  bool byte_mapped;   // every byte is one (ByteLevel) character: non-ASCII literals never match

  // Tag of the character at i (a character start), or -1 at the end.
  int tag(uint32_t i) const { return i < end ? tags[i] : -1; }
  bool in(uint32_t i, TagSet s) const { return i < end && ((s >> tags[i]) & 1); }
  // Start of the character after the one at i.
  uint32_t next(uint32_t i) const {
    do ++i;
    while (i < end && tags[i] == 0);
    return i;
  }
  // End of the run of characters in `s` (which must include Cont) starting at i.
  uint32_t run(uint32_t i, TagSet s) const {
    while (i < end && ((s >> tags[i]) & 1)) ++i;
    return i;
  }
  // The first character at or after i tagged lo..hi (1 <= lo <= hi: never Cont), or end.
  // 16 tags a step with no branch on each (a loop the compiler vectorises), then the one
  // step that holds it tag by tag: the characters a pattern cannot start at are passed
  // over cheaply.
  uint32_t find(uint32_t i, int lo, int hi) const {
    const uint8_t span = uint8_t(hi - lo);
    for (; i + 16 <= end; i += 16) {
      bool any = false;
      for (uint32_t k = 0; k < 16; k++) any |= uint8_t(tags[i + k] - lo) <= span;
      if (any) break;
    }
    while (i < end && uint8_t(tags[i] - lo) > span) ++i;
    return i;
  }
  // Start of the last character before position j (> i), not going below i.
  uint32_t last_char(uint32_t i, uint32_t j) const {
    do --j;
    while (j > i && tags[j] == 0);
    return j;
  }
  // ASCII byte at i (case-folded to lower if `fold`), or 0 past the end.
  uint8_t ascii(uint32_t i) const { return i < end ? bytes[i] : 0; }
};

// A contraction right after an apostrophe at i: 's 't 're 've 'm 'll 'd.  Returns the end
// of the match or 0.  With `ignore_case`, Oniguruma's (?i:...) also takes the upper case
// letters and U+017F LATIN SMALL LETTER LONG S for s (tests check this against the oracle).
inline uint32_t contraction(const Cursor& c, uint32_t i, bool ignore_case) {
  auto lower = [&](uint32_t k) -> uint8_t {
    uint8_t b = c.ascii(k);
    return ignore_case && b >= 'A' && b <= 'Z' ? uint8_t(b + 32) : b;
  };
  const uint8_t a = lower(i + 1);
  if (a == 's' || a == 't' || a == 'm' || a == 'd') return i + 2;
  if ((a == 'r' || a == 'v') && lower(i + 2) == 'e') return i + 3;
  if (a == 'l' && lower(i + 2) == 'l') return i + 3;
  if (ignore_case && !c.byte_mapped && i + 3 <= c.end && c.bytes[i + 1] == 0xC5 && c.bytes[i + 2] == 0xBF)
    return i + 3;  // ſ
  return 0;
}

}  // namespace tagpipe::fsm
