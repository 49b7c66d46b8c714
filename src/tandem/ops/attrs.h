// Named attributes of an op call (alpha, dim, keepdim, ...). Kept as data, not as C++
// members, so graphs can print, hash, compare (CSE) and serialize any node.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "tandem/core/dtype.h"

namespace tandem {

using AttrValue =
    std::variant<std::monostate, bool, int64_t, double, std::vector<int64_t>, std::string>;

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items) : items_(items) {}

  Attrs& set(std::string key, AttrValue v);
  bool has(const std::string& key) const { return find(key) != nullptr; }
  bool empty() const { return items_.empty(); }
  // Typed getters throw when the key is missing; the _or forms take a default.
  bool get_bool(const std::string& key) const;
  int64_t get_int(const std::string& key) const;
  double get_float(const std::string& key) const;  // accepts an int value too
  const std::vector<int64_t>& get_ints(const std::string& key) const;
  const std::string& get_str(const std::string& key) const;
  bool get_bool_or(const std::string& key, bool d) const;
  int64_t get_int_or(const std::string& key, int64_t d) const;
  double get_float_or(const std::string& key, double d) const;
  DType get_dtype(const std::string& key) const { return DType(get_int(key)); }

  const std::vector<std::pair<std::string, AttrValue>>& items() const { return items_; }
  size_t hash() const;
  bool operator==(const Attrs& o) const { return items_ == o.items_; }
  // "alpha=2, dim=[0, 1]" for graph dumps and error messages.
  std::string str() const;

 private:
  const AttrValue* find(const std::string& key) const;
  std::vector<std::pair<std::string, AttrValue>> items_;
};

}  // namespace tandem
