#include "model/wordpiece.h"

#include "common/utf8.h"

namespace tagpipe {

namespace {
std::vector<std::pair<std::string_view, uint32_t>> entries_of(const StringTable& vocab) {
  std::vector<std::pair<std::string_view, uint32_t>> out;
  vocab.for_each([&](std::string_view key, uint32_t id) { out.emplace_back(key, id); });
  return out;
}
}  // namespace

WordPiece::WordPiece(const StringTable& vocab, WordPieceOptions options)
    : trie_(entries_of(vocab)), opt_(std::move(options)) {
  // With an empty prefix the continuation matches are the vocabulary itself (node 0).
  cont_root_ = trie_.walk(reinterpret_cast<const uint8_t*>(opt_.prefix.data()), opt_.prefix.size());
}

bool WordPiece::encode(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>* spans) const {
  const size_t mark = ids.size(), span_mark = spans ? spans->size() : 0;
  auto unk = [&] {  // the whole piece is one unk token (an error when there is none)
    ids.resize(mark);
    if (spans) spans->resize(span_mark);
    if (!opt_.unk_id) return false;
    ids.push_back(*opt_.unk_id);
    if (spans) spans->push_back({0, n});
    return true;
  };
  if (utf8_chars(s, n) > opt_.max_chars) return unk();
  // Greedy longest match first.  A vocabulary string is valid UTF-8, so a match always ends
  // on a character boundary, as the oracle's character-by-character shortening does.
  const uint32_t none = trie_.no_value();
  uint32_t start = 0;
  while (start < n) {
    uint32_t node = start == 0 ? 0 : cont_root_;
    uint32_t best_end = start, best_id = 0;
    for (uint32_t i = start; i < n && node != ByteTrie::kNone; i++) {
      node = trie_.child(node, s[i]);
      if (node != ByteTrie::kNone && trie_.value(node) != none) best_end = i + 1, best_id = trie_.value(node);
    }
    if (best_end == start) return unk();  // no match here: the whole piece is unk
    ids.push_back(best_id);
    if (spans) spans->push_back({start, best_end});
    start = best_end;
  }
  return true;
}

bool WordPiece::encode_spans(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>& spans,
                             PieceScratch&) const {
  return encode(s, n, ids, &spans);
}

bool WordPiece::encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, PieceScratch&) const {
  for (size_t j = 0; j < count; j++) {
    jobs[j].first = uint32_t(ids.size());
    if (!encode(jobs[j].s, jobs[j].n, ids)) return false;
    jobs[j].count = uint32_t(ids.size()) - jobs[j].first;
  }
  return true;
}

std::optional<uint32_t> WordLevel::id_of(const uint8_t* s, uint32_t n) const {
  const std::optional<uint32_t> id = vocab_.get(s, n);
  return id ? id : unk_id_;
}

bool WordLevel::encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, PieceScratch&) const {
  for (size_t j = 0; j < count; j++) {
    const std::optional<uint32_t> id = id_of(jobs[j].s, jobs[j].n);
    if (!id) return false;  // the oracle: "Missing [UNK] token from the vocabulary"
    jobs[j].first = uint32_t(ids.size());
    jobs[j].count = 1;
    ids.push_back(*id);
  }
  return true;
}

bool WordLevel::encode_spans(const uint8_t* s, uint32_t n, std::vector<uint32_t>& ids, std::vector<TokenSpan>& spans,
                             PieceScratch&) const {
  const std::optional<uint32_t> id = id_of(s, n);
  if (!id) return false;
  ids.push_back(*id);
  spans.push_back({0, n});
  return true;
}

}  // namespace tagpipe
