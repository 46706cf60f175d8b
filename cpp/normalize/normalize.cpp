#include "normalize/normalize.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "kernels/classify/classify.h"
#include "common/replace_byte.h"
#include "dispatch/kernels.h"

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

bool Normalizer::run(const uint8_t* in, uint32_t n, pretok::Text& out, Scratch& sc, bool need_origin) const {
  out = pretok::Text{};
  out.bytes = in, out.size = n;
  int which = 0;
  for (const Step& step : steps_) {
    const std::string_view cur(reinterpret_cast<const char*>(out.bytes), out.size);
    auto origin = [&](uint32_t i) {
      return out.rewritten() ? out.origin[i] : char_at(in, n, i);
    };
    std::string& dst = sc.buf[which];
    std::vector<pretok::Origin>& org = sc.origin[which];
    dst.clear(), org.clear();
    switch (step.kind) {
      case Step::Kind::Nfc:
        if (!nfc_inert(out.bytes, out.size, sc)) return false;
        continue;
      case Step::Kind::Nfkc:
        if (!nfkc_inert(out.bytes, out.size)) return false;
        continue;
      case Step::Kind::Unicode:
      case Step::Kind::Strip:
      case Step::Kind::Precompiled: {
        const Source src{out.bytes, out.size, out.rewritten() ? out.origin.data() : nullptr};
        const bool ok = step.kind == Step::Kind::Unicode ? unicode_pass(step.unicode, *step.chars, src, need_origin, dst, org, sc)
                        : step.kind == Step::Kind::Strip
                            ? strip_pass(step.strip_left, step.strip_right, src, need_origin, dst, org)
                            : precompiled_pass(*step.charsmap, src, need_origin, dst, org);
        if (!ok) return false;
        break;
      }
      case Step::Kind::SpaceRuns: {
        // Replace(Regex " {2,}"): the leftmost-longest runs of two or more ' '.
        size_t at = cur.find("  ");
        if (at == std::string_view::npos) continue;
        size_t done = 0;
        for (; at != std::string_view::npos; at = cur.find("  ", done)) {
          size_t end = at + 2;
          while (end < cur.size() && cur[end] == ' ') end++;
          dst.append(cur.substr(done, at - done));
          dst += step.b;
          if (need_origin) {
            for (size_t i = done; i < at; i++) org.push_back(origin(uint32_t(i)));
            org.insert(org.end(), step.b.size(), pretok::Origin{origin(uint32_t(at)).begin, origin(uint32_t(end - 1)).end});
          }
          done = end;
        }
        dst.append(cur.substr(done));
        if (need_origin)
          for (size_t i = done; i < cur.size(); i++) org.push_back(origin(uint32_t(i)));
        break;
      }
      case Step::Kind::Prepend:
        if (cur.empty()) continue;  // the oracle prepends to a non-empty string only
        dst = step.a;
        dst += cur;
        if (need_origin) {
          org.assign(step.a.size(), origin(0));  // aligned to the first character
          for (uint32_t i = 0; i < cur.size(); i++) org.push_back(origin(i));
        }
        break;
      case Step::Kind::Replace: {
        if (!need_origin && step.a.size() == 1 && step.b.size() <= 4) {
          append_replacing_byte(cur, uint8_t(step.a[0]), step.b, dst);  // (dst is clear)
          break;
        }
        size_t at = cur.find(step.a);
        if (at == std::string_view::npos) continue;
        size_t done = 0;
        for (; at != std::string_view::npos; at = cur.find(step.a, at + step.a.size())) {
          dst.append(cur.substr(done, at - done));
          dst += step.b;
          if (need_origin) {
            for (size_t i = done; i < at; i++) org.push_back(origin(uint32_t(i)));
            pretok::Origin o = origin(uint32_t(at));
            o.end = origin(uint32_t(at + step.a.size() - 1)).end;
            org.insert(org.end(), step.b.size(), o);
          }
          done = at + step.a.size();
        }
        dst.append(cur.substr(done));
        if (need_origin)
          for (size_t i = done; i < cur.size(); i++) org.push_back(origin(uint32_t(i)));
        break;
      }
    }
    out.bytes = reinterpret_cast<const uint8_t*>(dst.data());
    out.size = uint32_t(dst.size());
    if (need_origin) out.origin.swap(org);  // (the swapped-out vector is scratch again)
    which ^= 1;
  }
  return true;
}

}  // namespace tagpipe::normalize
