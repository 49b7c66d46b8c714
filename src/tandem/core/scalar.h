// A Python-like number (bool, int or float) passed to ops such as fill, full and clamp.
#pragma once
#include <cstdint>

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
  int64_t to_int() const { return kind_ == Kind::Float ? int64_t(d_) : i_; }
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

}  // namespace tandem
