/* Public API guards found in review: what a game engine's adversarial use of the core API (steps that stop on a
 * non-finite value, huge velocities, odd paths and state files) must get back: a status and a message, never a hang,
 * a crash or a file the loader refuses. */
#include "check.h"
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static eddy_sim *make(int dim, int nx, int ny, int nz) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = nx; d.grid[1] = ny; d.grid[2] = nz;
    d.size[0] = (float)nx * 0.1f;
    eddy_sim *s = NULL;
    char msg[256];
    eddy_status st = eddy_sim_create(&d, &s, msg, sizeof msg);
    CHECK(st == EDDY_OK, "create: %s", msg);
    return s;
}

/* a fresh path in /tmp (mkstemp), removed again: the caller saves there */
static void temp_path(char *path, size_t size, const char *stem) {
    snprintf(path, size, "/tmp/%s_XXXXXX", stem);
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd >= 0) close(fd);
    remove(path);
}

static int file_equals(const char *path, const char *text) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    char buf[256] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    return n == strlen(text) && memcmp(buf, text, n) == 0;
}

/* A step stopped on a non-finite value leaves it in the fields (documented); saving then wrote the infinity into the
 * state file and returned EDDY_OK, and that file was refused by eddy_sim_load ('non-finite values'): the old file
 * was replaced by one that cannot be loaded. Now the save is refused, naming the field, and the old file is kept. */
static void test_save_refuses_non_finite(void) {
    eddy_sim *s = make(2, 8, 8, 1);
    if (!s) return;
    char path[64];
    temp_path(path, sizeof path, "eddy_guard_state");
    FILE *fp = fopen(path, "wb");
    fputs("the user's last good state", fp);
    fclose(fp);
    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = e.center[1] = 0.4f;
    e.radius = 0.2f;
    e.dye[0] = 3e38f; /* per second: a few steps overflow the dye */
    CHECK(eddy_sim_add_emitter(s, &e, NULL) == EDDY_OK, "emitter: %s", eddy_sim_last_error(s));
    eddy_status st = EDDY_OK;
    for (int i = 0; i < 1000 && st == EDDY_OK; i++) st = eddy_sim_step(s);
    CHECK(st == EDDY_ERR_NON_FINITE && strstr(eddy_sim_last_error(s), "'sources'"), "the emitter did not overflow: %d %s", (int)st,
          eddy_sim_last_error(s));
    st = eddy_sim_save(s, path);
    CHECK(st == EDDY_ERR_NON_FINITE && strstr(eddy_sim_last_error(s), "dye_r") && strstr(eddy_sim_last_error(s), "nothing was written"),
          "save of non-finite fields: %d %s", (int)st, eddy_sim_last_error(s));
    CHECK(file_equals(path, "the user's last good state"), "a refused save replaced the old file");
    remove(path);
    eddy_sim_destroy(s);
}

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void write_bytes(const char *path, const void *bytes, size_t n) {
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(bytes, 1, n, fp);
        fclose(fp);
    }
}

/* What eddy_sim_load said about files that are not state files: a directory and an empty file were 'not an eddy state
 * file (bad magic)', CORRUPT_FILE; a FIFO blocked in the open for ever; a file cut inside its version 'unsupported
 * version'; a valid file of a backend this build lacks 'holds an invalid definition', CORRUPT_FILE. A loaded
 * simulation's stats said step 0 at time 0 while eddy_sim_step_count said otherwise; a NULL out pointer gave no
 * message. */
