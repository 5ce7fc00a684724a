// cuBLAS's arithmetic on the host (blas_compute.h).
#include "shim/blas_compute.h"

#include <cmath>
#include <cstring>

#include "cuda/cublas_abi.h"
#include "shim/blas_common.h"

namespace colo::shim::blas {
namespace {

using namespace colo::cuda;  // kData*, kBlasOp*

double HalfToDouble(uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double v;
  if (exponent == 0) {
    v = std::ldexp(mantissa, -24);
  } else if (exponent == 31) {
    v = mantissa != 0 ? NAN : INFINITY;
  } else {
    v = std::ldexp(mantissa + 1024, exponent - 25);
  }
  return sign ? -v : v;
}

// Round to nearest even, with overflow to infinity and subnormals.
uint16_t DoubleToHalf(double d) {
  const uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  d = std::fabs(d);
  if (std::isnan(d)) return sign | 0x7e00;
  if (d >= 65520.0) return sign | 0x7c00;  // rounds to infinity
  if (d < std::ldexp(1.0, -14)) {          // subnormal: units of 2^-24
    return sign | static_cast<uint16_t>(std::nearbyint(std::ldexp(d, 24)));
  }
  int exponent = 0;
  const double fraction = std::frexp(d, &exponent);  // d = f 2^e, f in [.5, 1)
  long mantissa = std::lrint(std::ldexp(fraction, 11));  // 11 bits, rounded
  if (mantissa == 2048) mantissa = 1024, ++exponent;
  const int biased = exponent - 1 + 15;
  return sign | static_cast<uint16_t>(biased << 10) |
         static_cast<uint16_t>(mantissa - 1024);
}

double Bf16ToDouble(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t DoubleToBf16(double d) {
  const float f = static_cast<float>(d);
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  if (std::isnan(f)) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);  // to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

double Load(const void* base, int64_t index, int type) {
  const auto* p = static_cast<const uint8_t*>(base);
  switch (type) {
    case kDataR64F: {
      double v;
      std::memcpy(&v, p + index * 8, 8);
      return v;
    }
    case kDataR16F:
    case kDataR16BF: {
      uint16_t v;
      std::memcpy(&v, p + index * 2, 2);
      return type == kDataR16F ? HalfToDouble(v) : Bf16ToDouble(v);
    }
    default: {
      float v;
      std::memcpy(&v, p + index * 4, 4);
      return v;
    }
  }
}

void Store(void* base, int64_t index, int type, double v) {
  auto* p = static_cast<uint8_t*>(base);
  switch (type) {
    case kDataR64F:
      std::memcpy(p + index * 8, &v, 8);
      return;
    case kDataR16F:
    case kDataR16BF: {
      const uint16_t h = type == kDataR16F ? DoubleToHalf(v) : DoubleToBf16(v);
      std::memcpy(p + index * 2, &h, 2);
      return;
    }
    default: {
      const float f = static_cast<float>(v);
      std::memcpy(p + index * 4, &f, 4);
    }
  }
}

const void* Offset(const void* base, int64_t elements, int type) {
  return static_cast<const uint8_t*>(base) + elements * ElementBytes(type);
}

// op(M)[row, col] of a column-major matrix with leading dimension ld.
double At(const void* m, int64_t ld, int op, int64_t row, int64_t col,
          int type) {
  return op == kBlasOpN ? Load(m, row + col * ld, type)
                        : Load(m, col + row * ld, type);
}

}  // namespace

void ComputeGemm(const GemmCall& c, const GemmEpilogue& e) {
  const int scalar = ScalarType(c);
  const double alpha = Load(c.alpha, 0, scalar);
  const double beta = Load(c.beta, 0, scalar);
  for (int64_t batch = 0; batch < c.batch; ++batch) {
    const void* a = c.a_array != nullptr
                        ? c.a_array[batch]
                        : Offset(c.a, batch * c.stride_a, c.a_type);
    const void* b = c.b_array != nullptr
                        ? c.b_array[batch]
                        : Offset(c.b, batch * c.stride_b, c.b_type);
    void* out =
        c.c_array != nullptr
            ? c.c_array[batch]
            : const_cast<void*>(Offset(c.c, batch * c.stride_c, c.c_type));
    if (a == nullptr || b == nullptr || out == nullptr) continue;
    void* d = e.d != nullptr
                  ? const_cast<void*>(Offset(e.d, batch * e.d_stride, e.d_type))
                  : out;
    const int64_t ldd = e.d != nullptr ? e.ldd : c.ldc;
    const int d_type = e.d != nullptr ? e.d_type : c.c_type;
    for (int64_t j = 0; j < c.n; ++j) {
      for (int64_t i = 0; i < c.m; ++i) {
        double sum = 0;
        for (int64_t t = 0; t < c.k; ++t) {
          sum += At(a, c.lda, c.transa, i, t, c.a_type) *
                 At(b, c.ldb, c.transb, t, j, c.b_type);
        }
        double v = alpha * sum;
        if (beta != 0) v += beta * Load(out, i + j * c.ldc, c.c_type);
        if (e.bias != nullptr) v += Load(e.bias, i, e.bias_type);
        if (e.relu && v < 0) v = 0;
        if (e.gelu) {
          const double kSqrt2OverPi = 0.7978845608028654;
          v = 0.5 * v *
              (1 + std::tanh(kSqrt2OverPi * (v + 0.044715 * v * v * v)));
        }
        Store(d, i + j * ldd, d_type, v);
      }
    }
  }
}

void ComputeGemv(int trans, int64_t m, int64_t n, const void* alpha_p,
                 const void* a, int64_t lda, const void* x, int64_t incx,
                 const void* beta_p, void* y, int64_t incy, int type) {
  const double alpha = Load(alpha_p, 0, type), beta = Load(beta_p, 0, type);
  const int64_t rows = trans == kBlasOpN ? m : n;
  const int64_t cols = trans == kBlasOpN ? n : m;
  // A negative increment walks the vector from its far end, as BLAS does.
  auto index = [](int64_t i, int64_t inc, int64_t count) {
    return inc > 0 ? i * inc : (count - 1 - i) * -inc;
  };
  for (int64_t i = 0; i < rows; ++i) {
    double sum = 0;
    for (int64_t t = 0; t < cols; ++t) {
      sum +=
          At(a, lda, trans, i, t, type) * Load(x, index(t, incx, cols), type);
    }
    double v = alpha * sum;
    const int64_t yi = index(i, incy, rows);
    if (beta != 0) v += beta * Load(y, yi, type);
    Store(y, yi, type, v);
  }
}

}  // namespace colo::shim::blas
