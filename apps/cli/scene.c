/* Scene loader: a JSON scene (schema and units in docs/scenes.md) is checked key by key and turned into an
 * eddy_sim_def plus the obstacles, emitters, splats, paths, initial fields, probes and output settings the command
 * drives. Every error names the file, the key path and what was expected; nothing is guessed. */
#include "scene.h"
#include "read_file.h"
#include "scene_json.h"
#include "scene_set.h"

#include "eddy/io.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const face_keys[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};

scene_load_options scene_load_options_default(void) {
    scene_load_options o;
    memset(&o, 0, sizeof o);
    o.check_files = true;
    o.check_memory = true;
    return o;
}

/* ---------------------------------------------------------------- parse state */

typedef struct loader {
    jcheck c;
    eddy_scene *sc;
    int dim;
    float box_min[3], box_max[3];
    bool unbounded;    /* a wind scene: positions are anywhere in the world */
    const scene_load_options *opt;
} loader;

static bool inside_box(const loader *L, const float p[3]) {
    if (L->unbounded) return true;
    for (int a = 0; a < L->dim; a++)
        if (!(p[a] >= L->box_min[a] && p[a] <= L->box_max[a])) return false;
    return true;
}

static const char *box_text(const loader *L, char *buf, size_t size) {
    if (L->dim == 2)
        snprintf(buf, size, "[%g, %g] x [%g, %g] m", (double)L->box_min[0], (double)L->box_max[0], (double)L->box_min[1],
                 (double)L->box_max[1]);
    else
        snprintf(buf, size, "[%g, %g] x [%g, %g] x [%g, %g] m", (double)L->box_min[0], (double)L->box_max[0],
                 (double)L->box_min[1], (double)L->box_max[1], (double)L->box_min[2], (double)L->box_max[2]);
    return buf;
}

static const char *vec_text(const float *v, int n, char *buf, size_t size) {
    if (n == 2) snprintf(buf, size, "[%g, %g]", (double)v[0], (double)v[1]);
    else snprintf(buf, size, "[%g, %g, %g]", (double)v[0], (double)v[1], (double)v[2]);
    return buf;
}

/* A position key that must lie inside the box (required when `required`). */
static bool position_in_box(loader *L, const cJSON *obj, const char *path, const char *key, bool required, float out[3]) {
    char p[JPATH_MAX], box[160], at[96];
    jc_key_path(p, path, key);
    const cJSON *v = jc_member(obj, key);
    if (!v) return required ? jc_fail(&L->c, p, "missing: expected a position [x, y%s] in metres", L->dim == 3 ? ", z" : "") : true;
    if (!jc_vec_value(&L->c, v, p, L->dim, JR_ANY("m"), out)) return false;
    if (!inside_box(L, out))
        return jc_fail(&L->c, p, "%s is outside the box %s", vec_text(out, L->dim, at, sizeof at), box_text(L, box, sizeof box));
    return true;
}

static bool require(loader *L, const cJSON *obj, const char *path, const char *key, const char *what) {
    if (jc_member(obj, key)) return true;
    char p[JPATH_MAX];
    return jc_fail(&L->c, jc_key_path(p, path, key), "missing: expected %s", what);
}

/* ---------------------------------------------------------------- grid, size, time */

static bool parse_grid(loader *L, const cJSON *root) {
    eddy_sim_def *d = &L->sc->def;
    const cJSON *dimv = jc_member(root, "dim");
    const cJSON *grid = jc_member(root, "grid");
    int dim = 0;
    if (dimv && !jc_int(&L->c, root, "", "dim", JR(2, 3, ""), &dim)) return false;
    char got[96];
    if (grid) {
        if (!cJSON_IsArray(grid) || (cJSON_GetArraySize(grid) != 2 && cJSON_GetArraySize(grid) != 3))
            return jc_fail(&L->c, "grid", "expected an array of 2 or 3 cell counts, got %s", jc_describe(grid, got, sizeof got));
        int n = cJSON_GetArraySize(grid);
        if (dim && n != dim)
            return jc_fail(&L->c, "grid", "expected %d cell counts for dim %d, got %d", dim, dim, n);
        dim = n;
        int i = 0;
        for (const cJSON *e = grid->child; e; e = e->next, i++) {
            char p[JPATH_MAX];
            jc_index_path(p, "grid", i);
            if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < 3 || e->valuedouble > 1048576)
                return jc_fail(&L->c, p, "expected a whole number of cells in [3, 1048576], got %s", jc_describe(e, got, sizeof got));
            d->grid[i] = (int)e->valuedouble;
        }
    } else {
        if (!dim) dim = 2;
        for (int a = 0; a < 3; a++) d->grid[a] = dim == 3 ? 64 : (a < 2 ? 128 : 1);
    }
    if (dim == 2) d->grid[2] = 1;
    d->dim = L->dim = dim;

    /* size: the box's x extent, or every extent (cells must be square) */
    const cJSON *size = jc_member(root, "size");
    float ext[3] = {1, 0, 0};
    if (size) {
        if (cJSON_IsNumber(size)) {
            double x;
            if (!jc_number_value(&L->c, size, "size", JR_POS("m"), &x)) return false;
            ext[0] = (float)x;
        } else {
            if (!jc_vec_value(&L->c, size, "size", dim, JR_POS("m"), ext)) return false;
            float h = ext[0] / (float)d->grid[0];
            for (int a = 1; a < dim; a++) {
                float want = h * (float)d->grid[a];
                if (fabsf(ext[a] - want) > 1e-4f * want) {
                    char p[JPATH_MAX];
                    return jc_fail(&L->c, jc_index_path(p, "size", a),
                                   "%g m with grid[%d] = %d gives cells of %g m, but x has cells of %g m (cells must be "
                                   "square: expected %g, or give size as one number)",
                                   (double)ext[a], a, d->grid[a], (double)(ext[a] / (float)d->grid[a]), (double)h, (double)want);
                }
            }
        }
    }
    d->size[0] = ext[0];
    float h = ext[0] / (float)d->grid[0];
    for (int a = 1; a < 3; a++) d->size[a] = a < dim ? h * (float)d->grid[a] : 0.0f;
    if (!jc_vec(&L->c, root, "", "origin", dim, JR_ANY("m"), d->origin)) return false;
    for (int a = 0; a < 3; a++) {
        L->box_min[a] = d->origin[a];
        L->box_max[a] = d->origin[a] + (a < dim ? d->size[a] : 0.0f);
    }
    if (!jc_member(root, "dye_scale")) return true;
    const cJSON *ds = jc_member(root, "dye_scale");
    if (cJSON_IsNumber(ds)) {
        int r = 1;
        if (!jc_int(&L->c, root, "", "dye_scale", JR(1, 16, ""), &r)) return false;
        d->dye_scale[0] = d->dye_scale[1] = d->dye_scale[2] = r;
    } else {
        float r[3] = {1, 1, 1};
        if (!jc_vec_value(&L->c, ds, "dye_scale", dim, JR(1, 16, ""), r)) return false;
        for (int a = 0; a < dim; a++) {
            if (r[a] != floorf(r[a])) {
                char p[JPATH_MAX];
                return jc_fail(&L->c, jc_index_path(p, "dye_scale", a), "expected a whole number in [1, 16], got %g", (double)r[a]);
            }
            d->dye_scale[a] = (int)r[a];
        }
    }
    return true;
}

static bool check_memory(loader *L) {
    const eddy_sim_def *d = &L->sc->def;
    double cells = 1, scalars = 1;
    for (int a = 0; a < L->dim; a++) {
        cells *= d->grid[a];
        scalars *= (double)d->grid[a] * d->dye_scale[a];
    }
    /* per velocity cell: face velocities and their scratch (2*dim), solid velocity (3), pressure and the solver's
     * work vectors with the multigrid hierarchy (about 10); per scalar cell: dye, temperature, scratch and the
     * advection's intermediate copies (about 10). An estimate: it only has to catch grids that cannot fit. */
    double bytes = 4.0 * (cells * (2.0 * L->dim + 13.0) + scalars * 10.0);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double ram = (pages > 0 && page > 0) ? (double)pages * (double)page : 0;
    if (ram > 0 && bytes > 0.8 * ram) {
        char g[96];
        float gf[3] = {(float)d->grid[0], (float)d->grid[1], (float)d->grid[2]};
        return jc_fail(&L->c, "grid", "%s needs about %.1f GiB, more than this machine can give (%.1f GiB of memory)",
                       vec_text(gf, L->dim, g, sizeof g), bytes / 1073741824.0, ram / 1073741824.0);
    }
    return true;
}

static bool parse_time(loader *L, const cJSON *root) {
    eddy_sim_def *d = &L->sc->def;
    if (jc_member(root, "dt") && jc_member(root, "cfl"))
        return jc_fail(&L->c, "dt", "set either dt (a fixed step) or cfl (a step limited by the flow speed), not both");
    if (!jc_float(&L->c, root, "", "dt", ((jrange){0, 10, true, false, "s"}), &d->dt)) return false;
    if (!jc_float(&L->c, root, "", "cfl", ((jrange){0, 50, true, false, ""}), &d->cfl)) return false;
    if (!jc_float(&L->c, root, "", "max_dt", ((jrange){0, 10, true, false, "s"}), &d->max_dt)) return false;
    if (!jc_number(&L->c, root, "", "duration", ((jrange){0, 1e6, true, false, "s"}), &L->sc->duration)) return false;
    return jc_int(&L->c, root, "", "threads", JR(0, 1024, ""), &d->threads);
}

/* ---------------------------------------------------------------- physics */

/* "pressure": {"solver", "tolerance", "max_iterations", "omega"} of the object at `path` */
static bool parse_pressure(loader *L, const cJSON *parent, const char *path, eddy_pressure_def *out) {
    static const char *const solvers[] = {"mgpcg", "jacobi", "rbgs", NULL};
    const cJSON *pr = jc_member(parent, "pressure");
    if (!pr) return true;
    static const char *const keys[] = {"solver", "tolerance", "max_iterations", "omega", "warm_start", NULL};
    char p[JPATH_MAX], q[JPATH_MAX];
    jc_key_path(p, path, "pressure");
    int s = (int)out->solver;
    if (!jc_object(&L->c, pr, p, keys) || !jc_enum(&L->c, pr, p, "solver", solvers, &s) ||
        !jc_float(&L->c, pr, p, "tolerance", ((jrange){0, 1, true, true, ""}), &out->tolerance) ||
        !jc_int(&L->c, pr, p, "max_iterations", JR(0, 1000000, ""), &out->max_iterations) ||
        !jc_float(&L->c, pr, p, "omega", ((jrange){0, 2, false, true, ""}), &out->omega))
        return false;
    bool warm = out->warm_start != 0;
    if (!jc_bool(&L->c, pr, p, "warm_start", &warm)) return false;
    out->warm_start = warm;
    out->solver = (eddy_pressure_solver)s;
    if (jc_member(pr, "omega") && out->solver != EDDY_PRESSURE_RBGS)
        return jc_fail(&L->c, jc_key_path(q, p, "omega"),
                       "only used by solver \"rbgs\" (over-relaxation); remove it or set solver to \"rbgs\"");
    if (out->warm_start && out->solver != EDDY_PRESSURE_MGPCG)
        return jc_fail(&L->c, jc_key_path(q, p, "warm_start"),
                       "only used by solver \"mgpcg\" (its initial guess); remove it or set solver to \"mgpcg\"");
    return true;
}

