/* Vorticity confinement's sweep along the outermost axis (see vorticity.c for the method and the order of
 * operations), written once over the vector of float_vector.h and built once per width: this file as the baseline,
 * src/avx2/ and src/avx512/ again (vector_isa.h). Every width performs the same float operations in the same order.
 *
 * Three passes per slab, each one loop over its rows that keeps a vector of cells in registers from its inputs to
 * its outputs: (A) cell velocities, (B) curl and |curl|, (C) the force, and at once the new faces. The slabs of
 * each pass live in small rings: rows padded with one halo cell on each side (the neighbour a wall clamps to or a
 * periodic axis wraps to), so that the x differences are plain loads at i - 1 and i + 1 in every lane, with the
 * spacing of each column (a one-sided difference at a wall spans one cell) in a row of its own. In 3D the planes
 * are cut into bands of rows small enough for the rings of a band to stay in the L2 cache; each band recomputes
 * the few rows of halo its stencils need. */
#include "float_vector.h"
#include "vorticity_sweep.h"

#include <math.h>

typedef eddy_vort_sweep sweep;
enum { PAD = EDDY_VORT_PAD };

#if defined(__GNUC__)
#define KERNEL static inline __attribute__((always_inline))
#else
#define KERNEL static inline
#endif

/* x / q with q the spacing (den), or x * q with q its exact reciprocal (rcp): the same bits (see vorticity.c).
 * `mul` is a constant in each instance of the kernels below. */
KERNEL vfloat quot(vfloat x, vfloat q, bool mul) { return mul ? vf_mul(x, q) : vf_div(x, q); }
KERNEL float spacing(const sweep *w, int span, bool mul) { return mul ? w->rcp[span] : w->den[span]; }

/* ---------------------------------------------------------------- keys along an axis
 * A key is a slab or row index as the neighbour rule sees it: clamped to [0, n) on a bounded axis, free on a
 * periodic one (wrapped to the physical index when the grid is read). */
typedef struct axis {
    int n;
    bool periodic;
} axis;
static inline int key_nb(axis a, int key, int d) { return a.periodic ? key + d : eddy__clampi(key + d, 0, a.n - 1); }
static inline int key_phys(axis a, int key) { return a.periodic ? eddy__wrap(key, a.n) : key; }
/* cells a central difference at `key` spans (2, or 1 one-sided at a wall) */
static inline int key_span(axis a, int key) {
    return a.periodic ? 2 : eddy__clampi(key + 1, 0, a.n - 1) - eddy__clampi(key - 1, 0, a.n - 1);
}
static inline int slot_of(int key, int ring) { return ((key % ring) + ring) % ring; }

/* The keys a block [r0, r1) of an axis needs: forces on [fmin, fmax] (the faces of the block and the one below),
 * curls one further out, cell velocities two; clamped to the axis unless it is periodic. */
typedef struct window {
    int fmin, fmax, cmin, cmax, umin, umax;
    bool last; /* the block ends at the top: it also writes the top faces */
} window;

static window window_of(axis a, int r0, int r1) {
    window v;
    v.last = r1 == a.n;
    v.fmin = r0 - 1;
    v.fmax = v.last ? a.n : r1 - 1;
    v.cmin = v.fmin - 1, v.cmax = v.fmax + 1, v.umin = v.fmin - 2, v.umax = v.fmax + 2;
    if (!a.periodic) {
        int *k[6] = {&v.fmin, &v.fmax, &v.cmin, &v.cmax, &v.umin, &v.umax};
        for (int i = 0; i < 6; i++) *k[i] = eddy__clampi(*k[i], 0, a.n - 1);
    }
    return v;
}

/* the x spacing of each column: one-sided (span 1) at a wall, central (span 2) elsewhere and past the end */
static void fill_x_spacing(const sweep *w, float *q, bool mul) {
    const int n0 = w->n0, len = (int)w->stride - PAD;
    for (int i = 0; i < len; i++) q[i] = spacing(w, i < n0 ? key_span((axis){n0, w->px}, i) : 2, mul);
}

/* the halo cells of a row: the neighbours of cells 0 and n0 - 1 as a wall clamps them or a periodic axis wraps */
static inline void set_halo(float *row, int n0, bool periodic) {
    row[-1] = periodic ? row[n0 - 1] : row[0];
    row[n0] = periodic ? row[0] : row[n0 - 1];
}

