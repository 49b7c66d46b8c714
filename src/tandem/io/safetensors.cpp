#include "tandem/io/safetensors.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <unordered_set>

#include "tandem/io/json.h"
#include "tandem/io/path.h"

namespace tandem::io {

// The format is little-endian; tensors are written from memory as they are.
static_assert(std::endian::native == std::endian::little, "safetensors: big-endian host");

namespace {

// The safetensors reference implementation refuses larger headers too.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DTypeCode {
  DType dtype;
  const char* code;
};
constexpr DTypeCode kCodes[] = {{DType::Float64, "F64"}, {DType::Float32, "F32"},
                                {DType::Float16, "F16"}, {DType::BFloat16, "BF16"},
                                {DType::Int64, "I64"},   {DType::Int32, "I32"},
                                {DType::Int16, "I16"},   {DType::Int8, "I8"},
                                {DType::UInt8, "U8"},    {DType::Bool, "BOOL"}};

const char* code_of(DType t) {
  for (const auto& c : kCodes)
    if (c.dtype == t) return c.code;
  throw_error<ValueError>("save_safetensors: dtype ", dtype_name(t), " has no safetensors code");
}

std::string supported_codes() {
  std::string s;
  for (const auto& c : kCodes) s += std::string(s.empty() ? "" : ", ") + c.code;
  return s;
}

[[noreturn]] void sys_fail(const char* op, const std::string& what, const std::string& path) {
  int err = errno;
  throw IoError(err, path,
                detail::cat(op, ": cannot ", what, " '", path, "': ", std::strerror(err)));
}

// Closes the descriptor on every path out.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// Reads exactly n bytes at `offset`; a short read means the file shrank under us.
void pread_all(int fd, void* dst, uint64_t n, uint64_t offset, const std::string& path) {
  auto* p = static_cast<char*>(dst);
  while (n > 0) {
    size_t chunk = size_t(std::min<uint64_t>(n, uint64_t(1) << 30));
    ssize_t r = ::pread(fd, p, chunk, off_t(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      sys_fail("load_safetensors", "read", path);
    }
    TANDEM_CHECK(r > 0, ValueError, "load_safetensors: '", path,
                 "': file ended early (was it truncated while being read?)");
    p += r;
    n -= uint64_t(r);
    offset += uint64_t(r);
  }
}

std::string dims_str(const std::vector<uint64_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(dims[i]);
  }
  return s + "]";
}

// One tensor entry of the header, checked against itself (not yet against its neighbours).
struct Entry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin, end;
};

template <typename... Args>
[[noreturn]] void bad_entry(const std::string& where, const std::string& name,
                            const Args&... args) {
  throw_error<ValueError>(where, "tensor \"", name, "\" ", args...);
}

