/* The frame-time benchmark's statistics and tables (see bench.h). Percentiles are nearest-rank over the counted
 * frames; a phase's median is the median of that phase alone, so the phase medians need not add up to the frame's. */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define BENCH_BUDGET_MS (1000.0 / 60.0) /* one frame at 60 fps */

int bench_init(bench *b, int frames) {
    memset(b, 0, sizeof *b);
    b->frames = frames;
    b->warmup = frames >= 40 ? 10 : frames / 4; /* the first frames warm caches and the pressure solver */
    b->samples = calloc((size_t)frames * BENCH_COLUMNS, sizeof(double));
    b->sorted = calloc((size_t)frames, sizeof(double));
    return b->samples && b->sorted ? 0 : -1;
}

void bench_free(bench *b) {
    free(b->samples);
    free(b->sorted);
    b->samples = b->sorted = NULL;
}

void bench_record(bench *b, const double row[BENCH_COLUMNS]) {
    if (b->seen >= b->frames) return;
    int i = b->seen++ - b->warmup;
    if (i < 0) return;
    for (int c = 0; c < BENCH_COLUMNS; c++) b->samples[(size_t)c * (size_t)b->frames + (size_t)i] = row[c];
}

int bench_run_done(const bench *b) { return b->seen >= b->frames; }

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_finish_run(bench *b, const char *label) {
    if (b->run_count >= BENCH_MAX_RUNS) return;
    bench_run *r = &b->runs[b->run_count++];
    memset(r, 0, sizeof *r);
    snprintf(r->label, sizeof r->label, "%s", label);
    int n = b->seen - b->warmup;
    r->counted = n > 0 ? n : 0;
    for (int c = 0; c < BENCH_COLUMNS && n > 0; c++) {
        memcpy(b->sorted, b->samples + (size_t)c * (size_t)b->frames, (size_t)n * sizeof(double));
        qsort(b->sorted, (size_t)n, sizeof(double), compare_double);
        r->median[c] = n % 2 ? b->sorted[n / 2] : 0.5 * (b->sorted[n / 2 - 1] + b->sorted[n / 2]);
        int rank = (int)((95L * n + 99) / 100); /* nearest rank: the smallest value with 95% of frames at or below */
        r->p95[c] = b->sorted[rank > 0 ? rank - 1 : 0];
    }
    bench_load_average(r->load_after);
    b->seen = 0;
}

void bench_load_average(double load[3]) {
    load[0] = load[1] = load[2] = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (!f) return;
    if (fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) load[0] = load[1] = load[2] = -1;
    fclose(f);
}

static const char *const phase_titles[VIEWER_PHASE_COUNT] = {"wait", "input", "render", "post", "compose", "overlay",
                                                              "step"};

void bench_print(const bench *b, FILE *f, const char *scene, const char *grid, const char *dye, int window_w,
                 int window_h, int threads, int cores, const double load_before[3]) {
    fprintf(f, "eddy-view --bench %d: scene %s, grid %s, dye %s, window %dx%d, %d thread%s, %d cores; per run %d frames, "
               "the first %d not counted; load average before %.2f %.2f %.2f\n",
            b->frames, scene, grid, dye, window_w, window_h, threads, threads == 1 ? "" : "s", cores, b->frames,
            b->warmup, load_before[0], load_before[1], load_before[2]);
    fprintf(f, "\nframe time, ms (median and p95 over the counted frames; phases: medians of each)\n");
    fprintf(f, "%-5s %9s %8s %6s %-7s %7s %8s", "post", "median_ms", "p95_ms", "fps", "60fps", "cpu_ms", "cpu_p95");
    for (int p = 0; p < VIEWER_PHASE_COUNT; p++) fprintf(f, " %8s", phase_titles[p]);
    fprintf(f, " %8s %8s %6s %s\n", "present", "other", "steps", "load_after");
    for (int i = 0; i < b->run_count; i++) {
        const bench_run *r = &b->runs[i];
        double med = r->median[BENCH_FRAME], p95 = r->p95[BENCH_FRAME];
        /* holds: 95% of frames within the budget; median: the typical frame is, the slow 5% are not */
        const char *holds = p95 <= BENCH_BUDGET_MS ? "yes" : med <= BENCH_BUDGET_MS ? "median" : "no";
        fprintf(f, "%-5s %9.2f %8.2f %6.1f %-7s %7.2f %8.2f", r->label, med, p95, med > 0 ? 1000.0 / med : 0.0, holds,
                r->median[BENCH_CPU], r->p95[BENCH_CPU]);
        for (int p = 0; p < VIEWER_PHASE_COUNT; p++) fprintf(f, " %8.2f", r->median[BENCH_PHASE0 + p]);
        fprintf(f, " %8.2f %8.2f %6.1f %.2f %.2f %.2f\n", r->median[BENCH_PRESENT], r->median[BENCH_OTHER],
                r->median[BENCH_SUBSTEPS], r->load_after[0], r->load_after[1], r->load_after[2]);
    }
    fprintf(f, "\nsimulation stages, ms per frame (medians; the last substep's stage times times the substeps)\n");
    fprintf(f, "%-5s", "post");
    for (int k = 0; k < EDDY_STAGE_COUNT; k++) fprintf(f, " %11s", eddy_stage_name((eddy_stage)k));
    fprintf(f, "\n");
    for (int i = 0; i < b->run_count; i++) {
        const bench_run *r = &b->runs[i];
        fprintf(f, "%-5s", r->label);
        for (int k = 0; k < EDDY_STAGE_COUNT; k++) fprintf(f, " %11.3f", r->median[BENCH_STAGE0 + k]);
        fprintf(f, "\n");
    }
    fprintf(f, "\nphases: wait (for the last step), input, render (2D: copying the fields first), post, compose and "
               "overlay run one after another; step runs on its own thread beside them and the present (2D).\n");
    fprintf(f, "60fps: yes = 95%% of frames within %.1f ms; median = the median frame is, the slowest 5%% are not; "
               "no = the median frame is not. cpu_ms: this process's CPU time per frame (all threads), which a "
               "busy machine does not inflate; the X server's share of presenting is not in it.\n",
            BENCH_BUDGET_MS);
}
