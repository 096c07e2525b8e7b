/* Particles carried by the wind (grass seeds, leaves, sparks, smoke): each obeys
 *   dv/dt = k (u(x) - v) + g      (linear drag of rate k towards the wind u, gravity g)
 * integrated exactly over a step for the wind u sampled at the start of the step:
 *   v(dt) = u + (v0 - u) e + g c1,    x(dt) = x0 + u dt + (v0 - u) c1 + g c2,
 *   e = exp(-k dt),  c1 = (1 - e) / k,  c2 = (dt - c1) / k     (k -> 0: c1 = dt, c2 = dt^2 / 2, ballistic).
 * So a particle in a uniform wind approaches it as u (1 - e^(-k t)) for any dt: no stability limit on k dt.
 * Particles respawn at a random point of a box region when their lifetime ends; randoms come from a hash of
 * (seed, particle index, spawn count), so the result does not depend on the thread count. */
#include "wind_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct eddy_particles {
    eddy_particles_def def;
    float *pos, *vel, *age, *life;
    uint32_t *gen;   /* spawns so far; 0 = not born yet */
    float region_min[3], region_max[3];
    char error[256];
};

eddy_particles_def eddy_particles_def_default(void) {
    eddy_particles_def d;
    memset(&d, 0, sizeof d);
    d.count = 1000;
    d.drag = 4.0f;
    d.lifetime = 5.0f;
    d.lifetime_jitter = 0.5f;
    d.region_min[0] = -12.0f;
    d.region_min[1] = 0.0f;
    d.region_min[2] = -12.0f;
    d.region_max[0] = 12.0f;
    d.region_max[1] = 6.0f;
    d.region_max[2] = 12.0f;
    d.region_follows_wind = 1;
    d.seed = 1;
    d.threads = 1;
    return d;
}

static eddy_status check_region(const float lo[3], const float hi[3], char *msg, size_t msg_size) {
    for (int a = 0; a < 3; a++)
        if (!isfinite(lo[a]) || !isfinite(hi[a]))
            return eddy__def_error(msg, msg_size, "particle region_%s[%d] = %g: must be finite (m)", isfinite(lo[a]) ? "max" : "min", a,
                                   (double)(isfinite(lo[a]) ? hi[a] : lo[a]));
    for (int a = 0; a < 3; a++)
        if (lo[a] > hi[a])
            return eddy__def_error(msg, msg_size, "particle region_min[%d] = %g > region_max[%d] = %g: the box is empty", a,
                           (double)lo[a], a, (double)hi[a]);
    return EDDY_OK;
}

eddy_status eddy_particles_def_validate(const eddy_particles_def *d, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!d) return eddy__def_error(msg, msg_size, "particle definition is NULL");
    if (d->count < 1 || d->count > (1 << 26))
        return eddy__def_error(msg, msg_size, "particle count = %d: must be 1..%d", d->count, 1 << 26);
    if (!isfinite(d->drag) || d->drag < 0)
        return eddy__def_error(msg, msg_size, "particle drag = %g: must be >= 0 per second", (double)d->drag);
    for (int a = 0; a < 3; a++) /* a finite but huge gravity overflowed positions to inf, then NaN */
        if (!(fabsf(d->gravity[a]) <= 1e6f))
            return eddy__def_error(msg, msg_size, "particle gravity[%d] = %g: must be within +-1e6 m/s^2", a, (double)d->gravity[a]);
    if (!isfinite(d->lifetime) || d->lifetime <= 0)
        return eddy__def_error(msg, msg_size, "particle lifetime = %g: must be positive seconds", (double)d->lifetime);
    if (!isfinite(d->lifetime_jitter) || d->lifetime_jitter < 0 || d->lifetime_jitter >= 1)
        return eddy__def_error(msg, msg_size, "particle lifetime_jitter = %g: must be in [0, 1)", (double)d->lifetime_jitter);
    if ((d->region_follows_wind != 0 && d->region_follows_wind != 1) ||
        (d->respawn_outside_window != 0 && d->respawn_outside_window != 1))
        return eddy__def_error(msg, msg_size, "particle region_follows_wind = %d, respawn_outside_window = %d: must be 0 or 1",
                       d->region_follows_wind, d->respawn_outside_window);
    if (d->threads < 0 || d->threads > 1024) return eddy__def_error(msg, msg_size, "particle threads = %d: must be 0..1024", d->threads);
    return check_region(d->region_min, d->region_max, msg, msg_size);
}

void eddy_particles_destroy(eddy_particles *p) {
    if (!p) return;
    free(p->pos);
    free(p->vel);
    free(p->age);
    free(p->life);
    free(p->gen);
    free(p);
}

