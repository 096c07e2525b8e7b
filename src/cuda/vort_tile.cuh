/* Vorticity confinement in one pass over the velocity (vorticity.c: omega = curl u from cell-averaged velocity,
 * N = grad|omega| / |grad|omega||, f = eps h (N x omega), averaged back onto the faces). Each kernel reads the faces
 * around the part of the grid it owns and writes that part's new faces (the faces its cells start, and the
 * domain's last ones) into a second velocity array: the update cannot be in place, other parts read the old
 * faces around theirs. Both march along the outermost axis as the CPU's sweep does (vorticity_sweep.c), keeping
 * the few slabs of each level that the stencils need: cell velocity 3, |curl| 3, curl 2, force 2.
 *   2D (vort2_warp): a warp owns a strip of columns (NC sub-strips of 32, a column of each per lane) and a chunk
 *     of rows; the slabs are registers, the x-neighbours the neighbouring lanes' values (shuffles). The rows come
 *     from global memory, or (on the device, vort_ring.cuh) from a ring in shared memory that the block's producer
 *     warp fills; no barrier between warps.
 *   3D (Vort3Warp): a block of W warps owns a strip of columns (one per lane), W rows and a chunk of z-planes; a
 *     warp marches its row along z with the planes in registers, x-neighbours by shuffles, y-neighbours through
 *     one row per warp and level in shared memory (rings of two planes), one barrier per plane.
 * Every global load is issued a step before the step that consumes it, and a step consumes all of them before it
 * issues the next step's: a consumer waits for every load on its scoreboard, the ones issued after it included, so
 * a load consumed later in the step that issued it exposed the memory latency once per step (cuda_notes 180). Where
 * the scene has no solid cell (SOL false) the solid array is not read.
 *
 * Walls and periodic axes without index arithmetic per neighbour: a position p of a level outside the domain along
 * a clamped axis holds the value of the level at the clamped cell, so the stencils read their neighbours at fixed
 * offsets and get the CPU's clamped neighbours; along a periodic axis every position is computed by the same
 * stencil from the periodic continuation (the cell velocity reads wrapped faces), which is the CPU's wrapped
 * neighbour. The spacing follows the cell: span 1 at a wall, 2 elsewhere. The values are the CPU sweep's formulas
 * with fused multiply-adds and approximate roots (below): within ~1e-7 of its faces, not its bits.
 *
 * The functions are written for the device and for a host emulation (lane values are 32-lane arrays; in 3D the
 * warps of a block run step by step, the barrier between the steps), which lets the arithmetic and the indexing be
 * checked against the CPU without a GPU (bench/cuda/vort_emulate.cu). */
#ifndef EDDY_VORT_TILE_CUH
#define EDDY_VORT_TILE_CUH

#include "cu_common.cuh"
#include "../vorticity_sweep.h"

namespace ecu {

#ifdef __CUDA_ARCH__
#define VT_UNROLL _Pragma("unroll")
#else
#define VT_UNROLL
#endif

struct VortArgs {
    int n[3];
    int periodic[3];
    float rcp[3];         /* [span] for spans 1 and 2: 1 / ((float)span * h) */
    float hscale, hdt;    /* 0.5 eps h and 0.5 dt: the cell velocities are carried doubled (as in vorticity.c) */
    const float *v[3];    /* velocity at the start of the stage */
    float *out[3];        /* new velocity */
    const uint8_t *solid;
    int *flag;            /* non-finite flag word of the step's slot (null: none) */
    int kz;               /* 3D: planes per block */
};

/* The arguments that depend on h, eps and dt, as the CPU's (vorticity_sweep.h); the kernels multiply by the
 * reciprocals whether or not they are exact (h a power of two) */
inline void vort_args_step(VortArgs &A, float h, float eps, float dt) {
    float den[3];
    (void)eddy__vort_step_constants(h, eps, dt, den, A.rcp, &A.hscale, &A.hdt);
}

__host__ __device__ inline int vt_min(int a, int b) { return a < b ? a : b; }
/* g mod n for g a few periods off at most (no integer division: its out-of-line path made the 3D kernel spill
 * registers) */
__host__ __device__ inline int vt_wrap(int g, int n) {
    while (g < 0) g += n;
    while (g >= n) g -= n;
    return g;
}
__host__ __device__ inline int vt_max(int a, int b) { return a > b ? a : b; }
/* a row (plane) index as the neighbour rule sees it (vorticity_sweep.c key_nb / key_phys): the key clamped to
 * [0, n) on a bounded axis, free on a periodic one; the physical index a key reads */
__host__ __device__ inline int vt_key(int L, int n, bool periodic) { return periodic ? L : vt_min(vt_max(L, 0), n - 1); }
__host__ __device__ inline int vt_phys(int L, int n, bool periodic) { return periodic ? vt_wrap(L, n) : L; }

/* The kernels' arithmetic (issue 7, cuda_notes 205, 208): fused multiply-adds, every difference multiplied by the
 * spacing's reciprocal, and the hardware's approximate square root and reciprocal square root (MUFU, relative error
 * ~2^-22) instead of the CPU's separate roundings, divisions and correctly rounded roots. Within ~1e-7 of the CPU's
 * faces (relative to the largest); 3D 21% fewer instructions, 2D 44% fewer and no slower kernel for h other than a
 * power of two. The host versions (emulation) round as the CPU's libm does, so the emulation compares by tolerance. */
__host__ __device__ inline float vt_fma(float a, float b, float c) {
#ifdef __CUDA_ARCH__
    return __fmaf_rn(a, b, c);
#else
    return fmaf(a, b, c);
#endif
}
/* |curl| from its square: flushing a subnormal square to 0 changes |curl| by less than 2^-63 */
__host__ __device__ inline float vt_sqrt_approx(float s) {
#ifdef __CUDA_ARCH__
    float r;
    asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(s));
    return r;
#else
    return sqrtf(s);
#endif
}
/* 1 / |grad| from its square, not flushed: the cut-off keeps gradients down to 2e-20, squares down to 4e-40 (CUDA's
 * rsqrtf is rsqrt.approx.f32) */
__host__ __device__ inline float vt_rsqrt_approx(float s) {
#ifdef __CUDA_ARCH__
    return rsqrtf(s);
#else
    return 1.0f / sqrtf(s);
#endif
}

/* ------------------------------------------------------------------ 2D, a warp per strip of columns
 * Each lane owns a column and marches along y through a chunk of rows, keeping the rows of every level that its
 * stencils need in registers (cell velocity 3 rows, |curl| 3, curl 2, force 1 and 2); the x-neighbours are the
 * neighbouring lanes' values (shuffles). A warp covers 32 NC columns, 3 of them halo before and 2 after, and
 * writes the faces of the ones in the middle. No shared memory and no barrier; the index arithmetic is the lane's, once.
 * Along a clamped x-axis the lanes outside the domain take the value of the lane at the clamped column after
 * each level (a shuffle, in the warps at a wall only). The faces that the next row's cell velocity reads, the old
 * faces of the next row written and its solid cells are loaded a step ahead.
 * The code is written over lane values (F, I, B: float, int, bool on the device; 32-lane arrays in the host
 * emulation, where a shuffle is a shift of the array). */

