// In-place lead lanes, for architectures without a byte compress instruction: each group
// of u32v::N lanes decodes the bytes where they lie, and groups with no lead are skipped.
// (AVX-512 packs the leads instead: simd/avx512.h.)  See classify_generic.h, lead_tags.
#pragma once
#include <cstdint>

namespace tagpipe {

template <class simd8x64, class u32v>
struct InPlaceLeadLanes {
  static constexpr uint64_t kGroup = (uint64_t(1) << u32v::N) - 1;
  const uint8_t* p;
  uint64_t lead;
  alignas(64) uint8_t tags[64] = {};

  InPlaceLeadLanes(const uint8_t* p_, const simd8x64&, const simd8x64&, const simd8x64&, const simd8x64&,
                   uint64_t lead_)
      : p(p_), lead(lead_) {}
  int count() const { return 64; }
  bool empty(int g) const { return ((lead >> g) & kGroup) == 0; }
  const uint8_t* src(int k) const { return p + k; }  // byte k of the sequence starting at each lane
  uint8_t* out() { return tags; }
  simd8x64 result() const { return simd8x64::load(tags); }
};

}  // namespace tagpipe
