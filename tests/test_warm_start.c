/* MGPCG warm start (pressure.warm_start, project.c): the solve starts from the last step's pressure scaled to this
 * step's dt. Checked: every solve still meets |r| <= tol |b|; warm solves take fewer iterations than cold ones on a
 * smooth buoyant plume; warm and cold runs agree to the solver tolerance; a saved and loaded warm simulation
 * continues bit for bit (x0 comes from the saved pressure only); the definition rejects values other than 0 and 1. */
#include "check.h"

#include <eddy/eddy.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 48
#define TOL 1e-5f

static eddy_sim *make_plume(int warm) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = 2;
    d.grid[0] = N; d.grid[1] = N;
    d.size[0] = 1.0f;
    d.dt = 0.01f;
    d.pressure.tolerance = TOL;
    d.pressure.warm_start = warm;
    d.buoyancy_density = 1.0f;
    d.vorticity = 0.2f;
    eddy_sim *s = NULL;
    char msg[256];
    eddy_status st = eddy_sim_create(&d, &s, msg, sizeof msg);
    CHECK(st == EDDY_OK, "create: %s", msg);
    if (!s) return NULL;
    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 0.5f; e.center[1] = 0.2f; e.radius = 0.08f;
    e.dye[0] = 2.0f;
    e.velocity[1] = 0.5f;
    e.set_velocity = 1;
    CHECK(eddy_sim_add_emitter(s, &e, NULL) == EDDY_OK, "emitter: %s", eddy_sim_last_error(s));
    return s;
}

static float *read_field(eddy_sim *s, eddy_field f, size_t *count) {
    eddy_field_layout lay;
    if (eddy_sim_field_layout(s, f, &lay) != EDDY_OK) return NULL;
    *count = lay.count;
    float *v = malloc(lay.count * sizeof(float));
    if (v && eddy_sim_read_field(s, f, v, lay.count) != EDDY_OK) {
        free(v);
        return NULL;
    }
    return v;
}

static void test_iterations_and_agreement(void) {
    eddy_sim *cold = make_plume(0), *warm = make_plume(1);
    if (!cold || !warm) return;
    int it_cold = 0, it_warm = 0;
    float worst_cold = 0, worst_warm = 0, init_warm = 0;
    const int steps = 30;
    for (int n = 0; n < steps; n++) {
        CHECK(eddy_sim_step(cold) == EDDY_OK && eddy_sim_step(warm) == EDDY_OK, "step %d", n);
        const eddy_step_stats *a = eddy_sim_stats(cold), *b = eddy_sim_stats(warm);
        it_cold += a->pressure_iterations;
        it_warm += b->pressure_iterations;
        worst_cold = fmaxf(worst_cold, a->pressure_residual);
        worst_warm = fmaxf(worst_warm, b->pressure_residual);
        if (n == steps - 1) init_warm = b->pressure_residual_initial;
        CHECK(a->pressure_residual_initial == 1.0f, "cold start: initial residual %g, expected 1", (double)a->pressure_residual_initial);
    }
    printf("iterations over %d steps: cold %d, warm %d; worst residual cold %.2e warm %.2e; last warm initial %.2e\n",
           steps, it_cold, it_warm, (double)worst_cold, (double)worst_warm, (double)init_warm);
    /* the tolerance holds with and without the warm start (both stop on |r| <= tol |b|) */
    CHECK(worst_cold <= TOL && worst_warm <= TOL, "residuals %g %g above %g", (double)worst_cold, (double)worst_warm, (double)TOL);
    /* the point of the option: a smooth flow's pressure changes little between steps, so the guess is already
     * closer than 0 (initial residual below 1) and fewer iterations remain */
    CHECK(init_warm < 0.5f, "warm initial residual %g: the guess should be much better than 0", (double)init_warm);
    CHECK(it_warm <= it_cold, "warm start took more iterations (%d vs %d)", it_warm, it_cold);
    /* Agreement: each solve stops somewhere within tol |b| of the exact projection, so the two runs differ by
     * solver error, not rounding. The velocities differ by ~tol * |u| per step, accumulating over 30 steps and
     * amplified by advection: 1e-3 of the largest speed bounds that with a wide margin (measured ~1e-5). */
    size_t nu = 0, nw = 0;
    float *ua = read_field(cold, EDDY_FIELD_V, &nu), *ub = read_field(warm, EDDY_FIELD_V, &nw);
    CHECK(ua && ub && nu == nw, "read v");
    if (ua && ub && nu == nw) {
        float umax = 0, diff = 0;
        for (size_t i = 0; i < nu; i++) {
            umax = fmaxf(umax, fabsf(ua[i]));
            diff = fmaxf(diff, fabsf(ua[i] - ub[i]));
        }
        printf("max |v_warm - v_cold| = %.3e of max |v| = %.3e\n", (double)diff, (double)umax);
        CHECK(umax > 0.1f, "the plume moves (max |v| %g)", (double)umax);
        CHECK(diff <= 1e-3f * umax, "warm and cold runs differ by %g (max |v| %g)", (double)diff, (double)umax);
    }
    free(ua);
    free(ub);
    eddy_sim_destroy(cold);
    eddy_sim_destroy(warm);
}

/* the warm start reads only s->pressure, which the state file holds: a loaded simulation continues bit for bit */
static void test_resume_bit_exact(void) {
    eddy_sim *s = make_plume(1);
    if (!s) return;
    for (int n = 0; n < 10; n++) eddy_sim_step(s);
    char path[] = "/tmp/eddy_warm_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    close(fd);
    CHECK(eddy_sim_save(s, path) == EDDY_OK, "save: %s", eddy_sim_last_error(s));
    eddy_sim *r = NULL;
    char msg[256];
    CHECK(eddy_sim_load(path, &r, msg, sizeof msg) == EDDY_OK, "load: %s", msg);
    unlink(path);
    if (!r) {
        eddy_sim_destroy(s);
        return;
    }
    CHECK(eddy_sim_get_def(r)->pressure.warm_start == 1, "warm_start not restored from the file");
    for (int n = 0; n < 10; n++) {
        eddy_sim_step(s);
        eddy_sim_step(r);
        CHECK(eddy_sim_stats(s)->pressure_iterations == eddy_sim_stats(r)->pressure_iterations, "step %d iterations", n);
    }
    const eddy_field fields[3] = {EDDY_FIELD_U, EDDY_FIELD_V, EDDY_FIELD_PRESSURE};
    for (int f = 0; f < 3; f++) {
        size_t na = 0, nb = 0;
        float *a = read_field(s, fields[f], &na), *b = read_field(r, fields[f], &nb);
        CHECK(a && b && na == nb && memcmp(a, b, na * sizeof(float)) == 0, "field %d differs after resuming", f);
        free(a);
        free(b);
    }
    eddy_sim_destroy(s);
    eddy_sim_destroy(r);
}

static void test_validation(void) {
    eddy_sim_def d = eddy_sim_def_default();
    CHECK(d.pressure.warm_start == 0, "default warm_start %d, documented 0", d.pressure.warm_start);
    d.pressure.warm_start = 2;
    char msg[256] = "";
    CHECK(eddy_sim_def_validate(&d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "warm_start"),
          "warm_start = 2 accepted (%s)", msg);
}

int main(void) {
    test_validation();
    test_iterations_and_agreement();
    test_resume_bit_exact();
    return check_finish("test_warm_start");
}