__host__ __device__ inline float vsel(bool m, float a, float b) { return m ? a : b; }
__host__ __device__ inline int vsel(bool m, int a, int b) { return m ? a : b; }
__host__ __device__ inline int vlane(int) {
#ifdef __CUDA_ARCH__
    return (int)(threadIdx.x & 31);
#else
    return 0;
#endif
}
/* the value of lane + 1 (lane 31: its own), lane - 1 (lane 0: its own), lane src */
__host__ __device__ inline float vnext(float x) {
#ifdef __CUDA_ARCH__
    return __shfl_down_sync(0xffffffffu, x, 1);
#else
    return x;
#endif
}
__host__ __device__ inline float vprev(float x) {
#ifdef __CUDA_ARCH__
    return __shfl_up_sync(0xffffffffu, x, 1);
#else
    return x;
#endif
}
__host__ __device__ inline float vfrom(float x, int src) {
#ifdef __CUDA_ARCH__
    return __shfl_sync(0xffffffffu, x, src);
#else
    (void)src;
    return x;
#endif
}
/* the value of lane (lane + d) mod 32 (a rotation) */
__host__ __device__ inline float vrot(float x, int d) {
#ifdef __CUDA_ARCH__
    return __shfl_sync(0xffffffffu, x, (int)((threadIdx.x + (unsigned)d) & 31u));
#else
    (void)d;
    return x;
#endif
}
__host__ __device__ inline float vload(const float *p, int i, bool m) { return m ? p[i] : 0.0f; }
/* 0, computed from a, b and c in a way that the compiler does not see through (a byte permutation that picks
 * bytes of the zero operand only) */
__host__ __device__ inline int vafter(float a, float b, bool c) {
#ifdef __CUDA_ARCH__
    int r;
    asm("prmt.b32 %0, %1, 0, 0x4444;" : "=r"(r) : "r"(__float_as_int(a) ^ __float_as_int(b) ^ (int)c));
    return r;
#else
    (void)a, (void)b, (void)c;
    return 0;
#endif
}
__host__ __device__ inline int vload8(const uint8_t *p, int i, bool m) { return m ? (int)p[i] : 0; }
__host__ __device__ inline float vfma(float a, float b, float c) { return vt_fma(a, b, c); }
__host__ __device__ inline float vsqrt_approx(float s) { return vt_sqrt_approx(s); }
__host__ __device__ inline float vrsqrt_approx(float s) { return vt_rsqrt_approx(s); }
__host__ __device__ inline bool visfinite(float x) { return isfinite(x); }
/* acc + v * 0 where m: NaN once a v is infinite or NaN (one fused multiply-add, not a test per face) */
__host__ __device__ inline float vfinacc(float acc, float v, bool m) { return m ? fmaf(v, 0.0f, acc) : acc; }
__host__ __device__ inline void vput(float *out, int q, float v, bool m) {
    if (m) out[q] = v;
}
__host__ __device__ inline void vsts(float *p, int i, float v) { p[i] = v; }
/* the warp's non-finite writes into bit `bit` of the step's flag word (a field, or FLAG_ANY_VELOCITY) */
__host__ __device__ inline void vflags_bit(const VortArgs &A, int bit, bool bad) {
#ifdef __CUDA_ARCH__
    if (A.flag && __any_sync(0xffffffffu, bad) && (threadIdx.x & 31) == 0) atomicOr(A.flag, 1 << bit);
#else
    if (A.flag && bad) *A.flag |= 1 << bit;
#endif
}
/* of velocity component a */
__host__ __device__ inline void vflags(const VortArgs &A, int a, bool bad) { vflags_bit(A, EDDY_FIELD_U + a, bad); }
__host__ __device__ inline int vminv(int a, int b) { return vt_min(a, b); }
__host__ __device__ inline int vmaxv(int a, int b) { return vt_max(a, b); }
__host__ __device__ inline int vwrapv(int g, int n) { return vt_wrap(g, n); }

/* warp w of the launch: strip w % strips, chunk w / strips; ky rows per chunk. Each lane owns NC columns, one
 * in each sub-strip of 32 (vw_col): a warp covers 32 NC columns and writes the 32 NC - 5 in the middle
 * (vw_strips). */
template <int NC>
__host__ __device__ constexpr int vw_out() { return 32 * NC - 5; }
/* The halo is 3 columns before the written ones and 2 after: a face at column p takes the forces of cells p - 1 and
 * p, a force the |curl| of its two neighbours, a |curl| the cell velocities of its neighbours. The last face along
 * an axis (index n, one past the last cell) takes a written position of its own, so the strips (3D: blocks of rows)
 * cover n + 1 positions. */
__host__ __device__ inline int vw_strips(int n, int out) { return (n + out) / out; }
/* does strip `strip` of a 2D warp of NC columns per lane lie in columns 1 .. n0 - 2 (vort2_warp's IN)? */
template <int NC>
__host__ __device__ inline bool vw_inner(int strip, int n0) {
    const int X0 = strip * vw_out<NC>() - 3;
    return X0 >= 1 && X0 + 32 * NC <= n0 - 1;
}
/* Sub-strips: lane l owns the warp's columns 32 c + l (c < NC), so that every load and store of a warp is 128
 * consecutive bytes per sub-strip and a warp's accesses to a row are 128 NC consecutive bytes (cuda_notes 213: the
 * wider pieces are what lifts the access pattern). The x-neighbours of a column are the neighbouring lanes' values
 * of the same sub-strip, across a sub-strip's ends the other end of the next or previous one: one shuffle per
 * column, the value a lane sends chosen by the lane (lane 31 sends sub-strip c - 1 to lane 0, lane 0 sends c + 1
 * to lane 31). Outside the warp's columns (lane 0 of sub-strip 0, lane 31 of the last) the neighbour is the lane's
 * own value: those columns are halo. */
template <class I>
__host__ __device__ inline I vw_col(I lane, int c) { return lane + I(32 * c); }
template <int NC, class F, class I>
__host__ __device__ inline F vw_xprev(const F (&v)[NC], int c, I lane) {
    if (NC == 1) return vprev(v[0]);
    const F send = c > 0 ? vsel(lane == I(31), v[c > 0 ? c - 1 : 0], v[c]) : v[c];
    const F r = vrot(send, -1);
    return c > 0 ? r : vsel(lane == I(0), v[c], r);
}
template <int NC, class F, class I>
__host__ __device__ inline F vw_xnext(const F (&v)[NC], int c, I lane) {
    if (NC == 1) return vnext(v[0]);
    const F send = c < NC - 1 ? vsel(lane == I(0), v[c < NC - 1 ? c + 1 : c], v[c]) : v[c];
    const F r = vrot(send, 1);
    return c < NC - 1 ? r : vsel(lane == I(31), v[c], r);
}
/* v at warp column k (uniform), without indexing registers by a run-time value */
template <int NC, class F, class I>
__host__ __device__ inline F vw_at(const F (&v)[NC], int k) {
    F r = vfrom(v[0], I(k % 32));
VT_UNROLL
    for (int c = 1; c < NC; c++) {
        const F t = vfrom(v[c], I(k % 32)); /* a shuffle per sub-strip: selecting first put v in local memory */
        r = c == k / 32 ? t : r;
    }
    return r;
}
/* What a 2D step computes where that is known at compile time (K: the step's rows inside the grid, none clamped or
 * wrapped, and these constants): its cell velocity (U), curl (C), force (FO) and faces (T), whether it fetches the
 * next row (NEXT), and what it loads for the next step (PF: solid cells, PT: old faces). Where K is false (the
 * general steps) each is tested per step. */
