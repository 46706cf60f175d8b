// The word cache: piece bytes -> token ids, bounded by a byte budget.
//
// One cache serves one thread at a time (the encoder hands them out), so lookups take no
// lock.  A hit copies the ids into the output and allocates nothing.  Three tiers:
//   - short pieces (up to 15 bytes) with up to 4 ids -- nearly all of them -- live inline
//     in 32-byte entries: the key is the bytes and the length, read as two 64-bit words
//     without touching memory past the piece, and compared as two words; the entry's 16
//     bytes of ids hold 5 or 6 ids too, packed 21 bits each (a short Cyrillic word in
//     GPT-2's vocabulary: 16% of gpt2 Russian's pieces);
//   - medium ones (up to 31 bytes) with up to 12 ids, inline in 64-byte entries (one cache
//     line): the key as four words, the ids packed 21 bits each.  A Russian or Greek word,
//     a line of code's indentation -- in GPT-2's vocabulary a short Cyrillic word is often
//     five ids or more: on gpt2 Russian text half the pieces are medium ones;
//   - the rest in a table over arenas (a probe, then the key's bytes and the ids in two
//     more places: three cache lines).
// A piece that lives in a later tier leaves a marker in each earlier one it could have
// been in, so that a piece missing from its first table is known to be missing without a
// second probe (a second cache miss: on text with many new words, half the lookup time
// went there).
// When an insert would take the cache past its budget, the cache is wiped (a generation
// wipe: counting and evicting would cost the hit path more than occasionally starting
// over).  Results never depend on the cache; only speed does.
//
// Everything the cache allocates counts against its budget, the table of recent hits too
// (it is sized from the budget: a budget below its 128 KiB gets a smaller one, or none).
// Another thread may read used() or ask for a new budget / a wipe while the owner works:
// those requests are applied by the owner (apply), never under its feet.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <cstring>
#include <vector>

#include "common/read_ahead.h"
#include "model/hash.h"
#include "model/huge_table.h"

namespace tagpipe {

class WordCache {
 public:
  static constexpr uint32_t kMaxKey = 255;  // longer pieces are not cached

  explicit WordCache(size_t budget_bytes) : budget_(budget_bytes) {}

  // Only by the thread that owns the cache now (or while nobody does); the encoder calls
  // it under its lock, so other threads may read budget() under that lock.
  void set_budget(size_t bytes) {
    budget_ = bytes;
    if (compute_used() > budget_) clear();
  }
  // Another thread asks the owner to come back for a new budget (the encoder's rebudget)
  // at its next miss, or to wipe the cache; pending() is what the owner checks.
  void request() { pending_.store(true, std::memory_order_release); }
  void request_clear() {
    clear_requested_.store(true, std::memory_order_relaxed);
    pending_.store(true, std::memory_order_release);
  }
  bool pending() const { return pending_.load(std::memory_order_acquire); }
  // The owner: wipes the cache if that was asked for and takes the new budget.
  void apply(size_t bytes, bool still_pending) {
    pending_.store(still_pending, std::memory_order_relaxed);
    if (clear_requested_.exchange(false, std::memory_order_relaxed)) clear();
    set_budget(bytes);
  }
  size_t budget() const { return budget_; }
  // The bytes the cache holds (readable from any thread).
  size_t used() const { return used_.load(std::memory_order_relaxed); }
  size_t entries() const { return short_count_ + medium_count_ + long_count_; }

  // Whether refining a part of a cut piece that this cache missed is worth it (the
  // encoder's Bpe::refine; by the owner only, so per encoder and thread): it pays when the
  // part's new parts all hit -- no BPE at all for it.  Measured, fresh, refining every such
  // part against none (the share of tries that won in brackets): mistral Russian 1.07x and
  // 1.08x (50%), llama-2 Russian 1.11x, 1.00x, 1.01x (38%), llama-2 multilingual 1.02x
  // (18%); gemma-3 Russian 0.96x (12%), multilingual 0.95x (14%).  So: refine while at
  // least one try in five wins, over the last ~1000 tries (halved as they pass 1024);
  // below that one miss in 16 still tries, and a text where it pays again turns it back on.
  struct RefineGate {
    uint32_t tries = 0, wins = 0, skipped = 0;
    bool want() {
      if (tries < 64 || wins * 5 >= tries) return true;
      return (++skipped & 15) == 0;
    }
    void record(bool won) {
      tries++, wins += won;
      if (tries == 1024) tries /= 2, wins /= 2;
    }
  };
  RefineGate refine_gate;

