/* NumPy .npy files: the header is exactly numpy's format 1.0 (magic, version, 64-byte aligned dict with
 * descr '<f4', fortran_order False, shape), the data bytes are the floats as given, reads give the same values;
 * float64 and big-endian files are converted; Fortran order, other types and truncation are refused. */
#define _POSIX_C_SOURCE 200809L /* symlink, lstat */
#include "check.h"
#include "test_util.h"
#include <unistd.h>
#include <math.h>
#include <stdint.h>

static size_t read_all(const char *path, uint8_t *buf, size_t cap) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    size_t n = fread(buf, 1, cap, fp);
    fclose(fp);
    return n;
}

/* writes a hand-made .npy with the given dict and data */
static void write_raw(const char *path, const char *dict, const void *data, size_t bytes) {
    uint8_t buf[1024];
    size_t dl = strlen(dict), total = (10 + dl + 1 + 63) / 64 * 64, hl = total - 10;
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (uint8_t)hl, buf[9] = (uint8_t)(hl >> 8);
    memcpy(buf + 10, dict, dl);
    memset(buf + 10 + dl, ' ', total - 10 - dl - 1);
    buf[total - 1] = '\n';
    memcpy(buf + total, data, bytes);
    char msg[256];
    eddy_file_write(path, buf, total + bytes, msg, sizeof msg);
}

/* writes a .npy whose header is exactly `dict`, no padding (the reader must not rely on numpy's padding) */
static void write_unpadded(const char *path, const char *dict) {
    uint8_t buf[512];
    size_t dl = strlen(dict);
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (uint8_t)dl, buf[9] = (uint8_t)(dl >> 8);
    memcpy(buf + 10, dict, dl);
    char msg[256];
    eddy_file_write(path, buf, 10 + dl, msg, sizeof msg);
}

