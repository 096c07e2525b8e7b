/* The simulation object: definition defaults and checks, allocation, the step pipeline
 *   sources -> forces (buoyancy, vorticity) -> advect -> diffuse -> project -> boundaries -> diagnostics
 * (Stam 1999, "Stable Fluids"; Bridson 2015, "Fluid Simulation for Computer Graphics", ch. 2). */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 2^31 cells per field keeps every index in size_t and every per-axis loop in int. */
#define EDDY_MAX_CELLS ((size_t)1 << 31)
/* the most steps one eddy_sim_advance takes; test_api_advance builds this file with a lower one */
#ifndef EDDY__ADVANCE_STEP_LIMIT
#define EDDY__ADVANCE_STEP_LIMIT EDDY_ADVANCE_MAX_STEPS
#endif

eddy_sim_def eddy_sim_def_default(void) {
    eddy_sim_def d;
    memset(&d, 0, sizeof d);
    d.dim = 2;
    d.grid[0] = 128; d.grid[1] = 128; d.grid[2] = 1;
    d.size[0] = 1.0f;
    d.cfl = 1.0f;
    d.max_dt = 0.05f;
    d.density = 1.0f;
    d.advection = EDDY_ADVECT_MACCORMACK;
    d.pressure.solver = EDDY_PRESSURE_MGPCG;
    d.pressure.tolerance = 1e-6f;
    d.gravity[1] = -9.81f;
    d.dye_scale[0] = d.dye_scale[1] = d.dye_scale[2] = 1;
    for (int f = 0; f < 6; f++) d.boundary[f].type = EDDY_BOUNDARY_WALL;
    d.backend = EDDY_BACKEND_CPU;
    return d;
}

const char *eddy_status_string(eddy_status st) {
    switch (st) {
    case EDDY_OK: return "ok";
    case EDDY_ERR_INVALID_ARGUMENT: return "invalid argument";
    case EDDY_ERR_OUT_OF_MEMORY: return "out of memory";
    case EDDY_ERR_NON_FINITE: return "non-finite value";
    case EDDY_ERR_IO: return "i/o error";
    case EDDY_ERR_CORRUPT_FILE: return "corrupt file";
    case EDDY_ERR_UNSUPPORTED: return "unsupported";
    case EDDY_ERR_NOT_FOUND: return "not found";
    case EDDY_ERR_NOT_CONVERGED: return "not converged";
    }
    return "unknown status";
}

const char *eddy_stage_name(eddy_stage stage) {
    static const char *const names[EDDY_STAGE_COUNT] = {"sources", "forces", "advect", "diffuse",
                                                        "project", "boundary", "diagnostics"};
    return (stage >= 0 && stage < EDDY_STAGE_COUNT) ? names[stage] : "unknown";
}

const char *eddy_field_name(eddy_field field) {
    static const char *const names[EDDY_FIELD_COUNT] = {
        "u", "v", "w", "pressure", "dye_r", "dye_g", "dye_b", "temperature", "solid", "divergence", "vorticity", "speed"};
    return (field >= 0 && field < EDDY_FIELD_COUNT) ? names[field] : "unknown";
}

eddy_status eddy__fail(eddy_sim *s, eddy_status st, const char *fmt, ...) {
    if (s) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->error, sizeof s->error, fmt, ap);
        va_end(ap);
    }
    return st;
}

double eddy__now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

const char *eddy_sim_last_error(const eddy_sim *sim) { return sim ? sim->error : "null simulation"; }
const eddy_sim_def *eddy_sim_get_def(const eddy_sim *sim) { return sim ? &sim->def : NULL; }
float eddy_sim_cell_size(const eddy_sim *sim) { return sim ? sim->h : 0.0f; }
const eddy_step_stats *eddy_sim_stats(const eddy_sim *sim) { return sim ? &sim->stats : NULL; }
double eddy_sim_time(const eddy_sim *sim) { return sim ? sim->time : 0.0; }
long eddy_sim_step_count(const eddy_sim *sim) { return sim ? sim->step : 0; }

/* ---------------------------------------------------------------- validation */

