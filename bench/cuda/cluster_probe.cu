/* Can a 3D vorticity kernel without recomputed x-halo columns pay for itself? The 3D kernel (vort_tile.cuh
 * Vort3Warp) recomputes 3 + 2 halo columns of each warp's 32 and 5 halo rows of each block's 25, so 0.675 of its
 * lanes' work is written. Here its access pattern (plane_probe.cu k_planes: a block of W warps, one row each, a
 * lane a column, marching z, the kernel's loads and stores per plane) with K float operations per step (busy<K>,
 * probe_common.cuh) is compared with the same pattern in clusters of 8 blocks side by side along x, which cover
 * a whole 256-column row: every lane writes, and lanes 0 and 31 of each warp take E edge values of the neighbouring
 * block's lanes 31 and 0 from distributed shared memory (written the step before, slot by step parity), behind a
 * cluster barrier per plane instead of the block's (whole, or split: arrive after the edges are written, wait
 * after half of the next step's arithmetic). 3D 256^3; back to back, % of copy. Timing only. Not built by CMake;
 * on a machine with an NVIDIA GPU:
 *   nvcc -O3 -arch=sm_90 -o /tmp/cluster_probe bench/cuda/cluster_probe.cu && /tmp/cluster_probe */
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>
#include "probe_common.cuh"

namespace cg = cooperative_groups;

constexpr int CX = 8, E = 8; /* blocks per cluster along x; edge values per lane and step */
/* dynamic shared memory that leaves room for one block per SM, as the kernel's 72 registers do */
constexpr int ONE_PER_SM = 120 * 1024;

/* the pattern of plane_probe.cu k_planes (barrier per plane) with busy<K>: 27 x (W - 5) written of 32 x W */
template <int W, int K>
__global__ void __launch_bounds__(32 * W, 1) k_halo(const float *__restrict__ u, const float *__restrict__ v,
                                                   const float *__restrict__ w, float *__restrict__ ou,
                                                   float *__restrict__ ov, float *__restrict__ ow, int n, int kz) {
    constexpr int OX = 27, OY = W - 5;
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const int p = (int)blockIdx.x * OX - 3 + lane, y = (int)blockIdx.y * OY - 3 + warp;
    const int col = min(max(p, 0), n - 1), row = min(max(y, 0), n - 1);
    const bool wr = lane >= 3 && lane < 3 + OX && p < n && warp >= 3 && warp < 3 + OY && y < n;
    const int z0 = (int)blockIdx.z * kz, z1 = min(z0 + kz, n);
    const size_t su = (size_t)(n + 1) * n, sv = (size_t)n * (n + 1), sw = (size_t)n * n;
    __shared__ float yrow[2][W][32]; /* the y-neighbours' values, as the kernel's rings */
    float a = 0, b = 0, c = 0, d = 0, acc = 0, uo = 0, vo = 0, wo = 0;
    const int L0 = max(z0 - 3, 0), L1 = min(z1 + 2, n - 1);
    for (int L = L0; L <= L1 + 3; L++) {
        int t = L - 3;
        if (t >= z0 && t < z1 && wr) {
            ou[p + (size_t)(n + 1) * y + su * t] = uo + acc * 1e-30f;
            ov[p + (size_t)n * y + sv * t] = vo + acc * 1e-30f;
            ow[p + (size_t)n * y + sw * t] = wo + acc * 1e-30f;
        }
        const float nb = yrow[(L + 1) & 1][warp > 0 ? warp - 1 : 0][lane] + yrow[(L + 1) & 1][warp < W - 1 ? warp + 1 : W - 1][lane];
        acc += busy<K>(a + b + c + d + nb * 1e-30f);
        yrow[L & 1][warp][lane] = acc;
        L += after(acc);
        t = L - 3;
        if (t + 1 >= z0 && t + 1 < z1 && wr) {
            uo = u[p + (size_t)(n + 1) * y + su * (t + 1)];
            vo = v[p + (size_t)n * y + sv * (t + 1)];
            wo = w[p + (size_t)n * y + sw * (t + 1)];
        }
        if (L <= L1) {
            const size_t iu = col + (size_t)(n + 1) * row + su * L;
            a = u[iu];
            b = u[iu + 1];
            c = v[col + (size_t)n * (row + 1) + sv * L];
            d = w[col + (size_t)n * row + sw * (L + 1)];
        }
        __syncthreads();
    }
    if (acc == 12345.0f) ou[0] = acc;
}

