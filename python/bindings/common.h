// Shared helpers of the tandem._C bindings: Python value <-> Tensor conversion.
#pragma once
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "tandem/core/error.h"
#include "tandem/core/tensor.h"

namespace nb = nanobind;

namespace tandem::py {

// A Tensor from a Tensor, Python number (wrapped scalar), or anything tandem.tensor accepts.
Tensor as_operand(nb::handle h, const char* op);
// A Python number as Scalar; throws TypeError for other objects.
Scalar as_scalar(nb::handle h, const char* op);
bool is_number(nb::handle h);
// A Python number as double for an op parameter that PyTorch types as Scalar: ints in
// [-2**63, 2**64) (OverflowError beyond, as in PyTorch), floats, bools, numpy scalars and 0-d
// tensors; TypeError for other objects.
double as_real(nb::handle h, const char* op, const char* arg);
// A Python int (or object with __index__) as int64; TypeError naming `op` and `arg` for other
// objects, ValueError for ints out of the int64 range.
int64_t as_int(nb::handle h, const char* op, const char* arg);
// numpy array -> Tensor; zero-copy (sharing memory) unless copy is true.
Tensor from_numpy(nb::handle array, bool copy);
// Tensor -> numpy array sharing its memory (bfloat16 is converted to float32).
nb::object to_numpy(const Tensor& t);
// A dims argument: None -> nullopt, int -> [int], sequence -> list.
std::optional<std::vector<int64_t>> as_dims(nb::handle h);
// A shape from a sequence or from *args already collected as a tuple.
Shape as_shape(nb::handle h, const char* op);
// The Python class object of tandem Tensor.
nb::handle tensor_type();
// The Tensor inside `o`, or null when `o` is not a (constructed) tandem Tensor: a type check
// and a pointer, without nanobind's registry lookups.
Tensor* tensor_of(PyObject* o);
// Tensor's number protocol (operators) as CPython type slots, for nb::type_slots.
const PyType_Slot* tensor_number_slots();
// Sets the Python error for a C++ exception of the core (the module's exception
// translator); rethrows other exceptions.
void translate_exception(const std::exception_ptr& p);
// Sets the Python error for any C++ exception, for code without nanobind's call wrapper
// (type slots).
void set_python_error(const std::exception_ptr& p);

void bind_tensor(nb::module_& m);
void bind_indexing(nb::class_<Tensor>& cls);
void bind_ops(nb::module_& m);
void bind_shape_ops(nb::module_& m);
void bind_sort_ops(nb::module_& m);
void bind_linalg_ops(nb::module_& m);
void bind_nn_ops(nb::module_& m);
void bind_data(nb::module_& m);
void bind_graph(nb::module_& m);
void bind_autograd(nb::module_& m, nb::class_<Tensor>& cls);
void bind_norm_ops(nb::module_& m);
void bind_optim(nb::module_& m);
void bind_io(nb::module_& m);
void bind_init(nb::module_& m);
// Replaces nanobind's signature dumps on bad arguments by a message naming the op, the
// argument and the expected type (call last, once every function is defined).
void install_arg_errors(nb::module_& m);
void bind_deploy(nb::module_& m);
void bind_distributed(nb::module_& m);

// Drops a Python reference from any thread (C++ workers, the communication thread). While
// the interpreter shuts down, a thread without the GIL leaks the object instead: taking the
// GIL then could block forever or end the thread.
inline void drop_ref(PyObject* o) {
#if PY_VERSION_HEX >= 0x030D0000
  const bool finalizing = Py_IsFinalizing();
#else
  const bool finalizing = _Py_IsFinalizing();
#endif
  if (!o) return;
  if (PyGILState_Check()) {  // this thread holds the GIL (also during shutdown)
    Py_DECREF(o);
    return;
  }
  if (finalizing) return;
  PyGILState_STATE s = PyGILState_Ensure();
  Py_DECREF(o);
  PyGILState_Release(s);
}

// Shared ownership of a Python object that may be released on any thread.
inline std::shared_ptr<PyObject> shared_py(nb::object o) {
  return std::shared_ptr<PyObject>(o.release().ptr(), drop_ref);
}

}  // namespace tandem::py
