/* bench: time per stage and per whole step of a smoke scene (splat + emitter, buoyancy, vorticity, MacCormack,
 * MGPCG to 1e-5), for 2D 512^2 and 1024^2 and 3D 128^3 with 1 and 2 threads. Prints medians, cells per second,
 * and for the streaming stages the achieved memory bandwidth (compulsory bytes: every input array read once,
 * every output written once) against a copy bandwidth measured in the same run. A table, never pass/fail.
 * Usage: bench [steps [case [threads [n]]]]: steps default 15 (the first 3 are warm-up); case runs only the sizes whose
 * label contains it (e.g. 512x512, 3D); threads (1 or 2) only that thread count; n replaces the sizes by one 2D n^2
 * and (n <= 256) one 3D n^3 grid (the domain is 1 m wide: a cell size that is not a power of two when n is not). */
#include "bench_median.h"
#include "sim_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A parallel float copy of 256 MB (far larger than the caches): the reference every (%) figure divides by. */
typedef struct {
    float *a, *b;
    size_t n;
    int threads;
} copy_probe;

static bool copy_probe_init(copy_probe *c, size_t bytes, int threads) {
    c->n = bytes / sizeof(float);
    c->threads = threads;
    c->a = malloc(bytes);
    c->b = malloc(bytes);
    if (!c->a || !c->b) { free(c->a); free(c->b); return false; }
    float *a = c->a, *b = c->b;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < c->n; i++) { a[i] = (float)i; b[i] = 0; }
    return true;
}

static void copy_probe_free(copy_probe *c) {
    free(c->a);
    free(c->b);
}

/* copy bandwidth (read + write bytes / time), the fastest of `reps` copies, as STREAM reports: the bandwidth the
 * memory can give, the stricter reference */
static double copy_probe_gbs(copy_probe *c, int reps) {
    const float *a = c->a;
    float *b = c->b;
    const size_t n = c->n;
    double best = 0;
    for (int r = 0; r < reps; r++) {
        double t0 = eddy__now_ms();
#pragma omp parallel for num_threads(c->threads) schedule(static)
        for (size_t i = 0; i < n; i++) b[i] = a[i];
        double t = eddy__now_ms() - t0;
        best = r == 0 || t < best ? t : best;
    }
    volatile float sink = b[n / 3];
    (void)sink;
    return 2.0 * (double)(n * sizeof(float)) / (best * 1e-3) / 1e9;
}

static double copy_bandwidth(size_t bytes, int threads) {
    copy_probe c;
    if (!copy_probe_init(&c, bytes, threads)) return 0;
    double gbs = copy_probe_gbs(&c, 7);
    copy_probe_free(&c);
    return gbs;
}

typedef struct { int dim, n[3]; } bench_case;

/* the scene's velocity splat before step i (the emitter does the rest) */
static void stir(eddy_sim *s, int i) {
    eddy_splat sp = {{0.3f + 0.02f * (float)i, 0.5f, 0.5f}, 0.05f, {1.0f, 0.5f, 0.2f}, {1, 0.2f, 0.1f}, 1.0f};
    eddy_sim_splat(s, &sp);
}

/* compulsory bytes of vorticity confinement: every velocity component read and written, the solid mask read */
static double vorticity_bytes(const eddy_sim *s) {
    double nv = 0;
    for (int a = 0; a < s->dim; a++) nv += (double)s->nface[a];
    return 8.0 * nv + (double)s->ncells;
}

/* The streaming parts of the step on their own, on the state the steps left, with their compulsory bytes: buoyancy
 * reads the temperature and updates the component along gravity; vorticity confinement reads every component and
 * the solid mask and rewrites every component; the diagnostics read every component, the solid mask and the dye.
 * On a shared machine the memory bandwidth drifts within seconds, so each part is timed in ALONE_ROUNDS rounds,
 * each a copy bandwidth (best of 3) measured just before the part's 15 calls (median): the (%) is the median of the
 * rounds' ratios, and the ms the median of the rounds' medians. "fastest" is the same ratio from each round's fastest
 * call: like for like with the copy (also the fastest of its runs), and blind to a call during which the shared host
 * took a thread's CPU away (`cpu_gap_probe` measures such gaps), which the median of 15 calls of 1-3 ms is not. */
enum { ALONE_ROUNDS = 5 };