static bool parse_physics(loader *L, const cJSON *root) {
    eddy_sim_def *d = &L->sc->def;
    static const char *const advections[] = {"maccormack", "semi_lagrangian", "bfecc", NULL};
    int e = (int)d->advection;
    if (!jc_float(&L->c, root, "", "viscosity", JR_NONNEG("m^2/s"), &d->viscosity) ||
        !jc_float(&L->c, root, "", "density", ((jrange){0, 1e9, true, false, "kg/m^3"}), &d->density) ||
        !jc_float(&L->c, root, "", "vorticity", JR(0, 1e3, ""), &d->vorticity) ||
        !jc_enum(&L->c, root, "", "advection", advections, &e))
        return false;
    d->advection = (eddy_advection)e;
    static const char *const backends[] = {"cpu", "cuda", NULL};
    int backend = (int)d->backend;
    if (!jc_enum(&L->c, root, "", "backend", backends, &backend)) return false;
    d->backend = (eddy_backend)backend;
    if (!parse_pressure(L, root, "", &d->pressure)) return false;
    const cJSON *dis = jc_member(root, "dissipation");
    if (dis) {
        static const char *const keys[] = {"velocity", "dye", "temperature", NULL};
        if (!jc_object(&L->c, dis, "dissipation", keys) ||
            !jc_float(&L->c, dis, "dissipation", "velocity", JR_NONNEG("1/s"), &d->velocity_dissipation) ||
            !jc_float(&L->c, dis, "dissipation", "dye", JR_NONNEG("1/s"), &d->dye_dissipation) ||
            !jc_float(&L->c, dis, "dissipation", "temperature", JR_NONNEG("1/s"), &d->temperature_dissipation))
            return false;
    }
    const cJSON *dif = jc_member(root, "diffusion");
    if (dif) {
        static const char *const keys[] = {"dye", "temperature", NULL};
        if (!jc_object(&L->c, dif, "diffusion", keys) ||
            !jc_float(&L->c, dif, "diffusion", "dye", JR_NONNEG("m^2/s"), &d->dye_diffusion) ||
            !jc_float(&L->c, dif, "diffusion", "temperature", JR_NONNEG("m^2/s"), &d->temperature_diffusion))
            return false;
    }
    const cJSON *b = jc_member(root, "buoyancy");
    if (b) {
        static const char *const keys[] = {"gravity", "density", "temperature", "ambient", NULL};
        if (!jc_object(&L->c, b, "buoyancy", keys) ||
            !jc_vec(&L->c, b, "buoyancy", "gravity", L->dim, JR(-1e4, 1e4, "m/s^2"), d->gravity) ||
            !jc_float(&L->c, b, "buoyancy", "density", JR(-1e6, 1e6, "m^3/kg per unit dye"), &d->buoyancy_density) ||
            !jc_float(&L->c, b, "buoyancy", "temperature", JR(-1e6, 1e6, "1/K"), &d->buoyancy_temperature) ||
            !jc_float(&L->c, b, "buoyancy", "ambient", JR(-1e6, 1e6, "K"), &d->ambient_temperature))
            return false;
    }
    return true;
}

/* ---------------------------------------------------------------- boundaries */

static bool parse_boundary(loader *L, const cJSON *root) {
    const cJSON *bo = jc_member(root, "boundary");
    if (!bo) return true;
    static const char *const keys[] = {"x-", "x+", "y-", "y+", "z-", "z+", NULL};
    static const char *const types[] = {"wall", "noslip", "moving", "periodic", "inflow", "outflow", NULL};
    static const char *const obj_keys[] = {"type", "velocity", "dye", "temperature", NULL};
    if (!jc_object(&L->c, bo, "boundary", keys)) return false;
    eddy_sim_def *d = &L->sc->def;
    for (int f = 0; f < 6; f++) {
        const cJSON *v = jc_member(bo, face_keys[f]);
        if (!v) continue;
        char p[JPATH_MAX], got[96];
        jc_key_path(p, "boundary", face_keys[f]);
        if (f >= 4 && L->dim == 2) return jc_fail(&L->c, p, "a 2D box has no z faces");
        eddy_boundary *b = &d->boundary[f];
        int t = 0;
        if (cJSON_IsString(v)) {
            bool found = false;
            for (int i = 0; types[i]; i++)
                if (!strcmp(types[i], v->valuestring)) t = i, found = true;
            if (!found)
                return jc_fail(&L->c, p, "expected one of \"wall\", \"noslip\", \"periodic\", \"outflow\", "
                                         "{\"type\": \"inflow\", \"velocity\": [...]}, {\"type\": \"moving\", \"velocity\": [...]}, got %s",
                               jc_describe(v, got, sizeof got));
            if (t == EDDY_BOUNDARY_INFLOW || t == EDDY_BOUNDARY_MOVING)
                return jc_fail(&L->c, p, "\"%s\" needs a velocity: {\"type\": \"%s\", \"velocity\": [%s]}", types[t], types[t],
                               L->dim == 3 ? "u, v, w" : "u, v");
        } else if (cJSON_IsObject(v)) {
            if (!jc_object(&L->c, v, p, obj_keys)) return false;
            if (!require(L, v, p, "type", "a boundary type (\"wall\", \"noslip\", \"moving\", \"periodic\", \"inflow\", \"outflow\")"))
                return false;
            if (!jc_enum(&L->c, v, p, "type", types, &t)) return false;
            bool needs_velocity = t == EDDY_BOUNDARY_INFLOW || t == EDDY_BOUNDARY_MOVING;
            if (needs_velocity && !require(L, v, p, "velocity", "a velocity [u, v(, w)] in m/s")) return false;
            if (!needs_velocity && jc_member(v, "velocity")) {
                char q[JPATH_MAX];
                return jc_fail(&L->c, jc_key_path(q, p, "velocity"), "only \"inflow\" and \"moving\" faces take a velocity");
            }
            if (t != EDDY_BOUNDARY_INFLOW && (jc_member(v, "dye") || jc_member(v, "temperature"))) {
                char q[JPATH_MAX];
                return jc_fail(&L->c, jc_key_path(q, p, jc_member(v, "dye") ? "dye" : "temperature"),
                               "only \"inflow\" faces carry dye and temperature in");
            }
            if (!jc_vec(&L->c, v, p, "velocity", L->dim, JR(-1e4, 1e4, "m/s"), b->velocity) ||
                !jc_vec(&L->c, v, p, "dye", 3, JR(0, 1e6, ""), b->dye) ||
                !jc_float(&L->c, v, p, "temperature", JR(-1e6, 1e6, "K"), &b->temperature))
                return false;
        } else {
            return jc_fail(&L->c, p, "expected a boundary type string or an object {\"type\": ...}, got %s", jc_describe(v, got, sizeof got));
        }
        /* the enum order of `types` is the eddy_boundary_type order */
        b->type = (eddy_boundary_type)t;
    }
    for (int f = 0; f < 2 * L->dim; f += 2) {
        bool lo = d->boundary[f].type == EDDY_BOUNDARY_PERIODIC, hi = d->boundary[f + 1].type == EDDY_BOUNDARY_PERIODIC;
        if (lo != hi) {
            int pf = lo ? f : f + 1, other = lo ? f + 1 : f;
            char p[JPATH_MAX];
            return jc_fail(&L->c, jc_key_path(p, "boundary", face_keys[pf]),
                           "periodic on %s only: boundary.%s must be \"periodic\" too (an axis is periodic on both faces or neither)",
                           face_keys[pf], face_keys[other]);
        }
    }
    return true;
}

/* ---------------------------------------------------------------- paths */

