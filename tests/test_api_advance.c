/* eddy_sim_advance's step limit, with src/sim.c built into this test with EDDY__ADVANCE_STEP_LIMIT = 64 (see
 * tests/CMakeLists.txt) so that reaching it takes 64 steps, not 2^20. A velocity that does not decay (uniform on a
 * periodic box) of 1e10 m/s keeps the CFL step at 1e-11 s: one 60 Hz frame took ~1.7e9 steps and did not come back
 * (nor did a duration of 1e300 s at any speed). */
#include "check.h"
#include "sim_internal.h"

#include <string.h>

int main(void) {
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = d.grid[1] = 8;
    d.size[0] = 0.8f; /* h = 0.1 m */
    for (int f = 0; f < 4; f++) d.boundary[f].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = NULL;
    char msg[256];
    CHECK(eddy_sim_create(&d, &s, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (!s) return check_finish("test_api_advance");
    /* a splat far wider than the box: the same 1e10 m/s everywhere, divergence-free, kept by every step */
    eddy_splat sp = {{0.4f, 0.4f, 0}, 1e6f, {1e10f, 0, 0}, {0, 0, 0}, 0};
    CHECK(eddy_sim_splat(s, &sp) == EDDY_OK, "splat: %s", eddy_sim_last_error(s));
    eddy_status st = eddy_sim_advance(s, 1.0 / 60);
    CHECK(st == EDDY_ERR_INVALID_ARGUMENT && s->step == 64 && strstr(eddy_sim_last_error(s), "stopped after 64 steps") &&
              strstr(eddy_sim_last_error(s), "huge velocity"), "advance at 1e10 m/s: %d after %ld steps: %s", (int)st, s->step,
          eddy_sim_last_error(s));
    CHECK(s->time > 0 && s->time < 1e-8 && eddy_sim_step(s) == EDDY_OK, "the steps taken stand: t = %g s", s->time);
    eddy_sim_destroy(s);

    /* a duration that needs more steps than a call takes even at max_dt: refused before any step */
    d = eddy_sim_def_default();
    d.grid[0] = d.grid[1] = 8;
    CHECK(eddy_sim_create(&d, &s, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (!s) return check_finish("test_api_advance");
    st = eddy_sim_advance(s, 1e300);
    CHECK(st == EDDY_ERR_INVALID_ARGUMENT && s->step == 0 && strstr(eddy_sim_last_error(s), "nothing was done"),
          "advance by 1e300 s: %d %s", (int)st, eddy_sim_last_error(s));
    st = eddy_sim_advance(s, 64 * 0.05 * 1.01); /* max_dt 0.05 s: 65 steps at least */
    CHECK(st == EDDY_ERR_INVALID_ARGUMENT && s->step == 0 && strstr(eddy_sim_last_error(s), "at least 65 steps of 0.05 s (max_dt)"),
          "advance by 3.232 s: %d %s", (int)st, eddy_sim_last_error(s));
    CHECK(eddy_sim_advance(s, 64 * 0.05) == EDDY_OK && s->step == 64, "advance by 3.2 s at rest: %ld steps: %s", s->step,
          eddy_sim_last_error(s));
    eddy_sim_destroy(s);
    return check_finish("test_api_advance");
}
