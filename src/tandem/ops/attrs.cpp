#include "tandem/ops/attrs.h"

#include <functional>
#include <sstream>

#include "tandem/core/error.h"

namespace tandem {

Attrs& Attrs::set(std::string key, AttrValue v) {
  for (auto& kv : items_)
    if (kv.first == key) {
      kv.second = std::move(v);
      return *this;
    }
  items_.emplace_back(std::move(key), std::move(v));
  return *this;
}

const AttrValue* Attrs::find(const std::string& key) const {
  for (auto& kv : items_)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

namespace {
template <typename T>
const T& typed(const Attrs& a, const AttrValue* v, const std::string& key) {
  if (!v) throw_error<Error>("internal: op attribute '", key, "' missing (have ", a.str(), ")");
  if (auto* p = std::get_if<T>(v)) return *p;
  throw_error<Error>("internal: op attribute '", key, "' has the wrong type");
}
}  // namespace

bool Attrs::get_bool(const std::string& key) const {
  return typed<bool>(*this, find(key), key);
}
int64_t Attrs::get_int(const std::string& key) const {
  return typed<int64_t>(*this, find(key), key);
}
double Attrs::get_float(const std::string& key) const {
  const AttrValue* v = find(key);
  if (v)
    if (auto* i = std::get_if<int64_t>(v)) return double(*i);
  return typed<double>(*this, v, key);
}
const std::vector<int64_t>& Attrs::get_ints(const std::string& key) const {
  return typed<std::vector<int64_t>>(*this, find(key), key);
}
const std::string& Attrs::get_str(const std::string& key) const {
  return typed<std::string>(*this, find(key), key);
}
bool Attrs::get_bool_or(const std::string& key, bool d) const {
  return has(key) ? get_bool(key) : d;
}
int64_t Attrs::get_int_or(const std::string& key, int64_t d) const {
  return has(key) ? get_int(key) : d;
}
double Attrs::get_float_or(const std::string& key, double d) const {
  return has(key) ? get_float(key) : d;
}

size_t Attrs::hash() const {
  size_t h = items_.size();
  auto mix = [&h](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (auto& [k, v] : items_) {
    mix(std::hash<std::string>()(k));
    mix(v.index());
    std::visit(
        [&](auto&& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
            for (int64_t e : x) mix(std::hash<int64_t>()(e));
          } else if constexpr (!std::is_same_v<X, std::monostate>) {
            mix(std::hash<X>()(x));
          }
        },
        v);
  }
  return h;
}

std::string Attrs::str() const {
  std::ostringstream os;
  bool first = true;
  for (auto& [k, v] : items_) {
    if (!first) os << ", ";
    first = false;
    os << k << "=";
    std::visit(
        [&](auto&& x) {
          using X = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<X, std::monostate>) {
            os << "None";
          } else if constexpr (std::is_same_v<X, std::vector<int64_t>>) {
            os << "[";
            for (size_t i = 0; i < x.size(); ++i) os << (i ? ", " : "") << x[i];
            os << "]";
          } else if constexpr (std::is_same_v<X, bool>) {
            os << (x ? "True" : "False");
          } else {
            os << x;
          }
        },
        v);
  }
  return os.str();
}

}  // namespace tandem
