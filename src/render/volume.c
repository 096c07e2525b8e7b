/* Volume rendering of dye by ray marching (Kajiya & Von Herzen 1984; the single-scattering model of Max 1995,
 * "Optical models for direct volume rendering"):
 *   C = sum_i T_i (1 - exp(-sigma_i ds)) albedo_i (L_light exp(-tau_i) + L_ambient),  T_{i+1} = T_i exp(-sigma_i ds)
 * with density rho = max(r, g, b), albedo = dye / rho, extinction sigma = density_scale * rho / (largest box side).
 * Self-shadowing: tau, the optical depth from each voxel towards the light, is precomputed into a light volume by
 * one sweep of planes across the box along the light's dominant axis (each voxel continues the ray of its
 * predecessor one plane closer to the light, bilinearly interpolated, trapezoid rule), so a frame costs one pass
 * over the voxels plus the camera rays. Solid cells are opaque surfaces (shaded by the occupancy gradient) that
 * also cast shadows. Rays jump over empty 8^3 blocks (max density of the block and its one-voxel rim is 0), which
 * changes no sample: samples stay on the same lattice t0 + m ds. Ray starts are jittered by a fixed per-pixel hash against banding, so results are the same
 * for every thread count. The step ds of a ray is measured in cells (eddy_volume_def.step): however much thinner the
 * cells are along one axis, a ray takes at most about 2 x (the most cells along an axis) / step samples. */
#include "render_internal.h"
#include <float.h>
#include <math.h>
#include <string.h>

typedef struct vol_ctx {
    int n[3];
    float box_min[3], box_size[3];
    float cells_per_m[3]; /* n / box_size */
    const float *vol;     /* 4 per voxel: r, g, b, tau */
    const float *occ;     /* solid occupancy 0/1 per voxel, or NULL */
    float sigma_unit;     /* extinction per unit density, 1/m */
    const float *blocks;  /* nonzero where a block (with its rim) holds dye or solid */
    int nb[3];            /* blocks per axis */
} vol_ctx;

enum { BLOCK = 8 };
/* optical depths are capped here: exp(-tau) is 0 in float from about 104, and capped depths stay finite, so the
 * sweep's interpolation never meets infinity - infinity (NaN) */
#define EDDY_TAU_MAX 1e30f

static inline size_t vidx(const int n[3], int i, int j, int k) {
    return (size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k);
}

static inline void axis_w(float c, int n, int *i0, int *i1, float *f) {
    float x = c - 0.5f;
    if (!(x > 0.0f)) {
        *i0 = *i1 = 0, *f = 0.0f;
    } else if (x >= (float)(n - 1)) {
        *i0 = *i1 = n - 1, *f = 0.0f;
    } else {
        *i0 = (int)x, *i1 = *i0 + 1, *f = x - (float)*i0;
    }
}

/* trilinear sample of the 4-channel volume at cell coordinate c */
static inline void sample4(const vol_ctx *v, const float c[3], float out[4]) {
    int i0, i1, j0, j1, k0, k1;
    float fx, fy, fz;
    axis_w(c[0], v->n[0], &i0, &i1, &fx);
    axis_w(c[1], v->n[1], &j0, &j1, &fy);
    axis_w(c[2], v->n[2], &k0, &k1, &fz);
    const float *p000 = v->vol + 4 * vidx(v->n, i0, j0, k0), *p100 = v->vol + 4 * vidx(v->n, i1, j0, k0);
    const float *p010 = v->vol + 4 * vidx(v->n, i0, j1, k0), *p110 = v->vol + 4 * vidx(v->n, i1, j1, k0);
    const float *p001 = v->vol + 4 * vidx(v->n, i0, j0, k1), *p101 = v->vol + 4 * vidx(v->n, i1, j0, k1);
    const float *p011 = v->vol + 4 * vidx(v->n, i0, j1, k1), *p111 = v->vol + 4 * vidx(v->n, i1, j1, k1);
    for (int q = 0; q < 4; q++) {
        float a = p000[q] + (p100[q] - p000[q]) * fx, b = p010[q] + (p110[q] - p010[q]) * fx;
        float c0 = p001[q] + (p101[q] - p001[q]) * fx, d = p011[q] + (p111[q] - p011[q]) * fx;
        float s0 = a + (b - a) * fy, s1 = c0 + (d - c0) * fy;
        out[q] = s0 + (s1 - s0) * fz;
    }
}

