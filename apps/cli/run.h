/* A run of the eddy command: options, the state a checkpoint must carry, and the pieces of the run loop. */
#ifndef EDDY_CLI_RUN_H
#define EDDY_CLI_RUN_H

#include "checkpoint.h"
#include "scene.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* exit codes */
enum { EXIT_OK = 0, EXIT_SIM_ERROR = 1, EXIT_USAGE = 2 };

#define RUN_MAX_SETS 256

typedef struct run_options {
    const char *scene_file;          /* eddy run SCENE.json */
    const char *preset;              /* eddy run --scene NAME */
    const char *resume;              /* eddy resume CHECKPOINT */
    const char *sets[RUN_MAX_SETS];  /* --set key.path=value */
    int set_count;
    int frames;                      /* --frames; -1 = from the scene (duration * fps) */
    double fps;                      /* --fps; 0 = from the scene */
    const char *out_dir;             /* --out; NULL = the scene's output.dir */
    bool force;                      /* --force: write into an existing folder */
    int threads;                     /* --threads; -1 = the scene's */
    bool quiet;                      /* --quiet: errors only */
    const char *stats_path;          /* --stats FILE.jsonl */
    int dump;                        /* --dump N; -1 = the scene's output.dump */
    int checkpoint;                  /* --checkpoint N; -1 = the scene's output.checkpoint */
    int stop_at;                     /* --stop-at K: stop after frame K (resume later); 0 = run to the end */
    bool no_video;                   /* --no-video */
} run_options;

void run_options_init(run_options *o);

/* The run in progress. */
typedef struct run {
    eddy_scene *scene;
    eddy_sim *sim;
    run_state st;
    run_options opt;
    eddy_id *obstacle_ids;
    eddy_id *emitter_ids;
    FILE *stats;
    struct run_output *out;
    struct progress *progress;
} run;

/* run.c */
int run_command(const run_options *opt);
int resume_command(const run_options *opt);

/* run_setup.c: creates the simulation, its obstacles and emitters, and sets the initial fields */
bool run_setup_sim(run *r, char *err, size_t err_size);
/* obstacles and emitters that move: place them at time t (before a step) */
eddy_status run_move_bodies(run *r, double t);
/* the step the simulation will take now (mirrors the library's CFL rule; see run.c) */
double run_max_dt(eddy_sim *sim);
/* random numbers of the random splats (splitmix64) */
uint64_t run_rng_next(uint64_t *state);
double run_rng_uniform(uint64_t *state);

/* run_output.c: folder, frames, video, sprite sheet, dumps */
typedef struct run_output run_output;
/* picks the output folder (out, out-1, out-2, ... unless forced) and creates it */
bool run_output_choose_dir(const char *wanted, bool explicit_dir, bool force, char *chosen, size_t size, char *err,
                           size_t err_size);
run_output *run_output_open(run *r, bool resuming, char *err, size_t err_size);
/* renders and writes frame `frame` (1-based) */
bool run_output_frame(run_output *o, run *r, int frame, char *err, size_t err_size);
bool run_output_dump(run *r, int frame, char *err, size_t err_size);
/* finishes the video and sprite sheet; `ok` false when the run failed (what is written so far is kept) */
bool run_output_close(run_output *o, run *r, char *err, size_t err_size);
/* stops without finishing the video or the sheet (--stop-at: the resumed run writes them) */
void run_output_abort(run_output *o);
void run_output_free(run_output *o);
/* a line naming what was written, or NULL */
const char *run_output_summary(const run_output *o);

/* run_stats.c: one JSON object per step */
void run_stats_write(run *r);

/* the command's state for a checkpoint, as JSON (cJSON_free it) */
char *run_state_to_json(const run *r);

#endif
