/* bench_advect: time of the advection and implicit diffusion stages alone on a 2D 512^2 grid (and optionally 3D
 * 128^3), per scheme and per diffusion strength, with 1 and 2 threads. Fields: a swirling velocity, three dye
 * channels, temperature zero (a zero field is skipped by both stages). Prints medians in ms and cells (velocity
 * cells) per second, and the CG iterations of the diffusion summed over its solves (velocity components or dye
 * channels). "cpu ms" is the process CPU time (all threads): with one thread it is the figure that a busy shared
 * machine does not inflate. The "+ T" rows also fill the temperature (4 scalar fields, as in the smoke scene of bench).
 * A table, never pass/fail.
 * Usage: bench_advect [reps] [2d|3d|3d-only] [all|advect] [ROW] [max threads]   (default 9 repetitions after one
 * warm-up; "3d" adds 128^3, "3d-only" runs only 128^3; "advect" leaves out the diffusion rows; ROW runs one advection
 * row: SL x1, MC x1, MC x1+T, BFECC x1, MC x2, or all; "cpu min" is the least CPU time of the repetitions; a sixth argument
 * "baseline" runs the baseline (SSE2) row kernels even where the CPU has AVX2, see vector_isa.h, "avx2" the default
 * ones; a seventh, "periodic", makes every axis periodic instead of no-slip walls) */
#include "bench_median.h"
#include "diffuse.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of the process, ms: with one thread, the honest figure on a shared machine */
static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* a smooth swirl of about 1 m/s, dye in three overlapping blobs */
static void fill(eddy_sim *s, bool with_temperature) {
    for (int a = 0; a < s->dim; a++) {
        eddy_grid_desc g = eddy__velocity_desc(s, a, s->vel[a]);
        for (int k = 0; k < g.n[2]; k++)
            for (int j = 0; j < g.n[1]; j++)
                for (int i = 0; i < g.n[0]; i++) {
                    float p[3];
                    eddy__grid_pos(&g, i, j, k, p);
                    float v = a == 0 ? sinf(6.28f * p[1]) : (a == 1 ? sinf(6.28f * p[0]) : 0.3f * cosf(6.28f * p[0]));
                    s->vel[a][eddy__idx(g.n, i, j, k)] = v;
                }
    }
    eddy_grid_desc g = eddy__scalar_desc(s, s->dye[0]);
    for (int k = 0; k < g.n[2]; k++)
        for (int j = 0; j < g.n[1]; j++)
            for (int i = 0; i < g.n[0]; i++) {
                float p[3];
                eddy__grid_pos(&g, i, j, k, p);
                size_t e = eddy__idx(g.n, i, j, k);
                for (int c = 0; c < 3; c++) {
                    float dx = p[0] - 0.3f - 0.2f * (float)c, dy = p[1] - 0.5f;
                    s->dye[c][e] = expf(-(dx * dx + dy * dy) / 0.02f);
                }
                s->temperature[e] = with_temperature ? 2.0f * s->dye[1][e] : 0.0f;
            }
}

typedef struct bench_row {
    const char *stage;
    eddy_advection scheme;
    int dye_scale;
    bool temperature; /* advect rows: also a nonzero temperature */
    float viscosity, dye_diffusion; /* diffusion rows */
} bench_row;

static bool force_baseline, periodic;

