// The merge loop of BPE: a word's symbols merged lowest rank first, leftmost among equal
// ranks -- the order of the oracle's priority queue (word.rs merge_all).  merge_small scans
// (words of at most kScanMax symbols, resumable for a batch's round robin), merge_large
// keeps a tournament tree (longer words), merge_queue is the oracle's queue (shared ids,
// where the queue's staleness test by token differs).  Why they agree:
// docs/design/merge-loop.md.
#pragma once
#include <cstdint>
#include <vector>

#include "model/merge_table.h"

namespace tagpipe {

// Per-thread memory of the merge loop.
struct MergeScratch {
  struct Symbol {
    uint32_t id;
    int32_t prev, next;
    bool alive;
  };
  struct Candidate {
    uint32_t rank, pos, result;
  };
  std::vector<Symbol> symbols;  // the word, for merge_large and merge_queue
  std::vector<Candidate> heap;
  std::vector<uint64_t> tree;
  std::vector<uint32_t> result;
  void push(uint32_t id) {
    const int32_t i = int32_t(symbols.size());
    symbols.push_back({id, i - 1, i + 1, true});
  }
};

class BpeMerger {
 public:
  static constexpr uint32_t kScanMax = 16;  // longer words: the tree (the scan is quadratic)

  explicit BpeMerger(const std::vector<BpeMerge>& merges) : table_(merges) {}
  const MergeTable& table() const { return table_; }

  // A word of at most kScanMax symbols being merged, one merge at a time.
  struct SmallWord {
    uint32_t id[kScanMax], rank[kScanMax], result[kScanMax];
    uint8_t next[kScanMax], prev[kScanMax];  // kScanMax = none
    uint32_t n;
    uint32_t stale;  // bit i: the pair at i is to be looked up (its slot was prefetched)
  };
  void start(SmallWord& w, const uint32_t* ids, uint32_t n) const;
  bool step(SmallWord& w) const;  // one merge; true when no pair merges any more
  void emit(const SmallWord& w, std::vector<uint32_t>& out) const {
    for (uint32_t i = 0; i < kScanMax && i < w.n; i = w.next[i]) out.push_back(w.id[i]);
  }
  // Merges words[0..live) round robin, one merge each in turn, so that while one word waits
  // for its merge-table lookups the others compute; done(word, owner) as each one finishes.
  template <class Owner, class Done>
  void merge_round_robin(SmallWord* words, Owner* owners, size_t live, Done done) const {
    while (live)
      for (size_t i = 0; i < live;) {
        if (!step(words[i])) {
          i++;
          continue;
        }
        done(words[i], owners[i]);
        --live;
        if (i != live) words[i] = words[live], owners[i] = owners[live];
      }
  }

  // The merged ids of a word appended to out.
  void merge_small(const uint32_t* ids, uint32_t n, std::vector<uint32_t>& out) const;
  void merge_large(MergeScratch& sc, std::vector<uint32_t>& out) const;  // (the word: sc.symbols)
  void merge_queue(MergeScratch& sc, std::vector<uint32_t>& out) const;  // (the word: sc.symbols)

 private:
  MergeTable table_;
};

}  // namespace tagpipe
