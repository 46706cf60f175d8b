// What both piece forms of a BPE read, prepared once at load: the vocabulary, the options,
// the merges (their table, their list by rank) and the facts that decide which shortcuts
// are exact -- shared ids, a prefix or suffix, merges of <0xXX> or unk tokens.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/bpe_merge.h"
#include "model/string_table.h"

namespace tagpipe {

struct BpeOptions {
  std::optional<uint32_t> unk_id;  // the unk token's id (none: no unk token)
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::string prefix;  // continuing_subword_prefix ("" = none)
  std::string suffix;  // end_of_word_suffix ("" = none)
};

struct BpeVocab {
  BpeVocab(StringTable vocab, const std::vector<BpeMerge>& merges, BpeOptions options);

  StringTable strings;  // the vocabulary, as UTF-8 text
  BpeOptions opt;
  BpeMerger merger;                       // the merge loop and its table
  std::vector<BpeMerge> merges;           // by rank
  bool duplicate_ids = false;             // two vocabulary strings share an id
  bool simple = false;                    // no continuing_subword_prefix / end_of_word_suffix
  bool merges_take_bytes_or_unk = false;  // a merge's left or right is a <0xXX> token or unk
  // An id no vocabulary string has: what the tables by byte or character hold for a string
  // that is not in the vocabulary (model/free_id.h).
  uint32_t absent = UINT32_MAX;
  uint32_t byte_token[256];  // <0xXX>, or absent

  // The initial symbols may be taken from tables (ids, units) rather than looked up one
  // character at a time: no prefix or suffix, no shared ids.
  bool shortcuts() const { return simple && !duplicate_ids; }
  // The id of a character's string c, with the prefix unless it is the piece's first and
  // the suffix when it is the last; absent when it is not in the vocabulary.
  uint32_t lookup(std::string_view c, bool first, bool last) const;
  // byte_fallback with every <0xXX> token: no character is ever unknown.
  bool all_byte_tokens() const;
  bool byte_fallback_ok(const uint8_t* c, uint32_t len) const {
    for (uint32_t k = 0; k < len; k++)
      if (byte_token[c[k]] == absent) return false;
    return true;
  }
};

// Which strings a set could hold, by first byte: their lengths (as bits, % 64) and the
// longest.  A string it rules out is not in the set: no hash, no probe of the table.
struct ShapeFilter {
  uint64_t lengths[256] = {};
  uint32_t longest[256] = {};
  void add(std::string_view key) {  // (key not empty)
    const uint8_t first = uint8_t(key[0]);
    lengths[first] |= uint64_t(1) << (key.size() & 63);
    longest[first] = std::max(longest[first], uint32_t(key.size()));
  }
  bool may_hold(const uint8_t* s, uint32_t n) const {  // (n >= 1)
    return n <= longest[s[0]] && ((lengths[s[0]] >> (n & 63)) & 1);
  }
};

// The vocabulary strings (of one piece form) whose BPE is not their own token, with their
// shapes: the word seed leaves them out, and with ignore_merges a cut must not leave one
// (it would be that token there, its merges' ids in the whole piece).
struct DifferingStrings {
  StringTable table;
  ShapeFilter shapes;
  void add(std::string_view key, uint32_t id) {
    table.put(key, id);
    shapes.add(key);
  }
  bool holds(const uint8_t* s, uint32_t n) const { return shapes.may_hold(s, n) && table.get(s, n).has_value(); }
};

}  // namespace tagpipe
