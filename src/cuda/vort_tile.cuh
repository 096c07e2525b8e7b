/* Vorticity confinement in one pass over the velocity (vorticity.c: omega = curl u from cell-averaged velocity,
 * N = grad|omega| / |grad|omega||, f = eps h (N x omega), averaged back onto the faces). Each kernel reads the faces
 * around the part of the grid it owns and writes that part's new faces (the faces its cells start, and the
 * domain's last ones) into a second velocity array: the update cannot be in place, other parts read the old
 * faces around theirs. Both march along the outermost axis as the CPU's sweep does (vorticity_sweep.c), keeping
 * the few slabs of each level that the stencils need: cell velocity 3, |curl| 3, curl 2, force 2.
 *   2D (vort2_warp): a warp owns a strip of columns (two per lane) and a chunk of rows; the slabs are registers,
 *     the x-neighbours the neighbouring lanes' values (shuffles). No shared memory, no barrier.
 *   3D (vort3_tile): a block owns a tile of TX x TY cells and a chunk of z-planes; the slabs are rings of planes
 *     in shared memory over the tile and 3 (cell velocity), 2 (curl) and 1 (force) cells around it.
 *
 * Walls and periodic axes without index arithmetic per neighbour: a position p of a level outside the domain along
 * a clamped axis holds the value of the level at the clamped cell, so the stencils read their neighbours at fixed
 * offsets and get the CPU's clamped neighbours; along a periodic axis every position is computed by the same
 * stencil from the periodic continuation (the cell velocity reads wrapped faces), which is the CPU's wrapped
 * neighbour. The divisor follows the cell: span 1 at a wall, 2 elsewhere. Every value is computed with the CPU
 * sweep's float operations in its order (same bits).
 *
 * The functions are written for the device and for a host emulation (3D: Par runs one phase for every thread of
 * the block, then the barrier; 2D: lane values are 32-lane arrays), which lets the arithmetic and the indexing be
 * checked against the CPU without a GPU. */
#ifndef EDDY_VORT_TILE_CUH
#define EDDY_VORT_TILE_CUH

#include "cu_common.cuh"

