// The scalar transcode kernel: the specification -- one code point at a time.
// Included once, by arch/scalar.cpp (no include guard).
#include "kernels/transcode/transcode.h"

namespace tagpipe::scalar {

namespace {
template <class Unit>
uint8_t* encode(const Unit* s, size_t n, uint8_t* d) {
  for (size_t i = 0; i < n; i++) {
    const uint32_t c = s[i];
    if (c < 0x80) {
      *d++ = uint8_t(c);
    } else if (c < 0x800) {
      *d++ = uint8_t(0xC0 | (c >> 6));
      *d++ = uint8_t(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
      if (c >= 0xD800 && c <= 0xDFFF) return nullptr;
      *d++ = uint8_t(0xE0 | (c >> 12));
      *d++ = uint8_t(0x80 | ((c >> 6) & 0x3F));
      *d++ = uint8_t(0x80 | (c & 0x3F));
    } else {
      *d++ = uint8_t(0xF0 | (c >> 18));
      *d++ = uint8_t(0x80 | ((c >> 12) & 0x3F));
      *d++ = uint8_t(0x80 | ((c >> 6) & 0x3F));
      *d++ = uint8_t(0x80 | (c & 0x3F));
    }
  }
  return d;
}
}  // namespace

uint8_t* transcode(const void* s, size_t n, unsigned width, uint8_t* d) {
  if (width == 1) return encode(static_cast<const uint8_t*>(s), n, d);
  if (width == 2) return encode(static_cast<const uint16_t*>(s), n, d);
  return encode(static_cast<const uint32_t*>(s), n, d);
}

}  // namespace tagpipe::scalar
