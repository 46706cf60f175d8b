// The word cache: piece bytes -> token ids, bounded by a byte budget.  Layout, markers and
// growth: docs/design/word-cache.md.
//
// One cache serves one thread at a time (the encoder hands them out), so lookups take no
// lock, and a hit copies ids out and allocates nothing.  Three tiers by size: short pieces
// (1..15 bytes, up to 6 ids) and medium ones (up to kMediumMax bytes, 12 ids) inline in
// fixed entries, the rest in a table over arenas.  A piece in a later tier leaves a marker
// in the earlier ones, so a miss is known after one probe.  An insert that would pass the
// budget wipes the whole cache.  Past its first small table the short tier starts from the
// word seed's table (model/word_seed.h: every vocabulary string that is its own token, each
// verified at load by the exact BPE), and so does every wipe the budget forces.  Ids never
// depend on the cache, only speed does.
//
// The API: probe / request (a piece's key and hash, and its slot prefetched, a few pieces
// ahead), find (the inline tiers) and find_long, View (a run of lookups), insert and
// prefetch_insert, set_seed and seeded, clear, used, and the budget requests between threads.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <vector>

#include "common/pages.h"
#include "common/read_ahead.h"
#include "model/hash.h"
#include "model/huge_table.h"
#include "model/packed_ids.h"
#include "model/piece_key.h"
#include "model/word_seed.h"

namespace tagpipe {

class WordCache {
 public:
  static constexpr uint32_t kMaxKey = 255;    // longer pieces are never cached
  static constexpr uint32_t kMediumMax = 31;  // the longest piece of the inline tiers
  static constexpr uint32_t kRoom = 12;       // the ids a find may write at out
  static constexpr uint32_t kMiss = 0;        // find: the piece is not cached
  static constexpr uint32_t kNotInline = 16;  // find: ask find_long (past every hit's count)

  explicit WordCache(size_t budget_bytes) : budget_(budget_bytes) {}

  // -- lookups ------------------------------------------------------------------------------

  // A piece's key and hash, computed once: for 1..15 bytes its short key and hash, for up
  // to kMediumMax its medium hash, for up to kMaxKey hash_bytes(p, n) (model/hash.h).
  struct Probe {
    ShortKey k;
    uint64_t h;
  };
  static Probe probe(const uint8_t* p, uint32_t n) {
    Probe q{};
    fill(p, n, q);
    return q;
  }
  // q = probe(p, n), and the slot a find will read requested (prefetched).
  void request(const uint8_t* p, uint32_t n, Probe& q) const;

  // The ids of the piece p[0..n), q = probe(p, n): their count (1..kRoom) when an inline
  // tier holds them, written at out[0..count) (out has room for kRoom; the slots past the
  // count are garbage); kMiss; or kNotInline -- the long tier may hold them (find_long).
  // kRecent: through the small table of recent hits first, for lookups whose slot was not
  // requested a few pieces before (the parts of a cut piece).
  template <bool kRecent>
  uint32_t find(const uint8_t* p, uint32_t n, const Probe& q, uint32_t* out) const {
    uint32_t c = kShortLater;
    if (n < 16) {
      c = find_short<kRecent>(q, out);
      if (c - 1 < kShortIds) {
        if (c > 4) unpack(out);
        return c;
      }
      if (c == 0) return kMiss;
    } else if (n > kMediumMax) {
      return kNotInline;
    }
    if (medium_.empty()) return kMiss;
    const MediumKey key = medium_key(p, n);
    return find_in(medium_table(), key, n >= 16 ? q.h : medium_hash(key), out);
  }
  // The long tier (after find said kNotInline): a hit's ids are ids[0..count), inside the
  // cache (valid until it changes).
  bool find_long(const uint8_t* p, uint32_t n, const Probe& q, const uint32_t*& ids, uint32_t& count) const {
    if (long_.empty() || n > kMaxKey) return false;
    const uint64_t h = n > kMediumMax ? q.h : hash_bytes(p, n);
    for (size_t i = h & long_mask_;; i = (i + 1) & long_mask_) {
      const Long& s = long_[i];
      if (s.key_len == 0) return false;
      if (s.hash == h && s.key_len == n && std::memcmp(keys_.data() + s.key_at, p, n) == 0) {
        ids = ids_.data() + s.ids_at, count = s.ids_len;
        return true;
      }
    }
  }

