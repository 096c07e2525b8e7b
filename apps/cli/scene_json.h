/* Typed, path-aware access to a cJSON tree for the scene loader: every getter checks the type and range of one key
 * and, on failure, writes "FILE: KEY.PATH: expected ..., got ..." into the context's error buffer. */
#ifndef EDDY_CLI_SCENE_JSON_H
#define EDDY_CLI_SCENE_JSON_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

#define JPATH_MAX 256

typedef struct jcheck {
    const char *file;
    char *err;
    size_t err_size;
    const char *const *set_paths; /* key paths given by --set, to say where a bad value came from */
    int set_count;
} jcheck;

/* An allowed interval for numbers; `unit` is shown in messages ("m", "m^2/s", ""). */
typedef struct jrange {
    double lo, hi;
    bool lo_open, hi_open;
    const char *unit;
} jrange;

#define JR(lo, hi, unit) ((jrange){(lo), (hi), false, false, (unit)})
#define JR_POS(unit) ((jrange){0, 1e30, true, false, (unit)})   /* > 0 */
#define JR_NONNEG(unit) ((jrange){0, 1e30, false, false, (unit)}) /* >= 0 */
#define JR_ANY(unit) ((jrange){-1e30, 1e30, false, false, (unit)})

/* Writes the error "FILE: PATH: message" and returns false. */
bool jc_fail(jcheck *c, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* jc_fail for a message that starts with the key itself (a library's "render.width = 1000 with ..."): "FILE:
 * message", so that the key is said once; `path` still tells whether the value came from --set. */
bool jc_fail_keyed(jcheck *c, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* child key path ("a.b") and element path ("a[3]") into `out` (JPATH_MAX bytes) */
const char *jc_key_path(char *out, const char *path, const char *key);
const char *jc_index_path(char *out, const char *path, int index);

/* Short description of a value for messages: `string "abc"`, `-1`, `an array of 2`, `an object`. */
const char *jc_describe(const cJSON *v, char *buf, size_t size);

/* Checks that `v` is an object whose keys are all in `allowed` (NULL-terminated) and not repeated. */
bool jc_object(jcheck *c, const cJSON *v, const char *path, const char *const *allowed);
/* The member `key` of object `obj`, or NULL (exact, case-sensitive match). */
const cJSON *jc_member(const cJSON *obj, const char *key);

/* Getters: a missing key leaves *out unchanged and succeeds. `path` is the object's path. */
bool jc_number(jcheck *c, const cJSON *obj, const char *path, const char *key, jrange r, double *out);
bool jc_float(jcheck *c, const cJSON *obj, const char *path, const char *key, jrange r, float *out);
bool jc_int(jcheck *c, const cJSON *obj, const char *path, const char *key, jrange r, int *out);
bool jc_bool(jcheck *c, const cJSON *obj, const char *path, const char *key, bool *out);
/* string, copied with malloc into *out (an old value is freed) */
bool jc_string(jcheck *c, const cJSON *obj, const char *path, const char *key, char **out);
/* one of `names` (NULL-terminated); *out is the index */
bool jc_enum(jcheck *c, const cJSON *obj, const char *path, const char *key, const char *const *names, int *out);
/* an array of exactly n numbers in range */
bool jc_vec(jcheck *c, const cJSON *obj, const char *path, const char *key, int n, jrange r, float *out);
/* value checks on a given node (not a member) */
bool jc_number_value(jcheck *c, const cJSON *v, const char *path, jrange r, double *out);
bool jc_vec_value(jcheck *c, const cJSON *v, const char *path, int n, jrange r, float *out);

#endif
