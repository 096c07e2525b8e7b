/* What the access-pattern probes (strip_probe.cu, plane_probe.cu, bulk_probe.cu) share: the ordering trick of the
 * kernels' loads, the copy kernel whose bandwidth each run's percentages are of, the 2D arrays, and the 2D kernel's
 * pattern in sub-strips (k_substrips, cuda_notes 213) that strip_probe.cu measures and bulk_probe.cu compares
 * against. Not built by CMake. */
#ifndef EDDY_PROBE_COMMON_CUH
#define EDDY_PROBE_COMMON_CUH

#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>

/* 0 computed from x in a way the compiler does not see through: the next loads' index depends on the values the step
 * consumed, so they are issued after them (the kernel's vafter, cuda_notes 180) */
__device__ inline int after(float x) {
    int r;
    asm("prmt.b32 %0, %1, 0, 0x4444;" : "=r"(r) : "r"(__float_as_int(x)));
    return r;
}

__global__ void k_copy(const float4 *a, float4 *b, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}

/* the copy kernel's bandwidth (read + write, GB/s) over 256 MB, the last of three runs; printed */
inline double probe_copy_bandwidth(cudaEvent_t e0, cudaEvent_t e1) {
    const size_t cn = (size_t)1 << 28;
    float4 *ca, *cb;
    cudaMalloc(&ca, cn);
    cudaMalloc(&cb, cn);
    float ms = 0;
    for (int r = 0; r < 3; r++) {
        cudaEventRecord(e0);
        k_copy<<<1056, 512>>>(ca, cb, cn / 16);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
    }
    cudaEventElapsedTime(&ms, e0, e1);
    cudaFree(ca);
    cudaFree(cb);
    const double copy = 2.0 * cn / (ms * 1e-3) / 1e9;
    printf("copy %.0f GB/s\n", copy);
    return copy;
}

/* ms per launch: `launch` run 10 times back to back, the last of `rounds` such rounds (the earlier ones warm up) */
template <class Launch>
inline float probe_b2b_ms(cudaEvent_t e0, cudaEvent_t e1, Launch launch, int rounds = 1) {
    float ms = 0;
    for (int r = 0; r < rounds; r++) {
        cudaEventRecord(e0);
        for (int k = 0; k < 10; k++) launch();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
    }
    return ms / 10;
}
/* ms of one launch on its own: the median of 10, after 2 that warm up */
template <class Launch>
inline float probe_single_ms(cudaEvent_t e0, cudaEvent_t e1, Launch launch) {
    float t[10], ms = 0;
    for (int r = 0; r < 12; r++) {
        cudaEventRecord(e0);
        launch();
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&ms, e0, e1);
        if (r >= 2) t[r - 2] = ms;
    }
    std::sort(t, t + 10);
    return t[5];
}
/* the share of the copy bandwidth (GB/s), in percent, of moving `bytes` in `ms` */
inline double probe_pct(double bytes, double ms, double copy) { return 100 * bytes / (ms * 1e-3) / 1e9 / copy; }

/* 2D 2048^2 face arrays (u, v, and the new ones) for the 2D probes */
struct Faces2D {
    int n0 = 2048, n1 = 2048;
    size_t nu = (size_t)(n0 + 1) * n1, nv = (size_t)n0 * (n1 + 1);
    float *u, *v, *ou, *ov;
    Faces2D() {
        cudaMalloc(&u, nu * 4); cudaMalloc(&v, nv * 4); cudaMalloc(&ou, nu * 4); cudaMalloc(&ov, nv * 4);
        cudaMemset(u, 0, nu * 4); cudaMemset(v, 0, nv * 4);
    }
};

