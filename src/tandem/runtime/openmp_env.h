// OpenMP spin-waiting for programs embedding the runtime.
#pragma once

namespace tandem::runtime {

// libgomp's default spin-wait between parallel regions (hundreds of thousands of spins)
// starves the other threads whenever a core is shared, which made 2-thread runs 10-50x
// slower on a loaded 2-core machine; tandem's Python package sets GOMP_SPINCOUNT=20000 when
// imported for the same reason. libgomp reads the variable when it loads, before main(), so
// call this first thing in main(): unless GOMP_SPINCOUNT or OMP_WAIT_POLICY is set, it sets
// GOMP_SPINCOUNT=20000 and re-executes the program (returning only if that fails).
void limit_openmp_spinning(char** argv);

}  // namespace tandem::runtime
