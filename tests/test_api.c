/* Public API behaviour: bad input gives a status and a message (never a crash), field access and sampling,
 * splats, obstacles, emitters, state files (bit-exact round trip; corrupt and truncated files rejected). */
#include "check.h"
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static eddy_status try_def(eddy_sim_def d, char *msg, size_t n) {
    eddy_sim *s = NULL;
    eddy_status st = eddy_sim_create(&d, &s, msg, n);
    eddy_sim_destroy(s);
    return st;
}

static void test_bad_definitions(void) {
    char msg[256];
    eddy_sim_def d = eddy_sim_def_default();
    CHECK(eddy_sim_create(NULL, NULL, msg, sizeof msg) != EDDY_OK, "null out accepted");
    eddy_sim *s = (eddy_sim *)1;
    CHECK(eddy_sim_create(NULL, &s, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && s == NULL, "null def");
    d = eddy_sim_def_default(); d.dim = 4;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "dim"), "dim 4: %s", msg);
    d = eddy_sim_def_default(); d.grid[0] = 0;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "grid[0] = 0"), "grid 0: %s", msg);
    d = eddy_sim_def_default(); d.grid[1] = -5;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "grid[1] = -5"), "grid -5: %s", msg);
    d = eddy_sim_def_default(); d.dim = 3; d.grid[0] = d.grid[1] = d.grid[2] = 1 << 20;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "too large"), "overflow: %s", msg);
    d = eddy_sim_def_default(); d.size[0] = NAN;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "size[0]"), "nan size: %s", msg);
    d = eddy_sim_def_default(); d.size[0] = 1e-39f; /* a subnormal cell size: 1/h^2 overflows */
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "cell size"), "subnormal size: %s", msg);
    d = eddy_sim_def_default(); d.size[0] = 1.28e-7f; /* 128 cells of 1e-9 m: the smallest cell size allowed */
    CHECK(try_def(d, msg, sizeof msg) == EDDY_OK, "h = 1e-9 m rejected: %s", msg);
    d = eddy_sim_def_default(); d.size[0] = 1.28e12f; /* cells of 1e10 m */
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "1e-9 .. 1e9"), "huge cells: %s", msg);
    d = eddy_sim_def_default(); d.size[1] = 3.0f; /* 128 cells of 1/128 m cannot span 3 m */
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "size[1]"), "size mismatch: %s", msg);
    d = eddy_sim_def_default(); d.viscosity = INFINITY;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "viscosity"), "inf viscosity: %s", msg);
    d = eddy_sim_def_default(); d.dt = -1;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "dt"), "negative dt: %s", msg);
    d = eddy_sim_def_default(); d.pressure.tolerance = 0;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "tolerance"), "tol 0: %s", msg);
    d = eddy_sim_def_default(); d.boundary[EDDY_FACE_X_MIN].type = EDDY_BOUNDARY_PERIODIC;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "periodic"), "one periodic: %s", msg);
    d = eddy_sim_def_default(); d.boundary[2].type = (eddy_boundary_type)99;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "boundary[y-]"), "bad bc: %s", msg);
    d = eddy_sim_def_default(); d.dye_scale[0] = 0;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "dye_scale"), "dye scale: %s", msg);
    d = eddy_sim_def_default(); d.grid[0] = 40; d.grid[1] = 30;
    CHECK(try_def(d, msg, sizeof msg) == EDDY_OK, "valid def rejected: %s", msg);
}

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

