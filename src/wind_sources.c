/* Sources of the game wind field, applied before the projection each frame.
 *  - Colliders (spheres, capsules with a velocity V):
 *    cells whose centre is inside become solid with velocity V: the faces touching them are held at V and the
 *    projection pushes the air around them (Bridson 2015, ch. 5: moving solid boundaries, u.n = V.n);
 *    every face near the surface is pulled towards V by its coverage c = clamp(1/2 - d/h, 0, 1) (d: signed
 *    distance of the face to the surface, so c ~ the fraction of a cell around the face inside the body). The air
 *    inside a body thus takes its velocity, a body thinner than a cell still moves the air it covers (the
 *    projection turns that into the flow around it), and the imprint moves smoothly as the body moves.
 *  - Gusts: u <- u + (1 - e^(-rate dt)) w(r) (V - u), w(r) = (1 - r^2/R^2)^2, a smooth pull towards V.
 *  - Explosions: a volume source of radius R, outward speed s at R: u = s (R/r)^2 r^ outside (the potential flow
 *    of a point source, divergence-free) and u = s r / R r^ inside (uniform expansion 3 s / R). The frame adds it
 *    after projecting the rest of the field, so the air moves out radially while the explosion lasts. */
#include "wind_internal.h"

#include <math.h>
#include <string.h>

eddy_status eddy__wind_check_collider(eddy_wind *w, const eddy_wind_collider *c, int index) {
    if (c->shape != EDDY_SHAPE_SPHERE && c->shape != EDDY_SHAPE_CAPSULE)
        return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind collider %d: shape = %d: must be sphere or capsule",
                          index, (int)c->shape);
    if (!(c->radius > 0 && c->radius <= EDDY__WIND_MAX_LENGTH))
        return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind collider %d: radius = %g: must be a positive length of at most %g m",
                          index, (double)c->radius, (double)EDDY__WIND_MAX_LENGTH);
    for (int a = 0; a < 3; a++)
        if (!isfinite(c->center[a]))
            return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind collider %d: center[%d] = %g: must be finite (m)", index, a,
                              (double)c->center[a]);
    for (int a = 0; a < 3; a++) {
        if (!(fabsf(c->axis[a]) <= EDDY__WIND_MAX_LENGTH))
            return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind collider %d: axis[%d] = %g: must be within +-%g m", index, a,
                              (double)c->axis[a], (double)EDDY__WIND_MAX_LENGTH);
        if (!(fabsf(c->velocity[a]) <= EDDY__WIND_MAX_SPEED))
            return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind collider %d: velocity[%d] = %g: must be within +-%g m/s", index,
                              a, (double)c->velocity[a], (double)EDDY__WIND_MAX_SPEED);
    }
    return EDDY_OK;
}

eddy_status eddy__wind_check_gust(eddy_wind *w, const eddy_wind_gust *g, int index) {
    if (!(g->radius == 0 || (g->radius >= EDDY__WIND_MIN_LENGTH && g->radius <= EDDY__WIND_MAX_LENGTH)))
        return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind gust %d: radius = %g: must be 0 (everywhere) or %g .. %g m",
                          index, (double)g->radius, (double)EDDY__WIND_MIN_LENGTH, (double)EDDY__WIND_MAX_LENGTH);
    if (!isfinite(g->rate) || g->rate < 0)
        return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind gust %d: rate = %g: must be >= 0 per second", index,
                          (double)g->rate);
    for (int a = 0; a < 3; a++)
        if (!isfinite(g->center[a]))
            return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind gust %d: center[%d] = %g: must be finite (m)", index, a,
                              (double)g->center[a]);
    for (int a = 0; a < 3; a++)
        if (!(fabsf(g->velocity[a]) <= EDDY__WIND_MAX_SPEED))
            return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind gust %d: velocity[%d] = %g: must be within +-%g m/s", index, a,
                              (double)g->velocity[a], (double)EDDY__WIND_MAX_SPEED);
    return EDDY_OK;
}

/* window-local position of a world point, m */
static void to_local(const eddy_wind *w, const float p[3], float out[3]) {
    for (int a = 0; a < 3; a++) out[a] = (float)((double)p[a] - w->origin[a]);
}

