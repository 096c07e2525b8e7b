/* Buoyancy's row kernel (see forces.c for the method): one face row of the component along gravity, built once
 * per vector width (this file as the baseline, src/avx2/ again for AVX2; vector_isa.h), with the same float
 * operations in the same order in both.
 *
 * Interpolation weights of exactly 0 are skipped: a face row at the height of a scalar row in z (wz = 0, every
 * row of the component along y in 3D) interpolates in y only, and a run of faces that sit on their x samples
 * (w = 0) reads them directly. c * 1 + c' * 0 is c for every finite c' except that -0 becomes +0, so the
 * velocity is the same value as with the full trilinear weights, at most a zero of the other sign. */
#include "buoyancy.h"

/* the rows of the scalar grid a face row interpolates between: r00 (j0,k0), r10 (j1,k0), r01 (j0,k1),
 * r11 (j1,k1), weights wy, wz; planar: only r00 and r10 (2D, or wz = 0) */
typedef struct row_weights {
    size_t r00, r10, r01, r11;
    float wy, omwy, wz, omwz;
    bool planar;
} row_weights;

/* out[i] = the scalar field d interpolated at face i of a face row (X: the x table restricted to the block) */
static inline void sample_row(const float *d, const eddy_axis_table *X, const row_weights *R, float *out) {
    const float *d00 = d + R->r00, *d10 = d + R->r10, *d01 = d + R->r01, *d11 = d + R->r11;
    const float wy = R->wy, omwy = R->omwy, wz = R->wz, omwz = R->omwz;
    for (int pass = 0; pass < 3; pass++) {
        /* pass 0: faces before the regular run, 1: the run, 2: after it */
        int lo = pass == 0 ? 0 : pass == 1 ? X->reg_lo : X->reg_hi;
        int hi = pass == 0 ? X->reg_lo : pass == 1 ? X->reg_hi : X->n;
        if (pass == 1) {
            const int o = X->reg_off;
            const float *w = X->w, *omw = X->omw;
            if (R->planar && X->reg_exact) {
#pragma omp simd
                for (int i = lo; i < hi; i++) out[i] = d00[i + o] * omwy + d10[i + o] * wy;
            } else if (R->planar) {
#pragma omp simd
                for (int i = lo; i < hi; i++) {
                    float c00 = d00[i + o] * omw[i] + d00[i + o + 1] * w[i];
                    float c10 = d10[i + o] * omw[i] + d10[i + o + 1] * w[i];
                    out[i] = c00 * omwy + c10 * wy;
                }
            } else if (X->reg_exact) {
#pragma omp simd
                for (int i = lo; i < hi; i++) {
                    float c0 = d00[i + o] * omwy + d10[i + o] * wy;
                    float c1 = d01[i + o] * omwy + d11[i + o] * wy;
                    out[i] = c0 * omwz + c1 * wz;
                }
            } else {
#pragma omp simd
                for (int i = lo; i < hi; i++) {
                    float c00 = d00[i + o] * omw[i] + d00[i + o + 1] * w[i];
                    float c10 = d10[i + o] * omw[i] + d10[i + o + 1] * w[i];
                    float c0 = c00 * omwy + c10 * wy;
                    float c01 = d01[i + o] * omw[i] + d01[i + o + 1] * w[i];
                    float c11 = d11[i + o] * omw[i] + d11[i + o + 1] * w[i];
                    float c1 = c01 * omwy + c11 * wy;
                    out[i] = c0 * omwz + c1 * wz;
                }
            }
            continue;
        }
        for (int i = lo; i < hi; i++) {
            int a = X->i0[i], b = X->i1[i];
            float w = X->w[i], omw = X->omw[i];
            float c00 = d00[a] * omw + d00[b] * w;
            float c10 = d10[a] * omw + d10[b] * w;
            float c0 = c00 * omwy + c10 * wy;
            if (R->planar) {
                out[i] = c0;
                continue;
            }
            float c01 = d01[a] * omw + d01[b] * w;
            float c11 = d11[a] * omw + d11[b] * w;
            float c1 = c01 * omwy + c11 * wy;
            out[i] = c0 * omwz + c1 * wz;
        }
    }
}

enum { CHUNK = 256 }; /* faces per block: the sampled values wait in stack buffers */

void EDDY_ISA_NAME(eddy__buoyancy_row)(const eddy_buoyancy_job *job, int row) {
    const eddy_axis_table *T = job->T;
    const int n0 = job->n0, j = row % job->n1, k = row / job->n1;
    const float alpha = job->alpha, beta = job->beta, t_amb = job->t_amb, dtg = job->dtg;
    row_weights R;
    R.r00 = eddy__idx(job->sn, 0, T[1].i0[j], T[2].i0[k]);
    R.r10 = eddy__idx(job->sn, 0, T[1].i1[j], T[2].i0[k]);
    R.r01 = eddy__idx(job->sn, 0, T[1].i0[j], T[2].i1[k]);
    R.r11 = eddy__idx(job->sn, 0, T[1].i1[j], T[2].i1[k]);
    R.wy = T[1].w[j];
    R.omwy = T[1].omw[j];
    R.wz = T[2].w[k];
    R.omwz = T[2].omw[k];
    R.planar = job->flat || R.wz == 0.0f;
    float *vr = job->v + (size_t)row * n0;
    float sr[CHUNK], sgr[CHUNK], sb[CHUNK], st[CHUNK];
    for (int i0 = 0; i0 < n0; i0 += CHUNK) {
        const int m = n0 - i0 < CHUNK ? n0 - i0 : CHUNK;
        /* a table restricted to this block of faces */
        eddy_axis_table X = T[0];
        X.i0 += i0; X.i1 += i0; X.w += i0; X.omw += i0;
        X.n = m;
        X.reg_lo = eddy__clampi(T[0].reg_lo - i0, 0, m);
        X.reg_hi = eddy__clampi(T[0].reg_hi - i0, X.reg_lo, m);
        X.reg_off = T[0].reg_off + i0;
        if (alpha != 0.0f) {
            sample_row(job->dye[0], &X, &R, sr);
            sample_row(job->dye[1], &X, &R, sgr);
            sample_row(job->dye[2], &X, &R, sb);
        }
        if (beta != 0.0f) sample_row(job->temperature, &X, &R, st);
        float *vb = vr + i0;
        if (alpha != 0.0f && beta != 0.0f) {
#pragma omp simd
            for (int i = 0; i < m; i++) {
                float d = sr[i] + sgr[i] + sb[i], temp = st[i] - t_amb;
                vb[i] += dtg * (alpha * d - beta * temp);
            }
        } else if (alpha != 0.0f) {
#pragma omp simd
            for (int i = 0; i < m; i++) {
                float d = sr[i] + sgr[i] + sb[i], temp = 0.0f;
                vb[i] += dtg * (alpha * d - beta * temp);
            }
        } else {
#pragma omp simd
            for (int i = 0; i < m; i++) {
                float d = 0.0f, temp = st[i] - t_amb;
                vb[i] += dtg * (alpha * d - beta * temp);
            }
        }
    }
    EDDY_ISA_LEAVE();
}
