/* --set key.path=value: overrides one value of a scene's JSON tree before it is checked. */
#ifndef EDDY_CLI_SCENE_SET_H
#define EDDY_CLI_SCENE_SET_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Applies "key.path=value" to `root`. The path is dot-separated keys with array elements as `[i]` or `.i`
 * ("obstacles[0].radius", "obstacles.0.radius"); missing objects on the way are created. The value is parsed as
 * JSON; text that is not JSON is taken as a string (`--set initial.dye=disk.npy`). The scene check that follows
 * type-checks it. On success *norm_path (malloc'ed) is the path in the loader's notation ("obstacles[0].radius").
 * On failure `err` says why. */
bool scene_apply_override(cJSON *root, const char *text, char **norm_path, char *err, size_t err_size);

#endif
