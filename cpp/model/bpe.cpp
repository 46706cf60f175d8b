#include "model/bpe.h"

#include <algorithm>
#include <cstdio>

#include "pretok/bytelevel.h"

namespace tagpipe {
namespace {

constexpr uint32_t kMissing = StringTable::kMissing;

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

uint32_t utf8_length(uint8_t lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }

}  // namespace

Bpe::Bpe(StringTable vocab, const std::vector<BpeMerge>& merges, BpeOptions options)
    : vocab_(std::move(vocab)), opt_(std::move(options)) {
  size_t cap = 16;
  while (cap < merges.size() * 2) cap *= 2;
  merges_.assign(cap, MergeSlot{~uint64_t(0), 0, 0});
  merge_mask_ = cap - 1;
  for (uint32_t rank = 0; rank < merges.size(); rank++) {  // a later duplicate replaces the rank
    const BpeMerge& m = merges[rank];
    const uint64_t key = (uint64_t(m.left) << 32) | m.right;
    size_t i = mix64(key) & merge_mask_;
    while (merges_[i].key != ~uint64_t(0) && merges_[i].key != key) i = (i + 1) & merge_mask_;
    merges_[i] = MergeSlot{key, rank, m.result};
  }
  // Byte-keyed view of the entries made only of ByteLevel characters.
  vocab_.for_each([&](std::string_view token, uint32_t id) {
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
    byte_vocab_.put(bytes, id);
  });
  auto lookup = [&](const std::string& core, bool first, bool last) {
    std::string s = (first ? "" : opt_.prefix) + core + (last ? opt_.suffix : "");
    return vocab_.get(s);
  };
  for (int f = 0; f < 2; f++)
    for (int l = 0; l < 2; l++) {
      for (int b = 0; b < 256; b++) {
        std::string c;
        append_utf8(pretok::byte_char(uint8_t(b)), c);
        byte_char_id_[f][l][b] = lookup(c, f, l);
      }
      for (int b = 0; b < 128; b++) ascii_id_[f][l][b] = lookup(std::string(1, char(b)), f, l);
    }
  for (int b = 0; b < 256; b++) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_token_[b] = vocab_.get(name);
  }
}

void Bpe::push_symbol(uint32_t id, BpeScratch& sc) const {
  const int32_t i = int32_t(sc.symbols.size());
  sc.symbols.push_back({id, i - 1, i + 1, true});
}

// One character of the piece (merge_word's loop body): c[0..len) in the piece's content.
void Bpe::add_char(const uint8_t* c, uint32_t len, bool first, bool last, bool byte_mapped, BpeScratch& sc,
                   uint32_t& pending_unk) const {
  uint32_t id = kMissing;
  if (byte_mapped) id = byte_char_id_[!first][last][c[0]];
  else if (len == 1) id = ascii_id_[!first][last][c[0]];
  const bool fast = byte_mapped || len == 1;
  std::string& s = sc.text;
  if (!fast || id == kMissing) {  // the character's vocabulary string, with prefix / suffix
    s.clear();
    if (!first) s += opt_.prefix;
    if (byte_mapped) append_utf8(pretok::byte_char(c[0]), s);
    else s.append(reinterpret_cast<const char*>(c), len);
    if (last) s += opt_.suffix;
    if (!fast) id = vocab_.get(s);
  }
  if (id != kMissing) {
    if (pending_unk != kMissing) push_symbol(pending_unk, sc), pending_unk = kMissing;
    push_symbol(id, sc);
    return;
  }
  if (opt_.byte_fallback) {
    bool all = true;
    for (unsigned char b : s) all &= byte_token_[b] != kMissing;
    if (all) {  // (the oracle leaves a pending unk where it is: it follows these bytes)
      for (unsigned char b : s) push_symbol(byte_token_[b], sc);
      return;
    }
  }
  if (opt_.unk_id != BpeOptions::kNone) {
    if (pending_unk != kMissing && !opt_.fuse_unk) push_symbol(pending_unk, sc);
    pending_unk = opt_.unk_id;
  }
  // no unk token: the character is dropped
}

void Bpe::merge_all(BpeScratch& sc) const {
  auto& sym = sc.symbols;
  auto& heap = sc.heap;
  heap.clear();
  // Min-heap on (rank, pos): the lowest rank first, the leftmost among equal ranks.
  auto later = [](const BpeScratch::Candidate& a, const BpeScratch::Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.pos > b.pos;
  };
  auto push = [&](uint32_t pos) {
    const int32_t next = sym[pos].next;
    if (const MergeSlot* m = find_merge(sym[pos].id, sym[next].id)) {
      heap.push_back({m->rank, pos, m->result});
      std::push_heap(heap.begin(), heap.end(), later);
    }
  };
  for (uint32_t i = 0; i + 1 < sym.size(); i++) push(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const BpeScratch::Candidate top = heap.back();
    heap.pop_back();
    BpeScratch::Symbol& left = sym[top.pos];
    if (!left.alive || left.next >= int32_t(sym.size())) continue;
    const uint32_t next = uint32_t(left.next);
    // Stale unless the pair here still merges into the same token (the oracle's test).
    const MergeSlot* m = find_merge(left.id, sym[next].id);
    if (!m || m->result != top.result) continue;
    left.id = top.result;
    left.next = sym[next].next;
    sym[next].alive = false;
    if (left.next < int32_t(sym.size())) sym[left.next].prev = int32_t(top.pos);
    if (left.prev >= 0) push(uint32_t(left.prev));
    if (left.next < int32_t(sym.size())) push(top.pos);
  }
}

void Bpe::encode(const uint8_t* s, uint32_t n, bool byte_mapped, std::vector<uint32_t>& out,
                 BpeScratch& sc) const {
  if (n == 0) return;
  if (opt_.ignore_merges) {
    const uint32_t id = byte_mapped ? byte_vocab_.get(s, n) : vocab_.get(s, n);
    if (id != kMissing) {
      out.push_back(id);
      return;
    }
  }
  sc.symbols.clear();
  uint32_t pending_unk = kMissing;
  for (uint32_t i = 0; i < n;) {
    const uint32_t len = byte_mapped ? 1 : std::min(utf8_length(s[i]), n - i);
    add_char(s + i, len, i == 0, i + len == n, byte_mapped, sc, pending_unk);
    i += len;
  }
  if (pending_unk != kMissing) push_symbol(pending_unk, sc);
  if (sc.symbols.empty()) return;
  sc.symbols.back().next = int32_t(sc.symbols.size());
  merge_all(sc);
  for (const auto& x : sc.symbols)
    if (x.alive) out.push_back(x.id);
}

}  // namespace tagpipe
