// __getitem__ / __setitem__ with numpy semantics: ints, slices (any step), None, Ellipsis,
// bool masks, and integer lists / ranges / tensors (advanced indexing).
#include "common.h"
#include "tandem/autograd/autograd.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/index_ops.h"
#include "tandem/ops/shape_ops.h"

namespace tandem::py {
namespace {

struct Basic {
  Tensor view;                    // x after ints, slices, None and Ellipsis
  std::vector<int64_t> adv_dims;  // dims of `view` that take advanced indices
  std::vector<Tensor> adv;        // int64 index tensors, one per adv dim
};

bool is_ndarray(nb::handle h) {
  return !nb::isinstance<Tensor>(h) && PyObject_HasAttrString(h.ptr(), "__array_interface__");
}

Tensor to_index_tensor(nb::handle h) {
  nb::object keep;  // owns the list made from a range while we read it
  if (PyRange_Check(h.ptr())) h = keep = nb::list(h);
  TANDEM_CHECK(
      nb::isinstance<Tensor>(h) || is_ndarray(h) || PyList_Check(h.ptr()) || PyTuple_Check(h.ptr()),
      IndexError,
      "only integers, slices (`:`), ellipsis (`...`), None and long, int or bool "
      "tensors (or lists / numpy arrays of them) are valid indices, got ",
      nb::type_name(h.type()).c_str());
  // numpy arrays and scalars keep their shape (0-d included) and dtype.
  Tensor t = is_ndarray(h) ? from_numpy(nb::module_::import_("numpy").attr("asarray")(h), true)
                           : as_operand(h, "index");
  if (t.numel() == 0 && t.dtype() == DType::Float32) return to_dtype(t, DType::Int64);
  TANDEM_CHECK(is_integral(t.dtype(), true), IndexError,
               "tensors used as indices must be long, int or bool tensors, got ",
               dtype_name(t.dtype()));
  return t;
}

int64_t py_index(nb::handle h) {
  if (nb::isinstance<Tensor>(h)) return nb::cast<Tensor>(h).item().to_int();
  PyObject* i = PyNumber_Index(h.ptr());  // TypeError for floats and other non-integers
  if (!i) throw nb::python_error();
  nb::object owned = nb::steal(i);
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  TANDEM_CHECK(!overflow, IndexError, "index ", nb::str(owned).c_str(),
               " is out of range (indices must fit in int64)");
  return int64_t(v);
}

// Python and numpy bool scalars (and 0-d bool arrays): x[True] adds a dim, x[False] an empty one.
bool is_bool_scalar(nb::handle h) {
  if (PyBool_Check(h.ptr())) return true;
  if (PyLong_Check(h.ptr()) || PySlice_Check(h.ptr()) || !is_ndarray(h)) return false;
  if (nb::cast<int64_t>(h.attr("ndim")) != 0) return false;
  return nb::cast<std::string>(h.attr("dtype").attr("kind")) == "b";
}

// Python ints, numpy integer scalars and 0-d integer arrays / tensors select like an int.
bool is_int_like(nb::handle h) {
  if (PyBool_Check(h.ptr())) return false;
  if (PyLong_Check(h.ptr())) return true;
  if (nb::isinstance<Tensor>(h)) {
    const Tensor& t = nb::cast<const Tensor&>(h);
    return t.dim() == 0 && is_integral(t.dtype());
  }
  if (!PyIndex_Check(h.ptr())) return false;
  return !PyObject_HasAttrString(h.ptr(), "ndim") || nb::cast<int64_t>(h.attr("ndim")) == 0;
}

Basic apply_basic(const Tensor& x, nb::handle index) {
  std::vector<nb::handle> items;
  if (PyTuple_Check(index.ptr())) {
    for (nb::handle h : index) items.push_back(h);
  } else {
    items.push_back(index);
  }
  // How many dims the items consume, to size the Ellipsis.
  int64_t consumed = 0;
  int ellipses = 0;
  for (nb::handle h : items) {
    if (h.is_none()) continue;
    if (h.ptr() == Py_Ellipsis) {
      ellipses++;
      continue;
    }
    if (is_bool_scalar(h)) continue;
    if (is_int_like(h) || PySlice_Check(h.ptr())) {
      consumed++;
      continue;
    }
    Tensor t = to_index_tensor(h);
    consumed += t.dtype() == DType::Bool ? std::max<int64_t>(t.dim(), 0) : 1;
  }
  TANDEM_CHECK(ellipses <= 1, IndexError, "an index can only have a single ellipsis ('...')");
  TANDEM_CHECK(consumed <= x.dim(), IndexError, "too many indices for tensor of dimension ",
               x.dim(), " (got ", consumed, ")");
  Basic b;
  b.view = x;
  int64_t d = 0;
  for (nb::handle h : items) {
    if (h.is_none()) {
      b.view = unsqueeze(b.view, d++);
    } else if (h.ptr() == Py_Ellipsis) {
      d += x.dim() - consumed;
    } else if (is_bool_scalar(h)) {  // x[True] adds a dim; x[False] adds an empty one
      b.view = unsqueeze(b.view, d);
      if (!PyObject_IsTrue(h.ptr())) b.view = slice(b.view, d, 0, 0, 1);
      d++;
    } else if (is_int_like(h)) {
      b.view = select(b.view, d, py_index(h));
    } else if (PySlice_Check(h.ptr())) {
      // Python's own unpacking: __index__ for numpy ints / tensors, huge bounds clamped,
      // ValueError for a zero step; slice() then clamps to the dim like numpy.
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(h.ptr(), &start, &stop, &step) < 0) throw nb::python_error();
      b.view = slice(b.view, d, int64_t(start), int64_t(stop), int64_t(step));
      d++;
    } else {
      Tensor t = to_index_tensor(h);
      if (t.dtype() == DType::Bool || t.dtype() == DType::UInt8) {
        Tensor m = to_dtype(t, DType::Bool);
        for (int64_t k = 0; k < m.dim(); ++k)
          TANDEM_CHECK(m.shape()[k] == b.view.shape()[d + k], IndexError, "the shape of the mask ",
                       shape_str(m.shape()), " at index ", k,
                       " does not match the shape of the indexed tensor ",
                       shape_str(b.view.shape()), " at index ", d + k);
        if (m.dim() == 0) {  // a 0-d mask acts like x[None][mask]
          b.view = unsqueeze(b.view, d);
          Tensor one = reshape(m, {1});
          b.adv_dims.push_back(d);
          b.adv.push_back(mask_to_indices(one)[0]);
          d++;
          continue;
        }
        std::vector<Tensor> idx = mask_to_indices(m);
        for (int64_t k = 0; k < m.dim(); ++k) {
          b.adv_dims.push_back(d + k);
          b.adv.push_back(idx[size_t(k)]);
        }
        d += m.dim();
      } else {
        b.adv_dims.push_back(d);
        b.adv.push_back(t);
        d++;
      }
    }
  }
  return b;
}

}  // namespace

void bind_indexing(nb::class_<Tensor>& cls) {
  cls.def(
      "__getitem__",
      [](const Tensor& x, nb::handle index) {
        Basic b = apply_basic(x, index);
        if (b.adv.empty()) return b.view;
        return tandem::index(b.view, b.adv_dims, b.adv);
      },
      nb::arg("index").none());
  cls.def(
      "__setitem__",
      [](const Tensor& x, nb::handle index, nb::handle value) {
        Basic b = apply_basic(x, index);
        Tensor v = is_number(value)
                       ? Tensor::wrap_scalar(as_scalar(value, "__setitem__"), x.dtype())
                       : as_operand(value, "__setitem__");
        if (is_grad_enabled() && (requires_grad(v) || requires_grad(x)))
          autograd::mark_view(b.view, x);  // the write must reach x's history too
        if (b.adv.empty()) {
          copy_(b.view, v);
          return;
        }
        index_put_(b.view, b.adv_dims, b.adv, v, false);
      },
      nb::arg("index").none(), nb::arg("value").none());
}

}  // namespace tandem::py