static void test_bad_calls(void) {
    eddy_sim *s = make(2, 16, 12, 1);
    if (!s) return;
    eddy_splat sp = {{0.8f, 0.6f, 0}, 0.0f, {0}, {1, 0, 0}, 0};
    CHECK(eddy_sim_splat(s, &sp) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "radius"), "radius 0");
    sp.radius = 0.2f; sp.position[0] = NAN;
    CHECK(eddy_sim_splat(s, &sp) == EDDY_ERR_INVALID_ARGUMENT, "nan splat");
    CHECK(eddy_sim_splat(s, NULL) == EDDY_ERR_INVALID_ARGUMENT, "null splat");
    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_SPHERE; o.radius = -1;
    CHECK(eddy_sim_add_obstacle(s, &o, NULL) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "radius"), "neg radius");
    o.shape = EDDY_SHAPE_SDF;
    CHECK(eddy_sim_add_obstacle(s, &o, NULL) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "sdf"), "null sdf");
    o.shape = (eddy_shape)42;
    CHECK(eddy_sim_add_obstacle(s, &o, NULL) == EDDY_ERR_INVALID_ARGUMENT, "bad shape");
    CHECK(eddy_sim_add_obstacle(s, NULL, NULL) == EDDY_ERR_INVALID_ARGUMENT, "null obstacle");
    CHECK(eddy_sim_remove_obstacle(s, 777) == EDDY_ERR_NOT_FOUND, "missing id");
    float c[3] = {0, 0, 0};
    CHECK(eddy_sim_move_obstacle(s, 777, c, NULL) == EDDY_ERR_NOT_FOUND, "move missing");
    float buf[4];
    CHECK(eddy_sim_read_field(s, EDDY_FIELD_U, buf, 4) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "count"), "short read");
    CHECK(eddy_sim_read_field(s, EDDY_FIELD_W, buf, 4) == EDDY_ERR_INVALID_ARGUMENT, "w in 2D");
    CHECK(eddy_sim_read_field(s, (eddy_field)99, buf, 4) == EDDY_ERR_INVALID_ARGUMENT, "bad field");
    CHECK(eddy_sim_write_field(s, EDDY_FIELD_SPEED, buf, 4) == EDDY_ERR_INVALID_ARGUMENT, "write computed");
    eddy_field_layout L;
    eddy_sim_field_layout(s, EDDY_FIELD_U, &L);
    float *u = calloc(L.count, sizeof(float));
    u[3] = NAN;
    CHECK(eddy_sim_write_field(s, EDDY_FIELD_U, u, L.count) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "finite"), "nan write");
    free(u);
    float pos[3] = {NAN, 0, 0}, v[3];
    CHECK(eddy_sim_sample_velocity(s, pos, v) == EDDY_ERR_INVALID_ARGUMENT, "nan sample");
    CHECK(eddy_sim_advance(s, -1.0) == EDDY_ERR_INVALID_ARGUMENT, "negative duration");
    CHECK(eddy_sim_set_solid_mask(s, (const uint8_t *)"x", 1) == EDDY_ERR_INVALID_ARGUMENT, "short mask");
    CHECK(eddy_sim_step(NULL) == EDDY_ERR_INVALID_ARGUMENT, "null step");
    eddy_sim_destroy(s);
    eddy_sim_destroy(NULL);
}

/* Trilinear sampling reproduces linear fields exactly (to float rounding) inside the sample range. */
static void test_sampling_linear(void) {
    eddy_sim *s = make(3, 9, 7, 6);
    if (!s) return;
    for (int a = 0; a < 3; a++) {
        eddy_field_layout L;
        eddy_sim_field_layout(s, (eddy_field)a, &L);
        float *f = malloc(L.count * sizeof(float));
        for (int k = 0; k < L.n[2]; k++)
            for (int j = 0; j < L.n[1]; j++)
                for (int i = 0; i < L.n[0]; i++) {
                    float x = L.origin[0] + i * L.spacing[0], y = L.origin[1] + j * L.spacing[1], z = L.origin[2] + k * L.spacing[2];
                    f[i + L.n[0] * (j + L.n[1] * k)] = 1.0f + 2.0f * x - 3.0f * y + 0.5f * z;
                }
        /* write directly: the API write re-applies wall conditions, which would zero the boundary faces */
        memcpy(s->vel[a], f, L.count * sizeof(float));
        free(f);
    }
    float worst = 0;
    for (int t = 0; t < 200; t++) {
        float p[3] = {0.1f + 0.7f * (float)((t * 37) % 100) / 100.0f, 0.1f + 0.5f * (float)((t * 53) % 100) / 100.0f,
                      0.1f + 0.4f * (float)((t * 71) % 100) / 100.0f};
        float v[3];
        eddy_sim_sample_velocity(s, p, v);
        float exact = 1.0f + 2.0f * p[0] - 3.0f * p[1] + 0.5f * p[2];
        for (int a = 0; a < 3; a++) worst = fmaxf(worst, fabsf(v[a] - exact));
    }
    /* float32 interpolation of values O(3): a few ulps */
    CHECK(worst < 2e-6f, "linear field sampled with error %g", (double)worst);
    eddy_sim_destroy(s);
}

