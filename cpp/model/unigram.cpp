#include "model/unigram.h"

#include <cstdio>
#include <limits>

#include "common/utf8.h"

namespace tagpipe {
namespace {
std::vector<std::pair<std::string_view, uint32_t>> entries_of(
    const std::vector<std::pair<std::string, double>>& pieces) {
  std::vector<std::pair<std::string_view, uint32_t>> out;
  for (uint32_t id = 0; id < pieces.size(); id++) out.emplace_back(pieces[id].first, id);
  return out;
}
}  // namespace

Unigram::Unigram(const std::vector<std::pair<std::string, double>>& pieces, std::optional<uint32_t> unk_id,
                 bool byte_fallback)
    : trie_(entries_of(pieces)), unk_id_(unk_id), byte_fallback_(byte_fallback) {
  double min_score = std::numeric_limits<double>::infinity();
  score_.reserve(pieces.size());
  for (uint32_t id = 0; id < pieces.size(); id++) {
    const std::string& p = pieces[id].first;
    ids_.put(p, id);
    score_.push_back(pieces[id].second);
    if (pieces[id].second < min_score) min_score = pieces[id].second;
  }
  unk_score_ = min_score - 10.0;  // K_UNK_PENALTY
  for (int b = 0; b < 256; b++) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    const std::optional<uint32_t> id = ids_.get(name);
    all_bytes_[b] = id.has_value();
    byte_ids_[b] = id.value_or(0);
  }
}

bool Unigram::emit(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids) const {
  if (const std::optional<uint32_t> id = ids_.get(s, n)) {
    ids.push_back(*id);
    return true;
  }
  if (byte_fallback_) {
    bool all = true;
    for (uint32_t i = 0; i < n && all; i++) all = all_bytes_[s[i]];
    if (all) {
      for (uint32_t i = 0; i < n; i++) ids.push_back(byte_ids_[s[i]]);
      return true;
    }
  }
  if (!unk_id_) return false;  // MissingUnkId
  ids.push_back(*unk_id_);
  return true;
}

bool Unigram::encode(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, PieceScratch& sc,
                     std::vector<TokenSpan>* out_spans) const {
  if (n == 0) return true;
  // best[e]: the best path's score to byte e, from[e] its last node's start (-1: none yet),
  // id[e] that node's id.
  sc.score.assign(n + 1, 0.0);
  sc.from.assign(n + 1, -1);
  sc.id.assign(n + 1, 0);
  double* best = sc.score.data();
  int32_t* from = sc.from.data();
  uint32_t* node_id = sc.id.data();
  const uint32_t none = trie_.no_value();
  for (uint32_t start = 0; start < n;) {
    const double here = best[start];
    const uint32_t mblen = utf8_length(s[start]);
    bool single = false;
    uint32_t node = 0;
    for (uint32_t i = start; i < n; i++) {
      node = trie_.child(node, s[i]);
      if (node == ByteTrie::kNone) break;
      const uint32_t id = trie_.value(node);
      if (id == none) continue;
      const uint32_t end = i + 1;
      const double candidate = score_[id] + here;
      if (from[end] < 0 || candidate > best[end]) best[end] = candidate, from[end] = int32_t(start), node_id[end] = id;
      if (end - start == mblen) single = true;
    }
    if (!single) {
      const uint32_t end = start + mblen;
      const double candidate = unk_score_ + here;
      if (from[end] < 0 || candidate > best[end]) {
        if (!unk_id_) return false;  // MissingUnkId, raised only when the offer is taken
        best[end] = candidate, from[end] = int32_t(start), node_id[end] = *unk_id_;
      }
    }
    start += mblen;
  }
  // Backtrack, fusing runs of unk nodes; the strings come out last first.
  std::vector<uint32_t>& spans = sc.spans;  // (begin, end, kUnkRun or 0) of each string, last first
  spans.clear();
  constexpr uint32_t kUnkRun = 1;
  const bool fuse = unk_id_.has_value();
  const uint32_t unk = unk_id_.value_or(0);
  for (uint32_t end = n; end > 0;) {
    const uint32_t begin = uint32_t(from[end]);
    const bool is_unk = fuse && node_id[end] == unk;
    if (is_unk && !spans.empty() && spans[spans.size() - 1] == kUnkRun) {
      spans[spans.size() - 3] = begin;  // extend the open unk run to the left
    } else {
      spans.push_back(begin), spans.push_back(end), spans.push_back(is_unk ? kUnkRun : 0);
    }
    end = begin;
  }
  for (size_t k = spans.size(); k >= 3; k -= 3) {
    const uint32_t begin = spans[k - 3], end = spans[k - 2];
    const size_t first = ids.size();
    // A piece's own node: the oracle looks its string up again and finds the same (last)
    // id the trie holds.  An unk run: its string is looked up (it may be a piece).
    if (spans[k - 1] != kUnkRun) ids.push_back(node_id[end]);
    else if (!emit(s + begin, end - begin, ids)) return false;
    if (out_spans) out_spans->insert(out_spans->end(), ids.size() - first, TokenSpan{begin, end});
  }
  return true;
}

bool Unigram::encode_spans(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>& spans,
                           PieceScratch& scratch) const {
  return encode(s, n, ids, scratch, &spans);
}

bool Unigram::encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, PieceScratch& sc) const {
  for (size_t j = 0; j < count; j++) {
    jobs[j].first = uint32_t(ids.size());
    if (!encode(jobs[j].s, jobs[j].n, ids, sc)) return false;
    jobs[j].count = uint32_t(ids.size()) - jobs[j].first;
  }
  return true;
}

}  // namespace tagpipe
