// tandem._C.optim: the C++ optimizers behind tandem.mint.optim (PyTorch face) and the
// tandem.nn optimizers (MindSpore face). Groups cross as (params, options) pairs and state
// as (tensors, scalars) dict pairs; the Python faces translate to their users' formats.
#include <nanobind/stl/map.h>
#include <nanobind/stl/unique_ptr.h>

#include "common.h"
#include "tandem/optim/optimizer.h"

namespace tandem::py {

namespace {

using optim::Options;
using optim::ParamGroup;
using optim::ParamState;
using GroupArg = std::pair<std::vector<Tensor>, Options>;
using StateArg = std::pair<std::map<std::string, Tensor>, std::map<std::string, double>>;

std::vector<ParamGroup> to_groups(const std::vector<GroupArg>& groups) {
  std::vector<ParamGroup> out;
  for (const auto& [params, options] : groups) out.push_back({params, options});
  return out;
}

}  // namespace

void bind_optim(nb::module_& m) {
  using nb::arg;
  nb::module_ sub = m.def_submodule("optim", "C++ optimizers (tandem/optim/optimizer.h).");
  nb::class_<optim::Optimizer>(sub, "Optimizer")
      .def_prop_ro("name", &optim::Optimizer::name)
      .def_prop_ro("defaults", &optim::Optimizer::defaults)
      .def_prop_ro("num_groups", &optim::Optimizer::num_groups)
      .def_prop_ro("num_params", &optim::Optimizer::num_params)
      .def("add_param_group", &optim::Optimizer::add_param_group, arg("params"),
           arg("options") = Options{})
      .def(
          "params",
          [](const optim::Optimizer& o, int64_t g) {
            TANDEM_CHECK(g >= 0 && g < o.num_groups(), IndexError, o.name(), ": group index ", g,
                         " out of range for ", o.num_groups(), " groups");
            return o.param_groups()[size_t(g)].params;
          },
          arg("group"))
      .def(
          "options",
          [](const optim::Optimizer& o, int64_t g) {
            TANDEM_CHECK(g >= 0 && g < o.num_groups(), IndexError, o.name(), ": group index ", g,
                         " out of range for ", o.num_groups(), " groups");
            return o.param_groups()[size_t(g)].options;
          },
          arg("group"))
      .def("set_options", &optim::Optimizer::set_options, arg("group"), arg("options"))
      .def(
          "set_lr_tensor",
          [](optim::Optimizer& o, int64_t g, std::optional<Tensor> lr) {
            o.set_lr_tensor(g, lr.value_or(Tensor()));
          },
          arg("group"), arg("lr").none(),
          "Reads group's learning rate from a 0-d tensor at each update (None: the option).")
      .def("step", &optim::Optimizer::step, "Updates every parameter from its .grad.")
      .def(
          "step_with",
          [](optim::Optimizer& o, const std::vector<std::optional<Tensor>>& grads) {
            std::vector<Tensor> g;
            g.reserve(grads.size());
            for (const auto& x : grads) g.push_back(x.value_or(Tensor()));
            o.step_with(g);
          },
          arg("grads"), "Updates from explicit gradients (None skips a parameter).")
      .def("zero_grad", &optim::Optimizer::zero_grad, arg("set_to_none") = true)
      .def(
          "state",
          [](optim::Optimizer& o, int64_t i) {
            const ParamState& s = o.state(i);
            return StateArg(s.tensors, s.scalars);
          },
          arg("index"), "The live state of parameter `index` as (tensors, scalars).")
      .def(
          "export_state",
          [](const optim::Optimizer& o) {
            std::vector<StateArg> out;
            for (auto& s : o.export_state()) out.emplace_back(s.tensors, s.scalars);
            return out;
          },
          "A copy of every parameter's state as (tensors, scalars) pairs.")
      .def(
          "import_state",
          [](optim::Optimizer& o, const std::vector<StateArg>& state) {
            std::vector<ParamState> s;
            for (const auto& [tensors, scalars] : state) s.push_back({tensors, scalars});
            o.import_state(s);
          },
          arg("state"));
  sub.def(
      "create",
      [](const std::string& name, const std::vector<GroupArg>& groups, const Options& defaults) {
        return optim::create(name, to_groups(groups), defaults);
      },
      arg("name"), arg("groups"), arg("defaults") = Options{},
      "The optimizer `name` over groups [(params, options)], with default overrides.");
  sub.def(
      "default_options",
      [](const std::string& name) { return optim::create(name, {}, {})->defaults(); }, arg("name"));
}

}  // namespace tandem::py
