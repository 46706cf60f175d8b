#include "pretokenize/regex/stage.h"

#include "pretokenize/regex/matcher.h"

namespace tagpipe::pretok {
namespace {

class RegexStage final : public Stage {
 public:
  RegexStage(regex::Program p, Behavior b, bool invert) : matcher_(std::move(p)), behavior_(b), invert_(invert) {}
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    // The matcher's memo and stack: per thread, since a stage is shared between threads
    // and pipeline.h's Scratch knows nothing of regexes.
    thread_local regex::MatchScratch ms;
    std::vector<Piece>& out = scratch.pieces_out;
    out.clear();
    Fold fold(behavior_, invert_, out);
    for (const Piece& piece : pieces) matcher_.split(text.bytes, piece.begin, piece.end, text.byte_mapped, fold, ms);
    pieces.swap(out);
  }

 private:
  regex::Matcher matcher_;
  Behavior behavior_;
  bool invert_;
};

}  // namespace

std::unique_ptr<Stage> make_regex_stage(const StageSpec& spec) {
  return std::make_unique<RegexStage>(regex::Program::decode(spec.program), spec.behavior, spec.invert);
}

}  // namespace tagpipe::pretok
