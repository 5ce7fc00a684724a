// Conditional nodes, as iterative solvers keep their loop on the GPU: a
// WHILE node whose body kernel decrements a counter and clears the handle
// when it reaches zero, and an IF / ELSE node chosen by a kernel's test.
// The handles are made with default values and cudaGraphCondAssignDefault,
// so each launch starts from them.
// Math: a kernel node before the loop copies c0 into the counter, zeroes
// `sum`, and sets the loop's handle to (c0 != 0); each pass of the WHILE
// body adds the counter to `sum` and decrements it, clearing the handle at
// zero, so the body runs c0 times and sum = c0 + (c0 - 1) + ... + 1 =
// c0 (c0 + 1) / 2, the counter ends at 0. The IF node's handle is set to
// (sum > 10): body 0 writes 1 to `branch`, body 1 (ELSE) writes 2.
// Launches with c0 = 5 (sum 15: IF), 0 (no pass, sum 0: ELSE) and 3
// (sum 6: ELSE). A SWITCH node of 3 bodies, its handle set to c0 % 4 by a
// kernel, runs body n (writing 10 + n to `which`) for n < 3 and none for
// 3: which = 11, 10, and 0 (left as the memset before the launch).
#include "corpus_check.h"

__global__ void Start(int* counter, int* sum, const int* c0,
                      cudaGraphConditionalHandle loop) {
  *counter = *c0;
  *sum = 0;
  cudaGraphSetConditional(loop, *c0 != 0 ? 1u : 0u);
}
__global__ void Step(int* counter, int* sum, cudaGraphConditionalHandle loop) {
  *sum += *counter;
  if (--*counter == 0) cudaGraphSetConditional(loop, 0);
}
__global__ void Test(const int* sum, cudaGraphConditionalHandle branch) {
  cudaGraphSetConditional(branch, *sum > 10 ? 1u : 0u);
}
__global__ void Mark(int* where, int value) { *where = value; }
__global__ void Pick(const int* c0, cudaGraphConditionalHandle pick) {
  cudaGraphSetConditional(pick, (unsigned)(*c0 % 4));
}

static cudaGraphNode_t AddKernel(cudaGraph_t g, const cudaGraphNode_t* dep,
                                 void* func, void** args) {
  cudaGraphNodeParams p = {cudaGraphNodeTypeKernel};
  p.kernel.func = func;
  p.kernel.gridDim = dim3(1);
  p.kernel.blockDim = dim3(1);
  p.kernel.kernelParams = args;
  cudaGraphNode_t node = nullptr;
  if (cudaGraphAddNode(&node, g, dep, nullptr, dep ? 1 : 0, &p) != cudaSuccess)
    return nullptr;
  return node;
}

