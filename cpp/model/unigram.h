// Unigram with the oracle's exact semantics (tokenizers/src/models/unigram/model.rs: the
// deserialized model has is_optimized and fuse_unk set, so encode_optimized runs, then
// tokenize maps its strings to ids):
//   - Viterbi over the pieces' byte positions, left to right by character: from each
//     character start, every vocabulary string the rest begins with (common-prefix search
//     on a byte trie) offers score(piece) + best(start) to its end position, in f64, kept
//     when the end has no path yet or the offer is strictly greater (so on a tie the path
//     from the earlier start, then the first offer, stays);
//   - a character start with no one-character piece also offers the unk token over that
//     one character, scored min(all scores) - 10; without an unk_id that offer is an
//     error when it would be taken;
//   - backtracking from the end, consecutive nodes whose id is unk_id are fused into one
//     string (fuse_unk is always on);
//   - each string is then looked up in the vocabulary (a repeated piece: its last id; a
//     fused string can be a piece of its own); a string not there becomes its <0xXX> byte
//     tokens when byte_fallback has all of them, else unk_id.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/byte_trie.h"
#include "model/piece_model.h"
#include "model/string_table.h"

namespace tagpipe {

class Unigram : public PieceModel {
 public:
  // pieces[i] = (string, score) is id i; unk_id is none or < pieces.size().
  Unigram(const std::vector<std::pair<std::string, double>>& pieces, std::optional<uint32_t> unk_id,
          bool byte_fallback);
  bool encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, PieceScratch& scratch) const override;
  bool can_fail() const override { return !unk_id_; }
  bool encode_spans(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>& spans,
                    PieceScratch& scratch) const override;
  // The ids of one piece (and, when `spans` is given, each one's span: the string it came
  // from -- every byte token of a string has the whole string's, as the oracle's tokenize).
  bool encode(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, PieceScratch& scratch,
              std::vector<TokenSpan>* spans = nullptr) const;

 private:
  bool emit(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids) const;  // one string's ids

  ByteTrie trie_;              // piece -> its last id
  StringTable ids_;            // the same map, for the strings backtracking produces
  std::vector<double> score_;  // per id
  double unk_score_;
  std::optional<uint32_t> unk_id_;
  bool byte_fallback_;
  bool all_bytes_[256];     // whether each byte's <0xXX> token is a piece
  uint32_t byte_ids_[256];  // (where it is) its id
};

}  // namespace tagpipe
