#include "model/bpe_merge.h"

#include <algorithm>

namespace tagpipe {

void BpeMerger::start(SmallWord& w, const uint32_t* ids, uint32_t n) const {
  w.n = n;
  w.stale = 0;
  for (uint32_t i = 0; i < n; i++) {
    w.id[i] = ids[i];
    w.rank[i] = UINT32_MAX;
    w.next[i] = uint8_t(i + 1 < n ? i + 1 : kScanMax);
    w.prev[i] = uint8_t(i > 0 ? i - 1 : kScanMax);
  }
  // The first lookups are independent: start all their memory reads before using any (a
  // new word's pairs are mostly cold in the cache).
  for (uint32_t i = 0; i + 1 < n; i++) table_.prefetch(ids[i], ids[i + 1]), w.stale |= 1u << i;
}

bool BpeMerger::step(SmallWord& w) const {
  for (uint32_t b = w.stale; b; b &= b - 1) {  // the pairs the last merge formed (prefetched then)
    const uint32_t i = uint32_t(__builtin_ctz(b)), after = w.next[i];
    if (after >= kScanMax || !table_.find(w.id[i], w.id[after], w.rank[i], w.result[i])) w.rank[i] = UINT32_MAX;
  }
  w.stale = 0;
  uint32_t best = 0, best_rank = UINT32_MAX;
  for (uint32_t i = 0; i < w.n; i++) {  // the leftmost of the lowest rank (dead symbols have none)
    const bool lower = w.rank[i] < best_rank;
    best = lower ? i : best;
    best_rank = lower ? w.rank[i] : best_rank;
  }
  if (best_rank == UINT32_MAX) return true;
  const uint32_t gone = w.next[best];
  w.id[best] = w.result[best];
  w.next[best] = w.next[gone];
  w.rank[gone] = UINT32_MAX;
  const uint32_t after = w.next[best], before = w.prev[best];
  if (after < kScanMax) w.prev[after] = uint8_t(best), table_.prefetch(w.id[best], w.id[after]);
  w.rank[best] = UINT32_MAX;
  w.stale |= 1u << best;
  if (before < kScanMax) table_.prefetch(w.id[before], w.id[best]), w.stale |= 1u << before;
  return false;
}

void BpeMerger::merge_small(const uint32_t* ids, uint32_t n, std::vector<uint32_t>& out) const {
  SmallWord w;
  start(w, ids, n);
  while (!step(w)) {
  }
  emit(w, out);
}

namespace {

// A tournament tree over a word's pairs: the minimum (rank << 32 | position) of each
// subtree, leaves at size + i.
class PairTree {
 public:
  static constexpr uint64_t kNone = ~uint64_t(0);
  PairTree(std::vector<uint64_t>& tree, uint32_t n) : tree_(tree) {
    while (size_ < n) size_ *= 2;
    tree_.assign(2 * size_, kNone);
  }
  void set_leaf(uint32_t i, uint64_t key) { tree_[size_ + i] = key; }
  void build() {
    for (uint32_t k = size_ - 1; k; k--) tree_[k] = std::min(tree_[2 * k], tree_[2 * k + 1]);
  }
  uint64_t top() const { return tree_[1]; }
  // A leaf's new key, and the minima above it -- up to the first one that stays what it was.
  void update(uint32_t i, uint64_t key) {
    uint32_t k = size_ + i;
    tree_[k] = key;
    for (k >>= 1; k; k >>= 1) {
      const uint64_t m = std::min(tree_[2 * k], tree_[2 * k + 1]);
      if (tree_[k] == m) break;
      tree_[k] = m;
    }
  }

 private:
  std::vector<uint64_t>& tree_;
  uint32_t size_ = 1;
};

}  // namespace

void BpeMerger::merge_large(MergeScratch& sc, std::vector<uint32_t>& out) const {
  auto& sym = sc.symbols;
  const uint32_t n = uint32_t(sym.size());
  PairTree tree(sc.tree, n);
  sc.result.resize(n);
  // The key of the pair at i (its rank and position; its result in sc.result), or kNone.
  auto pair_key = [&](uint32_t i) -> uint64_t {
    const int32_t next = sym[i].next;
    uint32_t rank;
    if (next >= int32_t(n) || !table_.find(sym[i].id, sym[next].id, rank, sc.result[i])) return PairTree::kNone;
    return (uint64_t(rank) << 32) | i;
  };
  for (uint32_t i = 0; i + 1 < n; i++) table_.prefetch(sym[i].id, sym[i + 1].id);
  for (uint32_t i = 0; i < n; i++) tree.set_leaf(i, pair_key(i));
  tree.build();
  while (tree.top() != PairTree::kNone) {
    const uint32_t best = uint32_t(tree.top());
    MergeScratch::Symbol& left = sym[best];
    const uint32_t gone = uint32_t(left.next);
    left.id = sc.result[best];
    left.next = sym[gone].next;
    sym[gone].alive = false;
    tree.update(gone, PairTree::kNone);
    if (left.next < int32_t(n)) sym[left.next].prev = int32_t(best), table_.prefetch(left.id, sym[left.next].id);
    if (left.prev >= 0) table_.prefetch(sym[left.prev].id, left.id);
    tree.update(best, pair_key(best));
    if (left.prev >= 0) tree.update(uint32_t(left.prev), pair_key(uint32_t(left.prev)));
  }
  for (const auto& x : sym)
    if (x.alive) out.push_back(x.id);
}

void BpeMerger::merge_queue(MergeScratch& sc, std::vector<uint32_t>& out) const {
  auto& sym = sc.symbols;
  auto& heap = sc.heap;
  heap.clear();
  // Min-heap on (rank, pos): the lowest rank first, the leftmost among equal ranks.
  auto later = [](const MergeScratch::Candidate& a, const MergeScratch::Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  };
  auto push = [&](uint32_t pos) {
    const int32_t next = sym[pos].next;
    uint32_t rank, result;
    if (table_.find(sym[pos].id, sym[next].id, rank, result)) {
      heap.push_back({rank, pos, result});
      std::push_heap(heap.begin(), heap.end(), later);
    }
  };
  for (uint32_t i = 0; i + 1 < sym.size(); i++) push(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const MergeScratch::Candidate top = heap.back();
    heap.pop_back();
    MergeScratch::Symbol& left = sym[top.pos];
    if (!left.alive || left.next >= int32_t(sym.size())) continue;
    const uint32_t next = uint32_t(left.next);
    // Stale unless the pair here still merges into the same token (the oracle's test).
    uint32_t rank, result;
    if (!table_.find(left.id, sym[next].id, rank, result) || result != top.result) continue;
    left.id = top.result;
    left.next = sym[next].next;
    sym[next].alive = false;
    if (left.next < int32_t(sym.size())) sym[left.next].prev = int32_t(top.pos);
    if (left.prev >= 0) push(uint32_t(left.prev));
    if (left.next < int32_t(sym.size())) push(top.pos);
  }
  for (const auto& x : sym)
    if (x.alive) out.push_back(x.id);
}

}  // namespace tagpipe