/* new faces of a row of n0 + 1 x-faces: old + dt * 0.5 (f[i - 1] + f[i]), f with its halo set */
KERNEL void x_faces(const float *old, float *out, const float *f, int n0, vfloat dt) {
    const vfloat half = vf_set1(0.5f);
    const int n = n0 + 1, full = n - n % VF_W;
    for (int i = 0; i < full; i += VF_W) {
        vfloat inc = vf_mul(dt, vf_mul(half, vf_add(vf_loadu(f + i - 1), vf_load(f + i))));
        vf_storeu(out + i, vf_add(vf_loadu(old + i), inc));
    }
    if (full < n) {
        vfloat inc = vf_mul(dt, vf_mul(half, vf_add(vf_loadu(f + full - 1), vf_load(f + full))));
        vf_storen(out + full, vf_add(vf_loadn(old + full, n - full), inc), n - full);
    }
}

/* one face: old + dt * 0.5 (fl + fh), on n lanes */
KERNEL void face(const float *old, float *out, vfloat fl, vfloat fh, vfloat dt, int n) {
    vfloat inc = vf_mul(dt, vf_mul(vf_set1(0.5f), vf_add(fl, fh)));
    if (n == VF_W) vf_storeu(out, vf_add(vf_loadu(old), inc));
    else vf_storen(out, vf_add(vf_loadn(old, n), inc), n);
}

/* a vector of n lanes from a simulation array (n == VF_W: a whole vector) */
KERNEL vfloat load_n(const float *p, int n) { return n == VF_W ? vf_loadu(p) : vf_loadn(p, n); }

/* ---------------------------------------------------------------- 2D: slabs are rows of n0 cells */

typedef struct rings2 {
    float *uc0, *uc1, *wz, *mag, *fy, *fx, *xq;
    size_t slot;
} rings2;
static inline float *row2(const rings2 *r, float *ring, int key, int ring_len) {
    return ring + (size_t)slot_of(key, ring_len) * r->slot;
}

/* (A) cell velocities of row j: uc0 = 0.5 (u[i] + u[i + 1]), uc1 = 0.5 (v[j] + v[j + 1]) */
KERNEL void uc_lanes2(const float *u, const float *v0, const float *v1, float *c0, float *c1, int n) {
    const vfloat half = vf_set1(0.5f);
    vf_store(c0, vf_mul(half, vf_add(load_n(u, n), load_n(u + 1, n))));
    vf_store(c1, vf_mul(half, vf_add(load_n(v0, n), load_n(v1, n))));
}
static void uc_row2(const eddy_sim *s, const sweep *w, const rings2 *r, axis ya, int key) {
    const int n0 = w->n0, j = key_phys(ya, key), full = n0 - n0 % VF_W;
    const float *u = s->vel[0] + (size_t)j * (n0 + 1), *v0 = s->vel[1] + (size_t)j * n0, *v1 = v0 + n0;
    float *c0 = row2(r, r->uc0, key, 3), *c1 = row2(r, r->uc1, key, 2);
    for (int i = 0; i < full; i += VF_W) uc_lanes2(u + i, v0 + i, v1 + i, c0 + i, c1 + i, VF_W);
    if (full < n0) uc_lanes2(u + full, v0 + full, v1 + full, c0 + full, c1 + full, n0 - full);
    set_halo(c1, n0, w->px);
}

/* (B) wz = d uc1/dx - d uc0/dy, |w| = sqrt(wz * wz) (= the 3D formula with wx = wy = +0) */
KERNEL void curl_row2(const sweep *w, const rings2 *r, axis ya, int key, bool mul) {
    const int n0 = w->n0;
    const float *c1 = row2(r, r->uc1, key, 2), *c0m = row2(r, r->uc0, key_nb(ya, key, -1), 3),
                *c0p = row2(r, r->uc0, key_nb(ya, key, 1), 3), *xq = r->xq;
    float *wz = row2(r, r->wz, key, 2), *mag = row2(r, r->mag, key, 3);
    const vfloat dy = vf_set1(spacing(w, key_span(ya, key), mul));
    for (int i = 0; i < n0; i += VF_W) {
        vfloat z = vf_sub(quot(vf_sub(vf_loadu(c1 + i + 1), vf_loadu(c1 + i - 1)), vf_load(xq + i), mul),
                          quot(vf_sub(vf_load(c0p + i), vf_load(c0m + i)), dy, mul));
        vf_store(wz + i, z);
        vf_store(mag + i, vf_sqrt(vf_mul(z, z)));
    }
    set_halo(mag, n0, w->px);
}