/* 3D n^3 face arrays (u, v, w and the new ones) for the 3D probes, and the bytes a pass over them must move */
struct Faces3D {
    int n;
    size_t nu, nw;
    float *u, *v, *w, *ou, *ov, *ow;
    explicit Faces3D(int n_) : n(n_), nu((size_t)(n_ + 1) * n_ * n_), nw((size_t)n_ * n_ * (n_ + 1)) {
        cudaMalloc(&u, nu * 4); cudaMalloc(&v, nu * 4); cudaMalloc(&w, nw * 4);
        cudaMalloc(&ou, nu * 4); cudaMalloc(&ov, nu * 4); cudaMalloc(&ow, nw * 4);
        cudaMemset(u, 0, nu * 4); cudaMemset(v, 0, nu * 4); cudaMemset(w, 0, nw * 4);
    }
    double bytes() const { return 8.0 * (2 * nu + nw); }
};

/* A lane of the 3D kernel's access pattern (plane_probe.cu, cluster_probe.cu): its column p (loads at the clamped
 * col) and row y (row) of a chunk [z0, z1) of planes of an n^3 grid; the new faces of plane t, the old faces of
 * plane t (those it writes), and the faces the cell velocity of plane M reads */
struct PlaneLane {
    int n, p, y, col, row, z0, z1;
    bool wr; /* it writes */
    size_t su, sv, sw; /* plane sizes */
    __device__ PlaneLane(int n_, int p_, int y_, bool wr_, int z0_, int z1_)
        : n(n_), p(p_), y(y_), col(min(max(p_, 0), n_ - 1)), row(min(max(y_, 0), n_ - 1)), z0(z0_), z1(z1_), wr(wr_),
          su((size_t)(n_ + 1) * n_), sv((size_t)n_ * (n_ + 1)), sw((size_t)n_ * n_) {}
    __device__ bool writes(int t) const { return t >= z0 && t < z1 && wr; }
    __device__ void store(float *ou, float *ov, float *ow, int t, float uo, float vo, float wo, float acc) const {
        if (!writes(t)) return;
        ou[p + (size_t)(n + 1) * y + su * t] = uo + acc * 1e-30f;
        ov[p + (size_t)n * y + sv * t] = vo + acc * 1e-30f;
        ow[p + (size_t)n * y + sw * t] = wo + acc * 1e-30f;
    }
    __device__ void load_old(const float *u, const float *v, const float *w, int t, float &uo, float &vo, float &wo) const {
        if (!writes(t)) return;
        uo = u[p + (size_t)(n + 1) * y + su * t];
        vo = v[p + (size_t)n * y + sv * t];
        wo = w[p + (size_t)n * y + sw * t];
    }
    __device__ void load_cell(const float *u, const float *v, const float *w, int M, int L1, float &a, float &b, float &c,
                              float &d) const {
        if (M > L1) return;
        const size_t iu = col + (size_t)(n + 1) * row + su * M;
        a = u[iu];
        b = u[iu + 1];
        c = v[col + (size_t)n * (row + 1) + sv * M];
        d = w[col + (size_t)n * row + sw * (M + 1)];
    }
};

/* the 2D kernel's chunks (k_forces.cu launch_vort2): as many as fill `slots` resident warps over `strips` strips,
 * at least 16 rows each, times `mul`; the rows per chunk (ky) and the warps of the launch */
struct ProbeChunks {
    int ky, warps;
};
inline ProbeChunks probe_chunks(int n1, int strips, int slots, int mul = 1) {
    const int chunks = std::max(1, std::min(n1 / 16, slots / strips)) * mul, ky = (n1 + chunks - 1) / chunks;
    return {ky, strips * ((n1 + ky - 1) / ky)};
}

/* this warp's lane, strip and chunk in a launch of blocks of WPB warps, strips fastest; false past the last warp */
template <int WPB>
__device__ inline bool strip_warp(int strips, int warps, int *lane, int *strip, int *chunk) {
    const int w = blockIdx.x * WPB + threadIdx.x / 32;
    *lane = threadIdx.x & 31;
    *strip = w % strips;
    *chunk = w / strips;
    return w < warps;
}

