// pybind-free self-test: every available classify kernel must write exactly what the
// scalar kernel writes (tags and char-start words), for every alphabet.
//
// Built natively by CMake (target tagpipe_selftest) and, on x86 CI, cross-compiled for
// AArch64 and run under qemu-aarch64 so the NEON kernel is checked on every run
// (scripts/cross_neon.sh).  Prints one line per check and a closing
// "N passed, N failed" line; exits non-zero on any failure.
//
//   tagpipe_selftest [--quick]     --quick: fewer offsets/iterations (for emulators)
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "classify/classify.h"
#include "dispatch/kernels.h"

using namespace tagpipe;

namespace {

int g_passed = 0, g_failed = 0;

void append_utf8(std::vector<uint8_t>& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(uint8_t(cp));
  } else if (cp < 0x800) {
    out.push_back(uint8_t(0xC0 | (cp >> 6)));
    out.push_back(uint8_t(0x80 | (cp & 63)));
  } else if (cp < 0x10000) {
    out.push_back(uint8_t(0xE0 | (cp >> 12)));
    out.push_back(uint8_t(0x80 | ((cp >> 6) & 63)));
    out.push_back(uint8_t(0x80 | (cp & 63)));
  } else {
    out.push_back(uint8_t(0xF0 | (cp >> 18)));
    out.push_back(uint8_t(0x80 | ((cp >> 12) & 63)));
    out.push_back(uint8_t(0x80 | ((cp >> 6) & 63)));
    out.push_back(uint8_t(0x80 | (cp & 63)));
  }
}

// Compares kernel k with scalar on `in`; reports the first difference. Returns true if equal.
bool same(const kernels::Kernel& k, const Alphabet& a, const uint8_t* in, size_t n, std::string* why) {
  std::vector<uint8_t> t0(n + 1, 0xEE), t1(n + 1, 0xEE);
  std::vector<uint64_t> s0(start_words(n) + 1, 0xDEAD), s1(start_words(n) + 1, 0xDEAD);
  scalar::classify(in, n, a, t0.data(), s0.data());
  k.classify(in, n, a, t1.data(), s1.data());
  for (size_t i = 0; i <= n; i++) {
    if (t0[i] != t1[i]) {
      char buf[200];
      std::snprintf(buf, sizeof buf, "n=%zu: tag at byte %zu: scalar %d, %s %d (byte 0x%02X)", n, i,
                    t0[i], k.name, t1[i], i < n ? in[i] : 0);
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

struct Check {
  Check(const kernels::Kernel& k_, const Alphabet& a_, const char* what_) : k(k_), a(a_), what(what_) {}
  const kernels::Kernel& k;
  const Alphabet& a;
  const char* what;
  long cases = 0;
  std::string why;
  bool ok = true;
  void run(const uint8_t* in, size_t n) {
    cases++;
    if (ok && !same(k, a, in, n, &why)) ok = false;
  }
  void run(const std::vector<uint8_t>& v) { run(v.data(), v.size()); }
  ~Check() {
    std::printf("[%s] %-8s %-28s %8ld cases  %s%s\n", k.name, a.name, what, cases, ok ? "ok" : "FAIL: ",
                why.c_str());
    (ok ? g_passed : g_failed)++;
  }
};

// Bytes at which UTF-8 validity changes.
const uint8_t kEdges[] = {0x00, 0x20, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                          0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
constexpr int kNumEdges = sizeof(kEdges);

void check_kernel(const kernels::Kernel& k, const Alphabet& a, bool quick) {
  std::mt19937_64 rng(12345);
  // 1. Every scalar value at every offset within a chunk: all code points in order behind a
  //    prefix of 0..63 ASCII bytes, so each one lands on each offset mod 64 once.
  {
    Check c{k, a, "all scalars x 64 offsets"};
    std::vector<uint8_t> all;
    for (uint32_t cp = 0; cp < 0x110000; cp++)
      if (cp < 0xD800 || cp > 0xDFFF) append_utf8(all, cp);
    for (int shift = 0; shift < 64; shift += quick ? 7 : 1) {
      std::vector<uint8_t> buf(size_t(shift), 'a');
      buf.insert(buf.end(), all.begin(), all.end());
      c.run(buf);
    }
  }
  // 2. Every length 0..260 (the tail path, 0 to 4 chunks) of random valid and invalid text.
  {
    Check c{k, a, "every length 0..260"};
    for (int rep = 0; rep < (quick ? 3 : 20); rep++) {
      for (size_t n = 0; n <= 260; n++) {
        std::vector<uint8_t> v;
        while (v.size() < n) {
          const int kind = int(rng() % 4);
          if (kind == 0) v.push_back(uint8_t(rng()));
          else append_utf8(v, kind == 1 ? uint32_t(rng() % 0x80) : kind == 2 ? uint32_t(0x80 + rng() % 0xFF80)
                                                                  : uint32_t(0x10000 + rng() % 0x100000));
        }
        v.resize(n);  // may cut a sequence; the 3-byte branch may encode surrogates: both ill-formed
        c.run(v);
      }
    }
  }
  // 3. Every pair and triple of edge bytes, and every quadruple, straddling a chunk boundary.
  {
    Check c{k, a, "edge-byte tuples at 60..67"};
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
  // 4. Random bytes drawn from the edge bytes and continuation bytes, long buffers.
  {
    Check c{k, a, "random edge-byte soup"};
    for (int rep = 0; rep < (quick ? 50 : 2000); rep++) {
      std::vector<uint8_t> v(size_t(rng() % 700));
      for (auto& b : v) b = (rng() & 1) ? kEdges[rng() % kNumEdges] : uint8_t(0x80 + rng() % 0x40);
      c.run(v);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::printf("tagpipe selftest: kernels available here:");
  for (const auto* k : kernels::available()) std::printf(" %s", k->name);
  std::printf("\n");
  for (const auto* k : kernels::available()) {
    if (std::strcmp(k->name, "scalar") == 0) continue;
    for (int id = 0; id < int(AlphabetId::count); id++) check_kernel(*k, alphabet(AlphabetId(id)), quick);
  }
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
