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

/* Saves `sim` and wraps it with `json` into `path` (written to a temporary file, then renamed). */
bool checkpoint_save(const char *path, eddy_sim *sim, const char *json, char *err, size_t err_size);
/* Checks a checkpoint held in memory; `verify_hash` false skips the hash (fuzzing reaches the fields then). */
bool checkpoint_parse(const uint8_t *data, size_t len, bool verify_hash, checkpoint_view *out, char *err, size_t err_size);
/* Reads a whole file (at most 16 GiB) into malloc'ed memory. */
bool checkpoint_read_file(const char *path, uint8_t **data, size_t *len, char *err, size_t err_size);
/* Creates the simulation from the state bytes (through a temporary file, as eddy_sim_load reads files). */
eddy_status checkpoint_load_sim(const uint8_t *state, size_t len, eddy_sim **out, char *err, size_t err_size);
uint64_t checkpoint_hash(const uint8_t *data, size_t len);

#endif
