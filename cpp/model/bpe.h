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
// Shared between threads after construction; per-thread state lives in BpeScratch.
#pragma once
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/utf8.h"
#include "model/bpe_merge.h"
#include "model/bridge_cuts.h"
#include "model/char_merges.h"
#include "model/cjk_ids.h"
#include "model/merge_table.h"
#include "model/string_table.h"
#include "model/word_seed.h"

namespace tagpipe {

struct BpeOptions {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint32_t unk_id = kNone;  // the unk token's id, or kNone (no unk token)
  bool fuse_unk = false;
  bool byte_fallback = false;
  bool ignore_merges = false;
  std::string prefix;  // continuing_subword_prefix ("" = none)
  std::string suffix;  // end_of_word_suffix ("" = none)
};

struct BpeScratch {
  MergeScratch merge;
  std::vector<uint32_t> initial;  // a long ByteLevel word's initial symbols
  std::string text;  // a character with its prefix / suffix
};

// A piece for Bpe::encode_many; its ids are ids[first, first + count) afterwards, and
// `whole` says they were the piece's own token, found without merging (the word seed, or
// ignore_merges' whole-piece lookup).
struct BpeJob {
  const uint8_t* s;
  uint32_t n;
  uint32_t first = 0, count = 0;
  bool whole = false;
};

class Bpe {
 public:
  static constexpr size_t kMaxJobs = 16;
  Bpe(StringTable vocab, const std::vector<BpeMerge>& merges, BpeOptions options);

  // Appends the ids of one piece: its bytes as the pre-tokenizer left them; with
  // `byte_mapped` each byte is one ByteLevel character.
  void encode(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& out, BpeScratch& scratch) const;
  // The same for up to kMaxJobs pieces at once (the word cache's misses).  A short piece
  // the word seed knows is its token; the other short words advance one merge at a time,
  // round robin, so that while one waits for its merge-table lookups the others compute --
  // a new word's lookups miss the CPU caches, and one word alone can only wait for them one
  // merge after another.
  void encode_many(BpeJob* jobs, size_t count, bool byte_mapped, std::vector<uint32_t>& ids, BpeScratch& scratch) const;

  const StringTable& vocab() const { return vocab_; }
  // Where a piece s[0..n) can be cut without changing its ids (model/bridge_cuts.h):
  // the cut positions, ascending, in `at`; false (and none) when it cannot be cut -- no such
  // boundary, or this vocabulary's BPE is not one the cuts are exact for.  Built at the
  // first call (thread-safe).
  // (h: the piece's hash_bytes, which the word cache's long_hash is too; 0 when the caller
  // did not compute it -- a piece too long to cache -- and cuts() then hashes if it must)
  bool cuts(const uint8_t* s, uint32_t n, uint64_t h, bool byte_mapped, std::vector<uint32_t>& at) const;
  // The same for a part of a cut piece that the word cache did not know (whole characters
  // only): cuts() asks whether a merge result holds the two characters side by side; this
  // asks whether a merge can split there, its strings matching the part's characters
  // around the boundary (BridgeCuts's quads).  More cuts, more probes: worth it only for
  // the few parts that missed.
  bool refine(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& at) const;
  // Why cuts() never cuts pieces of this form ("" when it may).
  std::string cut_rule(bool byte_mapped) const;
  // Which pieces cuts() leaves whole when it may cut ("" when none): ByteLevel pieces that
  // hold a byte whose character is not in the vocabulary (BPE drops it, and the symbols on
  // either side of it may then merge).
  std::string cut_exception(bool byte_mapped) const;
  // Builds what cuts() needs now rather than inside the first call that cuts a piece
  // (thread-safe): the signatures (1-15 ms on the shared vocabularies) and, with
  // ignore_merges, the strings whose merges differ (llama-3: 50 ms).
  void prepare_cuts(bool byte_mapped) const;
  // Builds the word seed of this piece form (model/word_seed.h; thread-safe): the
  // vocabulary strings of 1..15 bytes whose BPE is their own token -- with ignore_merges
  // every one, else all but merges_differ's (gpt2: 20 ms at load, gpt-4o 60).  Empty with
  // continuing_subword_prefix / end_of_word_suffix or shared ids.
  void prepare_seed(bool byte_mapped) const;
  const WordSeed& seed(bool byte_mapped) const { return seed_[byte_mapped]; }
  // The ids of the characters U+3000..U+9FFF alone as ByteLevel pieces, for the parts of
  // cut ones (model/cjk_ids.h: not for whole characters): built by prepare_cuts(true) when
  // cuts() may cut ByteLevel pieces, else empty.
  const CjkIds& cjk() const { return cjk_; }

