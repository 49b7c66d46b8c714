// Tensor creation: constants, ranges, identity, and random sampling from the one seeded
// generator (set_seed makes every run reproducible, independent of the thread count).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tandem/core/tensor.h"

namespace tandem {

Tensor full(const Shape& shape, Scalar value, std::optional<DType> dtype = std::nullopt);
Tensor zeros(const Shape& shape, DType dtype = DType::Float32);
Tensor ones(const Shape& shape, DType dtype = DType::Float32);
Tensor empty(const Shape& shape, DType dtype = DType::Float32);
// [start, end) in steps; dtype defaults to int64 when all three are integers, else float32.
Tensor arange(Scalar start, Scalar end, Scalar step = 1, std::optional<DType> dtype = std::nullopt);
Tensor linspace(double start, double end, int64_t steps, DType dtype = DType::Float32);
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, DType dtype = DType::Float32);
// indexing: "ij" (matrix) or "xy" (Cartesian, swaps the first two outputs' roles).
std::vector<Tensor> meshgrid(const std::vector<Tensor>& xs, const std::string& indexing = "ij");

// --- random ------------------------------------------------------------------------------
void manual_seed(uint64_t seed);
uint64_t initial_seed();
// Generator state (seed, offset) so graphs and checkpoints can save and restore it.
std::pair<uint64_t, uint64_t> get_rng_state();
void set_rng_state(uint64_t seed, uint64_t offset);

Tensor rand(const Shape& shape, DType dtype = DType::Float32);
Tensor randn(const Shape& shape, DType dtype = DType::Float32);
Tensor randint(int64_t low, int64_t high, const Shape& shape, DType dtype = DType::Int64);
Tensor normal(double mean, double std, const Shape& shape, DType dtype = DType::Float32);
Tensor uniform(double low, double high, const Shape& shape, DType dtype = DType::Float32);
// Elementwise draws with probabilities p (same shape, float).
Tensor bernoulli(const Tensor& p);
Tensor bernoulli(const Shape& shape, double p, DType dtype = DType::Float32);
Tensor randperm(int64_t n, DType dtype = DType::Int64);
// Rows of p are (unnormalised) category weights; returns int64 indices.
Tensor multinomial(const Tensor& p, int64_t num_samples, bool replacement = false);
// In-place fills.
const Tensor& normal_(const Tensor& x, double mean = 0, double std = 1);
const Tensor& uniform_(const Tensor& x, double low = 0, double high = 1);

}  // namespace tandem
