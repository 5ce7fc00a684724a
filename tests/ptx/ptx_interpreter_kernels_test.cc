// Reference kernels (tests/ptx/kernels/interpreter_*.cu, compiled by nvcc
// at build time) run on the interpreter and compared with host
// computations: bit for bit wherever the host can do the same operations
// in the same order (integers, and floats whose order the kernel fixes
// with fmaf or a shuffle tree the host replays); CUDA's sinf / expf / logf
// within the error bounds the CUDA Math API documents for them. Every
// kernel runs with several seeds and numbers of resident blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ptx/ptx_interpreter.h"
#include "ptx/ptx_reader.h"

namespace colo::ptx {
namespace {

Module Load(const std::string& stem) {
  std::string path = std::string(COLO_PTX_KERNEL_DIR) + "/" + stem + ".ptx";
  std::ifstream file(path);
  EXPECT_TRUE(file.good()) << path;
  std::stringstream text;
  text << file.rdbuf();
  Result<Module> module = ReadPtx(text.str(), path);
  EXPECT_TRUE(module.ok()) << module.status().ToString();
  return module.ok() ? *module : Module{};
}

template <typename T>
std::vector<uint8_t> Arg(T value) {
  std::vector<uint8_t> bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));
  return bytes;
}

template <typename T>
uint64_t Upload(DeviceMemory& memory, const std::vector<T>& data) {
  uint64_t address =
      memory.Allocate(std::max<size_t>(data.size(), 1) * sizeof(T));
  EXPECT_TRUE(memory.Write(address, data.data(), data.size() * sizeof(T)).ok());
  return address;
}

template <typename T>
std::vector<T> Download(const DeviceMemory& memory, uint64_t address,
                        size_t count) {
  std::vector<T> data(count);
  EXPECT_TRUE(memory.Read(address, data.data(), count * sizeof(T)).ok());
  return data;
}

uint32_t Bits(float f) { return std::bit_cast<uint32_t>(f); }

// Floats k / 256 for integers k in [-1000, 1000]: exact and spread.
std::vector<float> RandomFloats(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<float> v(n);
  for (float& x : v)
    x = static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 256.0f;
  return v;
}

struct Schedule {
  uint64_t seed;
  uint32_t resident_blocks;
};
constexpr Schedule kSchedules[] = {{1, 8}, {2, 3}, {3, 1}};

