// Running a regex family of the regex alphabet 64 bytes at a time, straight from the bytes.
//
// run_scan does what run_blocks (blocks.h) does -- the same Rules, the same cuts -- but
// builds each block's class window from the scan kernel's tag masks (kernels/scan/scan.h)
// instead of a tag array: the class of the character before and after each one by shifts
// of the class masks (spread over the continuation bytes where a block has some), the one
// after the block from the next block's masks, scanned ahead.  Cuts go to the fold in bulk.
//
// No tag array is needed then, except where a Rules or the scalar state machine reads
// one.  When the cursor brings `room` (the stage did not classify the text), the tags are
// written there only where they are read: the whitespace run after a block that
// NewlineRuns follows past the block's end (cl100k, o200k), and everything from the last
// match start on before a block goes to the scalar machine (o200k's dirty blocks: rare).
// Why that is exact, and how it is tested: docs/design/scan.md.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/read_ahead.h"
#include "common/target.h"
#include "dispatch/kernels.h"
#include "kernels/scan/scan.h"
#include "pretokenize/fsm/blocks.h"

namespace tagpipe::fsm {
namespace scan_detail {

// The scan kernel's masks of a piece's blocks, a chunk at a time: block(i) for the blocks
// in order, one ahead of the block at work.
class BlockMasks {
 public:
  static constexpr uint32_t kChunk = 16;
  BlockMasks(const Cursor& c, uint32_t begin, uint32_t merge)
      : c_(c), scan_(kernels::active().scan), merge_(merge), q_(begin) {
    fill(0);
  }
  // The masks of the i-th block after the last one asked for before (i = 0 or 1); past the
  // piece's end, a block with no character.
  const ScanMasks& operator[](uint32_t i) {
    if (at_ + i >= count_) {  // keep the block at work, scan the chunk after it
      m_[0] = m_[at_];
      at_ = 0;
      fill(1);
    }
    return m_[at_ + i];
  }
  void step() { at_++; }

 private:
  void fill(uint32_t from) {
    uint32_t n = from;
    if (q_ < c_.end && c_.end - q_ >= kScanReads) {  // blocks whose reads are all in the piece: one call
      const uint32_t whole = std::min<uint32_t>(kChunk - from, (c_.end - q_ - kScanReads) / 64 + 1);
      carry_ = scan_(c_.bytes + q_, c_.end - q_, carry_, whole, merge_, m_ + n);
      q_ += 64 * whole, n += whole;
    }
    for (; n < kChunk && q_ < c_.end; q_ += 64, n++) {  // the last ones: from a copy where not readable
      const uint8_t* p = c_.bytes + q_;
      const uint32_t avail = c_.end - q_;
      if (may_read_ahead(p, kScanReads)) {
        carry_ = scan_(p, avail, carry_, 1, merge_, m_ + n);
      } else {
        alignas(8) uint8_t pad[kScanReads + 1] = {};
        std::memcpy(pad, p, avail < kScanReads ? avail : kScanReads);
        carry_ = scan_(pad, avail, carry_, 1, merge_, m_ + n);
      }
    }
    for (; n < kChunk; n++) m_[n] = ScanMasks{};  // past the end
    count_ = kChunk;
  }

