/* State files: the whole simulation (definition, fields, obstacles, emitters, mask, time) so that a loaded
 * simulation continues bit for bit as if it had never stopped.
 * Layout (little-endian): "EDDYSTAT" | u32 version | u64 payload bytes | payload | u64 FNV-1a hash of payload.
 * The payload is a sequence of fixed-width values written in one order and read back with bounds checks; a
 * truncated, extended or altered file fails the size or hash check and is rejected before anything is built.
 * Saving writes "<path>.tmp-XXXXXX" (a new, unique name) and renames it, so an existing file is never left
 * half-written and no other file is overwritten. */
#include "sim_internal.h"
#include "temp_file.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_MAGIC "EDDYSTAT"
/* version 2 added pressure.warm_start after the boundaries; version 1 files load with it 0 */
#define STATE_VERSION 2u
/* the largest step count a state file may hold: every whole number up to it is exact in the double it is stored as */
#define MAX_STEP 9007199254740992.0

typedef struct {
    unsigned char *p;
    size_t len, cap;
    bool oom;
} wbuf;

static void put(wbuf *b, const void *src, size_t n) {
    if (b->oom) return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n) cap *= 2;
        unsigned char *q = (unsigned char *)realloc(b->p, cap);
        if (!q) { b->oom = true; return; }
        b->p = q;
        b->cap = cap;
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}
static void put_i32(wbuf *b, int32_t v) { put(b, &v, 4); }
static void put_u32(wbuf *b, uint32_t v) { put(b, &v, 4); }
static void put_f32(wbuf *b, float v) { put(b, &v, 4); }
static void put_f64(wbuf *b, double v) { put(b, &v, 8); }
static void put_f32s(wbuf *b, const float *v, size_t n) { put(b, v, n * sizeof(float)); }

typedef struct {
    const unsigned char *p;
    size_t len, at;
    bool bad;
} rbuf;

static void get(rbuf *b, void *dst, size_t n) {
    if (b->bad || n > b->len - b->at) {
        b->bad = true;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, b->p + b->at, n);
    b->at += n;
}
static int32_t get_i32(rbuf *b) { int32_t v; get(b, &v, 4); return v; }
static uint32_t get_u32(rbuf *b) { uint32_t v; get(b, &v, 4); return v; }
static float get_f32(rbuf *b) { float v; get(b, &v, 4); return v; }
static double get_f64(rbuf *b) { double v; get(b, &v, 8); return v; }

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* the definition, value by value, in one fixed order shared by both directions */
#define DEF_FIELDS(I, F)                                                                                           \
    I(dim) I(grid[0]) I(grid[1]) I(grid[2]) F(size[0]) F(size[1]) F(size[2]) F(origin[0]) F(origin[1])            \
    F(origin[2]) F(dt) F(cfl) F(max_dt) F(viscosity) F(density) I(advection) I(pressure.solver)                    \
    F(pressure.tolerance) I(pressure.max_iterations) F(pressure.omega) F(vorticity) F(velocity_dissipation)        \
    F(dye_dissipation) F(temperature_dissipation) F(dye_diffusion) F(temperature_diffusion) F(gravity[0])          \
    F(gravity[1]) F(gravity[2]) F(buoyancy_density) F(buoyancy_temperature) F(ambient_temperature)                 \
    I(dye_scale[0]) I(dye_scale[1]) I(dye_scale[2]) I(threads) I(backend)

static void put_def(wbuf *b, const eddy_sim_def *d) {
#define PI(x) put_i32(b, (int32_t)d->x);
#define PF(x) put_f32(b, d->x);
    DEF_FIELDS(PI, PF)
#undef PI
#undef PF
    for (int f = 0; f < 6; f++) {
        put_i32(b, (int32_t)d->boundary[f].type);
        put_f32s(b, d->boundary[f].velocity, 3);
        put_f32s(b, d->boundary[f].dye, 3);
        put_f32(b, d->boundary[f].temperature);
    }
    put_i32(b, (int32_t)d->pressure.warm_start);
}