static void test_splat_and_obstacles(void) {
    eddy_sim *s = make(2, 32, 24, 1);
    if (!s) return;
    eddy_splat sp = {{1.0f, 1.2f, 0}, 0.3f, {2.0f, 0, 0}, {1, 0.5f, 0}, 0};
    CHECK(eddy_sim_splat(s, &sp) == EDDY_OK, "splat: %s", eddy_sim_last_error(s));
    float val = 0, far = 1;
    float at[3] = {1.0f, 1.2f, 0}, away[3] = {3.0f, 2.2f, 0};
    eddy_sim_sample_field(s, EDDY_FIELD_DYE_R, at, &val);
    eddy_sim_sample_field(s, EDDY_FIELD_DYE_R, away, &far);
    /* centre sample between cell centres: exp(-d^2/r^2) with d <= h/sqrt(2) = 0.07 m -> weight >= 0.94 */
    CHECK(val > 0.94f && val <= 1.0f, "dye at splat centre %g", (double)val);
    CHECK(far == 0.0f, "dye far away %g", (double)far);
    /* Gaussian integral: total dye = pi r^2 (sum over R,G,B weights 1.5), within 1% on this grid */
    eddy_sim_update_diagnostics(s);
    double expect = 1.5 * M_PI * 0.3 * 0.3;
    CHECK(fabs(eddy_sim_stats(s)->dye_total - expect) < 0.01 * expect, "dye total %g vs %g", eddy_sim_stats(s)->dye_total, expect);
    float v[3];
    eddy_sim_sample_velocity(s, at, v);
    CHECK(v[0] > 1.8f && fabsf(v[1]) < 1e-6f, "splat velocity %g %g", (double)v[0], (double)v[1]);

    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_BOX;
    o.center[0] = 2.0f; o.center[1] = 1.0f;
    o.half_size[0] = 0.25f; o.half_size[1] = 0.25f;
    o.velocity[0] = 0.5f;
    eddy_id id = 0;
    CHECK(eddy_sim_add_obstacle(s, &o, &id) == EDDY_OK && id != 0, "add box");
    /* the cells are rasterised before their next reader: the internal arrays read here, once they are current */
    CHECK(eddy__solids_current(s) == EDDY_OK, "rasterise: %s", eddy_sim_last_error(s));
    size_t solid = 0;
    for (size_t c = 0; c < s->ncells; c++) solid += s->solid[c];
    /* cells whose centre is strictly inside [1.75, 2.25] x [0.75, 1.25]: centres 1.85..2.15, 0.85..1.15 */
    CHECK(solid == 16, "box of 0.5 m at h = 0.1 covers %zu cells, expected 4 x 4", solid);
    float nc[3] = {0.5f, 0.5f, 0};
    CHECK(eddy_sim_move_obstacle(s, id, nc, NULL) == EDDY_OK && eddy__solids_current(s) == EDDY_OK, "move");
    CHECK(s->solid[eddy__idx(s->n, 4, 4, 0)] && !s->solid[eddy__idx(s->n, 19, 9, 0)], "moved box rasterised");
    CHECK(eddy_sim_remove_obstacle(s, id) == EDDY_OK && eddy__solids_current(s) == EDDY_OK, "remove");
    solid = 0;
    for (size_t c = 0; c < s->ncells; c++) solid += s->solid[c];
    CHECK(solid == 0, "solid after remove %zu", solid);

    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 2.5f; e.center[1] = 1.0f; e.radius = 0.3f;
    e.dye[2] = 2.0f;
    eddy_id eid;
    CHECK(eddy_sim_add_emitter(s, &e, &eid) == EDDY_OK, "add emitter");
    eddy__apply_emitters(s, 0.5f);
    float b = 0;
    float ec[3] = {2.5f, 1.0f, 0};
    eddy_sim_sample_field(s, EDDY_FIELD_DYE_B, ec, &b);
    CHECK(fabsf(b - 1.0f) < 1e-6f, "emitter added %g, expected rate 2 * dt 0.5 = 1", (double)b);
    CHECK(eddy_sim_remove_emitter(s, eid) == EDDY_OK && eddy_sim_remove_emitter(s, eid) == EDDY_ERR_NOT_FOUND, "remove emitter");
    eddy_sim_destroy(s);
}

static void test_state_files(void) {
    eddy_sim *s = make(3, 10, 8, 6);
    if (!s) return;
    eddy_splat sp = {{0.5f, 0.4f, 0.3f}, 0.2f, {1.0f, -0.5f, 0.25f}, {1, 0.3f, 0.2f}, 4.0f};
    eddy_sim_splat(s, &sp);
    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_CAPSULE;
    o.center[0] = 0.3f; o.center[1] = 0.4f; o.center[2] = 0.3f; o.radius = 0.1f; o.axis[0] = 0.1f;
    eddy_sim_add_obstacle(s, &o, NULL);
    char path[] = "/tmp/eddy_state_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    CHECK(eddy_sim_save(s, path) == EDDY_OK, "save: %s", eddy_sim_last_error(s));
    eddy_sim *t = NULL;
    char msg[512];
    CHECK(eddy_sim_load(path, &t, msg, sizeof msg) == EDDY_OK, "load: %s", msg);
    if (t) {
        for (int f = 0; f <= EDDY_FIELD_TEMPERATURE; f++) {
            eddy_field_layout L;
            eddy_sim_field_layout(s, (eddy_field)f, &L);
            const float *a = eddy_sim_field_view(s, (eddy_field)f, NULL), *b = eddy_sim_field_view(t, (eddy_field)f, NULL);
            CHECK(a && b && memcmp(a, b, L.count * sizeof(float)) == 0, "field %s differs after round trip", eddy_field_name((eddy_field)f));
        }
        CHECK(eddy__solids_current(t) == EDDY_OK && memcmp(s->solid, t->solid, s->ncells) == 0 && t->obstacle_count == 1,
              "obstacles after round trip");
        CHECK(t->def.grid[0] == 10 && t->def.dim == 3 && t->next_id == s->next_id, "definition after round trip");
        eddy_sim_destroy(t);
    }
    /* truncated and corrupted copies are rejected */
    FILE *fp = fopen(path, "rb");
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)n);
    CHECK(fread(bytes, 1, (size_t)n, fp) == (size_t)n, "read back");
    fclose(fp);
    long cuts[] = {0, 7, 12, 20, n / 2, n - 1};
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        fp = fopen(path, "wb");
        fwrite(bytes, 1, (size_t)cuts[i], fp);
        fclose(fp);
        t = NULL;
        eddy_status st = eddy_sim_load(path, &t, msg, sizeof msg);
        CHECK(st == EDDY_ERR_CORRUPT_FILE && t == NULL, "truncated at %ld accepted (%d: %s)", cuts[i], (int)st, msg);
    }
    bytes[n / 2] ^= 0x10;
    fp = fopen(path, "wb");
    fwrite(bytes, 1, (size_t)n, fp);
    fclose(fp);
    CHECK(eddy_sim_load(path, &t, msg, sizeof msg) == EDDY_ERR_CORRUPT_FILE && strstr(msg, "checksum"), "flipped bit: %s", msg);
    CHECK(eddy_sim_load("/nonexistent/dir/x.state", &t, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "/nonexistent"), "missing: %s", msg);
    free(bytes);
    remove(path);
    eddy_sim_destroy(s);
}