static void stages_alone(eddy_sim *s, int threads) {
    const float dt = s->def.dt;
    double nv = 0;
    for (int a = 0; a < s->dim; a++) nv += (double)s->nface[a];
    const double cells = (double)s->ncells, ns = (double)s->nscalar;
    double gface = 0;
    for (int a = 0; a < s->dim; a++)
        if (s->def.gravity[a] != 0.0f) gface += (double)s->nface[a];
    const struct { const char *name; double bytes; } part[3] = {
        {"buoyancy", 4.0 * (ns + 2.0 * gface)}, {"vorticity", vorticity_bytes(s)}, {"diagnostics", 4.0 * (nv + 3.0 * ns) + cells}};
    copy_probe probe;
    if (!copy_probe_init(&probe, (size_t)256 << 20, threads)) {
        printf("out of memory for the copy probe\n");
        return;
    }
    double ms[3][ALONE_ROUNDS], pct[3][ALONE_ROUNDS], fast[3][ALONE_ROUNDS], copy[ALONE_ROUNDS * 3];
    for (int round = 0; round < ALONE_ROUNDS; round++)
        for (int p = 0; p < 3; p++) {
            double gbs = copy_probe_gbs(&probe, 3), t[15];
            copy[round * 3 + p] = gbs;
            for (int r = 0; r < 15; r++) {
                double t0 = eddy__now_ms();
                if (p == 0) eddy__apply_buoyancy(s, dt);
                else if (p == 1) eddy__apply_vorticity(s, dt);
                else eddy__diagnostics(s, dt);
                t[r] = eddy__now_ms() - t0;
            }
            ms[p][round] = bench_median(t, 15);
            pct[p][round] = 100.0 * part[p].bytes / (ms[p][round] * 1e-3) / 1e9 / gbs;
            double best, worst;
            bench_range(t, 15, &best, &worst);
            fast[p][round] = 100.0 * part[p].bytes / (best * 1e-3) / 1e9 / gbs;
        }
    copy_probe_free(&probe);
    double lo, hi;
    bench_range(copy, ALONE_ROUNDS * 3, &lo, &hi);
    printf("%-16s %6s | alone:", "", "");
    for (int p = 0; p < 3; p++) {
        double pmin, pmax, fast_lo, fast_hi;
        bench_range(pct[p], ALONE_ROUNDS, &pmin, &pmax);
        bench_range(fast[p], ALONE_ROUNDS, &fast_lo, &fast_hi);
        printf(" %s %.2f ms (%.0f%%, %.0f-%.0f; fastest %.0f%%, >= %.0f)", part[p].name, bench_median(ms[p], ALONE_ROUNDS),
               bench_median(pct[p], ALONE_ROUNDS), pmin, pmax, bench_median(fast[p], ALONE_ROUNDS), fast_lo);
    }
    printf(" | copy %.1f-%.1f GB/s\n", lo, hi);
}

/* Vorticity confinement as a step meets it: one call right after each of STEP_CALLS more steps of the scene (the
 * extra call changes the state the next step starts from, as a stronger confinement would), each step after a copy
 * measurement (best of 3) as in stages_alone: the median of the calls' ratios, their range, and the copies' range.
 * Called back to back (the "alone" line), a call finds part of what the call before wrote still in the last-level
 * cache; after a step it finds advection's and the projection's arrays there instead: 12-16% slower at 3D 128^3
 * (docs/bench_history.md, thirtieth session). */
enum { STEP_CALLS = 6 };
static void vorticity_after_steps(eddy_sim *s, int threads, int step0) {
    copy_probe probe;
    if (!copy_probe_init(&probe, (size_t)256 << 20, threads)) {
        printf("out of memory for the copy probe\n");
        return;
    }
    double ms[STEP_CALLS], pct[STEP_CALLS], copy[STEP_CALLS];
    const double bytes = vorticity_bytes(s);
    int done = 0;
    for (int i = 0; i < STEP_CALLS; i++) {
        const double gbs = copy_probe_gbs(&probe, 3);
        copy[i] = gbs;
        stir(s, step0 + i);
        if (eddy_sim_step(s) != EDDY_OK) {
            printf("step failed: %s\n", eddy_sim_last_error(s));
            break;
        }
        double t0 = eddy__now_ms();
        if (eddy__apply_vorticity(s, s->def.dt) != EDDY_OK) {
            printf("vorticity confinement failed: %s\n", eddy_sim_last_error(s));
            break;
        }
        ms[done] = eddy__now_ms() - t0;
        pct[done] = 100.0 * bytes / (ms[done] * 1e-3) / 1e9 / gbs;
        done++;
    }
    copy_probe_free(&probe);
    if (done == 0) return;
    double pmin, pmax, lo, hi;
    bench_range(pct, done, &pmin, &pmax);
    bench_range(copy, done < STEP_CALLS ? done + 1 : done, &lo, &hi); /* a failed step's copy was measured too */
    printf("%-16s %6s | vorticity right after a step: %.2f ms (%.0f%%, %.0f-%.0f), median of %d | copy %.1f-%.1f GB/s\n",
           "", "", bench_median(ms, done), bench_median(pct, done), pmin, pmax, done, lo, hi);
}

