// pybind-free self-test: every available kernel (classify, boundaries, window, replace, marks,
// find, transcode) must write exactly what the scalar kernel writes, for every alphabet; and
// on every kernel, every regex family's block state machine must cut exactly where its
// scalar state machine does.
//
// Built natively by CMake (target tagpipe_selftest) and, on x86 CI, cross-compiled for
// AArch64 and run under qemu-aarch64 so the NEON kernel is checked on every run
// (scripts/cross_neon.sh).  Prints one line per check and a closing
// "N passed, N failed" line; exits non-zero on any failure.
//
//   tagpipe_selftest [--quick]     --quick: fewer offsets/iterations (for emulators)
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "kernels/boundaries/boundaries.h"
#include "kernels/classify/classify.h"
#include "dispatch/kernels.h"
#include "pretokenize/fsm/patterns.h"
#include "pretokenize/fsm/runs.h"
#include "model/bridge_cuts.h"
#include "model/cjk_ids.h"
#include "model/merge_table.h"
#include "model/word_cache.h"
#include "pretokenize/fold.h"
#include "kernels/replace/replace.h"
#include "kernels/transcode/transcode.h"
#include "kernels/window/window.h"

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
  Check(const kernels::Kernel& k_, const Alphabet& a_, std::string what_) : k(k_), a(a_), what(std::move(what_)) {}
  const kernels::Kernel& k;
  const Alphabet& a;
  std::string what;
  long cases = 0;
  std::string why;
  bool ok = true;
  void run(const uint8_t* in, size_t n) {
    cases++;
    if (ok && !same(k, a, in, n, &why)) ok = false;
  }
  void run(const std::vector<uint8_t>& v) { run(v.data(), v.size()); }
  ~Check() {
    std::printf("[%s] %-8s %-32s %8ld cases  %s%s\n", k.name, a.name, what.c_str(), cases, ok ? "ok" : "FAIL: ",
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

// -- boundaries and window kernels against scalar -------------------------------------------

// Tags of `text` (64 zero bytes before, 80 after: the window reads up to 68 past a block start).
std::vector<uint8_t> padded_tags(const std::vector<uint8_t>& text, const Alphabet& a) {
  std::vector<uint8_t> tags(text.size() + 64 + 80, 0);
  std::vector<uint64_t> starts(start_words(text.size()) + 1);
  scalar::classify(text.data(), text.size(), a, tags.data() + 64, starts.data());
  return tags;
}

// Random valid UTF-8 drawn from characters of every class the pre-tokenizers tell apart.
std::vector<uint8_t> random_text(std::mt19937_64& rng, size_t chars) {
  static const uint32_t kChars[] = {
      'a', 'Z', 's', 't', 'r', 'e', 'v', 'm', 'l', 'd', 'S', 'T', 'R', 'E', 'V', 'M', 'L', 'D', '1', '0', '9',
      '!', '.', '/', '_', '\'', ' ', ' ', ' ', '\n', '\r', '\t', 0x0B, 0x0C, 0x85, 0xA0, 0x17F, 0xE9, 0x301,
      0x663, 0x4E2D, 0x3000, 0x2028, 0x200D, 0x1F600, 0xFF11, 0xB2, 0x2581, 0x3042, 0x30A2, 0x1C5, 0x2B0};
  std::vector<uint8_t> v;
  for (size_t k = 0; k < chars; k++) append_utf8(v, kChars[rng() % (sizeof(kChars) / sizeof(kChars[0]))]);
  return v;
}

// Text like English or code: mostly ASCII letters of both cases, spaces and punctuation, with
// the rarer classes now and then -- so that most 64-byte blocks are the clean case the
// block rules decide alone, not the dirty ones handed to the scalar machine.
std::vector<uint8_t> ascii_text(std::mt19937_64& rng, size_t chars) {
  static const char kCommon[] = "aaeeinorsstlldmTSAIWx      ..,,''//\n\n:;()=_-09";
  static const uint32_t kRare[] = {'\r', '\t', 0xA0, 0x85, 0xE9, 0x301, 0x4E2D, 0x2B0, 0x1C5, 0x17F, 0x663, 0x3000};
  std::vector<uint8_t> v;
  for (size_t k = 0; k < chars; k++) {
    if (rng() % 40 == 0) append_utf8(v, kRare[rng() % (sizeof(kRare) / sizeof(kRare[0]))]);
    else v.push_back(uint8_t(kCommon[rng() % (sizeof(kCommon) - 1)]));
  }
  return v;
}

void check_runs_kernels(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::unicode), "boundaries (every run splitter)"};
  std::mt19937_64 rng(99);
  std::vector<uint32_t> want(5000), got(5000);
  for (int rep = 0; rep < (quick ? 300 : 3000); rep++) {
    const std::vector<uint8_t> text = random_text(rng, rng() % 300);
    const std::vector<uint8_t> tags = padded_tags(text, alphabet(AlphabetId::unicode));
    for (const char* name : {"whitespace", "whitespace_split", "bert", "punctuation", "digits"}) {
      const uint8_t* remap = fsm::find_runs(name)->remap;
      // every piece start b at a character start, every end
      for (uint32_t b = 0; b < text.size(); b += 1 + uint32_t(rng() % 40)) {
        if (tags[64 + b] == 0) continue;
        const uint32_t e = b + 1 + uint32_t(rng() % (text.size() - b));
        c.cases++;
        const size_t n0 = scalar::boundaries(tags.data() + 64, b, e, remap, want.data());
        const size_t n1 = k.boundaries(tags.data() + 64, b, e, remap, got.data());
        if (c.ok && (n0 != n1 || !std::equal(want.begin(), want.begin() + n0, got.begin()))) {
          c.ok = false;
          c.why = std::string(name) + ": boundaries differ at b=" + std::to_string(b) + " e=" + std::to_string(e);
        }
      }
    }
  }
}