static inline float occ_at(const vol_ctx *v, const float c[3]) { return eddy__sample_cells(v->occ, v->n, c); }

/* r, g, b per voxel, clamped at 0, and solid occupancy; tau slot holds sigma until the sweep */
static eddy_status build_volume(eddy_renderer *r, const eddy_render_input *in, const eddy_volume_def *def,
                                vol_ctx *v, bool solids) {
    const int *n = v->n;
    const size_t count = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
    eddy_status st = eddy__fbuf_reserve(r, &r->vol, 4 * count);
    if (st == EDDY_OK && solids) st = eddy__fbuf_reserve(r, &r->occ, count);
    if (st != EDDY_OK) return st;
    float *vol = r->vol.p, *occ = solids ? r->occ.p : NULL;
    float hmin = fminf(v->box_size[0] / (float)n[0], fminf(v->box_size[1] / (float)n[1], v->box_size[2] / (float)n[2]));
    const float sigma_solid = 50.0f / hmin; /* e^-50 through one cell: opaque */
    (void)def;
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                size_t e = vidx(n, i, j, k);
                float rho = 0.0f;
                for (int c = 0; c < 3; c++) {
                    float x = in->dye[c] ? in->dye[c][e] : 0.0f;
                    x = x > 0.0f ? eddy__minf(x, FLT_MAX) : 0.0f; /* NaN: none; infinity: differences stay finite */
                    vol[4 * e + c] = x;
                    rho = fmaxf(rho, x);
                }
                /* finite: dye near FLT_MAX times density_scale / box overflowed, and the sweep's differences of
                 * infinite depths were NaN (black pictures); an infinite sigma_unit times no dye too */
                float sigma = rho > 0.0f ? eddy__minf(v->sigma_unit * rho, FLT_MAX) : 0.0f;
                if (occ) {
                    float cc[3] = {((float)i + 0.5f) / (float)n[0] * (float)in->solid_n[0],
                                   ((float)j + 0.5f) / (float)n[1] * (float)in->solid_n[1],
                                   ((float)k + 0.5f) / (float)n[2] * (float)in->solid_n[2]};
                    occ[e] = eddy__sample_cells_u8(in->solid, in->solid_n, cc) ? 1.0f : 0.0f;
                    if (occ[e] > 0.0f) sigma = sigma_solid;
                }
                vol[4 * e + 3] = sigma;
            }
    v->vol = vol;
    v->occ = occ;
    return EDDY_OK;
}

/* the max density of each 8^3 block and its one-voxel rim (what trilinear samples inside the block can reach) */
static eddy_status build_blocks(eddy_renderer *r, vol_ctx *v) {
    const int *n = v->n;
    for (int a = 0; a < 3; a++) v->nb[a] = (n[a] + BLOCK - 1) / BLOCK;
    const size_t nblocks = (size_t)v->nb[0] * (size_t)v->nb[1] * (size_t)v->nb[2];
    eddy_status st = eddy__fbuf_reserve(r, &r->blocks, nblocks);
    if (st != EDDY_OK) return st;
    float *blk = r->blocks.p;
    const int *nb = v->nb;
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int bk = 0; bk < nb[2]; bk++)
        for (int bj = 0; bj < nb[1]; bj++)
            for (int bi = 0; bi < nb[0]; bi++) {
                int lo[3] = {bi * BLOCK - 1, bj * BLOCK - 1, bk * BLOCK - 1};
                int hi[3] = {(bi + 1) * BLOCK, (bj + 1) * BLOCK, (bk + 1) * BLOCK};
                for (int a = 0; a < 3; a++) {
                    if (lo[a] < 0) lo[a] = 0;
                    if (hi[a] > n[a] - 1) hi[a] = n[a] - 1;
                }
                float m = 0.0f;
                for (int k = lo[2]; k <= hi[2]; k++)
                    for (int j = lo[1]; j <= hi[1]; j++)
                        for (int i = lo[0]; i <= hi[0]; i++) {
                            size_t e = vidx(n, i, j, k);
                            const float *p = v->vol + 4 * e;
                            m = fmaxf(m, fmaxf(p[0], fmaxf(p[1], p[2])));
                            if (v->occ && v->occ[e] > 0.0f) m = fmaxf(m, 1.0f);
                        }
                blk[(size_t)bi + (size_t)nb[0] * ((size_t)bj + (size_t)nb[1] * (size_t)bk)] = m;
            }
    v->blocks = blk;
    return EDDY_OK;
}