template <bool K_, bool U_ = true, bool C_ = true, bool FO_ = true, bool T_ = true, bool NEXT_ = true, bool PF_ = true, bool PT_ = true>
struct Vw2Mode {
    static constexpr bool K = K_, U = U_, C = C_, FO = FO_, T = T_, NEXT = NEXT_, PF = PF_, PT = PT_;
};
using Vw2General = Vw2Mode<false>;
using Vw2Steady = Vw2Mode<true>;
/* step r0 - 3 + k of a chunk: cell velocities from k = 0 on, curls from 2, forces from 4; the solid cells loaded for
 * the next step from 3, its old faces from 5 (step 6 is the first steady one) */
template <int k>
using Vw2Ramp = Vw2Mode<true, true, (k >= 2), (k >= 4), false, true, (k >= 3), (k >= 5)>;
/* steps r1 + 1 (j = 1) and r1 + 2 (j = 2) of a chunk: the last cell velocity, curl and force, then the last faces */
template <int j>
using Vw2End = Vw2Mode<true, (j == 1), (j == 1), (j == 1), true, false, false, (j == 1)>;

/* The rows of a 2D warp's chunk (vorticity_sweep.c window_of): its own [r0, r1), forces on [fmin, fmax], curls one
 * further out, cell velocities two; the steady steps [s0, s1] (every level due, rows L - 4 .. L + 1 inside, in
 * this step and the next) and the last step tend (the faces of row r1 - 1, or of the top row of y-faces, row n1,
 * in the last chunk) */
struct Vw2Rows {
    int r0, r1, fmin, fmax, cmin, cmax, umin, umax, s0, s1, tend;
    bool last;
};
__host__ __device__ inline Vw2Rows vw2_rows(const VortArgs &A, int chunk, int ky) {
    const int n1 = A.n[1];
    const bool ps = A.periodic[1] != 0;
    auto key = [&](int L) { return vt_key(L, n1, ps); };
    Vw2Rows w;
    w.r0 = chunk * ky;
    w.r1 = vt_min(w.r0 + ky, n1);
    w.last = w.r1 == n1;
    w.fmin = w.r0 - 1;
    w.fmax = w.last ? n1 : w.r1 - 1;
    if (!ps) {
        w.fmin = key(w.fmin);
        w.fmax = key(w.fmax);
    }
    w.cmin = ps ? w.fmin - 1 : key(w.fmin - 1);
    w.cmax = ps ? w.fmax + 1 : key(w.fmax + 1);
    w.umin = ps ? w.fmin - 2 : key(w.fmin - 2);
    w.umax = ps ? w.fmax + 2 : key(w.fmax + 2);
    w.s0 = vt_max(w.r0 + 3, 4);
    w.s1 = vt_min(vt_min(vt_min(w.r1 + 2, w.fmax + 2), vt_min(w.cmax + 1, w.umax - 1)), n1 - 2) - 1;
    w.tend = (w.last ? n1 : w.r1 - 1) + 3;
    return w;
}
/* Where a 2D warp's rows come from: global memory, loaded a step ahead (no ring: the host emulation's, and the
 * device's warps at the x-ends of a periodic axis), or a ring in shared memory that the block's producer warp fills,
 * read at the start of the step that uses them (k_vort2, k_forces.cu; vort_ring.cuh) */
struct Vw2NoRing {
    static constexpr bool enabled = false;
    const float *urow(int, int) const { return nullptr; }
    const float *vrow(int, int) const { return nullptr; }
    const uint8_t *srow(int, int) const { return nullptr; }
    void wait(int) const {}
    void release(int) const {}
};

template <int NC, class F, class I, class B, bool SOL = true, bool IN = false, class RG = Vw2NoRing>
__host__ __device__ inline void vort2_warp(const VortArgs &A, int strip, int chunk, int ky, const RG &ring = RG()) {
    const int n0 = A.n[0], n1 = A.n[1];
    const bool px = A.periodic[0] != 0, ps = A.periodic[1] != 0;
    const int X0 = strip * vw_out<NC>() - 3;
    const I lane = vlane(I());
    I p[NC], col[NC];   /* the lane's columns, and the stored ones */
    F rx[NC];           /* 1 / the x-differences' spacing: span 1 at a wall, 2 elsewhere */
    B ou[NC], ov[NC];   /* writes the x-face (y-face) of column p */
    /* IN: the warp's columns lie in 1 .. n0 - 2 (vw_inner): none is clamped or wrapped, every x-difference spans
     * two cells and no face past the last is written, so the columns are lane + X0 + 32 c (the loads and stores
     * of a row one address and immediate offsets) and only the halo lanes are masked */
VT_UNROLL
    for (int c = 0; c < NC; c++) {
        const I k = vw_col(lane, c); /* column index in the warp */
        p[c] = k + I(X0);
        if (IN) {
            col[c] = p[c];
            rx[c] = F(A.rcp[2]);
            ov[c] = ou[c] = (c > 0 ? B(true) : k >= 3) && (c < NC - 1 ? B(true) : k <= 32 * NC - 3);
            continue;
        }
        const I q = px ? p[c] : vminv(vmaxv(p[c], I(0)), I(n0 - 1));
        col[c] = px ? vwrapv(p[c], n0) : q;
        const B xs2 = px ? B(true) : (vminv(q + 1, I(n0 - 1)) - vmaxv(q - 1, I(0))) == 2;
        rx[c] = vsel(xs2, F(A.rcp[2]), F(A.rcp[1]));
        ov[c] = k >= 3 && k <= 32 * NC - 3 && p[c] < n0;
        ou[c] = ov[c] || (p[c] == n0 && k >= 3 && k <= 32 * NC - 3);
    }
    auto ry = [&](int span) { return F(span == 2 ? A.rcp[2] : A.rcp[1]); }; /* 1 / the y-difference's spacing */
    /* x-neighbours of column c of a lane-level array */
    auto xprev = [&](const F (&v)[NC], int c) { return vw_xprev<NC>(v, c, lane); };
    auto xnext = [&](const F (&v)[NC], int c) { return vw_xnext<NC>(v, c, lane); };
    /* along a clamped x-axis, the warps at a wall: positions outside the domain take the clamped column's value
     * (the lane and column of column 0 and of column n0 - 1 are the warp's) */
    const bool xwall = !IN && !px && (X0 < 0 || X0 + 32 * NC - 1 >= n0);
    const int kl = -X0, kr = n0 - 1 - X0; /* warp column index of columns 0 and n0 - 1 */
    auto fixup = [&](F (&v)[NC]) {
        const int cl = vt_max(kl, 0), cr = vt_min(kr, 32 * NC - 1);
        const F vl = vw_at<NC, F, I>(v, cl), vr = vw_at<NC, F, I>(v, cr);
VT_UNROLL
        for (int c = 0; c < NC; c++) v[c] = vsel(p[c] < 0, vl, vsel(p[c] >= n0, vr, v[c]));
    };
    auto key = [&](int L) { return vt_key(L, n1, ps); };
    auto phys = [&](int L) { return vt_phys(L, n1, ps); };
    auto yspan = [&](int L) { return ps ? 2 : key(L + 1) - key(L - 1); };
    const Vw2Rows rows = vw2_rows(A, chunk, ky);
    const int r0 = rows.r0, r1 = rows.r1, fmin = rows.fmin, fmax = rows.fmax, cmin = rows.cmin, cmax = rows.cmax;
    const int umin = rows.umin, umax = rows.umax;
    const bool last = rows.last;
    const float hdt = A.hdt, hscale = A.hscale;
    const float *__restrict__ vu = A.v[0];
    const float *__restrict__ vv = A.v[1];
    /* the faces of row L that the cell velocities of the lane's columns read, fetched a row ahead */
    F ra[NC], rb[NC], rc[NC], rd[NC];
    auto fetch = [&](int L, auto mode) {
        constexpr bool K = decltype(mode)::K;
        const int y = K ? L : phys(L);
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            const I iu = col[c] + y * (n0 + 1), iv = col[c] + y * n0;
            ra[c] = vload(vu, iu, B(true));
            rb[c] = vload(vu, iu + 1, B(true));
            /* the bottom y-face of row L is the top one of row L - 1, fetched the step before (known steps: rows
             * L - 1 and L inside, neither wraps) */
            rc[c] = K ? rd[c] : vload(vv, iv, B(true));
            rd[c] = vload(vv, iv + n0, B(true));
        }
    };
    if constexpr (!RG::enabled) fetch(umin, Vw2General());
    /* rows of each level kept in registers: cell velocity L-2 .. L, |curl| L-3 .. L-1, curl L-2 .. L-1, force
     * x L-2, force y L-3 .. L-2 */
    F u0m2[NC], u0m1[NC], u0[NC], u1m1[NC], u1[NC], mgm3[NC], mgm2[NC], mgm1[NC], wzm2[NC], wzm1[NC];
    F f0[NC], f1m3[NC], f1m2[NC];
    F fin_u = F(0.0f), fin_v = F(0.0f); /* non-finite writes turn these into NaN */
