// tandem._C checkpoint I/O: the safetensors reader and writer. Both release the GIL for the
// file work; a failed system call raises OSError (FileNotFoundError, PermissionError, ...)
// with errno and the file name, a bad file ValueError.
#include <nanobind/stl/map.h>

#include "common.h"
#include "tandem/io/safetensors.h"

namespace tandem::py {

void bind_io(nb::module_& m) {
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const io::IoError& e) {
      PyObject* args = Py_BuildValue("(iss)", e.error_code(), e.what(), e.filename().c_str());
      if (args) {
        PyErr_SetObject(PyExc_OSError, args);
        Py_DECREF(args);
      }
    }
  });
  m.def("save_safetensors", &io::save_safetensors, nb::arg("path"), nb::arg("tensors"),
        nb::arg("metadata") = io::Metadata{}, nb::call_guard<nb::gil_scoped_release>(),
        "Writes [(name, tensor), ...] and a str->str metadata dict to a safetensors file "
        "(crash-safe: temporary file, fsync, rename).");
  m.def("load_safetensors", &io::load_safetensors, nb::arg("path"),
        nb::call_guard<nb::gil_scoped_release>(),
        "Reads a safetensors file: ([(name, tensor), ...] in header order, metadata dict).");
}

}  // namespace tandem::py
