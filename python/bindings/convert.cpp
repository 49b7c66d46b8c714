#include <cstring>

#include "common.h"
#include "tandem/graph/tracer.h"
#include "tandem/ops/elementwise.h"

namespace tandem::py {

nb::handle tensor_type() {
  return nb::type<Tensor>();
}

Tensor* tensor_of(PyObject* o) {
  // nb::isinstance / nb::cast look the type up in nanobind's registry on every call.
  static PyTypeObject* const type = reinterpret_cast<PyTypeObject*>(tensor_type().ptr());
  PyTypeObject* t = Py_TYPE(o);
  if (t != type && !PyType_IsSubtype(t, type)) return nullptr;
  if (!nb::inst_ready(o)) return nullptr;
  return nb::inst_ptr<Tensor>(o);
}

bool is_number(nb::handle h) {
  return PyBool_Check(h.ptr()) || PyLong_Check(h.ptr()) || PyFloat_Check(h.ptr());
}

namespace {

// A Python int beyond int64 that PyTorch's Scalar takes as uint64 ([2**63, 2**64)): its value;
// nullopt (and OverflowError, PyTorch's error, set) for ints beyond that.
// `positive`: the sign PyLong_AsLongLongAndOverflow reported.
std::optional<unsigned long long> as_uint64(PyObject* p, bool positive, const char* op) {
  if (positive) {
    unsigned long long u = PyLong_AsUnsignedLongLong(p);
    if (!(u == (unsigned long long)-1 && PyErr_Occurred())) return u;
  }
  PyErr_Clear();
  PyErr_Format(PyExc_OverflowError,
               "%s: integer %S does not fit a 64-bit integer scalar (Python ints must lie in "
               "[-2**63, 2**64), as in PyTorch); pass a float for a value this large",
               op, p);
  return std::nullopt;
}

}  // namespace

Scalar as_scalar(nb::handle h, const char* op) {
  PyObject* p = h.ptr();
  if (PyBool_Check(p)) return Scalar(p == Py_True);
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow) {
      // PyTorch's Scalar takes the uint64 half [2**63, 2**64) too; tandem refuses it
      // (ValueError: it would wrap against integer tensors) and raises PyTorch's
      // OverflowError beyond it.
      if (!as_uint64(p, overflow > 0, op)) throw nb::python_error();
      throw_error<ValueError>(op, ": integer ", nb::str(h).c_str(), " is out of the int64 range");
    }
    return Scalar(int64_t(v));
  }
  if (PyFloat_Check(p)) return Scalar(PyFloat_AS_DOUBLE(p));
  // numpy scalars and 0-d tensors via the number protocol.
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h).item();
  if (PyObject_HasAttrString(p, "dtype") && PyObject_HasAttrString(p, "item"))
    return as_scalar(h.attr("item")(), op);
  throw_error<TypeError>(op, ": expected a number, got ", nb::type_name(h.type()).c_str());
}

double as_real(nb::handle h, const char* op, const char* arg) {
  PyObject* p = h.ptr();
  if (PyFloat_Check(p)) return PyFloat_AS_DOUBLE(p);
  if (PyLong_Check(p) && !PyBool_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    if (!overflow) return double(v);
    std::string what = std::string(op) + "(): argument '" + arg + "'";
    std::optional<unsigned long long> u = as_uint64(p, overflow > 0, what.c_str());
    if (!u) throw nb::python_error();
    return double(*u);
  }
  bool scalar_like = PyBool_Check(p) || nb::isinstance<Tensor>(h) ||
                     (PyObject_HasAttrString(p, "dtype") && PyObject_HasAttrString(p, "item"));
  TANDEM_CHECK(scalar_like, TypeError, op, "(): argument '", arg, "' must be a number, not ",
               nb::type_name(h.type()).c_str());
  return as_scalar(h, op).to_double();  // bools, numpy scalars, one-element tensors
}