static void case_label(const bench_case *c, char *out, size_t size) {
    if (c->dim == 2) snprintf(out, size, "2D %dx%d", c->n[0], c->n[1]);
    else snprintf(out, size, "3D %dx%dx%d", c->n[0], c->n[1], c->n[2]);
}

/* Vorticity confinement per cell at this size and on a grid with rows as long but so few of them that its slabs
 * and fields stay in the caches (16 rows in 2D, 8 x 16 in 3D): when the two are close, the stage is bound by the
 * core (its stencils' arithmetic and cache traffic), not by memory bandwidth, and no rewrite of its memory access
 * would bring it near the copy bandwidth. */
static double vorticity_ns_per_cell(eddy_sim *s) {
    double t[15];
    for (int r = 0; r < 15; r++) {
        double t0 = eddy__now_ms();
        eddy__apply_vorticity(s, s->def.dt);
        t[r] = eddy__now_ms() - t0;
    }
    return bench_median(t, 15) * 1e6 / (double)s->ncells;
}

static void vorticity_in_cache(eddy_sim *s) {
    eddy_sim_def d = s->def;
    if (d.dim == 2) d.grid[1] = 16; /* rows as long as here, few of them */
    else d.grid[1] = 8, d.grid[2] = 16;
    d.size[1] = d.size[2] = 0.0f; /* derived from size[0] and the cell count */
    d.dt = 0.5f / (float)d.grid[1];
    eddy_sim *small = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &small, msg, sizeof msg) != EDDY_OK) {
        printf("create failed: %s\n", msg);
        return;
    }
    for (int i = 0; i < 4; i++) { /* a swirl everywhere: every cell takes the full path */
        eddy_splat sp = {{0.2f + 0.2f * (float)i, 0.05f, 0.05f}, 0.05f, {1, 1, 1}, {i % 2 ? 1.0f : -1.0f, 0.5f, 0.3f}, 1.0f};
        eddy_sim_splat(small, &sp);
    }
    eddy_sim_step(small);
    double big = vorticity_ns_per_cell(s), cached = vorticity_ns_per_cell(small);
    char small_label[32];
    bench_case sc = {d.dim, {d.grid[0], d.grid[1], d.grid[2]}};
    case_label(&sc, small_label, sizeof small_label);
    printf("%-16s %6s | vorticity per cell: %.2f ns here, %.2f ns in cache (%s): memory adds %.0f%%\n", "", "", big,
           cached, small_label + 3, 100.0 * (big - cached) / cached);
    eddy_sim_destroy(small);
}

