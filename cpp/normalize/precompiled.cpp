#include "normalize/precompiled.h"

#include <cstring>
#include <stdexcept>

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
      if (v > normalized_.size() || (v < normalized_.size() && (uint8_t(normalized_[v]) & 0xC0) == 0x80))
        return -2;
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

// The oracle (tokenizers' Precompiled::normalize) walks extended grapheme clusters: a cluster
// of < 6 bytes that a key prefixes is replaced whole by that key's replacement; any other
// cluster goes character by character.  Only a cluster of two or more characters can make
// the two walks differ, and only when a key prefixes it -- that is, at a character where some
// key starts.  So this runs character by character and delegates when a key starts at a
// character that may share its cluster with the next one: the boundary between a and b is
// certainly a break (UAX #29) when a cannot hold a cluster open (kGraphemeHold) and b does
// not join whatever precedes it (kGraphemeExtend).
bool precompiled_pass(const Charsmap& map, const Source& src, bool need_origin, std::string& dst,
                      std::vector<pretok::Origin>& org) {
  namespace T = tables::norm;
  dst.reserve(src.n + 16);
  for (uint32_t i = 0, cp, len; i < src.n; i += len) {
    if (!decode(src.s, src.n, i, cp, len)) return false;
    uint32_t matched = 0;
    const int64_t v = map.first_match(src.s + i, src.n - i, matched);
    if (v == -2) return false;
    if (v < 0 || matched > len) {  // no key within this character: it stays
      if (v >= 0 && i + len < src.n) {
        uint32_t next, next_len;
        if (!decode(src.s, src.n, i + len, next, next_len)) return false;
        if ((props(cp).flags & T::kGraphemeHold) || (props(next).flags & T::kGraphemeExtend)) return false;
      }
      dst.append(reinterpret_cast<const char*>(src.s + i), len);
      if (need_origin) org.insert(org.end(), len, src.at(i));
      continue;
    }
    if (i + len < src.n) {
      uint32_t next, next_len;
      if (!decode(src.s, src.n, i + len, next, next_len)) return false;
      if ((props(cp).flags & T::kGraphemeHold) || (props(next).flags & T::kGraphemeExtend)) return false;
    }
    const std::string_view r = map.replacement(v);
    dst.append(r);
    if (need_origin) org.insert(org.end(), r.size(), src.at(i));
  }
  return true;
}

}  // namespace tagpipe::normalize