/* a path; `default_plane` (0 xy, 1 xz, 2 yz) is the plane of a circle or figure-eight that names none */
static bool parse_path_in(loader *L, const cJSON *v, const char *path, int default_plane, scene_path *out) {
    static const char *const keys[] = {"type", "center", "radius", "size", "plane", "period", "phase", "keys", "loop", NULL};
    static const char *const types[] = {"circle", "figure8", "keyframes", NULL};
    static const char *const planes[] = {"xy", "xz", "yz", NULL};
    if (!jc_object(&L->c, v, path, keys)) return false;
    if (!require(L, v, path, "type", "\"circle\", \"figure8\" or \"keyframes\"")) return false;
    int t = 0;
    if (!jc_enum(&L->c, v, path, "type", types, &t)) return false;
    memset(out, 0, sizeof *out);
    out->type = (scene_path_type)(t + 1);
    out->plane[0] = 0;
    out->plane[1] = 1;
    out->period = 4.0;
    char p[JPATH_MAX];
    int pl = default_plane;
    if (!jc_enum(&L->c, v, path, "plane", planes, &pl)) return false;
    if (pl && L->dim == 2) return jc_fail(&L->c, jc_key_path(p, path, "plane"), "a 2D path moves in the \"xy\" plane only");
    static const int plane_axes[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    out->plane[0] = plane_axes[pl][0];
    out->plane[1] = plane_axes[pl][1];
    if (out->type == SCENE_PATH_KEYFRAMES) {
        for (const char *const *k = (const char *const[]){"center", "radius", "size", "plane", "period", "phase", NULL}; *k; k++)
            if (jc_member(v, *k)) return jc_fail(&L->c, jc_key_path(p, path, *k), "not used by a \"keyframes\" path (it takes keys and loop)");
        if (!require(L, v, path, "keys", "an array of {\"time\": s, \"position\": [...]}")) return false;
        const cJSON *keysv = jc_member(v, "keys");
        char kp[JPATH_MAX], got[96];
        jc_key_path(kp, path, "keys");
        if (!cJSON_IsArray(keysv) || cJSON_GetArraySize(keysv) < 1 || cJSON_GetArraySize(keysv) > 100000)
            return jc_fail(&L->c, kp, "expected an array of 1 to 100000 keyframes, got %s", jc_describe(keysv, got, sizeof got));
        int n = cJSON_GetArraySize(keysv);
        out->keys = (scene_keyframe *)calloc((size_t)n, sizeof *out->keys);
        if (!out->keys) return jc_fail(&L->c, kp, "out of memory");
        out->key_count = n;
        int i = 0;
        for (const cJSON *e = keysv->child; e; e = e->next, i++) {
            static const char *const kkeys[] = {"time", "position", NULL};
            char ep[JPATH_MAX];
            jc_index_path(ep, kp, i);
            if (!jc_object(&L->c, e, ep, kkeys) || !require(L, e, ep, "time", "a time in seconds") ||
                !jc_number(&L->c, e, ep, "time", JR(0, 1e6, "s"), &out->keys[i].time) ||
                !position_in_box(L, e, ep, "position", true, out->keys[i].position))
                return false;
            if (i > 0 && !(out->keys[i].time > out->keys[i - 1].time)) {
                char tp[JPATH_MAX];
                return jc_fail(&L->c, jc_key_path(tp, ep, "time"), "%g s: keyframe times must increase (previous %g s)",
                               out->keys[i].time, out->keys[i - 1].time);
            }
        }
        if (!jc_bool(&L->c, v, path, "loop", &out->loop)) return false;
        if (out->loop && n < 2) return jc_fail(&L->c, jc_key_path(p, path, "loop"), "a looping path needs at least 2 keyframes");
        return true;
    }
    if (jc_member(v, "keys") || jc_member(v, "loop"))
        return jc_fail(&L->c, jc_key_path(p, path, jc_member(v, "keys") ? "keys" : "loop"), "only used by a \"keyframes\" path");
    if (!require(L, v, path, "center", "the centre of the path [x, y(, z)] in metres") ||
        !position_in_box(L, v, path, "center", true, out->center) ||
        !jc_number(&L->c, v, path, "period", ((jrange){0, 1e6, true, false, "s"}), &out->period) ||
        !jc_number(&L->c, v, path, "phase", JR(0, 1, "turns"), &out->phase))
        return false;
    if (out->type == SCENE_PATH_CIRCLE) {
        if (jc_member(v, "size")) return jc_fail(&L->c, jc_key_path(p, path, "size"), "a circle takes a radius, not a size");
        if (!require(L, v, path, "radius", "a radius in metres") ||
            !jc_float(&L->c, v, path, "radius", JR_POS("m"), &out->radius))
            return false;
    } else {
        if (jc_member(v, "radius")) return jc_fail(&L->c, jc_key_path(p, path, "radius"), "a figure8 takes a size [half width, half height], not a radius");
        if (!require(L, v, path, "size", "[half width, half height] in metres") ||
            !jc_vec(&L->c, v, path, "size", 2, JR_POS("m"), out->extent))
            return false;
    }
    return true;
}

static bool parse_path(loader *L, const cJSON *v, const char *path, scene_path *out) {
    return parse_path_in(L, v, path, 0, out);
}

/* ---------------------------------------------------------------- obstacles and emitters */

static bool parse_shape(loader *L, const cJSON *v, const char *path, bool capsule_ok, eddy_shape *shape, float *radius,
                        float half_size[3], float axis[3]) {
    static const char *const shapes[] = {"circle", "sphere", "box", "capsule", NULL};
    int s = 0;
    char p[JPATH_MAX];
    if (!require(L, v, path, "shape", capsule_ok ? "\"circle\", \"sphere\", \"box\" or \"capsule\"" : "\"circle\", \"sphere\" or \"box\"") ||
        !jc_enum(&L->c, v, path, "shape", shapes, &s))
        return false;
    if (s == 3 && !capsule_ok) return jc_fail(&L->c, jc_key_path(p, path, "shape"), "expected \"circle\", \"sphere\" or \"box\", got \"capsule\"");
    *shape = s <= 1 ? EDDY_SHAPE_SPHERE : (s == 2 ? EDDY_SHAPE_BOX : EDDY_SHAPE_CAPSULE);
    if (*shape == EDDY_SHAPE_BOX) {
        if (jc_member(v, "radius")) return jc_fail(&L->c, jc_key_path(p, path, "radius"), "a box takes half_size, not a radius");
        if (!require(L, v, path, "half_size", "half sizes [hx, hy(, hz)] in metres") ||
            !jc_vec(&L->c, v, path, "half_size", L->dim, JR_POS("m"), half_size))
            return false;
    } else {
        if (jc_member(v, "half_size")) return jc_fail(&L->c, jc_key_path(p, path, "half_size"), "only a box takes half_size");
        if (!require(L, v, path, "radius", "a radius in metres") || !jc_float(&L->c, v, path, "radius", JR_POS("m"), radius))
            return false;
    }
    if (axis) {
        if (*shape == EDDY_SHAPE_CAPSULE) {
            if (!require(L, v, path, "axis", "the half segment [ax, ay(, az)] in metres: the capsule spans center +- axis") ||
                !jc_vec(&L->c, v, path, "axis", L->dim, JR_ANY("m"), axis))
                return false;
        } else if (jc_member(v, "axis")) {
            return jc_fail(&L->c, jc_key_path(p, path, "axis"), "only a capsule takes an axis");
        }
    }
    return true;
}

static bool parse_obstacles(loader *L, const cJSON *root) {
    const cJSON *arr = jc_member(root, "obstacles");
    if (!arr) return true;
    char got[96];
    if (!cJSON_IsArray(arr)) return jc_fail(&L->c, "obstacles", "expected an array of obstacles, got %s", jc_describe(arr, got, sizeof got));
    int n = cJSON_GetArraySize(arr);
    if (n > 4096) return jc_fail(&L->c, "obstacles", "expected at most 4096 obstacles, got %d", n);
    L->sc->obstacles = (scene_obstacle *)calloc((size_t)n + 1, sizeof(scene_obstacle));
    if (!L->sc->obstacles) return jc_fail(&L->c, "obstacles", "out of memory");
    static const char *const keys[] = {"shape", "center", "radius", "half_size", "axis", "velocity", "path", NULL};
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        char p[JPATH_MAX];
        jc_index_path(p, "obstacles", i);
        scene_obstacle *o = &L->sc->obstacles[i];
        L->sc->obstacle_count = i + 1;
        if (!jc_object(&L->c, e, p, keys) ||
            !parse_shape(L, e, p, true, &o->def.shape, &o->def.radius, o->def.half_size, o->def.axis))
            return false;
        if (jc_member(e, "path")) {
            char q[JPATH_MAX];
            if (jc_member(e, "center")) return jc_fail(&L->c, jc_key_path(q, p, "center"), "an obstacle on a path takes its position from the path; remove center");
            if (jc_member(e, "velocity")) return jc_fail(&L->c, jc_key_path(q, p, "velocity"), "an obstacle on a path takes its velocity from the path; remove velocity");
            if (!parse_path(L, jc_member(e, "path"), jc_key_path(q, p, "path"), &o->path)) return false;
            float vel[3];
            scene_path_eval(&o->path, 0.0, L->dim, o->def.center, vel);
            continue;
        }
        if (!position_in_box(L, e, p, "center", true, o->def.center) ||
            !jc_vec(&L->c, e, p, "velocity", L->dim, JR(-1e4, 1e4, "m/s"), o->def.velocity))
            return false;
        o->moving = o->def.velocity[0] != 0 || o->def.velocity[1] != 0 || o->def.velocity[2] != 0;
    }
    return true;
}

static bool parse_emitters(loader *L, const cJSON *root) {
    const cJSON *arr = jc_member(root, "emitters");
    if (!arr) return true;
    char got[96];
    if (!cJSON_IsArray(arr)) return jc_fail(&L->c, "emitters", "expected an array of emitters, got %s", jc_describe(arr, got, sizeof got));
    int n = cJSON_GetArraySize(arr);
    if (n > 4096) return jc_fail(&L->c, "emitters", "expected at most 4096 emitters, got %d", n);
    L->sc->emitters = (scene_emitter *)calloc((size_t)n + 1, sizeof(scene_emitter));
    if (!L->sc->emitters) return jc_fail(&L->c, "emitters", "out of memory");
    static const char *const keys[] = {"shape", "center", "radius", "half_size", "dye", "temperature", "velocity", "path", NULL};
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, i++) {
        char p[JPATH_MAX];
        jc_index_path(p, "emitters", i);
        scene_emitter *m = &L->sc->emitters[i];
        L->sc->emitter_count = i + 1;
        if (!jc_object(&L->c, e, p, keys) ||
            !parse_shape(L, e, p, false, &m->def.shape, &m->def.radius, m->def.half_size, NULL) ||
            !jc_vec(&L->c, e, p, "dye", 3, JR(0, 1e6, "per second"), m->def.dye) ||
            !jc_float(&L->c, e, p, "temperature", JR(-1e6, 1e6, "K/s"), &m->def.temperature) ||
            !jc_vec(&L->c, e, p, "velocity", L->dim, JR(-1e4, 1e4, "m/s"), m->def.velocity))
            return false;
        m->def.set_velocity = jc_member(e, "velocity") != NULL;
        if (jc_member(e, "path")) {
            char q[JPATH_MAX];
            if (jc_member(e, "center")) return jc_fail(&L->c, jc_key_path(q, p, "center"), "an emitter on a path takes its position from the path; remove center");
            if (!parse_path(L, jc_member(e, "path"), jc_key_path(q, p, "path"), &m->path)) return false;
            float vel[3];
            scene_path_eval(&m->path, 0.0, L->dim, m->def.center, vel);
        } else if (!position_in_box(L, e, p, "center", true, m->def.center)) {
            return false;
        }
    }
    return true;
}

/* ---------------------------------------------------------------- splats */

static int splat_time_cmp(const void *a, const void *b) {
    const scene_splat *x = (const scene_splat *)a, *y = (const scene_splat *)b;
    if (x->time != y->time) return (x->time > y->time) - (x->time < y->time);
    return (x->index > y->index) - (x->index < y->index);
}

