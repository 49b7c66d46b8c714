// A small, strict JSON reader and string writer for file headers (safetensors). Strict means
// RFC 8259 only: no comments, trailing commas, NaN, lone surrogates or raw control characters,
// and (unlike the RFC's SHOULD) no duplicate keys in an object. Nesting is capped so a
// hostile file cannot exhaust the stack.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tandem::io::json {

struct Member;

struct Value {
  enum class Kind : uint8_t { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text;  // String: the decoded UTF-8; Number: the literal as written
  std::vector<Value> items;
  std::vector<Member> members;  // document order, keys unique

  // The value when it is an integer literal in [0, 2^64); nullopt otherwise.
  std::optional<uint64_t> as_uint() const;
  // The member named `key`, or nullptr.
  const Value* find(std::string_view key) const;
};

// An object member. (Not a std::pair: clang cannot instantiate one of the incomplete Value.)
struct Member {
  std::string key;
  Value value;
};

// "object", "string", ... for error messages.
const char* kind_name(Value::Kind k);

// Parses one complete document (whitespace around it allowed). Throws tandem::ValueError
// "malformed JSON at byte N: ...".
Value parse(std::string_view text);

// Appends `s` as a JSON string literal: quotes, escapes for '"', '\\' and control characters;
// other bytes pass through (the caller guarantees UTF-8).
void append_string(std::string& out, std::string_view s);

// Byte index of the first invalid UTF-8 sequence (overlong forms, surrogates and code points
// past U+10FFFF are invalid), or nullopt when `s` is valid.
std::optional<size_t> find_invalid_utf8(std::string_view s);

}  // namespace tandem::io::json
