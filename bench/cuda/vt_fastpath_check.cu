/* Checks vt_sqrt_fast (src/cuda/vort_tile.cuh, cuda_notes 73 and 203) against vt_sqrt on the device, bit for bit,
 * for every float (2^32 arguments; NaN against NaN of any payload). Not built by CMake; on a machine with a GPU:
 *   nvcc -std=c++17 -O3 -arch=sm_90 --fmad=false -Isrc/cuda -Isrc -Iinclude bench/cuda/vt_fastpath_check.cu \
 *     -o /tmp/vt_check && /tmp/vt_check
 * prints the number of arguments that differ (0 expected). */
#include "vort_tile.cuh"
#include <stdio.h>

using namespace ecu;

__global__ void k_sqrt(unsigned long long base, unsigned long long *bad) {
    const unsigned long long i = base + blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i > 0xffffffffull) return;
    const float s = __uint_as_float((unsigned)i);
    const float a = vt_sqrt_fast(s), b = vt_sqrt(s);
    if (__float_as_uint(a) != __float_as_uint(b) && !(a != a && b != b)) atomicAdd(bad, 1ull);
}
int main() {
    unsigned long long *d, h[1];
    cudaMalloc(&d, sizeof(unsigned long long));
    cudaMemset(d, 0, sizeof(unsigned long long));
    for (unsigned long long base = 0; base <= 0xffffffffull; base += 1ull << 30) k_sqrt<<<(1u << 30) / 256, 256>>>(base, d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    const cudaError_t e = cudaGetLastError();
    printf("sqrt: %llu of 2^32 floats differ %s\n", h[0], e == cudaSuccess ? "" : cudaGetErrorString(e));
    return h[0] || e != cudaSuccess;
}