static bool parse_splats(loader *L, const cJSON *root) {
    float default_radius = 0.03f * L->sc->def.size[0];
    const cJSON *arr = jc_member(root, "splats");
    char got[96];
    if (arr) {
        if (!cJSON_IsArray(arr)) return jc_fail(&L->c, "splats", "expected an array of splats, got %s", jc_describe(arr, got, sizeof got));
        int n = cJSON_GetArraySize(arr);
        if (n > 1000000) return jc_fail(&L->c, "splats", "expected at most 1000000 splats, got %d", n);
        L->sc->splats = (scene_splat *)calloc((size_t)n + 1, sizeof(scene_splat));
        if (!L->sc->splats) return jc_fail(&L->c, "splats", "out of memory");
        static const char *const keys[] = {"time", "position", "radius", "velocity", "dye", "temperature", NULL};
        int i = 0;
        for (const cJSON *e = arr->child; e; e = e->next, i++) {
            char p[JPATH_MAX];
            jc_index_path(p, "splats", i);
            scene_splat *s = &L->sc->splats[i];
            L->sc->splat_count = i + 1;
            s->splat.radius = default_radius;
            if (!jc_object(&L->c, e, p, keys) || !jc_number(&L->c, e, p, "time", JR(0, 1e6, "s"), &s->time) ||
                !position_in_box(L, e, p, "position", true, s->splat.position) ||
                !jc_float(&L->c, e, p, "radius", JR_POS("m"), &s->splat.radius) ||
                !jc_vec(&L->c, e, p, "velocity", L->dim, JR(-1e4, 1e4, "m/s"), s->splat.velocity) ||
                !jc_vec(&L->c, e, p, "dye", 3, JR(0, 1e6, ""), s->splat.dye) ||
                !jc_float(&L->c, e, p, "temperature", JR(-1e6, 1e6, "K"), &s->splat.temperature))
                return false;
        }
        /* stable order for equal times: the index breaks ties (qsort is not stable) */
        for (int k = 0; k < L->sc->splat_count; k++) L->sc->splats[k].index = k;
        qsort(L->sc->splats, (size_t)L->sc->splat_count, sizeof(scene_splat), splat_time_cmp);
    }
    scene_random_splats *r = &L->sc->random_splats;
    r->rate = 0;
    r->seed = 1;
    r->radius = default_radius;
    r->speed = 0.5f * L->sc->def.size[0];
    r->intensity = 1.0f;
    const cJSON *rs = jc_member(root, "random_splats");
    if (rs) {
        static const char *const keys[] = {"count", "rate", "start", "seed", "radius", "speed", "intensity", NULL};
        double seed = 1;
        r->count = 10;
        if (!jc_object(&L->c, rs, "random_splats", keys) ||
            !jc_int(&L->c, rs, "random_splats", "count", JR(0, 1000000, ""), &r->count) ||
            !jc_number(&L->c, rs, "random_splats", "rate", JR(0, 1e6, "per second"), &r->rate) ||
            !jc_number(&L->c, rs, "random_splats", "start", JR(0, 1e6, "s"), &r->start) ||
            !jc_number(&L->c, rs, "random_splats", "seed", JR(0, 9007199254740992.0, ""), &seed) ||
            !jc_float(&L->c, rs, "random_splats", "radius", JR_POS("m"), &r->radius) ||
            !jc_float(&L->c, rs, "random_splats", "speed", JR(0, 1e4, "m/s"), &r->speed) ||
            !jc_float(&L->c, rs, "random_splats", "intensity", JR(0, 1e6, ""), &r->intensity))
            return false;
        if (seed != floor(seed)) return jc_fail(&L->c, "random_splats.seed", "expected a whole number, got %g", seed);
        r->seed = (unsigned long long)seed;
    }
    const cJSON *sp = jc_member(root, "splat_paths");
    if (sp) {
        if (!cJSON_IsArray(sp)) return jc_fail(&L->c, "splat_paths", "expected an array, got %s", jc_describe(sp, got, sizeof got));
        int n = cJSON_GetArraySize(sp);
        if (n > 4096) return jc_fail(&L->c, "splat_paths", "expected at most 4096 paths, got %d", n);
        L->sc->splat_paths = (scene_splat_path *)calloc((size_t)n + 1, sizeof(scene_splat_path));
        if (!L->sc->splat_paths) return jc_fail(&L->c, "splat_paths", "out of memory");
        static const char *const keys[] = {"path", "radius", "force", "dye", "temperature", "start", "end", NULL};
        int i = 0;
        for (const cJSON *e = sp->child; e; e = e->next, i++) {
            char p[JPATH_MAX], q[JPATH_MAX];
            jc_index_path(p, "splat_paths", i);
            scene_splat_path *s = &L->sc->splat_paths[i];
            L->sc->splat_path_count = i + 1;
            s->radius = default_radius;
            s->force = 0;
            if (!jc_object(&L->c, e, p, keys) || !require(L, e, p, "path", "a path object {\"type\": \"circle\", ...}") ||
                !parse_path(L, jc_member(e, "path"), jc_key_path(q, p, "path"), &s->path) ||
                !jc_float(&L->c, e, p, "radius", JR_POS("m"), &s->radius) ||
                !jc_float(&L->c, e, p, "force", JR(-1e6, 1e6, "m/s^2"), &s->force) ||
                !jc_vec(&L->c, e, p, "dye", 3, JR(0, 1e6, "per second"), s->dye) ||
                !jc_float(&L->c, e, p, "temperature", JR(-1e6, 1e6, "K/s"), &s->temperature) ||
                !jc_number(&L->c, e, p, "start", JR(0, 1e6, "s"), &s->start) ||
                !jc_number(&L->c, e, p, "end", JR(0, 1e6, "s"), &s->end))
                return false;
            if (s->end != 0 && s->end <= s->start)
                return jc_fail(&L->c, jc_key_path(q, p, "end"), "%g s: must be after start (%g s), or 0 for no end", s->end, s->start);
        }
    }
    return true;
}

/* ---------------------------------------------------------------- initial state, probes */

static char *resolve_path(const char *base_dir, const char *file) {
    size_t n = strlen(file) + (base_dir ? strlen(base_dir) : 0) + 2;
    char *out = (char *)malloc(n);
    if (!out) return NULL;
    if (file[0] == '/' || !base_dir || !*base_dir || !strcmp(base_dir, "."))
        snprintf(out, n, "%s", file);
    else
        snprintf(out, n, "%s/%s", base_dir, file);
    return out;
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static bool parse_file_key(loader *L, const cJSON *obj, const char *path, const char *key, bool png_ok, char **out) {
    char *name = NULL;
    char p[JPATH_MAX];
    jc_key_path(p, path, key);
    if (!jc_string(&L->c, obj, path, key, &name)) return false;
    if (!name) return true;
    if (!ends_with(name, ".npy") && !(png_ok && ends_with(name, ".png"))) {
        bool r = jc_fail(&L->c, p, "expected a %s file name, got \"%s\"", png_ok ? ".npy or .png" : ".npy", name);
        free(name);
        return r;
    }
    char *full = resolve_path(L->sc->base_dir, name);
    free(name);
    if (!full) return jc_fail(&L->c, p, "out of memory");
    if (L->opt->check_files && access(full, R_OK) != 0) {
        bool r = jc_fail(&L->c, p, "file \"%s\" cannot be read (missing file?)", full);
        free(full);
        return r;
    }
    free(*out);
    *out = full;
    return true;
}

static bool parse_initial(loader *L, const cJSON *root) {
    scene_initial *in = &L->sc->initial;
    in->amplitude = 1.0f;
    const cJSON *v = jc_member(root, "initial");
    if (!v) return true;
    static const char *const keys[] = {"flow", "amplitude", "u", "v", "w", "pressure", "dye", "temperature", NULL};
    static const char *const flows[] = {"none", "taylor_green", "shear_layer", NULL};
    int f = 0;
    if (!jc_object(&L->c, v, "initial", keys) || !jc_enum(&L->c, v, "initial", "flow", flows, &f) ||
        !jc_float(&L->c, v, "initial", "amplitude", JR(-1e4, 1e4, "m/s"), &in->amplitude))
        return false;
    in->flow = (scene_flow)f;
    if (jc_member(v, "w") && L->dim == 2) return jc_fail(&L->c, "initial.w", "a 2D scene has no w velocity");
    if (in->flow != SCENE_FLOW_NONE && (jc_member(v, "u") || jc_member(v, "v") || jc_member(v, "w")))
        return jc_fail(&L->c, "initial.flow", "\"%s\" sets the velocity: leave out initial.u, initial.v and initial.w or the flow", flows[f]);
    if (!parse_file_key(L, v, "initial", "u", false, &in->u) || !parse_file_key(L, v, "initial", "v", false, &in->v) ||
        !parse_file_key(L, v, "initial", "w", false, &in->w) ||
        !parse_file_key(L, v, "initial", "pressure", false, &in->pressure) ||
        !parse_file_key(L, v, "initial", "temperature", false, &in->temperature) ||
        !parse_file_key(L, v, "initial", "dye", true, &in->dye))
        return false;
    if (in->dye && ends_with(in->dye, ".png") && L->dim == 3)
        return jc_fail(&L->c, "initial.dye", "dye from a PNG picture needs a 2D scene; give a .npy file in 3D");
    return true;
}

static bool parse_probes(loader *L, const cJSON *root) {
    const cJSON *v = jc_member(root, "probes");
    if (!v) return true;
    char got[96];
    if (!cJSON_IsObject(v))
        return jc_fail(&L->c, "probes", "expected an object of name: [x, y(, z)], got %s", jc_describe(v, got, sizeof got));
    int n = cJSON_GetArraySize(v);
    if (n > 4096) return jc_fail(&L->c, "probes", "expected at most 4096 probes, got %d", n);
    L->sc->probes = (scene_probe *)calloc((size_t)n + 1, sizeof(scene_probe));
    if (!L->sc->probes) return jc_fail(&L->c, "probes", "out of memory");
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        char p[JPATH_MAX];
        const char *name = e->string ? e->string : "";
        jc_key_path(p, "probes", name);
        if (!*name || strlen(name) > 64) return jc_fail(&L->c, p, "a probe name must have 1 to 64 characters");
        for (const char *q = name; *q; q++)
            if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_' || *q == '-'))
                return jc_fail(&L->c, p, "a probe name may use letters, digits, '_' and '-' only");
        for (const cJSON *o = v->child; o != e; o = o->next)
            if (!strcmp(o->string, name)) return jc_fail(&L->c, p, "key given twice");
        scene_probe *pr = &L->sc->probes[i];
        L->sc->probe_count = i + 1;
        pr->name = strdup(name);
        if (!pr->name) return jc_fail(&L->c, p, "out of memory");
        char box[160], at[96];
        if (!jc_vec_value(&L->c, e, p, L->dim, JR_ANY("m"), pr->position)) return false;
        if (!inside_box(L, pr->position))
            return jc_fail(&L->c, p, "%s is outside the box %s", vec_text(pr->position, L->dim, at, sizeof at), box_text(L, box, sizeof box));
    }
    return true;
}

/* ---------------------------------------------------------------- render and output */

/* "key": true | false | {options}: *on is set, and the options object (or NULL) returned through *obj. */
static bool toggle(loader *L, const cJSON *parent, const char *path, const char *key, int *on, const cJSON **obj) {
    const cJSON *v = jc_member(parent, key);
    *obj = NULL;
    if (!v) return true;
    char p[JPATH_MAX], got[96];
    if (cJSON_IsBool(v)) {
        *on = cJSON_IsTrue(v);
        return true;
    }
    if (cJSON_IsObject(v)) {
        *on = 1;
        *obj = v;
        return true;
    }
    return jc_fail(&L->c, jc_key_path(p, path, key), "expected true, false or an object of options, got %s", jc_describe(v, got, sizeof got));
}

static bool parse_name(loader *L, const cJSON *obj, const char *path, const char *key, int kind, int *out) {
    const cJSON *v = jc_member(obj, key);
    if (!v) return true;
    char p[JPATH_MAX], got[96], list[256] = "";
    jc_key_path(p, path, key);
    eddy_status st = EDDY_ERR_INVALID_ARGUMENT;
    if (cJSON_IsString(v)) {
        if (kind == 0) { eddy_view x; st = eddy_view_from_name(v->valuestring, &x); if (st == EDDY_OK) *out = (int)x; }
        if (kind == 1) { eddy_colormap x; st = eddy_colormap_from_name(v->valuestring, &x); if (st == EDDY_OK) *out = (int)x; }
        if (kind == 2) { eddy_tonemap x; st = eddy_tonemap_from_name(v->valuestring, &x); if (st == EDDY_OK) *out = (int)x; }
    }
    if (st == EDDY_OK) return true;
    int count = kind == 0 ? EDDY_VIEW_COUNT : kind == 1 ? EDDY_COLORMAP_COUNT : 3;
    size_t used = 0;
    for (int i = 0; i < count && used + 2 < sizeof list; i++) {
        const char *n = kind == 0 ? eddy_view_name((eddy_view)i) : kind == 1 ? eddy_colormap_name((eddy_colormap)i)
                                                                              : eddy_tonemap_name((eddy_tonemap)i);
        int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", n);
        if (w < 0) break;
        used += (size_t)w;
    }
    return jc_fail(&L->c, p, "expected one of %s, got %s", list, jc_describe(v, got, sizeof got));
}

