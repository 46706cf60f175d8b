// The deepseek-v3 Split triple, each Isolated and run piece by piece:
//   1. \p{N}{1,3}
//   2. [一-龥\u3040-ゟ゠-ヿ]+
//   3. [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
//      | ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// Not every character starts a match: where none does, find_iter moves on one character
// and the skipped characters become a gap (a non-match segment).
#include "alphabet_deepseek.h"
#include "fsm/patterns.h"

namespace tagpipe::fsm {
namespace {

using namespace tables::deepseek;
constexpr TagSet kN = bits(Number);
constexpr TagSet kCjk = bits(Cont, CjkLetter, CjkMark, CjkPunctSym, CjkOther);
constexpr TagSet kLM = bits(Cont, Letter, AsciiLetter, CjkLetter, Mark, CjkMark);   // [\p{L}\p{M}]
constexpr TagSet kPS = bits(Cont, PunctSym, AsciiPunctSym, CjkPunctSym);           // [\p{P}\p{S}]
constexpr TagSet kWs = bits(Cont, Space, Newline, WsOther);
// [^\r\n\p{L}\p{P}\p{S}]
constexpr TagSet kPrefix = bits(Mark, Number, Space, WsOther, Other, CjkMark, CjkOther);
constexpr WsTags kWsTags{kWs, Newline};

// Runs a pattern given as "end of the match starting at i, or 0": matches and the gaps
// between them, as find_iter reports them.
template <class MatchEnd>
void scan(const Cursor& c, uint32_t begin, pretok::Fold& fold, MatchEnd match_end) {
  uint32_t gap = begin;
  for (uint32_t i = begin; i < c.end;) {
    const uint32_t e = match_end(i);
    if (!e) {
      i = c.next(i);
      continue;
    }
    if (gap < i) fold.segment(gap, i, false);
    fold.segment(i, e, true);
    i = gap = e;
  }
  if (gap < c.end) fold.segment(gap, c.end, false);
}

}  // namespace

void deepseek_numbers(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, [&](uint32_t i) -> uint32_t {
    uint32_t j = i;
    for (int n = 0; n < 3 && c.in(j, kN); n++) j = c.next(j);
    return j > i ? j : 0;
  });
}

void deepseek_cjk(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, [&](uint32_t i) -> uint32_t { return c.in(i, kCjk) ? c.run(i, kCjk) : 0; });
}

void deepseek_words(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, [&](uint32_t i) -> uint32_t {
    const int t = c.tags[i];
    // [ASCII punctuation][A-Za-z]+
    if (t == AsciiPunctSym && c.in(i + 1, bits(AsciiLetter))) return c.run(i + 1, bits(AsciiLetter));
    // [^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
    if ((kPrefix >> t) & 1) {
      const uint32_t j = c.next(i);
      if (c.in(j, kLM & ~bits(Cont))) return c.run(j, kLM);
    }
    if ((kLM >> t) & 1) return c.run(i, kLM);
    // ` ?[\p{P}\p{S}]+[\r\n]*`
    const uint32_t s = t == Space ? i + 1 : i;
    if (c.in(s, kPS & ~bits(Cont))) return c.run(c.run(s, kPS), bits(Newline));
    if ((kWs >> t) & 1) return ws_newline_or_lookahead(c, i, kWsTags);
    return 0;  // Number or Other with no letter after it: no alternative starts here
  });
}

}  // namespace tagpipe::fsm