int64_t as_int(nb::handle h, const char* op, const char* arg) {
  PyObject* p = h.ptr();
  if (!PyLong_Check(p)) {
    TANDEM_CHECK(!PyFloat_Check(p) && PyObject_HasAttrString(p, "__index__"), TypeError, op,
                 ": argument '", arg, "' must be an int, not ", nb::type_name(h.type()).c_str());
    nb::object i = nb::steal(PyNumber_Index(p));
    if (!i.is_valid()) throw nb::python_error();
    return as_int(i, op, arg);
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
  TANDEM_CHECK(!overflow, ValueError, op, ": argument '", arg, "' = ", nb::str(h).c_str(),
               " is out of the int64 range");
  return int64_t(v);
}

Tensor as_operand(nb::handle h, const char* op) {
  if (const Tensor* t = tensor_of(h.ptr())) return *t;
  if (is_number(h)) return scalar_tensor(as_scalar(h, op));
  if (h.is_none()) throw_error<TypeError>(op, ": expected a Tensor or a number, got None");
  static nb::handle convert =
      nb::object(nb::module_::import_("tandem._convert").attr("to_tensor")).release();
  return nb::cast<Tensor>(convert(h));
}

namespace {

DType from_dl(nb::dlpack::dtype d) {
  using nb::dlpack::dtype_code;
  if (d.code == uint8_t(dtype_code::Bool)) return DType::Bool;
  if (d.code == uint8_t(dtype_code::Float)) {
    if (d.bits == 16) return DType::Float16;
    if (d.bits == 32) return DType::Float32;
    if (d.bits == 64) return DType::Float64;
  }
  if (d.code == uint8_t(dtype_code::Bfloat) && d.bits == 16) return DType::BFloat16;
  if (d.code == uint8_t(dtype_code::Int)) {
    if (d.bits == 8) return DType::Int8;
    if (d.bits == 16) return DType::Int16;
    if (d.bits == 32) return DType::Int32;
    if (d.bits == 64) return DType::Int64;
  }
  if (d.code == uint8_t(dtype_code::UInt) && d.bits == 8) return DType::UInt8;
  throw_error<TypeError>("from_numpy: unsupported array dtype (code ", int(d.code), ", ",
                         int(d.bits),
                         " bits); supported: bool, uint8, int8/16/32/64, "
                         "float16/32/64");
}

nb::dlpack::dtype to_dl(DType t) {
  using nb::dlpack::dtype_code;
  nb::dlpack::dtype d;
  d.lanes = 1;
  d.bits = uint8_t(itemsize(t) * 8);
  switch (t) {
    case DType::Bool:
      d.code = uint8_t(dtype_code::Bool);
      break;
    case DType::UInt8:
      d.code = uint8_t(dtype_code::UInt);
      break;
    case DType::Float16:
    case DType::Float32:
    case DType::Float64:
      d.code = uint8_t(dtype_code::Float);
      break;
    case DType::BFloat16:
      d.code = uint8_t(dtype_code::Bfloat);
      break;
    default:
      d.code = uint8_t(dtype_code::Int);
  }
  return d;
}

}  // namespace

Tensor from_numpy(nb::handle array, bool copy) {
  nb::ndarray<nb::ro, nb::device::cpu> a;
  if (!nb::try_cast(array, a, false)) {
    if (PyObject_HasAttrString(array.ptr(), "dtype"))
      throw_error<TypeError>("from_numpy: unsupported array dtype ",
                             nb::cast<std::string>(nb::str(nb::object(array.attr("dtype")))),
                             "; supported: bool, uint8, int8/16/32/64, float16/32/64");
    throw_error<TypeError>("from_numpy: expected a numpy array, got ",
                           nb::type_name(array.type()).c_str());
  }
  DType dt = from_dl(a.dtype());
  Shape shape(a.ndim());
  Strides strides(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) {
    shape[i] = int64_t(a.shape(i));
    strides[i] = int64_t(a.stride(i));
  }
  size_t isz = itemsize(dt);
  // Span of the view in elements, to size the borrowed storage.
  int64_t lo = 0, hi = 0;
  bool empty = numel_of(shape) == 0;
  for (size_t i = 0; i < shape.size() && !empty; ++i)
    (strides[i] >= 0 ? hi : lo) += (shape[i] - 1) * strides[i];
  const char* base = static_cast<const char*>(a.data()) + lo * int64_t(isz);
  PyObject* owner = array.ptr();
  Py_INCREF(owner);
  std::shared_ptr<void> keep(owner, [](void* o) {
    if (!Py_IsInitialized()) return;  // interpreter already gone at process exit
    nb::gil_scoped_acquire g;
    Py_DECREF(static_cast<PyObject*>(o));
  });
  auto storage = Storage::borrow(const_cast<char*>(base), size_t(hi - lo + 1) * isz, keep);
  auto impl = std::make_shared<TensorImpl>();
  impl->shape = shape;
  impl->strides = strides;
  impl->offset = -lo;
  impl->dtype = dt;
  impl->storage = storage;
  Tensor t(impl);
  if (copy) {
    // Host data is a constant even inside jit: copy it now rather than record the copy,
    // or the new tensor would hold uninitialised bytes at trace time.
    graph::TracePause pause;
    Tensor c = Tensor::empty(shape, dt);
    copy_(c, t);
    return c;
  }
  return t;
}

nb::object to_numpy(const Tensor& t0) {
  Tensor t = t0.dtype() == DType::BFloat16 ? to_dtype(t0, DType::Float32) : t0;
  std::vector<size_t> shape(t.shape().begin(), t.shape().end());
  std::vector<int64_t> strides(t.strides().begin(), t.strides().end());
  auto* holder = new Tensor(t);
  nb::capsule owner(holder, [](void* p) noexcept { delete static_cast<Tensor*>(p); });
  nb::ndarray<nb::numpy> arr(t.numel() == 0 ? nullptr : t.data_ptr(), t.dim(), shape.data(), owner,
                             strides.data(), to_dl(t.dtype()));
  return nb::cast(arr);
}

std::optional<std::vector<int64_t>> as_dims(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  int64_t v;
  if (PyLong_Check(h.ptr())) {
    TANDEM_CHECK(nb::try_cast(h, v), TypeError, "dim: integer out of range");
    return std::vector<int64_t>{v};
  }
  std::vector<int64_t> out;
  TANDEM_CHECK(PyObject_HasAttrString(h.ptr(), "__iter__") && !PyUnicode_Check(h.ptr()), TypeError,
               "dim must be an int, a sequence of ints or None, got ",
               nb::type_name(h.type()).c_str());
  for (nb::handle e : h) {
    TANDEM_CHECK(PyLong_Check(e.ptr()) && nb::try_cast(e, v), TypeError,
                 "dim entries must be ints, got ", nb::type_name(e.type()).c_str());
    out.push_back(v);
  }
  return out;
}

Shape as_shape(nb::handle h, const char* op) {
  Shape out;
  if (PyLong_Check(h.ptr())) return Shape{as_int(h, op, "size")};
  // Accept shape(2, 3), shape((2, 3)) and shape([2, 3]) forms.
  if (PyTuple_Check(h.ptr()) && PyTuple_GET_SIZE(h.ptr()) == 1 &&
      !PyLong_Check(PyTuple_GET_ITEM(h.ptr(), 0)))
    return as_shape(nb::handle(PyTuple_GET_ITEM(h.ptr(), 0)), op);
  try {
    for (nb::handle e : h) {
      if (nb::isinstance<Tensor>(e)) {
        out.push_back(nb::cast<Tensor>(e).item().to_int());
        continue;
      }
      TANDEM_CHECK(PyLong_Check(e.ptr()) || PyObject_HasAttrString(e.ptr(), "__index__"), TypeError,
                   op, ": shape entries must be ints, got ", nb::type_name(e.type()).c_str());
      out.push_back(as_int(e, op, "size"));
    }
  } catch (nb::python_error&) {
    throw_error<TypeError>(op, ": expected a shape (sequence of ints), got ",
                           nb::type_name(h.type()).c_str());
  }
  return out;
}

}  // namespace tandem::py
