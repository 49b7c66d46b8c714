#include "tandem/graph/fused.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>

#include "tandem/core/error.h"
#include "tandem/core/threads.h"
#include "tandem/graph/fused_jit.h"
#include "tandem/kernels/cpu/elementwise.h"
#include "tandem/ops/dispatch.h"

namespace tandem::graph {
namespace {

constexpr int64_t kSub = 512;  // elements per sub-tile: registers stay in L1
// Bytes between registers: a sub-tile plus 3 cache lines, so that registers are not 4 KiB
// apart (loads from one and stores to another at the same 4 KiB offset falsely depend on
// each other in the load/store unit, which measured 2x slower).
constexpr int64_t reg_stride(int64_t isz) {
  return kSub * isz + 192;
}

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

// Runs the program on n dense elements, walking them in sub-tiles.
void run_program_into(int64_t n, void* const* outs, const void* const* in, const FusedProgram& p) {
  const int64_t isz = int64_t(itemsize(p.dtype));
  thread_local std::vector<char> scratch;
  const int64_t rs = reg_stride(isz);
  size_t need = size_t(p.num_regs) * size_t(rs) + 64;
  if (scratch.size() < need) scratch.resize(need);
  // Sub-tiles start on cache lines: a 64-byte vector store that straddles two lines costs
  // two stores.
  char* base =
      reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(scratch.data()) + 63) & ~uintptr_t(63));
  std::vector<const void*> regs(size_t(p.num_regs));
  for (const auto& [r, value] : p.consts) {  // a constant register: kSub copies of the value
    char* dst = base + size_t(r) * size_t(rs);
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
    for (const FusedInstr& ins_k : p.instrs) {
      for (size_t j = 0; j < ins_k.in_regs.size(); ++j) ins[j] = regs[size_t(ins_k.in_regs[j])];
      void* dst = ins_k.out_slot >= 0
                      ? static_cast<void*>(static_cast<char*>(outs[ins_k.out_slot]) + s * isz)
                      : static_cast<void*>(base + size_t(ins_k.out_reg) * size_t(rs));
      ins_k.fn(m, dst, ins, ins_k.params);
      regs[size_t(ins_k.out_reg)] = dst;
    }
  }
}

// The driver's array function: params is the program; out is one pointer or an array.
void run_program(int64_t n, void* out, const void* const* in, const double* params) {
  const FusedProgram& p = *reinterpret_cast<const FusedProgram*>(params);
  if (p.out_regs.size() == 1)
    run_program_into(n, &out, in, p);
  else
    run_program_into(n, static_cast<void* const*>(out), in, p);
}

std::vector<TensorMeta> fused_infer(const OpDef& op, const std::vector<Tensor>& in,
                                    const Attrs& a) {
  const FusedProgram& p = program_of(a);
  Shape s = in.empty() ? Shape{} : in[0].shape();
  for (size_t i = 1; i < in.size(); ++i)
    s = broadcast_shapes(s, in[i].shape(), "fused_elementwise");
  std::vector<TensorMeta> out(p.out_regs.size(), TensorMeta{s, p.dtype});
  for (size_t k = 0; k < p.out_dtypes.size() && k < out.size(); ++k) out[k].dtype = p.out_dtypes[k];
  return out;
}

// A cast instruction's array function: params[0] is the target dtype.
void cast_array(int64_t n, void* out, const void* const* in, const double* params) {
  const float* a = static_cast<const float*>(in[0]);
  float* o = static_cast<float*>(out);
  switch (DType(int(params[0]))) {
    case DType::BFloat16:
      for (int64_t i = 0; i < n; ++i) o[i] = bf16_to_float(float_to_bf16(a[i]));
      break;
    case DType::Float16:
      for (int64_t i = 0; i < n; ++i) o[i] = half_to_float(float_to_half(a[i]));
      break;
    default:
      for (int64_t i = 0; i < n; ++i) o[i] = a[i];
  }
}

void fused_kernel(const OpDef&, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                  const Attrs& a) {
  const FusedProgram& p = program_of(a);
  EwCall call;
  call.fn = p.native && fused_codegen_enabled() ? p.native : run_program;
  call.params = reinterpret_cast<const double*>(&p);
  call.out_dtype = p.dtype;
  call.num_outputs = int(out.size());
  for (size_t i = 0; i < in.size(); ++i) call.in_dtypes[i] = p.dtype;
  run_elementwise(call, out, in);
}

const OpDef fused_op = make_op("fused_elementwise", fused_infer, fused_kernel, true);
TANDEM_REGISTER_OP(fused_op)
TANDEM_NOT_DIFFERENTIABLE(fused_op)

std::vector<TensorMeta> fused_sum_infer(const OpDef& op, const std::vector<Tensor>& in,
                                        const Attrs& a) {
  return {{{}, fused_infer(op, in, a)[0].dtype}};
}

template <typename T>
double sum_chunk(const T* p, int64_t m) {
  double s = 0;
  for (int64_t i = 0; i < m; ++i) s += double(p[i]);
  return s;
}

