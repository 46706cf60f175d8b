// The offsets path: each token's span in the original text, as the oracle's Encoding has
// it (tokenizers/src/tokenizer/pre_tokenizer.rs into_encoding, normalizer.rs
// convert_offsets, and the Python binding's BytesToCharOffsetConverter) -- what
// transformers' return_offsets_mapping returns.  Design and proof: docs/design/offsets.md.
//
// Encoder::encode_offsets runs the encoder's own stages with origins kept (the normalizer's
// and the pre-tokenizer's: the original character of every byte, as the oracle's
// alignments), then each piece's tokens with their spans in the piece -- the model's own
// (PieceModel::encode_spans), or for BPE the ids (word cache or model) spanned by BpeSpans,
// which proves each span against the piece's bytes.  A span [a, b) of a piece maps to the
// origin of byte a's begin and byte b - 1's end (the oracle's expand_alignments), then to
// characters.  A text whose spans are not proven is delegated, like one whose
// normalization is not native.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/piece_model.h"

namespace tagpipe {

// What BPE's spans need of its tokens.  The oracle's BPE offsets are its Word's symbol
// lengths one after another: a character's bytes (merged tokens: the sum), 1 per
// <0xXX> byte-fallback token, an unk's characters.  Those equal the token's string (without
// continuing_subword_prefix unless first, without end_of_word_suffix unless last) laid over
// the piece -- which spans() checks byte for byte, so a piece where they might not (a
// dropped character, a prefix among byte-fallback tokens, two unk tokens) fails instead.
// A piece that is one token's whole string is that token (ignore_merges finds it so).
class BpeSpans {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // strings[id]: the bytes token id stands for in a piece (ByteLevel pieces: its bytes, else
  // its UTF-8; empty: unknown -- the token is never spanned); prefix, suffix in that form;
  // unk_id or kNone; byte_ids[b]: the <0xXX> token of byte b when byte_fallback, else kNone.
  BpeSpans(const std::vector<std::string>& strings, std::string prefix, std::string suffix, uint32_t unk_id,
           const std::vector<uint32_t>& byte_ids);
  // The spans of ids[0..count), the tokens of piece p[0..n), appended to `out`; false (and
  // `out` as it was) when they are not proven.
  bool spans(const uint8_t* p, uint32_t n, const uint32_t* ids, size_t count, std::vector<TokenSpan>& out) const;

 private:
  // Token i of count's bytes in a piece (its string less the prefix or suffix it carries
  // there); false when the token has no known bytes.
  bool bytes_of(uint32_t id, size_t i, size_t count, const uint8_t*& s, uint32_t& len) const;

  std::string pool_;
  std::vector<uint32_t> at_;  // token id's bytes: pool_[at_[id], at_[id + 1])
  std::string prefix_, suffix_;
  uint32_t unk_id_;
  std::vector<int16_t> fallback_;  // per id: the byte its <0xXX> token stands for, or -1
};

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