/* the state file's hash, as src/state.c computes it (FNV-1a over the payload) */
static uint64_t state_hash(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* A state file whose bytes hash correctly but whose time or step no simulation reaches (a file written by other
 * code) is rejected, and saving never overwrites a file beside the destination. */
static void test_state_values(void) {
    eddy_sim *s = make(2, 12, 10, 1);
    if (!s) return;
    for (int i = 0; i < 3; i++) CHECK(eddy_sim_step(s) == EDDY_OK, "step: %s", eddy_sim_last_error(s));
    char path[] = "/tmp/eddy_state_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    char beside[64];
    snprintf(beside, sizeof beside, "%s.tmp", path); /* the name the save used to write first */
    FILE *fp = fopen(beside, "wb");
    fputs("the user's own file", fp);
    fclose(fp);
    CHECK(eddy_sim_save(s, path) == EDDY_OK, "save: %s", eddy_sim_last_error(s));
    char kept[64] = {0};
    fp = fopen(beside, "rb");
    CHECK(fp && fread(kept, 1, sizeof kept - 1, fp) > 0 && strcmp(kept, "the user's own file") == 0, "save overwrote %s", beside);
    if (fp) fclose(fp);
    remove(beside);
    /* a symbolic link or a pipe at the path is refused and left as it was: the save's rename would replace it */
    char link_path[80], fifo_path[80], target[96];
    snprintf(link_path, sizeof link_path, "%s.link", path);
    snprintf(fifo_path, sizeof fifo_path, "%s.fifo", path);
    CHECK(symlink(path, link_path) == 0 && mkfifo(fifo_path, 0600) == 0, "cannot make the link and the pipe");
    CHECK(eddy_sim_save(s, link_path) == EDDY_ERR_IO && strstr(eddy_sim_last_error(s), "a symbolic link"),
          "save onto a symbolic link: %s", eddy_sim_last_error(s));
    const ssize_t tl = readlink(link_path, target, sizeof target - 1);
    CHECK(tl > 0 && (size_t)tl == strlen(path) && !memcmp(target, path, (size_t)tl), "the link was replaced");
    CHECK(eddy_sim_save(s, fifo_path) == EDDY_ERR_IO && strstr(eddy_sim_last_error(s), "a device, pipe or socket"),
          "save onto a pipe: %s", eddy_sim_last_error(s));
    struct stat sb;
    CHECK(lstat(fifo_path, &sb) == 0 && S_ISFIFO(sb.st_mode), "the pipe was replaced");
    remove(link_path);
    remove(fifo_path);

    fp = fopen(path, "rb");
    fseek(fp, 0, SEEK_END);
    const long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)n), *edit = malloc((size_t)n);
    CHECK(fread(bytes, 1, (size_t)n, fp) == (size_t)n, "read back");
    fclose(fp);
    /* the time and the step are stored as two doubles in a row: find them */
    const double time = s->time, step = (double)s->step;
    long at = -1;
    for (long i = 20; i + 16 <= n - 8 && at < 0; i++)
        if (memcmp(bytes + i, &time, 8) == 0 && memcmp(bytes + i + 8, &step, 8) == 0) at = i;
    CHECK(at > 0, "time %g and step %g not found in the state file", time, step);
    const struct { int which; double value; const char *why; } cases[] = {
        {0, NAN, "time"}, {0, -1e9, "time"}, {0, INFINITY, "time"}, {1, 1e300, "step"}, {1, NAN, "step"},
        {1, -1, "step"}, {1, 2.5, "step"},
    };
    for (size_t c = 0; at > 0 && c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(edit, bytes, (size_t)n);
        memcpy(edit + at + 8 * cases[c].which, &cases[c].value, 8);
        const uint64_t h = state_hash(edit + 20, (size_t)n - 28);
        memcpy(edit + n - 8, &h, 8);
        fp = fopen(path, "wb");
        fwrite(edit, 1, (size_t)n, fp);
        fclose(fp);
        eddy_sim *t = NULL;
        char msg[512];
        const eddy_status st = eddy_sim_load(path, &t, msg, sizeof msg);
        CHECK(st == EDDY_ERR_CORRUPT_FILE && t == NULL && strstr(msg, cases[c].why), "%s = %g accepted (%d: %s)", cases[c].why,
              cases[c].value, (int)st, msg);
        eddy_sim_destroy(t);
    }
    free(edit);
    free(bytes);
    remove(path);
    eddy_sim_destroy(s);
}

