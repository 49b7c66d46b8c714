// Tensor's Python number protocol (a + b, a += b, a < b, -a) as CPython type slots. Slots
// are called directly by the interpreter; operators bound as methods named __add__ would
// make CPython look the name up in the type's dict and go through the generic method call
// on every `a + b`, which was a third of an eager one-element add.
#include "tandem/ops/elementwise.h"

#include "common.h"

namespace tandem::py {
namespace {

PyObject* not_implemented() {
  Py_INCREF(Py_NotImplemented);
  return Py_NotImplemented;
}

// A new Python Tensor owning `t` (what nb::cast does, without its type lookup).
PyObject* wrap(Tensor&& t) {
  static const nb::handle type = tensor_type();
  nb::object o = nb::inst_alloc(type);
  new (nb::inst_ptr<Tensor>(o)) Tensor(std::move(t));
  nb::inst_mark_ready(o);
  return o.release().ptr();
}

// Runs a slot body; a C++ exception becomes the Python error the module's translator
// gives it (slots have no nanobind call wrapper to do it).
template <class F>
PyObject* guarded(F&& body) noexcept {
  try {
    return body();
  } catch (nb::python_error& e) {
    e.restore();
  } catch (...) {
    set_python_error(std::current_exception());
  }
  return nullptr;
}

// The other operand of an operator, or nothing when `b` can't be one (None, a string, an
// object tandem can't convert): the slot then returns NotImplemented, so Python tries b's
// reflected method and `x == None` is False instead of an error, as in PyTorch.
std::optional<Tensor> operand(PyObject* b, const char* op) {
  nb::handle h(b);
  if (h.is_none() || PyUnicode_Check(b) || PyBytes_Check(b)) return std::nullopt;
  if (is_number(h)) return as_operand(h, op);
  try {
    return as_operand(h, op);
  } catch (const TypeError&) {
    return std::nullopt;
  } catch (nb::python_error& e) {
    if (e.matches(PyExc_TypeError)) return std::nullopt;
    throw;
  }
}

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

// a OP b where either side is a Tensor (CPython calls the slot of the left operand's type,
// then of the right one's with the same argument order).
PyObject* binary(PyObject* a, PyObject* b, BinaryFn fn, const char* name, const char* rname) {
  return guarded([&]() -> PyObject* {
    if (Tensor* ta = tensor_of(a)) {
      if (Tensor* tb = tensor_of(b)) return wrap(fn(*ta, *tb));
      std::optional<Tensor> o = operand(b, name);
      return o ? wrap(fn(*ta, *o)) : not_implemented();
    }
    Tensor* tb = tensor_of(b);
    if (!tb) return not_implemented();
    std::optional<Tensor> o = operand(a, rname);
    return o ? wrap(fn(*o, *tb)) : not_implemented();
  });
}

// self OP= b: writes into self and returns it.
PyObject* inplace(PyObject* self, PyObject* b, const char* op, const char* name) {
  return guarded([&]() -> PyObject* {
    Tensor* t = tensor_of(self);
    if (!t) return not_implemented();
    if (Tensor* tb = tensor_of(b)) {
      apply_inplace(op, *t, *tb);
    } else {
      std::optional<Tensor> o = operand(b, name);
      if (!o) return not_implemented();
      apply_inplace(op, *t, *o);
    }
    Py_INCREF(self);
    return self;
  });
}

Tensor add1(const Tensor& a, const Tensor& b) {
  return add(a, b);
}
Tensor sub1(const Tensor& a, const Tensor& b) {
  return sub(a, b);
}
Tensor div1(const Tensor& a, const Tensor& b) {
  return div(a, b);
}

#define TANDEM_BINARY_SLOT(SLOT, FN, NAME, OP)                \
  PyObject* SLOT(PyObject* a, PyObject* b) {                  \
    return binary(a, b, FN, "__" NAME "__", "__r" NAME "__"); \
  }                                                           \
  PyObject* SLOT##_inplace(PyObject* a, PyObject* b) {        \
    return inplace(a, b, OP, "__i" NAME "__");                \
  }
TANDEM_BINARY_SLOT(nb_add, add1, "add", "add")
TANDEM_BINARY_SLOT(nb_sub, sub1, "sub", "sub")
TANDEM_BINARY_SLOT(nb_mul, mul, "mul", "mul")
TANDEM_BINARY_SLOT(nb_truediv, div1, "truediv", "div")
TANDEM_BINARY_SLOT(nb_floordiv, floor_divide, "floordiv", "floor_divide")
TANDEM_BINARY_SLOT(nb_mod, remainder, "mod", "remainder")
TANDEM_BINARY_SLOT(nb_and, bitwise_and, "and", "bitwise_and")
TANDEM_BINARY_SLOT(nb_or, bitwise_or, "or", "bitwise_or")
TANDEM_BINARY_SLOT(nb_xor, bitwise_xor, "xor", "bitwise_xor")
TANDEM_BINARY_SLOT(nb_lshift, bitwise_left_shift, "lshift", "bitwise_left_shift")
TANDEM_BINARY_SLOT(nb_rshift, bitwise_right_shift, "rshift", "bitwise_right_shift")
#undef TANDEM_BINARY_SLOT

// pow(a, b, mod): three-argument pow has no tensor meaning (PyTorch raises too).
PyObject* pow_mod_error(PyObject* mod) {
  PyErr_Format(PyExc_TypeError,
               "pow(): a modulus is not supported for tensors (got %R); compute "
               "remainder(pow(a, b), m) instead",
               mod);
  return nullptr;
}
PyObject* nb_pow(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) return pow_mod_error(mod);
  return binary(a, b, pow, "__pow__", "__rpow__");
}
PyObject* nb_pow_inplace(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) return pow_mod_error(mod);
  return inplace(a, b, "pow", "__ipow__");
}

