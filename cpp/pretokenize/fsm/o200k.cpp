// o200k (gpt-4o):
//   [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//   |[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//   |\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
// With U = [Lu Lt Lm Lo M] ("upper") and W = [Ll Lm Lo M] ("lower"), Lm Lo M are in both.
// Every character starts a match.
#include "alphabet_regex.h"
#include "pretokenize/fsm/blocks.h"
#include "pretokenize/fsm/patterns.h"
#include "pretokenize/fsm/scan_blocks.h"

namespace tagpipe::fsm {
namespace {

using namespace tables::regex;
constexpr TagSet kU = bits(Cont, Upper, LetterOther, Mark);
constexpr TagSet kW = bits(Cont, Lower, LetterOther, Mark);
constexpr TagSet kBoth = bits(LetterOther, Mark);
constexpr TagSet kN = bits(Number, Digit);
constexpr TagSet kWs = bits(Cont, Space, Newline, WsOther);
constexpr TagSet kOther = bits(Cont, Mark, Apostrophe, Slash, Other);             // [^\s\p{L}\p{N}]
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

// The same regex as block rules.  Classes: u = [Lu Lt], l = Ll, b = [Lm Lo], marks, N,
// O = [^\s\p{L}\p{N}] without marks, S = ' ', W = whitespace other than ' ' \r \n,
// NL = \r \n.  As cl100k's rules (cl100k.cpp), with four differences:
//   - A run of letters is cut before a u that follows an l: U*W+ (and U+W*) take the
//     upper-case letters and then the lower-case ones, and end at the next upper-case
//     letter.  With a b just before a u the alternatives backtrack into the run (in "中B "
//     U*W+ ends after 中, U+ takes B): such blocks are dirty.
//   - A mark is a letter (it is in both U and W) unless an O run goes on through it: a
//     mark right after an O that does not start a match (inside an O run, or taken by the
//     space before it), or after a mark that is O itself.  An O that starts a match is
//     instead the optional [^\r\n\p{L}\p{N}] of the letters it is followed by.
//   - A contraction is the end of the letter match before it, not a match of its own.
//   - [\r\n/]* after an O run also takes the slashes after its newlines; such a slash
//     ends the match like the newlines (an O or a mark after it starts the next one).
// The window's eight class bits hold the marks, apostrophes and slashes as pairs that no
// other class has: mark = u|l, apostrophe = O|b, slash = O|N.
enum : uint8_t { cU = 1, cL = 2, cB = 4, cN = 8, cO = 16, cS = 32, cW = 64, cNL = 128 };

struct Rules {
  static constexpr uint8_t kRemap[16] = {
      0, cU, cL, cB, cU | cL, cN, cN, cS, cNL, cW, cO | cB, cO | cN, cO,  // Cont .. Other (alphabet_regex.h)
  };
  // X: characters an O after them joins (an O, a mark that is O, ' '); Y: those a mark after
  // them joins as O (an O that does not start a match, a mark that is O).  O here is an O
  // that a match goes on after: not a slash [\r\n/]* took.
  PrevChar prev_x, prev_y, prev_mark_o, prev_o, prev_mstart_o, prev_absorbed;
  uint64_t absorbed_carry = 0;
  NewlineRuns newline_runs;
  DigitTriples digit_triples;
  Carried carried;
  bool poisoned = false;  // a mark and a slash [\r\n/]* took in one block: the scalar machine from there on

