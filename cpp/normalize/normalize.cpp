#include "normalize/normalize.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "common/replace_byte.h"
#include "dispatch/kernels.h"
#include "kernels/classify/classify.h"

namespace tagpipe::normalize {
namespace {

bool is_cont(uint8_t b) { return (b & 0xC0) == 0x80; }

// The input character containing byte i (the origin of an unchanged byte).
pretok::Origin char_at(const uint8_t* s, uint32_t n, uint32_t i) {
  uint32_t b = i, e = i + 1;
  while (b > 0 && is_cont(s[b])) --b;
  while (e < n && is_cont(s[e])) ++e;
  return {b, e};
}

bool nfc_inert(const uint8_t* s, uint32_t n, Scratch& sc) {
  bool ascii = true;
  for (uint32_t i = 0; i < n && ascii; i++) ascii = s[i] < 0x80;
  if (ascii) return true;
  sc.tags.resize(n);
  sc.starts.resize(start_words(n));
  kernels::active().classify(s, n, alphabet(AlphabetId::nfc), sc.tags.data(), sc.starts.data());
  for (uint32_t i = 0; i < n; i++)
    if (sc.tags[i] > 1) return false;  // Changes (tag 2); 0 Cont, 1 Inert
  return true;
}

}  // namespace

bool Normalizer::append(const uint8_t* in, uint32_t n, std::string& dst, Scratch& sc) const {
  const std::string_view text(reinterpret_cast<const char*>(in), n);
  if (steps_.empty()) {
    dst.append(text);
    return true;
  }
  const Step& step = steps_[0];
  if (steps_.size() == 1 && step.kind == Step::Kind::Replace && step.a.size() == 1 && step.b.size() <= 4) {
    append_replacing_byte(text, uint8_t(step.a[0]), step.b, dst);
    return true;
  }
  pretok::Text out;
  if (!run(in, n, out, sc, false)) return false;
  dst.append(reinterpret_cast<const char*>(out.bytes), out.size);
  return true;
}

namespace {

// The origin of byte i of the content a step reads: its own origins once rewritten, else
// the input character that holds it.
struct OriginOf {
  const pretok::Text& out;
  const uint8_t* in;
  uint32_t n;
  pretok::Origin operator()(uint32_t i) const { return out.rewritten() ? out.origin[i] : char_at(in, n, i); }
};

// What a step made of the content.
enum class Outcome { kUnchanged, kWritten, kDelegate };

// Replace(Regex " {2,}"): the leftmost-longest runs of two or more ' ' become `content`.
Outcome space_runs(std::string_view cur, const std::string& content, const OriginOf& origin, bool need_origin,
                   std::string& dst, std::vector<pretok::Origin>& org) {
  size_t at = cur.find("  ");
  if (at == std::string_view::npos) return Outcome::kUnchanged;
  size_t done = 0;
  for (; at != std::string_view::npos; at = cur.find("  ", done)) {
    size_t end = at + 2;
    while (end < cur.size() && cur[end] == ' ') end++;
    dst.append(cur.substr(done, at - done));
    dst += content;
    if (need_origin) {
      for (size_t i = done; i < at; i++) org.push_back(origin(uint32_t(i)));
      org.insert(org.end(), content.size(), origin(uint32_t(end - 1)));  // (see replace())
    }
    done = end;
  }
  dst.append(cur.substr(done));
  if (need_origin)
    for (size_t i = done; i < cur.size(); i++) org.push_back(origin(uint32_t(i)));
  return Outcome::kWritten;
}

// Prepend(what): before a non-empty content only, as the oracle does.
Outcome prepend(std::string_view cur, const std::string& what, const OriginOf& origin, bool need_origin,
                std::string& dst, std::vector<pretok::Origin>& org) {
  if (cur.empty()) return Outcome::kUnchanged;
  dst = what;
  dst += cur;
  if (need_origin) {
    org.assign(what.size(), origin(0));  // aligned to the first character
    for (uint32_t i = 0; i < cur.size(); i++) org.push_back(origin(i));
  }
  return Outcome::kWritten;
}

// Replace with a String pattern: every leftmost, non-overlapping occurrence of `pattern`.
// The content takes the origin of the occurrence's last character, as the oracle's
// NormalizedString::replace aligns each inserted character with the byte before the match's
// end (so a piece starting with it starts at that character, for Metaspace's "first").
Outcome replace(std::string_view cur, const std::string& pattern, const std::string& content, const OriginOf& origin,
                bool need_origin, std::string& dst, std::vector<pretok::Origin>& org) {
  if (!need_origin && pattern.size() == 1 && content.size() <= 4) {
    append_replacing_byte(cur, uint8_t(pattern[0]), content, dst);  // (dst is clear)
    return Outcome::kWritten;
  }
  size_t at = cur.find(pattern);
  if (at == std::string_view::npos) return Outcome::kUnchanged;
  size_t done = 0;
  for (; at != std::string_view::npos; at = cur.find(pattern, at + pattern.size())) {
    dst.append(cur.substr(done, at - done));
    dst += content;
    if (need_origin) {
      for (size_t i = done; i < at; i++) org.push_back(origin(uint32_t(i)));
      org.insert(org.end(), content.size(), origin(uint32_t(at + pattern.size() - 1)));
    }
    done = at + pattern.size();
  }
  dst.append(cur.substr(done));
  if (need_origin)
    for (size_t i = done; i < cur.size(); i++) org.push_back(origin(uint32_t(i)));
  return Outcome::kWritten;
}

// Replace with a compiled regex: every match (empty ones too: then the content is inserted),
// the content with the origin of the byte before the match's end, as in replace() -- or
// offset 0 for an empty match at the start, as the oracle aligns it.
Outcome regex_replace(std::string_view cur, const regex::Matcher& matcher, const std::string& content,
                      const OriginOf& origin, bool need_origin, std::string& dst, std::vector<pretok::Origin>& org,
                      Scratch& sc) {
  matcher.find_all(reinterpret_cast<const uint8_t*>(cur.data()), uint32_t(cur.size()), sc.matches, sc.regex);
  if (sc.matches.empty()) return Outcome::kUnchanged;
  uint32_t done = 0;
  for (const pretok::Piece& m : sc.matches) {
    dst.append(cur.substr(done, m.begin - done));
    dst += content;
    if (need_origin) {
      for (uint32_t i = done; i < m.begin; i++) org.push_back(origin(i));
      org.insert(org.end(), content.size(), m.end ? origin(m.end - 1) : pretok::Origin{0, 0});
    }
    done = m.end;
  }
  dst.append(cur.substr(done));
  if (need_origin)
    for (uint32_t i = done; i < cur.size(); i++) org.push_back(origin(i));
  return Outcome::kWritten;
}

// One step on the content `out` (the input in[0..n) once or more rewritten), into dst / org.
Outcome apply(const Step& step, const pretok::Text& out, const OriginOf& origin, bool need_origin, std::string& dst,
              std::vector<pretok::Origin>& org, Scratch& sc) {
  const std::string_view cur(reinterpret_cast<const char*>(out.bytes), out.size);
  const Source src{out.bytes, out.size, out.rewritten() ? out.origin.data() : nullptr};
  bool ok = true;
  switch (step.kind) {
    case Step::Kind::Nfc:
      return nfc_inert(out.bytes, out.size, sc) ? Outcome::kUnchanged : Outcome::kDelegate;
    case Step::Kind::Nfkc:
      return nfkc_inert(out.bytes, out.size) ? Outcome::kUnchanged : Outcome::kDelegate;
    case Step::Kind::Unicode:
      ok = unicode_pass(step.unicode, *step.chars, src, need_origin, dst, org, sc);
      break;
    case Step::Kind::Strip:
      ok = strip_pass(step.strip_left, step.strip_right, src, need_origin, dst, org);
      break;
    case Step::Kind::Precompiled:
      ok = precompiled_pass(*step.charsmap, src, need_origin, dst, org);
      break;
    case Step::Kind::SpaceRuns:
      return space_runs(cur, step.b, origin, need_origin, dst, org);
    case Step::Kind::Prepend:
      return prepend(cur, step.a, origin, need_origin, dst, org);
    case Step::Kind::Replace:
      return replace(cur, step.a, step.b, origin, need_origin, dst, org);
    case Step::Kind::RegexReplace:
      return regex_replace(cur, *step.matcher, step.b, origin, need_origin, dst, org, sc);
  }
  return ok ? Outcome::kWritten : Outcome::kDelegate;
}

}  // namespace

bool Normalizer::run(const uint8_t* in, uint32_t n, pretok::Text& out, Scratch& sc, bool need_origin) const {
  out = pretok::Text{};
  out.bytes = in, out.size = n;
  int which = 0;
  for (const Step& step : steps_) {
    std::string& dst = sc.buf[which];
    std::vector<pretok::Origin>& org = sc.origin[which];
    dst.clear(), org.clear();
    const Outcome done = apply(step, out, OriginOf{out, in, n}, need_origin, dst, org, sc);
    if (done == Outcome::kDelegate) return false;
    if (done == Outcome::kUnchanged) continue;
    out.bytes = reinterpret_cast<const uint8_t*>(dst.data());
    out.size = uint32_t(dst.size());
    if (need_origin) out.origin.swap(org);  // (the swapped-out vector is scratch again)
    which ^= 1;
  }
  return true;
}

}  // namespace tagpipe::normalize
