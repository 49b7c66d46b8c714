// tandem._C data bindings: IDX readers, built-in transforms, and the prefetching Loader.
// Python callables (dataset __getitem__, custom transforms) are wrapped so the C++ workers
// hold the GIL only while calling them; Loader.next releases it while it waits. A Python
// exception raised in a worker travels to the consumer as itself (type, message, traceback)
// with a note saying where it was raised.
#include <nanobind/stl/shared_ptr.h>

#include <memory>

#include "common.h"
#include "tandem/data/idx.h"
#include "tandem/data/loader.h"

namespace tandem::py {
namespace {

using namespace tandem::data;

// A Python exception captured on a worker thread; rethrown to Python unchanged.
class PythonException : public std::exception {
 public:
  // Call with the GIL held, from the catch block of `e`.
  PythonException(const nb::python_error& e, const std::string& where)
      : what_(std::string(e.what()) + " (" + where + ")") {
    PyObject* v = e.value().ptr();
    Py_XINCREF(v);
    if (v) {
      std::string note = "raised in " + where;
      PyObject* r = PyObject_CallMethod(v, "add_note", "s", note.c_str());
      if (r)
        Py_DECREF(r);
      else
        PyErr_Clear();
    }
    value_ = std::shared_ptr<PyObject>(v, drop_ref);
  }
  const char* what() const noexcept override { return what_.c_str(); }
  // Sets the Python error indicator to the captured exception (GIL held).
  void restore() const {
    PyObject* v = value_.get();
    PyObject* t = reinterpret_cast<PyObject*>(Py_TYPE(v));
    Py_INCREF(t);
    Py_INCREF(v);
    PyErr_Restore(t, v, PyException_GetTraceback(v));
  }

 private:
  std::string what_;
  std::shared_ptr<PyObject> value_;
};

// A field of a sample as a tensor. Python floats become float64, as numpy and PyTorch's
// default_collate make them; everything else goes through tandem.tensor's rules.
// tandem._convert.to_tensor, looked up on first use. Guarded by the GIL alone: a C++ static
// (whose initialisation takes a lock) would deadlock when the import releases the GIL and
// another worker thread then waits on that lock while holding it.
PyObject* g_to_tensor = nullptr;

Tensor to_tensor_value(nb::handle v) {
  if (nb::isinstance<Tensor>(v)) return nb::cast<Tensor>(v);
  if (PyFloat_CheckExact(v.ptr())) {
    Tensor t = Tensor::empty({}, DType::Float64);
    *t.data<double>() = PyFloat_AsDouble(v.ptr());
    return t;
  }
  if (!g_to_tensor) {
    nb::object fn = nb::module_::import_("tandem._convert").attr("to_tensor");
    if (!g_to_tensor) g_to_tensor = fn.release().ptr();  // another thread may have won
  }
  return nb::cast<Tensor>(nb::handle(g_to_tensor)(v));
}

// A Python object with __len__ and __getitem__ returning a tuple (or a single value).
class PySource : public Source {
 public:
  PySource(nb::object obj, int64_t columns) : obj_(std::move(obj)), cols_(columns) {
    TANDEM_CHECK(columns >= 1, ValueError, "Loader: columns must be positive, got ", columns);
    n_ = int64_t(nb::len(obj_));
  }
  ~PySource() override { drop_ref(obj_.release().ptr()); }
  int64_t size() const override { return n_; }
  int64_t num_columns() const override { return cols_; }
  PyObject* object() const { return obj_.ptr(); }
  std::vector<Tensor> get(int64_t i) const override {
    nb::gil_scoped_acquire g;
    std::vector<Tensor> out;
    try {
      nb::object item = obj_[nb::int_(i)];
      // A tuple is always a row of fields; a list only when several columns are expected
      // (a one-column dataset may return a plain list of numbers as its value).
      if (nb::isinstance<nb::tuple>(item) || (cols_ > 1 && nb::isinstance<nb::list>(item))) {
        for (nb::handle v : item) out.push_back(to_tensor_value(v));
      } else {
        out.push_back(to_tensor_value(item));
      }
    } catch (nb::python_error& e) {
      throw PythonException(e, "dataset __getitem__(" + std::to_string(i) + ")");
    }
    TANDEM_CHECK(int64_t(out.size()) == cols_, ValueError, "dataset item ", i, " has ", out.size(),
                 " fields, expected ", cols_);
    return out;
  }