namespace ecu {

constexpr int VT_THREADS = 256;
#ifdef __CUDA_ARCH__
#define VT_UNROLL _Pragma("unroll")
#else
#define VT_UNROLL
#endif

struct VortArgs {
    int n[3];
    int periodic[3];
    float den[3], rcp[3]; /* [span] for spans 1 and 2: (float)span * h and its reciprocal */
    float scale, dt;      /* eps h; the step */
    const float *v[3];    /* velocity at the start of the stage */
    float *out[3];        /* new velocity */
    const uint8_t *solid;
    int *flag;            /* non-finite flag word of the step's slot (null: none) */
    int kz;               /* 3D: planes per block */
};

__host__ __device__ inline int vt_min(int a, int b) { return a < b ? a : b; }
/* g mod n for g a few periods off at most (no integer division: its out-of-line path made the 3D kernel spill
 * registers) */
__host__ __device__ inline int vt_wrap(int g, int n) {
    while (g < 0) g += n;
    while (g >= n) g -= n;
    return g;
}
__host__ __device__ inline int vt_max(int a, int b) { return a > b ? a : b; }

/* One axis of a tile: origin, the range of local positions that are cells of the domain (none along a periodic
 * axis: every position is the periodic continuation), and how a local position maps to a stored cell. */
struct VtAxis {
    int o, lo, hi, n, per;
    __host__ __device__ inline int clamp(int p) const { return vt_min(vt_max(p, lo), hi); }
    /* the divisor of a central difference at (clamped) position q: 1 at a wall, 2 elsewhere (vorticity.c ddx) */
    __host__ __device__ inline int span(int q) const { return vt_min(q + 1, hi) - vt_max(q - 1, lo); }
    /* the stored cell of (clamped) position q */
    __host__ __device__ inline int cell(int q) const {
        int g = o + q;
        if (per) g = vt_wrap(g, n);
        return g;
    }
};
__host__ __device__ inline VtAxis vt_axis(const VortArgs &A, int b, int o) {
    VtAxis x;
    x.o = o;
    x.n = A.n[b];
    x.per = A.periodic[b];
    x.lo = x.per ? -(1 << 28) : -o;
    x.hi = x.per ? (1 << 28) : A.n[b] - 1 - o;
    return x;
}

/* x / y for y > 0, the same bits: zeros (the quiescent fluid) skip the division's out-of-line path */
__host__ __device__ inline float vt_fdiv(float x, float y) { return x == 0.0f ? x : x / y; }
/* sqrtf(s) for s a sum of squares (never -0), the same bits: zeros skip the square root's out-of-line path (taken
 * for zero, subnormal and special inputs) */
__host__ __device__ inline float vt_sqrt(float s) { return s == 0.0f ? s : sqrtf(s); }

/* x / ((float)span * h): a multiply by the reciprocal where that is exact (h a power of two: the same bits, as the
 * CPU's sweep does), a division otherwise */
template <bool MUL>
__host__ __device__ inline float vt_quot(float x, const VortArgs &A, int span) {
    return MUL ? x * (span == 2 ? A.rcp[2] : A.rcp[1]) : vt_fdiv(x, span == 2 ? A.den[2] : A.den[1]);
}

__host__ __device__ inline void vt_store(const VortArgs &A, int a, unsigned q, float nv) {
    A.out[a][q] = nv;
#ifdef __CUDA_ARCH__
    if (A.flag && !isfinite(nv)) atomicOr(A.flag, 1 << (EDDY_FIELD_U + a));
#else
    if (A.flag && !isfinite(nv)) *A.flag |= 1 << (EDDY_FIELD_U + a);
#endif
}

/* the phases of a block on the device: every thread runs the phase, then the barrier */
struct VtDevicePar {
    /* per-thread arrays (registers on the device) have kRegs rows; a thread's row is slot(t) */
    static constexpr int kRegs = 1;
    __host__ __device__ static int slot(int) { return 0; }
    template <class F>
    __host__ __device__ inline void operator()(F f, bool barrier) const {
#ifdef __CUDA_ARCH__
        f((int)threadIdx.x);
        if (barrier) __syncthreads();
#else
        (void)f;
        (void)barrier;
#endif
    }
};

/* shared floats of a tile */
template <int TX, int TY>
__host__ __device__ constexpr int vt3_floats() {
    return 8 * ((TX + 6) * (TY + 6)) + 9 * ((TX + 4) * (TY + 4)) + 4 * ((TX + 2) * (TY + 2));
}

/* ring slot of slab key L (keys may be negative along a periodic axis) */
__host__ __device__ inline int vt_slot(int L, int R) { return ((L % R) + R) % R; }

/* ------------------------------------------------------------------ 2D, a warp per strip of columns
 * Each lane owns a column and marches along y through a chunk of rows, keeping the rows of every level that its
 * stencils need in registers (cell velocity 3 rows, |curl| 3, curl 2, force 1 and 2); the x-neighbours are the
 * neighbouring lanes' values (shuffles). A warp covers 32 NC columns, 3 of them halo on each side, and writes
 * the faces of the ones in the middle. No shared memory and no barrier; the index arithmetic is the lane's, once.
 * Along a clamped x-axis the lanes outside the domain take the value of the lane at the clamped column after
 * each level (a shuffle, in the warps at a wall only). The next row's faces are loaded a row ahead.
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
__host__ __device__ inline float vload(const float *p, int i, bool m) { return m ? p[i] : 0.0f; }
__host__ __device__ inline int vload8(const uint8_t *p, int i, bool m) { return m ? (int)p[i] : 0; }
__host__ __device__ inline float vsqrtf(float s) { return vt_sqrt(s); }
__host__ __device__ inline bool visfinite(float x) { return isfinite(x); }
/* acc + v * 0 where m: NaN once a v is infinite or NaN (one fused multiply-add, not a test per face) */
__host__ __device__ inline float vfinacc(float acc, float v, bool m) { return m ? fmaf(v, 0.0f, acc) : acc; }
__host__ __device__ inline void vput(float *out, int q, float v, bool m) {
    if (m) out[q] = v;
}
/* the warp's non-finite writes of component a into the step's flag word */
__host__ __device__ inline void vflags(const VortArgs &A, int a, bool bad) {
#ifdef __CUDA_ARCH__
    if (A.flag && __any_sync(0xffffffffu, bad) && (threadIdx.x & 31) == 0) atomicOr(A.flag, 1 << (EDDY_FIELD_U + a));
#else
    if (A.flag && bad) *A.flag |= 1 << (EDDY_FIELD_U + a);
#endif
}
template <bool V>
struct VtBool {
    static constexpr bool value = V;
};
/* sqrtf(z * z), the same bits: |z| where z * z is a normal float (z * z = z^2 (1 + e), |e| <= 2^-24, so its square
 * root lies within |z| 2^-25, strictly inside half an ulp of |z|: the rounding gives |z|), else the operations */
__host__ __device__ inline float vabsmag(float z) {
    const float a = fabsf(z);
    return a >= 0x1p-63f && a < 0x1p64f ? a : vt_sqrt(z * z);
}
__host__ __device__ inline float vfdiv(float x, float y) { return vt_fdiv(x, y); }
__host__ __device__ inline int vminv(int a, int b) { return vt_min(a, b); }
__host__ __device__ inline int vmaxv(int a, int b) { return vt_max(a, b); }
__host__ __device__ inline int vwrapv(int g, int n) { return vt_wrap(g, n); }

/* warp w of the launch: strip w % strips, chunk w / strips; ky rows per chunk. Each lane owns NC adjacent
 * columns (the x-neighbours of its outer ones are the neighbouring lanes'): a warp covers 32 NC columns and
 * writes the 32 NC - 6 in the middle. */
template <int NC>
__host__ __device__ constexpr int vw_out() { return 32 * NC - 6; }
template <int NC, bool MUL, class F, class I, class B>
__host__ __device__ inline void vort2_warp(const VortArgs &A, int strip, int chunk, int ky) {
    const int n0 = A.n[0], n1 = A.n[1];
    const bool px = A.periodic[0] != 0, ps = A.periodic[1] != 0;
    const int X0 = strip * vw_out<NC>() - 3;
    const I lane = vlane(I());
    I p[NC], col[NC];   /* the lane's columns, and the stored ones */
    F rx[NC];           /* the x-differences' divisors: span 1 at a wall, 2 elsewhere */
    B ou[NC], ov[NC];   /* writes the x-face (y-face) of column p */
VT_UNROLL
    for (int c = 0; c < NC; c++) {
        p[c] = lane * NC + (X0 + c);
        const I q = px ? p[c] : vminv(vmaxv(p[c], I(0)), I(n0 - 1));
        col[c] = px ? vwrapv(p[c], n0) : q;
        const B xs2 = px ? B(true) : (vminv(q + 1, I(n0 - 1)) - vmaxv(q - 1, I(0))) == 2;
        rx[c] = vsel(xs2, F(MUL ? A.rcp[2] : A.den[2]), F(MUL ? A.rcp[1] : A.den[1]));
        const I k = lane * NC + c; /* column index in the warp */
        ov[c] = k >= 3 && k < 32 * NC - 3 && p[c] < n0;
        ou[c] = ov[c] || (p[c] == n0 && k >= 3 && k <= 32 * NC - 3);
    }
    auto qx = [&](F x, int c) { return MUL ? x * rx[c] : vfdiv(x, rx[c]); };
    auto qy = [&](F x, int span) {
        const float d = MUL ? (span == 2 ? A.rcp[2] : A.rcp[1]) : (span == 2 ? A.den[2] : A.den[1]);
        return MUL ? x * d : vfdiv(x, F(d));
    };
    /* x-neighbours of column c of a lane-level array */
    auto xprev = [&](const F (&v)[NC], int c) { return c > 0 ? v[c > 0 ? c - 1 : 0] : vprev(v[NC - 1]); };
    auto xnext = [&](const F (&v)[NC], int c) { return c < NC - 1 ? v[c < NC - 1 ? c + 1 : 0] : vnext(v[0]); };
    /* along a clamped x-axis, the warps at a wall: positions outside the domain take the clamped column's value
     * (the lane and column of column 0 and of column n0 - 1 are the warp's) */
    const bool xwall = !px && (X0 < 0 || X0 + 32 * NC - 1 >= n0);
    const int kl = -X0, kr = n0 - 1 - X0; /* warp column index of columns 0 and n0 - 1 */
    auto pick = [&](const F (&v)[NC], int c) { /* v[c] for a uniform c, without indexing registers */
        F r = v[0];
VT_UNROLL
        for (int k = 1; k < NC; k++) r = k == c ? v[k] : r;
        return r;
    };
    auto fixup = [&](F (&v)[NC]) {
        const int cl = vt_max(kl, 0), cr = vt_min(kr, 32 * NC - 1);
        const F vl = vfrom(pick(v, cl % NC), I(cl / NC)), vr = vfrom(pick(v, cr % NC), I(cr / NC));
VT_UNROLL
        for (int c = 0; c < NC; c++) v[c] = vsel(p[c] < 0, vl, vsel(p[c] >= n0, vr, v[c]));
    };
    auto key = [&](int L) { return ps ? L : vt_min(vt_max(L, 0), n1 - 1); };
    auto phys = [&](int L) { return ps ? vt_wrap(L, n1) : L; };
    auto yspan = [&](int L) { return ps ? 2 : key(L + 1) - key(L - 1); };
    /* the rows of chunk [r0, r1) (vorticity_sweep.c window_of) */
    const int r0 = chunk * ky, r1 = vt_min(r0 + ky, n1);
    const bool last = r1 == n1;
    int fmin = r0 - 1, fmax = last ? n1 : r1 - 1;
    if (!ps) {
        fmin = key(fmin);
        fmax = key(fmax);
    }
    const int cmin = ps ? fmin - 1 : key(fmin - 1), cmax = ps ? fmax + 1 : key(fmax + 1);
    const int umin = ps ? fmin - 2 : key(fmin - 2), umax = ps ? fmax + 2 : key(fmax + 2);
    const float dt = A.dt, scale = A.scale;
    const float *__restrict__ vu = A.v[0];
    const float *__restrict__ vv = A.v[1];
    /* the faces of row L that the cell velocities of the lane's columns read, fetched a row ahead */
    F ra[NC], rb[NC], rc[NC], rd[NC];
    auto fetch = [&](int L) {
        const int y = phys(L);
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            const I iu = col[c] + y * (n0 + 1), iv = col[c] + y * n0;
            ra[c] = vload(vu, iu, B(true));
            rb[c] = vload(vu, iu + 1, B(true));
            rc[c] = vload(vv, iv, B(true));
            rd[c] = vload(vv, iv + n0, B(true));
        }
    };
    fetch(umin);
    /* rows of each level kept in registers: cell velocity L-2 .. L, |curl| L-3 .. L-1, curl L-2 .. L-1, force
     * x L-2, force y L-3 .. L-2 */
    F u0m2[NC], u0m1[NC], u0[NC], u1m1[NC], u1[NC], mgm3[NC], mgm2[NC], mgm1[NC], wzm2[NC], wzm1[NC];
    F f0[NC], f1m3[NC], f1m2[NC];
    F fin_u = F(0.0f), fin_v = F(0.0f); /* non-finite writes turn these into NaN */
VT_UNROLL
    for (int c = 0; c < NC; c++)
        u0m2[c] = u0m1[c] = u0[c] = u1m1[c] = u1[c] = mgm3[c] = mgm2[c] = mgm1[c] = wzm2[c] = wzm1[c] = f0[c] = f1m3[c] =
            f1m2[c] = F(0.0f);
    /* step L: cell velocity of row L, curl of row L - 1, force and faces of row L - 2. S (steady): every level
     * is due and no neighbour row is clamped or wrapped (the chunk's middle), so the step has no tests */
    auto step = [&](int L, auto steady) {
        constexpr bool S = decltype(steady)::value;
        const int Lc = L - 1, Lf = L - 2, t = L - 2;
        const bool do_u = S || L <= umax, do_c = S || (Lc >= cmin && Lc <= cmax), do_f = S || (Lf >= fmin && Lf <= fmax);
        const bool do_t = S || (t >= r0 && t < r1);
        /* loads first: the old faces of row t and the solid cells of row Lf */
        F uold[NC], vold[NC];
        I sol[NC];
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            if (do_t) {
                uold[c] = vload(vu, p[c] + t * (n0 + 1), ou[c]);
                vold[c] = vload(vv, p[c] + t * n0, ov[c]);
            }
            if (do_f) sol[c] = vload8(A.solid, col[c] + (S ? Lf : phys(Lf)) * n0, B(true));
        }
        /* cell velocity of row L from the faces fetched a row ahead */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            u0m2[c] = u0m1[c];
            u0m1[c] = u0[c];
            u1m1[c] = u1[c];
            if (do_u) {
                u0[c] = 0.5f * (ra[c] + rb[c]);
                u1[c] = 0.5f * (rc[c] + rd[c]);
            }
        }
        if (do_u && (S || L + 1 <= umax)) fetch(L + 1);
        /* curl and |curl| of row Lc */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            mgm3[c] = mgm2[c];
            mgm2[c] = mgm1[c];
            wzm2[c] = wzm1[c];
        }
        if (do_c) {
            F z[NC], m[NC];
            const bool lo_m2 = S || key(Lc - 1) != Lc, hi_0 = S || key(Lc + 1) != Lc;
            const int sy = S ? 2 : yspan(Lc);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F lo = lo_m2 ? u0m2[c] : u0m1[c], hi = hi_0 ? u0[c] : u0m1[c];
                z[c] = qx(xnext(u1m1, c) - xprev(u1m1, c), c) - qy(hi - lo, sy);
                m[c] = vabsmag(z[c]); /* = sqrt(wx^2 + wy^2 + wz^2) with wx = wy = +0 */
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
            const bool lo_m3 = S || key(Lf - 1) != Lf, hi_m1 = S || key(Lf + 1) != Lf;
            const int sy = S ? 2 : yspan(Lf);
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F lo = lo_m3 ? mgm3[c] : mgm2[c], hi = hi_m1 ? mgm1[c] : mgm2[c];
                const F gx = qx(xnext(mgm2, c) - xprev(mgm2, c), c), gy = qy(hi - lo, sy);
                const F len = vsqrtf(gx * gx + gy * gy); /* + gz * gz with gz = +0 */
                const B keep = len > 1e-20f && sol[c] == 0;
                const F ls = vsel(keep, len, F(1.0f));
                const F nx = vfdiv(gx, ls), ny = vfdiv(gy, ls);
                /* N x omega with nz = +0, omega = (+0, +0, wz), in the 3D formula's order of operations */
                a[c] = vsel(keep, scale * (ny * wzm2[c]), F(0.0f));
                b[c] = vsel(keep, scale * (0.0f - nx * wzm2[c]), F(0.0f));
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
        /* the faces of row t */
        if (do_t) {
            const bool lo_m3 = S || key(t - 1) != t;
VT_UNROLL
            for (int c = 0; c < NC; c++) {
                const F flo = lo_m3 ? f1m3[c] : f1m2[c];
                const F nu = uold[c] + dt * (0.5f * (xprev(f0, c) + f0[c])), nv = vold[c] + dt * (0.5f * (flo + f1m2[c]));
                vput(A.out[0], p[c] + t * (n0 + 1), nu, ou[c]);
                vput(A.out[1], p[c] + t * n0, nv, ov[c]);
                fin_u = vfinacc(fin_u, nu, ou[c]);
                fin_v = vfinacc(fin_v, nv, ov[c]);
            }
        }
    };
    /* the steady steps: every level due (r0 + 2 <= L <= r1 + 1, L + 1 <= umax), rows L - 3 .. L + 1 inside */
    const int s0 = vt_max(r0 + 2, 3), s1 = vt_min(vt_min(r1 + 1, umax - 1), n1 - 2);
    int L = umin;
    for (; L < s0 && L <= fmax + 2; L++) step(L, VtBool<false>());
    for (; L <= s1; L++) step(L, VtBool<true>());
    for (; L <= fmax + 2; L++) step(L, VtBool<false>());
    if (last) { /* the top row of y-faces */
VT_UNROLL
        for (int c = 0; c < NC; c++) {
            const F flo = key(n1 - 1) == fmax ? f1m2[c] : f1m3[c];
            const F vold = vload(vv, p[c] + n1 * n0, ov[c]);
            const F nv = vold + dt * (0.5f * (flo + f1m2[c]));
            vput(A.out[1], p[c] + n1 * n0, nv, ov[c]);
            fin_v = vfinacc(fin_v, nv, ov[c]);
        }
    }
    vflags(A, 0, !visfinite(fin_u));
    vflags(A, 1, !visfinite(fin_v));
}

