// A trie over the bytes of vocabulary strings, walked one byte at a time: the WordPiece
// longest match and Unigram's common-prefix search (tokenizers' unigram/trie.rs: every
// vocabulary string that is a prefix of the text from a position).  A walk costs one
// lookup per byte it advances and stops at the first byte no string continues with, so
// matching at a position is linear in the longest match there.
//
// Node 0 is the root (the empty string, which never matches: the oracle only reports a
// node after it has consumed a byte).  Edges live in one open-addressing table keyed by
// (node, byte); the root's 256 edges are a plain array (every walk starts there).
// Built once, then shared between threads.
#pragma once
#include <cstdint>
#include <vector>

#include "model/hash.h"

namespace tagpipe {

class ByteTrie {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  ByteTrie() : values_(1, kNone) {
    for (uint32_t& c : root_) c = kNone;
  }

  // Adds s[0..n) -> value (a later value for the same string replaces the earlier one).
  void insert(const uint8_t* s, size_t n, uint32_t value) {
    uint32_t node = 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t next = child(node, s[i]);
      if (next == kNone) {
        next = uint32_t(values_.size());
        values_.push_back(kNone);
        set_child(node, s[i], next);
      }
      node = next;
    }
    if (n > 0) values_[node] = value;
  }

  // The node after `node` reads byte b, or kNone.
  uint32_t child(uint32_t node, uint8_t b) const {
    if (node == 0) return root_[b];
    if (edges_.empty()) return kNone;
    const uint64_t key = (uint64_t(node) << 8) | b;
    for (size_t i = slot(key);; i = (i + 1) & mask_) {
      const Edge& e = edges_[i];
      if (e.child == kNone) return kNone;
      if (e.key == key) return e.child;
    }
  }
  // The value of the string that ends at `node`, or kNone.
  uint32_t value(uint32_t node) const { return values_[node]; }

  // The node of s[0..n), or kNone.
  uint32_t walk(const uint8_t* s, size_t n) const {
    uint32_t node = 0;
    for (size_t i = 0; i < n && node != kNone; i++) node = child(node, s[i]);
    return node;
  }

 private:
  struct Edge {
    uint64_t key = 0;
    uint32_t child = kNone;
  };
  size_t slot(uint64_t key) const { return size_t(mix64(key)) & mask_; }
  void set_child(uint32_t node, uint8_t b, uint32_t next) {
    if (node == 0) {
      root_[b] = next;
      return;
    }
    if ((count_ + 1) * 2 > edges_.size()) grow();
    const uint64_t key = (uint64_t(node) << 8) | b;
    size_t i = slot(key);
    while (edges_[i].child != kNone) i = (i + 1) & mask_;
    edges_[i] = Edge{key, next};
    count_++;
  }
  void grow() {
    std::vector<Edge> old = std::move(edges_);
    edges_.assign(old.empty() ? 1024 : old.size() * 2, Edge{});
    mask_ = edges_.size() - 1;
    for (const Edge& e : old)
      if (e.child != kNone) {
        size_t i = slot(e.key);
        while (edges_[i].child != kNone) i = (i + 1) & mask_;
        edges_[i] = e;
      }
  }

  uint32_t root_[256];
  std::vector<uint32_t> values_;  // per node
  std::vector<Edge> edges_;
  size_t mask_ = 0, count_ = 0;
};

}  // namespace tagpipe
