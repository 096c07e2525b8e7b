/* The memory access pattern of the 3D vorticity kernel (vort_tile.cuh Vort3Warp, k_forces.cu k_vort3w) without its
 * arithmetic, against a copy kernel in the same run (cuda_notes 212): a block of 25 warps owns 32 columns (27
 * written) and 25 rows (20 written) and marches z through its chunk of planes; per plane a lane loads the faces
 * the kernel loads (u[col], u[col + 1], the top v-face of its row, the w-face above its cell, the old u-, v- and
 * w-faces three planes down) and stores the new ones, with the kernel's barrier per plane or without it. 3D 256^3;
 * prints the single-call median and 10 calls back to back with % of copy; then wider pieces per warp (sub-strips,
 * cuda_notes 213) and the same marching y (217). Timing only. Not built by CMake; on a
 * machine with an NVIDIA GPU:
 *   nvcc -O3 -arch=sm_90 -o /tmp/plane_probe bench/cuda/plane_probe.cu && /tmp/plane_probe */
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include "probe_common.cuh"


constexpr int WARPS = 25, OUTX = 27, OUTY = 20;
template <bool BARRIER, bool AHEAD2>
__global__ void __launch_bounds__(32 * WARPS, 1) k_planes(const float *__restrict__ u, const float *__restrict__ v,
                                                          const float *__restrict__ w, float *__restrict__ ou,
                                                          float *__restrict__ ov, float *__restrict__ ow, int n, int kz) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const int p = (int)blockIdx.x * OUTX - 3 + lane, y = (int)blockIdx.y * OUTY - 3 + warp, z0 = (int)blockIdx.z * kz;
    const PlaneLane me(n, p, y, lane >= 3 && lane < 3 + OUTX && p < n && warp >= 3 && warp < 3 + OUTY && y < n, z0,
                       min(z0 + kz, n));
    float a = 0, b = 0, c = 0, d = 0, acc = 0, uo = 0, vo = 0, wo = 0, a2 = 0, b2 = 0, c2 = 0, d2 = 0;
    const int L0 = max(me.z0 - 3, 0), L1 = min(me.z1 + 2, n - 1);
    for (int L = L0; L <= L1 + 3; L++) {
        float na = 0, nb = 0, nc = 0, nd = 0, nuo = 0, nvo = 0, nwo = 0;
        /* this step consumes what the step before loaded, then loads for the next (as the kernel: cuda_notes 180) */
        me.store(ou, ov, ow, L - 3, uo, vo, wo, acc);
        acc += a + b + c + d;
        L += after(acc);
        me.load_old(u, v, w, L - 2, nuo, nvo, nwo); /* the old faces a step ahead, as the kernel loads them */
        me.load_cell(u, v, w, AHEAD2 ? L + 1 : L, L1, na, nb, nc, nd); /* the plane loaded now */
        if (AHEAD2) a = a2, b = b2, c = c2, d = d2, a2 = na, b2 = nb, c2 = nc, d2 = nd;
        else a = na, b = nb, c = nc, d = nd;
        uo = nuo, vo = nvo, wo = nwo;
        if (BARRIER) __syncthreads();
    }
    if (acc == 12345.0f) ou[0] = acc;
}

/* NCS sub-strips of 32 columns per warp (lane l owns columns X0 + 32 c + l: 32 NCS - 5 written) and W rows per block
 * (W - 5 written), the kernel's loads and stores per sub-strip, a barrier per step; kz planes per block. YM: the
 * roles of y and z swapped (a block owns W planes and marches along y through a chunk of rows, so that a warp's
 * successive accesses are rows 4 (n + 1) bytes apart instead of planes) */
template <int NCS, int W, int MINB, bool YM>
__global__ void __launch_bounds__(32 * W, MINB) k_planes_sub(const float *__restrict__ u, const float *__restrict__ v,
                                                             const float *__restrict__ w, float *__restrict__ ou,
                                                             float *__restrict__ ov, float *__restrict__ ow, int n, int kz) {
    constexpr int OX = 32 * NCS - 5, OY = W - 5;
    const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
    const int f = (int)blockIdx.y * OY - 3 + warp, fc = min(max(f, 0), n - 1); /* the warp's row (YM: plane) */
    int p[NCS], col[NCS];
    bool wr[NCS];
#pragma unroll
    for (int c = 0; c < NCS; c++) {
        p[c] = (int)blockIdx.x * OX - 3 + 32 * c + lane;
        col[c] = min(max(p[c], 0), n - 1);
        const int k = 32 * c + lane;
        wr[c] = k >= 3 && k < 32 * NCS - 2 && p[c] < n && warp >= 3 && warp < W - 2 && f < n;
    }
    const int z0 = (int)blockIdx.z * kz, z1 = min(z0 + kz, n);
    const size_t su = (size_t)(n + 1) * n, sv = (size_t)n * (n + 1), sw = (size_t)n * n;
    /* element x of row y of plane z of an array with rows of `len` and planes of `plane` floats, the warp's row or
     * plane fixed at fy and the marched one at m, each shifted by dy, dz */
    auto at = [&](int x, int fy, int m, int dy, int dz, size_t len, size_t plane) {
        const int y = (YM ? m : fy) + dy, z = (YM ? fy : m) + dz;
        return x + len * y + plane * z;
    };
    float a[NCS], b[NCS], cc[NCS], d[NCS], uo[NCS], vo[NCS], wo[NCS], acc = 0;
#pragma unroll
    for (int c = 0; c < NCS; c++) a[c] = b[c] = cc[c] = d[c] = uo[c] = vo[c] = wo[c] = 0;
    const int L0 = max(z0 - 3, 0), L1 = min(z1 + 2, n - 1);
    for (int L = L0; L <= L1 + 3; L++) {
        int t = L - 3;
#pragma unroll
        for (int c = 0; c < NCS; c++)
            if (t >= z0 && t < z1 && wr[c]) {
                ou[at(p[c], f, t, 0, 0, n + 1, su)] = uo[c] + acc * 1e-30f;
                ov[at(p[c], f, t, 0, 0, n, sv)] = vo[c] + acc * 1e-30f;
                ow[at(p[c], f, t, 0, 0, n, sw)] = wo[c] + acc * 1e-30f;
            }
#pragma unroll
        for (int c = 0; c < NCS; c++) acc += a[c] + b[c] + cc[c] + d[c];
        L += after(acc);
        t = L - 3;
#pragma unroll
        for (int c = 0; c < NCS; c++) {
            if (t + 1 >= z0 && t + 1 < z1 && wr[c]) {
                uo[c] = u[at(p[c], f, t + 1, 0, 0, n + 1, su)];
                vo[c] = v[at(p[c], f, t + 1, 0, 0, n, sv)];
                wo[c] = w[at(p[c], f, t + 1, 0, 0, n, sw)];
            }
            if (L <= L1) {
                const size_t iu = at(col[c], fc, L, 0, 0, n + 1, su);
                a[c] = u[iu];
                b[c] = u[iu + 1];
                cc[c] = v[at(col[c], fc, L, 1, 0, n, sv)];
                d[c] = w[at(col[c], fc, L, 0, 1, n, sw)];
            }
        }
        __syncthreads();
    }
    if (acc == 12345.0f) ou[0] = acc;
}

