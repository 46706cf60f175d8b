// The per-character normalizers: Lowercase, StripAccents, NFD, NFKD, BertNormalizer, Strip.
//
// Every fact about a character comes from tables/generated/norm_props.h, read off the
// oracle over all scalar values.  Decomposition is the character's own full decomposition
// (the oracle's NFD/NFKD of it alone) followed by canonical ordering -- a stable sort of
// each run of non-starters by combining class -- which is what NFD of a whole text is.
#include <algorithm>

#include "normalize/chars.h"
#include "normalize/normalize.h"

namespace tagpipe::normalize {
namespace {

using pretok::Origin;
namespace T = tables::norm;

struct Out {
  std::string& dst;
  std::vector<Origin>& org;
  bool need_origin;
  void bytes(std::string_view b, Origin o) {
    dst.append(b);
    if (need_origin) org.insert(org.end(), b.size(), o);
  }
  void cp(uint32_t c, Origin o) {
    const size_t before = dst.size();
    encode(c, dst);
    if (need_origin) org.insert(org.end(), dst.size() - before, o);
  }
};

// The last stages: lowercase (NormalizedString::lowercase maps every char by
// char::to_lowercase, with no context such as the final sigma), then the filter of a
// StripAccents that follows, then write.
struct Writer {
  const UnicodeOptions& opt;
  Out out;
  void emit(uint32_t c, Origin o) {
    if (opt.lowercase) {
      const Record& r = props(c);
      if (r.lower) {
        const std::string_view low = pooled(r.lower);
        if (!opt.drop_after) return out.bytes(low, o);
        const auto* b = reinterpret_cast<const uint8_t*>(low.data());
        for (uint32_t i = 0, cp = 0, len = 1; i < low.size(); i += len) {
          decode(b, uint32_t(low.size()), i, cp, len);  // the pool is well formed (generated)
          if (!(props(cp).flags & opt.drop_after)) out.cp(cp, o);
        }
        return;
      }
    }
    if (opt.drop_after && (props(c).flags & opt.drop_after)) return;
    out.cp(c, o);
  }
};

// Decomposition, the filter of marks and canonical ordering.  Non-starters wait in
// `pending` until the next starter (or the end), then leave stably sorted by class.
struct Decomposer {
  const UnicodeOptions& opt;
  Writer& w;
  std::vector<Scratch::Pending>& pending;
  std::vector<Origin>& slots;