/* ------------------------------------------------------------------ 3D */
/* A thread's positions of each level are fixed for the whole march: their cells, offsets and divisors are worked
 * out once; the loops over them have constant trip counts (a thread's loads are all in flight at once), and the
 * faces of the next plane are loaded while the current one is worked on. */
template <int TX, int TY, bool MUL, class Par>
__host__ __device__ inline void vort3_tile(const VortArgs &A, int bx, int by, int bz, float *sm, Par par) {
    constexpr int NT = VT_THREADS, R = Par::kRegs;
    constexpr int UW = TX + 6, UH = TY + 6, CW = TX + 4, CH = TY + 4, FW = TX + 2, FH = TY + 2;
    constexpr int UN = UW * UH, CN = CW * CH, FN = FW * FH, TN = TX * TY;
    constexpr int KU = (UN + NT - 1) / NT, KC = (CN + NT - 1) / NT, KF = (FN + NT - 1) / NT, KT = (TN + NT - 1) / NT;
    /* rings: cell velocity x and y 3 planes, z 2; |curl| 3; curl 2; force x, y 1, z 2 */
    float *U0 = sm, *U1 = U0 + 3 * UN, *U2 = U1 + 3 * UN;
    float *M = U2 + 2 * UN, *O0 = M + 3 * CN, *O1 = O0 + 2 * CN, *O2 = O1 + 2 * CN;
    float *F0 = O2 + 2 * CN, *F1 = F0 + FN, *F2 = F1 + FN;
    const VtAxis X = vt_axis(A, 0, bx * TX), Y = vt_axis(A, 1, by * TY);
    const int n0 = A.n[0], n1 = A.n[1], ns = A.n[2];
    const bool ps = A.periodic[2] != 0;
    const unsigned plane = (unsigned)n0 * (unsigned)n1, plane_u = (unsigned)(n0 + 1) * (unsigned)n1,
                   plane_v = (unsigned)n0 * (unsigned)(n1 + 1);
    const float *__restrict__ vu = A.v[0];
    const float *__restrict__ vv = A.v[1];
    const float *__restrict__ vw = A.v[2];
    auto key = [&](int L) { return ps ? L : vt_min(vt_max(L, 0), ns - 1); };
    auto phys = [&](int L) { return ps ? vt_wrap(L, ns) : L; };
    auto slab_span = [&](int L) { return ps ? 2 : key(L + 1) - key(L - 1); };
    /* the slabs of chunk [r0, r1) (vorticity_sweep.c window_of): forces on [fmin, fmax], curls one further out,
     * cell velocities two */
    const int r0 = bz * A.kz, r1 = vt_min(r0 + A.kz, ns);
    const bool last = r1 == ns;
    int fmin = r0 - 1, fmax = last ? ns : r1 - 1;
    if (!ps) {
        fmin = key(fmin);
        fmax = key(fmax);
    }
    const int cmin = ps ? fmin - 1 : key(fmin - 1), cmax = ps ? fmax + 1 : key(fmax + 1);
    const int umin = ps ? fmin - 2 : key(fmin - 2), umax = ps ? fmax + 2 : key(fmax + 2);
    const float dt = A.dt, scale = A.scale;
    /* per thread: the stored cells of its cell-velocity positions (faces u and v, w of plane 0), its curl and force
     * positions (offset in the level below | bit 16: x-span 2 | bit 17: y-span 2; force: and the solid cell), its
     * output faces (u, v in plane 0 and the force offset; ~0u: none) */
    unsigned ub[R][KU][2], cp[R][KC], fp[R][KF], fs[R][KF], tq[R][KT][3];
    float pre[R][KU][6]; /* faces of the next plane: u i, u i+1, v j, v j+1, w k, w k+1 */
    float old_c[R][KT][3], old_n[R][KT][3]; /* the old faces u, v, w of the plane the next faces phases write */
    int sol_c[R][KF], sol_n[R][KF];         /* the solid cells of the plane the next force phases compute */
    par([&](int t) {
        const int r = Par::slot(t);
VT_UNROLL
        for (int k = 0; k < KU; k++) {
            const int f = t + k * NT;
            if (f >= UN) break;
            const unsigned i = (unsigned)X.cell(X.clamp(f % UW - 3)), j = (unsigned)Y.cell(Y.clamp(f / UW - 3));
            ub[r][k][0] = i + (unsigned)(n0 + 1) * j;
            ub[r][k][1] = i + (unsigned)n0 * j;
        }
VT_UNROLL
        for (int k = 0; k < KC; k++) {
            const int f = t + k * NT;
            if (f >= CN) break;
            const int qx = X.clamp(f % CW - 2), qy = Y.clamp(f / CW - 2);
            cp[r][k] = (unsigned)((qx + 3) + UW * (qy + 3)) | (X.span(qx) == 2 ? 1u << 16 : 0u) | (Y.span(qy) == 2 ? 1u << 17 : 0u);
        }
VT_UNROLL
        for (int k = 0; k < KF; k++) {
            const int f = t + k * NT;
            if (f >= FN) break;
            const int qx = X.clamp(f % FW - 1), qy = Y.clamp(f / FW - 1);
            fp[r][k] = (unsigned)((qx + 2) + CW * (qy + 2)) | (X.span(qx) == 2 ? 1u << 16 : 0u) | (Y.span(qy) == 2 ? 1u << 17 : 0u);
            fs[r][k] = (unsigned)X.cell(qx) + (unsigned)n0 * (unsigned)Y.cell(qy);
        }
VT_UNROLL
        for (int k = 0; k < KT; k++) {
            const int f = t + k * NT;
            const int fx = f % TX, fy = f / TX, i = X.o + fx, j = Y.o + fy;
            const bool in = f < TN && i < n0 && j < n1;
            tq[r][k][0] = in ? (unsigned)i + (unsigned)(n0 + 1) * (unsigned)j : ~0u;
            tq[r][k][1] = in ? (unsigned)i + (unsigned)n0 * (unsigned)j : 0u;
            tq[r][k][2] = (unsigned)((fx + 1) + FW * (fy + 1));
        }
    }, false);
    auto fetch = [&](int t, int L) {
        const int r = Par::slot(t);
        const unsigned z = (unsigned)phys(L);
VT_UNROLL
        for (int k = 0; k < KU; k++) {
            if (t + k * NT >= UN) break;
            const unsigned qu = ub[r][k][0] + plane_u * z, qv = ub[r][k][1] + plane_v * z, qw = ub[r][k][1] + plane * z;
            pre[r][k][0] = vu[qu];
            pre[r][k][1] = vu[qu + 1];
            pre[r][k][2] = vv[qv];
            pre[r][k][3] = vv[qv + (unsigned)n0];
            pre[r][k][4] = vw[qw];
            pre[r][k][5] = vw[qw + plane];
        }
    };
    /* a step ahead: the old faces of plane t (if a faces phase writes it) and the solid cells of plane Lf */
    auto ahead = [&](int tid, int t, int Lf) {
        const int r = Par::slot(tid);
        if (t >= r0 && t < r1)
VT_UNROLL
            for (int k = 0; k < KT; k++)
                if (tq[r][k][0] != ~0u) {
                    old_n[r][k][0] = vu[tq[r][k][0] + plane_u * (unsigned)t];
                    old_n[r][k][1] = vv[tq[r][k][1] + plane_v * (unsigned)t];
                    old_n[r][k][2] = vw[tq[r][k][1] + plane * (unsigned)t];
                }
        if (Lf >= fmin && Lf <= fmax) {
            const uint8_t *sol = A.solid + plane * (unsigned)phys(Lf);
VT_UNROLL
            for (int k = 0; k < KF; k++)
                if (tid + k * NT < FN) sol_n[r][k] = sol[fs[r][k]];
        }
    };
    auto rotate = [&](int tid) {
        const int r = Par::slot(tid);
VT_UNROLL
        for (int k = 0; k < KT; k++)
            for (int a = 0; a < 3; a++) old_c[r][k][a] = old_n[r][k][a];
VT_UNROLL
        for (int k = 0; k < KF; k++) sol_c[r][k] = sol_n[r][k];
    };
    auto quot = [&](float x, unsigned flags, unsigned bit) { return vt_quot<MUL>(x, A, (flags & bit) ? 2 : 1); };
    /* z-faces of plane t: between cell planes t - 1 and t */
    auto zfaces = [&](int t, int tid) {
        const int r = Par::slot(tid);
        const float *fl = F2 + vt_slot(key(t - 1), 2) * FN, *fh = F2 + vt_slot(key(t), 2) * FN;
VT_UNROLL
        for (int k = 0; k < KT; k++) {
            if (tq[r][k][0] == ~0u) continue;
            const int c = (int)tq[r][k][2];
            const unsigned q = tq[r][k][1] + plane * (unsigned)t;
            vt_store(A, 2, q, (t < ns ? old_c[r][k][2] : vw[q]) + dt * (0.5f * (fl[c] + fh[c])));
        }
    };
    par([&](int t) {
        fetch(t, umin);
        ahead(t, umin - 2, umin - 2);
        rotate(t);
        ahead(t, umin - 1, umin - 1);
    }, false);
    for (int L = umin; L <= fmax + 2; L++) {
        bool barrier = false; /* since the last faces phase, which may still read the force planes */
        if (L <= umax) {
            barrier = true;
            float *c0 = U0 + vt_slot(L, 3) * UN, *c1 = U1 + vt_slot(L, 3) * UN, *c2 = U2 + vt_slot(L, 2) * UN;
            par([&](int t) {
                const int r = Par::slot(t);
VT_UNROLL
                for (int k = 0; k < KU; k++) {
                    const int f = t + k * NT;
                    if (f >= UN) break;
                    c0[f] = 0.5f * (pre[r][k][0] + pre[r][k][1]);
                    c1[f] = 0.5f * (pre[r][k][2] + pre[r][k][3]);
                    c2[f] = 0.5f * (pre[r][k][4] + pre[r][k][5]);
                }
                if (L + 1 <= umax) fetch(t, L + 1);
            }, true);
        }
        const int Lc = L - 1;
        if (Lc >= cmin && Lc <= cmax) {
            barrier = true;
            const int sz = slab_span(Lc), km = key(Lc - 1), kp = key(Lc + 1);
            const float *c0 = U0 + vt_slot(Lc, 3) * UN, *c1 = U1 + vt_slot(Lc, 3) * UN, *c2 = U2 + vt_slot(Lc, 2) * UN;
            const float *c0m = U0 + vt_slot(km, 3) * UN, *c0p = U0 + vt_slot(kp, 3) * UN;
            const float *c1m = U1 + vt_slot(km, 3) * UN, *c1p = U1 + vt_slot(kp, 3) * UN;
            float *ox = O0 + vt_slot(Lc, 2) * CN, *oy = O1 + vt_slot(Lc, 2) * CN, *oz = O2 + vt_slot(Lc, 2) * CN;
            float *mag = M + vt_slot(Lc, 3) * CN;
            par([&](int t) {
                const int r = Par::slot(t);
                auto body = [&](int k) {
                    const int f = t + k * NT;
                    if (f >= CN) return;
                    const unsigned e = cp[r][k];
                    const int c = (int)(e & 0xffffu);
                    const float wx = quot(c2[c + UW] - c2[c - UW], e, 1u << 17) - vt_quot<MUL>(c1p[c] - c1m[c], A, sz);
                    const float wy = vt_quot<MUL>(c0p[c] - c0m[c], A, sz) - quot(c2[c + 1] - c2[c - 1], e, 1u << 16);
                    const float wz = quot(c1[c + 1] - c1[c - 1], e, 1u << 16) - quot(c0[c + UW] - c0[c - UW], e, 1u << 17);
                    ox[f] = wx;
                    oy[f] = wy;
                    oz[f] = wz;
                    mag[f] = vt_sqrt(wx * wx + wy * wy + wz * wz);
                };
VT_UNROLL
                for (int k = 0; k < KC; k++) body(k);
            }, true);
        }
        const int Lf = L - 2;
        if (Lf >= fmin && Lf <= fmax) {
            if (!barrier) par([](int) {}, true);
            const int sz = slab_span(Lf);
            const float *m = M + vt_slot(Lf, 3) * CN, *mm = M + vt_slot(key(Lf - 1), 3) * CN, *mp = M + vt_slot(key(Lf + 1), 3) * CN;
            const float *ox = O0 + vt_slot(Lf, 2) * CN, *oy = O1 + vt_slot(Lf, 2) * CN, *oz = O2 + vt_slot(Lf, 2) * CN;
            float *fz = F2 + vt_slot(Lf, 2) * FN;
            par([&](int t) {
                const int r = Par::slot(t);
                auto body = [&](int k) {
                    const int f = t + k * NT;
                    if (f >= FN) return;
                    const unsigned e = fp[r][k];
                    const int c = (int)(e & 0xffffu);
                    const float gx = quot(m[c + 1] - m[c - 1], e, 1u << 16);
                    const float gy = quot(m[c + CW] - m[c - CW], e, 1u << 17);
                    const float gz = vt_quot<MUL>(mp[c] - mm[c], A, sz);
                    const float len = vt_sqrt(gx * gx + gy * gy + gz * gz);
                    float a = 0.0f, b = 0.0f, d = 0.0f;
                    if (len > 1e-20f && sol_c[r][k] == 0) {
                        const float nx = vt_fdiv(gx, len), ny = vt_fdiv(gy, len), nz = vt_fdiv(gz, len);
                        const float wx = ox[c], wy = oy[c], wz = oz[c];
                        a = scale * (ny * wz - nz * wy);
                        b = scale * (nz * wx - nx * wz);
                        d = scale * (nx * wy - ny * wx);
                    }
                    F0[f] = a;
                    F1[f] = b;
                    fz[f] = d;
                };
VT_UNROLL
                for (int k = 0; k < KF; k++) body(k);
            }, true);
        }
        const int t = L - 2;
        if (t >= r0 && t < r1) {
            par([&](int tid) {
                const int r = Par::slot(tid);
VT_UNROLL
                for (int k = 0; k < KT; k++) {
                    if (tq[r][k][0] == ~0u) continue;
                    const int c = (int)tq[r][k][2];
                    vt_store(A, 0, tq[r][k][0] + plane_u * (unsigned)t, old_c[r][k][0] + dt * (0.5f * (F0[c - 1] + F0[c])));
                    vt_store(A, 1, tq[r][k][1] + plane_v * (unsigned)t, old_c[r][k][1] + dt * (0.5f * (F1[c - FW] + F1[c])));
                }
                if (X.o + TX >= n0)
                    for (int fy = tid; fy < TY; fy += NT) {
                        const int j = Y.o + fy, c = (n0 - X.o + 1) + FW * (fy + 1);
                        if (j >= n1) continue;
                        const unsigned qu = (unsigned)n0 + (unsigned)(n0 + 1) * (unsigned)j + plane_u * (unsigned)t;
                        vt_store(A, 0, qu, vu[qu] + dt * (0.5f * (F0[c - 1] + F0[c])));
                    }
                if (Y.o + TY >= n1)
                    for (int fx = tid; fx < TX; fx += NT) {
                        const int i = X.o + fx, c = (fx + 1) + FW * (n1 - Y.o + 1);
                        if (i >= n0) continue;
                        const unsigned qv = (unsigned)i + (unsigned)n0 * (unsigned)n1 + plane_v * (unsigned)t;
                        vt_store(A, 1, qv, vv[qv] + dt * (0.5f * (F1[c - FW] + F1[c])));
                    }
                zfaces(t, tid);
            }, false);
        }
        par([&](int tid) {
            rotate(tid);
            ahead(tid, L, L);
        }, false);
    }
    if (last) par([&](int tid) { zfaces(ns, tid); }, false); /* the top plane of z-faces */
}

} /* namespace ecu */

#endif