int main() {
    const Faces3D f(256);
    const int n = f.n;
    float *u = f.u, *v = f.v, *w = f.w, *ou = f.ou, *ov = f.ov, *ow = f.ow;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0); cudaEventCreate(&e1);
    const double copy = probe_copy_bandwidth(e0, e1), bytes = f.bytes();
    const dim3 grid((n + OUTX) / OUTX, (n + OUTY) / OUTY, 1);
    for (int form = 0; form < 3; form++) {
        auto launch = [&]() {
            if (form == 0) k_planes<true, false><<<grid, 32 * WARPS>>>(u, v, w, ou, ov, ow, n, n);
            else if (form == 1) k_planes<false, false><<<grid, 32 * WARPS>>>(u, v, w, ou, ov, ow, n, n);
            else k_planes<true, true><<<grid, 32 * WARPS>>>(u, v, w, ou, ov, ow, n, n);
        };
        const float m = probe_single_ms(e0, e1, launch), b2b = probe_b2b_ms(e0, e1, launch);
        printf("%-40s %d blocks: %.4f ms (%.1f%%), b2b %.4f ms (%.1f%%)\n", form == 0 ? "the kernel's pattern, barrier per plane" : form == 1 ? "the same without the barrier" : "barrier, loads two planes ahead",
               grid.x * grid.y, m, probe_pct(bytes, m, copy), b2b, probe_pct(bytes, b2b, copy));
    }

    auto subrun = [&](auto kern, int ncs, int W, int per_sm, const char *name) {
        const int ox = 32 * ncs - 5, oy = W - 5;
        const int tx = (n + ox) / ox, ty = (n + oy) / oy, resident = 132 * per_sm;
        for (int fill = 1; fill <= 2; fill++) {
            int chunks = std::max(1, (resident * fill + tx * ty - 1) / (tx * ty));
            int kz = (n + chunks - 1) / chunks;
            chunks = (n + kz - 1) / kz;
            const dim3 g(tx, ty, chunks);
            const float b2b = probe_b2b_ms(e0, e1, [&]() { kern<<<g, 32 * W>>>(u, v, w, ou, ov, ow, n, kz); }, 2);
            printf("%-28s %d x %d written, kz %3d, %5d blocks: b2b %.4f ms (%.1f%%)\n", name, ox, oy, kz, tx * ty * chunks, b2b,
                   probe_pct(bytes, b2b, copy));
        }
    };
    subrun(k_planes_sub<1, 25, 1, false>, 1, 25, 1, "1 sub-strip, 25 rows");
    subrun(k_planes_sub<2, 25, 1, false>, 2, 25, 1, "2 sub-strips, 25 rows");
    subrun(k_planes_sub<2, 16, 2, false>, 2, 16, 2, "2 sub-strips, 16 rows");
    subrun(k_planes_sub<4, 16, 1, false>, 4, 16, 1, "4 sub-strips, 16 rows");
    subrun(k_planes_sub<4, 12, 2, false>, 4, 12, 2, "4 sub-strips, 12 rows");
    subrun(k_planes_sub<8, 8, 2, false>, 8, 8, 2, "8 sub-strips, 8 rows");

    subrun(k_planes_sub<1, 25, 1, true>, 1, 25, 1, "y-march, 1 sub-strip, 25 planes");
    subrun(k_planes_sub<2, 25, 1, true>, 2, 25, 1, "y-march, 2 sub-strips, 25 planes");
    subrun(k_planes_sub<2, 16, 2, true>, 2, 16, 2, "y-march, 2 sub-strips, 16 planes");
    subrun(k_planes_sub<4, 16, 1, true>, 4, 16, 1, "y-march, 4 sub-strips, 16 planes");
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