  void block(const Window& w, const Bits& b, uint32_t q, const Cursor& c, uint64_t& cut, uint64_t& dirty) {
    const uint64_t U = w.cur[0], L = w.cur[1], B = w.cur[2], N = w.cur[3], O = w.cur[4], S = w.cur[5], W = w.cur[6],
                   NL = w.cur[7];
    const uint64_t pU = w.prev[0], pL = w.prev[1], pB = w.prev[2], pN = w.prev[3], pO = w.prev[4], pS = w.prev[5],
                   pW = w.prev[6], pNL = w.prev[7];
    const uint64_t Mk = U & L, u = U & ~L, l = L & ~U, bo = B & ~O, Nd = N & ~O, Sl = O & N;
    const uint64_t pMk = pU & pL, pl = pL & ~pU, pbo = pB & ~pO, pNd = pN & ~pO;
    // The marks that are O (Mo): Mo = Mk & prev(Y), Y = (O & prev(X)) | Mo, X = S | O | Mo.
    // Each pass can only add marks (a chain mark, O, mark, ... adds one per pass), so this
    // ends; a block without marks takes none.  (Taken slashes are left out of O below;
    // with marks in the same block they would have to be here too: poisoned.)
    uint64_t Mo = 0;
    while (Mk) {
      PrevChar px = prev_x, py = prev_y;
      const uint64_t Y = (O & px(b, S | O | Mo)) | Mo, more = Mk & py(b, Y);
      if (more == Mo) break;
      Mo = more;
    }
    const uint64_t pMo = prev_mark_o(b, Mo);
    const uint64_t pMl = pMk & ~pMo;
    const uint64_t Lt = u | l | bo | (Mk & ~Mo), pLt = (pU & ~pL) | pl | pbo | pMl;
    // [\r\n/]* after an O run: the runs of newline and slash bytes from a newline right after
    // an O (a slash, the O run's own, included) or a mark that is O; adding each such
    // newline to its run clears the run from there (cl100k.cpp).  A newline after a taken
    // slash is one too, and adds nothing the first did not clear, but misses its own bit.
    const uint64_t A = NL | Sl, first = NL & (pO | pMo);
    uint64_t sum;
    const bool c1 = __builtin_add_overflow(A, first, &sum);
    const bool c2 = __builtin_add_overflow(sum, absorbed_carry, &sum);
    absorbed_carry = c1 | c2;
    const uint64_t taken = (A & ~sum) | first, absorbed = NL & taken;
    const uint64_t Olive = O & ~taken;
    poisoned |= Mk && (taken & Sl);
    {
      PrevChar px = prev_x;
      const uint64_t X = S | Olive | Mo;
      prev_y(b, (Olive & px(b, X)) | Mo);
      prev_x(b, X);
    }
    const uint64_t pOb = prev_o(b, Olive) | pMo;
    const uint64_t nNW = w.next[0] | w.next[1] | w.next[2] | w.next[3] | w.next[4];
    const uint64_t WS = S | W | NL, SW = S | W, pWS = pS | pW | pNL, pSW = pS | pW;
    const uint64_t ostart = Olive & ~pOb & ~pS;
    const uint64_t pm = prev_mstart_o(b, ostart);
    cut = (Lt & ~pLt & ~pSW & ~pm) | (u & pl) | ostart | (Nd & ~pNd) | (WS & ~pWS & ~absorbed) | (SW & pNL) |
          (SW & pSW & nNW) | b.first;
    digit_triples.apply(Nd, pNd, cut);
    // (After newlines the O run took, a match starts anyway: keep that cut.)
    newline_runs.apply(b, SW, SW & pNL, NL, prev_absorbed(b, absorbed), q, c, bits(Cont, Space, WsOther), Newline, cut);
    dirty = (u & (pbo | pMl)) | (poisoned ? ~uint64_t(0) : 0);
    carried.apply(q, cut);
    contractions(c, q, O & B & pLt, true, cut, carried, true);
  }
  static uint32_t match_end(const Cursor& c, uint32_t i) { return fsm::match_end(c, i); }
};

}  // namespace

void o200k_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  for (uint32_t i = begin; i < c.end;) {
    const uint32_t e = match_end(c, i);
    fold.segment(i, e, true);
    i = e;
  }
}

void o200k(const Cursor& c, uint32_t begin, pretok::Fold& fold) { run_scan<Rules>(c, begin, fold); }

}  // namespace tagpipe::fsm
