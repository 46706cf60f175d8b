#include "model/bpe_cuts.h"

#include <algorithm>
#include <utility>

namespace tagpipe {
namespace {

// A set of ids numbered densely (sorted): ids are u32 and may be sparse -- the oracle takes
// any -- so no table here is sized by the largest id; a small file naming id 1e9 must not cost
// gigabytes.
class IdIndex {
 public:
  explicit IdIndex(std::vector<uint32_t> ids) : ids_(std::move(ids)) {
    std::sort(ids_.begin(), ids_.end());
    ids_.erase(std::unique(ids_.begin(), ids_.end()), ids_.end());
  }
  size_t size() const { return ids_.size(); }
  // The position of `id`, or size() if it is not in the set.
  size_t find(uint32_t id) const {
    const auto it = std::lower_bound(ids_.begin(), ids_.end(), id);
    return it != ids_.end() && *it == id ? size_t(it - ids_.begin()) : size();
  }

 private:
  std::vector<uint32_t> ids_;
};

// The conditions alone (cheap: nothing is built).  Both forms need the initial symbols to be
// the piece's own bytes or characters, and nothing else to change how symbols merge.
std::string common_rule(const BpeVocab& v) {
  if (!v.simple) return "continuing_subword_prefix / end_of_word_suffix";
  if (v.duplicate_ids) return "two vocabulary strings share an id";
  return "";
}

// Whole characters: also no character dropped (its neighbours could then merge across it),
// and no merge of a <0xXX> byte token or the unk token (symbols that are no text).
std::string whole_chars_rule(const BpeVocab& v) {
  std::string why = common_rule(v);
  if (!why.empty()) return why;
  if (!v.all_byte_tokens() && !v.opt.unk_id) return "an unknown character is dropped (no unk token, no byte_fallback)";
  if (v.merges_take_bytes_or_unk) return "a merge takes a <0xXX> or unk token";
  return "";
}

}  // namespace

bool BpeCutsCommon::keep(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at,
                         const DifferingStrings* differ) const {
  if (ignore_merges_ && !at.empty()) {
    uint32_t begin = 0;
    for (size_t k = 0; k <= at.size(); k++) {
      const uint32_t end = k < at.size() ? at[k] : n;
      if (differ->holds(s + begin, end - begin)) {
        at.clear();
        break;
      }
      begin = end;
    }
  }
  return !at.empty();
}

// -- ByteLevel: every merge result's inner boundaries -------------------------------------

BpeCuts<ByteLevel>::BpeCuts(const BpeVocab& v, const BpeSymbols<ByteLevel>& symbols)
    : BpeCutsCommon(v, common_rule(v)), symbols_(symbols) {
  if (!exact()) return;
  bridges_.set_whole_chars(false);
  std::vector<uint32_t> ids;  // the ids some merge gives
  ids.reserve(v.merges.size());
  for (const BpeMerge& m : v.merges) ids.push_back(m.result);
  const IdIndex results(std::move(ids));
  symbols.strings().for_each([&](std::string_view key, uint32_t id) {
    if (results.find(id) != results.size())
      bridges_.add(reinterpret_cast<const uint8_t*>(key.data()), uint32_t(key.size()));
  });
  bridges_.finish();
}

std::string BpeCuts<ByteLevel>::exception() const {
  if (!symbols_.missing_bytes() || !exact()) return "";
  return "not a piece that holds one of the " + std::to_string(symbols_.missing_bytes()) +
         " bytes whose ByteLevel character is not in the vocabulary";
}

bool BpeCuts<ByteLevel>::find(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at,
                              const DifferingStrings* differ) const {
  if (symbols_.missing_bytes())  // (a piece with a byte that is no token stays whole)
    for (uint32_t p = 0; p < n; p++)
      if (symbols_.missing_byte(s[p])) return false;
  uint32_t prev = 0;  // where the character before p starts
  for (uint32_t p = 1; p < n; p++) {
    if ((s[p] & 0xC0) == 0x80) continue;  // (before a character's first byte only)
    if (!bridges_.bridged(s, n, prev, p)) at.push_back(p);
    prev = p;
  }
  return keep(s, n, at, differ);
}

// -- WholeChars: every merge's split ------------------------------------------------------

BpeCuts<WholeChars>::BpeCuts(const BpeVocab& v, const BpeSymbols<WholeChars>& symbols)
    : BpeCutsCommon(v, whole_chars_rule(v)),
      symbols_(symbols),
      unk_waits_(!v.all_byte_tokens() && v.opt.unk_id.has_value()) {
  if (!exact()) return;
  bridges_.set_whole_chars(true);
  std::vector<uint32_t> ids;  // the ids merges take
  ids.reserve(2 * v.merges.size());
  for (const BpeMerge& m : v.merges) ids.push_back(m.left), ids.push_back(m.right);
  const IdIndex parts(std::move(ids));
  std::vector<std::string_view> strings(parts.size() + 1);  // by position in parts (no two share an id: exact)
  v.strings.for_each([&](std::string_view key, uint32_t id) { strings[parts.find(id)] = key; });
  strings.back() = {};  // (the slot of every id that is no part)
  for (const BpeMerge& m : v.merges) {
    const std::string_view a = strings[parts.find(m.left)], b = strings[parts.find(m.right)];
    if (!a.empty() && !b.empty())
      bridges_.add_merge(reinterpret_cast<const uint8_t*>(a.data()), uint32_t(a.size()),
                         reinterpret_cast<const uint8_t*>(b.data()), uint32_t(b.size()));
  }
  bridges_.finish();
}

bool BpeCuts<WholeChars>::find(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at,
                               const DifferingStrings* differ) const {
  whole_char_cuts<false>(s, n, at);
  return keep(s, n, at, differ);
}

bool BpeCuts<WholeChars>::refine(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at,
                                 const DifferingStrings* differ) const {
  whole_char_cuts<true>(s, n, at);
  return keep(s, n, at, differ);
}

// Each character decoded once: the boundary at p is between x and y, w before x and z after
// y (BridgeCuts::kAlone past the piece's ends; kNoChar if cut short).  kQuads: asks
// BridgeCuts::splits, else BridgeCuts::bridged(x, y).
template <bool kQuads>
void BpeCuts<WholeChars>::whole_char_cuts(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at) const {
  auto decode = [&](uint32_t from, uint32_t& len) {
    if (from >= n) return len = 0, BridgeCuts::kAlone;
    len = std::min(utf8_length(s[from]), n - from);
    return code_point(s + from, utf8_length(s[from]), n - from);
  };
  // The cuts go to a block on the stack, each boundary written and counted only if cut: no
  // branch on the answer, which comes every few characters in no pattern.
  constexpr uint32_t kBlock = 64;
  uint32_t block[kBlock], count = 0;
  uint32_t xl, yl, zl = 0;
  uint32_t w = BridgeCuts::kAlone, x = decode(0, xl), y = decode(xl, yl), z = BridgeCuts::kAlone;
  for (uint32_t p = xl; p < n; p += yl, yl = zl, w = x, x = y, y = z) {
    z = decode(p + yl, zl);
    // (refine: the part's boundaries all have a bridged pair, else find() had cut there)
    const bool bridged = kQuads ? bridges_.splits(w, x, y, z) : bridges_.bridged(x, y);
    // An unk waits for the next known character (byte-fallback bytes go before it; with
    // fuse_unk the next unk joins it): never a cut between two unknown characters.
    const bool waits = unk_waits_ && !symbols_.known_char(x) && !symbols_.known_char(y);
    block[count] = p;
    count += !bridged & !waits;
    if (count == kBlock) at.insert(at.end(), block, block + kBlock), count = 0;
  }
  at.insert(at.end(), block, block + count);
}

}  // namespace tagpipe