/* replaces sigma by tau (optical depth towards the light) plane by plane along the light's dominant axis */
static eddy_status light_sweep(eddy_renderer *r, vol_ctx *v, const float l[3]) {
    const int *n = v->n;
    int a = 0;
    for (int q = 1; q < 3; q++)
        if (fabsf(l[q]) > fabsf(l[a])) a = q;
    const int b = a == 0 ? 1 : 0, c = a == 2 ? 1 : 2; /* the plane's axes, b < c */
    const float ha = v->box_size[a] / (float)n[a];
    const float ds = ha / fabsf(l[a]);                             /* path length between planes, m */
    const float ob = l[b] / fabsf(l[a]) * ha * v->cells_per_m[b];  /* predecessor offset, cells */
    const float oc = l[c] / fabsf(l[a]) * ha * v->cells_per_m[c];
    const size_t plane = (size_t)n[b] * (size_t)n[c];
    eddy_status st = eddy__fbuf_reserve(r, &r->plane, 4 * plane);
    if (st != EDDY_OK) return st;
    float *prev_tau = r->plane.p, *prev_sig = prev_tau + plane, *cur_tau = prev_sig + plane, *cur_sig = cur_tau + plane;
    size_t stride[3] = {1, (size_t)n[0], (size_t)n[0] * (size_t)n[1]};
    const int first = l[a] > 0.0f ? n[a] - 1 : 0, dir = l[a] > 0.0f ? -1 : 1; /* start at the plane facing the light */
    float *vol = r->vol.p;
    for (int s = 0, ia = first; s < n[a]; s++, ia += dir) {
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
        for (int ic = 0; ic < n[c]; ic++)
            for (int ib = 0; ib < n[b]; ib++) {
                size_t e = (size_t)ia * stride[a] + (size_t)ib * stride[b] + (size_t)ic * stride[c];
                size_t pe = (size_t)ic * (size_t)n[b] + (size_t)ib;
                float sig = vol[4 * e + 3], tau;
                if (s == 0) {
                    tau = 0.5f * sig * ds; /* half a step from the box face */
                } else {
                    /* predecessor in the previous plane, in cell-centre index space */
                    float pb = (float)ib + ob, pc = (float)ic + oc;
                    if (pb < -0.5f || pc < -0.5f || pb > (float)n[b] - 0.5f || pc > (float)n[c] - 0.5f) {
                        tau = 0.5f * sig * ds; /* the light enters through a side face here */
                    } else {
                        pb = fminf(fmaxf(pb, 0.0f), (float)(n[b] - 1));
                        pc = fminf(fmaxf(pc, 0.0f), (float)(n[c] - 1));
                        int b0 = (int)pb, c0 = (int)pc;
                        int b1 = b0 + 1 < n[b] ? b0 + 1 : b0, c1 = c0 + 1 < n[c] ? c0 + 1 : c0;
                        float fb = pb - (float)b0, fc = pc - (float)c0;
                        size_t q00 = (size_t)c0 * (size_t)n[b] + (size_t)b0, q01 = (size_t)c0 * (size_t)n[b] + (size_t)b1;
                        size_t q10 = (size_t)c1 * (size_t)n[b] + (size_t)b0, q11 = (size_t)c1 * (size_t)n[b] + (size_t)b1;
                        float t0 = prev_tau[q00] + (prev_tau[q01] - prev_tau[q00]) * fb;
                        float t1 = prev_tau[q10] + (prev_tau[q11] - prev_tau[q10]) * fb;
                        float s0 = prev_sig[q00] + (prev_sig[q01] - prev_sig[q00]) * fb;
                        float s1 = prev_sig[q10] + (prev_sig[q11] - prev_sig[q10]) * fb;
                        float ptau = t0 + (t1 - t0) * fc, psig = s0 + (s1 - s0) * fc;
                        tau = ptau + 0.5f * (sig + psig) * ds;
                    }
                }
                tau = eddy__minf(tau, EDDY_TAU_MAX);
                cur_tau[pe] = tau;
                cur_sig[pe] = sig;
                vol[4 * e + 3] = tau;
            }
        float *t = prev_tau;
        prev_tau = cur_tau, cur_tau = t;
        t = prev_sig;
        prev_sig = cur_sig, cur_sig = t;
    }
    return EDDY_OK;
}

static void normalize3(float v[3]) {
    float m = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (m > 0.0f) v[0] /= m, v[1] /= m, v[2] /= m;
}

