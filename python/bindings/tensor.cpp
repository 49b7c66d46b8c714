// The Tensor class: metadata, conversions, Python number protocol and operators. Methods
// that only forward to an op are attached in Python (tandem/_tensor_methods.py).
#include "common.h"
#include "tandem/autograd/autograd.h"
#include "tandem/graph/tracer.h"
#include "tandem/ops/creation.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/elementwise_def.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::py {
namespace {

nb::tuple shape_tuple(const Tensor& t) {
  nb::tuple out = nb::steal<nb::tuple>(PyTuple_New(Py_ssize_t(t.dim())));
  for (int64_t i = 0; i < t.dim(); ++i)
    PyTuple_SET_ITEM(out.ptr(), i, PyLong_FromLongLong(t.shape()[size_t(i)]));
  return out;
}

nb::object scalar_to_py(Scalar s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool:
      return nb::bool_(s.to_int() != 0);
    case Scalar::Kind::Int:
      return nb::int_(s.to_int());
    default:
      return nb::float_(s.to_double());
  }
}

// "file.py:12" of the innermost Python frame outside the tandem package: the user's line
// that read a value while tracing.
std::string user_location() {
  PyFrameObject* f = PyEval_GetFrame();  // borrowed
  Py_XINCREF(f);
  std::string where = "<unknown>";
  while (f) {
    PyCodeObject* code = PyFrame_GetCode(f);
    std::string file = nb::cast<std::string>(nb::handle(code->co_filename));
    Py_DECREF(code);
    if (file.find("/tandem/") == std::string::npos || file.find("/tests/") != std::string::npos) {
      where =
          file.substr(file.find_last_of('/') + 1) + ":" + std::to_string(PyFrame_GetLineNumber(f));
      Py_DECREF(f);
      break;
    }
    PyFrameObject* back = PyFrame_GetBack(f);
    Py_DECREF(f);
    f = back;
  }
  return where;
}

// Python reading a tensor's values. While tracing, a traced tensor (or captured state) has
// no value of its own: the tracer evaluates it on this call's arguments and records a guard,
// so the compiled function is specialized on the value it read (and traces another path
// when a later call reads something else).
Tensor host_read(const Tensor& t, const char* what) {
  graph::Tracer* tr = graph::Tracer::active();
  if (tr && (t.is_symbolic() || tr->captures_state(t)))
    return tr->read(t, user_location() + ", " + what);
  return t;
}

nb::object tolist(const Tensor& t) {
  if (t.dim() == 0) return scalar_to_py(t.item());
  nb::list out;
  for (int64_t i = 0; i < t.shape()[0]; ++i) out.append(tolist(select(t, 0, i)));
  return std::move(out);
}

}  // namespace

