// A native pre-tokenizer: the stages of a tokenizer.json "pre_tokenizer" section (a
// Sequence flattened), each run on every piece the previous stage produced.
//
// The Python plan (tagpipe/plan/pre_tokenizers.py) decides what is native and builds
// StageSpecs; this side trusts them.  PreTokenizer is immutable and shared between threads; every call
// brings its own Scratch.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/classify/alphabet.h"
#include "pretokenize/fold.h"
#include "pretokenize/text.h"

namespace tagpipe::pretok {

struct StageSpec {
  enum class Kind : uint8_t {
    Pattern,        // Split with a known regex family (`name`), behavior, invert
    Literal,        // Split with a String pattern (`literal`), behavior, invert; CharDelimiterSplit
    Runs,           // a class-run splitter `name`: whitespace, whitespace_split, bert, punctuation, digits
    ByteLevel,      // add_prefix_space, use_regex
    Metaspace,      // literal = replacement (one character), prepend, split
    FixedLength,    // length
    Scripts,        // UnicodeScripts
    MetaspaceRuns,  // a cut before each run of `literal` (the mark), unless a guard token could
                    // span it (`guards`: the vocabulary's crossing pieces), and between the
                    // ASCII pairs `pairs` marks (128 x 128 bytes, x * 128 + y)
    Regex,          // Split with a compiled regex (`program`, pretokenize/regex/program.h), behavior, invert
  };
  enum class Prepend : uint8_t { Always, First, Never };

  Kind kind = Kind::Pattern;
  std::string name;
  std::string literal;
  Behavior behavior = Behavior::Isolated;
  bool invert = false;
  bool add_prefix_space = false, use_regex = true;
  Prepend prepend = Prepend::Always;
  bool split = true;
  uint32_t length = 5;
  std::vector<std::string> guards;
  std::vector<uint32_t> program;  // Regex: tagpipe/plan/regex/compile.py's words
  std::string pairs;              // MetaspaceRuns: empty, or 16384 bytes, nonzero where a cut between x and y is proven
};

// Per-call working memory: tag buffers (one per alphabet, padded for the SIMD readers) and
// piece vectors, reused across calls.
class Scratch {
 public:
  // Tags of `text` in alphabet `id` (computed on first use after reset()).
  const uint8_t* tags(const Text& text, AlphabetId id);
  // Room for those tags, not computed, for a pattern that writes the ones it reads
  // (fsm::Pattern::fills_tags); nullptr when tags() has them already.
  uint8_t* tag_room(const Text& text, AlphabetId id);
  void reset() { valid_ = 0; }
  // The call's input: what a text that was never rewritten indexes.
  const uint8_t* input = nullptr;
  uint32_t input_size = 0;
  uint32_t origin_base = 0;
  // Set by the caller: nobody reads the pieces' offsets (encode wants ids).  A stage that
  // rewrites the text then writes no origins for it, unless a later stage reads them
  // (origins_unread, set by PreTokenizer::run for the stage at work).
  bool offsets_unused = false;
  bool origins_unread = false;
  std::vector<Piece> pieces_out;
  std::vector<uint32_t> cuts;
  std::vector<uint8_t> flags;  // a byte per piece between two passes of a stage (Metaspace)
  std::vector<uint64_t> bits;  // a bit per byte of the text (Metaspace: its ' ' and mark bytes)
  // Room for a stage that writes pieces in place (MetaspaceRuns): its size only grows, so the
  // room is not zero-filled again on every call (resize would fill a piece per byte).
  std::vector<Piece> room;

 private:
  static constexpr size_t kPad = 80;  // the window reads 4 bytes before and 68 after a block start
  std::vector<uint8_t> buf_[int(AlphabetId::count)];
  std::vector<uint64_t> starts_;
  unsigned valid_ = 0;  // bit per alphabet
};

class Stage {
 public:
  virtual ~Stage() = default;
  // Replaces `pieces` (over `text`) by their sub-pieces; may replace `text`.
  virtual void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const = 0;
  // The model cuts a long piece itself wherever a cut is exact (Bpe::cuts): a stage whose
  // cuts only serve speed may leave a piece to it (MetaspaceRuns: text mostly outside ASCII).
  virtual void model_cuts(bool) {}
  // Whether every piece it leaves is non-empty when every piece it is given is: then the
  // pass that drops empty pieces after it is not needed.
  virtual bool keeps_nonempty() const { return false; }
};

// Throws std::invalid_argument for a spec this build cannot run.
std::unique_ptr<Stage> make_stage(const StageSpec& spec);

struct PreTokenized {
  Text text;  // the content the pieces index (the input unless rewritten)
  std::vector<Piece> pieces;
  // The input bytes [begin, end) a piece came from: whole characters, as Hugging Face's
  // alignments give them.
  Origin origin(const Piece& p, const uint8_t* input, uint32_t input_size) const;
};

class PreTokenizer {
 public:
  explicit PreTokenizer(const std::vector<StageSpec>& specs);
  void run(const uint8_t* input, uint32_t n, PreTokenized& out, Scratch& scratch) const;
  // `input` may be a normalizer's output (with origins); `origin_base` is the offset of
  // input's origin 0 in the original text (Metaspace's "first" asks whether a piece is at 0).
  void run(const Text& input, uint32_t origin_base, PreTokenized& out, Scratch& scratch) const;
  // The same for several inputs at once: `initial` (non-empty, ascending, apart) are the
  // pieces of `input` to split -- each as if it were an input of its own, since every stage
  // runs on one piece at a time (pretokenize/text.h) -- and the pieces stay in input's
  // coordinates.  Only without needs_origin() ("a piece at offset 0" would be the first one
  // here) and rewrites() (throws std::logic_error).
  void run(const Text& input, const std::vector<Piece>& initial, PreTokenized& out, Scratch& scratch) const;
  // Whether some stage reads original offsets (then a normalizer must keep origins).
  bool needs_origin() const { return needs_origin_; }
  // Whether some stage may rewrite the content (Metaspace; ByteLevel's prefix space): then
  // the pieces index a new text.
  bool rewrites() const { return rewrites_; }
  bool empty() const { return stages_.empty(); }
  void model_cuts(bool yes) {  // (before any run: the stages are shared after construction)
    for (auto& s : stages_) s->model_cuts(yes);
  }

 private:
  void apply_stages(const Text& input, uint32_t origin_base, PreTokenized& out, Scratch& scratch) const;
  std::vector<std::unique_ptr<Stage>> stages_;
  std::vector<bool> read_later_;  // [i]: a stage after stage i reads origins (Metaspace "first")
  bool needs_origin_ = false;
  bool rewrites_ = false;
};

}  // namespace tagpipe::pretok