 private:
  nb::object obj_;
  int64_t cols_, n_ = 0;
};

// A Python callable tensor -> tensor used as a transform.
class PyTransform : public Transform {
 public:
  PyTransform(nb::object fn, std::string name) : fn_(std::move(fn)), name_(std::move(name)) {}
  ~PyTransform() override { drop_ref(fn_.release().ptr()); }
  Tensor apply(const Tensor& x, Rng&) const override {
    nb::gil_scoped_acquire g;
    try {
      return to_tensor_value(fn_(x));
    } catch (nb::python_error& e) {
      throw PythonException(e, "transform " + name_);
    }
  }
  std::string name() const override { return name_; }

 private:
  nb::object fn_;
  std::string name_;
};

// Owns the Loader so that destroying it (which joins worker threads that may be waiting
// for the GIL) happens with the GIL released.
struct PyLoader {
  std::unique_ptr<Loader> impl;
  ~PyLoader() {
    if (!impl) return;
    nb::gil_scoped_release r;
    impl.reset();
  }
};

// Lets the cyclic GC see the Loader's reference to a Python dataset (which often refers
// back to the loader, e.g. through module globals). Transforms are not visited: they may
// be shared with live Python objects, so their references are not the Loader's alone.
// Nor is the dataset while workers may still call it: the GC could clear objects it uses
// (its methods' globals) before the Loader is freed, so such a cycle waits for the epoch
// to end, or for interpreter exit, which stops every Loader first.
int loader_traverse(PyObject* self, visitproc visit, void* arg) {
  Py_VISIT(Py_TYPE(self));
  if (!nb::inst_ready(self)) return 0;
  PyLoader* l = nb::inst_ptr<PyLoader>(self);
  if (l->impl && !l->impl->busy())
    if (auto* ps = dynamic_cast<const PySource*>(l->impl->source().get())) Py_VISIT(ps->object());
  return 0;
}
PyType_Slot loader_slots[] = {{Py_tp_traverse, reinterpret_cast<void*>(loader_traverse)},
                              {0, nullptr}};

std::shared_ptr<Transform> mut(TransformPtr t) {
  return std::const_pointer_cast<Transform>(t);
}

// torchvision / MindSpore padding: int, (left/right, top/bottom) or (left, top, right, bottom).
std::vector<int64_t> ltrb(const std::vector<int64_t>& p) {
  if (p.size() == 1) return {p[0], p[0], p[0], p[0]};
  if (p.size() == 2) return {p[0], p[1], p[0], p[1]};
  TANDEM_CHECK(p.size() == 4, ValueError,
               "RandomCrop: padding must be an int or a sequence of 2 or 4 ints, got ", p.size(),
               " values");
  return p;
}

}  // namespace

void bind_data(nb::module_& m) {
  using nb::arg;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const PythonException& e) {
      e.restore();
    }
  });

  m.def("read_idx", &read_idx, arg("path"), nb::call_guard<nb::gil_scoped_release>());
  m.def("fashion_mnist_dir", &fashion_mnist_dir, arg("dir") = "");
  m.def("load_mnist_split", &load_mnist_split, arg("dir"), arg("split"),
        nb::call_guard<nb::gil_scoped_release>());

  nb::class_<Transform>(m, "Transform")
      .def_prop_ro("name", &Transform::name)
      .def(
          "__call__",
          [](const Transform& t, const Tensor& x, uint64_t seed, uint64_t stream) {
            Rng rng(seed, stream);
            return t.apply(x, rng);
          },
          arg("x"), arg("seed") = 0, arg("stream") = 0, nb::call_guard<nb::gil_scoped_release>(),
          "Applies the transform to one sample; random ones draw from Rng(seed, stream).")
      .def("__repr__", [](const Transform& t) { return "<tandem._C.Transform " + t.name() + ">"; });
  m.def("t_to_tensor", [] { return mut(to_tensor()); });
  m.def(
      "t_resize", [](int64_t h, int64_t w, bool hwc) { return mut(resize(h, w, hwc)); }, arg("h"),
      arg("w"), arg("hwc") = false);
  m.def(
      "t_rescale", [](double s, double t) { return mut(rescale(s, t)); }, arg("scale"),
      arg("shift"));
  m.def(
      "t_normalize",
      [](std::vector<double> m, std::vector<double> s, bool hwc) {
        return mut(normalize(std::move(m), std::move(s), hwc));
      },
      arg("mean"), arg("std"), arg("hwc") = false);
  m.def("t_hwc2chw", [] { return mut(hwc2chw()); });
  m.def(
      "t_type_cast", [](DType d) { return mut(type_cast(d)); }, arg("dtype"));
  m.def(
      "t_center_crop",
      [](int64_t h, int64_t w, bool hwc, bool ms) { return mut(center_crop(h, w, hwc, ms)); },
      arg("h"), arg("w"), arg("hwc") = false, arg("mindspore_style") = false);
  m.def(
      "t_random_crop",
      [](int64_t h, int64_t w, nb::handle padding, bool hwc) {
        std::vector<int64_t> p = nb::isinstance<nb::int_>(padding)
                                     ? std::vector<int64_t>{nb::cast<int64_t>(padding)}
                                     : nb::cast<std::vector<int64_t>>(padding);
        return mut(random_crop(h, w, ltrb(p), hwc));
      },
      arg("h"), arg("w"), arg("padding") = 0, arg("hwc") = false);
  m.def(
      "t_random_horizontal_flip",
      [](double p, bool hwc) { return mut(random_horizontal_flip(p, hwc)); }, arg("p") = 0.5,
      arg("hwc") = false);
  m.def(
      "t_python",
      [](nb::object fn, std::string name) {
        return std::shared_ptr<Transform>(new PyTransform(std::move(fn), std::move(name)));
      },
      arg("fn"), arg("name"));

  nb::class_<PyLoader>(m, "Loader", nb::is_weak_referenceable(), nb::type_slots(loader_slots))
      .def(
          "__init__",
          [](PyLoader* self, nb::object source, int64_t columns,
             std::vector<std::vector<std::shared_ptr<Transform>>> transforms, int64_t batch_size,
             bool shuffle, bool drop_last, int num_workers, uint64_t seed, int prefetch) {
            std::shared_ptr<const Source> src;
            // A list of tensors is the columns; anything else (a list of rows too) is a
            // random-access Python object.
            bool columns_given = nb::isinstance<nb::list>(source) && nb::len(source) > 0;
            if (columns_given)
              for (nb::handle c : source) columns_given &= nb::isinstance<Tensor>(c);
            if (columns_given) {
              src = std::make_shared<TensorSource>(nb::cast<std::vector<Tensor>>(source));
            } else {
              src = std::make_shared<PySource>(source, columns);
            }
            std::vector<std::vector<TransformPtr>> tr;
            for (auto& col : transforms) tr.emplace_back(col.begin(), col.end());
            TANDEM_CHECK(int64_t(tr.size()) <= src->num_columns(), ValueError,
                         "Loader: ", tr.size(), " transform lists for ", src->num_columns(),
                         " columns");
            LoaderOptions o;
            o.batch_size = batch_size, o.shuffle = shuffle, o.drop_last = drop_last;
            o.num_workers = num_workers, o.seed = seed, o.prefetch_per_worker = prefetch;
            auto impl = std::make_unique<Loader>(src, std::move(tr), o);
            new (self) PyLoader{std::move(impl)};
          },
          arg("source"), arg("columns"), arg("transforms"), arg("batch_size"), arg("shuffle"),
          arg("drop_last"), arg("num_workers"), arg("seed"), arg("prefetch") = 2)
      .def("__len__", [](const PyLoader& l) { return l.impl->num_batches(); })
      .def_prop_ro("num_samples", [](const PyLoader& l) { return l.impl->num_samples(); })
      .def_prop_ro("epoch", [](const PyLoader& l) { return l.impl->epoch(); })
      .def(
          "start_epoch",
          [](PyLoader& l, std::optional<std::vector<int64_t>> order) {
            l.impl->start_epoch(std::move(order));
          },
          arg("order") = nb::none(), nb::call_guard<nb::gil_scoped_release>(),
          "Starts the next epoch, optionally over an explicit list of sample indices.")
      .def(
          "next", [](PyLoader& l) { return l.impl->next(); },
          nb::call_guard<nb::gil_scoped_release>(),
          "The next batch as a list of tensors (empty at the end of the epoch).")
      .def(
          "stop", [](PyLoader& l) { l.impl->stop(); }, nb::call_guard<nb::gil_scoped_release>(),
          "Stops the workers of the current epoch and drops its prefetched batches.");
}

}  // namespace tandem::py
