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
/* longest output folder name: leaves room in RUN_PATH_MAX for "-N" and the longest file name written inside it (the
 * video, up to 200 characters of the scene's name) */
#define RUN_OUT_DIR_MAX 3840
#define RUN_OUT_DIR_MAX_TEXT "3840"

typedef struct run_options {
    const char *scene_file;          /* eddy run SCENE.json */
    const char *preset;              /* eddy run --scene NAME */
    const char *resume;              /* eddy resume CHECKPOINT */
    const char *sets[RUN_MAX_SETS];  /* --set key.path=value */
    int set_count;
    int frames;                      /* --frames; -1 = from the scene (duration * fps) */
    double fps;                      /* --fps; 0 = from the scene */
    const char *out_dir;             /* --out; NULL = the scene's output.dir */
    bool force;                      /* --force: write into an existing folder (its earlier outputs removed), and let
                                        --stats overwrite an existing file */
    int threads;                     /* --threads; -1 = the scene's */
    char backend_set[48];            /* --backend NAME, kept as the --set "backend=\"NAME\"" it stands for */
    bool quiet;                      /* --quiet: errors only */
    const char *stats_path;          /* --stats FILE.jsonl */
    int dump;                        /* --dump N; -1 = the scene's output.dump */
    int checkpoint;                  /* --checkpoint N; -1 = the scene's output.checkpoint */
    int stop_at;                     /* --stop-at K: stop after frame K (resume later); 0 = run to the end */
    bool no_video;                   /* --no-video */
    bool surface;                    /* --surface: signed distance in the dumps, meshes every frame */
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
    struct run_surface *surface; /* --surface: signed distance and meshes; NULL when off */
    struct run_wind *wind;       /* a wind scene: the wind field and its particles (sim is NULL then) */
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
/* picks the output folder (out, out-1, out-2, ... unless forced) and creates it; `created` gets the topmost folder
 * it made ("" when the folder was there already) */
bool run_output_choose_dir(const char *wanted, bool explicit_dir, bool force, char *chosen, size_t size, char *created,
                           size_t created_size, char *err, size_t err_size);
/* removes the folders run_output_choose_dir made, from `chosen` up to `created`, while they are empty */
void run_output_undo_dir(const char *chosen, const char *created);
/* --force into an existing folder: removes what an earlier run of the command wrote there (frame_NNNNN.png,
 * checkpoint_NNNNN.eddy, volume_NNNNN.vdb, surface_NNNNN.svg/.ply/.obj, the dump folders' own files, sheet.png/.json
 * and this scene's video), so that the folder holds one run only; nothing else is touched */
bool run_output_clear_dir(const run *r, char *err, size_t err_size);
run_output *run_output_open(run *r, bool resuming, char *err, size_t err_size);
/* renders and writes frame `frame` (1-based) */
bool run_output_frame(run_output *o, run *r, int frame, char *err, size_t err_size);
/* whether frames are drawn at all (PNG, video or sprite sheet wanted) */
bool run_output_wants_picture(const run_output *o, const run *r);
/* the renderer and the image that run_output_picture writes (a wind scene draws its own picture into it) */
eddy_renderer *run_output_renderer(run_output *o);
eddy_image *run_output_image(run_output *o);
/* writes the image as frame `frame`: PNG (with alpha when `alpha`), video, sprite sheet */
bool run_output_picture(run_output *o, run *r, int frame, bool alpha, char *err, size_t err_size);
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
/* a wind scene's line: one per frame, from the wind's frame statistics; rms_div and kinetic_energy come from the
 * simulation behind the field, particles_ms is the particle update */
void run_stats_write_wind(run *r, const eddy_wind_frame_stats *ws, double rms_div, double kinetic_energy, double particles_ms);

/* run_surface.c: --surface (signed distance in the dumps, meshes every frame) */
typedef struct run_surface run_surface;
/* made once the simulation exists; false (err set) when the dye grid has no square cells */
bool run_surface_open(run *r, char *err, size_t err_size);
/* frame `frame`'s meshes: surface_NNNNN.svg (2D), .ply or .obj (3D) */
bool run_surface_frame(run *r, int frame, char *err, size_t err_size);
/* sdf.npy into the dump folder `dir` */
bool run_surface_dump(run *r, const char *dir, char *err, size_t err_size);
void run_surface_free(run_surface *s);

/* run_wind.c: a wind scene (docs/scenes.md, "Wind scenes") */
typedef struct run_wind run_wind;
/* creates the wind field and the particles; false (err set) on a definition the library refuses */
bool run_wind_setup(run *r, char *err, size_t err_size);
/* the frames; returns the exit code */
int run_wind_loop(run *r);
/* the window's fields, the particles and where the window is, into the dump folder `dir` */
bool run_wind_dump(run *r, const char *dir, char *err, size_t err_size);
/* the wind field of a wind scene's run */
const eddy_wind *run_wind_field(const run *r);
void run_wind_free(run_wind *w);

/* the command's state for a checkpoint, as JSON (cJSON_free it) */
char *run_state_to_json(const run *r);

#endif