static unsigned char *read_whole(const char *path, long *n) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    *n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)*n);
    if (fread(bytes, 1, (size_t)*n, fp) != (size_t)*n) { free(bytes); bytes = NULL; }
    fclose(fp);
    return bytes;
}

/* writes a state file of `payload` with a correct hash (a file written by other code) and loads it */
static eddy_status load_payload(const char *path, const unsigned char *payload, uint64_t plen, char *msg, size_t msg_size,
                                eddy_sim **out) {
    FILE *fp = fopen(path, "wb");
    const uint32_t version = 2;
    const uint64_t h = state_hash(payload, (size_t)plen);
    fwrite("EDDYSTAT", 1, 8, fp);
    fwrite(&version, 4, 1, fp);
    fwrite(&plen, 8, 1, fp);
    fwrite(payload, 1, (size_t)plen, fp);
    fwrite(&h, 8, 1, fp);
    fclose(fp);
    *out = NULL;
    return eddy_sim_load(path, out, msg, msg_size);
}

/* Header sizes and ids of a state file: a declared payload size near 2^64 (plen + 8 wrapped to the real size, then
 * a 2^64-byte malloc), a grid far larger than the file (allocated and cleared before the payload ran short), and
 * obstacle or emitter ids a simulation never gives (0, repeated, at or above the next id) are refused. */
static void test_state_sizes_and_ids(void) {
    char path[] = "/tmp/eddy_state_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    close(fd);
    char msg[512];
    eddy_sim *t = NULL;
    FILE *fp = fopen(path, "wb");
    const uint32_t version = 2;
    const uint64_t wrapping = UINT64_MAX - 7;
    fwrite("EDDYSTAT", 1, 8, fp);
    fwrite(&version, 4, 1, fp);
    fwrite(&wrapping, 8, 1, fp);
    fclose(fp);
    eddy_status st = eddy_sim_load(path, &t, msg, sizeof msg);
    CHECK(st == EDDY_ERR_CORRUPT_FILE && t == NULL && strstr(msg, "size does not match"), "payload size 2^64 - 8: %d %s", (int)st, msg);

    eddy_sim *s = make(2, 12, 10, 1);
    if (!s) return;
    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_SPHERE;
    o.center[0] = 0.4f; o.center[1] = 0.5f; o.radius = 0.2f;
    eddy_id first = 0, second = 0;
    eddy_sim_add_obstacle(s, &o, &first);
    o.center[0] = 0.9f;
    eddy_sim_add_obstacle(s, &o, &second);
    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 0.6f; e.center[1] = 0.3f; e.radius = 0.1f;
    eddy_id emitter = 0;
    eddy_sim_add_emitter(s, &e, &emitter);
    CHECK(first == 1 && second == 2 && emitter == 3 && s->next_id == 4, "ids %u %u %u", first, second, emitter);
    CHECK(eddy_sim_step(s) == EDDY_OK, "step: %s", eddy_sim_last_error(s)); /* a time and step to find in the file */
    CHECK(eddy_sim_save(s, path) == EDDY_OK, "save: %s", eddy_sim_last_error(s));
    long n = 0;
    unsigned char *bytes = read_whole(path, &n);
    if (!bytes) { eddy_sim_destroy(s); return; }
    unsigned char *payload = bytes + 20, *edit = malloc((size_t)n);
    const uint64_t plen = (uint64_t)n - 28;
    /* the definition opens with dim and grid[3]: a 64^3 grid needs 4 MiB of fields, the file holds 2 KiB */
    memcpy(edit, payload, (size_t)plen);
    const int32_t big[4] = {3, 64, 64, 64};
    const float derived[2] = {0, 0}; /* size[1], size[2] follow the grid */
    memcpy(edit, big, sizeof big);
    memcpy(edit + sizeof big + 4, derived, sizeof derived);
    st = load_payload(path, edit, plen, msg, sizeof msg, &t);
    CHECK(st == EDDY_ERR_CORRUPT_FILE && t == NULL && strstr(msg, "64 x 64 x 64 grid needs"), "grid larger than the file: %d %s",
          (int)st, msg);
    eddy_sim_destroy(t);
    /* after the definition: time, step (doubles), next_id, last dt, obstacle count, obstacles of 60 bytes */
    const double time = s->time, step = (double)s->step;
    long at = -1;
    for (long i = 0; i + 16 <= (long)plen && at < 0; i++)
        if (memcmp(payload + i, &time, 8) == 0 && memcmp(payload + i + 8, &step, 8) == 0) at = i + 16;
    CHECK(at > 0, "next_id not found");
    const long first_id = at + 12, second_id = first_id + 60, emitter_id = second_id + 64;
    const struct { long where; uint32_t id; const char *why; } cases[] = {
        {at, 2, "obstacle ids"},        /* the next id would repeat the second obstacle's */
        {first_id, 0, "obstacle ids"},  /* id 0 is never valid */
        {second_id, 1, "obstacle ids"}, /* two obstacles of id 1 */
        {emitter_id, 2, "id of an obstacle"},
        {emitter_id, 4, "emitter ids"},
    };
    for (size_t c = 0; at > 0 && c < sizeof cases / sizeof cases[0]; c++) {
        memcpy(edit, payload, (size_t)plen);
        memcpy(edit + cases[c].where, &cases[c].id, 4);
        st = load_payload(path, edit, plen, msg, sizeof msg, &t);
        CHECK(st == EDDY_ERR_CORRUPT_FILE && t == NULL && strstr(msg, cases[c].why), "id %u at %ld accepted: %d %s", cases[c].id,
              cases[c].where, (int)st, msg);
        eddy_sim_destroy(t);
    }
    /* the last id: given once, then adds are refused instead of wrapping to 0 and repeating ids */
    const uint32_t last = UINT32_MAX;
    memcpy(edit, payload, (size_t)plen);
    memcpy(edit + at, &last, 4);
    st = load_payload(path, edit, plen, msg, sizeof msg, &t);
    CHECK(st == EDDY_OK && t, "next id 2^32 - 1: %s", msg);
    if (t) {
        eddy_id id = 0;
        CHECK(eddy_sim_add_obstacle(t, &o, &id) == EDDY_OK && id == UINT32_MAX, "the last id: %u", id);
        id = 0;
        CHECK(eddy_sim_add_emitter(t, &e, &id) == EDDY_ERR_UNSUPPORTED && id == 0 && t->emitter_count == 1 &&
                  strstr(eddy_sim_last_error(t), "ids"), "an id past the last: %u %s", id, eddy_sim_last_error(t));
        CHECK(eddy_sim_add_obstacle(t, &o, &id) == EDDY_ERR_UNSUPPORTED && t->obstacle_count == 3, "an obstacle id past the last");
        eddy_sim_destroy(t);
    }
    free(edit);
    free(bytes);
    remove(path);
    eddy_sim_destroy(s);
}

