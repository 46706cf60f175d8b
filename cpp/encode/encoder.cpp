#include "encode/encoder.h"

#include "dispatch/kernels.h"
#include "encode/thread_pool.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace tagpipe {
namespace {

using Clock = std::chrono::steady_clock;
int64_t since(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
}

// Adds the time from construction to destruction to *slot (when profiling).
struct Timer {
  int64_t* slot;
  Clock::time_point t0;
  explicit Timer(int64_t* s) : slot(s), t0(s ? Clock::now() : Clock::time_point{}) {}
  ~Timer() {
    if (slot) *slot += since(t0);
  }
};

Worker& thread_worker() {
  thread_local Worker w;
  return w;
}

// encode_pieces requests each piece's word-cache slot this many pieces ahead of its lookup.
constexpr size_t kAhead = 16;

// The common case of encode_pieces, apart so that its state stays in registers: from piece
// k on, the pieces whose ids the word cache's inline tiers hold, written at out[size..],
// while size < stop (the caller's: where the truncation stops, or where WordCache::kRoom
// more ids would not fit) and before the piece that starts at or past `before` (an added
// token goes there).  Returns where it stopped: at the first other piece (a miss, a long
// one), or at a limit.  Piece k's probe is in ahead[k % kAhead], and each piece it answers
// requests the one kAhead after it, as the main loop does.  `found`: what the lookup of
// piece k said when it stopped there (WordCache::kMiss or kNotInline: the main loop does not
// look again), or kNotLooked.
constexpr uint32_t kNotLooked = UINT32_MAX;
struct HitRun {
  size_t k, size;
  uint32_t found = kNotLooked;
};
__attribute__((noinline)) HitRun hit_run(const WordCache& cache, const pretok::Piece* pieces, size_t count,
                                          const uint8_t* bytes, WordCache::Probe* ahead, uint32_t* out, size_t size,
                                          size_t stop, uint32_t before, size_t k) {
  const WordCache::View view(cache);
  if (view.empty()) return {k, size};
  uint32_t found = kNotLooked;
  for (; k < count && size < stop; k++) {
    const pretok::Piece piece = pieces[k];
    if (piece.begin >= before) break;
    const uint32_t c = view.find(bytes + piece.begin, piece.end - piece.begin, ahead[k % kAhead], out + size);
    if (c - 1 >= WordCache::kRoom) {
      found = c;
      break;
    }
    size += c;
    if (k + kAhead < count) {
      const pretok::Piece& next = pieces[k + kAhead];
      view.request(bytes + next.begin, next.end - next.begin, ahead[k % kAhead]);
    }
  }
  return {k, size, found};
}

// The probes of a cut piece's parts (p[0..cuts.back()), cut at `cuts`), each part's slot
// requested before any is looked up: on fresh text they are cache misses, which one after
// another dominated the loop on whole-character pieces.  Only for those (the encoder's
// `refine` pieces): a ByteLevel piece's parts are mostly a CJK character or two that the
// table of recent hits answers.  Apart, not inline: that changed the code of the loop.
__attribute__((noinline)) void request_parts(const WordCache& cache, const uint8_t* p,
                                             const std::vector<uint32_t>& cuts, std::vector<WordCache::Probe>& probes) {
  probes.resize(cuts.size());
  const WordCache::View view(cache);
  for (uint32_t begin = 0, i = 0; i < cuts.size(); begin = cuts[i++])
    view.request(p + begin, cuts[i] - begin, probes[i]);
}

}  // namespace