  class View;

  // -- inserts ------------------------------------------------------------------------------

  // Caches ids[0..count) for p[0..n) (pieces past kMaxKey bytes are not cached).  May wipe
  // the cache first, when the budget has no room.
  void insert(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t count);
  // Requests the slots insert(p, n, ids, count) will write (a batch of inserts, requested
  // first, overlaps their memory reads).
  void prefetch_insert(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t count) const {
    if (n == 0 || n > kMaxKey) return;
    const Tier where = tier(n, ids, count);
    // A short piece's slot was requested for the lookup already.
    if (where == Tier::kShort) return;
    if (n <= kMediumMax) prefetch_medium(medium_hash(medium_key(p, n)));  // (an entry, or a marker)
    if (where == Tier::kLong) prefetch_long(hash_bytes(p, n));
  }

  // -- the seed -----------------------------------------------------------------------------

  // The word seed whose table the short tier takes at its first growth, and at every wipe
  // the budget forces, when a quarter of the budget holds it (take_seed).  Set before use.
  void set_seed(const WordSeed* seed) { seed_ = seed; }
  // Whether the short tier holds the seed's strings now: then a short piece that misses is
  // no seed string.
  bool seeded() const { return seeded_; }

  // -- memory -------------------------------------------------------------------------------

  // Empties the cache (its next table is the small first one: the seed comes at its growth).
  void clear();
  size_t used() const { return used_.load(std::memory_order_relaxed); }  // (from any thread)
  size_t entries() const { return short_count_ + medium_count_ + long_count_; }
  // A zeroed bitset of `bits` bits beside the tables, for the owner's own per-cache state:
  // counted in the budget, freed by every wipe; nullptr when the budget has no room.  (One
  // size per cache: the first call's.)
  uint64_t* side_bits(size_t bits);

  // The budget.  set_budget: by the owning thread, or while nobody owns the cache.  Another
  // thread asks the owner for a new budget or a wipe (ask_rebudget, ask_clear); the owner
  // sees pending() and calls apply.
  void set_budget(size_t bytes);
  size_t budget() const { return budget_; }
  void ask_rebudget() { pending_.store(true, std::memory_order_release); }
  void ask_clear() {
    clear_requested_.store(true, std::memory_order_relaxed);
    pending_.store(true, std::memory_order_release);
  }
  bool pending() const { return pending_.load(std::memory_order_acquire); }
  void apply(size_t bytes, bool still_pending) {
    pending_.store(still_pending, std::memory_order_relaxed);
    if (clear_requested_.exchange(false, std::memory_order_relaxed)) clear();
    set_budget(bytes);
  }

 private:
  // A short entry: the key's two words, with the id count less one in k1's bits 60..62 (0..3;
  // kPacked..kPacked + 1 for 5..6 ids packed three to a half; kMarker: in a later tier), then
  // the ids.  k1 == 0: empty (a real key has its length in k1).
  // (ids: zero past the count; or 5..6 ids packed)
  using Short = ShortSlot;
  static constexpr uint64_t kCountBits = uint64_t(7) << 60;
  static constexpr uint32_t kMarker = 7;
  static constexpr uint32_t kShortIds = 6;
  static constexpr uint32_t kPacked = 4;
  static constexpr uint32_t kShortLater = kMarker + 1;  // find_short: a marker

  // A medium entry: its key's four words (the length in k[3]'s top byte; k[3] == 0: empty),
  // then the ids three to a word; bit 63 of word w is bit w of the id count less one, or
  // kMediumMarker.
  struct MediumKey {
    uint64_t k[4];
  };
  struct Medium {
    uint64_t k[4];
    uint64_t ids[4];
  };
  static constexpr uint32_t kMediumIds = 12;
  static constexpr uint32_t kMediumMarker = kNotInline - 1;

