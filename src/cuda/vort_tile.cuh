/* Vorticity confinement in one pass over the velocity (vorticity.c: omega = curl u from cell-averaged velocity,
 * N = grad|omega| / |grad|omega||, f = eps h (N x omega), averaged back onto the faces). A block owns a tile of
 * TX x TY cells and keeps, in shared memory, the cell velocity on the tile and 3 cells around it, the curl and
 * |curl| on 2 around it and the cell force on 1 around it; it reads the faces around the tile and writes the new
 * faces of the tile (the faces the tile's cells start, and the domain's last ones) into a second velocity array:
 * other tiles read the old faces around theirs, so the update cannot be in place. In 3D the tile marches along z
 * through a chunk of planes, with rings of planes for each level (as the CPU's sweep, vorticity_sweep.c, marches
 * its slabs): cell velocity 3 planes, |curl| 3, curl 2, force 1 (z-component 2).
 *
 * Walls and periodic axes without index arithmetic per neighbour: a position p of a level outside the domain along
 * a clamped axis holds the value of the level at the clamped cell (computed there: p is clamped before the stencil),
 * so the stencils read their neighbours at fixed offsets and get the CPU's clamped neighbours; along a periodic axis
 * every position is computed by the same stencil from the periodic continuation (the cell velocity reads wrapped
 * faces), which is the CPU's wrapped neighbour. The divisor follows the cell: span 1 at a wall, 2 elsewhere.
 * Every value is computed with the CPU sweep's float operations in its order (same bits).
 *
 * The tile functions are written for the device and for a host emulation (Par runs one phase for every thread of
 * the block, then the barrier), which lets the arithmetic and the indexing be checked against the CPU without a
 * GPU. */
#ifndef EDDY_VORT_TILE_CUH
#define EDDY_VORT_TILE_CUH

#include "cu_common.cuh"

