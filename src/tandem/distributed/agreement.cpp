// The fused agreement record's MPI datatype and reduction (see agreement.h).
#include "tandem/distributed/agreement.h"

#ifdef TANDEM_HAVE_MPI
#include <algorithm>
#include <mutex>

namespace tandem::distributed {

bool AgreementRecord::all_uniform() const {
  for (int f = 0; f < kFields; ++f)
    if (max[f] != -negmin[f]) return false;
  return true;
}

namespace {

template <typename T>
void combine(const void* in, void* inout, int64_t n, ReduceOp op) {
  const T* a = static_cast<const T*>(in);
  T* b = static_cast<T*>(inout);
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      for (int64_t i = 0; i < n; ++i) b[i] = a[i] + b[i];
      break;
    case ReduceOp::Max:
      for (int64_t i = 0; i < n; ++i) b[i] = std::max(a[i], b[i]);
      break;
    case ReduceOp::Min:
      for (int64_t i = 0; i < n; ++i) b[i] = std::min(a[i], b[i]);
      break;
  }
}

// MPI_User_function over whole records. The payload is combined only while both partial
// results still agree on every field; otherwise the header alone records the disagreement.
void merge_records(void* invec, void* inoutvec, int* len, MPI_Datatype*) {
  auto* in = static_cast<const AgreementRecord*>(invec);
  auto* inout = static_cast<AgreementRecord*>(inoutvec);
  for (int k = 0; k < *len; ++k) {
    const AgreementRecord& a = in[k];
    AgreementRecord& b = inout[k];
    bool same = a.all_uniform() && b.all_uniform();
    for (int f = 0; f < kFields && same; ++f) same = a.max[f] == b.max[f];
    for (int f = 0; f < kFields; ++f) {
      b.max[f] = std::max(a.max[f], b.max[f]);
      b.negmin[f] = std::max(a.negmin[f], b.negmin[f]);
    }
    if (!same) continue;
    const int64_t n = b.max[int(Field::Numel)];
    const auto op = ReduceOp(b.max[int(Field::Op)]);
    switch (PayloadType(b.max[int(Field::ReduceType)])) {
      case PayloadType::None:
        break;
      case PayloadType::F32:
        combine<float>(a.payload, b.payload, n, op);
        break;
      case PayloadType::F64:
        combine<double>(a.payload, b.payload, n, op);
        break;
      case PayloadType::I32:
        combine<int32_t>(a.payload, b.payload, n, op);
        break;
      case PayloadType::I64:
        combine<int64_t>(a.payload, b.payload, n, op);
        break;
    }
  }
}

MPI_Datatype g_type = MPI_DATATYPE_NULL;
MPI_Op g_op = MPI_OP_NULL;
std::once_flag g_once;

}  // namespace

int agree_and_reduce(AgreementRecord& rec, MPI_Comm comm) {
  int rc = MPI_SUCCESS;
  std::call_once(g_once, [&] {
    rc = MPI_Type_contiguous(int(sizeof(AgreementRecord)), MPI_BYTE, &g_type);
    if (rc == MPI_SUCCESS) rc = MPI_Type_commit(&g_type);
    if (rc == MPI_SUCCESS) rc = MPI_Op_create(&merge_records, 1, &g_op);
  });
  if (rc != MPI_SUCCESS) return rc;
  if (g_type == MPI_DATATYPE_NULL || g_op == MPI_OP_NULL) return MPI_ERR_INTERN;
  // Only the used part of the payload needs to be defined; the rest travels as is.
  return MPI_Allreduce(MPI_IN_PLACE, &rec, 1, g_type, g_op, comm);
}

}  // namespace tandem::distributed
#endif
