// What the binding files share: Python objects as spans of bytes or code units (held alive
// while the GIL is released), lookups of kernels and alphabets by name, and the entry points
// of the other binding files.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <optional>
#include <string>

#include "dispatch/kernels.h"
#include "kernels/classify/classify.h"
#include "kernels/transcode/transcode.h"

namespace tagpipe::bindings {

namespace py = pybind11;

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
    if (info->itemsize != 1 || (info->ndim > 1)) throw py::type_error("expected str or a contiguous buffer of bytes");
    if (info->ndim == 1 && info->strides[0] != 1) throw py::type_error("expected a contiguous buffer of bytes");
    data = static_cast<const uint8_t*>(info->ptr);
    size = size_t(info->size);
  }
};

// A text for the encoder: a str as its code units (PEP 393), converted to UTF-8 by the
// encoder on its own threads (transcode/transcode.h) -- not by CPython with the GIL held,
// nor kept in the str; an ASCII str, or any buffer of bytes, as its bytes.  Holds a
// reference to the owner so the units stay alive while the GIL is released.
struct Text {
  std::optional<Bytes> bytes;  // not a str, or one whose UTF-8 could pass 4 GiB
  py::object owner;
  Units units;

  explicit Text(py::handle obj) {
    PyObject* o = obj.ptr();
    if (PyUnicode_Check(o)) {
#if PY_VERSION_HEX < 0x030C0000  // (a legacy str built by the old C API; 3.12 has none)
      if (PyUnicode_READY(o) < 0) throw py::error_already_set();
#endif
      const size_t count = size_t(PyUnicode_GET_LENGTH(o));
      const unsigned width = PyUnicode_IS_ASCII(o) ? 0 : unsigned(PyUnicode_KIND(o));
      if (utf8_bound(count, width) <= kMaxText) {
        owner = py::reinterpret_borrow<py::object>(obj);
        units = Units{PyUnicode_DATA(o), count, width};
        return;
      }
    }
    bytes.emplace(obj);
    if (bytes->size > kMaxText) throw py::value_error("text longer than 4 GiB");
    units = Units{bytes->data, bytes->size, 0};
  }
  // The encoder found a lone surrogate: CPython's conversion raises its UnicodeEncodeError
  // (the Python layer turns it into a ValueError naming the character and its index).
  [[noreturn]] void raise_not_utf8() const {
    Py_ssize_t n;
    if (!PyUnicode_AsUTF8AndSize(owner.ptr(), &n)) throw py::error_already_set();
    throw py::value_error("text is not valid Unicode");  // (not reached: a surrogate raises above)
  }
  static constexpr size_t kMaxText = UINT32_MAX - 64;
};

inline void check_size(size_t n) {
  if (n > UINT32_MAX - 64) throw py::value_error("text longer than 4 GiB");
}

// str -> its UTF-8, bytes -> themselves.
inline std::string bytes_of(py::handle h) {
  if (PyUnicode_Check(h.ptr())) return h.cast<std::string>();
  return std::string(h.cast<py::bytes>());
}

inline const Alphabet& alphabet_named(const std::string& name) {
  if (const Alphabet* a = find_alphabet(name)) return *a;
  throw py::value_error("unknown alphabet '" + name + "'");
}

// The kernel of this name (None: the active one); ValueError if unknown or not runnable here.
inline const kernels::Kernel& kernel_named(const std::optional<std::string>& name) {
  if (!name) return kernels::active();
  const kernels::Kernel* k = kernels::find(*name);
  if (!k) throw py::value_error("unknown kernel '" + *name + "'");
  if (!k->supported()) throw py::value_error("kernel '" + *name + "' cannot run on this CPU");
  return *k;
}

// schema.cpp: the plan's structs (pre-tokenizer stages, normalizer steps, added tokens,
// model options and models, the encoder's configuration) as Python classes.
void bind_schema(py::module_& m);
// decode.cpp: the native decode (Decoder, DecodeStream).
void bind_decode(py::module_& m);
// testing.cpp: the hooks only tests and benchmarks use (the submodule _core.testing).
void bind_testing(py::module_& m);

}  // namespace tagpipe::bindings