eddy_status eddy__def_error(char *msg, size_t msg_size, const char *fmt, ...) {
    if (msg && msg_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msg_size, fmt, ap);
        va_end(ap);
    }
    return EDDY_ERR_INVALID_ARGUMENT;
}

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

eddy_status eddy_sim_def_validate(const eddy_sim_def *d, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!d) return eddy__def_error(msg, msg_size, "definition is NULL");
    if (d->dim != 2 && d->dim != 3) return eddy__def_error(msg, msg_size, "dim = %d: must be 2 or 3", d->dim);
    size_t cells = 1, scalars = 1;
    for (int a = 0; a < d->dim; a++) {
        if (d->grid[a] < 3 || d->grid[a] > (1 << 20))
            return eddy__def_error(msg, msg_size, "grid[%d] = %d: must be between 3 and %d", a, d->grid[a], 1 << 20);
        if (d->dye_scale[a] < 1 || d->dye_scale[a] > 16)
            return eddy__def_error(msg, msg_size, "dye_scale[%d] = %d: must be between 1 and 16", a, d->dye_scale[a]);
        cells *= (size_t)d->grid[a] + 1;
        scalars *= (size_t)d->grid[a] * (size_t)d->dye_scale[a];
        if (cells > EDDY_MAX_CELLS || scalars > EDDY_MAX_CELLS)
            return eddy__def_error(msg, msg_size, "grid of %d axes is too large: more than 2^31 cells in one field", d->dim);
    }
    if (!(isfinite(d->size[0]) && d->size[0] > 0))
        return eddy__def_error(msg, msg_size, "size[0] = %g: must be a positive length in metres", (double)d->size[0]);
    float h = d->size[0] / (float)d->grid[0];
    /* the stages divide by h and h^2 and multiply by h^dim (a cell's volume): a range in which all of those stay
     * normal floats, far wider than the scales where a continuum grid means anything */
    if (!(h >= 1e-9f && h <= 1e9f))
        return eddy__def_error(msg, msg_size, "size[0] = %g m over grid[0] = %d cells gives a cell size h = %g m: must be 1e-9 .. 1e9 m",
                               (double)d->size[0], d->grid[0], (double)h);
    for (int a = 1; a < d->dim; a++) {
        if (!isfinite(d->size[a]) || d->size[a] < 0)
            return eddy__def_error(msg, msg_size, "size[%d] = %g: must be 0 (derived) or a positive length", a, (double)d->size[a]);
        if (d->size[a] > 0) {
            float want = h * (float)d->grid[a];
            if (fabsf(d->size[a] - want) > 1e-4f * want)
                return eddy__def_error(msg, msg_size,
                                 "size[%d] = %g m does not match grid[%d] = %d cells of h = %g m (cells must be square: expected %g)",
                                 a, (double)d->size[a], a, d->grid[a], (double)h, (double)want);
        }
    }
    if (!finite3(d->origin)) return eddy__def_error(msg, msg_size, "origin is not finite");
    if (!isfinite(d->dt) || d->dt < 0) return eddy__def_error(msg, msg_size, "dt = %g: must be 0 (CFL) or positive seconds", (double)d->dt);
    if (d->dt == 0) {
        if (!isfinite(d->cfl) || d->cfl <= 0 || d->cfl > 50)
            return eddy__def_error(msg, msg_size, "cfl = %g: must be in (0, 50]", (double)d->cfl);
        if (!isfinite(d->max_dt) || d->max_dt <= 0)
            return eddy__def_error(msg, msg_size, "max_dt = %g: must be positive seconds", (double)d->max_dt);
    }
    struct { const char *name; float v; } nonneg[] = {
        {"viscosity", d->viscosity}, {"vorticity", d->vorticity},
        {"velocity_dissipation", d->velocity_dissipation}, {"dye_dissipation", d->dye_dissipation},
        {"temperature_dissipation", d->temperature_dissipation}, {"dye_diffusion", d->dye_diffusion},
        {"temperature_diffusion", d->temperature_diffusion}};
    for (size_t i = 0; i < sizeof nonneg / sizeof nonneg[0]; i++)
        if (!isfinite(nonneg[i].v) || nonneg[i].v < 0)
            return eddy__def_error(msg, msg_size, "%s = %g: must be finite and >= 0", nonneg[i].name, (double)nonneg[i].v);
    if (!isfinite(d->density) || d->density <= 0)
        return eddy__def_error(msg, msg_size, "density = %g: must be positive kg/m^3", (double)d->density);
    if (!finite3(d->gravity)) return eddy__def_error(msg, msg_size, "gravity is not finite");
    if (!isfinite(d->buoyancy_density) || !isfinite(d->buoyancy_temperature) || !isfinite(d->ambient_temperature))
        return eddy__def_error(msg, msg_size, "buoyancy parameters must be finite");
    if ((unsigned)d->advection > EDDY_ADVECT_BFECC)
        return eddy__def_error(msg, msg_size, "advection = %d: not a scheme", (int)d->advection);
    if ((unsigned)d->pressure.solver > EDDY_PRESSURE_RBGS)
        return eddy__def_error(msg, msg_size, "pressure.solver = %d: not a solver", (int)d->pressure.solver);
    if (!isfinite(d->pressure.tolerance) || d->pressure.tolerance <= 0 || d->pressure.tolerance >= 1)
        return eddy__def_error(msg, msg_size, "pressure.tolerance = %g: must be in (0, 1)", (double)d->pressure.tolerance);
    if (d->pressure.max_iterations < 0)
        return eddy__def_error(msg, msg_size, "pressure.max_iterations = %d: must be >= 0", d->pressure.max_iterations);
    if (!isfinite(d->pressure.omega) || d->pressure.omega < 0 || d->pressure.omega >= 2)
        return eddy__def_error(msg, msg_size, "pressure.omega = %g: must be 0 (=1) or in (0, 2)", (double)d->pressure.omega);
    if (d->pressure.warm_start != 0 && d->pressure.warm_start != 1)
        return eddy__def_error(msg, msg_size, "pressure.warm_start = %d: must be 0 or 1", d->pressure.warm_start);
    if (d->threads < 0 || d->threads > 1024) return eddy__def_error(msg, msg_size, "threads = %d: must be 0..1024", d->threads);
    static const char *const face_names[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};
    for (int f = 0; f < 2 * d->dim; f++) {
        const eddy_boundary *b = &d->boundary[f];
        if ((unsigned)b->type > EDDY_BOUNDARY_OUTFLOW)
            return eddy__def_error(msg, msg_size, "boundary[%s].type = %d: not a boundary type", face_names[f], (int)b->type);
        if (!finite3(b->velocity) || !finite3(b->dye) || !isfinite(b->temperature))
            return eddy__def_error(msg, msg_size, "boundary[%s]: velocity, dye and temperature must be finite", face_names[f]);
        int other = f ^ 1;
        if ((b->type == EDDY_BOUNDARY_PERIODIC) != (d->boundary[other].type == EDDY_BOUNDARY_PERIODIC))
            return eddy__def_error(msg, msg_size, "boundary[%s] is periodic but boundary[%s] is not: periodic needs both faces of an axis",
                             face_names[b->type == EDDY_BOUNDARY_PERIODIC ? f : other],
                             face_names[b->type == EDDY_BOUNDARY_PERIODIC ? other : f]);
    }
    if ((unsigned)d->backend > EDDY_BACKEND_CUDA) return eddy__def_error(msg, msg_size, "backend = %d: unknown", (int)d->backend);
