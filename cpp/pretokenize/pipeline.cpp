#include "pretokenize/pipeline.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <stdexcept>

#include "alphabet_regex.h"
#include "alphabet_scripts.h"
#include "common/read_ahead.h"
#include "common/replace_byte.h"
#include "dispatch/kernels.h"
#include "kernels/boundaries/boundaries.h"
#include "pretokenize/bytelevel.h"
#include "pretokenize/fsm/patterns.h"
#include "pretokenize/fsm/runs.h"
#include "pretokenize/regex/stage.h"

namespace tagpipe::pretok {
namespace {

// Tags of the 256 ByteLevel characters, per alphabet: the tag stream of mapped text.
const std::array<uint8_t, 256>& mapped_tags(AlphabetId id) {
  static const auto tables = [] {
    std::array<std::array<uint8_t, 256>, int(AlphabetId::count)> t{};
    for (int a = 0; a < int(AlphabetId::count); a++)
      for (int b = 0; b < 256; b++) t[a][b] = alphabet(AlphabetId(a)).lookup(byte_char(uint8_t(b)));
    return t;
  }();
  return tables[int(id)];
}

bool is_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

// The input character containing byte i of a text that was not rewritten.
Origin input_char(const uint8_t* input, uint32_t size, uint32_t i) {
  uint32_t b = i, e = i + 1;
  while (b > 0 && is_cont(input[b])) --b;
  while (e < size && is_cont(input[e])) ++e;
  return {b, e};
}

Origin origin_of(const Text& text, const uint8_t* input, uint32_t input_size, uint32_t i) {
  return text.rewritten() ? text.origin[i] : input_char(input, input_size, i);
}

// origin_of for bytes [a, b) of `text`, appended to org: a character at a time (all the
// bytes of one input character have its origin), or a copy of the text's own origins.
void append_origins(const Text& text, const uint8_t* input, uint32_t input_size, uint32_t a, uint32_t b,
                    std::vector<Origin>& org) {
  if (text.rewritten()) {
    org.insert(org.end(), text.origin.begin() + a, text.origin.begin() + b);
    return;
  }
  const size_t base = org.size();
  org.resize(base + (b - a));  // (then written through a pointer, not inserted a character at a time)
  Origin* out = org.data() + base;
  while (a < b) {
    const Origin o = input_char(input, input_size, a);
    const uint32_t stop = std::min(o.end, b);
    for (; a < stop; a++) *out++ = o;
  }
}

// Rebuilds the content: `write(piece, content, origins, origin_of_old_byte,
// old_origins)` appends each piece's new bytes and their origins (old_origins(a, b, org):
// those of old bytes [a, b)); pieces are renumbered into the new content.
// With `keep` false nobody reads the new text's origins: write() writes none (and
// old_origins appends none), and the new text has none.
template <class Write>
void rewrite(Text& text, std::vector<Piece>& pieces, const uint8_t* input, uint32_t input_size, bool keep,
             Write write) {
  auto storage = std::make_shared<std::string>();
  storage->reserve(text.size + text.size / 2 + 8);
  std::vector<Origin> origin;
  if (keep) origin.reserve(storage->capacity());
  const Text old = std::move(text);  // (every field that moved is set again below)
  auto old_origin = [&](uint32_t i) { return origin_of(old, input, input_size, i); };
  auto old_origins = [&](uint32_t a, uint32_t b) {
    if (keep) append_origins(old, input, input_size, a, b, origin);
  };
  for (Piece& p : pieces) {
    const uint32_t begin = uint32_t(storage->size());
    write(p, *storage, origin, old_origin, old_origins);
    p = {begin, uint32_t(storage->size())};
  }
  text.storage = std::move(storage);
  text.bytes = reinterpret_cast<const uint8_t*>(text.storage->data());
  text.size = uint32_t(text.storage->size());
  text.origin = std::move(origin);
}

// Whether a bit of `bits` (a bit per byte) is set in [b, e).
bool span_has(const std::vector<uint64_t>& bits, uint32_t b, uint32_t e) {
  if (b >= e) return false;
  const uint32_t first = b / 64, last = (e - 1) / 64;
  const uint64_t from = ~uint64_t(0) << (b % 64), to = ~uint64_t(0) >> (63 - (e - 1) % 64);
  if (first == last) return (bits[first] & from & to) != 0;
  if (bits[first] & from) return true;
  for (uint32_t w = first + 1; w < last; w++)
    if (bits[w]) return true;
  return (bits[last] & to) != 0;
}

// -- stages ----------------------------------------------------------------------------------

// Runs `run` on each piece that holds a character tagged lo..hi and gives the others to
// the fold whole, as one gap: what a pattern whose matches start only at those characters
// reports for a piece without one.  The pieces that hold one are found by one pass over
// the text's tags, not a call per piece (falcon's Digits and digit triples run on
// ByteLevel's pieces, a few bytes each, which seldom hold a digit).  lo = 0: every piece.
template <class Run>
void with_starts(const Text& text, const uint8_t* tags, const std::vector<Piece>& pieces, int lo, int hi, Fold& fold,
                 Run run) {
  const fsm::Cursor all{tags, text.bytes, text.size, text.byte_mapped};
  uint32_t next = 0;  // (the first such character at or after the last piece looked at)
  for (const Piece& piece : pieces) {
    if (lo) {
      if (next <= piece.begin) next = all.find(piece.begin, lo, hi);
      if (next >= piece.end) {
        fold.whole(piece.begin, piece.end);
        continue;
      }
    }
    run(piece);
  }
}

class PatternStage final : public Stage {
 public:
  PatternStage(const fsm::Pattern* p, Behavior b, bool invert) : p_(p), behavior_(b), invert_(invert) {}
  bool keeps_nonempty() const override { return true; }  // (the fold drops empty pieces)
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    uint8_t* const room = p_->fills_tags && !text.byte_mapped ? scratch.tag_room(text, p_->alphabet) : nullptr;
    const uint8_t* tags = room ? room : scratch.tags(text, p_->alphabet);
    std::vector<Piece>& out = scratch.pieces_out;
    out.clear();
    Fold fold(behavior_, invert_, out);
    with_starts(text, tags, pieces, p_->start_lo, p_->start_hi, fold, [&](const Piece& piece) {
      p_->run(fsm::Cursor{tags, text.bytes, piece.end, text.byte_mapped, room}, piece.begin, fold);
      fold.finish();
    });
    pieces.swap(out);
  }