Entry parse_entry(const std::string& name, const json::Value& v, const std::string& where) {
  using K = json::Value::Kind;
  if (v.kind != K::Object)
    bad_entry(where, name, "must be a JSON object, got a ", json::kind_name(v.kind));
  for (const auto& [k, _] : v.members)
    if (k != "dtype" && k != "shape" && k != "data_offsets")
      bad_entry(where, name, "has an unknown field \"", k,
                "\" (expected dtype, shape, data_offsets)");
  Entry e;
  e.name = name;
  const json::Value* dt = v.find("dtype");
  const json::Value* sh = v.find("shape");
  const json::Value* off = v.find("data_offsets");
  if (!dt) bad_entry(where, name, "has no \"dtype\" field");
  if (!sh) bad_entry(where, name, "has no \"shape\" field");
  if (!off) bad_entry(where, name, "has no \"data_offsets\" field");
  if (dt->kind != K::String) bad_entry(where, name, "has a non-string dtype");
  const DTypeCode* code = nullptr;
  for (const auto& c : kCodes)
    if (dt->text == c.code) code = &c;
  if (!code)
    bad_entry(where, name, "has unknown or unsupported dtype \"", dt->text, "\" (tandem reads ",
              supported_codes(), ")");
  e.dtype = code->dtype;

  if (sh->kind != K::Array) bad_entry(where, name, "has a shape that is not an array");
  if (sh->items.size() > kMaxDims)
    bad_entry(where, name, "has ", sh->items.size(), " dims; tandem tensors have at most ",
              kMaxDims);
  std::vector<uint64_t> dims;
  for (const auto& d : sh->items) {
    auto u = d.as_uint();
    if (!u || *u > uint64_t(INT64_MAX))
      bad_entry(where, name, "has a shape entry that is not a non-negative integer: ",
                d.kind == K::Number ? d.text : json::kind_name(d.kind));
    dims.push_back(*u);
  }
  // Bytes the shape needs; a product that overflows cannot match any real byte range.
  uint64_t nbytes = itemsize(e.dtype);
  bool overflow = false;
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) {
    nbytes = 0;
  } else {
    for (uint64_t d : dims) overflow |= __builtin_mul_overflow(nbytes, d, &nbytes);
  }

  if (off->kind != K::Array || off->items.size() != 2)
    bad_entry(where, name, "has data_offsets that are not a [begin, end] pair");
  auto b = off->items[0].as_uint(), en = off->items[1].as_uint();
  if (!b || !en) bad_entry(where, name, "has data_offsets that are not non-negative integers");
  if (*b > *en)
    bad_entry(where, name, "has data_offsets [", *b, ", ", *en, "] with begin after end");
  e.begin = *b;
  e.end = *en;
  if (overflow || nbytes != e.end - e.begin)
    bad_entry(where, name, "has shape ", dims_str(dims), " of ", code->code, " which needs ",
              overflow ? std::string("more than 2^64") : std::to_string(nbytes),
              " bytes, but its data_offsets [", e.begin, ", ", e.end, "] span ", e.end - e.begin);
  e.shape.assign(dims.begin(), dims.end());
  return e;
}

Metadata parse_metadata(const json::Value& v, const std::string& where) {
  TANDEM_CHECK(v.kind == json::Value::Kind::Object, ValueError, where,
               "\"__metadata__\" must be a JSON object, got a ", json::kind_name(v.kind));
  Metadata md;
  for (const auto& [k, val] : v.members) {
    TANDEM_CHECK(val.kind == json::Value::Kind::String, ValueError, where,
                 "\"__metadata__\" value of \"", k, "\" must be a string, got a ",
                 json::kind_name(val.kind));
    md.emplace(k, val.text);
  }
  return md;
}

// Offsets must tile [0, data_size) exactly: no overlap, no gap, no bytes past the end and
// none left over (empty tensors may sit anywhere on a boundary).
void check_layout(const std::vector<Entry>& entries, uint64_t data_size, const std::string& where) {
  std::vector<const Entry*> order;
  for (const auto& e : entries) {
    TANDEM_CHECK(e.end <= data_size, ValueError, where, "tensor \"", e.name,
                 "\" has data_offsets [", e.begin, ", ", e.end,
                 "] past the end of the data region (", data_size, " bytes)");
    order.push_back(&e);
  }
  std::sort(order.begin(), order.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  uint64_t cursor = 0;
  const Entry* prev = nullptr;
  for (const Entry* e : order) {
    TANDEM_CHECK(e->begin >= cursor, ValueError, where, "tensor \"", e->name, "\" [", e->begin,
                 ", ", e->end, "] overlaps tensor \"", prev ? prev->name : "", "\" [",
                 prev ? prev->begin : 0, ", ", cursor, "]");
    TANDEM_CHECK(e->begin == cursor, ValueError, where, "data_offsets leave bytes [", cursor, ", ",
                 e->begin, ") that belong to no tensor (gap before \"", e->name, "\")");
    if (e->end > e->begin) prev = e;
    cursor = std::max(cursor, e->end);
  }
  TANDEM_CHECK(cursor == data_size, ValueError, where, "the data region has ", data_size,
               " bytes but the tensors cover only ", cursor,
               " (trailing bytes belong to no tensor)");
}

// Writes everything or throws; the caller removes the temporary file.
void write_all(std::FILE* f, const void* p, size_t n, const std::string& tmp) {
  if (n > 0 && std::fwrite(p, 1, n, f) != n) sys_fail("save_safetensors", "write", tmp);
}

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

}  // namespace

