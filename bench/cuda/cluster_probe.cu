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
    const int z0 = (int)blockIdx.z * kz;
    const PlaneLane me(n, p, y, lane >= 3 && lane < 3 + OX && p < n && warp >= 3 && warp < 3 + OY && y < n, z0, min(z0 + kz, n));
    __shared__ float yrow[2][W][32]; /* the y-neighbours' values, as the kernel's rings */
    float a = 0, b = 0, c = 0, d = 0, acc = 0, uo = 0, vo = 0, wo = 0;
    const int L0 = max(me.z0 - 3, 0), L1 = min(me.z1 + 2, n - 1);
    for (int L = L0; L <= L1 + 3; L++) {
        me.store(ou, ov, ow, L - 3, uo, vo, wo, acc);
        const float nb = yrow[(L + 1) & 1][warp > 0 ? warp - 1 : 0][lane] + yrow[(L + 1) & 1][warp < W - 1 ? warp + 1 : W - 1][lane];
        acc += busy<K>(a + b + c + d + nb * 1e-30f);
        yrow[L & 1][warp][lane] = acc;
        L += after(acc);
        me.load_old(u, v, w, L - 2, uo, vo, wo);
        me.load_cell(u, v, w, L, L1, a, b, c, d);
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
    const int z0 = (int)blockIdx.z * kz;
    const PlaneLane me(n, p, y, p < n && warp >= 3 && warp < 3 + OY && y < n, z0, min(z0 + kz, n));
    __shared__ float yrow[2][W][32];
    __shared__ float edge[2][W][2][E]; /* [step parity][warp][0: lane 0's values, 1: lane 31's][value] */
    /* the neighbouring blocks' edges: the left block's lane-31 values, the right block's lane-0 values */
    const float *left = cl.map_shared_rank(&edge[0][0][0][0], rank > 0 ? rank - 1 : rank);
    const float *right = cl.map_shared_rank(&edge[0][0][0][0], rank < CX - 1 ? rank + 1 : rank);
    for (int i = threadIdx.x; i < 2 * W * 2 * E; i += blockDim.x) (&edge[0][0][0][0])[i] = 0.0f;
    cl.sync();
    if (SPLIT) cluster_arrive(); /* the phase the first step's wait completes */
    float a = 0, b = 0, c = 0, d = 0, acc = 0, uo = 0, vo = 0, wo = 0;
    const int L0 = max(me.z0 - 3, 0), L1 = min(me.z1 + 2, n - 1);
    for (int L = L0; L <= L1 + 3; L++) {
        me.store(ou, ov, ow, L - 3, uo, vo, wo, acc);
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
        me.load_old(u, v, w, L - 2, uo, vo, wo);
        me.load_cell(u, v, w, L, L1, a, b, c, d);
        if (!SPLIT) cl.sync();
    }
    if (SPLIT) cluster_wait(); /* no block leaves while a neighbour may still read its edges */
    cl.sync();
    if (acc == 12345.0f) ou[0] = acc;
}

int main() {
    const Faces3D f(256);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    const double copy = probe_copy_bandwidth(e0, e1);
    const int n = f.n;
    /* one form over z-chunks of kz planes (rows: the block's warps, written: the rows it writes, x: blocks along x);
     * clusters of CX blocks also report how many fit at once */
    auto run = [&](auto kern, const char *name, int rows, int x, int chunks, bool cluster) {
        const int written = rows - 5, kz = (n + chunks - 1) / chunks;
        const dim3 g(x, (n + written - 1) / written, (n + kz - 1) / kz);
        cudaFuncSetAttribute((const void *)kern, cudaFuncAttributeMaxDynamicSharedMemorySize, ONE_PER_SM);
        int active = 0;
        if (cluster) {
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = g;
            cfg.blockDim = dim3(32 * rows);
            cfg.dynamicSmemBytes = ONE_PER_SM;
            cudaOccupancyMaxActiveClusters(&active, (void *)kern, &cfg);
        }
        const float ms = probe_b2b_ms(e0, e1, [&]() { kern<<<g, 32 * rows, ONE_PER_SM>>>(f.u, f.v, f.w, f.ou, f.ov, f.ow, n, kz); }, 2);
        printf("%-38s %4d blocks, kz %3d: b2b %.4f ms (%.1f%%)", name, g.x * g.y * g.z, kz, ms, probe_pct(f.bytes(), ms, copy));
        if (cluster) printf(", %d clusters at once", active);
        printf(" %s\n", cudaGetErrorString(cudaGetLastError()));
    };
    const int tx = (n + 26) / 27, cx = n / 32;
    run(k_halo<25, 0>, "halo 25 rows, K 0", 25, tx, 1, false);
    run(k_halo<25, 48>, "halo 25 rows, K 48", 25, tx, 1, false);
    run(k_halo<25, 96>, "halo 25 rows, K 96", 25, tx, 1, false);
    run(k_cluster<25, 0, true, false>, "cluster 25 rows, K 0, split, no edges", 25, cx, 1, true);
    run(k_cluster<25, 0, false, false>, "cluster 25 rows, K 0, sync, no edges", 25, cx, 1, true);
    for (int chunks = 1; chunks <= 2; chunks++) {
        run(k_cluster<25, 0, false>, "cluster 25 rows, K 0, sync", 25, cx, chunks, true);
        run(k_cluster<25, 0, true>, "cluster 25 rows, K 0, split", 25, cx, chunks, true);
        run(k_cluster<21, 0, true>, "cluster 21 rows, K 0, split", 21, cx, chunks, true);
        run(k_cluster<25, 48, false>, "cluster 25 rows, K 48, sync", 25, cx, chunks, true);
        run(k_cluster<25, 48, true>, "cluster 25 rows, K 48, split", 25, cx, chunks, true);
        run(k_cluster<21, 48, true>, "cluster 21 rows, K 48, split", 21, cx, chunks, true);
        run(k_cluster<25, 96, true>, "cluster 25 rows, K 96, split", 25, cx, chunks, true);
        run(k_cluster<21, 96, true>, "cluster 21 rows, K 96, split", 21, cx, chunks, true);
    }
}
