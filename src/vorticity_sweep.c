/* Vorticity confinement's sweep along the outermost axis (see vorticity.c for the method and the order of
 * operations), written once over the vector of float_vector.h and built once per width: this file as the baseline,
 * src/avx2/ and src/avx512/ again (vector_isa.h). Every width performs the same float operations in the same order.
 *
 * Per slab, passes that each loop over the slab's rows with a vector of cells in registers from their inputs to
 * their outputs: (A) cell velocities, (B) curl and |curl|, (C) the force, then in a loop of its own the new faces.
 * The slabs the passes hand on live in small rings: rows with one halo cell on each side (the neighbour a wall
 * clamps to or a periodic axis wraps to); an x difference takes the vectors before and after its own from aligned
 * loads, shifted one lane in registers, with the factor of each column (2 for a one-sided difference at a wall)
 * in a row of its own. In 3D the planes are cut into bands of rows small enough for the rings of a band to
 * stay in the L2 cache; each band recomputes the few rows of halo its stencils need. There A runs row by row just
 * ahead of B into rings of three rows (in L1), and B takes the cell velocities of the planes above and below
 * straight from their faces (a ring of cell-velocity planes cost more L2 traffic than the adds it saved); the
 * velocity B meets first on the next plane is prefetched while C waits on its division, and C computes the
 * gradient of its next vector before the division of this one. Grids larger than the caches get their new y- and
 * z-faces with non-temporal stores; where n0 is not whole vectors, so that those rows start inside a cache line,
 * a line at a time (AVX-512: face_lines): 4-10% faster with 2 threads than unaligned plain stores at 120^3,
 * 124^3 and 132^3 (1 pinned thread: n0 = 120 and 136 -2 to -9%, 124 and 132 -8 to +6%); the same for the x-faces
 * was 5-8% slower past the caches and 3-10% slower with plain stores, and was not kept. Measured on Zen 5 and kept
 * out: passes interleaved row by row or fused into one loop (slower: more live pointers than registers, longer
 * dependency chains), B and C interleaved row by row, the faces written in C's loop, non-temporal x-faces,
 * prefetching elsewhere (further ahead, into L2, C's ring rows, the new x-faces), rows without padding, making uc2
 * in pass B. What bounds it (Zen 5, 1 thread, ~1.28 ns/cell in
 * cache, ~1.45 at 128^3): traffic between L1 and L2 more than arithmetic. Each pass run twice costs only 0.1-0.3
 * ns/cell more (A 0.10, B 0.27, C 0.24, faces 0.09 in cache), and B writing its three curl components to one row
 * of their slots, C reading them back from there (wrong values, a probe) takes 128^3 from 1.45 to 1.29 ns/cell:
 * each curl row is read for allocation, written back and read again a band-plane later. Interleaving B on plane L
 * and C on L - 1 row by row measured again: 4% faster in cache, 10% slower at 128^3 (with or without streaming).
 * Cutting that traffic needs another order, not a retuning; but not a wavefront over blocks of planes (rows outer,
 * the planes of a block inner, A-B-C per plane and row, whole-plane rings carrying the last two planes of a block to
 * the next, so no halo): bit-identical and measured 2x slower at 128^3 and 1.4x in cache, with blocks of 2 to 16
 * planes: a plane's step touches ~15 KB (its rings and faces), so nothing a block's planes share, the cell
 * velocities included, stays in a 48 KB L1 between steps, and the rows of 20-50 streams defeat the prefetchers.
 * Kept, a few percent at 128^3: the curl's components in one ring, a vector of each in turn (one stream instead of
 * three), and the z-forces of two planes in one slot (C writes over lines it has just read: no read for
 * allocation). Orders that put planes side by side are slower on grids larger than the caches: B on two planes
 * then C on two, row by row, +25% at 128^3; C two planes behind B, a row ahead of it, so that B writes its curl
 * over what C has just read, +28% at 120^3, 128^3 and 136^3 alike (not cache sets of planes 64 KiB apart), +50%
 * without C's prefetch (in cache +6% and +0%): B's first reads of a plane come from memory, and a pass of its own
 * streams them better than rows interleaved with C's.
 * Measured again (Zen 5, 128^3, each variant against a copy measured just before it, alternating in one run): kept,
 * u[i] and u[i + 1] of the x-face rows (n0 + 1 floats: their loads crossed cache lines) from the aligned vectors
 * around them, two lane permutes (vf_pairs) in A and B: in cache -2 to -3%, 128^3 0 to -3%. Per pass (1 thread,
 * cycles of the 2.1 GHz TSC per cell): 128^3 AB 1.20, C 1.60; in cache 1.03, 1.26. Probes (wrong values, same input
 * each call): C's three divisions as multiplies, 0%, so the divider does not bound it; without C's face loop -20%
 * in cache, -28% at 128^3; the new faces stored to one L1 row instead, -14% at 128^3 (the x-faces alone, their read
 * for allocation, -5%); the old faces read from L1, -3%; B's z neighbours from the plane's own faces, -6 to -8%; B's
 * curl to one row, -4 to -5%. Kept out: the x-faces written past the caches as whole lines (from a staging row, or
 * permuted from the row's vectors with plain stores for the lines shared with the rows around), -2 to -3% on 1
 * thread, 0% on 2; v- and w-faces in C's force loop, +2 to +4%; B and C row by row, +10% (two rows apart, +23%); the
 * curl recomputed in C instead of its ring (B writes |curl| only; then one band of rows), +27% in cache; prefetching
 * A's or B's rows a row ahead, the old faces from C's force loop, the next plane's solid mask or new x-faces, the
 * band's halo rows of the next step (which C's rows do not ask for), or the next step's velocity from AB instead of
 * C (into L1 or L2), 0 to +20% (C's three prefetches are each needed: without w's +22%, without u's and v's +25%,
 * without any +30%); ring budgets of 256 KiB the same, 128-192 and 512-640 KiB slower; 2 MiB pages (madvise) or
 * the arrays' starts spread over 4 KiB, about 1%; the AVX2 build 2.4x slower in cache; the AVX-512 sweep built by
 * clang 14 (-O3, contraction off) instead of gcc 12, 1.34 against 1.26 ns per cell in cache (1 thread, 128x8x16).
 * Two threads splitting the bands (rows) instead of the planes, each sweeping every plane of its bands (no halo
 * planes; bands rounded up to a multiple of the threads), the same bits: 0.5-6% slower at 128^3 with ring budgets of
 * 256-768 KiB (1.55-1.64 against 1.46-1.59 ms, alternating in one run). */
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

