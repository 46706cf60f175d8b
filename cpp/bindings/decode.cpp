// The native decode: _core.Decoder (decode, decode_batch, decode_flat, stream) and
// _core.DecodeStream.  Ids are read from Python as the oracle reads its Vec<u32>: any
// sequence (a str is not one) of ints or of objects with __index__, or a numpy array of an
// integer dtype; a negative id, or one past 2**32 - 1, is an OverflowError naming the item,
// anything else a TypeError.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings/convert.h"
#include "decode/decoder.h"
#include "decode/stream.h"

namespace tagpipe::bindings {
namespace {

using decode::Decoder;
using decode::DecoderSpec;
using decode::DecodeStream;

PyObject* g_not_native = nullptr;  // _core.DecodeNotNative

[[noreturn]] void overflow(const std::string& where, const std::string& value) {
  PyErr_SetString(PyExc_OverflowError, (where + ": " + value + " is not an id (0 .. 2**32 - 1)").c_str());
  throw py::error_already_set();
}

std::string item(const char* what, size_t i) { return std::string(what) + "[" + std::to_string(i) + "]"; }

uint32_t id_of(PyObject* o, const char* what, size_t i) {
  py::object owned;
  if (!PyLong_Check(o)) {
    owned = py::reinterpret_steal<py::object>(PyNumber_Index(o));  // TypeError for a float, a str, ...
    if (!owned) throw py::error_already_set();
    o = owned.ptr();
  }
  int over = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o, &over);
  if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
  if (over || v < 0 || v > int64_t(UINT32_MAX)) overflow(item(what, i), py::str(o).cast<std::string>());
  return uint32_t(v);
}

template <typename T>
void from_numpy(const py::array& a, const char* what, std::vector<uint32_t>& out) {
  const size_t n = size_t(a.shape(0));
  const auto* base = static_cast<const char*>(a.data());
  const py::ssize_t stride = a.strides(0);
  for (size_t i = 0; i < n; i++) {
    const T v = *reinterpret_cast<const T*>(base + py::ssize_t(i) * stride);
    if constexpr (std::is_signed_v<T>) {
      if (v < 0 || (sizeof(T) > 4 && int64_t(v) > int64_t(UINT32_MAX))) overflow(item(what, i), std::to_string(v));
    } else if constexpr (sizeof(T) > 4) {
      if (v > UINT32_MAX) overflow(item(what, i), std::to_string(v));
    }
    out.push_back(uint32_t(v));
  }
}

// Appends the ids of `obj` to out.
void ids_from(py::handle obj, const char* what, std::vector<uint32_t>& out) {
  PyObject* o = obj.ptr();
  if (py::isinstance<py::array>(obj)) {
    const auto a = py::reinterpret_borrow<py::array>(obj);
    const char kind = a.dtype().kind();
    if (a.ndim() == 1 && (kind == 'i' || kind == 'u')) {
      switch (a.itemsize() * (kind == 'i' ? -1 : 1)) {
        case -1:
          return from_numpy<int8_t>(a, what, out);
        case -2:
          return from_numpy<int16_t>(a, what, out);
        case -4:
          return from_numpy<int32_t>(a, what, out);
        case -8:
          return from_numpy<int64_t>(a, what, out);
        case 1:
          return from_numpy<uint8_t>(a, what, out);
        case 2:
          return from_numpy<uint16_t>(a, what, out);
        case 4:
          return from_numpy<uint32_t>(a, what, out);
        case 8:
          return from_numpy<uint64_t>(a, what, out);
      }
    }  // (else item by item: the errors of the items themselves)
  }
  if (PyUnicode_Check(o)) throw py::type_error(std::string(what) + " must be a sequence of ints, not str");
  if (!PySequence_Check(o))
    throw py::type_error(std::string(what) + ": '" + Py_TYPE(o)->tp_name + "' object is not an instance of 'Sequence'");
  const auto seq = py::reinterpret_steal<py::object>(PySequence_Fast(o, "ids must be a sequence"));
  if (!seq) throw py::error_already_set();
  const size_t n = size_t(PySequence_Fast_GET_SIZE(seq.ptr()));
  PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
  out.reserve(out.size() + n);
  for (size_t i = 0; i < n; i++) out.push_back(id_of(items[i], what, i));
}

py::object text_or_none(const std::string& text, uint8_t status) {
  if (status != Decoder::kOk) return py::none();
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), py::ssize_t(text.size()), nullptr);
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(s);
}