void check_window_kernel(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "window"};
  std::mt19937_64 rng(7);
  const uint8_t remap[16] = {0, 1, 2, 3, 4, 8, 16, 32, 64, 128, 5, 6, 7, 9, 10, 11};
  for (int rep = 0; rep < (quick ? 300 : 3000); rep++) {
    const std::vector<uint8_t> text = random_text(rng, 1 + rng() % 200);
    const std::vector<uint8_t> tags = padded_tags(text, alphabet(AlphabetId::regex));
    const uint32_t n = uint32_t(text.size());
    uint32_t b = uint32_t(rng() % n);
    while (b > 0 && tags[64 + b] == 0) b--;
    const uint32_t e = b + 1 + uint32_t(rng() % (n - b));
    for (uint32_t q = b; q < e; q += 64) {
      Window w0, w1;
      c.cases++;
      scalar::window(tags.data() + 64, q, b, e, remap, w0);
      k.window(tags.data() + 64, q, b, e, remap, w1);
      if (c.ok && std::memcmp(&w0, &w1, sizeof(Window)) != 0) {
        c.ok = false;
        c.why = "window differs at q=" + std::to_string(q) + " b=" + std::to_string(b) + " e=" + std::to_string(e);
      }
    }
  }
}

// The replace kernel: random bytes, dense with the replaced one, every replacement length
// (0 included: a deletion).
void check_replace_kernel(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "replace"};
  std::mt19937_64 rng(11);
  const uint8_t pool[] = {0x20, 0x20, 0x20, 0x00, 0x61, 0x80, 0xE2, 0xFF};
  for (int rep = 0; rep < (quick ? 2000 : 20000); rep++) {
    std::vector<uint8_t> in(rng() % 100);
    for (uint8_t& b : in) b = pool[rng() % sizeof pool];
    ReplaceSpec spec{pool[rng() % sizeof pool], uint8_t(rng() % 5), uint32_t(rng())};
    if (spec.size < 4) spec.word &= (uint32_t(1) << (8 * spec.size)) - 1;  // (zero above size)
    std::vector<uint8_t> out0(in.size() * 4 + kReplaceSlack, 0xEE), out1 = out0;
    c.cases++;
    const size_t n0 = size_t(scalar::replace_byte(in.data(), in.size(), spec, out0.data()) - out0.data());
    const size_t n1 = size_t(k.replace_byte(in.data(), in.size(), spec, out1.data()) - out1.data());
    if (c.ok && (n0 != n1 || std::memcmp(out0.data(), out1.data(), n0) != 0)) {
      c.ok = false;
      c.why = "replace differs on " + std::to_string(in.size()) + " bytes (lengths " + std::to_string(n0) + ", " +
              std::to_string(n1) + ")";
    }
  }
}

