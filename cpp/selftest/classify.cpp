// The classify kernels against the scalar one, for every alphabet: every scalar value at
// every offset, every length, the bytes where UTF-8 validity changes and soups of them.
#include <algorithm>
#include <cstdio>

#include "selftest/selftest.h"

namespace tagpipe::selftest {
namespace {

// Compares kernel k with scalar on `in`; reports the first difference. Returns true if equal.
bool same(const kernels::Kernel& k, const Alphabet& a, const uint8_t* in, size_t n, std::string* why) {
  std::vector<uint8_t> t0(n + 1, 0xEE), t1(n + 1, 0xEE);
  std::vector<uint64_t> s0(start_words(n) + 1, 0xDEAD), s1(start_words(n) + 1, 0xDEAD);
  scalar().classify(in, n, a, t0.data(), s0.data());
  k.classify(in, n, a, t1.data(), s1.data());
  for (size_t i = 0; i <= n; i++) {
    if (t0[i] != t1[i]) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "n=%zu: tag at byte %zu: scalar %d, %s %d (byte 0x%02X)", n, i, t0[i], k.name,
                    t1[i], i < n ? in[i] : 0);
      *why = buf;
      return false;
    }
  }
  for (size_t w = 0; w <= start_words(n); w++) {
    if (s0[w] != s1[w]) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "n=%zu: start word %zu: scalar %016llx, %s %016llx", n, w,
                    (unsigned long long)s0[w], k.name, (unsigned long long)s1[w]);
      *why = buf;
      return false;
    }
  }
  return true;
}

// A Check that runs classify on one buffer per case.
struct ClassifyCheck : Check {
  using Check::Check;
  void run(const uint8_t* in, size_t n) {
    cases++;
    if (ok && !same(k, a, in, n, &why)) ok = false;
  }
  void run(const std::vector<uint8_t>& v) { run(v.data(), v.size()); }
};

// Bytes at which UTF-8 validity changes.
const uint8_t kEdges[] = {0x00, 0x20, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                          0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
constexpr int kNumEdges = sizeof(kEdges);

// Every scalar value at every offset within a chunk: all code points in order behind a
// prefix of 0..63 ASCII bytes, so each one lands on each offset mod 64 once.
void every_scalar_at_every_offset(const kernels::Kernel& k, const Alphabet& a, bool quick) {
  ClassifyCheck c{k, a, "all scalars x 64 offsets"};
  std::vector<uint8_t> all;
  for (uint32_t cp = 0; cp < 0x110000; cp++)
    if (cp < 0xD800 || cp > 0xDFFF) append_utf8(all, cp);
  for (int shift = 0; shift < 64; shift += quick ? 7 : 1) {
    std::vector<uint8_t> buf(size_t(shift), 'a');
    buf.insert(buf.end(), all.begin(), all.end());
    c.run(buf);
  }
}

// Every length 0..260 (the tail path, 0 to 4 chunks) of random valid and invalid text.
void every_length(const kernels::Kernel& k, const Alphabet& a, bool quick, std::mt19937_64& rng) {
  ClassifyCheck c{k, a, "every length 0..260"};
  for (int rep = 0; rep < (quick ? 3 : 20); rep++) {
    for (size_t n = 0; n <= 260; n++) {
      std::vector<uint8_t> v;
      while (v.size() < n) {
        const int kind = int(rng() % 4);
        if (kind == 0) v.push_back(uint8_t(rng()));
        else
          append_utf8(v, kind == 1   ? uint32_t(rng() % 0x80)
                         : kind == 2 ? uint32_t(0x80 + rng() % 0xFF80)
                                     : uint32_t(0x10000 + rng() % 0x100000));
      }
      v.resize(n);  // may cut a sequence; the 3-byte branch may encode surrogates: both ill-formed
      c.run(v);
    }
  }
}

// Every pair and triple of edge bytes, and every quadruple, straddling a chunk boundary.
void edge_tuples(const kernels::Kernel& k, const Alphabet& a, bool quick) {
  ClassifyCheck c{k, a, "edge-byte tuples at 60..67"};
  std::vector<uint8_t> buf(140, 'x');
  for (int pos = 60; pos <= 67; pos += quick ? 3 : 1) {
    for (int i0 = 0; i0 < kNumEdges; i0++)
      for (int i1 = 0; i1 < kNumEdges; i1++)
        for (int i2 = 0; i2 < kNumEdges; i2++) {
          std::fill(buf.begin(), buf.end(), 'x');
          buf[pos] = kEdges[i0], buf[pos + 1] = kEdges[i1], buf[pos + 2] = kEdges[i2];
          c.run(buf);
          if (!quick && pos == 62)
            for (int i3 = 0; i3 < kNumEdges; i3++) {
              buf[pos + 3] = kEdges[i3];
              c.run(buf);
            }
          c.run(buf.data(), size_t(pos + 2));  // cut inside the tuple: truncated sequences
        }
  }
}

// Random bytes drawn from the edge bytes and continuation bytes, long buffers.
void edge_soup(const kernels::Kernel& k, const Alphabet& a, bool quick, std::mt19937_64& rng) {
  ClassifyCheck c{k, a, "random edge-byte soup"};
  for (int rep = 0; rep < (quick ? 50 : 2000); rep++) {
    std::vector<uint8_t> v(size_t(rng() % 700));
    for (auto& b : v) b = (rng() & 1) ? kEdges[rng() % kNumEdges] : uint8_t(0x80 + rng() % 0x40);
    c.run(v);
  }
}

}  // namespace

void check_classify(const kernels::Kernel& k, const Alphabet& a, bool quick) {
  std::mt19937_64 rng(12345);  // (one stream, shared by the random steps)
  every_scalar_at_every_offset(k, a, quick);
  every_length(k, a, quick, rng);
  edge_tuples(k, a, quick);
  edge_soup(k, a, quick, rng);
}

}  // namespace tagpipe::selftest
