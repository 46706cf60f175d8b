// The self-test's shared helpers: the tally, Check's report, the generators of test text.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "selftest/selftest.h"

namespace tagpipe::selftest {
namespace {

int g_passed = 0, g_failed = 0;

}  // namespace

void passed() { g_passed++; }
void failed() { g_failed++; }
int passed_count() { return g_passed; }
int failed_count() { return g_failed; }

const kernels::Kernel& scalar() { return *kernels::find("scalar"); }

Check::~Check() {
  std::printf("[%s] %-8s %-32s %8ld cases  %s%s\n", k.name, a.name, what.c_str(), cases,
              ok ? "ok" : "FAIL: ", why.c_str());
  ok ? passed() : failed();
}

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

const uint8_t kEdges[] = {0x00, 0x20, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                          0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF};
const int kNumEdges = sizeof(kEdges);

// Tags of `text` (64 zero bytes before, 80 after: the window reads up to 68 past a block start).
std::vector<uint8_t> padded_tags(const std::vector<uint8_t>& text, const Alphabet& a) {
  std::vector<uint8_t> tags(text.size() + 64 + 80, 0);
  std::vector<uint64_t> starts(start_words(text.size()) + 1);
  scalar().classify(text.data(), text.size(), a, tags.data() + 64, starts.data());
  return tags;
}

// Random valid UTF-8 drawn from characters of every class the pre-tokenizers tell apart.
std::vector<uint8_t> random_text(std::mt19937_64& rng, size_t chars) {
  static const uint32_t kChars[] = {
      'a',   'Z',    's',    't',    'r',    'e',     'v',    'm',  'l',    'd',    'S',    'T',   'R',
      'E',   'V',    'M',    'L',    'D',    '1',     '0',    '9',  '!',    '.',    '/',    '_',   '\'',
      ' ',   ' ',    ' ',    '\n',   '\r',   '\t',    0x0B,   0x0C, 0x85,   0xA0,   0x17F,  0xE9,  0x301,
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

// Text of short fragments where the regex families' alternatives meet: O runs and the
// newlines and slashes after them, marks after O and after letters, case changes,
// contractions, indentation.
std::vector<uint8_t> fragment_text(std::mt19937_64& rng, size_t fragments) {
  static const char* const kFragments[] = {
      ".", "..",           "/",        "//", "\n",  "\n/",    "\r\n", ".\n/", "\xCC\x81", "\xCC\x81\xCC\x81",
      "a", "ab",           "B",        "Bc", "AB",  " ",      "   ",  "\t",   "'s",       "'ll",
      "'", "\xE4\xB8\xAD", "\xCA\xB0", "1",  "123", "\n    ", "x",    "_",    "(",
  };
  std::vector<uint8_t> v;
  for (size_t k = 0; k < fragments; k++) {
    const char* f = kFragments[rng() % (sizeof(kFragments) / sizeof(kFragments[0]))];
    v.insert(v.end(), f, f + std::strlen(f));
  }
  return v;
}

// Texts for the scan checks: corpora-like (ascii_text, random_text, fragment_text), bytes
// drawn from the UTF-8 edge bytes (ill-formed sequences of every kind), and any bytes.
std::vector<uint8_t> scan_text(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> v;
  switch (rng() % 6) {
    case 0:
      v = ascii_text(rng, n);
      break;
    case 1:
      v = random_text(rng, n / 2 + 1);
      break;
    case 2:
      v = fragment_text(rng, n / 2 + 1);
      break;
    case 3:
      for (size_t i = 0; i < n; i++) v.push_back(rng() % 3 ? uint8_t("ab .\n'"[rng() % 6]) : kEdges[rng() % kNumEdges]);
      break;
    case 4:
      for (size_t i = 0; i < n; i++) v.push_back(uint8_t(rng()));
      break;
    default:
      while (v.size() < n) append_utf8(v, rng() % 2 ? uint32_t(rng() % 0x80) : uint32_t(0x80 + rng() % 0x2FF80));
  }
  v.resize(std::min(v.size(), n));  // (may cut a sequence: ill-formed, as it should be)
  return v;
}

}  // namespace tagpipe::selftest
