// The decoders, one unit each (the oracle's tokenizers/src/decoders/*.rs, and the decode
// halves of its ByteLevel and Metaspace pre-tokenizers and of its Replace normalizer).
//
// A per-token decoder appends what it makes of one token to `out`; `first` / `last` say
// where the token is in the list (Metaspace and WordPiece treat the first one apart,
// BPEDecoder the last).  The others read a whole list and write another.
#pragma once
#include <string>
#include <string_view>

#include "decode/arena.h"
#include "decode/step.h"

namespace tagpipe::decode {

// ByteLevel: the bytes a token's characters stand for (GPT-2's map); a token with any
// other character stands for its own UTF-8.  (The list is then joined, invalid UTF-8 lossily.)
void byte_level_token(std::string_view token, std::string& out);

// Metaspace: each replacement character becomes a space -- or, in the first token when the
// encoder prepended one, goes.
void metaspace_token(const Step& s, std::string_view token, bool first, std::string& out);

// WordPiece: a token after the first loses the prefix, or else is preceded by a space; then,
// with cleanup, the spaces before punctuation and contractions go (wordpiece_cleanup).
void wordpiece_token(const Step& s, std::string_view token, bool first, std::string& out);
void wordpiece_cleanup(std::string_view in, std::string& out);

// BPEDecoder: the suffix becomes a space, in the last token nothing.
void bpe_token(const Step& s, std::string_view token, bool last, std::string& out);

// Replace (a literal pattern): every occurrence, left to right, without overlap.
void replace_token(const Step& s, std::string_view token, std::string& out);

// Strip: up to `start` content characters at the front, `stop` at the end.  False where the
// oracle panics (it indexes before the token's start, or the two cuts cross).
bool strip_token(const Step& s, std::string_view token, std::string_view* out);

// ByteFallback: each run of "<0xHH>" tokens becomes its bytes when they are UTF-8, else one
// U+FFFD per byte.
void byte_fallback(const Tokens& in, Tokens& out, Arena& arena, std::string& tmp);

// CTC: repeats of a token collapse, pad tokens go, then (cleanup) wordpiece_cleanup and the
// word delimiter becomes a space; tokens left empty go.
void ctc(const Step& s, const Tokens& in, Tokens& out, Arena& arena, std::string& tmp);

// Rust's str::replace: every occurrence of `from` in `in`, left to right, without overlap,
// replaced by `to`, appended to `out`.  An empty `from` occurs before every character and
// at the end.
void replace_all(std::string_view in, std::string_view from, std::string_view to, std::string& out);

}  // namespace tagpipe::decode
