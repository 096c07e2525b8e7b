/* The 2D vorticity kernel's access pattern (strip_probe.cu k_substrips: 2 sub-strips of 32 columns per warp) with
 * its rows fetched by bulk asynchronous copies (cp.async.bulk, completion on an mbarrier) into a ring of row pieces
 * per warp in shared memory, D rows ahead, against the same pattern with loads into registers one row ahead; both
 * at the kernel's occupancy (blocks of 4 warps, 5 per SM: the shared memory each block asks for caps it) and its
 * chunks (cuda_notes 219: register loads 63-64% of copy, bulk copies 72-73%). One lane issues a row's copies; every
 * lane reads its columns from the ring (the old faces three rows back included: the ring keeps them); then the 3D
 * kernel's pattern the same way (cuda_notes 220: register loads 64%, bulk copies 53-54%). Timing only:
 * the values are not the kernel's. With BUSY=1 in the environment, both 2D patterns with K float operations per step
 * added instead (cuda_notes 222: the ring stays at 70% up to ~155 instructions per step). With RING3=1, the 3D
 * pattern with a producer warp per block, by a copy per row or by tensor copies (cuda_notes 236-237: 24% and 81.5%;
 * with arithmetic the tensor ring wins up to ~48 operations per step and not at 96); TMATEST=1 checks tensor copies'
 * boxes against the array. Not built by CMake; on a machine with an NVIDIA GPU:
 *   nvcc -O3 -arch=sm_90 -std=c++17 -o /tmp/bulk_probe bench/cuda/bulk_probe.cu && /tmp/bulk_probe */
#include <algorithm>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cudaTypedefs.h>
#include "probe_common.cuh"
#include "../../src/cuda/bulk_copy.cuh"
#include <type_traits>
#include <vector>

using ecu::bulk_copy;
using ecu::mbar_arrive;
using ecu::mbar_expect_tx;
using ecu::mbar_init;
using ecu::mbar_init_fence;
using ecu::mbar_wait;

/* a warp's n barriers, each completed by one arrival (lane 0's) and the bytes of its copies, made visible to the
 * copy engine before the warp issues any */
__device__ inline void bars_init(uint64_t *b, int n) {
    if ((threadIdx.x & 31) == 0)
        for (int s = 0; s < n; s++) mbar_init(b + s, 1);
    mbar_init_fence();
    __syncwarp();
}

/* a block's ring of n slots: "full" completed by full_count arrivals (and the bytes they announce), "empty" by
 * empty_count releases; by thread 0, before the block's first barrier */
__device__ inline void ring_bars_init(uint64_t *full, uint64_t *empty, int n, unsigned full_count, unsigned empty_count) {
    if (threadIdx.x == 0) {
        for (int s = 0; s < n; s++) {
            mbar_init(&full[s], full_count);
            mbar_init(&empty[s], empty_count);
        }
        mbar_init_fence();
    }
}

constexpr int WPB = 4, NCS = 2, PIECE = 32 * NCS + 8;

/* a row's piece: the 16-byte aligned global range [g0, g1) holding columns [lo, hi) of row `base` */
struct Piece {
    int g0, g1;
};
__device__ inline Piece piece_of(int base, int lo, int hi, int size) {
    Piece q;
    q.g0 = (base + lo) & ~3;
    q.g1 = min((base + hi + 3) & ~3, size);
    return q;
}

/* the same pattern, the rows D ahead by bulk copies into a ring per warp: slot s holds u's row s and v's row s + 1
 * (the top faces of row s), so the old faces of row t come from slots t (u) and t - 1 (v) */
