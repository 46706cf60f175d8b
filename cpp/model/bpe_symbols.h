// A piece's initial BPE symbols, for each form a piece comes in:
//   - ByteLevel: every byte is one character of GPT-2's byte alphabet (the pre-tokenizer's
//     ByteLevel stage mapped it), its symbol that character's token; the vocabulary's
//     strings are compared by the bytes they stand for;
//   - WholeChars: the piece is UTF-8 text, a symbol per character (SentencePiece-style
//     vocabularies), its strings the vocabulary's own.
// With no prefix / suffix and no shared ids (BpeVocab::shortcuts), symbols come from tables
// by byte or code point, and units of characters that merge alone start as their merged
// tokens where that is exact (model/char_merges.h).  Otherwise, and for a character none of
// that covers, the model looks a character up one at a time (char_id, append_char).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "model/bpe_merge.h"
#include "model/bpe_vocab.h"
#include "model/char_merges.h"

namespace tagpipe {

struct ByteLevel {};
struct WholeChars {};

template <class Form>
class BpeSymbols;

template <>
class BpeSymbols<ByteLevel> {
 public:
  explicit BpeSymbols(const BpeVocab& v);

  // The vocabulary strings made of ByteLevel characters, keyed by the bytes they stand for.
  const StringTable& strings() const { return strings_; }

  // The symbols of a short word, at most BpeMerger::kScanMax (count of them in ids); false
  // when the tables do not cover it.
  bool small(const uint8_t* s, uint32_t n, uint32_t* ids, uint32_t& count) const;
  // The symbols of a long word, into sc.symbols (scratch: room for n ids); false when the
  // tables do not cover it.
  bool large(const uint8_t* s, uint32_t n, std::vector<uint32_t>& scratch, MergeScratch& sc) const;

  // One character at a time: its length at s[i]; its id as the piece's first / last symbol
  // from a table (fast: the table is the answer, BpeVocab::absent included); its text.
  static uint32_t char_length(const uint8_t*, uint32_t, uint32_t) { return 1; }
  uint32_t char_id(const uint8_t* c, uint32_t, bool first, bool last, bool& fast) const {
    fast = true;
    return id_[!first][last][c[0]];
  }
  static void append_char(const uint8_t* c, uint32_t len, std::string& out);

  // A byte whose ByteLevel character is not in the vocabulary (BPE drops it).
  bool missing_byte(uint8_t b) const { return missing_[b]; }
  int missing_bytes() const { return missing_count_; }

 private:
  const BpeVocab& v_;
  StringTable strings_;
  uint32_t id_[2][2][256];  // [not first][last]: a byte's character with the prefix / suffix, or absent
  bool missing_[256] = {};
  int missing_count_ = 0;
  CharMerges units_;  // whole characters and ASCII pairs (empty unless every byte is a token)
};

template <>
class BpeSymbols<WholeChars> {
 public:
  explicit BpeSymbols(const BpeVocab& v);

  const StringTable& strings() const { return v_.strings; }

  bool small(const uint8_t* s, uint32_t n, uint32_t* ids, uint32_t& count) const;
  bool large(const uint8_t* s, uint32_t n, std::vector<uint32_t>& scratch, MergeScratch& sc) const;

  static uint32_t char_length(const uint8_t* s, uint32_t i, uint32_t n) { return std::min(utf8_length(s[i]), n - i); }
  uint32_t char_id(const uint8_t* c, uint32_t len, bool first, bool last, bool& fast) const {
    fast = len == 1;
    return fast ? ascii_id_[!first][last][c[0]] : v_.absent;
  }
  static void append_char(const uint8_t* c, uint32_t len, std::string& out) {
    out.append(reinterpret_cast<const char*>(c), len);
  }

  // The code point cp is a token of its own (not unk, not bytes; outside the BMP counted as
  // unknown).  With BpeVocab::simple only.
  bool known_char(uint32_t cp) const { return cp < 0x10000 && bmp_id_[cp] != v_.absent; }

 private:
  bool bmp_symbol(const uint8_t* c, uint32_t len, uint32_t left, uint32_t& id, bool& bytes) const;

  const BpeVocab& v_;
  uint32_t ascii_id_[2][2][128];  // [not first][last]; BpeVocab::absent when not a token
  std::vector<uint32_t> bmp_id_;  // (simple) the id of each one-character BMP token, or absent
  CharMerges pairs_;              // two characters that merge (empty when a merge takes <0xXX> or unk)
};

}  // namespace tagpipe
