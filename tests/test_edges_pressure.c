/* Edges of the projection that used to end in infinities or NaN in the fields:
 *  - red-black SOR with pressure.omega > 1 on a periodic axis of odd length (whose first and last cells share a
 *    colour, so the sweep is not a true red-black order) diverged: 20000 sweeps, then NaN in u, v and p. It now
 *    stops once |r| passes any bound a convergent sweep allows, with EDDY_ERR_NON_FINITE naming omega and the axis,
 *    and leaves the velocity and pressure as they were. Guards: the same omega on even periodic axes and omega 1
 *    on odd ones still converge to the tolerance;
 *  - an MGPCG warm start from a pressure that float cannot convert to the solver's x (x0 = p dt / (rho h) = inf)
 *    started from NaN; it now starts from 0, as a cold solve does;
 *  - a fixed dt so small that the pressure scale rho h / dt overflows float wrote an infinite pressure; the step
 *    now stops before the projection with a message naming density, h and dt, nothing written.
 * The checks of the stopped cases (finite fields, messages, convergence of the warm start) fail on the old code.
 * Every case runs on the CPU and, where this build and machine have one, on the CUDA backend (the same stops). */
#include "check.h"

#include <eddy/eddy.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static eddy_backend backend; /* the backend every case runs on (main: the CPU, then CUDA where available) */

static eddy_sim *make(eddy_sim_def *d) {
    d->backend = backend;
    char msg[256];
    eddy_sim *s = NULL;
    eddy_status st = eddy_sim_create(d, &s, msg, sizeof msg);
    CHECK(st == EDDY_OK, "create: %s", msg);
    return s;
}

/* a fixed pseudo-random divergent velocity */
static void stir(eddy_sim *s) {
    unsigned r = 12345u;
    for (int a = 0; a < eddy_sim_get_def(s)->dim; a++) {
        eddy_field_layout L;
        eddy_sim_field_layout(s, (eddy_field)(EDDY_FIELD_U + a), &L);
        float *v = malloc(L.count * sizeof(float));
        for (size_t i = 0; i < L.count; i++) {
            r = r * 1664525u + 1013904223u;
            v[i] = (float)((r >> 8) & 0xffff) / 65535.0f - 0.5f;
        }
        eddy_sim_write_field(s, (eddy_field)(EDDY_FIELD_U + a), v, L.count);
        free(v);
    }
}

/* every value of the velocity components and the pressure is finite */
static int fields_finite(eddy_sim *s) {
    const eddy_field fields[4] = {EDDY_FIELD_U, EDDY_FIELD_V, EDDY_FIELD_W, EDDY_FIELD_PRESSURE};
    for (int f = 0; f < 4; f++) {
        if (fields[f] == EDDY_FIELD_W && eddy_sim_get_def(s)->dim == 2) continue;
        eddy_field_layout L;
        eddy_sim_field_layout(s, fields[f], &L);
        float *v = malloc(L.count * sizeof(float));
        eddy_sim_read_field(s, fields[f], v, L.count);
        int ok = 1;
        for (size_t i = 0; i < L.count; i++) ok = ok && isfinite(v[i]);
        free(v);
        if (!ok) return 0;
    }
    return 1;
}

static eddy_sim_def sor_def(int nx, int ny, int periodic_axis_mask, float omega) {
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = nx;
    d.grid[1] = ny;
    d.size[0] = 1.0f;
    d.dt = 0.01f;
    d.pressure.solver = EDDY_PRESSURE_RBGS;
    d.pressure.omega = omega;
    for (int a = 0; a < 2; a++)
        if (periodic_axis_mask & (1 << a)) d.boundary[2 * a].type = d.boundary[2 * a + 1].type = EDDY_BOUNDARY_PERIODIC;
    return d;
}

static void sor_diverges(int nx, int ny, int periodic_axis_mask, const char *axis_words) {
    eddy_sim_def d = sor_def(nx, ny, periodic_axis_mask, 1.9f);
    eddy_sim *s = make(&d);
    if (!s) return;
    stir(s);
    eddy_status st = eddy_sim_project(s);
    const char *err = eddy_sim_last_error(s);
    CHECK(st == EDDY_ERR_NON_FINITE, "%dx%d SOR omega 1.9: %s (%s)", nx, ny, eddy_status_string(st), err);
    CHECK(strstr(err, axis_words) && strstr(err, "omega = 1.9"), "%dx%d: message names the axis and omega: '%s'", nx, ny,
          err);
    CHECK(fields_finite(s), "%dx%d: velocity and pressure stay finite after the stopped projection", nx, ny);
    /* a step stops the same way, its fields finite */
    st = eddy_sim_step(s);
    CHECK(st == EDDY_ERR_NON_FINITE && strstr(eddy_sim_last_error(s), "red-black SOR diverged"), "%dx%d step: %s (%s)",
          nx, ny, eddy_status_string(st), eddy_sim_last_error(s));
    CHECK(fields_finite(s), "%dx%d: fields finite after the stopped step", nx, ny);
    eddy_sim_destroy(s);
}