template <int D, int K = 0, int RING = D + 5> /* a slot is read up to 4 rows after its own; the next copy is issued first */
__global__ void __launch_bounds__(32 * WPB) k_bulk(const float *__restrict__ u, const float *__restrict__ v, float *__restrict__ ou,
                                                  float *__restrict__ ov, int n0, int n1, int strips, int ky, int warps) {
    __shared__ alignas(16) float ring[WPB][RING][2][PIECE];
    __shared__ uint64_t bars[WPB][RING];
    const int wi = threadIdx.x / 32, w = blockIdx.x * WPB + wi, lane = threadIdx.x & 31;
    if (w >= warps) return;
    const int strip = w % strips, chunk = w / strips, X0 = strip * (32 * NCS - 5) - 3;
    const int lo = max(X0, 0), hi = min(X0 + 32 * NCS, n0) + 1;
    const int su = (n0 + 1) * n1, sv = n0 * (n1 + 1);
    int p[NCS], col[NCS];
    bool wr[NCS];
    strip_columns<NCS>(X0, lane, n0, p, col, wr);
    const int r0 = chunk * ky, r1 = min(r0 + ky, n1);
    const int L0 = max(r0 - 3, 0), L1 = min(r1 + 2, n1 - 1);
    bars_init(bars[wi], RING);
    auto issue = [&](int M) { /* lane 0: row M's pieces into its slot */
        const int s = (M - L0) % RING;
        const Piece qu = piece_of(M * (n0 + 1), lo, hi, su), qv = piece_of((M + 1) * n0, lo, hi - 1, sv);
        const uint32_t bu = 4u * (uint32_t)(qu.g1 - qu.g0), bv = 4u * (uint32_t)(qv.g1 - qv.g0);
        mbar_expect_tx(&bars[wi][s], bu + bv);
        bulk_copy(ring[wi][s][0], u + qu.g0, bu, &bars[wi][s]);
        bulk_copy(ring[wi][s][1], v + qv.g0, bv, &bars[wi][s]);
    };
    if (lane == 0)
        for (int M = L0; M < L0 + D && M <= L1; M++) issue(M);
    float acc = 0;
    for (int L = L0; L <= L1 + 3; L++) {
        __syncwarp();
        if (lane == 0 && L + D <= L1) issue(L + D);
        if (L <= L1) {
            const int s = (L - L0) % RING;
            mbar_wait(&bars[wi][s], (uint32_t)((L - L0) / RING) & 1u);
            const int bu = piece_of(L * (n0 + 1), lo, hi, su).g0, bv = piece_of((L + 1) * n0, lo, hi - 1, sv).g0;
            for (int c = 0; c < NCS; c++)
                acc += ring[wi][s][0][col[c] + L * (n0 + 1) - bu] + ring[wi][s][0][col[c] + 1 + L * (n0 + 1) - bu] +
                       ring[wi][s][1][col[c] + (L + 1) * n0 - bv];
        }
        L += after(acc);
        const int t = L - 3;
        if (t >= r0 && t < r1) {
            const int s = (t - L0) % RING, sp = (t - 1 - L0) % RING;
            const int bu = piece_of(t * (n0 + 1), lo, hi, su).g0, bv = piece_of(t * n0, lo, hi - 1, sv).g0;
            for (int c = 0; c < NCS; c++)
                if (wr[c]) {
                    ou[p[c] + t * (n0 + 1)] = ring[wi][s][0][p[c] + t * (n0 + 1) - bu] + acc * 1e-30f;
                    ov[p[c] + t * n0] = ring[wi][t > 0 ? sp : s][1][p[c] + t * n0 - bv] + acc * 1e-30f;
                }
        }
        if (K) acc = busy<K>(acc);
    }
    if (acc == 12345.0f) ou[0] = acc;
}


/* BLOCKRING=1 (cuda_notes 228): one producer warp per block copies whole rows of the block's C strips side by side
 * (one bulk copy per array and row, C x 59 + 6 columns: ~2 KB contiguous at C = 8) into a ring shared by the block's
 * C consumer warps, which read their columns from it and release a slot (an mbarrier per slot counting the
 * consumers) once its last reader (the old v-faces, 4 rows later) is done; the producer waits for that before it
 * fills the slot again. The issue cost is the producer's, not the consumers'. */
template <int C, int R, int K = 0>
__global__ void __launch_bounds__(32 * (C + 1)) k_blockring(const float *__restrict__ u, const float *__restrict__ v, float *__restrict__ ou,
                                                           float *__restrict__ ov, int n0, int n1, int strips, int groups, int ky, int blocks) {
    constexpr int OUT = 32 * NCS - 5, BP = (C * OUT + 5 + 8 + 4 + 3) / 4 * 4; /* a slot's floats per array (16-byte rows) */
    __shared__ alignas(16) float ring[R][2][BP];
    __shared__ uint64_t full[R], empty[R];
    if ((int)blockIdx.x >= blocks) return;
    const int group = blockIdx.x % groups, chunk = blockIdx.x / groups, wi = threadIdx.x / 32, lane = threadIdx.x & 31;
    const int s0 = group * C, active = min(C, strips - s0);
    const int BX0 = s0 * OUT - 3, lo = max(BX0, 0), hi = min(BX0 + (active - 1) * OUT + 32 * NCS, n0) + 1;
    const int su = (n0 + 1) * n1, sv = n0 * (n1 + 1);
    const int r0 = chunk * ky, r1 = min(r0 + ky, n1);
    const int L0 = max(r0 - 3, 0), L1 = min(r1 + 2, n1 - 1);
    ring_bars_init(full, empty, R, 1, (unsigned)active);
    __syncthreads();
    if (wi == C) { /* the producer */
        if (lane == 0)
            for (int M = L0; M <= L1; M++) {
                const int s = (M - L0) % R;
                if (M - L0 >= R) mbar_wait(&empty[s], (uint32_t)((M - L0) / R - 1) & 1u);
                const Piece qu = piece_of(M * (n0 + 1), lo, hi, su), qv = piece_of((M + 1) * n0, lo, hi - 1, sv);
                const uint32_t bu = 4u * (uint32_t)(qu.g1 - qu.g0), bv = 4u * (uint32_t)(qv.g1 - qv.g0);
                mbar_expect_tx(&full[s], bu + bv);
                bulk_copy(ring[s][0], u + qu.g0, bu, &full[s]);
                bulk_copy(ring[s][1], v + qv.g0, bv, &full[s]);
            }
        return;
    }
    if (wi >= active) return;
    const int X0 = (s0 + wi) * OUT - 3;
    int p[NCS], col[NCS];
    bool wr[NCS];
    strip_columns<NCS>(X0, lane, n0, p, col, wr);
    float acc = 0;
    for (int L = L0; L <= L1 + 3; L++) {
        if (L <= L1) {
            const int s = (L - L0) % R;
            mbar_wait(&full[s], (uint32_t)((L - L0) / R) & 1u);
            const int bu = piece_of(L * (n0 + 1), lo, hi, su).g0, bv = piece_of((L + 1) * n0, lo, hi - 1, sv).g0;
#pragma unroll
            for (int c = 0; c < NCS; c++)
                acc += ring[s][0][col[c] + L * (n0 + 1) - bu] + ring[s][0][col[c] + 1 + L * (n0 + 1) - bu] +
                       ring[s][1][col[c] + (L + 1) * n0 - bv];
        }
        L += after(acc);
        const int t = L - 3;
        if (t >= r0 && t < r1) {
            const int s = (t - L0) % R, sp = (t - 1 - L0) % R;
            const int bu = piece_of(t * (n0 + 1), lo, hi, su).g0, bv = piece_of(t * n0, lo, hi - 1, sv).g0;
#pragma unroll
            for (int c = 0; c < NCS; c++)
                if (wr[c]) {
                    ou[p[c] + t * (n0 + 1)] = ring[s][0][p[c] + t * (n0 + 1) - bu] + acc * 1e-30f;
                    ov[p[c] + t * n0] = ring[t > 0 ? sp : s][1][p[c] + t * n0 - bv] + acc * 1e-30f;
                }
        }
        __syncwarp();
        if (lane == 0 && L - 4 >= L0 && L - 4 <= L1) mbar_arrive(&empty[(L - 4 - L0) % R]);
        if (K) acc = busy<K>(acc);
    }
    if (acc == 12345.0f) ou[0] = acc;
}

