#include "tandem/io/json.h"

#include <unordered_set>

#include "tandem/core/error.h"

namespace tandem::io::json {
namespace {

constexpr int kMaxDepth = 128;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Value document() {
    skip_ws();
    Value v = value(0);
    skip_ws();
    if (pos_ != s_.size()) fail("unexpected '", printable(s_[pos_]), "' after the document");
    return v;
  }

 private:
  std::string_view s_;
  size_t pos_ = 0;

  template <typename... Args>
  [[noreturn]] void fail(const Args&... args) const {
    throw_error<ValueError>("malformed JSON at byte ", pos_, ": ", args...);
  }
  static std::string printable(char c) {
    auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    static const char* hex = "0123456789abcdef";
    return std::string("\\x") + hex[u >> 4] + hex[u & 15];
  }

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return s_[pos_]; }
  void skip_ws() {
    while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r'))
      ++pos_;
  }
  void expect(char c, const char* where) {
    if (at_end()) fail("unexpected end of input, expected '", c, "' ", where);
    if (peek() != c) fail("expected '", c, "' ", where, ", found '", printable(peek()), "'");
    ++pos_;
  }

  Value value(int depth) {
    if (at_end()) fail("unexpected end of input, expected a value");
    switch (peek()) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"': {
        Value v;
        v.kind = Value::Kind::String;
        v.text = string();
        return v;
      }
      case 't':
        return literal("true", Value::Kind::Bool, true);
      case 'f':
        return literal("false", Value::Kind::Bool, false);
      case 'n':
        return literal("null", Value::Kind::Null, false);
      default:
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return number();
        fail("unexpected '", printable(peek()), "', expected a value");
    }
  }

  Value literal(std::string_view word, Value::Kind kind, bool b) {
    if (s_.substr(pos_, word.size()) != word) fail("invalid literal, expected '", word, "'");
    pos_ += word.size();
    Value v;
    v.kind = kind;
    v.boolean = b;
    return v;
  }

  Value number() {
    size_t start = pos_;
    auto digit = [&] { return !at_end() && peek() >= '0' && peek() <= '9'; };
    if (peek() == '-') ++pos_;
    if (!digit()) fail("expected a digit in number");
    if (peek() == '0') {
      ++pos_;
      if (digit()) fail("leading zeros are not allowed in numbers");
    } else {
      while (digit()) ++pos_;
    }
    if (!at_end() && peek() == '.') {
      ++pos_;
      if (!digit()) fail("expected a digit after the decimal point");
      while (digit()) ++pos_;
    }
    if (!at_end() && (peek() == 'e' || peek() == 'E')) {
      ++pos_;
      if (!at_end() && (peek() == '+' || peek() == '-')) ++pos_;
      if (!digit()) fail("expected a digit in the exponent");
      while (digit()) ++pos_;
    }
    Value v;
    v.kind = Value::Kind::Number;
    v.text = std::string(s_.substr(start, pos_ - start));
    return v;
  }

  unsigned hex4() {
    if (s_.size() - pos_ < 4) fail("truncated \\u escape");
    unsigned u = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      u <<= 4;
      if (c >= '0' && c <= '9')
        u |= unsigned(c - '0');
      else if (c >= 'a' && c <= 'f')
        u |= unsigned(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        u |= unsigned(c - 'A' + 10);
      else
        fail("invalid hex digit '", printable(c), "' in \\u escape");
    }
    return u;
  }

  static void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
      out += char(cp);
    } else if (cp < 0x800) {
      out += char(0xC0 | (cp >> 6));
      out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += char(0xE0 | (cp >> 12));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    } else {
      out += char(0xF0 | (cp >> 18));
      out += char(0x80 | ((cp >> 12) & 0x3F));
      out += char(0x80 | ((cp >> 6) & 0x3F));
      out += char(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    expect('"', "to open a string");
    std::string out;
    while (true) {
      if (at_end()) fail("unterminated string");
      char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20)
        fail("raw control character ", printable(c), " in string (must be escaped)");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (at_end()) fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          uint32_t cp = hex4();
          if (cp >= 0xDC00 && cp <= 0xDFFF) fail("lone low surrogate \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (s_.substr(pos_, 2) != "\\u") fail("high surrogate not followed by a low one");
            pos_ += 2;
            uint32_t lo = hex4();
            if (lo < 0xDC00 || lo > 0xDFFF) fail("high surrogate not followed by a low one");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          --pos_;
          fail("invalid escape '\\", printable(e), "'");
      }
    }
  }

  Value array(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than ", kMaxDepth);
    expect('[', "to open an array");
    Value v;
    v.kind = Value::Kind::Array;
    skip_ws();
    if (!at_end() && peek() == ']') {
      ++pos_;
      return v;
    }
    while (true) {
      skip_ws();
      v.items.push_back(value(depth));
      skip_ws();
      if (!at_end() && peek() == ',') {
        ++pos_;
        continue;
      }
      expect(']', "or ',' in array");
      return v;
    }
  }

  Value object(int depth) {
    if (depth > kMaxDepth) fail("nesting deeper than ", kMaxDepth);
    expect('{', "to open an object");
    Value v;
    v.kind = Value::Kind::Object;
    std::unordered_set<std::string> seen;
    skip_ws();
    if (!at_end() && peek() == '}') {
      ++pos_;
      return v;
    }
    while (true) {
      skip_ws();
      size_t key_pos = pos_;
      if (at_end() || peek() != '"') fail("expected a string key in object");
      std::string key = string();
      if (!seen.insert(key).second) {
        pos_ = key_pos;
        fail("duplicate key \"", key, "\" in object");
      }
      skip_ws();
      expect(':', "after object key");
      skip_ws();
      v.members.push_back(Member{std::move(key), value(depth)});
      skip_ws();
      if (!at_end() && peek() == ',') {
        ++pos_;
        continue;
      }
      expect('}', "or ',' in object");
      return v;
    }
  }
};

}  // namespace

std::optional<uint64_t> Value::as_uint() const {
  if (kind != Kind::Number || text.empty()) return std::nullopt;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;  // sign, fraction or exponent
    if (__builtin_mul_overflow(v, uint64_t(10), &v) ||
        __builtin_add_overflow(v, uint64_t(c - '0'), &v))
      return std::nullopt;
  }
  return v;
}

const Value* Value::find(std::string_view key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

const char* kind_name(Value::Kind k) {
  switch (k) {
    case Value::Kind::Null:
      return "null";
    case Value::Kind::Bool:
      return "boolean";
    case Value::Kind::Number:
      return "number";
    case Value::Kind::String:
      return "string";
    case Value::Kind::Array:
      return "array";
    case Value::Kind::Object:
      return "object";
  }
  return "?";
}

Value parse(std::string_view text) {
  return Parser(text).document();
}

void append_string(std::string& out, std::string_view s) {
  static const char* hex = "0123456789abcdef";
  out += '"';
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out += hex[u >> 4];
          out += hex[u & 15];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::optional<size_t> find_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp, min;
    if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07, min = 0x10000;
    } else {
      return i;  // continuation byte without a lead, or 0xF8..0xFF
    }
    if (n - i < len) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::nullopt;
}

}  // namespace tandem::io::json