/* The sweep's units (vorticity.c): cell velocities doubled, differences not divided by their spacing, a one-sided
 * difference at a wall counted twice (its factor q is 2, a central difference's 1). A difference times its factor:
 * where a kernel instance knows q is 1 (`unit`: a row and plane away from the walls along y and z), the multiply
 * (exact, so the same bits either way) is left out. */
KERNEL vfloat spaced(vfloat d, vfloat q, bool unit) { return unit ? d : vf_mul(d, q); }
/* D_x of the vector `cur` of a row, from the vectors before and after it (lanes shifted in registers) and the
 * columns' factors q */
KERNEL vfloat x_diff(vfloat prev, vfloat cur, vfloat next, vfloat q) {
    return vf_mul(vf_sub(vf_shift_out(cur, next), vf_shift_in(prev, cur)), q);
}
static inline float factor_of(int span) { return span == 1 ? 2.0f : 1.0f; }

/* Whole vectors: the passes that fill the rings (A, B and C's forces) run whole vectors to the end of a row, past
 * its last cell where n0 is not whole vectors. The lanes past it read the next row's values (or the room past a
 * field's end, sim.c) and land in the ring rows' room past the row (vorticity.c's stride), where set_halo then
 * writes the halo cell and no other lane is read; only the new faces are stored lane by lane. A partial last vector
 * by masked loads cost 5-7% in cache and 10-15% at 120^3, 124^3 and 132^3 (Zen 5, 1 thread). */

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

/* the x factor of each column: 2 one-sided (span 1) at a wall, 1 central (span 2) elsewhere and past the end */
static void fill_x_factor(const sweep *w, float *q) {
    const int n0 = w->n0, len = (int)w->stride - PAD;
    for (int i = 0; i < len; i++) q[i] = factor_of(i < n0 ? key_span((axis){n0, w->px}, i) : 2);
}

/* the halo cells of a row: the neighbours of cells 0 and n0 - 1 as a wall clamps them or a periodic axis wraps */
static inline void set_halo(float *row, int n0, bool periodic) {
    row[-1] = periodic ? row[n0 - 1] : row[0];
    row[n0] = periodic ? row[0] : row[n0 - 1];
}

/* one face from the forces of the cells on either side (each dt/2 of the face's change): old + (fl + fh), n lanes */
KERNEL void face(const float *old, float *out, vfloat fl, vfloat fh, int n) {
    if (n == VF_W) vf_storeu(out, vf_add(vf_loadu(old), vf_add(fl, fh)));
    else vf_storen(out, vf_add(vf_loadn(old, n), vf_add(fl, fh)), n);
}

/* face() over a row of n0 faces: whole vectors, then the partial one */
KERNEL void face_row(const float *old, float *out, const float *fl, const float *fh, int n0) {
    const int full = n0 - n0 % VF_W;
    for (int i = 0; i < full; i += VF_W) face(old + i, out + i, vf_load(fl + i), vf_load(fh + i), VF_W);
    if (full < n0) face(old + full, out + full, vf_load(fl + full), vf_load(fh + full), n0 - full);
}

/* the same, stored with a non-temporal store (out aligned, n == VF_W) if `stream`: past the caches, without reading
 * the line first, for output that will not be read again before it would have left them */
KERNEL void face_to(const float *old, float *out, vfloat fl, vfloat fh, int n, bool stream) {
    if (stream) vf_stream(out, vf_add(vf_loadu(old), vf_add(fl, fh)));
    else face(old, out, fl, fh, n);
}

#ifdef VF_HAVE_REALIGN
/* face() over a row of n faces that starts anywhere in a cache line (old at the same offset in its line), a line of
 * out at a time (face_lines_of, then face_line for t = 0, VF_W, ... while t - lead < n): old from aligned loads, the
 * forces' sum from the aligned vectors of their scratch rows (which have a vector of room before element 0 and after
 * the row), realigned; whole lines past the caches, the first and last (shared with the rows around) by masked
 * stores. The same float operations as face(). */
KERNEL void line_of_faces(const float *old_line, float *line, int t, int lead, int n, vfloat sum) {
    const vfloat v = vf_add(vf_load(old_line + t), sum);
    const int e0 = t - lead;
    if (e0 >= 0 && e0 + VF_W <= n) vf_stream(line + t, v);
    else vf_store_lanes(line + t, v, e0 < 0 ? -e0 : 0, n - e0 < VF_W ? n - e0 : VF_W);
}
/* a row of faces written by lines: where its lines begin (lead), the realigner, the forces' sum of the vector before */
typedef struct face_lines {
    const float *old, *fl, *fh;
    float *out;
    int lead;
    vf_realigner ra;
    vfloat prev;
} face_lines;
KERNEL face_lines face_lines_of(const float *old, float *out, const float *fl, const float *fh) {
    face_lines r;
    r.lead = (int)((uintptr_t)out % 64 / sizeof(float));
    r.old = old - r.lead, r.out = out - r.lead, r.fl = fl, r.fh = fh;
    r.ra = vf_realigner_of(r.lead);
    r.prev = vf_add(vf_load(fl - VF_W), vf_load(fh - VF_W));
    return r;
}
/* the line whose lane 0 is element t - lead of a row of n faces (t = 0, VF_W, ... in turn, while t - lead < n) */
KERNEL void face_line(face_lines *r, int t, int n) {
    const vfloat cur = vf_add(vf_load(r->fl + t), vf_load(r->fh + t));
    line_of_faces(r->old, r->out, t, r->lead, n, vf_realign(r->prev, cur, r->ra));
    r->prev = cur;
}
/* can face_lines write this row (old and out at the same offset in their cache lines)? */
static inline bool lines_fit(const float *old, const float *out) { return ((uintptr_t)old - (uintptr_t)out) % 64 == 0; }
#endif

