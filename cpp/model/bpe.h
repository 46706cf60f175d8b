// BPE with the oracle's exact semantics (tokenizers/src/models/bpe: model.rs merge_word,
// word.rs merge_all):
//   - a piece's initial symbols are its characters (ByteLevel pieces: one per byte, each
//     the vocabulary entry of its byte character), with continuing_subword_prefix on all
//     but the first and end_of_word_suffix on the last;
//   - a character missing from the vocabulary becomes its <0xXX> byte tokens when
//     byte_fallback has them all, else the unk token (consecutive ones fused with
//     fuse_unk), else it is dropped -- and its neighbours may then merge;
//   - merges are applied lowest rank first, leftmost first among equal ranks, from a
//     priority queue with the oracle's staleness test; a duplicated merge keeps its last rank;
//   - ignore_merges: a piece that is itself in the vocabulary is that one token.
//
// The units: load-time preparation (model/bpe_vocab.h, model/bpe_symbols.h per piece form,
// model/char_merges.h, model/word_seed.h, model/cjk_ids.h), the merge loop
// (model/bpe_merge.h) and the cut policy (model/bpe_cuts.h).  Bpe is what the encoder sees;
// model/bpe.cpp implements it once per piece form (ByteLevel, WholeChars).  Shared between
// threads after construction; per-thread state lives in BpeScratch.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/bpe_merge.h"
#include "model/bpe_vocab.h"
#include "model/cjk_ids.h"
#include "model/merge_table.h"
#include "model/string_table.h"
#include "model/word_seed.h"

namespace tagpipe {

struct BpeScratch {
  MergeScratch merge;
  std::vector<uint32_t> initial;  // a long ByteLevel word's initial symbols
  std::string text;               // a character with its prefix / suffix
};

// A piece for Bpe::encode_many; its ids are ids[first, first + count) afterwards, and
// `whole` says they were the piece's own token, found without merging (the word seed, or
// ignore_merges' whole-piece lookup).  not_seed: the caller knows the word seed has no such
// string (it missed a word cache that holds the seed), so the model does not look.
struct BpeJob {
  const uint8_t* s;
  uint32_t n;
  bool not_seed = false;
  uint32_t first = 0, count = 0;
  bool whole = false;
};

class Bpe {
 public:
  static constexpr size_t kMaxJobs = 16;
  // The model for the pieces of one form: byte_level when the pre-tokenizer's ByteLevel
  // stage maps each byte to one character, else whole UTF-8 characters.  Everything the
  // model needs is built here, at load.
  static std::unique_ptr<const Bpe> make(StringTable vocab, const std::vector<BpeMerge>& merges, BpeOptions options,
                                         bool byte_level);
  virtual ~Bpe() = default;
  bool byte_level() const { return byte_level_; }

  // Appends the ids of one piece (its bytes as the pre-tokenizer left them).
  virtual void encode(const uint8_t* s, uint32_t n, std::vector<uint32_t>& out, BpeScratch& scratch) const = 0;
  // The same for up to kMaxJobs pieces at once (the word cache's misses).  A short piece
  // the word seed knows is its token; the other short words advance one merge at a time,
  // round robin, so that while one waits for its merge-table lookups the others compute.
  virtual void encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, BpeScratch& scratch) const = 0;

  // Where a piece s[0..n) can be cut without changing its ids (model/bpe_cuts.h): the cut
  // positions, ascending, in `at`; false (and none) when it cannot be cut.  h: the piece's
  // hash_bytes, or 0 when the caller has not computed it.
  virtual bool cuts(const uint8_t* s, uint32_t n, uint64_t h, std::vector<uint32_t>& at) const = 0;
  // The same, finer, for a part of a cut piece that the word cache did not know (whole
  // characters only: false for ByteLevel pieces).
  virtual bool refine(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at) const = 0;
  // Why cuts() never cuts ("" when it may); which pieces it leaves whole when it may ("" when none).
  virtual const std::string& cut_rule() const = 0;
  virtual std::string cut_exception() const = 0;

  // The vocabulary strings of 1..15 bytes whose BPE is their own token (model/word_seed.h).
  const WordSeed& seed() const { return seed_; }
  // ByteLevel pieces that may be cut: the ids of each CJK character alone (model/cjk_ids.h).
  const CjkIds& cjk() const { return cjk_; }

 protected:
  explicit Bpe(bool byte_level) : byte_level_(byte_level) {}
  WordSeed seed_;
  CjkIds cjk_;

 private:
  const bool byte_level_;
};

}  // namespace tagpipe