static bool parse_render(loader *L, const cJSON *root) {
    scene_render *r = &L->sc->render;
    r->picture = eddy_render_def_default();
    r->vol = eddy_volume_def_default();
    r->scale = 1;
    r->volume = L->dim == 3;
    const cJSON *v = jc_member(root, "render");
    if (!v) return true;
    static const char *const keys[] = {"view", "width", "height", "scale", "slice", "exposure", "tonemap", "background",
                                       "transparent", "shading", "bloom", "edges", "colormap", "range", "colorbar",
                                       "obstacles", "obstacle_color", "volume", "liquid_color", NULL};
    eddy_render_def *d = &r->picture;
    int view = (int)d->view, cmap = (int)d->colormap, tm = (int)d->tonemap;
    if (!jc_object(&L->c, v, "render", keys) || !parse_name(L, v, "render", "view", 0, &view) ||
        !parse_name(L, v, "render", "colormap", 1, &cmap) || !parse_name(L, v, "render", "tonemap", 2, &tm) ||
        !jc_int(&L->c, v, "render", "width", JR(0, 16384, "pixels"), &d->width) ||
        !jc_int(&L->c, v, "render", "height", JR(0, 16384, "pixels"), &d->height) ||
        !jc_int(&L->c, v, "render", "scale", JR(1, 64, "pixels per cell"), &r->scale) ||
        !jc_float(&L->c, v, "render", "exposure", JR(0, 1e6, ""), &d->exposure) ||
        !jc_vec(&L->c, v, "render", "background", 3, JR(0, 1e3, "linear RGB"), d->background) ||
        !jc_vec(&L->c, v, "render", "liquid_color", 3, JR(0, 1e3, "linear RGB"), d->liquid_color))
        return false;
    d->view = (eddy_view)view;
    d->colormap = (eddy_colormap)cmap;
    d->tonemap = (eddy_tonemap)tm;
    if (d->view == EDDY_VIEW_W && L->dim == 2) return jc_fail(&L->c, "render.view", "\"w\" needs a 3D scene");
    if (d->view == EDDY_VIEW_LIQUID && L->dim == 3)
        return jc_fail(&L->c, "render.view", "\"liquid\" is a 2D view; a 3D scene writes its surface as meshes (surface.meshes)");
    if ((jc_member(v, "width") || jc_member(v, "height")) && jc_member(v, "scale"))
        return jc_fail(&L->c, "render.scale", "give either scale (pixels per cell) or width/height, not both");
    bool b = false;
    if (!jc_bool(&L->c, v, "render", "transparent", &b)) return false;
    d->transparent = b;
    b = d->colorbar;
    if (!jc_bool(&L->c, v, "render", "colorbar", &b)) return false;
    d->colorbar = b;
    b = d->draw_obstacles;
    if (!jc_bool(&L->c, v, "render", "obstacles", &b)) return false;
    d->draw_obstacles = b;
    float oc[4] = {d->obstacle_color[0], d->obstacle_color[1], d->obstacle_color[2], d->obstacle_color[3]};
    if (!jc_vec(&L->c, v, "render", "obstacle_color", 4, JR(0, 255, "sRGB bytes"), oc)) return false;
    for (int i = 0; i < 4; i++) d->obstacle_color[i] = (uint8_t)lrintf(oc[i]);
    float range[2] = {d->range_min, d->range_max};
    if (!jc_vec(&L->c, v, "render", "range", 2, JR_ANY("(the view's unit)"), range)) return false;
    if (jc_member(v, "range") && !(range[1] > range[0]))
        return jc_fail(&L->c, "render.range", "[%g, %g]: the maximum must be above the minimum", (double)range[0], (double)range[1]);
    d->range_min = range[0];
    d->range_max = range[1];
    const cJSON *o;
    if (!toggle(L, v, "render", "shading", &d->shading, &o)) return false;
    if (o) {
        static const char *const k[] = {"bump", "ambient", "diffuse", "specular", "shininess", "light", NULL};
        if (!jc_object(&L->c, o, "render.shading", k) || !jc_float(&L->c, o, "render.shading", "bump", JR(0, 1e3, "pixels"), &d->bump_scale) ||
            !jc_float(&L->c, o, "render.shading", "ambient", JR(0, 10, ""), &d->ambient) ||
            !jc_float(&L->c, o, "render.shading", "diffuse", JR(0, 10, ""), &d->diffuse) ||
            !jc_float(&L->c, o, "render.shading", "specular", JR(0, 10, ""), &d->specular) ||
            !jc_float(&L->c, o, "render.shading", "shininess", JR(1, 1e4, ""), &d->shininess) ||
            !jc_vec(&L->c, o, "render.shading", "light", 3, JR(-1e3, 1e3, ""), d->light_dir))
            return false;
    }
    if (!toggle(L, v, "render", "bloom", &d->bloom, &o)) return false;
    if (o) {
        static const char *const k[] = {"threshold", "soft_knee", "intensity", "levels", NULL};
        if (!jc_object(&L->c, o, "render.bloom", k) || !jc_float(&L->c, o, "render.bloom", "threshold", JR(0, 1e3, ""), &d->bloom_threshold) ||
            !jc_float(&L->c, o, "render.bloom", "soft_knee", JR(0, 1, ""), &d->bloom_soft_knee) ||
            !jc_float(&L->c, o, "render.bloom", "intensity", JR(0, 1e3, ""), &d->bloom_intensity) ||
            !jc_int(&L->c, o, "render.bloom", "levels", JR(1, 12, ""), &d->bloom_levels))
            return false;
    }
    if (!toggle(L, v, "render", "edges", &d->edges, &o)) return false;
    if (o) {
        static const char *const k[] = {"strength", "color", NULL};
        if (!jc_object(&L->c, o, "render.edges", k) || !jc_float(&L->c, o, "render.edges", "strength", JR(0, 1e3, ""), &d->edge_strength) ||
            !jc_vec(&L->c, o, "render.edges", "color", 3, JR(0, 1e3, "linear RGB"), d->edge_color))
            return false;
    }
    const cJSON *sl = jc_member(v, "slice");
    if (sl) {
        static const char *const k[] = {"axis", "position", NULL};
        static const char *const axes[] = {"x", "y", "z", NULL};
        if (L->dim == 2) return jc_fail(&L->c, "render.slice", "a 2D scene is drawn whole; slices are for 3D scenes");
        int axis = d->slice_axis;
        if (!jc_object(&L->c, sl, "render.slice", k) || !jc_enum(&L->c, sl, "render.slice", "axis", axes, &axis) ||
            !jc_float(&L->c, sl, "render.slice", "position", JR(L->box_min[axis], L->box_max[axis], "m"), &d->slice_position))
            return false;
        d->slice_axis = axis;
        r->volume = false;
    }
    const cJSON *vo = jc_member(v, "volume");
    if (vo) {
        static const char *const k[] = {"width", "height", "camera", "density", "step", "light", "ambient", "shadows", NULL};
        if (L->dim == 2) return jc_fail(&L->c, "render.volume", "volume rendering is for 3D scenes");
        if (sl) return jc_fail(&L->c, "render.volume", "give either a slice or volume options, not both");
        eddy_volume_def *w = &r->vol;
        bool shadows = w->shadows;
        if (!jc_object(&L->c, vo, "render.volume", k) || !jc_int(&L->c, vo, "render.volume", "width", JR(1, 16384, "pixels"), &w->width) ||
            !jc_int(&L->c, vo, "render.volume", "height", JR(1, 16384, "pixels"), &w->height) ||
            !jc_float(&L->c, vo, "render.volume", "density", JR(0, 1e6, ""), &w->density_scale) ||
            !jc_float(&L->c, vo, "render.volume", "step", JR(SCENE_VOLUME_STEP_MIN, 4, "cells"), &w->step) ||
            !jc_float(&L->c, vo, "render.volume", "ambient", JR(0, 1e3, ""), &w->ambient) ||
            !jc_bool(&L->c, vo, "render.volume", "shadows", &shadows))
            return false;
        w->shadows = shadows;
        const cJSON *cam = jc_member(vo, "camera");
        if (cam) {
            static const char *const ck[] = {"position", "target", "up", "fov", NULL};
            if (!jc_object(&L->c, cam, "render.volume.camera", ck) ||
                !require(L, cam, "render.volume.camera", "position", "the camera position [x, y, z] in metres") ||
                !jc_vec(&L->c, cam, "render.volume.camera", "position", 3, JR_ANY("m"), w->camera.position) ||
                !jc_vec(&L->c, cam, "render.volume.camera", "target", 3, JR_ANY("m"), w->camera.target) ||
                !jc_vec(&L->c, cam, "render.volume.camera", "up", 3, JR_ANY(""), w->camera.up) ||
                !jc_float(&L->c, cam, "render.volume.camera", "fov", ((jrange){0, 180, true, true, "degrees"}), &w->camera.fov))
                return false;
            if (!jc_member(cam, "target"))
                for (int a = 0; a < 3; a++) w->camera.target[a] = 0.5f * (L->box_min[a] + L->box_max[a]);
        }
        const cJSON *li = jc_member(vo, "light");
        if (li) {
            static const char *const lk[] = {"direction", "color", "intensity", NULL};
            if (!jc_object(&L->c, li, "render.volume.light", lk) ||
                !jc_vec(&L->c, li, "render.volume.light", "direction", 3, JR(-1e3, 1e3, ""), w->light_dir) ||
                !jc_vec(&L->c, li, "render.volume.light", "color", 3, JR(0, 1e3, "linear RGB"), w->light_color) ||
                !jc_float(&L->c, li, "render.volume.light", "intensity", JR(0, 1e3, ""), &w->light_intensity))
                return false;
        }
    }
    /* the volume shares exposure, tonemap, background and transparency with the picture */
    if (jc_member(v, "exposure")) r->vol.exposure = d->exposure;
    if (jc_member(v, "tonemap")) r->vol.tonemap = d->tonemap;
    if (jc_member(v, "background")) memcpy(r->vol.background, d->background, sizeof d->background);
    if (jc_member(v, "transparent")) r->vol.transparent = d->transparent;
    if (jc_member(v, "obstacles")) r->vol.draw_obstacles = d->draw_obstacles;
    return true;
}

bool scene_fps_fits(const eddy_scene *sc, double fps, char *why, size_t why_size) {
    const eddy_sim_def *d = &sc->def;
    const double step = d->dt > 0 ? d->dt : d->max_dt;
    if (sc->wind || !(step > 0) || 1.0 / fps <= SCENE_MAX_STEPS_PER_FRAME * step) return true;
    snprintf(why, why_size, "%g: one frame of %g s would take more than %d steps of %s = %g s; expected fps >= %g", fps,
             1.0 / fps, SCENE_MAX_STEPS_PER_FRAME, d->dt > 0 ? "dt" : "max_dt", step,
             1.0 / (SCENE_MAX_STEPS_PER_FRAME * step));
    return false;
}

