// The whole encode of one text, natively: added tokens, normalizer, pre-tokenizer, BPE
// (with the word cache) and the special tokens of the post-processor -- the order and the
// per-gap structure of tokenizers' Tokenizer::encode.
//
// An Encoder is immutable after construction and shared by every thread; each thread
// brings its Worker (encode/worker.h: scratch memory) and borrows a word cache from the
// encoder's pool (encode/cache_pool.h).  The model stage is encode/piece_loop.h.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "added/added.h"
#include "encode/cache_pool.h"
#include "encode/offsets.h"
#include "encode/piece_loop.h"
#include "encode/worker.h"
#include "kernels/transcode/transcode.h"
#include "model/bpe.h"
#include "model/piece_model.h"
#include "normalize/normalize.h"
#include "pretokenize/pipeline.h"

namespace tagpipe {

struct EncoderSpec {
  std::vector<normalize::Step> normalizer;
  std::vector<pretok::StageSpec> pre_tokenizer;
  StringTable vocab;
  std::vector<BpeMerge> merges;
  BpeOptions bpe;
  // The model is BPE (vocab, merges, bpe) unless this is set: WordPiece, WordLevel or Unigram.
  std::shared_ptr<const PieceModel> piece_model;
  std::vector<added::Token> raw_tokens;          // normalized = false: matched on the raw text
  std::vector<added::Token> normalized_tokens;   // matched on each normalized gap
  std::vector<uint32_t> prefix_ids, suffix_ids;  // the post-processor's special tokens around one sequence
  size_t cache_bytes = size_t(128) << 20;        // the word cache budget, all threads together
};

// Truncation of the model's ids (tokenizers' post_process truncates them before the
// post-processor adds its special tokens): keep the first (or, `left`, the last) `limit`
// ids of the body.  The Python layer works out the limit (tagpipe.plan.post_processors).
struct Truncation {
  static constexpr int64_t kNone = -1;
  int64_t limit = kNone;
  bool left = false;
};

// The ids of a batch: one malloc'd block grown by realloc, which moves the pages of a large
// block (mremap) instead of copying them -- the ids are never held twice while the block
// grows -- and handed over as it is (release: the caller frees it with std::free).
class IdBuffer {
 public:
  IdBuffer() = default;
  IdBuffer(const IdBuffer&) = delete;
  IdBuffer& operator=(const IdBuffer&) = delete;
  ~IdBuffer() { std::free(data_); }
  size_t size() const { return size_; }
  // Room for n more ids at the end (now part of the size): where they go.
  uint32_t* extend(size_t n) {
    if (size_ + n > capacity_) grow(size_ + n);
    uint32_t* at = data_ + size_;
    size_ += n;
    return at;
  }
  uint32_t* release() {
    uint32_t* p = data_;
    if (p && size_ < capacity_) p = static_cast<uint32_t*>(std::realloc(p, std::max<size_t>(size_, 1) * 4));
    if (!p) p = data_;  // (a shrink that fails keeps the block as it is)
    data_ = nullptr, size_ = capacity_ = 0;
    return p;
  }

 private:
  void grow(size_t need) {
    const size_t cap = std::max(need, capacity_ + capacity_ / 2 + 1024);
    void* p = std::realloc(data_, cap * sizeof(uint32_t));
    if (!p) throw std::bad_alloc();
    data_ = static_cast<uint32_t*>(p), capacity_ = cap;
  }
  uint32_t* data_ = nullptr;
  size_t size_ = 0, capacity_ = 0;
};

class Encoder {
 public:
  explicit Encoder(EncoderSpec spec);

  // Appends the ids of s[0..n) to `out`.  Returns false, leaving `out` as it was, when the
  // text needs something tagpipe does not run natively (then the caller delegates it).
  bool encode(const uint8_t* s, uint32_t n, bool add_special_tokens, std::vector<uint32_t>& out,
              Truncation trunc = {}) const;
  // The same for a text as a str keeps it (transcode/transcode.h; its UTF-8 at most
  // UINT32_MAX - 64 bytes: the caller checks utf8_bound), converted to UTF-8 on this
  // thread: kEncoded, kDelegate (out as it was), or kNotUtf8 -- it holds a lone surrogate.
  enum Result : uint8_t { kEncoded = 0, kDelegate = 1, kNotUtf8 = 2 };
  Result encode(const Units& text, bool add_special_tokens, std::vector<uint32_t>& out, Truncation trunc = {}) const;

  struct Batch {
    IdBuffer ids;
    std::vector<int64_t> offsets;   // doc i is ids[offsets[i] .. offsets[i+1])
    std::vector<uint8_t> delegate;  // a Result per doc: its ids are empty unless kEncoded
  };
  // Encodes documents docs[i] (as encode(Units) does) on `threads` threads, in rounds of
  // about kRoundBytes of text: the threads' buffers hold one round's ids, which then go to
  // out.ids in document order -- so the batch's ids are held once, plus one round's.
  static constexpr size_t kRoundBytes = size_t(4) << 20;
  static constexpr size_t kKeepSinkIds = size_t(4) << 20;  // a thread's sink kept between encode calls
  // A thread's UTF-8 buffer (Worker::utf8) kept between calls.
  static constexpr size_t kKeepUtf8Bytes = size_t(16) << 20;
  void encode_batch(const std::vector<Units>& docs, bool add_special_tokens, int threads, Batch& out,
                    Truncation trunc = {}) const;

