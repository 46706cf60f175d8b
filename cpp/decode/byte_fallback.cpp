// The ByteFallback decoder.
#include "decode/stages.h"
#include "decode/utf8.h"

namespace tagpipe::decode {
namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The byte of a "<0xHH>" token, else -1.  The two characters are read as Rust's
// u8::from_str_radix(_, 16) does: "+H" is H.
int byte_of(std::string_view t) {
  if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
  if (t[3] == '+') return hex(t[4]);
  const int hi = hex(t[3]), lo = hex(t[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

void flush(std::string& bytes, Tokens& out, Arena& arena) {
  if (bytes.empty()) return;
  if (is_utf8(bytes)) {
    out.push_back(arena.copy(bytes));
  } else {
    out.insert(out.end(), bytes.size(), kReplacementChar);
  }
  bytes.clear();
}

}  // namespace

void byte_fallback(const Tokens& in, Tokens& out, Arena& arena, std::string& tmp) {
  tmp.clear();
  for (const std::string_view t : in) {
    const int b = byte_of(t);
    if (b >= 0) {
      tmp.push_back(char(b));
      continue;
    }
    flush(tmp, out, arena);
    out.push_back(t);
  }
  flush(tmp, out, arena);
}

}  // namespace tagpipe::decode