 private:
  const fsm::Pattern* p_;
  Behavior behavior_;
  bool invert_;
};

class RunsStage final : public Stage {
 public:
  RunsStage(const fsm::Runs* r, Behavior b) : r_(r), behavior_(b) {
    // When every tag outside one range of matching classes shares one class that is not
    // kSingle, a piece with none of the range is one run of that class: one gap
    // (with_starts).  Digits: WordNumeric..Numeric.
    int lo = 0, hi = 0, rest = -1;
    bool one_range = true;
    for (int t = 1; t < 16; t++) {
      if (r->remap[t] & fsm::kMatch) {
        one_range &= !lo || hi == t - 1;
        if (!lo) lo = t;
        hi = t;
      } else if (r->remap[t]) {
        one_range &= rest < 0 || rest == r->remap[t];
        rest = r->remap[t];
      }
    }
    if (one_range && lo && rest >= 0 && !(rest & kSingle)) start_lo_ = lo, start_hi_ = hi;
  }
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    const uint8_t* tags = scratch.tags(text, AlphabetId::unicode);
    const BoundariesFn boundaries = kernels::active().boundaries;
    std::vector<Piece>& out = scratch.pieces_out;
    out.clear();
    Fold fold(behavior_, false, out);
    with_starts(text, tags, pieces, start_lo_, start_hi_, fold, [&](const Piece& piece) {
      if (scratch.cuts.size() < piece.end - piece.begin) scratch.cuts.resize(piece.end - piece.begin);
      const size_t n = boundaries(tags, piece.begin, piece.end, r_->remap, scratch.cuts.data());
      uint32_t start = piece.begin;
      for (size_t k = 0; k <= n; k++) {
        const uint32_t stop = k < n ? scratch.cuts[k] : piece.end;
        fold.segment(start, stop, (r_->remap[tags[start]] & fsm::kMatch) != 0);
        start = stop;
      }
      fold.finish();
    });
    pieces.swap(out);
  }

 private:
  const fsm::Runs* r_;
  Behavior behavior_;
  int start_lo_ = 0, start_hi_ = 0;  // (with_starts)
};

