#include "encode/offsets.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include "encode/encoder.h"
#include "encode/thread_pool.h"

namespace tagpipe {

// ---- TokenSpans ------------------------------------------------------------------------------

TokenSpans::TokenSpans(const std::vector<std::string>& strings, std::string prefix, std::string suffix, uint32_t unk_id,
                       const std::vector<uint32_t>& byte_ids, const std::vector<uint32_t>& refused, bool check_bytes)
    : prefix_(std::move(prefix)),
      suffix_(std::move(suffix)),
      unk_id_(unk_id),
      check_bytes_(check_bytes),
      kind_(strings.size(), kPlain) {
  at_.reserve(strings.size() + 1);
  for (size_t id = 0; id < strings.size(); id++) {
    at_.push_back(uint32_t(pool_.size()));
    pool_ += strings[id];
    if (strings[id].empty()) kind_[id] = kRefused;
  }
  at_.push_back(uint32_t(pool_.size()));
  for (size_t b = 0; b < byte_ids.size() && b < 256; b++)
    if (byte_ids[b] < kind_.size()) kind_[byte_ids[b]] = int16_t(b);
  for (uint32_t id : refused)
    if (id < kind_.size()) kind_[id] = kRefused;
  if (unk_id_ < kind_.size()) kind_[unk_id_] = kUnk;
}

bool TokenSpans::length_of(uint32_t id, size_t i, size_t count, uint32_t& len) const {
  if (id >= kind_.size() || kind_[id] != kPlain) return false;
  uint32_t n = at_[id + 1] - at_[id];
  // (the oracle puts the prefix on every character but the first, the suffix on the last)
  const uint32_t cut = (i > 0 ? uint32_t(prefix_.size()) : 0) + (i + 1 == count ? uint32_t(suffix_.size()) : 0);
  if (n <= cut) return false;
  len = n - cut;
  return true;
}

namespace {

// a[0..n) == b[0..n): most tokens are a few bytes, shorter than a call of memcmp.
inline bool same_bytes(const uint8_t* a, const uint8_t* b, size_t n) {
  if (n > 16) return std::memcmp(a, b, n) == 0;
  uint8_t diff = 0;
  for (size_t i = 0; i < n; i++) diff |= uint8_t(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

bool TokenSpans::string_is(uint32_t id, size_t i, size_t count, const uint8_t* at) const {
  const uint8_t* s = reinterpret_cast<const uint8_t*>(pool_.data()) + at_[id];
  const size_t n = at_[id + 1] - at_[id], pre = i > 0 ? prefix_.size() : 0;
  const size_t suf = i + 1 == count ? suffix_.size() : 0;
  return same_bytes(s, reinterpret_cast<const uint8_t*>(prefix_.data()), pre) &&
         same_bytes(s + n - suf, reinterpret_cast<const uint8_t*>(suffix_.data()), suf) &&
         same_bytes(s + pre, at, n - pre - suf);
}

bool TokenSpans::token_at(const uint8_t* p, uint32_t n, uint32_t id, size_t i, size_t count, uint32_t pos,
                          uint32_t& len) const {
  if (id < kind_.size() && kind_[id] >= 0) {  // a <0xXX> byte-fallback token: its byte
    len = 1;
    return pos < n && p[pos] == uint8_t(kind_[id]);
  }
  return length_of(id, i, count, len) && len <= n - pos && (!check_bytes_ || string_is(id, i, count, p + pos));
}

bool TokenSpans::lay_back(const uint8_t* p, uint32_t end, uint32_t id, size_t i, size_t count, uint32_t& at) const {
  uint32_t len = 1;
  if (!(id < kind_.size() && kind_[id] >= 0) && !length_of(id, i, count, len)) return false;
  if (len > end) return false;
  at = end - len;
  return token_at(p, end, id, i, count, at, len);
}

bool TokenSpans::spans(const uint8_t* p, uint32_t n, const uint32_t* ids, size_t count,
                       std::vector<TokenSpan>& out) const {
  const size_t mark = out.size();
  // One token that is the whole piece as it stands (ignore_merges' lookup: no suffix).
  const uint32_t first = count ? ids[0] : 0;
  if (count == 1 && first < kind_.size() && kind_[first] == kPlain && at_[first + 1] - at_[first] == n &&
      (!check_bytes_ || same_bytes(reinterpret_cast<const uint8_t*>(pool_.data()) + at_[first], p, n))) {
    out.push_back({0, n});
    return true;
  }
  // Each token laid over the piece, one after another, up to an unk token (one at most): it
  // takes what the others leave, and the tokens after it are laid back from the end.
  size_t unk = count;
  uint32_t pos = 0, len = 0;
  for (size_t i = 0; i < count; i++) {
    if (ids[i] == unk_id_) {
      unk = i;
      break;
    }
    if (!token_at(p, n, ids[i], i, count, pos, len)) return out.resize(mark), false;
    out.push_back({pos, pos + len});
    pos += len;
  }
  if (unk == count) {
    if (pos == n) return true;
    return out.resize(mark), false;
  }
  uint32_t end = n;
  for (size_t i = count; i-- > unk + 1;) {
    uint32_t at = 0;
    if (ids[i] == unk_id_ || !lay_back(p, end, ids[i], i, count, at)) return out.resize(mark), false;
    end = at;
  }
  if (end <= pos) return out.resize(mark), false;
  out.push_back({pos, end});  // the unk token
  for (size_t i = unk + 1; i < count; i++) {
    token_at(p, n, ids[i], i, count, end, len);  // (proven by lay_back)
    out.push_back({end, end + len});
    end += len;
  }
  return true;
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

struct SpanScratch {
  std::vector<uint32_t> ids;  // one piece's
  std::vector<TokenSpan> spans;
  std::vector<uint32_t> index;  // spans_to_chars
  uint32_t found[WordCache::kRoom];
};

namespace {

SpanScratch& span_scratch() {
  thread_local SpanScratch s;
  return s;
}

}  // namespace

// The ids of one piece (probe q requested) and their spans: from the word cache, spanned by
// the table -- or else the model's own (a piece model: exact; BPE: its ids, spanned by the
// table or not at all).
bool Encoder::piece_spans(const uint8_t* p, uint32_t n, const WordCache::Probe& q, const TokenSpans* table, Worker& w,
                          ThreadCache& tc, SpanScratch& sc) const {
  sc.ids.clear(), sc.spans.clear();
  WordCache& cache = tc.words;
  const uint32_t c = cache.find<false>(p, n, q, sc.found);
  const uint32_t* ids;
  uint32_t got;
  bool hit = true;
  if (c - 1 < WordCache::kRoom) sc.ids.assign(sc.found, sc.found + c);
  else if (c == WordCache::kNotInline && cache.find_long(p, n, q, ids, got)) sc.ids.assign(ids, ids + got);
  else hit = false;
  if (hit && table && table->spans(p, n, sc.ids.data(), sc.ids.size(), sc.spans)) return true;
  if (piece_model_) {
    sc.ids.clear(), sc.spans.clear();
    if (!piece_model_->encode_spans(p, n, sc.ids, sc.spans, w.piece)) return false;
  } else if (hit || !table) {
    return false;
  } else {
    bpe_->encode(p, n, sc.ids, w.bpe);
  }
  if (!hit) {
    if (cache.pending()) caches_.rebudget(cache);
    cache.insert(p, n, sc.ids.data(), uint32_t(sc.ids.size()));
  }
  return piece_model_ || table->spans(p, n, sc.ids.data(), sc.ids.size(), sc.spans);
}

// The tokens of w.pieces (split from `input`, whose origin 0 is at `base`) with their spans;
// each piece's cache slot is requested kAhead pieces before its lookup.
bool Encoder::pieces_spans(const uint8_t* input, uint32_t size, uint32_t base, const TokenSpans* table, Worker& w,
                           ThreadCache& tc, SpanScratch& sc, SpanSink& out) const {
  constexpr size_t kAhead = 16;
  const pretok::PreTokenized& pt = w.pieces;
  const std::vector<pretok::Piece>& pieces = pt.pieces;
  if (bpe_ && !pieces.empty() && pt.text.byte_mapped != bpe_->byte_level()) return false;
  WordCache::Probe ahead[kAhead];
  auto request = [&](size_t k) {
    if (pieces[k].end > pieces[k].begin)
      tc.words.request(pt.text.bytes + pieces[k].begin, pieces[k].end - pieces[k].begin, ahead[k % kAhead]);
  };
  for (size_t k = 0; k < pieces.size() && k < kAhead; k++) request(k);
  for (size_t k = 0; k < pieces.size(); k++) {
    const pretok::Piece piece = pieces[k];
    const WordCache::Probe q = ahead[k % kAhead];  // (before the request below reuses the slot)
    if (k + kAhead < pieces.size()) request(k + kAhead);
    if (piece.begin == piece.end) continue;
    if (!piece_spans(pt.text.bytes + piece.begin, piece.end - piece.begin, q, table, w, tc, sc)) return false;
    for (size_t t = 0; t < sc.ids.size(); t++) {
      const TokenSpan sp = sc.spans[t];
      if (sp.begin >= sp.end) return false;  // (no model makes an empty one)
      const pretok::Origin o = pt.origin({piece.begin + sp.begin, piece.begin + sp.end}, input, size);
      out.push(sc.ids[t], base + o.begin, base + o.end);
    }
  }
  return true;
}

// One gap between raw added tokens (s[0..n), at `base` in the text), as encode_gap.
bool Encoder::gap_spans(const uint8_t* s, uint32_t n, uint32_t base, const TokenSpans* token_spans, Worker& w,
                        ThreadCache& tc, SpanScratch& sc, SpanSink& out) const {
  if (!normalizer_.run(s, n, w.gap, w.norm, true)) return false;
  const bool rewritten = w.gap.rewritten();
  w.norm_segments.clear();
  if (normalized_.empty()) w.norm_segments.push_back(added::Segment::of_text(0, w.gap.size));
  else normalized_.split(w.gap.bytes, w.gap.size, w.norm_segments);
  for (const added::Segment& seg : w.norm_segments) {
    if (!seg.text) {  // (a match of whole characters)
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
    if (!pieces_spans(w.sub.bytes, w.sub.size, sub_base, token_spans, w, tc, sc, out)) return false;
  }
  return true;
}

bool Encoder::text_spans(const uint8_t* s, uint32_t n, const TokenSpans* token_spans, Worker& w, ThreadCache& tc,
                         SpanSink& out) const {
  const size_t base = out.size();
  SpanScratch& sc = span_scratch();
  w.raw_segments.clear();
  if (raw_.empty()) w.raw_segments.push_back(added::Segment::of_text(0, n));
  else raw_.split(s, n, w.raw_segments);
  bool ok = true;
  for (size_t k = 0; ok && k < w.raw_segments.size(); k++) {
    const added::Segment seg = w.raw_segments[k];  // (a copy: gap_spans reuses the worker)
    if (!seg.text) out.push(seg.id, seg.begin, seg.end, true);
    else ok = gap_spans(s + seg.begin, seg.end - seg.begin, seg.begin, token_spans, w, tc, sc, out);
  }
  if (!ok) {
    out.resize(base);
    return false;
  }
  spans_to_chars(s, n, out.spans, base, sc.index);
  return true;
}

void Encoder::encode_offsets(const std::vector<Units>& docs, const TokenSpans* token_spans, int threads,
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
      else if (!text_spans(s, len, token_spans, w, *cache, sink)) out.delegate[i] = kDelegate;
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
