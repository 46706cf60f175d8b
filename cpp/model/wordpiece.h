// WordPiece and WordLevel with the oracle's semantics.
//
// WordPiece (tokenizers/src/models/wordpiece/mod.rs, tokenize):
//   - a piece of more than max_input_chars_per_word characters is the unk token;
//   - otherwise, from the start: the longest vocabulary string the rest begins with (the
//     oracle shortens the candidate one character at a time from the end; a trie walk finds
//     the same longest match in one pass), every match but the first looked up with
//     continuing_subword_prefix in front;
//   - when some position has no match, the whole piece is the unk token;
//   - the unk token missing from the vocabulary is an error, raised only when it is needed.
// WordLevel (models/wordlevel/mod.rs): the piece's id, else unk_token's, else an error.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/byte_trie.h"
#include "model/piece_model.h"
#include "model/string_table.h"

namespace tagpipe {

struct WordPieceOptions {
  std::optional<uint32_t> unk_id;  // the unk token's id; none when it is not in the vocabulary
  std::string prefix = "##";
  uint64_t max_chars = 100;
};

class WordPiece : public PieceModel {
 public:
  WordPiece(const StringTable& vocab, WordPieceOptions options);
  bool encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, PieceScratch& scratch) const override;
  bool can_fail() const override { return !opt_.unk_id; }
  bool encode_spans(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>& spans,
                    PieceScratch& scratch) const override;
  // The ids of one piece appended to `ids` (and their spans to `spans`, when given); false:
  // the unk token was needed and is missing.
  bool encode(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>* spans = nullptr) const;

 private:
  ByteTrie trie_;
  uint32_t cont_root_;  // the trie node of the prefix: continuation matches walk from here
  WordPieceOptions opt_;
};

class WordLevel : public PieceModel {
 public:
  WordLevel(const StringTable& vocab, std::optional<uint32_t> unk_id) : vocab_(vocab), unk_id_(unk_id) {}
  bool encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, PieceScratch& scratch) const override;
  bool can_fail() const override { return !unk_id_; }
  bool encode_spans(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>& spans,
                    PieceScratch& scratch) const override;

 private:
  std::optional<uint32_t> id_of(const uint8_t* s, uint32_t n) const;  // the piece's id, or else unk_id_

  StringTable vocab_;
  std::optional<uint32_t> unk_id_;  // none when unk_token is not in the vocabulary
};

}  // namespace tagpipe