// A String pattern: leftmost, non-overlapping occurrences (what Oniguruma does with the
// escaped string).  On ByteLevel-mapped text the pattern's characters must be byte
// characters; one that is not can never match.
class LiteralStage final : public Stage {
 public:
  LiteralStage(std::string literal, Behavior b, bool invert)
      : literal_(std::move(literal)), behavior_(b), invert_(invert) {
    if (literal_.empty()) throw std::invalid_argument("an empty String pattern is not native");
    // Its bytes on mapped text: one byte per character.
    const auto* s = reinterpret_cast<const uint8_t*>(literal_.data());
    for (size_t i = 0; i < literal_.size();) {
      uint32_t cp = s[i];
      size_t len = cp < 0x80 ? 1 : cp < 0xE0 ? 2 : cp < 0xF0 ? 3 : 4;
      if (len > 1) {
        cp &= 0xFF >> (len + 1);
        for (size_t k = 1; k < len; k++) cp = (cp << 6) | (s[i + k] & 0x3F);
      }
      const int b = char_byte(cp);
      if (b < 0) mapped_possible_ = false;
      mapped_ += char(b < 0 ? 0 : b);
      i += len;
    }
  }
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    const std::string& needle = text.byte_mapped ? mapped_ : literal_;
    const bool possible = !text.byte_mapped || mapped_possible_;
    std::vector<Piece>& out = scratch.pieces_out;
    out.clear();
    Fold fold(behavior_, invert_, out);
    for (const Piece& piece : pieces) split(text, piece, needle, possible, fold);
    pieces.swap(out);
  }
  // One piece of a Metaspace's rewritten text (unmapped) into `fold`, which has this stage's
  // behavior.
  void split(const Text& text, const Piece& piece, Fold& fold) const { split(text, piece, literal_, true, fold); }

 private:
  static void split(const Text& text, const Piece& piece, const std::string& needle, bool possible, Fold& fold) {
    const char* base = reinterpret_cast<const char*>(text.bytes);
    uint32_t gap = piece.begin;
    if (possible) {
      std::string_view hay(base + piece.begin, piece.end - piece.begin);
      for (size_t at = hay.find(needle); at != std::string_view::npos; at = hay.find(needle, at + needle.size())) {
        const uint32_t m = piece.begin + uint32_t(at);
        if (gap < m) fold.segment(gap, m, false);
        fold.segment(m, m + uint32_t(needle.size()), true);
        gap = m + uint32_t(needle.size());
      }
    }
    if (gap < piece.end) fold.segment(gap, piece.end, false);
    fold.finish();
  }

  std::string literal_, mapped_;
  bool mapped_possible_ = true;
  Behavior behavior_;
  bool invert_;
};

// ByteLevel: optionally prepends ' ' to every piece that does not start with one, splits
// with GPT-2's regex when use_regex, then reads the text through the byte map.
class ByteLevelStage final : public Stage {
 public:
  ByteLevelStage(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space), regex_(use_regex ? fsm::find_pattern("gpt2") : nullptr) {}
  bool keeps_nonempty() const override { return true; }  // (a prefix goes only before a piece's bytes)
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    // (prepend() adds nothing to an empty piece)
    const char* const content = reinterpret_cast<const char*>(text.bytes);  // (rewrite moves text)
    auto wants_prefix = [&](const Piece& p) { return p.end > p.begin && content[p.begin] != ' '; };
    if (add_prefix_space_ && std::any_of(pieces.begin(), pieces.end(), wants_prefix)) {
      const bool keep = !scratch.origins_unread;
      rewrite(text, pieces, scratch.input, scratch.input_size, keep,
              [&](const Piece& p, std::string& out, std::vector<Origin>& org, auto old_origin, auto old_origins) {
                if (wants_prefix(p)) {
                  out += ' ';
                  if (keep) org.push_back(old_origin(p.begin));
                }
                out.append(content + p.begin, p.end - p.begin);
                old_origins(p.begin, p.end);
              });
      scratch.reset();
    }
    if (regex_) PatternStage(regex_, Behavior::Isolated, false).apply(text, pieces, scratch);
    text.byte_mapped = true;
    scratch.reset();
  }

 private:
  bool add_prefix_space_;
  const fsm::Pattern* regex_;
};