// The transcode kernel: code units of each width (1, 2, 4) drawn around every boundary of
// the UTF-8 forms (0x7F/0x80, 0x7FF/0x800, 0xFFFF/0x10000, the surrogates' edges), in runs of
// ASCII and not; the scalar kernel checked against append_utf8, each other one against it
// (the same bytes, or the same nullptr for a surrogate).
void check_transcode_kernel(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "transcode"};
  std::mt19937_64 rng(17);
  const uint32_t pool[] = {0x20, 'a', 0x7F, 0x80, 0xE9, 0xFF, 0x100, 0x43F, 0x7FF, 0x800, 0x4E2D, 0xD7FF,
                           0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF};
  const unsigned widths[] = {1, 2, 4};
  for (int rep = 0; rep < (quick ? 4000 : 40000); rep++) {
    const unsigned width = widths[rng() % 3];
    const uint32_t top = width == 1 ? 0xFF : width == 2 ? 0xFFFF : 0x10FFFF;
    const bool surrogates = rng() % 8 == 0;
    std::vector<uint32_t> cps(rng() % 80);
    for (uint32_t& cp : cps) {
      do cp = rng() % 2 ? uint32_t(0x20 + rng() % 0x5F) : pool[rng() % (sizeof pool / 4)];
      while (cp > top || (!surrogates && cp >= 0xD800 && cp <= 0xDFFF));
    }
    std::vector<uint32_t> storage(cps.size() + 1);  // (units aligned to their width, as a str's are)
    uint8_t* units = reinterpret_cast<uint8_t*>(storage.data());
    for (size_t i = 0; i < cps.size(); i++) std::memcpy(units + i * width, &cps[i], width);
    const void* in = units;
    std::vector<uint8_t> expect;
    bool valid = true;
    for (uint32_t cp : cps) {
      valid = valid && !(cp >= 0xD800 && cp <= 0xDFFF);
      append_utf8(expect, cp);
    }
    std::vector<uint8_t> out0(utf8_bound(cps.size(), width) + kTranscodeSlack, 0xEE), out1 = out0;
    const uint8_t* e0 = scalar::transcode(in, cps.size(), width, out0.data());
    const uint8_t* e1 = k.transcode(in, cps.size(), width, out1.data());
    c.cases++;
    const uint8_t* o0 = out0.data();
    const uint8_t* o1 = out1.data();
    const bool spec_ok = valid ? e0 && std::equal(o0, e0, expect.begin(), expect.end()) : !e0;
    const bool same_ok = e1 ? e0 && std::equal(o0, e0, o1, e1) : !e0;
    if (c.ok && !(spec_ok && same_ok)) {
      c.ok = false;
      c.why = std::string(spec_ok ? "differs from scalar" : "scalar differs from append_utf8") + " on " +
              std::to_string(cps.size()) + " units of width " + std::to_string(width);
    }
  }
}

// The marks kernel (MetaspaceRuns' block test) against scalar: buffers drawn from the
// mark's bytes (whole marks, runs of them, and its bytes alone), ASCII letters of both
// cases and the bytes around them, other ASCII and bytes with the top bit, every block
// offset; with no `after` bytes and with some (repeats included).
void check_marks_kernel(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "marks (MetaspaceRuns blocks)"};
  std::mt19937_64 rng(13);
  const uint8_t mark[3] = {0xE2, 0x96, 0x81};
  const uint8_t pool[] = {0xE2, 0x96, 0x81, 'a', 'z', 'A', 'Z', '@', '[', '`', '{', '>', '<', '.', ' ',
                          '\n', '0', 0x00, 0x7F, 0x80, 0xC3, 0xFF};
  const uint8_t afters[3][kAfterBytes] = {{'>', '>', '>', '>'}, {'a', '.', 0x81, ' '}, {0x00, 0xFF, 'Z', '<'}};
  for (int rep = 0; rep < (quick ? 3000 : 30000); rep++) {
    std::vector<uint8_t> buf(3 + 64 + 3 + 16);
    for (size_t i = 0; i < buf.size();) {
      if (rng() % 4 == 0) {  // a run of one to three marks
        for (int r = 1 + int(rng() % 3); r > 0 && i + 3 <= buf.size(); r--, i += 3) std::memcpy(&buf[i], mark, 3);
      } else {
        buf[i++] = pool[rng() % sizeof pool];
      }
    }
    const uint8_t* t = buf.data() + 3 + rng() % 16;
    const uint8_t* after = rng() % 4 == 0 ? nullptr : afters[rng() % 3];
    const MarkMasks want = scalar::marks(t, mark, after), got = k.marks(t, mark, after);
    c.cases++;
    if (c.ok && (want.runs != got.runs || want.pairs != got.pairs || want.after != got.after)) {
      c.ok = false;
      char why[160];
      std::snprintf(why, sizeof why, "masks differ: runs %016llx/%016llx pairs %016llx/%016llx after %016llx/%016llx",
                    (unsigned long long)want.runs, (unsigned long long)got.runs, (unsigned long long)want.pairs,
                    (unsigned long long)got.pairs, (unsigned long long)want.after, (unsigned long long)got.after);
      c.why = why;
    }
  }
}

