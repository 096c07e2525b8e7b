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

int main(void) {
    test_save_refuses_non_finite();
    return check_finish("test_api_guards");
}
