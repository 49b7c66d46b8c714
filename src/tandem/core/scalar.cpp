#include "tandem/core/scalar.h"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tandem/core/error.h"

namespace tandem {

// Largest finite value of a float dtype; lowest / largest of an integer one.
double float_max(DType t) {
  switch (t) {
    case DType::Float16:
      return 65504.0;
    case DType::BFloat16:
      return 3.3895313892515355e38;
    case DType::Float32:
      return double(std::numeric_limits<float>::max());
    default:
      return std::numeric_limits<double>::max();
  }
}

std::pair<int64_t, int64_t> int_range(DType t) {
  switch (t) {
    case DType::Bool:
      return {0, 1};
    case DType::UInt8:
      return {0, 255};
    case DType::Int8:
      return {-128, 127};
    case DType::Int16:
      return {-32768, 32767};
    case DType::Int32:
      return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
    default:
      return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
  }
}

namespace {

bool fits(Scalar s, DType t) {
  if (t == DType::Bool || s.kind() == Scalar::Kind::Bool) return true;
  if (is_floating(t)) {
    double v = s.to_double();
    return !std::isfinite(v) || std::fabs(v) <= float_max(t);
  }
  auto [lo, hi] = int_range(t);
  if (s.is_float()) {
    double v = s.to_double();
    // 2^63 is the first double above int64's range (INT64_MAX rounds up to it).
    return std::isfinite(v) && v >= double(lo) && v < double(hi) + 1.0;
  }
  int64_t v = s.to_int();
  if (!is_signed(t)) return v >= -hi && v <= hi;
  return v >= lo && v <= hi;
}

std::atomic<WarningHandler> g_warning_handler{nullptr};

}  // namespace

void set_warning_handler(WarningHandler handler) {
  g_warning_handler.store(handler);
}

void warn(const std::string& message) {
  if (WarningHandler h = g_warning_handler.load()) {
    h(message);
    return;
  }
  std::fprintf(stderr, "tandem warning: %s\n", message.c_str());
}

void check_scalar_fits(Scalar s, DType t, const char* op) {
  if (fits(s, t)) [[likely]]
    return;
  std::string v = s.is_float() ? detail::cat(s.to_double()) : std::to_string(s.to_int());
  throw_error<ValueError>(op, ": value ", v, " cannot be converted to type ", dtype_short_name(t),
                          " without overflow");
}

void check_fill_fits(Scalar s, DType t, const char* op) {
  check_scalar_fits(s, t, op);
}

void check_data_fits(Scalar s, DType t, const char* op) {
  if (t == DType::Float16 || t == DType::BFloat16) return;  // any number: inf beyond the range
  check_scalar_fits(s, t, op);
}

}  // namespace tandem