  // The offsets path (encode/offsets.h): each document's ids without special tokens,
  // truncation or padding, and each token's span in the document's characters (spans[2k],
  // spans[2k + 1]: the oracle's offsets).  `token_spans`: what the spans of the word cache's
  // ids need (TokenSpans; nullptr: a BPE model delegates every document, the other models
  // span their own tokens).
  struct SpanBatch {
    std::vector<uint32_t> ids;
    std::vector<uint32_t> spans;
    std::vector<uint8_t> added;     // per id: an added token's match (SpanSink)
    std::vector<int64_t> offsets;   // doc i is ids[offsets[i] .. offsets[i+1])
    std::vector<uint8_t> delegate;  // a Result per doc, as Batch's
  };
  void encode_offsets(const std::vector<Units>& docs, const TokenSpans* token_spans, int threads, SpanBatch& out) const;

  // Encodes the documents on this thread, timing each stage (the timers cost a little;
  // profile, do not benchmark, with this).
  StageTimes profile(const std::vector<std::pair<const uint8_t*, uint32_t>>& docs, bool add_special_tokens) const;

  // How the model cuts long new pieces (Bpe::cuts): "" when it may, else why not; nothing
  // when the model is not BPE.
  std::optional<std::string> cut_rule() const;
  // Which pieces it leaves whole although it may cut ("" when none: Bpe::cut_exception).
  std::string cut_exception() const;
  // How many vocabulary strings the word seed holds (model/word_seed.h); 0 when not BPE.
  size_t seed_size() const;
  size_t cache_bytes() const { return caches_.budget(); }
  size_t cache_used() const;
  void clear_cache() const;

 private:
  // The UTF-8 of a text (its bytes, or its units converted into w.utf8); nullptr when it
  // holds a lone surrogate.  trim_utf8 frees a w.utf8 that a huge text made huge.
  const uint8_t* utf8_of(const Units& text, Worker& w, uint32_t& n) const;
  static void trim_utf8(Worker& w);
  // Appends to w.sink; on false, w.sink.size is back where it was.
  bool encode_with(const uint8_t* s, uint32_t n, bool add_special, Truncation trunc, Worker& w,
                   ThreadCache& cache) const;
  bool encode_gap(const uint8_t* s, uint32_t n, uint32_t origin, Worker& w, ThreadCache& cache) const;
  bool encode_gaps(const uint8_t* s, Worker& w, ThreadCache& cache) const;
  bool run_gaps(Worker& w, ThreadCache& cache) const;
  // The offsets path's stages (encode/offsets.cpp), appending to `out`; false: delegate.
  bool text_spans(const uint8_t* s, uint32_t n, const TokenSpans* table, Worker& w, ThreadCache& tc,
                  SpanSink& out) const;
  bool gap_spans(const uint8_t* s, uint32_t n, uint32_t base, const TokenSpans* table, Worker& w, ThreadCache& tc,
                 SpanScratch& sc, SpanSink& out) const;
  bool pieces_spans(const uint8_t* input, uint32_t size, uint32_t base, const TokenSpans* table, Worker& w,
                    ThreadCache& tc, SpanScratch& sc, SpanSink& out) const;
  bool piece_spans(const uint8_t* p, uint32_t n, const WordCache::Probe& q, const TokenSpans* table, Worker& w,
                   ThreadCache& tc, SpanScratch& sc) const;
  Models models() const { return {bpe_.get(), piece_model_.get()}; }
  bool piece_form() const;

  normalize::Normalizer normalizer_;
  pretok::PreTokenizer pre_tokenizer_;
  std::shared_ptr<const PieceModel> piece_model_;  // WordPiece, WordLevel, Unigram; else
  std::unique_ptr<const Bpe> bpe_;                 // BPE, for the pre-tokenizer's piece form
  added::Splitter raw_, normalized_;
  std::vector<uint32_t> prefix_ids_, suffix_ids_;
  bool need_origin_;
  bool batch_gaps_;      // encode_gaps: raw added tokens, no normalized ones, no stage reads origins or rewrites
  bool model_can_fail_;  // an error the oracle raises may come from any piece: no early stop
  mutable CachePool caches_;
  // encode_batch's per-thread id buffers, kept between calls (at most kKeepSinkIds ids
  // each): a new buffer grows by doubling through fresh pages, whose copies and page faults
  // cost a batch of a few hundred kB a noticeable share of its time.
  mutable std::mutex sinks_mutex_;
  mutable std::vector<std::vector<uint32_t>> spare_sinks_;
};

}  // namespace tagpipe