static void test_load_messages(void) {
    char dir[64], path[96], msg[512];
    snprintf(dir, sizeof dir, "/tmp/eddy_guard_dir_XXXXXX");
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    eddy_sim *t = NULL;
    eddy_status st = eddy_sim_load(dir, &t, msg, sizeof msg);
    CHECK(st == EDDY_ERR_IO && t == NULL && strstr(msg, "a directory"), "a directory: %d %s", (int)st, msg);
    snprintf(path, sizeof path, "%s/fifo", dir);
    CHECK(mkfifo(path, 0600) == 0, "mkfifo");
    st = eddy_sim_load(path, &t, msg, sizeof msg);
    CHECK(st == EDDY_ERR_IO && t == NULL && strstr(msg, "pipe"), "a FIFO: %d %s", (int)st, msg);
    remove(path);
    snprintf(path, sizeof path, "%s/x.state", dir);
    write_bytes(path, "", 0);
    st = eddy_sim_load(path, &t, msg, sizeof msg);
    CHECK(st == EDDY_ERR_CORRUPT_FILE && strstr(msg, "empty"), "an empty file: %d %s", (int)st, msg);
    write_bytes(path, "EDDYSTAT\2\0", 10);
    st = eddy_sim_load(path, &t, msg, sizeof msg);
    CHECK(st == EDDY_ERR_CORRUPT_FILE && strstr(msg, "truncated (header)"), "cut in the version: %d %s", (int)st, msg);
    write_bytes(path, "EDDYSTAT\7\0\0\0", 12);
    st = eddy_sim_load(path, &t, msg, sizeof msg);
    CHECK(st == EDDY_ERR_CORRUPT_FILE && strstr(msg, "unsupported version 7"), "version 7: %d %s", (int)st, msg);
    CHECK(eddy_sim_load(path, NULL, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "out pointer"), "NULL out: %s", msg);

    eddy_sim *s = make(2, 8, 8, 1);
    if (s) {
        CHECK(eddy_sim_step(s) == EDDY_OK && eddy_sim_step(s) == EDDY_OK && eddy_sim_save(s, path) == EDDY_OK, "save: %s",
              eddy_sim_last_error(s));
        st = eddy_sim_load(path, &t, msg, sizeof msg);
        CHECK(st == EDDY_OK && eddy_sim_stats(t)->step == 2 && eddy_sim_stats(t)->time == s->time, "stats after load: step %ld, time %g",
              t ? eddy_sim_stats(t)->step : -1, t ? eddy_sim_stats(t)->time : -1.0);
        eddy_sim_destroy(t);
        t = NULL;
        /* the backend is the definition's 37th value (after dim ... threads); the hash made right again */
        FILE *fp = fopen(path, "rb");
        unsigned char bytes[4096];
        const size_t n = fp ? fread(bytes, 1, sizeof bytes, fp) : 0;
        if (fp) fclose(fp);
        if (n > 28 && n < sizeof bytes && !eddy_backend_available(EDDY_BACKEND_CUDA, NULL, 0)) {
            const int32_t cuda = EDDY_BACKEND_CUDA;
            memcpy(bytes + 20 + 36 * 4, &cuda, 4);
            const uint64_t h = fnv1a(bytes + 20, n - 28);
            memcpy(bytes + n - 8, &h, 8);
            write_bytes(path, bytes, n);
            st = eddy_sim_load(path, &t, msg, sizeof msg);
            CHECK(st == EDDY_ERR_UNSUPPORTED && t == NULL && strstr(msg, "on the cuda backend, which is not available"),
                  "a CUDA state on a machine without it: %d %s", (int)st, msg);
        } else {
            CHECK(n > 28 && n < sizeof bytes, "state file of %zu bytes", n);
        }
        eddy_sim_destroy(s);
    }
    remove(path);
    rmdir(dir);
}

static unsigned mode_of(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 ? (unsigned)(sb.st_mode & 07777) : 07777u;
}

/* Saving over an existing state file replaced it with a 0644 one whatever its mode: a private (0600) file became
 * readable by others. The file saved over keeps its permission bits now (with the owner's write bit, which the write
 * needs); a new file is 0644 as before. */
static void test_save_keeps_mode(void) {
    eddy_sim *s = make(2, 8, 8, 1);
    if (!s) return;
    char path[64];
    temp_path(path, sizeof path, "eddy_guard_mode");
    CHECK(eddy_sim_save(s, path) == EDDY_OK && mode_of(path) == 0644, "a new file: mode %03o", mode_of(path));
    const unsigned modes[3] = {0600, 0640, 0755};
    for (int i = 0; i < 3; i++) {
        CHECK(chmod(path, modes[i]) == 0, "chmod");
        CHECK(eddy_sim_save(s, path) == EDDY_OK && mode_of(path) == modes[i], "a %03o file saved over became %03o: %s", modes[i],
              mode_of(path), eddy_sim_last_error(s));
    }
    CHECK(chmod(path, 0444) == 0 && eddy_sim_save(s, path) == EDDY_OK && mode_of(path) == 0644, "a 0444 file saved over: %03o %s",
          mode_of(path), eddy_sim_last_error(s));
    remove(path);
    eddy_sim_destroy(s);
}

/* eddy_sim_field_layout with a NULL layout returned INVALID_ARGUMENT and left the previous error's message */
static void test_layout_null(void) {
    eddy_sim *s = make(2, 8, 8, 1);
    if (!s) return;
    eddy_sim_remove_obstacle(s, 99); /* an earlier, unrelated message */
    CHECK(eddy_sim_field_layout(s, EDDY_FIELD_U, NULL) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "layout is NULL"),
          "NULL layout: %s", eddy_sim_last_error(s));
    eddy_sim_destroy(s);
}

int main(void) {
    test_layout_null();
    test_save_keeps_mode();
    test_load_messages();
    test_save_refuses_non_finite();
    return check_finish("test_api_guards");
}
