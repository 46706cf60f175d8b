// tagpipe._core.testing: the hooks only tests and benchmarks use -- one kernel alone (to
// compare every kernel with the scalar one and with Python) and timed loops that count only
// the native calls (bench/).  The package itself never imports this submodule.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "bindings/convert.h"
#include "common/replace_byte.h"
#include "normalize/normalize.h"
#include "pretokenize/pipeline.h"

namespace tagpipe::bindings {
namespace {

using Clock = std::chrono::steady_clock;

int64_t nanoseconds(Clock::duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); }

// The replace kernel alone (tests compare every kernel with the scalar one and Python's).
py::bytes replace_byte(py::handle data, int from, const std::string& to, const std::optional<std::string>& kernel) {
  if (from < 0 || from > 255) throw py::value_error("from must be a byte value (0..255)");
  if (to.size() > 4) throw py::value_error("to must be 0 to 4 bytes");
  const ReplaceFn fn = kernel_named(kernel).replace_byte;
  Bytes in(data);
  const ReplaceSpec r = ReplaceSpec::of(uint8_t(from), to.data(), to.size());
  std::string out(in.size * std::max<size_t>(1, to.size()) + kReplaceSlack, '\0');
  size_t n;
  {
    py::gil_scoped_release nogil;
    n = size_t(fn(in.data, in.size, r, reinterpret_cast<uint8_t*>(out.data())) -
               reinterpret_cast<uint8_t*>(out.data()));
  }
  return py::bytes(out.data(), n);
}

// The marks kernel alone, for each 64-byte block of data (with 3 zero bytes before it and
// zeros after): (runs, pairs, after) as marks/marks.h defines them.
py::list mark_masks(py::handle data, const std::string& mark, const std::optional<std::string>& after,
                    const std::optional<std::string>& kernel) {
  if (mark.size() != 3) throw py::value_error("mark must be 3 bytes");
  if (after && after->size() != size_t(kAfterBytes))
    throw py::value_error("after must be " + std::to_string(kAfterBytes) + " bytes");
  const MarksFn fn = kernel_named(kernel).marks;
  Bytes in(data);
  std::vector<uint8_t> buf(3 + in.size + 64 + 3, 0);
  std::memcpy(buf.data() + 3, in.data, in.size);
  const auto* m = reinterpret_cast<const uint8_t*>(mark.data());
  const auto* a = after ? reinterpret_cast<const uint8_t*>(after->data()) : nullptr;
  py::list out;
  for (size_t q = 0; q < in.size; q += 64) {
    const MarkMasks r = fn(buf.data() + 3 + q, m, a);
    out.append(py::make_tuple(r.runs, r.pairs, r.after));
  }
  return out;
}

// The find kernel alone, for each 64-byte block of data (zeros after it): the mask of the
// bytes in `set` (kFindBytes bytes).
py::list find_bytes(py::handle data, const std::string& set, const std::optional<std::string>& kernel) {
  if (set.size() != size_t(kFindBytes)) throw py::value_error("set must be " + std::to_string(kFindBytes) + " bytes");
  const FindBytesFn fn = kernel_named(kernel).find_bytes;
  Bytes in(data);
  std::vector<uint8_t> buf(in.size + 64, 0);
  std::memcpy(buf.data(), in.data, in.size);
  py::list out;
  for (size_t q = 0; q < in.size; q += 64) out.append(fn(buf.data() + q, reinterpret_cast<const uint8_t*>(set.data())));
  return out;
}

// The transcode kernel alone: the UTF-8 of a str (tests compare every kernel with
// str.encode).  A lone surrogate raises CPython's own UnicodeEncodeError.
py::bytes transcode(py::handle text, const std::optional<std::string>& kernel) {
  if (!PyUnicode_Check(text.ptr())) throw py::type_error("transcode expects a str");
  const TranscodeFn fn = kernel_named(kernel).transcode;
  const Text in(text);
  if (in.units.width == 0) return py::bytes(static_cast<const char*>(in.units.data), in.units.count);
  std::string out(utf8_bound(in.units.count, in.units.width) + kTranscodeSlack, '\0');
  const uint8_t* end;
  {
    py::gil_scoped_release nogil;
    end = fn(in.units.data, in.units.count, in.units.width, reinterpret_cast<uint8_t*>(out.data()));
  }
  if (!end) in.raise_not_utf8();
  return py::bytes(out.data(), size_t(end - reinterpret_cast<const uint8_t*>(out.data())));
}

// Nanoseconds the kernel spends converting each of these strs (one reused output buffer;
// ASCII strs, which need no conversion, count as zero) -- bench/transcode.py.
int64_t time_transcode(const py::list& texts, const std::optional<std::string>& kernel) {
  const TranscodeFn fn = kernel_named(kernel).transcode;
  std::vector<Text> keep;
  size_t longest = 0;
  for (const auto& t : texts) {
    if (!PyUnicode_Check(t.ptr())) throw py::type_error("time_transcode expects str items");
    keep.emplace_back(t);
    longest = std::max(longest, utf8_bound(keep.back().units.count, keep.back().units.width));
  }
  std::vector<uint8_t> out(longest + kTranscodeSlack);
  Clock::duration total{};
  bool ok = true;
  {
    py::gil_scoped_release nogil;
    for (const Text& t : keep) {
      if (t.units.width == 0) continue;
      const auto t0 = Clock::now();
      ok = fn(t.units.data, t.units.count, t.units.width, out.data()) != nullptr && ok;
      total += Clock::now() - t0;
    }
  }
  if (!ok) throw py::value_error("a text holds a lone surrogate");
  return nanoseconds(total);
}

// Benchmark helper: classify each document data[offsets[i]:offsets[i+1]] into one reused
// buffer and return the nanoseconds spent inside the kernel calls only.
int64_t time_classify(py::handle data, py::array_t<int64_t, py::array::c_style> offsets, const std::string& alphabet,
                      const std::optional<std::string>& kernel) {
  const Alphabet& a = alphabet_named(alphabet);
  const ClassifyFn fn = kernel_named(kernel).classify;
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
  Clock::duration total{};
  {
    py::gil_scoped_release nogil;
    for (py::ssize_t i = 0; i < docs; i++) {
      const auto t0 = Clock::now();
      fn(in.data + off[i], size_t(off[i + 1] - off[i]), a, tags.data(), starts.data());
      total += Clock::now() - t0;
    }
  }
  return nanoseconds(total);
}

// Each text normalized by one Normalizer, only run() timed: (results, nanoseconds in the runs)
// -- bench/normalize.py.
py::tuple normalize_timed(const std::vector<normalize::Step>& steps, const py::list& texts) {
  normalize::Normalizer n(steps);
  normalize::Scratch scratch;
  std::vector<std::string> in;
  for (const auto& t : texts) in.push_back(t.cast<std::string>());
  py::list out;
  int64_t ns = 0;
  for (const std::string& text : in) {
    pretok::Text res;
    const auto t0 = Clock::now();
    const bool ok = n.run(reinterpret_cast<const uint8_t*>(text.data()), uint32_t(text.size()), res, scratch, false);
    ns += nanoseconds(Clock::now() - t0);
    if (ok) out.append(py::str(reinterpret_cast<const char*>(res.bytes), res.size));
    else out.append(py::none());
  }
  return py::make_tuple(out, ns);
}

// Pre-tokenize each document data[offsets[i]:offsets[i+1]] with these stages: (nanoseconds
// inside the pre-tokenizer calls, pieces produced) -- bench/pretokenize.py.
py::tuple time_pre_tokenizer(const std::vector<pretok::StageSpec>& stages, py::handle data,
                             const py::array_t<int64_t, py::array::c_style>& offsets) {
  const pretok::PreTokenizer pt(stages);
  Bytes in(data);
  const int64_t* off = offsets.data();
  const py::ssize_t docs = offsets.size() - 1;
  for (py::ssize_t i = 0; i < docs; i++)
    if (off[i] < 0 || off[i + 1] < off[i] || size_t(off[i + 1]) > in.size)
      throw py::value_error("offsets must be non-decreasing and within the data");
  Clock::duration total{};
  size_t pieces = 0;
  {
    py::gil_scoped_release nogil;
    pretok::PreTokenized out;
    pretok::Scratch scratch;
    for (py::ssize_t i = 0; i < docs; i++) {
      const auto t0 = Clock::now();
      pt.run(in.data + off[i], uint32_t(off[i + 1] - off[i]), out, scratch);
      total += Clock::now() - t0;
      pieces += out.pieces.size();
    }
  }
  return py::make_tuple(nanoseconds(total), pieces);
}

}  // namespace

