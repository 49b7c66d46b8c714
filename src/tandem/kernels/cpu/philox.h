// Philox4x32-10 counter-based generator: element i of a draw depends only on (seed,
// offset, i), so parallel sampling is reproducible for any thread count.
#pragma once
#include <array>
#include <cstdint>

namespace tandem {

inline std::array<uint32_t, 4> philox4x32(uint64_t counter, uint64_t seed, uint32_t stream = 0) {
  uint32_t c0 = uint32_t(counter), c1 = uint32_t(counter >> 32), c2 = stream, c3 = 0;
  uint32_t k0 = uint32_t(seed), k1 = uint32_t(seed >> 32);
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = uint64_t(0xD2511F53u) * c0, p1 = uint64_t(0xCD9E8D57u) * c2;
    uint32_t hi0 = uint32_t(p0 >> 32), lo0 = uint32_t(p0);
    uint32_t hi1 = uint32_t(p1 >> 32), lo1 = uint32_t(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {c0, c1, c2, c3};
}

// Uniform double in [0, 1) from two 32-bit words (53 random bits).
inline double to_unit_double(uint32_t a, uint32_t b) {
  uint64_t u = (uint64_t(a) << 32 | b) >> 11;
  return double(u) * (1.0 / 9007199254740992.0);
}

}  // namespace tandem
