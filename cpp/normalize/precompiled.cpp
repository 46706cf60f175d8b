#include "normalize/precompiled.h"

#include <cstring>
#include <stdexcept>

#include "common/utf8.h"
#include "normalize/chars.h"
#include "normalize/normalize.h"

namespace tagpipe::normalize {
namespace {

// darts-clone unit fields, as spm_precompiled decodes them.
bool has_leaf(uint32_t u) { return (u >> 8) & 1; }
uint32_t value(uint32_t u) { return u & 0x7FFFFFFFu; }
uint32_t label(uint32_t u) { return u & 0x800000FFu; }
uint32_t offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }

}  // namespace

Charsmap::Charsmap(std::string_view blob) {
  if (blob.size() < 4) throw std::invalid_argument("precompiled_charsmap is shorter than its trie size");
  uint32_t trie_bytes;
  std::memcpy(&trie_bytes, blob.data(), 4);
  // spm_precompiled reads trie_bytes / 4 units and fails when the blob is shorter.
  const size_t count = trie_bytes / 4;
  if (blob.size() - 4 < count * 4) throw std::invalid_argument("precompiled_charsmap: trie size past the end");
  if (count == 0) throw std::invalid_argument("precompiled_charsmap: empty trie");
  units_.resize(count);
  std::memcpy(units_.data(), blob.data() + 4, count * 4);
  normalized_.assign(blob.substr(4 + count * 4));
  const size_t root = offset(units_[0]);
  for (unsigned b = 1; b < 256; b++) {  // (a NUL byte ends the search)
    const size_t pos = root ^ b;
    if (pos >= units_.size() || label(units_[pos]) == b) starts_[b >> 6] |= uint64_t(1) << (b & 63);
  }
  // Every character some key starts with: the trie's paths of whole UTF-8 characters.
  for (unsigned b = 1; b < 0xF5; b++) {
    if (b >= 0x80 && b < 0xC2) continue;  // continuation bytes and overlong leads start nothing
    const size_t pos = root ^ b;
    if (pos >= units_.size()) {  // (a malformed trie: the walk would fail -- be conservative)
      std::fill(char_starts_.begin(), char_starts_.end(), ~uint64_t(0));
      break;
    }
    if (label(units_[pos]) != b) continue;
    const int len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    mark_chars(pos ^ offset(units_[pos]), b < 0x80 ? b : b & (0x7F >> len), len - 1);
  }
  // ASCII pairs: a match from a needs a alone to be a key, or a key continuing with b.
  for (unsigned a = 1; a < 128; a++) {
    const size_t pos = root ^ a;
    if (pos >= units_.size() || label(units_[pos]) != a) {
      for (unsigned b = 0; b < 128; b++) ascii_pairs_[a * 128 + b] = 0;
      continue;
    }
    const size_t next = pos ^ offset(units_[pos]);
    if (has_leaf(units_[pos])) continue;  // a alone is a key: always a match (stays 1)
    ascii_pairs_[a * 128] = 0;            // a at the end of the text: no match
    for (unsigned b = 1; b < 128; b++)
      ascii_pairs_[a * 128 + b] = (next ^ b) >= units_.size() || label(units_[next ^ b]) == b;
  }
}

void Charsmap::mark_chars(size_t pos, uint32_t cp, int left) {
  if (left == 0) {
    if (cp < 0x110000) char_starts_[cp >> 6] |= uint64_t(1) << (cp & 63);
    return;
  }
  for (unsigned b = 0x80; b < 0xC0; b++) {
    const size_t next = pos ^ b;
    if (next >= units_.size()) {  // out of the array: first_match says -2 there (delegate): mark them all
      const uint32_t first = (cp << 6 | (b & 0x3F)) << (6 * (left - 1)), count = 1u << (6 * (left - 1));
      for (uint32_t c = first; c < first + count && c < 0x110000; c++) char_starts_[c >> 6] |= uint64_t(1) << (c & 63);
      continue;
    }
    if (label(units_[next]) == b) mark_chars(next ^ offset(units_[next]), cp << 6 | (b & 0x3F), left - 1);
  }
}

int64_t Charsmap::first_match(const uint8_t* key, uint32_t n, uint32_t& matched) const {
  size_t pos = offset(units_[0]);
  for (uint32_t i = 0; i < n; i++) {
    const uint8_t c = key[i];
    if (c == 0) break;
    pos ^= c;
    if (pos >= units_.size()) return -2;
    const uint32_t u = units_[pos];
    if (label(u) != c) return -1;
    pos ^= offset(u);
    if (has_leaf(u)) {
      if (pos >= units_.size()) return -2;
      matched = i + 1;
      // The first (shortest) match is the one transform uses; an offset past the strings
      // or inside a character would make the oracle panic.
      const uint32_t v = value(units_[pos]);
      if (v > normalized_.size() || (v < normalized_.size() && (uint8_t(normalized_[v]) & 0xC0) == 0x80)) return -2;
      return v;
    }
  }
  return -1;
}