static void get_def(rbuf *b, eddy_sim_def *d, uint32_t version) {
    *d = eddy_sim_def_default();
#define GI(x) d->x = get_i32(b);
#define GF(x) d->x = get_f32(b);
    DEF_FIELDS(GI, GF)
#undef GI
#undef GF
    for (int f = 0; f < 6; f++) {
        d->boundary[f].type = (eddy_boundary_type)get_i32(b);
        for (int c = 0; c < 3; c++) d->boundary[f].velocity[c] = get_f32(b);
        for (int c = 0; c < 3; c++) d->boundary[f].dye[c] = get_f32(b);
        d->boundary[f].temperature = get_f32(b);
    }
    if (version >= 2) d->pressure.warm_start = get_i32(b);
}

static void put_obstacle(wbuf *b, const eddy_obstacle *o) {
    put_u32(b, o->id);
    put_i32(b, (int32_t)o->def.shape);
    put_f32s(b, o->def.center, 3);
    put_f32(b, o->def.radius);
    put_f32s(b, o->def.half_size, 3);
    put_f32s(b, o->def.axis, 3);
    put_f32s(b, o->def.velocity, 3);
}

static void get_obstacle(rbuf *b, eddy_obstacle *o) {
    memset(o, 0, sizeof *o);
    o->id = get_u32(b);
    o->def.shape = (eddy_shape)get_i32(b);
    for (int c = 0; c < 3; c++) o->def.center[c] = get_f32(b);
    o->def.radius = get_f32(b);
    for (int c = 0; c < 3; c++) o->def.half_size[c] = get_f32(b);
    for (int c = 0; c < 3; c++) o->def.axis[c] = get_f32(b);
    for (int c = 0; c < 3; c++) o->def.velocity[c] = get_f32(b);
}

static void put_emitter(wbuf *b, const eddy_emitter *e) {
    put_u32(b, e->id);
    put_i32(b, (int32_t)e->def.shape);
    put_f32s(b, e->def.center, 3);
    put_f32(b, e->def.radius);
    put_f32s(b, e->def.half_size, 3);
    put_f32s(b, e->def.dye, 3);
    put_f32(b, e->def.temperature);
    put_f32s(b, e->def.velocity, 3);
    put_i32(b, e->def.set_velocity);
}

static void get_emitter(rbuf *b, eddy_emitter *e) {
    memset(e, 0, sizeof *e);
    e->id = get_u32(b);
    e->def.shape = (eddy_shape)get_i32(b);
    for (int c = 0; c < 3; c++) e->def.center[c] = get_f32(b);
    e->def.radius = get_f32(b);
    for (int c = 0; c < 3; c++) e->def.half_size[c] = get_f32(b);
    for (int c = 0; c < 3; c++) e->def.dye[c] = get_f32(b);
    e->def.temperature = get_f32(b);
    for (int c = 0; c < 3; c++) e->def.velocity[c] = get_f32(b);
    e->def.set_velocity = get_i32(b);
}

/* the arrays, in one order, and their fields */
static int state_arrays(eddy_sim *s, float *arr[8], size_t cnt[8], eddy_field field[8]) {
    int n = 0;
    for (int a = 0; a < s->dim; a++) { field[n] = (eddy_field)(EDDY_FIELD_U + a); arr[n] = s->vel[a]; cnt[n++] = s->nface[a]; }
    field[n] = EDDY_FIELD_PRESSURE; arr[n] = s->pressure; cnt[n++] = s->ncells;
    for (int c = 0; c < 3; c++) { field[n] = (eddy_field)(EDDY_FIELD_DYE_R + c); arr[n] = s->dye[c]; cnt[n++] = s->nscalar; }
    field[n] = EDDY_FIELD_TEMPERATURE; arr[n] = s->temperature; cnt[n++] = s->nscalar;
    return n;
}