static bool parse_output(loader *L, const cJSON *root) {
    scene_output *o = &L->sc->output;
    o->fps = 30;
    o->png = true;
    o->video = SCENE_VIDEO_MP4;
    o->vdb = false;
    o->video_finish_seconds = eddy_video_def_default().finish_seconds;
    o->sheet_def = eddy_flipbook_def_default();
    o->sheet_def.frame_width = o->sheet_def.frame_height = 0; /* 0: 128 pixels on the picture's longer side */
    const cJSON *v = jc_member(root, "output");
    if (v) {
        static const char *const keys[] = {"dir", "fps", "png", "video", "video_finish_seconds", "sprite_sheet", "vdb",
                                           "dump", "checkpoint", NULL};
        static const char *const videos[] = {"none", "mp4", "gif", NULL};
        int vid = (int)o->video;
        if (!jc_object(&L->c, v, "output", keys) || !jc_string(&L->c, v, "output", "dir", &o->dir) ||
            !jc_number(&L->c, v, "output", "fps", ((jrange){0, 1000, true, false, "frames per second"}), &o->fps) ||
            !jc_bool(&L->c, v, "output", "png", &o->png) || !jc_enum(&L->c, v, "output", "video", videos, &vid) ||
            !jc_float(&L->c, v, "output", "video_finish_seconds", JR_NONNEG("s"), &o->video_finish_seconds) ||
            !jc_bool(&L->c, v, "output", "vdb", &o->vdb) ||
            !jc_int(&L->c, v, "output", "dump", JR(0, 1000000, "frames"), &o->dump) ||
            !jc_int(&L->c, v, "output", "checkpoint", JR(0, 1000000, "frames"), &o->checkpoint))
            return false;
        o->video = (scene_video)vid;
        if (o->dir && !*o->dir) return jc_fail(&L->c, "output.dir", "expected a folder name, got an empty string");
        const cJSON *sh;
        int on = 0;
        if (!toggle(L, v, "output", "sprite_sheet", &on, &sh)) return false;
        o->sheet = on;
        if (sh) {
            static const char *const k[] = {"columns", "rows", "frame_width", "frame_height", NULL};
            eddy_flipbook_def *f = &o->sheet_def;
            if (!jc_object(&L->c, sh, "output.sprite_sheet", k) ||
                !jc_int(&L->c, sh, "output.sprite_sheet", "columns", JR(1, 256, ""), &f->columns) ||
                !jc_int(&L->c, sh, "output.sprite_sheet", "rows", JR(1, 256, ""), &f->rows) ||
                !jc_int(&L->c, sh, "output.sprite_sheet", "frame_width", JR(1, 4096, "pixels"), &f->frame_width) ||
                !jc_int(&L->c, sh, "output.sprite_sheet", "frame_height", JR(1, 4096, "pixels"), &f->frame_height))
                return false;
        }
        if (o->vdb && L->dim == 2) return jc_fail(&L->c, "output.vdb", "OpenVDB volumes are written for 3D scenes only");
    }
    if (!o->dir) o->dir = strdup("out");
    if (!o->dir) return jc_fail(&L->c, "output.dir", "out of memory");
    o->sheet_def.fps = (float)o->fps;
    char why[256]; /* parse_time ran: dt and max_dt are known */
    if (!scene_fps_fits(L->sc, o->fps, why, sizeof why)) return jc_fail(&L->c, "output.fps", "%s", why);
    double frames = L->sc->duration * o->fps;
    if (frames > 10000000.0) return jc_fail(&L->c, "duration", "%g s at %g frames per second is more than 10 million frames", L->sc->duration, o->fps);
    return true;
}

/* ---------------------------------------------------------------- surfaces */

/* "surface": true | false | {"field", "level", "meshes", "format", "band"} */
static bool parse_surface(loader *L, const cJSON *root) {
    scene_surface *s = &L->sc->surface;
    s->field = SCENE_SURFACE_DYE;
    s->level = 0.5f;
    s->meshes = true;
    int on = 0;
    const cJSON *o;
    if (!toggle(L, root, "", "surface", &on, &o)) return false;
    s->on = on;
    if (o) {
        static const char *const keys[] = {"field", "level", "meshes", "format", "band", NULL};
        static const char *const fields[] = {"dye", "dye_r", "dye_g", "dye_b", "temperature", NULL};
        static const char *const formats[] = {"ply", "obj", NULL};
        int f = (int)s->field, fmt = 0;
        if (!jc_object(&L->c, o, "surface", keys) || !jc_enum(&L->c, o, "surface", "field", fields, &f) ||
            !jc_float(&L->c, o, "surface", "level", JR(-1e30, 1e30, "(the field's unit)"), &s->level) ||
            !jc_bool(&L->c, o, "surface", "meshes", &s->meshes) || !jc_enum(&L->c, o, "surface", "format", formats, &fmt) ||
            !jc_float(&L->c, o, "surface", "band", JR_NONNEG("m"), &s->band))
            return false;
        s->field = (scene_surface_field)f;
        s->obj = fmt == 1;
        if (jc_member(o, "format") && L->dim == 2)
            return jc_fail(&L->c, "surface.format", "2D surfaces are written as SVG polylines; format is for 3D meshes (\"ply\" or \"obj\")");
    }
    const int *ds = L->sc->def.dye_scale;
    if (s->on && (ds[1] != ds[0] || (L->dim == 3 && ds[2] != ds[0]))) {
        char got[64];
        if (L->dim == 3) snprintf(got, sizeof got, "[%d, %d, %d]", ds[0], ds[1], ds[2]);
        else snprintf(got, sizeof got, "[%d, %d]", ds[0], ds[1]);
        return jc_fail(&L->c, "surface", "needs square dye cells: dye_scale must be the same on every axis, got %s", got);
    }
    scene_render *r = &L->sc->render;
    if (r->picture.view == EDDY_VIEW_LIQUID) {
        if (s->field != SCENE_SURFACE_DYE)
            return jc_fail(&L->c, "surface.field", "the liquid view (render.view) shows the surface of the total dye: expected \"dye\" "
                                                   "with it, got \"%s\"", (const char *[]){"dye", "dye_r", "dye_g", "dye_b", "temperature"}[s->field]);
        r->picture.liquid_level = s->level;
    }
    return true;
}

/* ---------------------------------------------------------------- wind scenes */

static const char *const wind_root_keys[] = {"name", "description", "duration", "threads", "wind", "probes", "render", "output", NULL};

/* an array of 3 whole numbers in [lo, hi] */
static bool int_vec3(loader *L, const cJSON *obj, const char *path, const char *key, int lo, int hi, int out[3]) {
    const cJSON *v = jc_member(obj, key);
    if (!v) return true;
    char p[JPATH_MAX], got[96];
    jc_key_path(p, path, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != 3)
        return jc_fail(&L->c, p, "expected an array of 3 whole numbers in [%d, %d], got %s", lo, hi, jc_describe(v, got, sizeof got));
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        char q[JPATH_MAX];
        if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) || e->valuedouble < lo || e->valuedouble > hi)
            return jc_fail(&L->c, jc_index_path(q, p, i), "expected a whole number in [%d, %d], got %s", lo, hi,
                           jc_describe(e, got, sizeof got));
        out[i] = (int)e->valuedouble;
    }
    return true;
}

static bool parse_wind(loader *L, const cJSON *root) {
    scene_wind *w = (scene_wind *)calloc(1, sizeof *w);
    if (!w) return jc_fail(&L->c, "wind", "out of memory");
    L->sc->wind = w;
    w->def = eddy_wind_def_default();
    w->particles = eddy_particles_def_default();
    w->particles.count = 20000;
    const float rmin[3] = {-14, -1, -14}, rmax[3] = {14, 3, 14};
    memcpy(w->particles.region_min, rmin, sizeof rmin);
    memcpy(w->particles.region_max, rmax, sizeof rmax);
    w->particles.region_follows_wind = 1;
    w->particles.respawn_outside_window = 1;
    w->radius = 0.8f;
    const cJSON *v = jc_member(root, "wind");
    static const char *const keys[] = {"grid", "cell_size", "ambient", "noise", "relaxation_time", "viscosity", "pressure",
                                       "snap_to_cells", "player", "particles", NULL};
    eddy_wind_def *d = &w->def;
    bool snap = false;
    if (!jc_object(&L->c, v, "wind", keys) || !int_vec3(L, v, "wind", "grid", 3, 1024, d->grid) ||
        !jc_float(&L->c, v, "wind", "cell_size", ((jrange){0, 1e4, true, false, "m"}), &d->cell_size) ||
        !jc_vec(&L->c, v, "wind", "ambient", 3, JR(-1e3, 1e3, "m/s"), d->ambient) ||
        !jc_float(&L->c, v, "wind", "relaxation_time", JR(0, 1e6, "s"), &d->relaxation_time) ||
        !jc_float(&L->c, v, "wind", "viscosity", JR(0, 1e6, "m^2/s"), &d->viscosity) ||
        !parse_pressure(L, v, "wind", &d->pressure) || !jc_bool(&L->c, v, "wind", "snap_to_cells", &snap))
        return false;
    d->snap_to_cells = snap;
    const cJSON *no = jc_member(v, "noise");
    if (no) {
        static const char *const k[] = {"amplitude", "scale", "seed", NULL};
        double seed = d->noise_seed;
        if (!jc_object(&L->c, no, "wind.noise", k) ||
            !jc_float(&L->c, no, "wind.noise", "amplitude", JR(0, 1e3, "m/s"), &d->noise_amplitude) ||
            !jc_float(&L->c, no, "wind.noise", "scale", ((jrange){0, 1e6, true, false, "m"}), &d->noise_scale) ||
            !jc_number(&L->c, no, "wind.noise", "seed", JR(0, 4294967295.0, ""), &seed))
            return false;
        if (seed != floor(seed)) return jc_fail(&L->c, "wind.noise.seed", "expected a whole number, got %g", seed);
        d->noise_seed = (uint32_t)seed;
        if (d->noise_amplitude > 0 && d->noise_scale < d->cell_size)
            return jc_fail(&L->c, "wind.noise.scale", "%g m: expected at least the cell size (%g m)", (double)d->noise_scale,
                           (double)d->cell_size);
    }
    /* the player: a sphere collider walking a path (circles and figure-eights on the ground, the xz plane, by default) */
    if (!require(L, v, "wind", "player", "the player {\"path\": {...}, \"radius\": m}")) return false;
    const cJSON *pl = jc_member(v, "player");
    static const char *const pk[] = {"path", "radius", NULL};
    if (!jc_object(&L->c, pl, "wind.player", pk) ||
        !require(L, pl, "wind.player", "path", "a path object {\"type\": \"circle\", ...}") ||
        !parse_path_in(L, jc_member(pl, "path"), "wind.player.path", 1, &w->path) ||
        !jc_float(&L->c, pl, "wind.player", "radius", ((jrange){0, 1e3, true, false, "m"}), &w->radius))
        return false;
    float vel[3];
    scene_path_eval(&w->path, 0.0, 3, d->center, vel);
    const cJSON *pa = jc_member(v, "particles");
    if (pa) {
        static const char *const k[] = {"count", "drag", "gravity", "lifetime", "lifetime_jitter", "region_min", "region_max", "seed", NULL};
        eddy_particles_def *q = &w->particles;
        double seed = q->seed;
        if (!jc_object(&L->c, pa, "wind.particles", k) ||
            !jc_int(&L->c, pa, "wind.particles", "count", JR(1, 10000000, ""), &q->count) ||
            !jc_float(&L->c, pa, "wind.particles", "drag", JR(0, 1e6, "1/s"), &q->drag) ||
            !jc_vec(&L->c, pa, "wind.particles", "gravity", 3, JR(-1e4, 1e4, "m/s^2"), q->gravity) ||
            !jc_float(&L->c, pa, "wind.particles", "lifetime", ((jrange){0, 1e6, true, false, "s"}), &q->lifetime) ||
            !jc_float(&L->c, pa, "wind.particles", "lifetime_jitter", ((jrange){0, 1, false, true, ""}), &q->lifetime_jitter) ||
            !jc_vec(&L->c, pa, "wind.particles", "region_min", 3, JR(-1e6, 1e6, "m"), q->region_min) ||
            !jc_vec(&L->c, pa, "wind.particles", "region_max", 3, JR(-1e6, 1e6, "m"), q->region_max) ||
            !jc_number(&L->c, pa, "wind.particles", "seed", JR(0, 4294967295.0, ""), &seed))
            return false;
        if (seed != floor(seed)) return jc_fail(&L->c, "wind.particles.seed", "expected a whole number, got %g", seed);
        q->seed = (uint32_t)seed;
    }
    for (int a = 0; a < 3; a++)
        if (!(w->particles.region_max[a] > w->particles.region_min[a])) {
            char p[JPATH_MAX];
            return jc_fail(&L->c, jc_index_path(p, "wind.particles.region_max", a),
                           "%g m: must be above region_min[%d] = %g m (the respawn box, relative to the player)",
                           (double)w->particles.region_max[a], a, (double)w->particles.region_min[a]);
        }
    /* what remains is checked by the library; its message names the field */
    char msg[512];
    if (eddy_wind_def_validate(d, msg, sizeof msg) != EDDY_OK) return jc_fail(&L->c, "wind", "%s", msg);
    if (eddy_particles_def_validate(&w->particles, msg, sizeof msg) != EDDY_OK) return jc_fail(&L->c, "wind.particles", "%s", msg);
    return true;
}

