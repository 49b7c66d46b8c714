#include "tandem/io/path.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "tandem/core/error.h"

namespace tandem::io {

void check_path(const char* op, const std::string& path) {
  TANDEM_CHECK(!path.empty(), ValueError, op, ": empty file name");
  TANDEM_CHECK(path.find('\0') == std::string::npos, ValueError, op,
               ": embedded null byte in file name '", quote_path(path), "'");
}

std::string quote_path(const std::string& path) {
  std::string out;
  out.reserve(path.size());
  for (unsigned char c : path) {
    if (c >= 0x20 && c != 0x7f) {
      out += char(c);  // UTF-8 multi-byte sequences pass through
    } else {
      char buf[5];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

int remove_stale_temporaries(const std::string& path) {
  size_t slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return 0;
  int removed = 0;
  const pid_t self = ::getpid();
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    std::string digits = name.substr(prefix.size());
    if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    long pid = std::stol(digits);
    if (pid <= 0 || pid == long(self)) continue;
    // ESRCH: no such process. EPERM means it exists (another user's): leave its file.
    if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) continue;
    std::string full = dir == "/" ? "/" + name : dir + "/" + name;
    if (::unlink(full.c_str()) == 0) ++removed;
  }
  ::closedir(d);
  return removed;
}

}  // namespace tandem::io
