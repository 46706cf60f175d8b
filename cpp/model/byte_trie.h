// A trie over the bytes of vocabulary strings, walked one byte at a time: the WordPiece
// longest match and Unigram's common-prefix search (tokenizers' unigram/trie.rs: every
// vocabulary string that is a prefix of the text from a position).  A walk costs one
// child lookup per byte it advances and stops at the first byte no string continues with,
// so matching at a position is linear in the longest match there.
//
// Node 0 is the root (the empty string, which never matches: the oracle only reports a
// node after it has consumed a byte); its 256 children are a plain array.  Every other node
// is one record in a flat array of words, and a node's number is its record's offset:
//
//   [value] [k = number of children] [k labels, 4 per word] [k child offsets]
//
// so one step of a walk reads one record -- its value, its labels and the child it takes
// sit side by side (one cache line for most nodes) instead of in three arrays.  A node with
// more than kSparse children -- the "##" node, the lead bytes of a script's characters (up
// to 64 continuation bytes each): a hundred or two nodes in a BERT or T5 vocabulary -- has
// its children by byte instead, so that a step through it is one load, not a scan:
//
//   [value] [kDense] [256 child offsets, kNone where no child]
//
// Records are
// laid out in depth-first order of the sorted strings (a subtree is contiguous, so a walk
// stays in a small region).  Built once, then shared between threads.
//
// A node where no string ends holds no_value(), a value no entry has (model/free_id.h).
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "model/free_id.h"

namespace tagpipe {

class ByteTrie {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;   // no node (nodes are record offsets, below it)
  static constexpr uint32_t kSparse = 16;         // at most this many children: a list of labels
  static constexpr uint32_t kDense = UINT32_MAX;  // (the count word of a record by byte)

  // entries: (string, value); a string repeated keeps its last value; "" is ignored.
  explicit ByteTrie(const std::vector<std::pair<std::string_view, uint32_t>>& entries) {
    std::vector<uint32_t> values;
    for (const auto& e : entries) values.push_back(e.second);
    no_value_ = free_id(std::move(values));
    std::vector<uint32_t> order(entries.size());
    for (uint32_t i = 0; i < order.size(); i++) order[i] = i;
    // (string_view compares bytes as unsigned char; stable: repeats stay in file order)
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return entries[a].first < entries[b].first; });
    // Build: strings in sorted order, so a node's new child always comes after its others
    // and the child a string shares with the previous string is the node's last one.
    std::vector<std::vector<std::pair<uint8_t, uint32_t>>> kids(1);
    values_.assign(1, no_value_);
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
          values_.push_back(no_value_);
          node = next;
        }
      }
      values_[node] = entries[e].second;
    }
    // Record offsets (node 0, the root, is a record with no children: they are root_).
    std::vector<uint32_t> offset(kids.size());
    size_t size = 0;
    for (size_t n = 0; n < kids.size(); n++) {
      const size_t k = n == 0 ? 0 : kids[n].size();
      offset[n] = uint32_t(size);
      size += 2 + (k > kSparse ? 256 : (k + 3) / 4 + k);
      if (size >= kNone) throw std::length_error("vocabulary too large for the byte trie (4 G words)");
    }
    data_.assign(size, 0);
    for (size_t n = 0; n < kids.size(); n++) {
      uint32_t* rec = data_.data() + offset[n];
      const size_t k = n == 0 ? 0 : kids[n].size();
      rec[0] = values_[n];
      if (k > kSparse) {
        rec[1] = kDense;
        std::fill(rec + 2, rec + 2 + 256, kNone);
        for (const auto& [b, next] : kids[n]) rec[2 + b] = offset[next];
        continue;
      }
      rec[1] = uint32_t(k);
      uint8_t* labels = reinterpret_cast<uint8_t*>(rec + 2);
      uint32_t* targets = rec + 2 + (k + 3) / 4;
      for (size_t i = 0; i < k; i++) labels[i] = kids[n][i].first, targets[i] = offset[kids[n][i].second];
    }
    for (uint32_t& c : root_) c = kNone;
    for (const auto& [b, next] : kids[0]) root_[b] = offset[next];
    std::vector<uint32_t>().swap(values_);
  }

  // The node after `node` reads byte b, or kNone.
  uint32_t child(uint32_t node, uint8_t b) const {
    if (node == 0) return root_[b];
    const uint32_t* rec = data_.data() + node;
    const uint32_t k = rec[1];
    if (k == kDense) return rec[2 + b];
    const uint8_t* labels = reinterpret_cast<const uint8_t*>(rec + 2);
    const uint32_t* targets = rec + 2 + (k + 3) / 4;
    for (uint32_t i = 0; i < k; i++)
      if (labels[i] == b) return targets[i];
    return kNone;
  }
  // The value of the string that ends at `node`, or no_value().
  uint32_t value(uint32_t node) const { return data_[node]; }
  uint32_t no_value() const { return no_value_; }

  // The node of s[0..n), or kNone.
  uint32_t walk(const uint8_t* s, size_t n) const {
    uint32_t node = 0;
    for (size_t i = 0; i < n && node != kNone; i++) node = child(node, s[i]);
    return node;
  }

 private:
  uint32_t root_[256];
  uint32_t no_value_ = UINT32_MAX;
  std::vector<uint32_t> values_;  // (while building)
  std::vector<uint32_t> data_;    // the records
};

}  // namespace tagpipe