/* index range [lo, hi) of samples at (i + off) h that may lie within [cmin, cmax], clamped to [0, m) */
static void sample_range(float cmin, float cmax, float h, float off, int m, int *lo, int *hi) {
    float a = floorf(cmin / h - off), b = ceilf(cmax / h - off) + 1.0f;
    a = a < 0 ? 0 : (a > (float)m ? (float)m : a);
    b = b < 0 ? 0 : (b > (float)m ? (float)m : b);
    *lo = (int)a;
    *hi = (int)b;
}

eddy_status eddy__wind_apply_colliders(eddy_wind *w, const eddy_wind_collider *cols, int count) {
    eddy_sim *s = w->sim;
    if (w->solid_any) memset(s->solid, 0, s->ncells);
    w->solid_any = false;
    const float h = s->h, inv_h = 1.0f / h;
    for (int a = 0; a < 3; a++) {
        w->solid_lo[a] = s->n[a];
        w->solid_hi[a] = 0;
    }
    for (int ci = 0; ci < count; ci++) {
        const eddy_wind_collider *c = &cols[ci];
        float lc[3], bmin[3], bmax[3];
        to_local(w, c->center, lc);
        const float *axis = c->shape == EDDY_SHAPE_CAPSULE ? c->axis : (const float[3]){0, 0, 0};
        for (int a = 0; a < 3; a++) {
            float ext = c->radius + fabsf(axis[a]);
            bmin[a] = lc[a] - ext;
            bmax[a] = lc[a] + ext;
        }
        /* cells whose centre is inside: solid with the collider's velocity */
        int lo[3], hi[3];
        for (int a = 0; a < 3; a++) sample_range(bmin[a], bmax[a], h, 0.5f, s->n[a], &lo[a], &hi[a]);
        for (int k = lo[2]; k < hi[2]; k++)
            for (int j = lo[1]; j < hi[1]; j++)
                for (int i = lo[0]; i < hi[0]; i++) {
                    float p[3] = {((float)i + 0.5f) * h, ((float)j + 0.5f) * h, ((float)k + 0.5f) * h};
                    if (eddy__shape_sdf(c->shape, lc, c->radius, NULL, axis, NULL, NULL, p, 3) >= 0) continue;
                    size_t q = eddy__idx(s->n, i, j, k);
                    s->solid[q] = EDDY_CELL_SOLID;
                    for (int a = 0; a < 3; a++) s->solid_vel[a][q] = c->velocity[a];
                    int idx[3] = {i, j, k};
                    for (int a = 0; a < 3; a++) {
                        w->solid_lo[a] = idx[a] < w->solid_lo[a] ? idx[a] : w->solid_lo[a];
                        w->solid_hi[a] = idx[a] + 1 > w->solid_hi[a] ? idx[a] + 1 : w->solid_hi[a];
                    }
                    w->solid_any = true;
                }
        /* faces near the surface: pulled towards the collider's velocity by their coverage */
        for (int a = 0; a < 3; a++) {
            int fn[3];
            eddy__face_dims(s, a, fn);
            for (int b = 0; b < 3; b++)
                sample_range(bmin[b] - 0.5f * h, bmax[b] + 0.5f * h, h, b == a ? 0.0f : 0.5f, fn[b], &lo[b], &hi[b]);
            float *v = s->vel[a];
            const float target = c->velocity[a];
            for (int k = lo[2]; k < hi[2]; k++)
                for (int j = lo[1]; j < hi[1]; j++)
                    for (int i = lo[0]; i < hi[0]; i++) {
                        float p[3] = {((float)i + (a == 0 ? 0.0f : 0.5f)) * h, ((float)j + (a == 1 ? 0.0f : 0.5f)) * h,
                                      ((float)k + (a == 2 ? 0.0f : 0.5f)) * h};
                        float d = eddy__shape_sdf(c->shape, lc, c->radius, NULL, axis, NULL, NULL, p, 3);
                        float cover = 0.5f - d * inv_h;
                        if (cover <= 0.0f) continue;
                        cover = cover > 1.0f ? 1.0f : cover;
                        size_t f = eddy__idx(fn, i, j, k);
                        v[f] = v[f] + cover * (target - v[f]);
                    }
        }
    }
    int solid_cells = 0;
    if (w->solid_any)
        for (int k = w->solid_lo[2]; k < w->solid_hi[2]; k++)
            for (int j = w->solid_lo[1]; j < w->solid_hi[1]; j++)
                for (int i = w->solid_lo[0]; i < w->solid_hi[0]; i++) solid_cells += s->solid[eddy__idx(s->n, i, j, k)];
    w->stats.solid_cells = solid_cells;
    eddy__wind_impose_solid_faces(w);
    return EDDY_OK;
}

