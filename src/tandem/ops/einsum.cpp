// einsum as a chain of pairwise contractions, each lowered to one batched matmul, so it
// runs on the same GEMM (and later traces into the same graph nodes) as matmul.
#include <algorithm>
#include <cctype>
#include <string>

#include "tandem/core/error.h"
#include "tandem/ops/elementwise.h"
#include "tandem/ops/linalg.h"
#include "tandem/ops/reduce.h"
#include "tandem/ops/shape_ops.h"

namespace tandem {
namespace {

struct Term {
  Tensor t;
  std::string subs;  // one letter per dim, no repeats
};

// Takes diagonals for repeated letters ("ii" -> "i") so each letter appears once.
Term dedupe(Tensor t, std::string s) {
  for (size_t i = 0; i < s.size(); ++i)
    for (size_t j = i + 1; j < s.size(); ++j)
      if (s[i] == s[j]) {
        TANDEM_CHECK(t.shape()[i] == t.shape()[j], ValueError, "einsum: subscript '", s[i],
                     "' has sizes ", t.shape()[i], " and ", t.shape()[j]);
        t = diagonal(t, 0, int64_t(i), int64_t(j));  // diagonal dim goes last
        std::string ns;
        for (size_t k = 0; k < s.size(); ++k)
          if (k != i && k != j) ns += s[k];
        ns += s[i];
        return dedupe(t, ns);
      }
  return {t, s};
}

// Sums out letters of `a` that appear nowhere in `keep`.
Term sum_unused(Term a, const std::string& keep) {
  std::vector<int64_t> dims;
  std::string ns;
  for (size_t i = 0; i < a.subs.size(); ++i) {
    if (keep.find(a.subs[i]) == std::string::npos)
      dims.push_back(int64_t(i));
    else
      ns += a.subs[i];
  }
  if (dims.empty()) return a;
  return {sum(a.t, dims, false), ns};
}

int64_t size_of(const Term& a, char c) {
  return a.t.shape()[a.subs.find(c)];
}

// The broadcast size of a letter with sizes sa and sb (checked equal or 1): 1 against 0 is 0.
int64_t bsize(int64_t sa, int64_t sb) {
  return sa == 1 ? sb : sa;
}

Term contract(Term a, Term b, const std::string& needed) {
  std::string batch, ka, kb, red;
  for (char c : a.subs) {
    bool in_b = b.subs.find(c) != std::string::npos;
    bool need = needed.find(c) != std::string::npos;
    if (in_b && need)
      batch += c;
    else if (in_b)
      red += c;
    else
      ka += c;
  }
  for (char c : b.subs)
    if (a.subs.find(c) == std::string::npos) kb += c;
  for (char c : batch + red) {
    int64_t sa = size_of(a, c), sb = size_of(b, c);
    TANDEM_CHECK(sa == sb || sa == 1 || sb == 1, ValueError, "einsum: subscript '", c,
                 "' has sizes ", sa, " and ", sb, " in two operands");
  }
  auto perm = [](const Term& t, const std::string& order) {
    std::vector<int64_t> p;
    for (char c : order) p.push_back(int64_t(t.subs.find(c)));
    return permute(t.t, p);
  };
  auto prod = [](const Term& t, const std::string& ls) {
    int64_t n = 1;
    for (char c : ls) n *= size_of(t, c);
    return n;
  };
  Shape bs;
  for (char c : batch) bs.push_back(bsize(size_of(a, c), size_of(b, c)));
  int64_t B = numel_of(bs), M = prod(a, ka), N = prod(b, kb), K = 1;
  for (char c : red) K *= bsize(size_of(a, c), size_of(b, c));
  Shape ea = bs, eb = bs;
  for (char c : ka) ea.push_back(size_of(a, c));
  for (char c : red) ea.push_back(bsize(size_of(a, c), size_of(b, c)));
  for (char c : red) eb.push_back(bsize(size_of(a, c), size_of(b, c)));
  for (char c : kb) eb.push_back(size_of(b, c));
  Tensor ta = reshape(expand(perm(a, batch + ka + red), ea), {B, M, K});
  Tensor tb = reshape(expand(perm(b, batch + red + kb), eb), {B, K, N});
  Shape os = bs;
  for (char c : ka) os.push_back(size_of(a, c));
  for (char c : kb) os.push_back(size_of(b, c));
  return {reshape(matmul(ta, tb), os), batch + ka + kb};
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  TANDEM_CHECK(eq.find("...") == std::string::npos, NotImplementedError,
               "einsum: ellipsis ('...') subscripts are not supported yet; name the dims");
  size_t arrow = eq.find("->");
  std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> ins;
  size_t start = 0;
  for (size_t i = 0; i <= lhs.size(); ++i)
    if (i == lhs.size() || lhs[i] == ',') {
      ins.push_back(lhs.substr(start, i - start));
      start = i + 1;
    }
  TANDEM_CHECK(ins.size() == operands.size(), ValueError, "einsum: the equation has ", ins.size(),
               " operands but ", operands.size(), " tensors were given");
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
  } else {  // implicit output: letters that appear once, in alphabetical order
    std::string all = lhs;
    for (char c = 'A'; c <= 'z'; ++c)
      if (std::isalpha(c) && std::count(all.begin(), all.end(), c) == 1) out += c;
  }
  // Mixed dtypes contract in their promoted type (int32 with int64 gives int64), as in torch.
  DType common = operands.empty() ? DType::Float32 : operands[0].dtype();
  for (const Tensor& t : operands) common = promote_types(common, t.dtype());
  std::vector<Term> terms;
  for (size_t i = 0; i < ins.size(); ++i) {
    for (char c : ins[i])
      TANDEM_CHECK(std::isalpha(static_cast<unsigned char>(c)), ValueError,
                   "einsum: invalid subscript '", c, "' in '", equation, "'");
    TANDEM_CHECK(int64_t(ins[i].size()) == operands[i].dim(), ValueError, "einsum: operand ", i,
                 " has ", operands[i].dim(), " dims but subscripts '", ins[i], "'");
    const Tensor& x = operands[i];
    terms.push_back(dedupe(x.dtype() == common ? x : to_dtype(x, common), ins[i]));
  }
  for (char c : out) {
    TANDEM_CHECK(std::isalpha(static_cast<unsigned char>(c)), ValueError,
                 "einsum: invalid output subscript '", c, "' in '", equation, "'");
    TANDEM_CHECK(lhs.find(c) != std::string::npos, ValueError, "einsum: output subscript '", c,
                 "' does not appear in the inputs");
    TANDEM_CHECK(std::count(out.begin(), out.end(), c) == 1, ValueError,
                 "einsum: output subscript '", c, "' appears more than once in '", equation, "'");
  }
  // Letters still needed after operand i: the output's and those of later operands.
  auto needed_after = [&](size_t i) {
    std::string s = out;
    for (size_t j = i + 1; j < terms.size(); ++j) s += terms[j].subs;
    return s;
  };
  Term acc = sum_unused(terms[0], needed_after(0) + (terms.size() > 1 ? terms[1].subs : ""));
  for (size_t i = 1; i < terms.size(); ++i) {
    std::string need = needed_after(i);
    Term b = sum_unused(terms[i], need + acc.subs);
    acc = contract(sum_unused(acc, need + b.subs), b, need);
  }
  acc = sum_unused(acc, out);
  std::vector<int64_t> p;
  for (char c : out) p.push_back(int64_t(acc.subs.find(c)));
  // clone (a recorded op), not Tensor::contiguous (a raw copy autograd would not see)
  Tensor r = permute(acc.t, p);
  return r.is_contiguous() ? r : clone(r);
}

}  // namespace tandem