// Metaspace: ' ' -> replacement, the replacement prepended (Always: unless the piece
// starts with it; First: also only for the piece at original offset 0), then, with split,
// a cut before every replacement character (MergedWithNext).
//
// Without origins, the split only looks at the pieces that may cut: those holding a ' ' or
// the first byte of the replacement.  Any other comes out of the rewrite as itself, maybe
// after one replacement, which the split (MergedWithNext) leaves on it: whole.
// (WhitespaceSplit before Metaspace, t5's pipeline, leaves no ' ': a word a piece, each cut
// at no cost.)  Those bytes are found as bits, 64 at a time with the find kernel, before
// the rewrite moves the text: a piece's test is then a mask or two, not a loop that leaves
// at a place no branch predictor knows.
class MetaspaceStage final : public Stage {
 public:
  MetaspaceStage(std::string replacement, StageSpec::Prepend prepend, bool split)
      : repl_(std::move(replacement)),
        prepend_(prepend),
        split_(split),
        splitter_(repl_, Behavior::MergedWithNext, false) {}
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    const bool keep = !scratch.origins_unread || repl_.size() > 4;
    const char* const content = reinterpret_cast<const char*>(text.bytes);  // (rewrite moves text)
    std::vector<uint8_t>& may_cut = scratch.flags;  // (without origins: the pieces the split may cut)
    const Piece* const first = pieces.data();
    const char r0 = repl_[0];
    std::vector<uint64_t>& hits = scratch.bits;  // (their bytes, a bit each)
    if (!keep) {
      may_cut.resize(pieces.size());
      hits.assign((size_t(text.size) + 63) / 64, 0);
      const uint8_t set[kFindBytes] = {' ', uint8_t(r0), ' ', ' ', ' ', ' ', ' ', ' '};
      const FindBytesFn find = kernels::active().find_bytes;
      uint32_t q = 0;
      for (; q + 64 <= text.size; q += 64) hits[q / 64] = find(text.bytes + q, set);
      for (uint32_t k = q; k < text.size; k++)
        hits[q / 64] |= uint64_t(text.bytes[k] == ' ' || text.bytes[k] == uint8_t(r0)) << (k - q);
    }
    rewrite(text, pieces, scratch.input, scratch.input_size, keep,
            [&](const Piece& p, std::string& out, std::vector<Origin>& org, auto old_origin, auto old_origins) {
              const char* s = content + p.begin;
              const uint32_t n = p.end - p.begin;
              bool any = true;  // (with origins: not asked)
              if (!keep) may_cut[size_t(&p - first)] = any = span_has(hits, p.begin, p.end);
              if (n == 0) return;  // prepend() adds nothing to an empty piece
              const bool starts =
                  any && (s[0] == ' ' || (n >= repl_.size() && std::memcmp(s, repl_.data(), repl_.size()) == 0));
              bool prepend = false;
              if (prepend_ == StageSpec::Prepend::Always) prepend = !starts;
              if (prepend_ == StageSpec::Prepend::First)
                prepend = !starts && old_origin(p.begin).begin + scratch.origin_base == 0;
              if (prepend) {
                out += repl_;
                if (keep) org.insert(org.end(), repl_.size(), old_origin(p.begin));
              }
              if (!keep) {
                if (!any) return void(out.append(s, n));
                return append_replacing_byte(std::string_view(s, n), ' ', repl_, out);  // (repl_: 1-4 bytes)
              }
              // The piece and its origins as they are, then widened in place from the back: each
              // ' ' becomes the replacement, with the ' ''s origin on each of its bytes (not byte by
              // byte through push_back and insert).
              const size_t at = out.size(), base = org.size(), r = repl_.size();
              old_origins(p.begin, p.end);
              const size_t spaces = size_t(std::count(s, s + n, ' '));
              out.append(s, n);
              out.resize(at + n + spaces * (r - 1));
              org.resize(base + n + spaces * (r - 1));
              char* o = out.data() + at;
              Origin* og = org.data() + base;
              // (d - i = 1 + (r - 1) * the spaces in s[0..i]: nothing is written before it is read)
              for (size_t i = n, d = n + spaces * (r - 1); i-- > 0;) {
                const Origin from = og[i];
                if (s[i] == ' ') {
                  d -= r;
                  std::memcpy(o + d, repl_.data(), r);
                  for (size_t k = 0; k < r; k++) og[d + k] = from;
                } else {
                  o[--d] = s[i];
                  og[d] = from;
                }
              }
            });
    scratch.reset();
    if (!split_) return;
    if (keep) return splitter_.apply(text, pieces, scratch);
    std::vector<Piece>& out = scratch.pieces_out;
    out.clear();
    Fold fold(Behavior::MergedWithNext, false, out);
    for (size_t k = 0; k < pieces.size(); k++) {
      if (pieces[k].begin == pieces[k].end) continue;  // (an empty piece: the split drops it)
      if (may_cut[k]) splitter_.split(text, pieces[k], fold);
      else fold.whole(pieces[k].begin, pieces[k].end);
    }
    pieces.swap(out);
  }

 private:
  std::string repl_;
  StageSpec::Prepend prepend_;
  bool split_;
  LiteralStage splitter_;
};