#ifndef EDDY_HAVE_CUDA
    if (d->backend == EDDY_BACKEND_CUDA)
        return eddy__def_error(msg, msg_size, "backend = cuda: this build has no CUDA backend (configure with -DEDDY_CUDA=ON)");
#endif
    return EDDY_OK;
}

/* ---------------------------------------------------------------- create / destroy */

/* Row kernels read whole vectors past a row's last element (vorticity_sweep.c: the lanes past it are computed and
 * dropped), so every field has a cache line of room past its end. */
enum { ROOM_PAST_END = 64 };
/* zeroed, 64-byte aligned (a cache line: whole-vector loads of row kernels then split no line where a row starts
 * on one); freed with free() */
static float *alloc_floats(size_t n) {
    if (!n || n > (SIZE_MAX - 2 * ROOM_PAST_END) / sizeof(float)) return NULL;
    size_t bytes = (n * sizeof(float) + 63) / 64 * 64 + ROOM_PAST_END;
    float *p = (float *)aligned_alloc(64, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

void eddy_sim_destroy(eddy_sim *s) {
    if (!s) return;
    if (s->backend_ops) s->backend_ops->destroy(s);
    eddy__advect_free(s);
    eddy__diffuse_free(s);
    eddy__project_free(s);
    for (int a = 0; a < 3; a++) {
        free(s->vel[a]);
        free(s->vel_tmp[a]);
        free(s->dye[a]);
        free(s->solid_vel[a]);
    }
    free(s->pressure);
    free(s->temperature);
    free(s->scalar_tmp);
    free(s->solid);
    free(s->user_mask);
    free(s->row_partial);
    free(s->diag_partial);
    free(s->forces_scratch);
    free(s->cell_scratch);
    free(s->solid_faces);
    free(s->obstacles);
    free(s->emitters);
    free(s);
}

eddy_status eddy_sim_create(const eddy_sim_def *def, eddy_sim **out, char *msg, size_t msg_size) {
    if (!out) return eddy__def_error(msg, msg_size, "out pointer is NULL");
    *out = NULL;
    eddy_status st = eddy_sim_def_validate(def, msg, msg_size);
    if (st != EDDY_OK) return st;
    eddy_sim *s = (eddy_sim *)calloc(1, sizeof *s);
    if (!s) return EDDY_ERR_OUT_OF_MEMORY;
    s->def = *def;
    s->dim = def->dim;
    s->h = def->size[0] / (float)def->grid[0];
    for (int a = 0; a < 3; a++) {
        s->n[a] = a < s->dim ? def->grid[a] : 1;
        int r = a < s->dim ? def->dye_scale[a] : 1;
        s->def.dye_scale[a] = r;
        s->def.grid[a] = s->n[a];
        s->def.size[a] = (float)s->n[a] * s->h;
        s->sn[a] = s->n[a] * r;
        s->sh[a] = s->h / (float)r;
        s->origin[a] = def->origin[a];
        s->periodic[a] = a < s->dim && def->boundary[2 * a].type == EDDY_BOUNDARY_PERIODIC;
    }
    if (s->dim == 2) {
        s->def.boundary[EDDY_FACE_Z_MIN].type = s->def.boundary[EDDY_FACE_Z_MAX].type = EDDY_BOUNDARY_WALL;
    }
    s->ncells = (size_t)s->n[0] * s->n[1] * s->n[2];
    s->nscalar = (size_t)s->sn[0] * s->sn[1] * s->sn[2];
    bool ok = true;
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        s->nface[a] = (size_t)fn[0] * fn[1] * fn[2];
        ok = ok && (s->vel[a] = alloc_floats(s->nface[a])) && (s->vel_tmp[a] = alloc_floats(s->nface[a]));
    }
    for (int c = 0; c < 3; c++) ok = ok && (s->dye[c] = alloc_floats(s->nscalar)) && (s->solid_vel[c] = alloc_floats(s->ncells));
    size_t rows = (size_t)s->n[1] * s->n[2], srows = (size_t)s->sn[1] * s->sn[2];
    ok = ok && (s->pressure = alloc_floats(s->ncells)) && (s->temperature = alloc_floats(s->nscalar)) &&
         (s->scalar_tmp = alloc_floats(s->nscalar)) && (s->solid = (uint8_t *)calloc(s->ncells + ROOM_PAST_END, 1)) &&
         (s->row_partial = (double *)calloc(4 * (rows > srows ? rows : srows) + 8, sizeof(double)));
    if (!ok) {
        eddy_sim_destroy(s);
        eddy__def_error(msg, msg_size, "out of memory allocating a %d x %d x %d grid", def->grid[0], def->grid[1], s->n[2]);
        return EDDY_ERR_OUT_OF_MEMORY;
    }
    s->next_id = 1;
    s->avx2 = eddy__cpu_has_avx2();
    s->avx512 = eddy__cpu_has_avx512();
    eddy_status sts[3] = {eddy__advect_init(s), eddy__diffuse_init(s), eddy__project_init(s)};
    for (int i = 0; i < 3; i++)
        if (sts[i] != EDDY_OK) {
            eddy__def_error(msg, msg_size, "%s", s->error);
            eddy_sim_destroy(s);
            return sts[i];
        }
    eddy__rasterize_solids(s);
    eddy__apply_velocity_boundaries(s);
    eddy__apply_scalar_boundaries(s);
    st = eddy__backend_attach(s);
    if (st != EDDY_OK) {
        eddy__def_error(msg, msg_size, "%s", s->error);
        eddy_sim_destroy(s);
        return st;
    }
    *out = s;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- runtime parameters */

eddy_status eddy_sim_set_def(eddy_sim *s, const eddy_sim_def *def) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    char msg[sizeof s->error];
    eddy_status st = eddy_sim_def_validate(def, msg, sizeof msg);
    if (st != EDDY_OK) return eddy__fail(s, st, "%s", msg);
    const eddy_sim_def *o = &s->def;
    if (def->dim != o->dim) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "set_def: dim cannot change (%d -> %d)", o->dim, def->dim);
    for (int a = 0; a < s->dim; a++) {
        if (def->grid[a] != o->grid[a] || def->dye_scale[a] != o->dye_scale[a] || def->origin[a] != o->origin[a])
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "set_def: grid, dye_scale and origin cannot change (axis %d)", a);
        if (s->def.boundary[2 * a].type != def->boundary[2 * a].type || s->def.boundary[2 * a + 1].type != def->boundary[2 * a + 1].type)
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "set_def: boundary types cannot change (axis %d); their values can", a);
    }
    if (def->size[0] != o->size[0]) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "set_def: size cannot change");
    if (def->backend != o->backend) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "set_def: backend cannot change");
    bool new_scheme = def->advection != o->advection;
    eddy_sim_def keep = s->def;
    /* copy the tunables; structural values stay as normalised at creation */
    s->def.dt = def->dt; s->def.cfl = def->cfl; s->def.max_dt = def->max_dt;
    s->def.viscosity = def->viscosity; s->def.density = def->density; s->def.advection = def->advection;
    s->def.pressure = def->pressure; s->def.vorticity = def->vorticity;
    s->def.velocity_dissipation = def->velocity_dissipation; s->def.dye_dissipation = def->dye_dissipation;
    s->def.temperature_dissipation = def->temperature_dissipation; s->def.dye_diffusion = def->dye_diffusion;
    s->def.temperature_diffusion = def->temperature_diffusion;
    for (int a = 0; a < 3; a++) s->def.gravity[a] = def->gravity[a];
    s->def.buoyancy_density = def->buoyancy_density; s->def.buoyancy_temperature = def->buoyancy_temperature;
    s->def.ambient_temperature = def->ambient_temperature; s->def.threads = def->threads;
    for (int f = 0; f < 2 * s->dim; f++) s->def.boundary[f] = def->boundary[f];
    if (new_scheme) { /* the scratch an advection scheme needs depends on the scheme */
        eddy__advect_free(s);
        st = eddy__advect_init(s);
        if (st != EDDY_OK) {
            s->def = keep;
            eddy__advect_free(s);
            eddy_status st2 = eddy__advect_init(s);
            return st2 != EDDY_OK ? st2 : st;
        }
    }
    return EDDY_OK;
}

