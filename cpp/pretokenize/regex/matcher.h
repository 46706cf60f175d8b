// The backtracking matcher of a compiled regex (program.h), with a memo of the
// (instruction, position) states already tried -- RE2's "bit-state" idea -- so each state
// is explored about once per piece and the time stays linear in the piece (times the
// program's size; an atomic body's match is searched again at each position it is asked
// about).  docs/design/regex.md has the argument; tagpipe/plan/regex/ builds the programs.
#pragma once
#include <cstdint>
#include <vector>

#include "pretokenize/fold.h"
#include "pretokenize/regex/program.h"

namespace tagpipe::regex {

// Per-call working memory (a matcher is shared between threads).  memo[d]: the states tried
// at depth d (d > 0: in the bodies of look-aheads and atomic groups nested d deep); good[d]:
// those of them from which a look-ahead's body matches; trail[d]: the states tried on the
// path of the current search at depth d > 0, with the stack height when each was marked.
struct MatchScratch {
  static constexpr uint32_t kDepths = Program::kMaxDepth + 1;
  std::vector<uint64_t> memo[kDepths], good[kDepths];
  std::vector<uint32_t> touched[kDepths];  // words of memo[d > 0] and good[d > 0] to clear
  struct Mark {
    size_t bit;
    uint32_t height;
  };
  std::vector<Mark> trail[kDepths];
  struct Frame {
    uint32_t pc, pos;
  };
  std::vector<Frame> stack;
};

class Matcher {
 public:
  explicit Matcher(Program p);
  // Reports the segments of bytes [begin, end) of `text` to `fold` (then finish()): the
  // leftmost-first matches (empty ones too) onig's find_iter gives, and the gaps between them.  On
  // `mapped` text every byte is a ByteLevel character.
  void split(const uint8_t* text, uint32_t begin, uint32_t end, bool mapped, pretok::Fold& fold, MatchScratch& s) const;
  // The same matches of text[0, n) (UTF-8), in order, into `out` (a Replace normalizer's).
  void find_all(const uint8_t* text, uint32_t n, std::vector<pretok::Piece>& out, MatchScratch& s) const;

 private:
  struct Run;
  template <class OnMatch>
  void each_match(const uint8_t* text, uint32_t begin, uint32_t end, bool mapped, MatchScratch& s,
                  OnMatch&& on_match) const;
  Program p_;
};

}  // namespace tagpipe::regex
