/* Lid-driven cavity against Ghia, Ghia & Shin (1982), J. Comput. Phys. 48:387-411 (table in
 * ../shared/reference/ghia1982.csv, copied to tests/data/ghia1982.csv): unit square, lid u = 1 on y = 1,
 * no-slip elsewhere, Re = 1/nu. Run to steady state, then compare u on the vertical centreline and v on the
 * horizontal centreline (the table's interior points; the end points are the boundary conditions).
 * Bounds (max abs error in lid units): make validate: Re 100 at 128^2 < 0.02, Re 1000 at 256^2 < 0.04
 * (the bounds). make test: Re 100 at 32^2 < 0.02 — measured 0.0071; a coarse grid under-resolves the
 * corner vortices and the boundary layer (h = 1/32 vs a layer ~ 1/sqrt(Re) = 0.1 wide), so the same bound as
 * the fine grid but less margin.
 */
#include "check.h"
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int u_line; /* 1: u on vertical centreline, 0: v on horizontal centreline */
    double pos, value;
} ghia_point;

static int load_ghia(int re, ghia_point *pts, int max) {
    FILE *fp = fopen(EDDY_SOURCE_DIR "/tests/data/ghia1982.csv", "r");
    CHECK(fp != NULL, "cannot open tests/data/ghia1982.csv");
    if (!fp) return 0;
    char line[256], name[64];
    int n = 0, r;
    double pos, val;
    while (fgets(line, sizeof line, fp) && n < max) {
        if (line[0] == '#' || !strncmp(line, "line", 4)) continue;
        if (sscanf(line, "%63[^,],%d,%lf,%lf", name, &r, &pos, &val) != 4 || r != re) continue;
        if (pos <= 0.0 || pos >= 1.0) continue; /* wall values are the boundary conditions */
        pts[n].u_line = !strcmp(name, "u_vertical");
        pts[n].pos = pos;
        pts[n].value = val;
        n++;
    }
    fclose(fp);
    return n;
}

static double run_cavity(int n, int re, double max_time) {
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = d.grid[1] = n;
    d.size[0] = 1.0f;
    d.viscosity = 1.0f / (float)re;
    d.gravity[1] = 0;
    d.cfl = 0.8f;
    d.max_dt = 0.02f;
    for (int f = 0; f < 4; f++) d.boundary[f].type = EDDY_BOUNDARY_NOSLIP;
    d.boundary[EDDY_FACE_Y_MAX].type = EDDY_BOUNDARY_MOVING;
    d.boundary[EDDY_FACE_Y_MAX].velocity[0] = 1.0f;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return 1e9;
    }
    /* steady when the kinetic energy changes by less than 1e-6 relative over 1 s of simulated time */
    double prev = -1;
    for (double t = 1.0; t <= max_time; t += 1.0) {
        if (eddy_sim_advance(s, 1.0) != EDDY_OK) {
            CHECK(0, "advance: %s", eddy_sim_last_error(s));
            break;
        }
        double e = eddy_sim_stats(s)->kinetic_energy;
        if (prev > 0 && fabs(e - prev) < 1e-6 * e) break;
        prev = e;
    }
    ghia_point pts[64];
    int np = load_ghia(re, pts, 64);
    CHECK(np >= 30, "table has %d points for Re %d", np, re);
    double worst = 0;
    for (int i = 0; i < np; i++) {
        float p[3] = {0.5f, (float)pts[i].pos, 0}, v[3];
        if (!pts[i].u_line) { p[0] = (float)pts[i].pos; p[1] = 0.5f; }
        eddy_sim_sample_velocity(s, p, v);
        double got = pts[i].u_line ? v[0] : v[1];
        double err = fabs(got - pts[i].value);
        worst = err > worst ? err : worst;
    }
    printf("  Re %4d  %3d^2  t = %6.1f s  %6ld steps  max |error| vs Ghia = %.4f  (max div %.2e)\n", re, n,
           eddy_sim_time(s), eddy_sim_step_count(s), worst, (double)eddy_sim_stats(s)->max_div);
    fflush(stdout); /* full-size runs take minutes each: show each result as it comes */
    eddy_sim_destroy(s);
    return worst;
}

int main(int argc, char **argv) {
    if (check_full_size(argc, argv)) { /* EDDY_FULL_SIZE */
        double e100 = run_cavity(128, 100, 60);
        CHECK(e100 < 0.02, "Re 100 at 128^2: max error %.4f >= 0.02", e100);
        double e1000 = run_cavity(256, 1000, 120);
        CHECK(e1000 < 0.04, "Re 1000 at 256^2: max error %.4f >= 0.04", e1000);
    } else {
        double e = run_cavity(32, 100, 30);
        CHECK(e < 0.02, "Re 100 at 32^2: max error %.4f >= 0.02", e);
    }
    return check_finish("test_cavity");
}