// Comparisons: CPython itself swaps the operands for the reflected form (2 < x is x > 2), so
// `a` is always a Tensor here.
PyObject* richcompare(PyObject* a, PyObject* b, int op) {
  static constexpr BinaryFn fns[] = {lt, le, eq, ne, gt, ge};  // Py_LT .. Py_GE
  static constexpr const char* names[] = {"__lt__", "__le__", "__eq__",
                                          "__ne__", "__gt__", "__ge__"};
  return guarded([&]() -> PyObject* {
    Tensor* ta = tensor_of(a);
    if (!ta || op < Py_LT || op > Py_GE) return not_implemented();
    if (Tensor* tb = tensor_of(b)) return wrap(fns[op](*ta, *tb));
    std::optional<Tensor> o = operand(b, names[op]);
    return o ? wrap(fns[op](*ta, *o)) : not_implemented();
  });
}

template <Tensor (*FN)(const Tensor&)>
PyObject* unary(PyObject* a) {
  return guarded([&]() -> PyObject* {
    Tensor* t = tensor_of(a);
    return t ? wrap(FN(*t)) : not_implemented();
  });
}
Tensor same(const Tensor& a) {
  return a;  // +x is x's data in a new Python object, as in PyTorch
}

// Identity hash, as PyTorch's tensors (their == is elementwise, so value hashing can't be).
Py_hash_t hash(PyObject* a) {
  return Py_hash_t(reinterpret_cast<intptr_t>(a) >> 4);
}

template <class F>
void* slot_fn(F f) {
  return reinterpret_cast<void*>(f);
}

const PyType_Slot kSlots[] = {
    {Py_nb_add, slot_fn(nb_add)},
    {Py_nb_subtract, slot_fn(nb_sub)},
    {Py_nb_multiply, slot_fn(nb_mul)},
    {Py_nb_true_divide, slot_fn(nb_truediv)},
    {Py_nb_floor_divide, slot_fn(nb_floordiv)},
    {Py_nb_remainder, slot_fn(nb_mod)},
    {Py_nb_power, slot_fn(nb_pow)},
    {Py_nb_and, slot_fn(nb_and)},
    {Py_nb_or, slot_fn(nb_or)},
    {Py_nb_xor, slot_fn(nb_xor)},
    {Py_nb_lshift, slot_fn(nb_lshift)},
    {Py_nb_rshift, slot_fn(nb_rshift)},
    {Py_nb_inplace_add, slot_fn(nb_add_inplace)},
    {Py_nb_inplace_subtract, slot_fn(nb_sub_inplace)},
    {Py_nb_inplace_multiply, slot_fn(nb_mul_inplace)},
    {Py_nb_inplace_true_divide, slot_fn(nb_truediv_inplace)},
    {Py_nb_inplace_floor_divide, slot_fn(nb_floordiv_inplace)},
    {Py_nb_inplace_remainder, slot_fn(nb_mod_inplace)},
    {Py_nb_inplace_power, slot_fn(nb_pow_inplace)},
    {Py_nb_inplace_and, slot_fn(nb_and_inplace)},
    {Py_nb_inplace_or, slot_fn(nb_or_inplace)},
    {Py_nb_inplace_xor, slot_fn(nb_xor_inplace)},
    {Py_nb_inplace_lshift, slot_fn(nb_lshift_inplace)},
    {Py_nb_inplace_rshift, slot_fn(nb_rshift_inplace)},
    {Py_nb_negative, slot_fn(unary<neg>)},
    {Py_nb_positive, slot_fn(unary<same>)},
    {Py_nb_absolute, slot_fn(unary<abs>)},
    {Py_nb_invert, slot_fn(unary<bitwise_not>)},
    {Py_tp_richcompare, slot_fn(richcompare)},
    {Py_tp_hash, slot_fn(hash)},
    {0, nullptr},
};

}  // namespace

const PyType_Slot* tensor_number_slots() {
  return kSlots;
}

}  // namespace tandem::py
