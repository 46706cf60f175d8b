// The SIMD transcode kernels' shuffle table (transcode.h).
#include "kernels/transcode/transcode.h"

namespace tagpipe {

const TranscodeShuffles& transcode_shuffles() {
  static const TranscodeShuffles t = [] {
    TranscodeShuffles r{};
    for (unsigned code = 0; code < 256; code++) {
      unsigned at = 0;
      for (unsigned k = 0; k < 4; k++)
        for (unsigned j = 0; j <= ((code >> (2 * k)) & 3); j++) r.index[code][at++] = uint8_t(4 * k + j);
      for (unsigned j = at; j < 16; j++) r.index[code][j] = 0x80;
      r.length[code] = uint8_t(at);
    }
    for (unsigned m = 0; m < 16; m++)
      for (unsigned k = 0; k < 4; k++) r.spread[m] |= uint8_t(((m >> k) & 1) << (2 * k));
    return r;
  }();
  return t;
}

}  // namespace tagpipe