/* (C) N = grad|w| / |grad|w||, f = eps h (N x w) with nz = +0, w = (+0, +0, wz) in the 3D formula's order, zero in
 * solid cells and where the gradient vanishes; then the faces of row j if `faces`. */
KERNEL void force_lanes2(const float *mag, const float *mm, const float *mp, const float *wz, const float *xq,
                         const uint8_t *solid, float *fx, float *fy, const float *fy_below, const float *v_old,
                         float *v_new, vfloat dy, vfloat scale, vfloat dt, bool faces, int n, bool mul) {
    vfloat gx = quot(vf_sub(vf_loadu(mag + 1), vf_loadu(mag - 1)), vf_load(xq), mul);
    vfloat gy = quot(vf_sub(vf_load(mp), vf_load(mm)), dy, mul);
    vfloat len = vf_sqrt(vf_add(vf_mul(gx, gx), vf_mul(gy, gy)));
    vmask keep = vf_keep_mask(len, vf_set1(1e-20f), solid, n);
    vfloat nx = vf_div(gx, len), ny = vf_div(gy, len), z = vf_load(wz);
    vfloat fxv = vf_keep(vf_mul(scale, vf_mul(ny, z)), keep);
    vfloat fyv = vf_keep(vf_mul(scale, vf_sub(vf_set1(0.0f), vf_mul(nx, z))), keep);
    vf_store(fx, fxv);
    vf_store(fy, fyv);
    if (faces) face(v_old, v_new, vf_load(fy_below), fyv, dt, n); /* fy_below may be fy itself (a wall): stored above */
}
KERNEL void force_row2(eddy_sim *s, const sweep *w, const rings2 *r, axis ya, int key, bool faces, bool mul) {
    const int n0 = w->n0, j = key_phys(ya, key), full = n0 - n0 % VF_W;
    const float *mag = row2(r, r->mag, key, 3), *mm = row2(r, r->mag, key_nb(ya, key, -1), 3),
                *mp = row2(r, r->mag, key_nb(ya, key, 1), 3), *wz = row2(r, r->wz, key, 2), *xq = r->xq;
    const float *fy_below = row2(r, r->fy, key_nb(ya, key, -1), 2);
    const uint8_t *solid = s->solid + (size_t)j * n0;
    float *fx = r->fx, *fy = row2(r, r->fy, key, 2);
    const float *v_old = s->vel[1] + (size_t)j * n0;
    float *v_new = s->vel_tmp[1] + (size_t)j * n0;
    const vfloat dy = vf_set1(spacing(w, key_span(ya, key), mul)), scale = vf_set1(w->scale), dt = vf_set1(w->dt);
#define FORCE_LANES2(i, faces, n)                                                                                  \
    force_lanes2(mag + (i), mm + (i), mp + (i), wz + (i), xq + (i), solid + (i), fx + (i), fy + (i), fy_below + (i), \
                 v_old + (i), v_new + (i), dy, scale, dt, faces, n, mul)
    if (!faces) { /* a row of halo: only its fy is needed */
        for (int i = 0; i < full; i += VF_W) FORCE_LANES2(i, false, VF_W);
        if (full < n0) FORCE_LANES2(full, false, n0 - full);
        return;
    }
    for (int i = 0; i < full; i += VF_W) FORCE_LANES2(i, true, VF_W);
    if (full < n0) FORCE_LANES2(full, true, n0 - full);
#undef FORCE_LANES2
    set_halo(fx, n0, w->px);
    x_faces(s->vel[0] + (size_t)j * (n0 + 1), s->vel_tmp[0] + (size_t)j * (n0 + 1), fx, n0, dt);
}

/* the top row of y-faces, between rows ns - 1 and ns (a wall: ns - 1 again; periodic: row 0) */
static void top_row2(eddy_sim *s, const sweep *w, const rings2 *r, axis ya) {
    const int n0 = w->n0, ns = ya.n, full = n0 - n0 % VF_W;
    const float *fl = row2(r, r->fy, key_nb(ya, ns - 1, 0), 2), *fh = row2(r, r->fy, key_nb(ya, ns - 1, 1), 2);
    const float *old = s->vel[1] + (size_t)ns * n0;
    float *out = s->vel_tmp[1] + (size_t)ns * n0;
    const vfloat dt = vf_set1(w->dt);
    for (int i = 0; i < full; i += VF_W) face(old + i, out + i, vf_load(fl + i), vf_load(fh + i), dt, VF_W);
    if (full < n0) face(old + full, out + full, vf_load(fl + full), vf_load(fh + full), dt, n0 - full);
}

