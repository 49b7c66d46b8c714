// The safetensors reader/writer and the JSON parser beneath it: round trips, the byte layout,
// and that every malformed file is a ValueError (never a crash or an out-of-bounds read).
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tandem/io/json.h"
#include "tandem/io/safetensors.h"
#include "test_util.h"

namespace tandem {
namespace {

namespace fs = std::filesystem;
namespace json = io::json;
using io::load_safetensors;
using io::save_safetensors;

class SafetensorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tandem_st_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static std::string read_bytes(const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  }
  static void write_bytes(const std::string& p, const std::string& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
  }
  // A file with the given JSON header (unpadded) followed by `data`.
  std::string craft(const std::string& header, const std::string& data = "",
                    const std::string& name = "bad.safetensors") const {
    std::string out(8, '\0');
    uint64_t n = header.size();
    for (int i = 0; i < 8; ++i) out[i] = char((n >> (8 * i)) & 0xff);
    write_bytes(path(name), out + header + data);
    return path(name);
  }
  // Expects load_safetensors(p) to throw ValueError mentioning both the file and `fragment`.
  static void expect_bad(const std::string& p, const std::string& fragment) {
    try {
      load_safetensors(p);
      ADD_FAILURE() << "no error for " << fragment;
    } catch (const ValueError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
      EXPECT_NE(msg.find(p), std::string::npos) << msg;
    }
  }

  fs::path dir_;
};

template <typename T>
Tensor filled(const Shape& shape, T start) {
  Tensor t = Tensor::empty(shape, dtype_of<T>::value);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<T>()[i] = T(start + T(i));
  return t;
}

TEST_F(SafetensorsTest, RoundTripsEveryDtypeAndMetadata) {
  Tensor h = Tensor::empty({3}, DType::Float16), bf = Tensor::empty({2, 2}, DType::BFloat16);
  for (int i = 0; i < 3; ++i) h.data<Half>()[i].bits = float_to_half(0.5f * float(i) - 1.f);
  for (int i = 0; i < 4; ++i) bf.data<BFloat16>()[i].bits = float_to_bf16(float(i) * 3.25f);
  io::NamedTensors in = {{"f64", filled<double>({2, 3}, 0.25)},
                         {"b", testing::from_bools({1, 0, 1}, {3})},
                         {"f32", filled<float>({4}, -1.5f)},
                         {"f16", h},
                         {"bf16", bf},
                         {"i64", filled<int64_t>({2}, int64_t(1) << 40)},
                         {"i32", filled<int32_t>({1, 1, 2}, -7)},
                         {"i16", filled<int16_t>({5}, -300)},
                         {"i8", filled<int8_t>({3}, -128)},
                         {"u8", filled<uint8_t>({3}, 250)},
                         {"scalar", filled<float>({}, 42.f)},
                         {"empty", filled<float>({0, 3}, 0.f)}};
  io::Metadata md = {{"quote\"back\\slash", "tab\there\nnewline \x01 é ☃ 😀"}, {"", ""}};
  save_safetensors(path("a.safetensors"), in, md);
  auto [out, md2] = load_safetensors(path("a.safetensors"));
  EXPECT_EQ(md2, md);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE(in[i].first);
    EXPECT_EQ(out[i].first, in[i].first);  // header order is the caller's order
    EXPECT_EQ(out[i].second.dtype(), in[i].second.dtype());
    EXPECT_EQ(out[i].second.shape(), in[i].second.shape());
    size_t n = size_t(in[i].second.numel()) * in[i].second.itemsize();
    if (n) {
      EXPECT_EQ(std::memcmp(out[i].second.data_ptr(), in[i].second.data_ptr(), n), 0);
    }
  }
  EXPECT_FALSE(fs::exists(path("a.safetensors") + ".tmp." + std::to_string(::getpid())));
}

