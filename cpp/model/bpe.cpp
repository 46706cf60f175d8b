#include "model/bpe.h"

#include <algorithm>
#include <type_traits>

#include "model/bpe_cuts.h"
#include "model/bpe_symbols.h"

namespace tagpipe {
namespace {

constexpr uint32_t kScanMax = BpeMerger::kScanMax;

// The model for the pieces of one form (model/bpe_symbols.h).
template <class Form>
class BpeModel final : public Bpe {
 public:
  static constexpr bool kByteLevel = std::is_same_v<Form, ByteLevel>;
  BpeModel(StringTable vocab, const std::vector<BpeMerge>& merges, BpeOptions options);

  void encode(const uint8_t* s, uint32_t n, std::vector<uint32_t>& out, BpeScratch& sc) const override;
  void encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, BpeScratch& sc) const override;
  bool cuts(const uint8_t* s, uint32_t n, uint64_t h, std::vector<uint32_t>& at) const override;
  bool refine(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at) const override;
  const std::string& cut_rule() const override { return cuts_.why_not(); }
  std::string cut_exception() const override { return cuts_.exception(); }

 private:
  // ignore_merges: the id of a piece that is itself a vocabulary string, else nullopt.
  std::optional<uint32_t> whole_piece(const uint8_t* s, uint32_t n) const;
  std::optional<uint32_t> whole_piece(const uint8_t* s, uint32_t n, uint64_t h) const;  // h = hash_bytes(s, n)
  // encode() without ignore_merges' whole-piece lookup: the merges alone.
  void encode_merges(const uint8_t* s, uint32_t n, std::vector<uint32_t>& out, BpeScratch& sc) const;
  // The general path: the symbols one character at a time, then merged.
  void char_symbols(const uint8_t* s, uint32_t n, BpeScratch& sc) const;
  // unk_pending: an unk token is due before the next symbol (with fuse_unk, one for a run).
  void add_char(const uint8_t* c, uint32_t len, bool first, bool last, BpeScratch& sc, bool& unk_pending) const;
  void merge_symbols(MergeScratch& sc, std::vector<uint32_t>& out) const;

  void build_long_strings();
  void build_differ();
  void build_seed();
  void build_cjk();