static void run_case(const bench_case *c, int threads, int steps, double copy_gbs) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = c->dim;
    for (int a = 0; a < 3; a++) d.grid[a] = c->n[a];
    d.size[0] = 1.0f;
    d.threads = threads;
    d.dt = 0.5f / (float)c->n[0]; /* CFL ~ 0.5 at 1 m/s */
    d.vorticity = 0.2f;
    d.buoyancy_temperature = 1.0f;
    d.pressure.tolerance = 1e-5f;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        printf("create failed: %s\n", msg);
        return;
    }
    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 0.5f; e.center[1] = 0.15f; e.center[2] = 0.5f; e.radius = 0.08f;
    e.dye[0] = 2; e.dye[1] = 1; e.temperature = 5; e.velocity[1] = 1.0f; e.set_velocity = 1;
    eddy_sim_add_emitter(s, &e, NULL);
    double *stage[EDDY_STAGE_COUNT], *whole = malloc(sizeof(double) * (size_t)steps);
    int iters = 0;
    float worst_residual = 0.0f; /* the largest final |r|/|b|: above the tolerance where float32 cannot get there */
    for (int k = 0; k < EDDY_STAGE_COUNT; k++) stage[k] = malloc(sizeof(double) * (size_t)steps);
    int measured = 0;
    for (int i = 0; i < steps; i++) {
        stir(s, i);
        if (eddy_sim_step(s) != EDDY_OK) {
            printf("step failed: %s\n", eddy_sim_last_error(s));
            break;
        }
        if (i < 3) continue;
        for (int k = 0; k < EDDY_STAGE_COUNT; k++) stage[k][measured] = s->stats.stage_ms[k];
        whole[measured] = s->stats.step_ms;
        iters += s->stats.pressure_iterations;
        if (s->stats.pressure_residual > worst_residual) worst_residual = s->stats.pressure_residual;
        measured++;
    }
    if (measured == 0) { eddy_sim_destroy(s); return; }
    double cells = (double)s->ncells;
    /* Compulsory bytes per streaming stage: every array the stage must read, read once, and every array it
     * changes, written once (as in the copy: read + write). Scratch arrays are an implementation choice and never
     * count. sources (an emitter's region) and boundary (the domain surface, the solid faces) are not streaming. */
    double nv = 0;
    for (int a = 0; a < s->dim; a++) nv += (double)s->nface[a];
    double ns = (double)s->nscalar;
    double bytes[EDDY_STAGE_COUNT] = {0};
    {
        /* forces: buoyancy reads temperature (and the dye when buoyancy_density != 0) and updates the components
         * along gravity; confinement reads every component and the solid mask (1 byte per cell) and updates every
         * component. Run together, each array is read once and each component written once. */
        const eddy_sim_def *def = &s->def;
        bool buoy = def->buoyancy_density != 0.0f || def->buoyancy_temperature != 0.0f;
        bool vort = def->vorticity != 0.0f;
        double fb = 0, touched = 0;
        if (buoy) {
            fb += 4.0 * ns * ((def->buoyancy_temperature != 0.0f) + 3.0 * (def->buoyancy_density != 0.0f));
            for (int a = 0; a < s->dim; a++)
                if (def->gravity[a] != 0.0f || vort) touched += (double)s->nface[a];
        } else if (vort) touched = nv;
        if (vort) fb += cells;
        bytes[EDDY_STAGE_FORCES] = fb + 4.0 * 2.0 * touched;
    }
    /* advect: reads every velocity component and scalar (dye x 3, temperature) once, writes each once; it is
     * gather-bound, far from this floor */
    bytes[EDDY_STAGE_ADVECT] = 4.0 * (2 * nv + 2 * 4 * ns);
    /* diagnostics: reads every velocity component, the dye and the solid mask; writes only a few numbers */
    bytes[EDDY_STAGE_DIAGNOSTICS] = 4.0 * (nv + 3 * ns) + cells;
    char size[32];
    case_label(c, size, sizeof size);
    double step_ms = bench_median(whole, measured);
    printf("%-16s %2d thr | step %8.2f ms  %7.1f Mcells/s  MGPCG %4.1f it, |r|/|b| <= %.1e |", size, threads, step_ms,
           cells / (step_ms * 1e-3) / 1e6, (double)iters / measured, (double)worst_residual);
    for (int k = 0; k < EDDY_STAGE_COUNT; k++) {
        double ms = bench_median(stage[k], measured);
        printf(" %s %.2f", eddy_stage_name((eddy_stage)k), ms);
        if (bytes[k] > 0 && ms > 0) printf(" (%.0f%%)", 100.0 * bytes[k] / (ms * 1e-3) / 1e9 / copy_gbs);
    }
    printf("\n");
    if (measured > 0) {
        stages_alone(s, threads);
        vorticity_after_steps(s, threads, steps);
        if (threads == 1) vorticity_in_cache(s); /* with more threads, a small grid's halo slabs would weigh in */
    }
    for (int k = 0; k < EDDY_STAGE_COUNT; k++) free(stage[k]);
    free(whole);
    eddy_sim_destroy(s);
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 15;
    const char *only = argc > 2 ? argv[2] : NULL;   /* run only the cases whose label contains this text */
    int only_threads = argc > 3 ? atoi(argv[3]) : 0; /* 1 or 2: only that thread count */
    if (steps < 4) steps = 4;
    bench_case cases[] = {{2, {512, 512, 1}}, {2, {1024, 1024, 1}}, {3, {128, 128, 128}}};
    size_t ncases = sizeof cases / sizeof cases[0];
    if (argc > 4) {
        const int n = atoi(argv[4]);
        if (n < 16 || n > 2048) {
            fprintf(stderr, "bench: size %s: expected a cell count per axis from 16 to 2048\n", argv[4]);
            return 2;
        }
        const bench_case sized[2] = {{2, {n, n, 1}}, {3, {n, n, n}}};
        cases[0] = sized[0];
        cases[1] = sized[1];
        ncases = n <= 256 ? 2 : 1; /* a 3D grid beyond 256^3 does not fit this machine's memory with room */
    }
    printf("eddy bench: median of %d steps after 3 warm-up; stage ms, (%%) = achieved / copy bandwidth\n", steps - 3);
    for (int threads = 1; threads <= 2; threads++) {
        if (only_threads && threads != only_threads) continue;
        double copy = copy_bandwidth((size_t)256 << 20, threads);
        printf("copy bandwidth, %d thread%s: %.2f GB/s (read + write)\n", threads, threads > 1 ? "s" : "", copy);
        for (size_t i = 0; i < ncases; i++) {
            char label[32];
            case_label(&cases[i], label, sizeof label);
            if (only && !strstr(label, only)) continue;
            run_case(&cases[i], threads, steps, copy);
        }
    }
    return 0;
}