void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const Metadata& metadata) {
  const char* op = "save_safetensors";
  check_path(op, path);
  std::unordered_set<std::string_view> names;
  std::vector<Tensor> dense;
  dense.reserve(tensors.size());
  for (const auto& [name, t] : tensors) {
    TANDEM_CHECK(t.defined(), ValueError, op, ": tensor \"", name, "\" is undefined");
    TANDEM_CHECK(name != "__metadata__", ValueError, op,
                 ": \"__metadata__\" is reserved and cannot name a tensor");
    TANDEM_CHECK(!json::find_invalid_utf8(name), ValueError, op, ": tensor name \"", name,
                 "\" is not valid UTF-8");
    TANDEM_CHECK(names.insert(name).second, ValueError, op, ": duplicate tensor name \"", name,
                 "\"");
    code_of(t.dtype());
    dense.push_back(t.contiguous());
  }
  for (const auto& [k, v] : metadata)
    TANDEM_CHECK(!json::find_invalid_utf8(k) && !json::find_invalid_utf8(v), ValueError, op,
                 ": metadata entry \"", k, "\" is not valid UTF-8");

  // Data in decreasing itemsize: with the data region 8-aligned every tensor then starts at a
  // multiple of its own itemsize, so readers that map the file get aligned arrays. The header
  // keeps the caller's order.
  std::vector<size_t> order(dense.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return dense[a].itemsize() > dense[b].itemsize(); });
  std::vector<uint64_t> begin(dense.size()), nbytes(dense.size());
  uint64_t cursor = 0;
  for (size_t i : order) {
    begin[i] = cursor;
    nbytes[i] = uint64_t(dense[i].numel()) * dense[i].itemsize();
    cursor += nbytes[i];
  }

  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      if (!first) header += ',';
      first = false;
      json::append_string(header, k);
      header += ':';
      json::append_string(header, v);
    }
    header += '}';
  }
  for (size_t i = 0; i < dense.size(); ++i) {
    if (header.size() > 1) header += ',';
    json::append_string(header, tensors[i].first);
    header += ":{\"dtype\":\"";
    header += code_of(dense[i].dtype());
    header += "\",\"shape\":[";
    for (size_t d = 0; d < dense[i].shape().size(); ++d) {
      if (d) header += ',';
      header += std::to_string(dense[i].shape()[d]);
    }
    header += "],\"data_offsets\":[" + std::to_string(begin[i]) + "," +
              std::to_string(begin[i] + nbytes[i]) + "]}";
  }
  header += '}';
  header.append((8 - header.size() % 8) % 8, ' ');
  TANDEM_CHECK(header.size() <= kMaxHeaderBytes, ValueError, op, ": header of ", header.size(),
               " bytes exceeds the safetensors limit of ", kMaxHeaderBytes);

  // Temporaries of writers killed mid-save would otherwise stay forever.
  remove_stale_temporaries(path);
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) sys_fail(op, "create", tmp);
  try {
    uint64_t n = header.size();
    unsigned char len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<unsigned char>(n >> (8 * i));
    write_all(f, len, 8, tmp);
    write_all(f, header.data(), header.size(), tmp);
    for (size_t i : order) write_all(f, dense[i].data_ptr(), size_t(nbytes[i]), tmp);
    if (std::fflush(f) != 0) sys_fail(op, "write", tmp);
    if (::fsync(::fileno(f)) != 0) sys_fail(op, "fsync", tmp);
    std::FILE* g = f;
    f = nullptr;
    if (std::fclose(g) != 0) sys_fail(op, "close", tmp);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) sys_fail(op, "rename the new file onto", path);
  } catch (...) {
    if (f) std::fclose(f);
    ::unlink(tmp.c_str());
    throw;
  }
  // The rename itself is durable only once the directory entry is on disk.
  std::string dir = dir_of(path);
  Fd d{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (d.fd < 0) sys_fail(op, "open directory", dir);
  if (::fsync(d.fd) != 0 && errno != EINVAL) sys_fail(op, "fsync directory", dir);
}