// The find kernel (the added-token splitter's search) against scalar: every byte value in
// the set and in the text, sets with repeats, every offset.
void check_find_kernel(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "find (bytes in a set)"};
  std::mt19937_64 rng(17);
  for (int rep = 0; rep < (quick ? 3000 : 30000); rep++) {
    uint8_t set[kFindBytes];
    for (uint8_t& b : set) b = rng() % 3 == 0 ? uint8_t(rng()) : uint8_t("<\n\t\xE2[ "[rng() % 6]);
    std::vector<uint8_t> buf(64 + 16);
    for (uint8_t& b : buf) b = rng() % 4 == 0 ? set[rng() % kFindBytes] : uint8_t(rng());
    const uint8_t* t = buf.data() + rng() % 16;
    const uint64_t want = scalar::find_bytes(t, set), got = k.find_bytes(t, set);
    c.cases++;
    if (c.ok && want != got) {
      c.ok = false;
      char why[96];
      std::snprintf(why, sizeof why, "masks differ: %016llx / %016llx", (unsigned long long)want,
                    (unsigned long long)got);
      c.why = why;
    }
  }
}

// Text of short fragments where the regex families' alternatives meet: O runs and the
// newlines and slashes after them, marks after O and after letters, case changes,
// contractions, indentation.
std::vector<uint8_t> fragment_text(std::mt19937_64& rng, size_t fragments) {
  static const char* const kFragments[] = {
      ".", "..", "/", "//", "\n", "\n/", "\r\n", ".\n/", "\xCC\x81", "\xCC\x81\xCC\x81", "a", "ab", "B", "Bc",
      "AB", " ", "   ", "\t", "'s", "'ll", "'", "\xE4\xB8\xAD", "\xCA\xB0", "1", "123", "\n    ", "x", "_", "(",
  };
  std::vector<uint8_t> v;
  for (size_t k = 0; k < fragments; k++) {
    const char* f = kFragments[rng() % (sizeof(kFragments) / sizeof(kFragments[0]))];
    v.insert(v.end(), f, f + std::strlen(f));
  }
  return v;
}

// -- the block state machines against the scalar ones (the specification), on kernel k ---

void check_patterns(const kernels::Kernel& k, bool quick) {
  kernels::set_active(k.name);
  for (const char* name : {"gpt2", "cl100k", "cl100k_digit_runs", "qwen2", "o200k", "deepseek_numbers",
                           "deepseek_cjk", "deepseek_words", "ascii_digit_triples"}) {
    const fsm::Pattern* p = fsm::find_pattern(name);
    const Alphabet& a = alphabet(p->alphabet);
    Check c{k, a, std::string("pattern ") + name};
    std::mt19937_64 rng(2024);
    for (int rep = 0; rep < (quick ? 3000 : 60000); rep++) {
      const std::vector<uint8_t> text = rep % 10 == 5   ? ascii_text(rng, rng() % 600)
                                        : rep % 10 == 7 ? fragment_text(rng, rng() % 300)
                                        : rep % 10 == 0 ? random_text(rng, rng() % 400)
                                                        : random_text(rng, rng() % 14);
      if (text.empty()) continue;
      const std::vector<uint8_t> tags = padded_tags(text, a);
      std::vector<pretok::Piece> want, got;
      pretok::Fold f0(pretok::Behavior::Isolated, false, want), f1(pretok::Behavior::Isolated, false, got);
      const fsm::Cursor cur{tags.data() + 64, text.data(), uint32_t(text.size()), false};
      p->run_scalar(cur, 0, f0);
      f0.finish();
      p->run(cur, 0, f1);
      f1.finish();
      c.cases++;
      bool same = want.size() == got.size();
      for (size_t i = 0; same && i < want.size(); i++) same = want[i].begin == got[i].begin && want[i].end == got[i].end;
      if (c.ok && !same) {
        c.ok = false;
        c.why = "differs from the scalar machine on a " + std::to_string(text.size()) + "-byte text";
      }
    }
  }
}

