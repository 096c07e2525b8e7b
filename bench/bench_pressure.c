/* Pressure solvers on the same random divergent field: time for the whole projection stage (right-hand side,
 * solve, velocity correction) to reach a relative residual |b - Ax|/|b| of 1e-5, for MGPCG, red-black
 * Gauss-Seidel (omega = 1), SOR (omega = 2/(1+sin(pi/n))) and Jacobi, at 2D 512^2 and 1024^2 and 3D 128^3, with
 * 1 and 2 threads. Jacobi has no tolerance: it runs the cap. Solvers that hit the cap report the residual they
 * reached. The field: uniform random face velocities in [-1, 1] m/s, free-slip walls, one still sphere (disc).
 *
 * Columns: wall ms of the fastest run, and the process CPU time of that run divided by the threads (equal to the
 * wall time on an idle machine with one thread; on a loaded machine the better single-thread figure).
 *
 *   bench_pressure [--cap N] [--quick] [--repeat R] [--threads T]
 *     --cap N      iteration cap of RBGS, SOR and Jacobi (default 2000)
 *     --quick      smaller grids (128^2, 256^2, 48^3), for a fast look
 *     --repeat R   MGPCG runs per case, the fastest is shown (default 5)
 *     --threads T  only this thread count (default: 1 and 2) */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static uint32_t rng;
static float rnd(void) {
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / (float)(1u << 23) - 1.0f;
}

typedef struct {
    const char *name;
    eddy_pressure_solver solver;
    int sor; /* omega: 0 -> 1, 1 -> optimal */
} solver_row;

static eddy_sim *make(int dim, const int n[3], int threads, eddy_pressure_solver solver, float omega, int cap) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    for (int a = 0; a < 3; a++) d.grid[a] = n[a];
    d.size[0] = 1.0f;
    d.dt = 0.01f;
    d.threads = threads;
    d.pressure.solver = solver;
    d.pressure.tolerance = 1e-5f;
    d.pressure.omega = omega;
    d.pressure.max_iterations = solver == EDDY_PRESSURE_MGPCG ? 0 : cap;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        fprintf(stderr, "create: %s\n", msg);
        exit(1);
    }
    eddy_obstacle_def o;
    memset(&o, 0, sizeof o);
    o.shape = EDDY_SHAPE_SPHERE;
    o.center[0] = 0.45f;
    o.center[1] = 0.5f * s->h * (float)n[1];
    o.center[2] = 0.5f * s->h * (float)n[2];
    o.radius = 0.1f;
    eddy_id id;
    eddy_sim_add_obstacle(s, &o, &id);
    eddy__rasterize_solids(s);
    return s;
}

static void fill(eddy_sim *s) {
    rng = 12345u;
    for (int a = 0; a < s->dim; a++)
        for (size_t f = 0; f < s->nface[a]; f++) s->vel[a][f] = rnd();
    eddy__apply_velocity_boundaries(s);
}

int main(int argc, char **argv) {
    int cap = 2000, quick = 0, repeat = 5, only_threads = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--cap") && i + 1 < argc) cap = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc) only_threads = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: %s [--cap N] [--quick] [--repeat R] [--threads T]\n", argv[0]);
            return 2;
        }
    }
    if (cap < 1 || repeat < 1 || only_threads < 0) return 2;
    struct { int dim, n[3]; } cases[3] = {{2, {512, 512, 1}}, {2, {1024, 1024, 1}}, {3, {128, 128, 128}}};
    if (quick) {
        cases[0].n[0] = cases[0].n[1] = 128;
        cases[1].n[0] = cases[1].n[1] = 256;
        cases[2].n[0] = cases[2].n[1] = cases[2].n[2] = 48;
    }
    const solver_row rows[4] = {{"MGPCG", EDDY_PRESSURE_MGPCG, 0},
                                {"RBGS", EDDY_PRESSURE_RBGS, 0},
                                {"SOR", EDDY_PRESSURE_RBGS, 1},
                                {"Jacobi", EDDY_PRESSURE_JACOBI, 0}};
    printf("pressure projection to |r|/|b| <= 1e-5 (walls + one obstacle, random field); cap %d iterations\n", cap);
    printf("%-14s %7s %-7s %6s %10s %9s %9s %10s %10s  %s\n", "grid", "threads", "solver", "omega", "iterations",
           "ms", "cpu ms", "ms/iter", "residual", "reached");
    for (int c = 0; c < 3; c++) {
        char grid[32];
        if (cases[c].dim == 2) snprintf(grid, sizeof grid, "2D %dx%d", cases[c].n[0], cases[c].n[1]);
        else snprintf(grid, sizeof grid, "3D %dx%dx%d", cases[c].n[0], cases[c].n[1], cases[c].n[2]);
        int nmax = cases[c].n[0] > cases[c].n[1] ? cases[c].n[0] : cases[c].n[1];
        float omega_opt = 2.0f / (1.0f + sinf(3.14159265f / (float)nmax));
        for (int threads = 1; threads <= 2; threads++)
            for (int r = 0; r < 4; r++) {
                if (only_threads && threads != only_threads) continue;
                float omega = rows[r].sor ? omega_opt : 1.0f;
                eddy_sim *s = make(cases[c].dim, cases[c].n, threads, rows[r].solver, omega, cap);
                int runs = rows[r].solver == EDDY_PRESSURE_MGPCG ? repeat : 1;
                double best = 1e300, best_cpu = 0.0;
                /* the first projection builds the operator (once per obstacle change); time steady solves */
                fill(s);
                eddy__project(s, s->def.dt);
                for (int k = 0; k < runs; k++) {
                    fill(s);
                    double t0 = eddy__now_ms(), c0 = cpu_ms();
                    eddy__project(s, s->def.dt);
                    double t = eddy__now_ms() - t0, c = (cpu_ms() - c0) / threads;
                    if (t < best) {
                        best = t;
                        best_cpu = c;
                    }
                }
                const eddy_step_stats *st = eddy_sim_stats(s);
                int it = st->pressure_iterations;
                printf("%-14s %7d %-7s %6.4f %10d %9.1f %9.1f %10.3f %10.2e  %s\n", grid, threads, rows[r].name,
                       (double)omega, it, best, best_cpu, it > 0 ? best / it : 0.0, (double)st->pressure_residual,
                       st->pressure_residual <= 1e-5f ? "yes" : "no (cap)");
                fflush(stdout);
                eddy_sim_destroy(s);
            }
    }
    return 0;
}