  bool idle() const { return pending.empty(); }
  void flush() {
    if (pending.size() > 1) {
      // The oracle aligns NFD's output by position (NormalizedString::transform consumes the
      // original characters in order), so the reordered characters take the origins in
      // arrival order: keep those where they are and sort the characters alone.
      slots.clear();
      for (const auto& p : pending) slots.push_back(p.origin);
      std::stable_sort(pending.begin(), pending.end(), [](const auto& x, const auto& y) { return x.ccc < y.ccc; });
      for (size_t k = 0; k < pending.size(); k++) pending[k].origin = slots[k];
    }
    for (const auto& p : pending)
      if (!p.drop) w.emit(p.cp, p.origin);
    pending.clear();
  }
  // One character of the fully decomposed text.
  void decomposed(uint32_t c, Origin o) {
    const Record& r = props(c);
    const bool drop = r.flags & opt.drop;
    if (r.ccc == 0) {
      flush();
      if (!drop) w.emit(c, o);
      return;
    }
    // The filter of marks runs after NFD in the oracle: a dropped non-starter still takes
    // part in the ordering (and in the positional alignment).
    pending.push_back({c, r.ccc, drop, o});
  }
  void feed(uint32_t c, Origin o) {
    if (opt.decompose == UnicodeOptions::None) return w.emit(c, o);
    const Record& r = props(c);
    if (r.flags & T::kHangul) {
      uint32_t jamo[3];
      const int k = hangul_decompose(c, jamo);
      for (int i = 0; i < k; i++) decomposed(jamo[i], o);
      return;
    }
    const uint32_t off = opt.decompose == UnicodeOptions::Nfd ? r.nfd : r.nfkd;
    if (off == 0) return decomposed(c, o);
    const std::string_view d = pooled(off);
    const auto* b = reinterpret_cast<const uint8_t*>(d.data());
    for (uint32_t i = 0, cp = 0, len = 1; i < d.size(); i += len) {
      decode(b, uint32_t(d.size()), i, cp, len);  // the pool is well formed (generated)
      decomposed(cp, o);
    }
  }
};

// The flags some stage acts on.
uint32_t touched_flags(const UnicodeOptions& opt) {
  return (opt.clean_text ? T::kCleanRemove | T::kCleanSpace : 0) | (opt.chinese ? T::kChinese : 0) |
         (opt.decompose ? T::kHangul | opt.drop : 0) | opt.drop_after;
}

// Whether the pass writes the character as it is: a starter with none of the flags `touch`
// and no mapping the pass uses.
bool untouched(const UnicodeOptions& opt, const Record& r, uint32_t touch) {
  return !(r.flags & touch) && r.ccc == 0 && !(opt.lowercase && r.lower) &&
         !(opt.decompose == UnicodeOptions::Nfd && r.nfd) && !(opt.decompose == UnicodeOptions::Nfkd && r.nfkd);
}

}  // namespace

Origin Source::at(uint32_t i) const {
  if (origin) return origin[i];
  uint32_t b = i, e = i + 1;  // the content is the input: the character containing byte i
  while (b > 0 && (s[b] & 0xC0) == 0x80) --b;
  while (e < n && (s[e] & 0xC0) == 0x80) ++e;
  return {b, e};
}

// ASCII: what the whole pass makes of each character: one byte, or nothing (-1); -2 if the
// table says something this shortcut does not model (never, for the oracle's tables: ASCII
// characters are starters without decompositions, never Chinese, never marks, and
// lowercase to one ASCII byte).
//
// Two-byte characters: kUnchanged when no stage touches the character (a starter with no
// mapping the pass uses); kFixed when it is a starter whose decomposition is a starter
// followed by non-starters that all come out as nothing (dropped by the filter of marks, or
// emptied by lowercase + StripAccents).  Such a character's output does not depend on its
// neighbours: its starter is written at once, and its non-starters -- which would wait to be
// ordered with the non-starters after them -- leave nothing; removing them from a stably
// sorted run leaves the others in the same order.  (Their origins would take part in the
// positional alignment, so the pass uses kFixed only without origins.)
std::shared_ptr<const CharMap> char_map(const UnicodeOptions& opt) {
  auto map = std::make_shared<CharMap>();
  int16_t* out = map->ascii;
  for (int c = 0; c < 128; c++) {
    int v = c;
    const Record& r = props(uint32_t(c));
    if (r.ccc || r.nfd || r.nfkd || (r.flags & (T::kChinese | T::kHangul | opt.drop))) v = -2;
    else if (opt.clean_text && (r.flags & T::kCleanRemove)) v = -1;
    else if (opt.clean_text && (r.flags & T::kCleanSpace)) v = ' ';
    if (v >= 0 && opt.lowercase && props(uint32_t(v)).lower) {
      const std::string_view low = pooled(props(uint32_t(v)).lower);
      v = low.size() == 1 && uint8_t(low[0]) < 0x80 ? uint8_t(low[0]) : -2;
    }
    if (v >= 0 && (props(uint32_t(v)).flags & opt.drop_after)) v = -1;
    out[c] = int16_t(v);
  }
  map->modelled = std::none_of(out, out + 128, [](int16_t v) { return v == -2; });
  for (auto& k : map->two) k = CharMap::kSlow;
  if (!map->modelled) return map;
  const uint32_t touch = touched_flags(opt);
  Scratch sc;
  std::string alone, mark;
  std::vector<Origin> none;
  auto pass = [&](uint32_t c, std::string& to) {  // the pass over one character alone
    std::string utf8;
    encode(c, utf8);
    to.clear();
    return unicode_pass(opt, *map,
                        Source{reinterpret_cast<const uint8_t*>(utf8.data()), uint32_t(utf8.size()), nullptr}, false,
                        to, none, sc);
  };
  for (uint32_t c = 0x80; c < 0x800; c++) {
    const Record& r = props(c);
    const uint32_t k = c - 0x80;
    if (untouched(opt, r, touch)) {
      map->two[k] = CharMap::kUnchanged;
      continue;
    }
    if (r.ccc != 0 || (r.flags & T::kHangul)) continue;
    // The characters decomposition makes of c (c itself without one).
    std::vector<uint32_t> parts;
    const uint32_t off = opt.decompose == UnicodeOptions::Nfd    ? r.nfd
                         : opt.decompose == UnicodeOptions::Nfkd ? r.nfkd
                                                                 : 0;
    if (off == 0 || (opt.clean_text && (r.flags & (T::kCleanRemove | T::kCleanSpace)))) {
      parts.push_back(c);  // (clean_text: removed, or one ' ' -- nothing to order)
    } else {
      const std::string_view d = pooled(off);
      const auto* b = reinterpret_cast<const uint8_t*>(d.data());
      for (uint32_t i = 0, cp = 0, len = 1; i < d.size(); i += len) {
        decode(b, uint32_t(d.size()), i, cp, len);
        parts.push_back(cp);
      }
    }
    bool fixed = props(parts[0]).ccc == 0;
    for (size_t i = 1; i < parts.size() && fixed; i++)
      fixed =
          props(parts[i]).ccc != 0 && ((props(parts[i]).flags & opt.drop) || (pass(parts[i], mark) && mark.empty()));
    if (!fixed || !pass(c, alone) || alone.size() > 255 || map->pool.size() + alone.size() > UINT16_MAX) continue;
    map->two[k] = CharMap::kFixed;
    map->at[k] = uint16_t(map->pool.size());
    map->len[k] = uint8_t(alone.size());
    map->pool += alone;
  }
  return map;
}

// Characters no stage changes are copied in runs (`run`: where the current one began); an
// ASCII or two-byte character takes one lookup in the CharMap; any other that some stage
// changes goes through clean_text (its filter first: NUL, U+FFFD and is_control -- the
// oracle's is_other but \t \n \r --, then is_whitespace to ' '), the spaces around a CJK
// ideograph (aligned to it; written at once when nothing else changes it) and the
// Decomposer.  (One function: split into helpers, GCC compiled the loop differently.)
bool unicode_pass(const UnicodeOptions& opt, const CharMap& map, const Source& src, bool need_origin, std::string& dst,
                  std::vector<Origin>& org, Scratch& sc) {
  dst.reserve(src.n + src.n / 4 + 16);
  Writer w{opt, Out{dst, org, need_origin}};
  Decomposer d{opt, w, sc.pending, sc.slots};
  sc.pending.clear();
  if (!map.modelled) return false;
  const int16_t* ascii = map.ascii;
  const uint32_t touch = touched_flags(opt);
  uint32_t run = 0;
  auto copy_run = [&](uint32_t end) {
    dst.append(reinterpret_cast<const char*>(src.s + run), end - run);
    if (need_origin)
      for (uint32_t k = run; k < end; k++) org.push_back(src.at(k));
  };
  for (uint32_t i = 0, cp = 0, len = 1; i < src.n; i += len) {
    const uint8_t b = src.s[i];
    if (b < 0x80) {    // ASCII: one table lookup
      if (d.idle()) {  // unchanged bytes: the run goes on
        uint32_t e = i;
        while (e < src.n && src.s[e] < 0x80 && ascii[src.s[e]] == src.s[e]) e++;
        if (e > i) {
          len = e - i;
          continue;
        }
      }
      len = 1;
      copy_run(i), run = i + 1;
      d.flush();
      if (ascii[b] >= 0) {
        dst.push_back(char(ascii[b]));
        if (need_origin) org.push_back(src.at(i));
      }
      continue;
    }
    if (b >= 0xC2 && b < 0xE0 && i + 1 < src.n && (src.s[i + 1] & 0xC0) == 0x80) {  // two bytes: one lookup
      const uint32_t k = ((b & 0x1Fu) << 6 | (src.s[i + 1] & 0x3Fu)) - 0x80;
      if (map.two[k] == CharMap::kUnchanged) {
        len = 2;
        if (d.idle()) continue;  // (as below: a starter no stage changes)
        d.flush();
        run = i;
        continue;
      }
      if (map.two[k] == CharMap::kFixed && !need_origin && d.idle()) {
        len = 2;
        copy_run(i), run = i + 2;
        dst.append(map.pool, map.at[k], map.len[k]);
        continue;
      }
    }
    if (!decode(src.s, src.n, i, cp, len)) return false;
    const Record& rec = props(cp);
    if (untouched(opt, rec, touch)) {
      if (d.idle()) continue;  // a starter that no stage changes: the run goes on
      d.flush();               // (after the non-starters before it)
      run = i;
      continue;
    }
    copy_run(i), run = i + len;
    const Origin o = need_origin ? src.at(i) : Origin{0, 0};
    if (opt.chinese && (rec.flags & T::kChinese) && d.idle() && untouched(opt, rec, touch & ~T::kChinese)) {
      dst.push_back(' ');
      dst.append(reinterpret_cast<const char*>(src.s + i), len);
      dst.push_back(' ');
      if (need_origin) org.insert(org.end(), len + 2, o);
      continue;
    }
    if (opt.clean_text) {  // do_clean_text
      const uint32_t f = props(cp).flags;
      if (f & T::kCleanRemove) continue;
      if (f & T::kCleanSpace) cp = ' ';
    }
    if (opt.chinese && (props(cp).flags & T::kChinese)) {  // do_handle_chinese_chars
      d.feed(' ', o), d.feed(cp, o), d.feed(' ', o);
      continue;
    }
    d.feed(cp, o);
  }
  copy_run(src.n);  // (the pending non-starters are flushed whenever a run starts: none here)
  d.flush();
  return true;
}

bool nfkc_inert(const uint8_t* s, uint32_t n) {
  for (uint32_t i = 0, cp = 0, len = 1; i < n; i += len) {
    if (!decode(s, n, i, cp, len)) return false;
    if (props(cp).flags & T::kNfkcChanges) return false;
  }
  return true;
}

bool strip_pass(bool left, bool right, const Source& src, bool need_origin, std::string& dst,
                std::vector<Origin>& org) {
  // NormalizedString::lrstrip: whole chars with char::is_whitespace off either end.
  uint32_t b = 0, e = src.n;
  for (uint32_t cp, len; left && b < e; b += len) {
    if (!decode(src.s, src.n, b, cp, len)) return false;
    if (!(props(cp).flags & T::kWhitespace)) break;
  }
  while (right && e > b) {
    uint32_t k = e - 1, cp, len;
    while (k > b && (src.s[k] & 0xC0) == 0x80) --k;
    if (!decode(src.s, src.n, k, cp, len)) return false;
    if (!(props(cp).flags & T::kWhitespace)) break;
    e = k;
  }
  dst.assign(reinterpret_cast<const char*>(src.s + b), e - b);
  if (need_origin)
    for (uint32_t i = b; i < e; i++) org.push_back(src.at(i));
  return true;
}

}  // namespace tagpipe::normalize
