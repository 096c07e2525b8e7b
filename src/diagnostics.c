/* Per-step diagnostics: discrete divergence (1/s) over fluid cells (max and RMS), kinetic energy
 * 0.5 * sum over faces of u_f^2 * h^d (the MAC grid's natural energy), total dye, maximum speed at cell centres,
 * and the CFL number max|u_face| dt / h (the quantity the CFL-limited step controls).
 * Reductions: one partial per row, summed serially, so the figures do not depend on the thread count. */
#include "sim_internal.h"

#include <math.h>

float eddy__cell_divergence(const eddy_sim *s, int i, int j, int k) {
    int fu[3], fv[3];
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    float d = s->vel[0][eddy__idx(fu, i + 1, j, k)] - s->vel[0][eddy__idx(fu, i, j, k)] +
              s->vel[1][eddy__idx(fv, i, j + 1, k)] - s->vel[1][eddy__idx(fv, i, j, k)];
    if (s->dim == 3) {
        int fw[3];
        eddy__face_dims(s, 2, fw);
        d += s->vel[2][eddy__idx(fw, i, j, k + 1)] - s->vel[2][eddy__idx(fw, i, j, k)];
    }
    return d / s->h;
}

eddy_status eddy__diagnostics(eddy_sim *s, float dt) {
    const int rows = s->n[1] * s->n[2];
    double *maxdiv = s->row_partial, *sumdiv2 = s->row_partial + rows, *maxspeed = s->row_partial + 2 * rows;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % s->n[1], k = row / s->n[1];
        double md = 0, sd = 0, ms = 0;
        for (int i = 0; i < s->n[0]; i++) {
            size_t c = eddy__idx(s->n, i, j, k);
            if (s->solid[c]) continue;
            double d = eddy__cell_divergence(s, i, j, k);
            md = fabs(d) > md ? fabs(d) : md;
            sd += d * d;
            double sp2 = 0;
            for (int a = 0; a < s->dim; a++) {
                int fn[3], hi[3] = {i, j, k};
                eddy__face_dims(s, a, fn);
                hi[a]++;
                double u = 0.5 * ((double)s->vel[a][eddy__idx(fn, i, j, k)] + s->vel[a][eddy__idx(fn, hi[0], hi[1], hi[2])]);
                sp2 += u * u;
            }
            ms = sp2 > ms ? sp2 : ms;
        }
        maxdiv[row] = md;
        sumdiv2[row] = sd;
        maxspeed[row] = ms;
    }
    double md = 0, sd = 0, ms = 0;
    for (int r = 0; r < rows; r++) {
        md = maxdiv[r] > md ? maxdiv[r] : md;
        sd += sumdiv2[r];
        ms = maxspeed[r] > ms ? maxspeed[r] : ms;
    }
    size_t fluid = 0;
    for (size_t c = 0; c < s->ncells; c++) fluid += !s->solid[c];

    /* energy and the largest face component, per face row of each component */
    double energy = 0, maxface = 0;
    double cell_volume = (double)s->h * s->h * (s->dim == 3 ? s->h : 1.0);
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        int frows = fn[1] * fn[2];
        double *e = s->row_partial; /* 2 slots per face row: face rows <= 2 * cell rows, within the 4 per row */
        const float *v = s->vel[a];
        int last = fn[0] - (a == 0 && s->periodic[0] ? 1 : 0); /* periodic: face n repeats face 0 */
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
        for (int row = 0; row < frows; row++) {
            int j = row % fn[1], k = row / fn[1];
            double sum = 0, mx = 0;
            bool dup = (a == 1 && s->periodic[1] && j == s->n[1]) || (a == 2 && s->periodic[2] && k == s->n[2]);
            if (!dup)
                for (int i = 0; i < last; i++) {
                    double u = v[eddy__idx(fn, i, j, k)];
                    sum += u * u;
                    mx = fabs(u) > mx ? fabs(u) : mx;
                }
            e[2 * row] = sum;
            e[2 * row + 1] = mx;
        }
        for (int r = 0; r < frows; r++) {
            energy += e[2 * r];
            maxface = e[2 * r + 1] > maxface ? e[2 * r + 1] : maxface;
        }
    }

    int srows = s->sn[1] * s->sn[2];
    double *dp = s->row_partial;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < srows; row++) {
        int j = row % s->sn[1], k = row / s->sn[1];
        double sum = 0;
        for (int i = 0; i < s->sn[0]; i++) {
            size_t q = eddy__idx(s->sn, i, j, k);
            sum += (double)s->dye[0][q] + s->dye[1][q] + s->dye[2][q];
        }
        dp[row] = sum;
    }
    double dye = 0;
    for (int r = 0; r < srows; r++) dye += dp[r];
    double scalar_volume = (double)s->sh[0] * s->sh[1] * (s->dim == 3 ? s->sh[2] : 1.0);

    eddy_step_stats *st = &s->stats;
    st->max_div = (float)md;
    st->rms_div = fluid ? (float)sqrt(sd / (double)fluid) : 0.0f;
    st->kinetic_energy = 0.5 * energy * cell_volume;
    st->dye_total = dye * scalar_volume;
    st->max_speed = (float)sqrt(ms);
    st->cfl = (float)(maxface * dt / s->h);
    if (!isfinite(st->kinetic_energy) || !isfinite(st->dye_total))
        return eddy__fail(s, EDDY_ERR_NON_FINITE, "non-finite diagnostics in step %ld", s->step);
    return EDDY_OK;
}