static rings2 rings2_of(const sweep *w, float *scratch) {
    rings2 r;
    float *p = scratch;
    r.slot = w->slot;
    float **ring[7] = {&r.uc0, &r.uc1, &r.wz, &r.mag, &r.fy, &r.fx, &r.xq};
    const int len[7] = {3, 2, 2, 3, 2, 1, 1};
    for (int k = 0; k < 7; k++) {
        *ring[k] = p + PAD;
        p += (size_t)len[k] * r.slot;
    }
    return r;
}

KERNEL void sweep2(eddy_sim *s, const sweep *w, float *scratch, int r0, int r1, bool mul) {
    const rings2 r = rings2_of(w, scratch);
    const axis ya = {w->ns, w->ps};
    const window v = window_of(ya, r0, r1);
    fill_x_spacing(w, r.xq, mul);
    for (int L = v.umin; L <= v.fmax + 2; L++) {
        if (L <= v.umax) uc_row2(s, w, &r, ya, L);
        if (L - 1 >= v.cmin && L - 1 <= v.cmax) curl_row2(w, &r, ya, L - 1, mul);
        if (L - 2 >= v.fmin && L - 2 <= v.fmax) force_row2(s, w, &r, ya, L - 2, L - 2 >= r0 && L - 2 < r1, mul);
    }
    if (v.last) top_row2(s, w, &r, ya);
}

/* ---------------------------------------------------------------- 3D: slabs are bands of rows of a plane */

typedef struct rings3 {
    float *uc0, *uc1, *uc2, *om0, *om1, *om2, *mag, *fz, *fy, *fx, *xq;
    size_t slot, stride;
    int row0; /* key of the first row a slot holds */
} rings3;
static inline float *row3(const rings3 *r, float *ring, int plane, int ring_len, int row) {
    return ring + (size_t)slot_of(plane, ring_len) * r->slot + (size_t)(row - r->row0) * r->stride;
}

/* (A) cell velocities of a band of plane `plane` */
KERNEL void uc_lanes3(const float *u, const float *v0, const float *v1, const float *w0, const float *w1, float *c0,
                      float *c1, float *c2, int n) {
    const vfloat half = vf_set1(0.5f);
    vf_store(c0, vf_mul(half, vf_add(load_n(u, n), load_n(u + 1, n))));
    vf_store(c1, vf_mul(half, vf_add(load_n(v0, n), load_n(v1, n))));
    vf_store(c2, vf_mul(half, vf_add(load_n(w0, n), load_n(w1, n))));
}
static void uc_plane3(const eddy_sim *s, const sweep *w, const rings3 *r, axis ya, axis za, int plane, const window *rows) {
    const int n0 = w->n0, n1 = w->n1, k = key_phys(za, plane), full = n0 - n0 % VF_W;
    const size_t P = (size_t)n0 * n1;
    for (int key = rows->umin; key <= rows->umax; key++) {
        const int j = key_phys(ya, key);
        const float *u = s->vel[0] + ((size_t)k * n1 + j) * (n0 + 1);
        const float *v0 = s->vel[1] + ((size_t)k * (n1 + 1) + j) * n0, *v1 = v0 + n0;
        const float *w0 = s->vel[2] + (size_t)k * P + (size_t)j * n0, *w1 = w0 + P;
        float *c0 = row3(r, r->uc0, plane, 3, key), *c1 = row3(r, r->uc1, plane, 3, key), *c2 = row3(r, r->uc2, plane, 2, key);
        for (int i = 0; i < full; i += VF_W) uc_lanes3(u + i, v0 + i, v1 + i, w0 + i, w1 + i, c0 + i, c1 + i, c2 + i, VF_W);
        if (full < n0)
            uc_lanes3(u + full, v0 + full, v1 + full, w0 + full, w1 + full, c0 + full, c1 + full, c2 + full, n0 - full);
        set_halo(c1, n0, w->px);
        set_halo(c2, n0, w->px);
    }
}