// -- the BPE merge table (model/merge_table.h) against a map, in each of its slot forms ---

void check_merge_table(bool quick) {
  struct Shape {
    const char* name;
    uint32_t max_id, merges;
    bool affine;
  };
  // 64-bit slots with the result (llama-2), without it (GPT-2), ids so large that only the
  // 16-byte slots hold them, and a table of few slots.
  for (const Shape& shape : {Shape{"packed", 32000, 30000, false}, Shape{"affine", 50257, 50000, true},
                             Shape{"wide", 0x7FFFFFF0u, 20000, false}, Shape{"small", 40, 9, false}}) {
    std::mt19937_64 rng(7);
    std::vector<BpeMerge> merges;
    std::map<std::pair<uint32_t, uint32_t>, std::pair<uint32_t, uint32_t>> want;  // pair -> (rank, result)
    const uint32_t count = quick ? std::min(shape.merges, 5000u) : shape.merges;
    for (uint32_t rank = 0; rank < count; rank++) {
      BpeMerge m{uint32_t(rng() % shape.max_id), uint32_t(rng() % shape.max_id),
                 shape.affine ? rank + 256 : uint32_t(rng() % shape.max_id)};
      if (rank % 97 == 3 && !merges.empty()) m.left = merges[rank / 2].left, m.right = merges[rank / 2].right;  // listed twice
      merges.push_back(m);
      want[{m.left, m.right}] = {rank, m.result};  // (the last rank wins)
    }
    const MergeTable table(merges);
    int failures = 0;
    auto expect = [&](uint32_t left, uint32_t right) {
      const auto it = want.find({left, right});
      uint32_t rank = 0, result = 0;
      const bool found = table.find(left, right, rank, result);
      if (found != (it != want.end()) || (found && (rank != it->second.first || result != it->second.second)))
        failures++;
    };
    for (const BpeMerge& m : merges) expect(m.left, m.right);
    for (int k = 0; k < 200000; k++) expect(uint32_t(rng() % shape.max_id), uint32_t(rng() % shape.max_id));
    const bool wide = std::strcmp(shape.name, "wide") == 0;
    const bool ok = failures == 0 && table.compact() != wide;
    std::printf("[-] merge_table %-8s %u merges %s%s\n", shape.name, count, ok ? "ok" : "FAILED",
                table.compact() == wide ? " (wrong slot form)" : "");
    (ok ? g_passed : g_failed)++;
  }
}

// -- the word cache's tiers (model/word_cache.h) --------------------------------------------

// The encoder's lookup: the inline tiers, then the long one.  False on a miss.
bool cache_find(const WordCache& cache, const uint8_t* p, uint32_t n, std::vector<uint32_t>& ids) {
  uint32_t out[WordCache::kRoom];
  const WordCache::Probe q = WordCache::probe(p, n);
  uint32_t got = cache.find<false>(p, n, q, out);
  if (got - 1 < WordCache::kRoom) return ids.assign(out, out + got), true;
  const uint32_t* in;
  if (got == WordCache::kMiss || !cache.find_long(p, n, q, in, got)) return false;
  return ids.assign(in, in + got), true;
}