Encoder::Encoder(EncoderSpec spec)
    : normalizer_(std::move(spec.normalizer)),
      pre_tokenizer_(spec.pre_tokenizer),
      bpe_(std::move(spec.vocab), spec.merges, std::move(spec.bpe)),
      piece_model_(std::move(spec.piece_model)),
      raw_(std::move(spec.raw_tokens)),
      normalized_(std::move(spec.normalized_tokens)),
      prefix_ids_(std::move(spec.prefix_ids)),
      suffix_ids_(std::move(spec.suffix_ids)),
      cache_bytes_(spec.cache_bytes),
      need_origin_(pre_tokenizer_.needs_origin()),
      batch_gaps_(!raw_.empty() && normalized_.empty() && !need_origin_ && !pre_tokenizer_.rewrites()),
      model_can_fail_(piece_model_ && piece_model_->can_fail()) {
  if (piece_model_) return;
  const bool form = piece_form();
  const bool cuts = bpe_.cut_rule(form).empty();
  pre_tokenizer_.model_cuts(cuts);
  if (cuts) bpe_.prepare_cuts(form);  // (at load: a first long new piece would pay it)
  bpe_.prepare_seed(form);
}

// Which form the pre-tokenizer leaves pieces in: ByteLevel bytes (true) or plain UTF-8.
bool Encoder::piece_form() const {
  pretok::PreTokenized probe;
  pretok::Scratch scratch;
  pre_tokenizer_.run(reinterpret_cast<const uint8_t*>("a"), 1, probe, scratch);
  return probe.text.byte_mapped;
}

// The caches are handed out one per concurrent encode; together they stay within the
// budget: each one's share is the budget over the number of caches, and the budgets given
// out never add up to more than the budget.  A cache in use belongs to its thread alone:
// when another thread needs it to shrink (or to be wiped) it asks, and the owner shrinks it
// at its next miss (rebudget) or when it hands the cache back.
// A free cache goes out warmest first (the most entries): encode_batch's first thread, which
// starts before the pool's and may do most of a small batch alone, then has the cache that
// knows the most words -- not one that saw only the pool thread's few documents (gpt2 code
// on 2 threads ran some rounds at a quarter of its one-thread speed).
ThreadCache* Encoder::acquire_cache() const {
  std::lock_guard<std::mutex> lock(caches_mutex_);
  ThreadCache* c;
  if (!free_caches_.empty()) {
    // (free: nobody writes them, so their counts can be read under the lock)
    auto warmest = std::max_element(free_caches_.begin(), free_caches_.end(), [](const ThreadCache* a, const ThreadCache* b) {
      return a->words.entries() < b->words.entries();
    });
    c = *warmest;
    free_caches_.erase(warmest);
  } else {
    caches_.push_back(std::make_unique<ThreadCache>(0));
    c = caches_.back().get();
    const size_t share = cache_bytes_ / caches_.size();
    for (auto& other : caches_) {
      if (other.get() == c || other->words.budget() <= share) continue;
      if (std::find(free_caches_.begin(), free_caches_.end(), other.get()) != free_caches_.end())
        other->words.set_budget(share);  // free: nobody uses it now
      else
        other->words.ask_rebudget();  // in use: its owner shrinks it
    }
  }
  rebudget_locked(c->words);
  return c;
}

// Under caches_mutex_: the share of c, as far as the others' budgets leave room for it;
// still pending while it gets less than its share (an owner has yet to shrink its cache).
void Encoder::rebudget_locked(WordCache& c) const {
  const size_t share = cache_bytes_ / caches_.size();
  size_t others = 0;
  for (const auto& o : caches_)
    if (&o->words != &c) others += o->words.budget();
  const size_t room = cache_bytes_ > others ? cache_bytes_ - others : 0;
  c.apply(std::min(share, room), room < share);
}

void Encoder::rebudget(WordCache& c) const {
  std::lock_guard<std::mutex> lock(caches_mutex_);
  rebudget_locked(c);
}

void Encoder::release_cache(ThreadCache* c) const {
  std::lock_guard<std::mutex> lock(caches_mutex_);
  rebudget_locked(c->words);
  free_caches_.push_back(c);
}

size_t Encoder::cache_used() const {
  std::lock_guard<std::mutex> lock(caches_mutex_);
  size_t n = 0;
  for (const auto& c : caches_) n += c->words.used();
  return n;
}