std::string_view Charsmap::replacement(int64_t v) const {
  // normalized_at: from the offset to the next NUL (or the end).
  const std::string_view rest = std::string_view(normalized_).substr(size_t(v));
  return rest.substr(0, rest.find('\0'));
}

namespace {

namespace T = tables::norm;
enum class Boundary { Break, Join, Unknown };

// GB9c (Consonant [Extend Linker]* Linker [Extend Linker]* x Consonant) needs a linker in
// the run of extending characters that ends at s[..end), and a consonant before the run;
// true when both may be there.  (Linkers are Extend; a character with every flag -- one the
// tables cannot know -- may be the consonant.)
bool linker_before(const uint8_t* s, uint32_t end) {
  bool linker = false;
  for (int k = 0; k < 32 && end > 0; k++) {
    uint32_t b = end - 1, cp, len;
    while (b > 0 && (s[b] & 0xC0) == 0x80) --b;
    if (!decode(s, end, b, cp, len)) return true;
    const uint32_t f = props(cp).flags;
    if (linker && (f & T::kGbConsonant)) return true;
    if (f & T::kGbLinker) linker = true;
    else if (!(f & T::kGraphemeExtend)) return false;  // the run ends without a consonant after a linker
    end = b;
  }
  return end > 0;  // a very long run: assume the worst
}

// GB11 (ExtPict Extend* ZWJ x ExtPict) needs a pictographic before the ZWJ that ends at
// s[..zwj_end), with only Extend between; true when one may be there.  kGraphemeExtend is a
// superset of Extend (SpacingMark, ZWJ): walking on over those only answers "maybe" more
// often -- except a ZWJ, which GB11's Extend* never holds.
bool pictographic_before(const uint8_t* s, uint32_t zwj_end) {
  uint32_t end = zwj_end - 3;  // (U+200D is three bytes)
  for (int k = 0; k < 32 && end > 0; k++) {
    uint32_t b = end - 1, cp, len;
    while (b > 0 && (s[b] & 0xC0) == 0x80) --b;
    if (!decode(s, end, b, cp, len)) return true;
    const uint32_t f = props(cp).flags;
    if (f & T::kGbPictographic) return true;
    if (cp == 0x200D || !(f & T::kGraphemeExtend)) return false;
    end = b;
  }
  return end > 0;  // a very long run: assume the worst
}

// The grapheme boundary between characters a = s[..a_end) and b (UAX #29 as
// unicode-segmentation runs it), from the oracle-probed classes and the supersets of
// norm_props.h: Break or Join when certain, else Unknown.
Boundary boundary(const uint8_t* s, uint32_t a_end, uint32_t a, uint32_t b) {
  const uint32_t fa = props(a).flags, fb = props(b).flags;
  if (fa & T::kGraphemeControl) return a == '\r' && b == '\n' ? Boundary::Join : Boundary::Break;         // GB3, GB4
  if (fb & T::kGraphemeControl) return Boundary::Break;                                                   // GB5
  if (fb & T::kGraphemeExtend) return Boundary::Join;                                                     // GB9, GB9a
  const bool maybe = (fa & T::kGbPrepend) ||                                                              // GB9b
                     ((fa & T::kGbHangul) && (fb & T::kGbHangul)) ||                                      // GB6-8
                     ((fa & T::kGbRegional) && (fb & T::kGbRegional)) ||                                  // GB12/13
                     ((fa & T::kGbZwj) && (fb & T::kGbPictographic) && pictographic_before(s, a_end)) ||  // GB11
                     ((fb & T::kGbConsonant) && linker_before(s, a_end));                                 // GB9c
  return maybe ? Boundary::Unknown : Boundary::Break;                                                     // GB999
}

}  // namespace

