// NumPy .npy files (format versions 1.0 to 3.0, C order, little-endian), for the tandem-run
// CLI and C++ programs that exchange arrays with Python.
#pragma once
#include <string>
#include <string_view>

#include "tandem/core/tensor.h"

namespace tandem::runtime {

// Reads an array saved by numpy.save (bool, int8-64, uint8, float16/32/64). Throws
// ValueError for anything else (Fortran order, big-endian, object arrays, truncation) and
// IoError when the file cannot be read.
Tensor load_npy(const std::string& path);
Tensor parse_npy(std::string_view bytes, const std::string& name);
// Writes t (any strides) as a version 1.0 .npy file.
void save_npy(const std::string& path, const Tensor& t);

}  // namespace tandem::runtime
