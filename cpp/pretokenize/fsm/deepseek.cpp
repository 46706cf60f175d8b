// The deepseek-v3 Split triple, each Isolated and run piece by piece:
//   1. \p{N}{1,3}
//   2. [一-龥\u3040-ゟ゠-ヿ]+
//   3. [!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+
//      | ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// Not every character starts a match: where none does, find_iter moves on one character
// and the skipped characters become a gap (a non-match segment).
#include "alphabet_deepseek.h"
#include "pretokenize/fsm/blocks.h"
#include "pretokenize/fsm/patterns.h"

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

namespace {

// The third Split's match at i, or 0.
uint32_t words_end(const Cursor& c, uint32_t i) {
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
}

// The end of the segment at i for run_blocks: the match there, or the gap of characters
// where no match starts.
uint32_t words_segment_end(const Cursor& c, uint32_t i) {
  if (const uint32_t e = words_end(c, i)) return e;
  uint32_t j = c.next(i);
  while (j < c.end && !words_end(c, j)) j = c.next(j);
  return j;
}

// The third Split as block rules, for a fold that makes every segment a piece (Isolated,
// not inverted: then a gap is a piece like a match, and only where segments start
// matters).  Classes: LM = [\p{L}\p{M}], AL = [A-Za-z], X = the rest that is neither
// [\p{P}\p{S}] nor whitespace (\p{N}, and what no class holds), P = [\p{P}\p{S}], AP = its
// ASCII part, S = ' ', NL = \r \n, W = the other whitespace.  A segment starts at a character:
//   - LM after non-LM, unless after S, W or X (the [^\r\n\p{L}\p{P}\p{S}]? prefix: that
//     character starts the match and takes the letters), or an AL right after an AP that
//     starts a match ([AP][A-Za-z]+);
//   - an AP starts a match unless it follows P (inside a P run) or ' ' (` ?[\p{P}\p{S}]+`);
//   - P after non-P, unless after ' ';
//   - X before LM (the prefix), or X after non-X (a gap of X characters: no alternative
//     starts at an X without LM after it);
//   - whitespace as in cl100k.cpp: after non-whitespace, unless it is a newline the P run
//     before it takes (`[\r\n]*`); S or W after a newline (NewlineRuns); S or W after S or W
//     when non-whitespace follows (\s+(?!\S) gives the last one back).
// Not modelled, so the block goes to the scalar machine: an LM that is not AL after an AL
// (a [AP][A-Za-z]+ match ends there, a letter run does not).
enum : uint8_t { cLM = 1, cAL = 2, cX = 4, cP = 8, cAP = 16, cS = 32, cNL = 64, cW = 128 };

struct WordRules {
  static constexpr uint8_t kRemap[16] = {
      0, cLM, cLM | cAL, cLM, cX, cP, cP | cAP, cS, cNL, cW, cX, cLM, cLM, cP, cX,  // Cont .. CjkOther
  };
  PrevChar prev_ap_start, prev_absorbed;
  uint64_t absorbed_carry = 0;
  NewlineRuns newline_runs;

  void block(const Window& w, const Bits& b, uint32_t q, const Cursor& c, uint64_t& cut, uint64_t& dirty) {
    const uint64_t LM = w.cur[0], AL = w.cur[1], X = w.cur[2], P = w.cur[3], AP = w.cur[4], S = w.cur[5],
                   NL = w.cur[6], W = w.cur[7];
    const uint64_t pLM = w.prev[0], pAL = w.prev[1], pX = w.prev[2], pP = w.prev[3], pS = w.prev[5],
                   pNL = w.prev[6], pW = w.prev[7];
    const uint64_t nLM = w.next[0], nNW = w.next[0] | w.next[2] | w.next[3];
    const uint64_t WS = S | W | NL, SW = S | W, pWS = pS | pW | pNL, pSW = pS | pW;
    // Newlines taken by the P run before them (as cl100k.cpp's after an O run).
    uint64_t sum;
    const bool c1 = __builtin_add_overflow(NL, NL & pP, &sum);
    const bool c2 = __builtin_add_overflow(sum, absorbed_carry, &sum);
    absorbed_carry = c1 | c2;
    const uint64_t absorbed = NL & ~sum;
    const uint64_t after_ap = prev_ap_start(b, AP & ~pP & ~pS);
    cut = (LM & ~pLM & ~pSW & ~pX & ~(after_ap & AL)) | (P & ~pP & ~pS) | (X & (nLM | ~pX)) |
          (WS & ~pWS & ~absorbed) | (SW & pNL) | (SW & pSW & nNW) | b.first;
    newline_runs.apply(b, SW, SW & pNL, NL, prev_absorbed(b, absorbed), q, c, bits(Cont, Space, WsOther), Newline,
                       cut);
    dirty = LM & ~AL & pAL;
  }
  static uint32_t match_end(const Cursor& c, uint32_t i) { return words_segment_end(c, i); }
};

}  // namespace

// A piece under kBlocksMin bytes goes to the scalar machine: a block's window costs more
// than its few matches (such as the CJK runs the second Split cuts out).
constexpr uint32_t kBlocksMin = 32;

void deepseek_words(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  if (fold.plain() && c.end - begin >= kBlocksMin) return run_blocks<WordRules>(c, begin, fold);
  deepseek_words_scalar(c, begin, fold);
}
void deepseek_words_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  scan(c, begin, fold, kEvery, [&](uint32_t i) { return words_end(c, i); });
}

}  // namespace tagpipe::fsm
