#include "tandem/graph/fused_jit.h"

#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "tandem/graph/passes.h"
#include "tandem/kernels/cpu/cpu_features.h"
#include "tandem/kernels/cpu/simd.h"

// The generator emits AVX-512 code whatever the compile flags (xbyak assembles at run
// time), so a portable build still compiles fused kernels on a CPU that has AVX-512.
#if defined(__x86_64__) && TANDEM_SIMD_VECTOR
#define TANDEM_FUSED_JIT 1
#include <xbyak/xbyak.h>
#include <xbyak/xbyak_util.h>
#endif

namespace tandem::graph {
namespace {

std::atomic<bool>& codegen_flag() {
  static std::atomic<bool> on{pass_enabled("codegen")};
  return on;
}

}  // namespace

bool fused_codegen_enabled() {
  return codegen_flag().load(std::memory_order_relaxed);
}

void set_fused_codegen(bool on) {
  codegen_flag().store(on);
}

#if !TANDEM_FUSED_JIT

ArrayFn compile_fused(const FusedProgram&) {
  return nullptr;
}

#else

namespace {

using namespace Xbyak;

enum class Op {
  Add,
  Sub,
  Mul,
  Div,
  Neg,
  Square,
  Sqrt,
  Rsqrt,
  Reciprocal,
  Relu,
  ReluBackward,
  Tanh,
  Copy,       // a cast to float32 (from float16 / bfloat16 values, already exact in float32)
  RoundBf16,  // a cast to bfloat16: float_to_bf16 and back, in the register
  RoundF16,   // a cast to float16 (F16C conversions, round to nearest even)
  Call        // any other op with a float32 SIMD form: a call to it (FusedInstr::vec)
};

bool op_of(const FusedInstr& i, Op& op) {
  const std::string n = i.op->name;
  if (n == "cast") {  // cast_instr's instructions
    const DType to = DType(int(i.params[0]));
    op = to == DType::BFloat16 ? Op::RoundBf16 : to == DType::Float16 ? Op::RoundF16 : Op::Copy;
    return true;
  }
  // add/sub compute a + alpha * b: only alpha = 1 is a plain add (any alpha would be an FMA
  // whose rounding depends on how the eager loop was compiled).
  if (n == "add" && i.params[0] == 1.0) return op = Op::Add, true;
  if (n == "sub" && i.params[0] == 1.0) return op = Op::Sub, true;
  static const std::pair<const char*, Op> simple[] = {{"mul", Op::Mul},
                                                      {"div", Op::Div},
                                                      {"neg", Op::Neg},
                                                      {"square", Op::Square},
                                                      {"sqrt", Op::Sqrt},
                                                      {"rsqrt", Op::Rsqrt},
                                                      {"reciprocal", Op::Reciprocal},
                                                      {"relu", Op::Relu},
                                                      {"relu_backward", Op::ReluBackward},
                                                      {"tanh", Op::Tanh}};
  for (const auto& [name, o] : simple)
    if (n == name) return op = o, true;
  if (i.vec && i.in_regs.size() <= 2) return op = Op::Call, true;
  return false;
}

// Thrown inside the generator when the program cannot be compiled; caught by compile_fused.
struct Unsupported {};

class Generator : public CodeGenerator {
 public:
  // Starts at 4 KiB and grows as needed (a typical program is a few hundred bytes).
  explicit Generator(const FusedProgram& p) : CodeGenerator(4096, Xbyak::AutoGrow), p_(p) {
    ops_.resize(p.instrs.size());
    if (p.num_inputs > 4 || p.out_regs.size() > 4 || p.out_regs.empty()) throw Unsupported{};
    for (size_t k = 0; k < p.instrs.size(); ++k) {
      if (p.instrs[k].in_regs.size() > 2 || !op_of(p.instrs[k], ops_[k])) throw Unsupported{};
      has_calls_ |= ops_[k] == Op::Call;
    }
    last_use_.assign(size_t(p.num_regs), -1);
    for (size_t k = 0; k < p.instrs.size(); ++k)
      for (int r : p.instrs[k].in_regs) last_use_[size_t(r)] = int(k);
    emit();
  }

 private:
  const Reg64& in_ptr(int i) const {
    static const Reg64* r[] = {&r8, &r9, &r10, &r11};
    return *r[i];
  }
  const Reg64& out_ptr(int i) const {
    static const Reg64* r[] = {&r12, &r13, &r14, &r15};
    return *r[i];
  }

