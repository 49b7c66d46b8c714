// A Python-like number (bool, int or float) passed to ops such as fill, full and clamp.
#pragma once
#include <cstdint>
#include <utility>

#include "tandem/core/dtype.h"

namespace tandem {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Float };
  Scalar() : kind_(Kind::Int), i_(0) {}
  Scalar(bool b) : kind_(Kind::Bool), i_(b) {}
  Scalar(int v) : kind_(Kind::Int), i_(v) {}
  Scalar(int64_t v) : kind_(Kind::Int), i_(v) {}
  Scalar(double v) : kind_(Kind::Float), d_(v) {}
  Scalar(float v) : kind_(Kind::Float), d_(v) {}

  Kind kind() const { return kind_; }
  bool is_float() const { return kind_ == Kind::Float; }
  double to_double() const { return kind_ == Kind::Float ? d_ : double(i_); }
  // Floats truncate toward zero; out-of-range ones saturate and NaN gives 0 (a plain cast
  // would be undefined behaviour).
  int64_t to_int() const {
    if (kind_ != Kind::Float) return i_;
    if (d_ != d_) return 0;
    if (d_ >= 9.223372036854775807e18) return INT64_MAX;
    if (d_ <= -9.223372036854775807e18) return INT64_MIN;
    return int64_t(d_);
  }
  // The dtype PyTorch gives a tensor made from this number: bool, int64 or float32.
  DType default_dtype() const {
    return kind_ == Kind::Bool ? DType::Bool : (kind_ == Kind::Int ? DType::Int64 : DType::Float32);
  }

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
  };
};

// PyTorch's rule for storing a Python number into a tensor of dtype `t` as a value (fill_,
// full, masked_fill, clamp bounds, tensor(..., dtype=)): ValueError "op: value v cannot be
// converted to type t without overflow" when it does not fit. Integers fit a signed type in
// its range and an unsigned one in [-max, max] (negatives wrap, as in C); floats fit an
// integer type when finite and in range, and a float type when NaN, infinite or within its
// finite range. Arithmetic operands are not checked: they wrap (int8 + 300), as in PyTorch.
void check_scalar_fits(Scalar s, DType t, const char* op);

// The fill variant (full, fill_): as check_scalar_fits, a finite float16 or bfloat16
// overflow raises (torch stores inf only on its one-element path, not copied here).
void check_fill_fits(Scalar s, DType t, const char* op);

// The stored-data variant (tensor(data, dtype=)): PyTorch rounds any number into float16 and
// bfloat16 (inf beyond their range); everything else as check_scalar_fits.
void check_data_fits(Scalar s, DType t, const char* op);

// Largest finite value of a float dtype; lowest / largest value of an integer one (bool: 0, 1).
double float_max(DType t);
std::pair<int64_t, int64_t> int_range(DType t);

}  // namespace tandem
