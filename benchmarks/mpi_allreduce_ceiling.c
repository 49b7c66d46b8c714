/* The ceiling of benchmarks/distributed.py: MPI_Allreduce (float32, sum, in place) called
 * directly from C on the job's MPI, timed like tandem's all_reduce: a repetition is
 * `iters` calls between a barrier and a clock read, its time the slowest rank's.
 *
 * Two builds of this one file:
 *   mpicc -O2 -o ceiling mpi_allreduce_ceiling.c         a program, its own mpirun job:
 *       mpirun -n 2 ./ceiling REPS BYTES...               rank 0 prints one JSON line per
 *       size, {"bytes": B, "iters": I, "s": median seconds per call} (MPI_Init, no threads)
 *   mpicc -O2 -shared -fPIC -DCEILING_LIBRARY -o libceiling.so mpi_allreduce_ceiling.c
 *       ceiling_rep(), called through ctypes by tandem's ranks (MPI already initialised by
 *       tandem) between tandem's own repetitions, so both see the same machine load. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Seconds per MPI_Allreduce of `count` floats, over `iters` calls after a barrier: the
 * slowest rank's time (every rank returns it). */
double ceiling_rep(float* buf, long count, long iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (long i = 0; i < iters; ++i)
    MPI_Allreduce(MPI_IN_PLACE, buf, (int)count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  double mine = (MPI_Wtime() - t) / (double)iters, slowest = 0.0;
  MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

#ifndef CEILING_LIBRARY
/* Calls per repetition: enough that a repetition of a small message lasts milliseconds
 * (above the clock's resolution and the barrier's cost); distributed.py uses the same. */
static long iters_for(long nbytes) {
  long n = (4L << 20) / nbytes;
  return n < 1 ? 1 : (n > 2000 ? 2000 : n);
}

static int cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int reps = argc < 3 ? 0 : atoi(argv[1]);
  if (reps < 1 || reps > 1000) {
    if (rank == 0) fprintf(stderr, "usage: %s REPS(1..1000) BYTES...\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double* times = malloc(sizeof(double) * (size_t)reps);
  for (int a = 2; a < argc; ++a) {
    long nbytes = atol(argv[a]);
    long count = nbytes / (long)sizeof(float);
    float* buf = malloc(sizeof(float) * (size_t)(count > 0 ? count : 1));
    if (buf == NULL || times == NULL || count < 1) MPI_Abort(MPI_COMM_WORLD, 3);
    for (long i = 0; i < count; ++i) buf[i] = 0.0f; /* touched; zeros stay finite */
    long iters = iters_for(nbytes);
    ceiling_rep(buf, count, iters < 2 ? 2 : iters); /* warm-up */
    for (int r = 0; r < reps; ++r) times[r] = ceiling_rep(buf, count, iters);
    qsort(times, (size_t)reps, sizeof(double), cmp_double);
    double med = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    if (rank == 0) {
      printf("{\"bytes\": %ld, \"iters\": %ld, \"s\": %.9g}\n", nbytes, iters, med);
      fflush(stdout);
    }
    free(buf);
  }
  free(times);
  MPI_Finalize();
  return 0;
}
#endif