TEST_F(SafetensorsTest, LayoutIsPaddedAlignedAndDense) {
  io::NamedTensors in = {{"u8", filled<uint8_t>({3}, 0)},
                         {"f64", filled<double>({2}, 1.0)},
                         {"i16", filled<int16_t>({3}, 5)},
                         {"f32", filled<float>({1}, 2.f)}};
  save_safetensors(path("l.safetensors"), in);
  std::string bytes = read_bytes(path("l.safetensors"));
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | uint8_t(bytes[size_t(i)]);
  EXPECT_EQ(n % 8, 0u);
  EXPECT_EQ(bytes.size(), 8 + n + 3 + 16 + 6 + 4);
  json::Value root = json::parse(bytes.substr(8, n));
  EXPECT_EQ(root.find("__metadata__"), nullptr);  // omitted when empty
  for (const auto& [name, t] : in) {
    const json::Value* e = root.find(name);
    ASSERT_NE(e, nullptr) << name;
    uint64_t begin = *e->find("data_offsets")->items[0].as_uint();
    EXPECT_EQ(begin % t.itemsize(), 0u) << name;
    EXPECT_EQ(std::memcmp(bytes.data() + 8 + n + begin, t.data_ptr(), t.numel() * t.itemsize()), 0)
        << name;
  }
}

TEST_F(SafetensorsTest, WritesNonContiguousTensorsDensely) {
  Tensor base = filled<int32_t>({2, 3}, 0);
  Tensor tr = Tensor::make_view(base, {3, 2}, {1, 3}, 0);  // transpose
  save_safetensors(path("t.safetensors"), {{"t", tr}});
  Tensor back = load_safetensors(path("t.safetensors")).first[0].second;
  std::vector<int32_t> expect = {0, 3, 1, 4, 2, 5};
  ASSERT_EQ(back.shape(), (Shape{3, 2}));
  for (int i = 0; i < 6; ++i) EXPECT_EQ(back.data<int32_t>()[i], expect[size_t(i)]);
}

TEST_F(SafetensorsTest, OverwritesAtomicallyAndRejectsBadArguments) {
  save_safetensors(path("c.safetensors"), {{"x", filled<float>({2}, 1.f)}});
  save_safetensors(path("c.safetensors"), {{"y", filled<float>({3}, 1.f)}});
  EXPECT_EQ(load_safetensors(path("c.safetensors")).first[0].first, "y");
  Tensor t = filled<float>({1}, 0.f);
  EXPECT_THROW(save_safetensors(path("d.safetensors"), {{"a", t}, {"a", t}}), ValueError);
  EXPECT_THROW(save_safetensors(path("d.safetensors"), {{"__metadata__", t}}), ValueError);
  EXPECT_THROW(save_safetensors(path("d.safetensors"), {{"a", Tensor()}}), ValueError);
  EXPECT_THROW(save_safetensors(path("d.safetensors"), {{"\xff", t}}), ValueError);
  EXPECT_FALSE(fs::exists(path("d.safetensors")));
  try {
    save_safetensors(path("missing/dir/e.safetensors"), {{"a", t}});
    ADD_FAILURE() << "no error";
  } catch (const io::IoError& e) {
    EXPECT_EQ(e.error_code(), ENOENT);
  }
  try {
    load_safetensors(path("nope.safetensors"));
    ADD_FAILURE() << "no error";
  } catch (const io::IoError& e) {
    EXPECT_EQ(e.error_code(), ENOENT);
    EXPECT_EQ(e.filename(), path("nope.safetensors"));
  }
  // Only the final files remain: no temporary left behind by the failed saves.
  int files = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) files += entry.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(SafetensorsTest, RejectsTruncatedAndAbsurdHeaders) {
  write_bytes(path("short"), "abc");
  expect_bad(path("short"), "too short");
  std::string len(8, '\0');
  len[0] = char(0xff), len[1] = char(0xff), len[2] = char(0xff), len[3] = char(0x7f);
  write_bytes(path("absurd"), len + "{}");
  expect_bad(path("absurd"), "absurd");
  len.assign(8, '\0');
  len[0] = 100;
  write_bytes(path("past"), len + "{}");
  expect_bad(path("past"), "past the end of the file");
  expect_bad(craft(""), "empty");
  expect_bad(craft("{\"a\":\xc3(}"), "UTF-8");
  expect_bad(craft("{\"a\":1,}"), "malformed JSON");
  expect_bad(craft("[1, 2]"), "must start with '{'");
  expect_bad(craft("{} x"), "malformed JSON");
}