/* 3D (cuda_notes 220): the 3D kernel's pattern (plane_probe.cu k_planes: a block of 25 warps over 32 columns and 25
 * rows marching z, a barrier per plane), each warp's row pieces of plane M (u's row, v's top faces, w's faces above)
 * copied D planes ahead into its ring; the bottom v-faces are the top ones of the warp below (its ring, after the
 * barrier), the old w-faces the slot before's faces above */
constexpr int W3 = 25, OX3 = 27, OY3 = 20, PF3 = 40;
template <int D, bool REGS, int K = 0>
__global__ void __launch_bounds__(32 * W3, 1) k_planes3(const float *__restrict__ u, const float *__restrict__ v, const float *__restrict__ w,
                                                       float *__restrict__ ou, float *__restrict__ ov, float *__restrict__ ow, int n) {
    constexpr int R = 8;
    extern __shared__ float4 dyn3[]; /* the rings (W3 x R x 3 pieces), then the barriers */
    float(*ring)[R][3][PF3] = reinterpret_cast<float(*)[R][3][PF3]>(dyn3);
    uint64_t(*bars)[R] = reinterpret_cast<uint64_t(*)[R]>(reinterpret_cast<float *>(dyn3) + W3 * R * 3 * PF3);
    const int lane = threadIdx.x & 31, wi = threadIdx.x / 32;
    const int p = (int)blockIdx.x * OX3 - 3 + lane, y = (int)blockIdx.y * OY3 - 3 + wi;
    const int X0 = (int)blockIdx.x * OX3 - 3, lo = max(X0, 0), hi = min(X0 + 32, n) + 1;
    const int col = min(max(p, 0), n - 1), row = min(max(y, 0), n - 1);
    const bool wr = lane >= 3 && lane < 3 + OX3 && p < n && wi >= 3 && wi < 3 + OY3 && y < n;
    const int su = (n + 1) * n, sv = n * (n + 1), sw = n * n;
    const int L0 = 0, L1 = n - 1, z0 = 0, z1 = n;
    float acc = 0, a = 0, b = 0, c = 0, d = 0, uo = 0, vo = 0, wo = 0;
    auto issue = [&](int M) {
        const int s = M & (R - 1);
        const Piece qu = piece_of(M * su + (n + 1) * row, lo, hi, su * n), qv = piece_of(M * sv + n * (row + 1), lo, hi - 1, sv * n);
        const Piece qw = piece_of((M + 1) * sw + n * row, lo, hi - 1, sw * (n + 1));
        const uint32_t bu = 4u * (uint32_t)(qu.g1 - qu.g0), bv = 4u * (uint32_t)(qv.g1 - qv.g0), bw = 4u * (uint32_t)(qw.g1 - qw.g0);
        mbar_expect_tx(&bars[wi][s], bu + bv + bw);
        bulk_copy(ring[wi][s][0], u + qu.g0, bu, &bars[wi][s]);
        bulk_copy(ring[wi][s][1], v + qv.g0, bv, &bars[wi][s]);
        bulk_copy(ring[wi][s][2], w + qw.g0, bw, &bars[wi][s]);
    };
    if (!REGS) {
        bars_init(bars[wi], R);
        if (lane == 0)
            for (int M = L0; M < L0 + D; M++) issue(M);
    }
    for (int L = L0; L <= L1 + 3; L++) {
        int t = L - 3;
        if (t >= z0 && t < z1 && wr) {
            ou[p + (n + 1) * y + su * t] = uo + acc * 1e-30f;
            ov[p + n * y + sv * t] = vo + acc * 1e-30f;
            ow[p + n * y + sw * t] = wo + acc * 1e-30f;
        }
        if (REGS) {
            acc += a + b + c + d;
            L += after(acc);
            t = L - 3;
            if (t + 1 >= z0 && t + 1 < z1 && wr) {
                uo = u[p + (n + 1) * y + su * (t + 1)];
                vo = v[p + n * y + sv * (t + 1)];
                wo = w[p + n * y + sw * (t + 1)];
            }
            if (L <= L1) {
                const int iu = col + (n + 1) * row + su * L;
                a = u[iu];
                b = u[iu + 1];
                c = v[col + n * (row + 1) + sv * L];
                d = w[col + n * row + sw * (L + 1)];
            }
        } else {
            __syncwarp();
            if (lane == 0 && L + D <= L1) issue(L + D);
            if (L <= L1) {
                const int s = L & (R - 1);
                mbar_wait(&bars[wi][s], (uint32_t)(L / R) & 1u);
                const int bu = piece_of(L * su + (n + 1) * row, lo, hi, su * n).g0, bv = piece_of(L * sv + n * (row + 1), lo, hi - 1, sv * n).g0;
                const int bw = piece_of((L + 1) * sw + n * row, lo, hi - 1, sw * (n + 1)).g0;
                acc += ring[wi][s][0][col + (n + 1) * row + su * L - bu] + ring[wi][s][0][col + 1 + (n + 1) * row + su * L - bu] +
                       ring[wi][s][1][col + n * (row + 1) + sv * L - bv] + ring[wi][s][2][col + n * row + sw * (L + 1) - bw];
            }
            L += after(acc);
            t = L - 3;
            if (t + 1 >= z0 && t + 1 < z1 && wr) { /* the old faces of plane t + 1, for the next step's stores */
                const int M = t + 1, s = M & (R - 1), sp = (M - 1) & (R - 1), wb = wi > 0 ? wi - 1 : 0;
                const int bu = piece_of(M * su + (n + 1) * row, lo, hi, su * n).g0;
                const int bv = piece_of(M * sv + n * row, lo, hi - 1, sv * n).g0; /* the warp below's top faces */
                const int bw = piece_of(M * sw + n * row, lo, hi - 1, sw * (n + 1)).g0;
                uo = ring[wi][s][0][p + (n + 1) * y + su * M - bu];
                vo = ring[wb][s][1][p + n * y + sv * M - bv];
                wo = ring[wi][M > 0 ? sp : s][2][p + n * y + sw * M - bw];
            }
        }
        if (K) acc = busy<K>(acc);
        __syncthreads();
    }
    if (acc == 12345.0f) ou[0] = acc;
}

