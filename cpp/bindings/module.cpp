// The Python extension tagpipe._core: the only code that includes pybind11 (with the other
// files of this folder: schema.cpp binds the plan's structs, decode.cpp the native decode,
// testing.cpp the hooks of tests and benchmarks, convert.h what they share).
//
// It turns Python objects into spans, releases the GIL around native work and hands back
// numpy arrays.  Defaults, validation messages and docs live in the Python layer (tagpipe/);
// tagpipe/_core/*.pyi describe this module (checked by tests/test_core_stubs.py).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bindings/convert.h"
#include "encode/encoder.h"
#include "normalize/normalize.h"
#include "pretokenize/pipeline.h"

namespace py = pybind11;
using namespace tagpipe;
using namespace tagpipe::bindings;

namespace {

py::tuple classify(py::handle data, const std::string& alphabet, const std::optional<std::string>& kernel) {
  const Alphabet& a = alphabet_named(alphabet);
  const ClassifyFn fn = kernel_named(kernel).classify;
  Bytes in(data);
  py::array_t<uint8_t> tags(py::ssize_t(in.size));
  py::array_t<uint64_t> starts(py::ssize_t(start_words(in.size)));
  uint8_t* t = tags.mutable_data();
  uint64_t* s = starts.mutable_data();
  {
    py::gil_scoped_release nogil;
    fn(in.data, in.size, a, t, s);
  }
  return py::make_tuple(tags, starts);
}

class PyPreTokenizer {
 public:
  // model_cuts: as when the model cuts long pieces itself (MetaspaceRuns then leaves dense
  // ones whole)
  PyPreTokenizer(const std::vector<pretok::StageSpec>& stages, bool model_cuts) : impl_(stages) {
    impl_.model_cuts(model_cuts);
  }

  // (content, byte_mapped, pieces uint32[n,2] into content, offsets uint32[n,2] into the
  // input's UTF-8); content is None when it is the input itself.
  py::tuple run(py::handle data) const {
    Bytes in(data);
    check_size(in.size);
    pretok::PreTokenized out;
    {
      py::gil_scoped_release nogil;
      impl_.run(in.data, uint32_t(in.size), out, scratch());
    }
    const size_t n = out.pieces.size();
    py::array_t<uint32_t> pieces({py::ssize_t(n), py::ssize_t(2)}), offsets({py::ssize_t(n), py::ssize_t(2)});
    uint32_t* p = pieces.mutable_data();
    uint32_t* o = offsets.mutable_data();
    for (size_t k = 0; k < n; k++) {
      const pretok::Origin org = out.origin(out.pieces[k], in.data, uint32_t(in.size));
      p[2 * k] = out.pieces[k].begin, p[2 * k + 1] = out.pieces[k].end;
      o[2 * k] = org.begin, o[2 * k + 1] = org.end;
    }
    py::object content = py::none();
    if (out.text.rewritten()) content = py::bytes(reinterpret_cast<const char*>(out.text.bytes), out.text.size);
    return py::make_tuple(content, out.text.byte_mapped, pieces, offsets);
  }

 private:
  static pretok::Scratch& scratch() {
    thread_local pretok::Scratch s;
    return s;
  }
  pretok::PreTokenizer impl_;
};

// A list of str as the encoder's documents (each held alive while the GIL is released).
struct Docs {
  std::vector<Text> keep;
  std::vector<Units> units;
  explicit Docs(const py::list& texts) {
    keep.reserve(texts.size());
    units.reserve(texts.size());
    for (const auto& t : texts) {
      keep.emplace_back(t);
      units.push_back(keep.back().units);
    }
  }
  // The first document the encoder found a lone surrogate in: CPython's error for it.
  void raise_not_utf8(const std::vector<uint8_t>& delegate) const {
    for (size_t i = 0; i < units.size(); i++)
      if (delegate[i] == Encoder::kNotUtf8) keep[i].raise_not_utf8();
  }
};

// The encoder of a native plan (tagpipe.plan builds its EncoderConfig; it is trusted).
class PyEncoder {
 public:
  explicit PyEncoder(EncoderSpec&& config) : impl_(std::move(config)) {}

