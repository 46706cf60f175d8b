// A trie over the bytes of vocabulary strings, walked one byte at a time: the WordPiece
// longest match and Unigram's common-prefix search (tokenizers' unigram/trie.rs: every
// vocabulary string that is a prefix of the text from a position).  A walk costs one
// child lookup per byte it advances and stops at the first byte no string continues with,
// so matching at a position is linear in the longest match there.
//
// Node 0 is the root (the empty string, which never matches: the oracle only reports a
// node after it has consumed a byte); its 256 children are a plain array.  The other nodes
// are numbered in depth-first order of the sorted strings (a subtree is contiguous, so a
// walk stays in a small region), and each keeps its children's bytes, in order, next to
// each other (one cache line for most nodes) with the child numbers in a parallel array.
// Built once, then shared between threads.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

namespace tagpipe {

class ByteTrie {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // entries: (string, value); a string repeated keeps its last value; "" is ignored.
  explicit ByteTrie(const std::vector<std::pair<std::string_view, uint32_t>>& entries) {
    std::vector<uint32_t> order(entries.size());
    for (uint32_t i = 0; i < order.size(); i++) order[i] = i;
    // (string_view compares bytes as unsigned char; stable: repeats stay in file order)
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return entries[a].first < entries[b].first; });
    // Build: strings in sorted order, so a node's new child always comes after its others
    // and the child a string shares with the previous string is the node's last one.
    std::vector<std::vector<std::pair<uint8_t, uint32_t>>> kids(1);
    values_.assign(1, kNone);
    for (uint32_t e : order) {
      const std::string_view s = entries[e].first;
      if (s.empty()) continue;
      uint32_t node = 0;
      for (const char ch : s) {
        const uint8_t b = uint8_t(ch);
        auto& k = kids[node];
        if (!k.empty() && k.back().first == b) {
          node = k.back().second;
        } else {
          const uint32_t next = uint32_t(values_.size());
          k.emplace_back(b, next);
          kids.emplace_back();
          values_.push_back(kNone);
          node = next;
        }
      }
      values_[node] = entries[e].second;
    }
    for (uint32_t& c : root_) c = kNone;
    for (const auto& [b, next] : kids[0]) root_[b] = next;
    nodes_.resize(kids.size());
    for (size_t n = 0; n < kids.size(); n++) {
      nodes_[n].value = values_[n];
      nodes_[n].first = uint32_t(labels_.size());
      if (n > 0)  // (the root's children are root_)
        for (const auto& [b, next] : kids[n]) labels_.push_back(b), targets_.push_back(next);
      nodes_[n].end = uint32_t(labels_.size());
    }
    std::vector<uint32_t>().swap(values_);
  }

  // The node after `node` reads byte b, or kNone.
  uint32_t child(uint32_t node, uint8_t b) const {
    if (node == 0) return root_[b];
    const uint32_t begin = nodes_[node].first, end = nodes_[node].end;
    const uint8_t* labels = labels_.data();
    if (end - begin <= 16) {
      for (uint32_t i = begin; i < end; i++)
        if (labels[i] == b) return targets_[i];
      return kNone;
    }
    const void* hit = std::memchr(labels + begin, b, end - begin);
    return hit ? targets_[size_t(static_cast<const uint8_t*>(hit) - labels)] : kNone;
  }
  // The value of the string that ends at `node`, or kNone.
  uint32_t value(uint32_t node) const { return nodes_[node].value; }

  // The node of s[0..n), or kNone.
  uint32_t walk(const uint8_t* s, size_t n) const {
    uint32_t node = 0;
    for (size_t i = 0; i < n && node != kNone; i++) node = child(node, s[i]);
    return node;
  }

 private:
  struct Node {  // (a node's fields in one cache line: a walk reads them together)
    uint32_t first, end;  // its children are labels_/targets_[first .. end)
    uint32_t value;
  };
  uint32_t root_[256];
  std::vector<uint32_t> values_;  // (while building)
  std::vector<Node> nodes_;
  std::vector<uint8_t> labels_;
  std::vector<uint32_t> targets_;
};

}  // namespace tagpipe