void eddy__wind_impose_solid_faces(eddy_wind *w) {
    if (!w->solid_any) return;
    eddy_sim *s = w->sim;
    for (int a = 0; a < 3; a++) {
        int fn[3], lo[3], hi[3];
        eddy__face_dims(s, a, fn);
        for (int b = 0; b < 3; b++) {
            lo[b] = w->solid_lo[b];
            hi[b] = w->solid_hi[b] + (b == a); /* the far face of the last solid cell */
        }
        /* faces on the window's edge are open (outflow), as the projection treats them */
        if (lo[a] < 1) lo[a] = 1;
        if (hi[a] > s->n[a]) hi[a] = s->n[a];
        float *v = s->vel[a];
        const float *sv = s->solid_vel[a];
        const size_t step = a == 0 ? 1 : (a == 1 ? (size_t)s->n[0] : (size_t)s->n[0] * s->n[1]);
        for (int k = lo[2]; k < hi[2]; k++)
            for (int j = lo[1]; j < hi[1]; j++)
                for (int i = lo[0]; i < hi[0]; i++) {
                    int c[3] = {i, j, k};
                    c[a] -= 1; /* the cell below the face; the one above is `step` further */
                    size_t cl = eddy__idx(s->n, c[0], c[1], c[2]), ch = cl + step;
                    bool sl = s->solid[cl] != 0, sh = s->solid[ch] != 0;
                    if (!sl && !sh) continue;
                    /* the mean of the solid neighbours, as boundary.c does */
                    v[eddy__idx(fn, i, j, k)] = sl && sh ? 0.5f * (sv[cl] + sv[ch]) : (sl ? sv[cl] : sv[ch]);
                }
    }
}

eddy_status eddy__wind_apply_gusts(eddy_wind *w, const eddy_wind_gust *gusts, int count, float dt) {
    eddy_sim *s = w->sim;
    const float h = s->h;
    for (int gi = 0; gi < count; gi++) {
        const eddy_wind_gust *g = &gusts[gi];
        const float k0 = (float)(1.0 - exp(-(double)g->rate * (double)dt));
        if (k0 == 0.0f) continue;
        float lc[3];
        to_local(w, g->center, lc);
        const float R = g->radius, inv_r2 = R > 0 ? 1.0f / (R * R) : 0.0f;
        for (int a = 0; a < 3; a++) {
            int fn[3], lo[3], hi[3];
            eddy__face_dims(s, a, fn);
            for (int b = 0; b < 3; b++) {
                if (R > 0) sample_range(lc[b] - R, lc[b] + R, h, b == a ? 0.0f : 0.5f, fn[b], &lo[b], &hi[b]);
                else lo[b] = 0, hi[b] = fn[b];
            }
            float *v = s->vel[a];
            const float target = g->velocity[a];
            for (int k = lo[2]; k < hi[2]; k++)
                for (int j = lo[1]; j < hi[1]; j++)
                    for (int i = lo[0]; i < hi[0]; i++) {
                        float weight = 1.0f;
                        if (R > 0) {
                            float dx = ((float)i + (a == 0 ? 0.0f : 0.5f)) * h - lc[0];
                            float dy = ((float)j + (a == 1 ? 0.0f : 0.5f)) * h - lc[1];
                            float dz = ((float)k + (a == 2 ? 0.0f : 0.5f)) * h - lc[2];
                            float q = 1.0f - (dx * dx + dy * dy + dz * dz) * inv_r2;
                            if (q <= 0.0f) continue;
                            weight = q * q;
                        }
                        size_t f = eddy__idx(fn, i, j, k);
                        v[f] = v[f] + k0 * weight * (target - v[f]);
                    }
        }
    }
    return EDDY_OK;
}

