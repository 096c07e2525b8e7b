/* Vorticity confinement's sweep along the outermost axis (see vorticity.c for the method and the order of
 * operations), built once per vector width: this file as the baseline, src/avx2/ again for AVX2 (vector_isa.h).
 * Both builds perform the same float operations in the same order. */
#include "keep_if.h"
#include "vorticity_sweep.h"

#include <math.h>

typedef eddy_vort_sweep sweep;
typedef eddy_vort_rings2 rings2;
typedef eddy_vort_rings3 rings3;
enum { RING = EDDY_VORT_RING };

/* a slab index as the neighbour rule sees it: clamped on a bounded sweep axis, free (wrapped later) on a
 * periodic one */
static inline int slab_key(const sweep *w, int L) { return w->ps ? L : eddy__clampi(L, 0, w->ns - 1); }
static inline int slab_phys(const sweep *w, int L) { return w->ps ? eddy__wrap(L, w->ns) : L; }
static inline int ring_slot(int L) { return ((L % RING) + RING) % RING; }
/* divisor of a central difference across slabs at key L */
static inline int slab_span(const sweep *w, int L) {
    if (w->ps) return 2;
    return eddy__clampi(L + 1, 0, w->ns - 1) - eddy__clampi(L - 1, 0, w->ns - 1);
}

/* x / den: a multiply by the reciprocal when that is exact (den a power of two: both are the correctly rounded
 * x * 2^-e, the same bits), a division otherwise. `mul` is a constant in each instance of the kernels below. */
#if defined(__GNUC__)
#define KERNEL static inline __attribute__((always_inline))
#else
#define KERNEL static inline
#endif
KERNEL float quot(float x, const sweep *w, int span, bool mul) { return mul ? x * w->rcp[span] : x / w->den[span]; }

/* out[i] = d f / dx along a row of n >= 3 cells: central inside, one-sided at a wall, wrapped if periodic */
KERNEL void row_ddx(const float *f, float *out, int n, bool periodic, const sweep *w, bool mul) {
#pragma omp simd
    for (int i = 1; i < n - 1; i++) out[i] = quot(f[i + 1] - f[i - 1], w, 2, mul);
    if (periodic) {
        out[0] = quot(f[1] - f[n - 1], w, 2, mul);
        out[n - 1] = quot(f[0] - f[n - 2], w, 2, mul);
    } else {
        out[0] = quot(f[1] - f[0], w, 1, mul);
        out[n - 1] = quot(f[n - 1] - f[n - 2], w, 1, mul);
    }
}

/* new = old + dt * 0.5 (f[i-1] + f[i]) along a row of n + 1 x-faces (neighbours clamped or wrapped) */
static void row_faces_x(const float *old, float *out, const float *f, int n, bool periodic, float dt) {
    int l0 = periodic ? n - 1 : 0, hn = periodic ? 0 : n - 1;
    out[0] = old[0] + dt * (0.5f * (f[l0] + f[0]));
#pragma omp simd
    for (int i = 1; i < n; i++) out[i] = old[i] + dt * (0.5f * (f[i - 1] + f[i]));
    out[n] = old[n] + dt * (0.5f * (f[n - 1] + f[hn]));
}

/* new = old + dt * 0.5 (fl + fh) along a row of n faces */
static void row_faces(const float *old, float *out, const float *fl, const float *fh, int n, float dt) {
#pragma omp simd
    for (int i = 0; i < n; i++) out[i] = old[i] + dt * (0.5f * (fl[i] + fh[i]));
}

/* ---------------------------------------------------------------- 2D: slabs are rows of n0 cells */


static void uc_row2(const eddy_sim *s, const sweep *w, rings2 *r, int L) {
    int j = slab_phys(w, L), n0 = w->n0;
    size_t o = (size_t)ring_slot(L) * n0;
    const float *u = s->vel[0] + (size_t)j * (n0 + 1), *v0 = s->vel[1] + (size_t)j * n0, *v1 = v0 + n0;
    float *c0 = r->uc[0] + o, *c1 = r->uc[1] + o;
#pragma omp simd
    for (int i = 0; i < n0; i++) {
        c0[i] = 0.5f * (u[i] + u[i + 1]);
        c1[i] = 0.5f * (v0[i] + v1[i]);
    }
}