  // uint32 ids, or None when the text must be delegated.
  py::object encode(py::handle text, bool add_special, int64_t limit, bool left) const {
    const Text in(text);
    std::vector<uint32_t> ids;
    Encoder::Result r;
    const Truncation trunc = truncation(limit, left);
    {
      py::gil_scoped_release nogil;
      r = impl_.encode(in.units, add_special, ids, trunc);
    }
    if (r == Encoder::kNotUtf8) in.raise_not_utf8();
    if (r == Encoder::kDelegate) return py::none();
    return to_numpy(std::move(ids));
  }

  // (ids uint32[N], offsets int64[n+1], delegate bool[n]) for a list of str.
  py::tuple encode_batch(const py::list& texts, bool add_special, int threads, int64_t limit, bool left) const {
    const Docs docs(texts);
    Encoder::Batch batch;
    {
      py::gil_scoped_release nogil;
      impl_.encode_batch(docs.units, add_special, threads, batch, truncation(limit, left));
    }
    docs.raise_not_utf8(batch.delegate);
    return batch_tuple(batch);
  }

  // The same for texts laid out as an Arrow string column: text i is the UTF-8 bytes
  // data[starts[i] .. ends[i]).  No Python object per text (the caller, tagpipe.tokenizer,
  // has checked that the bytes are UTF-8 and mapped nulls).
  py::tuple encode_spans(py::handle data, const py::array_t<int64_t, py::array::c_style>& starts,
                         const py::array_t<int64_t, py::array::c_style>& ends, bool add_special, int threads,
                         int64_t limit, bool left) const {
    Bytes in(data);
    if (starts.ndim() != 1 || ends.ndim() != 1 || starts.shape(0) != ends.shape(0))
      throw py::value_error("starts and ends must be 1-D arrays of one length");
    const int64_t* b = starts.data();
    const int64_t* e = ends.data();
    std::vector<Units> docs(size_t(starts.shape(0)));
    for (size_t i = 0; i < docs.size(); i++) {
      if (b[i] < 0 || e[i] < b[i] || uint64_t(e[i]) > in.size)
        throw py::value_error("text " + std::to_string(i) + ": span [" + std::to_string(b[i]) + ", " +
                              std::to_string(e[i]) + ") is outside the data buffer");
      check_size(size_t(e[i] - b[i]));
      docs[i] = Units{in.data + b[i], size_t(e[i] - b[i]), 0};
    }
    Encoder::Batch batch;
    {
      py::gil_scoped_release nogil;
      impl_.encode_batch(docs, add_special, threads, batch, truncation(limit, left));
    }
    return batch_tuple(batch);
  }

  // (ids uint32[N], offsets int64[n+1], spans uint32[N,2]: each token's characters, added
  // bool[N]: an added token's match, delegate bool[n]) for a list of str, without special
  // tokens, truncation or padding.
  py::tuple encode_offsets(const py::list& texts, const TokenSpans* token_spans, int threads) const {
    const Docs docs(texts);
    Encoder::SpanBatch batch;
    {
      py::gil_scoped_release nogil;
      impl_.encode_offsets(docs.units, token_spans, threads, batch);
    }
    docs.raise_not_utf8(batch.delegate);
    const py::ssize_t count = py::ssize_t(batch.ids.size());
    py::array_t<uint32_t> spans = to_numpy(std::move(batch.spans));
    py::array_t<bool> delegate(py::ssize_t(batch.delegate.size())), added(count);
    std::copy(batch.delegate.begin(), batch.delegate.end(), delegate.mutable_data());
    std::copy(batch.added.begin(), batch.added.end(), added.mutable_data());
    return py::make_tuple(to_numpy(std::move(batch.ids)), to_numpy(std::move(batch.offsets)),
                          spans.reshape({count, py::ssize_t(2)}), added, delegate);
  }

  size_t cache_used() const { return impl_.cache_used(); }
  void clear_cache() const { impl_.clear_cache(); }
  std::optional<std::string> cut_rule() const { return impl_.cut_rule(); }
  std::string cut_exception() const { return impl_.cut_exception(); }
  size_t seed_size() const { return impl_.seed_size(); }

