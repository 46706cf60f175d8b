#include "encode/encoder.h"

#include <algorithm>
#include <cstring>

#include "dispatch/kernels.h"
#include "encode/piece_loop.h"
#include "encode/thread_pool.h"

namespace tagpipe {

Worker& thread_worker() {
  thread_local Worker w;
  return w;
}

Encoder::Encoder(EncoderSpec spec)
    : normalizer_(std::move(spec.normalizer)),
      pre_tokenizer_(spec.pre_tokenizer),
      piece_model_(std::move(spec.piece_model)),
      raw_(std::move(spec.raw_tokens)),
      normalized_(std::move(spec.normalized_tokens)),
      prefix_ids_(std::move(spec.prefix_ids)),
      suffix_ids_(std::move(spec.suffix_ids)),
      need_origin_(pre_tokenizer_.needs_origin()),
      batch_gaps_(!raw_.empty() && normalized_.empty() && !need_origin_ && !pre_tokenizer_.rewrites()),
      model_can_fail_(piece_model_ && piece_model_->can_fail()),
      caches_(spec.cache_bytes) {
  if (piece_model_) return;
  bpe_ = Bpe::make(std::move(spec.vocab), spec.merges, std::move(spec.bpe), piece_form());
  pre_tokenizer_.model_cuts(bpe_->cut_rule().empty());
  caches_.set_seed(&bpe_->seed());
}

// Which form the pre-tokenizer leaves pieces in: ByteLevel bytes (true) or plain UTF-8.
bool Encoder::piece_form() const {
  pretok::PreTokenized probe;
  pretok::Scratch scratch;
  pre_tokenizer_.run(reinterpret_cast<const uint8_t*>("a"), 1, probe, scratch);
  return probe.text.byte_mapped;
}

size_t Encoder::seed_size() const { return bpe_ ? bpe_->seed().size() : 0; }

std::optional<std::string> Encoder::cut_rule() const {
  if (!bpe_) return std::nullopt;
  return bpe_->cut_rule();
}

std::string Encoder::cut_exception() const { return bpe_ ? bpe_->cut_exception() : ""; }

size_t Encoder::cache_used() const { return caches_.used(); }

void Encoder::clear_cache() const { caches_.clear(); }

// One gap between raw added tokens: normalize, split out the normalized added tokens,
// pre-tokenize each remaining part, BPE each piece.
bool Encoder::encode_gap(const uint8_t* s, uint32_t n, uint32_t origin, Worker& w, ThreadCache& cache) const {
  {
    StageTimer t(w.times ? &w.times->normalize : nullptr);
    if (!normalizer_.run(s, n, w.gap, w.norm, need_origin_)) return false;
  }
  w.norm_segments.clear();
  if (normalized_.empty()) w.norm_segments.push_back(added::Segment::of_text(0, w.gap.size));
  else normalized_.split(w.gap.bytes, w.gap.size, w.norm_segments);
  for (const added::Segment& seg : w.norm_segments) {
    if (w.sink.size >= w.stop_at) break;
    if (!seg.text) {
      w.sink.push(seg.id);
      continue;
    }
    if (seg.begin == seg.end) continue;
    w.sub.bytes = w.gap.bytes + seg.begin;
    w.sub.size = seg.end - seg.begin;
    w.sub.origin.clear();
    if (w.gap.rewritten()) w.sub.origin.assign(w.gap.origin.begin() + seg.begin, w.gap.origin.begin() + seg.end);
    {
      StageTimer t(w.times ? &w.times->split : nullptr);
      w.pretok.offsets_unused = true;  // (ids only: a rewriting stage need not keep origins)
      // (origins: the normalizer's, relative to the gap, or none -- then the part's bytes
      // are the gap's own from seg.begin on)
      pre_tokenizer_.run(w.sub, w.gap.rewritten() ? origin : origin + seg.begin, w.pieces, w.pretok);
    }
    StageTimer t(w.times ? &w.times->model : nullptr);
    if (!encode_pieces(models(), caches_, cache, w)) return false;
  }
  return true;
}

// The gaps between raw added tokens, many at once: each normalized as encode_gap does, one
// after another into one buffer, then one pre-tokenizer run over them all (each gap one of
// its initial pieces, split as if alone) and one encode_pieces, which puts each added
// token's id before the first piece after it.  With "\n" tokens (gemma-3) every line is a
// gap, and one gap at a time the stages' and the cache loop's fixed costs per call took
// most of the time on code.  (Not with normalized
// added tokens, which need each gap's own split, nor with a stage that reads origins or
// rewrites the text: the tokens are placed by their position in it.)  The buffer is run
// every kGapsBytes, so that it stays in the CPU's cache.
bool Encoder::encode_gaps(const uint8_t* s, Worker& w, ThreadCache& cache) const {
  constexpr size_t kGapsBytes = 32 << 10, kKeepGapsBytes = 1 << 20;
  w.gaps.clear(), w.gap_pieces.clear(), w.gap_tokens.clear();
  for (size_t k = 0; k < w.raw_segments.size() && w.sink.size < w.stop_at; k++) {
    const added::Segment seg = w.raw_segments[k];
    if (!seg.text) {
      w.gap_tokens.push_back({uint32_t(w.gaps.size()), seg.id});
      continue;
    }
    const uint32_t at = uint32_t(w.gaps.size());
    {
      StageTimer t(w.times ? &w.times->normalize : nullptr);
      if (!normalizer_.append(s + seg.begin, seg.end - seg.begin, w.gaps, w.norm)) return false;
    }
    if (w.gaps.size() != at) w.gap_pieces.push_back({at, uint32_t(w.gaps.size())});
    if (w.gaps.size() >= kGapsBytes && !run_gaps(w, cache)) return false;
  }
  const bool ok = run_gaps(w, cache);
  if (w.gaps.capacity() > kKeepGapsBytes) std::string().swap(w.gaps);  // (one huge gap: not kept)
  return ok;
}

// The gaps gathered in w.gaps: pre-tokenized and encoded, then the buffer emptied.
bool Encoder::run_gaps(Worker& w, ThreadCache& cache) const {
  bool ok = true;
  if (!w.gap_pieces.empty()) {
    pretok::Text text;
    text.bytes = reinterpret_cast<const uint8_t*>(w.gaps.data()), text.size = uint32_t(w.gaps.size());
    {
      StageTimer t(w.times ? &w.times->split : nullptr);
      w.pretok.offsets_unused = true;
      pre_tokenizer_.run(text, w.gap_pieces, w.pieces, w.pretok);
    }
    StageTimer t(w.times ? &w.times->model : nullptr);
    ok = encode_pieces(models(), caches_, cache, w, &w.gap_tokens);
  } else {
    for (const Worker::Placed& p : w.gap_tokens) w.sink.push(p.id);
  }
  w.gaps.clear(), w.gap_pieces.clear(), w.gap_tokens.clear();
  return ok;
}

bool Encoder::encode_with(const uint8_t* s, uint32_t n, bool add_special, Truncation trunc, Worker& w,
                          ThreadCache& cache) const {
  const size_t base = w.sink.size;
  if (add_special) w.sink.append(prefix_ids_.data(), prefix_ids_.size());
  const size_t body = w.sink.size;
  const size_t limit = size_t(trunc.limit);
  // A right truncation stops the work once the body is long enough -- unless a later piece
  // could be the oracle's error (then the whole text must be seen).
  w.stop_at = trunc.limit != Truncation::kNone && !trunc.left && !model_can_fail_ ? body + limit : SIZE_MAX;
  w.raw_segments.clear();
  {
    StageTimer t(w.times ? &w.times->split : nullptr);
    if (raw_.empty()) w.raw_segments.push_back(added::Segment::of_text(0, n));
    else raw_.split(s, n, w.raw_segments);
  }
  bool ok = true;
  if (batch_gaps_ && w.raw_segments.size() > 1) {
    ok = encode_gaps(s, w, cache);
  } else {
    for (size_t k = 0; ok && k < w.raw_segments.size() && w.sink.size < w.stop_at; k++) {
      const added::Segment seg = w.raw_segments[k];  // (a copy: encode_gap reuses the worker)
      if (!seg.text) w.sink.push(seg.id);
      else ok = encode_gap(s + seg.begin, seg.end - seg.begin, seg.begin, w, cache);
    }
  }
  if (ok) {  // the misses still waiting
    StageTimer t(w.times ? &w.times->model : nullptr);
    ok = flush_misses(models(), caches_, cache.words, w);
  }
  w.stop_at = SIZE_MAX;
  if (!ok) {
    w.misses.clear();
    w.sink.size = base;
    return false;
  }
  if (trunc.limit != Truncation::kNone && w.sink.size - body > limit) {
    uint32_t* ids = w.sink.buf.data();
    if (trunc.left) std::memmove(ids + body, ids + w.sink.size - limit, limit * sizeof(uint32_t));
    w.sink.size = body + limit;
  }
  if (add_special) w.sink.append(suffix_ids_.data(), suffix_ids_.size());
  return true;
}

bool Encoder::encode(const uint8_t* s, uint32_t n, bool add_special, std::vector<uint32_t>& out,
                     Truncation trunc) const {
  ThreadCache* cache = caches_.acquire();
  Worker& w = thread_worker();
  w.sink.size = 0;
  const bool ok = encode_with(s, n, add_special, trunc, w, *cache);
  caches_.release(cache);
  if (ok) out.insert(out.end(), w.sink.buf.begin(), w.sink.buf.begin() + w.sink.size);
  // (the thread keeps its sink for the next text, unless a huge text made it huge)
  if (w.sink.buf.size() > kKeepSinkIds) std::vector<uint32_t>().swap(w.sink.buf);
  return ok;
}

const uint8_t* Encoder::utf8_of(const Units& text, Worker& w, uint32_t& n) const {
  if (text.width == 0) {
    n = uint32_t(text.count);
    return static_cast<const uint8_t*>(text.data);
  }
  const size_t need = utf8_bound(text.count, text.width) + kTranscodeSlack;
  if (w.utf8.size() < need) w.utf8.resize(std::max(need, std::min(w.utf8.size() * 2, kKeepUtf8Bytes)));
  const uint8_t* end = kernels::active().transcode(text.data, text.count, text.width, w.utf8.data());
  if (!end) return nullptr;
  n = uint32_t(end - w.utf8.data());
  return w.utf8.data();
}

Encoder::Result Encoder::encode(const Units& text, bool add_special, std::vector<uint32_t>& out,
                                Truncation trunc) const {
  Worker& w = thread_worker();
  uint32_t n;
  const uint8_t* s = utf8_of(text, w, n);
  const Result r = !s ? kNotUtf8 : encode(s, n, add_special, out, trunc) ? kEncoded : kDelegate;
  trim_utf8(w);
  return r;
}

void Encoder::trim_utf8(Worker& w) {
  if (w.utf8.size() > kKeepUtf8Bytes) std::vector<uint8_t>().swap(w.utf8);
}

StageTimes Encoder::profile(const std::vector<std::pair<const uint8_t*, uint32_t>>& docs, bool add_special) const {
  StageTimes times;
  ThreadCache* cache = caches_.acquire();
  Worker& w = thread_worker();
  w.times = &times;
  for (const auto& d : docs) {
    w.sink.size = 0;
    encode_with(d.first, d.second, add_special, Truncation{}, w, *cache);
  }
  w.times = nullptr;
  caches_.release(cache);
  return times;
}

void Encoder::encode_batch(const std::vector<Units>& docs, bool add_special, int threads, Batch& out,
                           Truncation trunc) const {
  const size_t n = docs.size();
  // Each thread writes its documents' ids into its own sink; spans say where each one is.
  struct Span {
    uint32_t thread;
    size_t begin, end;
  };
  out.delegate.assign(n, 0);
  out.offsets.assign(n + 1, 0);
  threads = std::max(1, std::min<int>(threads, int(n)));
  std::vector<IdSink> sinks(static_cast<size_t>(threads));  // outlive the threads (their workers do not)
  {
    std::lock_guard<std::mutex> lock(sinks_mutex_);
    for (IdSink& s : sinks) {
      if (spare_sinks_.empty()) break;
      s.buf.swap(spare_sinks_.back());
      spare_sinks_.pop_back();
    }
  }
  std::vector<Span> spans;
  for (size_t first = 0; first < n;) {
    size_t last = first + 1, units = docs[first].count;  // a round: at least one document
    while (last < n && units + docs[last].count <= kRoundBytes) units += docs[last++].count;
    spans.assign(last - first, Span{});
    std::atomic<size_t> next{first};
    auto work = [&](int t) {
      ThreadCache* cache = caches_.acquire();
      Worker& w = thread_worker();
      w.sink.buf.swap(sinks[size_t(t)].buf);
      w.sink.size = 0;
      for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < last;) {
        const size_t begin = w.sink.size;
        uint32_t len;
        const uint8_t* s = utf8_of(docs[i], w, len);
        if (!s) out.delegate[i] = kNotUtf8;
        else if (!encode_with(s, len, add_special, trunc, w, *cache)) out.delegate[i] = kDelegate;
        spans[i - first] = {uint32_t(t), begin, w.sink.size};
      }
      w.sink.buf.swap(sinks[size_t(t)].buf);
      trim_utf8(w);
      caches_.release(cache);
    };
    parallel_for_threads(std::min<int>(threads, int(last - first)), work);
    size_t total = 0;
    for (size_t i = first; i < last; i++) {
      const Span& sp = spans[i - first];
      total += sp.end - sp.begin;
      out.offsets[i + 1] = out.offsets[i] + int64_t(sp.end - sp.begin);
    }
    uint32_t* dst = out.ids.extend(total);
    for (const Span& sp : spans) {
      const uint32_t* src = sinks[sp.thread].buf.data();
      dst = std::copy(src + sp.begin, src + sp.end, dst);
    }
    first = last;
  }
  std::lock_guard<std::mutex> lock(sinks_mutex_);
  for (IdSink& s : sinks)
    if (!s.buf.empty() && s.buf.size() <= kKeepSinkIds && spare_sinks_.size() < size_t(threads))
      spare_sinks_.push_back(std::move(s.buf));
}

}  // namespace tagpipe
