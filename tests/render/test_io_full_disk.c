/* Every writer on a full disk: the write fails with EDDY_ERR_IO naming the path and the system's reason, the file
 * the user had at the path is left as it was, and no temporary file stays behind. A full disk is simulated without
 * root with a file size limit (RLIMIT_FSIZE: a write past it fails with EFBIG, as one on a full disk fails with
 * ENOSPC), lowered for this process only while the writers run. */
#define _POSIX_C_SOURCE 200809L /* setrlimit, sigaction */
#include "check.h"
#include "test_util.h"
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>

enum { LIMIT = 4096 };           /* bytes any file of this process may reach meanwhile */
static const char OLD[] = "the user's file, which a failed write must leave as it was\n";

/* writes the user's old file at `path` (before the limit is lowered) */
static void put_old(const char *path) {
    char msg[256];
    CHECK(eddy_file_write(path, OLD, sizeof OLD, msg, sizeof msg) == EDDY_OK, "%s", msg);
}

/* the outcome of one writer under the limit: refused, named, the old file intact */
static void check_refused(const char *what, eddy_status st, const char *path, const char *msg) {
    CHECK(st == EDDY_ERR_IO, "%s: status %d (%s): expected EDDY_ERR_IO", what, (int)st, msg);
    CHECK(strstr(msg, path) && strstr(msg, strerror(EFBIG)), "%s: message names the path and the reason: %s", what,
          msg);
    char back[sizeof OLD + 16] = {0};
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(back, 1, sizeof back, fp) : 0;
    if (fp) fclose(fp);
    CHECK(n == sizeof OLD && !memcmp(back, OLD, sizeof OLD), "%s: the old file at %s was replaced (%zu bytes now)",
          what, path, n);
}

int main(void) {
    char dir[256], path[512], msg[512];
    test_dir("full_disk", dir, sizeof dir);

    /* data far larger than the limit, little of it compressible */
    enum { NX = 24, NY = 24, NZ = 24, N = NX * NY * NZ };
    static float data[N];
    uint32_t seed = 12345;
    for (int i = 0; i < N; i++) {
        seed = seed * 1664525u + 1013904223u;
        data[i] = 0.5f + (float)(seed >> 8) / 16777216.0f; /* 0.5 .. 1.5: every voxel active */
    }
    eddy_image img = {0};
    CHECK(eddy_image_init(&img, 200, 200, msg, sizeof msg) == EDDY_OK, "%s", msg);
    for (size_t i = 0; img.rgba && i < 200 * 200 * 4; i++) {
        seed = seed * 1664525u + 1013904223u;
        img.rgba[i] = (uint8_t)(seed >> 24);
    }

    char p_file[600], p_npy[600], p_png[600], p_vdb[600];
    snprintf(p_file, sizeof p_file, "%s/bytes.bin", dir);
    snprintf(p_npy, sizeof p_npy, "%s/field.npy", dir);
    snprintf(p_png, sizeof p_png, "%s/frame.png", dir);
    snprintf(p_vdb, sizeof p_vdb, "%s/volume.vdb", dir);
    put_old(p_file), put_old(p_npy), put_old(p_png), put_old(p_vdb);

    /* a write past the limit raises SIGXFSZ, which would end the process: ignored, the write fails with EFBIG */
    struct sigaction ign, old_sa;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGXFSZ, &ign, &old_sa);
    struct rlimit old_lim, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old_lim) == 0, "getrlimit");
    lim = old_lim;
    lim.rlim_cur = LIMIT;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit: %s", strerror(errno));

    eddy_status st_file = eddy_file_write(p_file, data, sizeof data, msg, sizeof msg);
    char m_file[512];
    snprintf(m_file, sizeof m_file, "%s", msg);
    size_t shape[3] = {NZ, NY, NX};
    eddy_status st_npy = eddy_npy_write(p_npy, data, 3, shape, msg, sizeof msg);
    char m_npy[512];
    snprintf(m_npy, sizeof m_npy, "%s", msg);
    eddy_status st_png = eddy_png_write(p_png, &img, 1, msg, sizeof msg);
    char m_png[512];
    snprintf(m_png, sizeof m_png, "%s", msg);
    /* OpenVDB's own File::write never looked at its stream: the truncated file was renamed into place as a success */
    eddy_vdb_grid g = {.name = "density", .layout = {{NX, NY, NZ}, {0.1f, 0.1f, 0.1f}, {0, 0, 0}, N},
                       .components = 1, .data = {data}};
    eddy_status st_vdb = eddy_vdb_available() ? eddy_vdb_write(p_vdb, &g, 1, msg, sizeof msg) : EDDY_OK;
    char m_vdb[512];
    snprintf(m_vdb, sizeof m_vdb, "%s", msg);

    CHECK(setrlimit(RLIMIT_FSIZE, &old_lim) == 0, "restoring the limit: %s", strerror(errno));
    sigaction(SIGXFSZ, &old_sa, NULL);

    check_refused("eddy_file_write", st_file, p_file, m_file);
    check_refused("eddy_npy_write", st_npy, p_npy, m_npy);
    check_refused("eddy_png_write", st_png, p_png, m_png);
    if (eddy_vdb_available()) check_refused("eddy_vdb_write", st_vdb, p_vdb, m_vdb);
    else printf("test_io_full_disk: the vdb writer is not checked: this build has no OpenVDB\n");
    CHECK(count_matching(dir, ".tmp-") == 0, "temporary files left in %s", dir);

    /* the same writes succeed with the limit back: the refusals were the limit's doing */
    snprintf(path, sizeof path, "%s/whole.npy", dir);
    CHECK(eddy_npy_write(path, data, 3, shape, msg, sizeof msg) == EDDY_OK && file_size(path) > LIMIT, "%s", msg);
    if (eddy_vdb_available()) {
        snprintf(path, sizeof path, "%s/whole.vdb", dir);
        CHECK(eddy_vdb_write(path, &g, 1, msg, sizeof msg) == EDDY_OK && file_size(path) > LIMIT, "%s", msg);
        eddy_vdb_dense r;
        CHECK(eddy_vdb_read(path, "density", &r, msg, sizeof msg) == EDDY_OK && r.layout.count == N && r.data[0] &&
                  !memcmp(r.data[0], data, sizeof data), "whole.vdb reads back: %s", msg);
        eddy_vdb_dense_free(&r);
    }
    eddy_image_free(&img);
    return check_finish("test_io_full_disk");
}