/* ---------------------------------------------------------------- stepping */

float eddy__choose_dt(eddy_sim *s) {
    if (s->def.dt > 0) return s->def.dt;
    float vmax = 0.0f;
    if (s->backend_ops) vmax = s->backend_ops->max_face_speed(s);
    else for (int a = 0; a < s->dim; a++) {
        /* a maximum is exact in any order: the same value for any thread count */
        const float *v = s->vel[a];
        const long n = (long)s->nface[a];
#pragma omp parallel for simd num_threads(EDDY_THREADS(s)) schedule(static) reduction(max : vmax) if (n > 65536)
        for (long i = 0; i < n; i++) {
            float m = fabsf(v[i]);
            vmax = m > vmax ? m : vmax;
        }
    }
    /* the max over components (not the vector norm) bounds the per-axis displacement the CFL condition limits */
    float dt = s->def.max_dt;
    if (vmax > 0) {
        float lim = s->def.cfl * s->h / vmax;
        if (lim < dt) dt = lim;
    }
    return dt;
}

/* Runs a stage, times it, and scans the fields it may have changed (`fields`, EDDY_CHECK_*) for NaN/Inf, so that
 * the error names the stage that made one. A full scan of every field after every stage cost ~10 ms of a 3D 128^3
 * step; the boundary stages only copy field values and set validated constants (inflow, lid, obstacle velocities),
 * so they cannot make a finite field non-finite, and a stage that is switched off changes nothing. */