VT_UNROLL
    for (int c = 0; c < NC; c++)
        u0m2[c] = u0m1[c] = u0[c] = u1m1[c] = u1[c] = mgm3[c] = mgm2[c] = mgm1[c] = wzm2[c] = wzm1[c] = f0[c] = f1m3[c] =
            f1m2[c] = F(0.0f);
    /* the global loads that step L consumes besides the cell velocity's faces: the old faces of row L - 3 (row n1
     * of y-faces only, at the top) and the solid cells of row L - 2, issued a step ahead (S: step L is steady) */
    F uold[NC], vold[NC];
    I sol[NC], pu[NC], pv[NC]; /* pu, pv: the column of the old faces (the clamped one where the lane writes none:
                                * the steady steps load without a mask, which would be a load and a copy waiting for it) */
VT_UNROLL
    for (int c = 0; c < NC; c++) {
        uold[c] = vold[c] = F(0.0f);
        sol[c] = I(0);
        pu[c] = vsel(ou[c], p[c], col[c]);
        pv[c] = vsel(ov[c], p[c], col[c]);
    }
    auto preload = [&](int L, auto mode) { /* for step L, from step L - 1 of this mode */
        using Md = decltype(mode);
        constexpr bool K = Md::K;
        const int Lf = L - 2, t = L - 3;
        const bool do_f = K ? Md::PF : Lf >= fmin && Lf <= fmax;
        const bool do_t = K ? Md::PT : (t >= r0 && t < r1) || (last && t == n1);
        const bool tin = K || t < n1; /* row t has x-faces (not the top row of y-faces) */
        /* the byte load first: a sub-word load waits for the loads before it on its scoreboard (cuda_notes 180) */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            if (SOL && do_f) sol[c] = vload8(A.solid, col[c] + (K ? Lf : phys(Lf)) * n0, B(true));
            if (do_t) {
                uold[c] = vload(vu, pu[c] + t * (n0 + 1), K ? B(true) : ou[c] && tin);
                vold[c] = vload(vv, pv[c] + t * n0, K ? B(true) : ov[c]);
            }
        }
    };
    if constexpr (!RG::enabled) preload(umin, Vw2General());
    /* with a ring (RG): what step L reads, at its start from the ring's slots (no value held across steps) */
    auto ring_reads = [&](int L, auto mode) {
        if constexpr (RG::enabled) { /* a template branch: the host emulation's lane types have no ring */
            using Md = decltype(mode);
            constexpr bool K = Md::K;
            const int Lf = L - 2, t = L - 3;
            const bool do_u = K ? Md::U : L <= umax;
            const bool do_f = K ? Md::FO : Lf >= fmin && Lf <= fmax;
            const bool do_t = K ? Md::T : (t >= r0 && t < r1) || (last && t == n1);
            const bool tin = K || t < n1;
            if (do_t) { /* the old v-faces of row t are the top ones of row t - 1, unless a wrap lies between */
                const float *ru = ring.urow(t, t), *rv = ring.vrow(t - 1, t - 1);
                const bool above = K || (t - 1 >= umin && phys(t - 1) + 1 == t);
VT_UNROLL
                for (int c = 0; c < NC; c++) {
                    uold[c] = K || tin ? ru[pu[c]] : F(0.0f);
                    vold[c] = above ? rv[pv[c]] : vload(vv, pv[c] + t * n0, ov[c]);
                }
            }
            if (SOL && do_f) {
                const uint8_t *rs = ring.srow(Lf, K ? Lf : phys(Lf));
VT_UNROLL
                for (int c = 0; c < NC; c++) sol[c] = rs[col[c]];
            }
            if (do_u) {
                const int y = K ? L : phys(L);
                ring.wait(L);
                const float *ru = ring.urow(L, y), *rv = ring.vrow(L, y); /* row L's u, the y-faces above it */
                /* the bottom y-faces: the top ones of the row before unless row L is the chunk's first (no slot before
                 * it) or follows a wrap (a known step with a curl due lies two rows or more past the first) */
                const bool below = (K && Md::C) || (L > umin && (K || phys(L - 1) + 1 == y));
                const float *rb0 = ring.vrow(L - 1, K ? L - 1 : phys(L - 1));
VT_UNROLL
                for (int c = 0; c < NC; c++) {
                    ra[c] = ru[col[c]];
                    rb[c] = ru[col[c] + 1];
                    rc[c] = below ? rb0[col[c]] : vload(vv, col[c] + y * n0, B(true));
                    rd[c] = rv[col[c]];
                }
            }
        }
    };
    /* step L: faces of row L - 3, cell velocity of row L, curl of row L - 1, force of row L - 2. Its mode (Vw2Mode)
     * says which levels are due where that is known at compile time (the chunk's middle and, away from the grid's
     * ends, its first and last steps), so those steps have no tests. Without a ring, every global load that the step
     * consumes was issued a step before, and the step consumes them all before it issues the next step's
     * (cuda_notes 180: a consumer waits for every load on its scoreboard, the later ones included) */
    auto step = [&](int L, auto mode) {
        using Md = decltype(mode);
        constexpr bool K = Md::K;
        const int Lc = L - 1, Lf = L - 2, t = L - 3;
        const bool do_u = K ? Md::U : L <= umax, do_c = K ? Md::C : Lc >= cmin && Lc <= cmax;
        const bool do_f = K ? Md::FO : Lf >= fmin && Lf <= fmax;
        const bool do_t = K ? Md::T : (t >= r0 && t < r1) || (last && t == n1);
        const bool tin = K || t < n1;
        if constexpr (RG::enabled) ring_reads(L, mode);
        /* the faces of row t, from the forces of the steps before (x-force of row t, y-forces of rows t - 1 and t) */
        if (do_t) {
            const bool lo_m3 = K || key(t - 1) != t;
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F flo = lo_m3 ? f1m3[c] : f1m2[c];
                const F nv = vfma(F(hdt), flo + f1m2[c], vold[c]);
                vput(A.out[1], p[c] + t * n0, nv, ov[c]);
                fin_v = vfinacc(fin_v, nv, ov[c]);
                if (tin) {
                    const F nu = vfma(F(hdt), xprev(f0, c) + f0[c], uold[c]);
                    vput(A.out[0], p[c] + t * (n0 + 1), nu, ou[c]);
                    fin_u = vfinacc(fin_u, nu, ou[c]);
                }
            }
        }
        I solc[NC]; /* the solid cells of row Lf, loaded the step before */