/* bytes of the arrays state_arrays lists, for a valid definition (each field has at most 2^31 values) */
static uint64_t stored_field_bytes(const eddy_sim_def *d) {
    uint64_t n[3], sn[3];
    for (int a = 0; a < 3; a++) {
        n[a] = a < d->dim ? (uint64_t)d->grid[a] : 1;
        sn[a] = a < d->dim ? n[a] * (uint64_t)d->dye_scale[a] : 1;
    }
    uint64_t values = n[0] * n[1] * n[2] + 4 * sn[0] * sn[1] * sn[2]; /* pressure; dye r, g, b and temperature */
    for (int a = 0; a < d->dim; a++) values += (n[0] + (a == 0)) * (n[1] + (a == 1)) * (n[2] + (a == 2));
    return values * sizeof(float);
}

eddy_status eddy_sim_save(eddy_sim *s, const char *path) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    if (!path || !*path) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "save: path is empty");
    for (int i = 0; i < s->obstacle_count; i++)
        if (s->obstacles[i].def.shape == EDDY_SHAPE_SDF)
            return eddy__fail(s, EDDY_ERR_UNSUPPORTED,
                              "save: obstacle %u is an SDF callback, which cannot be stored in a file", (unsigned)s->obstacles[i].id);
    eddy_status fst = eddy__fetch(s, EDDY_SYNC_ALL);
    if (fst != EDDY_OK) return fst;
    float *arr[8];
    size_t cnt[8];
    eddy_field field[8];
    const int na = state_arrays(s, arr, cnt, field);
    /* a step stopped on a non-finite value leaves it in the fields: such a file would be refused by eddy_sim_load */
    for (int i = 0; i < na; i++)
        for (size_t q = 0; q < cnt[i]; q++)
            if (!isfinite(arr[i][q]))
                return eddy__fail(s, EDDY_ERR_NON_FINITE, "save: %s[%zu] = %g is not finite (left by a step that stopped on "
                                  "it); nothing was written", eddy_field_name(field[i]), q, (double)arr[i][q]);
    wbuf b = {0};
    put_def(&b, &s->def);
    put_f64(&b, s->time);
    put_f64(&b, (double)s->step);
    put_u32(&b, s->next_id);
    put_f32(&b, s->stats.dt);
    put_i32(&b, s->obstacle_count);
    for (int i = 0; i < s->obstacle_count; i++) put_obstacle(&b, &s->obstacles[i]);
    put_i32(&b, s->emitter_count);
    for (int i = 0; i < s->emitter_count; i++) put_emitter(&b, &s->emitters[i]);
    put_i32(&b, s->user_mask ? 1 : 0);
    if (s->user_mask) put(&b, s->user_mask, s->ncells);
    for (int i = 0; i < na; i++) put_f32s(&b, arr[i], cnt[i]);
    if (b.oom) {
        free(b.p);
        return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "save: out of memory serialising the state");
    }
    char why[600];
    eddy_status made;
    char *tmp = eddy__temp_file_for(path, why, sizeof why, &made);
    if (!tmp) {
        free(b.p);
        return eddy__fail(s, made, "save: %s", why);
    }
    FILE *fp = fopen(tmp, "wb");
    eddy_status st = EDDY_OK;
    if (!fp) {
        st = eddy__fail(s, EDDY_ERR_IO, "save: cannot open '%s' for writing: %s", tmp, strerror(errno));
        remove(tmp);
    } else {
        uint32_t version = STATE_VERSION;
        uint64_t plen64 = b.len, hash = fnv1a(b.p, b.len);
        bool ok = fwrite(STATE_MAGIC, 1, 8, fp) == 8 && fwrite(&version, 4, 1, fp) == 1 && fwrite(&plen64, 8, 1, fp) == 1 &&
                  fwrite(b.p, 1, b.len, fp) == b.len && fwrite(&hash, 8, 1, fp) == 1;
        int err = errno;
        if (fclose(fp) != 0 && ok) { ok = false; err = errno; }
        if (!ok) {
            remove(tmp);
            st = eddy__fail(s, EDDY_ERR_IO, "save: writing '%s' failed: %s", tmp, strerror(err));
        } else if (rename(tmp, path) != 0) {
            err = errno;
            remove(tmp);
            st = eddy__fail(s, EDDY_ERR_IO, "save: cannot rename '%s' to '%s': %s", tmp, path, strerror(err));
        }
    }
    free(tmp);
    free(b.p);
    return st;
}

