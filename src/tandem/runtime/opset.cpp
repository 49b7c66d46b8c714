#include "tandem/runtime/opset.h"

#include <algorithm>
#include <climits>
#include <map>

#include "tandem/core/error.h"

namespace tandem::runtime {
namespace {

constexpr int kMany = INT_MAX;

AttrSpec req(const char* name, uint8_t types) {
  return {name, types, true};
}
AttrSpec opt(const char* name, uint8_t types) {
  return {name, types, false};
}
AttrSpec dtype_attr(const char* name, bool required) {
  return {name, kAttrInt, required, true};
}
AttrSpec choice(const char* name, std::vector<std::string> values, bool required) {
  return {name, kAttrStr, required, false, std::move(values)};
}

// Inputs: x, [weight], [bias], then (eval mode) running_mean and running_var.
void check_batch_norm(const OpSpec&, const Attrs& a, size_t n) {
  size_t want = 1 + a.get_bool("has_weight") + a.get_bool("has_bias");
  if (!a.get_bool("training")) want += 2;
  TANDEM_CHECK(n == want || (a.get_bool("training") && n == want + 2), ValueError,
               "batch_norm: has_weight, has_bias and training call for ", want,
               " inputs, the node has ", n);
}
// Inputs: xw, h0, [c0 (LSTM)], w_hh, [b_hh].
void check_rnn_layer(const OpSpec&, const Attrs& a, size_t n) {
  size_t want = 3 + (a.get_str("mode") == "LSTM") + a.get_bool("has_bias");
  TANDEM_CHECK(n == want, ValueError, "rnn_layer: mode and has_bias call for ", want,
               " inputs, the node has ", n);
}
// Inputs: x, [weight], [bias].
void check_affine_norm(const OpSpec& s, const Attrs& a, size_t n) {
  size_t want = 1 + a.get_bool("has_weight") + a.get_bool("has_bias");
  TANDEM_CHECK(n == want, ValueError, s.name, ": has_weight and has_bias call for ", want,
               " inputs, the node has ", n);
}

// One line per op: the table reads as one.
// clang-format off
std::vector<OpSpec> non_elementwise_ops() {
  const std::vector<AttrSpec> pool{req("kernel", kAttrInts),      req("stride", kAttrInts),
                                   req("padding", kAttrInts),     req("dilation", kAttrInts),
                                   req("ceil_mode", kAttrBool),   req("count_include_pad", kAttrBool),
                                   req("divisor_override", kAttrInt)};
  const std::vector<AttrSpec> reduce{req("dims", kAttrInts), req("keepdim", kAttrBool),
                                     dtype_attr("dtype", false)};
  const std::vector<AttrSpec> resize{req("size", kAttrInts), req("align_corners", kAttrBool),
                                     req("scale_h", kAttrNumber), req("scale_w", kAttrNumber)};
  const std::vector<AttrSpec> affine{req("eps", kAttrNumber), req("has_weight", kAttrBool),
                                     req("has_bias", kAttrBool)};
  auto with = [](std::vector<AttrSpec> a, std::vector<AttrSpec> b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  return {
      {"conv2d", 2, 3, 1,
       {req("stride", kAttrInts), req("padding", kAttrInts), req("dilation", kAttrInts),
        req("groups", kAttrInt), choice("activation", {"relu", "sigmoid", "tanh"}, false)}},
      {"batch_norm", 1, 5, 3,
       with(affine, {req("training", kAttrBool), choice("activation", {"relu"}, false)}),
       check_batch_norm},
      {"layer_norm", 1, 3, 3, with(affine, {req("normalized_shape", kAttrInts)}),
       check_affine_norm},
      {"group_norm", 1, 3, 3, with(affine, {req("num_groups", kAttrInt)}), check_affine_norm},
      {"max_pool2d", 1, 1, 2, pool},
      {"avg_pool2d", 1, 1, 1, pool},
      {"adaptive_avg_pool2d", 1, 1, 1, {req("output_size", kAttrInts)}},
      {"adaptive_max_pool2d", 1, 1, 2, {req("output_size", kAttrInts)}},
      {"upsample_nearest2d", 1, 1, 1, resize},
      {"upsample_bilinear2d", 1, 1, 1, resize},
      {"matmul", 2, 2, 1, {}},
      {"rnn_layer", 3, 5, 3,
       {choice("mode", {"RNN_TANH", "RNN_RELU", "LSTM", "GRU"}, true), req("reverse", kAttrBool),
        req("has_bias", kAttrBool)},
       check_rnn_layer},
      {"cat", 1, kMany, 1, {req("dim", kAttrInt)}},
      {"pad", 1, 1, 1,
       {req("pad", kAttrInts), choice("mode", {"constant", "reflect", "replicate", "circular"}, true),
        req("value", kAttrNumber)}},
      {"softmax", 1, 1, 1, {req("dim", kAttrInt)}},
      {"log_softmax", 1, 1, 1, {req("dim", kAttrInt)}},
      {"sum", 1, 1, 1, reduce},
      {"mean", 1, 1, 1, reduce},
      {"prod", 1, 1, 1, reduce},
      {"amax", 1, 1, 1, reduce},
      {"amin", 1, 1, 1, reduce},
      {"max_dim", 1, 1, 2, {req("dim", kAttrInt), req("keepdim", kAttrBool)}},
      {"min_dim", 1, 1, 2, {req("dim", kAttrInt), req("keepdim", kAttrBool)}},
      {"cast", 1, 1, 1, {dtype_attr("dtype", true)}},
      {"reshape", 1, 1, 1, {req("shape", kAttrInts)}},
      {"view", 1, 1, 1, {req("shape", kAttrInts)}},
      {"permute", 1, 1, 1, {req("dims", kAttrInts)}},
      {"expand", 1, 1, 1, {req("shape", kAttrInts)}},
      {"squeeze", 1, 1, 1, {req("all", kAttrBool), req("dims", kAttrInts)}},
      {"unsqueeze", 1, 1, 1, {req("dim", kAttrInt)}},
      {"slice", 1, 1, 1,
       {req("dim", kAttrInt), req("start", kAttrInt), req("stop", kAttrInt), req("step", kAttrInt),
        req("has_start", kAttrBool), req("has_stop", kAttrBool)}},
      {"select", 1, 1, 1, {req("dim", kAttrInt), req("index", kAttrInt)}},
      {"gather", 2, 2, 1, {req("dim", kAttrInt)}},
      {"index", 2, 9, 1, {req("dims", kAttrInts)}},
      {"tril", 1, 1, 1, {req("diagonal", kAttrInt)}},
      {"triu", 1, 1, 1, {req("diagonal", kAttrInt)}},
  };
}
// clang-format on

// Elementwise ops: name, number of inputs, parameter attributes (all optional numbers).
struct EwEntry {
  const char* name;
  int arity;
  std::vector<const char*> params;
};
// clang-format off
std::vector<EwEntry> elementwise_ops() {
  std::vector<EwEntry> e;
  for (const char* n :
       {"abs",      "acos",        "acosh",     "asin",      "asinh",    "atan",     "atanh",
        "bitwise_not", "ceil",     "cos",       "cosh",      "erf",      "erfc",     "erfinv",
        "exp",      "exp2",        "expm1",     "floor",     "frac",     "gelu",     "gelu_tanh",
        "hardsigmoid", "hardswish", "isfinite", "isinf",     "isnan",    "isneginf", "isposinf",
        "log",      "log10",       "log1p",     "log2",      "logical_not", "logsigmoid", "mish",
        "neg",      "reciprocal",  "relu",      "rsqrt",     "sigmoid",  "sign",     "signbit",
        "silu",     "sin",         "sinh",      "sqrt",      "square",   "tan",      "tanh",
        "trunc"})
    e.push_back({n, 1, {}});
  e.push_back({"round", 1, {"decimals"}});
  e.push_back({"clamp", 1, {"min", "max"}});
  e.push_back({"clamp_min", 1, {"min"}});
  e.push_back({"clamp_max", 1, {"max"}});
  e.push_back({"elu", 1, {"alpha", "scale", "input_scale"}});
  e.push_back({"leaky_relu", 1, {"negative_slope"}});
  e.push_back({"softplus", 1, {"beta", "threshold"}});
  e.push_back({"nan_to_num", 1, {"nan", "posinf", "neginf"}});
  for (const char* n :
       {"mul",     "div",        "div_trunc",   "floor_divide", "fmod",        "remainder",
        "pow",     "atan2",      "copysign",    "hypot",        "logaddexp",   "maximum",
        "minimum", "fmax",       "fmin",        "eq",           "ne",          "lt",
        "le",      "gt",         "ge",          "logical_and",  "logical_or",  "logical_xor",
        "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift"})
    e.push_back({n, 2, {}});
  e.push_back({"add", 2, {"alpha"}});
  e.push_back({"sub", 2, {"alpha"}});
  e.push_back({"isclose", 2, {"rtol", "atol", "equal_nan"}});
  e.push_back({"where", 3, {}});
  e.push_back({"lerp", 3, {}});
  e.push_back({"addcmul", 3, {"value"}});
  e.push_back({"addcdiv", 3, {"value"}});
  return e;
}
// clang-format on

const std::map<std::string, OpSpec, std::less<>>& table() {
  static const auto* t = [] {
    auto* m = new std::map<std::string, OpSpec, std::less<>>();
    for (OpSpec& s : non_elementwise_ops()) m->emplace(s.name, std::move(s));
    for (const EwEntry& e : elementwise_ops()) {
      OpSpec s{e.name, e.arity, e.arity, 1, {}};
      for (const char* p : e.params) s.attrs.push_back(opt(p, kAttrNumber));
      m->emplace(e.name, std::move(s));
    }
    return m;
  }();
  return *t;
}

const char* types_str(uint8_t t) {
  switch (t) {
    case kAttrBool:
      return "a bool";
    case kAttrInt:
      return "an integer";
    case kAttrFloat:
      return "a float";
    case kAttrNumber:
      return "a number";
    case kAttrInts:
      return "a list of integers";
    case kAttrStr:
      return "a string";
    default:
      return "of another type";
  }
}

uint8_t type_of(const AttrValue& v) {
  return uint8_t(1u << v.index());  // the AttrValue alternatives in AttrTypes order
}

}  // namespace

const OpSpec* find_op_spec(std::string_view name) {
  auto it = table().find(name);
  return it == table().end() ? nullptr : &it->second;
}

const AttrSpec* find_attr_spec(const OpSpec& spec, std::string_view attr) {
  for (const AttrSpec& a : spec.attrs)
    if (attr == a.name) return &a;
  return nullptr;
}

std::vector<const OpSpec*> opset_ops() {
  std::vector<const OpSpec*> out;
  for (auto& [_, s] : table()) out.push_back(&s);
  return out;
}

void check_node(const OpSpec& spec, const Attrs& attrs, size_t num_inputs, size_t num_outputs,
                const std::string& where) {
  TANDEM_CHECK(int64_t(num_inputs) >= spec.min_inputs && int64_t(num_inputs) <= spec.max_inputs,
               ValueError, where, spec.name, " takes ", spec.min_inputs,
               spec.max_inputs == spec.min_inputs ? std::string()
               : spec.max_inputs == kMany         ? std::string(" or more")
                                                  : " to " + std::to_string(spec.max_inputs),
               " inputs, the node has ", num_inputs);
  TANDEM_CHECK(int64_t(num_outputs) == spec.num_outputs, ValueError, where, spec.name, " has ",
               spec.num_outputs, " outputs, the node lists ", num_outputs);
  for (const auto& [key, value] : attrs.items()) {
    const AttrSpec* a = find_attr_spec(spec, key);
    TANDEM_CHECK(a, ValueError, where, spec.name, " has no attribute '", key, "'");
    TANDEM_CHECK(type_of(value) & a->types, ValueError, where, spec.name, " attribute '", key,
                 "' must be ", types_str(a->types));
    if (!a->choices.empty()) {
      const std::string& s = std::get<std::string>(value);
      TANDEM_CHECK(std::find(a->choices.begin(), a->choices.end(), s) != a->choices.end(),
                   ValueError, where, spec.name, " attribute '", key, "' has value '", s,
                   "', which is not one of the op-set's choices");
    }
    if (a->is_dtype) {
      int64_t d = std::get<int64_t>(value);
      TANDEM_CHECK(d >= 0 && d < kNumDTypes, ValueError, where, spec.name, " attribute '", key,
                   "' is not a dtype");
    }
  }
  for (const AttrSpec& a : spec.attrs)
    TANDEM_CHECK(!a.required || attrs.has(a.name), ValueError, where, spec.name,
                 " is missing its attribute '", a.name, "'");
  if (spec.check) {
    try {
      spec.check(spec, attrs, num_inputs);
    } catch (const ValueError& e) {
      throw_error<ValueError>(where, e.what());
    }
  }
}

}  // namespace tandem::runtime
