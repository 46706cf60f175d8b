// Reading a few bytes past the end of a buffer, where that is safe: within the page the
// buffer's own bytes are on (a page is mapped whole), and never under AddressSanitizer,
// which reports such reads.  The bytes read past the end are garbage: a caller masks off
// whatever it computed from them.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tagpipe {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// Whether p[0..bytes) may be read, given that p[0] is readable (bytes <= 4096).
inline bool may_read_ahead(const uint8_t* p, size_t bytes) {
  return !kAddressSanitizer && (reinterpret_cast<uintptr_t>(p) & 4095) <= 4096 - bytes;
}

}  // namespace tagpipe