namespace {

// Reads n bytes at an offset into dst; throws when the source ends early.
using ReadFn = std::function<void(void* dst, uint64_t n, uint64_t offset)>;

// The reader shared by files and in-memory bytes: `size` bytes readable through `read`.
std::pair<NamedTensors, Metadata> load_from(uint64_t size, const ReadFn& read,
                                            const std::string& where) {
  TANDEM_CHECK(size >= 8, ValueError, where, "file is ", size,
               " bytes, too short for the 8-byte header length (not a safetensors file)");
  unsigned char len[8];
  read(len, 8, 0);
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
  TANDEM_CHECK(n <= kMaxHeaderBytes, ValueError, where, "header length ", n, " is absurd (limit ",
               kMaxHeaderBytes, "; not a safetensors file or corrupt)");
  TANDEM_CHECK(n <= size - 8, ValueError, where, "header length ", n,
               " runs past the end of the file (", size, " bytes)");
  TANDEM_CHECK(n > 0, ValueError, where, "header is empty");
  std::string header(size_t(n), '\0');
  read(header.data(), n, 8);
  if (auto bad = json::find_invalid_utf8(header))
    throw_error<ValueError>(where, "header is not valid UTF-8 (bad byte at header offset ", *bad,
                            ")");
  TANDEM_CHECK(header[0] == '{', ValueError, where, "header must start with '{'");
  json::Value root;
  try {
    root = json::parse(header);
  } catch (const ValueError& e) {
    throw_error<ValueError>(where, "header is ", e.what());
  }
  TANDEM_CHECK(root.kind == json::Value::Kind::Object, ValueError, where,
               "header must be a JSON object");

  Metadata metadata;
  std::vector<Entry> entries;
  for (const auto& [name, v] : root.members) {
    if (name == "__metadata__")
      metadata = parse_metadata(v, where);
    else
      entries.push_back(parse_entry(name, v, where));
  }
  uint64_t data_start = 8 + n, data_size = size - data_start;
  check_layout(entries, data_size, where);

  NamedTensors out;
  out.reserve(entries.size());
  for (const auto& e : entries) {
    Tensor t = Tensor::empty(e.shape, e.dtype);
    uint64_t nbytes = e.end - e.begin;
    if (nbytes > 0) read(t.data_ptr(), nbytes, data_start + e.begin);
    if (e.dtype == DType::Bool) {
      // A byte other than 0/1 read as C++ bool is undefined behaviour; writers differ.
      auto* p = static_cast<unsigned char*>(t.data_ptr());
      for (uint64_t i = 0; i < nbytes; ++i) p[i] = p[i] != 0;
    }
    out.emplace_back(e.name, std::move(t));
  }
  return {std::move(out), std::move(metadata)};
}

}  // namespace

std::pair<NamedTensors, Metadata> load_safetensors(const std::string& path) {
  const char* op = "load_safetensors";
  check_path(op, path);
  std::string where = detail::cat(op, ": '", path, "': ");
  Fd fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (fd.fd < 0) sys_fail(op, "open", path);
  struct stat st;
  if (::fstat(fd.fd, &st) != 0) sys_fail(op, "stat", path);
  if (S_ISDIR(st.st_mode)) {
    errno = EISDIR;
    sys_fail(op, "read", path);
  }
  return load_from(
      uint64_t(st.st_size),
      [&](void* dst, uint64_t n, uint64_t offset) { pread_all(fd.fd, dst, n, offset, path); },
      where);
}

std::pair<NamedTensors, Metadata> load_safetensors_bytes(std::string_view bytes,
                                                         const std::string& name) {
  std::string where = detail::cat("load_safetensors: '", name, "': ");
  return load_from(
      bytes.size(),
      [&](void* dst, uint64_t n, uint64_t offset) {
        TANDEM_CHECK(offset <= bytes.size() && n <= bytes.size() - offset, ValueError, where,
                     "data ends early");
        std::memcpy(dst, bytes.data() + offset, size_t(n));
      },
      where);
}

}  // namespace tandem::io