// The origins of the oracle's transformations (precompiled.rs replace(), then
// NormalizedString::transform_range): each character written is a change -- 0: it takes the
// next original character's origin (of its first byte), 1: it is added, with the origin of
// the last byte taken, n < 0: it takes one and drops -n more.  A replacement shorter than
// what it replaces books the rest on its last character; an empty one books them on the
// character written before it (which may turn an added one into a taking one) -- at the
// start there is none, and every later character takes one ahead of its own.  So each
// character's origin is known once the next one is written (docs/design/offsets.md).
class Taker {
 public:
  Taker(const Source& src, std::vector<pretok::Origin>& org) : src_(src), org_(org) {}
  void write(uint32_t bytes, int change) {
    flush();
    bytes_ = bytes, change_ = change;
  }
  void drop(uint32_t chars) { change_ -= int(chars); }  // (lost while nothing was written)
  void flush() {
    if (bytes_ == 0) return;
    pretok::Origin o{0, 0};
    if (change_ <= 0 && at_ < src_.n) {
      o = src_.at(at_);
      at_ += utf8_length(src_.s[at_]);
      for (int k = change_; k < 0 && at_ < src_.n; k++) at_ += utf8_length(src_.s[at_]);
    } else if (change_ > 0 && at_ > 0) {
      o = src_.at(at_ - 1);
    }
    org_.insert(org_.end(), bytes_, o);
    bytes_ = 0, change_ = 0;
  }

 private:
  const Source& src_;
  std::vector<pretok::Origin>& org_;
  uint32_t at_ = 0;     // the next original character's first byte
  uint32_t bytes_ = 0;  // the last character written (0: none yet), and its change
  int change_ = 0;
};

// The oracle (tokenizers' Precompiled::normalize) walks extended grapheme clusters: a cluster
// of < 6 bytes that a key prefixes is replaced whole by that key's replacement (the first,
// shortest, match); any other cluster goes character by character.  Clusters only matter
// where a key starts, so this finds the cluster's extent there alone, and delegates the
// call when a boundary it needs is not certain (boundary() above).
bool precompiled_pass(const Charsmap& map, const Source& src, bool need_origin, std::string& dst,
                      std::vector<pretok::Origin>& org) {
  dst.reserve(src.n + 16);
  Taker taker(src, org);
  // Characters written as they are go out in runs: `run` is where the current one began.
  uint32_t run = 0;
  auto copy_run = [&](uint32_t end) {
    if (need_origin)
      for (uint32_t k = run; k < end; k += utf8_length(src.s[k])) taker.write(utf8_length(src.s[k]), 0);
    dst.append(reinterpret_cast<const char*>(src.s + run), end - run);
  };
  auto replace = [&](uint32_t begin, uint32_t end, std::string_view r) {
    copy_run(begin);
    if (need_origin) {
      const int old = int(utf8_chars(src.s + begin, end - begin));
      const int chars = int(utf8_chars(reinterpret_cast<const uint8_t*>(r.data()), r.size()));
      for (int k = 0, c = 0; k < int(r.size()); k += int(utf8_length(uint8_t(r[k]))), c++)
        taker.write(utf8_length(uint8_t(r[k])), c >= old ? 1 : 0);
      if (chars < old) taker.drop(uint32_t(old - chars));
    }
    dst.append(r);
    run = end;
  };
  uint32_t prev = 0;
  for (uint32_t i = 0, cp = 0, len = 1; i < src.n; prev = cp, i += len) {
    const uint8_t after = i + 1 < src.n ? src.s[i + 1] : 0;
    if (src.s[i] < 0x80 && after < 0x80 && !map.ascii_may_match(src.s[i], after)) {  // no key here: as is
      cp = src.s[i], len = 1;
      continue;
    }
    if (!decode(src.s, src.n, i, cp, len)) return false;
    if (!map.char_starts(cp)) continue;  // no key starts with this character: as is
    uint32_t matched = 0;
    const int64_t v = map.first_match(src.s + i, src.n - i, matched);
    if (v == -2) return false;
    if (v < 0) continue;
    const Boundary before = i == 0 ? Boundary::Break : boundary(src.s, i, prev, cp);
    if (before != Boundary::Join) {  // a cluster may start here: where would it end?
      uint32_t j = i + len, last = cp;
      while (j < src.n && j - i < 6) {
        uint32_t next, next_len;
        if (!decode(src.s, src.n, j, next, next_len)) return false;
        const Boundary b = boundary(src.s, j, last, next);
        if (b == Boundary::Unknown) return false;
        if (b == Boundary::Break) break;
        last = next, j += next_len;
      }
      if (j - i < 6 && matched <= j - i && j > i + len) {  // a whole cluster of 2+ characters
        // Only when a cluster starts here; else (and in every other case) the key is
        // replaced within this character, whatever the boundary before it.
        if (before == Boundary::Unknown) return false;
        replace(i, j, map.replacement(v));
        cp = last, len = j - i;
        continue;
      }
    }
    if (matched <= len) replace(i, i + len, map.replacement(v));  // a key within this character
  }
  copy_run(src.n);
  taker.flush();
  return true;
}

}  // namespace tagpipe::normalize
