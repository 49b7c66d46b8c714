#include "tandem/data/idx.h"

#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "tandem/core/error.h"
#include "tandem/io/path.h"
#include "tandem/ops/elementwise.h"

namespace tandem::data {
namespace {

// A (possibly gzip-compressed) file read in order; gzread passes raw files through.
class GzReader {
 public:
  explicit GzReader(const std::string& path) : path_(path), f_(gzopen(path.c_str(), "rb")) {
    TANDEM_CHECK(f_, ValueError, "read_idx: cannot open '", path, "': ", std::strerror(errno));
  }
  ~GzReader() { gzclose(f_); }
  GzReader(const GzReader&) = delete;
  GzReader& operator=(const GzReader&) = delete;
  // True once something was read and the file turned out not to be gzip-compressed.
  bool raw() const { return gzdirect(f_) == 1; }
  // Reads up to n bytes into dst; returns how many (fewer only at the end of the data).
  size_t read(void* dst, size_t n) {
    size_t got = 0;
    auto* p = static_cast<unsigned char*>(dst);
    while (got < n) {
      unsigned chunk = unsigned(std::min<size_t>(n - got, size_t(1) << 30));
      int r = gzread(f_, p + got, chunk);
      if (r < 0) fail();
      if (r == 0) {
        int err = 0;
        gzerror(f_, &err);
        if (err != Z_OK && err != Z_STREAM_END) fail();
        break;
      }
      got += size_t(r);
    }
    return got;
  }

 private:
  [[noreturn]] void fail() {
    int err = 0;
    const char* msg = gzerror(f_, &err);
    throw_error<ValueError>("read_idx: '", path_,
                            "' is corrupt or truncated (gzip error: ", msg ? msg : "unknown", ")");
  }
  std::string path_;
  gzFile f_;
};

uint32_t be32(const unsigned char* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

DType idx_dtype(int type, const std::string& path) {
  switch (type) {
    case 0x08:
      return DType::UInt8;
    case 0x09:
      return DType::Int8;
    case 0x0B:
      return DType::Int16;
    case 0x0C:
      return DType::Int32;
    case 0x0D:
      return DType::Float32;
    case 0x0E:
      return DType::Float64;
    default:
      throw_error<ValueError>("read_idx: '", path, "' has unknown element type 0x", std::hex, type);
  }
}

}  // namespace

// The header is read and checked first; the data is then read up to the size it declares and
// no further, so a small compressed file that inflates without end (a gzip bomb) costs at
// most the declared size, which a file of real data needs anyway.
Tensor read_idx(const std::string& path) {
  io::check_path("read_idx", path);
  GzReader in(path);
  unsigned char head[4 + 4 * 4];
  size_t got = in.read(head, 4);
  TANDEM_CHECK(got == 4, ValueError, "read_idx: '", path, "' is too short (", got,
               " bytes) to be an IDX file");
  TANDEM_CHECK(head[0] == 0 && head[1] == 0, ValueError, "read_idx: '", path,
               "' has a bad magic number (not an IDX file)");
  DType dt = idx_dtype(head[2], path);
  int ndim = head[3];
  TANDEM_CHECK(ndim >= 1 && ndim <= 4, ValueError, "read_idx: '", path, "' declares ", ndim,
               " dims (expected 1 to 4)");
  TANDEM_CHECK(in.read(head + 4, 4 * size_t(ndim)) == 4 * size_t(ndim), ValueError, "read_idx: '",
               path, "' is truncated in its header");
  Shape shape;
  const size_t isz = itemsize(dt);
  uint64_t nbytes = isz;
  for (int d = 0; d < ndim; ++d) {
    uint32_t v = be32(head + 4 + 4 * d);
    TANDEM_CHECK(v < (1u << 31), ValueError, "read_idx: '", path, "' has an absurd dim ", v);
    shape.push_back(int64_t(v));
    TANDEM_CHECK(
        !__builtin_mul_overflow(nbytes, uint64_t(v), &nbytes) && nbytes <= uint64_t(INT64_MAX),
        ValueError, "read_idx: '", path, "' has a header ", shape_str(shape),
        "... whose size overflows (corrupt file)");
  }
  // Deflate expands at most 1032:1, so the file's size bounds what it can hold.
  std::error_code ec;
  uint64_t file_size = uint64_t(std::filesystem::file_size(path, ec));
  if (!ec) {
    uint64_t header = 4 + 4 * uint64_t(ndim);
    uint64_t most = in.raw() ? (file_size > header ? file_size - header : 0)
                             : file_size * 1100 + (uint64_t(1) << 20);
    TANDEM_CHECK(nbytes <= most, ValueError, "read_idx: '", path, "' declares ", shape_str(shape),
                 " (", nbytes, " bytes) but a ", in.raw() ? "" : "compressed ", "file of ",
                 file_size, " bytes cannot hold that much (truncated or corrupt file)");
  }
  // Read in bounded chunks into a buffer that grows with the data actually present: a header
  // that claims terabytes over a short file fails at its end, not at allocation.
  std::vector<unsigned char> bytes;
  constexpr size_t kChunk = size_t(1) << 24;
  while (bytes.size() < nbytes) {
    size_t want = size_t(std::min<uint64_t>(kChunk, nbytes - bytes.size()));
    size_t at = bytes.size();
    bytes.resize(at + want);
    size_t r = in.read(bytes.data() + at, want);
    bytes.resize(at + r);
    if (r < want) break;
  }
  TANDEM_CHECK(bytes.size() == nbytes, ValueError, "read_idx: '", path, "' holds ", bytes.size(),
               " bytes of data but its header ", shape_str(shape), " needs ", nbytes,
               " (truncated or corrupt file)");
  unsigned char extra;
  TANDEM_CHECK(in.read(&extra, 1) == 0, ValueError, "read_idx: '", path, "' has data past the ",
               nbytes, " bytes its header ", shape_str(shape), " declares (corrupt file)");
  Tensor t = Tensor::empty(shape, dt);
  unsigned char* dst = static_cast<unsigned char*>(t.data_ptr());
  const unsigned char* src = bytes.data();
  const size_t count = size_t(nbytes) / isz;
  if (isz == 1) {
    if (count) std::memcpy(dst, src, count);
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
  io::check_path("load_mnist", dir);
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
