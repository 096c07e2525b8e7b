/* Checkpoint container of the eddy command (layout in checkpoint.h). */
#include "checkpoint.h"
#include "read_file.h"
#include "temp_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char magic[8] = {'E', 'D', 'D', 'Y', 'C', 'K', 'P', 'T'};
enum { HEADER_SIZE = 8 + 4 + 8 + 8, HASH_SIZE = 8 };

uint64_t checkpoint_hash(const uint8_t *data, size_t len) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a 64 */
    for (size_t i = 0; i < len; i++) {
        h ^= data[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get_u32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

bool checkpoint_read_file(const char *path, uint8_t **data, size_t *len, char *err, size_t err_size) {
    *data = NULL;
    *len = 0;
    FILE *f = cli_open_for_reading(path, "checkpoint file", err, err_size);
    if (!f) return false;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        snprintf(err, err_size, "%s: cannot seek: %s", path, strerror(errno));
        return false;
    }
    long size = ftell(f);
    if (size < 0 || (unsigned long long)size > (16ull << 30)) {
        fclose(f);
        snprintf(err, err_size, "%s: cannot read its size, or larger than 16 GiB", path);
        return false;
    }
    rewind(f);
    uint8_t *buf = (uint8_t *)malloc((size_t)size + 1);
    if (!buf) {
        fclose(f);
        snprintf(err, err_size, "%s: out of memory reading %ld bytes", path, size);
        return false;
    }
    size_t got = fread(buf, 1, (size_t)size, f);
    fclose(f);
    if (got != (size_t)size) {
        free(buf);
        snprintf(err, err_size, "%s: read %zu of %ld bytes", path, got, size);
        return false;
    }
    *data = buf;
    *len = (size_t)size;
    return true;
}

static void cells_text(const int *v, int dim, char *buf, size_t size) {
    if (dim == 3) snprintf(buf, size, "[%d, %d, %d]", v[0], v[1], v[2]);
    else snprintf(buf, size, "[%d, %d]", v[0], v[1]);
}

/* false, with err naming `key` and both values, when the first `dim` entries of the scene's and the state's differ */
static bool same_cells(const char *key, const int *scene, const int *state, int dim, char *err, size_t err_size) {
    for (int a = 0; a < dim; a++) {
        if (scene[a] == state[a]) continue;
        char want[64], got[64];
        cells_text(scene, dim, want, sizeof want);
        cells_text(state, dim, got, sizeof got);
        snprintf(err, err_size, "the stored scene's %s %s does not match the stored simulation state's %s", key, want, got);
        return false;
    }
    return true;
}

bool checkpoint_check_scene(const eddy_sim_def *scene, const eddy_sim_def *state, char *err, size_t err_size) {
    if (scene->dim != state->dim) {
        snprintf(err, err_size, "the stored scene is %dD, the stored simulation state %dD", scene->dim, state->dim);
        return false;
    }
    int dim = scene->dim == 3 ? 3 : 2;
    return same_cells("grid", scene->grid, state->grid, dim, err, err_size) &&
           same_cells("dye_scale", scene->dye_scale, state->dye_scale, dim, err, err_size);
}

bool checkpoint_parse(const uint8_t *data, size_t len, bool verify_hash, checkpoint_view *out, char *err, size_t err_size) {
    memset(out, 0, sizeof *out);
    if (len < HEADER_SIZE + HASH_SIZE || memcmp(data, magic, sizeof magic) != 0) {
        snprintf(err, err_size, "not an eddy checkpoint (no EDDYCKPT header)");
        return false;
    }
    uint32_t version = get_u32(data + 8);
    if (version != CHECKPOINT_VERSION) {
        snprintf(err, err_size, "checkpoint version %u; this eddy reads version %u", version, CHECKPOINT_VERSION);
        return false;
    }
    uint64_t json_len = get_u64(data + 12), state_len = get_u64(data + 20);
    uint64_t body = (uint64_t)len - HEADER_SIZE - HASH_SIZE;
    if (json_len > body || state_len > body - json_len || json_len + state_len != body) {
        snprintf(err, err_size, "checkpoint is truncated or corrupt (sections of %llu + %llu bytes in a body of %llu)",
                 (unsigned long long)json_len, (unsigned long long)state_len, (unsigned long long)body);
        return false;
    }
    if (verify_hash) {
        uint64_t want = get_u64(data + len - HASH_SIZE);
        if (checkpoint_hash(data, len - HASH_SIZE) != want) {
            snprintf(err, err_size, "checkpoint is corrupt (hash mismatch)");
            return false;
        }
    }
    out->json = (const char *)(data + HEADER_SIZE);
    out->json_len = (size_t)json_len;
    out->state = data + HEADER_SIZE + json_len;
    out->state_len = (size_t)state_len;
    return true;
}

/* Both temporary files come from the library's writers' own rule (src/temp_file.c, in-tree): mkstemp names beside
 * the checkpoint (0644), and a folder, link, device, pipe or socket at its path refused before anything is written. */
bool checkpoint_save(const char *path, eddy_sim *sim, const char *json, char *err, size_t err_size) {
    eddy_status st;
    char *tmp = eddy__temp_file_for(path, err, err_size, &st);
    if (!tmp) return false;
    char *state_path = eddy__temp_file_beside(path);
    if (!state_path) {
        snprintf(err, err_size, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return false;
    }
    st = eddy_sim_save(sim, state_path); /* writes the state and renames it over this name */
    uint8_t *state = NULL;
    size_t state_len = 0;
    bool ok = st == EDDY_OK;
    if (!ok)
        snprintf(err, err_size, "%s: saving the simulation failed: %s (%s)", path, eddy_sim_last_error(sim), eddy_status_string(st));
    else
        ok = checkpoint_read_file(state_path, &state, &state_len, err, err_size);
    remove(state_path);
    free(state_path);
    size_t json_len = strlen(json);
    size_t total = HEADER_SIZE + json_len + state_len + HASH_SIZE;
    uint8_t *buf = ok ? (uint8_t *)malloc(total) : NULL;
    if (ok && !buf) {
        snprintf(err, err_size, "%s: out of memory", path);
        ok = false;
    }
    if (ok) {
        memcpy(buf, magic, sizeof magic);
        put_u32(buf + 8, CHECKPOINT_VERSION);
        put_u64(buf + 12, json_len);
        put_u64(buf + 20, state_len);
        memcpy(buf + HEADER_SIZE, json, json_len);
        memcpy(buf + HEADER_SIZE + json_len, state, state_len);
        put_u64(buf + total - HASH_SIZE, checkpoint_hash(buf, total - HASH_SIZE));
        FILE *f = fopen(tmp, "wb");
        ok = f && fwrite(buf, 1, total, f) == total;
        if (f && fclose(f) != 0) ok = false;
        if (!ok || rename(tmp, path) != 0) {
            snprintf(err, err_size, "%s: cannot write: %s", path, strerror(errno));
            ok = false;
        }
    }
    free(state);
    free(buf);
    if (!ok) remove(tmp);
    free(tmp);
    return ok;
}

eddy_status checkpoint_load_sim(const uint8_t *state, size_t len, eddy_sim **out, char *err, size_t err_size) {
    *out = NULL;
    const char *dir = getenv("TMPDIR");
    char path[4200];
    snprintf(path, sizeof path, "%s/eddy-state-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        snprintf(err, err_size, "cannot create a temporary file in %s: %s", dir && *dir ? dir : "/tmp", strerror(errno));
        return EDDY_ERR_IO;
    }
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, state + done, len - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(fd);
    if (done != len) {
        remove(path);
        snprintf(err, err_size, "cannot write a temporary file %s", path);
        return EDDY_ERR_IO;
    }
    eddy_status st = eddy_sim_load(path, out, err, err_size);
    remove(path);
    return st;
}