#define RUN_STAGE(stage, call, fields)                                        \
    do {                                                                      \
        double t0_ = eddy__now_ms();                                          \
        eddy_status st_ = (call);                                             \
        s->stats.stage_ms[stage] += eddy__now_ms() - t0_;                     \
        if (st_ != EDDY_OK) return st_;                                       \
        st_ = eddy__check_finite(s, stage, (fields));                         \
        if (st_ != EDDY_OK) return st_;                                       \
    } while (0)

/* the fields each stage may change under the current parameters */
static unsigned source_fields(const eddy_sim *s) {
    return s->emitter_count > 0 ? EDDY_CHECK_VELOCITY | EDDY_CHECK_DYE | EDDY_CHECK_TEMPERATURE : 0u;
}
static unsigned force_fields(const eddy_sim *s) {
    const eddy_sim_def *d = &s->def;
    bool on = d->vorticity != 0.0f || d->buoyancy_density != 0.0f || d->buoyancy_temperature != 0.0f;
    return on ? EDDY_CHECK_VELOCITY : 0u;
}
static unsigned diffuse_fields(const eddy_sim *s) {
    const eddy_sim_def *d = &s->def;
    return (d->viscosity > 0 ? EDDY_CHECK_VELOCITY : 0u) | (d->dye_diffusion > 0 ? EDDY_CHECK_DYE : 0u) |
           (d->temperature_diffusion > 0 ? EDDY_CHECK_TEMPERATURE : 0u);
}
enum { ADVECTED = EDDY_CHECK_VELOCITY | EDDY_CHECK_DYE | EDDY_CHECK_TEMPERATURE };

