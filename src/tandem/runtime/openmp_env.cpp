#include "tandem/runtime/openmp_env.h"

#include <unistd.h>

#include <cstdlib>

namespace tandem::runtime {

void limit_openmp_spinning(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return;
  setenv("GOMP_SPINCOUNT", "20000", 1);
  execv("/proc/self/exe", argv);
}

}  // namespace tandem::runtime
