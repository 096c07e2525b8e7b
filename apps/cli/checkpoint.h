/* Checkpoint files of the eddy command: the simulation's own state file (eddy_sim_save) wrapped together with the
 * command's state (frame counter, random generator, the scene) so that `eddy resume` continues exactly.
 *
 * Layout (little-endian):
 *   "EDDYCKPT" | u32 version (1) | u64 json_len | u64 state_len | json bytes | state bytes | u64 FNV-1a hash
 * The hash covers every byte before it. The JSON is the command's state (run.c); the state bytes are exactly what
 * eddy_sim_save wrote. */
#ifndef EDDY_CLI_CHECKPOINT_H
#define EDDY_CLI_CHECKPOINT_H

#include "eddy/eddy.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHECKPOINT_VERSION 1u

typedef struct checkpoint_view {
    const char *json;
    size_t json_len;
    const uint8_t *state;
    size_t state_len;
} checkpoint_view;

/* Saves `sim` and wraps it with `json` into `path` (written to a temporary file, then renamed). An existing `path`
 * that is not a regular file (a directory, a symbolic link itself, a device, pipe or socket) is refused, with err
 * naming it and its kind, and left as it was: the rename would replace it. */
bool checkpoint_save(const char *path, eddy_sim *sim, const char *json, char *err, size_t err_size);
/* Checks a checkpoint held in memory; `verify_hash` false skips the hash (fuzzing reaches the fields then). */
bool checkpoint_parse(const uint8_t *data, size_t len, bool verify_hash, checkpoint_view *out, char *err, size_t err_size);
/* Reads a whole file (at most 16 GiB) into malloc'ed memory. */
bool checkpoint_read_file(const char *path, uint8_t **data, size_t *len, char *err, size_t err_size);
/* Creates the simulation from the state bytes (through a temporary file, as eddy_sim_load reads files). */
eddy_status checkpoint_load_sim(const uint8_t *state, size_t len, eddy_sim **out, char *err, size_t err_size);
uint64_t checkpoint_hash(const uint8_t *data, size_t len);
/* The scene stored in a checkpoint must describe the simulation state stored beside it: the same dim, grid and
 * dye_scale. false (err says what differs) for a checkpoint whose two parts do not belong together. */
bool checkpoint_check_scene(const eddy_sim_def *scene, const eddy_sim_def *state, char *err, size_t err_size);

#define RUN_PATH_MAX 4096

/* What a checkpoint carries besides the simulation: enough to continue exactly as if the run had not stopped. */
typedef struct run_state {
    int frame;              /* frames written so far */
    int total_frames;
    double fps;
    int next_splat;         /* index of the next scene splat to apply */
    int random_done;        /* random splats applied so far */
    uint64_t rng;           /* random splat generator state */
    int dump, checkpoint;   /* every N frames (0 = never) */
    char out_dir[RUN_PATH_MAX];
    char stats_path[RUN_PATH_MAX]; /* "" = none */
    long long stats_bytes;  /* size of the stats file when the checkpoint was written */
    bool video;             /* a video is being written */
} run_state;

/* The command's state as stored in a checkpoint's JSON (written by run.c, run_state_to_json). */
typedef struct checkpoint_state {
    run_state st;
    char *scene_json;       /* the scene, overrides applied */
    char scene_file[RUN_PATH_MAX], scene_dir[RUN_PATH_MAX];
    eddy_id *obstacle_ids, *emitter_ids; /* ids of the scene's obstacles and emitters in the simulation */
    int obstacle_count, emitter_count;
} checkpoint_state;

/* Parses and checks the JSON; on failure `err` names the bad key. Free with checkpoint_state_free. */
bool checkpoint_state_parse(const char *json, size_t len, checkpoint_state *out, char *err, size_t err_size);
void checkpoint_state_free(checkpoint_state *cs);

#endif