VT_UNROLL
        for (int c = 0; c < NC; c++) solc[c] = sol[c];
        /* cell velocity of row L from the faces fetched the step before */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            u0m2[c] = u0m1[c];
            u0m1[c] = u0[c];
            u1m1[c] = u1[c];
            if (do_u) {
                u0[c] = ra[c] + rb[c];
                u1[c] = rc[c] + rd[c];
            }
        }
        /* the next step's loads (its solid cells first), then the faces of row L + 1; not above the cell velocity
         * (ptxas would hoist them and copy each into the register of the value it replaces, a copy that waits for
         * the load: cuda_notes 180) */
        /* the next step's loads (its solid cells first), then the faces of row L + 1, at a row offset that is 0
         * computed from the values that this step consumed, so that ptxas issues them after (it would hoist them
         * and copy each into the register of the value it replaces, a copy that waits for the load: cuda_notes 180) */
        if constexpr (!RG::enabled) {
            const int z = vafter(u0[0], u1[0], solc[0] == 0);
            preload(L + 1 + z, mode);
            if (K ? Md::NEXT : do_u && L + 1 <= umax) fetch(L + 1 + z, mode);
        }
        /* curl and |curl| of row Lc */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            mgm3[c] = mgm2[c];
            mgm2[c] = mgm1[c];
            wzm2[c] = wzm1[c];
        }
        if (do_c) {
            F z[NC], m[NC];
            const bool lo_m2 = K || key(Lc - 1) != Lc, hi_0 = K || key(Lc + 1) != Lc;
            const int sy = K ? 2 : yspan(Lc);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F lo = lo_m2 ? u0m2[c] : u0m1[c], hi = hi_0 ? u0[c] : u0m1[c];
                z[c] = vfma(xnext(u1m1, c) - xprev(u1m1, c), rx[c], -((hi - lo) * ry(sy)));
                m[c] = vsqrt_approx(z[c] * z[c]); /* |curl|: overflows where the CPU's does */
            }
            if (xwall) {
                fixup(z);
                fixup(m);
            }
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                wzm1[c] = z[c];
                mgm1[c] = m[c];
            }
        }
        /* force of row Lf */
VT_UNROLL
        for (int c = 0; c < NC; c++) f1m3[c] = f1m2[c];
        if (do_f) {
            F a[NC], b[NC];
            const bool lo_m3 = K || key(Lf - 1) != Lf, hi_m1 = K || key(Lf + 1) != Lf;
            const int sy = K ? 2 : yspan(Lf);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F lo = lo_m3 ? mgm3[c] : mgm2[c], hi = hi_m1 ? mgm1[c] : mgm2[c];
                const F gx = (xnext(mgm2, c) - xprev(mgm2, c)) * rx[c], gy = (hi - lo) * ry(sy);
                const F g2 = vfma(gy, gy, gx * gx);
                /* as in 3D: |grad| > cut as g2 > cut^2 (a subnormal, not flushed); N = 0 where the force is dropped */
                const B keep = g2 > F(EDDY_VORT_CUT * EDDY_VORT_CUT) && (SOL ? solc[c] == 0 : B(true));
                const F inv = vsel(keep, hscale * vrsqrt_approx(g2), F(0.0f)); /* 0.5 eps h / |grad| */
                const F nx = gx * inv, ny = gy * inv;
                /* N x omega with nz = 0, omega = (0, 0, wz); N carries 0.5 eps h */
                a[c] = ny * wzm2[c];
                b[c] = -(nx * wzm2[c]);
            }
            if (xwall) {
                fixup(a);
                fixup(b);
            }
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                f0[c] = a[c];
                f1m2[c] = b[c];
            }
        }
        if constexpr (RG::enabled)
            if (L - 4 >= umin && L - 4 <= umax) ring.release(L - 4); /* read last by this step (the old v-faces of row L - 3) */
    };
    /* the steady steps: every level due (r0 + 3 <= L <= r1 + 2, L - 2 <= fmax, L - 1 <= cmax, L + 1 <= umax), rows
     * L - 4 .. L + 1 inside, in this step and the next */
    const int s0 = rows.s0, s1 = rows.s1, tend = rows.tend;
    int L = umin;
    /* a chunk away from the grid's bottom (rows from r0 - 3 on inside) with steady steps after its first ones: those
     * run with their levels known (the ramp), not tested per step */
    if (r0 >= 3 && s0 == r0 + 3 && s0 + 1 <= s1) {
        step(L, Vw2Ramp<0>());
        step(L + 1, Vw2Ramp<1>());
        step(L + 2, Vw2Ramp<2>());
        step(L + 3, Vw2Ramp<3>());
        step(L + 4, Vw2Ramp<4>());
        step(L + 5, Vw2Ramp<5>());
        L += 6;
    }
    for (; L < s0 && L <= tend; L++) step(L, Vw2General());
    /* steady steps in pairs (the two-row rings renamed, not moved; one at a time, ptxas copied two of the loads
     * into their registers right after issuing them: cuda_notes 180) */
    for (; L + 1 <= s1; L += 2) {
        step(L, Vw2Steady());
        step(L + 1, Vw2Steady());
    }
    /* a chunk away from the grid's top (rows to r1 + 1 inside): the last steps with their levels known too */
    if (!last && r1 + 1 <= n1 - 1 && s1 == r1 - 1 && (L == r1 - 1 || L == r1)) {
        if (L == r1 - 1) step(L++, Vw2Steady());
        step(L, Vw2Steady());
        step(L + 1, Vw2End<1>());
        step(L + 2, Vw2End<2>());
        L += 3;
    }
    for (; L <= tend; L++) step(L, Vw2General());
    vflags(A, 0, !visfinite(fin_u));
    vflags(A, 1, !visfinite(fin_v));
}