class PyDecoder {
 public:
  explicit PyDecoder(DecoderSpec&& spec) : impl_(std::make_shared<const Decoder>(std::move(spec))) {}

  // The text, or None where the oracle panics (the caller asks it, for its exception).
  py::object decode(py::handle ids, bool skip_special) const {
    std::vector<uint32_t> v;
    ids_from(ids, "ids", v);
    std::string text;
    Decoder::Result r;
    {
      py::gil_scoped_release nogil;
      r = impl_->decode(v.data(), v.size(), skip_special, text);
    }
    return text_or_none(text, r);
  }

  // A sequence of id sequences, or a 2-D integer array (its rows).
  py::list decode_batch(py::handle seqs, bool skip_special, int threads) const {
    if (PyUnicode_Check(seqs.ptr())) throw py::type_error("sequences must be a sequence of id sequences, not str");
    if (!PySequence_Check(seqs.ptr()))
      throw py::type_error(std::string("sequences: '") + Py_TYPE(seqs.ptr())->tp_name +
                           "' object is not an instance of 'Sequence'");
    const auto seq = py::reinterpret_steal<py::object>(PySequence_Fast(seqs.ptr(), "sequences must be a sequence"));
    if (!seq) throw py::error_already_set();
    const size_t n = size_t(PySequence_Fast_GET_SIZE(seq.ptr()));
    PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
    std::vector<uint32_t> flat;
    std::vector<size_t> offsets{0};
    for (size_t i = 0; i < n; i++) {
      const std::string what = item("sequences", i);
      ids_from(items[i], what.c_str(), flat);
      offsets.push_back(flat.size());
    }
    return run(flat.data(), offsets, skip_special, threads);
  }

  // Text i is ids[offsets[i] : offsets[i + 1]] (tagpipe's encode_batch_flat form).
  py::list decode_flat(py::handle ids, const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& offsets,
                       bool skip_special, int threads) const {
    std::vector<uint32_t> flat;
    ids_from(ids, "ids", flat);
    if (offsets.ndim() != 1 || offsets.shape(0) < 1)
      throw py::value_error("offsets must be a 1-D array of n + 1 items");
    const int64_t* o = offsets.data();
    std::vector<size_t> bounds(size_t(offsets.shape(0)));
    for (size_t i = 0; i < bounds.size(); i++) {
      if (o[i] < (i ? o[i - 1] : 0) || uint64_t(o[i]) > flat.size())
        throw py::value_error("offsets[" + std::to_string(i) + "] = " + std::to_string(o[i]) +
                              ": offsets must rise from 0 to at most len(ids)");
      bounds[i] = size_t(o[i]);
    }
    return run(flat.data(), bounds, skip_special, threads);
  }

  std::shared_ptr<const Decoder> impl() const { return impl_; }
  size_t folded() const { return impl_->folded(); }
  size_t table_bytes() const { return impl_->table_bytes(); }

 private:
  py::list run(const uint32_t* ids, const std::vector<size_t>& offsets, bool skip_special, int threads) const {
    std::vector<Decoder::Doc> docs;
    for (size_t i = 0; i + 1 < offsets.size(); i++) docs.push_back({ids + offsets[i], offsets[i + 1] - offsets[i]});
    std::vector<std::string> texts;
    std::vector<uint8_t> status;
    {
      py::gil_scoped_release nogil;
      impl_->decode_batch(docs, skip_special, threads, texts, status);
    }
    py::list out(docs.size());
    for (size_t i = 0; i < docs.size(); i++) {
      out[i] = text_or_none(texts[i], status[i]);
      std::string().swap(texts[i]);  // (freed as it goes: the strs are a second copy)
    }
    return out;
  }
  std::shared_ptr<const Decoder> impl_;
};

