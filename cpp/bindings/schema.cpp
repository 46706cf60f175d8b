// The plan's structs as Python classes: tagpipe.plan builds these C++ structs themselves from
// the parsed tokenizer.json and hands them to the encoder -- nothing is read back from a dict
// or a tuple.  The Python names keep "spec" for the parsed file (tagpipe.spec):
//
//   Python              C++
//   PreTokenizerStage   pretok::StageSpec      (.Kind, .Prepend; Behavior)
//   NormalizerStep      normalize::Step        (.Kind; UnicodeOptions, Decompose, CharFilter, Charsmap)
//   AddedToken          added::Token
//   BpeOptions          BpeOptions
//   WordPieceOptions    WordPieceOptions
//   PieceModel          PieceModel             (WordPiece, WordLevel, Unigram: built here)
//   EncoderConfig       EncoderSpec
//   DecoderStep         decode::Step           (.Kind)
//   DecoderConfig       decode::DecoderSpec
//
// Each struct takes its fields as keyword arguments (PreTokenizerStage(kind=..., literal=...))
// and compares and prints by them.  A list field is copied in and out: assign a whole list
// (appending to the list read back changes nothing).
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings/convert.h"
#include "decode/decoder.h"
#include "encode/encoder.h"
#include "model/unigram.h"
#include "model/wordpiece.h"
#include "normalize/chars.h"