/* ---------------------------------------------------------------- 2D: slabs are rows of n0 cells */

typedef struct rings2 {
    float *uc0, *uc1, *wz, *mag, *fy, *fx, *xq;
    size_t slot;
} rings2;
static inline float *row2(const rings2 *r, float *ring, int key, int ring_len) {
    return ring + (size_t)slot_of(key, ring_len) * r->slot;
}

/* (A) twice the cell velocities of row j: uc0 = u[i] + u[i + 1], uc1 = v[j] + v[j + 1] */
KERNEL void uc_lanes2(const float *u, const float *v0, const float *v1, float *c0, float *c1) {
    vf_store(c0, vf_add(vf_loadu(u), vf_loadu(u + 1)));
    vf_store(c1, vf_add(vf_loadu(v0), vf_loadu(v1)));
}
static void uc_row2(const eddy_sim *s, const sweep *w, const rings2 *r, axis ya, int key) {
    const int n0 = w->n0, j = key_phys(ya, key);
    const float *u = s->vel[0] + (size_t)j * (n0 + 1), *v0 = s->vel[1] + (size_t)j * n0, *v1 = v0 + n0;
    float *c0 = row2(r, r->uc0, key, 3), *c1 = row2(r, r->uc1, key, 2);
    for (int i = 0; i < n0; i += VF_W) uc_lanes2(u + i, v0 + i, v1 + i, c0 + i, c1 + i);
    set_halo(c1, n0, w->px);
}

/* (B) wz = D_x uc1 - D_y uc0, |w| = sqrt(wz * wz) (= the 3D formula with wx = wy = +0). The x differences come
 * from aligned loads, shifted: prev, cur, next along the row. */
KERNEL void curl_row2(const sweep *w, const rings2 *r, axis ya, int key, bool unit) {
    const int n0 = w->n0;
    const float *c1 = row2(r, r->uc1, key, 2), *c0m = row2(r, r->uc0, key_nb(ya, key, -1), 3),
                *c0p = row2(r, r->uc0, key_nb(ya, key, 1), 3), *xq = r->xq;
    float *wz = row2(r, r->wz, key, 2), *mag = row2(r, r->mag, key, 3);
    const vfloat dy = vf_set1(factor_of(key_span(ya, key)));
    vfloat prev = vf_load(c1 - VF_W), cur = vf_load(c1);
    for (int i = 0; i < n0; i += VF_W) {
        const vfloat next = vf_load(c1 + i + VF_W);
        vfloat z = vf_sub(x_diff(prev, cur, next, vf_load(xq + i)),
                          spaced(vf_sub(vf_load(c0p + i), vf_load(c0m + i)), dy, unit));
        prev = cur, cur = next;
        vf_store(wz + i, z);
        vf_store(mag + i, vf_sqrt(vf_mul(z, z)));
    }
    set_halo(mag, n0, w->px);
}

/* (C) g = D|w|, n = g (scale / |g|) (+0 in solid cells and where the gradient vanishes), f = n x w with nz = +0,
 * w = (+0, +0, wz) in the 3D formula's order */
KERNEL void force_lanes2(const float *mag, const float *mm, const float *mp, const float *wz, const float *xq,
                         const uint8_t *solid, float *fx, float *fy, int i, vfloat *prev, vfloat *cur, vfloat dy,
                         vfloat scale, bool unit) {
    const vfloat next = vf_load(mag + i + VF_W);
    vfloat gx = x_diff(*prev, *cur, next, vf_load(xq + i));
    *prev = *cur, *cur = next;
    vfloat gy = spaced(vf_sub(vf_load(mp + i), vf_load(mm + i)), dy, unit);
    vfloat len = vf_sqrt(vf_add(vf_mul(gx, gx), vf_mul(gy, gy)));
    vfloat inv = vf_div_keep(scale, len, vf_keep_mask(len, vf_set1(EDDY_VORT_SWEEP_CUT), solid + i, VF_W));
    vfloat nx = vf_mul(gx, inv), ny = vf_mul(gy, inv), z = vf_load(wz + i);
    vf_store(fx + i, vf_mul(ny, z));
    vf_store(fy + i, vf_sub(vf_set1(0.0f), vf_mul(nx, z)));
}
/* the x-faces of one vector of cells of a row but the row's last, from the forces (fx with its halo set) */
KERNEL void x_faces_lanes(const float *u_old, float *u_new, const float *fx, int i, vfloat *fx_prev, int n) {
    const vfloat f = vf_load(fx + i);
    face(u_old + i, u_new + i, vf_shift_in(*fx_prev, f), f, n);
    *fx_prev = f;
}
/* the new faces of one vector of cells of row j: x-faces but the row's last, y-faces between the row below and this
 * one (the row below may be this very row, at a wall) */
