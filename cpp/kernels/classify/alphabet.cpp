#include "kernels/classify/alphabet.h"

#include "alphabet_deepseek.h"
#include "alphabet_nfc.h"
#include "alphabet_regex.h"
#include "alphabet_scripts.h"
#include "alphabet_unicode.h"

namespace tagpipe {
namespace {

#define TAGPIPE_ALPHABET(NS)                                                                                          \
  Alphabet {                                                                                                          \
#NS, tables::NS::kTagCount, tables::NS::kTagNames, tables::NS::kFffdTag, tables::NS::kAscii, tables::NS::kStage1, \
        tables::NS::kStage1Len, tables::NS::kStage2                                                                   \
  }

const Alphabet kAlphabets[] = {
    TAGPIPE_ALPHABET(regex),   TAGPIPE_ALPHABET(deepseek), TAGPIPE_ALPHABET(unicode),
    TAGPIPE_ALPHABET(scripts), TAGPIPE_ALPHABET(nfc),
};
static_assert(sizeof(kAlphabets) / sizeof(kAlphabets[0]) == int(AlphabetId::count));

}  // namespace

const Alphabet& alphabet(AlphabetId id) { return kAlphabets[int(id)]; }

const Alphabet* find_alphabet(std::string_view name) {
  for (const Alphabet& a : kAlphabets)
    if (name == a.name) return &a;
  return nullptr;
}

}  // namespace tagpipe
