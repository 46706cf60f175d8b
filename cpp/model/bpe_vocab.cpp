#include "model/bpe_vocab.h"

#include <cstdio>

#include "model/free_id.h"

namespace tagpipe {

BpeVocab::BpeVocab(StringTable vocab, const std::vector<BpeMerge>& merge_list, BpeOptions options)
    : strings(std::move(vocab)), opt(std::move(options)), merger(merge_list), merges(merge_list) {
  std::vector<uint32_t> ids;
  strings.for_each([&](std::string_view, uint32_t id) { ids.push_back(id); });
  std::sort(ids.begin(), ids.end());
  duplicate_ids = std::adjacent_find(ids.begin(), ids.end()) != ids.end();
  absent = free_id(ids);
  simple = opt.prefix.empty() && opt.suffix.empty();
  std::vector<uint32_t> special;  // <0xXX> tokens and unk (sorted)
  for (int b = 0; b < 256; b++) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    const std::optional<uint32_t> id = strings.get(name);
    byte_token[b] = id.value_or(absent);
    if (id) special.push_back(*id);
  }
  if (opt.unk_id) special.push_back(*opt.unk_id);
  std::sort(special.begin(), special.end());
  for (const BpeMerge& m : merges)
    merges_take_bytes_or_unk |= std::binary_search(special.begin(), special.end(), m.left) ||
                                std::binary_search(special.begin(), special.end(), m.right);
}

uint32_t BpeVocab::lookup(std::string_view c, bool first, bool last) const {
  std::string s = (first ? "" : opt.prefix) + std::string(c) + (last ? opt.suffix : "");
  return strings.get(s).value_or(absent);
}

bool BpeVocab::all_byte_tokens() const {
  if (!opt.byte_fallback) return false;
  for (int b = 0; b < 256; b++)
    if (byte_token[b] == absent) return false;
  return true;
}

}  // namespace tagpipe