KERNEL void faces_lanes2(const float *u_old, float *u_new, const float *v_old, float *v_new, const float *fx,
                         const float *fy_below, const float *fy, int i, vfloat *fx_prev, int n, bool stream) {
    x_faces_lanes(u_old, u_new, fx, i, fx_prev, n);
    face_to(v_old + i, v_new + i, vf_load(fy_below + i), vf_load(fy + i), n, stream);
}
KERNEL void force_row2(eddy_sim *s, const sweep *w, const rings2 *r, axis ya, int key, bool faces, bool unit) {
    const int n0 = w->n0, j = key_phys(ya, key), full = n0 - n0 % VF_W;
    const float *mag = row2(r, r->mag, key, 3), *mm = row2(r, r->mag, key_nb(ya, key, -1), 3),
                *mp = row2(r, r->mag, key_nb(ya, key, 1), 3), *wz = row2(r, r->wz, key, 2), *xq = r->xq;
    const uint8_t *solid = s->solid + (size_t)j * n0;
    float *fx = r->fx, *fy = row2(r, r->fy, key, 2);
    const vfloat dy = vf_set1(factor_of(key_span(ya, key))), scale = vf_set1(w->scale);
    vfloat prev = vf_load(mag - VF_W), cur = vf_load(mag);
    for (int i = 0; i < n0; i += VF_W) force_lanes2(mag, mm, mp, wz, xq, solid, fx, fy, i, &prev, &cur, dy, scale, unit);
    if (!faces) return; /* a row of halo: only its fy is needed */
    const float *fy_below = row2(r, r->fy, key_nb(ya, key, -1), 2), *u_old = s->vel[0] + (size_t)j * (n0 + 1),
                *v_old = s->vel[1] + (size_t)j * n0;
    float *u_new = s->vel_tmp[0] + (size_t)j * (n0 + 1), *v_new = s->vel_tmp[1] + (size_t)j * n0;
    set_halo(fx, n0, w->px);
    vfloat fx_prev = vf_load(fx - VF_W);
    if (w->stream && full == n0 && (uintptr_t)v_new % sizeof(vfloat) == 0)
        for (int i = 0; i < full; i += VF_W) faces_lanes2(u_old, u_new, v_old, v_new, fx, fy_below, fy, i, &fx_prev, VF_W, true);
#ifdef VF_HAVE_REALIGN
    else if (w->stream && lines_fit(v_old, v_new)) { /* the x-faces by vectors of cells, the y-faces by lines */
        face_lines y = face_lines_of(v_old, v_new, fy_below, fy);
        for (int at = 0; at - y.lead < n0; at += VF_W) {
            if (at < full) x_faces_lanes(u_old, u_new, fx, at, &fx_prev, VF_W);
            face_line(&y, at, n0);
        }
        if (full < n0) x_faces_lanes(u_old, u_new, fx, full, &fx_prev, n0 - full);
    }
#endif
    else {
        for (int i = 0; i < full; i += VF_W) faces_lanes2(u_old, u_new, v_old, v_new, fx, fy_below, fy, i, &fx_prev, VF_W, false);
        if (full < n0) faces_lanes2(u_old, u_new, v_old, v_new, fx, fy_below, fy, full, &fx_prev, n0 - full, false);
    }
    u_new[n0] = u_old[n0] + (fx[n0 - 1] + fx[n0]); /* the last x-face */
}

