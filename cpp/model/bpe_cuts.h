// BPE's cut policy: where a new long piece may be cut without changing its ids -- before a
// character where no merge can join the symbols on either side (proof and filters:
// docs/design/bridge-cuts.md).  The parts are then pieces of their own, which the word cache
// mostly knows where it seldom knows the whole piece (a Chinese clause, a long word).
//
// Exact only for vocabularies whose symbols are the piece's own bytes or characters and
// whose unknown characters never merge; rule() says which condition fails otherwise.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/bpe_symbols.h"
#include "model/bpe_vocab.h"
#include "model/bridge_cuts.h"

namespace tagpipe {

template <class Form>
class BpeCuts;

// What both forms share: the exactness conditions' answer, and the ignore_merges check.
class BpeCutsCommon {
 public:
  bool exact() const { return why_not_.empty(); }
  // Why cuts are never exact for this vocabulary ("" when they may be).
  const std::string& why_not() const { return why_not_; }

 protected:
  BpeCutsCommon(const BpeVocab& v, std::string why_not)
      : why_not_(std::move(why_not)), ignore_merges_(v.opt.ignore_merges) {}
  // With ignore_merges no part may be a string whose merges differ (it would be that token
  // there, its merges' ids in the whole piece): then no cut at all.  Whether any is left.
  bool keep(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at, const DifferingStrings* differ) const;

  std::string why_not_;
  bool ignore_merges_;
  BridgeCuts bridges_;
};

template <>
class BpeCuts<ByteLevel> : public BpeCutsCommon {
 public:
  BpeCuts(const BpeVocab& v, const BpeSymbols<ByteLevel>& symbols);
  // Which pieces find() leaves whole although cuts are exact ("" when none): those that
  // hold a byte whose character is not in the vocabulary (BPE drops it, and the symbols on
  // either side of it may then merge).
  std::string exception() const;
  // The cut positions of a piece s[0..n), ascending, appended to `at` (empty); false when
  // none is left.  differ: (ignore_merges) the strings whose merges differ.
  bool find(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at, const DifferingStrings* differ) const;
  bool refine(const uint8_t*, uint32_t, std::vector<uint32_t>&, const DifferingStrings*) const { return false; }

 private:
  const BpeSymbols<ByteLevel>& symbols_;
};

template <>
class BpeCuts<WholeChars> : public BpeCutsCommon {
 public:
  BpeCuts(const BpeVocab& v, const BpeSymbols<WholeChars>& symbols);
  std::string exception() const { return ""; }
  bool find(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at, const DifferingStrings* differ) const;
  // The same for a part of a cut piece that the word cache did not know: find() asks
  // whether a merge can join the two characters at a boundary; this asks whether one can
  // split there, its strings matching the part's characters around the boundary (the
  // quads).  More cuts, more probes: worth it only for the few parts that missed.
  bool refine(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at, const DifferingStrings* differ) const;

 private:
  template <bool kQuads>
  void whole_char_cuts(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at) const;

  const BpeSymbols<WholeChars>& symbols_;
  bool unk_waits_;  // an unk is emitted at the next known character (the model's add_char)
};

}  // namespace tagpipe