void Encoder::clear_cache() const {
  std::lock_guard<std::mutex> lock(caches_mutex_);
  for (auto& c : caches_) {
    if (std::find(free_caches_.begin(), free_caches_.end(), c.get()) != free_caches_.end()) c->words.clear();
    else c->words.ask_clear();
  }
}

// The pieces the pre-tokenizer left in w.pieces: each from the cache, else the model (then
// cached).  The cache slots are requested a few pieces ahead, and a short piece's hit
// writes its four id slots at once (IdSink keeps the room).  A miss leaves a hole in the
// sink and waits for a few more: Bpe::encode_many answers them together (a repeat of a
// waiting piece joins its job), then the ids are spliced into the holes.  A short miss
// also requests its word-seed slot: encode_many looks there first, by then without
// waiting for the memory (the seed is megabytes; looked up at once, its probe was a
// tenth of the model stage's time on fresh English).
bool Encoder::encode_pieces(Worker& w, ThreadCache& tc, const std::vector<Worker::Placed>* tokens) const {
  const pretok::Text& t = w.pieces.text;
  const std::vector<pretok::Piece>& pieces = w.pieces.pieces;
  const size_t count = pieces.size();
  // The pieces' probes (request_piece), made kAhead pieces ahead with the prefetch of
  // their slot, and kept in a ring until their lookup.
  WordCache& cache = tc.words;
  WordCache::Probe ahead[kAhead];
  auto request = [&](size_t k) __attribute__((always_inline)) {
    cache.request(t.bytes + pieces[k].begin, pieces[k].end - pieces[k].begin, ahead[k % kAhead]);
  };
  for (size_t k = 0; k < count && k < kAhead; k++) request(k);
  const WordSeed* seed = piece_model_ ? nullptr : &bpe_.seed(t.byte_mapped);
  IdSink& sink = w.sink;
  // One piece, or one part of a cut one: a hit, or a job for BPE (a hole in the sink until
  // flush_misses).  kCut: a new long piece that can be cut (Bpe::cuts), at w.cuts; its parts
  // are then pieces of their own -- mostly a character or two of Chinese text, or a word,
  // which the cache knows, where it seldom knows the whole clause.  (The whole piece is
  // cached only as the end of the loop below says: caching every one whose parts were all
  // hits cost Chinese text 16% when they went to the long table, clauses seldom recur; an
  // earlier try at caching them at their second sighting, in the long table too, cost gpt2
  // Chinese 9% and gained nothing.)
  enum { kDone, kCut, kRefined, kFailed };
  // (q: the piece's probe when it is short; its medium_hash or long_hash (request_piece) when
  // it is not and may_cut -- a piece, not a cut part, whose lookup goes through the word
  // cache's small table of recent hits, WordCache::find_short, and whose hashes are
  // computed here)
  // (refine: a part of a cut piece; at a miss, kRefined when Bpe::refine cut it, at w.subcuts)
  // (found: what hit_run's lookup of this piece said -- a miss, or a later tier -- or kNotLooked)
  auto piece = [&](const uint8_t* p, uint32_t n, const WordCache::Probe& q, bool may_cut, bool refine,
                   uint32_t found = kNotLooked) __attribute__((always_inline)) {
    uint32_t c = found;
    if (found == kNotLooked) {
      c = may_cut ? cache.find<false>(p, n, q, sink.room(WordCache::kRoom))
                  : cache.find<true>(p, n, q, sink.room(WordCache::kRoom));
      if (c - 1 < WordCache::kRoom) {
        sink.size += c;
        return kDone;
      }
    }
    if (c == WordCache::kMiss && n < 16 && seed) seed->prefetch(q.h);
    if (c == WordCache::kNotInline) {  // a long piece, or a short or medium one with more ids
      const uint32_t* ids;
      uint32_t got;
      if (cache.find_long(p, n, q, ids, got)) {
        sink.append(ids, got);
        return kDone;
      }
    }
    // (Bpe::cuts: the piece's hash_bytes, which the probe of a long one is)
    const uint64_t h = n > WordCache::kMediumMax ? q.h : 0;
    if (may_cut && n >= 16 && !piece_model_ && bpe_.cuts(p, n, h, t.byte_mapped, w.cuts)) return kCut;
    if (refine && tc.refine_gate.want()) {
      if (bpe_.refine(p, n, t.byte_mapped, w.subcuts)) return kRefined;
      tc.refine_gate.record(false);
    }
    size_t job = 0;
    while (job < w.jobs.size() && !(w.jobs[job].n == n && std::memcmp(w.jobs[job].s, p, n) == 0)) job++;
    if (job == w.jobs.size()) w.jobs.push_back({p, n});
    w.holes.push_back({sink.size, job});
    if (w.jobs.size() == Bpe::kMaxJobs && !flush_misses(w, cache, t.byte_mapped)) return kFailed;
    return kDone;
  };
  // A part that missed and that Bpe::refine cut (at w.subcuts): its new parts, each a hit
  // or a job.  When they all hit, the part is cached whole (its next sighting is one
  // lookup), and the gate counts a win.
  auto encode_refined = [&](const uint8_t* p, uint32_t n) {
    const size_t first_id = sink.size, holes = w.holes.size();
    const uint64_t flushes = w.flushes;
    w.subcuts.push_back(n);
    for (uint32_t begin = 0, i = 0; i < w.subcuts.size(); begin = w.subcuts[i++]) {
      const uint32_t m = w.subcuts[i] - begin;
      if (piece(p + begin, m, WordCache::probe(p + begin, m), false, false) == kFailed) return false;
    }
    const bool all_hit = w.holes.size() == holes && w.flushes == flushes;
    tc.refine_gate.record(all_hit);
    if (all_hit) {
      if (cache.pending()) rebudget(cache);
      cache.insert(p, n, sink.buf.data() + first_id, uint32_t(sink.size - first_id));
    }
    return true;
  };
  const bool refine = !piece_model_ && !t.byte_mapped;  // (whole characters only: Bpe::refine)
  size_t token = 0;
  for (size_t k = 0; k < count; k++) {
    uint32_t found;  // (what the run's lookup of piece k said, if it looked)
    {  // The run of hits from k on, up to the next added token (this loop places them);
       // room for a find's ids past the last one it writes.
      sink.room(WordCache::kRoom);
      const size_t room_end = sink.buf.size() - WordCache::kRoom + 1;  // (size < room_end: any hit fits)
      const uint32_t before = tokens && token < tokens->size() ? (*tokens)[token].at : UINT32_MAX;
      const HitRun run = hit_run(cache, pieces.data(), count, t.bytes, ahead, sink.buf.data(), sink.size,
                                 std::min(w.stop_at, room_end), before, k);
      sink.size = run.size;
      k = run.k;
      found = run.found;
      if (k == count) break;
    }
    if (sink.size >= w.stop_at) break;  // (the ids of waiting misses only add to it)
    if (tokens)
      for (; token < tokens->size() && (*tokens)[token].at <= pieces[k].begin; token++) sink.push((*tokens)[token].id);
    const WordCache::Probe q = ahead[k % kAhead];  // (before the request below reuses the slot)
    if (k + kAhead < count) request(k + kAhead);
    const uint8_t* p = t.bytes + pieces[k].begin;
    const uint32_t n = pieces[k].end - pieces[k].begin;
    const auto r = piece(p, n, q, true, false, found);
    if (r == kFailed) return false;
    if (r == kDone) continue;
    w.cuts.push_back(n);
    if (w.times) w.times->pieces += int64_t(w.cuts.size()) - 1;  // (the parts hit or miss, not the piece)
    const size_t first_id = sink.size, holes = w.holes.size();
    const uint64_t flushes = w.flushes;
    if (refine) request_parts(cache, p, w.cuts, w.part_probes);
    const CjkIds* cjk = t.byte_mapped && !bpe_.cjk().empty() ? &bpe_.cjk() : nullptr;
    for (uint32_t begin = 0, i = 0; i < w.cuts.size(); begin = w.cuts[i++]) {
      const uint32_t m = w.cuts[i] - begin;
      if (cjk && m == 3) {  // one CJK character: its ids from a table (model/cjk_ids.h), no probe
        if (const uint32_t c = cjk->ids(p + begin, m, sink.room(CjkIds::kIds))) {
          sink.size += c;
          continue;
        }
      }
      const WordCache::Probe part = refine ? w.part_probes[i] : WordCache::probe(p + begin, m);
      const auto rp = piece(p + begin, m, part, false, refine);
      if (rp == kFailed) return false;
      if (rp == kRefined && !encode_refined(p + begin, m)) return false;
    }
    // Once every part hit (no hole since, no flush that moved the ids: they are the last
    // ones in the sink), the piece may be cached whole (encode/cut_policy.h).
    if (w.holes.size() == holes && w.flushes == flushes &&
        WholeCutPolicy::cache_whole(cache, n, w.cuts.size(), sink.size - first_id, q.h)) {
      if (cache.pending()) rebudget(cache);
      cache.insert(p, n, sink.buf.data() + first_id, uint32_t(sink.size - first_id));
    }
  }
  if (tokens && sink.size < w.stop_at)
    for (; token < tokens->size(); token++) sink.push((*tokens)[token].id);
  if (w.times) w.times->pieces += int64_t(count);
  w.jobs_byte_mapped = t.byte_mapped;
  keep_jobs(w);
  return true;
}