static eddy_status boundaries_stage(eddy_sim *s) {
    eddy__apply_velocity_boundaries(s);
    eddy__apply_scalar_boundaries(s);
    return EDDY_OK;
}

static eddy_status forces_stage(eddy_sim *s, float dt) {
    eddy_status st = eddy__apply_buoyancy(s, dt);
    if (st != EDDY_OK) return st;
    return eddy__apply_vorticity(s, dt);
}

/* Solids are rasterised here only when obstacles or the mask changed since the last time (add, move, remove, set
 * mask, load): SDFs are pure, so re-rasterising every step would rewrite the same bytes at the cost of a pass over
 * the grid. */
static eddy_status sources_stage(eddy_sim *s, float dt) {
    eddy_status st = eddy__solids_current(s);
    return st != EDDY_OK ? st : eddy__apply_emitters(s, dt);
}

static eddy_status step_dt(eddy_sim *s, float dt) {
    s->error[0] = '\0';
    if (!(dt > 0) || !isfinite(dt)) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "dt = %g: must be positive", (double)dt);
    if (s->backend_ops) {
        eddy_status st = eddy__solids_current(s);
        return st != EDDY_OK ? st : s->backend_ops->step(s, dt);
    }
    double t0 = eddy__now_ms();
    for (int i = 0; i < EDDY_STAGE_COUNT; i++) s->stats.stage_ms[i] = 0;
    s->stats.dt = dt;
    RUN_STAGE(EDDY_STAGE_SOURCES, sources_stage(s, dt), source_fields(s));
    RUN_STAGE(EDDY_STAGE_BOUNDARY, boundaries_stage(s), 0u);
    RUN_STAGE(EDDY_STAGE_FORCES, forces_stage(s, dt), force_fields(s));
    RUN_STAGE(EDDY_STAGE_ADVECT, eddy__advect(s, dt), ADVECTED);
    RUN_STAGE(EDDY_STAGE_BOUNDARY, boundaries_stage(s), 0u);
    RUN_STAGE(EDDY_STAGE_DIFFUSE, eddy__diffuse(s, dt), diffuse_fields(s));
    RUN_STAGE(EDDY_STAGE_BOUNDARY, boundaries_stage(s), 0u);
    RUN_STAGE(EDDY_STAGE_PROJECT, eddy__project(s, dt), EDDY_CHECK_VELOCITY | EDDY_CHECK_PRESSURE);
    RUN_STAGE(EDDY_STAGE_BOUNDARY, boundaries_stage(s), 0u);
    s->time += dt;
    s->step++;
    /* the diagnostics change no field (they fail themselves on a non-finite energy or dye total) */
    RUN_STAGE(EDDY_STAGE_DIAGNOSTICS, eddy__diagnostics(s, dt), 0u);
    s->stats.step = s->step;
    s->stats.time = s->time;
    s->stats.step_ms = eddy__now_ms() - t0;
    return EDDY_OK;
}