/* (B) curl and |curl| of a band of plane `plane`, in vorticity.c's order of operations */
static __attribute__((noinline)) void curl_plane3(const sweep *w, const rings3 *r, axis ya, axis za, int plane, const window *rows, bool mul) {
    const int n0 = w->n0, zm = key_nb(za, plane, -1), zp = key_nb(za, plane, 1);
    const vfloat dz = vf_set1(spacing(w, key_span(za, plane), mul));
    const float *xq = r->xq;
    for (int key = rows->cmin; key <= rows->cmax; key++) {
        const int ym = key_nb(ya, key, -1), yp = key_nb(ya, key, 1);
        const vfloat dy = vf_set1(spacing(w, key_span(ya, key), mul));
        const float *c1 = row3(r, r->uc1, plane, 3, key), *c2 = row3(r, r->uc2, plane, 2, key);
        const float *c2m = row3(r, r->uc2, plane, 2, ym), *c2p = row3(r, r->uc2, plane, 2, yp);
        const float *c0ym = row3(r, r->uc0, plane, 3, ym), *c0yp = row3(r, r->uc0, plane, 3, yp);
        const float *c1zm = row3(r, r->uc1, zm, 3, key), *c1zp = row3(r, r->uc1, zp, 3, key);
        const float *c0zm = row3(r, r->uc0, zm, 3, key), *c0zp = row3(r, r->uc0, zp, 3, key);
        float *ox = row3(r, r->om0, plane, 2, key), *oy = row3(r, r->om1, plane, 2, key), *oz = row3(r, r->om2, plane, 2, key),
              *mag = row3(r, r->mag, plane, 3, key);
        for (int i = 0; i < n0; i += VF_W) {
            const vfloat q = vf_load(xq + i);
            vfloat ax = quot(vf_sub(vf_loadu(c2 + i + 1), vf_loadu(c2 + i - 1)), q, mul); /* d uc2 / dx */
            vfloat bx = quot(vf_sub(vf_loadu(c1 + i + 1), vf_loadu(c1 + i - 1)), q, mul); /* d uc1 / dx */
            vfloat wx = vf_sub(quot(vf_sub(vf_load(c2p + i), vf_load(c2m + i)), dy, mul),
                               quot(vf_sub(vf_load(c1zp + i), vf_load(c1zm + i)), dz, mul));
            vfloat wy = vf_sub(quot(vf_sub(vf_load(c0zp + i), vf_load(c0zm + i)), dz, mul), ax);
            vfloat wz = vf_sub(bx, quot(vf_sub(vf_load(c0yp + i), vf_load(c0ym + i)), dy, mul));
            vf_store(ox + i, wx);
            vf_store(oy + i, wy);
            vf_store(oz + i, wz);
            vf_store(mag + i, vf_sqrt(vf_add(vf_add(vf_mul(wx, wx), vf_mul(wy, wy)), vf_mul(wz, wz))));
        }
        set_halo(mag, n0, w->px);
    }
}

/* (C) the force of one vector of cells and, if `faces`, their y- and z-faces */
typedef struct force_row3 {
    const float *mag, *mym, *myp, *mzm, *mzp, *ox, *oy, *oz, *xq, *fy_below, *fz_below, *v_old, *w_old;
    const uint8_t *solid;
    float *fx, *fy, *fz, *v_new, *w_new;
} force_row3;
KERNEL void force_lanes3(const force_row3 *p, int i, vfloat dy, vfloat dz, vfloat scale, vfloat dt, bool faces, int n,
                         bool mul) {
    vfloat gx = quot(vf_sub(vf_loadu(p->mag + i + 1), vf_loadu(p->mag + i - 1)), vf_load(p->xq + i), mul);
    vfloat gy = quot(vf_sub(vf_load(p->myp + i), vf_load(p->mym + i)), dy, mul);
    vfloat gz = quot(vf_sub(vf_load(p->mzp + i), vf_load(p->mzm + i)), dz, mul);
    vfloat len = vf_sqrt(vf_add(vf_add(vf_mul(gx, gx), vf_mul(gy, gy)), vf_mul(gz, gz)));
    vmask keep = vf_keep_mask(len, vf_set1(1e-20f), p->solid + i, n);
    vfloat nx = vf_div(gx, len), ny = vf_div(gy, len), nz = vf_div(gz, len);
    vfloat ox = vf_load(p->ox + i), oy = vf_load(p->oy + i), oz = vf_load(p->oz + i);
    vfloat fx = vf_keep(vf_mul(scale, vf_sub(vf_mul(ny, oz), vf_mul(nz, oy))), keep);
    vfloat fy = vf_keep(vf_mul(scale, vf_sub(vf_mul(nz, ox), vf_mul(nx, oz))), keep);
    vfloat fz = vf_keep(vf_mul(scale, vf_sub(vf_mul(nx, oy), vf_mul(ny, ox))), keep);
    vf_store(p->fx + i, fx);
    vf_store(p->fy + i, fy);
    vf_store(p->fz + i, fz);
    if (faces) { /* the rows below may be these very rows (a wall): stored above */
        face(p->v_old + i, p->v_new + i, vf_load(p->fy_below + i), fy, dt, n);
        face(p->w_old + i, p->w_new + i, vf_load(p->fz_below + i), fz, dt, n);
    }
}

