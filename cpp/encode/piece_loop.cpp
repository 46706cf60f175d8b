#include "encode/piece_loop.h"

#include <algorithm>
#include <cstring>

namespace tagpipe {
namespace {

// Each piece's word-cache slot is requested this many pieces ahead of its lookup.
constexpr size_t kAhead = 16;
constexpr uint32_t kNotLooked = UINT32_MAX;

// What hit_run did: the piece it stopped at, the sink's size, and what its lookup of that
// piece said (WordCache::kMiss or kNotInline: the main loop does not look again), or
// kNotLooked.
struct HitRun {
  size_t k, size;
  uint32_t found = kNotLooked;
};

// The common case, apart so that its state stays in registers: from piece k on, the pieces
// whose ids the word cache's inline tiers hold, written at out[size..], while size < stop
// (where a truncation stops, or where WordCache::kRoom more ids would not fit) and before
// the piece that starts at or past `before` (an added token goes there).  Piece k's probe is
// in ahead[k % kAhead], and each piece it answers requests the one kAhead after it.
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
// another dominated the loop on whole-character pieces.  Only for those (`refine` pieces):
// a ByteLevel piece's parts are mostly a CJK character or two that the table of recent hits
// answers.  Apart, not inline: inline it changed the code of the main loop.
__attribute__((noinline)) void request_parts(const WordCache& cache, const uint8_t* p,
                                             const std::vector<uint32_t>& cuts, std::vector<WordCache::Probe>& probes) {
  probes.resize(cuts.size());
  const WordCache::View view(cache);
  for (uint32_t begin = 0, i = 0; i < cuts.size(); begin = cuts[i++])
    view.request(p + begin, cuts[i] - begin, probes[i]);
}

// The misses wait for more -- up to kMaxJobs, or the text's end -- rather than the end of
// their gap: a line between added tokens seldom has more than one, and one alone waits for
// its merge-table lookups one after another.  Their bytes are in buffers the next gap
// reuses: copied to the worker's own.
void keep_misses(Misses& m) {
  size_t need = 0;
  for (const BpeJob& j : m.jobs) need += j.n;
  std::vector<uint8_t>& next = m.kept_spare;  // (the jobs kept before are in m.kept)
  next.clear();
  next.reserve(need);  // (so data() stays where it is while the jobs are appended)
  for (BpeJob& j : m.jobs) {
    const uint8_t* from = j.s;
    j.s = next.data() + next.size();
    next.insert(next.end(), from, from + j.n);
  }
  m.kept.swap(next);
}

// One call of encode_pieces.
class PieceLoop {
 public:
  PieceLoop(const Models& models, CachePool& pool, ThreadCache& tc, Worker& w)
      : models_(models),
        pool_(pool),
        tc_(tc),
        cache_(tc.words),
        w_(w),
        sink_(w.sink),
        t_(w.pieces.text),
        pieces_(w.pieces.pieces),
        seed_(models.bpe ? &models.bpe->seed() : nullptr),
        refine_(models.bpe && !models.bpe->byte_level()) {}

  bool run(const std::vector<Worker::Placed>* tokens);

 private:
  // What became of a piece: its ids are in the sink or wait as a miss (kDone); it may be cut
  // (kCut: at w.cuts) or, a missed part, refined (kRefined: at w.subcuts); or kFailed.
  enum Outcome { kDone, kCut, kRefined, kFailed };

  void request(size_t k) {
    cache_.request(t_.bytes + pieces_[k].begin, pieces_[k].end - pieces_[k].begin, ahead_[k % kAhead]);
  }
  HitRun hits_from(size_t k, uint32_t before);
  Outcome piece(const uint8_t* p, uint32_t n, const WordCache::Probe& q, bool may_cut, bool refine,
                uint32_t found = kNotLooked);
  Outcome queue_miss(const uint8_t* p, uint32_t n, bool not_seed);
  bool encode_cut(const uint8_t* p, uint32_t n, const WordCache::Probe& q);
  bool encode_refined(const uint8_t* p, uint32_t n);
  // Whether every piece since (holes, flushes) hit: then their ids are the sink's last ones.
  bool all_hit_since(size_t holes, uint64_t flushes) const {
    return w_.misses.holes.size() == holes && w_.misses.flushes == flushes;
  }
  void insert_whole(const uint8_t* p, uint32_t n, size_t first_id) {
    if (cache_.pending()) pool_.rebudget(cache_);
    cache_.insert(p, n, sink_.buf.data() + first_id, uint32_t(sink_.size - first_id));
  }

