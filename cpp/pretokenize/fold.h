// Hugging Face's SplitDelimiterBehavior (tokenizers/src/tokenizer/normalizer.rs, split()),
// as a stream: a pattern reports consecutive segments (match or not) covering a piece,
// Fold turns them into pieces exactly as the oracle's folds do -- empty segments included
// (they still change what merges), empty pieces dropped at the end.
#pragma once
#include <cstdint>
#include <vector>

#include "pretokenize/text.h"

namespace tagpipe::pretok {

enum class Behavior : uint8_t { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

class Fold {
 public:
  Fold(Behavior behavior, bool invert, std::vector<Piece>& out)
      : behavior_(behavior), invert_(invert), plain_(behavior == Behavior::Isolated && !invert), out_(out) {}

  // Every segment is a piece of its own (Isolated, not inverted): a pattern may then
  // report a gap as a match.
  bool plain() const { return plain_; }

  // The next segment [begin, end); segments arrive in order and cover the piece.
  inline __attribute__((always_inline)) void segment(uint32_t begin, uint32_t end, bool is_match) {
    if (plain_) {  // Isolated, not inverted: every segment is a piece (the common case)
      push(begin, end);
      return;
    }
    if (invert_) is_match = !is_match;
    switch (behavior_) {
      case Behavior::Removed:
        if (!is_match) push(begin, end);
        break;
      case Behavior::Isolated:
        push(begin, end);
        break;
      case Behavior::Contiguous:  // extend the last piece while the match flag repeats
        if (is_match == previous_match_ && has_last_) last().end = end;
        else push(begin, end);
        break;
      case Behavior::MergedWithPrevious:  // a match joins the piece before it, unless that was a match
        if (is_match && !previous_match_ && has_last_) last().end = end;
        else push(begin, end);
        break;
      case Behavior::MergedWithNext:  // a match joins the segment after it, unless that is a match
        if (pending_) {
          if (pending_match_ && !is_match) begin = pending_begin_;
          else push(pending_begin_, pending_end_);
        }
        pending_ = true, pending_begin_ = begin, pending_end_ = end, pending_match_ = is_match;
        break;
    }
    previous_match_ = is_match;
  }

  // A whole piece (not empty) that is one gap: segment(begin, end, false) and finish() in
  // one -- the piece itself, or nothing when inverted (then a match) and removed.  (One
  // call a piece, not two: pipelines of one-word pieces, t5's and falcon's, make many.)
  void whole(uint32_t begin, uint32_t end) {
    if (!invert_ || behavior_ != Behavior::Removed) {
      out_.emplace_back();
      out_.back().begin = begin;
      out_.back().end = end;
    }
    first_ = out_.size();
  }

  // After the piece's last segment: drops empty pieces and resets for the next piece.
  void finish() {
    if (pending_) push(pending_begin_, pending_end_);
    if (empty_) {
      size_t w = first_;
      for (size_t r = first_; r < out_.size(); r++)
        if (out_[r].end > out_[r].begin) out_[w++] = out_[r];
      out_.resize(w);
    }
    first_ = out_.size();
    has_last_ = pending_ = previous_match_ = empty_ = false;
  }

 private:
  Piece& last() { return out_.back(); }
  void push(uint32_t b, uint32_t e) {
    // Written field by field: building a Piece on the stack and copying it as one 64-bit
    // value stalls on store forwarding, once per piece of a hot scan.
    out_.emplace_back();
    out_.back().begin = b;
    out_.back().end = e;
    empty_ |= b == e;
    has_last_ = true;
  }

  Behavior behavior_;
  bool invert_, plain_;
  std::vector<Piece>& out_;
  size_t first_ = out_.size();
  bool has_last_ = false, previous_match_ = false, empty_ = false;
  bool pending_ = false, pending_match_ = false;
  uint32_t pending_begin_ = 0, pending_end_ = 0;
};

}  // namespace tagpipe::pretok