/* (C) of a band of plane `plane`; faces of the rows [j0, j1) if `faces` */
static __attribute__((noinline)) void force_plane3(eddy_sim *s, const sweep *w, const rings3 *r, axis ya, axis za, int plane, const window *rows,
                         int j0, int j1, bool faces, bool mul) {
    const int n0 = w->n0, n1 = w->n1, k = key_phys(za, plane), zm = key_nb(za, plane, -1), zp = key_nb(za, plane, 1),
              full = n0 - n0 % VF_W;
    const size_t P = (size_t)n0 * n1;
    const vfloat dz = vf_set1(spacing(w, key_span(za, plane), mul)), scale = vf_set1(w->scale), dt = vf_set1(w->dt);
    for (int key = rows->fmin; key <= rows->fmax; key++) {
        const int j = key_phys(ya, key), ym = key_nb(ya, key, -1), yp = key_nb(ya, key, 1);
        const bool row_faces = faces && key >= j0 && key < j1;
        const vfloat dy = vf_set1(spacing(w, key_span(ya, key), mul));
        force_row3 p;
        p.mag = row3(r, r->mag, plane, 3, key);
        p.mym = row3(r, r->mag, plane, 3, ym);
        p.myp = row3(r, r->mag, plane, 3, yp);
        p.mzm = row3(r, r->mag, zm, 3, key);
        p.mzp = row3(r, r->mag, zp, 3, key);
        p.ox = row3(r, r->om0, plane, 2, key);
        p.oy = row3(r, r->om1, plane, 2, key);
        p.oz = row3(r, r->om2, plane, 2, key);
        p.xq = r->xq;
        p.fx = r->fx;
        p.fy = r->fy + (size_t)slot_of(key, 2) * r->stride;
        p.fy_below = r->fy + (size_t)slot_of(ym, 2) * r->stride;
        p.fz = row3(r, r->fz, plane, 2, key);
        p.fz_below = row3(r, r->fz, zm, 2, key);
        p.solid = s->solid + ((size_t)k * n1 + j) * n0;
        p.v_old = s->vel[1] + ((size_t)k * (n1 + 1) + j) * n0;
        p.v_new = s->vel_tmp[1] + ((size_t)k * (n1 + 1) + j) * n0;
        p.w_old = s->vel[2] + (size_t)k * P + (size_t)j * n0;
        p.w_new = s->vel_tmp[2] + (size_t)k * P + (size_t)j * n0;
        if (row_faces) {
            for (int i = 0; i < full; i += VF_W) force_lanes3(&p, i, dy, dz, scale, dt, true, VF_W, mul);
            if (full < n0) force_lanes3(&p, full, dy, dz, scale, dt, true, n0 - full, mul);
            set_halo(r->fx, n0, w->px);
            const size_t q = ((size_t)k * n1 + j) * (n0 + 1);
            x_faces(s->vel[0] + q, s->vel_tmp[0] + q, r->fx, n0, dt);
        } else {
            for (int i = 0; i < full; i += VF_W) force_lanes3(&p, i, dy, dz, scale, dt, false, VF_W, mul);
            if (full < n0) force_lanes3(&p, full, dy, dz, scale, dt, false, n0 - full, mul);
        }
    }
    if (faces && rows->last) { /* the top row of y-faces of this plane (a wall: row n1 - 1 again; periodic: row 0) */
        const float *fl = r->fy + (size_t)slot_of(key_nb(ya, n1 - 1, 0), 2) * r->stride,
                    *fh = r->fy + (size_t)slot_of(key_nb(ya, n1 - 1, 1), 2) * r->stride;
        const size_t q = ((size_t)k * (n1 + 1) + n1) * n0;
        for (int i = 0; i < full; i += VF_W)
            face(s->vel[1] + q + i, s->vel_tmp[1] + q + i, vf_load(fl + i), vf_load(fh + i), dt, VF_W);
        if (full < n0)
            face(s->vel[1] + q + full, s->vel_tmp[1] + q + full, vf_load(fl + full), vf_load(fh + full), dt, n0 - full);
    }
}