static size_t non_finite_values(eddy_sim *s) {
    size_t bad = 0;
    for (int f = 0; f <= EDDY_FIELD_TEMPERATURE; f++) {
        if (f == EDDY_FIELD_W && s->dim == 2) continue;
        eddy_field_layout L;
        const float *p = eddy_sim_field_view(s, (eddy_field)f, &L);
        for (size_t i = 0; p && i < L.count; i++) bad += !isfinite(p[i]);
    }
    return bad;
}

/* Splats at the float limits: a radius whose 1/r^2 is infinite put 0 * inf = NaN at a sample on the centre, a
 * radius past 2^31 cells converted its index range to int (undefined; on x86 it touched one corner cell only), and
 * adding to values near 3.4e38 overflowed them to infinity; all returned EDDY_OK. */
static void test_splat_limits(void) {
    eddy_sim *s = make(2, 16, 12, 1);
    if (!s) return;
    eddy_splat sp = {{0.05f, 0.05f, 0}, 1e-25f, {1, 0, 0}, {1, 0, 0}, 0}; /* the centre of cell (0, 0) */
    CHECK(eddy_sim_splat(s, &sp) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "radius = 1e-25"),
          "radius 1e-25: %s", eddy_sim_last_error(s));
    CHECK(non_finite_values(s) == 0, "a refused splat left %zu non-finite values", non_finite_values(s));
    sp.radius = 1e20f;
    CHECK(eddy_sim_splat(s, &sp) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "1e-19 .. 1e19"), "radius 1e20");
    /* a splat far wider than the domain adds its full amount everywhere */
    sp.radius = 1e18f;
    CHECK(eddy_sim_splat(s, &sp) == EDDY_OK, "radius 1e18: %s", eddy_sim_last_error(s));
    const float *dye = eddy_sim_field_view(s, EDDY_FIELD_DYE_R, NULL);
    size_t wrong = 0;
    for (size_t q = 0; q < s->nscalar; q++) wrong += dye[q] != 1.0f;
    CHECK(wrong == 0, "a splat of radius 1e18 m missed %zu of %zu cells", wrong, s->nscalar);
    /* far outside the domain: adds nothing, converts nothing out of range */
    eddy_splat far = {{1e30f, -1e30f, 0}, 0.1f, {1, 1, 0}, {1, 0, 0}, 0};
    CHECK(eddy_sim_splat(s, &far) == EDDY_OK && dye[0] == 1.0f && dye[s->nscalar - 1] == 1.0f, "far splat: %s", eddy_sim_last_error(s));
    /* overflow: the first splat fits, the second would pass 3.4e38 and is refused whole */
    eddy_splat big = {{0.8f, 0.6f, 0}, 0.2f, {0, 0, 0}, {0, 0, 0}, 3e38f};
    CHECK(eddy_sim_splat(s, &big) == EDDY_OK, "first big splat: %s", eddy_sim_last_error(s));
    float *before = malloc(s->nscalar * sizeof(float));
    memcpy(before, s->temperature, s->nscalar * sizeof(float));
    CHECK(eddy_sim_splat(s, &big) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "temperature 3e+38"),
          "overflowing temperature: %s", eddy_sim_last_error(s));
    CHECK(memcmp(before, s->temperature, s->nscalar * sizeof(float)) == 0 && non_finite_values(s) == 0, "a refused splat changed the field");
    free(before);
    big.temperature = 0;
    big.velocity[1] = -3e38f;
    CHECK(eddy_sim_splat(s, &big) == EDDY_OK, "first fast splat: %s", eddy_sim_last_error(s));
    CHECK(eddy_sim_splat(s, &big) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "velocity[1]") &&
              non_finite_values(s) == 0, "overflowing v: %s", eddy_sim_last_error(s));
    eddy_sim_destroy(s);
}