KERNEL void curl_row2(const sweep *w, rings2 *r, int L, bool mul) {
    int n0 = w->n0;
    size_t o = (size_t)ring_slot(L) * n0;
    const float *c1 = r->uc[1] + o, *c0m = r->uc[0] + (size_t)ring_slot(slab_key(w, L - 1)) * n0,
                *c0p = r->uc[0] + (size_t)ring_slot(slab_key(w, L + 1)) * n0;
    float *wz = r->wz + o, *mag = r->mag + o, *dx = r->tmp;
    const int sp = slab_span(w, L);
    row_ddx(c1, dx, n0, w->px, w, mul);
#pragma omp simd
    for (int i = 0; i < n0; i++) {
        float z = dx[i] - quot(c0p[i] - c0m[i], w, sp, mul);
        wz[i] = z;
        mag[i] = sqrtf(z * z); /* = sqrt(wx^2 + wy^2 + wz^2) with wx = wy = +0 */
    }
}

KERNEL void force_row2(const eddy_sim *s, const sweep *w, rings2 *r, int L, bool mul) {
    int n0 = w->n0, j = slab_phys(w, L);
    size_t o = (size_t)ring_slot(L) * n0;
    const float *mag = r->mag + o, *wz = r->wz + o, *mm = r->mag + (size_t)ring_slot(slab_key(w, L - 1)) * n0,
                *mp = r->mag + (size_t)ring_slot(slab_key(w, L + 1)) * n0;
    const uint8_t *solid = s->solid + (size_t)j * n0;
    float *fx = r->f[0] + o, *fy = r->f[1] + o, *gxr = r->tmp;
    const int sp = slab_span(w, L);
    const float scale = w->scale;
    row_ddx(mag, gxr, n0, w->px, w, mul);
#pragma omp simd
    for (int i = 0; i < n0; i++) {
        float gx = gxr[i], gy = quot(mp[i] - mm[i], w, sp, mul);
        float len = sqrtf(gx * gx + gy * gy); /* + gz * gz with gz = +0 */
        bool keep = (len > 1e-20f) & (solid[i] == 0);
        float nx = gx / len, ny = gy / len;
        /* N x omega with nz = +0, omega = (+0, +0, wz), in the 3D formula's order of operations */
        fx[i] = eddy__keep_float(scale * (ny * wz[i]), keep);
        fy[i] = eddy__keep_float(scale * (0.0f - nx * wz[i]), keep);
    }
}

/* The slabs a thread's block [r0, r1) needs: forces on [fmin, fmax] (the faces of its slabs and the one below),
 * curls one slab further out, cell velocities two; clamped to the grid unless the sweep axis is periodic (then the
 * ring keys wrap). */
typedef struct sweep_window {
    int fmin, fmax, cmin, cmax, umin, umax;
    bool last; /* the block ends at the top: it also writes the top slab of faces */
} sweep_window;

static sweep_window window_of(const sweep *w, int r0, int r1) {
    const int ns = w->ns;
    sweep_window v;
    v.last = r1 == ns;
    v.fmin = r0 - 1;
    v.fmax = v.last ? ns : r1 - 1;
    if (!w->ps) {
        v.fmin = eddy__clampi(v.fmin, 0, ns - 1);
        v.fmax = eddy__clampi(v.fmax, 0, ns - 1);
    }
    v.cmin = v.fmin - 1, v.cmax = v.fmax + 1, v.umin = v.fmin - 2, v.umax = v.fmax + 2;
    if (!w->ps) {
        v.cmin = eddy__clampi(v.cmin, 0, ns - 1); v.cmax = eddy__clampi(v.cmax, 0, ns - 1);
        v.umin = eddy__clampi(v.umin, 0, ns - 1); v.umax = eddy__clampi(v.umax, 0, ns - 1);
    }
    return v;
}

KERNEL void sweep2(eddy_sim *s, const sweep *w, rings2 *r, int r0, int r1, bool mul) {
    const int n0 = w->n0, ns = w->ns;
    const sweep_window v = window_of(w, r0, r1);
    const bool last = v.last;
    const int fmin = v.fmin, fmax = v.fmax, cmin = v.cmin, cmax = v.cmax, umin = v.umin, umax = v.umax;
    const float dt = w->dt;
    for (int L = umin; L <= fmax + 2; L++) {
        if (L <= umax) uc_row2(s, w, r, L);
        if (L - 1 >= cmin && L - 1 <= cmax) curl_row2(w, r, L - 1, mul);
        if (L - 2 >= fmin && L - 2 <= fmax) force_row2(s, w, r, L - 2, mul);
        int t = L - 2;
        if (t < r0 || t >= r1) continue;
        const float *f0 = r->f[0] + (size_t)ring_slot(t) * n0;
        row_faces_x(s->vel[0] + (size_t)t * (n0 + 1), s->vel_tmp[0] + (size_t)t * (n0 + 1), f0, n0, w->px, dt);
        const float *flo = r->f[1] + (size_t)ring_slot(slab_key(w, t - 1)) * n0, *fhi = r->f[1] + (size_t)ring_slot(t) * n0;
        row_faces(s->vel[1] + (size_t)t * n0, s->vel_tmp[1] + (size_t)t * n0, flo, fhi, n0, dt);
    }
    if (last) { /* the top row of y-faces */
        const float *flo = r->f[1] + (size_t)ring_slot(slab_key(w, ns - 1)) * n0,
                    *fhi = r->f[1] + (size_t)ring_slot(slab_key(w, ns)) * n0;
        row_faces(s->vel[1] + (size_t)ns * n0, s->vel_tmp[1] + (size_t)ns * n0, flo, fhi, n0, dt);
    }
}

