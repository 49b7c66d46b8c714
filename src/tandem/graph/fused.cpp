#include "tandem/graph/fused.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <sstream>

#include "tandem/core/error.h"
#include "tandem/ops/dispatch.h"

namespace tandem::graph {
namespace {

constexpr int64_t kSub = 512;  // elements per sub-tile: registers stay in L1

std::mutex programs_mu;
std::vector<std::unique_ptr<FusedProgram>>& programs() {
  static auto* p = new std::vector<std::unique_ptr<FusedProgram>>();
  return *p;
}

const FusedProgram& program_of(const Attrs& a) {
  std::lock_guard<std::mutex> g(programs_mu);
  int64_t id = a.get_int("program");
  TANDEM_CHECK(id >= 0 && id < int64_t(programs().size()), Error, "internal: fused program ", id,
               " does not exist");
  return *programs()[size_t(id)];
}

// The driver calls this on dense runs of n elements; it walks them in sub-tiles.
void run_program(int64_t n, void* out, const void* const* in, const double* params) {
  const FusedProgram& p = *reinterpret_cast<const FusedProgram*>(params);
  const int64_t isz = int64_t(itemsize(p.dtype));
  thread_local std::vector<char> scratch;
  size_t need = size_t(p.num_regs) * size_t(kSub) * size_t(isz);
  if (scratch.size() < need) scratch.resize(need);
  std::vector<const void*> regs(size_t(p.num_regs));
  for (const auto& [r, value] : p.consts) {  // a constant register: kSub copies of the value
    char* dst = scratch.data() + size_t(r) * kSub * size_t(isz);
    if (p.dtype == DType::Float64)
      std::fill_n(reinterpret_cast<double*>(dst), kSub, value);
    else
      std::fill_n(reinterpret_cast<float*>(dst), kSub, float(value));
    regs[size_t(r)] = dst;
  }
  const void* ins[3];
  for (int64_t s = 0; s < n; s += kSub) {
    int64_t m = std::min(kSub, n - s);
    for (int i = 0; i < p.num_inputs; ++i)
      regs[size_t(i)] = static_cast<const char*>(in[i]) + s * isz;
    for (size_t k = 0; k < p.instrs.size(); ++k) {
      const FusedInstr& ins_k = p.instrs[k];
      for (size_t j = 0; j < ins_k.in_regs.size(); ++j) ins[j] = regs[size_t(ins_k.in_regs[j])];
      void* dst = k + 1 == p.instrs.size()
                      ? static_cast<void*>(static_cast<char*>(out) + s * isz)
                      : static_cast<void*>(scratch.data() + size_t(ins_k.out_reg) * kSub * isz);
      ins_k.fn(m, dst, ins, ins_k.params);
      regs[size_t(ins_k.out_reg)] = dst;
    }
  }
}

std::vector<TensorMeta> fused_infer(const OpDef& op, const std::vector<Tensor>& in,
                                    const Attrs& a) {
  const FusedProgram& p = program_of(a);
  Shape s = in.empty() ? Shape{} : in[0].shape();
  for (size_t i = 1; i < in.size(); ++i)
    s = broadcast_shapes(s, in[i].shape(), "fused_elementwise");
  return {{s, p.dtype}};
}

void fused_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                  const Attrs& a) {
  const FusedProgram& p = program_of(a);
  EwCall call;
  call.fn = run_program;
  call.params = reinterpret_cast<const double*>(&p);
  call.out_dtype = p.dtype;
  for (size_t i = 0; i < in.size(); ++i) call.in_dtypes[i] = p.dtype;
  run_elementwise(call, out[0], in);
}

const OpDef fused_op = make_op("fused_elementwise", fused_infer, fused_kernel, true);
TANDEM_REGISTER_OP(fused_op)
TANDEM_NOT_DIFFERENTIABLE(fused_op)

}  // namespace

std::string FusedProgram::str() const {
  std::ostringstream os;
  os.precision(9);
  for (const auto& [r, value] : consts) os << "r" << r << "=" << value << "; ";
  for (size_t k = 0; k < instrs.size(); ++k) {
    const FusedInstr& i = instrs[k];
    os << (k ? "; " : "") << "r" << i.out_reg << "=" << i.op->name << "(";
    for (size_t j = 0; j < i.in_regs.size(); ++j) os << (j ? "," : "") << "r" << i.in_regs[j];
    os << ")";
  }
  return os.str();
}

int64_t register_program(FusedProgram p) {
  std::lock_guard<std::mutex> g(programs_mu);
  programs().push_back(std::make_unique<FusedProgram>(std::move(p)));
  return int64_t(programs().size()) - 1;
}

const OpDef& fused_elementwise_op() {
  return fused_op;
}

}  // namespace tandem::graph