// Random pieces of 1..40 bytes with 0..20 ids (some past a medium entry's 21 bits), each
// copied to a page's end (the keys' exact reads) or followed by garbage (the fast reads
// mask it off): every one is found with its own ids.  Then a budget too small for them
// all: the cache is wiped as it fills, holds no more than its budget, and whatever it
// still answers is right.
void check_word_cache(bool quick) {
  std::mt19937_64 rng(11);
  std::map<std::vector<uint8_t>, std::vector<uint32_t>> want;
  const size_t count = quick ? 3000 : 30000;
  while (want.size() < count) {
    std::vector<uint8_t> key(1 + rng() % 40);
    for (auto& b : key) b = uint8_t(rng() % 4 ? 'a' + rng() % 6 : rng());  // (many share prefixes)
    std::vector<uint32_t> ids(rng() % 8 ? 1 + rng() % 12 : rng() % 21);
    for (auto& id : ids) id = uint32_t(rng() % 16 ? rng() % 262144 : rng() % 0xFFFFFFFFu);
    want.emplace(key, ids);
  }
  alignas(4096) static uint8_t page[2 * 4096];
  auto place = [&](const std::vector<uint8_t>& key, bool at_end) {
    uint8_t* p = at_end ? page + 4096 - key.size() : page + 100;
    for (size_t i = 0; i < 64; i++) page[100 + i] = uint8_t(rng());
    std::memcpy(p, key.data(), key.size());
    return p;
  };
  for (const size_t budget : {size_t(256) << 20, size_t(160) << 10}) {
    WordCache cache(budget);
    size_t k = 0, wrong = 0, missing = 0, over = 0;
    for (const auto& [key, ids] : want) {
      cache.insert(place(key, k++ % 3 == 0), uint32_t(key.size()), ids.data(), uint32_t(ids.size()));
      over += cache.used() > budget;
    }
    std::vector<uint32_t> got;
    for (const auto& [key, ids] : want) {
      const uint8_t* p = place(key, k++ % 2 == 0);
      if (!cache_find(cache, p, uint32_t(key.size()), got)) missing++;
      else wrong += got != ids;
    }
    const bool big = budget > (size_t(1) << 20);
    const bool ok = wrong == 0 && over == 0 && (big ? missing == 0 : missing < want.size());
    std::printf("[-] word_cache budget %zu KiB, %zu pieces: %zu wrong, %zu missing, %zu over budget %s\n",
                budget >> 10, want.size(), wrong, missing, over, ok ? "ok" : "FAILED");
    (ok ? g_passed : g_failed)++;
  }
}

// -- BPE cuts (model/bridge_cuts.h) against the merge results themselves ------------------