/* the top plane of z-faces of the rows [j0, j1), between planes ns - 1 and ns (a wall: ns - 1 again; periodic: 0) */
static void top_plane3(eddy_sim *s, const sweep *w, const rings3 *r, axis za, int j0, int j1) {
    const int n0 = w->n0, n1 = w->n1, ns = za.n, full = n0 - n0 % VF_W;
    const vfloat dt = vf_set1(w->dt);
    for (int j = j0; j < j1; j++) {
        const float *fl = row3(r, r->fz, key_nb(za, ns - 1, 0), 2, j), *fh = row3(r, r->fz, key_nb(za, ns - 1, 1), 2, j);
        const size_t q = ((size_t)ns * n1 + j) * n0;
        for (int i = 0; i < full; i += VF_W) face(s->vel[2] + q + i, s->vel_tmp[2] + q + i, vf_load(fl + i), vf_load(fh + i), dt, VF_W);
        if (full < n0)
            face(s->vel[2] + q + full, s->vel_tmp[2] + q + full, vf_load(fl + full), vf_load(fh + full), dt, n0 - full);
    }
}

static rings3 rings3_of(const sweep *w, float *scratch) {
    rings3 r;
    float *p = scratch;
    r.slot = w->slot;
    r.stride = w->stride;
    float **ring[8] = {&r.uc0, &r.uc1, &r.uc2, &r.om0, &r.om1, &r.om2, &r.mag, &r.fz};
    const int len[8] = {3, 3, 2, 2, 2, 2, 3, 2};
    for (int k = 0; k < 8; k++) {
        *ring[k] = p + PAD;
        p += (size_t)len[k] * r.slot;
    }
    float **row[3] = {&r.fy, &r.fx, &r.xq};
    const int rows[3] = {2, 1, 1};
    for (int k = 0; k < 3; k++) {
        *row[k] = p + PAD;
        p += (size_t)rows[k] * r.stride;
    }
    r.row0 = 0;
    return r;
}

KERNEL void sweep3(eddy_sim *s, const sweep *w, float *scratch, int r0, int r1, bool mul) {
    rings3 r = rings3_of(w, scratch);
    const axis ya = {w->n1, w->py}, za = {w->ns, w->ps};
    const window v = window_of(za, r0, r1);
    fill_x_spacing(w, r.xq, mul);
    for (int b = 0; b < w->bands; b++) {
        const int j0 = (int)((long long)w->n1 * b / w->bands), j1 = (int)((long long)w->n1 * (b + 1) / w->bands);
        const window rows = window_of(ya, j0, j1);
        r.row0 = rows.umin;
        for (int L = v.umin; L <= v.fmax + 2; L++) {
            if (L <= v.umax) uc_plane3(s, w, &r, ya, za, L, &rows);
            if (L - 1 >= v.cmin && L - 1 <= v.cmax) curl_plane3(w, &r, ya, za, L - 1, &rows, mul);
            if (L - 2 >= v.fmin && L - 2 <= v.fmax) force_plane3(s, w, &r, ya, za, L - 2, &rows, j0, j1, L - 2 >= r0 && L - 2 < r1, mul);
        }
        if (v.last) top_plane3(s, w, &r, za, j0, j1);
    }
}

/* the exported instances: per dimension, with and without the exact reciprocal of the spacing */
#define VORT_SWEEP_INSTANCE(name, kernel, mul)                                                  \
    void EDDY_ISA_NAME(name)(eddy_sim *s, const sweep *w, float *scratch, int r0, int r1) {     \
        kernel(s, w, scratch, r0, r1, mul);                                                     \
        EDDY_ISA_LEAVE();                                                                       \
    }
VORT_SWEEP_INSTANCE(eddy__vort_sweep2_mul, sweep2, true)
VORT_SWEEP_INSTANCE(eddy__vort_sweep2_div, sweep2, false)
VORT_SWEEP_INSTANCE(eddy__vort_sweep3_mul, sweep3, true)
VORT_SWEEP_INSTANCE(eddy__vort_sweep3_div, sweep3, false)
