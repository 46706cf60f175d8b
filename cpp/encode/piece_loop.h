// The encoder's model stage: the pieces the pre-tokenizer left, each from the word cache or
// else from the model, which then caches them.
//
// Each piece's cache slot is requested a few pieces ahead of its lookup.  A miss leaves a
// hole in the sink and waits for more (Misses): the model answers up to Bpe::kMaxJobs of
// them together, then their ids are spliced into the holes.  A new long piece that BPE may
// cut (Bpe::cuts) becomes parts that the cache mostly knows (encode/cut_policy.h).
#pragma once
#include <vector>

#include "encode/cache_pool.h"
#include "encode/worker.h"
#include "model/bpe.h"
#include "model/piece_model.h"

namespace tagpipe {

// The model of an encoder: BPE, or another one (WordPiece, WordLevel, Unigram).
struct Models {
  const Bpe* bpe = nullptr;
  const PieceModel* other = nullptr;
};

// Appends the ids of w.pieces to w.sink (the misses may still wait in w.misses: then
// flush_misses puts them in).  `tokens`: added tokens' ids to put before the first piece at
// or after their position.  False when the model meets an error the oracle raises (the text
// is then delegated).
bool encode_pieces(const Models& models, CachePool& pool, ThreadCache& tc, Worker& w,
                   const std::vector<Worker::Placed>* tokens = nullptr);

// Encodes the waiting misses, caches them and splices their ids into their holes.
bool flush_misses(const Models& models, CachePool& pool, WordCache& cache, Worker& w);

}  // namespace tagpipe
