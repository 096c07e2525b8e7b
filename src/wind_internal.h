/* Internal layout of the wind field, shared by wind.c, wind_sources.c, wind_noise.c and particles.c. Not installed.
 *
 * The wind owns a 3D eddy_sim in window-local coordinates (its origin is 0; the window's world minimum corner is
 * `origin`, kept in double so that a window far from the world origin loses no precision). The sim's face arrays
 * hold the air velocity in world-space m/s (air at rest in the world has velocity 0 whatever the window does).
 * After every frame, move or sync, `cache` holds the cell-centred velocity (RGBA32F: u, v, w, |u|, x fastest) with
 * one ghost cell around it that repeats the edge cell (so samplers need no clamping): every sampler (single,
 * batch, particles, texture copy) reads it, so they all see the same field. */
#ifndef EDDY_WIND_INTERNAL_H
#define EDDY_WIND_INTERNAL_H

#include "eddy/wind.h"
#include "sim_internal.h"

/* Limits on the inputs that keep every product of the frame finite in float (squares of speeds and of lengths,
 * the explosions' s R^2 / r^2): speeds in m/s (ambient, noise amplitude, colliders, gusts, explosions) and lengths
 * in m (radii, capsule axes). A finite input beyond them used to overflow to inf/NaN inside the frame and leave the
 * field non-finite for every later frame. */
#define EDDY__WIND_MAX_SPEED 1e6f
#define EDDY__WIND_MIN_LENGTH 1e-9f
#define EDDY__WIND_MAX_LENGTH 1e15f

struct eddy_wind {
    eddy_wind_def def;
    eddy_sim *sim;
    int n[3];
    float h;
    float inv_h;             /* 1 / h */
    int pn[3];               /* cache dims: n + 2 (one ghost cell each side) */
    double origin[3];        /* world position of the window's minimum corner, m */
    double center[3];        /* requested centre, m */
    double time;             /* s */
    float ambient[3];        /* current constant ambient wind, m/s */

    float *cache;            /* 4 * pn0*pn1*pn2: cell-centred u, v, w, |u|; cell (i,j,k) at padded (i+1,j+1,k+1) */
    float *ambient_face[3];  /* ambient wind on each face array (only with noise; else NULL) */
    double noise_offset[3];  /* how far the noise pattern has drifted with the constant wind, m */
    float *noise_lattice;    /* scratch: noise lattice values around the window (only with noise) */
    int *noise_index[3];     /* scratch: lattice cell of each face index along each axis (only with noise) */
    float *noise_weight[3];  /* scratch: fade weight of each face index along each axis (only with noise) */
    float *noise_layer;      /* scratch: ambient values of one face layer entering the window (only with noise) */
    float *source_flow[3];   /* scratch, face arrays: the explosions' potential flow of this frame */
    eddy_wind_explosion *explosions; /* active explosions; `explosion_age` s since they started */
    float *explosion_age;
    int explosion_count;
    bool solid_any;          /* some cell is solid (covered by a collider) this frame */
    int solid_lo[3], solid_hi[3]; /* box of the solid cells, [lo, hi) */
    eddy_wind_frame_stats stats;
};

/* "lowbias32" integer hash finaliser (C. Wellons, hash-prospector): noise lattice values, particle randoms */
static inline uint32_t eddy__mix32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* ---- wind_noise.c: the ambient wind (constant + value noise drifting with the constant part) ---- */
/* ambient component c at a world position */
float eddy__wind_ambient(const eddy_wind *w, const double pos[3], int c);
/* noise on: ambient component c on a block of a regular grid, element (i,j,k) for i < cnt[0] ... at world
 * o + (lo + (i,j,k) + off) * h, into out[i + cnt[0] * (j + cnt[1] * k)]; cnt[b] <= n[b] + 1. Uses the noise
 * scratch: call it outside parallel regions. Same bytes as eddy__wind_ambient at each point. */
void eddy__wind_ambient_block(eddy_wind *w, int c, const double o[3], const float off[3], const int lo[3],
                              const int cnt[3], float *out);
