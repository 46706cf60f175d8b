// What the self-test's files share: the tally of checks, the Check that reports one, the
// scalar kernel every other one is compared with, and the generators of test text.
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "dispatch/kernels.h"

namespace tagpipe::selftest {

// Every check adds one: passed() or failed().
void passed();
void failed();
int passed_count();
int failed_count();

// The scalar kernel: the specification every other kernel is checked against.
const kernels::Kernel& scalar();

// One check of kernel k: its cases, and the reason of the first failure (a failure sets
// ok false and why); prints a line ("[k] alphabet what  N cases  ok" or "FAIL: why") and
// tallies it when it goes out of scope.
struct Check {
  Check(const kernels::Kernel& k_, const Alphabet& a_, std::string what_) : k(k_), a(a_), what(std::move(what_)) {}
  Check(const Check&) = delete;
  Check& operator=(const Check&) = delete;
  ~Check();
  const kernels::Kernel& k;
  const Alphabet& a;
  std::string what;
  long cases = 0;
  std::string why;
  bool ok = true;
};

// Bytes at which UTF-8 validity changes (kNumEdges of them).
extern const uint8_t kEdges[];
extern const int kNumEdges;

void append_utf8(std::vector<uint8_t>& out, uint32_t cp);
// The scalar kernel's tags of `text` with 64 zero bytes before and 80 after (the SIMD
// readers look up to 4 bytes before a position and 68 after a block start).
std::vector<uint8_t> padded_tags(const std::vector<uint8_t>& text, const Alphabet& a);
// Random valid UTF-8 drawn from characters of every class the pre-tokenizers tell apart.
std::vector<uint8_t> random_text(std::mt19937_64& rng, size_t chars);
// Text like English or code: mostly ASCII, the rarer classes now and then.
std::vector<uint8_t> ascii_text(std::mt19937_64& rng, size_t chars);
// Short fragments where the regex families' alternatives meet.
std::vector<uint8_t> fragment_text(std::mt19937_64& rng, size_t fragments);
// n bytes for the scan checks: any of the above, edge bytes, random bytes (ill-formed too).
std::vector<uint8_t> scan_text(std::mt19937_64& rng, size_t n);

// The checks, by area (one file each).  `quick`: fewer cases, for emulators.
void check_classify(const kernels::Kernel& k, const Alphabet& a, bool quick);  // classify.cpp
void check_boundaries(const kernels::Kernel& k, bool quick);                   // kernels.cpp
void check_window(const kernels::Kernel& k, bool quick);
void check_replace(const kernels::Kernel& k, bool quick);
void check_transcode(const kernels::Kernel& k, bool quick);
void check_marks(const kernels::Kernel& k, bool quick);
void check_find(const kernels::Kernel& k, bool quick);
void check_scan(const kernels::Kernel& k, bool quick);      // scan and cut_pieces
void check_scan_spec(bool quick);                           // the scalar scan vs classify
void check_patterns(const kernels::Kernel& k, bool quick);  // patterns.cpp
void check_scan_patterns(const kernels::Kernel& k, bool quick);
void check_merge_table(bool quick);  // model.cpp
void check_word_cache(bool quick);
void check_word_cache_seed(bool quick);
void check_bridge_cuts(bool quick);
void check_cjk_ids();

}  // namespace tagpipe::selftest