/* the lane's columns of a warp's sub-strips from X0 on, clamped, and which it writes (3 of halo before, 2 after) */
template <int NCS>
__device__ inline void strip_columns(int X0, int lane, int n0, int (&p)[NCS], int (&col)[NCS], bool (&wr)[NCS]) {
#pragma unroll
    for (int c = 0; c < NCS; c++) {
        p[c] = X0 + 32 * c + lane;
        col[c] = min(max(p[c], 0), n0 - 1);
        const int k = 32 * c + lane;
        wr[c] = k >= 3 && k < 32 * NCS - 2 && p[c] < n0;
    }
}

/* K float operations per step in 4 independent chains, a shuffle every fourth (the kernel's arithmetic between a
 * step's loads and the next's stores, in kind: bulk_probe.cu asks how much of it the access patterns hide) */
template <int K>
__device__ inline float busy(float x) {
    float y[4] = {x, x * 0.5f, x * 0.25f, x * 0.125f};
#pragma unroll
    for (int k = 0; k < K / 4; k++)
#pragma unroll
        for (int j = 0; j < 4; j++) y[j] = k % 4 == 3 ? y[j] + __shfl_xor_sync(0xffffffffu, y[j], 1) : fmaf(y[j], 0.999f, 1e-7f);
    return (y[0] + y[1]) + (y[2] + y[3]);
}

/* NCS sub-strips of 32 columns per warp, lane l owning columns X0 + 32 c + l (every access a warp's 128 coalesced
 * bytes, 32 NCS - 5 columns written: 3 of halo before, 2 after): the kernel's loads and stores per sub-strip */
template <int NCS, int WPB = 8, int K = 0>
__global__ void __launch_bounds__(32 * WPB) k_substrips(const float *__restrict__ u, const float *__restrict__ v, float *__restrict__ ou, float *__restrict__ ov,
                            int n0, int n1, int strips, int ky, int warps) {
    int lane, strip, chunk;
    if (!strip_warp<WPB>(strips, warps, &lane, &strip, &chunk)) return;
    int X0 = strip * (32 * NCS - 5) - 3;
    int p[NCS], col[NCS];
    bool wr[NCS];
    strip_columns<NCS>(X0, lane, n0, p, col, wr);
    int r0 = chunk * ky, r1 = min(r0 + ky, n1);
    float a[NCS], b[NCS], d[NCS], uo[NCS], vo[NCS], acc = 0;
#pragma unroll
    for (int c = 0; c < NCS; c++) a[c] = b[c] = d[c] = uo[c] = vo[c] = 0;
    int L0 = max(r0 - 3, 0), L1 = min(r1 + 2, n1 - 1);
    for (int L = L0; L <= L1 + 3; L++) {
        int t = L - 3;
#pragma unroll
        for (int c = 0; c < NCS; c++)
            if (t >= r0 && t < r1 && wr[c]) {
                ou[p[c] + t * (n0 + 1)] = uo[c] + acc * 1e-30f;
                ov[p[c] + t * n0] = vo[c] + acc * 1e-30f;
            }
#pragma unroll
        for (int c = 0; c < NCS; c++) acc += a[c] + b[c] + d[c];
        L += after(acc);
        t = L - 3;
#pragma unroll
        for (int c = 0; c < NCS; c++) {
            if (t + 1 >= r0 && t + 1 < r1 && wr[c]) uo[c] = u[p[c] + (t + 1) * (n0 + 1)], vo[c] = v[p[c] + (t + 1) * n0];
            if (L <= L1) {
                a[c] = u[col[c] + L * (n0 + 1)];
                b[c] = u[col[c] + 1 + L * (n0 + 1)];
                d[c] = v[col[c] + L * n0 + n0];
            }
        }
        if (K) acc = busy<K>(acc);
    }
    if (acc == 12345.0f) ou[0] = acc;
}
#endif
