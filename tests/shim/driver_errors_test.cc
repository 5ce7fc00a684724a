// cuGetErrorName / cuGetErrorString as the interposer answers them
// (src/shim/driver_errors.cc), against the toolkit's cuda.h: every CUresult
// named below has its enumerator's own name, its number is the header's,
// and a few strings are the driver's. The test calls them through cuda.h's
// declarations (CUresult is an int-sized enum: the same C ABI as the
// interposer's int), linked with driver_errors.cc.
#include <cuda.h>

#include <cstring>
#include <string>

#include "gtest/gtest.h"

namespace {

struct Named {
  CUresult value;
  const char* name;
};

#define COLO_NAMED(e) \
  Named { e, #e }

// A sample across the enum's ranges (0, 1xx, 2xx, 3xx, 4xx, 7xx, 8xx, 9xx).
const Named kSample[] = {
    COLO_NAMED(CUDA_SUCCESS),
    COLO_NAMED(CUDA_ERROR_INVALID_VALUE),
    COLO_NAMED(CUDA_ERROR_OUT_OF_MEMORY),
    COLO_NAMED(CUDA_ERROR_STUB_LIBRARY),
    COLO_NAMED(CUDA_ERROR_DEVICE_UNAVAILABLE),
    COLO_NAMED(CUDA_ERROR_INVALID_DEVICE),
    COLO_NAMED(CUDA_ERROR_INVALID_CONTEXT),
    COLO_NAMED(CUDA_ERROR_INVALID_PTX),
    COLO_NAMED(CUDA_ERROR_FILE_NOT_FOUND),
    COLO_NAMED(CUDA_ERROR_INVALID_HANDLE),
    COLO_NAMED(CUDA_ERROR_NOT_FOUND),
    COLO_NAMED(CUDA_ERROR_NOT_READY),
    COLO_NAMED(CUDA_ERROR_ILLEGAL_ADDRESS),
    COLO_NAMED(CUDA_ERROR_LAUNCH_FAILED),
    COLO_NAMED(CUDA_ERROR_NOT_SUPPORTED),
    COLO_NAMED(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED),
    COLO_NAMED(CUDA_ERROR_KEY_ROTATION),
    COLO_NAMED(CUDA_ERROR_UNKNOWN),
};

TEST(DriverErrorsTest, NamesAreTheHeadersEnumerators) {
  for (const Named& n : kSample) {
    const char* name = nullptr;
    ASSERT_EQ(cuGetErrorName(n.value, &name), CUDA_SUCCESS) << n.name;
    ASSERT_NE(name, nullptr);
    EXPECT_STREQ(name, n.name);
    const char* text = nullptr;
    ASSERT_EQ(cuGetErrorString(n.value, &text), CUDA_SUCCESS) << n.name;
    ASSERT_NE(text, nullptr);
    EXPECT_GT(std::strlen(text), 0u) << n.name;
  }
}

TEST(DriverErrorsTest, StringsAreTheDriversForCommonErrors) {
  const char* text = nullptr;
  ASSERT_EQ(cuGetErrorString(CUDA_SUCCESS, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "no error");
  ASSERT_EQ(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "invalid argument");
  ASSERT_EQ(cuGetErrorString(CUDA_ERROR_ILLEGAL_ADDRESS, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "an illegal memory access was encountered");
  ASSERT_EQ(cuGetErrorString(CUDA_ERROR_NOT_SUPPORTED, &text), CUDA_SUCCESS);
  EXPECT_STREQ(text, "operation not supported");
}

// 12345 is no CUresult: the driver answers CUDA_ERROR_INVALID_VALUE and
// sets the string to null; a null out-pointer is refused the same way.
TEST(DriverErrorsTest, UnknownValuesAreInvalid) {
  const char* text = "unchanged";
  EXPECT_EQ(cuGetErrorString(static_cast<CUresult>(12345), &text),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(text, nullptr);
  text = "unchanged";
  EXPECT_EQ(cuGetErrorName(static_cast<CUresult>(12345), &text),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(text, nullptr);
  EXPECT_EQ(cuGetErrorName(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
}

}  // namespace