static void sor_converges(int nx, int ny, int periodic_axis_mask, float omega) {
    eddy_sim_def d = sor_def(nx, ny, periodic_axis_mask, omega);
    eddy_sim *s = make(&d);
    if (!s) return;
    stir(s);
    eddy_status st = eddy_sim_project(s);
    const eddy_step_stats *S = eddy_sim_stats(s);
    CHECK(st == EDDY_OK && S->pressure_residual <= d.pressure.tolerance && fields_finite(s),
          "%dx%d periodic mask %d SOR omega %g: %s, residual %g after %d iterations", nx, ny, periodic_axis_mask,
          (double)omega, eddy_status_string(st), (double)S->pressure_residual, S->pressure_iterations);
    eddy_sim_destroy(s);
}

/* a written pressure of 3e38 Pa on cells of 1 mm: x0 = p dt / (rho h) = 3e39 is beyond float */
static void warm_start_from_huge_pressure(void) {
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = 16;
    d.grid[1] = 12;
    d.size[0] = 0.016f;
    d.dt = 0.01f;
    d.pressure.warm_start = 1;
    eddy_sim *s = make(&d);
    if (!s) return;
    stir(s);
    eddy_field_layout L;
    eddy_sim_field_layout(s, EDDY_FIELD_PRESSURE, &L);
    float *p = malloc(L.count * sizeof(float));
    for (size_t i = 0; i < L.count; i++) p[i] = 3e38f;
    CHECK(eddy_sim_write_field(s, EDDY_FIELD_PRESSURE, p, L.count) == EDDY_OK, "write pressure");
    free(p);
    eddy_status st = eddy_sim_project(s);
    const eddy_step_stats *S = eddy_sim_stats(s);
    CHECK(st == EDDY_OK, "warm start from 3e38 Pa: %s (%s)", eddy_status_string(st), eddy_sim_last_error(s));
    CHECK(fields_finite(s) && S->pressure_residual <= d.pressure.tolerance,
          "warm start from 3e38 Pa: a cold solve's answer (residual %g, initial %g)", (double)S->pressure_residual,
          (double)S->pressure_residual_initial);
    eddy_sim_destroy(s);
}

/* rho h / dt = 1e30 * 1e-9 / 1e-40 = 1e61 kg/(m^2 s) */
static void pressure_scale_overflow(void) {
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = 7;
    d.grid[1] = 13;
    d.size[0] = 7e-9f;
    d.density = 1e30f;
    d.dt = 1e-40f;
    eddy_sim *s = make(&d);
    if (!s) return;
    stir(s);
    eddy_status st = eddy_sim_step(s);
    CHECK(st == EDDY_ERR_NON_FINITE && strstr(eddy_sim_last_error(s), "pressure scale"), "dt 1e-40 s: %s (%s)",
          eddy_status_string(st), eddy_sim_last_error(s));
    CHECK(fields_finite(s), "dt 1e-40 s: no infinite pressure written");
    eddy_sim_destroy(s);
}

int main(void) {
    const eddy_backend backends[2] = {EDDY_BACKEND_CPU, EDDY_BACKEND_CUDA};
    for (int b = 0; b < 2; b++) {
        char why[256];
        if (!eddy_backend_available(backends[b], why, sizeof why)) {
            printf("test_edges_pressure: %s backend skipped: %s\n", eddy_backend_name(backends[b]), why);
            continue;
        }
        backend = backends[b];
        sor_diverges(7, 13, 1, "periodic x axis of odd length 7");
        sor_diverges(8, 13, 2, "periodic y axis of odd length 13");
        sor_diverges(3, 3, 3, "periodic x axis of odd length 3");
        sor_converges(8, 12, 3, 1.9f); /* even periodic axes: a true red-black order */
        sor_converges(7, 13, 3, 1.0f); /* odd ones with plain Gauss-Seidel */
        sor_converges(7, 13, 0, 1.9f); /* walls */
        warm_start_from_huge_pressure();
        pressure_scale_overflow();
    }
    return check_finish("test_edges_pressure");
}