/* the picture of a wind scene: a map of the window seen from above (x right, z up the picture) */
static bool parse_wind_render(loader *L, const cJSON *root) {
    scene_wind_render *r = &L->sc->wind->render;
    r->width = 640;
    r->colormap = EDDY_COLORMAP_VIRIDIS;
    r->slice = true;
    r->slice_brightness = 0.3f;
    r->particles = true;
    r->particle_radius = 1.0f;
    r->particle_opacity = 0.9f;
    r->arrows = true;
    r->arrow_spacing = 2.0f;
    r->arrow_scale = 0.5f;
    r->arrow_width = 1.2f;
    const uint8_t white[4] = {255, 255, 255, 200}, grey[4] = {230, 230, 230, 255};
    memcpy(r->arrow_color, white, 4);
    r->player = true;
    memcpy(r->player_color, grey, 4);
    const cJSON *v = jc_member(root, "render");
    if (!v) return true;
    static const char *const keys[] = {"width", "height", "colormap", "range", "speed", "particles", "arrows", "player", NULL};
    int cmap = (int)r->colormap;
    if (!jc_object(&L->c, v, "render", keys) || !jc_int(&L->c, v, "render", "width", JR(8, 16384, "pixels"), &r->width) ||
        !jc_int(&L->c, v, "render", "height", JR(0, 16384, "pixels"), &r->height) || !parse_name(L, v, "render", "colormap", 1, &cmap) ||
        !jc_vec(&L->c, v, "render", "range", 2, JR(0, 1e4, "m/s"), r->range))
        return false;
    r->colormap = cmap == EDDY_COLORMAP_AUTO ? EDDY_COLORMAP_VIRIDIS : (eddy_colormap)cmap;
    if (jc_member(v, "range") && !(r->range[1] > r->range[0]))
        return jc_fail(&L->c, "render.range", "[%g, %g]: the maximum must be above the minimum", (double)r->range[0], (double)r->range[1]);
    const cJSON *o;
    int on = r->slice;
    if (!toggle(L, v, "render", "speed", &on, &o)) return false;
    r->slice = on;
    if (o) {
        static const char *const k[] = {"brightness", NULL};
        if (!jc_object(&L->c, o, "render.speed", k) || !jc_float(&L->c, o, "render.speed", "brightness", JR(0, 1, ""), &r->slice_brightness))
            return false;
    }
    on = r->particles;
    if (!toggle(L, v, "render", "particles", &on, &o)) return false;
    r->particles = on;
    if (o) {
        static const char *const k[] = {"radius", "opacity", NULL};
        if (!jc_object(&L->c, o, "render.particles", k) ||
            !jc_float(&L->c, o, "render.particles", "radius", JR(0, 100, "pixels"), &r->particle_radius) ||
            !jc_float(&L->c, o, "render.particles", "opacity", JR(0, 1, ""), &r->particle_opacity))
            return false;
    }
    on = r->arrows;
    if (!toggle(L, v, "render", "arrows", &on, &o)) return false;
    r->arrows = on;
    if (o) {
        static const char *const k[] = {"spacing", "scale", "width", "color", NULL};
        float c[4] = {r->arrow_color[0], r->arrow_color[1], r->arrow_color[2], r->arrow_color[3]};
        if (!jc_object(&L->c, o, "render.arrows", k) ||
            !jc_float(&L->c, o, "render.arrows", "spacing", ((jrange){0, 1e4, true, false, "m"}), &r->arrow_spacing) ||
            !jc_float(&L->c, o, "render.arrows", "scale", JR(0, 1e3, "s (m of arrow per m/s)"), &r->arrow_scale) ||
            !jc_float(&L->c, o, "render.arrows", "width", JR(0, 100, "pixels"), &r->arrow_width) ||
            !jc_vec(&L->c, o, "render.arrows", "color", 4, JR(0, 255, "sRGB bytes"), c))
            return false;
        for (int i = 0; i < 4; i++) r->arrow_color[i] = (uint8_t)lrintf(c[i]);
    }
    on = r->player;
    if (!toggle(L, v, "render", "player", &on, &o)) return false;
    r->player = on;
    if (o) {
        static const char *const k[] = {"color", NULL};
        float c[4] = {r->player_color[0], r->player_color[1], r->player_color[2], r->player_color[3]};
        if (!jc_object(&L->c, o, "render.player", k) || !jc_vec(&L->c, o, "render.player", "color", 4, JR(0, 255, "sRGB bytes"), c))
            return false;
        for (int i = 0; i < 4; i++) r->player_color[i] = (uint8_t)lrintf(c[i]);
    }
    const eddy_wind_def *d = &L->sc->wind->def;
    if (r->height == 0 && (double)r->width * d->grid[2] / d->grid[0] > 16384.0)
        return jc_fail(&L->c, "render.width", "%d pixels make the picture of the %d x %d cell window taller than 16384 pixels; "
                                              "give a height", r->width, d->grid[0], d->grid[2]);
    /* the window's grid, seen from above: at most 4096 arrows, so a tiny spacing cannot stall a frame */
    double nx = d->grid[0] * (double)d->cell_size / r->arrow_spacing, nz = d->grid[2] * (double)d->cell_size / r->arrow_spacing;
    if (r->arrows && nx * nz > 4096.0)
        return jc_fail(&L->c, "render.arrows.spacing", "%g m gives %.0f arrows over the %g m x %g m window: expected at most 4096",
                       (double)r->arrow_spacing, nx * nz, d->grid[0] * (double)d->cell_size, d->grid[2] * (double)d->cell_size);
    return true;
}

/* a wind scene: the keys of a fluid scene that do not apply are refused by name */
static bool parse_wind_root(loader *L, const cJSON *root) {
    for (const cJSON *m = root->child; m; m = m->next) {
        const char *key = m->string ? m->string : "";
        bool wind_key = false;
        for (int i = 0; wind_root_keys[i]; i++)
            if (!strcmp(wind_root_keys[i], key)) wind_key = true;
        static const char *const fluid_keys[] = {"dim", "grid", "size", "origin", "dye_scale", "dt", "cfl", "max_dt", "viscosity",
                                                 "density", "advection", "pressure", "vorticity", "dissipation", "diffusion",
                                                 "buoyancy", "boundary", "obstacles", "emitters", "splats", "random_splats",
                                                 "splat_paths", "initial", "surface", NULL};
        for (int i = 0; !wind_key && fluid_keys[i]; i++)
            if (!strcmp(fluid_keys[i], key))
                return jc_fail(&L->c, key, "not used by a wind scene (it takes name, description, duration, threads, wind, probes, "
                                           "render and output; the wind's own settings go in \"wind\")");
    }
    if (!jc_object(&L->c, root, "", wind_root_keys)) return false;
    if (!jc_string(&L->c, root, "", "name", &L->sc->name) || !jc_string(&L->c, root, "", "description", &L->sc->description))
        return false;
    L->sc->def = eddy_sim_def_default();
    L->sc->duration = 10.0;
    L->dim = 3;
    L->unbounded = true;
    if (!jc_number(&L->c, root, "", "duration", ((jrange){0, 1e6, true, false, "s"}), &L->sc->duration) ||
        !jc_int(&L->c, root, "", "threads", JR(0, 1024, ""), &L->sc->def.threads) || !parse_wind(L, root) ||
        !parse_probes(L, root) || !parse_wind_render(L, root) || !parse_output(L, root))
        return false;
    L->sc->wind->def.threads = L->sc->def.threads;
    L->sc->wind->particles.threads = L->sc->def.threads;
    const scene_output *o = &L->sc->output;
    if (o->vdb) return jc_fail(&L->c, "output.vdb", "a wind scene writes no volumes");
    if (o->checkpoint > 0) return jc_fail(&L->c, "output.checkpoint", "a wind scene cannot be checkpointed (it always starts from still air)");
    if (o->fps < 1.0)
        return jc_fail(&L->c, "output.fps", "%g: a wind scene takes one wind frame of 1/fps seconds per picture, at most 1 s: "
                                            "expected fps >= 1", o->fps);
    return true;
}

/* ---------------------------------------------------------------- top level */

void scene_free(eddy_scene *sc) {
    if (!sc) return;
    free(sc->name);
    free(sc->description);
    free(sc->file);
    free(sc->base_dir);
    free(sc->json);
    if (sc->obstacles)
        for (int i = 0; i < sc->obstacle_count; i++) free(sc->obstacles[i].path.keys);
    if (sc->emitters)
        for (int i = 0; i < sc->emitter_count; i++) free(sc->emitters[i].path.keys);
    if (sc->splat_paths)
        for (int i = 0; i < sc->splat_path_count; i++) free(sc->splat_paths[i].path.keys);
    free(sc->obstacles);
    free(sc->emitters);
    free(sc->splats);
    free(sc->splat_paths);
    scene_initial *in = &sc->initial;
    free(in->u); free(in->v); free(in->w); free(in->pressure); free(in->temperature); free(in->dye);
    if (sc->probes)
        for (int i = 0; i < sc->probe_count; i++) free(sc->probes[i].name);
    free(sc->probes);
    free(sc->output.dir);
    if (sc->wind) free(sc->wind->path.keys);
    free(sc->wind);
    free(sc);
}

/* The size of the pictures (eddy_render_size: the renderer's own rule, times render.scale as run_output.c draws it)
 * and of the sprite sheet (as run_output.c makes it): checked here, as the renderer would only refuse them after the
 * first frame was simulated. */

