/* 2D Taylor-Green vortex, periodic, viscous: the exact solution
 *   u =  U sin(kx) cos(ky) e^{-2 nu k^2 t},  v = -U cos(kx) sin(ky) e^{-2 nu k^2 t},  k = 2 pi / L,
 * so the kinetic energy decays as exp(-4 nu k^2 t). Checks (1) the measured decay rate against 4 nu k^2 and
 * (2) the velocity error against the exact field falling at first order or better as h halves (dt ~ h: backward
 * Euler viscosity and the advection are first order in time, the MAC discretisation second order in space).
 * Small grid in `make test`; 128^2 in `make validate` (EDDY_FULL_SIZE), where the issue asks for a
 * decay-rate error under 1%. */
#include "check.h"
#include "sim_internal.h"

#include <math.h>
#include <stdlib.h>

static const double PI = 3.14159265358979323846;

typedef struct {
    double rate_error; /* relative error of the energy decay rate */
    double vel_error;  /* max |u - u_exact| / U at the end */
} tg_result;

static tg_result run_tg(int n, double nu, double U, double t_end, eddy_advection scheme) {
    tg_result r = {1e9, 1e9};
    const double L = 1.0, k = 2 * PI / L;
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = d.grid[1] = n;
    d.size[0] = (float)L;
    d.viscosity = (float)nu;
    d.advection = scheme;
    d.dt = (float)(0.32 / n); /* dt ~ h: 0.0025 s at 128^2, CFL = U dt / h = 0.032 */
    for (int f = 0; f < 4; f++) d.boundary[f].type = EDDY_BOUNDARY_PERIODIC;
    d.gravity[1] = 0;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return r;
    }
    float h = s->h;
    for (int a = 0; a < 2; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int j = 0; j < fn[1]; j++)
            for (int i = 0; i < fn[0]; i++) {
                double x = (i + (a == 0 ? 0.0 : 0.5)) * h, y = (j + (a == 1 ? 0.0 : 0.5)) * h;
                s->vel[a][eddy__idx(fn, i, j, 0)] =
                    (float)(a == 0 ? U * sin(k * x) * cos(k * y) : -U * cos(k * x) * sin(k * y));
            }
    }
    eddy_sim_update_diagnostics(s);
    double e0 = eddy_sim_stats(s)->kinetic_energy;
    eddy_status st = eddy_sim_advance(s, t_end);
    CHECK(st == EDDY_OK, "advance: %s", eddy_sim_last_error(s));
    double t = eddy_sim_time(s);
    double e1 = eddy_sim_stats(s)->kinetic_energy;
    double rate = -log(e1 / e0) / t, exact = 4 * nu * k * k;
    r.rate_error = fabs(rate - exact) / exact;
    double decay = exp(-2 * nu * k * k * t), worst = 0;
    for (int a = 0; a < 2; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int j = 0; j < fn[1]; j++)
            for (int i = 0; i < fn[0]; i++) {
                double x = (i + (a == 0 ? 0.0 : 0.5)) * h, y = (j + (a == 1 ? 0.0 : 0.5)) * h;
                double ex = decay * (a == 0 ? U * sin(k * x) * cos(k * y) : -U * cos(k * x) * sin(k * y));
                double err = fabs(s->vel[a][eddy__idx(fn, i, j, 0)] - ex);
                worst = err > worst ? err : worst;
            }
    }
    r.vel_error = worst / U;
    printf("  n = %4d  %-16s decay rate %.5f (exact %.5f, error %.3f%%)  max velocity error %.3e  (%ld steps)\n", n,
           scheme == EDDY_ADVECT_SEMI_LAGRANGIAN ? "semi-Lagrangian" : scheme == EDDY_ADVECT_BFECC ? "BFECC" : "MacCormack",
           rate, exact, 100 * r.rate_error, r.vel_error, eddy_sim_step_count(s));
    eddy_sim_destroy(s);
    return r;
}

int main(int argc, char **argv) {
    int full = check_full_size(argc, argv); /* EDDY_FULL_SIZE: 32..128 grids */
    const double nu = 0.01, U = 0.1, t_end = 0.5;
    int n_top = full ? 128 : 64;
    /* Rate error budget at 128^2: backward Euler gives a relative rate error ~ nu dt lambda / 2 = 1e-3 and the
     * discrete Laplacian (kh)^2/12 = 2e-4; advection dissipation adds a little: 1% is the bound. At 64^2
     * (make test) the same budget doubles: 2%. */
    tg_result top = run_tg(n_top, nu, U, t_end, EDDY_ADVECT_MACCORMACK);
    double bound = full ? 0.01 : 0.02;
    CHECK(top.rate_error < bound, "decay rate error %.4f at %d^2 exceeds %.2f", top.rate_error, n_top, bound);

    /* refinement: the velocity error must fall at first order or better (ratio >= 1.8 per halving of h) */
    int sizes[3] = {n_top / 4, n_top / 2, n_top};
    double err[3];
    for (int i = 0; i < 3; i++)
        err[i] = i == 2 ? top.vel_error : run_tg(sizes[i], nu, U, t_end, EDDY_ADVECT_MACCORMACK).vel_error;
    for (int i = 0; i < 2; i++) {
        double order = log(err[i] / err[i + 1]) / log(2.0);
        printf("  observed order %d -> %d: %.2f\n", sizes[i], sizes[i + 1], order);
        CHECK(order > 0.85, "velocity error order %.2f between %d and %d, expected >= 1 (0.85 allows noise)", order,
              sizes[i], sizes[i + 1]);
    }
    /* the other schemes also keep the exact solution's decay within the same bound */
    tg_result sl = run_tg(n_top, nu, U, t_end, EDDY_ADVECT_SEMI_LAGRANGIAN);
    tg_result bf = run_tg(n_top, nu, U, t_end, EDDY_ADVECT_BFECC);
    CHECK(sl.rate_error < 2 * bound, "semi-Lagrangian decay rate error %.4f", sl.rate_error);
    CHECK(bf.rate_error < bound, "BFECC decay rate error %.4f", bf.rate_error);
    return check_finish("test_taylor_green");
}