/* 3D with a producer warp per block (cuda_notes 236): the 3D pattern above, but the consumers issue nothing; lane r of
 * a producer warp copies row r's pieces of plane M (u's row, v's top faces, w's faces above) into slot M % R of a
 * ring the block shares, each lane announcing its own bytes on the slot's barrier (W3 arrivals); the consumers
 * read their values at the step that uses them (the stores' old faces too), meet at a named barrier of their own
 * per plane, and warp 0 releases plane L - 4 after step L */
template <int R, int K = 0>
__global__ void __launch_bounds__(32 * (W3 + 1), 1) k_planes3ring(const float *__restrict__ u, const float *__restrict__ v, const float *__restrict__ w,
                                                                  float *__restrict__ ou, float *__restrict__ ov, float *__restrict__ ow, int n) {
    extern __shared__ float4 dyn3[];
    float(*ring)[W3][3][PF3] = reinterpret_cast<float(*)[W3][3][PF3]>(dyn3);
    uint64_t *full = reinterpret_cast<uint64_t *>(reinterpret_cast<float *>(dyn3) + R * W3 * 3 * PF3), *empty = full + R;
    const int lane = threadIdx.x & 31, wi = threadIdx.x / 32;
    const int X0 = (int)blockIdx.x * OX3 - 3, lo = max(X0, 0), hi = min(X0 + 32, n) + 1;
    const int su = (n + 1) * n, sv = n * (n + 1), sw = n * n;
    ring_bars_init(full, empty, R, W3, 1);
    __syncthreads();
    if (wi == W3) { /* the producer: lane r copies row r */
        if (lane < W3) {
            const int row = min(max((int)blockIdx.y * OY3 - 3 + lane, 0), n - 1);
            for (int M = 0; M < n; M++) {
                const int s = M % R;
                if (M >= R) mbar_wait(&empty[s], (uint32_t)(M / R - 1) & 1u);
                const Piece qu = piece_of(M * su + (n + 1) * row, lo, hi, su * n), qv = piece_of(M * sv + n * (row + 1), lo, hi - 1, sv * n);
                const Piece qw = piece_of((M + 1) * sw + n * row, lo, hi - 1, sw * (n + 1));
                const uint32_t bu = 4u * (uint32_t)(qu.g1 - qu.g0), bv = 4u * (uint32_t)(qv.g1 - qv.g0), bw = 4u * (uint32_t)(qw.g1 - qw.g0);
                mbar_expect_tx(&full[s], bu + bv + bw);
                bulk_copy(ring[s][lane][0], u + qu.g0, bu, &full[s]);
                bulk_copy(ring[s][lane][1], v + qv.g0, bv, &full[s]);
                bulk_copy(ring[s][lane][2], w + qw.g0, bw, &full[s]);
            }
        }
        return;
    }
    const int p = X0 + lane, y = (int)blockIdx.y * OY3 - 3 + wi;
    const int col = min(max(p, 0), n - 1), row = min(max(y, 0), n - 1);
    const bool wr = lane >= 3 && lane < 3 + OX3 && p < n && wi >= 3 && wi < 3 + OY3 && y < n;
    float acc = 0;
    for (int L = 0; L <= n - 1 + 3; L++) {
        if (L < n) {
            const int s = L % R;
            mbar_wait(&full[s], (uint32_t)(L / R) & 1u);
            const int bu = piece_of(L * su + (n + 1) * row, lo, hi, su * n).g0, bv = piece_of(L * sv + n * (row + 1), lo, hi - 1, sv * n).g0;
            const int bw = piece_of((L + 1) * sw + n * row, lo, hi - 1, sw * (n + 1)).g0;
            acc += ring[s][wi][0][col + (n + 1) * row + su * L - bu] + ring[s][wi][0][col + 1 + (n + 1) * row + su * L - bu] +
                   ring[s][wi][1][col + n * (row + 1) + sv * L - bv] + ring[s][wi][2][col + n * row + sw * (L + 1) - bw];
        }
        L += after(acc);
        const int t = L - 3;
        if (t >= 0 && t < n && wr) { /* the old faces of plane t from the ring: v's from the warp below, w's from plane t - 1 */
            const int s = t % R, sp = (t + R - 1) % R, wb = wi > 0 ? wi - 1 : 0;
            const int bu = piece_of(t * su + (n + 1) * row, lo, hi, su * n).g0;
            const int bv = piece_of(t * sv + n * row, lo, hi - 1, sv * n).g0;
            const int bw = piece_of(t * sw + n * row, lo, hi - 1, sw * (n + 1)).g0;
            ou[p + (n + 1) * y + su * t] = ring[s][wi][0][p + (n + 1) * y + su * t - bu] + acc * 1e-30f;
            ov[p + n * y + sv * t] = ring[s][wb][1][p + n * y + sv * t - bv] + acc * 1e-30f;
            ow[p + n * y + sw * t] = ring[t > 0 ? sp : s][wi][2][p + n * y + sw * t - bw] + acc * 1e-30f;
        }
        if (K) acc = busy<K>(acc);
        asm volatile("bar.sync 1, %0;" ::"r"(32 * W3) : "memory");
        if (threadIdx.x == 0 && L - 4 >= 0 && L - 4 < n) mbar_arrive(&empty[(L - 4) % R]);
    }
    if (acc == 12345.0f) ou[0] = acc;
}