static void cross3(const float a[3], const float b[3], float o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* a fixed hash of the pixel in [0,1): jitter without state */
static inline float pixel_hash(int x, int y) {
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u;
    h ^= h >> 16;
    h *= 0x7feb352du;
    h ^= h >> 15;
    h *= 0x846ca68bu;
    h ^= h >> 16;
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

eddy_status eddy_render_volume_input(eddy_renderer *r, const eddy_render_input *in, const eddy_volume_def *def,
                                     eddy_image *img) {
    if (!r) return EDDY_ERR_INVALID_ARGUMENT;
    r->error[0] = '\0';
    eddy_status st = eddy_volume_def_validate(def, r->error, sizeof r->error);
    if (st != EDDY_OK) return st;
    if (!in || in->dim != 3)
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "volume rendering needs a 3D input (dim = %d)", in ? in->dim : 0);
    vol_ctx v;
    memset(&v, 0, sizeof v);
    for (int a = 0; a < 3; a++) {
        if (!(in->box_size[a] > 0.0f) || !isfinite(in->box_size[a]))
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "volume input: box_size[%d] = %g: expected finite > 0", a,
                               (double)in->box_size[a]);
        if (!isfinite(in->box_min[a]))
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "volume input: box_min[%d] = %g: expected finite", a,
                               (double)in->box_min[a]);
        if (in->dye_n[a] < 1)
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "volume input: dye_n[%d] = %d: expected >= 1", a,
                               in->dye_n[a]);
        if (in->solid && in->solid_n[a] < 1)
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "volume input: solid_n[%d] = %d: expected >= 1", a,
                               in->solid_n[a]);
        v.n[a] = in->dye_n[a];
        v.box_min[a] = in->box_min[a];
        v.box_size[a] = in->box_size[a];
        v.cells_per_m[a] = (float)v.n[a] / v.box_size[a];
        /* the box must be resolvable in float: a side beyond 1e18 m overflows the camera's squared distances (the
         * frame never ended), and a cell below 1e-6 of the box's distance from 0 (or a denormal cell, whose
         * cells-per-metre is infinite) cannot be told apart from its neighbours (the ray steps became 0 and the
         * cell indices undefined: a crash or a frame that never ended) */
        const double lo = in->box_min[a], hi = (double)in->box_min[a] + in->box_size[a];
        const double cell = (double)in->box_size[a] / in->dye_n[a], far = fmax(fabs(lo), fabs(hi));
        if (in->box_size[a] > 1e18f || far > 1e18 || !(cell >= 1e-30) || !(cell >= 1e-6 * far) ||
            !isfinite(v.cells_per_m[a]))
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT,
                               "volume input: axis %d: box %.9g .. %.9g m in %d cells (%g m each): expected sides and "
                               "positions within 1e18 m and cells of at least 1e-30 m and 1e-6 of the box's distance "
                               "from the origin",
                               a, lo, hi, in->dye_n[a], cell);
    }
    if ((double)v.n[0] * v.n[1] * v.n[2] > 536870912.0)
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "volume input: more than 2^29 voxels");
    const float L = fmaxf(v.box_size[0], fmaxf(v.box_size[1], v.box_size[2]));
    v.sigma_unit = def->density_scale / L;
    const bool solids = def->draw_obstacles && in->solid;
    if ((st = build_volume(r, in, def, &v, solids)) != EDDY_OK) return st;
    float l[3] = {def->light_dir[0], def->light_dir[1], def->light_dir[2]};
    eddy__dir_rescale(l);
    normalize3(l);
    if (def->shadows) {
        if ((st = light_sweep(r, &v, l)) != EDDY_OK) return st;
    } else {
        const size_t count = (size_t)v.n[0] * (size_t)v.n[1] * (size_t)v.n[2];
        for (size_t e = 0; e < count; e++) r->vol.p[4 * e + 3] = 0.0f;
    }
    if ((st = build_blocks(r, &v)) != EDDY_OK) return st;
    if ((st = eddy__image_ensure(r, img, def->width, def->height)) != EDDY_OK) return st;

    /* camera */
    float centre[3], pos[3], target[3], up[3] = {def->camera.up[0], def->camera.up[1], def->camera.up[2]};
    for (int a = 0; a < 3; a++) centre[a] = v.box_min[a] + 0.5f * v.box_size[a];
    const float half_fov = 0.5f * def->camera.fov * 3.14159265f / 180.0f;
    const float aspect = (float)def->width / (float)def->height;
    const float *cp = def->camera.position, *ct = def->camera.target;
    if (!cp[0] && !cp[1] && !cp[2] && !ct[0] && !ct[1] && !ct[2]) {
        /* frame the box's bounding sphere from the +z side, a little above */
        float radius = 0.5f * sqrtf(v.box_size[0] * v.box_size[0] + v.box_size[1] * v.box_size[1] +
                                    v.box_size[2] * v.box_size[2]);
        float fit = fminf(half_fov, atanf(tanf(half_fov) * aspect));
        float dist = radius / sinf(fit);
        float d[3] = {0.25f, 0.35f, 1.0f};
        normalize3(d);
        for (int a = 0; a < 3; a++) pos[a] = centre[a] + d[a] * dist, target[a] = centre[a];
    } else {
        memcpy(pos, cp, sizeof pos);
        memcpy(target, ct, sizeof target);
    }
    float fwd[3] = {target[0] - pos[0], target[1] - pos[1], target[2] - pos[2]}, right[3], cup[3];
    eddy__dir_rescale(fwd); /* a target 1e-25 m away is a direction too */
    normalize3(fwd);
    if (!(fabsf(fwd[0]) + fabsf(fwd[1]) + fabsf(fwd[2]) > 0.5f)) /* rays of zero direction never leave the box */
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT,
                           "volume.camera: position (%g, %g, %g) and target (%g, %g, %g) coincide at float precision",
                           (double)pos[0], (double)pos[1], (double)pos[2], (double)target[0], (double)target[1],
                           (double)target[2]);
    eddy__dir_rescale(up); /* the test below is then on the angle between up and fwd, not on up's length */
    cross3(fwd, up, right);
    if (sqrtf(right[0] * right[0] + right[1] * right[1] + right[2] * right[2]) < 1e-6f) {
        float alt[3] = {0.0f, 0.0f, fabsf(fwd[2]) < 0.9f ? 1.0f : 0.0f};
        if (alt[2] == 0.0f) alt[0] = 1.0f;
        cross3(fwd, alt, right);
    }
    normalize3(right);
    cross3(right, fwd, cup);
    const float tan_half = tanf(half_fov);
    /* the march step of a ray (see eddy_volume_def.step): `step` x the smallest cell side, or `step`/2 cells along
     * the axis the ray crosses fastest where that is longer. The smallest side alone made a ray along a coarse axis
     * of uneven cells take box / smallest cell steps: 1.3e8 per ray across a 1 m x 1 m x 1e-6 m box of 64^3 cells
     * seen edge-on, hours per frame. With cubic cells the second term is at most 0.87 x the first: the same march as always. */
    const float ds_min = def->step * fminf(v.box_size[0] / (float)v.n[0],
                                           fminf(v.box_size[1] / (float)v.n[1], v.box_size[2] / (float)v.n[2]));
    const float half_step = 0.5f * def->step;
    const float light[3] = {def->light_color[0] * def->light_intensity, def->light_color[1] * def->light_intensity,
                            def->light_color[2] * def->light_intensity};
    const float amb = def->ambient, ex = def->exposure;
    const int W = def->width, H = def->height;
    const float bmax[3] = {v.box_min[0] + v.box_size[0], v.box_min[1] + v.box_size[1], v.box_min[2] + v.box_size[2]};
    const vol_ctx *vc = &v;

