/* The memory access pattern of the 2D vorticity kernel (vort_tile.cuh vort2_warp) without its arithmetic, and of
 * alternatives, against a copy kernel in the same run (cuda_notes 211): warps march strips of columns along y through
 * a chunk of rows, loading the faces the kernel loads (u[col], u[col + 1], the top v-face of each row, the old faces
 * three rows later) and storing the faces it writes; no arithmetic besides a running sum that keeps the loads.
 * 2D 2048^2; prints the single-call median and 10 calls back to back with % of copy. Timing only (the values are
 * not the kernel's); then sub-strips of 32 columns per warp (cuda_notes 213) and two adjacent columns per lane
 * (cuda_notes 226). Not built by CMake; on a machine with
 * an NVIDIA GPU:
 *   nvcc -O3 -arch=sm_90 -o /tmp/strip_probe bench/cuda/strip_probe.cu && /tmp/strip_probe */
#include <cstdio>
#include <cuda_runtime.h>
#include "probe_common.cuh"

#include <algorithm>
/* the kernel's pattern: `out` written columns of 32 after `halo`; order 1: a block's warps take consecutive chunks
 * of one strip instead of consecutive strips of one chunk */
__global__ void k_strips(const float *__restrict__ u, const float *__restrict__ v, float *__restrict__ ou, float *__restrict__ ov,
                         int n0, int n1, int out, int halo, int strips, int ky, int warps, int order, int shfl, int ahead2) {
    int w = blockIdx.x * 8 + threadIdx.x / 32;
    if (w >= warps) return;
    int lane = threadIdx.x & 31;
    int strip = order ? w / ((n1 + ky - 1) / ky) : w % strips, chunk = order ? w % ((n1 + ky - 1) / ky) : w / strips;
    int X0 = strip * out - halo;
    int p = X0 + lane, col = min(max(p, 0), n0 - 1);
    bool wr = lane >= halo && lane < halo + out && p < n0;
    int r0 = chunk * ky, r1 = min(r0 + ky, n1);
    float a = 0, b = 0, d = 0, acc = 0, uo = 0, vo = 0, a2 = 0, b2 = 0, d2 = 0;
    int L0 = max(r0 - 3, 0), L1 = min(r1 + 2, n1 - 1);
    for (int L = L0; L <= L1 + 3; L++) {
        float na = 0, nb = 0, nd = 0, nuo = 0, nvo = 0;
        /* this step consumes what the step before loaded, then loads for the next (as the kernel: cuda_notes 180) */
        int t = L - 3;
        if (t >= r0 && t < r1 && wr) {
            ou[p + t * (n0 + 1)] = uo + acc * 1e-30f;
            ov[p + t * n0] = vo + acc * 1e-30f;
        }
        acc += a + b + d;
        L += after(acc);
        t = L - 3;
        if (t + 1 >= r0 && t + 1 < r1 && wr) nuo = u[p + (t + 1) * (n0 + 1)], nvo = v[p + (t + 1) * n0];
        const int M = L + ahead2; /* the row loaded now (ahead2: two steps before its use) */
        if (M <= L1) {
            na = u[col + M * (n0 + 1)];
            nd = v[col + M * n0 + n0];
            if (shfl) { /* u[col + 1] from the next lane; the last lane loads it */
                nb = __shfl_down_sync(0xffffffffu, na, 1);
                if (lane == 31) nb = u[col + 1 + M * (n0 + 1)];
            } else {
                nb = u[col + 1 + M * (n0 + 1)];
            }
        }
        if (ahead2) a = a2, b = b2, d = d2, a2 = na, b2 = nb, d2 = nd;
        else a = na, b = nb, d = nd;
        uo = nuo; vo = nvo;
    }
    if (acc == 12345.0f) ou[0] = acc;
}

/* 4 columns per lane with float4 loads and stores (rows of n0 floats, 16-byte aligned: u's rows of n0 + 1 would
 * need realigning in a real kernel) */