/* ---------------------------------------------------------------- 3D: slabs are planes of n0 x n1 cells */


static inline size_t plane_of(const sweep *w, int L) { return (size_t)ring_slot(L) * (size_t)w->n0 * w->n1; }
static inline int row_nb(int j, int d, int n, bool periodic) {
    return periodic ? eddy__wrap(j + d, n) : eddy__clampi(j + d, 0, n - 1);
}
static inline int row_span(const sweep *w, int j) {
    if (w->py) return 2;
    return eddy__clampi(j + 1, 0, w->n1 - 1) - eddy__clampi(j - 1, 0, w->n1 - 1);
}

static void uc_plane3(const eddy_sim *s, const sweep *w, rings3 *r, int L) {
    const int n0 = w->n0, n1 = w->n1, k = slab_phys(w, L);
    const size_t o = plane_of(w, L), P = (size_t)n0 * n1;
    for (int j = 0; j < n1; j++) {
        const float *u = s->vel[0] + ((size_t)k * n1 + j) * (n0 + 1);
        const float *v0 = s->vel[1] + ((size_t)k * (n1 + 1) + j) * n0, *v1 = v0 + n0;
        const float *w0 = s->vel[2] + (size_t)k * P + (size_t)j * n0, *w1 = w0 + P;
        float *c0 = r->uc[0] + o + (size_t)j * n0, *c1 = r->uc[1] + o + (size_t)j * n0, *c2 = r->uc[2] + o + (size_t)j * n0;
#pragma omp simd
        for (int i = 0; i < n0; i++) {
            c0[i] = 0.5f * (u[i] + u[i + 1]);
            c1[i] = 0.5f * (v0[i] + v1[i]);
            c2[i] = 0.5f * (w0[i] + w1[i]);
        }
    }
}

KERNEL void curl_plane3(const sweep *w, rings3 *r, int L, bool mul) {
    const int n0 = w->n0, n1 = w->n1;
    const size_t o = plane_of(w, L), om_ = plane_of(w, slab_key(w, L - 1)), op = plane_of(w, slab_key(w, L + 1));
    const int dz = slab_span(w, L);
    for (int j = 0; j < n1; j++) {
        const size_t row = (size_t)j * n0, rm = (size_t)row_nb(j, -1, n1, w->py) * n0, rp = (size_t)row_nb(j, 1, n1, w->py) * n0;
        const int dy = row_span(w, j);
        const float *c0 = r->uc[0] + o, *c1 = r->uc[1] + o, *c2 = r->uc[2] + o;
        const float *c0m = r->uc[0] + om_ + row, *c0p = r->uc[0] + op + row, *c1m = r->uc[1] + om_ + row,
                    *c1p = r->uc[1] + op + row;
        float *ax = r->tmp[0], *bx = r->tmp[1];
        row_ddx(c2 + row, ax, n0, w->px, w, mul); /* d uc2 / dx */
        row_ddx(c1 + row, bx, n0, w->px, w, mul); /* d uc1 / dx */
        float *ox = r->om[0] + o + row, *oy = r->om[1] + o + row, *oz = r->om[2] + o + row, *mag = r->mag + o + row;
#pragma omp simd
        for (int i = 0; i < n0; i++) {
            float wx = quot(c2[rp + i] - c2[rm + i], w, dy, mul) - quot(c1p[i] - c1m[i], w, dz, mul);
            float wy = quot(c0p[i] - c0m[i], w, dz, mul) - ax[i];
            float wz = bx[i] - quot(c0[rp + i] - c0[rm + i], w, dy, mul);
            ox[i] = wx;
            oy[i] = wy;
            oz[i] = wz;
            mag[i] = sqrtf(wx * wx + wy * wy + wz * wz);
        }
    }
}

