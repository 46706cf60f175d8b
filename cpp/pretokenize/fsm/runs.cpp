#include "pretokenize/fsm/runs.h"

#include <initializer_list>

#include "alphabet_unicode.h"
#include "kernels/boundaries/boundaries.h"

namespace tagpipe::fsm {
namespace {

using namespace tables::unicode;

struct ClassOf {
  std::initializer_list<int> tags;
  uint8_t cls;
};

constexpr uint8_t kWs = 1, kPunct = 2, kNumeric = 3, kWord = 4, kSym = 5, kRest = 6;

Runs make(const char* name, std::initializer_list<ClassOf> classes, uint8_t rest) {
  Runs r{name, {}};
  for (int t = 1; t < kTagCount; t++) r.remap[t] = rest;
  for (const ClassOf& c : classes)
    for (int t : c.tags) r.remap[t] = c.cls;
  r.remap[Cont] = 0;
  return r;
}

const Runs kRuns[] = {
    // Invert(\w+|[^\w\s]+) with Removed: whitespace runs are the (removed) matches.
    make("whitespace",
         {{{Word, WordNumeric, PunctWord}, kWord}, {{Numeric, Punct, Other}, kSym}, {{Space, WsOther}, kWs | kMatch}},
         kRest),
    make("whitespace_split", {{{Space, WsOther}, kWs | kMatch | kSingle}}, kRest),
    make("bert", {{{Space, WsOther}, kWs | kMatch | kSingle}, {{Punct, PunctWord}, kPunct | kSingle}}, kRest),
    make("punctuation", {{{Punct, PunctWord}, kPunct | kMatch | kSingle}}, kRest),
    make("digits", {{{WordNumeric, Numeric}, kNumeric | kMatch | kSingle}}, kRest),
};

}  // namespace

const Runs* find_runs(std::string_view name) {
  for (const Runs& r : kRuns)
    if (name == r.name) return &r;
  return nullptr;
}

}  // namespace tagpipe::fsm
