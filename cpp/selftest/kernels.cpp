// The other kernel families against their scalar kernels: boundaries (every run splitter),
// window, replace, transcode, marks (MetaspaceRuns' block test), find, and scan with
// cut_pieces (the regex families' blocks from the bytes; the scalar scan also against
// classify, its definition).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "pretokenize/fsm/runs.h"
#include "selftest/selftest.h"

namespace tagpipe::selftest {

// The boundaries kernel, with each run splitter's remap: random text, every piece start at
// a character, random ends.
void check_boundaries(const kernels::Kernel& k, bool quick) {
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
        const size_t n0 = scalar().boundaries(tags.data() + 64, b, e, remap, want.data());
        const size_t n1 = k.boundaries(tags.data() + 64, b, e, remap, got.data());
        if (c.ok && (n0 != n1 || !std::equal(want.begin(), want.begin() + n0, got.begin()))) {
          c.ok = false;
          c.why = std::string(name) + ": boundaries differ at b=" + std::to_string(b) + " e=" + std::to_string(e);
        }
      }
    }
  }
}

// The window kernel: random text, a random piece, every block of it.
void check_window(const kernels::Kernel& k, bool quick) {
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
      scalar().window(tags.data() + 64, q, b, e, remap, w0);
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
void check_replace(const kernels::Kernel& k, bool quick) {
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
    const size_t n0 = size_t(scalar().replace_byte(in.data(), in.size(), spec, out0.data()) - out0.data());
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
void check_transcode(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "transcode"};
  std::mt19937_64 rng(17);
  const uint32_t pool[] = {0x20,   'a',    0x7F,   0x80,   0xE9,    0xFF,    0x100,    0x43F,  0x7FF,  0x800,  0x4E2D,
                           0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF};
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
    const uint8_t* e0 = scalar().transcode(in, cps.size(), width, out0.data());
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
void check_marks(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "marks (MetaspaceRuns blocks)"};
  std::mt19937_64 rng(13);
  const uint8_t mark[3] = {0xE2, 0x96, 0x81};
  const uint8_t pool[] = {0xE2, 0x96, 0x81, 'a', 'z',  'A', 'Z',  '@',  '[',  '`',  '{',
                          '>',  '<',  '.',  ' ', '\n', '0', 0x00, 0x7F, 0x80, 0xC3, 0xFF};
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
    const MarkMasks want = scalar().marks(t, mark, after), got = k.marks(t, mark, after);
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
void check_find(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "find (bytes in a set)"};
  std::mt19937_64 rng(17);
  for (int rep = 0; rep < (quick ? 3000 : 30000); rep++) {
    uint8_t set[kFindBytes];
    for (uint8_t& b : set) b = rng() % 3 == 0 ? uint8_t(rng()) : uint8_t("<\n\t\xE2[ "[rng() % 6]);
    std::vector<uint8_t> buf(64 + 16);
    for (uint8_t& b : buf) b = rng() % 4 == 0 ? set[rng() % kFindBytes] : uint8_t(rng());
    const uint8_t* t = buf.data() + rng() % 16;
    const uint64_t want = scalar().find_bytes(t, set), got = k.find_bytes(t, set);
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

// -- the scan kernel (kernels/scan/scan.h) and cut_pieces ---

namespace {

// The masks of every block of `text` from `scan`, `per_call` blocks at a time where the
// reads are in the text (as the driver calls it), the last ones from a zero-padded copy.
std::vector<ScanMasks> scan_blocks_of(ScanFn scan, const std::vector<uint8_t>& text, uint32_t per_call,
                                      std::vector<uint32_t>* carries = nullptr, uint32_t merge = 0) {
  const uint32_t n = uint32_t(text.size());
  std::vector<uint8_t> buf(text);
  buf.resize(n + 64 + kScanReads, 0xEE);  // (garbage past the end: never counted)
  std::vector<ScanMasks> out((n + 63) / 64);
  uint32_t carry = 0;
  for (uint32_t q = 0; q < n;) {
    uint32_t blocks = std::min<uint32_t>(per_call, (n - q + 63) / 64);
    if (n - q < kScanReads) blocks = 1;
    carry = scan(buf.data() + q, n - q, carry, blocks, merge, &out[q / 64]);
    q += 64 * blocks;
    if (carries) carries->push_back(carry);
  }
  return out;
}

bool same_masks(const ScanMasks& a, const ScanMasks& b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Kernel k's scan against scalar: every length 0..260, sequences across block ends, every
// block count per call, every set of merges.
void check_scan_masks(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "scan (tag masks)"};
  std::mt19937_64 rng(43);
  auto compare = [&](const std::vector<uint8_t>& text, uint32_t per_call) {
    std::vector<uint32_t> c0, c1;
    const uint32_t merge = uint32_t(rng() % 8);  // (every set of merges)
    const std::vector<ScanMasks> want = scan_blocks_of(scalar().scan, text, per_call, &c0, merge);
    const std::vector<ScanMasks> got = scan_blocks_of(k.scan, text, per_call, &c1, merge);
    c.cases++;
    for (size_t b = 0; b < want.size() && c.ok; b++)
      if (!same_masks(want[b], got[b]))
        c.ok = false, c.why = "block " + std::to_string(b) + " of " + std::to_string(text.size()) + " bytes";
    if (c.ok && c0 != c1) c.ok = false, c.why = "carries differ on " + std::to_string(text.size()) + " bytes";
  };
  for (int rep = 0; rep < (quick ? 2 : 10); rep++)
    for (size_t n = 0; n <= 260; n++) compare(scan_text(rng, n), 1 + uint32_t(rng() % 5));
  for (int rep = 0; rep < (quick ? 300 : 3000); rep++) compare(scan_text(rng, rng() % 3000), 1 + uint32_t(rng() % 20));
  std::vector<uint8_t> buf(200, 'x');  // edge-byte triples across the first block's end
  for (int pos = 59; pos <= 66; pos++)
    for (int i0 = 0; i0 < kNumEdges; i0++)
      for (int i1 = 0; i1 < kNumEdges; i1++)
        for (int i2 = 0; i2 < kNumEdges; i2 += quick ? 3 : 1) {
          std::fill(buf.begin(), buf.end(), 'x');
          buf[pos] = kEdges[i0], buf[pos + 1] = kEdges[i1], buf[pos + 2] = kEdges[i2], buf[pos + 3] = 0x80;
          compare(buf, 2);
          compare(std::vector<uint8_t>(buf.begin(), buf.begin() + pos + 2), 1);  // cut inside
        }
}

// Kernel k's cut_pieces against scalar: random cut masks of every density.
void check_cut_pieces(const kernels::Kernel& k, bool quick) {
  Check c{k, alphabet(AlphabetId::regex), "cut_pieces"};
  std::mt19937_64 rng(47);
  std::vector<uint32_t> want(2 * (64 * 20 + 9)), got(want.size());
  for (int rep = 0; rep < (quick ? 3000 : 30000); rep++) {
    const uint32_t blocks = 1 + uint32_t(rng() % 20), q0 = uint32_t(rng() % 100000), from = q0 - uint32_t(rng() % 50);
    std::vector<uint64_t> cuts(blocks);
    for (uint64_t& m : cuts) {
      const int density = int(rng() % 5);
      m = density == 0 ? 0 : density == 4 ? ~uint64_t(0) : rng();
      for (int d = 1; d < density; d++) m &= rng();
    }
    const uint32_t n0 = scalar().cut_pieces(cuts.data(), blocks, q0, from, want.data());
    const uint32_t n1 = k.cut_pieces(cuts.data(), blocks, q0, from, got.data());
    c.cases++;
    if (c.ok && (n0 != n1 || !std::equal(want.begin(), want.begin() + 2 * n0, got.begin())))
      c.ok = false, c.why = "pieces differ (" + std::to_string(blocks) + " blocks)";
  }
}

}  // namespace

void check_scan(const kernels::Kernel& k, bool quick) {
  check_scan_masks(k, quick);
  check_cut_pieces(k, quick);
}

// The scalar scan against the scalar classify (its definition): the starts and each
// start's tag.
void check_scan_spec(bool quick) {
  Check c{scalar(), alphabet(AlphabetId::regex), "scan spec vs classify"};
  std::mt19937_64 rng(41);
  for (int rep = 0; rep < (quick ? 2000 : 20000); rep++) {
    const std::vector<uint8_t> text = scan_text(rng, rng() % 300);
    const uint32_t n = uint32_t(text.size());
    std::vector<uint8_t> tags(n + 1);
    std::vector<uint64_t> starts(start_words(n) + 1);
    scalar().classify(text.data(), n, alphabet(AlphabetId::regex), tags.data(), starts.data());
    const std::vector<ScanMasks> got = scan_blocks_of(scalar().scan, text, 1 + uint32_t(rng() % 4));
    c.cases++;
    for (uint32_t i = 0; i < n && c.ok; i++) {
      const ScanMasks& m = got[i / 64];
      const uint64_t bit = uint64_t(1) << (i % 64);
      bool ok =
          ((m.start & bit) != 0) == (tags[i] != 0) && ((starts[i / 64] >> (i % 64)) & 1) == ((m.start & bit) != 0);
      for (int t = 0; t < kScanTags; t++) ok &= ((m.tag[t] & bit) != 0) == (t == tags[i] && t != 0);
      if (!ok) c.ok = false, c.why = "byte " + std::to_string(i) + " of a " + std::to_string(n) + "-byte text";
    }
  }
}

}  // namespace tagpipe::selftest