eddy_status eddy_sim_step(eddy_sim *s) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    return step_dt(s, eddy__choose_dt(s));
}

eddy_status eddy_sim_advance(eddy_sim *s, double duration) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    if (!isfinite(duration) || duration < 0)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "duration = %g: must be finite and >= 0 seconds", duration);
    double end = s->time + duration;
    /* at a large time (a loaded state, say) a double no longer resolves the duration or a substep: the loop below
     * returned having done nothing, or stepped for ever without the time moving */
    if (duration > 0 && !(end > s->time))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "advance: duration = %g s is below the resolution of the time %.17g s; "
                          "nothing was done", duration, s->time);
    /* steps are never longer than dt or max_dt: a duration that needs more steps than a call takes is refused whole */
    const double longest = s->def.dt > 0 ? s->def.dt : s->def.max_dt;
    if (duration / longest > (double)EDDY__ADVANCE_STEP_LIMIT)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "advance: duration = %g s needs at least %.3g steps of %g s (%s), more "
                          "than the %ld one call takes; nothing was done", duration, ceil(duration / longest), longest,
                          s->def.dt > 0 ? "dt" : "max_dt", (long)EDDY__ADVANCE_STEP_LIMIT);
    const long first_step = s->step;
    while (end - s->time > 1e-9 * (duration > 1 ? duration : 1)) {
        double remaining = end - s->time;
        double dt = eddy__choose_dt(s);
        /* split the remainder evenly so the last substep is never a sliver */
        double k = ceil(remaining / dt - 1e-6);
        if (k < 1) k = 1;
        /* a huge velocity that does not decay (uniform, periodic) keeps the CFL step tiny (1e10 m/s at h = 0.1 m:
         * 1e-11 s), and one frame took ~1e9 steps: the call did not come back */
        if (s->step - first_step >= EDDY__ADVANCE_STEP_LIMIT)
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "advance: stopped after %ld steps, the most one call takes, at "
                              "t = %.17g s with %g s left in steps of %g s (the %s); the steps taken stand",
                              s->step - first_step, s->time, remaining, dt, s->def.dt > 0 ? "fixed dt" : "CFL limit: a huge velocity");
        const float substep = (float)(remaining / k);
        if (!(s->time + substep > s->time))
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "advance: at time %.17g s a step of %g s does not change the time "
                              "(below a double's resolution there); stopped after %ld steps", s->time, (double)substep,
                              s->step - first_step);
        eddy_status st = step_dt(s, substep);
        if (st != EDDY_OK) return st;
        if (k == 1) s->time = end; /* absorb float rounding of the last substep */
    }
    s->stats.time = s->time;
    return EDDY_OK;
}