void fused_sum_kernel(const OpDef& op, const std::vector<Tensor>& in, std::vector<Tensor>& out,
                      const Attrs& a) {
  const FusedProgram& p = program_of(a);
  TANDEM_CHECK(p.out_regs.size() == 1, Error, "internal: fused_sum of a multi-output program");
  const double scale = a.get_float("scale");
  const Shape shape = fused_infer(op, in, a)[0].shape;
  const int64_t n = numel_of(shape), isz = int64_t(itemsize(p.dtype));
  bool dense = true;  // every input contiguous, of the full shape or a single element
  for (const Tensor& t : in)
    dense &= t.dtype() == p.dtype && t.is_contiguous() && (t.numel() == n || t.numel() == 1);
  double total = 0;
  if (!dense) {  // materialize, then sum (the rare broadcast / strided case)
    std::vector<Tensor> tmp{Tensor::empty(shape, p.dtype)};
    fused_kernel(op, in, tmp, a);
    const Tensor d = tmp[0];
    total =
        p.dtype == DType::Float64 ? sum_chunk(d.data<double>(), n) : sum_chunk(d.data<float>(), n);
  } else {
    constexpr int64_t kChunk = 8 * kSub;
    const ArrayFn fn = p.native && fused_codegen_enabled() ? p.native : run_program;
    const int64_t chunks = (n + kChunk - 1) / kChunk;
    const int nt = parallel_threads(n);
    // Per-chunk sums added in chunk order: the result does not depend on the thread count
    // (which threads.h may lower under load between an eager and a compiled run).
    std::vector<double> partial(size_t(chunks), 0.0);
    parallel_region(nt, [&] {
      // Per thread: the chunk's result and a kChunk-long copy of each single-element input.
      std::vector<char> buf(size_t(kChunk * isz));
      std::vector<std::vector<char>> filled(in.size());
      for (size_t i = 0; i < in.size(); ++i)
        if (in[i].numel() == 1 && n > 1) {
          filled[i].resize(size_t(kChunk * isz));
          for (int64_t k = 0; k < kChunk; ++k)
            std::memcpy(filled[i].data() + k * isz, in[i].data_ptr(), size_t(isz));
        }
      std::vector<const void*> ptr(in.size());
#pragma omp for schedule(static)
      for (int64_t c = 0; c < chunks; ++c) {
        const int64_t s = c * kChunk, m = std::min(kChunk, n - s);
        for (size_t i = 0; i < in.size(); ++i)
          ptr[i] = filled[i].empty() ? static_cast<const char*>(in[i].data_ptr()) +
                                           (in[i].numel() == 1 ? 0 : s * isz)
                                     : filled[i].data();
        (fn)(m, buf.data(), ptr.data(), reinterpret_cast<const double*>(&p));
        partial[size_t(c)] = p.dtype == DType::Float64
                                 ? sum_chunk(reinterpret_cast<double*>(buf.data()), m)
                                 : sum_chunk(reinterpret_cast<float*>(buf.data()), m);
      }
    });
    for (double v : partial) total += v;
  }
  double r = total * scale;
  if (p.dtype == DType::Float64)
    *out[0].data<double>() = r;
  else
    *out[0].data<float>() = float(r);
}

const OpDef fused_sum = make_op("fused_sum", fused_sum_infer, fused_sum_kernel, true);
TANDEM_REGISTER_OP(fused_sum)
TANDEM_NOT_DIFFERENTIABLE(fused_sum)

}  // namespace

FusedInstr cast_instr(DType to, int in_reg, int out_reg) {
  static const OpDef* cast = find_op("cast");
  FusedInstr i;
  i.op = cast;
  i.fn = cast_array;
  i.params[0] = double(int(to));
  i.in_regs = {in_reg};
  i.out_reg = out_reg;
  return i;
}

std::string FusedProgram::str() const {
  std::ostringstream os;
  os.precision(9);
  for (const auto& [r, value] : consts) os << "r" << r << "=" << value << "; ";
  for (size_t k = 0; k < instrs.size(); ++k) {
    const FusedInstr& i = instrs[k];
    os << (k ? "; " : "") << "r" << i.out_reg << "=" << i.op->name << "(";
    for (size_t j = 0; j < i.in_regs.size(); ++j) os << (j ? "," : "") << "r" << i.in_regs[j];
    if (i.fn == cast_array) os << "," << dtype_name(DType(int(i.params[0])));
    os << ")";
  }
  if (out_regs.size() > 1) {
    os << "; out=(";
    for (size_t k = 0; k < out_regs.size(); ++k) os << (k ? "," : "") << "r" << out_regs[k];
    os << ")";
  }
  return os.str();
}

int64_t register_program(FusedProgram p) {
  TANDEM_CHECK(!p.instrs.empty(), Error, "internal: empty fused program");
  if (p.out_regs.empty()) p.out_regs.push_back(p.instrs.back().out_reg);
  TANDEM_CHECK(int(p.out_regs.size()) <= kMaxEwOutputs, Error, "internal: fused program with ",
               p.out_regs.size(), " outputs");
  for (FusedInstr& i : p.instrs) {
    auto it = std::find(p.out_regs.begin(), p.out_regs.end(), i.out_reg);
    i.out_slot = it == p.out_regs.end() ? -1 : int(it - p.out_regs.begin());
  }
  p.native = compile_fused(p);
  std::lock_guard<std::mutex> g(programs_mu);
  programs().push_back(std::make_unique<FusedProgram>(std::move(p)));
  return int64_t(programs().size()) - 1;
}

const FusedProgram& fused_program(const Attrs& a) {
  return program_of(a);
}

const OpDef& fused_elementwise_op() {
  return fused_op;
}

const OpDef& fused_sum_op() {
  return fused_sum;
}

}  // namespace tandem::graph