class FixedLengthStage final : public Stage {
 public:
  explicit FixedLengthStage(uint32_t length) : length_(length) {
    if (length == 0) throw std::invalid_argument("FixedLength of 0 is not native");
  }
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    const uint8_t* tags = scratch.tags(text, AlphabetId::regex);
    std::vector<Piece>& out = scratch.pieces_out;
    out.clear();
    for (const Piece& piece : pieces) {
      if (piece.end == piece.begin) continue;
      uint32_t start = piece.begin, chars = 0;
      for (uint32_t i = piece.begin; i < piece.end; i++) {
        if (tags[i] == 0) continue;
        if (chars == length_) out.push_back({start, i}), start = i, chars = 0;
        chars++;
      }
      out.push_back({start, piece.end});
    }
    pieces.swap(out);
  }

 private:
  uint32_t length_;
};

// UnicodeScripts: a cut before a character whose script differs from the last non-Any
// script seen in the piece (Any, ' ' and unlisted code points, never cuts and is skipped).
// The oracle's ranges start at its first cut, which is the first non-Any character: the
// Any characters before it are dropped, and a piece of Any characters only disappears.
class ScriptsStage final : public Stage {
 public:
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    const uint8_t* tags = scratch.tags(text, AlphabetId::scripts);
    std::vector<Piece>& out = scratch.pieces_out;
    out.clear();
    for (const Piece& piece : pieces) {
      uint32_t start = piece.begin;
      int last = -1;
      for (uint32_t i = piece.begin; i < piece.end; i++) {
        const int t = tags[i];
        if (t == tables::scripts::Cont || t == tables::scripts::Any) continue;
        if (last < 0) start = i;
        else if (t != last) out.push_back({start, i}), start = i;
        last = t;
      }
      if (last >= 0) out.push_back({start, piece.end});
    }
    pieces.swap(out);
  }
};

