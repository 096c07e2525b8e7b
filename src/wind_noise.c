/* Ambient wind of the game wind field: a constant plus smooth value noise,
 *   a_c(x, t) = A_c + amplitude * N_c((x - o(t)) / scale),   o' = A (the noise pattern drifts with the constant wind,
 * Taylor's frozen-turbulence picture), N_c = value noise: pseudo-random values in [-1, 1] on an integer lattice
 * (an integer hash of the lattice point, the seed and the component c), blended with the quintic fade
 * 6t^5 - 15t^4 + 10t^3 (C2-smooth; Perlin 2002, "Improving noise"). Deterministic: same seed, same wind.
 * For blocks of a regular grid (the face arrays, the layers entering the window) the lattice values around the
 * block are hashed once and blended with per-axis weight tables: a few loads per value instead of eight hashes. */
#include "wind_internal.h"

#include <math.h>

static inline float lattice_value(uint32_t seed, int c, int64_t ix, int64_t iy, int64_t iz) {
    uint32_t hsh = eddy__mix32(seed ^ 0x9e3779b9U * (uint32_t)(c + 1));
    hsh = eddy__mix32(hsh ^ (uint32_t)ix);
    hsh = eddy__mix32(hsh ^ (uint32_t)iy);
    hsh = eddy__mix32(hsh ^ (uint32_t)iz);
    return (float)(hsh >> 8) * (2.0f / 16777216.0f) - 1.0f; /* 24 bits -> [-1, 1) */
}

/* The hash takes lattice indices modulo 2^32, so the noise repeats every 2^32 lattice cells: reducing a lattice
 * coordinate modulo 2^32 (fmod is exact) gives the same values, and keeps floor(q) within int64 for any finite
 * position (a far position used to convert an out-of-range double to int64: undefined). */
static inline double lattice_coord(double q) { return isfinite(q) ? fmod(q, 4294967296.0) : 0.0; }

static inline float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }

static inline float lerpf(float a, float b, float t) { return a + t * (b - a); }

float eddy__wind_ambient(const eddy_wind *w, const double pos[3], int c) {
    if (w->def.noise_amplitude == 0.0f) return w->ambient[c];
    /* no noise at a position that is not finite (NaN used to reach the lattice and come back as NaN wind) */
    if (!(isfinite(pos[0]) && isfinite(pos[1]) && isfinite(pos[2]))) return w->ambient[c];
    int64_t l[3];
    float t[3];
    for (int b = 0; b < 3; b++) {
        double q = lattice_coord((pos[b] - w->noise_offset[b]) / (double)w->def.noise_scale);
        double fl = floor(q);
        l[b] = (int64_t)fl;
        t[b] = fade((float)(q - fl));
    }
    uint32_t seed = w->def.noise_seed;
    float v[8];
    for (int corner = 0; corner < 8; corner++)
        v[corner] = lattice_value(seed, c, l[0] + (corner & 1), l[1] + ((corner >> 1) & 1), l[2] + (corner >> 2));
    float x0 = lerpf(v[0], v[1], t[0]), x1 = lerpf(v[2], v[3], t[0]);
    float x2 = lerpf(v[4], v[5], t[0]), x3 = lerpf(v[6], v[7], t[0]);
    float n = lerpf(lerpf(x0, x1, t[1]), lerpf(x2, x3, t[1]), t[2]);
    return w->ambient[c] + w->def.noise_amplitude * n;
}

void eddy__wind_ambient_block(eddy_wind *w, int c, const double o[3], const float off[3], const int lo[3],
                              const int cnt[3], float *out) {
    const double scale = (double)w->def.noise_scale;
    int64_t lmin[3];
    int L[3];
    for (int b = 0; b < 3; b++) {
        /* lattice cell and fade weight of every element index along axis b; the cells relative to the first one
         * (the same modulo 2^32 as in eddy__wind_ambient), at most n[b] + 1 above it */
        double first = 0.0;
        for (int i = 0; i < cnt[b]; i++) {
            double q = lattice_coord((o[b] + ((double)(lo[b] + i) + (double)off[b]) * (double)w->h - w->noise_offset[b]) / scale);
            double fl = floor(q);
            if (i == 0) {
                first = fl;
                lmin[b] = (int64_t)fl;
            }
            double rel = fl - first; /* negative where the reduction wrapped within the block */
            if (rel < 0) rel += 4294967296.0;
            w->noise_index[b][i] = rel <= (double)w->n[b] + 1 ? (int)rel : w->n[b] + 1;
            w->noise_weight[b][i] = fade((float)(q - fl));
        }
        L[b] = w->noise_index[b][cnt[b] - 1] + 2;
    }
    /* L[b] <= (n[b] + 1) * h / scale + 3 <= n[b] + 4 because scale >= h (and by the cap above when rounding far
     * from the origin makes the positions coarse): fits the lattice scratch */
    float *lat = w->noise_lattice;
    for (int k = 0; k < L[2]; k++)
        for (int j = 0; j < L[1]; j++)
            for (int i = 0; i < L[0]; i++)
                lat[i + L[0] * (j + L[1] * k)] = lattice_value(w->def.noise_seed, c, lmin[0] + i, lmin[1] + j, lmin[2] + k);
    const float base = w->ambient[c], amp = w->def.noise_amplitude;
    const size_t sy = (size_t)L[0], sz = (size_t)L[0] * L[1];
    const int rows = cnt[1] * cnt[2];
#pragma omp parallel for num_threads(EDDY_THREADS(w->sim)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % cnt[1], k = row / cnt[1];
        int lj = w->noise_index[1][j], lk = w->noise_index[2][k];
        float ty = w->noise_weight[1][j], tz = w->noise_weight[2][k];
        float *dst = out + (size_t)row * cnt[0];
        for (int i = 0; i < cnt[0]; i++) {
            const float *q = lat + (size_t)w->noise_index[0][i] + sy * (size_t)lj + sz * (size_t)lk;
            float tx = w->noise_weight[0][i];
            float x0 = lerpf(q[0], q[1], tx), x1 = lerpf(q[sy], q[sy + 1], tx);
            float x2 = lerpf(q[sz], q[sz + 1], tx), x3 = lerpf(q[sy + sz], q[sy + sz + 1], tx);
            dst[i] = base + amp * lerpf(lerpf(x0, x1, ty), lerpf(x2, x3, ty), tz);
        }
    }
}

void eddy__wind_fill_ambient_faces(eddy_wind *w) {
    for (int a = 0; a < 3; a++) {
        int fn[3];
        eddy__face_dims(w->sim, a, fn);
        const float off[3] = {a == 0 ? 0.0f : 0.5f, a == 1 ? 0.0f : 0.5f, a == 2 ? 0.0f : 0.5f};
        const int lo[3] = {0, 0, 0};
        eddy__wind_ambient_block(w, a, w->origin, off, lo, fn, w->ambient_face[a]);
    }
}