static bool check_picture_size(loader *L) {
    const eddy_scene *sc = L->sc;
    const scene_output *o = &sc->output;
    const scene_render *r = &sc->render;
    if (!(o->png || o->sheet || (o->video != SCENE_VIDEO_NONE && L->opt->video))) return true;
    const eddy_sim_def *d = &sc->def;
    double w, h;
    if (d->dim == 3 && r->volume) {
        w = r->vol.width, h = r->vol.height; /* each checked to be at most 16384 */
    } else {
        const eddy_render_def *p = &r->picture;
        /* definitions the library refuses for another reason are reported after this check, naming their keys */
        if (eddy_sim_def_validate(d, NULL, 0) != EDDY_OK || eddy_render_def_validate(p, NULL, 0) != EDDY_OK) return true;
        const bool scaled = p->width == 0 && p->height == 0 && r->scale > 1;
        const char *key = scaled ? "render.scale" : p->width && p->height ? "render" : p->width ? "render.width"
                                                 : p->height ? "render.height" : "grid";
        int pw, ph;
        char why[512];
        if (eddy_render_size(p, d, &pw, &ph, why, sizeof why) != EDDY_OK) {
            /* the reason starts with the key when render.width or render.height gave the size ("render.width = 1000
             * with ..."): said once */
            const size_t n = strlen(key);
            const bool keyed = strncmp(why, key, n) == 0 && why[n] == ' ';
            return keyed ? jc_fail_keyed(&L->c, key, "%s", why) : jc_fail(&L->c, key, "%s", why);
        }
        w = pw, h = ph;
        if (scaled) { /* run_output.c asks for render.scale pixels per dye cell: that size times the scale */
            w *= r->scale, h *= r->scale;
            if (w > EDDY_RENDER_MAX_SIDE || h > EDDY_RENDER_MAX_SIDE)
                return jc_fail(&L->c, key, "%d pixels per cell of the %d x %d dye cells makes a %.0f x %.0f picture: "
                               "expected at most %d pixels per side", r->scale, pw, ph, w, h, EDDY_RENDER_MAX_SIDE);
        }
    }
    if (!o->sheet) return true;
    /* the sheet's cells: as given, or 128 pixels on the picture's longer side (run_output.c, sheet_add) */
    const eddy_flipbook_def *f = &o->sheet_def;
    double fw = f->frame_width, fh = f->frame_height;
    bool automatic = fw == 0 || fh == 0;
    if (automatic) {
        if (w >= h) fw = 128, fh = fmax(1.0, floor(h * 128 / w));
        else fh = 128, fw = fmax(1.0, floor(w * 128 / h));
    }
    const char *src = automatic ? ", not set: 128 on the picture's longer side" : "";
    if (f->columns * fw > EDDY_RENDER_MAX_SIDE)
        return jc_fail(&L->c, "output.sprite_sheet", "%d columns of %.0f pixels (frame_width%s) make a sheet %.0f pixels wide: "
                       "expected at most %d", f->columns, fw, src, f->columns * fw, EDDY_RENDER_MAX_SIDE);
    if (f->rows * fh > EDDY_RENDER_MAX_SIDE)
        return jc_fail(&L->c, "output.sprite_sheet", "%d rows of %.0f pixels (frame_height%s) make a sheet %.0f pixels high: "
                       "expected at most %d", f->rows, fh, src, f->rows * fh, EDDY_RENDER_MAX_SIDE);
    return true;
}

static bool parse_root(loader *L, const cJSON *root) {
    if (cJSON_IsObject(root) && jc_member(root, "wind")) return parse_wind_root(L, root);
    static const char *const keys[] = {"name", "description", "dim", "grid", "size", "origin", "dye_scale", "dt", "cfl",
                                       "max_dt", "duration", "threads", "viscosity", "density", "advection", "pressure",
                                       "vorticity", "dissipation", "diffusion", "buoyancy", "boundary", "obstacles",
                                       "emitters", "splats", "random_splats", "splat_paths", "initial", "probes",
                                       "render", "output", "surface", "backend", NULL};
    if (!jc_object(&L->c, root, "", keys)) return false;
    if (!jc_string(&L->c, root, "", "name", &L->sc->name) || !jc_string(&L->c, root, "", "description", &L->sc->description))
        return false;
    L->sc->def = eddy_sim_def_default();
    L->sc->duration = 5.0;
    if (!parse_grid(L, root) || !parse_time(L, root) || !parse_physics(L, root) || !parse_boundary(L, root) ||
        !parse_obstacles(L, root) || !parse_emitters(L, root) || !parse_splats(L, root) || !parse_initial(L, root) ||
        !parse_probes(L, root) || !parse_render(L, root) || !parse_output(L, root) || !parse_surface(L, root))
        return false;
    if (L->opt->check_memory && !check_memory(L)) return false;
    if (L->opt->check_picture_size && !check_picture_size(L)) return false;
    /* what remains (limits of the library itself) is checked by the library; its message names the field */
    char msg[512];
    if (eddy_sim_def_validate(&L->sc->def, msg, sizeof msg) != EDDY_OK) return jc_fail(&L->c, NULL, "%s", msg);
    if (L->sc->render.volume) {
        if (eddy_volume_def_validate(&L->sc->render.vol, msg, sizeof msg) != EDDY_OK) return jc_fail(&L->c, "render.volume", "%s", msg);
    } else if (eddy_render_def_validate(&L->sc->render.picture, msg, sizeof msg) != EDDY_OK) {
        return jc_fail(&L->c, "render", "%s", msg);
    }
    return true;
}

eddy_scene *scene_parse(const char *text, size_t len, const char *file, const char *base_dir,
                        const scene_load_options *opt, char *err, size_t err_size) {
    scene_load_options defaults = scene_load_options_default();
    if (!opt) opt = &defaults;
    if (err && err_size) err[0] = '\0';
    loader L;
    memset(&L, 0, sizeof L);
    L.opt = opt;
    L.c.file = file ? file : "scene";
    L.c.err = err;
    L.c.err_size = err_size;
    /* cJSON would stop at a NUL and take the text before it for the whole file */
    const char *nul = len ? (const char *)memchr(text, '\0', len) : NULL;
    if (nul) {
        jc_fail(&L.c, NULL, "NUL byte at offset %zu: not a JSON text file", (size_t)(nul - text));
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
        /* line and column of the first byte cJSON could not take */
        size_t at = (end && end >= text && end <= text + len) ? (size_t)(end - text) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < at; i++) {
            if (text[i] == '\n') line++, col = 1;
            else col++;
        }
        jc_fail(&L.c, NULL, "line %d, column %d: not valid JSON", line, col);
        return NULL;
    }
    /* trailing garbage after the value */
    if (end) {
        const char *p = end, *stop = text + len;
        while (p < stop && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
        if (p < stop && *p != '\0') {
            jc_fail(&L.c, NULL, "unexpected text after the JSON value");
            cJSON_Delete(root);
            return NULL;
        }
    }
    char **set_paths = NULL;
    int set_count = 0;
    if (opt->override_count > 0) {
        set_paths = (char **)calloc((size_t)opt->override_count, sizeof(char *));
        if (!set_paths) {
            jc_fail(&L.c, NULL, "out of memory");
            cJSON_Delete(root);
            return NULL;
        }
        for (int i = 0; i < opt->override_count; i++) {
            if (!scene_apply_override(root, opt->overrides[i], &set_paths[i], err, err_size)) {
                for (int k = 0; k <= i; k++) free(set_paths[k]);
                free(set_paths);
                cJSON_Delete(root);
                return NULL;
            }
            set_count = i + 1;
        }
        L.c.set_paths = (const char *const *)set_paths;
        L.c.set_count = set_count;
    }
    /* --surface: surfaces on with their defaults, unless the scene sets them itself */
    if (opt->surface && cJSON_IsObject(root) && !jc_member(root, "surface")) cJSON_AddTrueToObject(root, "surface");
    eddy_scene *sc = (eddy_scene *)calloc(1, sizeof *sc);
    bool ok = sc != NULL;
    if (ok) {
        L.sc = sc;
        sc->file = strdup(L.c.file);
        sc->base_dir = strdup(base_dir && *base_dir ? base_dir : ".");
        ok = sc->file && sc->base_dir;
        if (!ok) jc_fail(&L.c, NULL, "out of memory");
    } else {
        jc_fail(&L.c, NULL, "out of memory");
    }
    ok = ok && parse_root(&L, root);
    if (ok) {
        sc->json = cJSON_PrintUnformatted(root);
        if (!sc->json) ok = jc_fail(&L.c, NULL, "out of memory");
    }
    for (int i = 0; i < set_count; i++) free(set_paths[i]);
    free(set_paths);
    cJSON_Delete(root);
    if (!ok) {
        scene_free(sc);
        return NULL;
    }
    return sc;
}

eddy_scene *scene_load_file(const char *path, const scene_load_options *opt, char *err, size_t err_size) {
    FILE *f = cli_open_for_reading(path, "scene file", err, err_size);
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = (char *)malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (len < cap) break;
        if (cap >= ((size_t)64 << 20)) {
            fclose(f);
            free(buf);
            snprintf(err, err_size, "%s: larger than 64 MiB; not a scene file", path);
            return NULL;
        }
        char *nb = (char *)realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool read_error = ferror(f);
    fclose(f);
    if (!buf || read_error) {
        free(buf);
        snprintf(err, err_size, "%s: %s", path, buf ? "read error" : "out of memory");
        return NULL;
    }
    /* relative files in the scene resolve against the scene's folder */
    char *dir = strdup(path);
    if (!dir) {
        free(buf);
        snprintf(err, err_size, "%s: out of memory", path);
        return NULL;
    }
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else strcpy(dir, ".");
    if (slash == dir) strcpy(dir, "/");
    eddy_scene *sc = scene_parse(buf, len, path, dir, opt, err, err_size);
    free(dir);
    free(buf);
    return sc;
}

eddy_scene *scene_load_preset(const char *name, const scene_load_options *opt, char *err, size_t err_size) {
    /* a name with a '/' or ending in .json is a file (eddy view tries the file first and comes here when it is missing) */
    size_t n = strlen(name);
    if (strchr(name, '/') || (n >= 5 && !strcmp(name + n - 5, ".json"))) {
        FILE *f = fopen(name, "rb");
        if (!f) {
            snprintf(err, err_size, "%s: cannot open the scene file: %s", name, strerror(errno));
            return NULL;
        }
        fclose(f);
        snprintf(err, err_size, "--scene %s: a file, not a built-in scene name: give the file without --scene", name);
        return NULL;
    }
    for (int i = 0; i < scene_preset_count(); i++)
        if (!strcmp(scene_preset_name(i), name)) {
            size_t len = 0;
            const char *text = scene_preset_text(i, &len);
            char file[160];
            snprintf(file, sizeof file, "scenes/%s.json (built in)", name);
            return scene_parse(text, len, file, NULL, opt, err, err_size);
        }
    char list[1024] = "";
    size_t used = 0;
    for (int i = 0; i < scene_preset_count() && used + 2 < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", scene_preset_name(i));
        if (w < 0) break;
        used += (size_t)w;
    }
    snprintf(err, err_size, "%s: no such built-in scene (the presets are: %s; `eddy scenes` describes them)", name, list);
    return NULL;
}

const char *scene_preset_description(int i, char *buf, size_t size) {
    size_t len = 0;
    const char *text = scene_preset_text(i, &len);
    buf[0] = '\0';
    cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
    const cJSON *d = jc_member(root, "description");
    if (cJSON_IsString(d)) snprintf(buf, size, "%s", d->valuestring);
    cJSON_Delete(root);
    return buf;
}