// Random merges over a pool of characters of every length, and random pieces: a boundary
// must be bridged where a merge could cross it (else a cut would change the BPE).  With
// whole characters: where some merge's left string ends and its right one starts, as they
// occur in the piece; few boundaries that no merge's quad (model/bridge_cuts.h) matches may
// be called bridged (the Bloom filters' false "maybe").  ByteLevel: wherever some merge
// result spans the boundary as it occurs in the piece.
void check_bridge_cuts(bool quick) {
  std::mt19937_64 rng(11);
  std::vector<uint32_t> pool;
  for (uint32_t c : {'a', 'b', 'x', ' ', '.'}) pool.push_back(c);
  for (uint32_t c = 0x430; c < 0x440; c++) pool.push_back(c);  // Cyrillic
  pool.push_back(0xE9), pool.push_back(0x3B1);                 // é, α
  for (uint32_t k = 0; k < 300; k++) pool.push_back(0x4E00 + k * 7);  // CJK
  pool.push_back(0x2581), pool.push_back(0x1F600);             // ▁, an emoji (not BMP)
  auto pick = [&]() {  // the first 24 characters (and ▁) far more often than the CJK tail
    const uint64_t r = rng() % 8;
    return r == 0 ? pool[rng() % pool.size()] : r == 1 ? 0x2581u : pool[rng() % 24];
  };
  auto text = [&](size_t chars) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i < chars; i++) append_utf8(out, pick());
    return out;
  };
  for (const bool whole : {true, false}) {
    std::vector<std::vector<uint8_t>> results;
    std::vector<std::pair<std::vector<uint8_t>, std::vector<uint8_t>>> merges;  // (whole characters)
    for (int k = 0; k < (whole ? 1500 : 3000); k++) {  // (whole: fewer, so that a pair's quads differ)
      if (!whole) {
        results.push_back(text(1 + rng() % 4));
        continue;
      }
      const size_t left = 1 + rng() % 3;
      merges.emplace_back(text(left), text(1 + rng() % (4 - left)));
    }
    for (uint32_t k = 0; k < 200; k++) {  // CJK characters in results: a larger pair bitset
      std::vector<uint8_t> a, b;
      append_utf8(a, pool[24 + k]);
      append_utf8(b, pool[rng() % 24]);
      if (whole) merges.emplace_back(a, b);
      a.insert(a.end(), b.begin(), b.end());
      if (!whole) results.push_back(a);
    }
    if (!whole)
      for (int k = 0; k < 300; k++) {  // ByteLevel: results that start or end inside a character
        const std::vector<uint8_t> t = text(3);
        const size_t from = rng() % t.size(), to = from + 1 + rng() % (t.size() - from);
        results.emplace_back(t.begin() + long(from), t.begin() + long(to));
      }
    BridgeCuts bridges;
    bridges.set_whole_chars(whole);
    for (const auto& r : results) bridges.add(r.data(), uint32_t(r.size()));
    for (const auto& [a, b] : merges) bridges.add_merge(a.data(), uint32_t(a.size()), b.data(), uint32_t(b.size()));
    bridges.finish();
    // The code points of t's characters.
    auto chars = [](const std::vector<uint8_t>& t, std::vector<uint32_t>& cps) {
      cps.clear();
      for (uint32_t k = 0; k < t.size(); k += utf8_length(t[k]))
        cps.push_back(code_point(t.data() + k, utf8_length(t[k]), uint32_t(t.size()) - k));
    };
    std::vector<uint32_t> cps, a_cps, b_cps;
    std::vector<std::array<uint32_t, 4>> quads;  // each merge's (w, x, y, z), kAlone for none
    for (const auto& [a, b] : merges) {
      chars(a, a_cps), chars(b, b_cps);
      const size_t al = a_cps.size();
      quads.push_back({al > 1 ? a_cps[al - 2] : BridgeCuts::kAlone, a_cps[al - 1], b_cps[0],
                       b_cps.size() > 1 ? b_cps[1] : BridgeCuts::kAlone});
    }
    int missed = 0, false_bridges = 0, pairs = 0, boundaries = 0;
    for (int rep = 0; rep < (quick ? 2000 : 20000); rep++) {
      const std::vector<uint8_t> s = text(2 + rng() % 12);
      const uint32_t n = uint32_t(s.size());
      chars(s, cps);
      uint32_t prev = 0, c = 0;  // s[p] is character c + 1
      for (uint32_t p = 1; p < n; p++) {
        if ((s[p] & 0xC0) == 0x80) continue;
        bool spanned = false, side_by_side = false;
        for (const auto& [a, b] : merges) {  // whole characters: a ends at p, b starts there
          if (a.size() <= p && b.size() <= n - p && std::memcmp(s.data() + p - a.size(), a.data(), a.size()) == 0 &&
              std::memcmp(s.data() + p, b.data(), b.size()) == 0)
            spanned = true;
        }
        for (const auto& [w, x, y, z] : quads)  // (side by side: a merge's quad matches)
          side_by_side |= x == cps[c] && y == cps[c + 1] && (w == BridgeCuts::kAlone || (c >= 1 && w == cps[c - 1])) &&
                          (z == BridgeCuts::kAlone || (c + 2 < cps.size() && z == cps[c + 2]));
        c++;
        for (const auto& r : results) {
          const uint32_t m = uint32_t(r.size());
          for (uint32_t o = p >= m ? p - m + 1 : 0; o < p && o + m <= n && !spanned; o++)
            spanned = std::memcmp(s.data() + o, r.data(), m) == 0;
          // (side by side: the two characters somewhere in r, x's last byte right before y's first)
          const uint32_t xl = p - prev, yl = utf8_length(s[p]);
          for (uint32_t o = 0; o + xl + yl <= m && !side_by_side; o++)
            side_by_side = (r[o] & 0xC0) != 0x80 && std::memcmp(r.data() + o, s.data() + prev, xl + yl) == 0;
        }
        const uint32_t x = code_point(s.data() + prev, p - prev, p - prev);
        const uint32_t y = code_point(s.data() + p, utf8_length(s[p]), n - p);
        // (whole characters: the pair, as Bpe::cuts asks, and then the quads, as Bpe::refine
        // asks inside a part -- neither may cut where a merge can split)
        const bool got = whole ? bridges.bridged(x, y) &&
                                     bridges.splits(c >= 2 ? cps[c - 2] : BridgeCuts::kAlone, x, y,
                                                    c + 1 < cps.size() ? cps[c + 1] : BridgeCuts::kAlone)
                               : bridges.bridged(s.data(), n, prev, p);
        missed += spanned && !got;
        false_bridges += whole && got && !side_by_side;
        pairs += whole && !side_by_side;
        boundaries++;
        prev = p;
      }
    }
    // (whole characters: a false "bridged" -- a cut not taken -- for at most about one pair in 10)
    const bool ok = missed == 0 && false_bridges * 10 <= pairs;
    std::printf("[-] bridge_cuts %-11s %d boundaries %s (%d unbridged spans", whole ? "whole chars" : "bytes",
                boundaries, ok ? "ok" : "FAILED", missed);
    if (whole) std::printf(", %d of %d unmatched quads falsely bridged", false_bridges, pairs);
    std::printf(")\n");
    (ok ? g_passed : g_failed)++;
  }
}

