// o200k (gpt-4o):
//   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//   |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//   |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
// With U = [Lu Lt Lm Lo M] ("upper") and W = [Ll Lm Lo M] ("lower"), Lm Lo M are in both.
// Every character starts a match.
#include "alphabet_regex.h"
#include "fsm/patterns.h"

namespace tagpipe::fsm {
namespace {

using namespace tables::regex;
constexpr TagSet kU = bits(Cont, Upper, LetterOther, Mark);
constexpr TagSet kW = bits(Cont, Lower, LetterOther, Mark);
constexpr TagSet kBoth = bits(LetterOther, Mark);
constexpr TagSet kN = bits(Number, Digit);
constexpr TagSet kWs = bits(Cont, Space, Newline, WsOther);
constexpr TagSet kOther = bits(Cont, Mark, Apostrophe, Slash, Other);            // [^\s\p{L}\p{N}]
constexpr TagSet kPrefix = bits(Space, WsOther, Mark, Apostrophe, Slash, Other);  // [^\r\n\p{L}\p{N}]
constexpr WsTags kWsTags{kWs, Newline};

uint32_t with_contraction(const Cursor& c, uint32_t e) {
  if (c.tag(e) == Apostrophe)
    if (uint32_t k = contraction(c, e, true)) return k;
  return e;
}

// Alternative 1 from s: U* W+ C?.  U* is greedy and gives characters back until W+ can
// start: at the end of the U run if a lower-only letter is there, else at the last
// character of the run that is also in W.  0 if there is none.
uint32_t upper_star_lower_plus(const Cursor& c, uint32_t s) {
  uint32_t j = s, last_both = UINT32_MAX;
  while (j < c.end && ((kU >> c.tags[j]) & 1)) {
    if ((kBoth >> c.tags[j]) & 1) last_both = j;
    ++j;
  }
  const uint32_t w = c.in(j, bits(Lower)) ? j : last_both;
  if (w == UINT32_MAX) return 0;
  return with_contraction(c, c.run(w, kW));
}

// Alternative 2 from s: U+ W* C?.  0 if s does not start a U run.
uint32_t upper_plus_lower_star(const Cursor& c, uint32_t s) {
  if (!c.in(s, kU & ~bits(Cont))) return 0;
  return with_contraction(c, c.run(c.run(s, kU), kW));
}

uint32_t match_end(const Cursor& c, uint32_t i) {
  const int t = c.tags[i];
  const bool prefix = (kPrefix >> t) & 1;
  const uint32_t after = prefix ? c.next(i) : 0;
  // Each letter alternative first with the optional [^\r\n\p{L}\p{N}] taken, then without.
  for (auto alt : {upper_star_lower_plus, upper_plus_lower_star}) {
    if (prefix && after < c.end)
      if (uint32_t e = alt(c, after)) return e;
    if (uint32_t e = alt(c, i)) return e;
  }
  if ((kN >> t) & 1) {  // \p{N}{1,3}
    uint32_t j = i;
    for (int n = 0; n < 3 && c.in(j, kN); n++) j = c.next(j);
    return j;
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n/]*`
  const uint32_t s = t == Space ? i + 1 : i;
  if (c.in(s, kOther & ~bits(Cont))) return c.run(c.run(s, kOther), bits(Newline, Slash));
  return ws_newline_or_lookahead(c, i, kWsTags);
}

}  // namespace

void o200k(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  for (uint32_t i = begin; i < c.end;) {
    const uint32_t e = match_end(c, i);
    fold.segment(i, e, true);
    i = e;
  }
}

}  // namespace tagpipe::fsm
