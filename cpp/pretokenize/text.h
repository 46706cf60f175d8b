// What pre-tokenizer stages read and write.
//
// A Text is the content the next stage reads: the input itself (zero-copy) or, after a
// stage that rewrites content (Metaspace's ' ' -> '▁' and prefix, ByteLevel's prefix
// space), an owned copy with an alignment back to the input.  Pieces are byte ranges of
// a Text's content.  Every stage runs on one piece at a time, so for it the piece's end is
// the end of the input -- as in Hugging Face, where a Sequence re-splits each piece
// independently and a lookahead sees the piece boundary as the end.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tagpipe::pretok {

struct Piece {
  uint32_t begin, end;  // content bytes [begin, end)
};

// Where one content byte came from: the original character it belongs to (Hugging Face
// aligns every byte of a character, and every byte written for it, to the whole character).
struct Origin {
  uint32_t begin, end;
};

struct Text {
  const uint8_t* bytes = nullptr;
  uint32_t size = 0;
  // Bytes are read through the ByteLevel map: every byte is one character (a GPT-2
  // "byte char"), so stages after ByteLevel see what Hugging Face's do.
  bool byte_mapped = false;
  // Per content byte, its original character; empty when the content is the input itself.
  std::vector<Origin> origin;
  // Owns `bytes` when the content was rewritten.
  std::shared_ptr<std::string> storage;

  bool rewritten() const { return !origin.empty(); }
};

}  // namespace tagpipe::pretok