// The misses wait for more -- up to kMaxJobs, or the text's end (encode_with) -- rather
// than the end of their gap: a line between added tokens (gemma's "\n" tokens) seldom
// has more than one, and one alone waits for its merge-table lookups one after another.
// Their bytes are in buffers the next gap reuses: copied to the worker's own.
void Encoder::keep_jobs(Worker& w) {
  size_t need = 0;
  for (const BpeJob& j : w.jobs) need += j.n;
  std::vector<uint8_t>& next = w.kept_spare;  // (the jobs kept before are in w.kept)
  next.clear();
  next.reserve(need);  // (so data() stays where it is while the jobs are appended)
  for (BpeJob& j : w.jobs) {
    const uint8_t* from = j.s;
    j.s = next.data() + next.size();
    next.insert(next.end(), from, from + j.n);
  }
  w.kept.swap(next);
}

size_t Encoder::seed_size() const { return piece_model_ ? 0 : bpe_.seed(piece_form()).size(); }

std::optional<std::string> Encoder::cut_rule() const {
  if (piece_model_) return std::nullopt;
  return bpe_.cut_rule(piece_form());
}

std::string Encoder::cut_exception() const { return piece_model_ ? "" : bpe_.cut_exception(piece_form()); }

bool Encoder::flush_misses(Worker& w, WordCache& cache, bool byte_mapped) const {
  if (w.holes.empty()) return true;
  Timer timer(w.times ? &w.times->miss_ns : nullptr);
  w.bpe_out.clear();
  if (!piece_model_) {
    bpe_.encode_many(w.jobs.data(), w.jobs.size(), byte_mapped, w.bpe_out, w.bpe);
  } else if (byte_mapped || !piece_model_->encode_many(w.jobs.data(), w.jobs.size(), w.bpe_out, w.piece)) {
    // (ByteLevel-mapped pieces are only for BPE: the plan does not build other models with them)
    w.jobs.clear();
    w.holes.clear();
    return false;
  }
  const uint32_t* ids = w.bpe_out.data();
  if (cache.pending()) rebudget(cache);  // another thread took a cache (a smaller share), or a wipe
  for (const BpeJob& j : w.jobs) cache.prefetch_insert(j.s, j.n, ids + j.first, j.count);
  for (const BpeJob& j : w.jobs) cache.insert(j.s, j.n, ids + j.first, j.count);
  // Splice, from the back: each stretch of hits after a hole moves right by the ids of
  // the holes up to it, then the hole's ids go in front of it.
  size_t extra = 0;
  for (const Worker::Hole& h : w.holes) extra += w.jobs[h.job].count;
  IdSink& sink = w.sink;
  sink.room(extra);
  uint32_t* base = sink.buf.data();
  size_t end = sink.size, shift = extra;
  for (size_t h = w.holes.size(); h-- > 0;) {
    const Worker::Hole& hole = w.holes[h];
    const BpeJob& job = w.jobs[hole.job];
    std::memmove(base + hole.at + shift, base + hole.at, (end - hole.at) * sizeof(uint32_t));
    shift -= job.count;
    std::memcpy(base + hole.at + shift, ids + job.first, job.count * sizeof(uint32_t));
    end = hole.at;
  }
  sink.size += extra;
  w.flushes++;
  if (w.times)  // (a piece the word seed answered is not a miss: the model had no work)
    for (const Worker::Hole& h : w.holes) w.times->misses += !w.jobs[h.job].whole;
  w.jobs.clear();
  w.holes.clear();
  return true;
}

