/* Advection of the wind field's face velocities, du/dt + (u . grad) u = 0, semi-Lagrangian (Stam 1999):
 *   u_a^{n+1}(x_f) = u_a^n(x_f - dt u^n(x_f)),
 * a one-step (Euler) backtrace from each face x_f with the velocity at the face (its own component, the other two
 * averaged from the four nearest faces), and trilinear interpolation on the face lattice of component a.
 * Why not the core's advect.c: the wind must fit a whole frame in about a millisecond, and its Courant number is
 * small (a few m/s, 1 m cells, 1/60 s: CFL ~ 0.1), where the RK2 midpoint and the MacCormack/BFECC corrections
 * change little; and a foot outside the window must take the ambient wind (the air coming in from around the
 * window) rather than the clamped edge value (with ambient noise: its value at the face, filled for the frame).
 * Interpolation is a + t (b - a), so a uniform wind stays exactly uniform. Each face depends only on the old
 * arrays: any thread count gives the same bytes. */
#include "wind_internal.h"

#include <math.h>

enum { CHUNK = 64 }; /* faces handled together: feet and weights in vector loops, then the gathers */

/* Values of face component a (array src of dims fn, sample (i,j,k) at ((i,j,k) + off) cells) at the feet
 * (fx, fy, fz)[0..cnt) in window cells: trilinear, clamped to the samples inside the window, the ambient wind
 * outside it (amb: the ambient at these faces when there is noise, else NULL). */
static void sample_feet(const eddy_wind *w, const float *src, const int fn[3], const float off[3], int a,
                        const float *fx, const float *fy, const float *fz, int cnt, float *out, const float *amb) {
    const float nx = (float)w->n[0], ny = (float)w->n[1], nz = (float)w->n[2];
    const float hx = (float)(fn[0] - 1), hy = (float)(fn[1] - 1), hz = (float)(fn[2] - 1);
    const int mx = fn[0] - 2, my = fn[1] - 2, mz = fn[2] - 2;
    const int sy = fn[0], sz = fn[0] * fn[1];
    int base[CHUNK], inside[CHUNK];
    float tx[CHUNK], ty[CHUNK], tz[CHUNK];
#pragma omp simd
    for (int t = 0; t < cnt; t++) {
        float x = fx[t], y = fy[t], z = fz[t];
        inside[t] = (x >= 0.0f) & (x <= nx) & (y >= 0.0f) & (y <= ny) & (z >= 0.0f) & (z <= nz); /* no branches */
        float lx = x - off[0], ly = y - off[1], lz = z - off[2];
        lx = lx > 0.0f ? (lx < hx ? lx : hx) : 0.0f; /* NaN goes to 0; `inside` is false for it anyway */
        ly = ly > 0.0f ? (ly < hy ? ly : hy) : 0.0f;
        lz = lz > 0.0f ? (lz < hz ? lz : hz) : 0.0f;
        int i0 = (int)lx, j0 = (int)ly, k0 = (int)lz;
        i0 = i0 < mx ? i0 : mx;
        j0 = j0 < my ? j0 : my;
        k0 = k0 < mz ? k0 : mz;
        tx[t] = lx - (float)i0;
        ty[t] = ly - (float)j0;
        tz[t] = lz - (float)k0;
        base[t] = i0 + sy * j0 + sz * k0;
    }
    for (int t = 0; t < cnt; t++) {
        if (!inside[t]) {
            /* with noise: the ambient at the face itself, filled for this frame (the foot is a fraction dt |u| / h
             * of a cell away, the noise varies over noise_scale >= h); else the constant */
            out[t] = amb ? amb[t] : w->ambient[a];
            continue;
        }
        const float *q = src + base[t];
        const float x = tx[t], y = ty[t], z = tz[t];
        float c00 = q[0] + x * (q[1] - q[0]);
        float c10 = q[sy] + x * (q[sy + 1] - q[sy]);
        float c01 = q[sz] + x * (q[sz + 1] - q[sz]);
        float c11 = q[sy + sz] + x * (q[sy + sz + 1] - q[sy + sz]);
        float c0 = c00 + y * (c10 - c00), c1 = c01 + y * (c11 - c01);
        out[t] = c0 + z * (c1 - c0);
    }
}

/* mean of four faces: pairs along one axis, then the two pairs (exact for equal values) */
static inline float mean4(float a, float b, float c, float d) { return 0.25f * ((a + b) + (c + d)); }