 private:
  void add_char(const uint8_t* c, uint32_t len, bool first, bool last, bool byte_mapped, BpeScratch& sc,
                uint32_t& pending_unk) const;
  bool byte_fallback_ok(const uint8_t* c, uint32_t len) const;
  bool all_byte_tokens() const;
  bool bmp_symbol(const uint8_t* c, uint32_t len, uint32_t left, uint32_t& id, bool& bytes) const;
  static constexpr uint32_t kScanMax = BpeMerger::kScanMax;
  uint32_t whole_piece(const uint8_t* s, uint32_t n, bool byte_mapped) const;  // ignore_merges
  uint32_t whole_piece(const uint8_t* s, uint32_t n, uint64_t h, bool byte_mapped) const;  // h = hash_bytes(s, n)
  // encode() without ignore_merges' whole-piece lookup: the merges alone.
  void encode_merges(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& out,
                     BpeScratch& sc) const;
  struct Cuts {  // what cuts() needs, built once per piece form
    bool exact = false;      // the cuts are exact for this vocabulary (see piece_cuts())
    std::string why_not;     // when not: the condition that fails
    bool unk_waits = false;  // an unk is emitted at the next known character (Bpe::add_char)
    BridgeCuts bridges;
  };
  const Cuts& piece_cuts(bool byte_mapped) const;
  template <bool kQuads>
  void whole_char_cuts(const Cuts& c, const uint8_t* s, uint32_t n, std::vector<uint32_t>& at) const;
  bool keep_cuts(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& at) const;
  // The vocabulary strings (of one piece form) whose merges give something else than their
  // own token: with ignore_merges a cut must not leave one (it would be that token there,
  // its merges' ids in the whole piece).  Built once, at the first call.
  const StringTable& merges_differ(bool byte_mapped) const;
  bool known_char(uint32_t cp) const;
  bool small_symbols(const uint8_t* s, uint32_t n, bool byte_mapped, uint32_t* ids, uint32_t& count) const;

  StringTable vocab_;
  bool duplicate_ids_ = false;  // two vocabulary strings share an id (see merge_small)
  bool simple_bytes_ = false;   // no continuing_subword_prefix / end_of_word_suffix
  StringTable byte_vocab_;  // vocabulary entries made of ByteLevel characters, keyed by their bytes
  // Which strings a set could hold, by first byte: their lengths (as bits, % 64) and the
  // longest.  A string it rules out is not in the set -- no hash, no probe of the table.
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
  // [byte_mapped] (ignore_merges): the hashes of the vocabulary strings of 16+ bytes, in a
  // table small enough to stay in the CPU's cache (llama-3: 1591 strings, 32 KiB).  A
  // Chinese clause that is not one of them is ruled out without a probe of the vocabulary
  // (128k strings), which waited for memory once per clause.
  HashSet long_strings_[2];
  BpeMerger merger_;  // (and the merge table)
  BpeOptions opt_;
  // Fast paths: the id of a one-byte character (ByteLevel byte or ASCII character) as the
  // [first][last] symbol of a piece, or kMissing.
  uint32_t byte_char_id_[2][2][256];
  uint32_t ascii_id_[2][2][128];
  uint32_t byte_token_[256];  // <0xXX>, or kMissing
  bool missing_byte_[256] = {};  // the byte's ByteLevel character is not in the vocabulary
  int missing_bytes_ = 0;
  // Without prefix / suffix and shared ids, units as one initial symbol where that is exact
  // (model/char_merges.h).  ByteLevel words: whole characters and ASCII pairs (empty when not
  // every byte is a token).  Plain words: two characters (empty for a ByteLevel vocabulary,
  // or when a merge takes a <0xXX> or unk token).
  CharMerges chars_;
  CharMerges plain_pairs_;
  std::vector<uint32_t> bmp_id_;  // without prefix / suffix: the id of each one-character BMP token
  std::vector<BpeMerge> merge_list_;  // every merge, by rank (for the cuts: model/bridge_cuts.h)
  bool merges_take_bytes_or_unk_ = false;  // a merge's left or right is a <0xXX> token or unk
  mutable std::once_flag cuts_once_[2], differ_once_[2];  // [byte_mapped]: bridges, merges_differ
  mutable StringTable differ_[2];
  // The merges_differ strings' shapes: most cut parts are ruled out without hashing them (a
  // Chinese clause is a part every few bytes).
  mutable ShapeFilter differ_shapes_[2];
  mutable Cuts cuts_[2];
  mutable CjkIds cjk_;  // (ByteLevel pieces)
  mutable std::once_flag seed_once_[2];
  mutable WordSeed seed_[2];  // [byte_mapped]
};

}  // namespace tagpipe