eddy_status eddy_wind_explode(eddy_wind *w, const eddy_wind_explosion *e) {
    if (!w) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_sim *s = w->sim;
    s->error[0] = '\0';
    if (!e) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "wind explode: explosion is NULL");
    for (int a = 0; a < 3; a++)
        if (!isfinite(e->center[a]))
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "wind explode: center[%d] = %g: must be finite (m)", a, (double)e->center[a]);
    if (!(e->radius >= EDDY__WIND_MIN_LENGTH && e->radius <= EDDY__WIND_MAX_LENGTH))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "wind explode: radius = %g: must be %g .. %g m", (double)e->radius,
                          (double)EDDY__WIND_MIN_LENGTH, (double)EDDY__WIND_MAX_LENGTH);
    if (!(e->speed >= 0 && e->speed <= EDDY__WIND_MAX_SPEED))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "wind explode: speed = %g: must be 0 .. %g m/s", (double)e->speed,
                          (double)EDDY__WIND_MAX_SPEED);
    if (!isfinite(e->duration) || e->duration < 0)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "wind explode: duration = %g: must be >= 0 s", (double)e->duration);
    if (w->def.max_explosions == 0)
        return eddy__fail(s, EDDY_ERR_UNSUPPORTED, "wind explode: this wind field was created with max_explosions = 0");
    int slot = w->explosion_count;
    if (slot == w->def.max_explosions) {
        /* full: the explosion nearest to its end gives way */
        float best = -1.0f;
        for (int i = 0; i < w->explosion_count; i++) {
            float left = w->explosions[i].duration > 0 ? w->explosion_age[i] / w->explosions[i].duration : 1.0f;
            if (left > best) best = left, slot = i;
        }
    } else {
        w->explosion_count++;
    }
    w->explosions[slot] = *e;
    w->explosion_age[slot] = 0.0f;
    return EDDY_OK;
}

int eddy__wind_explosion_flow(eddy_wind *w) {
    eddy_sim *s = w->sim;
    const float h = s->h;
    for (int a = 0; a < 3; a++) memset(w->source_flow[a], 0, s->nface[a] * sizeof(float));
    int active = 0;
    for (int ei = 0; ei < w->explosion_count; ei++) {
        const eddy_wind_explosion *e = &w->explosions[ei];
        float strength = e->duration > 0 ? 1.0f - w->explosion_age[ei] / e->duration : 1.0f;
        if (strength <= 0.0f || e->speed == 0.0f) continue;
        active++;
        const float sp = e->speed * strength, R = e->radius, R2 = R * R;
        float lc[3];
        to_local(w, e->center, lc);
        /* farther from the window than float reaches (a window near +3e38 m, an explosion near -3e38 m): its flow
         * here, at most s R^2 / r^2 < 1e6 * 1e30 / 1e76 m/s, is 0 in float; computed, inf - inf made it NaN */
        if (!(isfinite(lc[0]) && isfinite(lc[1]) && isfinite(lc[2]))) continue;
        for (int a = 0; a < 3; a++) {
            int fn[3];
            eddy__face_dims(s, a, fn);
            float *f = w->source_flow[a];
            int rows = fn[1] * fn[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
            for (int row = 0; row < rows; row++) {
                int j = row % fn[1], k = row / fn[1];
                float dy = ((float)j + (a == 1 ? 0.0f : 0.5f)) * h - lc[1];
                float dz = ((float)k + (a == 2 ? 0.0f : 0.5f)) * h - lc[2];
                float *o = f + (size_t)row * fn[0];
                for (int i = 0; i < fn[0]; i++) {
                    float dx = ((float)i + (a == 0 ? 0.0f : 0.5f)) * h - lc[0];
                    float r2 = dx * dx + dy * dy + dz * dz;
                    float da = a == 0 ? dx : (a == 1 ? dy : dz);
                    float add = r2 < R2 ? sp * da / R : sp * R2 * da / (r2 * sqrtf(r2));
                    if (!isfinite(add)) { /* far away: s R^2 da or r^2 overflowed float; the flow there is ~0 */
                        const double ddx = (double)dx, ddy = (double)dy, ddz = (double)dz, dda = (double)da;
                        const double rr2 = ddx * ddx + ddy * ddy + ddz * ddz, RR2 = (double)R * (double)R;
                        add = (float)(rr2 < RR2 ? (double)sp * dda / (double)R : (double)sp * RR2 * dda / (rr2 * sqrt(rr2)));
                    }
                    o[i] += add;
                }
            }
        }
    }
    return active;
}