// The oracle's DecodeStream.step reads an int or a list of ints, and calls anything else a
// TypeError.
std::vector<uint32_t> stream_ids(py::handle id) {
  std::vector<uint32_t> v;
  try {
    if (PyLong_Check(id.ptr()) || PyIndex_Check(id.ptr())) {
      v.push_back(id_of(id.ptr(), "id", 0));
    } else {
      ids_from(id, "id", v);
    }
  } catch (py::error_already_set&) {
    throw py::type_error("StreamInput must be either an integer or a list of integers");
  } catch (py::type_error&) {
    throw py::type_error("StreamInput must be either an integer or a list of integers");
  }
  return v;
}

py::object step(DecodeStream& s, py::handle id) {
  const std::vector<uint32_t> ids = stream_ids(id);
  std::string chunk;
  const DecodeStream::Status r = s.step(ids.data(), ids.size(), chunk);
  switch (r) {
    case DecodeStream::kChunk:
      return text_or_none(chunk, Decoder::kOk);
    case DecodeStream::kWait:
      return py::none();
    case DecodeStream::kInvalidPrefix:
      PyErr_SetString(PyExc_Exception, s.error().c_str());  // (the oracle's type and words)
      throw py::error_already_set();
    case DecodeStream::kPanics:
      break;
  }
  // The oracle panics decoding these ids: the caller asks it, for its exception.
  PyErr_SetObject(g_not_native, py::cast(s.failed_ids()).ptr());
  throw py::error_already_set();
}

}  // namespace

void bind_decode(py::module_& m) {
  g_not_native = PyErr_NewExceptionWithDoc("tagpipe._core.DecodeNotNative",
                                           "The oracle panics decoding these ids (args[0]): ask it, for its exception.",
                                           PyExc_RuntimeError, nullptr);
  if (!g_not_native) throw py::error_already_set();
  m.attr("DecodeNotNative") = py::reinterpret_borrow<py::object>(g_not_native);

  py::class_<PyDecoder>(m, "Decoder", "A tokenizer's native decode (tagpipe.plan.decoders builds its DecoderConfig)")
      // (the config's tables are moved into the decoder: the config is left empty)
      .def(py::init([](DecoderSpec& config) { return std::make_unique<PyDecoder>(std::move(config)); }),
           py::arg("config"))
      .def("decode", &PyDecoder::decode, py::arg("ids"), py::arg("skip_special_tokens"))
      .def("decode_batch", &PyDecoder::decode_batch, py::arg("sequences"), py::arg("skip_special_tokens"),
           py::arg("threads"))
      .def("decode_flat", &PyDecoder::decode_flat, py::arg("ids"), py::arg("offsets"), py::arg("skip_special_tokens"),
           py::arg("threads"))
      .def(
          "stream",
          [](const PyDecoder& d, bool skip_special, py::handle ids) {
            std::vector<uint32_t> v;
            if (!ids.is_none()) ids_from(ids, "ids", v);
            return DecodeStream(d.impl(), skip_special, std::move(v));
          },
          py::arg("skip_special_tokens"), py::arg("ids") = py::none())
      .def_property_readonly("folded", &PyDecoder::folded)
      .def_property_readonly("table_bytes", &PyDecoder::table_bytes);

  py::class_<DecodeStream>(m, "DecodeStream", "ids -> text as they come (the oracle's DecodeStream)")
      .def("step", &step, py::arg("id"))
      .def("__copy__", [](const DecodeStream& s) { return DecodeStream(s); })
      .def(
          "__deepcopy__", [](const DecodeStream& s, py::handle) { return DecodeStream(s); }, py::arg("memo"))
      .def_property_readonly("ids", &DecodeStream::ids)
      .def_property_readonly("prefix", &DecodeStream::prefix)
      .def_property_readonly("skip_special_tokens", &DecodeStream::skip_special);
}

}  // namespace tagpipe::bindings
