// The block state machines (pretokenize/fsm/blocks.h, scan_blocks.h) against the scalar
// ones, the specification, on each kernel: every regex family must cut exactly where its
// scalar state machine does -- for the families that read the bytes (scan kernel), also
// with tags left for them to fill, on pieces, with every fold, at the end of a page.
#include "pretokenize/fsm/patterns.h"

#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include "pretokenize/fold.h"
#include "selftest/selftest.h"

namespace tagpipe::selftest {

// The block machines read the active kernel's window, so k is made active.
void check_patterns(const kernels::Kernel& k, bool quick) {
  kernels::set_active(k.name);
  for (const char* name : {"gpt2", "cl100k", "cl100k_digit_runs", "qwen2", "o200k", "deepseek_numbers", "deepseek_cjk",
                           "deepseek_words", "ascii_digit_triples"}) {
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
      for (size_t i = 0; same && i < want.size(); i++)
        same = want[i].begin == got[i].begin && want[i].end == got[i].end;
      if (c.ok && !same) {
        c.ok = false;
        c.why = "differs from the scalar machine on a " + std::to_string(text.size()) + "-byte text";
      }
    }
  }
}

namespace {

// The text at the end of a readable page with nothing mapped after it (where that can be
// arranged), so that a read past a piece's end would fault; else an ordinary copy.
struct PageEnd {
  uint8_t* base = nullptr;
  size_t size = 0;
  std::vector<uint8_t> copy;
  uint8_t* data = nullptr;
  explicit PageEnd(const std::vector<uint8_t>& text) {
#if defined(__linux__)
    const size_t page = size_t(sysconf(_SC_PAGESIZE)), pages = (text.size() + page - 1) / page + 1;
    void* p = mmap(nullptr, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED) {
      base = static_cast<uint8_t*>(p), size = (pages + 1) * page;
      mprotect(base + pages * page, page, PROT_NONE);
      data = base + pages * page - text.size();
      if (!text.empty()) std::memcpy(data, text.data(), text.size());
      return;
    }
#endif
    copy = text;
    data = copy.data();
  }
  PageEnd(const PageEnd&) = delete;
  PageEnd& operator=(const PageEnd&) = delete;
  ~PageEnd() {
#if defined(__linux__)
    if (base) munmap(base, size);
#endif
  }
};

bool same_pieces(const std::vector<pretok::Piece>& want, const std::vector<pretok::Piece>& got) {
  if (got.size() != want.size()) return false;
  for (size_t i = 0; i < got.size(); i++)
    if (got[i].begin != want[i].begin || got[i].end != want[i].end) return false;
  return true;
}

}  // namespace

// On kernel k, every family that fills its tags (Pattern::fills_tags) against its scalar
// state machine: with the tags all written and with room (poisoned with tags that are
// wrong: a read of a tag it did not write shows), on whole texts and on pieces of them,
// plain and not, at the end of a page.
void check_scan_patterns(const kernels::Kernel& k, bool quick) {
  kernels::set_active(k.name);
  const pretok::Behavior behaviors[] = {pretok::Behavior::Isolated, pretok::Behavior::Removed,
                                        pretok::Behavior::MergedWithPrevious, pretok::Behavior::Contiguous};
  for (const char* name : {"gpt2", "cl100k", "cl100k_digit_runs", "qwen2", "o200k"}) {
    const fsm::Pattern* p = fsm::find_pattern(name);
    Check c{k, alphabet(p->alphabet), std::string("scan pattern ") + name};
    if (!p->fills_tags) c.ok = false, c.why = "does not fill its tags";
    std::mt19937_64 rng(53);
    for (int rep = 0; rep < (quick ? 1500 : 15000) && c.ok; rep++) {
      const size_t n = rep < 261 ? size_t(rep) : rep % 7 == 0 ? rng() % 4000 : rng() % 400;
      const std::vector<uint8_t> text = scan_text(rng, n);
      const std::vector<uint8_t> tags = padded_tags(text, alphabet(p->alphabet));
      const PageEnd at_end(text);
      // a piece [b, e) of it, both at character starts (or the whole text)
      uint32_t b = 0, e = uint32_t(text.size());
      if (rng() % 3 == 0 && e > 0) {
        b = uint32_t(rng() % e), e = b + uint32_t(rng() % (e - b + 1));
        while (b > 0 && tags[64 + b] == 0) b--;
        while (e < text.size() && tags[64 + e] == 0) e++;
      }
      if (b == e) continue;
      std::vector<uint8_t> room(text.size() + 160);
      for (uint8_t& t : room) t = uint8_t(1 + rng() % (kScanTags - 1));
      const pretok::Behavior behavior = rng() % 2 ? pretok::Behavior::Isolated : behaviors[rng() % 4];
      const bool invert = behavior != pretok::Behavior::Isolated && rng() % 2;
      std::vector<pretok::Piece> want, full, lazy;
      pretok::Fold f0(behavior, invert, want), f1(behavior, invert, full), f2(behavior, invert, lazy);
      p->run_scalar(fsm::Cursor{tags.data() + 64, text.data(), e, false}, b, f0);
      p->run(fsm::Cursor{tags.data() + 64, at_end.data, e, false}, b, f1);
      p->run(fsm::Cursor{room.data() + 80, at_end.data, e, false, room.data() + 80}, b, f2);
      f0.finish(), f1.finish(), f2.finish();
      c.cases++;
      if (!same_pieces(want, full) || !same_pieces(want, lazy))
        c.ok = false, c.why = std::string(same_pieces(want, full) ? "with room" : "with tags") + ": differs on [" +
                              std::to_string(b) + ", " + std::to_string(e) + ") of a " + std::to_string(text.size()) +
                              "-byte text";
    }
  }
}

}  // namespace tagpipe::selftest
