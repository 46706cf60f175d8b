#include "model/bpe_symbols.h"

#include "pretokenize/bytelevel.h"

namespace tagpipe {
namespace {

constexpr uint32_t kScanMax = BpeMerger::kScanMax;

void append_utf8(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6)), out += char(0x80 | (cp & 63));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12)), out += char(0x80 | ((cp >> 6) & 63)), out += char(0x80 | (cp & 63));
  } else {
    out += char(0xF0 | (cp >> 18)), out += char(0x80 | ((cp >> 12) & 63));
    out += char(0x80 | ((cp >> 6) & 63)), out += char(0x80 | (cp & 63));
  }
}

std::string byte_char_text(int b) {
  std::string c;
  append_utf8(pretok::byte_char(uint8_t(b)), c);
  return c;
}

}  // namespace

// -- ByteLevel ----------------------------------------------------------------------------

BpeSymbols<ByteLevel>::BpeSymbols(const BpeVocab& v) : v_(v) {
  // The entries made only of ByteLevel characters, by the bytes they stand for.
  v.strings.for_each([&](std::string_view token, uint32_t id) {
    std::string bytes;
    const auto* s = reinterpret_cast<const uint8_t*>(token.data());
    for (size_t i = 0; i < token.size();) {
      const uint32_t len = utf8_length(s[i]);
      uint32_t cp = len == 1 ? s[i] : s[i] & (0xFF >> (len + 1));
      for (uint32_t k = 1; k < len; k++) cp = (cp << 6) | (s[i + k] & 0x3F);
      const int b = pretok::char_byte(cp);
      if (b < 0) return;
      bytes += char(b);
      i += len;
    }
    strings_.put(bytes, id);
  });
  for (int cont = 0; cont < 2; cont++)
    for (int last = 0; last < 2; last++)
      for (int b = 0; b < 256; b++) id_[cont][last][b] = v.lookup(byte_char_text(b), !cont, last);
  for (int b = 0; b < 256; b++) missing_count_ += missing_[b] = id_[1][0][b] == v.absent;
  if (v.shortcuts() && missing_count_ == 0) units_.build(v.merges, v.merger.table(), strings_, id_[1][0]);
}

bool BpeSymbols<ByteLevel>::small(const uint8_t* s, uint32_t n, uint32_t* ids, uint32_t& count) const {
  count = 0;
  if (!v_.shortcuts()) return false;
  if (!units_.empty()) return units_.symbols(s, n, id_[1][0], ids, kScanMax, count);
  if (n > kScanMax) return false;
  bool all_known = true;
  const uint32_t absent = v_.absent;  // (in a register: a store to ids could alias v_)
  for (uint32_t i = 0; i < n; i++) {
    ids[i] = id_[1][0][s[i]];  // (no prefix / suffix: every variant is the same)
    all_known &= ids[i] != absent;
  }
  count = n;
  return all_known;
}

bool BpeSymbols<ByteLevel>::large(const uint8_t* s, uint32_t n, std::vector<uint32_t>& initial,
                                  MergeScratch& sc) const {
  // Units where they are built (then every byte is a token), else bytes.
  uint32_t m = n;
  bool all_known = true;
  initial.resize(n);
  if (!units_.empty()) {
    units_.symbols(s, n, id_[1][0], initial.data(), n, m);
  } else {
    const uint32_t absent = v_.absent;
    for (uint32_t i = 0; i < n; i++) {
      initial[i] = id_[1][0][s[i]];
      all_known &= initial[i] != absent;
    }
  }
  if (!all_known) return false;
  sc.symbols.resize(m);
  for (uint32_t i = 0; i < m; i++) sc.symbols[i] = {initial[i], int32_t(i) - 1, int32_t(i) + 1, true};
  return true;
}

void BpeSymbols<ByteLevel>::append_char(const uint8_t* c, uint32_t, std::string& out) {
  append_utf8(pretok::byte_char(c[0]), out);
}

// -- WholeChars ---------------------------------------------------------------------------

BpeSymbols<WholeChars>::BpeSymbols(const BpeVocab& v) : v_(v) {
  for (int cont = 0; cont < 2; cont++)
    for (int last = 0; last < 2; last++)
      for (int b = 0; b < 128; b++) ascii_id_[cont][last][b] = v.lookup(std::string(1, char(b)), !cont, last);
  if (v.simple) {
    bmp_id_.assign(0x10000, v.absent);
    v.strings.for_each([&](std::string_view token, uint32_t id) {
      const auto* t = reinterpret_cast<const uint8_t*>(token.data());
      if (token.empty() || utf8_length(t[0]) != token.size() || token.size() > 3) return;
      uint32_t cp = token.size() == 1 ? t[0] : t[0] & (0xFF >> (token.size() + 1));
      for (size_t k = 1; k < token.size(); k++) cp = (cp << 6) | (t[k] & 0x3F);
      bmp_id_[cp] = id;
    });
  }
  // Pairs need no merge of a <0xXX> or unk token: such a symbol is no text, and a unit's
  // guards read the text.  Not for a ByteLevel vocabulary (every byte's character a token):
  // its pieces are ByteLevel ones.
  if (!v.shortcuts() || v.merges_take_bytes_or_unk) return;
  bool byte_level_vocab = true;
  for (int b = 0; b < 256 && byte_level_vocab; b++) byte_level_vocab = v.strings.get(byte_char_text(b)).has_value();
  if (!byte_level_vocab) pairs_.build(v.merges, v.merger.table(), v.strings, nullptr);
}

// One character as a BMP token, or (bytes = true) as its <0xXX> tokens when it has none and
// byte_fallback has them all; false when neither (no unk can be pending here: that case
// takes the model's general path).
bool BpeSymbols<WholeChars>::bmp_symbol(const uint8_t* c, uint32_t len, uint32_t left, uint32_t& id,
                                        bool& bytes) const {
  const uint32_t cp = bmp_code_point(c, len, left);
  if (cp == kNotBmp) return false;
  id = bmp_id_[cp];
  bytes = id == v_.absent && v_.opt.byte_fallback && v_.byte_fallback_ok(c, len);
  return id != v_.absent || bytes;
}

bool BpeSymbols<WholeChars>::small(const uint8_t* s, uint32_t n, uint32_t* ids, uint32_t& count) const {
  count = 0;
  if (!v_.shortcuts()) return false;
  uint32_t at[kScanMax + 1];  // where each symbol starts
  for (uint32_t i = 0; i < n;) {
    const uint32_t len = utf8_length(s[i]);
    uint32_t id = 0;
    bool bytes = false;
    if (!bmp_symbol(s + i, len, n - i, id, bytes)) return false;
    for (uint32_t k = 0; k < (bytes ? len : 1); k++) {
      if (count == kScanMax) return false;
      at[count] = i + k;
      ids[count++] = bytes ? v_.byte_token[s[i + k]] : id;
    }
    i += len;
  }
  at[count] = n;
  if (!pairs_.plain_empty()) pairs_.pair_up(s, n, at, ids, count);
  return true;
}

bool BpeSymbols<WholeChars>::large(const uint8_t* s, uint32_t n, std::vector<uint32_t>&, MergeScratch& sc) const {
  for (uint32_t i = 0; i < n;) {
    const uint32_t len = utf8_length(s[i]);
    uint32_t id = 0;
    bool bytes = false;
    if (!bmp_symbol(s + i, len, n - i, id, bytes)) return false;
    for (uint32_t k = 0; k < (bytes ? len : 1); k++) sc.push(bytes ? v_.byte_token[s[i + k]] : id);
    i += len;
  }
  return true;
}

}  // namespace tagpipe
