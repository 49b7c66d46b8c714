#include "tandem/runtime/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

#include "tandem/core/error.h"
#include "tandem/io/safetensors.h"

namespace tandem::runtime {
namespace {

struct Descr {
  const char* code;
  DType dtype;
};
constexpr Descr kDescrs[] = {
    {"<f4", DType::Float32}, {"<f8", DType::Float64}, {"<f2", DType::Float16},
    {"<i8", DType::Int64},   {"<i4", DType::Int32},   {"<i2", DType::Int16},
    {"|i1", DType::Int8},    {"|u1", DType::UInt8},   {"|b1", DType::Bool}};

// The value of `key` in the header dict: the text from after "'key':" to the next
// top-level ',' or '}'.
std::string_view field(std::string_view h, std::string_view key, const std::string& where) {
  std::string pat = "'" + std::string(key) + "'";
  size_t k = h.find(pat);
  TANDEM_CHECK(k != std::string_view::npos, ValueError, where, "header lacks '", key, "'");
  size_t c = h.find(':', k + pat.size());
  TANDEM_CHECK(c != std::string_view::npos, ValueError, where, "malformed header");
  size_t b = c + 1;
  while (b < h.size() && h[b] == ' ') ++b;
  size_t e = b;
  int depth = 0;
  while (e < h.size() && (depth > 0 || (h[e] != ',' && h[e] != '}'))) {
    depth += h[e] == '(' ? 1 : h[e] == ')' ? -1 : 0;
    ++e;
  }
  return h.substr(b, e - b);
}

Shape parse_shape(std::string_view s, const std::string& where) {
  TANDEM_CHECK(s.size() >= 2 && s.front() == '(' && s.back() == ')', ValueError, where,
               "malformed shape ", std::string(s));
  Shape shape;
  size_t i = 1;
  int64_t elems = 1;
  while (i < s.size() - 1) {
    while (i < s.size() - 1 && (s[i] == ' ' || s[i] == ',')) ++i;
    if (i >= s.size() - 1) break;
    int64_t d = 0;
    size_t start = i;
    while (i < s.size() - 1 && s[i] >= '0' && s[i] <= '9') {
      TANDEM_CHECK(d < (int64_t(1) << 50), ValueError, where, "dimension too large");
      d = d * 10 + (s[i++] - '0');
    }
    TANDEM_CHECK(i > start, ValueError, where, "malformed shape ", std::string(s));
    TANDEM_CHECK(!__builtin_mul_overflow(elems, std::max<int64_t>(d, 1), &elems) &&
                     elems < (int64_t(1) << 50),
                 ValueError, where, "shape ", std::string(s), " is too large");
    shape.push_back(d);
  }
  return shape;
}

}  // namespace

Tensor parse_npy(std::string_view b, const std::string& name) {
  const std::string where = "load_npy: '" + name + "': ";
  TANDEM_CHECK(b.size() >= 10 && b.substr(0, 6) == "\x93NUMPY", ValueError, where,
               "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(b[6]);
  TANDEM_CHECK(major >= 1 && major <= 3, ValueError, where, "unsupported .npy version ", major);
  size_t hlen = 0, start = 0;
  if (major == 1) {
    hlen = size_t(static_cast<unsigned char>(b[8])) | size_t(static_cast<unsigned char>(b[9])) << 8;
    start = 10;
  } else {
    TANDEM_CHECK(b.size() >= 12, ValueError, where, "file ends in its header");
    for (int i = 3; i >= 0; --i) hlen = hlen << 8 | static_cast<unsigned char>(b[size_t(8 + i)]);
    start = 12;
  }
  TANDEM_CHECK(hlen <= b.size() - start, ValueError, where, "file ends in its header");
  std::string_view h = b.substr(start, hlen);
  std::string_view descr = field(h, "descr", where);
  DType dt = DType::Float32;
  bool known = false;
  for (const Descr& d : kDescrs)
    if (descr == std::string("'") + d.code + "'") dt = d.dtype, known = true;
  TANDEM_CHECK(known, ValueError, where, "dtype ", std::string(descr),
               " is not supported (little-endian bool, int8-64, uint8, float16/32/64)");
  TANDEM_CHECK(field(h, "fortran_order", where) == "False", ValueError, where,
               "Fortran-order arrays are not supported; save numpy.ascontiguousarray(a)");
  Shape shape = parse_shape(field(h, "shape", where), where);
  size_t nbytes = size_t(numel_of(shape)) * itemsize(dt);
  size_t data = start + hlen;
  TANDEM_CHECK(b.size() - data == nbytes, ValueError, where, "has ", b.size() - data,
               " data bytes, but ", dtype_short_name(dt), shape_str(shape), " needs ", nbytes);
  Tensor t = Tensor::empty(shape, dt);
  if (nbytes) std::memcpy(t.data_ptr(), b.data() + data, nbytes);
  if (dt == DType::Bool) {
    auto* p = static_cast<unsigned char*>(t.data_ptr());
    for (size_t i = 0; i < nbytes; ++i) p[i] = p[i] != 0;
  }
  return t;
}

Tensor load_npy(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    int err = errno;
    throw io::IoError(err, path, "load_npy: cannot open '" + path + "': " + std::strerror(err));
  }
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parse_npy(bytes, path);
}

void save_npy(const std::string& path, const Tensor& t) {
  const char* code = nullptr;
  for (const Descr& d : kDescrs)
    if (d.dtype == t.dtype()) code = d.code;
  TANDEM_CHECK(code, ValueError, "save_npy: dtype ", dtype_name(t.dtype()), " has no .npy code");
  std::string shape = "(";
  for (size_t i = 0; i < t.shape().size(); ++i)
    shape += std::to_string(t.shape()[i]) +
             (t.shape().size() == 1 || i + 1 < t.shape().size() ? "," : "");
  shape += ")";
  std::string h =
      "{'descr': '" + std::string(code) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  h.append(63 - (10 + h.size()) % 64, ' ');  // data starts on a 64-byte boundary
  h += '\n';
  Tensor c = t.contiguous();
  std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  auto fail = [&](const char* what) {
    int err = errno;
    if (f) std::fclose(f);
    std::remove(tmp.c_str());
    throw io::IoError(
        err, path,
        std::string("save_npy: cannot ") + what + " '" + path + "': " + std::strerror(err));
  };
  if (!f) fail("create");
  unsigned char pre[10] = {0x93,
                           'N',
                           'U',
                           'M',
                           'P',
                           'Y',
                           1,
                           0,
                           static_cast<unsigned char>(h.size() & 0xff),
                           static_cast<unsigned char>(h.size() >> 8)};
  size_t n = size_t(c.numel()) * c.itemsize();
  if (std::fwrite(pre, 1, 10, f) != 10 || std::fwrite(h.data(), 1, h.size(), f) != h.size() ||
      (n && std::fwrite(c.data_ptr(), 1, n, f) != n) || std::fflush(f) != 0)
    fail("write");
  if (std::fclose(f) != 0) {
    f = nullptr;
    fail("close");
  }
  f = nullptr;
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("rename onto");
}

}  // namespace tandem::runtime
