// Readable errors for calls whose arguments match no signature. nanobind reports those as a
// dump of every overload's C++-derived signature; this turns it into "conv1d(): argument
// 'weight' must be a Tensor, not str", naming the op the user called.
//
// Each function object of the module keeps its type and attributes (so stub generation and
// introspection see plain nanobind functions); only the vectorcall entry point stored in the
// object (PEP 590: at tp_vectorcall_offset) is replaced by a trampoline that calls the
// original and, only when it failed, rewrites nanobind's TypeError. A successful call pays
// one extra direct call.
#include <array>
#include <cstring>

#include "common.h"

namespace tandem::py {
namespace {

// nanobind has a handful of entry points (by arity and keyword support); one trampoline per
// distinct original, each calling its own through a fixed slot.
constexpr int kSlots = 16;
std::array<vectorcallfunc, kSlots> g_orig{};
int g_used = 0;
PyObject* g_explain = nullptr;  // tandem._argerrors.explain, imported on first use

void explain(PyObject* fn, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  if (!PyErr_ExceptionMatches(PyExc_TypeError)) return;
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject* text = value ? PyObject_Str(value) : nullptr;
  const char* msg = text ? PyUnicode_AsUTF8(text) : nullptr;
  // Only nanobind's own overload failure of this very function, not a TypeError raised
  // inside it (by tandem's checks or by Python code it called).
  bool ours = msg && std::strstr(msg, "(): incompatible function arguments") != nullptr;
  PyObject* name = ours ? PyObject_GetAttrString(fn, "__name__") : nullptr;
  if (name) {
    const char* n = PyUnicode_AsUTF8(name);
    ours = n && std::strncmp(msg, n, std::strlen(n)) == 0 && msg[std::strlen(n)] == '(';
    Py_DECREF(name);
  } else {
    PyErr_Clear();
    ours = false;
  }
  Py_XDECREF(text);
  PyObject* better = nullptr;
  if (ours) {
    if (!g_explain) {
      PyObject* mod = PyImport_ImportModule("tandem._argerrors");
      g_explain = mod ? PyObject_GetAttrString(mod, "explain") : nullptr;
      Py_XDECREF(mod);
    }
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    PyObject* pos = PyTuple_New(n);
    PyObject* kw = PyDict_New();
    if (g_explain && pos && kw) {
      for (Py_ssize_t i = 0; i < n; ++i) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(pos, i, args[i]);
      }
      Py_ssize_t nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
      for (Py_ssize_t i = 0; i < nk; ++i)
        PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[n + i]);
      PyObject* frame = reinterpret_cast<PyObject*>(PyEval_GetFrame());
      better =
          PyObject_CallFunctionObjArgs(g_explain, fn, pos, kw, frame ? frame : Py_None, nullptr);
    }
    Py_XDECREF(pos);
    Py_XDECREF(kw);
    if (!better || !(PyUnicode_Check(better) || PyExceptionInstance_Check(better))) {
      PyErr_Clear();  // the explanation failed: keep nanobind's message
      Py_XDECREF(better);
      better = nullptr;
    }
  }
  if (better) {
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    // a message is a TypeError; an exception instance (a ValueError for an int beyond
    // int64, as PyTorch raises it) is raised as it is
    if (PyExceptionInstance_Check(better))
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(better)), better);
    else
      PyErr_SetObject(PyExc_TypeError, better);
    Py_DECREF(better);
    return;
  }
  PyErr_Restore(type, value, tb);
}

template <int K>
PyObject* trampoline(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  PyObject* r = g_orig[K](self, args, nargsf, kwnames);
  if (!r) [[unlikely]]
    explain(self, args, nargsf, kwnames);
  return r;
}

template <int... K>
constexpr std::array<vectorcallfunc, sizeof...(K)> make_trampolines(
    std::integer_sequence<int, K...>) {
  return {&trampoline<K>...};
}
constexpr auto kTrampolines = make_trampolines(std::make_integer_sequence<int, kSlots>());

bool is_nb_function(PyObject* o) {
  PyTypeObject* t = Py_TYPE(o);
  const char* n = t->tp_name;
  return t->tp_vectorcall_offset > 0 &&
         (std::strcmp(n, "nanobind.nb_func") == 0 || std::strcmp(n, "nanobind.nb_method") == 0);
}

void hook(PyObject* fn) {
  auto* slot = reinterpret_cast<vectorcallfunc*>(reinterpret_cast<char*>(fn) +
                                                 Py_TYPE(fn)->tp_vectorcall_offset);
  vectorcallfunc orig = *slot;
  if (!orig) return;
  for (int k = 0; k < g_used; ++k) {
    if (kTrampolines[size_t(k)] == orig) return;  // hooked already
    if (g_orig[size_t(k)] == orig) {
      *slot = kTrampolines[size_t(k)];
      return;
    }
  }
  if (g_used == kSlots) return;  // more entry points than expected: leave this one alone
  g_orig[size_t(g_used)] = orig;
  *slot = kTrampolines[size_t(g_used++)];
}

// Every function of a module or class (dunder methods excepted: nanobind's operators return
// NotImplemented rather than raise, and Python reaches them through type slots).
void hook_namespace(PyObject* dict) {
  PyObject *key, *value;
  Py_ssize_t pos = 0;
  while (PyDict_Next(dict, &pos, &key, &value)) {
    const char* k = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : nullptr;
    if (!k || (k[0] == '_' && k[1] == '_')) continue;
    if (is_nb_function(value)) hook(value);
  }
}

}  // namespace

void install_arg_errors(nb::module_& m) {
  std::vector<PyObject*> todo{m.ptr()};
  while (!todo.empty()) {
    PyObject* dict = PyModule_GetDict(todo.back());  // borrowed
    todo.pop_back();
    hook_namespace(dict);
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(dict, &pos, &key, &value)) {
      if (PyModule_Check(value)) todo.push_back(value);  // _C.init, _C.optim
      if (PyType_Check(value) && reinterpret_cast<PyTypeObject*>(value)->tp_dict)
        hook_namespace(reinterpret_cast<PyTypeObject*>(value)->tp_dict);
    }
  }
}

}  // namespace tandem::py
