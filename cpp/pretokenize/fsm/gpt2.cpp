// GPT-2 (ByteLevel's own regex):
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// Every character starts a match, so the segments are consecutive matches.
#include "alphabet_regex.h"
#include "pretokenize/fsm/blocks.h"
#include "pretokenize/fsm/patterns.h"
#include "pretokenize/fsm/scan_blocks.h"

namespace tagpipe::fsm {
namespace {

using namespace tables::regex;
constexpr TagSet kL = bits(Cont, Upper, Lower, LetterOther);
constexpr TagSet kN = bits(Cont, Number, Digit);
constexpr TagSet kWs = bits(Cont, Space, Newline, WsOther);
constexpr TagSet kOther = bits(Cont, Mark, Apostrophe, Slash, Other);  // [^\s\p{L}\p{N}]

// The scalar state machine: the end of the match that starts at i.
uint32_t match_end(const Cursor& c, uint32_t i) {
  const int t = c.tags[i];
  if (t == Apostrophe)  // 's|'t|'re|'ve|'m|'ll|'d (case-sensitive)
    if (uint32_t e = contraction(c, i, false)) return e;
  uint32_t s = i;
  if (t == Space && i + 1 < c.end) s = i + 1;  // ` ?` takes the space if what follows fits
  for (TagSet run : {kL, kN, kOther})          // ` ?\p{L}+`, ` ?\p{N}+`, ` ?[^\s\p{L}\p{N}]+`
    if (c.in(s, run & ~bits(Cont))) return c.run(s, run);
  // s == i + 1 after a space only if nothing above took it; then the space is whitespace.
  return ws_lookahead(c, i, c.run(i, kWs));  // \s+(?!\S)|\s+
}

// The same regex as block rules.  Classes: L, N, O = [^\s\p{L}\p{N}], S = ' ', W = the
// other whitespace, and the apostrophe (also O).  A match starts at a character:
//   - of L, N or O after a character of another of those three (runs are matches);
//   - of L, N or O after W: only ' ' joins the run after it (` ?`);
//   - of whitespace after L, N or O: a whitespace run starts;
//   - of whitespace after whitespace, when L, N or O follows: \s+(?!\S) gives the run's
//     last character back, to be a match of its own or the ' ' of ` ?X+`.
// An apostrophe that starts a match may start a contraction instead (fixed up after).
enum : uint8_t { cL = 1, cN = 2, cO = 4, cS = 8, cW = 16, cAp = 32 };

struct Rules {
  static constexpr uint8_t kRemap[16] = {
      0, cL, cL, cL, cO, cN, cN, cS, cW, cW, cO | cAp, cO, cO,  // Cont .. Other (alphabet_regex.h)
  };
  Carried carried;

  void block(const Window& w, const Bits& b, uint32_t q, const Cursor& c, uint64_t& cut, uint64_t&) {
    const uint64_t L = w.cur[0], N = w.cur[1], O = w.cur[2], S = w.cur[3], W = w.cur[4];
    const uint64_t pL = w.prev[0], pN = w.prev[1], pO = w.prev[2], pS = w.prev[3], pW = w.prev[4];
    const uint64_t nNW = w.next[0] | w.next[1] | w.next[2];
    const uint64_t NW = L | N | O, WS = S | W, pNW = pL | pN | pO, pWS = pS | pW;
    const uint64_t same = (L & pL) | (N & pN) | (O & pO);
    cut = (NW & pNW & ~same) | (NW & pW) | (WS & pNW) | (WS & pWS & nNW) | b.first;
    carried.apply(q, cut);
    contractions(c, q, w.cur[5], false, cut, carried);
  }
  static uint32_t match_end(const Cursor& c, uint32_t i) { return fsm::match_end(c, i); }
};

}  // namespace

void gpt2_scalar(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  for (uint32_t i = begin; i < c.end;) {
    const uint32_t e = match_end(c, i);
    fold.segment(i, e, true);
    i = e;
  }
}

void gpt2(const Cursor& c, uint32_t begin, pretok::Fold& fold) { run_scan<Rules>(c, begin, fold); }

}  // namespace tagpipe::fsm
