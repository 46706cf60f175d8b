#include "pretokenize/fsm/patterns.h"

#include "alphabet_deepseek.h"
#include "alphabet_regex.h"

namespace tagpipe::fsm {

namespace {
// name, alphabet, run, run_scalar, the tags its matches start at (where not every one),
// and whether run fills the tags it reads.  Every family is exact on ByteLevel-mapped text too: none reads a non-ASCII
// literal there (cursor.h, contraction()).
const Pattern kPatterns[] = {
    {"gpt2", AlphabetId::regex, gpt2, gpt2_scalar, 0, 0, true},
    {"cl100k", AlphabetId::regex, cl100k, cl100k_scalar, 0, 0, true},
    {"cl100k_digit_runs", AlphabetId::regex, cl100k_digit_runs, cl100k_digit_runs_scalar, 0, 0, true},
    {"qwen2", AlphabetId::regex, qwen2, qwen2_scalar, 0, 0, true},
    {"o200k", AlphabetId::regex, o200k, o200k_scalar, 0, 0, true},
    {"deepseek_numbers", AlphabetId::deepseek, deepseek_numbers, deepseek_numbers_scalar, tables::deepseek::Number,
     tables::deepseek::Number},
    {"deepseek_cjk", AlphabetId::deepseek, deepseek_cjk, deepseek_cjk_scalar, tables::deepseek::CjkLetter,
     tables::deepseek::CjkOther},
    {"deepseek_words", AlphabetId::deepseek, deepseek_words, deepseek_words_scalar},
    {"ascii_digit_triples", AlphabetId::regex, ascii_digit_triples, ascii_digit_triples_scalar, tables::regex::Digit,
     tables::regex::Digit},
};
}  // namespace

const Pattern* find_pattern(std::string_view name) {
  for (const Pattern& p : kPatterns)
    if (name == p.name) return &p;
  return nullptr;
}

}  // namespace tagpipe::fsm