TEST_F(SafetensorsTest, RejectsBadEntries) {
  expect_bad(craft(R"({"a":{"dtype":"U16","shape":[1],"data_offsets":[0,2]}})", "xx"),
             "unknown or unsupported dtype \"U16\"");
  expect_bad(craft(R"({"a":{"shape":[1],"data_offsets":[0,4]}})", "xxxx"), "no \"dtype\"");
  expect_bad(craft(R"({"a":{"dtype":"F32","data_offsets":[0,4]}})", "xxxx"), "no \"shape\"");
  expect_bad(craft(R"({"a":{"dtype":"F32","shape":[1]}})", "xxxx"), "no \"data_offsets\"");
  expect_bad(craft(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":1}})", "xxxx"),
             "unknown field");
  expect_bad(craft(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", "xxxx"),
             "non-negative integer");
  expect_bad(craft(R"({"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}})", "xxxx"),
             "non-negative integer");
  expect_bad(craft(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", "xxxx"),
             "needs 8 bytes");
  expect_bad(craft(R"({"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}})",
                   std::string(8, 'x')),
             "more than 2^64");
  expect_bad(craft(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", "xxxx"),
             "begin after end");
  expect_bad(craft(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},
                       "a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                   "xxxx"),
             "duplicate key \"a\"");
  expect_bad(craft(R"({"__metadata__":{"k":1}})"), "must be a string");
  expect_bad(craft(R"({"__metadata__":[]})"), "must be a JSON object");
  expect_bad(craft(R"({"a":[]})"), "must be a JSON object");
}

TEST_F(SafetensorsTest, RejectsOffsetsThatDoNotTileTheData) {
  const char* two = R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]},)"
                    R"("b":{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]}})";
  auto hdr = [&](int a0, int a1, int b0, int b1) {
    char buf[256];
    std::snprintf(buf, sizeof(buf), two, a0, a1, b0, b1);
    return std::string(buf);
  };
  expect_bad(craft(hdr(0, 4, 2, 6), std::string(8, 'x')), "overlaps");
  expect_bad(craft(hdr(0, 4, 0, 4), std::string(4, 'x')), "overlaps");
  expect_bad(craft(hdr(0, 4, 6, 10), std::string(10, 'x')), "belong to no tensor");
  expect_bad(craft(hdr(0, 4, 4, 8), std::string(9, 'x')), "trailing bytes");
  expect_bad(craft(hdr(0, 4, 4, 8), std::string(7, 'x')), "past the end of the data region");
  expect_bad(craft(hdr(4, 8, 8, 12), std::string(12, 'x')), "belong to no tensor");
  // Out-of-order offsets and empty tensors on a boundary are fine.
  std::string ok = R"({"z":{"dtype":"U8","shape":[0],"data_offsets":[2,2]},)"
                   R"("b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]},)"
                   R"("a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})";
  auto [t, md] = load_safetensors(craft(ok, "\x01\x02\x03\x04"));
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[1].first, "b");
  EXPECT_EQ(t[1].second.data<uint8_t>()[0], 3);
  EXPECT_EQ(t[0].second.numel(), 0);
}

TEST_F(SafetensorsTest, NormalisesBoolBytes) {
  auto [t, md] =
      load_safetensors(craft(R"({"b":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})",
                             std::string("\x00\x02\xff", 3)));
  const auto* p = static_cast<const uint8_t*>(t[0].second.data_ptr());
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
}