RunStats Launch(const Module& module, const char* kernel, Dim3 grid, Dim3 block,
                std::vector<std::vector<uint8_t>> args, DeviceMemory& memory,
                Schedule s, uint32_t dynamic_shared = 0) {
  LaunchConfig launch;
  launch.grid = grid;
  launch.block = block;
  launch.args = std::move(args);
  launch.dynamic_shared_bytes = dynamic_shared;
  InterpreterOptions options;
  options.seed = s.seed;
  options.resident_blocks = s.resident_blocks;
  Result<RunStats> r = RunKernel(module, kernel, launch, memory, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : RunStats{};
}

TEST(InterpreterKernelsTest, GemmF32EqualsTheHostFmaLoop) {
  // C = A B, 37 x 50 times 50 x 45, on a 3 x 3 grid of 16 x 16 blocks (the
  // edges are partial). The kernel pads the last tile with zeros; the host
  // runs the same fma sequence, padding included, so the bits agree.
  Module module = Load("interpreter_gemm");
  const int m = 37, n = 45, k = 50, tile = 16;
  for (Schedule s : kSchedules) {
    std::vector<float> a = RandomFloats(m * k, 10 + s.seed),
                       b = RandomFloats(k * n, 20 + s.seed);
    DeviceMemory memory;
    uint64_t da = Upload(memory, a), db = Upload(memory, b);
    uint64_t dc = memory.Allocate(m * n * 4);
    auto start = std::chrono::steady_clock::now();
    RunStats stats =
        Launch(module, "gemm_f32", Dim3{3, 3, 1}, Dim3{16, 16, 1},
               {Arg(da), Arg(db), Arg(dc), Arg(m), Arg(n), Arg(k)}, memory, s);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::cout << "[ perf ] gemm_f32 seed " << s.seed << ": "
              << stats.instructions << " thread-instructions (" << stats.steps
              << " warp steps) in " << seconds
              << " s = " << stats.instructions / seconds / 1e6 << " M/s\n";
    std::vector<float> c = Download<float>(memory, dc, m * n);
    for (int row = 0; row < m; ++row) {
      for (int col = 0; col < n; ++col) {
        float acc = 0.0f;
        for (int t = 0; t < k; t += tile) {
          for (int i = 0; i < tile; ++i) {
            float x = t + i < k ? a[row * k + t + i] : 0.0f;
            float y = t + i < k ? b[(t + i) * n + col] : 0.0f;
            acc = std::fma(x, y, acc);
          }
        }
        ASSERT_EQ(Bits(c[row * n + col]), Bits(acc))
            << row << "," << col << " seed " << s.seed;
      }
    }
  }
}

TEST(InterpreterKernelsTest, GemmU32IsExact) {
  // The same tiling on 32-bit integers, which wrap: C = A B mod 2^32.
  Module module = Load("interpreter_gemm");
  const int m = 20, n = 33, k = 40;
  for (Schedule s : kSchedules) {
    std::mt19937 rng(s.seed);
    std::vector<uint32_t> a(m * k), b(k * n);
    for (uint32_t& x : a) x = rng();
    for (uint32_t& x : b) x = rng();
    DeviceMemory memory;
    uint64_t da = Upload(memory, a), db = Upload(memory, b),
             dc = memory.Allocate(m * n * 4);
    Launch(module, "gemm_u32", Dim3{3, 2, 1}, Dim3{16, 16, 1},
           {Arg(da), Arg(db), Arg(dc), Arg(m), Arg(n), Arg(k)}, memory, s);
    std::vector<uint32_t> c = Download<uint32_t>(memory, dc, m * n);
    for (int row = 0; row < m; ++row) {
      for (int col = 0; col < n; ++col) {
        uint32_t acc = 0;
        for (int i = 0; i < k; ++i) acc += a[row * k + i] * b[i * n + col];
        ASSERT_EQ(c[row * n + col], acc) << row << "," << col;
      }
    }
  }
}

// The kernel's float reduction replayed on the host: per thread a
// sequential grid-stride sum; per warp v[l] += v[l + o] for o = 16 .. 1,
// where a lane past 31 reads its own value (shfl.down's clamp); then warp
// 0 folds the warps' sums the same way.
std::vector<float> HostBlockSums(const std::vector<float>& in, int grid,
                                 int block) {
  auto fold = [](std::vector<float> v) {
    for (int o = 16; o > 0; o >>= 1) {
      std::vector<float> next = v;
      for (int l = 0; l < 32; ++l)
        next[l] = v[l] + (l + o < 32 ? v[l + o] : v[l]);
      v = next;
    }
    return v[0];
  };
  std::vector<float> partial(grid);
  int n = static_cast<int>(in.size());
  for (int b = 0; b < grid; ++b) {
    std::vector<float> warp_sums;
    for (int w = 0; w < block / 32; ++w) {
      std::vector<float> v(32, 0.0f);
      for (int l = 0; l < 32; ++l) {
        for (int i = b * block + w * 32 + l; i < n; i += block * grid)
          v[l] += in[i];
      }
      warp_sums.push_back(fold(v));
    }
    std::vector<float> v(32, 0.0f);
    for (size_t l = 0; l < warp_sums.size(); ++l) v[l] = warp_sums[l];
    partial[b] = fold(v);
  }
  return partial;
}

TEST(InterpreterKernelsTest, ReduceF32FollowsItsShuffleTree) {
  Module module = Load("interpreter_reduce");
  const int n = 5000, grid = 4, block = 128;
  for (Schedule s : kSchedules) {
    std::vector<float> in = RandomFloats(n, 30 + s.seed);
    for (size_t i = 0; i < in.size(); i += 7)
      in[i] *= 1.0f / 3.0f;  // inexact sums
    DeviceMemory memory;
    uint64_t din = Upload(memory, in), dpartial = memory.Allocate(grid * 4);
    Launch(module, "reduce_f32", Dim3{grid, 1, 1}, Dim3{block, 1, 1},
           {Arg(din), Arg(dpartial), Arg(n)}, memory, s);
    std::vector<float> got = Download<float>(memory, dpartial, grid);
    std::vector<float> want = HostBlockSums(in, grid, block);
    for (int b = 0; b < grid; ++b) EXPECT_EQ(Bits(got[b]), Bits(want[b])) << b;
  }
}

TEST(InterpreterKernelsTest, ReduceU32TotalAndMaximum) {
  // Sum (mod 2^32 per block, as the kernel's u32 lanes wrap; blocks add
  // into a u64) and maximum of 3000 random words over 3 blocks of 96.
  Module module = Load("interpreter_reduce");
  const int n = 3000, grid = 3, block = 96;
  for (Schedule s : kSchedules) {
    std::mt19937 rng(40 + s.seed);
    std::vector<uint32_t> in(n);
    for (uint32_t& x : in) x = rng() >> 4;
    DeviceMemory memory;
    uint64_t din = Upload(memory, in), dtotal = memory.Allocate(8),
             dmax = memory.Allocate(4);
    Launch(module, "reduce_u32", Dim3{grid, 1, 1}, Dim3{block, 1, 1},
           {Arg(din), Arg(dtotal), Arg(dmax), Arg(n)}, memory, s);
    uint64_t want_total = 0;
    for (int b = 0; b < grid; ++b) {
      uint32_t block_sum = 0;
      for (int t = 0; t < block; ++t) {
        for (int i = b * block + t; i < n; i += block * grid)
          block_sum += in[i];
      }
      want_total += block_sum;
    }
    EXPECT_EQ(Download<uint64_t>(memory, dtotal, 1)[0], want_total);
    EXPECT_EQ(Download<uint32_t>(memory, dmax, 1)[0],
              *std::max_element(in.begin(), in.end()));
  }
}

TEST(InterpreterKernelsTest, HistogramCountsEveryByte) {
  Module module = Load("interpreter_histogram");
  const int n = 10000;
  for (Schedule s : kSchedules) {
    std::mt19937 rng(50 + s.seed);
    std::vector<uint8_t> data(n);
    for (uint8_t& x : data)
      x = static_cast<uint8_t>(rng() % 7 == 0 ? 42 : rng());  // a heavy bin
    DeviceMemory memory;
    uint64_t ddata = Upload(memory, data), dbins = memory.Allocate(256 * 4);
    Launch(module, "histogram", Dim3{5, 1, 1}, Dim3{96, 1, 1},
           {Arg(ddata), Arg(n), Arg(dbins)}, memory, s);
    std::vector<uint32_t> want(256, 0);
    for (uint8_t x : data) ++want[x];
    EXPECT_EQ(Download<uint32_t>(memory, dbins, 256), want);
  }
}

TEST(InterpreterKernelsTest, StencilInDynamicSharedMemory) {
  // out[i] = fma(w2, x[i+1], fma(w1, x[i], w0 * x[i-1])), x = 0 outside.
  Module module = Load("interpreter_stencil");
  const int n = 1000, block = 64, grid = (n + block - 1) / block;
  const float w0 = 0.25f, w1 = -1.0f / 3.0f, w2 = 0.7f;
  for (Schedule s : kSchedules) {
    std::vector<float> in = RandomFloats(n, 60 + s.seed);
    DeviceMemory memory;
    uint64_t din = Upload(memory, in), dout = memory.Allocate(n * 4);
    Launch(module, "stencil3", Dim3{grid, 1, 1}, Dim3{block, 1, 1},
           {Arg(din), Arg(dout), Arg(n), Arg(w0), Arg(w1), Arg(w2)}, memory, s,
           (block + 2) * 4);
    std::vector<float> got = Download<float>(memory, dout, n);
    for (int i = 0; i < n; ++i) {
      float left = i > 0 ? in[i - 1] : 0.0f,
            right = i + 1 < n ? in[i + 1] : 0.0f;
      float want = std::fma(w2, right, std::fma(w1, in[i], w0 * left));
      ASSERT_EQ(Bits(got[i]), Bits(want)) << i;
    }
  }
}

TEST(InterpreterKernelsTest, EarlyReturnsLeaveTheSecondBarrierToTheRest) {
  Module module = Load("interpreter_early_return");
  const int n = 300, block = 128, grid = 3;  // the last block is partly past n
  for (Schedule s : kSchedules) {
    std::mt19937 rng(70 + s.seed);
    std::vector<int32_t> in(n);
    for (int32_t& x : in)
      x = rng() % 5 == 0 ? -1 - static_cast<int32_t>(rng() % 9) : rng() % 5000;
    DeviceMemory memory;
    uint64_t din = Upload(memory, in), dout = memory.Allocate(n * 4);
    Launch(module, "early_return", Dim3{grid, 1, 1}, Dim3{block, 1, 1},
           {Arg(din), Arg(dout), Arg(n)}, memory, s);
    auto steps = [&](int i) {
      if (i >= n || in[i] < 0) return 0;
      int c = 0;
      for (uint32_t x = static_cast<uint32_t>(in[i]); x > 1 && c < 1000; ++c) {
        x = (x & 1) ? 3 * x + 1 : x / 2;
      }
      return c;
    };
    std::vector<int32_t> got = Download<int32_t>(memory, dout, n);
    for (int i = 0; i < n; ++i) {
      int right = (i % block) + 1 < block ? steps(i + 1) : 0;
      int32_t want = in[i] < 0 ? -1 : steps(i) * 1000 + right;
      ASSERT_EQ(got[i], want) << i;
    }
  }
}

struct MiscOut {
  unsigned long long mix;
  uint32_t bits;
  int32_t rounded;
  float converted;
  uint16_t half;
  double root;
  float sine, exponential, logarithm;
};
static_assert(sizeof(MiscOut) == 48);

int32_t UlpDistance(float a, float b) {
  auto key = [](float f) {
    int32_t i = std::bit_cast<int32_t>(f);
    return i < 0 ? INT32_MIN - i : i;  // monotonic over the floats
  };
  return std::abs(key(a) - key(b));
}

TEST(InterpreterKernelsTest, MiscellanyMatchesTheHostDefinitions) {
  // Each field by the definition of the CUDA function that made it (see
  // the kernel); sinf, expf and logf within 2, 2 and 1 ulp of the exactly
  // rounded value (CUDA Math API's maximum errors for these functions),
  // as the interpreter computes ex2.approx exactly where a GPU
  // approximates it.
  Module module = Load("interpreter_misc");
  const int n = 100, block = 64, grid = 2;  // the last warp is partial
  for (Schedule s : kSchedules) {
    std::mt19937 rng(80 + s.seed);
    std::vector<uint32_t> in(n);
    std::vector<float> fin(n);
    for (int i = 0; i < n; ++i) {
      in[i] = i < 4 ? (1u << (28 + i)) + 12345 : rng();
      fin[i] =
          static_cast<float>(static_cast<int32_t>(rng() % 2000001) - 1000000) /
          (i % 3 == 0 ? 1.0f : 997.0f);  // some beyond sinf's fast path
    }
    fin[5] = 2.5f;
    fin[6] = -3.5f;
    DeviceMemory memory;
    uint64_t din = Upload(memory, in), dfin = Upload(memory, fin);
    uint64_t dout = memory.Allocate(n * sizeof(MiscOut));
    uint64_t dmax = Upload(memory, std::vector<float>{-1e30f});
    Launch(module, "misc", Dim3{grid, 1, 1}, Dim3{block, 1, 1},
           {Arg(din), Arg(dfin), Arg(dout), Arg(dmax), Arg(n)}, memory, s);
    std::vector<MiscOut> got = Download<MiscOut>(memory, dout, n);
    static const int kTable[8] = {3, 1, 4, 1, 5, 9, 2, 6};
    for (int i = 0; i < n; ++i) {
      const uint32_t u = in[i];
      const float f = fin[i];
      unsigned long long buf[8], acc = 0;
      for (int j = 0; j < 8; ++j)
        buf[j] = static_cast<unsigned long long>(u) * (j + 1) + kTable[j];
      for (int r = 0; r < static_cast<int>(u % 13); ++r) {
        acc += buf[(u + r) & 7] / (r + 1) + buf[r & 7] % 7;
      }
      EXPECT_EQ(got[i].mix, acc) << i;
      uint32_t ballot = 0;
      for (int l = 0; l < 32; ++l) {
        int j = (i / 32) * 32 + l;
        if (j < n && (in[j] & 1)) ballot |= 1u << l;
      }
      // __byte_perm(x, y, s): result byte b is byte s[4b+2:4b] of y:x;
      // __funnelshift_l(lo, hi, k): the high word of (hi:lo) << (k & 31).
      uint64_t yx = (static_cast<uint64_t>(~u) << 32) | u;
      uint32_t perm = 0;
      for (int b = 0; b < 4; ++b) {
        uint32_t sel = (0x6251u >> (4 * b)) & 7;
        perm |= static_cast<uint32_t>((yx >> (8 * sel)) & 0xFF) << (8 * b);
      }
      uint32_t funnel = static_cast<uint32_t>((yx << (u & 31)) >> 32);
      uint32_t brev = 0;
      for (int b = 0; b < 32; ++b) brev |= ((u >> b) & 1) << (31 - b);
      uint32_t bits = ballot ^ std::popcount(u) ^ brev ^ std::countl_zero(u) ^
                      perm ^ funnel;
      EXPECT_EQ(got[i].bits, bits) << i;
      EXPECT_EQ(got[i].rounded, static_cast<int32_t>(std::nearbyint(f))) << i;
      // Toward zero: keep the 24 leading significant bits.
      int drop = std::max(0, 32 - std::countl_zero(u) - 24);
      EXPECT_EQ(Bits(got[i].converted),
                Bits(static_cast<float>(u >> drop << drop)))
          << i;
      EXPECT_EQ(got[i].half, std::bit_cast<uint16_t>(static_cast<_Float16>(f)))
          << i;
      EXPECT_EQ(got[i].root, std::sqrt(static_cast<double>(u)) / 3.0) << i;
      EXPECT_LE(UlpDistance(got[i].sine, static_cast<float>(
                                             std::sin(static_cast<double>(f)))),
                2)
          << i << " sinf(" << f << ")";
      EXPECT_LE(
          UlpDistance(got[i].exponential, static_cast<float>(std::exp(
                                              static_cast<double>(f / 64.0f)))),
          2)
          << i;
      EXPECT_LE(UlpDistance(got[i].logarithm,
                            static_cast<float>(std::log(
                                static_cast<double>(std::fabs(f) + 1.0f)))),
                1)
          << i;
    }
    uint64_t calls = memory.SymbolAddress("g_calls");
    ASSERT_NE(calls, 0u);
    EXPECT_EQ(Download<uint32_t>(memory, calls, 1)[0],
              static_cast<uint32_t>(n));
    EXPECT_EQ(Download<float>(memory, dmax, 1)[0],
              *std::max_element(fin.begin(), fin.end()));
  }
}

}  // namespace
}  // namespace colo::ptx