  // {"normalize": ns, "split": ns, "model": ns} for encoding these texts on this thread.
  py::dict profile(const py::list& texts, bool add_special) const {
    std::vector<Bytes> keep;
    std::vector<std::pair<const uint8_t*, uint32_t>> docs;
    keep.reserve(texts.size());
    for (const auto& t : texts) {
      keep.emplace_back(t);
      docs.emplace_back(keep.back().data, uint32_t(keep.back().size));
    }
    StageTimes st;
    {
      py::gil_scoped_release nogil;
      st = impl_.profile(docs, add_special);
    }
    py::dict d;
    d["normalize"] = st.normalize, d["split"] = st.split, d["model"] = st.model;
    d["pieces"] = st.pieces, d["misses"] = st.misses, d["miss_ns"] = st.miss_ns;
    return d;
  }
  size_t cache_bytes() const { return impl_.cache_bytes(); }

 private:
  // A numpy array that owns the vector's memory (no copy of the ids).
  template <typename T>
  static py::array_t<T> to_numpy(std::vector<T>&& v) {
    auto* owned = new std::vector<T>(std::move(v));
    py::capsule free_it(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>(py::ssize_t(owned->size()), owned->data(), free_it);
  }
  static py::array_t<uint32_t> to_numpy(IdBuffer& ids) {
    const size_t n = ids.size();
    if (n == 0) return py::array_t<uint32_t>(0);
    uint32_t* p = ids.release();
    py::capsule free_it(p, [](void* q) { std::free(q); });
    return py::array_t<uint32_t>(py::ssize_t(n), p, free_it);
  }
  static Truncation truncation(int64_t limit, bool left) {
    if (limit < Truncation::kNone) throw py::value_error("truncate: a number of ids, or -1 for none");
    return Truncation{limit, left};
  }
  static py::tuple batch_tuple(Encoder::Batch& batch) {
    py::array_t<bool> delegate(py::ssize_t(batch.delegate.size()));
    std::copy(batch.delegate.begin(), batch.delegate.end(), delegate.mutable_data());
    return py::make_tuple(to_numpy(batch.ids), to_numpy(std::move(batch.offsets)), delegate);
  }
  Encoder impl_;
};

// The pieces the native normalizer and pre-tokenizer make of one text (None: not native).
py::object probe(const std::vector<normalize::Step>& norm_steps, const std::vector<pretok::StageSpec>& stages,
                 const std::string& text) {
  normalize::Normalizer n(norm_steps);
  normalize::Scratch nscratch;
  pretok::Text normalized;
  if (!n.run(reinterpret_cast<const uint8_t*>(text.data()), uint32_t(text.size()), normalized, nscratch, true))
    return py::none();
  pretok::PreTokenizer pt(stages);
  pretok::Scratch pscratch;
  pretok::PreTokenized out;
  pt.run(normalized, 0, out, pscratch);
  py::list pieces;
  for (const auto& p : out.pieces)
    pieces.append(py::bytes(reinterpret_cast<const char*>(out.text.bytes) + p.begin, p.end - p.begin));
  return std::move(pieces);
}

// One string through native normalizer steps (None: this text is not native).
py::object normalize_text(const std::vector<normalize::Step>& steps, const std::string& text) {
  normalize::Normalizer n(steps);
  normalize::Scratch scratch;
  pretok::Text out;
  if (!n.run(reinterpret_cast<const uint8_t*>(text.data()), uint32_t(text.size()), out, scratch, false))
    return py::none();
  return py::str(reinterpret_cast<const char*>(out.bytes), out.size);
}

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "tagpipe native core (see the tagpipe package for the documented API)";
  bind_schema(m);
  bind_decode(m);

  m.def("classify", &classify, py::arg("data"), py::arg("alphabet"), py::arg("kernel") = py::none(),
        "classify(data, alphabet, kernel=None) -> (tags uint8[n], starts uint64[ceil(n/64)])");
  m.def("alphabets", [] {
    py::dict out;
    for (int id = 0; id < int(AlphabetId::count); id++) {
      const Alphabet& a = alphabet(AlphabetId(id));
      py::list names;
      for (int t = 0; t < a.tag_count; t++) names.append(a.tag_names[t]);
      out[a.name] = py::make_tuple(names, int(a.fffd_tag));
    }
    return out;
  });
  m.def(
      "tag_of",
      [](const std::string& alphabet, uint32_t cp) {
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) throw py::value_error("not a Unicode scalar value");
        return int(alphabet_named(alphabet).lookup(cp));
      },
      py::arg("alphabet"), py::arg("cp"));

