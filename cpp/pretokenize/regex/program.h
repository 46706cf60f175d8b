// A compiled regex (tagpipe/plan/regex/compile.py builds it, docs/design/regex.md): the
// character sets it tests and the code of a backtracking VM whose SPLIT tries its first
// target first -- Oniguruma's leftmost-first priorities.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace tagpipe::regex {

enum Op : uint32_t {
  kClass,   // x: set; consume one character in it
  kSplit,   // try x, then y
  kJmp,     // x
  kMatch,   // the end of the pattern, or of a LOOK/ATOMIC body
  kLook,    // x: body, y: 1 if negative, z: next -- zero-width look-ahead
  kAtomic,  // x: body, z: next -- continue after the body's first match, never revisit it
  kRun,     // x: set, y: min, z: max -- possessive run of one set
  kAssert,  // x: AssertKind; y: the set of \w for kWord / kNotWord
  kOpCount
};
enum AssertKind : uint32_t { kBol, kEol, kBegin, kEnd, kEndNl, kWord, kNotWord, kAssertCount };
constexpr uint32_t kInf = 0xFFFFFFFF;

// negate XOR (cp in ranges OR cp's atom in mask); the ASCII answers precomputed.
struct Set {
  bool negate = false;
  uint64_t mask = 0;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;  // sorted, disjoint
  uint64_t ascii[2] = {0, 0};
  bool test_slow(uint32_t cp) const;
  bool test(uint32_t cp) const { return cp < 128 ? (ascii[cp >> 6] >> (cp & 63)) & 1 : test_slow(cp); }
};

struct Inst {
  uint32_t op, x, y, z;
};

struct Program {
  std::vector<Set> sets;
  std::vector<Inst> code;
  std::vector<uint32_t> first;  // sets a match can start with (empty: any character)
  uint64_t first_ascii[2] = {0, 0};
  // Memo slot of each instruction where two paths may meet (kNoSlot elsewhere).
  std::vector<uint32_t> slot;
  uint32_t slots = 0;
  uint32_t depth = 0;  // deepest nesting of LOOK/ATOMIC bodies
  // Whether a match may be empty (a superset: look-aheads, anchors and atomic bodies pass).
  bool may_be_empty = false;

  static constexpr uint32_t kNoSlot = 0xFFFFFFFF;
  static constexpr uint32_t kMaxDepth = 8;
  // Throws std::invalid_argument for words that are not a valid program.
  static Program decode(const std::vector<uint32_t>& words);
  bool may_start(uint32_t cp) const;
};

uint8_t atom_of(uint32_t cp);

}  // namespace tagpipe::regex