// MetaspaceRuns: on a piece nothing else cuts, a cut before each run of the mark that no
// `guards` piece could span, and between the ASCII pairs `pairs` allows.  tagpipe/plan/metaspace.py
// proves at load that no such cut changes an id: docs/design/metaspace-runs.md.
class MetaspaceRunsStage final : public Stage {
 public:
  MetaspaceRunsStage(std::string mark, const std::vector<std::string>& guards, const std::string& pairs)
      : mark_(std::move(mark)) {
    if (mark_.empty() || mark_.size() > 4) throw std::invalid_argument("MetaspaceRuns needs a one-character mark");
    // (Not between two ASCII letters: the proof allows few such cuts, while they are most
    // of a text's pairs; the block below then looks up the table only where a pair holds
    // something else.  A cut not taken is exact too.)
    for (size_t i = 0; i < pairs.size() && i < sizeof pair_; i++)
      pair_[i] = pairs[i] != 0 && !(letter(uint8_t(i >> 7)) && letter(uint8_t(i & 0x7F)));
    const size_t m = mark_.size();
    m_ = uint32_t(m);
    for (const std::string& g : guards)
      for (size_t k = 1; k + m <= g.size(); k++)  // a mark at k right after another character
        if (g.compare(k, m, mark_) == 0 && !(k >= m && g.compare(k - m, m, mark_) == 0)) {
          guards_.push_back({g, k});
          guard_before_[uint8_t(g[k - 1])] = true;
        }
    // Those bytes for the marks kernel, which finds the marks after them (more than it
    // takes -- no vocabulary seen has more than one -- and every mark is asked).
    int distinct = 0;
    for (int x = 0; x < 256; x++)
      if (guard_before_[x]) {
        if (distinct < kAfterBytes) guard_bytes_[distinct] = uint8_t(x);
        distinct++;
      }
    for (int i = distinct; i < kAfterBytes; i++) guard_bytes_[i] = guard_bytes_[0];
    every_mark_guarded_ = distinct > kAfterBytes;
  }
  void apply(Text& text, std::vector<Piece>& pieces, Scratch& scratch) const override {
    std::vector<Piece>& out = scratch.room;
    size_t count = 0;
    const MarksFn marks_fn = kernels::active().marks;
    const uint8_t* mark = reinterpret_cast<const uint8_t*>(mark_.data());
    for (const Piece& piece : pieces) {
      const uint8_t* s = text.bytes + piece.begin;
      const uint32_t n = piece.end - piece.begin;
      uint32_t start = piece.begin;
      // At most one piece per byte: room for all, written in place (a push_back of a Piece
      // built from two 32-bit halves stalls on the 64-bit reload of the pair).
      if (out.size() < count + n + 1) out.resize(std::max(out.size() * 2, count + n + 1));
      Piece* o = out.data();
      if (model_cuts_ && n >= kDenseMin && dense(s, n)) {  // mostly outside ASCII: whole, for the model's cuts
        o[count++] = piece;
        continue;
      }
      auto cut = [&](uint32_t j) {
        o[count].begin = start, o[count].end = piece.begin + j;
        count++;
        start = piece.begin + j;
      };
      // The head by the specification; the rest 64 positions at a time with no branch on
      // the text (a cut every few bytes defeats prediction): the marks kernel's masks of
      // the positions that may cut, narrowed by the pair table and the guards.
      uint32_t j = 1;
      for (; j < n && j < m_; j++)
        if (cut_at(s, n, j)) cut(j);
      if (m_ != 3) {  // (the blocks are for a three-byte mark, '▁'; any other takes the specification)
        for (; j < n; j++)
          if (cut_at(s, n, j)) cut(j);
      } else {
        // The cuts at positions j..j+63 (those below j + valid) of the block at t = s + j,
        // whose piece has `left` bytes from t on: t[-3..66] readable, those from t[left] on
        // garbage or zeros (a mark is then only taken with its three bytes before t[left]).
        auto block = [&](const uint8_t* t, uint32_t valid, uint32_t left) __attribute__((always_inline)) {
          // (the runs and pairs of the 64 positions from the SIMD kernel: kernels/marks/marks.h)
          const MarkMasks found = marks_fn(t, mark, guards_.empty() ? nullptr : guard_bytes_);
          uint64_t marks = found.runs, maybe = found.pairs;
          const uint64_t in = valid >= 64 ? ~uint64_t(0) : (uint64_t(1) << valid) - 1;
          const uint64_t whole = left >= 66 ? ~uint64_t(0) : left >= 3 ? (uint64_t(1) << (left - 2)) - 1 : 0;
          marks &= in & whole, maybe &= in;
          uint64_t pairs = 0;  // the table, looked up at the few positions that may cut (a gather)
          for (uint64_t bits = maybe; bits; bits &= bits - 1) {
            const ptrdiff_t k = __builtin_ctzll(bits);
            pairs |= uint64_t(pair_[t[k - 1] << 7 | t[k]]) << k;
          }
          // (a guard spans a mark only after its own byte before the mark)
          for (uint64_t bits = marks & (every_mark_guarded_ ? ~uint64_t(0) : found.after); bits; bits &= bits - 1) {
            const ptrdiff_t k = __builtin_ctzll(bits);
            if (guard_before_[t[k - 1]] && guarded(s, n, j + uint32_t(k))) marks &= ~(uint64_t(1) << k);
          }
          for (uint64_t bits = marks | pairs; bits; bits &= bits - 1) cut(j + uint32_t(__builtin_ctzll(bits)));
        };
        for (; j + 66 <= n; j += 64) block(s + j, 64, n - j);  // (a mark test at j + 63 reads to j + 65)
        // The last 1-65 positions: in place when t[-3..66] is on one page, else from a copy
        // padded with zeros.  (Short pieces are all tail: gemma-3's lines, cut off by its '\n'
        // token, would otherwise be scanned byte by byte by the specification.)
        for (; j < n; j += 64) {
          if (may_read_ahead(s + j - 3, 3 + 64 + 3)) {
            block(s + j, n - j, n - j);
            continue;
          }
          alignas(8) uint8_t pad[3 + 64 + 8] = {};
          std::memcpy(pad, s + j - 3, std::min<size_t>(n - j + 3, sizeof pad));
          block(pad + 3, n - j, n - j);
        }
      }
      o[count].begin = start, o[count].end = piece.end;
      count++;
    }
    pieces.assign(out.begin(), out.begin() + ptrdiff_t(count));
  }