  BpeVocab v_;
  BpeSymbols<Form> symbols_;
  BpeCuts<Form> cuts_;
  // ignore_merges: the hashes of the vocabulary strings of 16+ bytes, in a table small
  // enough to stay in the CPU's cache -- a long piece (a Chinese clause) is seldom one, and
  // is ruled out without a probe of the vocabulary.
  HashSet long_strings_;
  DifferingStrings differ_;
};

template <class Form>
BpeModel<Form>::BpeModel(StringTable vocab, const std::vector<BpeMerge>& merges, BpeOptions options)
    : Bpe(kByteLevel), v_(std::move(vocab), merges, std::move(options)), symbols_(v_), cuts_(v_, symbols_) {
  if (v_.opt.ignore_merges) build_long_strings();
  // (the differing strings: the seed leaves them out; with ignore_merges the cuts need them)
  if (v_.shortcuts() && (!v_.opt.ignore_merges || cuts_.exact())) build_differ();
  build_seed();
  if (kByteLevel && cuts_.exact()) build_cjk();
}

template <class Form>
std::optional<uint32_t> BpeModel<Form>::whole_piece(const uint8_t* s, uint32_t n) const {
  return v_.opt.ignore_merges ? whole_piece(s, n, hash_bytes(s, n)) : std::nullopt;
}

template <class Form>
std::optional<uint32_t> BpeModel<Form>::whole_piece(const uint8_t* s, uint32_t n, uint64_t h) const {
  if (!v_.opt.ignore_merges) return std::nullopt;
  if (n >= 16 && !long_strings_.may_hold(h)) return std::nullopt;
  return symbols_.strings().get(s, n, h);
}

template <class Form>
void BpeModel<Form>::encode(const uint8_t* s, uint32_t n, std::vector<uint32_t>& out, BpeScratch& sc) const {
  if (n == 0) return;
  if (const std::optional<uint32_t> id = whole_piece(s, n)) {
    out.push_back(*id);
    return;
  }
  encode_merges(s, n, out, sc);
}

template <class Form>
void BpeModel<Form>::encode_many(BpeJob* jobs, size_t count, std::vector<uint32_t>& ids, BpeScratch& sc) const {
  BpeMerger::SmallWord words[kMaxJobs];
  BpeJob* owner[kMaxJobs];
  size_t live = 0;
  for (size_t j = 0; j < count; j++) {
    BpeJob& job = jobs[j];
    job.first = uint32_t(ids.size());
    job.count = 0;
    if (job.n == 0) continue;
    // A short vocabulary string that is its own token: the seed says so in one probe (the
    // encoder prefetched its slot at the cache miss).  With ignore_merges the seed holds
    // every string of 1..15 bytes: whole_piece's answer for them.
    const bool seeded = job.n - 1 < 15 && seed_.size() != 0;
    const std::optional<uint32_t> whole = !seeded        ? whole_piece(job.s, job.n)
                                          : job.not_seed ? std::nullopt
                                                         : seed_.find(job.s, job.n);
    if (whole) {
      ids.push_back(*whole);
      job.count = 1;
      job.whole = true;
      continue;
    }
    uint32_t init[kScanMax], m = 0;
    if (live < kMaxJobs && symbols_.small(job.s, job.n, init, m) && m) {
      v_.merger.start(words[live], init, m);
      owner[live++] = &job;
      continue;
    }
    encode_merges(job.s, job.n, ids, sc);  // (the rare ones, one after another)
    job.count = uint32_t(ids.size()) - job.first;
  }
  v_.merger.merge_round_robin(words, owner, live, [&](const BpeMerger::SmallWord& w, BpeJob* job) {
    job->first = uint32_t(ids.size());
    v_.merger.emit(w, ids);
    job->count = uint32_t(ids.size()) - job->first;
  });
}

template <class Form>
void BpeModel<Form>::encode_merges(const uint8_t* s, uint32_t n, std::vector<uint32_t>& out, BpeScratch& sc) const {
  if (n == 0) return;
  uint32_t ids[kScanMax], count = 0;
  if (symbols_.small(s, n, ids, count)) {
    if (count) v_.merger.merge_small(ids, count, out);
    return;
  }
  sc.merge.symbols.clear();
  if (v_.shortcuts()) {  // a long word whose symbols the tables give
    if (symbols_.large(s, n, sc.initial, sc.merge)) {
      v_.merger.merge_large(sc.merge, out);
      return;
    }
    sc.merge.symbols.clear();
  }
  char_symbols(s, n, sc);
  merge_symbols(sc.merge, out);
}

template <class Form>
void BpeModel<Form>::char_symbols(const uint8_t* s, uint32_t n, BpeScratch& sc) const {
  bool unk_pending = false;
  for (uint32_t i = 0; i < n;) {
    const uint32_t len = symbols_.char_length(s, i, n);
    add_char(s + i, len, i == 0, i + len == n, sc, unk_pending);
    i += len;
  }
  if (unk_pending) sc.merge.push(*v_.opt.unk_id);
}

// One character of the piece (merge_word's loop body): c[0..len) in the piece's content.
template <class Form>
void BpeModel<Form>::add_char(const uint8_t* c, uint32_t len, bool first, bool last, BpeScratch& sc,
                              bool& unk_pending) const {
  bool fast;
  uint32_t id = symbols_.char_id(c, len, first, last, fast);
  std::string& s = sc.text;
  if (!fast || id == v_.absent) {  // the character's vocabulary string, with prefix / suffix
    s.clear();
    if (!first) s += v_.opt.prefix;
    symbols_.append_char(c, len, s);
    if (last) s += v_.opt.suffix;
    if (!fast) id = v_.strings.get(s).value_or(v_.absent);
  }
  if (id != v_.absent) {
    if (unk_pending) sc.merge.push(*v_.opt.unk_id), unk_pending = false;
    sc.merge.push(id);
    return;
  }
  if (v_.opt.byte_fallback && v_.byte_fallback_ok(reinterpret_cast<const uint8_t*>(s.data()), uint32_t(s.size()))) {
    // (the oracle leaves a pending unk where it is: it follows these bytes)
    for (unsigned char b : s) sc.merge.push(v_.byte_token[b]);
    return;
  }
  if (v_.opt.unk_id) {
    if (unk_pending && !v_.opt.fuse_unk) sc.merge.push(*v_.opt.unk_id);
    unk_pending = true;
  }
  // no unk token: the character is dropped
}

template <class Form>
void BpeModel<Form>::merge_symbols(MergeScratch& sc, std::vector<uint32_t>& out) const {
  if (sc.symbols.empty()) return;
  sc.symbols.back().next = int32_t(sc.symbols.size());
  if (v_.duplicate_ids) return v_.merger.merge_queue(sc, out);  // (see model/bpe_merge.h)
  if (sc.symbols.size() > kScanMax) return v_.merger.merge_large(sc, out);
  uint32_t ids[kScanMax];
  for (size_t i = 0; i < sc.symbols.size(); i++) ids[i] = sc.symbols[i].id;
  v_.merger.merge_small(ids, uint32_t(sc.symbols.size()), out);
}

template <class Form>
bool BpeModel<Form>::cuts(const uint8_t* s, uint32_t n, uint64_t h, std::vector<uint32_t>& at) const {
  at.clear();
  if (!cuts_.exact() || (h ? whole_piece(s, n, h) : whole_piece(s, n))) return false;  // (ignore_merges: one token)
  return cuts_.find(s, n, at, &differ_);
}

template <class Form>
bool BpeModel<Form>::refine(const uint8_t* s, uint32_t n, std::vector<uint32_t>& at) const {
  at.clear();
  if (kByteLevel || !cuts_.exact() || whole_piece(s, n)) return false;
  return cuts_.refine(s, n, at, &differ_);
}

// -- load-time preparation ------------------------------------------------------------------

template <class Form>
void BpeModel<Form>::build_long_strings() {
  symbols_.strings().for_each([&](std::string_view key, uint32_t) {
    if (key.size() >= 16) long_strings_.add(hash_bytes(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
  });
}

// BPE on every vocabulary string, kMaxJobs at a time round robin as in encode_many: each
// string's merge-table lookups miss the CPU caches, and one string alone waits for them one
// after another.
template <class Form>
void BpeModel<Form>::build_differ() {
  struct Entry {
    std::string_view key;
    uint32_t id;
  };
  // Only the seed's strings (1..15 bytes) need the check, unless ignore_merges' cuts ask
  // about any part.  Past kVerifyMax bytes a string is counted as differing unchecked: that
  // only keeps a cut from leaving it (the whole piece is BPE'd), and BPE on it would cost
  // tens of bytes per byte of it at load (issue 42 item 5: one 200 MB string).
  constexpr size_t kVerifyMax = 4096;
  std::vector<Entry> all;
  symbols_.strings().for_each([&](std::string_view key, uint32_t id) {
    if (key.size() < 2 || (!v_.opt.ignore_merges && key.size() > 15)) return;
    if (key.size() > kVerifyMax) differ_.add(key, id);
    else all.push_back({key, id});
  });
  BpeScratch sc;
  std::vector<uint32_t> out;
  auto check = [&](const Entry& e) {
    if (out.size() != 1 || out[0] != e.id) differ_.add(e.key, e.id);
    out.clear();
  };
  BpeMerger::SmallWord words[kMaxJobs];
  const Entry* owner[kMaxJobs];
  for (size_t first = 0; first < all.size(); first += kMaxJobs) {
    size_t live = 0;
    for (size_t j = first; j < std::min(all.size(), first + kMaxJobs); j++) {
      const auto* t = reinterpret_cast<const uint8_t*>(all[j].key.data());
      const uint32_t n = uint32_t(all[j].key.size());
      uint32_t init[kScanMax], m = 0;
      if (symbols_.small(t, n, init, m) && m) {
        v_.merger.start(words[live], init, m);
        owner[live++] = &all[j];
      } else {
        encode_merges(t, n, out, sc);
        check(all[j]);
      }
    }
    v_.merger.merge_round_robin(words, owner, live, [&](const BpeMerger::SmallWord& w, const Entry* e) {
      v_.merger.emit(w, out);
      check(*e);
    });
  }
}

// The word seed: without a prefix or suffix (they make a piece's symbols differ from its
// string's) and shared ids (the test by id says nothing).  With ignore_merges a piece that
// is a vocabulary string is its token, whatever its merges.
template <class Form>
void BpeModel<Form>::build_seed() {
  if (!v_.shortcuts()) return;
  const StringTable& table = symbols_.strings();
  const bool all = v_.opt.ignore_merges;
  size_t count = 0;
  table.for_each([&](std::string_view key, uint32_t) { count += key.size() - 1 < 15; });
  seed_.reserve(count);
  table.for_each([&](std::string_view key, uint32_t id) {
    if (key.size() - 1 < 15 && (all || !differ_.table.get(key))) seed_.put(key, id);
  });
}

template <class Form>
void BpeModel<Form>::build_cjk() {
  BpeScratch sc;
  cjk_.build([&](const uint8_t* ch, std::vector<uint32_t>& ids) { BpeModel::encode(ch, 3, ids, sc); });
}

}  // namespace

std::unique_ptr<const Bpe> Bpe::make(StringTable vocab, const std::vector<BpeMerge>& merges, BpeOptions options,
                                     bool byte_level) {
  if (byte_level) return std::make_unique<BpeModel<ByteLevel>>(std::move(vocab), merges, std::move(options));
  return std::make_unique<BpeModel<WholeChars>>(std::move(vocab), merges, std::move(options));
}

}  // namespace tagpipe