// -- the CJK characters' ids (model/cjk_ids.h) -----------------------------------------------

// A table built from a made-up encoder -- 0 to 4 ids per character, some past 21 bits --
// asked every three bytes there are, and two- and four-byte parts: a character of the range
// with 1..3 ids that fit gets exactly them, anything else (no ids, too many, too large,
// another lead byte, a byte that does not continue the character, another length) 0.
void check_cjk_ids() {
  auto made_up = [](uint32_t cp, std::vector<uint32_t>& ids) {
    for (uint32_t j = 0; j < cp % 5; j++) ids.push_back(cp % 13 == 0 && j == 1 ? 0x1FFFFF + cp % 2 : cp * 5 + j);
  };
  CjkIds table;
  table.build([&](const uint8_t* c, std::vector<uint32_t>& ids) { made_up(code_point(c, 3, 3), ids); });
  size_t wrong = 0, found = 0;
  std::vector<uint32_t> want;
  for (uint32_t x = 0; x < (1u << 24); x++) {
    const uint8_t c[4] = {uint8_t(x >> 16), uint8_t(x >> 8), uint8_t(x), 0x80};
    want.clear();
    const bool in_range = c[0] >= 0xE3 && c[0] <= 0xE9 && (c[1] & 0xC0) == 0x80 && (c[2] & 0xC0) == 0x80;
    if (in_range) made_up(code_point(c, 3, 3), want);
    bool fits = !want.empty() && want.size() <= 3;
    for (uint32_t id : want) fits &= id < 0x1FFFFF;
    uint32_t out[CjkIds::kIds];
    const uint32_t got = table.ids(c, 3, out);
    found += got != 0;
    wrong += fits ? got != want.size() || !std::equal(want.begin(), want.end(), out) : got != 0;
    if ((x & 0xFFF) == 0) wrong += table.ids(c, 2, out) != 0 || table.ids(c, 4, out) != 0;
  }
  const bool ok = wrong == 0 && found > 0;
  std::printf("[-] cjk_ids every 3-byte part: %zu answered, %zu wrong %s\n", found, wrong, ok ? "ok" : "FAILED");
  (ok ? g_passed : g_failed)++;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  std::printf("tagpipe selftest: kernels available here:");
  for (const auto* k : kernels::available()) std::printf(" %s", k->name);
  std::printf("\n");
  for (const auto* k : kernels::available()) {
    check_transcode_kernel(*k, quick);  // (scalar too: against append_utf8)
    if (std::strcmp(k->name, "scalar") != 0) {
      for (int id = 0; id < int(AlphabetId::count); id++) check_kernel(*k, alphabet(AlphabetId(id)), quick);
      check_runs_kernels(*k, quick);
      check_window_kernel(*k, quick);
      check_replace_kernel(*k, quick);
      check_marks_kernel(*k, quick);
      check_find_kernel(*k, quick);
    }
    check_patterns(*k, quick);  // the block machines read the active kernel's window
  }
  check_merge_table(quick);
  check_word_cache(quick);
  check_bridge_cuts(quick);
  check_cjk_ids();
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
