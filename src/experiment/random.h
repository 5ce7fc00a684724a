// experiment/random.h — a small, seeded, platform-independent random source.
//
// std::*_distribution output is implementation-defined, so colo draws its own:
// SplitMix64 for the stream (Steele et al., OOPSLA'14), 53-bit uniforms, and
// inverse-CDF exponentials. The same seed gives the same sequence everywhere.
// Thread-compatible.
#pragma once

#include <cmath>
#include <cstdint>
#include <string_view>

namespace colo::experiment {

class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // Exponential with the given rate (mean 1/rate). REQUIRES: rate > 0.
  double Exponential(double rate) { return -std::log1p(-Uniform()) / rate; }

 private:
  uint64_t state_;
};

// A seed for stream `index` derived from a scenario seed (distinct, stable).
inline uint64_t DeriveSeed(uint64_t seed, uint64_t index) {
  Rng r(seed ^ (0xd1b54a32d192ed03ULL * (index + 1)));
  return r.Next();
}

// A seed for the stream named `name` (a job's name): the same name draws the
// same numbers wherever its job sits in the scenario. FNV-1a of the name.
inline uint64_t DeriveSeed(uint64_t seed, std::string_view name) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : name) {
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  return DeriveSeed(seed, h);
}

}  // namespace colo::experiment