eddy_status eddy_sim_project(eddy_sim *s) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    s->error[0] = '\0';
    eddy_status st = eddy__solids_current(s);
    if (st != EDDY_OK) return st;
    if (s->backend_ops) return s->backend_ops->project(s);
    eddy__apply_velocity_boundaries(s);
    float dt = s->def.dt > 0 ? s->def.dt : eddy__choose_dt(s);
    st = eddy__project(s, dt);
    if (st != EDDY_OK) return st;
    eddy__apply_velocity_boundaries(s);
    return eddy__check_finite(s, EDDY_STAGE_PROJECT, EDDY_CHECK_VELOCITY | EDDY_CHECK_PRESSURE);
}

eddy_status eddy_sim_update_diagnostics(eddy_sim *s) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st = eddy__solids_current(s);
    if (st != EDDY_OK) return st;
    if (s->backend_ops) return s->backend_ops->diagnostics(s, s->stats.dt > 0 ? s->stats.dt : eddy__choose_dt(s));
    return eddy__diagnostics(s, s->stats.dt > 0 ? s->stats.dt : eddy__choose_dt(s));
}

/* Nonzero when some value of p[0..n) is NaN or infinite (exponent bits all ones). Tested on the bit patterns,
 * four at a time with GCC vector extensions, so the scan costs about one instruction per value; an integer OR
 * reduction is exact, so the answer does not depend on the thread count. */
static uint32_t any_non_finite(const float *p, size_t n, int threads) {
    const uint32_t E = 0x7f800000u;
    const size_t block = 4096;
    size_t blocks = (n + block - 1) / block;
    uint32_t bad = 0;
#pragma omp parallel for reduction(| : bad) num_threads(threads) schedule(static) if (n > 65536)
    for (size_t bi = 0; bi < blocks; bi++) {
        size_t i = bi * block, end = i + block < n ? i + block : n;
        uint32_t acc = 0;
#if defined(__GNUC__)
        typedef uint32_t v4u __attribute__((vector_size(16)));
        v4u e = {E, E, E, E}, vacc = {0, 0, 0, 0};
        for (; i + 4 <= end; i += 4) {
            v4u v;
            memcpy(&v, &p[i], sizeof v);
            vacc |= (v4u)((v & e) == e);
        }
        acc = vacc[0] | vacc[1] | vacc[2] | vacc[3];
#endif
        for (; i < end; i++) {
            uint32_t b;
            memcpy(&b, &p[i], sizeof b);
            acc |= (b & E) == E;
        }
        bad |= acc;
    }
    return bad;
}

eddy_status eddy__check_finite(eddy_sim *s, eddy_stage stage, unsigned fields) {
    if (!fields) return EDDY_OK;
    const unsigned V = EDDY_CHECK_VELOCITY, D = EDDY_CHECK_DYE;
    struct { const char *name; const float *p; size_t n; unsigned kind; } f[] = {
        {"u", s->vel[0], s->nface[0], V}, {"v", s->vel[1], s->nface[1], V}, {"w", s->vel[2], s->nface[2], V},
        {"pressure", s->pressure, s->ncells, EDDY_CHECK_PRESSURE}, {"dye_r", s->dye[0], s->nscalar, D},
        {"dye_g", s->dye[1], s->nscalar, D}, {"dye_b", s->dye[2], s->nscalar, D},
        {"temperature", s->temperature, s->nscalar, EDDY_CHECK_TEMPERATURE}};
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        if (!f[k].p || !(f[k].kind & fields)) continue;
        if (any_non_finite(f[k].p, f[k].n, EDDY_THREADS(s)))
            return eddy__fail(s, EDDY_ERR_NON_FINITE, "non-finite %s after stage '%s' in step %ld (t = %g s)", f[k].name,
                              eddy_stage_name(stage), s->step + 1, s->time);
    }
    return EDDY_OK;
}
