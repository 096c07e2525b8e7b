/* The viewer's frame-time benchmark (eddy-view --bench N): per-frame samples of the wall time, the process's CPU
 * time and the frame's phases, reduced to medians and 95th percentiles and printed as aligned tables, one row per
 * run (post-processing on, then off). Pure C, no window system: the SDL shell measures, this reduces and prints. */
#ifndef VIEWER_BENCH_H
#define VIEWER_BENCH_H

#include "viewer.h"

#include <stdio.h>

/** What one frame sample holds. */
typedef enum bench_column {
    BENCH_FRAME = 0,                                /**< wall time from one frame's start to the next's, ms */
    BENCH_CPU,                                      /**< CPU time of this process (all threads) in that time, ms */
    BENCH_PHASE0,                                   /**< viewer phases (viewer_phase order), ms */
    BENCH_PRESENT = BENCH_PHASE0 + VIEWER_PHASE_COUNT, /**< the frame into the window and shown, ms */
    BENCH_OTHER,                                    /**< the rest: events, timers, the loop, ms */
    BENCH_STAGE0,                                   /**< simulation stages (eddy_stage order), ms */
    BENCH_SUBSTEPS = BENCH_STAGE0 + EDDY_STAGE_COUNT, /**< simulation steps in the frame */
    BENCH_COLUMNS
} bench_column;

#define BENCH_MAX_RUNS 4

/** One run reduced: medians and 95th percentiles of every column, and the load average after it. */
typedef struct bench_run {
    char label[16];        /* "on" / "off": post-processing */
    int counted;           /* frames counted (after the warm-up) */
    double median[BENCH_COLUMNS], p95[BENCH_COLUMNS];
    double load_after[3];
} bench_run;

typedef struct bench {
    int frames;    /* frames per run, warm-up included */
    int warmup;    /* first frames of a run not counted (caches, first allocations, the solver's first solves) */
    int seen;      /* frames recorded in this run, warm-up included */
    double *samples; /* [column][frame] */
    double *sorted;  /* one column, sorted */
    bench_run runs[BENCH_MAX_RUNS];
    int run_count;
} bench;

/** Room for runs of `frames` frames; returns 0, or -1 when out of memory. */
int bench_init(bench *b, int frames);
void bench_free(bench *b);
/** Records one frame (`row` has BENCH_COLUMNS values); frames of the warm-up are not counted. */
void bench_record(bench *b, const double row[BENCH_COLUMNS]);
/** Nonzero when this run has its frames. */
int bench_run_done(const bench *b);
/** Reduces the run to its medians and 95th percentiles under `label` and starts the next run. */
void bench_finish_run(bench *b, const char *label);

/** The 1-minute, 5-minute and 15-minute load averages (from /proc/loadavg; -1 where unknown). */
void bench_load_average(double load[3]);
/** Prints the report: a header line (what ran where), the frame table (one row per run: frame time median and
 *  95th percentile, fps, whether 60 fps holds, CPU time, phases) and the simulation-stage table. */
void bench_print(const bench *b, FILE *f, const char *scene, const char *grid, const char *dye, int window_w,
                 int window_h, int threads, int cores, const double load_before[3]);

#endif