  // The label of a float in the data table (one entry per bit pattern).
  Label& constant(float v) {
    for (auto& [val, label] : table_)
      if (std::bit_cast<uint32_t>(val) == std::bit_cast<uint32_t>(v)) return *label;
    table_.emplace_back(v, std::make_unique<Label>());
    return *table_.back().second;
  }
  // The constant broadcast to every lane by the instruction that reads it, or as a scalar.
  Address bcast(float v) { return ptr_b[rip + constant(v)]; }
  Address scalar(float v) { return dword[rip + constant(v)]; }

  int take() {
    for (int z = 0; z < 32; ++z)
      if (!busy_[z]) {
        busy_[z] = true;
        return z;
      }
    throw Unsupported{};  // more live values than registers
  }
  void release(int z) { busy_[z] = false; }

  // Stack frame (when the program calls out): zmm spills, the call's operand vector, and
  // the caller-saved registers the loop keeps (n, offset, end, input pointers, tail mask).
  static constexpr int kSpill = 0, kIo = 32 * 64, kGpr = kIo + 2 * 64, kFrame = kGpr + 128;

  void emit() {
    for (int i = 0; i < 4; ++i) push(out_ptr(i));
    if (has_calls_) {
      push(rbp);
      mov(rbp, rsp);
      and_(rsp, -64);
      sub(rsp, kFrame);
    }
    for (int i = 0; i < p_.num_inputs; ++i) mov(in_ptr(i), ptr[rdx + 8 * i]);
    if (p_.out_regs.size() == 1) {
      mov(out_ptr(0), rsi);
    } else {
      for (size_t i = 0; i < p_.out_regs.size(); ++i) mov(out_ptr(int(i)), ptr[rsi + 8 * i]);
    }
    // Constants live in their own registers for the whole call.
    const_zmm_.assign(size_t(p_.num_regs), -1);
    for (const auto& [r, value] : p_.consts) {
      int z = take();
      const_zmm_[size_t(r)] = z;
      vbroadcastss(Zmm(z), scalar(float(value)));
    }
    Label loop, tail, done;
    mov(rax, rdi);
    and_(rax, ~int64_t(15));
    shl(rax, 2);  // bytes in whole vectors
    xor_(ecx, ecx);
    test(rax, rax);
    jz(tail, T_NEAR);
    L(loop);
    body(false);
    add(rcx, 64);
    cmp(rcx, rax);
    jb(loop, T_NEAR);
    L(tail);
    mov(edx, edi);
    and_(edx, 15);
    jz(done, T_NEAR);
    mov(eax, 1);
    shlx(eax, eax, edx);
    sub(eax, 1);
    kmovw(k1, eax);
    body(true);
    L(done);
    if (has_calls_) {
      mov(rsp, rbp);
      pop(rbp);
    }
    for (int i = 3; i >= 0; --i) pop(out_ptr(i));
    vzeroupper();
    ret();
    align(64);
    for (auto& [val, label] : table_) {
      L(*label);
      dd(std::bit_cast<uint32_t>(val));
    }
    for (auto& [instr, label] : params_) {
      align(8);
      L(*label);
      for (double v : p_.instrs[instr].params) dq(std::bit_cast<uint64_t>(v));
    }
  }