int main(void) {
    char dir[256], path[512], msg[512];
    test_dir("npy", dir, sizeof dir);
    enum { NZ = 3, NY = 4, NX = 5 };
    float data[NZ * NY * NX];
    for (int i = 0; i < NZ * NY * NX; i++) data[i] = (float)i * 0.25f - 3.0f;
    data[7] = -0.0f;
    data[8] = 1e-38f; /* a subnormal-adjacent value survives bit for bit */
    size_t shape[3] = {NZ, NY, NX};
    snprintf(path, sizeof path, "%s/a.npy", dir);
    CHECK(eddy_npy_write(path, data, 3, shape, msg, sizeof msg) == EDDY_OK, "%s", msg);

    /* a folder: was "not a .npy file (no \x93NUMPY magic)" */
    eddy_npy folder = {0};
    CHECK(eddy_npy_read(dir, &folder, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "directory"), "folder: %s", msg);

    uint8_t raw[4096];
    size_t n = read_all(path, raw, sizeof raw);
    CHECK(n > 10 && !memcmp(raw, "\x93NUMPY\x01\x00", 8), "magic and version 1.0");
    size_t hl = (size_t)raw[8] | ((size_t)raw[9] << 8);
    CHECK((10 + hl) % 64 == 0, "data starts at %zu: numpy aligns it to 64 bytes", 10 + hl);
    CHECK(raw[10 + hl - 1] == '\n', "header ends with a newline");
    char dict[512] = {0};
    memcpy(dict, raw + 10, hl < 511 ? hl : 511);
    CHECK(strstr(dict, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,4,5), }") == dict, "dict: %s", dict);
    CHECK(n == 10 + hl + sizeof data, "file size %zu: header + %zu data bytes", n, sizeof data);
    CHECK(!memcmp(raw + 10 + hl, data, sizeof data), "data bytes are the floats, little-endian C order");

    eddy_npy a;
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(a.ndim == 3 && a.shape[0] == NZ && a.shape[1] == NY && a.shape[2] == NX && a.count == NZ * NY * NX,
          "shape (%zu,%zu,%zu)", a.shape[0], a.shape[1], a.shape[2]);
    CHECK(a.data && !memcmp(a.data, data, sizeof data), "values back bit for bit");
    eddy_npy_free(&a);

    /* a symbolic link at the path is refused and left pointing where it did: the rename would replace the link */
    char link_path[600];
    snprintf(link_path, sizeof link_path, "%s/link.npy", dir);
    remove(link_path);
    CHECK(symlink(path, link_path) == 0, "cannot make a link");
    CHECK(eddy_npy_write(link_path, data, 3, shape, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "a symbolic link"),
          "npy write onto a link: %s", msg);
    struct stat sb;
    CHECK(lstat(link_path, &sb) == 0 && S_ISLNK(sb.st_mode), "the link was replaced");
    remove(link_path);

    /* 1-D and 0-D shapes use Python's tuple spelling */
    size_t s1[1] = {4};
    snprintf(path, sizeof path, "%s/b.npy", dir);
    CHECK(eddy_npy_write(path, data, 1, s1, msg, sizeof msg) == EDDY_OK, "%s", msg);
    n = read_all(path, raw, sizeof raw);
    CHECK(n > 60 && strstr((char *)raw + 10, "'shape': (4,), }"), "1-D shape is (4,)");
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && a.ndim == 1 && a.count == 4, "1-D read");
    eddy_npy_free(&a);

    /* float64 converted to float; big-endian float32 swapped */
    double d64[3] = {1.5, -2.25, 1e10};
    snprintf(path, sizeof path, "%s/f8.npy", dir);
    write_raw(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", d64, sizeof d64);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(a.count == 3 && a.data[0] == 1.5f && a.data[1] == -2.25f && a.data[2] == 1e10f, "f8 values");
    eddy_npy_free(&a);
    uint8_t be[8] = {0x3f, 0xc0, 0, 0, 0xc0, 0x10, 0, 0}; /* 1.5, -2.25 big-endian */
    snprintf(path, sizeof path, "%s/be.npy", dir);
    write_raw(path, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", be, sizeof be);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && a.count == 2 && a.data[0] == 1.5f &&
              a.data[1] == -2.25f, "big-endian f4: %s", msg);
    eddy_npy_free(&a);

    /* refusals */
    snprintf(path, sizeof path, "%s/fortran.npy", dir);
    write_raw(path, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", data, 8);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_ERR_UNSUPPORTED && strstr(msg, "fortran"), "%s", msg);
    /* a value that only starts like False is not False */
    write_raw(path, "{'descr': '<f4', 'fortran_order': Falsey, 'shape': (2,), }", data, 8);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_ERR_CORRUPT_FILE && strstr(msg, "fortran_order = Falsey"),
          "fortran_order Falsey: %s", msg);
    write_raw(path, "{'descr': '<f4', 'fortran_order':False, 'shape': (2,)}", data, 8);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && a.count == 2, "fortran_order False without spaces: %s", msg);
    eddy_npy_free(&a);
    snprintf(path, sizeof path, "%s/int.npy", dir);
    write_raw(path, "{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", data, 8);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_ERR_UNSUPPORTED && strstr(msg, "<i4"), "%s", msg);
    snprintf(path, sizeof path, "%s/short.npy", dir);
    write_raw(path, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", data, 8);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_ERR_CORRUPT_FILE && strstr(msg, "truncated"), "%s", msg);
    CHECK(a.data == NULL && a.count == 0, "failed read leaves the array empty");
    snprintf(path, sizeof path, "%s/junk.npy", dir);
    eddy_file_write(path, "PK\x03\x04junk", 8, msg, sizeof msg);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_ERR_CORRUPT_FILE, "%s", msg);
    CHECK(eddy_npy_read("missing.npy", &a, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "missing.npy"), "%s", msg);
    /* a descr with no value at the very end of the header: refused without reading past it (ASan) */
    snprintf(path, sizeof path, "%s/nodescr.npy", dir);
    write_unpadded(path, "{'fortran_order': False, 'shape': (2,), 'descr':");
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_ERR_UNSUPPORTED && strstr(msg, "element type"), "%s", msg);
    /* a float64 beyond the float32 range is refused, not turned into infinity; inf and NaN themselves pass */
    double big[3] = {1.0, -1e300, 2.0};
    snprintf(path, sizeof path, "%s/big.npy", dir);
    write_raw(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", big, sizeof big);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_ERR_CORRUPT_FILE && strstr(msg, "element 1") &&
              strstr(msg, "float32 range"), "%s", msg);
    CHECK(a.data == NULL, "failed read leaves the array empty");
    double inf3[3] = {INFINITY, -INFINITY, NAN};
    write_raw(path, "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }", inf3, sizeof inf3);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && isinf(a.data[0]) && isnan(a.data[2]), "%s", msg);
    eddy_npy_free(&a);
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary files left");

    /* a simulation field: 2D shape (ny, nx), u on its faces (ny, nx+1) */
    eddy_sim_def def = eddy_sim_def_default();
    def.grid[0] = 6, def.grid[1] = 4;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&def, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (sim) {
        float dye[24];
        for (int i = 0; i < 24; i++) dye[i] = (float)i;
        CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_G, dye, 24) == EDDY_OK, "%s", eddy_sim_last_error(sim));
        snprintf(path, sizeof path, "%s/dye_g.npy", dir);
        CHECK(eddy_npy_write_field(path, sim, EDDY_FIELD_DYE_G, msg, sizeof msg) == EDDY_OK, "%s", msg);
        CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && a.ndim == 2 && a.shape[0] == 4 && a.shape[1] == 6,
              "dye shape (ny, nx)");
        CHECK(a.data && a.data[1 * 6 + 2] == 8.0f, "element (i=2, j=1) at [j][i]");
        eddy_npy_free(&a);
        snprintf(path, sizeof path, "%s/u.npy", dir);
        CHECK(eddy_npy_write_field(path, sim, EDDY_FIELD_U, msg, sizeof msg) == EDDY_OK, "%s", msg);
        CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && a.ndim == 2 && a.shape[0] == 4 && a.shape[1] == 7,
              "u on x-faces: shape (ny, nx+1)");
        eddy_npy_free(&a);
        eddy_sim_destroy(sim);
    }
    return check_finish("test_io_npy");
}
