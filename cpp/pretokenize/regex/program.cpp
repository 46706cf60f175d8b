#include "pretokenize/regex/program.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "regex_atoms.h"

namespace tagpipe::regex {

uint8_t atom_of(uint32_t cp) {
  namespace t = tables::regex_atoms;
  if (cp > 0x10FFFF) cp = 0xFFFD;
  return t::kStage2[t::kStage1[cp >> 6] * 64 + (cp & 63)];
}

bool Set::test_slow(uint32_t cp) const {
  bool in = (mask >> atom_of(cp)) & 1;
  if (!in) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), cp,
                               [](uint32_t c, const std::pair<uint32_t, uint32_t>& r) { return c < r.first; });
    in = it != ranges.begin() && cp <= std::prev(it)->second;
  }
  return in != negate;
}

bool Program::may_start(uint32_t cp) const {
  if (first.empty()) return true;
  if (cp < 128) return (first_ascii[cp >> 6] >> (cp & 63)) & 1;
  for (uint32_t s : first)
    if (sets[s].test_slow(cp)) return true;
  return false;
}

namespace {

struct Reader {
  const std::vector<uint32_t>& w;
  size_t i = 0;
  uint32_t next() {
    if (i >= w.size()) throw std::invalid_argument("regex program: truncated");
    return w[i++];
  }
  uint32_t below(uint32_t n, const char* what) {
    const uint32_t v = next();
    if (v >= n) throw std::invalid_argument(std::string("regex program: ") + what + " out of range");
    return v;
  }
};

Set read_set(Reader& r) {
  Set s;
  s.negate = r.below(2, "negate") != 0;
  const uint64_t lo = r.next();
  s.mask = lo | (uint64_t(r.next()) << 32);
  const uint32_t n = r.below(0x110000, "range count");
  for (uint32_t k = 0; k < n; k++) {
    const uint32_t a = r.below(0x110000, "range start"), b = r.below(0x110000, "range end");
    if (b < a || (!s.ranges.empty() && a <= s.ranges.back().second))
      throw std::invalid_argument("regex program: ranges not sorted and disjoint");
    s.ranges.emplace_back(a, b);
  }
  for (uint32_t c = 0; c < 128; c++)
    if (s.test_slow(c)) s.ascii[c >> 6] |= uint64_t(1) << (c & 63);
  return s;
}

void check_inst(const Inst& in, uint32_t n_code, uint32_t n_sets) {
  auto target = [&](uint32_t t) {
    if (t >= n_code) throw std::invalid_argument("regex program: jump out of range");
  };
  switch (in.op) {
    case kClass:
    case kRun:
      if (in.x >= n_sets) throw std::invalid_argument("regex program: set out of range");
      if (in.op == kRun && in.y > in.z) throw std::invalid_argument("regex program: RUN min > max");
      break;
    case kSplit:
      target(in.x), target(in.y);
      break;
    case kJmp:
      target(in.x);
      break;
    case kLook:
    case kAtomic:
      target(in.x), target(in.z);
      break;
    case kAssert:
      if (in.x >= kAssertCount) throw std::invalid_argument("regex program: unknown assertion");
      if ((in.x == kWord || in.x == kNotWord) && in.y >= n_sets)
        throw std::invalid_argument("regex program: set out of range");
      break;
    case kMatch:
      break;
    default:
      throw std::invalid_argument("regex program: unknown op");
  }
}

// Memo slots: instructions with two or more ways in (a jump target and a fall-through, or
// two jumps), and every entry point.  Elsewhere a state is reached only from its one
// predecessor's, so those are enough for each (slot, position) to be tried once.
void assign_slots(Program& p) {
  const uint32_t n = uint32_t(p.code.size());
  std::vector<uint32_t> in(n, 0);
  in[0] = 2;
  for (uint32_t pc = 0; pc < n; pc++) {
    const Inst& i = p.code[pc];
    const bool falls = i.op == kClass || i.op == kRun || i.op == kAssert;
    if (falls && pc + 1 < n) in[pc + 1]++;
    if (i.op == kSplit) in[i.x]++, in[i.y]++;
    if (i.op == kJmp) in[i.x]++;
    if (i.op == kLook || i.op == kAtomic) in[i.x] += 2, in[i.z]++;
  }
  p.slot.assign(n, Program::kNoSlot);
  for (uint32_t pc = 0; pc < n; pc++)
    if (in[pc] >= 2) p.slot[pc] = p.slots++;
}

// Depth of LOOK/ATOMIC nesting (bodies are laid out inline, [x, z)).
uint32_t nesting(const Program& p, uint32_t from, uint32_t to, uint32_t level) {
  if (level > Program::kMaxDepth) throw std::invalid_argument("regex program: look-arounds nested too deep");
  uint32_t deepest = level;
  for (uint32_t pc = from; pc < to; pc++) {
    const Inst& i = p.code[pc];
    if (i.op != kLook && i.op != kAtomic) continue;
    if (i.x != pc + 1 || i.z <= i.x || i.z > to) throw std::invalid_argument("regex program: bad body layout");
    deepest = std::max(deepest, nesting(p, i.x, i.z, level + 1));
    pc = i.z - 1;
  }
  return deepest;
}

// Whether the final MATCH is reachable from the start without a character, counting every
// look-ahead, anchor and atomic body as passable (so a superset of the patterns that can
// match the empty string).
bool reaches_match_empty(const Program& p) {
  std::vector<bool> seen(p.code.size());
  std::vector<uint32_t> stack{0};
  while (!stack.empty()) {
    const uint32_t pc = stack.back();
    stack.pop_back();
    if (seen[pc]) continue;
    seen[pc] = true;
    const Inst& i = p.code[pc];
    switch (i.op) {
      case kMatch:
        if (pc + 1 == p.code.size()) return true;
        break;
      case kSplit:
        stack.push_back(i.x), stack.push_back(i.y);
        break;
      case kJmp:
        stack.push_back(i.x);
        break;
      case kLook:
      case kAtomic:
        stack.push_back(i.z);
        break;
      case kRun:
        if (i.y == 0) stack.push_back(pc + 1);
        break;
      case kAssert:
        stack.push_back(pc + 1);
        break;
      default:  // kClass
        break;
    }
  }
  return false;
}

}  // namespace

Program Program::decode(const std::vector<uint32_t>& words) {
  Reader r{words};
  if (r.next() != 1) throw std::invalid_argument("regex program: unknown version");
  Program p;
  const uint32_t n_sets = r.below(1u << 20, "set count");
  for (uint32_t k = 0; k < n_sets; k++) p.sets.push_back(read_set(r));
  const uint32_t n_code = r.below(1u << 20, "instruction count");
  for (uint32_t k = 0; k < n_code; k++) {
    Inst in{r.next(), r.next(), r.next(), r.next()};
    p.code.push_back(in);
  }
  if (p.code.empty() || p.code.back().op != kMatch) throw std::invalid_argument("regex program: must end with MATCH");
  for (const Inst& in : p.code) check_inst(in, n_code, n_sets);
  const uint32_t n_first = r.below(n_sets + 1, "first-set count");
  for (uint32_t k = 0; k < n_first; k++) p.first.push_back(r.below(n_sets, "first set"));
  if (r.i != words.size()) throw std::invalid_argument("regex program: trailing words");
  for (uint32_t s : p.first)
    for (int h = 0; h < 2; h++) p.first_ascii[h] |= p.sets[s].ascii[h];
  assign_slots(p);
  p.depth = nesting(p, 0, n_code, 0);
  p.may_be_empty = reaches_match_empty(p);
  return p;
}

}  // namespace tagpipe::regex