/* the top row of y-faces, between rows ns - 1 and ns (a wall: ns - 1 again; periodic: row 0) */
static void top_row2(eddy_sim *s, const sweep *w, const rings2 *r, axis ya) {
    const int n0 = w->n0, ns = ya.n;
    const float *fl = row2(r, r->fy, key_nb(ya, ns - 1, 0), 2), *fh = row2(r, r->fy, key_nb(ya, ns - 1, 1), 2);
    const float *old = s->vel[1] + (size_t)ns * n0;
    float *out = s->vel_tmp[1] + (size_t)ns * n0;
    face_row(old, out, fl, fh, n0);
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

/* is the y factor of row `key` 1 (a central difference)? */
static inline bool unit_at(axis a, int key) { return key_span(a, key) == 2; }

KERNEL void sweep2(eddy_sim *s, const sweep *w, float *scratch, int r0, int r1) {
    const rings2 r = rings2_of(w, scratch);
    const axis ya = {w->ns, w->ps};
    const window v = window_of(ya, r0, r1);
    fill_x_factor(w, r.xq);
    for (int L = v.umin; L <= v.fmax + 2; L++) {
        if (L <= v.umax) uc_row2(s, w, &r, ya, L);
        const int cb = L - 1, cc = L - 2;
        if (cb >= v.cmin && cb <= v.cmax) {
            if (unit_at(ya, cb)) curl_row2(w, &r, ya, cb, true);
            else curl_row2(w, &r, ya, cb, false);
        }
        if (cc >= v.fmin && cc <= v.fmax) {
            const bool faces = cc >= r0 && cc < r1;
            if (unit_at(ya, cc)) force_row2(s, w, &r, ya, cc, faces, true);
            else force_row2(s, w, &r, ya, cc, faces, false);
        }
    }
    if (v.last) top_row2(s, w, &r, ya);
}

/* ---------------------------------------------------------------- 3D: slabs are bands of rows of a plane */

typedef struct rings3 {
    float *om, *mag; /* slots: the band's rows of a plane (om: the three components, a vector of each in turn) */
    float *fz;       /* one slot: row key of plane key k at (key - row0 - k) mod fz_rows (see fz_row3) */
    float *uc0, *uc1, *uc2, *fy, *fx, *xq; /* rows */
    size_t slot, stride;
    int row0;    /* key of the first row a slot holds */
    int fz_rows; /* rows of a slot */
} rings3;
/* the first row of ring `ring`'s slot for plane key `plane` */
static inline float *slot3(const rings3 *r, float *ring, int plane, int ring_len) {
    return ring + (size_t)slot_of(plane, ring_len) * r->slot;
}
/* the row of a ring of rows for row key `key` */
static inline float *ring_row3(const rings3 *r, float *ring, int key, int ring_len) {
    return ring + (size_t)slot_of(key, ring_len) * r->stride;
}

/* The z-forces of C's row `key` of a plane whose rows begin at `first`: C writes the row of plane L over the row
 * above of plane L - 1, which it has just read (faces between the planes), so that one slot holds both planes and
 * the lines it writes are in L1 rather than read from L2 first. */
static inline float *fz_row3(const rings3 *r, int first, int key) {
    int at = first + (key - r->row0);
    if (at >= r->fz_rows) at -= r->fz_rows;
    return r->fz + (size_t)at * r->stride;
}

/* what the passes of one plane need: physical plane and those of its neighbours below and above, z factor, the
 * slots of the rings at the plane and its neighbours below ([0]) and above ([2]) */
typedef struct plane3 {
    int k, kzm, kzp;
    vfloat dz;   /* the z factor */
    bool unit_z; /* it is 1 */
    float *om, *mag[3];
    int fz[2]; /* where the rows of fz of the plane below ([0]) and of this one begin in their slot */
} plane3;

typedef struct step3 {
    eddy_sim *s;
    const sweep *w;
    const rings3 *r;
    axis ya, za;
    int j0, j1; /* the band's own rows: their faces are written */
} step3;

static plane3 plane_of3(const step3 *t, int plane) {
    const rings3 *r = t->r;
    plane3 q;
    const int zk[3] = {key_nb(t->za, plane, -1), plane, key_nb(t->za, plane, 1)};
    q.k = key_phys(t->za, plane);
    q.kzm = key_phys(t->za, zk[0]);
    q.kzp = key_phys(t->za, zk[2]);
    q.dz = vf_set1(factor_of(key_span(t->za, plane)));
    q.unit_z = unit_at(t->za, plane);
    for (int d = 0; d < 3; d++) q.mag[d] = slot3(r, r->mag, zk[d], 3);
    q.om = r->om + (size_t)slot_of(plane, 2) * 3 * r->slot;
    q.fz[0] = slot_of(-zk[0], r->fz_rows);
    q.fz[1] = slot_of(-plane, r->fz_rows);
    return q;
}

/* a row of a band: its physical index, its neighbours' rows in the ring, the factor of its y differences */
typedef struct row3 {
    int j;
    size_t at, below, above; /* offsets of the row and of its neighbours in a slot */
    vfloat dy;
} row3;
static inline row3 row_of3(const step3 *t, int key) {
    row3 y;
    const size_t S = t->r->stride;
    const int row0 = t->r->row0;
    y.j = key_phys(t->ya, key);
    y.at = (size_t)(key - row0) * S;
    y.below = (size_t)(key_nb(t->ya, key, -1) - row0) * S;
    y.above = (size_t)(key_nb(t->ya, key, 1) - row0) * S;
    y.dy = vf_set1(factor_of(key_span(t->ya, key)));
    return y;
}

/* the face rows of cell row j of plane k: u (n0 + 1 faces), v below and above it (+ n0), w below and above (+ P) */
static inline const float *u_row3(const eddy_sim *s, const sweep *w, int k, int j) {
    return s->vel[0] + ((size_t)k * w->n1 + j) * (w->n0 + 1);
}
static inline const float *v_row3(const eddy_sim *s, const sweep *w, int k, int j) {
    return s->vel[1] + ((size_t)k * (w->n1 + 1) + j) * w->n0;
}
static inline const float *w_row3(const eddy_sim *s, const sweep *w, int k, int j) {
    return s->vel[2] + ((size_t)k * w->n1 + j) * w->n0;
}

/* (A) twice the cell velocities of row `key` of plane q into rings of rows (uc0, uc2: 3 rows, the y
 * neighbours of B's row; uc1: 2): uc0 = u[i] + u[i + 1], uc1 = v[j] + v[j + 1], uc2 = w[k] + w[k + 1] */
KERNEL void lanes_a3(vfloat u, vfloat u1, const float *v0, const float *v1, const float *w0, const float *w1, float *c0,
                     float *c1, float *c2) {
    vf_store(c0, vf_add(u, u1));
    vf_store(c1, vf_add(vf_loadu(v0), vf_loadu(v1)));
    vf_store(c2, vf_add(vf_loadu(w0), vf_loadu(w1)));
}
KERNEL void row_a3(const step3 *t, const plane3 *q, int key) {
    const eddy_sim *s = t->s;
    const sweep *w = t->w;
    const rings3 *r = t->r;
    const int n0 = w->n0, j = key_phys(t->ya, key);
    const size_t P = (size_t)n0 * w->n1;
    const float *u = u_row3(s, w, q->k, j), *v0 = v_row3(s, w, q->k, j), *v1 = v0 + n0, *w0 = w_row3(s, w, q->k, j),
                *w1 = w0 + P;
    float *c0 = ring_row3(r, r->uc0, key, 3), *c1 = ring_row3(r, r->uc1, key, 2), *c2 = ring_row3(r, r->uc2, key, 3);
    vf_pairs ur = vf_pairs_of(u); /* u[i], u[i + 1] without loads across cache lines */
    for (int i = 0; i < n0; i += VF_W) {
        vfloat a, b;
        vf_pairs_next(&ur, i, &a, &b);
        lanes_a3(a, b, v0 + i, v1 + i, w0 + i, w1 + i, c0 + i, c1 + i, c2 + i);
    }
    set_halo(c1, n0, w->px);
    set_halo(c2, n0, w->px);
}

/* (B) curl and |curl| of a vector of cells, in vorticity.c's order of operations. The cell velocities of the row
 * and its y neighbours come from A's rows; the x differences from aligned loads, shifted: prev, cur, next along the
 * row; those of the planes below and above (uc0, uc1) straight from their faces, as A computes them. */
typedef struct row_b3p {
    const float *c1, *c2, *c2m, *c2p, *c0ym, *c0yp, *xq, *uzm, *uzp, *vzm, *vzp;
    float *ox, *oy, *oz, *mag;
    size_t n0;
    vfloat dy, dz, c1_prev, c1_cur, c2_prev, c2_cur;
    vf_pairs um, up; /* uzm, uzp for whole vectors */
} row_b3p;
static inline row_b3p b_row(const step3 *t, const plane3 *q, int key) {
    const rings3 *r = t->r;
    const row3 y = row_of3(t, key);
    const int below = key_nb(t->ya, key, -1), above = key_nb(t->ya, key, 1);
    row_b3p p;
    p.c1 = ring_row3(r, r->uc1, key, 2), p.c2 = ring_row3(r, r->uc2, key, 3);
    p.c2m = ring_row3(r, r->uc2, below, 3), p.c2p = ring_row3(r, r->uc2, above, 3);
    p.c0ym = ring_row3(r, r->uc0, below, 3), p.c0yp = ring_row3(r, r->uc0, above, 3);
    p.uzm = u_row3(t->s, t->w, q->kzm, y.j), p.uzp = u_row3(t->s, t->w, q->kzp, y.j);
    p.vzm = v_row3(t->s, t->w, q->kzm, y.j), p.vzp = v_row3(t->s, t->w, q->kzp, y.j);
    p.xq = r->xq;
    p.ox = q->om + 3 * y.at, p.oy = p.ox + VF_W, p.oz = p.ox + 2 * VF_W, p.mag = q->mag[1] + y.at;
    p.n0 = (size_t)t->w->n0;
    p.dy = y.dy, p.dz = q->dz;
    p.c1_prev = vf_load(p.c1 - VF_W), p.c1_cur = vf_load(p.c1), p.c2_prev = vf_load(p.c2 - VF_W), p.c2_cur = vf_load(p.c2);
    p.um = vf_pairs_of(p.uzm), p.up = vf_pairs_of(p.uzp);
    return p;
}
KERNEL void lanes_b3(row_b3p *p, int i, bool unit) {
    vfloat um0, um1, up0, up1;
    vf_pairs_next(&p->um, i, &um0, &um1);
    vf_pairs_next(&p->up, i, &up0, &up1);
    const vfloat c0zm = vf_add(um0, um1);
    const vfloat c0zp = vf_add(up0, up1);
    const vfloat c1zm = vf_add(vf_loadu(p->vzm + i), vf_loadu(p->vzm + p->n0 + i));
    const vfloat c1zp = vf_add(vf_loadu(p->vzp + i), vf_loadu(p->vzp + p->n0 + i));
    const vfloat qx = vf_load(p->xq + i), c1_next = vf_load(p->c1 + i + VF_W), c2_next = vf_load(p->c2 + i + VF_W);
    vfloat ax = x_diff(p->c2_prev, p->c2_cur, c2_next, qx); /* D_x uc2 */
    vfloat bx = x_diff(p->c1_prev, p->c1_cur, c1_next, qx); /* D_x uc1 */
    p->c1_prev = p->c1_cur, p->c1_cur = c1_next, p->c2_prev = p->c2_cur, p->c2_cur = c2_next;
    vfloat wx = vf_sub(spaced(vf_sub(vf_load(p->c2p + i), vf_load(p->c2m + i)), p->dy, unit),
                       spaced(vf_sub(c1zp, c1zm), p->dz, unit));
    vfloat wy = vf_sub(spaced(vf_sub(c0zp, c0zm), p->dz, unit), ax);
    vfloat wz = vf_sub(bx, spaced(vf_sub(vf_load(p->c0yp + i), vf_load(p->c0ym + i)), p->dy, unit));
    vf_store(p->ox + 3 * i, wx);
    vf_store(p->oy + 3 * i, wy);
    vf_store(p->oz + 3 * i, wz);
    vf_store(p->mag + i, vf_sqrt(vf_add(vf_add(vf_mul(wx, wx), vf_mul(wy, wy)), vf_mul(wz, wz))));
}
KERNEL void row_b3(const step3 *t, const plane3 *q, int key, bool unit) {
    row_b3p p = b_row(t, q, key);
    const int n0 = t->w->n0;
    for (int i = 0; i < n0; i += VF_W) lanes_b3(&p, i, unit);
    set_halo(p.mag, n0, t->w->px);
}
/* (C) of one vector of cells: g = D|w|, n = g (scale / |g|) (+0 in solid cells and where the gradient vanishes),
 * f = n x w (fx only for a row whose faces are written: for a row of halo only fy and fz are needed) */
typedef struct row_c3 {
    const float *mag, *mym, *myp, *mzm, *mzp, *ox, *oy, *oz, *xq, *fy_below, *fz_below, *u_old, *v_old, *w_old;
    const uint8_t *solid;
    float *fx, *fy, *fz, *u_new, *v_new, *w_new;
    const float *pf_u, *pf_v, *pf_w; /* rows pass B reads first next time, or NULL */
} row_c3;
/* split in two so that a row's loop can be skewed (software-pipelined): the gradient and its length of the next
 * vector are on their way while the division of this one waits on its square root */
typedef struct grad3 {
    vfloat gx, gy, gz, len;
    vmask keep;
} grad3;
KERNEL grad3 grad_c3(const row_c3 *p, int i, vfloat dy, vfloat dz, vfloat *prev, vfloat *cur, bool unit) {
    grad3 g;
    const vfloat next = vf_load(p->mag + i + VF_W); /* |curl| along x from aligned loads */
    g.gx = x_diff(*prev, *cur, next, vf_load(p->xq + i));
    *prev = *cur, *cur = next;
    g.gy = spaced(vf_sub(vf_load(p->myp + i), vf_load(p->mym + i)), dy, unit);
    g.gz = spaced(vf_sub(vf_load(p->mzp + i), vf_load(p->mzm + i)), dz, unit);
    g.len = vf_sqrt(vf_add(vf_add(vf_mul(g.gx, g.gx), vf_mul(g.gy, g.gy)), vf_mul(g.gz, g.gz)));
    g.keep = vf_keep_mask(g.len, vf_set1(EDDY_VORT_SWEEP_CUT), p->solid + i, VF_W);
    return g;
}
KERNEL void force_c3(const row_c3 *p, int i, const grad3 *g, vfloat scale, bool faces) {
    const vfloat inv = vf_div_keep(scale, g->len, g->keep);
    vfloat nx = vf_mul(g->gx, inv), ny = vf_mul(g->gy, inv), nz = vf_mul(g->gz, inv);
    vfloat ox = vf_load(p->ox + 3 * i), oy = vf_load(p->oy + 3 * i), oz = vf_load(p->oz + 3 * i);
    if (faces) vf_store(p->fx + i, vf_sub(vf_mul(ny, oz), vf_mul(nz, oy)));
    vf_store(p->fy + i, vf_sub(vf_mul(nz, ox), vf_mul(nx, oz)));
    vf_store(p->fz + i, vf_sub(vf_mul(nx, oy), vf_mul(ny, ox)));
}
/* the faces of a row of cells from their forces (fx with its halo set): x-faces (n0 + 1 of them), y-faces between
 * the row below and this one, z-faces between the plane below and this one (those below may be these very rows,
 * at a wall) */
KERNEL void faces_lanes3(const row_c3 *p, int i, int n, vfloat *fx_prev, bool stream) {
    x_faces_lanes(p->u_old, p->u_new, p->fx, i, fx_prev, n);
    face_to(p->v_old + i, p->v_new + i, vf_load(p->fy_below + i), vf_load(p->fy + i), n, stream);
    face_to(p->w_old + i, p->w_new + i, vf_load(p->fz_below + i), vf_load(p->fz + i), n, stream);
}
/* the lines of vector i of the rows pass B reads first next time (see row_c3_of), if any */
KERNEL void prefetch_next(const row_c3 *p, int i) {
    if (!p->pf_u) return;
    vf_prefetch(p->pf_u + i);
    vf_prefetch(p->pf_v + i);
    vf_prefetch(p->pf_w + i);
}
KERNEL void lanes_row_c3(const step3 *t, const row_c3 *p, vfloat dy, vfloat dz, bool faces, bool unit) {
    const int n0 = t->w->n0, full = n0 - n0 % VF_W, whole = full < n0 ? full + VF_W : full;
    const vfloat scale = vf_set1(t->w->scale);
    vfloat prev = vf_load(p->mag - VF_W), cur = vf_load(p->mag);
    grad3 g = grad_c3(p, 0, dy, dz, &prev, &cur, unit);
    for (int i = 0; i + VF_W < whole; i += VF_W) {
        prefetch_next(p, i);
        const grad3 next = grad_c3(p, i + VF_W, dy, dz, &prev, &cur, unit);
        force_c3(p, i, &g, scale, faces);
        g = next;
    }
    prefetch_next(p, whole - VF_W);
    force_c3(p, whole - VF_W, &g, scale, faces);
    if (!faces) return;
    set_halo(p->fx, n0, t->w->px);
    vfloat fx_prev = vf_load(p->fx - VF_W);
    if (t->w->stream && full == n0 && ((uintptr_t)p->v_new | (uintptr_t)p->w_new) % sizeof(vfloat) == 0)
        for (int i = 0; i < full; i += VF_W) faces_lanes3(p, i, VF_W, &fx_prev, true);
#ifdef VF_HAVE_REALIGN
    else if (t->w->stream && lines_fit(p->v_old, p->v_new) && lines_fit(p->w_old, p->w_new)) {
        /* one loop: the x-faces by vectors of cells, the y- and z-faces by lines */
        face_lines v = face_lines_of(p->v_old, p->v_new, p->fy_below, p->fy),
                   w = face_lines_of(p->w_old, p->w_new, p->fz_below, p->fz);
        for (int at = 0; at - v.lead < n0 || at - w.lead < n0; at += VF_W) {
            if (at < full) x_faces_lanes(p->u_old, p->u_new, p->fx, at, &fx_prev, VF_W);
            if (at - v.lead < n0) face_line(&v, at, n0);
            if (at - w.lead < n0) face_line(&w, at, n0);
        }
        if (full < n0) x_faces_lanes(p->u_old, p->u_new, p->fx, full, &fx_prev, n0 - full);
    }
#endif
    else {
        for (int i = 0; i < full; i += VF_W) faces_lanes3(p, i, VF_W, &fx_prev, false);
        if (full < n0) faces_lanes3(p, full, n0 - full, &fx_prev, false);
    }
    const float *f = p->fx; /* the last x-face, n0 */
    p->u_new[n0] = p->u_old[n0] + (f[n0 - 1] + f[n0]);
}
KERNEL void row_c3_of(const step3 *t, const plane3 *q, int key, bool faces, int next_uv, int next_w) {
    const eddy_sim *s = t->s;
    const rings3 *r = t->r;
    const row3 y = row_of3(t, key);
    const int n0 = t->w->n0, n1 = t->w->n1, k = q->k, j = y.j;
    const size_t P = (size_t)n0 * n1, cells = ((size_t)k * n1 + j) * n0;
    row_c3 p;
    p.mag = q->mag[1] + y.at;
    p.mym = q->mag[1] + y.below;
    p.myp = q->mag[1] + y.above;
    p.mzm = q->mag[0] + y.at;
    p.mzp = q->mag[2] + y.at;
    p.ox = q->om + 3 * y.at;
    p.oy = p.ox + VF_W;
    p.oz = p.ox + 2 * VF_W;
    p.xq = r->xq;
    p.fx = r->fx;
    p.fy = r->fy + (size_t)slot_of(key, 2) * r->stride;
    p.fy_below = r->fy + (size_t)slot_of(key_nb(t->ya, key, -1), 2) * r->stride;
    p.fz = fz_row3(r, q->fz[1], key);
    p.fz_below = fz_row3(r, q->fz[0], key);
    p.solid = s->solid + cells;
    p.u_old = s->vel[0] + ((size_t)k * n1 + j) * (n0 + 1);
    p.u_new = s->vel_tmp[0] + ((size_t)k * n1 + j) * (n0 + 1);
    p.v_old = s->vel[1] + ((size_t)k * (n1 + 1) + j) * n0;
    p.v_new = s->vel_tmp[1] + ((size_t)k * (n1 + 1) + j) * n0;
    p.w_old = s->vel[2] + (size_t)k * P + (size_t)j * n0;
    p.w_new = s->vel_tmp[2] + (size_t)k * P + (size_t)j * n0;
    /* The velocity pass B meets first next time (u and v of plane next_uv, w of face plane next_w; when >= 0), asked
     * for while this pass waits on its division: each plane's band is a few pages per stream, where the hardware
     * prefetchers would start afresh */
    p.pf_u = p.pf_v = p.pf_w = NULL;
    if (next_uv >= 0) {
        p.pf_u = u_row3(s, t->w, next_uv, y.j);
        p.pf_v = v_row3(s, t->w, next_uv, y.j + 1);
        p.pf_w = w_row3(s, t->w, next_w, y.j);
    }
    if (faces && q->unit_z && unit_at(t->ya, key)) lanes_row_c3(t, &p, y.dy, q->dz, true, true);
    else if (faces) lanes_row_c3(t, &p, y.dy, q->dz, true, false);
    else lanes_row_c3(t, &p, y.dy, q->dz, false, false); /* a row of halo: only its fy and fz are needed */
}

/* the top row of y-faces of plane q (a wall: row n1 - 1 again; periodic: row 0), after C's rows */
static void top_row3(const step3 *t, const plane3 *q) {
    const int n0 = t->w->n0, n1 = t->w->n1;
    const rings3 *r = t->r;
    const float *fl = r->fy + (size_t)slot_of(key_nb(t->ya, n1 - 1, 0), 2) * r->stride,
                *fh = r->fy + (size_t)slot_of(key_nb(t->ya, n1 - 1, 1), 2) * r->stride;
    const size_t at = ((size_t)q->k * (n1 + 1) + n1) * n0;
    const float *old = t->s->vel[1] + at;
    float *out = t->s->vel_tmp[1] + at;
    face_row(old, out, fl, fh, n0);
}

/* row j of the top plane of z-faces, between planes ns - 1 and ns (a wall: ns - 1 again; periodic: 0), right after
 * C's row j of the last of them (the row above of ns - 1 is written next) */
static void top_face_z(const step3 *t, int j) {
    const int n0 = t->w->n0, n1 = t->w->n1, ns = t->za.n;
    const rings3 *r = t->r;
    const float *fl = fz_row3(r, slot_of(-key_nb(t->za, ns - 1, 0), r->fz_rows), j),
                *fh = fz_row3(r, slot_of(-key_nb(t->za, ns - 1, 1), r->fz_rows), j);
    const size_t at = ((size_t)ns * n1 + j) * n0;
    face_row(t->s->vel[2] + at, t->s->vel_tmp[2] + at, fl, fh, n0);
}

static rings3 rings3_of(const sweep *w, float *scratch) {
    rings3 r;
    float *p = scratch;
    r.slot = w->slot;
    r.stride = w->stride;
    float **ring[3] = {&r.om, &r.mag, &r.fz};
    const int len[3] = {2 * 3, 3, 1};
    for (int k = 0; k < 3; k++) {
        *ring[k] = p + PAD;
        p += (size_t)len[k] * r.slot;
    }
    float **row[6] = {&r.uc0, &r.uc1, &r.uc2, &r.fy, &r.fx, &r.xq};
    const int rows[6] = {3, 2, 3, 2, 1, 1};
    for (int k = 0; k < 6; k++) {
        *row[k] = p + PAD;
        p += (size_t)rows[k] * r.stride;
    }
    r.row0 = 0;
    r.fz_rows = w->band_rows;
    return r;
}

static inline bool within(int x, int lo, int hi) { return x >= lo && x <= hi; }

KERNEL void sweep3(eddy_sim *s, const sweep *w, float *scratch, int r0, int r1) {
    rings3 r = rings3_of(w, scratch);
    step3 t = {s, w, &r, {w->n1, w->py}, {w->ns, w->ps}, 0, 0};
    const window v = window_of(t.za, r0, r1);
    const int top = key_nb(t.za, w->ns - 1, 1); /* the plane after whose C rows the top z-faces are written */
    fill_x_factor(w, r.xq);
    for (int b = 0; b < w->bands; b++) {
        t.j0 = (int)((long long)w->n1 * b / w->bands);
        t.j1 = (int)((long long)w->n1 * (b + 1) / w->bands);
        const window rows = window_of(t.ya, t.j0, t.j1);
        r.row0 = rows.cmin;
        for (int L = v.cmin; L <= v.fmax + 1; L++) {
            /* B on plane L, row by row after A on the row above it; C on L - 1 (it reads |curl| of planes B has
             * done) */
            const bool bb = within(L, v.cmin, v.cmax), c = within(L - 1, v.fmin, v.fmax);
            const bool faces = L - 1 >= r0 && L - 1 < r1;
            const plane3 qb = plane_of3(&t, L), qc = plane_of3(&t, L - 1);
            const bool more = L + 1 <= v.cmax;
            const int next_uv = more ? key_phys(t.za, key_nb(t.za, L + 1, 1)) : -1,
                      next_w = more ? key_phys(t.za, L + 1) + 1 : -1;
            if (bb)
                for (int key = rows.umin; key <= rows.cmax + 1; key++) {
                    if (key <= rows.umax) row_a3(&t, &qb, key);
                    if (!within(key - 1, rows.cmin, rows.cmax)) continue;
                    if (qb.unit_z && unit_at(t.ya, key - 1)) row_b3(&t, &qb, key - 1, true);
                    else row_b3(&t, &qb, key - 1, false);
                }
            if (c)
                for (int key = rows.fmin; key <= rows.fmax; key++) {
                    row_c3_of(&t, &qc, key, faces && key >= t.j0 && key < t.j1, next_uv, next_w);
                    if (v.last && L - 1 == top && key >= t.j0 && key < t.j1) top_face_z(&t, key);
                }
            if (c && faces && rows.last) top_row3(&t, &qc);
        }
    }
}

/* the exported instances, one per dimension */
#define VORT_SWEEP_INSTANCE(name, kernel)                                                       \
    void EDDY_ISA_NAME(name)(eddy_sim *s, const sweep *w, float *scratch, int r0, int r1) {     \
        kernel(s, w, scratch, r0, r1);                                                          \
        vf_stream_fence();                                                                      \
        EDDY_ISA_LEAVE();                                                                       \
    }
VORT_SWEEP_INSTANCE(eddy__vort_sweep2, sweep2)
VORT_SWEEP_INSTANCE(eddy__vort_sweep3, sweep3)
