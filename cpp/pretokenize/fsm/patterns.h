// The regex families tagpipe runs natively: each is a state machine over one alphabet's
// tag stream that reports exactly the segments Oniguruma's find_iter reports for the
// pattern (tokenizers/src/tokenizer/pattern.rs): matches, and the gaps between them.
// The Python plan recognises a family by the exact spelling of its pattern.
#pragma once
#include <cstdint>
#include <string_view>

#include "kernels/classify/alphabet.h"
#include "pretokenize/fold.h"
#include "pretokenize/fsm/cursor.h"

namespace tagpipe::fsm {

// Reports the segments of [begin, c.end) to `fold` (the piece is never empty).
using PatternFn = void (*)(const Cursor& c, uint32_t begin, pretok::Fold& fold);

struct Pattern {
  const char* name;
  AlphabetId alphabet;
  PatternFn run;
  PatternFn run_scalar;  // the scalar state machine: the specification `run` is tested against
  // Matches start only at characters tagged start_lo..start_hi (0: anywhere): a piece with
  // none is one gap, and the stage passes it on without running the pattern.
  uint8_t start_lo = 0, start_hi = 0;
  // `run` takes a cursor with room (scan_blocks.h) on text that is not byte-mapped.
  bool fills_tags = false;
};

// nullptr when there is no family of that name.
const Pattern* find_pattern(std::string_view name);

// The families (one file each).
void gpt2(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void gpt2_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void cl100k(const Cursor& c, uint32_t begin, pretok::Fold& fold);             // \p{N}{1,3}
void cl100k_digit_runs(const Cursor& c, uint32_t begin, pretok::Fold& fold);  // \p{N}{1,3}+ = \p{N}+
void qwen2(const Cursor& c, uint32_t begin, pretok::Fold& fold);              // \p{N}
void cl100k_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void cl100k_digit_runs_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void qwen2_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void o200k(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void o200k_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void deepseek_numbers(const Cursor& c, uint32_t begin, pretok::Fold& fold);     // \p{N}{1,3}
void deepseek_cjk(const Cursor& c, uint32_t begin, pretok::Fold& fold);         // [一-龥\u3040-ゟ゠-ヿ]+
void deepseek_words(const Cursor& c, uint32_t begin, pretok::Fold& fold);       // the third Split
void ascii_digit_triples(const Cursor& c, uint32_t begin, pretok::Fold& fold);  // [0-9][0-9][0-9]
void deepseek_numbers_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void deepseek_cjk_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void deepseek_words_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);
void ascii_digit_triples_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold);

// Shared tails of the whitespace alternatives, on any alphabet with these three tags.
struct WsTags {
  TagSet ws;    // \s (Cont included)
  int newline;  // [\r\n]
};

// `\s+(?!\S)|\s+` at whitespace i: the run to the end of input, else the run without its
// last character (left for the next match) unless the run is a single character.
inline uint32_t ws_lookahead(const Cursor& c, uint32_t i, uint32_t run_end) {
  if (run_end == c.end) return run_end;
  const uint32_t last = c.last_char(i, run_end);
  return last > i ? last : run_end;
}

// `\s*[\r\n]+|\s+(?!\S)|\s+` at whitespace i: through the last newline of the run when it
// has one (\s* backtracks to it; [\r\n]+ cannot extend past it), else ws_lookahead.
inline uint32_t ws_newline_or_lookahead(const Cursor& c, uint32_t i, const WsTags& t) {
  uint32_t j = i, after_newline = 0;
  while (j < c.end && ((t.ws >> c.tags[j]) & 1)) {
    if (c.tags[j] == t.newline) after_newline = j + 1;
    ++j;
  }
  return after_newline ? after_newline : ws_lookahead(c, i, j);
}

}  // namespace tagpipe::fsm
