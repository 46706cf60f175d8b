// The offsets path: each token's span in the original text, as the oracle's Encoding has
// it (tokenizers/src/tokenizer/pre_tokenizer.rs into_encoding, normalizer.rs
// convert_offsets, and the Python binding's BytesToCharOffsetConverter) -- what
// transformers' return_offsets_mapping returns.  Design and proof: docs/design/offsets.md.
//
// Encoder::encode_offsets runs the encoder's own stages with origins kept (the normalizer's
// and the pre-tokenizer's: the original character of every byte, as the oracle's
// alignments), then each piece's tokens with their spans in the piece: the word cache's ids
// spanned by TokenSpans, which proves each span against the piece's bytes -- or, on a miss or
// where it proves nothing, the model's own (PieceModel::encode_spans; BPE: its ids, spanned
// by TokenSpans or not at all).  A span [a, b) of a piece maps to the origin of byte a's
// begin and byte b - 1's end (the oracle's expand_alignments), then to characters.  A text
// whose spans are not proven is delegated, like one whose normalization is not native.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/piece_model.h"

namespace tagpipe {

// What the spans of a piece's ids need of the tokens.  The oracle's BPE offsets are its
// Word's symbol lengths one after another: a character's bytes (merged tokens: the sum), 1
// per <0xXX> byte-fallback token, an unk's characters; WordPiece's and Unigram's are each
// match or string (an unk: the whole piece).  Those are the token's string (without
// continuing_subword_prefix unless first, without end_of_word_suffix unless last) laid over
// the piece, one after another, an unk token (one at most) taking what the others leave:
// exact where every token's length is its string's -- no character is dropped (the lengths
// then fall short of the piece) and no prefix falls back to <0xXX> bytes -- which, with a
// prefix or suffix (or two strings sharing an id), `check_bytes` proves byte for byte.
// Unigram's unk and <0xXX> tokens are `refused` (its model spans those pieces).  A piece
// that is one token's whole string is that token (ignore_merges finds it so).
class TokenSpans {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // strings[id]: the bytes token id stands for in a piece (ByteLevel pieces: its bytes, else
  // its UTF-8; empty: unknown -- never spanned); prefix, suffix in that form; unk_id or
  // kNone; byte_ids[b]: the <0xXX> token of byte b when byte_fallback, else kNone.
  TokenSpans(const std::vector<std::string>& strings, std::string prefix, std::string suffix, uint32_t unk_id,
             const std::vector<uint32_t>& byte_ids, const std::vector<uint32_t>& refused, bool check_bytes);
  // The spans of ids[0..count), the tokens of piece p[0..n), appended to `out`; false (and
  // `out` as it was) when they are not proven.
  bool spans(const uint8_t* p, uint32_t n, const uint32_t* ids, size_t count, std::vector<TokenSpan>& out) const;

 private:
  static constexpr int16_t kPlain = -1, kUnk = -2, kRefused = -3;  // else a <0xXX> token's byte
  // Token i of count's length in a piece (its string less the prefix or suffix it carries
  // there); false when it has no plain string.
  bool length_of(uint32_t id, size_t i, size_t count, uint32_t& len) const;
  // Whether token i of count's string (less that prefix or suffix) is the bytes at `at`.
  bool string_is(uint32_t id, size_t i, size_t count, const uint8_t* at) const;
  // Whether token i of count lies in p[0..n) at pos (its length: len).
  bool token_at(const uint8_t* p, uint32_t n, uint32_t id, size_t i, size_t count, uint32_t pos, uint32_t& len) const;
  // Token i of count laid to end just at `end` of p: its start in `at`; false if it does not lie there.
  bool lay_back(const uint8_t* p, uint32_t end, uint32_t id, size_t i, size_t count, uint32_t& at) const;

  std::string pool_;
  std::vector<uint32_t> at_;  // token id's bytes: pool_[at_[id], at_[id + 1])
  std::string prefix_, suffix_;
  uint32_t unk_id_;
  bool check_bytes_;
  std::vector<int16_t> kind_;  // per id: kPlain, kUnk, kRefused, or the byte of a <0xXX> token
};

// The offsets path's per-thread scratch memory (encode/offsets.cpp).
struct SpanScratch;

// Where one thread writes ids, their spans (begin, end: two per id) and whether each is an
// added token's match (whose string, for the post-processor's trim, is the text it matched).
struct SpanSink {
  std::vector<uint32_t> ids;
  std::vector<uint32_t> spans;
  std::vector<uint8_t> added;
  void push(uint32_t id, uint32_t begin, uint32_t end, bool is_added = false) {
    ids.push_back(id);
    spans.push_back(begin), spans.push_back(end);
    added.push_back(is_added);
  }
  size_t size() const { return ids.size(); }
  void resize(size_t n) { ids.resize(n), spans.resize(2 * n), added.resize(n); }
};

// The UTF-8 byte offsets spans[2 * k], spans[2 * k + 1] of the tokens of s[0..n) (k from
// `first` on) turned into character offsets, as the binding's BytesToCharOffsetConverter:
// a start past the text keeps its byte offsets.  `index`: scratch.
void spans_to_chars(const uint8_t* s, uint32_t n, std::vector<uint32_t>& spans, size_t first,
                    std::vector<uint32_t>& index);

}  // namespace tagpipe