  struct Long {
    uint64_t hash;
    uint32_t key_at, ids_at, key_len, ids_len;  // key_len == 0: empty
  };

  // A table's slots and mask, copied out for a run of lookups (View).
  struct ShortTable {
    const Short* slots;  // nullptr: no table yet
    size_t mask;
  };
  struct MediumTable {
    const Medium* slots;
    size_t mask;
  };
  ShortTable short_table() const { return {short_.empty() ? nullptr : short_.begin(), short_mask_}; }
  MediumTable medium_table() const { return {medium_.empty() ? nullptr : medium_.begin(), medium_mask_}; }

  static MediumKey medium_key(const uint8_t* p, uint32_t n) {  // n in 1..kMediumMax
    MediumKey key{};
    if (may_read_ahead(p, 32)) {
      std::memcpy(key.k, p, 32);
      for (uint32_t w = 0; w < 4; w++) {  // keep bytes 8w..n-1 of word w
        const uint32_t keep = n <= 8 * w ? 0 : std::min<uint32_t>(n - 8 * w, 8);
        key.k[w] &= keep == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * keep)) - 1;
      }
    } else {
      std::memcpy(key.k, p, n);
    }
    key.k[3] |= uint64_t(n) << 56;
    return key;
  }
  static uint64_t medium_hash(const MediumKey& k) {
    const uint64_t a = k.k[0] ^ (k.k[1] * 0x9E3779B97F4A7C15ULL), b = k.k[2] ^ (k.k[3] * 0xC2B2AE3D27D4EB4FULL);
    const unsigned __int128 x = (unsigned __int128)(a ^ (b * 0xD6E8FEB86659FD93ULL)) * 0xBF58476D1CE4E5B9ULL;
    return uint64_t(x >> 64) ^ uint64_t(x);
  }
  static void fill(const uint8_t* p, uint32_t n, Probe& q) {
    if (n < 16) {
      q.k = short_key(p, n);
      q.h = short_hash(q.k);
    } else if (n <= kMediumMax) {
      q.h = medium_hash(medium_key(p, n));
    } else {  // (never cached past kMaxKey: no hash -- a dense line of Chinese is hundreds of bytes)
      q.h = n <= kMaxKey ? hash_bytes(p, n) : 0;
    }
  }
  void prefetch_medium(uint64_t h) const {
    if (!medium_.empty()) __builtin_prefetch(&medium_[h & medium_mask_]);
  }
  void prefetch_long(uint64_t h) const {
    if (!long_.empty()) __builtin_prefetch(&long_[h & long_mask_]);
  }

  // The short lookup: the entry's ids at out (1..4 as they are, 5..6 packed: unpack) and
  // their count; 0 when not cached, kShortLater for a marker.  kRecent: the small
  // direct-mapped table of recent hits first (it stays in L1/L2), whose misses the main
  // table's hit refills.  Not for pieces requested ahead: there its extra load, mispredicted
  // branch and refill cost more than it saved.
  template <bool kRecent>
  uint32_t find_short(const Probe& q, uint32_t* out) const {
    if (short_.empty()) return 0;
    Short& hot = hot_[q.h & hot_mask_];
    if (kRecent && hot.k0 == q.k.k0 && (hot.k1 & ~kCountBits) == q.k.k1) return ids_of(hot, out);
    const Short* e = lookup(short_table(), q);
    if (!e) return 0;
    if (kRecent) hot = *e;
    return ids_of(*e, out);
  }
  // The 5..6 ids a short entry holds packed, as ids_of left them at out[0..4): spread out to
  // out[0..6).  (One loop over both halves, apart from ids_of: two unpack3 calls changed the
  // code of the whole hit loop and slowed it.)
  static void unpack(uint32_t* out) {
    constexpr uint64_t kMask = (uint64_t(1) << kIdBits) - 1;
    uint64_t half[2];
    std::memcpy(half, out, sizeof half);
    for (uint32_t j = 0; j < kShortIds; j++) out[j] = uint32_t((half[j / 3] >> (kIdBits * (j % 3))) & kMask);
  }
  static uint32_t ids_of(const Short& e, uint32_t* out) {
    std::memcpy(out, e.ids, sizeof e.ids);
    return uint32_t(e.k1 >> 60) + 1;
  }
  // The ids at out[0..kMediumIds) (unused ones are garbage) and how many are valid, or
  // kNotInline for a marker.
  static uint32_t ids_of(const Medium& e, uint32_t* out) {
    uint32_t code = 0;
    for (uint32_t w = 0; w < 4; w++) {
      unpack3(e.ids[w], out + 3 * w);  // (bit 63 is past the third id's bits)
      code |= uint32_t(e.ids[w] >> 63) << w;
    }
    return code + 1;
  }
  static const Short* lookup(const ShortTable& t, const Probe& q) {
    for (size_t i = q.h & t.mask;; i = (i + 1) & t.mask) {
      const Short& e = t.slots[i];
      if (e.k0 == q.k.k0 && (e.k1 & ~kCountBits) == q.k.k1) return &e;
      if (e.k1 == 0) return nullptr;
    }
  }
  static const Medium* lookup(const MediumTable& t, const MediumKey& key, uint64_t h) {
    for (size_t i = h & t.mask;; i = (i + 1) & t.mask) {
      const Medium& e = t.slots[i];
      if (((e.k[0] ^ key.k[0]) | (e.k[1] ^ key.k[1]) | (e.k[2] ^ key.k[2]) | (e.k[3] ^ key.k[3])) == 0) return &e;
      if (e.k[3] == 0) return nullptr;
    }
  }
  static uint32_t find_in(const ShortTable& t, const Probe& q, uint32_t* out) {
    const Short* e = lookup(t, q);
    return e ? ids_of(*e, out) : 0;
  }
  static uint32_t find_in(const MediumTable& t, const MediumKey& key, uint64_t h, uint32_t* out) {
    const Medium* e = lookup(t, key, h);
    return e ? ids_of(*e, out) : 0;
  }

  // Which tier insert puts a piece of n bytes (1..kMaxKey) with these ids in: the long one
  // takes more ids, ids of kIdBits or more, or none (a piece whose characters BPE dropped).
  enum class Tier { kShort, kMedium, kLong };
  static Tier tier(uint32_t n, const uint32_t* ids, uint32_t count) {
    if (n < 16 && (count - 1 < 4 || (count - 1 < kShortIds && below_id_bits(ids, count)))) return Tier::kShort;
    if (n <= kMediumMax && count - 1 < kMediumIds && below_id_bits(ids, count)) return Tier::kMedium;
    return Tier::kLong;
  }
  static bool below_id_bits(const uint32_t* ids, uint32_t count) {
    uint32_t any = 0;
    for (uint32_t i = 0; i < count; i++) any |= ids[i];
    return any < (uint32_t(1) << kIdBits);
  }
  void insert_short(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t code);
  bool insert_medium(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t code);
  bool insert_long(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t count);

  template <class T, class Empty, class Hash>
  bool grow(HugeTable<T>& table, size_t& mask, size_t jump, Empty empty, Hash hash);
  bool grow_short();
  bool take_seed();
  void wipe();
  void make_hot();
  bool grow_medium();
  bool grow_long();
  size_t compute_used() const {
    return hot_table_.capacity() * sizeof(Short) + short_.capacity() * sizeof(Short) +
           medium_.capacity() * sizeof(Medium) + long_.capacity() * sizeof(Long) + side_.capacity() * sizeof(uint64_t) +
           keys_.capacity() + ids_.capacity() * sizeof(uint32_t);
  }
  void account() { used_.store(compute_used(), std::memory_order_relaxed); }
  size_t arena_growth(uint32_t n, uint32_t count) const;

  // Growth (docs/design/word-cache.md): the short table goes from its first 1024 entries
  // straight to kJump (4 MiB: fresh pages inside an encode call cost more than the entries
  // they hold), the medium one then to kMediumJump (2 MiB: huge pages).
  static constexpr size_t kJump = size_t(1) << 17;
  static constexpr size_t kMediumJump = size_t(1) << 15;
  static constexpr size_t kHot = 4096;  // the table of recent hits: 128 KiB at most
  mutable Short hot_one_[1] = {};       // (the table of recent hits while there is no room for one)
  HugeTable<Short> hot_table_;
  mutable Short* hot_ = hot_one_;
  size_t hot_mask_ = 0;
  std::atomic<size_t> used_{0};
  std::atomic<bool> pending_{false}, clear_requested_{false};
  HugeTable<Short> short_;
  HugeTable<Medium> medium_;
  std::vector<uint64_t, PageAllocator<uint64_t>> side_;  // (side_bits)
  HugeTable<Long> long_;
  std::vector<uint8_t, PageAllocator<uint8_t>> keys_;
  std::vector<uint32_t, PageAllocator<uint32_t>> ids_;
  size_t short_mask_ = 0, medium_mask_ = 0, long_mask_ = 0;
  size_t short_count_ = 0, medium_count_ = 0, long_count_ = 0, budget_ = 0;
  const WordSeed* seed_ = nullptr;
  bool seeded_ = false;
};