void bind_tensor(nb::module_& m) {
  m.def("_set_default_float_dtype", &set_default_float_dtype, nb::arg("dtype"),
        "The dtype Python floats promote as (tandem.set_default_dtype).");
  m.def(
      "_check_fits",
      [](const Tensor& t, DType dtype, const std::string& op) {
        if (t.numel() == 0 || t.dtype() == DType::Bool) return;
        check_data_fits(amin(t).item(), dtype, op.c_str());
        check_data_fits(amax(t).item(), dtype, op.c_str());
      },
      nb::arg("tensor"), nb::arg("dtype"), nb::arg("op"),
      "Raises ValueError when a value of `tensor` does not fit `dtype` (PyTorch's overflow "
      "rule for numbers stored as values).");
  m.def(
      "_check_scalar_fits",
      [](nb::handle value, DType dtype, const std::string& op) {
        check_scalar_fits(as_scalar(value, op.c_str()), dtype, op.c_str());
      },
      nb::arg("value"), nb::arg("dtype"), nb::arg("op"),
      "Raises ValueError when the Python number does not fit `dtype` (PyTorch's checked "
      "conversion of scalar arguments).");
  // Operators (+, +=, <, -x, hash) are type slots: tensor_number.cpp.
  nb::class_<Tensor> cls(m, "Tensor", nb::dynamic_attr(), nb::type_slots(tensor_number_slots()));
  cls.def(
      "__init__",
      [](Tensor* self, nb::handle data, nb::handle dtype, nb::kwargs kwargs) {
        static nb::handle convert =
            nb::object(nb::module_::import_("tandem._convert").attr("to_tensor")).release();
        // MindSpore's keywords (shape=, init=, const_arg=, internal=) are handled in Python.
        new (self) Tensor(nb::cast<Tensor>(convert(data, dtype, **kwargs)));
      },
      nb::arg("input_data").none() = nb::none(), nb::arg("dtype").none() = nb::none(),
      nb::arg("kwargs"),
      "Tensor(input_data, dtype=None, *, shape=None, init=None): a tensor from a list, "
      "number, numpy array or Tensor, or of `shape` filled by the initializer `init`.");
  cls.def_prop_ro("shape", &shape_tuple, "The size of each dimension, as a tuple.");
  cls.def_prop_ro("dtype", &Tensor::dtype);
  cls.def_prop_ro("ndim", &Tensor::dim);
  cls.def("dim", &Tensor::dim, "Number of dimensions.");
  cls.def("ndimension", &Tensor::dim);
  cls.def("numel", &Tensor::numel, "Number of elements.");
  cls.def("nelement", &Tensor::numel);
  cls.def_prop_ro("size_bytes", [](const Tensor& t) { return t.numel() * int64_t(t.itemsize()); });
  cls.def("element_size", [](const Tensor& t) { return t.itemsize(); });
  cls.def_prop_ro("itemsize", [](const Tensor& t) { return t.itemsize(); });
  cls.def(
      "size",
      [](const Tensor& t, nb::handle dim) -> nb::object {
        if (dim.is_none()) return shape_tuple(t);
        return nb::int_(t.size(as_int(dim, "size", "dim")));
      },
      nb::arg("dim").none() = nb::none(), "size() -> shape tuple; size(dim) -> int.");
  cls.def(
      "stride",
      [](const Tensor& t, nb::handle dim) -> nb::object {
        if (dim.is_none()) {  // a tuple, as torch's (strides could be compared to one)
          nb::object list = nb::cast(t.strides());
          return nb::steal(PyList_AsTuple(list.ptr()));
        }
        TANDEM_CHECK(t.dim() > 0, IndexError, "stride: a 0-d tensor has no dimension ",
                     as_int(dim, "stride", "dim"));
        return nb::int_(t.strides()[wrap_dim(as_int(dim, "stride", "dim"), t.dim(), "stride")]);
      },
      nb::arg("dim").none() = nb::none());
  cls.def("storage_offset", &Tensor::offset);
  cls.def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); });
  cls.def("is_contiguous", &Tensor::is_contiguous);
  cls.def("_is_symbolic", &Tensor::is_symbolic,
          "Whether this is a value of a graph being traced (no data of its own).");
  // A copy through the clone op (not Tensor::contiguous, the kernels' raw copy), so autograd
  // records it and jit traces it.
  cls.def(
      "contiguous",
      [](nb::handle self) -> nb::object {
        const Tensor& t = nb::cast<const Tensor&>(self);
        return t.is_contiguous() ? nb::borrow(self) : nb::cast(clone(t));  // self, as in PyTorch
      },
      nb::sig("def contiguous(self) -> tandem._C.Tensor"));
  cls.def("_is_view_of", [](const Tensor& a, const Tensor& b) { return a.shares_storage(b); });
  cls.def(
      "item", [](const Tensor& t) { return scalar_to_py(host_read(t, ".item()").item()); },
      "The value of a one-element tensor as a Python number.");
  cls.def(
      "tolist", [](const Tensor& t) { return tolist(host_read(t, ".tolist()")); },
      "Nested lists of Python numbers.");
  cls.def(
      "numpy",
      [](const Tensor& t) {
        TANDEM_CHECK(!requires_grad(t), Error,
                     "Can't call numpy() on Tensor that requires grad. Use "
                     "tensor.detach().numpy() instead.");
        return to_numpy(host_read(t, ".numpy()"));
      },
      "A numpy array sharing memory with this tensor (bfloat16 converts to float32).");
  cls.def("asnumpy", [](const Tensor& t) { return to_numpy(host_read(t, ".asnumpy()")); });
  cls.def("__len__", [](const Tensor& t) {
    TANDEM_CHECK(t.dim() > 0, TypeError, "len() of a 0-d tensor");
    return t.shape()[0];
  });
  cls.def("__bool__", [](const Tensor& t) {
    TANDEM_CHECK(t.numel() == 1, ValueError, "Boolean value of Tensor with ", t.numel(),
                 " elements is ambiguous; use .any() or .all()");
    return host_read(t, "a Python condition (bool())").item().to_double() != 0;
  });
  cls.def("__float__", [](const Tensor& t) { return host_read(t, "float()").item().to_double(); });
  cls.def("__int__", [](const Tensor& t) -> nb::int_ {
    Scalar s = host_read(t, "int()").item();
    if (!s.is_float()) return nb::int_(s.to_int());
    // Python's own float -> int: exact for any magnitude, OverflowError for inf, ValueError
    // for NaN (what int(torch.tensor(x)) gives).
    PyObject* r = PyLong_FromDouble(s.to_double());
    if (!r) throw nb::python_error();
    return nb::steal<nb::int_>(r);
  });
  cls.def("__index__", [](const Tensor& t) {
    TANDEM_CHECK(is_integral(t.dtype(), true) && t.numel() == 1, TypeError,
                 "only integer tensors of a single element can be converted to an index");
    return host_read(t, "use as a Python index").item().to_int();
  });

  cls.def("_copy_from", [](nb::handle self, nb::handle src) {
    copy_(nb::cast<Tensor&>(self), as_operand(src, "copy_"));
    return nb::borrow(self);
  });
  cls.def("_fill", [](nb::handle self, nb::handle v) {
    Tensor& t = nb::cast<Tensor&>(self);
    if (nb::isinstance<Tensor>(v))
      fill_(t, nb::cast<Tensor>(v));
    else
      fill_(t, as_scalar(v, "fill_"));
    return nb::borrow(self);
  });
  cls.def("_inplace_unary", [](nb::handle self, const std::string& op) {
    apply_inplace_unary(op.c_str(), nb::cast<Tensor&>(self));
    return nb::borrow(self);
  });
  cls.def(
      "_inplace_binary",
      [](nb::handle self, const std::string& op, nb::handle other, nb::handle alpha) {
        apply_inplace(op.c_str(), nb::cast<Tensor&>(self), as_operand(other, op.c_str()),
                      alpha.is_none() ? Scalar(int64_t(1)) : as_scalar(alpha, op.c_str()));
        return nb::borrow(self);
      },
      nb::arg("op"), nb::arg("other"), nb::arg("alpha").none() = nb::none());
  // Rebinds this Python object to another tensor's data (used by Parameter.set_data).
  cls.def("_set_impl", [](Tensor& self, const Tensor& other) {
    // Points this tensor at other's data, keeping its own autograd state (x.data = y).
    TensorImpl* s = self.impl();
    const TensorImpl* o = other.impl();
    s->shape = o->shape;
    s->strides = o->strides;
    s->offset = o->offset;
    s->dtype = o->dtype;
    s->storage = o->storage;
  });
  bind_indexing(cls);
  bind_autograd(m, cls);
}

}  // namespace tandem::py