// One gap between raw added tokens: normalize, split out the normalized added tokens,
// pre-tokenize each remaining part, BPE each piece.
bool Encoder::encode_gap(const uint8_t* s, uint32_t n, uint32_t origin, Worker& w, ThreadCache& cache) const {
  {
    Timer t(w.times ? &w.times->normalize : nullptr);
    if (!normalizer_.run(s, n, w.gap, w.norm, need_origin_)) return false;
  }
  w.norm_segments.clear();
  if (normalized_.empty()) w.norm_segments.push_back({added::Segment::kText, 0, w.gap.size});
  else normalized_.split(w.gap.bytes, w.gap.size, w.norm_segments);
  for (const added::Segment& seg : w.norm_segments) {
    if (w.sink.size >= w.stop_at) break;
    if (seg.id != added::Segment::kText) {
      w.sink.push(seg.id);
      continue;
    }
    if (seg.begin == seg.end) continue;
    w.sub.bytes = w.gap.bytes + seg.begin;
    w.sub.size = seg.end - seg.begin;
    w.sub.origin.clear();
    if (w.gap.rewritten()) w.sub.origin.assign(w.gap.origin.begin() + seg.begin, w.gap.origin.begin() + seg.end);
    {
      Timer t(w.times ? &w.times->split : nullptr);
      w.pretok.offsets_unused = true;  // (ids only: a rewriting stage need not keep origins)
      // (origins: the normalizer's, relative to the gap, or none -- then the part's bytes
      // are the gap's own from seg.begin on)
      pre_tokenizer_.run(w.sub, w.gap.rewritten() ? origin : origin + seg.begin, w.pieces, w.pretok);
    }
    Timer t(w.times ? &w.times->model : nullptr);
    if (!encode_pieces(w, cache)) return false;
  }
  return true;
}