  // The 5..6 ids a short entry holds packed, as ids_of left them at out[0..4): spread out
  // to out[0..6).  (Apart from ids_of: the hit loop's common case stays a 16-byte copy.  It
  // is unpack3 on each half, written as one loop: as two calls it changed the code of the
  // whole hit loop, hit_run, and all-hit gpt2 English ran 5% slower.)
  static void unpack(uint32_t* out) {
    constexpr uint64_t kMask = (uint64_t(1) << kIdBits) - 1;
    uint64_t half[2];
    std::memcpy(half, out, sizeof half);
    for (uint32_t j = 0; j < kShortIds; j++) out[j] = uint32_t((half[j / 3] >> (kIdBits * (j % 3))) & kMask);
  }

  // Whether a cut piece whose parts all hit was seen so before (a bit per medium_hash, in a
  // filter of kSeenBits bits; collisions only cache a piece early).  The encoder caches such
  // a piece whole at its second sighting: a Russian word, cut where no merge joins two
  // letters, recurs; a Chinese clause seldom does (encode/encoder.cpp).
  bool seen_cut(uint64_t h) {
    if (seen_.empty()) {
      if (compute_used() + kSeenBits / 8 > budget_) return false;
      seen_.assign(kSeenBits / 64, 0);
      account();
    }
    const uint64_t bit = (h >> 20) & (kSeenBits - 1), word = bit >> 6, mask = uint64_t(1) << (bit & 63);
    const bool seen = seen_[word] & mask;
    seen_[word] |= mask;
    return seen;
  }

  // The 16-byte key of a short piece: bytes 0..7, then bytes 8..n-1 and n in the top byte.
  // (An entry keeps its id count less one in bits 60..62 of k1 -- 0..3, 4..5 for ids
  // packed 21 bits each (kPacked), or kMarker: the piece is in a later tier; keys never
  // have them set.)
  struct Key {
    uint64_t k0, k1;
  };
  static constexpr uint64_t kCountBits = uint64_t(7) << 60;
  static constexpr uint32_t kMarker = 7;
  static constexpr uint32_t kShortIds = 6;  // the most a short entry holds (packed)
  static constexpr uint32_t kPacked = 4;    // the count code of 5 packed ids (kPacked + 1: 6)
  // What a find returns for a marker: the piece is in a later tier (find_short: look in the
  // medium table; find_medium: in the long one).  Past every tier's id count: a caller
  // tells a hit by the count alone.
  static constexpr uint32_t kShortLater = kMarker + 1;
  static constexpr uint32_t kMediumLater = 16;
  // The bytes of a key of length n as masks of its two words (no branch on n).
  struct Masks {
    uint64_t m0, m1;
  };
  static constexpr Masks kMasks[16] = {
      {0, 0}, {0xFF, 0}, {0xFFFF, 0}, {0xFFFFFF, 0}, {0xFFFFFFFF, 0}, {0xFFFFFFFFFF, 0}, {0xFFFFFFFFFFFF, 0},
      {0xFFFFFFFFFFFFFF, 0}, {~0ULL, 0}, {~0ULL, 0xFF}, {~0ULL, 0xFFFF}, {~0ULL, 0xFFFFFF}, {~0ULL, 0xFFFFFFFF},
      {~0ULL, 0xFFFFFFFFFF}, {~0ULL, 0xFFFFFFFFFFFF}, {~0ULL, 0xFFFFFFFFFFFFFF}};
  static Key short_key(const uint8_t* p, uint32_t n) {  // n in 1..15
    // The common case: 16 bytes readable from p without crossing into the next page (so
    // without touching memory that might not be mapped); the bytes past n are masked off.
    // (Under AddressSanitizer that read past the piece is reported: the exact path instead.)
    if (may_read_ahead(p, 16)) {
      uint64_t k0, k1;
      std::memcpy(&k0, p, 8);
      std::memcpy(&k1, p + 8, 8);
      return {k0 & kMasks[n].m0, (k1 & kMasks[n].m1) | (uint64_t(n) << 56)};
    }
    uint64_t k0, k1 = 0;
    if (n >= 8) {
      std::memcpy(&k0, p, 8);
      if (n > 8) {
        std::memcpy(&k1, p + n - 8, 8);
        k1 >>= 8 * (16 - n);  // keep bytes 8..n-1
      }
    } else if (n >= 4) {  // two overlapping 4-byte reads
      uint32_t lo, hi;
      std::memcpy(&lo, p, 4);
      std::memcpy(&hi, p + n - 4, 4);
      k0 = lo | (uint64_t(hi) << (8 * (n - 4)));
    } else {  // 1..3 bytes: the first, middle and last (overlapping)
      k0 = uint64_t(p[0]) | (uint64_t(p[n / 2]) << (8 * (n / 2))) | (uint64_t(p[n - 1]) << (8 * (n - 1)));
    }
    return {k0, k1 | (uint64_t(n) << 56)};
  }

