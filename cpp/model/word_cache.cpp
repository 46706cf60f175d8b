#include "model/word_cache.h"

namespace tagpipe {

void WordCache::insert(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t count) {
  if (n == 0 || n > kMaxKey) return;
  const Tier where = tier(n, ids, count);
  if (where == Tier::kShort) return insert_short(p, n, ids, count - 1);
  // (A marker goes in after the entry it points past: inserting that entry may wipe the
  // cache.  A marker whose entry a later wipe took costs only a miss: a wipe takes every tier.)
  if (where == Tier::kMedium) {
    if (insert_medium(p, n, ids, count - 1) && n < 16) insert_short(p, n, nullptr, kMarker);
    return;
  }
  if (insert_long(p, n, ids, count) && n <= kMediumMax && insert_medium(p, n, nullptr, kMediumMarker) && n < 16)
    insert_short(p, n, nullptr, kMarker);
}

// code: the id count less one (ids[0..code]), or kMarker (no ids).
void WordCache::insert_short(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t code) {
  if ((short_count_ + 1) * 2 > short_.size() && !grow_short()) return;  // load <= 1/2
  const ShortKey k = short_key(p, n);
  size_t i = short_hash(k) & short_mask_;
  while (short_[i].k1 != 0) i = (i + 1) & short_mask_;
  Short& e = short_[i];
  e.k0 = k.k0, e.k1 = k.k1 | (uint64_t(code) << 60);
  if (code - kPacked < 2) {  // 5..6 ids: ids 0..2 in the first half, 3..5 in the second
    const uint64_t half[2] = {pack3(ids, 3), pack3(ids + 3, code - 2)};
    std::memcpy(e.ids, half, sizeof half);
  } else {
    for (uint32_t j = 0; j < 4; j++) e.ids[j] = code != kMarker && j <= code ? ids[j] : 0;
  }
  short_count_++;
}

// code: the id count less one (ids[0..code]), or kMediumMarker (no ids).
bool WordCache::insert_medium(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t code) {
  if ((medium_count_ + 1) * 2 > medium_.size() && !grow_medium()) return false;  // load <= 1/2
  const MediumKey k = medium_key(p, n);
  size_t i = medium_hash(k) & medium_mask_;
  while (medium_[i].k[3] != 0) i = (i + 1) & medium_mask_;
  Medium& e = medium_[i];
  const uint32_t count = code == kMediumMarker ? 0 : code + 1;
  for (uint32_t w = 0; w < 4; w++) {
    const uint64_t packed = 3 * w < count ? pack3(ids + 3 * w, count - 3 * w) : 0;
    e.k[w] = k.k[w], e.ids[w] = packed | (uint64_t((code >> w) & 1) << 63);
  }
  medium_count_++;
  return true;
}

namespace {
// The bytes an arena allocates to take `more` elements: it doubles, into a new block held
// beside the old one while it copies.
template <class T, class A>
size_t growth(const std::vector<T, A>& v, size_t more) {
  if (v.size() + more <= v.capacity()) return 0;
  return std::max(v.capacity() * 2, v.size() + more) * sizeof(T);
}
template <class T, class A>
void reserve_doubling(std::vector<T, A>& v, size_t more) {
  if (v.size() + more > v.capacity()) v.reserve(std::max(v.capacity() * 2, v.size() + more));
}
}  // namespace

size_t WordCache::arena_growth(uint32_t n, uint32_t count) const { return growth(keys_, n) + growth(ids_, count); }

bool WordCache::insert_long(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t count) {
  const size_t need = n + count * sizeof(uint32_t);
  if (need > budget_ / 8) return false;  // never let one entry dominate a small budget
  if ((long_count_ + 1) * 2 > long_.size() && !grow_long()) return false;
  if (compute_used() + arena_growth(n, count) > budget_) {
    wipe();
    if (!grow_long() || compute_used() + arena_growth(n, count) > budget_) return false;
  }
  reserve_doubling(keys_, n);
  reserve_doubling(ids_, count);
  const uint64_t h = hash_bytes(p, n);
  size_t i = h & long_mask_;
  while (long_[i].key_len != 0) i = (i + 1) & long_mask_;
  keys_.insert(keys_.end(), p, p + n);
  ids_.insert(ids_.end(), ids, ids + count);
  long_[i] = Long{h, uint32_t(keys_.size() - n), uint32_t(ids_.size() - count), n, count};
  long_count_++;
  account();
  return true;
}

// Doubles a table, or wipes the whole cache first when that would pass the budget.  Past
// its first size a table goes straight to `jump` entries, or to as many as a quarter of the
// budget holds when that is less.
template <class T, class Empty, class Hash>
bool WordCache::grow(HugeTable<T>& table, size_t& mask, size_t jump, Empty empty, Hash hash) {
  size_t size = table.empty() ? 1024 : table.size() * 2;
  if (!table.empty())
    while (size < jump && size * 2 * sizeof(T) <= budget_ / 4) size *= 2;
  if (compute_used() + size * sizeof(T) > budget_) {
    wipe();
    if (!table.empty()) return true;  // (the short tier, from the seed: room for new words)
    size = 1024;
    if (size * sizeof(T) > budget_ / 2) return false;
  }
  HugeTable<T> old;
  old.swap(table);
  table.reset(std::max<size_t>(size, old.size()));
  mask = table.size() - 1;
  for (const T& e : old)
    if (!empty(e)) {
      size_t i = hash(e) & mask;
      while (!empty(table[i])) i = (i + 1) & mask;
      table[i] = e;
    }
  return true;
}

bool WordCache::grow_short() {
  const auto empty = [](const Short& e) { return e.k1 == 0; };
  const auto hash = [](const Short& e) { return short_hash(ShortKey{e.k0, e.k1 & ~kCountBits}); };
  // (the first table's growth is the jump: to the seed's table, when it fits)
  const bool ok = (!short_.empty() && take_seed()) || grow(short_, short_mask_, kJump, empty, hash);
  if (ok) make_hot();
  // The short table's jump says much text is coming: the medium table jumps now too, rather
  // than inside a later encode call.
  if (ok && short_.size() >= kJump && medium_.size() < kMediumJump &&
      compute_used() + (kMediumJump + 1024) * sizeof(Medium) <= budget_) {
    if (medium_.empty()) grow_medium();
    grow_medium();
  }
  account();
  return ok;
}

// The short tier becomes a copy of the seed's table (at least kJump entries), the entries it
// held added unless the seed has them (with the same id: the seed's strings are their own
// token).  False, and nothing changes, when there is no seed, the tier holds it already, or
// the copy would pass a quarter of the budget.
bool WordCache::take_seed() {
  if (!seed_ || seed_->size() == 0 || seeded_) return false;
  const HugeTable<Short>& image = seed_->slots();
  const size_t size = std::max(image.size(), kJump), bytes = size * sizeof(Short);
  // (never smaller than the tier now: its entries and the seed's then fill at most 13/20 of it)
  if (short_.size() >= size || bytes > budget_ / 4 || compute_used() + bytes > budget_) return false;
  HugeTable<Short> old;
  old.swap(short_);
  short_mask_ = size - 1;
  short_count_ = 0;
  auto place = [&](const Short& e) {  // unless the key is there
    const ShortKey k{e.k0, e.k1 & ~kCountBits};
    const Probe q{k, short_hash(k)};
    if (lookup(short_table(), q)) return;
    size_t i = q.h & short_mask_;
    while (short_[i].k1 != 0) i = (i + 1) & short_mask_;
    short_[i] = e;
    short_count_++;
  };
  if (size == image.size()) {
    short_.copy(image);
    short_count_ = seed_->size();
  } else {  // (a small seed: its entries placed one by one)
    short_.reset(size);
    for (const Short& e : image)
      if (e.k1 != 0) place(e);
  }
  seeded_ = true;
  for (const Short& e : old)
    if (e.k1 != 0) place(e);
  return true;
}

// A wipe the budget forces: the cache restarts from the seed, when that fits.
void WordCache::wipe() {
  clear();
  if (take_seed()) make_hot();
  account();
}

// The table of recent hits, once the short tier has grown: up to kHot entries, an eighth of
// the budget.
void WordCache::make_hot() {
  if (!hot_table_.empty()) return;
  size_t n = kHot;
  while (n >= 64 && n * sizeof(Short) > budget_ / 8) n /= 2;
  if (n >= 64 && compute_used() + n * sizeof(Short) <= budget_) {
    hot_table_.reset(n);
    hot_ = hot_table_.begin(), hot_mask_ = n - 1;
  }
}

bool WordCache::grow_medium() {
  const auto empty = [](const Medium& e) { return e.k[3] == 0; };
  const auto hash = [](const Medium& e) { return medium_hash(MediumKey{{e.k[0], e.k[1], e.k[2], e.k[3]}}); };
  const bool ok = grow(medium_, medium_mask_, kMediumJump, empty, hash);
  account();
  return ok;
}

bool WordCache::grow_long() {
  const auto empty = [](const Long& e) { return e.key_len == 0; };
  const auto hash = [](const Long& e) { return e.hash; };
  const bool ok = grow(long_, long_mask_, 0, empty, hash);
  account();
  return ok;
}

void WordCache::clear() {
  hot_table_.reset(0);
  hot_ = hot_one_, hot_mask_ = 0;
  hot_one_[0] = Short{};
  short_.reset(0);
  medium_.reset(0);
  long_.reset(0);
  decltype(side_)().swap(side_);
  decltype(keys_)().swap(keys_);
  decltype(ids_)().swap(ids_);
  short_count_ = medium_count_ = long_count_ = 0;
  short_mask_ = medium_mask_ = long_mask_ = 0;
  seeded_ = false;
  account();
}

void WordCache::set_budget(size_t bytes) {
  budget_ = bytes;
  if (compute_used() > budget_) wipe();
}

uint64_t* WordCache::side_bits(size_t bits) {
  if (side_.empty()) {
    if (compute_used() + bits / 8 > budget_) return nullptr;
    side_.assign(bits / 64, 0);
    account();
  }
  return side_.data();
}

}  // namespace tagpipe