  const Cursor& c_;
  ScanFn scan_;
  uint32_t merge_;
  uint32_t q_;  // the next block to scan
  uint32_t carry_ = 0;
  uint32_t at_ = 0, count_ = 0;
  ScanMasks m_[kChunk];
};

// The ASCII tags a family's classes do not tell apart: the scan kernel merges them.
template <class Rules>
constexpr uint32_t merges() {
  using namespace tables::regex;
  constexpr const uint8_t* r = Rules::kRemap;
  return (r[Upper] == r[Lower] ? uint32_t(kMergeCase) : 0) | (r[Newline] == r[WsOther] ? uint32_t(kMergeNewline) : 0) |
         (r[Slash] == r[Other] ? uint32_t(kMergeSlash) : 0);
}

// Class bit K of a family's remap, as a mask: the tags with that bit, or'd.
template <class Rules, int K, size_t... T>
TAGPIPE_ALWAYS_INLINE uint64_t class_mask(const ScanMasks& m, std::index_sequence<T...>) {
  return ((((Rules::kRemap[T] >> K) & 1) ? m.tag[T] : uint64_t(0)) | ...);
}
template <class Rules, int K>
TAGPIPE_ALWAYS_INLINE uint64_t class_mask(const ScanMasks& m) {
  return class_mask<Rules, K>(m, std::make_index_sequence<kScanTags>());
}

// f(std::integral_constant<int, K>) for each class bit K.
template <class F, size_t... K>
TAGPIPE_ALWAYS_INLINE void each_class(F&& f, std::index_sequence<K...>) {
  (f(std::integral_constant<int, int(K)>()), ...);
}

// At each character start, whether the character after it is in X (x: X at the starts);
// `after`: whether the first character past the block is.
TAGPIPE_ALWAYS_INLINE uint64_t next_char(const Bits& b, uint64_t x, bool after) {
  uint64_t t = (x >> 1) | (uint64_t(after) << 63);  // at the last byte of each character
  const uint64_t inside = b.cont >> 1;              // byte j + 1 continues the character at j
  for (int k = 0; k < 3; k++) t |= (t >> 1) & inside;
  return t & b.start;
}

// The window of a block from its masks and the next block's: in a block of one-byte
// characters (English, code: most blocks) by shifts alone.
template <class Rules>
struct WindowOf {
  uint64_t carry[8] = {};  // class bit k of the character before the block
  TAGPIPE_ALWAYS_INLINE void operator()(const ScanMasks& cur, const ScanMasks& next, const Bits& b, Window& w) {
    const uint8_t after = Rules::kRemap[next.first];  // the classes of the first character past the block
    w.start = cur.start;
    if (!b.cont) {
      each_class(
          [&](auto k) {
            constexpr int K = decltype(k)::value;
            const uint64_t x = class_mask<Rules, K>(cur);
            const bool nx = (after >> K) & 1;
            w.cur[K] = x;
            w.prev[K] = ((x << 1) | carry[K]) & b.start;
            w.next[K] = ((x >> 1) | (uint64_t(nx) << 63)) & b.start;
            carry[K] = x >> 63;
          },
          std::make_index_sequence<8>());
      return;
    }
    each_class(
        [&](auto k) {
          constexpr int K = decltype(k)::value;
          const uint64_t x = class_mask<Rules, K>(cur);
          const bool nx = (after >> K) & 1;
          const uint64_t s = b.spread(x, carry[K]);
          w.cur[K] = x;
          w.prev[K] = ((s << 1) | carry[K]) & b.start;
          w.next[K] = next_char(b, x, nx);
          carry[K] = s >> 63;
        },
        std::make_index_sequence<8>());
  }
};

// Whether a Rules follows whitespace past its block (NewlineRuns: reads the tags there).
template <class R, class = void>
struct ReadsAhead : std::false_type {};
template <class R>
struct ReadsAhead<R, std::void_t<decltype(&R::newline_runs)>> : std::true_type {};

// Writes the tags from i on -- Cont up to first_start (the rest of a character that began
// before i), then the characters while they are ' ' or other whitespace but a newline, and
// the first one that is not: what NewlineRuns reads past a block's end (blocks.h).
inline void fill_ws_run(const Cursor& c, uint8_t* room, uint32_t i, uint32_t first_start) {
  using namespace tables::regex;
  for (; i < first_start && i < c.end; i++) room[i] = Cont;
  while (i < c.end) {
    uint32_t len = 1;
    const uint8_t tag = c.bytes[i] < 0x80 ? kAscii[c.bytes[i]] : scalar::scan_char(c.bytes + i, c.end - i, &len);
    room[i] = tag;
    for (uint32_t k = 1; k < len; k++) room[i + k] = Cont;
    i += len;
    if (tag != Space && tag != WsOther) return;
  }
}

// The cuts of a run, a mask a block, handed to the fold in bulk: the cut_pieces kernel
// turns them into pieces, appended to the fold's output at once when each is a piece of
// its own (Fold::match_pieces; a push_back per piece reloads the vector's ends after each
// store), else reported one at a time.
class Cuts {
 public:
  Cuts(pretok::Fold& f, uint32_t begin)
      : fold_(f), pieces_(f.match_pieces()), cut_pieces_(kernels::active().cut_pieces), last_(begin), from_(begin) {}
  // The last cut so far (or the piece's begin): everything before it is decided.
  uint32_t last() const { return last_; }
  // Block q's cuts (q: 64 past the block before, since the last restart).
  void add(uint32_t q, uint64_t cut) {
    if (blocks_ == kBlocks) flush();
    if (!blocks_) q0_ = q;
    masks_[blocks_++] = cut;
    if (cut) last_ = q + 63 - uint32_t(__builtin_clzll(cut));
  }
  void flush() {
    if (!blocks_) return;
    const uint32_t n = cut_pieces_(masks_, blocks_, q0_, from_, &out_[0].begin);
    if (pieces_) pieces_->insert(pieces_->end(), out_, out_ + n);
    else
      for (uint32_t i = 0; i < n; i++) fold_.segment(out_[i].begin, out_[i].end, true);
    blocks_ = 0;
    from_ = last_;
  }
  // After segments reported elsewhere, up to `at`.
  void restart(uint32_t at) {
    flush();
    last_ = from_ = at;
  }

