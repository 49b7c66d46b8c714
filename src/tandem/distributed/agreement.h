// Internal to src/tandem/distributed (MPI builds only): the agreement every collective starts
// with, fused with the data of a small all_reduce. Each collective first runs one
// MPI_Allreduce of a fixed-size record: a header (kind, element count, dtype, root, ...) that
// the ranks merge into per-field ranges, plus a payload of up to kSmallPayloadBytes that is
// reduced only when every header agrees. Because the record's size never varies, ranks that
// disagree (different sizes, dtypes, roots, or different collectives) always complete it and
// then all raise; a small all_reduce needs no second round trip.
#pragma once
#ifdef TANDEM_HAVE_MPI
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "tandem/distributed/process_group.h"

namespace tandem::distributed {

constexpr size_t kSmallPayloadBytes = 1024;
enum class Field { Kind, Numel, DType, Root, Op, ReduceType, Count };
constexpr int kFields = int(Field::Count);
// The payload's element type (the Op field holds the ReduceOp: Sum and Mean add, the
// division of Mean happens afterwards).
enum class PayloadType : int64_t { None, F32, F64, I32, I64 };

struct AgreementRecord {
  int64_t max[kFields];     // per-field maximum over ranks
  int64_t negmin[kFields];  // per-field maximum of the negated value (= -minimum)
  alignas(8) unsigned char payload[kSmallPayloadBytes];

  void set(Field f, int64_t v) { max[int(f)] = v, negmin[int(f)] = -v; }
  int64_t lo(Field f) const { return -negmin[int(f)]; }
  int64_t hi(Field f) const { return max[int(f)]; }
  bool uniform(Field f) const { return lo(f) == hi(f); }
  bool all_uniform() const;
};

// Runs the agreement (and the payload reduction when every rank agrees) in place on rec;
// returns the MPI error code.
int agree_and_reduce(AgreementRecord& rec, MPI_Comm comm);

}  // namespace tandem::distributed
#endif
