#include "encode/offsets.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "encode/encoder.h"
#include "encode/thread_pool.h"

namespace tagpipe {

// ---- BpeSpans ------------------------------------------------------------------------------

BpeSpans::BpeSpans(const std::vector<std::string>& strings, std::string prefix, std::string suffix, uint32_t unk_id,
                   const std::vector<uint32_t>& byte_ids)
    : prefix_(std::move(prefix)), suffix_(std::move(suffix)), unk_id_(unk_id), fallback_(strings.size(), -1) {
  at_.reserve(strings.size() + 1);
  for (const std::string& s : strings) {
    at_.push_back(uint32_t(pool_.size()));
    pool_ += s;
  }
  at_.push_back(uint32_t(pool_.size()));
  for (size_t b = 0; b < byte_ids.size() && b < 256; b++)
    if (byte_ids[b] < fallback_.size()) fallback_[byte_ids[b]] = int16_t(b);
}

bool BpeSpans::bytes_of(uint32_t id, size_t i, size_t count, const uint8_t*& s, uint32_t& len) const {
  if (size_t(id) + 1 >= at_.size()) return false;
  const char* p = pool_.data() + at_[id];
  size_t n = at_[id + 1] - at_[id];
  // (the oracle puts the prefix on every character but the first, the suffix on the last)
  if (i > 0 && !prefix_.empty()) {
    if (n < prefix_.size() || std::memcmp(p, prefix_.data(), prefix_.size()) != 0) return false;
    p += prefix_.size(), n -= prefix_.size();
  }
  if (i + 1 == count && !suffix_.empty()) {
    if (n < suffix_.size() || std::memcmp(p + n - suffix_.size(), suffix_.data(), suffix_.size()) != 0) return false;
    n -= suffix_.size();
  }
  s = reinterpret_cast<const uint8_t*>(p), len = uint32_t(n);
  return n > 0;
}

bool BpeSpans::spans(const uint8_t* p, uint32_t n, const uint32_t* ids, size_t count,
                     std::vector<TokenSpan>& out) const {
  const size_t mark = out.size();
  // One token that is the whole piece as it stands (ignore_merges' lookup: no suffix).
  if (count == 1 && size_t(ids[0]) + 1 < at_.size() && at_[ids[0] + 1] - at_[ids[0]] == n &&
      std::memcmp(pool_.data() + at_[ids[0]], p, n) == 0) {
    out.push_back({0, n});
    return true;
  }
  // The lengths first: an unk token (one at most) takes what the others leave.
  size_t unk = count, total = 0;
  for (size_t i = 0; i < count; i++) {
    const uint32_t id = ids[i];
    const uint8_t* s;
    uint32_t len = 0;
    if (id < fallback_.size() && fallback_[id] >= 0) {
      len = 1;
    } else if (id == unk_id_) {
      if (unk != count) return false;
      unk = i;
    } else if (!bytes_of(id, i, count, s, len)) {
      return false;
    }
    out.push_back({uint32_t(total), 0});
    total += len;
    out.back().end = uint32_t(total);
  }
  bool ok = unk == count ? total == n : total < n;
  // Then each token's bytes laid over the piece, one after another.
  for (size_t i = 0, pos = 0; ok && i < count; i++) {
    TokenSpan& sp = out[mark + i];
    uint32_t len = sp.end - sp.begin;
    if (i == unk) len = uint32_t(n - total);
    sp = {uint32_t(pos), uint32_t(pos + len)};
    const uint32_t id = ids[i];
    const uint8_t* s;
    uint32_t slen;
    if (id < fallback_.size() && fallback_[id] >= 0) ok = p[pos] == uint8_t(fallback_[id]);
    else if (i != unk) ok = bytes_of(id, i, count, s, slen) && std::memcmp(p + pos, s, len) == 0;
    pos += len;
  }
  if (!ok) out.resize(mark);
  return ok;
}

// ---- characters ----------------------------------------------------------------------------

void spans_to_chars(const uint8_t* s, uint32_t n, std::vector<uint32_t>& spans, size_t first,
                    std::vector<uint32_t>& index) {
  uint8_t high = 0;
  for (uint32_t i = 0; i < n; i++) high |= s[i];
  if (high < 0x80) return;  // ASCII: a byte is a character
  index.resize(n);
  uint32_t c = 0;
  for (uint32_t i = 0; i < n; i++) {
    c += (s[i] & 0xC0) != 0x80;
    index[i] = c - 1;  // the character byte i belongs to
  }
  for (size_t k = 2 * first; k < spans.size(); k += 2) {
    const uint32_t b = spans[k], e = spans[k + 1];
    if (b >= n) continue;  // (the converter has no such start: the byte offsets stay)
    spans[k] = index[b];
    spans[k + 1] = e < n ? index[e] : (e - 1 < n ? index[e - 1] + 1 : index[b] + 2);
  }
}

// ---- the encoder's offsets path ------------------------------------------------------------

namespace {

struct SpanScratch {
  std::vector<uint32_t> ids;
  std::vector<TokenSpan> spans;
  std::vector<uint32_t> index;  // spans_to_chars
  uint32_t found[WordCache::kRoom];
};

SpanScratch& span_scratch() {
  thread_local SpanScratch s;
  return s;
}

}  // namespace

// The ids of one piece from the word cache or the model, and their spans.
bool Encoder::piece_spans(const uint8_t* p, uint32_t n, const BpeSpans* bpe_spans, Worker& w, ThreadCache& tc) const {
  SpanScratch& sc = span_scratch();
  sc.ids.clear(), sc.spans.clear();
  if (piece_model_) return piece_model_->encode_spans(p, n, sc.ids, sc.spans, w.piece);
  if (!bpe_spans) return false;
  WordCache& cache = tc.words;
  const WordCache::Probe q = WordCache::probe(p, n);
  const uint32_t c = cache.find<true>(p, n, q, sc.found);
  const uint32_t* ids;
  uint32_t got;
  if (c - 1 < WordCache::kRoom) {
    sc.ids.assign(sc.found, sc.found + c);
  } else if (c == WordCache::kNotInline && cache.find_long(p, n, q, ids, got)) {
    sc.ids.assign(ids, ids + got);
  } else {
    bpe_->encode(p, n, sc.ids, w.bpe);
    if (cache.pending()) caches_.rebudget(cache);
    cache.insert(p, n, sc.ids.data(), uint32_t(sc.ids.size()));
  }
  return bpe_spans->spans(p, n, sc.ids.data(), sc.ids.size(), sc.spans);
}

// The tokens of w.pieces (split from `input`, whose origin 0 is at `base`) with their spans.
bool Encoder::pieces_spans(const uint8_t* input, uint32_t size, uint32_t base, const BpeSpans* bpe_spans, Worker& w,
                           ThreadCache& tc, SpanSink& out) const {
  const pretok::PreTokenized& pt = w.pieces;
  if (bpe_ && !pt.pieces.empty() && pt.text.byte_mapped != bpe_->byte_level()) return false;
  const SpanScratch& sc = span_scratch();
  for (const pretok::Piece& piece : pt.pieces) {
    if (piece.begin == piece.end) continue;
    if (!piece_spans(pt.text.bytes + piece.begin, piece.end - piece.begin, bpe_spans, w, tc)) return false;
    for (size_t k = 0; k < sc.ids.size(); k++) {
      const TokenSpan sp = sc.spans[k];
      if (sp.begin >= sp.end) return false;  // (no model makes an empty one)
      const pretok::Origin o = pt.origin({piece.begin + sp.begin, piece.begin + sp.end}, input, size);
      out.push(sc.ids[k], base + o.begin, base + o.end);
    }
  }
  return true;
}

// One gap between raw added tokens (s[0..n), at `base` in the text), as encode_gap.
bool Encoder::gap_spans(const uint8_t* s, uint32_t n, uint32_t base, const BpeSpans* bpe_spans, Worker& w,
                        ThreadCache& tc, SpanSink& out) const {
  if (!normalizer_.run(s, n, w.gap, w.norm, true)) return false;
  const bool rewritten = w.gap.rewritten();
  w.norm_segments.clear();
  if (normalized_.empty()) w.norm_segments.push_back({added::Segment::kText, 0, w.gap.size});
  else normalized_.split(w.gap.bytes, w.gap.size, w.norm_segments);
  for (const added::Segment& seg : w.norm_segments) {
    if (seg.id != added::Segment::kText) {  // (a match of whole characters)
      const uint32_t b = rewritten ? w.gap.origin[seg.begin].begin : seg.begin;
      const uint32_t e = rewritten ? w.gap.origin[seg.end - 1].end : seg.end;
      out.push(seg.id, base + b, base + e, true);
      continue;
    }
    if (seg.begin == seg.end) continue;
    w.sub.bytes = w.gap.bytes + seg.begin;
    w.sub.size = seg.end - seg.begin;
    w.sub.origin.clear();
    if (rewritten) w.sub.origin.assign(w.gap.origin.begin() + seg.begin, w.gap.origin.begin() + seg.end);
    const uint32_t sub_base = rewritten ? base : base + seg.begin;
    w.pretok.offsets_unused = false;
    pre_tokenizer_.run(w.sub, sub_base, w.pieces, w.pretok);
    if (!pieces_spans(w.sub.bytes, w.sub.size, sub_base, bpe_spans, w, tc, out)) return false;
  }
  return true;
}

bool Encoder::text_spans(const uint8_t* s, uint32_t n, const BpeSpans* bpe_spans, Worker& w, ThreadCache& tc,
                         SpanSink& out) const {
  const size_t base = out.size();
  w.raw_segments.clear();
  if (raw_.empty()) w.raw_segments.push_back({added::Segment::kText, 0, n});
  else raw_.split(s, n, w.raw_segments);
  bool ok = true;
  for (size_t k = 0; ok && k < w.raw_segments.size(); k++) {
    const added::Segment seg = w.raw_segments[k];  // (a copy: gap_spans reuses the worker)
    if (seg.id != added::Segment::kText) out.push(seg.id, seg.begin, seg.end, true);
    else ok = gap_spans(s + seg.begin, seg.end - seg.begin, seg.begin, bpe_spans, w, tc, out);
  }
  if (!ok) {
    out.resize(base);
    return false;
  }
  spans_to_chars(s, n, out.spans, base, span_scratch().index);
  return true;
}

void Encoder::encode_offsets(const std::vector<Units>& docs, const BpeSpans* bpe_spans, int threads,
                             SpanBatch& out) const {
  const size_t n = docs.size();
  out.delegate.assign(n, kEncoded);
  out.offsets.assign(n + 1, 0);
  threads = std::max(1, std::min<int>(threads, int(n)));
  struct Span {
    uint32_t thread;
    size_t begin, end;
  };
  std::vector<Span> spans(n);
  std::vector<SpanSink> sinks(static_cast<size_t>(threads));
  std::atomic<size_t> next{0};
  parallel_for_threads(threads, [&](int t) {
    ThreadCache* cache = caches_.acquire();
    Worker& w = thread_worker();
    SpanSink& sink = sinks[size_t(t)];
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      const size_t begin = sink.size();
      uint32_t len;
      const uint8_t* s = utf8_of(docs[i], w, len);
      if (!s) out.delegate[i] = kNotUtf8;
      else if (!text_spans(s, len, bpe_spans, w, *cache, sink)) out.delegate[i] = kDelegate;
      spans[i] = {uint32_t(t), begin, sink.size()};
    }
    trim_utf8(w);
    caches_.release(cache);
  });
  for (size_t i = 0; i < n; i++) out.offsets[i + 1] = out.offsets[i] + int64_t(spans[i].end - spans[i].begin);
  out.ids.resize(size_t(out.offsets[n]));
  out.spans.resize(2 * size_t(out.offsets[n]));
  out.added.resize(size_t(out.offsets[n]));
  for (size_t i = 0; i < n; i++) {
    const Span& sp = spans[i];
    const SpanSink& sink = sinks[sp.thread];
    std::copy(sink.ids.begin() + sp.begin, sink.ids.begin() + sp.end, out.ids.begin() + out.offsets[i]);
    std::copy(sink.added.begin() + sp.begin, sink.added.begin() + sp.end, out.added.begin() + out.offsets[i]);
    std::copy(sink.spans.begin() + 2 * sp.begin, sink.spans.begin() + 2 * sp.end,
              out.spans.begin() + 2 * out.offsets[i]);
  }
}

}  // namespace tagpipe