  const Models& models_;
  CachePool& pool_;
  ThreadCache& tc_;
  WordCache& cache_;
  Worker& w_;
  IdSink& sink_;
  const pretok::Text& t_;
  const std::vector<pretok::Piece>& pieces_;
  const WordSeed* seed_;            // (BPE: a miss requests its slot)
  const bool refine_;               // whole-character BPE: a missed part may be refined (Bpe::refine)
  WordCache::Probe ahead_[kAhead];  // the pieces' probes, kept in a ring until their lookup
};

bool PieceLoop::run(const std::vector<Worker::Placed>* tokens) {
  const size_t count = pieces_.size();
  // (BPE is built for the pre-tokenizer's one piece form; another would be a bug: delegate)
  if (models_.bpe && count && t_.byte_mapped != models_.bpe->byte_level()) return false;
  w_.misses.byte_mapped = t_.byte_mapped;  // (the form of the jobs this call adds)
  for (size_t k = 0; k < count && k < kAhead; k++) request(k);
  size_t token = 0;
  for (size_t k = 0; k < count; k++) {
    const HitRun hits = hits_from(k, tokens && token < tokens->size() ? (*tokens)[token].at : UINT32_MAX);
    k = hits.k;
    if (k == count || sink_.size >= w_.stop_at) break;  // (the ids of waiting misses only add to it)
    if (tokens)
      for (; token < tokens->size() && (*tokens)[token].at <= pieces_[k].begin; token++)
        sink_.push((*tokens)[token].id);
    const WordCache::Probe q = ahead_[k % kAhead];  // (before the request below reuses the slot)
    if (k + kAhead < count) request(k + kAhead);
    const uint8_t* p = t_.bytes + pieces_[k].begin;
    const uint32_t n = pieces_[k].end - pieces_[k].begin;
    const Outcome r = piece(p, n, q, true, false, hits.found);
    if (r == kFailed || (r == kCut && !encode_cut(p, n, q))) return false;
  }
  if (tokens && sink_.size < w_.stop_at)
    for (; token < tokens->size(); token++) sink_.push((*tokens)[token].id);
  if (w_.times) w_.times->pieces += int64_t(count);
  keep_misses(w_.misses);
  return true;
}

// The run of hits from piece k on, up to `before` (the next added token's position), with
// room for a find's ids past the last one it writes.
HitRun PieceLoop::hits_from(size_t k, uint32_t before) {
  sink_.room(WordCache::kRoom);
  const size_t room_end = sink_.buf.size() - WordCache::kRoom + 1;  // (size < room_end: any hit fits)
  const HitRun run = hit_run(cache_, pieces_.data(), pieces_.size(), t_.bytes, ahead_, sink_.buf.data(), sink_.size,
                             std::min(w_.stop_at, room_end), before, k);
  sink_.size = run.size;
  return run;
}

// One piece (may_cut), or one part of a cut one (refine: of a whole-character piece): a
// hit, or a miss.  q: its probe; found: what hit_run's lookup of it said, or kNotLooked.
inline __attribute__((always_inline)) PieceLoop::Outcome PieceLoop::piece(const uint8_t* p, uint32_t n,
                                                                          const WordCache::Probe& q, bool may_cut,
                                                                          bool refine, uint32_t found) {
  uint32_t c = found;
  if (found == kNotLooked) {
    c = may_cut ? cache_.find<false>(p, n, q, sink_.room(WordCache::kRoom))
                : cache_.find<true>(p, n, q, sink_.room(WordCache::kRoom));
    if (c - 1 < WordCache::kRoom) {
      sink_.size += c;
      return kDone;
    }
  }
  // (a short miss of a cache without the seed requests its word-seed slot: the model looks
  // there first; a miss of one with it is no seed string)
  const bool not_seed = c == WordCache::kMiss && n < 16 && cache_.seeded();
  if (c == WordCache::kMiss && n < 16 && seed_ && !not_seed) seed_->prefetch(q.h);
  if (c == WordCache::kNotInline) {
    const uint32_t* ids;
    uint32_t got;
    if (cache_.find_long(p, n, q, ids, got)) {
      sink_.append(ids, got);
      return kDone;
    }
  }
  const uint64_t h = n > WordCache::kMediumMax ? q.h : 0;  // (a long piece's probe is its hash_bytes)
  if (may_cut && n >= 16 && models_.bpe && models_.bpe->cuts(p, n, h, w_.cuts)) return kCut;
  if (refine && tc_.refine_gate.want()) {
    if (models_.bpe->refine(p, n, w_.subcuts)) return kRefined;
    tc_.refine_gate.record(false);
  }
  return queue_miss(p, n, not_seed);
}

// A miss: a hole in the sink, and a job for the model (a repeat of a waiting piece joins
// its job).  At kMaxJobs jobs the model answers them all.
inline __attribute__((always_inline)) PieceLoop::Outcome PieceLoop::queue_miss(const uint8_t* p, uint32_t n,
                                                                               bool not_seed) {
  Misses& m = w_.misses;
  size_t job = 0;
  while (job < m.jobs.size() && !(m.jobs[job].n == n && std::memcmp(m.jobs[job].s, p, n) == 0)) job++;
  if (job == m.jobs.size()) m.jobs.push_back({p, n, not_seed});
  m.holes.push_back({sink_.size, job});
  if (m.jobs.size() == Bpe::kMaxJobs && !flush_misses(models_, pool_, cache_, w_)) return kFailed;
  return kDone;
}

// The parts of a piece the model cut at w.cuts: each a hit, a CJK character's ids from a
// table (model/cjk_ids.h, no probe), or a miss -- refined, when it may be.  Then the piece
// itself may be cached whole (encode/cut_policy.h).
bool PieceLoop::encode_cut(const uint8_t* p, uint32_t n, const WordCache::Probe& q) {
  w_.cuts.push_back(n);
  if (w_.times) w_.times->pieces += int64_t(w_.cuts.size()) - 1;  // (the parts hit or miss, not the piece)
  const size_t first_id = sink_.size, holes = w_.misses.holes.size();
  const uint64_t flushes = w_.misses.flushes;
  if (refine_) request_parts(cache_, p, w_.cuts, w_.part_probes);
  const CjkIds* cjk = models_.bpe->cjk().empty() ? nullptr : &models_.bpe->cjk();
  for (uint32_t begin = 0, i = 0; i < w_.cuts.size(); begin = w_.cuts[i++]) {
    const uint32_t m = w_.cuts[i] - begin;
    if (cjk && m == 3) {
      if (const uint32_t c = cjk->ids(p + begin, m, sink_.room(CjkIds::kIds))) {
        sink_.size += c;
        continue;
      }
    }
    const WordCache::Probe part = refine_ ? w_.part_probes[i] : WordCache::probe(p + begin, m);
    const Outcome r = piece(p + begin, m, part, false, refine_);
    if (r == kFailed || (r == kRefined && !encode_refined(p + begin, m))) return false;
  }
  if (all_hit_since(holes, flushes) &&
      WholeCutPolicy::cache_whole(cache_, n, w_.cuts.size(), sink_.size - first_id, q.h))
    insert_whole(p, n, first_id);
  return true;
}

// A missed part that Bpe::refine cut (at w.subcuts): its new parts, each a hit or a miss.
// When they all hit, the part is cached whole (its next sighting is one lookup), and the
// gate counts a win.
bool PieceLoop::encode_refined(const uint8_t* p, uint32_t n) {
  const size_t first_id = sink_.size, holes = w_.misses.holes.size();
  const uint64_t flushes = w_.misses.flushes;
  w_.subcuts.push_back(n);
  for (uint32_t begin = 0, i = 0; i < w_.subcuts.size(); begin = w_.subcuts[i++]) {
    const uint32_t m = w_.subcuts[i] - begin;
    if (piece(p + begin, m, WordCache::probe(p + begin, m), false, false) == kFailed) return false;
  }
  const bool all_hit = all_hit_since(holes, flushes);
  tc_.refine_gate.record(all_hit);
  if (all_hit) insert_whole(p, n, first_id);
  return true;
}

// Splices the model's ids into the holes, from the back: each stretch of hits after a hole
// moves right by the ids of the holes up to it, then the hole's ids go in front of it.
void splice(Misses& m, const uint32_t* ids, IdSink& sink) {
  size_t extra = 0;
  for (const Misses::Hole& h : m.holes) extra += m.jobs[h.job].count;
  sink.room(extra);
  uint32_t* base = sink.buf.data();
  size_t end = sink.size, shift = extra;
  for (size_t h = m.holes.size(); h-- > 0;) {
    const Misses::Hole& hole = m.holes[h];
    const BpeJob& job = m.jobs[hole.job];
    std::memmove(base + hole.at + shift, base + hole.at, (end - hole.at) * sizeof(uint32_t));
    shift -= job.count;
    std::memcpy(base + hole.at + shift, ids + job.first, job.count * sizeof(uint32_t));
    end = hole.at;
  }
  sink.size += extra;
}

}  // namespace

bool encode_pieces(const Models& models, CachePool& pool, ThreadCache& tc, Worker& w,
                   const std::vector<Worker::Placed>* tokens) {
  return PieceLoop(models, pool, tc, w).run(tokens);
}

bool flush_misses(const Models& models, CachePool& pool, WordCache& cache, Worker& w) {
  Misses& m = w.misses;
  if (m.holes.empty()) return true;
  StageTimer timer(w.times ? &w.times->miss_ns : nullptr);
  m.ids.clear();
  if (models.bpe) {
    models.bpe->encode_many(m.jobs.data(), m.jobs.size(), m.ids, w.bpe);
  } else if (m.byte_mapped || !models.other->encode_many(m.jobs.data(), m.jobs.size(), m.ids, w.piece)) {
    // (ByteLevel-mapped pieces are only for BPE: the plan does not build other models with them)
    m.clear();
    return false;
  }
  const uint32_t* ids = m.ids.data();
  if (cache.pending()) pool.rebudget(cache);  // another thread took a cache (a smaller share), or a wipe
  for (const BpeJob& j : m.jobs) cache.prefetch_insert(j.s, j.n, ids + j.first, j.count);
  for (const BpeJob& j : m.jobs) cache.insert(j.s, j.n, ids + j.first, j.count);
  splice(m, ids, w.sink);
  m.flushes++;
  if (w.times)  // (a piece the word seed answered is not a miss: the model had no work)
    for (const Misses::Hole& h : m.holes) w.times->misses += !m.jobs[h.job].whole;
  m.clear();
  return true;
}

}  // namespace tagpipe