namespace ecu {

constexpr int VT_THREADS = 256;

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
__host__ __device__ constexpr int vt2_floats() {
    return 2 * ((TX + 6) * (TY + 6)) + 2 * ((TX + 4) * (TY + 4));
}
template <int TX, int TY>
__host__ __device__ constexpr int vt3_floats() {
    return 8 * ((TX + 6) * (TY + 6)) + 9 * ((TX + 4) * (TY + 4)) + 4 * ((TX + 2) * (TY + 2));
}

/* ring slot of slab key L (keys may be negative along a periodic axis) */
__host__ __device__ inline int vt_slot(int L, int R) { return ((L % R) + R) % R; }

/* ------------------------------------------------------------------ 2D */
template <int TX, int TY, bool MUL, class Par>
__host__ __device__ inline void vort2_tile(const VortArgs &A, int bx, int by, float *sm, Par par) {
    constexpr int NT = VT_THREADS;
    constexpr int UW = TX + 6, UH = TY + 6, CW = TX + 4, CH = TY + 4, FW = TX + 2, FH = TY + 2;
    constexpr int UN = UW * UH, CN = CW * CH, FN = FW * FH;
    /* cell velocity at positions -3 .. T+2, then (once the curl is done) the force at -1 .. T over it */
    float *u0 = sm, *u1 = sm + UN, *f0 = sm, *f1 = sm + FN;
    float *wz = sm + 2 * UN, *mg = wz + CN; /* curl and |curl| at -2 .. T+1 */
    const VtAxis X = vt_axis(A, 0, bx * TX), Y = vt_axis(A, 1, by * TY);
    const int n0 = A.n[0], n1 = A.n[1];
    const float *__restrict__ vu = A.v[0];
    const float *__restrict__ vv = A.v[1];
    par([&](int t) {
        for (int f = t; f < UN; f += NT) {
            const int i = X.cell(X.clamp(f % UW - 3)), j = Y.cell(Y.clamp(f / UW - 3));
            const unsigned qu = (unsigned)i + (unsigned)(n0 + 1) * (unsigned)j, qv = (unsigned)i + (unsigned)n0 * (unsigned)j;
            u0[f] = 0.5f * (vu[qu] + vu[qu + 1]);
            u1[f] = 0.5f * (vv[qv] + vv[qv + (unsigned)n0]);
        }
    }, true);
    par([&](int t) {
        for (int f = t; f < CN; f += NT) {
            const int qx = X.clamp(f % CW - 2), qy = Y.clamp(f / CW - 2);
            const int c = (qx + 3) + UW * (qy + 3);
            const float z = vt_quot<MUL>(u1[c + 1] - u1[c - 1], A, X.span(qx)) - vt_quot<MUL>(u0[c + UW] - u0[c - UW], A, Y.span(qy));
            wz[f] = z;
            mg[f] = vt_sqrt(z * z); /* = sqrt(wx^2 + wy^2 + wz^2) with wx = wy = +0 */
        }
    }, true);
    par([&](int t) {
        for (int f = t; f < FN; f += NT) {
            const int qx = X.clamp(f % FW - 1), qy = Y.clamp(f / FW - 1);
            const int c = (qx + 2) + CW * (qy + 2);
            const float gx = vt_quot<MUL>(mg[c + 1] - mg[c - 1], A, X.span(qx));
            const float gy = vt_quot<MUL>(mg[c + CW] - mg[c - CW], A, Y.span(qy));
            const float len = vt_sqrt(gx * gx + gy * gy); /* + gz * gz with gz = +0 */
            float a = 0.0f, b = 0.0f;
            if (len > 1e-20f && A.solid[(unsigned)X.cell(qx) + (unsigned)n0 * (unsigned)Y.cell(qy)] == 0) {
                const float nx = vt_fdiv(gx, len), ny = vt_fdiv(gy, len), o = wz[c];
                /* N x omega with nz = +0, omega = (+0, +0, wz), in the 3D formula's order of operations */
                a = A.scale * (ny * o);
                b = A.scale * (0.0f - nx * o);
            }
            f0[f] = a;
            f1[f] = b;
        }
    }, true);
    const float dt = A.dt;
    par([&](int t) {
        for (int f = t; f < TX * TY; f += NT) {
            const int fx = f % TX, fy = f / TX, i = X.o + fx, j = Y.o + fy;
            if (i >= n0 || j >= n1) continue;
            const int c = (fx + 1) + FW * (fy + 1);
            const unsigned qu = (unsigned)i + (unsigned)(n0 + 1) * (unsigned)j, qv = (unsigned)i + (unsigned)n0 * (unsigned)j;
            vt_store(A, 0, qu, vu[qu] + dt * (0.5f * (f0[c - 1] + f0[c])));
            vt_store(A, 1, qv, vv[qv] + dt * (0.5f * (f1[c - FW] + f1[c])));
        }
        /* the domain's last x-faces (i = n0) and y-faces (j = n1) */
        if (X.o + TX >= n0)
            for (int fy = t; fy < TY; fy += NT) {
                const int j = Y.o + fy, c = (n0 - X.o + 1) + FW * (fy + 1);
                if (j >= n1) continue;
                const unsigned qu = (unsigned)n0 + (unsigned)(n0 + 1) * (unsigned)j;
                vt_store(A, 0, qu, vu[qu] + dt * (0.5f * (f0[c - 1] + f0[c])));
            }
        if (Y.o + TY >= n1)
            for (int fx = t; fx < TX; fx += NT) {
                const int i = X.o + fx, c = (fx + 1) + FW * (n1 - Y.o + 1);
                if (i >= n0) continue;
                const unsigned qv = (unsigned)i + (unsigned)n0 * (unsigned)n1;
                vt_store(A, 1, qv, vv[qv] + dt * (0.5f * (f1[c - FW] + f1[c])));
            }
    }, false);
}

/* ------------------------------------------------------------------ 3D */
template <int TX, int TY, bool MUL, class Par>
__host__ __device__ inline void vort3_tile(const VortArgs &A, int bx, int by, int bz, float *sm, Par par) {
    constexpr int NT = VT_THREADS;
    constexpr int UW = TX + 6, UH = TY + 6, CW = TX + 4, CH = TY + 4, FW = TX + 2, FH = TY + 2;
    constexpr int UN = UW * UH, CN = CW * CH, FN = FW * FH;
    /* rings: cell velocity x and y 3 planes, z 2; |curl| 3; curl 2; force x, y 1, z 2 */
    float *U0 = sm, *U1 = U0 + 3 * UN, *U2 = U1 + 3 * UN;
    float *M = U2 + 2 * UN, *O0 = M + 3 * CN, *O1 = O0 + 2 * CN, *O2 = O1 + 2 * CN;
    float *F0 = O2 + 2 * CN, *F1 = F0 + FN, *F2 = F1 + FN;
    const VtAxis X = vt_axis(A, 0, bx * TX), Y = vt_axis(A, 1, by * TY);
    const int n0 = A.n[0], n1 = A.n[1], ns = A.n[2];
    const bool ps = A.periodic[2] != 0;
    const unsigned plane = (unsigned)n0 * (unsigned)n1;
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
    const float dt = A.dt;
    /* z-faces of plane t: between cell planes t - 1 and t */
    auto zfaces = [&](int t, int tid) {
        const float *fl = F2 + vt_slot(key(t - 1), 2) * FN, *fh = F2 + vt_slot(key(t), 2) * FN;
        for (int f = tid; f < TX * TY; f += NT) {
            const int fx = f % TX, fy = f / TX, i = X.o + fx, j = Y.o + fy;
            if (i >= n0 || j >= n1) continue;
            const int c = (fx + 1) + FW * (fy + 1);
            const unsigned qw = (unsigned)i + (unsigned)n0 * (unsigned)j + plane * (unsigned)t;
            vt_store(A, 2, qw, vw[qw] + dt * (0.5f * (fl[c] + fh[c])));
        }
    };
    for (int L = umin; L <= fmax + 2; L++) {
        bool barrier = false; /* since the last faces phase, which may still read the force planes */
        if (L <= umax) {
            barrier = true;
            const unsigned z = (unsigned)phys(L);
            float *c0 = U0 + vt_slot(L, 3) * UN, *c1 = U1 + vt_slot(L, 3) * UN, *c2 = U2 + vt_slot(L, 2) * UN;
            par([&](int t) {
                for (int f = t; f < UN; f += NT) {
                    const unsigned i = (unsigned)X.cell(X.clamp(f % UW - 3)), j = (unsigned)Y.cell(Y.clamp(f / UW - 3));
                    const unsigned qu = i + (unsigned)(n0 + 1) * (j + (unsigned)n1 * z);
                    const unsigned qv = i + (unsigned)n0 * (j + (unsigned)(n1 + 1) * z);
                    const unsigned qw = i + (unsigned)n0 * j + plane * z;
                    c0[f] = 0.5f * (vu[qu] + vu[qu + 1]);
                    c1[f] = 0.5f * (vv[qv] + vv[qv + (unsigned)n0]);
                    c2[f] = 0.5f * (vw[qw] + vw[qw + plane]);
                }
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
                for (int f = t; f < CN; f += NT) {
                    const int qx = X.clamp(f % CW - 2), qy = Y.clamp(f / CW - 2);
                    const int c = (qx + 3) + UW * (qy + 3), sx = X.span(qx), sy = Y.span(qy);
                    const float wx = vt_quot<MUL>(c2[c + UW] - c2[c - UW], A, sy) - vt_quot<MUL>(c1p[c] - c1m[c], A, sz);
                    const float wy = vt_quot<MUL>(c0p[c] - c0m[c], A, sz) - vt_quot<MUL>(c2[c + 1] - c2[c - 1], A, sx);
                    const float wz = vt_quot<MUL>(c1[c + 1] - c1[c - 1], A, sx) - vt_quot<MUL>(c0[c + UW] - c0[c - UW], A, sy);
                    ox[f] = wx;
                    oy[f] = wy;
                    oz[f] = wz;
                    mag[f] = vt_sqrt(wx * wx + wy * wy + wz * wz);
                }
            }, true);
        }
        const int Lf = L - 2;
        if (Lf >= fmin && Lf <= fmax) {
            if (!barrier) par([](int) {}, true);
            const int sz = slab_span(Lf);
            const unsigned z = (unsigned)phys(Lf);
            const float *m = M + vt_slot(Lf, 3) * CN, *mm = M + vt_slot(key(Lf - 1), 3) * CN, *mp = M + vt_slot(key(Lf + 1), 3) * CN;
            const float *ox = O0 + vt_slot(Lf, 2) * CN, *oy = O1 + vt_slot(Lf, 2) * CN, *oz = O2 + vt_slot(Lf, 2) * CN;
            float *fz = F2 + vt_slot(Lf, 2) * FN;
            const float scale = A.scale;
            par([&](int t) {
                for (int f = t; f < FN; f += NT) {
                    const int qx = X.clamp(f % FW - 1), qy = Y.clamp(f / FW - 1);
                    const int c = (qx + 2) + CW * (qy + 2);
                    const float gx = vt_quot<MUL>(m[c + 1] - m[c - 1], A, X.span(qx));
                    const float gy = vt_quot<MUL>(m[c + CW] - m[c - CW], A, Y.span(qy));
                    const float gz = vt_quot<MUL>(mp[c] - mm[c], A, sz);
                    const float len = vt_sqrt(gx * gx + gy * gy + gz * gz);
                    float a = 0.0f, b = 0.0f, d = 0.0f;
                    if (len > 1e-20f && A.solid[(unsigned)X.cell(qx) + (unsigned)n0 * (unsigned)Y.cell(qy) + plane * z] == 0) {
                        const float nx = vt_fdiv(gx, len), ny = vt_fdiv(gy, len), nz = vt_fdiv(gz, len);
                        const float wx = ox[c], wy = oy[c], wz = oz[c];
                        a = scale * (ny * wz - nz * wy);
                        b = scale * (nz * wx - nx * wz);
                        d = scale * (nx * wy - ny * wx);
                    }
                    F0[f] = a;
                    F1[f] = b;
                    fz[f] = d;
                }
            }, true);
        }
        const int t = L - 2;
        if (t >= r0 && t < r1) {
            par([&](int tid) {
                for (int f = tid; f < TX * TY; f += NT) {
                    const int fx = f % TX, fy = f / TX, i = X.o + fx, j = Y.o + fy;
                    if (i >= n0 || j >= n1) continue;
                    const int c = (fx + 1) + FW * (fy + 1);
                    const unsigned qu = (unsigned)i + (unsigned)(n0 + 1) * ((unsigned)j + (unsigned)n1 * (unsigned)t);
                    const unsigned qv = (unsigned)i + (unsigned)n0 * ((unsigned)j + (unsigned)(n1 + 1) * (unsigned)t);
                    vt_store(A, 0, qu, vu[qu] + dt * (0.5f * (F0[c - 1] + F0[c])));
                    vt_store(A, 1, qv, vv[qv] + dt * (0.5f * (F1[c - FW] + F1[c])));
                }
                if (X.o + TX >= n0)
                    for (int fy = tid; fy < TY; fy += NT) {
                        const int j = Y.o + fy, c = (n0 - X.o + 1) + FW * (fy + 1);
                        if (j >= n1) continue;
                        const unsigned qu = (unsigned)n0 + (unsigned)(n0 + 1) * ((unsigned)j + (unsigned)n1 * (unsigned)t);
                        vt_store(A, 0, qu, vu[qu] + dt * (0.5f * (F0[c - 1] + F0[c])));
                    }
                if (Y.o + TY >= n1)
                    for (int fx = tid; fx < TX; fx += NT) {
                        const int i = X.o + fx, c = (fx + 1) + FW * (n1 - Y.o + 1);
                        if (i >= n0) continue;
                        const unsigned qv = (unsigned)i + (unsigned)n0 * ((unsigned)n1 + (unsigned)(n1 + 1) * (unsigned)t);
                        vt_store(A, 1, qv, vv[qv] + dt * (0.5f * (F1[c - FW] + F1[c])));
                    }
                zfaces(t, tid);
            }, false);
        }
    }
    if (last) par([&](int tid) { zfaces(ns, tid); }, false); /* the top plane of z-faces */
}

} /* namespace ecu */

#endif