__global__ void k_strips4(const float4 *__restrict__ u, const float4 *__restrict__ v, float4 *__restrict__ ou, float4 *__restrict__ ov,
                          int n0, int n1, int strips, int ky, int warps) {
    int lane, strip, chunk;
    if (!strip_warp<8>(strips, warps, &lane, &strip, &chunk)) return;
    int q = strip * 31 - 1 + lane; /* float4 column: 124 written columns per warp, 4 halo */
    int qc = min(max(q, 0), n0 / 4 - 1);
    bool wr = lane >= 1 && q < n0 / 4;
    int r0 = chunk * ky, r1 = min(r0 + ky, n1);
    float4 a = {0, 0, 0, 0}, d = a, uo = a, vo = a;
    float acc = 0;
    int L0 = max(r0 - 3, 0), L1 = min(r1 + 2, n1 - 1), s4 = n0 / 4;
    for (int L = L0; L <= L1 + 3; L++) {
        float4 na = a, nd = d, nuo = uo, nvo = vo;
        int t = L - 3;
        if (t >= r0 && t < r1 && wr) {
            uo.x += acc * 1e-30f; vo.x += acc * 1e-30f;
            ou[q + t * s4] = uo;
            ov[q + t * s4] = vo;
        }
        acc += a.x + a.y + a.z + a.w + d.x + d.y + d.z + d.w;
        L += after(acc);
        t = L - 3;
        if (t + 1 >= r0 && t + 1 < r1 && wr) nuo = u[q + (t + 1) * s4], nvo = v[q + (t + 1) * s4];
        if (L <= L1) { na = u[qc + L * s4]; nd = v[qc + L * s4 + s4]; }
        a = na; d = nd; uo = nuo; vo = nvo;
    }
    if (acc == 12345.0f) ou[0].x = acc;
}

/* two adjacent columns per lane (X0 + 2 l, X0 + 2 l + 1; 58 of 64 written, X0 even): v's rows as float2 (8-byte
 * aligned, n0 even) or as two scalars (VF2 = 0); u's rows of n0 + 1 floats start at an odd offset every other row,
 * so u as two scalars and u[col + 2] from the next lane (UF2 = 0), or as float2 from the even index below (UF2 = 1:
 * an upper bound, values wrong on odd rows) */
template <bool UF2, bool VF2 = true>
__global__ void __launch_bounds__(256) k_pairs(const float *__restrict__ u, const float *__restrict__ v, float *__restrict__ ou,
                                               float *__restrict__ ov, int n0, int n1, int strips, int ky, int warps) {
    int lane, strip, chunk;
    if (!strip_warp<8>(strips, warps, &lane, &strip, &chunk)) return;
    const int c0 = min(max(strip * 58 - 4 + 2 * lane, 0), n0 - 2); /* even */
    const bool wr = lane >= 2 && lane <= 30 && strip * 58 - 4 + 2 * lane < n0;
    const int r0 = chunk * ky, r1 = min(r0 + ky, n1);
    float2 d = {0, 0}, vo = d, uo = d;
    float a0 = 0, a1 = 0, a2 = 0, acc = 0;
    const int L0 = max(r0 - 3, 0), L1 = min(r1 + 2, n1 - 1);
    auto uat = [&](int row) { return row * (n0 + 1) + c0; };
    for (int L = L0; L <= L1 + 3; L++) {
        int t = L - 3;
        if (t >= r0 && t < r1 && wr) {
            const float e = acc * 1e-30f;
            if (UF2) *(float2 *)(ou + (uat(t) & ~1)) = make_float2(uo.x + e, uo.y);
            else ou[uat(t)] = uo.x + e, ou[uat(t) + 1] = uo.y;
            if (VF2) *(float2 *)(ov + t * n0 + c0) = make_float2(vo.x + e, vo.y);
            else ov[t * n0 + c0] = vo.x + e, ov[t * n0 + c0 + 1] = vo.y;
        }
        acc += a0 + a1 + a2 + d.x + d.y;
        L += after(acc);
        t = L - 3;
        if (t + 1 >= r0 && t + 1 < r1 && wr) {
            if (UF2) uo = *(const float2 *)(u + (uat(t + 1) & ~1));
            else uo = make_float2(u[uat(t + 1)], u[uat(t + 1) + 1]);
            if (VF2) vo = *(const float2 *)(v + (t + 1) * n0 + c0);
            else vo = make_float2(v[(t + 1) * n0 + c0], v[(t + 1) * n0 + c0 + 1]);
        }
        if (L <= L1) {
            if (UF2) {
                const float2 x = *(const float2 *)(u + (uat(L) & ~1));
                a0 = x.x, a1 = x.y;
            } else {
                a0 = u[uat(L)], a1 = u[uat(L) + 1];
            }
            a2 = __shfl_down_sync(0xffffffffu, a0, 1);
            if (lane == 31) a2 = u[uat(L) + 2];
            if (VF2) d = *(const float2 *)(v + L * n0 + n0 + c0);
            else d = make_float2(v[L * n0 + n0 + c0], v[L * n0 + n0 + c0 + 1]);
        }
    }
    if (acc == 12345.0f) ou[0] = acc;
}