 private:
  struct Guard {
    std::string token;
    size_t at;  // where in the token a mark follows another character
  };
  // The specification of a cut at byte j of a piece (0 < j < n): before a run of marks
  // that no guard spans, or between two ASCII characters the proof allows.
  bool mark_at(const uint8_t* s, uint32_t n, uint32_t j) const {
    if (j + m_ > n) return false;
    for (uint32_t i = 0; i < m_; i++)
      if (s[j + i] != uint8_t(mark_[i])) return false;
    return true;
  }
  bool cut_at(const uint8_t* s, uint32_t n, uint32_t j) const {
    if (mark_at(s, n, j) && !(j >= m_ && mark_at(s, n, j - m_)) && !guarded(s, n, j)) return true;
    const uint8_t x = s[j - 1], y = s[j];
    return ((x | y) & 0x80) == 0 && pair_[x * 128 + y];
  }
  static bool letter(uint8_t x) { return uint8_t((x | 0x20) - 'a') < 26; }
  bool guarded(const uint8_t* s, uint32_t n, uint32_t p) const {
    for (const Guard& g : guards_)
      if (p >= g.at && p - g.at + g.token.size() <= n && s[p - g.at] == uint8_t(g.token[0]) &&  // (no call, mostly)
          std::memcmp(s + p - g.at, g.token.data(), g.token.size()) == 0)
        return true;
    return false;
  }
  // Whether a piece's head (its first kSample bytes) is mostly outside ASCII, the marks in
  // it that are part of a run of two or more marks counted as ASCII (code's indentation).
  // Byte loops with no branch on the text, which the compiler vectorises (a document's
  // head can be kilobytes).
  bool dense(const uint8_t* s, uint32_t n) const {
    const size_t len = std::min<size_t>(n, kSample);
    uint32_t ascii = 0;
    for (size_t k = 0; k < len; k++) ascii += s[k] < 0x80;
    // (An ASCII mark counts as ASCII anyway; for a mark of 2 or 4 bytes its runs are not
    // counted -- the choice only changes speed: either way is exact.)
    if (uint8_t(mark_[0]) < 0x80 || m_ != 3) return 2 * ascii < len;
    const uint8_t a = uint8_t(mark_[0]), b = uint8_t(mark_[1]), c = uint8_t(mark_[2]);
    auto at = [&](size_t k) { return uint32_t((s[k] == a) & (s[k + 1] == b) & (s[k + 2] == c)); };
    auto mark = [&](ptrdiff_t k) { return k >= 0 && size_t(k) + 3 <= n ? at(size_t(k)) : 0u; };
    uint32_t runs = 0;  // marks wholly in the head with another right before or after them
    size_t k = 0;
    for (; k < 3 && k + 3 <= len; k++) runs += mark(ptrdiff_t(k)) & (mark(ptrdiff_t(k) - 3) | mark(ptrdiff_t(k) + 3));
    const size_t middle = std::min<size_t>(len - 2, n >= 6 ? size_t(n) - 5 : 0);  // (k + 3 <= len, and k + 6 <= n)
    for (; k < middle; k++) runs += at(k) & (at(k - 3) | at(k + 3));
    for (; k + 3 <= len; k++) runs += mark(ptrdiff_t(k)) & (mark(ptrdiff_t(k) - 3) | mark(ptrdiff_t(k) + 3));
    return 2 * (ascii + 3 * runs) < len;
  }
  void model_cuts(bool yes) override { model_cuts_ = yes; }
  // A piece this long whose first kilobyte is mostly outside ASCII (runs of two or more
  // marks counted as ASCII) is left whole when the model cuts it: the model's cuts
  // (Bpe::cuts) are exact there too and cost less (docs/design/metaspace-runs.md).
  static constexpr uint32_t kDenseMin = 256;
  static constexpr uint32_t kSample = 4 * kDenseMin;  // (a text's head tells)
  bool model_cuts_ = false;
  std::string mark_;
  uint32_t m_ = 0;
  std::vector<Guard> guards_;
  bool guard_before_[256] = {};            // the bytes some guard has right before its mark
  uint8_t guard_bytes_[kAfterBytes] = {};  // (the first kAfterBytes of them, repeated to fill)
  bool every_mark_guarded_ = false;        // (more of them than that)
  bool pair_[128 * 128] = {};
};

}  // namespace

const uint8_t* Scratch::tags(const Text& text, AlphabetId id) {
  std::vector<uint8_t>& b = buf_[int(id)];
  if (!((valid_ >> int(id)) & 1)) {
    b.resize(text.size + 2 * kPad);
    std::memset(b.data(), 0, kPad);
    std::memset(b.data() + kPad + text.size, 0, kPad);
    uint8_t* t = b.data() + kPad;
    if (text.byte_mapped) {
      const auto& table = mapped_tags(id);
      for (uint32_t i = 0; i < text.size; i++) t[i] = table[text.bytes[i]];
    } else {
      starts_.resize(start_words(text.size));
      kernels::active().classify(text.bytes, text.size, alphabet(id), t, starts_.data());
    }
    valid_ |= 1u << int(id);
  }
  return b.data() + kPad;
}

uint8_t* Scratch::tag_room(const Text& text, AlphabetId id) {
  if ((valid_ >> int(id)) & 1) return nullptr;
  std::vector<uint8_t>& b = buf_[int(id)];
  b.resize(text.size + 2 * kPad);
  return b.data() + kPad;
}

