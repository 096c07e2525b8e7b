/* Signed distance from an indicator, from analytic shapes, and re-initialisation of a level set.
 *
 * Interface step: with g = field - level (or level - field) and "inside" meaning g > 0, the interface crosses the
 * segment between face neighbours p and q of opposite sides at the fraction t = g_p / (g_p - g_q) from p (linear
 * interpolation). Along axis a the nearest crossing is d_a = h * min t; the points with a crossing get
 *     |phi_p| = 1 / sqrt(sum_a 1 / d_a^2),
 * the distance from p to the plane through the crossings (exact for a planar interface, second order for a smooth
 * one), and are pinned; the fast sweeps (eikonal.c) fill the rest. This is the initialisation used with fast
 * marching and fast sweeping (Sethian 1999, "Level Set Methods and Fast Marching Methods", ch. 11; Zhao 2005,
 * "A fast sweeping method for Eikonal equations", Math. Comp. 74). Re-initialisation is the same with the level
 * set's own zero level (Sussman, Smereka & Osher 1994 do it by a PDE; sweeping gets the same distance directly).
 * Analytic shapes use the exact signed distances of obstacles.c (eddy__shape_sdf). */
#include "sim_internal.h" /* eddy__shape_sdf */
#include "surface_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

eddy_status eddy__sdf_sweep_impl(eddy_surface *s, float *phi, const uint8_t *pinned); /* eikonal.c */

/* The indicator sign * (f - level): in float as always, in double where the float difference overflows (a value
 * and a level of opposite signs near the float range), which would make the crossing inf/inf = NaN. The sign is
 * the same either way (float subtraction is zero only for equal values). */
static inline double indicator(float f, float level, float sign) {
    const float g = sign * (f - level);
    return isinf(g) ? (double)sign * ((double)f - (double)level) : (double)g;
}

/* Fraction t in (0, 1] from p to the nearest crossing along one axis (p's indicator gp, `in` = gp > 0), or 2 when
 * neither neighbour (where present) lies on the other side. */
static inline double axis_crossing(const float *field, size_t p, size_t stride, int has_lo, int has_hi, float sign,
                                   float level, double gp, int in) {
    double t_min = 2.0;
    if (has_lo) {
        const double gq = indicator(field[p - stride], level, sign);
        if ((gq > 0) != in) t_min = gp / (gp - gq);
    }
    if (has_hi) {
        const double gq = indicator(field[p + stride], level, sign);
        if ((gq > 0) != in) {
            const double t = gp / (gp - gq);
            if (t < t_min) t_min = t;
        }
    }
    return t_min;
}

eddy_status eddy_sdf_seed(eddy_surface *s, const float *field, size_t count, float level, int inside_above, float *phi) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st;
    if ((st = eddy__surface_check_array(s, field, count, "field")) != EDDY_OK ||
        (st = eddy__surface_check_array(s, phi, count, "phi")) != EDDY_OK)
        return st;
    if (!isfinite(level)) return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "level = %g: must be finite", (double)level);
    memset(&s->stats, 0, sizeof s->stats);
    const double t0 = omp_get_wtime();
    if (phi == field) { /* in place: the interface step reads neighbours it has already overwritten */
        if (!s->copy && !(s->copy = (float *)malloc(s->count * sizeof(float))))
            return eddy__surface_fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for a copy of %zu values (in-place seed)",
                                      s->count);
        memcpy(s->copy, field, s->count * sizeof(float));
        field = s->copy;
    }
    const int n0 = s->n[0], n1 = s->n[1], n2 = s->n[2], three = s->dim == 3;
    const int rows = s->rows;
    const float sign = inside_above ? 1.0f : -1.0f;
    const double h = (double)s->h;
    const size_t sy = (size_t)n0, sz = (size_t)n0 * (size_t)n1;
#pragma omp parallel for num_threads(s->threads) schedule(static)
    for (int row = 0; row < rows; row++) {
        const int j = row % n1, k = row / n1;
        const int has_y[2] = {j > 0, j < n1 - 1}, has_z[2] = {three && k > 0, three && k < n2 - 1};
        size_t pinned_here = 0;
        int bad = -1;
        for (int i = 0; i < n0; i++) {
            const size_t p = (size_t)row * sy + (size_t)i;
            if (!isfinite(field[p]) && bad < 0) bad = i;
            const double gp = indicator(field[p], level, sign);
            const int in = gp > 0;
            const double t[3] = {axis_crossing(field, p, 1, i > 0, i < n0 - 1, sign, level, gp, in),
                                 axis_crossing(field, p, sy, has_y[0], has_y[1], sign, level, gp, in),
                                 axis_crossing(field, p, sz, has_z[0], has_z[1], sign, level, gp, in)};
            if (t[0] > 1.5 && t[1] > 1.5 && t[2] > 1.5) { /* away from the interface: the sweeps fill it */
                phi[p] = in ? -INFINITY : INFINITY;
                s->pinned[p] = 0;
            } else {
                /* distance to the plane through the crossings: 1/d^2 = sum over crossed axes of 1/d_a^2 */
                double inv_sq = 0;
                int on_interface = 0;
                for (int a = 0; a < 3; a++) {
                    if (t[a] > 1.5) continue;
                    if (t[a] <= 0) on_interface = 1;
                    else inv_sq += 1.0 / (t[a] * t[a] * h * h);
                }
                const float d = on_interface ? 0.0f : (float)(1.0 / sqrt(inv_sq));
                phi[p] = in ? -d : d;
                s->pinned[p] = 1;
                pinned_here++;
            }
            s->inside[p] = (uint8_t)in;
        }
        s->row_count[row] = pinned_here;
        s->row_bad[row] = bad;
    }
    size_t pinned = 0;
    for (int row = 0; row < rows; row++) {
        if (s->row_bad[row] >= 0) {
            size_t p = (size_t)row * sy + (size_t)s->row_bad[row];
            if (field == s->copy) memcpy(phi, s->copy, s->count * sizeof(float)); /* in place: give the input back */
            return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "field at point (%d, %d, %d) = %g: values must be finite",
                                      s->row_bad[row], row % n1, row / n1, (double)field[p]);
        }
        pinned += s->row_count[row];
    }
    s->stats.pinned = pinned;
    s->stats.seed_ms = (omp_get_wtime() - t0) * 1e3;
    return EDDY_OK;
}