/* 3D with a producer warp and tensor copies (cuda_notes 237): a 2D tensor map per array that sees 4 consecutive rows
 * as one row of 4 W floats (W the array's row length: any W, since the map's row pitch 16 W bytes is a multiple of
 * 16), so a box of 40 x 7 of these rows at x = c W + X0 (rounded down to 16 bytes) holds the block's rows of residue
 * c mod 4: 4 tensor copies per array and plane (12 in all) instead of a copy per row (75). A box's slot is 1152 bytes
 * (1120 used) */
constexpr int TB_X = 40, TB_Y = 7, TB_SLOT = 288; /* floats: the box, and its slot (128-byte aligned) */
__device__ inline void tensor_copy2(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
                     ecu::smem_addr(dst)),
                 "l"(map), "r"(x), "r"(y), "r"(ecu::smem_addr(bar))
                 : "memory");
}
/* the box of residue c covering rows gb .. gb + 24 (row index over the whole array): its first super-row */
__device__ inline int box_row(int gb, int c) { return (gb + ((c - gb) & 3)) >> 2; }
/* a box's first column: c W + X0 rounded down to 16 bytes (a box must start 16-byte aligned: at an unaligned x the
 * copy stops with an illegal instruction) */
__device__ inline int box_x(int c, int width, int X0) { return (c * width + X0) & ~3; }
/* where column 0 of row g (in gb .. gb + 24) lies in its box set: box (g & 3), super-row (g >> 2) - box_row */
__device__ inline int box_off(int g, int gb, int width, int X0) {
    const int c = g & 3;
    return c * TB_SLOT + ((g >> 2) - box_row(gb, c)) * TB_X + c * width - box_x(c, width, X0);
}
template <int R, int K = 0, bool FREE = false /* no barrier per plane: each warp releases its slots itself */>
__global__ void __launch_bounds__(32 * (W3 + 1), 1) k_planes3tma(const __grid_constant__ CUtensorMap mu, const __grid_constant__ CUtensorMap mv,
                                                                 const __grid_constant__ CUtensorMap mw, float *__restrict__ ou,
                                                                 float *__restrict__ ov, float *__restrict__ ow, int n) {
    extern __shared__ __align__(128) float4 dyn3t[];
    float(*ring)[3][4 * TB_SLOT] = reinterpret_cast<float(*)[3][4 * TB_SLOT]>(dyn3t);
    uint64_t *full = reinterpret_cast<uint64_t *>(reinterpret_cast<float *>(dyn3t) + R * 3 * 4 * TB_SLOT), *empty = full + R;
    const int lane = threadIdx.x & 31, wi = threadIdx.x / 32;
    const int X0 = (int)blockIdx.x * OX3 - 3, y0 = (int)blockIdx.y * OY3 - 3;
    ring_bars_init(full, empty, R, 1, FREE ? W3 : 1);
    __syncthreads();
    if (wi == W3) { /* the producer: lane 0 copies array a's box of residue c, for each a and c */
        if (lane == 0) {
            for (int M = 0; M < n; M++) {
                const int s = M % R;
                if (M >= R) mbar_wait(&empty[s], (uint32_t)(M / R - 1) & 1u);
                mbar_expect_tx(&full[s], 12u * 4u * TB_X * TB_Y);
#pragma unroll
                for (int a = 0; a < 3; a++) {
                    const int width = a == 0 ? n + 1 : n, per = a == 1 ? n + 1 : n; /* floats per row, rows per plane */
                    const int gb = y0 + (a == 1) + per * (M + (a == 2)); /* v: the faces above; w: the plane above */
#pragma unroll
                    for (int c = 0; c < 4; c++) {
                        float *dst = &ring[s][a][c * TB_SLOT];
                        const int x = box_x(c, width, X0), yb = box_row(gb, c);
                        tensor_copy2(dst, a == 0 ? &mu : a == 1 ? &mv : &mw, x, yb, &full[s]);
                    }
                }
            }
        }
        return;
    }
    const int p = X0 + lane, y = y0 + wi;
    const int col = min(max(p, 0), n - 1), row = min(max(y, 0), n - 1);
    const bool wr = lane >= 3 && lane < 3 + OX3 && p < n && wi >= 3 && wi < 3 + OY3 && y < n;
    /* u's and w's rows keep their place in the boxes from plane to plane (n rows a plane, a multiple of 4; the stored
     * rows are the unclamped ones, y == row); v's (n + 1 a plane) move, and are found per step */
    const int offu = box_off(row, y0, n + 1, X0), offw = box_off(row, y0, n, X0);
    float acc = 0;
    for (int L = 0; L <= n - 1 + 3; L++) {
        if (L < n) {
            const int s = L % R;
            mbar_wait(&full[s], (uint32_t)(L / R) & 1u);
            const int ov_ = box_off(row + 1 + (n + 1) * L, y0 + 1 + (n + 1) * L, n, X0);
            acc += ring[s][0][offu + col] + ring[s][0][offu + col + 1] + ring[s][1][ov_ + col] + ring[s][2][offw + col];
        }
        L += after(acc);
        const int t = L - 3;
        if (t >= 0 && t < n && wr) { /* the old faces of plane t: v's bottom faces are row y of the v boxes, w's plane t - 1's */
            const int s = t % R, sp = (t + R - 1) % R;
            const int ov_ = box_off(y + (n + 1) * t, y0 + 1 + (n + 1) * t, n, X0);
            ou[p + (n + 1) * y + (n + 1) * n * t] = ring[s][0][offu + p] + acc * 1e-30f;
            ov[p + n * y + n * (n + 1) * t] = ring[s][1][ov_ + p] + acc * 1e-30f;
            ow[p + n * y + n * n * t] = ring[t > 0 ? sp : s][2][offw + p] + acc * 1e-30f;
        }
        if (K) acc = busy<K>(acc);
        if (FREE) {
            __syncwarp();
            if (lane == 0 && L - 4 >= 0 && L - 4 < n) mbar_arrive(&empty[(L - 4) % R]);
        } else {
            asm volatile("bar.sync 1, %0;" ::"r"(32 * W3) : "memory");
            if (threadIdx.x == 0 && L - 4 >= 0 && L - 4 < n) mbar_arrive(&empty[(L - 4) % R]);
        }
    }
    if (acc == 12345.0f) ou[0] = acc;
}
/* the tensor map that sees an array of `rows` rows of `width` floats as rows / 4 rows of 4 width floats */
static CUtensorMap super_rows_map(const float *base, int width, long rows) {
    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult q;
    cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q);
    CUtensorMap m;
    const cuuint64_t dims[2] = {(cuuint64_t)4 * width, (cuuint64_t)(rows / 4)}, strides[1] = {(cuuint64_t)16 * width};
    const cuuint32_t box[2] = {TB_X, TB_Y}, es[2] = {1, 1};
    const CUresult r = encode(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)base, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) printf("tensor map: error %d\n", (int)r);
    return m;
}

