/* Shared pieces of the CUDA backend: the device-side grid geometry (mirroring struct eddy_sim), staggered-grid
 * sampling that performs the CPU's float operations in the CPU's order (grid.c), launch shapes, deterministic
 * block reductions, the non-finite flags, and the backend state `cu_sim` that owns every device buffer.
 * Layouts are the CPU's: x-fastest arrays of exactly the CPU's dimensions, so copies to and from the host
 * mirrors are flat memcpys. */
#ifndef EDDY_CU_COMMON_CUH
#define EDDY_CU_COMMON_CUH

#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

extern "C" {
#include "../sim_internal.h"
}
#include "eddy_cuda.h"

namespace ecu {

/* 2D launch tiles: 32 threads along x (one warp per row segment, coalesced), 8 rows; blockIdx.z is the z index. */
constexpr int BX = 32, BY = 8, BLOCK = BX * BY;

/* ------------------------------------------------------------------ geometry (constant over a run) */
struct Geo {
    int dim;
    int n[3];      /* velocity cells */
    int sn[3];     /* scalar cells */
    int ds[3];     /* dye scale */
    float h;
    float sh[3];
    float origin[3];
    int periodic[3];
    int btype[6];
    float bvel[6][3];
    float bdye[6][3];
    float btemp[6];
};

/* 32-bit index arithmetic (the attach refuses grids whose padded arrays reach 2^31 elements): a 64-bit multiply
 * costs several 32-bit ones, and the stencil and sampling kernels are full of them */
__host__ __device__ inline unsigned idx3(const int n[3], int i, int j, int k) {
    return (unsigned)i + (unsigned)n[0] * ((unsigned)j + (unsigned)n[1] * (unsigned)k);
}
__host__ __device__ inline void face_dims(const Geo &g, int a, int fn[3]) {
    fn[0] = g.n[0] + (a == 0);
    fn[1] = g.n[1] + (a == 1);
    fn[2] = g.n[2] + (a == 2);
}
__host__ __device__ inline int wrapi(int i, int n) { i %= n; return i < 0 ? i + n : i; }
__host__ __device__ inline int clampi(int i, int lo, int hi) { return i < lo ? lo : (i > hi ? hi : i); }

/* where the samples of an array sit (eddy_grid_desc without the pointer) */
struct GDesc {
    int n[3];
    float off[3];
    float spacing[3];
    float origin[3];
    int periodic[3];
    int period[3];
};
__host__ __device__ inline GDesc velocity_desc(const Geo &g, int a) {
    GDesc d;
    face_dims(g, a, d.n);
    for (int b = 0; b < 3; b++) {
        d.off[b] = (b == a) ? 0.0f : 0.5f;
        d.spacing[b] = g.h;
        d.origin[b] = g.origin[b];
        d.periodic[b] = g.periodic[b];
        d.period[b] = g.n[b];
    }
    return d;
}
__host__ __device__ inline GDesc cell_desc(const Geo &g) {
    GDesc d;
    for (int b = 0; b < 3; b++) {
        d.n[b] = g.n[b];
        d.off[b] = 0.5f;
        d.spacing[b] = g.h;
        d.origin[b] = g.origin[b];
        d.periodic[b] = g.periodic[b];
        d.period[b] = g.n[b];
    }
    return d;
}
__host__ __device__ inline GDesc scalar_desc(const Geo &g) {
    GDesc d;
    for (int b = 0; b < 3; b++) {
        d.n[b] = g.sn[b];
        d.off[b] = 0.5f;
        d.spacing[b] = g.sh[b];
        d.origin[b] = g.origin[b];
        d.periodic[b] = g.periodic[b];
        d.period[b] = g.sn[b];
    }
    return d;
}
__host__ __device__ inline void grid_pos(const GDesc &d, int i, int j, int k, float p[3]) {
    p[0] = d.origin[0] + ((float)i + d.off[0]) * d.spacing[0];
    p[1] = d.origin[1] + ((float)j + d.off[1]) * d.spacing[1];
    p[2] = d.origin[2] + ((float)k + d.off[2]) * d.spacing[2];
}

/* grid.c axis_weights / locate, operation for operation */
__host__ __device__ inline void axis_weights(const GDesc &d, int b, float x, int *i0, int *i1, float *w) {
    int n = d.n[b];
    if (n == 1) {
        *i0 = *i1 = 0;
        *w = 0.0f;
        return;
    }
    if (d.periodic[b]) {
        int per = d.period[b];
        float fl = floorf(x);
        int i = (int)fl;
        *w = x - fl;
        *i0 = wrapi(i, per);
        *i1 = wrapi(i + 1, per);
        return;
    }
    float hi = (float)(n - 1);
    if (!(x > 0.0f)) x = 0.0f;
    if (x > hi) x = hi;
    int i = (int)x;
    if (i > n - 2) i = n - 2;
    *i0 = i;
    *i1 = i + 1;
    *w = x - (float)i;
}
__device__ inline void locate(const GDesc &d, const float p[3], int i0[3], int i1[3], float w[3]) {
    for (int b = 0; b < 3; b++) {
        float x = (p[b] - d.origin[b]) / d.spacing[b] - d.off[b];
        axis_weights(d, b, x, &i0[b], &i1[b], &w[b]);
    }
}
/* the interpolation of sample() between the located nodes i0, i1 with weights w (locate, or axis_weights per axis) */
__device__ inline float sample_located(const GDesc &d, const float *__restrict__ f, const int i0[3], const int i1[3],
                                      const float w[3]) {
    const int *n = d.n;
    float c00 = __ldg(&f[idx3(n, i0[0], i0[1], i0[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i0[1], i0[2])]) * w[0];
    float c10 = __ldg(&f[idx3(n, i0[0], i1[1], i0[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i1[1], i0[2])]) * w[0];
    float c0 = c00 * (1 - w[1]) + c10 * w[1];
    if (n[2] == 1) return c0;
    float c01 = __ldg(&f[idx3(n, i0[0], i0[1], i1[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i0[1], i1[2])]) * w[0];
    float c11 = __ldg(&f[idx3(n, i0[0], i1[1], i1[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i1[1], i1[2])]) * w[0];
    float c1 = c01 * (1 - w[1]) + c11 * w[1];
    return c0 * (1 - w[2]) + c1 * w[2];
}
__device__ inline float sample(const GDesc &d, const float *__restrict__ f, const float p[3]) {
    int i0[3], i1[3];
    float w[3];
    locate(d, p, i0, i1, w);
    return sample_located(d, f, i0, i1, w);
}
/* sample plus the min and max of the 2^d nodes around p (grid.c eddy__sample_minmax) */
__device__ inline float sample_minmax(const GDesc &d, const float *__restrict__ f, const float p[3], float *lo, float *hi) {
    int i0[3], i1[3];
    float w[3];
    locate(d, p, i0, i1, w);
    const int *n = d.n;
    int kn = n[2] == 1 ? 1 : 2;
    float mn = INFINITY, mx = -INFINITY;
    for (int kk = 0; kk < kn; kk++)
        for (int jj = 0; jj < 2; jj++)
            for (int ii = 0; ii < 2; ii++) {
                float v = __ldg(&f[idx3(n, ii ? i1[0] : i0[0], jj ? i1[1] : i0[1], kk ? i1[2] : i0[2])]);
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
    *lo = mn;
    *hi = mx;
    float c00 = __ldg(&f[idx3(n, i0[0], i0[1], i0[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i0[1], i0[2])]) * w[0];
    float c10 = __ldg(&f[idx3(n, i0[0], i1[1], i0[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i1[1], i0[2])]) * w[0];
    float c0 = c00 * (1 - w[1]) + c10 * w[1];
    if (n[2] == 1) return c0;
    float c01 = __ldg(&f[idx3(n, i0[0], i0[1], i1[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i0[1], i1[2])]) * w[0];
    float c11 = __ldg(&f[idx3(n, i0[0], i1[1], i1[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i1[1], i1[2])]) * w[0];
    float c1 = c01 * (1 - w[1]) + c11 * w[1];
    return c0 * (1 - w[2]) + c1 * w[2];
}

/* the three (two) face arrays, by value, for kernels that sample velocity */
struct Vel {
    const float *c[3];
};
__device__ inline void sample_vel(const Geo &g, const Vel &v, const float p[3], float out[3]) {
    for (int a = 0; a < 3; a++) {
        if (a >= g.dim) {
            out[a] = 0.0f;
            continue;
        }
        GDesc d = velocity_desc(g, a);
        out[a] = sample(d, v.c[a], p);
    }
}

/* ------------------------------------------------------------------ launch shapes */
inline dim3 tiles(int nx, int ny, int nz) { return dim3((unsigned)((nx + BX - 1) / BX), (unsigned)((ny + BY - 1) / BY), (unsigned)nz); }
inline dim3 tile_block() { return dim3(BX, BY, 1); }
#define ECU_IJK(nx, ny)                                         \
    const int i = (int)(blockIdx.x * BX + threadIdx.x);         \
    const int j = (int)(blockIdx.y * BY + threadIdx.y);         \
    const int k = (int)blockIdx.z;                              \
    const bool inside_ = i < (nx) && j < (ny);
/* reduction kernels: each thread walks ECU_ROWS rows (j, j + BY, ...) of its column, so a block covers
 * BX x (BY * ECU_ROWS) cells and the block-level tree sums run eight times less often */
constexpr int ECU_ROWS = 8;
inline dim3 tiles_rows(int nx, int ny, int nz) {
    return dim3((unsigned)((nx + BX - 1) / BX), (unsigned)((ny + BY * ECU_ROWS - 1) / (BY * ECU_ROWS)), (unsigned)nz);
}
#define ECU_ROWS_BEGIN(nx, ny)                                                   \
    const int i = (int)(blockIdx.x * BX + threadIdx.x);                          \
    const int k = (int)blockIdx.z;                                               \
    _Pragma("unroll") for (int r_ = 0; r_ < ECU_ROWS; r_++) {                    \
        const int j = (int)(blockIdx.y * (BY * ECU_ROWS) + threadIdx.y + r_ * BY); \
        if (i >= (nx) || j >= (ny)) continue;
#define ECU_ROWS_END }
#define ECU_BLOCK_ID() ((size_t)blockIdx.x + (size_t)gridDim.x * ((size_t)blockIdx.y + (size_t)gridDim.y * blockIdx.z))
#define ECU_BLOCKS(gr) ((size_t)(gr).x * (gr).y * (gr).z)

/* ------------------------------------------------------------------ non-finite flags
 * Kernels that write a stored field flag a non-finite value they write; the flag word of a check slot holds one
 * bit per eddy_field. The step reads them once at its end and names the first stage (slot) that produced one. */
struct Flags {
    int *word; /* NULL: no check */
};
/* the bit of "a velocity component": the 3D vorticity kernel checks its three components in one accumulator (the
 * register a component costs made it spill); the step's error then names the velocity, not the component */
constexpr int FLAG_ANY_VELOCITY = 30;
static_assert(EDDY_FIELD_COUNT < FLAG_ANY_VELOCITY, "flag bits");
__device__ inline void flag_if_bad(Flags fl, float v, int field) {
    if (fl.word && !isfinite(v)) atomicOr(fl.word, 1 << field);
}

/* ------------------------------------------------------------------ deterministic reductions
 * A block reduces its threads' values in a fixed tree (warp shuffles, then one warp over the warp results) and
 * writes one partial per block; a one-block kernel reduces the partials in a fixed order. Same launch shape,
 * same bits, on every run. */
enum RedOp { RED_SUM = 0, RED_MAX = 1 };
__device__ inline double red2(double a, double b, int op) { return op == RED_SUM ? a + b : fmax(a, b); }
template <int OP>
__device__ inline double block_reduce(double v, double *sh /* 32 doubles */) {
    const int lane = (int)((threadIdx.x + blockDim.x * threadIdx.y) & 31), warp = (int)((threadIdx.x + blockDim.x * threadIdx.y) >> 5);
    const int nwarps = (int)((blockDim.x * blockDim.y * blockDim.z + 31) >> 5);
    for (int o = 16; o > 0; o >>= 1) v = red2(v, __shfl_down_sync(0xffffffffu, v, o), OP);
    __syncthreads(); /* sh may be reused by consecutive reductions */
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? sh[lane] : (OP == RED_SUM ? 0.0 : -INFINITY);
        for (int o = 16; o > 0; o >>= 1) v = red2(v, __shfl_down_sync(0xffffffffu, v, o), OP);
    }
    return v; /* valid in thread 0 */
}
#define ECU_THREAD0() (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)

/* ------------------------------------------------------------------ device shapes (obstacles, emitters) */
struct DShape {
    int shape;
    float center[3];
    float radius;
    float half_size[3];
    float axis[3];
    float velocity[3];
    /* emitters */
    float dye[3];
    float temperature;
    int set_velocity;
};
/* obstacles.c eddy__shape_sdf for the analytic shapes, operation for operation */
__device__ inline float shape_sdf(const DShape &s, const float p[3], int dim) {
    float d[3] = {p[0] - s.center[0], p[1] - s.center[1], dim == 3 ? p[2] - s.center[2] : 0.0f};
    switch (s.shape) {
    case EDDY_SHAPE_SPHERE: return sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) - s.radius;
    case EDDY_SHAPE_BOX: {
        float q[3], outside[3], inside = -INFINITY;
        for (int a = 0; a < 3; a++) {
            float hs = (a < dim) ? s.half_size[a] : INFINITY;
            q[a] = fabsf(d[a]) - hs;
            outside[a] = q[a] > 0 ? q[a] : 0.0f;
            if (a < dim && q[a] > inside) inside = q[a];
        }
        return sqrtf(outside[0] * outside[0] + outside[1] * outside[1] + outside[2] * outside[2]) + (inside < 0 ? inside : 0.0f);
    }
    case EDDY_SHAPE_CAPSULE: {
        float ax[3] = {s.axis[0], s.axis[1], dim == 3 ? s.axis[2] : 0.0f};
        float aa = ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2];
        float t = 0.0f;
        if (aa > 0) {
            t = (d[0] * ax[0] + d[1] * ax[1] + d[2] * ax[2]) / aa;
            t = t < -1 ? -1 : (t > 1 ? 1 : t);
        }
        float e[3] = {d[0] - t * ax[0], d[1] - t * ax[1], d[2] - t * ax[2]};
        return sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) - s.radius;
    }
    }
    return INFINITY;
}

} /* namespace ecu */

#endif
