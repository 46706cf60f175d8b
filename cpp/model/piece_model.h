// The models other than BPE (WordPiece, WordLevel, Unigram) behind one seam: the encoder
// hands them the word cache's misses, a few pieces at a time, and caches what they return
// (a piece's ids depend only on its bytes, for every model).  BPE keeps its own direct
// path in the encoder (its batched merges are the hot miss path of the BPE families).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/bpe.h"  // BpeJob: one piece and where its ids went

namespace tagpipe {

// One token's bytes [begin, end) in its piece, as the oracle's model reports them (the
// token's offsets): what the offsets path maps to the original text (encode/offsets.h).
struct TokenSpan {
  uint32_t begin, end;
};

// Per-thread scratch memory of a PieceModel.
struct PieceScratch {
  std::vector<double> score;
  std::vector<int32_t> from;
  std::vector<uint32_t> id;
  std::vector<uint32_t> spans;
  std::string text;
};

class PieceModel {
 public:
  virtual ~PieceModel() = default;
  // Appends the ids of each job's piece to `ids` (setting job.first / job.count).  Returns
  // false when a piece meets what the oracle reports as an error (an unknown piece with no
  // unk token in the vocabulary): the encoder then delegates the whole text, and the
  // oracle raises its own error.
  virtual bool encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, PieceScratch& scratch) const = 0;
  // Whether encode_many can return false at all (no unk token to fall back on).
  virtual bool can_fail() const = 0;
  // The ids of one piece appended to `ids`, and each token's span in the piece to `spans`
  // (the oracle's offsets: an unk or byte-fallback token's may cover several characters, or
  // share them); false as encode_many.
  virtual bool encode_spans(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>& spans,
                            PieceScratch& scratch) const = 0;
};

}  // namespace tagpipe