/* Sampling far out along a periodic axis: the coordinate was converted to int (undefined past 2^31; on x86 it became
 * INT_MIN and wrapped to the wrong cell). It wraps exactly now. */
static void test_periodic_far_sample(void) {
    eddy_sim_def d = eddy_sim_def_default();
    d.grid[0] = 16; d.grid[1] = 12;
    d.size[0] = 2.0f; /* h = 1/8: the positions below are exact */
    for (int f = 0; f < 4; f++) d.boundary[f].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = NULL;
    char msg[256];
    CHECK(eddy_sim_create(&d, &s, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (!s) return;
    eddy_field_layout L;
    eddy_sim_field_layout(s, EDDY_FIELD_DYE_R, &L);
    float *rows = malloc(L.count * sizeof(float));
    for (size_t q = 0; q < L.count; q++) rows[q] = (float)(q / (size_t)L.n[0]); /* the row index j */
    CHECK(eddy_sim_write_field(s, EDDY_FIELD_DYE_R, rows, L.count) == EDDY_OK, "write: %s", eddy_sim_last_error(s));
    free(rows);
    /* y = 3 * 2^30 cells: a whole number of periods of 12 rows, so row 0's centre (float has no half cell left there) */
    const float at[3] = {0.0625f, 3.0f * 1073741824.0f * 0.125f, 0};
    float value = -1;
    CHECK(eddy_sim_sample_field(s, EDDY_FIELD_DYE_R, at, &value) == EDDY_OK && value == 0.0f, "far periodic sample gave row %g, expected 0",
          (double)value);
    const float overflow[3] = {3e38f, -3e38f, 0}; /* (p - origin) / h overflows to infinity */
    float v[3];
    CHECK(eddy_sim_sample_velocity(s, overflow, v) == EDDY_OK && isfinite(v[0]) && isfinite(v[1]), "sample at 3e38");
    eddy_sim_destroy(s);
}

static float sdf_nan_right(const float p[3], void *user) {
    (void)user;
    return p[0] > 1.0f ? NAN : 1.0f; /* fluid on the left, no distance on the right */
}

static size_t solid_cells(eddy_sim *s) {
    if (eddy__solids_current(s) != EDDY_OK) return (size_t)-1;
    size_t n = 0;
    for (size_t c = 0; c < s->ncells; c++) n += s->solid[c];
    return n;
}

/* Obstacles at the float limits: an SDF callback returning NaN made every such cell solid (NaN >= 0 is false), a
 * capsule of axis past ~1.8e19 m was rasterised as a sphere (|axis|^2 overflowed, t = 0), and two solid cells of
 * velocity 3e38 gave their shared face (3e38 + 3e38) / 2 = inf, written into u by any call applying the boundaries. */
static void test_obstacle_limits(void) {
    eddy_sim *s = make(2, 16, 12, 1); /* h = 0.1 m */
    if (!s) return;
    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_SDF;
    o.sdf = sdf_nan_right;
    eddy_id id = 0;
    const eddy_id next = s->next_id;
    CHECK(eddy_sim_add_obstacle(s, &o, &id) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "NaN") && id == 0,
          "NaN sdf: %s", eddy_sim_last_error(s));
    CHECK(s->obstacle_count == 0 && s->next_id == next && solid_cells(s) == 0, "a refused obstacle stayed: %d obstacles, %zu solid cells",
          s->obstacle_count, solid_cells(s));
    /* an infinite-looking capsule along x through y = 0.6 of radius 0.06: the two rows of centres 0.55 and 0.65 */
    memset(&o, 0, sizeof o);
    o.shape = EDDY_SHAPE_CAPSULE;
    o.center[0] = 0.8f; o.center[1] = 0.6f; o.radius = 0.06f;
    const float axes[2] = {1e19f, 1e20f};
    for (int c = 0; c < 2; c++) {
        o.axis[0] = axes[c];
        CHECK(eddy_sim_add_obstacle(s, &o, &id) == EDDY_OK, "capsule: %s", eddy_sim_last_error(s));
        CHECK(solid_cells(s) == 32, "capsule of axis %g m covers %zu cells, expected 2 rows of 16", (double)axes[c], solid_cells(s));
        eddy_sim_remove_obstacle(s, id);
    }
    /* a box of 4 x 4 cells moving at 3e38 m/s: faces between its cells take that speed, finite */
    memset(&o, 0, sizeof o);
    o.shape = EDDY_SHAPE_BOX;
    o.center[0] = 0.8f; o.center[1] = 0.6f; o.half_size[0] = o.half_size[1] = 0.2f; o.velocity[0] = 3e38f;
    CHECK(eddy_sim_add_obstacle(s, &o, &id) == EDDY_OK, "fast box: %s", eddy_sim_last_error(s));
    eddy_field_layout L;
    eddy_sim_field_layout(s, EDDY_FIELD_U, &L);
    float *u = calloc(L.count, sizeof(float));
    CHECK(eddy_sim_write_field(s, EDDY_FIELD_U, u, L.count) == EDDY_OK && non_finite_values(s) == 0,
          "a 3e38 m/s obstacle put %zu non-finite values into the fields", non_finite_values(s));
    free(u);
    eddy_sim_destroy(s);
}

/* At a large time (a loaded state can hold any finite time) a double does not resolve the step: advance stepped
 * for ever without the time moving (1.2e15 s: steps of 0.05 s round away) or returned EDDY_OK having done nothing
 * (1e17 s: the whole second rounds away). */
static void test_advance_at_large_time(void) {
    eddy_sim *s = make(2, 8, 8, 1);
    if (!s) return;
    s->time = 1.2e15;
    CHECK(eddy_sim_advance(s, 1.0) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "does not change the time") &&
              s->step == 0, "advance at 1.2e15 s: %s", eddy_sim_last_error(s));
    s->time = 1e17;
    CHECK(eddy_sim_advance(s, 1.0) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "resolution") && s->step == 0,
          "advance at 1e17 s: %s", eddy_sim_last_error(s));
    CHECK(eddy_sim_advance(s, 0.0) == EDDY_OK, "advance by 0 s: %s", eddy_sim_last_error(s));
    s->time = 0;
    CHECK(eddy_sim_advance(s, 0.1) == EDDY_OK && s->time == 0.1, "advance from 0: %s", eddy_sim_last_error(s));
    eddy_sim_destroy(s);
}