/* fills w->ambient_face[a] (noise on) for the current window and time */
void eddy__wind_fill_ambient_faces(eddy_wind *w);

/* ---- wind_sources.c ---- */
/* rasterises colliders into sim->solid / solid_vel and sets the faces inside them to their velocity */
eddy_status eddy__wind_apply_colliders(eddy_wind *w, const eddy_wind_collider *c, int count);
/* holds the faces touching solid cells at the solid's velocity (after any stage that moved them) */
void eddy__wind_impose_solid_faces(eddy_wind *w);
/* pulls faces towards each gust's velocity */
eddy_status eddy__wind_apply_gusts(eddy_wind *w, const eddy_wind_gust *g, int count, float dt);
/* writes the potential flow of the active explosions into w->source_flow; returns how many are active */
int eddy__wind_explosion_flow(eddy_wind *w);
/* ---- wind_advect.c: semi-Lagrangian self-advection of the faces, ambient wind from outside the window ---- */
void eddy__wind_advect(eddy_wind *w, float dt);
/* validation of one source, naming it (index) */
eddy_status eddy__wind_check_collider(eddy_wind *w, const eddy_wind_collider *c, int index);
eddy_status eddy__wind_check_gust(eddy_wind *w, const eddy_wind_gust *g, int index);

/* ---- sampling the cell-centred cache ----
 * (x, y, z): window-local position in cells (world - origin) / h. Returns false outside the window box
 * [0, n] (and for NaN); then the caller uses the ambient wind. Inside, trilinear between cell centres; in the
 * outer half cell the ghost layer repeats the edge cell, which is the clamp-to-edge of a texture. Cell i's centre
 * is at padded coordinate x + 0.5 = i + 1, so floor(x + 0.5) is in [0, n] and its neighbour in [1, n + 1].
 * The lerp form a + t (b - a) keeps a uniform field exactly uniform. */
static inline bool eddy__wind_sample_local(const eddy_wind *w, float x, float y, float z, float out[3]) {
    if (!(x >= 0.0f && x <= (float)w->n[0] && y >= 0.0f && y <= (float)w->n[1] && z >= 0.0f && z <= (float)w->n[2]))
        return false;
    const float X = x + 0.5f, Y = y + 0.5f, Z = z + 0.5f;
    const int i = (int)X, j = (int)Y, k = (int)Z; /* non-negative: truncation is floor */
    const float tx = X - (float)i, ty = Y - (float)j, tz = Z - (float)k;
    const size_t sy = (size_t)4 * w->pn[0], sz = sy * (size_t)w->pn[1];
    const float *c = w->cache + 4 * (size_t)i + sy * (size_t)j + sz * (size_t)k;
    /* all four channels at once: the loop maps onto one 4-wide vector lerp per step */
    float r[4];
    for (int q = 0; q < 4; q++) {
        float c00 = c[q] + tx * (c[q + 4] - c[q]);
        float c10 = c[q + sy] + tx * (c[q + sy + 4] - c[q + sy]);
        float c01 = c[q + sz] + tx * (c[q + sz + 4] - c[q + sz]);
        float c11 = c[q + sy + sz] + tx * (c[q + sy + sz + 4] - c[q + sy + sz]);
        float c0 = c00 + ty * (c10 - c00), c1 = c01 + ty * (c11 - c01);
        r[q] = c0 + tz * (c1 - c0);
    }
    out[0] = r[0];
    out[1] = r[1];
    out[2] = r[2];
    return true;
}

/* full sampler at a world position (ambient outside) */
static inline void eddy__wind_sample_world(const eddy_wind *w, const float pos[3], float out[3]) {
    const float inv_h = w->inv_h;
    float x = (float)((double)pos[0] - w->origin[0]) * inv_h;
    float y = (float)((double)pos[1] - w->origin[1]) * inv_h;
    float z = (float)((double)pos[2] - w->origin[2]) * inv_h;
    if (eddy__wind_sample_local(w, x, y, z, out)) return;
    double p[3] = {pos[0], pos[1], pos[2]};
    for (int c = 0; c < 3; c++) out[c] = eddy__wind_ambient(w, p, c);
}

#endif
