// The error family every bad input raises. Python maps each class to the builtin
// exception of the same name, so users see ValueError / TypeError / IndexError.
#pragma once
#include <sstream>
#include <stdexcept>
#include <string>

namespace tandem {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
class ValueError : public Error {
 public:
  using Error::Error;
};
class TypeError : public Error {
 public:
  using Error::Error;
};
class IndexError : public Error {
 public:
  using Error::Error;
};
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

namespace detail {
template <typename... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace detail

// A warning (PyTorch's UserWarning): the Python bindings install a handler that issues it
// through Python's warnings module (which may turn it into an exception, thrown from warn);
// without a handler it goes to stderr.
using WarningHandler = void (*)(const std::string& message);
void set_warning_handler(WarningHandler handler);
void warn(const std::string& message);

// Throws E with the streamed arguments as message: throw_error<ValueError>("add: ", a, " != ", b).
template <typename E = Error, typename... Args>
[[noreturn]] void throw_error(const Args&... args) {
  throw E(detail::cat(args...));
}

}  // namespace tandem

// Checks a condition on user input; the message should name the op, the values and the fix.
#define TANDEM_CHECK(cond, E, ...)           \
  do {                                       \
    if (!(cond)) [[unlikely]]                \
      ::tandem::throw_error<E>(__VA_ARGS__); \
  } while (0)
