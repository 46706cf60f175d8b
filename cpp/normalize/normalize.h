// Native normalizers: the ones tagpipe runs itself, each exactly as the oracle's
// (tokenizers/src/normalizers).  A normalizer turns one gap of text (between added
// tokens) into the content the pre-tokenizer reads, with the origin of every byte when
// asked (Metaspace's prepend_scheme "first" needs to know which piece starts at 0).
//
//   prepend      Prepend(s): s before a non-empty text
//   replace      Replace with a String pattern: every leftmost, non-overlapping occurrence
//   space_runs   Replace with the Regex " {2,}": every run of two or more spaces
//   regex_replace  Replace with another Regex in the compiled subset (pretokenize/regex/): every
//                match onig's find_iter gives, empty ones too
//   nfc          NFC, when the text passes the quick check (every character Inert in the nfc
//                alphabet): then NFC is the identity.  Otherwise the caller must delegate.
//   nfkc         NFKC, the same way: the identity when no character has kNfkcChanges
//                (tables/generated/norm_props.h), else the caller delegates.
//   unicode      the per-character normalizers and NFD/NFKD (Lowercase, StripAccents, NFD,
//                NFKD, BertNormalizer): one pass, see UnicodeOptions
//   strip        Strip: char::is_whitespace off the left and/or right end
//   precompiled  SentencePiece's charsmap (precompiled.h), character by character where the
//                oracle's grapheme clusters cannot matter; otherwise the caller delegates.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "normalize/precompiled.h"
#include "pretokenize/regex/matcher.h"
#include "pretokenize/text.h"

namespace tagpipe::normalize {

// One pass of per-character rules, in the oracle's order (BertNormalizer::normalize):
// clean_text, handle_chinese_chars, then decomposition (with canonical ordering) and the
// filter of marks, then lowercase, then a last filter (a StripAccents after them; the
// planner fuses a Sequence such as NFD, Lowercase, StripAccents into one pass).
struct UnicodeOptions {
  enum Decompose : uint8_t { None, Nfd, Nfkd };
  bool clean_text = false;     // drop controls / NUL / U+FFFD, whitespace -> ' '
  bool chinese = false;        // ' ' around CJK ideographs
  Decompose decompose = None;  // NFD or NFKD of the whole text
  uint32_t drop = 0;           // tables::norm flag of the characters filtered out after
                               // decomposition (BertNormalizer strip_accents: kBertMn)
  bool lowercase = false;      // char::to_lowercase, character by character
  uint32_t drop_after = 0;     // the flag of the characters filtered out last (StripAccents: kMark)
};

// What a pass with these options makes of single characters, worked out once per normalizer
// (its constructor), not per text:
//   - each ASCII character: the byte, or -1 (dropped), or -2 (something the ASCII shortcut
//     does not model; the pass then delegates);
//   - each two-byte character (U+0080..U+07FF: Latin, Greek, Cyrillic, Hebrew, Arabic, ...):
//     kUnchanged, or kFixed -- the pass makes `fixed` of it whatever its neighbours (see
//     char_map) -- or kSlow, the general path.
struct CharMap {
  enum Kind : uint8_t { kSlow, kUnchanged, kFixed };
  int16_t ascii[128];
  bool modelled;  // no -2
  Kind two[0x800 - 0x80];
  uint16_t at[0x800 - 0x80];  // kFixed: the output is pool[at .. at + len)
  uint8_t len[0x800 - 0x80];
  std::string pool;
};
std::shared_ptr<const CharMap> char_map(const UnicodeOptions& opt);

struct Step {
  enum class Kind : uint8_t { Prepend, Replace, SpaceRuns, Nfc, Nfkc, Unicode, Strip, Precompiled, RegexReplace };
  Kind kind;
  // Prepend: a = what; Replace: a = pattern, b = content; SpaceRuns, RegexReplace: b = content
  std::string a, b;
  std::vector<uint32_t> program;                  // RegexReplace: tagpipe/plan/regex's words
  std::shared_ptr<const regex::Matcher> matcher;  // (from `program`, by the Normalizer)
  UnicodeOptions unicode;
  std::shared_ptr<const CharMap> chars;  // (from `unicode`, by the Normalizer)
  bool strip_left = false, strip_right = false;
  std::shared_ptr<const Charsmap> charsmap;
};

struct Scratch {
  std::vector<uint8_t> tags;
  std::vector<uint64_t> starts;
  std::string buf[2];
  std::vector<pretok::Origin> origin[2];
  struct Pending {
    uint32_t cp;
    uint8_t ccc;
    bool drop;
    pretok::Origin origin;
  };
  std::vector<Pending> pending;  // non-starters awaiting canonical ordering
  std::vector<pretok::Origin> slots;
  std::vector<pretok::Piece> matches;  // RegexReplace
  regex::MatchScratch regex;
};

class Normalizer {
 public:
  // Throws std::invalid_argument for a RegexReplace step whose program is not valid.
  explicit Normalizer(std::vector<Step> steps) : steps_(std::move(steps)) {
    for (Step& s : steps_) {
      if (s.kind == Step::Kind::Unicode) s.chars = char_map(s.unicode);
      if (s.kind == Step::Kind::RegexReplace)
        s.matcher = std::make_shared<const regex::Matcher>(regex::Program::decode(s.program));
    }
  }
  bool empty() const { return steps_.empty(); }

  // Normalizes in[0..n) into `out` (which aliases `in` when nothing changes).  Returns
  // false when this text needs a normalization tagpipe does not run (delegate the call).
  bool run(const uint8_t* in, uint32_t n, pretok::Text& out, Scratch& scratch, bool need_origin) const;
  // The same without origins, appended to `dst`: written there directly when there is no
  // step or one Replace of a byte (gemma-3's ' ' -> '▁'), else run() and copied.
  bool append(const uint8_t* in, uint32_t n, std::string& dst, Scratch& scratch) const;

 private:
  std::vector<Step> steps_;
};

// The content one step reads: bytes and, per byte, the original character it came from.
struct Source {
  const uint8_t* s;
  uint32_t n;
  const pretok::Origin* origin;  // nullptr: the content is the input itself
  pretok::Origin at(uint32_t i) const;
};

// The per-character passes (unicode.cpp, precompiled.cpp).  Each writes the new
// content to `dst` (and, with need_origin, one origin per byte to `org`); false: delegate.
bool unicode_pass(const UnicodeOptions& opt, const CharMap& chars, const Source& src, bool need_origin,
                  std::string& dst, std::vector<pretok::Origin>& org, Scratch& sc);
bool strip_pass(bool left, bool right, const Source& src, bool need_origin, std::string& dst,
                std::vector<pretok::Origin>& org);
bool nfkc_inert(const uint8_t* s, uint32_t n);
bool precompiled_pass(const Charsmap& map, const Source& src, bool need_origin, std::string& dst,
                      std::vector<pretok::Origin>& org);

}  // namespace tagpipe::normalize
