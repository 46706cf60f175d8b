// One encoding thread's scratch memory (thread-local, reused from text to text): where its
// ids go, and the buffers of every stage.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "added/added.h"
#include "model/bpe.h"
#include "model/piece_model.h"
#include "model/word_cache.h"
#include "normalize/normalize.h"
#include "pretokenize/pipeline.h"

namespace tagpipe {

// Where one thread writes ids: a buffer that only grows, written through a raw pointer so
// that the cache's hit path can store four ids at once and keep the ones that count.
struct IdSink {
  std::vector<uint32_t> buf;
  size_t size = 0;
  uint32_t* room(size_t extra) {  // at least `extra` writable ids at data() + size
    if (size + extra > buf.size()) buf.resize(std::max(buf.size() * 2, size + extra + 1024));
    return buf.data() + size;
  }
  void push(uint32_t id) { *room(1) = id, size++; }
  void append(const uint32_t* ids, size_t n) {
    std::copy(ids, ids + n, room(n));
    size += n;
  }
};

// Where the time goes (Encoder::profile): nanoseconds per stage.
struct StageTimes {
  int64_t normalize = 0, split = 0, model = 0;  // split: added tokens + pre-tokenizer
  int64_t pieces = 0, misses = 0, miss_ns = 0;  // the model's pieces, its cache misses, their time
};

// Adds the time from construction to destruction to *slot (when profiling: slot not null).
struct StageTimer {
  using Clock = std::chrono::steady_clock;
  int64_t* slot;
  Clock::time_point t0;
  explicit StageTimer(int64_t* s) : slot(s), t0(s ? Clock::now() : Clock::time_point{}) {}
  ~StageTimer() {
    if (slot) *slot += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
  }
};

// The word cache's misses waiting for the model (encode/piece_loop.h): a job per distinct
// piece, and a hole in the sink for each time one occurred.
struct Misses {
  std::vector<BpeJob> jobs;  // at most Bpe::kMaxJobs
  struct Hole {
    size_t at;  // where in the sink the job's ids go (a position before any of them is in)
    size_t job;
  };
  std::vector<Hole> holes;
  uint64_t flushes = 0;                   // how many times flush_misses spliced holes (the ids after them moved)
  bool byte_mapped = false;               // the jobs' piece form
  std::vector<uint32_t> ids;              // the model's output
  std::vector<uint8_t> kept, kept_spare;  // the jobs' bytes between gaps (keep_misses)
  void clear() {
    jobs.clear();
    holes.clear();
  }
};

struct Worker {
  IdSink sink;
  StageTimes* times = nullptr;  // set while profiling
  // The model stops once the sink holds this many ids (a right truncation's body is
  // complete: a piece's ids never depend on the pieces after it).
  size_t stop_at = SIZE_MAX;
  Misses misses;
  pretok::Scratch pretok;
  pretok::PreTokenized pieces;
  normalize::Scratch norm;
  BpeScratch bpe;
  PieceScratch piece;
  std::vector<uint32_t> cuts;                 // where the model cuts a piece (Bpe::cuts)
  std::vector<WordCache::Probe> part_probes;  // the probes of its parts
  std::vector<uint32_t> subcuts;              // where it cuts a part that missed (Bpe::refine)
  std::vector<added::Segment> raw_segments, norm_segments;
  pretok::Text gap, sub;
  // Encoder::encode_gaps: the normalized gaps, one after another, their pieces in it, and
  // the raw added tokens between them (each at the position of the gap after it).
  std::string gaps;
  std::vector<pretok::Piece> gap_pieces;
  struct Placed {
    uint32_t at, id;
  };
  std::vector<Placed> gap_tokens;
  std::vector<uint8_t> utf8;  // a text given as code units (Units), in UTF-8
};

// This thread's Worker (every encode on the thread shares it).
Worker& thread_worker();

}  // namespace tagpipe
