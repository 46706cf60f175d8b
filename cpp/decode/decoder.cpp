#include "decode/decoder.h"

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <unordered_set>

#include "decode/stages.h"
#include "decode/utf8.h"
#include "encode/thread_pool.h"

namespace tagpipe::decode {
namespace {

using Kind = Step::Kind;

// A step that maps each token to one token by itself: it may be folded into the vocabulary.
// ByteLevel's per-token half is one too; the join that follows it is not.
bool per_token(Kind k) {
  return k == Kind::Replace || k == Kind::Metaspace || k == Kind::WordPiece || k == Kind::BPEDecoder ||
         k == Kind::Strip || k == Kind::ByteLevel;
}

Scratch& scratch() {
  thread_local Scratch s;
  return s;
}

void join(const Tokens& tokens, std::string_view sep, std::string& out) {
  out.clear();
  for (size_t i = 0; i < tokens.size(); i++) {
    if (i) out.append(sep);
    out.append(tokens[i]);
  }
}

}  // namespace

bool map_token(const Step& s, std::string_view in, bool first, bool last, std::string& out) {
  switch (s.kind) {
    case Kind::ByteLevel:
      byte_level_token(in, out);
      return true;
    case Kind::Metaspace:
      metaspace_token(s, in, first, out);
      return true;
    case Kind::WordPiece:
      wordpiece_token(s, in, first, out);
      return true;
    case Kind::BPEDecoder:
      bpe_token(s, in, last, out);
      return true;
    case Kind::Replace:
      replace_token(s, in, out);
      return true;
    case Kind::Strip: {
      std::string_view kept;
      if (!strip_token(s, in, &kept)) return false;
      out.append(kept);
      return true;
    }
    default:
      throw std::logic_error("map_token: not a per-token decoder");
  }
}

Decoder::Decoder(DecoderSpec&& spec) : steps_(std::move(spec.steps)), sep_(spec.join_with_space ? " " : "") {
  for (const Step& s : steps_) {
    if ((s.kind == Kind::Metaspace && s.replacement.empty()) || (s.kind == Kind::Strip && s.content.empty()))
      throw std::invalid_argument("decoder: a Metaspace replacement or Strip content must be one character");
  }
  // The folded head: the leading per-token steps, up to and with the first ByteLevel.
  while (head_ < steps_.size() && per_token(steps_[head_].kind)) {
    const Step& s = steps_[head_++];
    head_first_ |= s.kind == Kind::WordPiece || (s.kind == Kind::Metaspace && s.prepended);
    head_last_ |= s.kind == Kind::BPEDecoder;
    if (s.kind == Kind::ByteLevel) {
      tail_.push_back({Stage::kLossyJoin, &s});
      break;
    }
  }
  for (size_t i = head_; i < steps_.size(); i++) {
    const Step& s = steps_[i];
    const Stage::Op op = s.kind == Kind::ByteLevel      ? Stage::kByteLevel
                         : s.kind == Kind::ByteFallback ? Stage::kByteFallback
                         : s.kind == Kind::CTC          ? Stage::kCtc
                         : s.kind == Kind::Fuse         ? Stage::kFuse
                                                        : Stage::kMap;
    tail_.push_back({op, &s});
  }

  // The tokens by id (an added token over the model's), their special flag, the folded table.
  auto& tokens = spec.model;
  tokens.insert(tokens.end(), std::make_move_iterator(spec.added.begin()), std::make_move_iterator(spec.added.end()));
  uint32_t top = 0;
  for (const auto& t : tokens) top = std::max(top, t.first);
  const size_t bound = tokens.empty() ? 0 : size_t(top) + 1;
  if (bound > 4 * tokens.size() + (size_t(1) << 20)) throw std::invalid_argument("decoder: the ids are too sparse");
  std::vector<uint32_t> which(bound, UINT32_MAX);
  for (size_t i = 0; i < tokens.size(); i++) which[tokens[i].first] = uint32_t(i);  // (a later one wins)
  const std::unordered_set<std::string> special(spec.special.begin(), spec.special.end());
  raw_.reset(bound);
  if (head_) folded_.reset(bound);
  std::string out, tmp;
  for (uint32_t id = 0; id < bound; id++) {
    if (which[id] == UINT32_MAX) continue;
    const std::string& token = tokens[which[id]].second;
    raw_.put(id, token, special.count(token) ? Table::kSpecial : 0);
    if (!head_) continue;
    out.clear();
    const bool ok = map_head(token, false, false, out, tmp);
    folded_.put(id, ok ? std::string_view(out) : std::string_view(), ok ? 0 : Table::kPanics);
  }
  raw_.finish();
  if (head_) folded_.finish();
}

// The folded steps on one token (out: the result; tmp: scratch).
bool Decoder::map_head(std::string_view raw, bool first, bool last, std::string& out, std::string& tmp) const {
  out.assign(raw);
  for (size_t i = 0; i < head_; i++) {
    tmp.clear();
    if (!map_token(steps_[i], out, first, last, tmp)) return false;
    out.swap(tmp);
  }
  return true;
}

// s.a: the tokens of these ids through the folded steps.
Decoder::Result Decoder::tokens_of(const uint32_t* ids, size_t n, bool skip_special, Scratch& s) const {
  const uint8_t drop = skip_special ? Table::kSpecial : 0;
  s.kept.clear();
  for (size_t i = 0; i < n; i++) {
    const uint8_t f = raw_.flags(ids[i]);
    if ((f & Table::kPresent) && !(f & drop)) s.kept.push_back(ids[i]);
  }
  s.a.clear();
  const size_t m = s.kept.size();
  if (!head_) {
    for (uint32_t id : s.kept) s.a.push_back(raw_.get(id));
    return kOk;
  }
  for (size_t i = 0; i < m; i++) {
    const uint32_t id = s.kept[i];
    const bool first = i == 0, last = i + 1 == m;
    if ((first && head_first_) || (last && head_last_)) {
      if (!map_head(raw_.get(id), first, last, s.text, s.tmp)) return kPanics;
      s.a.push_back(s.arena.copy(s.text));
    } else {
      if (folded_.flags(id) & Table::kPanics) return kPanics;
      s.a.push_back(folded_.get(id));
    }
  }
  return kOk;
}

// The steps that run per call, s.a -> out.  A last step that joins writes out directly.
Decoder::Result Decoder::run_tail(Scratch& s, std::string& out) const {
  Tokens* in = &s.a;
  Tokens* next = &s.b;
  for (size_t k = 0; k < tail_.size(); k++) {
    const Stage& st = tail_[k];
    const bool final = k + 1 == tail_.size();
    next->clear();
    switch (st.op) {
      case Stage::kMap:
        for (size_t i = 0; i < in->size(); i++) {
          s.tmp.clear();
          if (!map_token(*st.step, (*in)[i], i == 0, i + 1 == in->size(), s.tmp)) return kPanics;
          next->push_back(s.tmp == (*in)[i] ? (*in)[i] : s.arena.copy(s.tmp));
        }
        break;
      case Stage::kLossyJoin:
      case Stage::kByteLevel:
      case Stage::kFuse: {
        std::string& bytes = st.op == Stage::kFuse && final ? out : s.tmp;
        bytes.clear();
        for (const std::string_view t : *in) {
          if (st.op == Stage::kByteLevel) {
            byte_level_token(t, bytes);
          } else {
            bytes.append(t);
          }
        }
        if (st.op == Stage::kFuse) {
          if (final) return kOk;
          next->push_back(s.arena.copy(bytes));
          break;
        }
        if (final && is_utf8(bytes)) {  // (the usual case: no copy)
          out.swap(bytes);
          return kOk;
        }
        std::string& text = final ? out : s.text;
        text.clear();
        append_lossy(text, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
        if (final) return kOk;
        next->push_back(s.arena.copy(text));
        break;
      }
      case Stage::kByteFallback:
        byte_fallback(*in, *next, s.arena, s.tmp);
        break;
      case Stage::kCtc:
        ctc(*st.step, *in, *next, s.arena, s.tmp);
        break;
    }
    std::swap(in, next);
  }
  join(*in, sep_, out);
  return kOk;
}

Decoder::Result Decoder::decode(const uint32_t* ids, size_t n, bool skip_special, std::string& out) const {
  Scratch& s = scratch();
  s.arena.clear();
  out.clear();
  const Result r = tokens_of(ids, n, skip_special, s);
  return r == kOk ? run_tail(s, out) : r;
}

void Decoder::decode_batch(const std::vector<Doc>& docs, bool skip_special, int threads,
                           std::vector<std::string>& results, std::vector<uint8_t>& status) const {
  results.assign(docs.size(), std::string());
  status.assign(docs.size(), kOk);
  constexpr size_t kChunk = 16;  // documents a thread takes at a time
  std::atomic<size_t> next{0};
  auto work = [&](int) {
    for (size_t first; (first = next.fetch_add(kChunk)) < docs.size();)
      for (size_t i = first; i < std::min(docs.size(), first + kChunk); i++)
        status[i] = decode(docs[i].ids, docs[i].size, skip_special, results[i]);
  };
  const size_t chunks = (docs.size() + kChunk - 1) / kChunk;
  const int n = int(std::min<size_t>(size_t(std::max(threads, 1)), chunks));
  if (n <= 1) {
    work(0);
  } else {
    parallel_for_threads(n, work);
  }
}

}  // namespace tagpipe::decode
