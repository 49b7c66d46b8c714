// Scan, sort, selection and counting functions of tandem._C (python/tandem/_ops_sort.py adds
// PyTorch's keyword spellings and the (values, indices) namedtuples).
#include "common.h"
#include "tandem/ops/sort.h"

namespace tandem::py {
namespace {

std::optional<DType> opt_dtype(nb::handle h) {
  if (h.is_none()) return std::nullopt;
  return nb::cast<DType>(h);
}

nb::object or_none(const Tensor& t) {
  return t.defined() ? nb::cast(t) : nb::none();
}

nb::tuple triple(const std::tuple<Tensor, Tensor, Tensor>& r) {
  return nb::make_tuple(std::get<0>(r), or_none(std::get<1>(r)), or_none(std::get<2>(r)));
}

}  // namespace

void bind_sort_ops(nb::module_& m) {
  using nb::arg;
  m.def(
      "cumsum",
      [](const Tensor& x, int64_t dim, nb::handle dt) { return cumsum(x, dim, opt_dtype(dt)); },
      arg("input"), arg("dim"), arg("dtype").none() = nb::none());
  m.def(
      "cumprod",
      [](const Tensor& x, int64_t dim, nb::handle dt) { return cumprod(x, dim, opt_dtype(dt)); },
      arg("input"), arg("dim"), arg("dtype").none() = nb::none());
  m.def("logcumsumexp", &logcumsumexp, arg("input"), arg("dim"));
  m.def("cummax", &cummax, arg("input"), arg("dim"));
  m.def("cummin", &cummin, arg("input"), arg("dim"));

  m.def("sort", &sort, arg("input"), arg("dim") = -1, arg("descending") = false,
        arg("stable") = false);
  m.def("argsort", &argsort, arg("input"), arg("dim") = -1, arg("descending") = false,
        arg("stable") = false);
  m.def("msort", &msort, arg("input"));
  m.def("topk", &topk, arg("input"), arg("k"), arg("dim") = -1, arg("largest") = true,
        arg("sorted") = true);
  m.def("kthvalue", &kthvalue, arg("input"), arg("k"), arg("dim") = -1, arg("keepdim") = false);
  m.def("median", nb::overload_cast<const Tensor&>(&median), arg("input"));
  m.def("median_dim", nb::overload_cast<const Tensor&, int64_t, bool>(&median), arg("input"),
        arg("dim"), arg("keepdim") = false);
  m.def("nanmedian", nb::overload_cast<const Tensor&>(&nanmedian), arg("input"));
  m.def("nanmedian_dim", nb::overload_cast<const Tensor&, int64_t, bool>(&nanmedian), arg("input"),
        arg("dim"), arg("keepdim") = false);
  m.def("mode", &mode, arg("input"), arg("dim") = -1, arg("keepdim") = false);

  // Each returns (values, inverse or None, counts or None).
  m.def(
      "unique",
      [](const Tensor& x, bool sorted, bool inv, bool cnt, std::optional<int64_t> dim) {
        return triple(unique(x, sorted, inv, cnt, dim));
      },
      arg("input"), arg("sorted") = true, arg("return_inverse") = false,
      arg("return_counts") = false, arg("dim").none() = nb::none());
  m.def(
      "unique_consecutive",
      [](const Tensor& x, bool inv, bool cnt, std::optional<int64_t> dim) {
        return triple(unique_consecutive(x, inv, cnt, dim));
      },
      arg("input"), arg("return_inverse") = false, arg("return_counts") = false,
      arg("dim").none() = nb::none());
  m.def("bincount", &bincount, arg("input"), arg("weights").none() = nb::none(),
        arg("minlength") = 0);
  m.def("histc", &histc, arg("input"), arg("bins") = 100, arg("min") = 0.0, arg("max") = 0.0);
  m.def(
      "searchsorted",
      [](const Tensor& seq, nb::handle values, bool out_int32, bool right,
         std::optional<std::string> side, std::optional<Tensor> sorter) {
        return searchsorted(seq, as_operand(values, "searchsorted"), out_int32, right, side,
                            sorter);
      },
      arg("sorted_sequence"), arg("input"), arg("out_int32") = false, arg("right") = false,
      arg("side").none() = nb::none(), arg("sorter").none() = nb::none());
}

}  // namespace tandem::py