std::unique_ptr<Stage> make_stage(const StageSpec& s) {
  using K = StageSpec::Kind;
  switch (s.kind) {
    case K::Pattern: {
      const fsm::Pattern* p = fsm::find_pattern(s.name);
      if (!p) throw std::invalid_argument("unknown pattern family '" + s.name + "'");
      return std::make_unique<PatternStage>(p, s.behavior, s.invert);
    }
    case K::Runs: {
      const fsm::Runs* r = fsm::find_runs(s.name);
      if (!r) throw std::invalid_argument("unknown run splitter '" + s.name + "'");
      return std::make_unique<RunsStage>(r, s.behavior);
    }
    case K::Literal:
      return std::make_unique<LiteralStage>(s.literal, s.behavior, s.invert);
    case K::ByteLevel:
      return std::make_unique<ByteLevelStage>(s.add_prefix_space, s.use_regex);
    case K::Metaspace:
      return std::make_unique<MetaspaceStage>(s.literal, s.prepend, s.split);
    case K::FixedLength:
      return std::make_unique<FixedLengthStage>(s.length);
    case K::Scripts:
      return std::make_unique<ScriptsStage>();
    case K::MetaspaceRuns:
      return std::make_unique<MetaspaceRunsStage>(s.literal, s.guards, s.pairs);
    case K::Regex:
      return make_regex_stage(s);
  }
  throw std::invalid_argument("unknown stage kind");
}

Origin PreTokenized::origin(const Piece& p, const uint8_t* input, uint32_t input_size) const {
  if (p.begin == p.end) return {p.begin, p.begin};  // only "" with no stage at all
  return {origin_of(text, input, input_size, p.begin).begin, origin_of(text, input, input_size, p.end - 1).end};
}

PreTokenizer::PreTokenizer(const std::vector<StageSpec>& specs) {
  read_later_.assign(specs.size(), false);
  for (size_t i = 0; i < specs.size(); i++) {
    const StageSpec& s = specs[i];
    stages_.push_back(make_stage(s));
    const bool reads = s.kind == StageSpec::Kind::Metaspace && s.prepend == StageSpec::Prepend::First;
    needs_origin_ |= reads;
    for (size_t k = 0; k < i && reads; k++) read_later_[k] = true;
    // (the two stages that call rewrite())
    rewrites_ |= s.kind == StageSpec::Kind::Metaspace || (s.kind == StageSpec::Kind::ByteLevel && s.add_prefix_space);
  }
}

void PreTokenizer::run(const uint8_t* input, uint32_t n, PreTokenized& out, Scratch& scratch) const {
  Text t;
  t.bytes = input, t.size = n;
  run(t, 0, out, scratch);
}

void PreTokenizer::run(const Text& input, uint32_t origin_base, PreTokenized& out, Scratch& scratch) const {
  out.pieces.clear();
  out.pieces.push_back({0, input.size});  // even when empty: with no stage, "" is one empty piece
  apply_stages(input, origin_base, out, scratch);
}

void PreTokenizer::run(const Text& input, const std::vector<Piece>& initial, PreTokenized& out,
                       Scratch& scratch) const {
  if (needs_origin_ || rewrites_)
    throw std::logic_error("PreTokenizer: initial pieces with a stage that reads origins or rewrites");
  out.pieces.assign(initial.begin(), initial.end());
  apply_stages(input, 0, out, scratch);
}

void PreTokenizer::apply_stages(const Text& input, uint32_t origin_base, PreTokenized& out, Scratch& scratch) const {
  out.text = input;
  scratch.reset();
  scratch.input = input.bytes, scratch.input_size = input.size, scratch.origin_base = origin_base;
  // Every stage of the oracle's goes through PreTokenizedString::split, which drops empty
  // pieces -- also the ones that do not cut (ByteLevel without its regex, ...).
  auto any_empty = [](const std::vector<Piece>& v) {
    uint32_t any = 0;  // (a pass with no branch on the pieces, which the compiler vectorises)
    const Piece* p = v.data();
    const size_t n = v.size();
    for (size_t k = 0; k < n; k++) any |= uint32_t(p[k].begin == p[k].end);
    return any != 0;
  };
  bool nonempty = !any_empty(out.pieces);
  for (size_t i = 0; i < stages_.size(); i++) {
    scratch.origins_unread = scratch.offsets_unused && !read_later_[i];
    stages_[i]->apply(out.text, out.pieces, scratch);
    auto& v = out.pieces;
    if (!(nonempty && stages_[i]->keeps_nonempty()) && any_empty(v))
      v.erase(std::remove_if(v.begin(), v.end(), [](const Piece& p) { return p.begin == p.end; }), v.end());
    nonempty = true;
  }
}

}  // namespace tagpipe::pretok
