// A marker for "no id" in a table of ids: every u32 is an id (the oracle takes 2^32 - 1
// too), so no constant can mark an empty entry; the largest u32 that none of the table's
// ids equals can, and costs the same compare.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace tagpipe {

// The largest u32 that is none of `ids`.
inline uint32_t free_id(std::vector<uint32_t> ids) {
  std::sort(ids.begin(), ids.end());
  uint32_t free = UINT32_MAX;
  for (auto it = ids.rbegin(); it != ids.rend() && *it >= free; ++it)
    if (*it == free) free--;
  return free;
}

}  // namespace tagpipe