int main() {
    Faces2D F;
    const int n0 = F.n0, n1 = F.n1;
    const size_t nu = F.nu, nv = F.nv;
    float *u = F.u, *v = F.v, *ou = F.ou, *ov = F.ov;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    const double copy = probe_copy_bandwidth(e0, e1);
    double bytes = 8.0 * (nu + nv);
    int slots = 4 * 132 * 8;
    struct { int out, halo, order, chunkmul, shfl, ahead2; const char *name; } cfg[] = {
        {27, 3, 0, 1, 0, 0, "27 of 32, chunks over strips (the kernel)"}, {27, 3, 0, 1, 1, 0, "the same, u[col + 1] by shuffle"},
        {27, 3, 0, 1, 0, 1, "the same, loads two rows ahead"}, {32, 0, 0, 1, 0, 0, "32 aligned, no halo"},
        {27, 3, 1, 1, 0, 0, "27 of 32, a block's warps down one strip"}, {27, 3, 0, 2, 0, 0, "27 of 32, twice the chunks"},
        {27, 3, 0, 4, 0, 0, "27 of 32, 4x the chunks"}};
    for (auto &c : cfg) {
        int strips = (n0 + c.out) / c.out;
        const ProbeChunks ch = probe_chunks(n1, strips, slots, c.chunkmul);
        const int ky = ch.ky, warps = ch.warps;
        auto launch = [&]() {
            k_strips<<<(warps + 7) / 8, 256>>>(u, v, ou, ov, n0, n1, c.out, c.halo, strips, ky, warps, c.order, c.shfl, c.ahead2);
        };
        const float one = probe_single_ms(e0, e1, launch), b2b = probe_b2b_ms(e0, e1, launch);
        printf("%-45s ky %4d warps %5d: %.4f ms (%.1f%%), b2b %.4f ms (%.1f%%)\n", c.name, ky, warps, one,
               probe_pct(bytes, one, copy), b2b, probe_pct(bytes, b2b, copy));
    }

    for (int cm = 1; cm <= 2; cm *= 2) {
        int strips = (n0 + 124) / 124;
        const ProbeChunks ch = probe_chunks(n1, strips, slots, cm);
        const int ky = ch.ky, warps = ch.warps;
        const float b2b = probe_b2b_ms(e0, e1, [&]() {
            k_strips4<<<(warps + 7) / 8, 256>>>((float4 *)u, (float4 *)v, (float4 *)ou, (float4 *)ov, n0, n1, strips, ky, warps);
        }, 2);
        printf("float4 lanes, 124 of 128 columns, chunks x%d ky %4d warps %5d: b2b %.4f ms (%.1f%%)\n", cm, ky, warps, b2b,
               probe_pct(bytes, b2b, copy));
    }

    auto subrun = [&](auto kern, int ncs, int minwarps) {
        int out = 32 * ncs - 5, strips = (n0 + out) / out;
        for (int cm = 1; cm <= 2; cm *= 2) {
            const ProbeChunks ch = probe_chunks(n1, strips, minwarps, cm);
            const int ky = ch.ky, warps = ch.warps;
            const float b2b = probe_b2b_ms(e0, e1, [&]() { kern<<<(warps + 7) / 8, 256>>>(u, v, ou, ov, n0, n1, strips, ky, warps); }, 2);
            printf("%d sub-strips of 32 (%d of %d written), chunks x%d ky %4d warps %5d: b2b %.4f ms (%.1f%%)\n", ncs, out, 32 * ncs, cm, ky,
                   warps, b2b, probe_pct(bytes, b2b, copy));
        }
    };
    subrun(k_substrips<1>, 1, slots);
    subrun(k_substrips<2>, 2, slots / 2);
    subrun(k_substrips<4>, 4, slots / 4);
    subrun(k_substrips<4>, 4, slots / 2);
    /* pairs at about the 2D kernel's 20 warps per SM and at about 30 (chunks for 20 x 132 and 31 x 132 warps), then
     * 2 sub-strips at the kernel's chunks and twice them */
    auto pairrun = [&](auto kern, const char *name) {
        const int strips = (n0 + 58) / 58;
        for (int target : {132 * 20, 132 * 31}) {
            const ProbeChunks ch = probe_chunks(n1, strips, target);
            const int ky = ch.ky, warps = ch.warps;
            const float b2b = probe_b2b_ms(e0, e1, [&]() { kern<<<(warps + 7) / 8, 256>>>(u, v, ou, ov, n0, n1, strips, ky, warps); }, 2);
            printf("column pairs per lane, %s, ky %4d warps %5d: b2b %.4f ms (%.1f%%)\n", name, ky, warps, b2b,
                   probe_pct(bytes, b2b, copy));
        }
    };
    pairrun(k_pairs<false, false>, "u and v as scalars");
    pairrun(k_pairs<false>, "u as scalars, v as float2");
    pairrun(k_pairs<true>, "u and v as float2 (bound)");
    subrun(k_substrips<2>, 2, 132 * 20);
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