  // One multiply, and the high half folded in (the low bits of a product see only the low
  // bits of the key); a table index is then the low bits of this.  (The word seed hashes
  // its keys with it too: model/word_seed.h.)
  static uint64_t short_hash(const Key& k) {
    const unsigned __int128 x = (unsigned __int128)(k.k0 ^ (k.k1 * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
    return uint64_t(x >> 64) ^ uint64_t(x);
  }

  // A medium piece (1..kMediumMax bytes): its bytes in four words, the length in the top
  // byte (never a key byte: kMediumMax < 32).  Bytes past the piece are zero.
  static constexpr uint32_t kMediumMax = 31;
  static constexpr uint32_t kMediumIds = 12;  // 4 words of 3 ids
  static constexpr uint32_t kIdBits = 21;     // (medium and packed short entries hold ids below 2^21)
  // The layout of packed ids: three to a 64-bit word, kIdBits each, in its low 63 bits --
  // ids[0..min(count, 3)) in, the rest zero; and the three out.
  static uint64_t pack3(const uint32_t* ids, uint32_t count) {
    uint64_t x = 0;
    for (uint32_t j = 0; j < 3 && j < count; j++) x |= uint64_t(ids[j]) << (kIdBits * j);
    return x;
  }
  static void unpack3(uint64_t x, uint32_t* out) {
    constexpr uint64_t kMask = (uint64_t(1) << kIdBits) - 1;
    out[0] = uint32_t(x & kMask);
    out[1] = uint32_t((x >> kIdBits) & kMask);
    out[2] = uint32_t((x >> (2 * kIdBits)) & kMask);
  }
  struct MediumKey {
    uint64_t k[4];
  };
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
  // A medium entry: the key's four words (k[3] == 0: empty), then the ids, three in each
  // word's low 63 bits (21 each); bit 63 of word w is bit w of the code -- the id count
  // less one, or kMediumMarker.
  struct Medium {
    uint64_t k[4];
    uint64_t ids[4];
  };
  void prefetch_medium(uint64_t h) const {
    if (!medium_.empty()) __builtin_prefetch(&medium_[h & medium_mask_]);
  }

  // A short piece's key and hash, computed once: the encoder makes them when it prefetches
  // the slot a few pieces ahead, and looks the piece up with them (and the word seed too).
  struct Probe {
    Key k;
    uint64_t h;
  };
  static Probe probe(const uint8_t* p, uint32_t n) {  // n in 1..15
    const Key k = short_key(p, n);
    return {k, short_hash(k)};
  }

  // The long table's hash of a piece: the encoder computes it once, with the prefetch.
  static uint64_t long_hash(const uint8_t* p, uint32_t n) { return hash_bytes(p, n); }
  void prefetch_long(uint64_t h) const {
    if (!long_.empty()) __builtin_prefetch(&long_[h & long_mask_]);
  }

  // The hit path for short pieces: writes the entry's ids at out (ids_of: 1..4 as they
  // are, 5..6 packed -- then the caller unpacks them) and returns how many there are, or 0
  // when the piece (1..15 bytes) is not cached, or kShortLater when its ids are in a later
  // tier (find_medium).
  //
  // kUseHot: first the small direct-mapped table of recent hits (it stays in L1/L2: frequent
  // words are most of the text), then the main table, whose hit moves into the small one.
  // The encoder uses it for the parts of a cut piece (mostly a Chinese character or two,
  // after the clause's cut).  Not for the pieces themselves: their slots were prefetched a
  // few pieces before, and there the small table cost all-hit English and code 12-19% (a
  // second load, a mispredicted branch at each of its misses, a 32-byte store per refill).
  template <bool kUseHot>
  uint32_t find_short(const Probe& q, uint32_t* out) const {
    if (short_.empty()) return 0;
    Short& hot = hot_[q.h & hot_mask_];
    if (kUseHot && hot.k0 == q.k.k0 && (hot.k1 & ~kCountBits) == q.k.k1) return ids_of(hot, out);
    const Short* e = lookup(short_table(), q);
    if (!e) return 0;
    if (kUseHot) hot = *e;
    return ids_of(*e, out);
  }

  // An entry of the short tables: the key's two words (the id count in k1's bits 60..62),
  // then the ids.
  struct Short {
    uint64_t k0, k1;  // k1 == 0: empty
    uint32_t ids[4];  // kNoId after the last; or 5..6 ids, three in each half's low 63 bits
  };
  // The main short table as it is now: for a loop over many pieces with no change to the
  // cache in between (the encoder's run of hits), which keeps its pointer and mask in
  // registers -- find_short reloads them from the cache at every piece, since the ids it
  // copies out could, for all the compiler knows, have overwritten them.
  struct ShortTable {
    const Short* slots;  // nullptr: no table yet
    size_t mask;
  };
  ShortTable short_table() const { return {short_.empty() ? nullptr : short_.begin(), short_mask_}; }
  // find_short<false> in such a table (not empty).
  static uint32_t find_in(const ShortTable& t, const Probe& q, uint32_t* out) {
    const Short* e = lookup(t, q);
    return e ? ids_of(*e, out) : 0;
  }

  // A medium piece (1..kMediumMax bytes; a short one after find_short said kShortLater), h its
  // medium_hash: writes the ids at out[0..kMediumIds) (the caller has room) and returns how
  // many are valid, or 0 when it is not cached, or kMediumLater when they are in the long
  // table.
  uint32_t find_medium(const MediumKey& key, uint64_t h, uint32_t* out) const {
    return medium_.empty() ? 0 : find_in(medium_table(), key, h, out);
  }
  // The medium table as it is now (see ShortTable), and find_medium in it (not empty).
  struct MediumTable {
    const Medium* slots;  // nullptr: no table yet
    size_t mask;
  };
  MediumTable medium_table() const { return {medium_.empty() ? nullptr : medium_.begin(), medium_mask_}; }
  static uint32_t find_in(const MediumTable& t, const MediumKey& key, uint64_t h, uint32_t* out) {
    const Medium* e = lookup(t, key, h);
    return e ? ids_of(*e, out) : 0;
  }

  // The long table only: pieces of more than kMediumMax bytes, and medium ones with more
  // ids (those after find_medium said kMediumLater); h is long_hash(p, n).  A hit's ids are
  // ids[0..count), inside the cache (valid until it changes).
  bool find_long(const uint8_t* p, uint32_t n, uint64_t h, const uint32_t*& ids, uint32_t& count) const {
    if (long_.empty() || n > kMaxKey) return false;
    for (size_t i = h & long_mask_;; i = (i + 1) & long_mask_) {
      const Long& s = long_[i];
      if (s.key_len == 0) return false;
      if (s.hash == h && s.key_len == n && std::memcmp(keys_.data() + s.key_at, p, n) == 0) {
        ids = ids_.data() + s.ids_at, count = s.ids_len;
        return true;
      }
    }
  }

  void insert(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t count) {
    if (n == 0 || n > kMaxKey) return;
    const Tier where = tier(n, ids, count);
    if (where == Tier::kShort) return insert_short(p, n, ids, count - 1);
    // (A marker goes in after the entry it points past: inserting that entry may wipe the
    // cache.  A marker whose entry a later wipe took only costs a miss: a wipe takes every
    // tier, and a missing entry is a miss.)
    if (where == Tier::kMedium) {
      if (insert_medium(p, n, ids, count - 1) && n < 16) insert_short(p, n, nullptr, kMarker);
      return;
    }
    if (insert_long(p, n, ids, count) && n <= kMediumMax && insert_medium(p, n, nullptr, kMediumMarker) && n < 16)
      insert_short(p, n, nullptr, kMarker);
  }

  // Fetches the slots that insert(p, n, ..., count) will write (its misses: a cache miss
  // each -- a medium or long slot was not fetched at the lookup).  The encoder asks for a
  // batch of inserts at once, so that their fetches overlap.
  void prefetch_insert(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t count) const {
    if (n == 0 || n > kMaxKey) return;
    const Tier where = tier(n, ids, count);
    if (where == Tier::kShort) return;  // (its slot was fetched for the lookup)
    if (n <= kMediumMax) prefetch_medium(medium_hash(medium_key(p, n)));  // (an entry, or a marker)
    if (where == Tier::kLong) prefetch_long(long_hash(p, n));
  }

  void clear() {
    hot_table_.reset(0);
    hot_ = hot_one_, hot_mask_ = 0;
    hot_one_[0] = Short{};
    short_.reset(0);
    medium_.reset(0);
    long_.reset(0);
    std::vector<uint64_t>().swap(seen_);
    std::vector<uint8_t>().swap(keys_);
    std::vector<uint32_t>().swap(ids_);
    short_count_ = medium_count_ = long_count_ = 0;
    short_mask_ = medium_mask_ = long_mask_ = 0;
    account();
  }

 private:
  // code: the id count less one (ids[0..code]), or kMarker (no ids).
  void insert_short(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t code) {
    if ((short_count_ + 1) * 2 > short_.size() && !grow_short()) return;  // load <= 1/2
    const Key k = short_key(p, n);
    size_t i = short_hash(k) & short_mask_;
    while (short_[i].k1 != 0) i = (i + 1) & short_mask_;
    Short& e = short_[i];
    e.k0 = k.k0, e.k1 = k.k1 | (uint64_t(code) << 60);
    if (code - kPacked < 2) {  // 5..6 ids: ids 0..2 in the first half, 3..5 in the second
      const uint64_t half[2] = {pack3(ids, 3), pack3(ids + 3, code - 2)};
      std::memcpy(e.ids, half, sizeof half);
    } else {
      for (uint32_t j = 0; j < 4; j++) e.ids[j] = code != kMarker && j <= code ? ids[j] : kNoId;
    }
    short_count_++;
  }

  // Which table insert puts a piece of n bytes (1..kMaxKey) with these ids in: the long
  // one takes more ids, ids past kIdBits, or none (a piece whose characters BPE dropped).
  enum class Tier { kShort, kMedium, kLong };
  static Tier tier(uint32_t n, const uint32_t* ids, uint32_t count) {
    if (n < 16 && (count - 1 < 4 || (count - 1 < kShortIds && below_id_bits(ids, count)))) return Tier::kShort;
    if (n <= kMediumMax && count - 1 < kMediumIds && below_id_bits(ids, count)) return Tier::kMedium;
    return Tier::kLong;
  }
  // code: the id count less one (ids[0..code]), or kMediumMarker (no ids).
  bool insert_medium(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t code) {
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
  static bool below_id_bits(const uint32_t* ids, uint32_t count) {
    uint32_t any = 0;
    for (uint32_t i = 0; i < count; i++) any |= ids[i];
    return any < (uint32_t(1) << kIdBits);
  }

  bool insert_long(const uint8_t* p, uint32_t n, const uint32_t* ids, uint32_t count) {
    const size_t need = n + count * sizeof(uint32_t);
    if (need > budget_ / 8) return false;  // never let one entry dominate a small budget
    if ((long_count_ + 1) * 2 > long_.size() && !grow_long()) return false;
    if (compute_used() + arena_growth(n, count) > budget_) {  // the arenas double when they grow
      clear();
      if (!grow_long() || compute_used() + arena_growth(n, count) > budget_) return false;
    }
    reserve_arena(keys_, n);
    reserve_arena(ids_, count);
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

  static constexpr uint32_t kNoId = UINT32_MAX;
  // An entry's 16 bytes of ids at out[0..4) (the caller has room for kShortIds), and how
  // many ids it holds (1..6, or kShortLater for a marker): for 5 or 6, out holds them
  // packed, and unpack(out) spreads them out.
  static uint32_t ids_of(const Short& e, uint32_t* out) {
    std::memcpy(out, e.ids, sizeof e.ids);
    return uint32_t(e.k1 >> 60) + 1;
  }
  static constexpr uint32_t kMediumMarker = kMediumLater - 1;
  // The ids at out[0..kMediumIds) (unused ones are garbage) and how many are valid, or
  // kMediumLater for a marker.
  static uint32_t ids_of(const Medium& e, uint32_t* out) {
    uint32_t code = 0;
    for (uint32_t w = 0; w < 4; w++) {
      unpack3(e.ids[w], out + 3 * w);  // (bit 63 is past the third id's bits)
      code |= uint32_t(e.ids[w] >> 63) << w;
    }
    return code + 1;
  }
  static const Medium* lookup(const MediumTable& t, const MediumKey& key, uint64_t h) {
    for (size_t i = h & t.mask;; i = (i + 1) & t.mask) {
      const Medium& e = t.slots[i];
      if (((e.k[0] ^ key.k[0]) | (e.k[1] ^ key.k[1]) | (e.k[2] ^ key.k[2]) | (e.k[3] ^ key.k[3])) == 0) return &e;
      if (e.k[3] == 0) return nullptr;  // empty (a real key has its length in k[3])
    }
  }
  // The entry of q's piece in t, or nullptr.
  static const Short* lookup(const ShortTable& t, const Probe& q) {
    for (size_t i = q.h & t.mask;; i = (i + 1) & t.mask) {
      const Short& e = t.slots[i];
      if (e.k0 == q.k.k0 && (e.k1 & ~kCountBits) == q.k.k1) return &e;
      if (e.k1 == 0) return nullptr;  // empty (a real key has its length in k1)
    }
  }
  struct Long {
    uint64_t hash;
    uint32_t key_at, ids_at, key_len, ids_len;  // key_len == 0: empty
  };

  // Doubles a table, or wipes the whole cache first when that would pass the budget.  The
  // short table goes from its first size straight to kJump entries, or to as many as a
  // quarter of the budget holds when that is less (growth, see kJump).
  template <class T, class Empty, class Hash>
  bool grow(HugeTable<T>& table, size_t& mask, size_t jump, Empty empty, Hash hash) {
    size_t size = table.empty() ? 1024 : table.size() * 2;
    if (!table.empty())
      while (size < jump && size * 2 * sizeof(T) <= budget_ / 4) size *= 2;
    if (compute_used() + size * sizeof(T) > budget_) {
      clear();
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
  bool grow_short() {
    const bool ok = grow(short_, short_mask_, kJump, [](const Short& e) { return e.k1 == 0; },
                         [](const Short& e) { return short_hash(Key{e.k0, e.k1 & ~kCountBits}); });
    if (ok && hot_table_.empty()) {  // the table of recent hits: up to kHot entries, an eighth of the budget
      size_t n = kHot;
      while (n >= 64 && n * sizeof(Short) > budget_ / 8) n /= 2;
      if (n >= 64 && compute_used() + n * sizeof(Short) <= budget_) {
        hot_table_.reset(n);
        hot_ = hot_table_.begin(), hot_mask_ = n - 1;
      }
    }
    // The short table's jump says much text is coming: the medium table makes its own jump
    // now too (its first table, then kMediumJump), rather than inside a later encode call
    // -- on English text its first table fills long after the short one's, in the first
    // call after a warm-up of 60 documents (fresh pages: the README's benchmark notes).
    if (ok && short_.size() >= kJump && medium_.size() < kMediumJump &&
        compute_used() + (kMediumJump + 1024) * sizeof(Medium) <= budget_) {
      if (medium_.empty()) grow_medium();
      grow_medium();
    }
    account();
    return ok;
  }
  bool grow_medium() {
    const bool ok = grow(medium_, medium_mask_, kMediumJump, [](const Medium& e) { return e.k[3] == 0; },
                         [](const Medium& e) { return medium_hash(MediumKey{{e.k[0], e.k[1], e.k[2], e.k[3]}}); });
    account();
    return ok;
  }
  bool grow_long() {
    const bool ok = grow(long_, long_mask_, 0, [](const Long& e) { return e.key_len == 0; },
                         [](const Long& e) { return e.hash; });
    account();
    return ok;
  }

  size_t compute_used() const {
    return hot_table_.capacity() * sizeof(Short) + short_.capacity() * sizeof(Short) +
           medium_.capacity() * sizeof(Medium) + long_.capacity() * sizeof(Long) +
           seen_.capacity() * sizeof(uint64_t) + keys_.capacity() + ids_.capacity() * sizeof(uint32_t);
  }
  void account() { used_.store(compute_used(), std::memory_order_relaxed); }
  // The bytes the arenas grow by to take n more key bytes and count more ids (they double).
  template <class T>
  static size_t arena_growth(const std::vector<T>& v, size_t more) {
    if (v.size() + more <= v.capacity()) return 0;
    return (std::max(v.capacity() * 2, v.size() + more) - v.capacity()) * sizeof(T);
  }
  size_t arena_growth(uint32_t n, uint32_t count) const { return arena_growth(keys_, n) + arena_growth(ids_, count); }
  template <class T>
  static void reserve_arena(std::vector<T>& v, size_t more) {
    if (v.size() + more > v.capacity()) v.reserve(std::max(v.capacity() * 2, v.size() + more));
  }

  // The short table's size after its first 1024 entries (32 KiB: a short text, or a
  // tokenizer used for a few words, stays there): 131072 entries, 4 MiB, which holds the
  // distinct pieces of about 3 MB of English -- in place of five doublings on the way, each
  // writing a table of fresh memory inside an encode call (on these VMs a fresh page costs
  // far more than a recycled one: 1 -> 2 -> 4 MiB took up to 27% of the first rounds on
  // fresh text, all in the kernel clearing pages).  Fresh, a 10-document warm-up as in the
  // benchmarks, then 60-document rounds (alternating processes, median ratio / geometric
  // mean against doubling): gpt2 English 1.10 / 1.14, code 1.15 / 1.20, Russian 1.06 / 0.99,
  // llama2 English 1.08 / 1.08, llama3 English 1.03 / 0.98; Chinese, whose few distinct
  // parts sit in a sparser table, 0.97-1.05 (medians); all-hit no slower (gpt2 English model
  // stage 1.30 -> 1.22 ns a byte: fewer probes in a table that is less full).
  static constexpr size_t kJump = size_t(1) << 17;
  // The medium table's (grow, as kJump): 32768 entries, 2 MiB -- the size at which its
  // table gets huge pages (HugeTable).  At 1 MiB, on 4 KiB pages, fresh llama2 English ran
  // 4-7% slower than with no medium tier (three runs), and as fast at 2 MiB: its lookups
  // land anywhere in the table, a TLB miss each.
  static constexpr size_t kMediumJump = size_t(1) << 15;
  static constexpr size_t kHot = 4096;  // 128 KiB at most
  mutable Short hot_one_[1] = {};       // the table of recent hits while there is no room for one
  HugeTable<Short> hot_table_;
  mutable Short* hot_ = hot_one_;
  size_t hot_mask_ = 0;
  std::atomic<size_t> used_{0};
  std::atomic<bool> pending_{false}, clear_requested_{false};
  HugeTable<Short> short_;
  HugeTable<Medium> medium_;
  static constexpr size_t kSeenBits = size_t(1) << 19;  // 64 KiB
  std::vector<uint64_t> seen_;  // (seen_cut)
  HugeTable<Long> long_;
  std::vector<uint8_t> keys_;
  std::vector<uint32_t> ids_;
  size_t short_mask_ = 0, medium_mask_ = 0, long_mask_ = 0;
  size_t short_count_ = 0, medium_count_ = 0, long_count_ = 0, budget_ = 0;
};

}  // namespace tagpipe