#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float sx = (2.0f * ((float)x + 0.5f) / (float)W - 1.0f) * tan_half * aspect;
            float sy = (1.0f - 2.0f * ((float)y + 0.5f) / (float)H) * tan_half;
            float d[3];
            for (int a = 0; a < 3; a++) d[a] = fwd[a] + sx * right[a] + sy * cup[a];
            normalize3(d);
            /* slab intersection with the box */
            float t0 = 0.0f, t1 = INFINITY;
            for (int a = 0; a < 3; a++) {
                if (fabsf(d[a]) < 1e-12f) {
                    if (pos[a] < vc->box_min[a] || pos[a] > bmax[a]) t1 = -1.0f;
                    continue;
                }
                float inv = 1.0f / d[a];
                float ta = (vc->box_min[a] - pos[a]) * inv, tb = (bmax[a] - pos[a]) * inv;
                if (ta > tb) {
                    float t = ta;
                    ta = tb, tb = t;
                }
                t0 = fmaxf(t0, ta);
                t1 = fminf(t1, tb);
            }
            float col[3] = {0, 0, 0}, T = 1.0f;
            if (t0 < t1) {
                float fastest = 0.0f; /* cells per metre along the ray on the axis it crosses fastest */
                for (int a = 0; a < 3; a++) fastest = fmaxf(fastest, fabsf(d[a]) * vc->cells_per_m[a]);
                const float ds = fmaxf(ds_min, half_step / fastest);
                const float tstart = t0 + ds * pixel_hash(x, y);
                float dc[3]; /* cells per metre along the ray */
                for (int a = 0; a < 3; a++) dc[a] = d[a] * vc->cells_per_m[a];
                for (long m = 0;; m++) {
                    float t = tstart + (float)m * ds;
                    if (!(t < t1) || T <= 1e-3f) break;
                    float c[3];
                    int b[3];
                    for (int a = 0; a < 3; a++) {
                        c[a] = (pos[a] + d[a] * t - vc->box_min[a]) * vc->cells_per_m[a];
                        /* clamped as a float: a float beyond int has no defined conversion (NaN -> 0) */
                        int i = (int)fminf(fmaxf(c[a], 0.0f), (float)(vc->n[a] - 1));
                        b[a] = i / BLOCK;
                    }
                    if (vc->blocks[(size_t)b[0] + (size_t)vc->nb[0] * ((size_t)b[1] + (size_t)vc->nb[1] * (size_t)b[2])] ==
                        0.0f) {
                        /* empty block: move to the last lattice sample before the ray leaves it */
                        float texit = INFINITY;
                        for (int a = 0; a < 3; a++) {
                            if (fabsf(dc[a]) < 1e-12f) continue;
                            float wall = (float)(dc[a] > 0.0f ? (b[a] + 1) * BLOCK : b[a] * BLOCK);
                            texit = fminf(texit, t + (wall - c[a]) / dc[a]);
                        }
                        const float q = (texit - t) / ds;
                        if (q >= 2.0f && q < 1e15f) m += (long)q - 1; /* (an infinite q has no long) */
                        continue;
                    }
                    if (vc->occ && occ_at(vc, c) >= 0.5f) {
                        /* an obstacle surface: Lambert-shaded grey, shadowed by the dye in front of the light */
                        float nrm[3];
                        for (int a = 0; a < 3; a++) {
                            float cp1[3] = {c[0], c[1], c[2]}, cm1[3] = {c[0], c[1], c[2]};
                            cp1[a] += 1.0f, cm1[a] -= 1.0f;
                            nrm[a] = occ_at(vc, cm1) - occ_at(vc, cp1);
                        }
                        normalize3(nrm);
                        float out[3], s4[4];
                        for (int a = 0; a < 3; a++) out[a] = c[a] + 1.5f * nrm[a];
                        sample4(vc, out, s4);
                        float ndl = nrm[0] * l[0] + nrm[1] * l[1] + nrm[2] * l[2];
                        float lit = (ndl > 0.0f ? ndl : 0.0f) * expf(-s4[3]);
                        for (int q = 0; q < 3; q++) col[q] += T * 0.5f * (amb + light[q] * lit);
                        T = 0.0f;
                        break;
                    }
                    float s[4];
                    sample4(vc, c, s);
                    float rho = fmaxf(s[0], fmaxf(s[1], s[2]));
                    if (rho <= 1e-6f) continue;
                    float alpha = 1.0f - expf(-vc->sigma_unit * rho * ds);
                    float shadow = expf(-s[3]);
                    float w = T * alpha / rho; /* albedo = s / rho */
                    for (int q = 0; q < 3; q++) col[q] += w * s[q] * (light[q] * shadow + amb);
                    T *= 1.0f - alpha;
                }
            }
            uint8_t *o = img->rgba + 4 * ((size_t)y * (size_t)W + (size_t)x);
            if (def->transparent) {
                float a = 1.0f - T, inv = a > 0.0f ? 1.0f / a : 0.0f;
                for (int q = 0; q < 3; q++) o[q] = eddy__encode(r, eddy__tonemap(def->tonemap, col[q] * ex) * inv);
                o[3] = (uint8_t)(a * 255.0f + 0.5f);
            } else {
                for (int q = 0; q < 3; q++)
                    o[q] = eddy__encode(r, eddy__tonemap(def->tonemap, col[q] * ex) + T * def->background[q]);
                o[3] = 255;
            }
        }
    }
    return EDDY_OK;
}
