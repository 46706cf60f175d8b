// The block state machines (pretokenize/fsm/blocks.h) against the scalar ones, the
// specification, on each kernel: every regex family must cut exactly where its scalar
// state machine does.
#include "pretokenize/fsm/patterns.h"

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

}  // namespace tagpipe::selftest