void bind_testing(py::module_& m) {
  m.def("replace_byte", &replace_byte, py::arg("data"), py::arg("from_byte"), py::arg("to"),
        py::arg("kernel") = py::none(), "replace_byte(data, from_byte, to, kernel=None) -> bytes");
  m.def("mark_masks", &mark_masks, py::arg("data"), py::arg("mark"), py::arg("after") = py::none(),
        py::arg("kernel") = py::none(),
        "mark_masks(data, mark, after=None, kernel=None) -> [(runs, pairs, after)] per 64 bytes");
  m.def("find_bytes", &find_bytes, py::arg("data"), py::arg("set"), py::arg("kernel") = py::none(),
        "find_bytes(data, set, kernel=None) -> [mask] per 64 bytes");
  m.def("transcode", &transcode, py::arg("text"), py::arg("kernel") = py::none(),
        "transcode(text, kernel=None) -> bytes: the str's UTF-8, by one transcode kernel");
  m.def("time_classify", &time_classify, py::arg("data"), py::arg("offsets"), py::arg("alphabet"),
        py::arg("kernel") = py::none());
  m.def("time_transcode", &time_transcode, py::arg("texts"), py::arg("kernel") = py::none());
  m.def("normalize_timed", &normalize_timed, py::arg("steps"), py::arg("texts"));
  m.def("time_pre_tokenizer", &time_pre_tokenizer, py::arg("stages"), py::arg("data"), py::arg("offsets"));
}

}  // namespace tagpipe::bindings
