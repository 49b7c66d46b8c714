// tandem._C: the extension module. Errors from the C++ core become the matching Python
// builtin exceptions.
#include <omp.h>

#include "tandem/core/threads.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/ops/autocast.h"

#include "common.h"

namespace tandem::py {

// The Python error for a C++ exception of the core; other exceptions are rethrown (to the
// next translator).
void translate_exception(const std::exception_ptr& p) {
  try {
    std::rethrow_exception(p);
  } catch (const tandem::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const tandem::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const tandem::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const tandem::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const tandem::Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const std::bad_cast&) {
    // nb::cast of a Python object to a C++ type it isn't (a binding that casts by hand)
    PyErr_SetString(PyExc_TypeError,
                    "an argument has the wrong type or is out of range for the op");
  }
}

void set_python_error(const std::exception_ptr& p) {
  try {
    translate_exception(p);
  } catch (nb::python_error& e) {
    e.restore();
  } catch (const nb::builtin_exception& e) {
    PyObject* type = e.type() == nb::exception_type::type_error    ? PyExc_TypeError
                     : e.type() == nb::exception_type::value_error ? PyExc_ValueError
                     : e.type() == nb::exception_type::index_error ? PyExc_IndexError
                                                                   : PyExc_RuntimeError;
    PyErr_SetString(type, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

namespace {

void bind_dtype(nb::module_& m) {
  nb::enum_<DType>(m, "dtype")
      .value("bool", DType::Bool)
      .value("uint8", DType::UInt8)
      .value("int8", DType::Int8)
      .value("int16", DType::Int16)
      .value("int32", DType::Int32)
      .value("int64", DType::Int64)
      .value("float16", DType::Float16)
      .value("bfloat16", DType::BFloat16)
      .value("float32", DType::Float32)
      .value("float64", DType::Float64);
  m.def("dtype_name", [](DType t) { return dtype_name(t); });
  m.def("itemsize", [](DType t) { return itemsize(t); });
  m.def("promote_types", &promote_types);
  m.def("can_cast", &can_cast);
}

}  // namespace
}  // namespace tandem::py

NB_MODULE(_C, m) {
  using namespace tandem::py;
  nb::register_exception_translator(
      [](const std::exception_ptr& p, void*) { translate_exception(p); });
  // C++ warnings become Python UserWarnings (an error under warnings.simplefilter("error")).
  tandem::set_warning_handler([](const std::string& msg) {
    nb::gil_scoped_acquire gil;
    if (PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1) != 0) throw nb::python_error();
  });
  bind_dtype(m);
  bind_tensor(m);
  bind_ops(m);
  bind_shape_ops(m);
  bind_sort_ops(m);
  bind_linalg_ops(m);
  bind_nn_ops(m);
  bind_data(m);
  bind_graph(m);
  bind_norm_ops(m);
  bind_optim(m);
  bind_io(m);
  bind_init(m);
  bind_deploy(m);
  bind_distributed(m);
  m.def(
      "set_num_threads",
      [](int n) {
        TANDEM_CHECK(n > 0, tandem::ValueError, "set_num_threads: n must be positive, got ", n);
        tandem::threads::set_requested(n);
      },
      nb::arg("n"));
  m.def("get_num_threads", [] { return tandem::threads::requested(); });
  m.def("cpu_capability", &tandem::cpu_capability,
        "The widest instruction set the kernels run on this CPU: 'AVX512' or 'AVX2'.");
  m.def("build_isa", &tandem::build_isa,
        "The instruction set the library was compiled for: 'x86-64-v3' or 'native'.");
  m.def(
      "autocast_state",
      [] {
        tandem::AutocastState st = tandem::autocast_state();
        return nb::make_tuple(int(st.mode), st.dtype);
      },
      "(mode, dtype) of this thread's autocast: mode 0 off, 1 op lists, 2 cast all.");
  m.def(
      "set_autocast_state",
      [](int mode, tandem::DType dtype) {
        TANDEM_CHECK(mode >= 0 && mode <= 2, tandem::ValueError,
                     "set_autocast_state: mode must be 0, 1 or 2, got ", mode);
        TANDEM_CHECK(tandem::is_floating(dtype), tandem::ValueError,
                     "autocast: dtype must be a floating type, got ", tandem::dtype_name(dtype));
        tandem::set_autocast_state({tandem::AutocastMode(mode), dtype});
      },
      nb::arg("mode"), nb::arg("dtype"));
  m.def("threads_contended", &tandem::threads::contended);
  m.def("threads_report", &tandem::threads::report, nb::arg("threads"), nb::arg("span_ns"),
        nb::arg("skew_ns"));
  m.def("threads_reset", &tandem::threads::reset);
  m.def("from_numpy", &from_numpy, nb::arg("array"), nb::arg("copy") = false);
  install_arg_errors(m);
}