void eddy__wind_advect(eddy_wind *w, float dt) {
    eddy_sim *s = w->sim;
    const float dtc = dt / s->h; /* m/s -> cells per step */
    const int nx = s->n[0], ny = s->n[1], nz = s->n[2];
    int fu[3], fv[3], fw[3];
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    eddy__face_dims(s, 2, fw);
    const float *U = s->vel[0], *V = s->vel[1], *W = s->vel[2];
    const float off_u[3] = {0.0f, 0.5f, 0.5f}, off_v[3] = {0.5f, 0.0f, 0.5f}, off_w[3] = {0.5f, 0.5f, 0.0f};
    const bool noise = w->def.noise_amplitude > 0;
    const float *amb_u = noise ? w->ambient_face[0] : NULL, *amb_v = noise ? w->ambient_face[1] : NULL,
                *amb_w = noise ? w->ambient_face[2] : NULL;
    /* The velocity at a face: its own value, and each other component from the four faces around it, which lie
     * in the two cells on either side of the face (clamped at the window's edge) and on the two faces of those
     * cells along that component's axis. */

    /* u faces (i,j,k), i = 0..nx: cells i-1, i; v at rows j, j+1; w at layers k, k+1 */
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < ny * nz; row++) {
        int j = row % ny, k = row / ny;
        const float *own = U + eddy__idx(fu, 0, j, k);
        const float *v0 = V + eddy__idx(fv, 0, j, k), *v1 = V + eddy__idx(fv, 0, j + 1, k);
        const float *w0 = W + eddy__idx(fw, 0, j, k), *w1 = W + eddy__idx(fw, 0, j, k + 1);
        float *out = s->vel_tmp[0] + eddy__idx(fu, 0, j, k);
        float fx[CHUNK], fy[CHUNK], fz[CHUNK];
        for (int c0 = 0; c0 <= nx; c0 += CHUNK) {
            int cnt = nx + 1 - c0 < CHUNK ? nx + 1 - c0 : CHUNK;
#pragma omp simd
            for (int t = 0; t < cnt; t++) {
                int i = c0 + t;
                int il = i > 0 ? i - 1 : 0, ih = i < nx ? i : nx - 1;
                fx[t] = (float)i - dtc * own[i];
                fy[t] = (float)j + 0.5f - dtc * mean4(v0[il], v1[il], v0[ih], v1[ih]);
                fz[t] = (float)k + 0.5f - dtc * mean4(w0[il], w1[il], w0[ih], w1[ih]);
            }
            const float *amb = amb_u ? amb_u + eddy__idx(fu, c0, j, k) : NULL;
            sample_feet(w, U, fu, off_u, 0, fx, fy, fz, cnt, out + c0, amb);
        }
    }
    /* v faces (i,j,k), j = 0..ny: cells j-1, j; u at columns i, i+1; w at layers k, k+1 */
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < (ny + 1) * nz; row++) {
        int j = row % (ny + 1), k = row / (ny + 1);
        int jl = j > 0 ? j - 1 : 0, jh = j < ny ? j : ny - 1;
        const float *own = V + eddy__idx(fv, 0, j, k);
        const float *ul = U + eddy__idx(fu, 0, jl, k), *uh = U + eddy__idx(fu, 0, jh, k);
        const float *wl0 = W + eddy__idx(fw, 0, jl, k), *wl1 = W + eddy__idx(fw, 0, jl, k + 1);
        const float *wh0 = W + eddy__idx(fw, 0, jh, k), *wh1 = W + eddy__idx(fw, 0, jh, k + 1);
        float *out = s->vel_tmp[1] + eddy__idx(fv, 0, j, k);
        float fx[CHUNK], fy[CHUNK], fz[CHUNK];
        for (int c0 = 0; c0 < nx; c0 += CHUNK) {
            int cnt = nx - c0 < CHUNK ? nx - c0 : CHUNK;
#pragma omp simd
            for (int t = 0; t < cnt; t++) {
                int i = c0 + t;
                fx[t] = (float)i + 0.5f - dtc * mean4(ul[i], ul[i + 1], uh[i], uh[i + 1]);
                fy[t] = (float)j - dtc * own[i];
                fz[t] = (float)k + 0.5f - dtc * mean4(wl0[i], wl1[i], wh0[i], wh1[i]);
            }
            const float *amb = amb_v ? amb_v + eddy__idx(fv, c0, j, k) : NULL;
            sample_feet(w, V, fv, off_v, 1, fx, fy, fz, cnt, out + c0, amb);
        }
    }
    /* w faces (i,j,k), k = 0..nz: cells k-1, k; u at columns i, i+1; v at rows j, j+1 */
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < ny * (nz + 1); row++) {
        int j = row % ny, k = row / ny;
        int kl = k > 0 ? k - 1 : 0, kh = k < nz ? k : nz - 1;
        const float *own = W + eddy__idx(fw, 0, j, k);
        const float *ul = U + eddy__idx(fu, 0, j, kl), *uh = U + eddy__idx(fu, 0, j, kh);
        const float *vl0 = V + eddy__idx(fv, 0, j, kl), *vl1 = V + eddy__idx(fv, 0, j + 1, kl);
        const float *vh0 = V + eddy__idx(fv, 0, j, kh), *vh1 = V + eddy__idx(fv, 0, j + 1, kh);
        float *out = s->vel_tmp[2] + eddy__idx(fw, 0, j, k);
        float fx[CHUNK], fy[CHUNK], fz[CHUNK];
        for (int c0 = 0; c0 < nx; c0 += CHUNK) {
            int cnt = nx - c0 < CHUNK ? nx - c0 : CHUNK;
#pragma omp simd
            for (int t = 0; t < cnt; t++) {
                int i = c0 + t;
                fx[t] = (float)i + 0.5f - dtc * mean4(ul[i], ul[i + 1], uh[i], uh[i + 1]);
                fy[t] = (float)j + 0.5f - dtc * mean4(vl0[i], vl1[i], vh0[i], vh1[i]);
                fz[t] = (float)k - dtc * own[i];
            }
            const float *amb = amb_w ? amb_w + eddy__idx(fw, c0, j, k) : NULL;
            sample_feet(w, W, fw, off_w, 2, fx, fy, fz, cnt, out + c0, amb);
        }
    }
    for (int a = 0; a < 3; a++) {
        float *t = s->vel[a];
        s->vel[a] = s->vel_tmp[a];
        s->vel_tmp[a] = t;
    }
}