KERNEL void force_plane3(const eddy_sim *s, const sweep *w, rings3 *r, int L, bool mul) {
    const int n0 = w->n0, n1 = w->n1, k = slab_phys(w, L);
    const size_t o = plane_of(w, L), om_ = plane_of(w, slab_key(w, L - 1)), op = plane_of(w, slab_key(w, L + 1));
    const int dz = slab_span(w, L);
    const float scale = w->scale;
    for (int j = 0; j < n1; j++) {
        const size_t row = (size_t)j * n0, rm = (size_t)row_nb(j, -1, n1, w->py) * n0, rp = (size_t)row_nb(j, 1, n1, w->py) * n0;
        const int dy = row_span(w, j);
        const float *mag = r->mag + o, *mm = r->mag + om_ + row, *mp = r->mag + op + row;
        const float *ox = r->om[0] + o + row, *oy = r->om[1] + o + row, *oz = r->om[2] + o + row;
        const uint8_t *solid = s->solid + ((size_t)k * n1 + j) * n0;
        float *gxr = r->tmp[0];
        row_ddx(mag + row, gxr, n0, w->px, w, mul);
        float *fx = r->f[0] + o + row, *fy = r->f[1] + o + row, *fz = r->f[2] + o + row;
#pragma omp simd
        for (int i = 0; i < n0; i++) {
            float gx = gxr[i], gy = quot(mag[rp + i] - mag[rm + i], w, dy, mul), gz = quot(mp[i] - mm[i], w, dz, mul);
            float len = sqrtf(gx * gx + gy * gy + gz * gz);
            bool keep = (len > 1e-20f) & (solid[i] == 0);
            float nx = gx / len, ny = gy / len, nz = gz / len;
            fx[i] = eddy__keep_float(scale * (ny * oz[i] - nz * oy[i]), keep);
            fy[i] = eddy__keep_float(scale * (nz * ox[i] - nx * oz[i]), keep);
            fz[i] = eddy__keep_float(scale * (nx * oy[i] - ny * ox[i]), keep);
        }
    }
}

static void faces_plane3(eddy_sim *s, const sweep *w, rings3 *r, int t, bool top_only) {
    const int n0 = w->n0, n1 = w->n1;
    const size_t P = (size_t)n0 * n1, o = plane_of(w, t);
    const float dt = w->dt;
    if (!top_only) {
        for (int j = 0; j < n1; j++) {
            size_t q = ((size_t)t * n1 + j) * (n0 + 1);
            row_faces_x(s->vel[0] + q, s->vel_tmp[0] + q, r->f[0] + o + (size_t)j * n0, n0, w->px, dt);
        }
        for (int j = 0; j <= n1; j++) {
            size_t q = ((size_t)t * (n1 + 1) + j) * n0;
            const float *fl = r->f[1] + o + (size_t)row_nb(j, -1, n1, w->py) * n0, *fh = r->f[1] + o + (size_t)row_nb(j, 0, n1, w->py) * n0;
            row_faces(s->vel[1] + q, s->vel_tmp[1] + q, fl, fh, n0, dt);
        }
    }
    /* z-faces of plane t lie between cell planes t - 1 and t */
    const float *fl = r->f[2] + plane_of(w, slab_key(w, t - 1)), *fh = r->f[2] + plane_of(w, slab_key(w, t));
    row_faces(s->vel[2] + (size_t)t * P, s->vel_tmp[2] + (size_t)t * P, fl, fh, (int)P, dt);
}

KERNEL void sweep3(eddy_sim *s, const sweep *w, rings3 *r, int r0, int r1, bool mul) {
    const int ns = w->ns;
    const sweep_window v = window_of(w, r0, r1);
    const bool last = v.last;
    const int fmin = v.fmin, fmax = v.fmax, cmin = v.cmin, cmax = v.cmax, umin = v.umin, umax = v.umax;
    for (int L = umin; L <= fmax + 2; L++) {
        if (L <= umax) uc_plane3(s, w, r, L);
        if (L - 1 >= cmin && L - 1 <= cmax) curl_plane3(w, r, L - 1, mul);
        if (L - 2 >= fmin && L - 2 <= fmax) force_plane3(s, w, r, L - 2, mul);
        int t = L - 2;
        if (t >= r0 && t < r1) faces_plane3(s, w, r, t, false);
    }
    if (last) faces_plane3(s, w, r, ns, true); /* the top plane of z-faces */
}

/* the exported instances: per dimension, with and without the exact reciprocal of the spacing */
#define VORT_SWEEP_INSTANCE(name, kernel, rings_type, mul)                                          \
    void EDDY_ISA_NAME(name)(eddy_sim *s, const sweep *w, rings_type *r, int r0, int r1) {          \
        kernel(s, w, r, r0, r1, mul);                                                               \
        EDDY_ISA_LEAVE();                                                                           \
    }
VORT_SWEEP_INSTANCE(eddy__vort_sweep2_mul, sweep2, rings2, true)
VORT_SWEEP_INSTANCE(eddy__vort_sweep2_div, sweep2, rings2, false)
VORT_SWEEP_INSTANCE(eddy__vort_sweep3_mul, sweep3, rings3, true)
VORT_SWEEP_INSTANCE(eddy__vort_sweep3_div, sweep3, rings3, false)