static void test_set_def(void) {
    eddy_sim *s = make(2, 16, 12, 1);
    if (!s) return;
    eddy_sim_def d = *eddy_sim_get_def(s);
    d.vorticity = 0.5f;
    d.advection = EDDY_ADVECT_BFECC;
    d.viscosity = 1e-3f;
    CHECK(eddy_sim_set_def(s, &d) == EDDY_OK, "set_def tunables: %s", eddy_sim_last_error(s));
    CHECK(eddy_sim_get_def(s)->vorticity == 0.5f && eddy_sim_get_def(s)->advection == EDDY_ADVECT_BFECC, "not applied");
    eddy_splat sp = {{0.8f, 0.6f, 0}, 0.2f, {1, 0, 0}, {1, 0, 0}, 0};
    eddy_sim_splat(s, &sp);
    CHECK(eddy_sim_step(s) == EDDY_OK, "step after a scheme change: %s", eddy_sim_last_error(s));
    d.grid[0] = 20;
    CHECK(eddy_sim_set_def(s, &d) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "grid"), "grid change accepted");
    d = *eddy_sim_get_def(s);
    d.boundary[0].type = d.boundary[1].type = EDDY_BOUNDARY_PERIODIC;
    CHECK(eddy_sim_set_def(s, &d) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "boundary"), "bc type change accepted");
    d = *eddy_sim_get_def(s);
    d.vorticity = NAN;
    CHECK(eddy_sim_set_def(s, &d) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_sim_last_error(s), "vorticity"), "NaN accepted");
    CHECK(eddy_sim_get_def(s)->vorticity == 0.5f, "a rejected def changed the simulation");
    eddy_sim_destroy(s);
}

int main(void) {
    test_set_def();
    test_bad_definitions();
    test_bad_calls();
    test_sampling_linear();
    test_splat_and_obstacles();
    test_state_files();
    test_state_values();
    test_state_sizes_and_ids();
    test_splat_limits();
    test_periodic_far_sample();
    test_obstacle_limits();
    test_advance_at_large_time();
    return check_finish("test_api");
}
