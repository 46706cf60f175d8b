// cl100k / llama-3 and qwen2:
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}
//   | ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// qwen2 has \p{N} for \p{N}{1,3}; tiktoken's spelling \p{N}{1,3}+ is read by Oniguruma as
// (\p{N}{1,3})+, i.e. \p{N}+.  Every character starts a match.
#include "alphabet_regex.h"
#include "pretokenize/fsm/blocks.h"
#include "pretokenize/fsm/patterns.h"
#include "pretokenize/fsm/scan_blocks.h"

namespace tagpipe::fsm {
namespace {

using namespace tables::regex;
constexpr TagSet kL = bits(Cont, Upper, Lower, LetterOther);
constexpr TagSet kN = bits(Number, Digit);
constexpr TagSet kWs = bits(Cont, Space, Newline, WsOther);
constexpr TagSet kOther = bits(Cont, Mark, Apostrophe, Slash, Other);             // [^\s\p{L}\p{N}]
constexpr TagSet kPrefix = bits(Space, WsOther, Mark, Apostrophe, Slash, Other);  // [^\r\n\p{L}\p{N}]
constexpr WsTags kWsTags{kWs, Newline};

template <uint32_t MaxDigits>
uint32_t match_end(const Cursor& c, uint32_t i) {
  const int t = c.tags[i];
  if (t == Apostrophe)  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    if (uint32_t e = contraction(c, i, true)) return e;
  // [^\r\n\p{L}\p{N}]?\p{L}+ : the optional character is taken when a letter follows it.
  if ((kPrefix >> t) & 1) {
    const uint32_t j = c.next(i);
    if (c.in(j, kL & ~bits(Cont))) return c.run(j, kL);
  } else if ((kL >> t) & 1) {
    return c.run(i, kL);
  }
  if ((kN >> t) & 1) {  // \p{N}{1,MaxDigits}
    uint32_t j = i, n = 0;
    while (n < MaxDigits && c.in(j, kN)) j = c.next(j), n++;
    return j;
  }
  // ` ?[^\s\p{L}\p{N}]+[\r\n]*`
  const uint32_t s = t == Space ? i + 1 : i;
  if (c.in(s, kOther & ~bits(Cont))) return c.run(c.run(s, kOther), bits(Newline));
  return ws_newline_or_lookahead(c, i, kWsTags);
}

// The same regex as block rules.  Classes: L, N, O = [^\s\p{L}\p{N}] (apostrophe and
// marks included), S = ' ', W = whitespace other than ' ' \r \n, NL = \r \n.  A match
// starts at a character:
//   - L after non-L, unless after S or W (the [^\r\n\p{L}\p{N}]? prefix: the last
//     whitespace character before a letter always starts a match and takes the letters),
//     or after an O that itself starts a match (not inside an O run, not after ' ');
//   - N after non-N (\p{N}{1,3}: and before every 4th digit of a run, DigitTriples;
//     qwen2's \p{N} cuts before every digit; \p{N}{1,3}+ never inside a run);
//   - O after non-O, unless after ' ' (` ?[^\s\p{L}\p{N}]+`);
//   - whitespace after non-whitespace, unless it is a newline right after an O run
//     (`[\r\n]*` after the O run takes the newlines), and the first whitespace after
//     newlines so taken;
//   - S or W after a newline: \s*[\r\n]+ ends at the run's last newline (unless another
//     newline follows the S/W run: then the match runs on through it, NewlineRuns);
//   - S or W after S or W, when L, N or O follows: \s+(?!\S) gives it back.
// An apostrophe that starts a match may start a contraction instead (fixed up after).
enum : uint8_t { cL = 1, cN = 2, cO = 4, cS = 8, cW = 16, cNL = 32, cAp = 64 };

template <uint32_t MaxDigits>
struct Rules {
  static constexpr uint8_t kRemap[16] = {
      0, cL, cL, cL, cO, cN, cN, cS, cNL, cW, cO | cAp, cO, cO,  // Cont .. Other (alphabet_regex.h)
  };
  PrevChar prev_mstart_o, prev_absorbed;
  uint64_t absorbed_carry = 0;
  NewlineRuns newline_runs;
  DigitTriples digit_triples;
  Carried carried;

  void block(const Window& w, const Bits& b, uint32_t q, const Cursor& c, uint64_t& cut, uint64_t&) {
    const uint64_t L = w.cur[0], N = w.cur[1], O = w.cur[2], S = w.cur[3], W = w.cur[4], NL = w.cur[5];
    const uint64_t pL = w.prev[0], pN = w.prev[1], pO = w.prev[2], pS = w.prev[3], pW = w.prev[4], pNL = w.prev[5];
    const uint64_t nNW = w.next[0] | w.next[1] | w.next[2];
    const uint64_t WS = S | W | NL, SW = S | W, pWS = pS | pW | pNL, pSW = pS | pW;
    // Newlines taken by the O run before them: the NL runs that start right after an O.
    // Adding each run's first bit to the run clears exactly those runs (the carry ripples
    // through it); the carry out continues a run into the next block.
    uint64_t sum;
    bool c1 = __builtin_add_overflow(NL, NL & pO, &sum);
    bool c2 = __builtin_add_overflow(sum, absorbed_carry, &sum);
    absorbed_carry = c1 | c2;
    const uint64_t absorbed = NL & ~sum;
    const uint64_t pm = prev_mstart_o(b, O & ~pO & ~pS);
    cut = (L & ~pL & ~pSW & ~pm) | (O & ~pO & ~pS) | (WS & ~pWS & ~absorbed) | (SW & pNL) | (SW & pSW & nNW) | b.first;
    if (MaxDigits == 1) cut |= N;
    else cut |= N & ~pN;
    if (MaxDigits == 3) digit_triples.apply(N, pN, cut);
    // An S/W run after a newline that another newline follows: \s*[\r\n]+ runs past it,
    // so no match starts at its first character (blocks.h).  (After newlines the O run
    // took, a match starts anyway: keep that cut.)
    newline_runs.apply(b, SW, SW & pNL, NL, prev_absorbed(b, absorbed), q, c, bits(Cont, Space, WsOther), Newline, cut);
    carried.apply(q, cut);
    contractions(c, q, w.cur[6], true, cut, carried);
  }
  static uint32_t match_end(const Cursor& c, uint32_t i) { return fsm::match_end<MaxDigits>(c, i); }
};

template <uint32_t MaxDigits>
void run_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  for (uint32_t i = begin; i < c.end;) {
    const uint32_t e = match_end<MaxDigits>(c, i);
    fold.segment(i, e, true);
    i = e;
  }
}

}  // namespace

void cl100k(const Cursor& c, uint32_t begin, pretok::Fold& fold) { run_scan<Rules<3>>(c, begin, fold); }
void cl100k_digit_runs(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  run_scan<Rules<UINT32_MAX>>(c, begin, fold);
}
void qwen2(const Cursor& c, uint32_t begin, pretok::Fold& fold) { run_scan<Rules<1>>(c, begin, fold); }
void cl100k_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) { run_scalar<3>(c, begin, fold); }
void cl100k_digit_runs_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  run_scalar<UINT32_MAX>(c, begin, fold);
}
void qwen2_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) { run_scalar<1>(c, begin, fold); }

}  // namespace tagpipe::fsm