/* warp (strip, chunk) of a 2D launch: the strips inside the domain (vw_inner) run the instance without clamping,
 * wrapping and per-column spacings, the others the general one (k_vort2 and the host emulation) */
template <int NC, class F, class I, class B, bool SOL = true, class RG = Vw2NoRing>
__host__ __device__ inline void vort2_strip(const VortArgs &A, int strip, int chunk, int ky, const RG &ring = RG()) {
    if (vw_inner<NC>(strip, A.n[0])) vort2_warp<NC, F, I, B, SOL, true>(A, strip, chunk, ky, ring);
    else vort2_warp<NC, F, I, B, SOL, false>(A, strip, chunk, ky, ring);
}

/* ------------------------------------------------------------------ 3D, a warp per row of a block
 * The 2D warp design carried into 3D: a block of W warps owns a strip of 32 NC columns (x) and W rows (y) and
 * marches along z through a chunk of planes. Lane values are the lane's NC columns of the warp's row; the
 * x-neighbours are the neighbouring lanes' values (shuffles), the z-neighbours the planes kept in registers, and
 * only the y-neighbours go through shared memory: one row per warp and level (cell velocity x and z, |curl|,
 * y-force) in rings of two planes. Step L computes the cell velocity of plane L, the faces of plane L - 3, the curl
 * of plane L - 1 and the force of plane L - 2, each reading only what earlier steps wrote into shared memory: one
 * barrier per step. Rows 3 .. W - 3 of a block are written (W - 5 per block; the row that is row n1 writes the
 * domain's last y-faces). Along a clamped y-axis the rows outside the domain compute nothing and the
 * readers clamp the rows they read (the CPU's clamped neighbours); along a periodic one every row is the periodic
 * continuation. A warp's state is an object and the step a method, so the host emulation can run the warps of a
 * block step by step with the barrier between the steps. */
template <int NC, int W>
__host__ __device__ constexpr int v3w_floats() { return 2 * 4 * W * NC * 32; }
template <int NC, int W, class F, class I, class B, bool SOL = true>
struct Vort3Warp {
    static constexpr int RS = NC * 32, LS = W * RS; /* floats per row of a level, per plane of a level */
    float *sm;
    const float *vu, *vv, *vw;
    float *out0, *out1, *out2;
    const uint8_t *solid;
    int n0, n1, ns, w, r0, r1, fmin, fmax, cmin, cmax, umin, umax, tend;
    bool ps, last, xwall, act, lvl_c, lvl_f, out_row, vtop;
    int kl, kr;
    unsigned plane, plane_u, plane_v;
    float hdt, hscale, rcp1, rcp2, ryq; /* 1 / spacing of spans 1 and 2; ryq: the y-difference's at this row */
    I fu[NC], fv[NC], gu[NC], gv[NC];
    /* the lane's shared-memory offsets in a plane of a level (a slot adds a constant): its own row's, and those of
     * rows y + 1, y - 1 and y (clamped along a clamped axis); one register each, the slots immediates */
    I sbw[NC], sbp[NC], sbm[NC], sbc[NC];
    F rx[NC];
    B ou[NC], ov[NC], ow[NC];
    F ra[NC], rb[NC], rc[NC], rd[NC], re[NC], rf[NC];
    F uold[NC], vold[NC], wold[NC]; /* the old faces of plane L - 3 and */
    I sol[NC];                      /* the solid cells of plane L - 2, loaded by step L - 1 */
    F c0m2[NC], c0m1[NC], c0[NC], c1m2[NC], c1m1[NC], c1[NC], c2m1[NC], c2[NC];
    F wxm2[NC], wxm1[NC], wym2[NC], wym1[NC], wzm2[NC], wzm1[NC], mgm3[NC], mgm2[NC], mgm1[NC];
    F f0[NC], f2a[NC], f2b[NC];
    F fin; /* the faces written, times 0: NaN once one is not finite (one accumulator: FLAG_ANY_VELOCITY) */