static void run(int dim, int n, int threads, const bench_row *row, int reps) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = d.grid[1] = d.grid[2] = n;
    d.dye_scale[0] = d.dye_scale[1] = d.dye_scale[2] = row->dye_scale;
    d.advection = row->scheme;
    d.viscosity = row->viscosity;
    d.dye_diffusion = row->dye_diffusion;
    d.threads = threads;
    d.dt = 0.5f / (float)n; /* CFL 0.5 at 1 m/s */
    for (int f = 0; f < 2 * dim; f++) d.boundary[f].type = periodic ? EDDY_BOUNDARY_PERIODIC : EDDY_BOUNDARY_NOSLIP;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        printf("create failed: %s\n", msg);
        return;
    }
    if (force_baseline) s->avx2 = false;
    bool advect = !strcmp(row->stage, "advect");
    double t[64], tc[64];
    int iterations = 0;
    for (int r = 0; r <= reps; r++) {
        fill(s, row->temperature); /* the same input every time (diffusion iterations depend on it) */
        double t0 = eddy__now_ms(), c0 = cpu_ms();
        eddy_status st = advect ? eddy__advect(s, d.dt) : eddy__diffuse(s, d.dt);
        double ms = eddy__now_ms() - t0, cpu = cpu_ms() - c0;
        if (st != EDDY_OK) {
            printf("stage failed: %s\n", eddy_sim_last_error(s));
            break;
        }
        if (r > 0) { /* the first run is warm-up */
            t[r - 1] = ms;
            tc[r - 1] = cpu;
        }
        if (!advect) iterations = eddy__diffuse_last_report(s).total_iterations;
    }
    double cpu_min = tc[0];
    for (int r = 1; r < reps; r++) cpu_min = tc[r] < cpu_min ? tc[r] : cpu_min;
    double ms = bench_median(t, reps), cpu = bench_median(tc, reps);
    double c = advect ? 0.0 : (double)(row->viscosity > 0 ? row->viscosity : row->dye_diffusion) * d.dt / (s->h * s->h);
    char what[64];
    if (advect) snprintf(what, sizeof what, "%s, dye x%d", row->scheme == EDDY_ADVECT_SEMI_LAGRANGIAN ? "semi-Lagrangian" :
                                                            row->scheme == EDDY_ADVECT_MACCORMACK ? "MacCormack" : "BFECC",
                         row->dye_scale);
    else snprintf(what, sizeof what, "%s, k dt/h^2 = %.3g", row->viscosity > 0 ? "viscosity" : "3 dye channels", c);
    if (advect && row->temperature) strncat(what, " + T", sizeof what - strlen(what) - 1);
    printf("%-5s %-8s %-34s %7d %9.2f %9.2f %9.2f %9.1f %6s\n", dim == 2 ? "2D" : "3D", row->stage, what, threads, ms, cpu, cpu_min,
           (double)s->ncells / (ms * 1e-3) / 1e6, advect ? "-" : (snprintf(msg, sizeof msg, "%d", iterations), msg));
    eddy_sim_destroy(s);
}

static bool wanted(const bench_row *row, bool advect_only, const char *only) {
    if (advect_only && strcmp(row->stage, "advect")) return false;
    if (!only) return true;
    char name[64];
    snprintf(name, sizeof name, "%s x%d%s", row->scheme == EDDY_ADVECT_SEMI_LAGRANGIAN ? "SL" :
                                            row->scheme == EDDY_ADVECT_MACCORMACK ? "MC" : "BFECC",
             row->dye_scale, row->temperature ? "+T" : "");
    return !strcmp(name, only);
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 9;
    if (reps < 1 || reps > 64) reps = 9;
    bool three = argc > 2 && !strncmp(argv[2], "3d", 2), two = !(argc > 2 && !strcmp(argv[2], "3d-only"));
    bool advect_only = argc > 3 && !strcmp(argv[3], "advect");
    const char *only = argc > 4 && strcmp(argv[4], "all") ? argv[4] : NULL; /* only this row ("all": every row) */
    int max_threads = argc > 5 ? atoi(argv[5]) : 2;
    force_baseline = argc > 6 && !strcmp(argv[6], "baseline");
    periodic = argc > 7 && !strcmp(argv[7], "periodic");
    /* k dt / h^2 at 512^2 with dt = 0.5/512 s: viscosity 1e-3 -> 0.26 (a light fluid), 0.1 -> 26 (syrup) */
    bench_row rows[] = {
        {"advect", EDDY_ADVECT_SEMI_LAGRANGIAN, 1, false, 0, 0},
        {"advect", EDDY_ADVECT_MACCORMACK, 1, false, 0, 0},
        {"advect", EDDY_ADVECT_MACCORMACK, 1, true, 0, 0},
        {"advect", EDDY_ADVECT_BFECC, 1, false, 0, 0},
        {"advect", EDDY_ADVECT_MACCORMACK, 2, false, 0, 0},
        {"diffuse", EDDY_ADVECT_MACCORMACK, 1, false, 1e-3f, 0},
        {"diffuse", EDDY_ADVECT_MACCORMACK, 1, false, 0.1f, 0},
        {"diffuse", EDDY_ADVECT_MACCORMACK, 1, false, 0, 1e-4f},
    };
    printf("# eddy advection / diffusion stages, median of %d runs; Mcell/s counts velocity cells; temperature zero; "
           "%s row kernels%s\n", reps, force_baseline ? "baseline" : "AVX2 (where the CPU has it)", periodic ? "; periodic axes" : "");
    printf("%-5s %-8s %-34s %7s %9s %9s %9s %9s %6s\n", "grid", "stage", "variant", "threads", "ms", "cpu ms", "cpu min", "Mcell/s",
           "CG it");
    for (size_t r = 0; r < sizeof rows / sizeof rows[0] && two; r++)
        for (int threads = 1; threads <= max_threads; threads++)
            if (wanted(&rows[r], advect_only, only)) run(2, 512, threads, &rows[r], reps);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0] && three; r++)
        for (int threads = 1; threads <= max_threads; threads++)
            if (wanted(&rows[r], advect_only, only)) run(3, 128, threads, &rows[r], reps < 5 ? reps : 5);
    return 0;
}
