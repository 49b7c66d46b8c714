// IDX files (the MNIST / Fashion-MNIST format), optionally gzip-compressed, and the
// Fashion-MNIST / MNIST directory layout.
#pragma once
#include <string>
#include <utility>

#include "tandem/core/tensor.h"

namespace tandem::data {

// Reads an IDX file (.gz or raw) into a tensor of its element type and dims (uint8 for the
// MNIST family). Validates the magic number, dims and length; throws ValueError naming the
// file on any corruption or truncation, and the fix when the file is missing.
Tensor read_idx(const std::string& path);

// The directory holding Fashion-MNIST: `dir` if non-empty, else $TANDEM_FASHION_MNIST_DIR,
// else /usr/share/datasets/fashion-mnist (Debian package dataset-fashion-mnist).
std::string fashion_mnist_dir(const std::string& dir = "");

// (images uint8 (N, 28, 28), labels int64 (N)) of the "train" or "test" split found in dir
// under the standard file names (train-images-idx3-ubyte[.gz], ...).
std::pair<Tensor, Tensor> load_mnist_split(const std::string& dir, const std::string& split);

}  // namespace tandem::data