eddy_status eddy_sdf_from_field(eddy_surface *s, const float *field, size_t count, float level, int inside_above,
                                float *phi) {
    eddy_status st = eddy_sdf_seed(s, field, count, level, inside_above, phi);
    if (st != EDDY_OK) return st;
    return eddy__sdf_sweep_impl(s, phi, s->pinned);
}

eddy_status eddy_sdf_from_densities(eddy_surface *s, const float *field, size_t count, float inside_density,
                                    float outside_density, float *phi) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    if (!isfinite(inside_density) || !isfinite(outside_density) || inside_density == outside_density)
        return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT,
                                  "inside_density = %g, outside_density = %g: must be finite and different",
                                  (double)inside_density, (double)outside_density);
    float level = 0.5f * inside_density + 0.5f * outside_density;
    /* adjacent floats have no float between them: the halfway sum rounds onto one, and onto the inside density the
     * inside would count as outside (a value at the level is outside), leaving no interface. The outside density
     * as the level still puts each density on its side. */
    if (level == inside_density) level = outside_density;
    return eddy_sdf_from_field(s, field, count, level, inside_density > outside_density, phi);
}

eddy_status eddy_sdf_reinitialize(eddy_surface *s, float *phi, size_t count) {
    return eddy_sdf_from_field(s, phi, count, 0.0f, 0, phi);
}

static eddy_status check_shape(eddy_surface *s, const eddy_obstacle_def *d, int index) {
    for (int a = 0; a < 3; a++)
        if (!isfinite(d->center[a]) || !isfinite(d->half_size[a]) || !isfinite(d->axis[a]))
            return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "shapes[%d]: center, half_size and axis must be finite",
                                      index);
    switch (d->shape) {
    case EDDY_SHAPE_SPHERE:
    case EDDY_SHAPE_CAPSULE:
        if (!(isfinite(d->radius) && d->radius > 0))
            return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "shapes[%d].radius = %g: must be a positive length in metres",
                                      index, (double)d->radius);
        return EDDY_OK;
    case EDDY_SHAPE_BOX:
        for (int a = 0; a < s->dim; a++)
            if (!(d->half_size[a] > 0))
                return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "shapes[%d].half_size[%d] = %g: must be positive", index,
                                          a, (double)d->half_size[a]);
        return EDDY_OK;
    case EDDY_SHAPE_SDF:
        if (!d->sdf) return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "shapes[%d]: shape is sdf but sdf is NULL", index);
        return EDDY_OK;
    }
    return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "shapes[%d].shape = %d: not an eddy_shape", index, (int)d->shape);
}

eddy_status eddy_sdf_from_shapes(eddy_surface *s, const eddy_obstacle_def *shapes, int shape_count, float *phi,
                                 size_t count) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st = eddy__surface_check_array(s, phi, count, "phi");
    if (st != EDDY_OK) return st;
    if (!shapes || shape_count < 1)
        return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "shape_count = %d (shapes %s): need at least one shape",
                                  shape_count, shapes ? "given" : "NULL");
    for (int o = 0; o < shape_count; o++)
        if ((st = check_shape(s, &shapes[o], o)) != EDDY_OK) return st;
    memset(&s->stats, 0, sizeof s->stats);
    double t0 = omp_get_wtime();
    const int n0 = s->n[0], n1 = s->n[1], rows = s->rows, dim = s->dim;
    const float h = s->h;
    const float *origin = s->def.origin;
#pragma omp parallel for num_threads(s->threads) schedule(static)
    for (int row = 0; row < rows; row++) {
        const int j = row % n1, k = row / n1;
        int bad = -1;
        for (int i = 0; i < n0; i++) {
            const float p[3] = {origin[0] + (float)i * h, origin[1] + (float)j * h, origin[2] + (float)k * h};
            float d = INFINITY;
            for (int o = 0; o < shape_count; o++) {
                const eddy_obstacle_def *sh = &shapes[o];
                float e = eddy__shape_sdf(sh->shape, sh->center, sh->radius, sh->half_size, sh->axis, sh->sdf, sh->sdf_user, p, dim);
                if (e < d) d = e;
            }
            phi[eddy__sidx(s->n, i, j, k)] = d;
            if (!isfinite(d) && bad < 0) bad = i;
        }
        s->row_bad[row] = bad;
    }
    for (int row = 0; row < rows; row++)
        if (s->row_bad[row] >= 0) {
            const int i = s->row_bad[row], j = row % n1, k = row / n1;
            return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT,
                                      "distance at point (%d, %d, %d) = %g: not finite (an sdf callback returned NaN or "
                                      "inf, or a shape is too far away or too large for float distances)",
                                      i, j, k, (double)phi[eddy__sidx(s->n, i, j, k)]);
        }
    s->stats.seed_ms = (omp_get_wtime() - t0) * 1e3;
    return EDDY_OK;
}
