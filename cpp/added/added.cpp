#include "added/added.h"

#include <algorithm>
#include <cstring>

#include "alphabet_unicode.h"
#include "dispatch/kernels.h"
#include "kernels/classify/alphabet.h"

namespace tagpipe::added {
namespace {

bool is_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

uint32_t decode(const uint8_t* s, uint32_t i, uint32_t n) {
  const uint8_t b0 = s[i];
  const uint32_t len = b0 < 0x80 ? 1 : b0 < 0xE0 ? 2 : b0 < 0xF0 ? 3 : 4;
  if (i + len > n) return 0xFFFD;
  uint32_t cp = len == 1 ? b0 : b0 & (0xFF >> (len + 1));
  for (uint32_t k = 1; k < len; k++) cp = (cp << 6) | (s[i + k] & 0x3F);
  return cp;
}

int tag(uint32_t cp) { return alphabet(AlphabetId::unicode).lookup(cp); }
bool is_word(uint32_t cp) {  // the regex crate's \w
  using namespace tables::unicode;
  const int t = tag(cp);
  return t == Word || t == WordNumeric || t == PunctWord;
}
bool is_space(uint32_t cp) {  // the regex crate's \s
  using namespace tables::unicode;
  const int t = tag(cp);
  return t == Space || t == WsOther;
}
uint32_t char_before(const uint8_t* s, uint32_t i) {  // start of the character ending at i
  do --i;
  while (i > 0 && is_cont(s[i]));
  return i;
}
uint32_t char_after(const uint8_t* s, uint32_t i, uint32_t n) {
  do ++i;
  while (i < n && is_cont(s[i]));
  return i;
}

}  // namespace

Splitter::Splitter(std::vector<Token> tokens) : tokens_(std::move(tokens)) {
  trie_.emplace_back();
  for (int32_t t = 0; t < int32_t(tokens_.size()); t++) {
    const std::string& text = tokens_[t].text;
    if (text.empty()) continue;
    first_byte_[uint8_t(text[0])] = true;
    int32_t node = 0;
    for (unsigned char b : text) {
      int32_t c = child(node, b);
      if (c < 0) {
        c = int32_t(trie_.size());
        trie_.emplace_back();
        auto& nx = trie_[node].next;
        nx.insert(std::lower_bound(nx.begin(), nx.end(), std::make_pair(uint8_t(b), int32_t(-1))), {uint8_t(b), c});
      }
      node = c;
    }
    trie_[node].token = t;  // a later token with the same text replaces the earlier one
  }
  int firsts = 0;
  for (int b = 0; b < 256; b++)
    if (first_byte_[b]) {
      if (firsts < kFindBytes) first_bytes_[firsts] = uint8_t(b);
      firsts++, only_first_byte_ = b;
    }
  if (firsts != 1) only_first_byte_ = -1;
  find_first_ = firsts >= 2 && firsts <= kFindBytes;
  for (int i = firsts; find_first_ && i < kFindBytes; i++) first_bytes_[i] = first_bytes_[0];
}

int32_t Splitter::child(int32_t node, uint8_t b) const {
  const auto& nx = trie_[node].next;
  auto it = std::lower_bound(nx.begin(), nx.end(), std::make_pair(b, int32_t(-1)));
  return it != nx.end() && it->first == b ? it->second : -1;
}

int32_t Splitter::longest(const uint8_t* s, uint32_t n, uint32_t i, uint32_t* end) const {
  int32_t node = 0, found = -1;
  for (uint32_t k = i; k < n; k++) {
    node = child(node, s[k]);
    if (node < 0) break;
    if (trie_[node].token >= 0) found = trie_[node].token, *end = k + 1;
  }
  return found;
}

void Splitter::split(const uint8_t* s, uint32_t n, std::vector<Segment>& out) const {
  if (n == 0) {
    out.push_back(Segment::of_text(0, 0));
    return;
  }
  uint32_t start_offset = 0;
  const FindBytesFn find = kernels::active().find_bytes;
  for (uint32_t i = 0; i < n;) {
    if (only_first_byte_ >= 0) {
      const void* hit = std::memchr(s + i, only_first_byte_, n - i);
      if (!hit) break;
      i = uint32_t(static_cast<const uint8_t*>(hit) - s);
    } else if (!first_byte_[s[i]]) {
      // Text between added tokens is most of the input: 64 bytes a step with the find
      // kernel when a few bytes start the tokens (gemma-3: five, '\n' among them), else
      // eight bytes per branch (not a branch per byte).
      uint64_t hits = 0;
      if (find_first_)
        for (; i + 64 <= n && !(hits = find(s + i, first_bytes_)); i += 64) {
        }
      if (hits) {
        i += uint32_t(__builtin_ctzll(hits));
      } else {
        while (i + 8 <= n &&
               !(first_byte_[s[i]] | first_byte_[s[i + 1]] | first_byte_[s[i + 2]] | first_byte_[s[i + 3]] |
                 first_byte_[s[i + 4]] | first_byte_[s[i + 5]] | first_byte_[s[i + 6]] | first_byte_[s[i + 7]]))
          i += 8;
        while (i < n && !first_byte_[s[i]]) ++i;
        if (i == n) break;
      }
    }
    uint32_t stop = 0;
    const int32_t t = longest(s, n, i, &stop);
    if (t < 0) {
      ++i;
      continue;
    }
    const Token& tok = tokens_[t];
    uint32_t start = i;
    i = stop;  // the next search starts after this match, whatever happens to it
    if (tok.single_word) {
      const bool space_before = start == 0 || !is_word(decode(s, char_before(s, start), n));
      const bool space_after = stop == n || !is_word(decode(s, stop, n));
      if (!space_before || !space_after) continue;
    }
    if (tok.lstrip) {  // \s*$ of the text before the token, not before the last split
      uint32_t k = start;
      while (k > 0) {
        const uint32_t p = char_before(s, k);
        if (!is_space(decode(s, p, n))) break;
        k = p;
      }
      start = std::max(k, start_offset);
    }
    if (tok.rstrip)  // ^\s* of the text after the token
      while (stop < n && is_space(decode(s, stop, n))) stop = char_after(s, stop, n);
    if (start_offset < start) out.push_back(Segment::of_text(start_offset, start));
    out.push_back({tok.id, start, stop, false});
    start_offset = stop;
  }
  if (start_offset != n) out.push_back(Segment::of_text(start_offset, n));
}

}  // namespace tagpipe::added