    __host__ __device__ int key(int L) const { return vt_key(L, ns, ps); }
    __host__ __device__ int phys(int L) const { return vt_phys(L, ns, ps); }
    __host__ __device__ int zspan(int L) const { return ps ? 2 : key(L + 1) - key(L - 1); }
    /* level l's ring slot of plane X in step L: X & 1; P: L & 1 where the caller knows it at compile time (the steady
     * steps in pairs from an even plane: the slots are constants; cuda_notes 112, 184), -1 elsewhere */
    template <int P>
    __host__ __device__ float *lvl(int l, int X, int L) const {
        return sm + (2 * l + (P < 0 ? (X & 1) : ((X - L + P) & 1))) * LS;
    }
    /* the reciprocal spacing of a z-difference over `span` planes (1 at a wall, else 2) */
    __host__ __device__ F rzq(int span) const { return F(span == 2 ? rcp2 : rcp1); }
    __host__ __device__ static F xprev(const F (&v)[NC], int c) { return vw_xprev<NC>(v, c, vlane(I())); }
    __host__ __device__ static F xnext(const F (&v)[NC], int c) { return vw_xnext<NC>(v, c, vlane(I())); }
    /* along a clamped x-axis, in the warps at a wall: positions outside the domain take the clamped column's value */
    __host__ __device__ void fixup(F (&v)[NC]) const {
        const int cl = vt_max(kl, 0), cr = vt_min(kr, 32 * NC - 1);
        const F vl = vw_at<NC, F, I>(v, cl), vr = vw_at<NC, F, I>(v, cr);
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            const I pc = vw_col(vlane(I()), c) - kl; /* p[c], worked out again here (one register fewer in the loop) */
            v[c] = vsel(pc < 0, vl, vsel(pc >= n0, vr, v[c]));
        }
    }

    /* warp w of block (strip, by, bz); kz planes per chunk */
    __host__ __device__ void init(const VortArgs &A, int strip, int by, int bz, int warp, float *smem) {
        sm = smem;
        w = warp;
        n0 = A.n[0];
        n1 = A.n[1];
        ns = A.n[2];
        vu = A.v[0];
        vv = A.v[1];
        vw = A.v[2];
        out0 = A.out[0];
        out1 = A.out[1];
        out2 = A.out[2];
        solid = A.solid;
        ps = A.periodic[2] != 0;
        hdt = A.hdt;
        hscale = A.hscale;
        rcp1 = A.rcp[1];
        rcp2 = A.rcp[2];
        plane = (unsigned)n0 * (unsigned)n1;
        plane_u = (unsigned)(n0 + 1) * (unsigned)n1;
        plane_v = (unsigned)n0 * (unsigned)(n1 + 1);
        const bool px = A.periodic[0] != 0, py = A.periodic[1] != 0;
        const int X0 = strip * vw_out<NC>() - 3, Y0 = by * (W - 5) - 3, y = Y0 + w;
        xwall = !px && (X0 < 0 || X0 + 32 * NC - 1 >= n0);
        kl = -X0;
        kr = n0 - 1 - X0;
        const int yc = py ? vt_wrap(y, n1) : vt_min(vt_max(y, 0), n1 - 1);
        act = py || (y >= 0 && y < n1);
        lvl_c = act && w >= 1 && w <= W - 2;
        lvl_f = act && w >= 2 && w <= W - 3;
        out_row = act && w >= 3 && w <= W - 3 && y >= 0 && y < n1;
        vtop = y == n1 && w >= 3 && w <= W - 3;
        auto cy = [&](int q) { return vt_key(q, n1, py); };
        const int rowm = (cy(y - 1) - Y0) * RS, rowp = (cy(y + 1) - Y0) * RS, rowc = (cy(y) - Y0) * RS;
        const int sy = py ? 2 : vt_min(y + 1, n1 - 1) - vt_max(y - 1, 0);
        ryq = sy == 2 ? rcp2 : rcp1;
        const I lane = vlane(I());
        I p[NC];
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            p[c] = vw_col(lane, c) + X0;
            const I q = px ? p[c] : vminv(vmaxv(p[c], I(0)), I(n0 - 1));
            const I col = px ? vwrapv(p[c], n0) : q;
            const B xs2 = px ? B(true) : (vminv(q + 1, I(n0 - 1)) - vmaxv(q - 1, I(0))) == 2;
            rx[c] = vsel(xs2, F(A.rcp[2]), F(A.rcp[1]));
            const I k = vw_col(lane, c);
            const B inx = k >= 3 && k <= 32 * NC - 3 && p[c] < n0;
            ov[c] = (out_row || vtop) && inx;
            ow[c] = out_row && inx;
            ou[c] = out_row && (inx || (p[c] == n0 && k >= 3 && k <= 32 * NC - 3));
            fu[c] = col + yc * (n0 + 1);
            fv[c] = col + yc * n0;
            /* the lanes that write no face read the clamped column's (an address inside the arrays), so that the
             * steady steps load without a mask (a masked load is a load and a predicated copy that waits for it) */
            gu[c] = vsel(ou[c], p[c], col) + yc * (n0 + 1);
            gv[c] = vsel(ov[c], p[c], col) + (vtop ? n1 : yc) * n0;
            /* the z-faces: fv (the lanes that write one hold p == col) */
            const I sb = I(c * 32) + lane;
            sbw[c] = sb + w * RS;
            sbp[c] = sb + rowp;
            sbm[c] = sb + rowm;
            sbc[c] = sb + rowc;
        }
        const int kz = A.kz;
        r0 = bz * kz;
        r1 = vt_min(r0 + kz, ns);
        last = r1 == ns;
        fmin = r0 - 1;
        fmax = last ? ns : r1 - 1;
        if (!ps) {
            fmin = key(fmin);
            fmax = key(fmax);
        }
        cmin = ps ? fmin - 1 : key(fmin - 1);
        cmax = ps ? fmax + 1 : key(fmax + 1);
        umin = ps ? fmin - 2 : key(fmin - 2);
        umax = ps ? fmax + 2 : key(fmax + 2);
        tend = (last ? ns : r1 - 1) + 3;
        fin = F(0.0f);
VT_UNROLL
        for (int c = 0; c < NC; c++)
            c0m2[c] = c0m1[c] = c0[c] = c1m2[c] = c1m1[c] = c1[c] = c2m1[c] = c2[c] = wxm2[c] = wxm1[c] = wym2[c] = wym1[c] =
                wzm2[c] = wzm1[c] = mgm3[c] = mgm2[c] = mgm1[c] = f0[c] = f2a[c] = f2b[c] = uold[c] = vold[c] = wold[c] = F(0.0f);
VT_UNROLL
        for (int c = 0; c < NC; c++) sol[c] = I(0);
        if (act) fetch<false>(umin);
        preload<false>(umin);
    }
    /* the faces of plane L that the cell velocities read, a step ahead */
    template <bool S>
    __host__ __device__ void fetch(int L) {
        const unsigned z = (unsigned)(S ? L : phys(L));
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            const I iu = fu[c] + (int)(plane_u * z), iv = fv[c] + (int)(plane_v * z), iw = fv[c] + (int)(plane * z);
            ra[c] = vload(vu, iu, B(true));
            rb[c] = vload(vu, iu + 1, B(true));
            rc[c] = vload(vv, iv, B(true));
            rd[c] = vload(vv, iv + n0, B(true));
            re[c] = vload(vw, iw, B(true));
            rf[c] = vload(vw, iw + (int)plane, B(true));
        }
    }
    /* the steady steps [s0, s1]: every level due, no plane clamped or wrapped (see step), in this step and the next
     * (a step loads the old faces and solid cells of the next one) */
    __host__ __device__ int s0() const { return vt_max(r0 + 3, 4); }
    __host__ __device__ int s1() const { return vt_min(vt_min(vt_min(r1 + 2, fmax + 2), vt_min(cmax + 1, umax - 1)), ns - 2) - 1; }
    /* the global loads that step L consumes besides the cell velocity's faces: the old faces of plane L - 3 and the
     * solid cells of plane L - 2, issued a step ahead (S: step L is steady) */
    template <bool S>
    __host__ __device__ void preload(int L) {
        const int Lf = L - 2, t = L - 3;
        const bool do_f = lvl_f && (S || (Lf >= fmin && Lf <= fmax));
        const bool do_t = (out_row || vtop) && (S || (t >= r0 && t < r1) || (last && t == ns));
        const bool tin = S || t < ns;
        /* the byte load first: a sub-word load waits for the loads before it on its scoreboard (cuda_notes 180) */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            if (SOL && do_f) sol[c] = vload8(solid, fv[c] + (int)(plane * (unsigned)(S ? Lf : phys(Lf))), B(true));
            if (do_t) {
                uold[c] = vload(vu, gu[c] + (int)(plane_u * (unsigned)t), S ? B(true) : ou[c] && tin);
                vold[c] = vload(vv, gv[c] + (int)(plane_v * (unsigned)t), S ? B(true) : ov[c] && tin);
                wold[c] = vload(vw, fv[c] + (int)(plane * (unsigned)t), S ? B(true) : ow[c]);
            }
        }
    }
    /* step L: cell velocity of plane L, faces of plane L - 3, curl of plane L - 1, force of plane L - 2. S (steady):
     * every level is due and planes L - 4 .. L + 2 are inside the domain, so the step has no tests on L. Every global
     * load that the step consumes was issued a step before, and the step consumes them all before it issues the
     * next step's (cuda_notes 180: a consumer waits for every load on its scoreboard, the later ones included) */
    template <bool S, int P = -1>
    __host__ __device__ void step(int L) {
        const int Lc = L - 1, Lf = L - 2, t = L - 3;
        const bool do_u = act && (S || L <= umax), do_c = lvl_c && (S || (Lc >= cmin && Lc <= cmax));
        const bool do_f = lvl_f && (S || (Lf >= fmin && Lf <= fmax));
        const bool do_t = (out_row || vtop) && (S || (t >= r0 && t < r1) || (last && t == ns));
        const bool tin = S || t < ns; /* plane t has x- and y-faces (not the top plane of z-faces) */
        /* the faces of plane t, from the forces of the steps before and the old faces loaded the step before */
        if (do_t) {
            const bool lo_m = S || key(t - 1) != t;
            const float *f1 = lvl<P>(3, t, L);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F flo = lo_m ? f2b[c] : f2a[c];
                const F nw = vfma(F(hdt), flo + f2a[c], wold[c]);
                vput(out2, fv[c] + (int)(plane * (unsigned)t), nw, ow[c]);
                fin = vfinacc(fin, nw, ow[c]);
                if (tin) {
                    const F nu = vfma(F(hdt), xprev(f0, c) + f0[c], uold[c]);
                    const F nv = vfma(F(hdt), vload(f1, sbm[c], B(true)) + vload(f1, sbc[c], B(true)), vold[c]);
                    vput(out0, gu[c] + (int)(plane_u * (unsigned)t), nu, ou[c]);
                    vput(out1, gv[c] + (int)(plane_v * (unsigned)t), nv, ov[c]);
                    fin = vfinacc(fin, nu, ou[c]);
                    fin = vfinacc(fin, nv, ov[c]);
                }
            }
        }
        I solc[NC]; /* the solid cells of plane Lf, loaded the step before */
