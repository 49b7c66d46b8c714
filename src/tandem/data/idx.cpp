#include "tandem/data/idx.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/ops/elementwise.h"

namespace tandem::data {
namespace {

// Reads the whole (possibly gzip-compressed) file; gzread passes raw files through.
std::vector<unsigned char> read_all(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  TANDEM_CHECK(f, ValueError, "read_idx: cannot open '", path, "': ", std::strerror(errno));
  std::vector<unsigned char> out;
  unsigned char buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof(buf))) > 0) out.insert(out.end(), buf, buf + n);
  int err = 0;
  const char* msg = gzerror(f, &err);
  std::string why = (n < 0 || (err != Z_OK && err != Z_STREAM_END)) ? msg : "";
  gzclose(f);
  TANDEM_CHECK(why.empty(), ValueError, "read_idx: '", path,
               "' is corrupt or truncated (gzip error: ", why, ")");
  return out;
}

uint32_t be32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

}  // namespace

Tensor read_idx(const std::string& path) {
  std::vector<unsigned char> bytes = read_all(path);
  TANDEM_CHECK(bytes.size() >= 4, ValueError, "read_idx: '", path, "' is too short (", bytes.size(),
               " bytes) to be an IDX file");
  TANDEM_CHECK(bytes[0] == 0 && bytes[1] == 0, ValueError, "read_idx: '", path,
               "' has a bad magic number (not an IDX file)");
  int type = bytes[2], ndim = bytes[3];
  DType dt;
  switch (type) {
    case 0x08:
      dt = DType::UInt8;
      break;
    case 0x09:
      dt = DType::Int8;
      break;
    case 0x0B:
      dt = DType::Int16;
      break;
    case 0x0C:
      dt = DType::Int32;
      break;
    case 0x0D:
      dt = DType::Float32;
      break;
    case 0x0E:
      dt = DType::Float64;
      break;
    default:
      throw_error<ValueError>("read_idx: '", path, "' has unknown element type 0x", std::hex, type);
  }
  TANDEM_CHECK(ndim >= 1 && ndim <= 4, ValueError, "read_idx: '", path, "' declares ", ndim,
               " dims (expected 1 to 4)");
  size_t header = 4 + 4 * size_t(ndim);
  TANDEM_CHECK(bytes.size() >= header, ValueError, "read_idx: '", path,
               "' is truncated in its header");
  Shape shape;
  size_t count = 1;
  for (int d = 0; d < ndim; ++d) {
    uint32_t v = be32(bytes.data() + 4 + 4 * d);
    TANDEM_CHECK(v < (1u << 31), ValueError, "read_idx: '", path, "' has an absurd dim ", v);
    shape.push_back(int64_t(v));
    // Dims whose product exceeds the file can't be right; checking as we go avoids overflow.
    TANDEM_CHECK(v == 0 || count <= bytes.size() / v, ValueError, "read_idx: '", path,
                 "' has a header ", shape_str(shape), "... that needs more data than the file's ",
                 bytes.size(), " bytes (truncated or corrupt file)");
    count *= v;
  }
  size_t isz = itemsize(dt);
  TANDEM_CHECK(bytes.size() - header == count * isz, ValueError, "read_idx: '", path, "' holds ",
               bytes.size() - header, " bytes of data but its header ", shape_str(shape), " needs ",
               count * isz, " (truncated or corrupt file)");
  Tensor t = Tensor::empty(shape, dt);
  unsigned char* dst = static_cast<unsigned char*>(t.data_ptr());
  const unsigned char* src = bytes.data() + header;
  if (isz == 1) {
    std::memcpy(dst, src, count);
  } else {  // IDX is big-endian
    for (size_t i = 0; i < count; ++i)
      for (size_t b = 0; b < isz; ++b) dst[i * isz + b] = src[i * isz + (isz - 1 - b)];
  }
  return t;
}

std::string fashion_mnist_dir(const std::string& dir) {
  if (!dir.empty()) return dir;
  if (const char* env = std::getenv("TANDEM_FASHION_MNIST_DIR"); env && *env) return env;
  return "/usr/share/datasets/fashion-mnist";
}

std::pair<Tensor, Tensor> load_mnist_split(const std::string& dir, const std::string& split) {
  namespace fs = std::filesystem;
  TANDEM_CHECK(split == "train" || split == "test", ValueError,
               "load_mnist: usage must be 'train' or 'test', got '", split, "'");
  TANDEM_CHECK(fs::is_directory(dir), ValueError, "load_mnist: dataset directory '", dir,
               "' does not exist; install the Debian package dataset-fashion-mnist "
               "(apt-get install dataset-fashion-mnist) or pass dataset_dir / set "
               "TANDEM_FASHION_MNIST_DIR");
  std::string prefix = split == "train" ? "train" : "t10k";
  auto find = [&](const std::string& stem) {
    for (const char* ext : {".gz", ""}) {
      fs::path p = fs::path(dir) / (stem + ext);
      if (fs::exists(p)) return p.string();
    }
    throw_error<ValueError>("load_mnist: '", (fs::path(dir) / stem).string(),
                            "[.gz]' not found; the directory must hold the four IDX files");
  };
  Tensor images = read_idx(find(prefix + "-images-idx3-ubyte"));
  Tensor labels = read_idx(find(prefix + "-labels-idx1-ubyte"));
  TANDEM_CHECK(images.dim() == 3 && images.dtype() == DType::UInt8, ValueError,
               "load_mnist: image file must hold uint8 (N, H, W), got ", shape_str(images.shape()));
  TANDEM_CHECK(labels.dim() == 1 && labels.shape()[0] == images.shape()[0], ValueError,
               "load_mnist: ", labels.numel(), " labels for ", images.shape()[0], " images");
  return {images, to_dtype(labels, DType::Int64)};
}

}  // namespace tandem::data
