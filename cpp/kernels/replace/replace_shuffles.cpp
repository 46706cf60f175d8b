// The SIMD replace kernels' shuffle tables (replace.h), one per replacement length.
#include "kernels/replace/replace.h"

namespace tagpipe {
namespace {

ReplaceShuffles build(unsigned size) {
  ReplaceShuffles t;
  for (unsigned m = 0; m < 256; m++) {
    unsigned k = 0;
    for (unsigned i = 0; i < 8; i++) {
      if ((m >> i) & 1)
        for (unsigned j = 0; j < size; j++) t.index[m][k++] = uint8_t(8 + j);
      else t.index[m][k++] = uint8_t(i);
    }
    t.length[m] = uint8_t(k);
    for (; k < 32; k++) t.index[m][k] = 0x80;
  }
  return t;
}

}  // namespace

const ReplaceShuffles& replace_shuffles(unsigned size) {
  static const ReplaceShuffles tables[5] = {build(0), build(1), build(2), build(3), build(4)};
  return tables[size];
}

}  // namespace tagpipe