  // One vector (masked by k1 in the tail) through every instruction.
  void body(bool masked) {
    std::vector<int> where(const_zmm_);
    bool saved[32];
    std::memcpy(saved, busy_, sizeof busy_);
    for (size_t k = 0; k < p_.instrs.size(); ++k) {
      const FusedInstr& ins = p_.instrs[k];
      int src[2] = {-1, -1};
      for (size_t j = 0; j < ins.in_regs.size(); ++j) {
        int r = ins.in_regs[j];
        if (where[size_t(r)] < 0) {  // an input, loaded at its first use
          if (r >= p_.num_inputs) throw Unsupported{};
          int z = take();
          if (masked)
            vmovups(Zmm(z) | k1 | T_z, ptr[in_ptr(r) + rcx]);
          else
            vmovups(Zmm(z), ptr[in_ptr(r) + rcx]);
          where[size_t(r)] = z;
        }
        src[j] = where[size_t(r)];
      }
      // Single-instruction ops may write over an operand that dies here; multi-step ones
      // (tanh, relu) read their operands after writing the result, so they get a new one.
      const bool simple = ops_[k] != Op::Tanh && ops_[k] != Op::Relu &&
                          ops_[k] != Op::ReluBackward && ops_[k] != Op::Rsqrt &&
                          ops_[k] != Op::Reciprocal && ops_[k] != Op::Call &&
                          ops_[k] != Op::RoundBf16 && ops_[k] != Op::RoundF16;
      auto dies = [&](int r) {
        return last_use_[size_t(r)] == int(k) && const_zmm_[size_t(r)] < 0;
      };
      auto free_operands = [&] {
        for (size_t j = 0; j < ins.in_regs.size(); ++j) {
          int r = ins.in_regs[j];
          if (dies(r) && where[size_t(r)] >= 0) {
            release(where[size_t(r)]);
            where[size_t(r)] = -1;
          }
        }
      };
      if (simple) free_operands();
      const int dst = take();
      op(ops_[k], Zmm(dst), src[0], src[1], k);
      if (!simple) free_operands();
      where[size_t(ins.out_reg)] = dst;
      if (ins.out_slot >= 0) {
        if (masked)
          vmovups(ptr[out_ptr(ins.out_slot) + rcx] | k1, Zmm(dst));
        else
          vmovups(ptr[out_ptr(ins.out_slot) + rcx], Zmm(dst));
      }
      if (last_use_[size_t(ins.out_reg)] < 0) {
        release(dst);
        where[size_t(ins.out_reg)] = -1;
      }
    }
    std::memcpy(busy_, saved, sizeof busy_);
  }

  // dst = op(a, b): the same instructions, in the same order, as the eager loops.
  void op(Op o, const Zmm& dst, int a, int b, size_t k) {
    const Zmm za(a), zb(b < 0 ? 0 : b);
    switch (o) {
      case Op::Call:
        call_out(dst, za, b < 0 ? nullptr : &zb, k);
        break;
      case Op::Add:
        vaddps(dst, za, zb);
        break;
      case Op::Sub:
        vsubps(dst, za, zb);
        break;
      case Op::Mul:
        vmulps(dst, za, zb);
        break;
      case Op::Div:
        vdivps(dst, za, zb);
        break;
      case Op::Square:
        vmulps(dst, za, za);
        break;
      case Op::Sqrt:
        vsqrtps(dst, za);
        break;
      case Op::Neg:
        vxorps(dst, za, bcast(-0.0f));
        break;
      case Op::Reciprocal:  // 1 / x
        vbroadcastss(dst, scalar(1.0f));
        vdivps(dst, dst, za);
        break;
      case Op::Rsqrt: {  // 1 / sqrt(x)
        int t = take();
        vsqrtps(Zmm(t), za);
        vbroadcastss(dst, scalar(1.0f));
        vdivps(dst, dst, Zmm(t));
        release(t);
        break;
      }
      case Op::Relu:  // x < 0 ? 0 : x (NaN and -0.0 kept, as the eager kernel)
        vcmpps(k2, za, bcast(0.0f), 0x15);  // _CMP_NLT_UQ
        vmovaps(dst | k2 | T_z, za);
        break;
      case Op::ReluBackward:                // out <= 0 ? 0 : grad
        vcmpps(k2, zb, bcast(0.0f), 0x16);  // _CMP_NLE_UQ
        vmovaps(dst | k2 | T_z, za);
        break;
      case Op::Tanh:
        tanh(dst, za);
        break;
      case Op::Copy:
        vmovaps(dst, za);
        break;
      case Op::RoundBf16: {  // dtype.h's float_to_bf16: round to nearest even, NaN quieted
        const Zmm t(take());
        vpsrld(t, za, 16);
        vpandd(t, t, bcast(std::bit_cast<float>(1u)));
        vpaddd(t, t, bcast(std::bit_cast<float>(0x7fffu)));
        vpaddd(t, t, za);
        vcmpps(k2, za, za, 3);  // _CMP_UNORD_Q: NaN lanes keep their bits, made quiet
        vpord(t | k2, za, bcast(std::bit_cast<float>(0x400000u)));
        vpandd(dst, t, bcast(std::bit_cast<float>(0xffff0000u)));
        release(t.getIdx());
        break;
      }
      case Op::RoundF16: {  // NaN payloads may differ from dtype.cpp's (both stay NaN)
        const Ymm t(take());
        vcvtps2ph(t, za, 0);  // round to nearest even
        vcvtph2ps(dst, t);
        release(t.getIdx());
        break;
      }
    }
  }

