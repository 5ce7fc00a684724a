// JIT linking of two PTX inputs: the kernel's module declares a device
// function (.extern) that the second input defines, as code built with
// separate compilation is linked at run time. p[i] = twice(i) + 1 = 2i + 1.
// A third input defining the same function again cannot be linked:
// cuLinkComplete fails.
#include <cstdio>
#include <vector>

#include "driver_check.h"

static const char kKernelPtx[] = R"ptx(
.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 r) twice(.param .b32 x);

.visible .entry fill(.param .u64 p, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.s32 %p1, %r5, %r1;
  @%p1 bra DONE;
  {
    .param .b32 arg;
    st.param.b32 [arg], %r5;
    .param .b32 ret;
    call.uni (ret), twice, (arg);
    ld.param.b32 %r6, [ret];
  }
  add.s32 %r7, %r6, 1;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.s32 %rd3, %r5, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r7;
DONE:
  ret;
}
)ptx";

static const char kHelperPtx[] = R"ptx(
.version 8.0
.target sm_80
.address_size 64

.visible .func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  shl.b32 %r2, %r1, 1;
  st.param.b32 [r], %r2;
  ret;
}
)ptx";

static int Add(CUlinkState link, const char* ptx, size_t size,
               const char* name) {
  CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)ptx, size, name, 0,
                         nullptr, nullptr));
  return 0;
}

int main() {
  CU_CHECK(cuInit(0));
  CUdevice dev;
  CU_CHECK(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU_CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));

  CUlinkState link;
  CU_CHECK(cuLinkCreate(0, nullptr, nullptr, &link));
  if (int r = Add(link, kKernelPtx, sizeof(kKernelPtx), "fill.ptx")) return r;
  if (int r = Add(link, kHelperPtx, sizeof(kHelperPtx), "twice.ptx")) return r;
  void* image = nullptr;
  size_t image_size = 0;
  CU_CHECK(cuLinkComplete(link, &image, &image_size));
  CUmodule module;
  CU_CHECK(cuModuleLoadData(&module, image));
  CU_CHECK(cuLinkDestroy(link));

  CUfunction fill;
  CU_CHECK(cuModuleGetFunction(&fill, module, "fill"));
  const int n = 1000;
  CUdeviceptr p;
  CU_CHECK(cuMemAlloc(&p, n * sizeof(int)));
  int nn = n;
  void* args[] = {&p, &nn};
  CU_CHECK(cuLaunchKernel(fill, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr,
                          args, nullptr));
  std::vector<int> host(n, 0);
  CU_CHECK(cuMemcpyDtoH(host.data(), p, n * sizeof(int)));
  for (int i = 0; i < n; ++i) EXPECT(host[i] == 2 * i + 1);
  CU_CHECK(cuMemFree(p));
  CU_CHECK(cuModuleUnload(module));

  // `twice` defined twice: the link fails (its error is the driver's).
  CUlinkState twice;
  CU_CHECK(cuLinkCreate(0, nullptr, nullptr, &twice));
  if (int r = Add(twice, kKernelPtx, sizeof(kKernelPtx), "fill.ptx")) return r;
  if (int r = Add(twice, kHelperPtx, sizeof(kHelperPtx), "a.ptx")) return r;
  if (int r = Add(twice, kHelperPtx, sizeof(kHelperPtx), "b.ptx")) return r;
  EXPECT(cuLinkComplete(twice, &image, &image_size) != CUDA_SUCCESS);
  CU_CHECK(cuLinkDestroy(twice));

  CU_CHECK(cuCtxDestroy(ctx));
  return CorpusOk();
}
