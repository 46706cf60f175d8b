#include "model/bridge_cuts.h"

#include <cmath>

namespace tagpipe {

void BridgeCuts::add(const uint8_t* t, uint32_t n) {
  for (uint32_t k = 1; k < n; k++) {
    const uint64_t sig = signature(k >= 2 ? t[k - 2] : kStart, t[k - 1], t[k], k + 2 <= n ? t[k + 1] : kEnd);
    set(sig >> (64 - kBits));
    if ((t[k] & 0xC0) == 0x80 || (t[k] | t[k - 1]) < 0x80) continue;
    // Before a character outside ASCII, or after one: their pair when t holds both whole,
    // else (t starts or ends inside one of them) the signature, among the partial ones.
    uint32_t x, y;
    if (whole_pair(t, n, k, x, y)) pending_.push_back(pair_key(x, y));
    else partial_sigs_.push_back(sig);
  }
}

void BridgeCuts::add_merge(const uint8_t* a, uint32_t an, const uint8_t* b, uint32_t bn) {
  uint32_t i = an - 1;
  while (i > 0 && (a[i] & 0xC0) == 0x80) i--;
  const uint32_t x = code_point(a + i, utf8_length(a[i]), an - i);
  const uint32_t yl = utf8_length(b[0]), y = code_point(b, yl, bn);
  if (x == kNoChar || y == kNoChar) return;  // (not UTF-8: it matches no text)
  uint32_t w = kAlone, z = kAlone;           // (a context that is not a whole character: as if alone)
  if (i > 0) {
    uint32_t j = i - 1;
    while (j > 0 && (a[j] & 0xC0) == 0x80) j--;
    const uint32_t c = code_point(a + j, utf8_length(a[j]), i - j);
    if (c != kNoChar && j + utf8_length(a[j]) == i) w = c;
  }
  if (yl < bn) {
    const uint32_t c = code_point(b + yl, utf8_length(b[yl]), bn - yl);
    if (c != kNoChar) z = c;
  }
  pending_.push_back(pair_key(x, y));
  pending_quads_.push_back(quad_hash(pair_key(x, y) * kQuadMix, w, z));
}

void BridgeCuts::finish() {
  // 64 bits per pair or more (a false "bridged" costs a cut), up to 256 KiB (past that the
  // probes miss L2).
  char_bits_ = filter_bits(pending_, 64, 21, [](uint64_t k) { return k * 0x9E3779B97F4A7C15ULL; });
  pairs_.assign(size_t(1) << (char_bits_ - 6), 0);
  for (uint64_t k : pending_) pairs_[word(k)] |= mask(k);
  std::vector<uint64_t>().swap(pending_);
  // The quads: 32 bits each or more, up to 512 KiB.  Only the parts that missed the word
  // cache ask them.
  if (!pending_quads_.empty()) {
    const int bits = filter_bits(pending_quads_, 32, 22, [](uint64_t h) { return h; });
    quad_shift_ = 64 - (bits - 6);
    quads_.assign(size_t(1) << (bits - 6), 0);
    for (uint64_t h : pending_quads_) quads_[h >> quad_shift_] |= quad_mask(h);
    std::vector<uint64_t>().swap(pending_quads_);
  }
  // (ByteLevel: the few results that start or end inside a character, 256 bits each)
  partial_bits_ = 12;
  while (partial_bits_ < 22 && (size_t(1) << partial_bits_) < partial_sigs_.size() * 256) partial_bits_++;
  partial_.assign(partial_sigs_.empty() ? 0 : size_t(1) << (partial_bits_ - 6), 0);
  for (uint64_t sig : partial_sigs_) {
    const uint64_t h = sig >> (64 - partial_bits_);
    partial_[h >> 6] |= uint64_t(1) << (h & 63);
  }
  std::vector<uint64_t>().swap(partial_sigs_);
}

// A Bloom filter's size, 2^bits bits: `per` bits or more for each distinct key, from 2^12
// up to 2^cap.  The keys are counted by the share of bits their hashes set in a trial
// bitset (linear counting: sorting a large vocabulary's pairs would cost load time).
template <class Hash>
int BridgeCuts::filter_bits(const std::vector<uint64_t>& keys, double per, int cap, Hash hash) {
  constexpr int kTrial = 22;
  std::vector<uint64_t> trial(size_t(1) << (kTrial - 6), 0);
  for (uint64_t k : keys) {
    const uint64_t t = hash(k) >> (64 - kTrial);
    trial[t >> 6] |= uint64_t(1) << (t & 63);
  }
  size_t ones = 0;
  for (uint64_t w : trial) ones += size_t(__builtin_popcountll(w));
  const double m = double(size_t(1) << kTrial);
  const double distinct = ones < trial.size() * 64 ? -m * std::log(1 - double(ones) / m) : m;
  int bits = 12;
  while (bits < cap && double(size_t(1) << bits) < distinct * per) bits++;
  return bits;
}

// Whether the characters before and after t[k] (a character's first byte) are both whole
// in t[0..n): then x and y are their code points.
bool BridgeCuts::whole_pair(const uint8_t* t, uint32_t n, uint32_t k, uint32_t& x, uint32_t& y) {
  uint32_t i = k - 1;
  while (i > 0 && (t[i] & 0xC0) == 0x80) i--;
  const uint32_t xl = utf8_length(t[i]), yl = utf8_length(t[k]);
  if ((t[i] & 0xC0) == 0x80 || xl != k - i || k + yl > n) return false;
  for (uint32_t j = k + 1; j < k + yl; j++)
    if ((t[j] & 0xC0) != 0x80) return false;
  x = code_point(t + i, xl, xl), y = code_point(t + k, yl, yl);
  return true;
}

}  // namespace tagpipe