  // dst = instruction k's SIMD form of (a, b), called through memory. Every vector register
  // and the loop's caller-saved registers survive the call on the stack.
  void call_out(const Zmm& dst, const Zmm& a, const Zmm* b, size_t k) {
    static const Reg64* kept[] = {&rdi, &rcx, &rax, &r8, &r9, &r10, &r11};
    for (int z = 0; z < 32; ++z)
      if (busy_[z]) vmovups(ptr[rsp + kSpill + 64 * z], Zmm(z));
    for (int i = 0; i < 7; ++i) mov(ptr[rsp + kGpr + 8 * i], *kept[i]);
    kmovw(word[rsp + kGpr + 56], k1);
    vmovups(ptr[rsp + kIo], a);
    if (b) vmovups(ptr[rsp + kIo + 64], *b);
    lea(rdi, ptr[rsp + kIo]);
    params_.emplace_back(k, std::make_unique<Label>());
    lea(rsi, ptr[rip + *params_.back().second]);
    mov(rax, reinterpret_cast<uint64_t>(p_.instrs[k].vec));
    call(rax);
    kmovw(k1, word[rsp + kGpr + 56]);
    for (int i = 0; i < 7; ++i) mov(*kept[i], ptr[rsp + kGpr + 8 * i]);
    for (int z = 0; z < 32; ++z)
      if (busy_[z] && z != dst.getIdx()) vmovups(Zmm(z), ptr[rsp + kSpill + 64 * z]);
    vmovups(dst, ptr[rsp + kIo]);
  }

  // simd.h's vtanh, instruction for instruction.
  void tanh(const Zmm& dst, const Zmm& a) {
    using C = simd::TanhCoef;
    const Zmm x(take()), x2(take()), p(take()), q(take());
    vbroadcastss(x, scalar(-C::clamp));
    vmaxps(x, x, a);  // max(-clamp, a): NaN gives a
    vbroadcastss(q, scalar(C::clamp));
    vminps(x, q, x);  // min(clamp, x)
    vmulps(x2, x, x);
    vbroadcastss(p, scalar(C::num[0]));
    vfmadd213ps(p, x2, bcast(C::num[1]));  // p = x2 * p + c
    for (int k = 2; k < 7; ++k) vfmadd213ps(p, x2, bcast(C::num[k]));
    vmulps(p, x, p);
    vbroadcastss(q, scalar(C::den[0]));
    vfmadd213ps(q, x2, bcast(C::den[1]));
    for (int k = 2; k < 4; ++k) vfmadd213ps(q, x2, bcast(C::den[k]));
    vdivps(dst, p, q);
    vandps(x, a, bcast(std::bit_cast<float>(0x7fffffffu)));
    vcmpps(k2, x, bcast(C::tiny), 0x11);  // _CMP_LT_OQ
    vblendmps(dst | k2, dst, a);
    for (const Zmm& t : {x, x2, p, q}) release(t.getIdx());
  }

  const FusedProgram& p_;
  std::vector<Op> ops_;
  std::vector<int> last_use_;
  std::vector<int> const_zmm_;
  bool busy_[32] = {};
  bool has_calls_ = false;
  std::vector<std::pair<float, std::unique_ptr<Label> > > table_;
  std::vector<std::pair<size_t, std::unique_ptr<Label> > > params_;  // instruction -> its params
};

std::mutex generated_mu;
std::vector<std::unique_ptr<Generator> >& generated() {
  static auto* g = new std::vector<std::unique_ptr<Generator> >();  // lives as long as programs
  return *g;
}

}  // namespace

ArrayFn compile_fused(const FusedProgram& p) {
  static const bool cpu_ok = [] {
    Xbyak::util::Cpu cpu;
    return cpu_use_avx512() && cpu.has(Xbyak::util::Cpu::tBMI2);
  }();
  if (!cpu_ok || p.dtype != DType::Float32 || p.instrs.empty()) return nullptr;
  try {
    auto g = std::make_unique<Generator>(p);
    g->ready();
    ArrayFn fn = g->getCode<ArrayFn>();
    std::lock_guard<std::mutex> lock(generated_mu);
    generated().push_back(std::move(g));
    return fn;
  } catch (const Unsupported&) {
    return nullptr;
  } catch (const Xbyak::Error&) {
    return nullptr;
  }
}

#endif

}  // namespace tandem::graph