// The gaps between raw added tokens, many at once: each normalized as encode_gap does, one
// after another into one buffer, then one pre-tokenizer run over them all (each gap one of
// its initial pieces, split as if alone) and one encode_pieces, which puts each added
// token's id before the first piece after it.  gemma-3 has "\n" tokens, so every line is a
// gap: run one gap at a time, the stages' and the cache loop's fixed costs per call took
// all-hit code from 226 MB/s (its file without those tokens) to 142.  (Not with normalized
// added tokens, which need each gap's own split, nor with a stage that reads origins or
// rewrites the text: the tokens are placed by their position in it.)  The buffer is run
// every kGapsBytes, so that it stays in the CPU's cache.
bool Encoder::encode_gaps(const uint8_t* s, Worker& w, ThreadCache& cache) const {
  constexpr size_t kGapsBytes = 32 << 10, kKeepGapsBytes = 1 << 20;
  w.gaps.clear(), w.gap_pieces.clear(), w.gap_tokens.clear();
  auto run = [&]() -> bool {
    bool ok = true;
    if (!w.gap_pieces.empty()) {
      pretok::Text text;
      text.bytes = reinterpret_cast<const uint8_t*>(w.gaps.data()), text.size = uint32_t(w.gaps.size());
      {
        Timer t(w.times ? &w.times->split : nullptr);
        w.pretok.offsets_unused = true;
        pre_tokenizer_.run(text, w.gap_pieces, w.pieces, w.pretok);
      }
      Timer t(w.times ? &w.times->model : nullptr);
      ok = encode_pieces(w, cache, &w.gap_tokens);
    } else {
      for (const Worker::Placed& p : w.gap_tokens) w.sink.push(p.id);
    }
    w.gaps.clear(), w.gap_pieces.clear(), w.gap_tokens.clear();
    return ok;
  };
  for (size_t k = 0; k < w.raw_segments.size() && w.sink.size < w.stop_at; k++) {
    const added::Segment seg = w.raw_segments[k];
    if (seg.id != added::Segment::kText) {
      w.gap_tokens.push_back({uint32_t(w.gaps.size()), seg.id});
      continue;
    }
    const uint32_t at = uint32_t(w.gaps.size());
    {
      Timer t(w.times ? &w.times->normalize : nullptr);
      if (!normalizer_.append(s + seg.begin, seg.end - seg.begin, w.gaps, w.norm)) return false;
    }
    if (w.gaps.size() != at) w.gap_pieces.push_back({at, uint32_t(w.gaps.size())});
    if (w.gaps.size() >= kGapsBytes && !run()) return false;
  }
  const bool ok = run();
  if (w.gaps.capacity() > kKeepGapsBytes) std::string().swap(w.gaps);  // (one huge gap: not kept)
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
    Timer t(w.times ? &w.times->split : nullptr);
    if (raw_.empty()) w.raw_segments.push_back({added::Segment::kText, 0, n});
    else raw_.split(s, n, w.raw_segments);
  }
  bool ok = true;
  if (batch_gaps_ && w.raw_segments.size() > 1) {
    ok = encode_gaps(s, w, cache);
  } else {
    for (size_t k = 0; ok && k < w.raw_segments.size() && w.sink.size < w.stop_at; k++) {
      const added::Segment seg = w.raw_segments[k];  // (a copy: encode_gap reuses the worker)
      if (seg.id != added::Segment::kText) w.sink.push(seg.id);
      else ok = encode_gap(s + seg.begin, seg.end - seg.begin, seg.begin, w, cache);
    }
  }
  if (ok) {  // the misses still waiting (keep_jobs)
    Timer t(w.times ? &w.times->model : nullptr);
    ok = flush_misses(w, cache.words, w.jobs_byte_mapped);
  }
  w.stop_at = SIZE_MAX;
  if (!ok) {
    w.jobs.clear();
    w.holes.clear();
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
  ThreadCache* cache = acquire_cache();
  Worker& w = thread_worker();
  w.sink.size = 0;
  const bool ok = encode_with(s, n, add_special, trunc, w, *cache);
  release_cache(cache);
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
  ThreadCache* cache = acquire_cache();
  Worker& w = thread_worker();
  w.times = &times;
  for (const auto& d : docs) {
    w.sink.size = 0;
    encode_with(d.first, d.second, add_special, Truncation{}, w, *cache);
  }
  w.times = nullptr;
  release_cache(cache);
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
      ThreadCache* cache = acquire_cache();
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
      release_cache(cache);
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