eddy_status eddy_particles_create(const eddy_particles_def *def, eddy_particles **out, char *msg, size_t msg_size) {
    if (!out) return eddy__def_error(msg, msg_size, "out pointer is NULL");
    *out = NULL;
    eddy_status st = eddy_particles_def_validate(def, msg, msg_size);
    if (st != EDDY_OK) return st;
    eddy_particles *p = (eddy_particles *)calloc(1, sizeof *p);
    if (!p) return EDDY_ERR_OUT_OF_MEMORY;
    p->def = *def;
    size_t n = (size_t)def->count;
    p->pos = (float *)calloc(3 * n, sizeof(float));
    p->vel = (float *)calloc(3 * n, sizeof(float));
    p->age = (float *)calloc(n, sizeof(float));
    p->life = (float *)calloc(n, sizeof(float));
    p->gen = (uint32_t *)calloc(n, sizeof(uint32_t));
    if (!p->pos || !p->vel || !p->age || !p->life || !p->gen) {
        eddy_particles_destroy(p);
        eddy__def_error(msg, msg_size, "out of memory for %d particles", def->count);
        return EDDY_ERR_OUT_OF_MEMORY;
    }
    memcpy(p->region_min, def->region_min, sizeof p->region_min);
    memcpy(p->region_max, def->region_max, sizeof p->region_max);
    *out = p;
    return EDDY_OK;
}

const char *eddy_particles_last_error(const eddy_particles *p) { return p ? p->error : "null particle system"; }
int eddy_particles_count(const eddy_particles *p) { return p ? p->def.count : 0; }
const float *eddy_particles_positions(const eddy_particles *p) { return p ? p->pos : NULL; }
const float *eddy_particles_velocities(const eddy_particles *p) { return p ? p->vel : NULL; }
const float *eddy_particles_ages(const eddy_particles *p) { return p ? p->age : NULL; }
const float *eddy_particles_lifetimes(const eddy_particles *p) { return p ? p->life : NULL; }

eddy_status eddy_particles_set_region(eddy_particles *p, const float lo[3], const float hi[3]) {
    if (!p) return EDDY_ERR_INVALID_ARGUMENT;
    p->error[0] = '\0';
    if (!lo || !hi) return eddy__def_error(p->error, sizeof p->error, "set_region: region_min and region_max must not be NULL");
    eddy_status st = check_region(lo, hi, p->error, sizeof p->error);
    if (st != EDDY_OK) return st;
    memcpy(p->region_min, lo, sizeof p->region_min);
    memcpy(p->region_max, hi, sizeof p->region_max);
    return EDDY_OK;
}