int main() {
  int *counter, *sum, *branch, *which, *c0;
  CUDA_CHECK(cudaMalloc(&counter, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&sum, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&branch, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&which, sizeof(int)));
  CUDA_CHECK(cudaMallocManaged(&c0, sizeof(int)));

  cudaGraph_t graph;
  CUDA_CHECK(cudaGraphCreate(&graph, 0));
  cudaGraphConditionalHandle loop, test, pick;
  CUDA_CHECK(cudaGraphConditionalHandleCreate(&loop, graph, 1,
                                              cudaGraphCondAssignDefault));
  CUDA_CHECK(cudaGraphConditionalHandleCreate(&test, graph, 0,
                                              cudaGraphCondAssignDefault));
  CUDA_CHECK(cudaGraphConditionalHandleCreate(&pick, graph, 0,
                                              cudaGraphCondAssignDefault));

  void* start_args[] = {&counter, &sum, &c0, &loop};
  cudaGraphNode_t start = AddKernel(graph, nullptr, (void*)Start, start_args);
  EXPECT(start != nullptr);

  cudaGraphNodeParams cp = {cudaGraphNodeTypeConditional};
  cp.conditional.handle = loop;
  cp.conditional.type = cudaGraphCondTypeWhile;
  cp.conditional.size = 1;
  cudaGraphNode_t while_node;
  CUDA_CHECK(cudaGraphAddNode(&while_node, graph, &start, nullptr, 1, &cp));
  cudaGraph_t loop_body = cp.conditional.phGraph_out[0];
  void* step_args[] = {&counter, &sum, &loop};
  EXPECT(AddKernel(loop_body, nullptr, (void*)Step, step_args) != nullptr);

  void* test_args[] = {&sum, &test};
  cudaGraphNode_t tested =
      AddKernel(graph, &while_node, (void*)Test, test_args);
  EXPECT(tested != nullptr);
  cp = {cudaGraphNodeTypeConditional};
  cp.conditional.handle = test;
  cp.conditional.type = cudaGraphCondTypeIf;
  cp.conditional.size = 2;  // IF and ELSE
  cudaGraphNode_t if_node;
  CUDA_CHECK(cudaGraphAddNode(&if_node, graph, &tested, nullptr, 1, &cp));
  cudaGraph_t then_body = cp.conditional.phGraph_out[0];
  cudaGraph_t else_body = cp.conditional.phGraph_out[1];
  int one = 1, two = 2;
  void* then_args[] = {&branch, &one};
  void* else_args[] = {&branch, &two};
  EXPECT(AddKernel(then_body, nullptr, (void*)Mark, then_args) != nullptr);
  EXPECT(AddKernel(else_body, nullptr, (void*)Mark, else_args) != nullptr);

  // The SWITCH, after a kernel picks its body; independent of the rest.
  void* pick_args[] = {&c0, &pick};
  cudaGraphNode_t picked = AddKernel(graph, nullptr, (void*)Pick, pick_args);
  EXPECT(picked != nullptr);
  cp = {cudaGraphNodeTypeConditional};
  cp.conditional.handle = pick;
  cp.conditional.type = cudaGraphCondTypeSwitch;
  cp.conditional.size = 3;
  cudaGraphNode_t switch_node;
  CUDA_CHECK(cudaGraphAddNode(&switch_node, graph, &picked, nullptr, 1, &cp));
  int cases[3] = {10, 11, 12};
  void* case_args[3][2] = {
      {&which, &cases[0]}, {&which, &cases[1]}, {&which, &cases[2]}};
  for (int n = 0; n < 3; ++n) {
    EXPECT(AddKernel(cp.conditional.phGraph_out[n], nullptr, (void*)Mark,
                     case_args[n]) != nullptr);
  }

  cudaGraphExec_t exec;
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreate(&s));
  const int starts[] = {5, 0, 3};
  for (int c : starts) {
    *c0 = c;
    CUDA_CHECK(cudaMemset(branch, 0, sizeof(int)));
    CUDA_CHECK(cudaMemset(which, 0, sizeof(int)));
    CUDA_CHECK(cudaGraphLaunch(exec, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    int got_sum = -1, got_counter = -1, got_branch = -1, got_which = -1;
    CUDA_CHECK(
        cudaMemcpy(&got_which, which, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&got_sum, sum, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(
        cudaMemcpy(&got_counter, counter, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(
        cudaMemcpy(&got_branch, branch, sizeof(int), cudaMemcpyDeviceToHost));
    const int expect_sum = c * (c + 1) / 2;  // c + (c - 1) + ... + 1
    std::printf("c0=%d: sum=%d counter=%d branch=%d which=%d\n", c, got_sum,
                got_counter, got_branch, got_which);
    EXPECT(got_sum == expect_sum);
    EXPECT(got_counter == 0);
    EXPECT(got_branch == (expect_sum > 10 ? 1 : 2));
    EXPECT(got_which == (c % 4 < 3 ? 10 + c % 4 : 0));
  }
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(s));
  CUDA_CHECK(cudaFree(counter));
  CUDA_CHECK(cudaFree(sum));
  CUDA_CHECK(cudaFree(branch));
  CUDA_CHECK(cudaFree(which));
  CUDA_CHECK(cudaFree(c0));
  return CorpusOk();
}