// Random byte edits of a valid file load or raise ValueError; under the sanitizer build this
// also checks that no edit makes the reader touch memory it should not.
TEST_F(SafetensorsTest, MutatedFilesLoadOrRaise) {
  save_safetensors(path("g.safetensors"),
                   {{"w", filled<float>({3, 4}, 0.f)},
                    {"i", filled<int64_t>({2}, 0)},
                    {"b", testing::from_bools({1, 0}, {2})}},
                   {{"k", "v"}});
  const std::string good = read_bytes(path("g.safetensors"));
  std::mt19937 rng(7);
  int ok = 0, bad = 0;
  for (int it = 0; it < 400; ++it) {
    std::string b = good;
    int edits = 1 + int(rng() % 3);
    for (int k = 0; k < edits; ++k) b[rng() % b.size()] = char(rng() % 256);
    if (it % 5 == 0) b.resize(rng() % b.size());
    write_bytes(path("m.safetensors"), b);
    try {
      load_safetensors(path("m.safetensors"));
      ++ok;
    } catch (const ValueError&) {
      ++bad;
    }
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(bad, 0);
}

TEST(Json, ParsesEscapesNumbersAndNesting) {
  json::Value v = json::parse(
      " {\"s\": \"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\", \"n\": [0, -1.5e+3, "
      "18446744073709551615, 18446744073709551616],"
      " \"t\": true, \"f\": false, \"z\": null, \"o\": {}} ");
  EXPECT_EQ(v.find("s")->text, "a\"b\\c/d\b\f\n\r\t\xc3\xa9\xf0\x9f\x98\x80");
  const auto& n = v.find("n")->items;
  EXPECT_EQ(*n[0].as_uint(), 0u);
  EXPECT_FALSE(n[1].as_uint());
  EXPECT_EQ(n[1].text, "-1.5e+3");
  EXPECT_EQ(*n[2].as_uint(), UINT64_MAX);
  EXPECT_FALSE(n[3].as_uint());  // overflow
  EXPECT_TRUE(v.find("t")->boolean);
  EXPECT_EQ(v.find("z")->kind, json::Value::Kind::Null);
  EXPECT_EQ(v.find("o")->kind, json::Value::Kind::Object);
  std::string out;
  json::append_string(out, "q\"\\\n\x01\x1f\xc3\xa9");
  EXPECT_EQ(out, "\"q\\\"\\\\\\n\\u0001\\u001f\xc3\xa9\"");
  EXPECT_EQ(json::parse(out).text, "q\"\\\n\x01\x1f\xc3\xa9");
}

TEST(Json, RejectsMalformedInput) {
  const char* bad[] = {"",
                       "{",
                       "{\"a\"}",
                       "{\"a\":1,}",
                       "[1,]",
                       "[01]",
                       "[1.]",
                       "[.5]",
                       "[1e]",
                       "[-]",
                       "[+1]",
                       "[NaN]",
                       "[tru]",
                       "\"\\x\"",
                       "\"\\u12\"",
                       "\"\\ud800\"",
                       "\"\\udc00\"",
                       "\"\\ud800\\u0041\"",
                       "\"a\nb\"",
                       "\"abc",
                       "{'a':1}",
                       "[1] [2]",
                       "{\"a\":1 \"b\":2}",
                       "/*c*/{}",
                       "{\"a\":1,\"a\":2}"};
  for (const char* s : bad) EXPECT_THROW(json::parse(s), ValueError) << s;
  EXPECT_THROW(json::parse(std::string(100000, '[')), ValueError);  // depth cap, no overflow
  EXPECT_NO_THROW(json::parse(std::string(100, '[') + std::string(100, ']')));
}

TEST(Json, ValidatesUtf8) {
  EXPECT_FALSE(json::find_invalid_utf8("plain \xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80"));
  EXPECT_EQ(json::find_invalid_utf8("ab\x80"), 2u);            // stray continuation
  EXPECT_EQ(json::find_invalid_utf8("\xc0\xaf"), 0u);          // overlong '/'
  EXPECT_EQ(json::find_invalid_utf8("\xed\xa0\x80"), 0u);      // UTF-16 surrogate
  EXPECT_EQ(json::find_invalid_utf8("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(json::find_invalid_utf8("x\xe2\x98"), 1u);         // truncated
  EXPECT_EQ(json::find_invalid_utf8("\xff"), 0u);
}

}  // namespace
}  // namespace tandem