// The inline tiers as they are now, for a run of lookups with no change to the cache in
// between (the encoder's run of hits): their slots and masks stay in registers, where
// WordCache's own calls reload them at every piece (the ids a find writes could, for all the
// compiler knows, have overwritten them).
class WordCache::View {
 public:
  explicit View(const WordCache& c) : cache_(c), short_(c.short_table()), medium_(c.medium_table()) {}
  bool empty() const { return !short_.slots; }  // (no table yet: every find misses)

  // WordCache::request.
  void request(const uint8_t* p, uint32_t n, Probe& q) const {
    if (n < 16) {
      q.k = short_key(p, n);
      q.h = short_hash(q.k);
      if (short_.slots) __builtin_prefetch(&short_.slots[q.h & short_.mask]);
    } else if (n <= kMediumMax) {
      q.h = medium_hash(medium_key(p, n));
      cache_.prefetch_medium(q.h);
    } else if (n <= kMaxKey) {
      q.h = hash_bytes(p, n);
      cache_.prefetch_long(q.h);
    } else {
      q.h = 0;
    }
  }
  // WordCache::find<false>, in a cache that has a short table (!empty()).
  uint32_t find(const uint8_t* p, uint32_t n, const Probe& q, uint32_t* out) const {
    uint32_t c = kShortLater;
    if (n < 16) {
      c = find_in(short_, q, out);
      if (c == 0) return kMiss;
    } else if (n > kMediumMax) {
      return kNotInline;
    }
    if (c - 1 >= 4) {
      if (c - 1 < kShortIds) {
        unpack(out);
      } else {
        if (!medium_.slots) return kMiss;
        c = medium(medium_, p, n, q.h, out);
      }
    }
    return c;
  }

 private:
  // The medium lookup (h: q.h, the medium hash when n >= 16), apart: inline, its registers
  // cost the loop over short pieces.
  __attribute__((noinline)) static uint32_t medium(const MediumTable& t, const uint8_t* p, uint32_t n, uint64_t h,
                                                   uint32_t* out) {
    const MediumKey key = medium_key(p, n);
    return find_in(t, key, n < 16 ? medium_hash(key) : h, out);
  }

  const WordCache& cache_;
  const ShortTable short_;
  const MediumTable medium_;
};

inline void WordCache::request(const uint8_t* p, uint32_t n, Probe& q) const { View(*this).request(p, n, q); }

}  // namespace tagpipe
