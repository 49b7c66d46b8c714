// tandem._C deployment: export a traced function to a model file, read model files, and run
// them with the C++ runtime (tandem.export / tandem.load / nn.GraphCell sit on top).
#include "common.h"
#include "tandem/export/export.h"
#include "tandem/runtime/model.h"
#include "tandem/runtime/npy.h"
#include "tandem/runtime/opset.h"

namespace tandem::py {
namespace {

using runtime::ModelFile;

nb::list sym_shape(const runtime::ModelValue& v) {
  nb::list s;
  for (const runtime::SymInt& d : v.shape) {
    if (d.symbolic())
      s.append(runtime::sym_str(d));
    else
      s.append(d.add);
  }
  return s;
}

// [(name, dtype name, shape with "N" entries)] of the graph's inputs or outputs.
nb::list ports(const runtime::ModelGraph& g, const std::vector<runtime::ModelGraph::Port>& ps) {
  nb::list out;
  for (const auto& p : ps) {
    const runtime::ModelValue& v = g.values[size_t(p.value)];
    out.append(nb::make_tuple(p.name, dtype_short_name(v.dtype), sym_shape(v)));
  }
  return out;
}

}  // namespace

void bind_deploy(nb::module_& m) {
  using nb::arg;
  nb::class_<ModelFile>(m, "ModelFile", "A model file's contents: graph, weights, versions.")
      .def(
          "save", [](const ModelFile& f, const std::string& path) { runtime::save_model(path, f); },
          arg("path"), nb::call_guard<nb::gil_scoped_release>(),
          "Writes the model file (crash-safe).")
      .def_prop_ro("graph_json", [](const ModelFile& f) { return runtime::graph_to_json(f.graph); })
      .def_prop_ro("graph_text", [](const ModelFile& f) { return f.graph.str(); })
      .def_prop_ro("export_log", [](const ModelFile& f) { return f.export_log; })
      .def_prop_ro("producer", [](const ModelFile& f) { return f.producer; })
      .def_prop_ro("format_version", [](const ModelFile& f) { return f.format_version; })
      .def_prop_ro("opset_version", [](const ModelFile& f) { return f.opset_version; })
      .def_prop_ro("batch", [](const ModelFile& f) { return f.graph.batch; })
      .def_prop_ro("dynamic", [](const ModelFile& f) { return f.graph.dynamic(); })
      .def_prop_ro("inputs", [](const ModelFile& f) { return ports(f.graph, f.graph.inputs); })
      .def_prop_ro("outputs", [](const ModelFile& f) { return ports(f.graph, f.graph.outputs); })
      .def_prop_ro(
          "constants",
          [](const ModelFile& f) {
            nb::list out;
            for (const auto& c : f.graph.constants) out.append(nb::make_tuple(c.name, c.tensor));
            return out;
          },
          "[(name, tensor)] in the graph's constant order.");
  m.def(
      "export_model",
      [](nb::callable fn, std::vector<Tensor> examples, bool dynamic,
         std::vector<std::pair<Tensor, std::string>> names, std::vector<std::string> input_names,
         std::vector<std::string> output_names, std::string producer) {
        deploy::ExportOptions opt;
        opt.dynamic_batch = dynamic;
        opt.names = std::move(names);
        opt.input_names = std::move(input_names);
        opt.output_names = std::move(output_names);
        opt.producer = std::move(producer);
        return deploy::export_model(
            [&](const std::vector<Tensor>& sym) { return nb::cast<std::vector<Tensor>>(fn(sym)); },
            examples, opt);
      },
      arg("fn"), arg("examples"), arg("dynamic") = false,
      arg("names") = std::vector<std::pair<Tensor, std::string>>{},
      arg("input_names") = std::vector<std::string>{},
      arg("output_names") = std::vector<std::string>{}, arg("producer") = "tandem",
      "Traces fn(list of symbolic tensors) -> list of tensors at the examples and returns the "
      "optimized inference ModelFile.");
  m.def("load_model_file", &runtime::load_model, arg("path"),
        nb::call_guard<nb::gil_scoped_release>(), "Reads and validates a model file.");
  m.def(
      "parse_model_file",
      [](nb::bytes data, std::string name) {
        return runtime::parse_model(std::string_view(data.c_str(), data.size()), name);
      },
      arg("data"), arg("name") = "<bytes>", "Validates a model file's bytes.");
  m.def("model_opset", [] {
    std::vector<std::string> names;
    for (const runtime::OpSpec* s : runtime::opset_ops()) names.push_back(s->name);
    return names;
  });
  m.attr("model_format_version") = runtime::kFormatVersion;
  m.attr("model_opset_version") = runtime::kOpsetVersion;

  nb::class_<runtime::Model>(m, "RuntimeModel",
                             "A model file loaded by the C++ runtime (no autograd, no tracer).")
      .def(
          "__init__",
          [](runtime::Model* self, const std::string& path, int num_threads) {
            nb::gil_scoped_release nogil;
            new (self) runtime::Model(path, runtime::ModelOptions{num_threads});
          },
          arg("path"), arg("num_threads") = 0)
      .def(
          "__init__",
          [](runtime::Model* self, const ModelFile& file, int num_threads) {
            new (self) runtime::Model(file, runtime::ModelOptions{num_threads});
          },
          arg("file"), arg("num_threads") = 0)
      .def(
          "run",
          [](runtime::Model& mdl, std::vector<Tensor> inputs) {
            nb::gil_scoped_release nogil;
            return mdl.run(inputs);
          },
          arg("inputs"))
      .def("explain", &runtime::Model::explain, arg("batch") = 0)
      .def("arena_bytes", &runtime::Model::arena_bytes, arg("batch"))
      .def_prop_rw("num_threads", &runtime::Model::num_threads, &runtime::Model::set_num_threads)
      .def_prop_ro("file", &runtime::Model::file, nb::rv_policy::reference_internal);
  m.def("load_npy", &runtime::load_npy, arg("path"));
  m.def("save_npy", &runtime::save_npy, arg("path"), arg("tensor"));
}

}  // namespace tandem::py
