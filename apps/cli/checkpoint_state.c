/* The command's state inside a checkpoint (JSON written by run.c): frame counter, splat counters, the random
 * generator, output settings, obstacle and emitter ids, and the scene itself. Every key is checked. */
#include "checkpoint.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool get_int(const cJSON *o, const char *key, double lo, double hi, double *out, char *err, size_t err_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) || v->valuedouble != floor(v->valuedouble)) {
        snprintf(err, err_size, "checkpoint state: \"%s\" missing or out of range", key);
        return false;
    }
    *out = v->valuedouble;
    return true;
}

static bool get_str(const cJSON *o, const char *key, char *out, size_t size, char *err, size_t err_size) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v) || strlen(v->valuestring) >= size) {
        snprintf(err, err_size, "checkpoint state: \"%s\" missing or too long", key);
        return false;
    }
    memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
    return true;
}

static bool get_ids(const cJSON *o, const char *key, eddy_id **out, int *count, char *err, size_t err_size) {
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > 4096) {
        snprintf(err, err_size, "checkpoint state: \"%s\" missing or longer than 4096", key);
        return false;
    }
    int n = cJSON_GetArraySize(a);
    *out = (eddy_id *)calloc((size_t)n + 1, sizeof(eddy_id));
    if (!*out) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    *count = n;
    int i = 0;
    for (const cJSON *e = a->child; e; e = e->next, i++) {
        if (!cJSON_IsNumber(e) || !(e->valuedouble >= 1 && e->valuedouble <= 4294967295.0) || e->valuedouble != floor(e->valuedouble)) {
            snprintf(err, err_size, "checkpoint state: \"%s\"[%d] is not an id", key, i);
            return false;
        }
        (*out)[i] = (eddy_id)e->valuedouble;
    }
    return true;
}

void checkpoint_state_free(checkpoint_state *cs) {
    if (!cs) return;
    free(cs->scene_json);
    free(cs->obstacle_ids);
    free(cs->emitter_ids);
    cs->scene_json = NULL;
    cs->obstacle_ids = cs->emitter_ids = NULL;
}

bool checkpoint_state_parse(const char *json, size_t len, checkpoint_state *cs, char *err, size_t err_size) {
    memset(cs, 0, sizeof *cs);
    run_state *st = &cs->st;
    cJSON *o = cJSON_ParseWithLength(json, len);
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        snprintf(err, err_size, "checkpoint state is not a JSON object");
        return false;
    }
    double v, frame, frames, next_splat, random_done, dump, ckpt, stats_bytes;
    const cJSON *fps = cJSON_GetObjectItemCaseSensitive(o, "fps");
    const cJSON *rng = cJSON_GetObjectItemCaseSensitive(o, "rng");
    const cJSON *video = cJSON_GetObjectItemCaseSensitive(o, "video");
    const cJSON *scene = cJSON_GetObjectItemCaseSensitive(o, "scene");
    bool ok = get_int(o, "eddy_checkpoint", 1, 1, &v, err, err_size) && get_int(o, "frames", 1, 1e7, &frames, err, err_size) &&
              get_int(o, "frame", 0, frames, &frame, err, err_size) &&
              get_int(o, "next_splat", 0, 1e7, &next_splat, err, err_size) &&
              get_int(o, "random_done", 0, 1e7, &random_done, err, err_size) && get_int(o, "dump", 0, 1e6, &dump, err, err_size) &&
              get_int(o, "checkpoint", 0, 1e6, &ckpt, err, err_size) &&
              get_int(o, "stats_bytes", 0, 9e15, &stats_bytes, err, err_size) &&
              get_str(o, "out", st->out_dir, sizeof st->out_dir, err, err_size) &&
              get_str(o, "stats", st->stats_path, sizeof st->stats_path, err, err_size) &&
              get_str(o, "scene_file", cs->scene_file, sizeof cs->scene_file, err, err_size) &&
              get_str(o, "scene_dir", cs->scene_dir, sizeof cs->scene_dir, err, err_size) &&
              get_ids(o, "obstacle_ids", &cs->obstacle_ids, &cs->obstacle_count, err, err_size) &&
              get_ids(o, "emitter_ids", &cs->emitter_ids, &cs->emitter_count, err, err_size);
    if (ok && (!cJSON_IsNumber(fps) || !(fps->valuedouble > 0 && fps->valuedouble <= 1000))) {
        snprintf(err, err_size, "checkpoint state: \"fps\" missing or out of range");
        ok = false;
    }
    unsigned long long rng_value = 0;
    if (ok && (!cJSON_IsString(rng) || strlen(rng->valuestring) != 16 ||
               strspn(rng->valuestring, "0123456789abcdef") != 16 || sscanf(rng->valuestring, "%16llx", &rng_value) != 1)) {
        snprintf(err, err_size, "checkpoint state: \"rng\" missing or not 16 hex digits");
        ok = false;
    }
    if (ok && (!cJSON_IsBool(video) || !cJSON_IsObject(scene))) {
        snprintf(err, err_size, "checkpoint state: \"video\" or \"scene\" missing");
        ok = false;
    }
    if (ok && !st->out_dir[0]) {
        snprintf(err, err_size, "checkpoint state: \"out\" is empty");
        ok = false;
    }
    if (ok) {
        st->frame = (int)frame;
        st->total_frames = (int)frames;
        st->fps = fps->valuedouble;
        st->next_splat = (int)next_splat;
        st->random_done = (int)random_done;
        st->rng = rng_value;
        st->dump = (int)dump;
        st->checkpoint = (int)ckpt;
        st->stats_bytes = (long long)stats_bytes;
        st->video = cJSON_IsTrue(video);
        cs->scene_json = cJSON_PrintUnformatted(scene);
        if (!cs->scene_json) {
            snprintf(err, err_size, "out of memory");
            ok = false;
        }
    }
    cJSON_Delete(o);
    if (!ok) checkpoint_state_free(cs);
    return ok;
}