  m.def("kernels_compiled", [] {
    py::list out;
    for (const auto& k : kernels::compiled()) out.append(k.name);
    return out;
  });
  m.def("kernels_available", [] {
    py::list out;
    for (const auto* k : kernels::available()) out.append(k->name);
    return out;
  });
  m.def("active_kernel", [] { return std::string(kernels::active().name); });
  m.def(
      "set_kernel", [](const std::string& name) { kernels::set_active(name); },  // invalid_argument -> ValueError
      py::arg("name"));

  m.def("normalize", &normalize_text, py::arg("steps"), py::arg("text"),
        "Runs native normalizer steps on one string (None: not native).");
  m.def("probe", &probe, py::arg("normalizer"), py::arg("pre_tokenizer"), py::arg("text"),
        "The pieces the native normalizer and pre-tokenizer make of one text (None: not native).");

  py::class_<PyPreTokenizer>(m, "PreTokenizer")
      .def(py::init<const std::vector<pretok::StageSpec>&, bool>(), py::arg("stages"), py::arg("model_cuts") = false)
      .def("run", &PyPreTokenizer::run, py::arg("data"));

  // What BPE's offsets need of its tokens (encode/offsets.h): built on the first offsets call.
  py::class_<TokenSpans>(m, "TokenSpans")
      .def(py::init([](const std::vector<py::bytes>& strings, const py::bytes& prefix, const py::bytes& suffix,
                       std::optional<uint32_t> unk_id, const std::vector<std::optional<uint32_t>>& byte_ids,
                       const std::vector<uint32_t>& refused, bool check_bytes) {
             std::vector<std::string> s(strings.begin(), strings.end());
             std::vector<uint32_t> bytes;
             for (const auto& b : byte_ids) bytes.push_back(b.value_or(TokenSpans::kNone));
             return std::make_unique<TokenSpans>(s, std::string(prefix), std::string(suffix),
                                                 unk_id.value_or(TokenSpans::kNone), bytes, refused, check_bytes);
           }),
           py::arg("strings"), py::arg("prefix"), py::arg("suffix"), py::arg("unk_id"), py::arg("byte_ids"),
           py::arg("refused"), py::arg("check_bytes"));

  py::class_<PyEncoder>(m, "Encoder")
      // (the config's tables are moved into the encoder: the config is left empty)
      .def(py::init([](EncoderSpec& config) { return std::make_unique<PyEncoder>(std::move(config)); }),
           py::arg("config"))
      // truncate: keep the first (truncate_left: the last) `truncate` ids of the model's
      // output, before the special tokens; -1: all of them (tagpipe.plan.post_processors)
      .def("encode", &PyEncoder::encode, py::arg("text"), py::arg("add_special_tokens"), py::arg("truncate") = -1,
           py::arg("truncate_left") = false)
      .def("encode_batch", &PyEncoder::encode_batch, py::arg("texts"), py::arg("add_special_tokens"),
           py::arg("threads"), py::arg("truncate") = -1, py::arg("truncate_left") = false)
      .def("encode_spans", &PyEncoder::encode_spans, py::arg("data"), py::arg("starts"), py::arg("ends"),
           py::arg("add_special_tokens"), py::arg("threads"), py::arg("truncate") = -1,
           py::arg("truncate_left") = false)
      .def("encode_offsets", &PyEncoder::encode_offsets, py::arg("texts"), py::arg("token_spans"), py::arg("threads"))
      .def("clear_cache", &PyEncoder::clear_cache)
      .def("cut_rule", &PyEncoder::cut_rule)
      .def("cut_exception", &PyEncoder::cut_exception)
      .def_property_readonly("seed_size", &PyEncoder::seed_size)
      .def("profile", &PyEncoder::profile, py::arg("texts"), py::arg("add_special_tokens"))
      .def_property_readonly("cache_used", &PyEncoder::cache_used)
      .def_property_readonly("cache_bytes", &PyEncoder::cache_bytes);

  py::module_ testing = m.def_submodule("testing", "Hooks for tests and benchmarks: single kernels, timed loops");
  bind_testing(testing);
}