 private:
  static constexpr uint32_t kBlocks = 16;
  pretok::Fold& fold_;
  std::vector<pretok::Piece>* pieces_;  // the fold's output (Fold::match_pieces), or nullptr
  CutPiecesFn cut_pieces_;
  uint32_t last_, from_, q0_ = 0, blocks_ = 0;
  uint64_t masks_[kBlocks];
  pretok::Piece out_[64 * kBlocks + 9];  // (cut_pieces' room)
};

// Before a block goes to the scalar state machine: the tags it reads, from the last match
// start to the piece's end.
inline void fill_all(const Cursor& c, uint8_t* room, uint32_t from) {
  std::vector<uint64_t> starts(start_words(c.end - from) + 1);
  kernels::active().classify(c.bytes + from, c.end - from, alphabet(AlphabetId::regex), room + from, starts.data());
}

}  // namespace scan_detail

// Drives `Rules` (as run_blocks does) over the piece [begin, c.end).  On text that is not
// byte-mapped the tags at c.tags are read only where written: all of them, or (c.room)
// those this writes.
template <class Rules>
__attribute__((flatten)) void run_scan(const Cursor& c, uint32_t begin, pretok::Fold& fold) {
  using namespace scan_detail;
  if (c.byte_mapped) return run_blocks<Rules>(c, begin, fold);  // (every byte a character: the tag array)
  Rules rules;
  uint8_t* room = c.room;  // (nullptr once every tag is written)
  BlockMasks masks(c, begin, merges<Rules>());
  WindowOf<Rules> window;
  Cuts cuts(fold, begin);
  for (uint32_t q = begin; q < c.end; q += 64, masks.step()) {
    const ScanMasks& next = masks[1];  // (first: it may move the block at work)
    const ScanMasks& cur = masks[0];
    const uint64_t in_piece = c.end - q >= 64 ? ~uint64_t(0) : (uint64_t(1) << (c.end - q)) - 1;
    const Bits bits{cur.start, ~cur.start & in_piece, q == begin ? uint64_t(1) : 0};
    Window w;
    window(cur, next, bits, w);
    if (ReadsAhead<Rules>::value && room && c.end - q > 64) {  // whitespace run past the block
      using namespace tables::regex;
      const int s = 63 - __builtin_clzll(cur.start);
      if (((cur.tag[Space] | cur.tag[WsOther]) >> s) & 1)
        fill_ws_run(c, room, q + 64, q + 64 + uint32_t(__builtin_ctzll(next.start | (uint64_t(1) << 63))));
    }
    uint64_t cut = 0, dirty = 0;
    rules.block(w, bits, q, c, cut, dirty);
    const uint32_t last = cuts.last();  // the last match start: everything before it is done
    if (dirty || last > q + 64) {       // the scalar state machine, from there through this block
      if (room) fill_all(c, room, last), room = nullptr;
      cuts.flush();
      uint32_t i = last;
      while (i < c.end && i < q + 64) {
        const uint32_t e = Rules::match_end(c, i);
        fold.segment(i, e, true);
        i = e;
      }
      cuts.restart(i);
      continue;
    }
    if (last >= q) cut &= last - q >= 63 ? 0 : ~uint64_t(0) << (last - q + 1);  // decided already
    cuts.add(q, cut);
  }
  cuts.flush();
  if (cuts.last() < c.end) fold.segment(cuts.last(), c.end, true);
}

}  // namespace tagpipe::fsm