namespace tagpipe::bindings {
namespace {

// ---- records: keyword construction, repr and == by the bound fields -----------------------

// The fields of a record: its class's properties, in the order they were bound.
std::vector<std::string> fields_of(py::handle cls) {
  std::vector<std::string> out;
  for (const auto& item : cls.attr("__dict__").attr("items")()) {
    const auto kv = item.cast<py::tuple>();
    if (PyObject_TypeCheck(kv[1].ptr(), &PyProperty_Type)) out.push_back(kv[0].cast<std::string>());
  }
  return out;
}

std::string record_repr(py::handle self) {
  const py::handle cls = py::type::handle_of(self);
  std::string out = cls.attr("__name__").cast<std::string>() + "(";
  const char* sep = "";
  for (const std::string& f : fields_of(cls)) {
    std::string value = py::repr(self.attr(f.c_str())).cast<std::string>();
    if (value.size() > 80) value = value.substr(0, 60) + "...";  // (a 16 KB pair table)
    out += sep + f + "=" + value;
    sep = ", ";
  }
  return out + ")";
}

bool record_eq(py::handle self, py::handle other) {
  const py::handle cls = py::type::handle_of(self);
  if (!cls.is(py::type::handle_of(other))) return false;
  for (const std::string& f : fields_of(cls))
    if (!self.attr(f.c_str()).equal(other.attr(f.c_str()))) return false;
  return true;
}

// Sets the fields named in `kw` on a new record; TypeError for a name that is not a field.
void set_fields(py::handle self, const py::kwargs& kw) {
  const py::handle cls = py::type::handle_of(self);
  for (const auto& [key, value] : kw) {
    const py::object attr = py::getattr(cls, key, py::none());
    if (!PyObject_TypeCheck(attr.ptr(), &PyProperty_Type))
      throw py::type_error(cls.attr("__name__").cast<std::string>() + "() got an unexpected keyword argument '" +
                           key.cast<std::string>() + "'");
    py::setattr(self, key, value);
  }
}

template <typename T, typename... Options>
py::class_<T, Options...> record(py::handle scope, const char* name, const char* doc) {
  py::class_<T, Options...> cls(scope, name, doc);
  cls.def(py::init([](const py::kwargs& kw) {
    py::object self = py::cast(T());
    set_fields(self, kw);
    return self.template cast<T>();
  }));
  cls.def("__repr__", &record_repr);
  cls.def("__eq__", &record_eq);
  return cls;
}

// A vocabulary, dict token -> id, read in place (a list of pairs would be a tuple per token).
StringTable vocab_from(const py::dict& d) {
  StringTable vocab;
  vocab.reserve(d.size());
  for (const auto& kv : d) vocab.put(bytes_of(kv.first), kv.second.cast<uint32_t>());
  return vocab;
}

// The characters a unicode pass filters out (tables::norm flags; one at a time here).
enum class CharFilter : uint32_t { None_ = 0, BertMn = tables::norm::kBertMn, Mark = tables::norm::kMark };

// ---- pre-tokenizer stages --------------------------------------------------------------------

void bind_stage(py::module_& m) {
  py::enum_<pretok::Behavior>(m, "Behavior", "What a Split does with the matches (tokenizers' SplitDelimiterBehavior)")
      .value("Removed", pretok::Behavior::Removed)
      .value("Isolated", pretok::Behavior::Isolated)
      .value("MergedWithPrevious", pretok::Behavior::MergedWithPrevious)
      .value("MergedWithNext", pretok::Behavior::MergedWithNext)
      .value("Contiguous", pretok::Behavior::Contiguous);

  using S = pretok::StageSpec;
  auto stage = record<S>(m, "PreTokenizerStage", "One native pre-tokenizer stage (pretok::StageSpec)");
  py::enum_<S::Kind>(stage, "Kind")
      .value("Pattern", S::Kind::Pattern)
      .value("Literal", S::Kind::Literal)
      .value("Runs", S::Kind::Runs)
      .value("ByteLevel", S::Kind::ByteLevel)
      .value("Metaspace", S::Kind::Metaspace)
      .value("FixedLength", S::Kind::FixedLength)
      .value("Scripts", S::Kind::Scripts)
      .value("MetaspaceRuns", S::Kind::MetaspaceRuns)
      .value("Regex", S::Kind::Regex);
  py::enum_<S::Prepend>(stage, "Prepend", "Metaspace's prepend_scheme")
      .value("Always", S::Prepend::Always)
      .value("First", S::Prepend::First)
      .value("Never", S::Prepend::Never);
  stage.def_readwrite("kind", &S::kind)
      .def_readwrite("name", &S::name)
      .def_readwrite("literal", &S::literal)
      .def_readwrite("behavior", &S::behavior)
      .def_readwrite("invert", &S::invert)
      .def_readwrite("add_prefix_space", &S::add_prefix_space)
      .def_readwrite("use_regex", &S::use_regex)
      .def_readwrite("prepend", &S::prepend)
      .def_readwrite("split", &S::split)
      .def_readwrite("length", &S::length)
      .def_readwrite("guards", &S::guards)
      .def_readwrite("program", &S::program)
      .def_property(
          "pairs", [](const S& s) { return py::bytes(s.pairs); },
          [](S& s, const py::bytes& pairs) {
            const std::string_view p = pairs;
            if (!p.empty() && p.size() != 128 * 128) throw py::value_error("pairs must be empty or 16384 bytes");
            s.pairs.assign(p.data(), p.size());
          });
}

// ---- normalizer steps ------------------------------------------------------------------------

void bind_normalizer_step(py::module_& m) {
  using U = normalize::UnicodeOptions;
  py::enum_<U::Decompose>(m, "Decompose", "The decomposition of a unicode pass")
      .value("None_", U::None)
      .value("Nfd", U::Nfd)
      .value("Nfkd", U::Nfkd);
  py::enum_<CharFilter>(m, "CharFilter", "Characters a unicode pass filters out")
      .value("None_", CharFilter::None_)
      .value("BertMn", CharFilter::BertMn)
      .value("Mark", CharFilter::Mark);
  auto filter = [](uint32_t U::*field) {
    return std::make_pair([field](const U& u) { return CharFilter(u.*field); },
                          [field](U& u, CharFilter f) { u.*field = uint32_t(f); });
  };
  const auto drop = filter(&U::drop), drop_after = filter(&U::drop_after);
  record<U>(m, "UnicodeOptions", "One pass of per-character rules (normalize::UnicodeOptions)")
      .def_readwrite("clean_text", &U::clean_text)
      .def_readwrite("chinese", &U::chinese)
      .def_readwrite("decompose", &U::decompose)
      .def_property("drop", drop.first, drop.second)
      .def_readwrite("lowercase", &U::lowercase)
      .def_property("drop_after", drop_after.first, drop_after.second);

  py::class_<normalize::Charsmap, std::shared_ptr<normalize::Charsmap>>(
      m, "Charsmap", "A decoded SentencePiece precompiled_charsmap (ValueError when malformed)")
      .def(py::init([](const py::bytes& blob) { return std::make_shared<normalize::Charsmap>(std::string(blob)); }),
           py::arg("blob"));

  using N = normalize::Step;
  auto step = record<N>(m, "NormalizerStep", "One native normalizer step (normalize::Step)");
  py::enum_<N::Kind>(step, "Kind")
      .value("Prepend", N::Kind::Prepend)
      .value("Replace", N::Kind::Replace)
      .value("SpaceRuns", N::Kind::SpaceRuns)
      .value("Nfc", N::Kind::Nfc)
      .value("Nfkc", N::Kind::Nfkc)
      .value("Unicode", N::Kind::Unicode)
      .value("Strip", N::Kind::Strip)
      .value("Precompiled", N::Kind::Precompiled)
      .value("RegexReplace", N::Kind::RegexReplace);
  step.def_readwrite("kind", &N::kind)
      .def_readwrite("a", &N::a)
      .def_readwrite("b", &N::b)
      .def_readwrite("program", &N::program)
      .def_readwrite("unicode", &N::unicode)
      .def_readwrite("strip_left", &N::strip_left)
      .def_readwrite("strip_right", &N::strip_right)
      .def_property(
          "charsmap", [](const N& s) { return std::const_pointer_cast<normalize::Charsmap>(s.charsmap); },
          [](N& s, std::shared_ptr<normalize::Charsmap> c) { s.charsmap = std::move(c); });
}

// ---- added tokens, models, the encoder ---------------------------------------------------------

void bind_models(py::module_& m) {
  record<added::Token>(m, "AddedToken", "An added token as the splitter matches it (added::Token)")
      .def_readwrite("text", &added::Token::text)
      .def_readwrite("id", &added::Token::id)
      .def_readwrite("single_word", &added::Token::single_word)
      .def_readwrite("lstrip", &added::Token::lstrip)
      .def_readwrite("rstrip", &added::Token::rstrip);

  record<BpeOptions>(m, "BpeOptions", "A BPE model's options (the vocabulary and merges: EncoderConfig)")
      .def_readwrite("unk_id", &BpeOptions::unk_id)
      .def_readwrite("fuse_unk", &BpeOptions::fuse_unk)
      .def_readwrite("byte_fallback", &BpeOptions::byte_fallback)
      .def_readwrite("ignore_merges", &BpeOptions::ignore_merges)
      .def_readwrite("prefix", &BpeOptions::prefix)
      .def_readwrite("suffix", &BpeOptions::suffix);

  record<WordPieceOptions>(m, "WordPieceOptions", "A WordPiece model's options")
      .def_readwrite("unk_id", &WordPieceOptions::unk_id)
      .def_readwrite("prefix", &WordPieceOptions::prefix)
      .def_readwrite("max_chars", &WordPieceOptions::max_chars);

  py::class_<PieceModel, std::shared_ptr<PieceModel>>(m, "PieceModel", "A model other than BPE, ready to encode");
  py::class_<WordPiece, PieceModel, std::shared_ptr<WordPiece>>(m, "WordPiece")
      .def(py::init([](const py::dict& vocab, const WordPieceOptions& options) {
             return std::make_shared<WordPiece>(vocab_from(vocab), options);
           }),
           py::arg("vocab"), py::arg("options"));
  py::class_<WordLevel, PieceModel, std::shared_ptr<WordLevel>>(m, "WordLevel")
      .def(py::init([](const py::dict& vocab, std::optional<uint32_t> unk_id) {
             return std::make_shared<WordLevel>(vocab_from(vocab), unk_id);
           }),
           py::arg("vocab"), py::arg("unk_id"));
  py::class_<Unigram, PieceModel, std::shared_ptr<Unigram>>(m, "Unigram")
      .def(py::init([](const std::vector<std::pair<std::string, double>>& pieces, std::optional<uint32_t> unk_id,
                       bool byte_fallback) { return std::make_shared<Unigram>(pieces, unk_id, byte_fallback); }),
           py::arg("pieces"), py::arg("unk_id"), py::arg("byte_fallback"));
}

void bind_encoder_config(py::module_& m) {
  record<EncoderSpec>(m, "EncoderConfig",
                      "What an Encoder is built from (EncoderSpec): the model is BPE (set_vocab, set_merges, "
                      "bpe) unless piece_model is set")
      .def_readwrite("normalizer", &EncoderSpec::normalizer)
      .def_readwrite("pre_tokenizer", &EncoderSpec::pre_tokenizer)
      .def_readwrite("bpe", &EncoderSpec::bpe)
      .def_property(
          "piece_model", [](const EncoderSpec& s) { return std::const_pointer_cast<PieceModel>(s.piece_model); },
          [](EncoderSpec& s, std::shared_ptr<PieceModel> p) { s.piece_model = std::move(p); })
      .def_readwrite("raw_tokens", &EncoderSpec::raw_tokens)
      .def_readwrite("normalized_tokens", &EncoderSpec::normalized_tokens)
      .def_readwrite("prefix_ids", &EncoderSpec::prefix_ids)
      .def_readwrite("suffix_ids", &EncoderSpec::suffix_ids)
      .def_readwrite("cache_bytes", &EncoderSpec::cache_bytes)
      .def(
          "set_vocab", [](EncoderSpec& s, const py::dict& vocab) { s.vocab = vocab_from(vocab); }, py::arg("vocab"),
          "The BPE vocabulary: a dict token -> id.")
      .def(
          "set_merges",
          [](EncoderSpec& s, const py::array_t<uint32_t, py::array::c_style | py::array::forcecast>& merges) {
            if (merges.size() && (merges.ndim() != 2 || merges.shape(1) != 3))
              throw py::value_error("merges must be a (n, 3) array of (left, right, result) ids");
            const uint32_t* p = merges.data();
            const size_t n = merges.size() / 3;
            s.merges.clear();
            s.merges.reserve(n);
            for (size_t i = 0; i < n; i++) s.merges.push_back({p[3 * i], p[3 * i + 1], p[3 * i + 2]});
          },
          py::arg("merges"), "The BPE merges in rank order: uint32[n, 3] (left, right, result) ids.");
}

// ---- the decoder ------------------------------------------------------------------------------

void bind_decoder_config(py::module_& m) {
  using S = decode::Step;
  auto step = record<S>(m, "DecoderStep", "One native decoder (decode::Step); a Sequence is flattened");
  py::enum_<S::Kind>(step, "Kind")
      .value("ByteLevel", S::Kind::ByteLevel)
      .value("Metaspace", S::Kind::Metaspace)
      .value("WordPiece", S::Kind::WordPiece)
      .value("BPEDecoder", S::Kind::BPEDecoder)
      .value("CTC", S::Kind::CTC)
      .value("Replace", S::Kind::Replace)
      .value("Fuse", S::Kind::Fuse)
      .value("Strip", S::Kind::Strip)
      .value("ByteFallback", S::Kind::ByteFallback);
  step.def_readwrite("kind", &S::kind)
      .def_readwrite("pattern", &S::pattern)
      .def_readwrite("content", &S::content)
      .def_readwrite("replacement", &S::replacement)
      .def_readwrite("prepended", &S::prepended)
      .def_readwrite("prefix", &S::prefix)
      .def_readwrite("cleanup", &S::cleanup)
      .def_readwrite("suffix", &S::suffix)
      .def_readwrite("pad_token", &S::pad_token)
      .def_readwrite("word_delimiter_token", &S::word_delimiter_token)
      .def_readwrite("start", &S::start)
      .def_readwrite("stop", &S::stop);

  using D = decode::DecoderSpec;
  auto pairs_of = [](const std::vector<added::Token>& tokens) {
    std::vector<std::pair<uint32_t, std::string>> out;
    out.reserve(tokens.size());
    for (const auto& t : tokens) out.emplace_back(t.id, t.text);
    return out;
  };
  record<D>(m, "DecoderConfig",
            "What a Decoder is built from (decode::DecoderSpec): the steps, and the tokens by id -- the model's "
            "(set_vocab or set_pieces) and the added ones")
      .def_readwrite("steps", &D::steps)
      .def_readwrite("join_with_space", &D::join_with_space)
      .def_readwrite("special", &D::special)
      .def_property(
          "added_tokens",
          [](const D& d) {
            std::vector<added::Token> out;
            for (const auto& [id, text] : d.added) out.push_back(added::Token{text, id});
            return out;
          },
          [pairs_of](D& d, const std::vector<added::Token>& tokens) { d.added = pairs_of(tokens); })
      .def(
          "set_vocab",
          [](D& d, const py::dict& vocab) {
            d.model.clear();
            d.model.reserve(vocab.size());
            for (const auto& kv : vocab) d.model.emplace_back(kv.second.cast<uint32_t>(), bytes_of(kv.first));
          },
          py::arg("vocab"), "The model's tokens: a dict token -> id (BPE, WordPiece, WordLevel).")
      .def(
          "set_pieces",
          [](D& d, const py::list& pieces) {
            d.model.clear();
            d.model.reserve(pieces.size());
            for (size_t i = 0; i < pieces.size(); i++) d.model.emplace_back(uint32_t(i), bytes_of(pieces[i]));
          },
          py::arg("pieces"), "The model's tokens: a list of pieces, id = index (Unigram).");
}

}  // namespace

void bind_schema(py::module_& m) {
  bind_stage(m);
  bind_normalizer_step(m);
  bind_models(m);
  bind_encoder_config(m);
  bind_decoder_config(m);
}

}  // namespace tagpipe::bindings