/* a box of the map at (x, y) into shared memory, then out to `out` (the TMA test) */
__global__ void k_tma_test(const __grid_constant__ CUtensorMap m, float *out, int x, int y) {
    __shared__ __align__(128) float box[TB_X * TB_Y];
    __shared__ uint64_t bar;
    if (threadIdx.x == 0) {
        mbar_init(&bar, 1);
        mbar_init_fence();
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        mbar_expect_tx(&bar, 4u * TB_X * TB_Y);
        tensor_copy2(box, &m, x, y, &bar);
    }
    mbar_wait(&bar, 0);
    for (int i = threadIdx.x; i < TB_X * TB_Y; i += blockDim.x) out[i] = box[i];
}
int main() {
    Faces2D F;
    const int n0 = F.n0, n1 = F.n1;
    float *u = F.u, *v = F.v, *ou = F.ou, *ov = F.ov;
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    const double copy = probe_copy_bandwidth(e0, e1), bytes = 8.0 * (F.nu + F.nv);
    const int out = 32 * NCS - 5, strips = (n0 + out - 1) / out;
    auto run = [&](auto kern, const char *name, int per_sm, int chunkmul) {
        /* shared memory per block that lets `per_sm` blocks fit on an SM (228 KB, 1 KB reserved per block) */
        cudaFuncAttributes fa;
        cudaFuncGetAttributes(&fa, kern);
        const int dyn = (228 * 1024 / per_sm - 1024 - (int)fa.sharedSizeBytes) / 1024 * 1024;
        cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
        int fit = 0;
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kern, 32 * WPB, dyn);
        if (fit != per_sm) printf("(%d blocks fit, not %d)\n", fit, per_sm);
        const ProbeChunks ch = probe_chunks(n1, strips, per_sm * WPB * 132, chunkmul);
        const int ky = ch.ky, warps = ch.warps;
        for (int rep = 0; rep < 2; rep++) {
            const float b2b = probe_b2b_ms(e0, e1, [&]() { kern<<<(warps + WPB - 1) / WPB, 32 * WPB, dyn>>>(u, v, ou, ov, n0, n1, strips, ky, warps); });
            printf("%-34s %d blocks/SM, ky %3d warps %5d (regs %d, smem %zu): b2b %.4f ms (%.1f%%)\n", name, per_sm, ky, warps, fa.numRegs,
                   fa.sharedSizeBytes, b2b, probe_pct(bytes, b2b, copy));
        }
    };
    if (getenv("TMATEST")) { /* one box of a 2D map against the array */
        const int w = 257, rows = 64;
        std::vector<float> h((size_t)w * rows);
        for (size_t i = 0; i < h.size(); i++) h[i] = (float)i;
        float *d, *o;
        cudaMalloc(&d, h.size() * 4);
        cudaMalloc(&o, TB_X * TB_Y * 4);
        cudaMemcpy(d, h.data(), h.size() * 4, cudaMemcpyHostToDevice);
        const CUtensorMap m = super_rows_map(d, w, rows);
        for (int t = 0; t < 3; t++) {
            const int x = t == 0 ? 0 : t == 1 ? 264 : -4, y = t == 0 ? 0 : t == 1 ? 2 : -1;
            k_tma_test<<<1, 32>>>(m, o, x, y);
            float r[TB_X * TB_Y];
            cudaError_t e = cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost);
            int bad = 0;
            for (int j = 0; j < TB_Y; j++)
                for (int i = 0; i < TB_X; i++) {
                    const long gx = x + i, gy = y + j;
                    const float want = gx < 0 || gy < 0 || gx >= 4 * w || gy >= rows / 4 ? 0.0f : h[(size_t)gy * 4 * w + gx];
                    bad += r[j * TB_X + i] != want;
                }
            printf("TMA test at (%d, %d): %s, %d of %d wrong\n", x, y, cudaGetErrorString(e), bad, TB_X * TB_Y);
        }
        return 0;
    }
    if (getenv("BLOCKRING")) { /* BLOCKRING=1: a producer warp per block of C strips (cuda_notes 228) */
        auto runb = [&](auto kern, const char *name, int C, int per_sm) {
            cudaFuncAttributes fa;
            cudaFuncGetAttributes(&fa, kern);
            const int groups = (strips + C - 1) / C;
            /* shared memory that lets `per_sm` blocks fit, so the occupancy is the one named */
            const int dyn = std::max(0, (228 * 1024 / per_sm - 1024 - (int)fa.sharedSizeBytes) / 1024 * 1024);
            cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
            int fit = 0;
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit, kern, 32 * (C + 1), dyn);
            const ProbeChunks ch = probe_chunks(n1, groups, fit * 132, 1);
            const int blocks = ch.warps; /* probe_chunks counts one per group and chunk: here a block */
            for (int rep = 0; rep < 2; rep++) {
                const float b2b = probe_b2b_ms(e0, e1, [&]() { kern<<<blocks, 32 * (C + 1), dyn>>>(u, v, ou, ov, n0, n1, strips, groups, ch.ky, blocks); });
                printf("%-30s C %d, %d blocks/SM (%d consumer warps), ky %3d blocks %4d (regs %d, smem %zu): b2b %.4f ms (%.1f%%)\n", name, C,
                       fit, fit * C, ch.ky, blocks, fa.numRegs, fa.sharedSizeBytes + dyn, b2b, probe_pct(bytes, b2b, copy));
            }
        };
        run(k_substrips<NCS, WPB>, "registers, one row ahead", 5, 1);
        runb(k_blockring<8, 8>, "block ring, K 0", 8, 2);
        runb(k_blockring<8, 8>, "block ring, K 0", 8, 3);
        runb(k_blockring<4, 8>, "block ring, K 0", 4, 5);
        runb(k_blockring<7, 8>, "block ring, K 0", 7, 3);
        run(k_substrips<NCS, WPB, 48>, "registers, K 48", 5, 1);
        runb(k_blockring<8, 8, 48>, "block ring, K 48", 8, 2);
        runb(k_blockring<8, 8, 48>, "block ring, K 48", 8, 3);
        runb(k_blockring<4, 8, 48>, "block ring, K 48", 4, 5);
        runb(k_blockring<7, 8, 48>, "block ring, K 48", 7, 3);
        runb(k_blockring<8, 12, 48>, "block ring R 12, K 48", 8, 2);
        run(k_substrips<NCS, WPB, 96>, "registers, K 96", 5, 1);
        runb(k_blockring<8, 8, 96>, "block ring, K 96", 8, 2);
        runb(k_blockring<8, 8, 96>, "block ring, K 96", 8, 3);
        run(k_substrips<NCS, WPB>, "registers, one row ahead", 5, 1);
        printf("%s\n", cudaGetErrorString(cudaGetLastError()));
        return 0;
    }
    if (getenv("BUSY")) { /* BUSY=1: arithmetic per step (busy<K>) against both 2D patterns (cuda_notes 222) */
        auto both = [&](auto k) {
            constexpr int K = decltype(k)::value;
            char reg[40], bulk[40];
            snprintf(reg, sizeof reg, "registers, K %d", K);
            snprintf(bulk, sizeof bulk, "bulk 2 ahead, K %d", K);
            run(k_substrips<NCS, WPB, K>, reg, 5, 1);
            run(k_bulk<2, K>, bulk, 5, 1);
        };
        both(std::integral_constant<int, 0>());
        both(std::integral_constant<int, 48>());
        both(std::integral_constant<int, 96>());
        both(std::integral_constant<int, 16>());
        both(std::integral_constant<int, 32>());
        run(k_bulk<3, 48>, "bulk 3 ahead, K 48", 5, 1);
        both(std::integral_constant<int, 0>());
        return 0;
    }
    run(k_substrips<NCS, WPB>, "registers, one row ahead", 5, 1);
    run(k_substrips<NCS, WPB>, "registers, one row ahead", 6, 1);
    for (int per_sm : {4, 5, 6, 7, 8}) {
        run(k_bulk<1>, "bulk copies 1 row ahead", per_sm, 1);
        run(k_bulk<2>, "bulk copies 2 rows ahead", per_sm, 1);
        run(k_bulk<3>, "bulk copies 3 rows ahead", per_sm, 1);
    }
    run(k_bulk<2>, "bulk 2 ahead, twice the chunks", 5, 2);
    run(k_bulk<2>, "bulk 2 ahead, twice the chunks", 6, 2);
    {
        const int n = 256;
        const size_t nf = (size_t)(n + 1) * n * n + 64;
        float *a3[6];
        for (auto &q : a3) { cudaMalloc(&q, nf * 4); cudaMemset(q, 0, nf * 4); }
        const double bytes3 = 6.0 * 4.0 * n * n * n;
        const dim3 g((n + OX3) / OX3, (n + OY3) / OY3, 1); /* vw_strips: 10 x 13 blocks */
        const int dyn = W3 * 8 * 3 * PF3 * 4 + W3 * 8 * 8;
        /* kern's b2b time with `threads` per block and `dyn` bytes of shared memory, twice; args: its arguments */
        auto time3 = [&](auto kern, const char *name, int threads, int dynb, auto... args) {
            cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dynb);
            cudaFuncAttributes fa;
            cudaFuncGetAttributes(&fa, kern);
            for (int rep = 0; rep < 2; rep++) {
                const float b2b = probe_b2b_ms(e0, e1, [&]() { kern<<<g, threads, dynb>>>(args...); });
                printf("3D 256^3 %-30s %d blocks (regs %d): b2b %.4f ms (%.1f%%)\n", name, g.x * g.y, fa.numRegs, b2b, probe_pct(bytes3, b2b, copy));
            }
        };
        auto run3 = [&](auto kern, const char *name) { time3(kern, name, 32 * W3, dyn, a3[0], a3[1], a3[2], a3[3], a3[4], a3[5], n); };
        run3(k_planes3<1, true>, "registers, one plane ahead");
        if (getenv("RING3")) { /* RING3=1: a producer warp per block (cuda_notes 236) */
            auto runr = [&](auto kern, const char *name, int R) {
                time3(kern, name, 32 * (W3 + 1), R * W3 * 3 * PF3 * 4 + 2 * R * 8, a3[0], a3[1], a3[2], a3[3], a3[4], a3[5], n);
            };
            const CUtensorMap mu = super_rows_map(a3[0], n + 1, (long)n * n), mv = super_rows_map(a3[1], n, (long)(n + 1) * n),
                              mw = super_rows_map(a3[2], n, (long)n * (n + 1));
            auto runt = [&](auto kern, const char *name, int R) {
                time3(kern, name, 32 * (W3 + 1), R * 3 * 4 * TB_SLOT * 4 + 2 * R * 8, mu, mv, mw, a3[3], a3[4], a3[5], n);
            };
            runt(k_planes3tma<8>, "tensor ring R 8, K 0", 8);
            runt(k_planes3tma<12>, "tensor ring R 12, K 0", 12);
            runt(k_planes3tma<8, 48>, "tensor ring R 8, K 48", 8);
            runt(k_planes3tma<8, 96>, "tensor ring R 8, K 96", 8);
            run3(k_planes3<1, true, 24>, "registers, K 24");
            runt(k_planes3tma<8, 24, true>, "tensor ring R 8, K 24, free", 8);
            run3(k_planes3<1, true, 48>, "registers, K 48");
            run3(k_planes3<1, true, 96>, "registers, K 96");
            runt(k_planes3tma<8, 0, true>, "tensor ring R 8, K 0, free", 8);
            runt(k_planes3tma<8, 48, true>, "tensor ring R 8, K 48, free", 8);
            runt(k_planes3tma<8, 96, true>, "tensor ring R 8, K 96, free", 8);
            runt(k_planes3tma<12, 96, true>, "tensor ring R 12, K 96, free", 12);
            run3(k_planes3<1, true>, "registers, one plane ahead");
            runr(k_planes3ring<8>, "block ring R 8, K 0", 8);
            run3(k_planes3<1, true>, "registers, one plane ahead");
            printf("%s\n", cudaGetErrorString(cudaGetLastError()));
            return 0;
        }
        run3(k_planes3<1, false>, "bulk copies 1 plane ahead");
        run3(k_planes3<2, false>, "bulk copies 2 planes ahead");
        run3(k_planes3<3, false>, "bulk copies 3 planes ahead");
        run3(k_planes3<1, true>, "registers, one plane ahead");
    }
    printf("%s\n", cudaGetErrorString(cudaGetLastError()));
}
