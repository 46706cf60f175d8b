// The Python extension tagpipe._core: the only code that includes pybind11.
//
// It turns Python objects into spans, releases the GIL around native work and hands back
// numpy arrays.  Defaults, validation messages and docs live in the Python layer (tagpipe/).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>

#include "classify/classify.h"
#include "dispatch/kernels.h"
#include "pretok/pipeline.h"

namespace py = pybind11;
using namespace tagpipe;

namespace {

// A read-only view of the UTF-8 bytes of a str, or of any contiguous byte buffer.  Holds a
// reference to the owner so the bytes stay alive while the GIL is released.
struct Bytes {
  py::object owner;
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::optional<py::buffer_info> info;

  explicit Bytes(py::handle obj) : owner(py::reinterpret_borrow<py::object>(obj)) {
    if (PyUnicode_Check(obj.ptr())) {
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(obj.ptr(), &n);  // cached in the str; raises on lone surrogates
      if (!s) throw py::error_already_set();
      data = reinterpret_cast<const uint8_t*>(s);
      size = size_t(n);
      return;
    }
    info = py::reinterpret_borrow<py::buffer>(obj).request();
    if (info->itemsize != 1 || (info->ndim > 1))
      throw py::type_error("expected str or a contiguous buffer of bytes");
    if (info->ndim == 1 && info->strides[0] != 1) throw py::type_error("expected a contiguous buffer of bytes");
    data = static_cast<const uint8_t*>(info->ptr);
    size = size_t(info->size);
  }
};

const Alphabet& alphabet_named(const std::string& name) {
  if (const Alphabet* a = find_alphabet(name)) return *a;
  throw py::value_error("unknown alphabet '" + name + "'");
}

ClassifyFn kernel_named(const std::optional<std::string>& name) {
  if (!name) return kernels::active().classify;
  const kernels::Kernel* k = kernels::find(*name);
  if (!k) throw py::value_error("unknown kernel '" + *name + "'");
  if (!k->supported()) throw py::value_error("kernel '" + *name + "' cannot run on this CPU");
  return k->classify;
}

py::tuple classify(py::handle data, const std::string& alphabet, const std::optional<std::string>& kernel) {
  const Alphabet& a = alphabet_named(alphabet);
  const ClassifyFn fn = kernel_named(kernel);
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

// Benchmark helper: classify each document data[offsets[i]:offsets[i+1]] into one reused
// buffer and return the nanoseconds spent inside the kernel calls only.
int64_t time_classify(py::handle data, py::array_t<int64_t, py::array::c_style> offsets,
                      const std::string& alphabet, const std::optional<std::string>& kernel) {
  const Alphabet& a = alphabet_named(alphabet);
  const ClassifyFn fn = kernel_named(kernel);
  Bytes in(data);
  const int64_t* off = offsets.data();
  const py::ssize_t docs = offsets.size() - 1;
  size_t longest = 0;
  for (py::ssize_t i = 0; i < docs; i++) {
    if (off[i] < 0 || off[i + 1] < off[i] || size_t(off[i + 1]) > in.size)
      throw py::value_error("offsets must be non-decreasing and within the data");
    longest = std::max(longest, size_t(off[i + 1] - off[i]));
  }
  std::vector<uint8_t> tags(longest);
  std::vector<uint64_t> starts(start_words(longest));
  std::chrono::steady_clock::duration total{};
  {
    py::gil_scoped_release nogil;
    for (py::ssize_t i = 0; i < docs; i++) {
      const auto t0 = std::chrono::steady_clock::now();
      fn(in.data + off[i], size_t(off[i + 1] - off[i]), a, tags.data(), starts.data());
      total += std::chrono::steady_clock::now() - t0;
    }
  }
  return std::chrono::duration_cast<std::chrono::nanoseconds>(total).count();
}

pretok::Behavior behavior_named(const std::string& name) {
  using B = pretok::Behavior;
  if (name == "Removed") return B::Removed;
  if (name == "Isolated") return B::Isolated;
  if (name == "MergedWithPrevious") return B::MergedWithPrevious;
  if (name == "MergedWithNext") return B::MergedWithNext;
  if (name == "Contiguous") return B::Contiguous;
  throw py::value_error("unknown behavior '" + name + "'");
}

// One stage of the plan (tagpipe/plan.py builds these dicts; the plan is trusted).
pretok::StageSpec stage_from(const py::dict& d) {
  using K = pretok::StageSpec::Kind;
  pretok::StageSpec s;
  const std::string kind = d["kind"].cast<std::string>();
  auto get = [&](const char* key, auto fallback) {
    return d.contains(key) ? d[key].cast<decltype(fallback)>() : fallback;
  };
  s.name = get("name", std::string());
  s.literal = get("literal", std::string());
  s.behavior = behavior_named(get("behavior", std::string("Isolated")));
  s.invert = get("invert", false);
  if (kind == "pattern") s.kind = K::Pattern;
  else if (kind == "literal") s.kind = K::Literal;
  else if (kind == "runs") s.kind = K::Runs;
  else if (kind == "byte_level") {
    s.kind = K::ByteLevel;
    s.add_prefix_space = get("add_prefix_space", false);
    s.use_regex = get("use_regex", true);
  } else if (kind == "metaspace") {
    s.kind = K::Metaspace;
    const std::string p = get("prepend", std::string("always"));
    s.prepend = p == "always" ? pretok::StageSpec::Prepend::Always
              : p == "first"  ? pretok::StageSpec::Prepend::First
                              : pretok::StageSpec::Prepend::Never;
    s.split = get("split", true);
  } else if (kind == "fixed_length") {
    s.kind = K::FixedLength;
    s.length = get("length", uint32_t(5));
  } else if (kind == "scripts") s.kind = K::Scripts;
  else throw py::value_error("unknown stage kind '" + kind + "'");
  return s;
}

class PyPreTokenizer {
 public:
  explicit PyPreTokenizer(const py::list& stages) : impl_(specs(stages)) {}

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

  // Benchmark helper: pre-tokenize each document data[offsets[i]:offsets[i+1]]; returns
  // (nanoseconds inside the pre-tokenizer calls, pieces produced).
  py::tuple time(py::handle data, py::array_t<int64_t, py::array::c_style> offsets) const {
    Bytes in(data);
    const int64_t* off = offsets.data();
    const py::ssize_t docs = offsets.size() - 1;
    for (py::ssize_t i = 0; i < docs; i++)
      if (off[i] < 0 || off[i + 1] < off[i] || size_t(off[i + 1]) > in.size)
        throw py::value_error("offsets must be non-decreasing and within the data");
    std::chrono::steady_clock::duration total{};
    size_t pieces = 0;
    {
      py::gil_scoped_release nogil;
      pretok::PreTokenized out;
      for (py::ssize_t i = 0; i < docs; i++) {
        const auto t0 = std::chrono::steady_clock::now();
        impl_.run(in.data + off[i], uint32_t(off[i + 1] - off[i]), out, scratch());
        total += std::chrono::steady_clock::now() - t0;
        pieces += out.pieces.size();
      }
    }
    return py::make_tuple(std::chrono::duration_cast<std::chrono::nanoseconds>(total).count(), pieces);
  }

 private:
  static std::vector<pretok::StageSpec> specs(const py::list& stages) {
    std::vector<pretok::StageSpec> out;
    for (const auto& s : stages) out.push_back(stage_from(s.cast<py::dict>()));
    return out;
  }
  static void check_size(size_t n) {
    if (n > UINT32_MAX - 64) throw py::value_error("text longer than 4 GiB");
  }
  static pretok::Scratch& scratch() {
    thread_local pretok::Scratch s;
    return s;
  }
  pretok::PreTokenizer impl_;
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "tagpipe native core (see the tagpipe package for the documented API)";

  m.def("classify", &classify, py::arg("data"), py::arg("alphabet"), py::arg("kernel") = py::none(),
        "classify(data, alphabet, kernel=None) -> (tags uint8[n], starts uint64[ceil(n/64)])");
  m.def("time_classify", &time_classify, py::arg("data"), py::arg("offsets"), py::arg("alphabet"),
        py::arg("kernel") = py::none());

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
  m.def("tag_of", [](const std::string& alphabet, uint32_t cp) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) throw py::value_error("not a Unicode scalar value");
    return int(alphabet_named(alphabet).lookup(cp));
  });

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
  m.def("set_kernel", [](const std::string& name) { kernels::set_active(name); });  // invalid_argument -> ValueError

  py::class_<PyPreTokenizer>(m, "PreTokenizer")
      .def(py::init<const py::list&>(), py::arg("stages"))
      .def("run", &PyPreTokenizer::run, py::arg("data"))
      .def("time", &PyPreTokenizer::time, py::arg("data"), py::arg("offsets"));
}