/* uniform in [0, 1) from (seed, particle, spawn count, which number) */
static inline float random01(uint32_t seed, uint32_t index, uint32_t gen, uint32_t which) {
    uint32_t h = eddy__mix32(seed ^ 0x85ebca6bU);
    h = eddy__mix32(h ^ index);
    h = eddy__mix32(h ^ gen * 0x9e3779b9U ^ which);
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

static inline float draw_lifetime(const eddy_particles *p, uint32_t i, uint32_t gen) {
    return p->def.lifetime * (1.0f + p->def.lifetime_jitter * (2.0f * random01(p->def.seed, i, gen, 3) - 1.0f));
}

eddy_status eddy_particles_set(eddy_particles *p, int index, const float pos[3], const float vel[3]) {
    if (!p) return EDDY_ERR_INVALID_ARGUMENT;
    p->error[0] = '\0';
    if (index < 0 || index >= p->def.count)
        return eddy__def_error(p->error, sizeof p->error, "particle index = %d: must be 0..%d", index, p->def.count - 1);
    if (!pos || !vel) return eddy__def_error(p->error, sizeof p->error, "particle %d: position or velocity is NULL", index);
    for (int a = 0; a < 3; a++)
        if (!isfinite(pos[a]))
            return eddy__def_error(p->error, sizeof p->error, "particle %d: position[%d] = %g: must be finite (m)", index, a,
                                   (double)pos[a]);
    for (int a = 0; a < 3; a++) /* as every speed of the wind: a faster one overflowed the position to inf */
        if (!(fabsf(vel[a]) <= EDDY__WIND_MAX_SPEED))
            return eddy__def_error(p->error, sizeof p->error, "particle %d: velocity[%d] = %g: must be within +-%g m/s", index,
                                   a, (double)vel[a], (double)EDDY__WIND_MAX_SPEED);
    if (p->gen[index] == 0) {
        p->gen[index] = 1;
        p->age[index] = 0.0f;
        p->life[index] = draw_lifetime(p, (uint32_t)index, 1);
    }
    memcpy(p->pos + 3 * (size_t)index, pos, 3 * sizeof(float));
    memcpy(p->vel + 3 * (size_t)index, vel, 3 * sizeof(float));
    return EDDY_OK;
}

/* new life for particle i: random point of the region, the local wind's velocity. The first birth spreads the
 * ages over the lifetime so that the particles do not all respawn together. */
static inline void respawn(eddy_particles *p, const eddy_wind *w, size_t i, const double offset[3]) {
    uint32_t gen = ++p->gen[i];
    float *x = p->pos + 3 * i;
    for (int a = 0; a < 3; a++) {
        float r = random01(p->def.seed, (uint32_t)i, gen, (uint32_t)a);
        x[a] = (float)(offset[a] + (double)p->region_min[a] + (double)r * ((double)p->region_max[a] - p->region_min[a]));
    }
    p->life[i] = draw_lifetime(p, (uint32_t)i, gen);
    p->age[i] = gen == 1 ? random01(p->def.seed, (uint32_t)i, gen, 4) * p->life[i] : 0.0f;
    float *v = p->vel + 3 * i;
    if (w) eddy__wind_sample_world(w, x, v);
    else v[0] = v[1] = v[2] = 0.0f;
}

eddy_status eddy_particles_update(eddy_particles *p, const eddy_wind *w, float dt) {
    if (!p) return EDDY_ERR_INVALID_ARGUMENT;
    p->error[0] = '\0'; /* "" after a call that succeeded, as the wind's and the simulation's calls */
    if (!isfinite(dt) || dt <= 0 || dt > 1)
        return eddy__def_error(p->error, sizeof p->error, "particle update: dt = %g: must be in (0, 1] seconds", (double)dt);
    /* exact-integration factors, in double: c1 and c2 lose digits to cancellation when k dt is small */
    const double k = p->def.drag, t = dt, kt = k * t;
    const double e = exp(-kt);
    double c1, c2;
    if (kt < 1e-4) { /* series: c1 = dt (1 - kt/2 + (kt)^2/6), c2 = dt^2 (1/2 - kt/6 + (kt)^2/24) */
        c1 = t * (1.0 - kt / 2.0 + kt * kt / 6.0);
        c2 = t * t * (0.5 - kt / 6.0 + kt * kt / 24.0);
    } else {
        c1 = -expm1(-kt) / k;
        c2 = (t - c1) / k;
    }
    const float fe = (float)e, fc1 = (float)c1, fc2 = (float)c2;
    const float g[3] = {p->def.gravity[0], p->def.gravity[1], p->def.gravity[2]};
    double offset[3] = {0, 0, 0};
    if (p->def.region_follows_wind && w)
        for (int a = 0; a < 3; a++) offset[a] = w->center[a];
    const bool kill_outside = p->def.respawn_outside_window && w;
    const double origin[3] = {w ? w->origin[0] : 0.0, w ? w->origin[1] : 0.0, w ? w->origin[2] : 0.0};
    const float inv_h = w ? 1.0f / w->h : 1.0f;
    /* gravity's share of the step, the same for every particle */
    const float gv[3] = {g[0] * fc1, g[1] * fc1, g[2] * fc1}, gx[3] = {g[0] * fc2, g[1] * fc2, g[2] * fc2};
    float *restrict pos = p->pos, *restrict vel = p->vel, *restrict age = p->age;
    const float *restrict life = p->life;
    const uint32_t *restrict gen = p->gen;
    long n = p->def.count;
    int threads = p->def.threads > 0 ? p->def.threads : omp_get_max_threads();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long q = 0; q < n; q++) {
        size_t i = (size_t)q;
        if (gen[i] == 0 || age[i] >= life[i]) respawn(p, w, i, offset);
        float *x = pos + 3 * i, *v = vel + 3 * i;
        float u[3] = {0.0f, 0.0f, 0.0f};
        if (w) {
            float lx = (float)((double)x[0] - origin[0]) * inv_h;
            float ly = (float)((double)x[1] - origin[1]) * inv_h;
            float lz = (float)((double)x[2] - origin[2]) * inv_h;
            if (!eddy__wind_sample_local(w, lx, ly, lz, u)) {
                if (kill_outside) {
                    respawn(p, w, i, offset);
                    eddy__wind_sample_world(w, x, u);
                } else {
                    double pw[3] = {x[0], x[1], x[2]};
                    for (int c = 0; c < 3; c++) u[c] = eddy__wind_ambient(w, pw, c);
                }
            }
        }
        for (int c = 0; c < 3; c++) {
            float dv = v[c] - u[c];
            x[c] = x[c] + u[c] * dt + dv * fc1 + gx[c];
            v[c] = u[c] + dv * fe + gv[c];
        }
        age[i] += dt;
    }
    return EDDY_OK;
}
