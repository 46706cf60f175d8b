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
// between them, as find_iter reports them.  start(i): the first character at or after i
// where a match may start (i itself for the specification; the fast forms pass over the
// characters that cannot start one -- every one but a digit, for \p{N}{1,3}).
template <class Start, class MatchEnd>
void scan(const Cursor& c, uint32_t begin, pretok::Fold& fold, Start start, MatchEnd match_end) {
  uint32_t gap = begin;
  for (uint32_t i = start(begin); i < c.end;) {
    const uint32_t e = match_end(i);
    if (!e) {
      i = start(c.next(i));
      continue;
    }
    if (gap < i) fold.segment(gap, i, false);
    fold.segment(i, e, true);
    gap = e;
    i = start(e);
  }
  if (gap < c.end) fold.segment(gap, c.end, false);
}

constexpr auto kEvery = [](uint32_t i) { return i; };

uint32_t numbers_end(const Cursor& c, uint32_t i) {
  uint32_t j = i;
  for (int n = 0; n < 3 && c.in(j, kN); n++) j = c.next(j);
  return j > i ? j : 0;
}

uint32_t cjk_end(const Cursor& c, uint32_t i) { return c.in(i, kCjk) ? c.run(i, kCjk) : 0; }

}  // namespace

void deepseek_numbers(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, [&](uint32_t i) { return c.find(i, Number, Number); },
       [&](uint32_t i) { return numbers_end(c, i); });
}
void deepseek_numbers_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, kEvery, [&](uint32_t i) { return numbers_end(c, i); });
}

// (The four CJK tags are consecutive: CjkLetter .. CjkOther.)
static_assert(CjkMark == CjkLetter + 1 && CjkPunctSym == CjkLetter + 2 && CjkOther == CjkLetter + 3);
void deepseek_cjk(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, [&](uint32_t i) { return c.find(i, CjkLetter, CjkOther); },
       [&](uint32_t i) { return cjk_end(c, i); });
}
void deepseek_cjk_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, kEvery, [&](uint32_t i) { return cjk_end(c, i); });
}

void deepseek_words(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, kEvery, [&](uint32_t i) -> uint32_t {
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