__device__ inline void cluster_arrive() { asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory"); }
__device__ inline void cluster_wait() { asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory"); }

/* the same in clusters of CX blocks along x: 32 x (W - 5) written of 32 x W; SPLIT: arrive / wait apart */
template <int W, int K, bool SPLIT, bool EDGES = true>
__global__ void __cluster_dims__(CX, 1, 1) __launch_bounds__(32 * W, 1)
    k_cluster(const float *__restrict__ u, const float *__restrict__ v, const float *__restrict__ w, float *__restrict__ ou,
              float *__restrict__ ov, float *__restrict__ ow, int n, int kz) {
    constexpr int OY = W - 5;
    cg::cluster_group cl = cg::this_cluster();
    const int rank = (int)cl.block_rank();
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const int p = (int)blockIdx.x * 32 + lane, y = (int)blockIdx.y * OY - 3 + warp;
    const int col = min(p, n - 1), row = min(max(y, 0), n - 1);
    const bool wr = p < n && warp >= 3 && warp < 3 + OY && y < n;
    const int z0 = (int)blockIdx.z * kz, z1 = min(z0 + kz, n);
    const size_t su = (size_t)(n + 1) * n, sv = (size_t)n * (n + 1), sw = (size_t)n * n;
    __shared__ float yrow[2][W][32];
    __shared__ float edge[2][W][2][E]; /* [step parity][warp][0: lane 0's values, 1: lane 31's][value] */
    /* the neighbouring blocks' edges: the left block's lane-31 values, the right block's lane-0 values */
    const float *left = cl.map_shared_rank(&edge[0][0][0][0], rank > 0 ? rank - 1 : rank);
    const float *right = cl.map_shared_rank(&edge[0][0][0][0], rank < CX - 1 ? rank + 1 : rank);
    for (int i = threadIdx.x; i < 2 * W * 2 * E; i += blockDim.x) (&edge[0][0][0][0])[i] = 0.0f;
    cl.sync();
    if (SPLIT) cluster_arrive(); /* the phase the first step's wait completes */
    float a = 0, b = 0, c = 0, d = 0, acc = 0, uo = 0, vo = 0, wo = 0;
    const int L0 = max(z0 - 3, 0), L1 = min(z1 + 2, n - 1);
    for (int L = L0; L <= L1 + 3; L++) {
        int t = L - 3;
        if (t >= z0 && t < z1 && wr) {
            ou[p + (size_t)(n + 1) * y + su * t] = uo + acc * 1e-30f;
            ov[p + (size_t)n * y + sv * t] = vo + acc * 1e-30f;
            ow[p + (size_t)n * y + sw * t] = wo + acc * 1e-30f;
        }
        /* half the step's arithmetic needs nothing of the other blocks */
        float x = busy<K / 2>(a + b + c + d);
        if (SPLIT) cluster_wait(); /* the step before's edges and rows are there */
        const int s = (L + 1) & 1; /* the slot the step before wrote */
        float nb = yrow[s][warp > 0 ? warp - 1 : 0][lane] + yrow[s][warp < W - 1 ? warp + 1 : W - 1][lane];
        if (EDGES && (lane == 0 || lane == 31)) {
            const float *src = (lane == 0 ? left : right) + ((s * W + warp) * 2 + (lane == 0 ? 1 : 0)) * E;
#pragma unroll
            for (int e = 0; e < E; e++) nb += src[e];
        }
        acc += busy<K - K / 2>(x + nb * 1e-30f);
        yrow[L & 1][warp][lane] = acc;
        if (lane == 0 || lane == 31)
#pragma unroll
            for (int e = 0; e < E; e++) edge[L & 1][warp][lane == 0 ? 0 : 1][e] = acc + (float)e;
        if (SPLIT) cluster_arrive();
        L += after(acc);
        t = L - 3;
        if (t + 1 >= z0 && t + 1 < z1 && wr) {
            uo = u[p + (size_t)(n + 1) * y + su * (t + 1)];
            vo = v[p + (size_t)n * y + sv * (t + 1)];
            wo = w[p + (size_t)n * y + sw * (t + 1)];
        }
        if (L <= L1) {
            const size_t iu = col + (size_t)(n + 1) * row + su * L;
            a = u[iu];
            b = u[iu + 1];
            c = v[col + (size_t)n * (row + 1) + sv * L];
            d = w[col + (size_t)n * row + sw * (L + 1)];
        }
        if (!SPLIT) cl.sync();
    }
    if (SPLIT) cluster_wait(); /* no block leaves while a neighbour may still read its edges */
    cl.sync();
    if (acc == 12345.0f) ou[0] = acc;
}

int main() {
    const int n = 256;
    const size_t nu = (size_t)(n + 1) * n * n, nw = (size_t)n * n * (n + 1);
    float *u, *v, *w, *ou, *ov, *ow;
    cudaMalloc(&u, nu * 4); cudaMalloc(&v, nu * 4); cudaMalloc(&w, nw * 4);
    cudaMalloc(&ou, nu * 4); cudaMalloc(&ov, nu * 4); cudaMalloc(&ow, nw * 4);
    cudaMemset(u, 0, nu * 4); cudaMemset(v, 0, nu * 4); cudaMemset(w, 0, nw * 4);
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    const double copy = probe_copy_bandwidth(e0, e1), bytes = 8.0 * (2 * nu + nw);
    /* chunks of z: `chunks` per column of blocks */
    auto halo = [&](auto kern, int W, int chunks, const char *name) {
        const int ty = (n + W - 5 - 1) / (W - 5), tx = (n + 26) / 27, kz = (n + chunks - 1) / chunks;
        const dim3 g(tx, ty, (n + kz - 1) / kz);
        cudaFuncSetAttribute((const void *)kern, cudaFuncAttributeMaxDynamicSharedMemorySize, ONE_PER_SM);
        const float ms = probe_b2b_ms(e0, e1, [&]() { kern<<<g, 32 * W, ONE_PER_SM>>>(u, v, w, ou, ov, ow, n, kz); }, 2);
        printf("%-34s %4d blocks, kz %3d: b2b %.4f ms (%.1f%%) %s\n", name, g.x * g.y * g.z, kz, ms, probe_pct(bytes, ms, copy),
               cudaGetErrorString(cudaGetLastError()));
    };
    auto clus = [&](auto kern, int W, int chunks, const char *name) {
        const int ty = (n + W - 5 - 1) / (W - 5), kz = (n + chunks - 1) / chunks;
        const dim3 g(n / 32, ty, (n + kz - 1) / kz);
        int active = 0;
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = g;
        cfg.blockDim = dim3(32 * W);
        cfg.dynamicSmemBytes = ONE_PER_SM;
        cudaFuncSetAttribute((const void *)kern, cudaFuncAttributeMaxDynamicSharedMemorySize, ONE_PER_SM);
        cudaOccupancyMaxActiveClusters(&active, (void *)kern, &cfg);
        const float ms = probe_b2b_ms(e0, e1, [&]() { kern<<<g, 32 * W, ONE_PER_SM>>>(u, v, w, ou, ov, ow, n, kz); }, 2);
        printf("%-34s %4d blocks, kz %3d: b2b %.4f ms (%.1f%%), %d clusters at once %s\n", name, g.x * g.y * g.z, kz, ms,
               probe_pct(bytes, ms, copy), active, cudaGetErrorString(cudaGetLastError()));
    };
    halo(k_halo<25, 0>, 25, 1, "halo 25 rows, K 0");
    halo(k_halo<25, 48>, 25, 1, "halo 25 rows, K 48");
    halo(k_halo<25, 96>, 25, 1, "halo 25 rows, K 96");
    clus(k_cluster<25, 0, true, false>, 25, 1, "cluster 25 rows, K 0, split, no edges");
    clus(k_cluster<25, 0, false, false>, 25, 1, "cluster 25 rows, K 0, sync, no edges");
    for (int chunks = 1; chunks <= 2; chunks++) {
        clus(k_cluster<25, 0, false>, 25, chunks, "cluster 25 rows, K 0, sync");
        clus(k_cluster<25, 0, true>, 25, chunks, "cluster 25 rows, K 0, split");
        clus(k_cluster<21, 0, true>, 21, chunks, "cluster 21 rows, K 0, split");
        clus(k_cluster<25, 48, false>, 25, chunks, "cluster 25 rows, K 48, sync");
        clus(k_cluster<25, 48, true>, 25, chunks, "cluster 25 rows, K 48, split");
        clus(k_cluster<21, 48, true>, 21, chunks, "cluster 21 rows, K 48, split");
        clus(k_cluster<25, 96, true>, 25, chunks, "cluster 25 rows, K 96, split");
        clus(k_cluster<21, 96, true>, 21, chunks, "cluster 21 rows, K 96, split");
    }
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