static bool id_in_order(eddy_id id, eddy_id previous, eddy_id next_id) {
    return id > previous && (next_id == 0 || id < next_id);
}

/* the obstacles' ids increase (id_in_order), so a binary search finds one */
static bool obstacle_has_id(const eddy_sim *s, eddy_id id) {
    int lo = 0, hi = s->obstacle_count - 1;
    while (lo <= hi) {
        const int mid = lo + (hi - lo) / 2;
        if (s->obstacles[mid].id == id) return true;
        if (s->obstacles[mid].id < id) lo = mid + 1;
        else hi = mid - 1;
    }
    return false;
}

static eddy_status load_error(char *msg, size_t msg_size, eddy_status st, const char *fmt, const char *path, const char *why) {
    if (msg && msg_size) snprintf(msg, msg_size, fmt, path, why);
    return st;
}

/* the file at `path` opened for reading, or NULL with the message written: only a regular file (a directory read as
 * an empty stream and was called 'not an eddy state file'; a FIFO without a writer blocked the open for ever) */
static FILE *open_state_file(const char *path, char *msg, size_t msg_size, eddy_status *st) {
    *st = EDDY_ERR_IO;
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        load_error(msg, msg_size, EDDY_ERR_IO, "cannot open state file '%s': %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    const char *kind = fstat(fd, &sb) != 0 ? "unreadable (fstat failed)"
                       : S_ISREG(sb.st_mode) ? NULL
                       : S_ISDIR(sb.st_mode) ? "a directory (a folder)"
                                             : "a device, pipe or socket";
    FILE *fp = kind ? NULL : fdopen(fd, "rb");
    if (!fp) {
        if (!kind) kind = "not readable as a stream (fdopen failed)";
        close(fd);
        load_error(msg, msg_size, EDDY_ERR_IO, "cannot load '%s': it is %s, not a state file", path, kind);
    }
    return fp;
}

eddy_status eddy_sim_load(const char *path, eddy_sim **out, char *msg, size_t msg_size) {
    if (!out) return load_error(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s%s", "load: ", "out pointer is NULL");
    *out = NULL;
    if (!path) return load_error(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s%s", "load: ", "path is NULL");
    eddy_status st;
    FILE *fp = open_state_file(path, msg, msg_size, &st);
    if (!fp) return st;
    char magic[8];
    uint32_t version = 0;
    uint64_t plen = 0;
    const size_t got = fread(magic, 1, 8, fp);
    if (got != 8 || memcmp(magic, STATE_MAGIC, 8) != 0) {
        const bool read_error = ferror(fp);
        fclose(fp);
        if (read_error) return load_error(msg, msg_size, EDDY_ERR_IO, "cannot read state file '%s': %s", path, strerror(errno));
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "'%s' is not an eddy state file (%s)", path,
                          got == 0 ? "it is empty" : (got < 8 ? "shorter than the 8-byte magic" : "bad magic"));
    }
    if (fread(&version, 4, 1, fp) != 1) {
        fclose(fp);
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "state file '%s' is truncated (%s)", path, "header");
    }
    if (version != 1 && version != STATE_VERSION) {
        fclose(fp);
        char why[64];
        snprintf(why, sizeof why, "%u; this build reads 1 and %u", (unsigned)version, STATE_VERSION);
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "state file '%s' has an unsupported version %s", path, why);
    }
    if (fread(&plen, 8, 1, fp) != 1) {
        fclose(fp);
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "state file '%s' is truncated (%s)", path, "header");
    }
    /* the payload length must match the file exactly before anything that large is allocated */
    long here = ftell(fp);
    if (fseek(fp, 0, SEEK_END) != 0 || here < 0) {
        fclose(fp);
        return load_error(msg, msg_size, EDDY_ERR_IO, "state file '%s': %s", path, "cannot seek");
    }
    long end = ftell(fp);
    /* compared without forming plen + 8, which wraps for a declared size near 2^64 */
    if (end < here || (uint64_t)(end - here) < 8 || plen != (uint64_t)(end - here) - 8) {
        fclose(fp);
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "state file '%s' is truncated or has extra bytes (%s)", path,
                          "size does not match its header");
    }
    fseek(fp, here, SEEK_SET);
    unsigned char *p = (unsigned char *)malloc(plen ? plen : 1);
    uint64_t hash = 0;
    if (!p) {
        fclose(fp);
        return load_error(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "state file '%s': %s", path, "out of memory");
    }
    bool ok = fread(p, 1, plen, fp) == plen && fread(&hash, 8, 1, fp) == 1;
    fclose(fp);
    if (!ok || hash != fnv1a(p, plen)) {
        free(p);
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "state file '%s' is corrupt (%s)", path,
                          ok ? "checksum mismatch" : "short read");
    }
    rbuf b = {p, plen, 0, false};
    eddy_sim_def def;
    get_def(&b, &def, version);
    eddy_sim *s = NULL;
    char why[400];
    /* a file saved on a backend this build or machine lacks is not corrupt: say so, and which backend */
    if (!b.bad && (unsigned)def.backend <= EDDY_BACKEND_CUDA && !eddy_backend_available(def.backend, why, sizeof why)) {
        free(p);
        if (msg && msg_size)
            snprintf(msg, msg_size, "state file '%s' holds a simulation on the %s backend, which is not available here (%s)",
                     path, eddy_backend_name(def.backend), why);
        return EDDY_ERR_UNSUPPORTED;
    }
    st = b.bad ? EDDY_ERR_CORRUPT_FILE : eddy_sim_def_validate(&def, why, sizeof why);
    /* the fields are stored in the file: a grid larger than the file can hold is refused before it is allocated
     * (a few bytes declaring 2^31 cells would otherwise allocate and clear tens of gigabytes) */
    const uint64_t field_bytes = st == EDDY_OK ? stored_field_bytes(&def) : 0;
    if (st == EDDY_OK && field_bytes > plen) {
        free(p);
        if (msg && msg_size)
            snprintf(msg, msg_size, "state file '%s' is corrupt (its %d x %d x %d grid needs %llu bytes of fields; the payload holds %llu)",
                     path, def.grid[0], def.grid[1], def.dim == 3 ? def.grid[2] : 1, (unsigned long long)field_bytes,
                     (unsigned long long)plen);
        return EDDY_ERR_CORRUPT_FILE;
    }
    if (st != EDDY_OK) {
        free(p);
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "state file '%s' holds an invalid definition: %s", path,
                          b.bad ? "truncated" : why);
    }
    st = eddy_sim_create(&def, &s, why, sizeof why);
    if (st != EDDY_OK) { /* a valid definition: out of memory, or the device could not take it */
        free(p);
        return load_error(msg, msg_size, st, "state file '%s': its simulation cannot be created: %s", path, why);
    }
    const double time = get_f64(&b), step = get_f64(&b);
    eddy_id next_id = get_u32(&b);
    s->stats.dt = get_f32(&b);
    int no = get_i32(&b);
    const char *bad = NULL;
    /* a hash only proves the bytes are the ones written: a file written by other code can still hold values no
     * simulation reaches (and a step count that does not fit a long is undefined behaviour to convert) */
    if (!(isfinite(time) && time >= 0)) bad = "time is not a finite, non-negative number of seconds";
    else if (!(step >= 0 && step <= MAX_STEP && step == floor(step))) bad = "step is not a whole number from 0 to 2^53";
    else if (!(isfinite(s->stats.dt) && s->stats.dt >= 0)) bad = "last dt is not a finite, non-negative number";
    s->time = s->stats.time = time;
    s->step = s->stats.step = bad ? 0 : (long)step;
    if (!bad && (no < 0 || (size_t)no > plen / 16)) bad = "obstacle count";
    /* ids as a simulation gives them: nonzero, below next_id (0: every id was given), increasing in each list
     * (adds append, removes keep the order), and never shared by an obstacle and an emitter */
    eddy_id last_id = 0;
    for (int i = 0; !bad && i < no; i++) {
        eddy_obstacle o;
        get_obstacle(&b, &o);
        if (b.bad) break;
        if (!id_in_order(o.id, last_id, next_id)) bad = "obstacle ids are not increasing, nonzero and below the next id";
        else if (o.def.shape == EDDY_SHAPE_SDF || eddy_sim_add_obstacle(s, &o.def, NULL) != EDDY_OK) bad = "obstacle";
        else s->obstacles[s->obstacle_count - 1].id = last_id = o.id;
    }
    int ne = bad ? 0 : get_i32(&b);
    if (!bad && (ne < 0 || (size_t)ne > plen / 16)) bad = "emitter count";
    last_id = 0;
    for (int i = 0; !bad && i < ne; i++) {
        eddy_emitter e;
        get_emitter(&b, &e);
        if (b.bad) break;
        if (!id_in_order(e.id, last_id, next_id)) bad = "emitter ids are not increasing, nonzero and below the next id";
        else if (obstacle_has_id(s, e.id)) bad = "an emitter has the id of an obstacle";
        else if (eddy_sim_add_emitter(s, &e.def, NULL) != EDDY_OK) bad = "emitter";
        else s->emitters[s->emitter_count - 1].id = last_id = e.id;
    }
    if (!bad && get_i32(&b)) {
        uint8_t *mask = (uint8_t *)malloc(s->ncells);
        if (!mask) bad = "out of memory";
        else {
            get(&b, mask, s->ncells);
            if (!b.bad && eddy_sim_set_solid_mask(s, mask, s->ncells) != EDDY_OK) bad = "solid mask";
            free(mask);
        }
    }
    s->next_id = next_id; /* after re-adding, which advanced it */
    float *arr[8];
    size_t cnt[8];
    eddy_field field[8];
    int na = state_arrays(s, arr, cnt, field);
    for (int i = 0; !bad && i < na; i++) get(&b, arr[i], cnt[i] * sizeof(float));
    if (!bad && !b.bad && b.at != b.len) bad = "trailing bytes";
    if (!bad && b.bad) bad = "truncated payload";
    free(p);
    if (bad) {
        eddy_sim_destroy(s);
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "state file '%s' is corrupt (%s)", path, bad);
    }
    if (eddy__check_finite(s, EDDY_STAGE_BOUNDARY, EDDY_CHECK_ALL) != EDDY_OK) {
        eddy_sim_destroy(s);
        return load_error(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "state file '%s' is corrupt (%s)", path, "non-finite values");
    }
    /* solids: the obstacles and mask added above are rasterised before their first reader (eddy__solids_current) */
    st = eddy__upload(s, EDDY_SYNC_ALL & ~(unsigned)EDDY_SYNC_SOLID);
    if (st != EDDY_OK) {
        eddy_sim_destroy(s);
        return load_error(msg, msg_size, st, "state file '%s': %s", path, "cannot send the fields to the device");
    }
    *out = s;
    return EDDY_OK;
}