VT_UNROLL
        for (int c = 0; c < NC; c++) solc[c] = sol[c];
        /* cell velocity of plane L from the faces fetched the step before */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            c0m2[c] = c0m1[c];
            c0m1[c] = c0[c];
            c1m2[c] = c1m1[c];
            c1m1[c] = c1[c];
            c2m1[c] = c2[c];
        }
        if (do_u) {
            float *s0 = lvl<P>(0, L, L), *s2 = lvl<P>(1, L, L);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                c0[c] = ra[c] + rb[c];
                c1[c] = rc[c] + rd[c];
                c2[c] = re[c] + rf[c];
                vsts(s0, sbw[c], c0[c]);
                vsts(s2, sbw[c], c2[c]);
            }
        }
        /* the next step's loads (its solid cells first), then the faces of plane L + 1 */
        preload<S>(L + 1);
        if (do_u && (S || L + 1 <= umax)) fetch<S>(L + 1);
        /* curl and |curl| of plane Lc */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            mgm3[c] = mgm2[c];
            mgm2[c] = mgm1[c];
            wxm2[c] = wxm1[c];
            wym2[c] = wym1[c];
            wzm2[c] = wzm1[c];
        }
        if (do_c) {
            F x[NC], y[NC], z[NC], m[NC];
            const bool lo_m2 = S || key(Lc - 1) != Lc, hi_0 = S || key(Lc + 1) != Lc;
            const int sz = S ? 2 : zspan(Lc);
            const float *s0 = lvl<P>(0, Lc, L), *s2 = lvl<P>(1, Lc, L);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F c0lo = lo_m2 ? c0m2[c] : c0m1[c], c0hi = hi_0 ? c0[c] : c0m1[c];
                const F c1lo = lo_m2 ? c1m2[c] : c1m1[c], c1hi = hi_0 ? c1[c] : c1m1[c];
                const F c2p = vload(s2, sbp[c], B(true)), c2m = vload(s2, sbm[c], B(true));
                const F c0p = vload(s0, sbp[c], B(true)), c0n = vload(s0, sbm[c], B(true));
                const F rz = rzq(sz);
                x[c] = vfma(c1lo - c1hi, rz, (c2p - c2m) * F(ryq));
                y[c] = vfma(xprev(c2m1, c) - xnext(c2m1, c), rx[c], (c0hi - c0lo) * rz);
                z[c] = vfma(c0n - c0p, F(ryq), (xnext(c1m1, c) - xprev(c1m1, c)) * rx[c]);
                m[c] = vsqrt_approx(vfma(z[c], z[c], vfma(y[c], y[c], x[c] * x[c])));
            }
            if (xwall) {
                fixup(x);
                fixup(y);
                fixup(z);
                fixup(m);
            }
            float *sm_m = lvl<P>(2, Lc, L);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                wxm1[c] = x[c];
                wym1[c] = y[c];
                wzm1[c] = z[c];
                mgm1[c] = m[c];
                vsts(sm_m, sbw[c], m[c]);
            }
        }
        /* force of plane Lf */
VT_UNROLL
        for (int c = 0; c < NC; c++) f2b[c] = f2a[c];
        if (do_f) {
            F a[NC], b[NC], d[NC];
            const bool lo_m3 = S || key(Lf - 1) != Lf, hi_m1 = S || key(Lf + 1) != Lf;
            const int sz = S ? 2 : zspan(Lf);
            const float *sm_m = lvl<P>(2, Lf, L);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F lo = lo_m3 ? mgm3[c] : mgm2[c], hi = hi_m1 ? mgm1[c] : mgm2[c];
                const F gx = (xnext(mgm2, c) - xprev(mgm2, c)) * rx[c];
                const F gy = (vload(sm_m, sbp[c], B(true)) - vload(sm_m, sbm[c], B(true))) * F(ryq);
                const F gz = (hi - lo) * rzq(sz);
                const F g2 = vfma(gz, gz, vfma(gy, gy, gx * gx));
                /* |grad| > cut as g2 > cut^2, a subnormal: compared without flushing to zero, and the reciprocal
                 * square root takes subnormals. Where the cut or a solid cell drops the force, N is 0 (the CPU
                 * selects 0 for the force instead: the same unless the gradient is not finite, where |curl|
                 * overflowed and the CPU's force is NaN nearby too) */
                const B keep = g2 > F(EDDY_VORT_CUT * EDDY_VORT_CUT) && (SOL ? solc[c] == 0 : B(true));
                const F inv = vsel(keep, hscale * vrsqrt_approx(g2), F(0.0f)); /* 0.5 eps h / |grad| */
                const F nx = gx * inv, ny = gy * inv, nz = gz * inv;
                a[c] = vfma(ny, wzm2[c], -(nz * wym2[c]));
                b[c] = vfma(nz, wxm2[c], -(nx * wzm2[c]));
                d[c] = vfma(nx, wym2[c], -(ny * wxm2[c]));
            }
            if (xwall) {
                fixup(a);
                fixup(b);
                fixup(d);
            }
            float *sm_f = lvl<P>(3, Lf, L);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                f0[c] = a[c];
                vsts(sm_f, sbw[c], b[c]);
                f2a[c] = d[c];
            }
        }
    }
    __host__ __device__ void finish(const VortArgs &A) const {
        vflags_bit(A, FLAG_ANY_VELOCITY, !visfinite(fin));
    }
};

} /* namespace ecu */

#endif
