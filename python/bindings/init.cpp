// tandem._C.init: parameter initialisation (torch.nn.init). The in-place fills return the
// Python object they were given, so a Parameter stays a Parameter.
#include "tandem/nn/init.h"
#include "common.h"

namespace tandem::py {
namespace {

// Binds an in-place fill `fn(Tensor&, args...)` returning `self`.
template <typename... Args, typename Fn>
auto inplace(Fn fn) {
  return [fn](nb::handle self, Args... args) {
    fn(nb::cast<Tensor&>(self), args...);
    return nb::borrow(self);
  };
}

}  // namespace

void bind_init(nb::module_& root) {
  using nb::arg;
  nb::module_ m = root.def_submodule("init", "Parameter initialisation (torch.nn.init).");
  m.def("calculate_fan_in_and_fan_out", &init::calculate_fan_in_and_fan_out, arg("tensor"));
  m.def("calculate_gain", &init::calculate_gain, arg("nonlinearity"),
        arg("param").none() = nb::none());
  m.def("uniform_", inplace<double, double>(init::uniform_), arg("tensor"), arg("a"), arg("b"));
  m.def("normal_", inplace<double, double>(init::normal_), arg("tensor"), arg("mean"), arg("std"));
  m.def(
      "constant_",
      [](nb::handle self, nb::handle value) {
        init::constant_(nb::cast<Tensor&>(self), as_scalar(value, "constant_"));
        return nb::borrow(self);
      },
      arg("tensor"), arg("val"));
  m.def("zeros_", inplace<>(init::zeros_), arg("tensor"));
  m.def("ones_", inplace<>(init::ones_), arg("tensor"));
  m.def("eye_", inplace<>(init::eye_), arg("tensor"));
  m.def("xavier_uniform_", inplace<double>(init::xavier_uniform_), arg("tensor"), arg("gain"));
  m.def("xavier_normal_", inplace<double>(init::xavier_normal_), arg("tensor"), arg("gain"));
  m.def("kaiming_uniform_",
        inplace<double, const std::string&, const std::string&>(init::kaiming_uniform_),
        arg("tensor"), arg("a"), arg("mode"), arg("nonlinearity"));
  m.def("kaiming_normal_",
        inplace<double, const std::string&, const std::string&>(init::kaiming_normal_),
        arg("tensor"), arg("a"), arg("mode"), arg("nonlinearity"));
  m.def("trunc_normal_", inplace<double, double, double, double>(init::trunc_normal_),
        arg("tensor"), arg("mean"), arg("std"), arg("a"), arg("b"));
  m.def("orthogonal_", inplace<double>(init::orthogonal_), arg("tensor"), arg("gain"));
  m.def("householder_q", &init::householder_q, arg("input"));
}

}  // namespace tandem::py
