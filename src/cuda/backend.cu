/* The CUDA backend: a simulation whose fields live on an NVIDIA GPU. It allocates the device copies of every
 * field, installs the hooks of eddy_backend_ops (sim_internal.h) and runs the step of sim.c stage by stage as
 * kernels on one stream:
 *   sources (rasterise solids, emitters) -> boundaries -> forces (buoyancy, vorticity) -> advect -> boundaries
 *   -> diffuse -> boundaries (skipped when the diffusion did nothing) -> project -> boundaries -> diagnostics
 * The host waits once per step, at its end (plus once per pressure-solver convergence check where the device does
 * not decide the solve's end itself), to read the diagnostics, the pressure statistics and the non-finite flags
 * that the kernels raise. Host arrays of the
 * simulation are mirrors, refreshed per field only when the host reads them (fields, sampling, save). */
#include "cu_sim.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

using namespace ecu;

/* ------------------------------------------------------------------ errors and memory */
eddy_status ecu::cuda_fail(cu_sim *c, cudaError_t e, const char *what) {
    eddy_status st = e == cudaErrorMemoryAllocation ? EDDY_ERR_OUT_OF_MEMORY : EDDY_ERR_UNSUPPORTED;
    return eddy__fail(c->s, st, "cuda: %s: %s (%s)", what, cudaGetErrorString(e), cudaGetErrorName(e));
}

eddy_status ecu::dev_alloc(cu_sim *c, void **p, size_t bytes, const char *what) {
    *p = nullptr;
    if (bytes == 0) return EDDY_OK;
    cudaError_t e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        *p = nullptr;
        (void)cudaGetLastError();
        return eddy__fail(c->s, EDDY_ERR_OUT_OF_MEMORY, "cuda: cannot allocate %zu bytes of device memory for %s: %s",
                          bytes, what, cudaGetErrorString(e));
    }
    return EDDY_OK;
}

#define CU_TRY(call, what)                                                   \
    do {                                                                     \
        cudaError_t e_ = (call);                                             \
        if (e_ != cudaSuccess) return cuda_fail(c, e_, what);                \
    } while (0)

static cu_sim *CS(eddy_sim *s) { return (cu_sim *)s->backend; }

/* eddy_sim_set_def may change boundary values and the tunables: the device copies follow the definition */
static void refresh_geo(eddy_sim *s, cu_sim *c) {
    for (int f = 0; f < 6; f++) {
        const eddy_boundary *b = &s->def.boundary[f];
        for (int q = 0; q < 3; q++) {
            c->g.bvel[f][q] = b->velocity[q];
            c->g.bdye[f][q] = b->dye[q];
        }
        c->g.btemp[f] = b->temperature;
    }
}


/* ------------------------------------------------------------------ device discovery */
extern "C" int eddy__cuda_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" int eddy__cuda_describe(char *msg, size_t msg_size) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        if (msg && msg_size)
            snprintf(msg, msg_size, "no CUDA device (%s)", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
        (void)cudaGetLastError();
        return 0;
    }
    int dev = 0;
    cudaGetDevice(&dev);
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        if (msg && msg_size) snprintf(msg, msg_size, "CUDA device %d cannot be queried", dev);
        return 0;
    }
    if (msg && msg_size)
        snprintf(msg, msg_size, "%s, %d SMs, %.1f GiB, compute %d.%d", p.name, p.multiProcessorCount,
                 (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.major, p.minor);
    return 1;
}

/* ------------------------------------------------------------------ host mirrors */
struct Mirror {
    float *host;
    float *dev;
    size_t n;
};
/* the stored float arrays behind one EDDY_SYNC bit */
static int mirrors(eddy_sim *s, cu_sim *c, unsigned bit, Mirror m[4]) {
    switch (bit) {
    case 1u << EDDY_FIELD_U: m[0] = {s->vel[0], c->vel[0], c->nface[0]}; return 1;
    case 1u << EDDY_FIELD_V: m[0] = {s->vel[1], c->vel[1], c->nface[1]}; return 1;
    case 1u << EDDY_FIELD_W: m[0] = {s->vel[2], c->vel[2], c->nface[2]}; return s->dim == 3;
    case 1u << EDDY_FIELD_PRESSURE: m[0] = {s->pressure, c->pressure, c->ncells}; return 1;
    case 1u << EDDY_FIELD_DYE_R: m[0] = {s->dye[0], c->dye[0], c->nscalar}; return 1;
    case 1u << EDDY_FIELD_DYE_G: m[0] = {s->dye[1], c->dye[1], c->nscalar}; return 1;
    case 1u << EDDY_FIELD_DYE_B: m[0] = {s->dye[2], c->dye[2], c->nscalar}; return 1;
    case 1u << EDDY_FIELD_TEMPERATURE: m[0] = {s->temperature, c->temp, c->nscalar}; return 1;
    case EDDY_SYNC_SOLID:
        for (int a = 0; a < 3; a++) m[a] = {s->solid_vel[a], c->solid_vel[a], c->ncells};
        return 3; /* the solid bytes are copied separately */
    }
    return 0;
}

static eddy_status cu_fetch(eddy_sim *s, unsigned fields) {
    cu_sim *c = CS(s);
    unsigned need = fields & ~c->host_valid;
    for (unsigned bit = 1; bit && need; bit <<= 1) {
        if (!(need & bit)) continue;
        Mirror m[4];
        int cnt = mirrors(s, c, bit, m);
        for (int q = 0; q < cnt; q++)
            CU_TRY(cudaMemcpyAsync(m[q].host, m[q].dev, m[q].n * sizeof(float), cudaMemcpyDeviceToHost, c->stream),
                   "copying a field to the host");
        if (bit == EDDY_SYNC_SOLID)
            CU_TRY(cudaMemcpyAsync(s->solid, c->solid, c->ncells, cudaMemcpyDeviceToHost, c->stream), "copying solids to the host");
        need &= ~bit;
    }
    CU_TRY(cudaStreamSynchronize(c->stream), "waiting for a copy to the host");
    c->host_valid |= fields;
    return EDDY_OK;
}

static eddy_status cu_upload(eddy_sim *s, unsigned fields) {
    cu_sim *c = CS(s);
    for (unsigned bit = 1; bit; bit <<= 1) {
        if (!(fields & bit)) continue;
        Mirror m[4];
        int cnt = mirrors(s, c, bit, m);
        for (int q = 0; q < cnt; q++)
            CU_TRY(cudaMemcpyAsync(m[q].dev, m[q].host, m[q].n * sizeof(float), cudaMemcpyHostToDevice, c->stream),
                   "copying a field to the device");
        if (bit == EDDY_SYNC_SOLID) {
            CU_TRY(cudaMemcpyAsync(c->solid, s->solid, c->ncells, cudaMemcpyHostToDevice, c->stream), "copying solids to the device");
            c->raster_valid = 0;
        }
    }
    for (int f = 0; f < 4; f++)
        if (fields & (1u << (EDDY_FIELD_DYE_R + f))) c->scalar_live |= 1u << f;
    c->host_valid |= fields;
    /* velocities written by the host (eddy_sim_write_field): the device applies the boundary conditions, with the
     * solid cells it rasterised (the host's solid-face list follows only the CPU rasteriser) */
    if (fields & EDDY_SYNC_VELOCITY) {
        refresh_geo(s, c);
        CU_TRY(launch_velocity_boundaries(c), "velocity boundaries");
        c->host_valid &= ~(unsigned)EDDY_SYNC_VELOCITY;
    }
    /* pageable sources: the copies above have read them once they return, but wait so errors show here */
    CU_TRY(cudaStreamSynchronize(c->stream), "waiting for a copy to the device");
    return EDDY_OK;
}

/* ------------------------------------------------------------------ solids, sources */
/* room for `count` shapes in the host staging list and, when dev is given, in that device list */
static eddy_status ensure_shapes(cu_sim *c, DShape **dev, int *cap, int count) {
    if (count > c->stage_cap) {
        int ncap = count < 8 ? 8 : 2 * count;
        DShape *p = (DShape *)realloc(c->stage_shapes, (size_t)ncap * sizeof(DShape));
        if (!p) return eddy__fail(c->s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory for %d shapes", count);
        c->stage_shapes = p;
        c->stage_cap = ncap;
    }
    if (dev && count > *cap) {
        int ncap = count < 8 ? 8 : 2 * count;
        CU_TRY(cudaFree(*dev), "freeing the shape list");
        *dev = nullptr;
        *cap = 0;
        eddy_status st = dev_alloc(c, (void **)dev, (size_t)ncap * sizeof(DShape), "the shape list");
        if (st != EDDY_OK) return st;
        *cap = ncap;
    }
    return EDDY_OK;
}

static eddy_status send_user_mask(eddy_sim *s, cu_sim *c) {
    if (c->mask_version == s->mask_version) return EDDY_OK;
    if (s->user_mask) {
        if (!c->user_mask) {
            eddy_status st = dev_alloc(c, (void **)&c->user_mask, c->ncells, "the solid mask");
            if (st != EDDY_OK) return st;
        }
        /* pageable source: staged before the call returns, so a later mask change cannot race it */
        CU_TRY(cudaMemcpyAsync(c->user_mask, s->user_mask, c->ncells, cudaMemcpyHostToDevice, c->stream), "sending the solid mask");
    }
    c->mask_version = s->mask_version;
    return EDDY_OK;
}

static eddy_status cu_rasterize(eddy_sim *s) {
    cu_sim *c = CS(s);
    bool any_sdf = false;
    for (int o = 0; o < s->obstacle_count; o++) any_sdf = any_sdf || s->obstacles[o].def.shape == EDDY_SHAPE_SDF;
    if (any_sdf) {
        /* SDF callbacks are host functions: rasterise on the host and send solid + solid_vel */
        c->raster_valid = 0;
        eddy_status st = eddy__rasterize_solids_cpu(s);
        if (st != EDDY_OK) return st;
        return cu_upload(s, EDDY_SYNC_SOLID);
    }
    bool same_mask = c->mask_version == s->mask_version;
    eddy_status st = send_user_mask(s, c);
    if (st != EDDY_OK) return st;
    int n = s->obstacle_count;
    if ((st = ensure_shapes(c, &c->obst, &c->obst_cap, n)) != EDDY_OK) return st;
    for (int o = 0; o < n; o++) {
        const eddy_obstacle_def *d = &s->obstacles[o].def;
        DShape &x = c->stage_shapes[o];
        memset(&x, 0, sizeof x);
        x.shape = (int)d->shape;
        x.radius = d->radius;
        for (int a = 0; a < 3; a++) {
            x.center[a] = d->center[a];
            x.half_size[a] = d->half_size[a];
            x.axis[a] = d->axis[a];
            x.velocity[a] = d->velocity[a];
        }
    }
    /* the same shapes, velocities and mask as the last rasterisation give the same cells: nothing to do */
    if (c->raster_valid && same_mask && n == c->raster_n &&
        (n == 0 || memcmp(c->raster_sig, c->stage_shapes, (size_t)n * sizeof(DShape)) == 0))
        return EDDY_OK;
    if (n) CU_TRY(cudaMemcpyAsync(c->obst, c->stage_shapes, (size_t)n * sizeof(DShape), cudaMemcpyHostToDevice, c->stream), "sending obstacles");
    CU_TRY(launch_rasterize(c, n), "rasterising obstacles");
    c->host_valid &= ~(unsigned)EDDY_SYNC_SOLID;
    if (n > c->raster_cap) {
        DShape *p = (DShape *)realloc(c->raster_sig, (size_t)n * sizeof(DShape));
        if (!p) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
        c->raster_sig = p;
        c->raster_cap = n;
    }
    if (n) memcpy(c->raster_sig, c->stage_shapes, (size_t)n * sizeof(DShape));
    c->raster_n = n;
    c->raster_valid = 1;
    return EDDY_OK;
}

static eddy_status run_emitters(eddy_sim *s, cu_sim *c, float dt) {
    int n = s->emitter_count;
    if (n == 0) return EDDY_OK;
    /* each emitter is one launch with its shape passed by value (k_sources.cu): only the host staging list */
    eddy_status st = ensure_shapes(c, nullptr, nullptr, n);
    if (st != EDDY_OK) return st;
    for (int e = 0; e < n; e++) {
        const eddy_emitter_def *d = &s->emitters[e].def;
        DShape &x = c->stage_shapes[e];
        memset(&x, 0, sizeof x);
        x.shape = (int)d->shape;
        x.radius = d->radius;
        for (int a = 0; a < 3; a++) {
            x.center[a] = d->center[a];
            x.half_size[a] = d->half_size[a];
            x.velocity[a] = d->velocity[a];
            x.dye[a] = d->dye[a];
        }
        x.temperature = d->temperature;
        x.set_velocity = d->set_velocity;
        for (int q = 0; q < 3; q++)
            if (d->dye[q] != 0.0f) c->scalar_live |= 1u << q;
        if (d->temperature != 0.0f) c->scalar_live |= 8u;
    }
    CU_TRY(launch_emitters(c, n, dt), "emitters");
    return EDDY_OK;
}

static eddy_status cu_splat(eddy_sim *s, const eddy_splat *sp, const float center[3]) {
    cu_sim *c = CS(s);
    c->slot = -1;
    refresh_geo(s, c);
    int overflow_at = -2;
    CU_TRY(launch_splat(c, sp, center, &overflow_at), "splat");
    if (overflow_at != -2) return eddy__splat_overflow(s, sp, overflow_at);
    for (int q = 0; q < 3; q++)
        if (sp->dye[q] != 0.0f) c->scalar_live |= 1u << q;
    if (sp->temperature != 0.0f) c->scalar_live |= 8u;
    CU_TRY(launch_velocity_boundaries(c), "velocity boundaries");
    CU_TRY(launch_scalar_boundaries(c), "scalar boundaries");
    c->host_valid &= ~(unsigned)(EDDY_SYNC_VELOCITY | (1u << EDDY_FIELD_DYE_R) | (1u << EDDY_FIELD_DYE_G) |
                                 (1u << EDDY_FIELD_DYE_B) | (1u << EDDY_FIELD_TEMPERATURE));
    return EDDY_OK;
}

/* ------------------------------------------------------------------ reading results */
static eddy_status read_back(cu_sim *c) {
    CU_TRY(cudaMemcpyAsync(c->h_rb, c->d_rb, sizeof(Readback), cudaMemcpyDeviceToHost, c->stream), "reading results");
    CU_TRY(cudaStreamSynchronize(c->stream), "running the step");
    return EDDY_OK;
}

static float cu_max_face_speed(eddy_sim *s) {
    cu_sim *c = CS(s);
    if (launch_max_face(c) != cudaSuccess || read_back(c) != EDDY_OK) return 0.0f; /* error kept in s->error */
    return (float)c->h_rb->red[R_MAXVEL];
}

static void fill_diagnostics(eddy_sim *s, cu_sim *c, float dt) {
    const double *r = c->h_rb->red;
    eddy_step_stats *st = &s->stats;
    double energy = r[R_ENERGY0] + r[R_ENERGY1] + r[R_ENERGY2];
    double maxface = fmax(fmax(r[R_MAXFACE0], r[R_MAXFACE1]), r[R_MAXFACE2]);
    double cell_volume = (double)s->h * s->h * (s->dim == 3 ? s->h : 1.0);
    double scalar_volume = (double)s->sh[0] * s->sh[1] * (s->dim == 3 ? s->sh[2] : 1.0);
    st->max_div = (float)r[R_MAXDIV];
    st->rms_div = r[R_FLUID] > 0 ? (float)sqrt(r[R_SUMDIV2] / r[R_FLUID]) : 0.0f;
    st->kinetic_energy = 0.5 * energy * cell_volume;
    st->dye_total = r[R_DYE] * scalar_volume;
    st->max_speed = (float)sqrt(r[R_MAXSPEED2]);
    st->cfl = (float)(maxface * dt / s->h);
}

static const eddy_stage slot_stage[SLOT_COUNT] = {
    EDDY_STAGE_SOURCES, EDDY_STAGE_BOUNDARY, EDDY_STAGE_FORCES,  EDDY_STAGE_ADVECT,      EDDY_STAGE_BOUNDARY, EDDY_STAGE_DIFFUSE,
    EDDY_STAGE_BOUNDARY, EDDY_STAGE_PROJECT, EDDY_STAGE_BOUNDARY, EDDY_STAGE_DIAGNOSTICS, EDDY_STAGE_BOUNDARY};

/* the first slot (in step order) whose kernels wrote a non-finite value, as the CPU's check_finite names it */
static eddy_status check_flags(eddy_sim *s, cu_sim *c, int upto) {
    for (int sl = 0; sl <= upto && sl < SLOT_COUNT; sl++) {
        int w = c->h_rb->flags[sl];
        if (!w) continue;
        int f = 0;
        while (!(w & (1 << f))) f++;
        return eddy__fail(s, EDDY_ERR_NON_FINITE, "non-finite %s after stage '%s' in step %ld (t = %g s)",
                          f == ecu::FLAG_ANY_VELOCITY ? "velocity" : eddy_field_name((eddy_field)f),
                          eddy_stage_name(slot_stage[sl]), s->step + 1, s->time);
    }
    return EDDY_OK;
}

static eddy_status cu_diagnostics(eddy_sim *s, float dt) {
    cu_sim *c = CS(s);
    CU_TRY(launch_diagnostics(c), "diagnostics");
    eddy_status st = read_back(c);
    if (st != EDDY_OK) return st;
    fill_diagnostics(s, c, dt);
    if (!isfinite(s->stats.kinetic_energy) || !isfinite(s->stats.dye_total))
        return eddy__fail(s, EDDY_ERR_NON_FINITE, "non-finite diagnostics in step %ld", s->step);
    return EDDY_OK;
}

/* ------------------------------------------------------------------ the step */
static eddy_status boundaries(cu_sim *c) {
    for (int f = 0; f < 2 * c->g.dim; f++) {
        if (c->g.btype[f] != EDDY_BOUNDARY_INFLOW) continue;
        for (int q = 0; q < 3; q++)
            if (c->g.bdye[f][q] != 0.0f) c->scalar_live |= 1u << q;
        if (c->g.btemp[f] != 0.0f) c->scalar_live |= 8u;
    }
    CU_TRY(launch_velocity_boundaries(c), "velocity boundaries");
    CU_TRY(launch_scalar_boundaries(c), "scalar boundaries");
    return EDDY_OK;
}

static eddy_status run_stage(eddy_sim *s, cu_sim *c, eddy_cuda_stage stage, float dt) {
    refresh_geo(s, c);
    eddy_status est;
    switch (stage) {
    case EDDY_CUDA_RASTERIZE: return cu_rasterize(s);
    case EDDY_CUDA_EMITTERS: return run_emitters(s, c, dt);
    case EDDY_CUDA_BOUNDARIES: return boundaries(c);
    case EDDY_CUDA_BUOYANCY: CU_TRY(launch_buoyancy(c, dt), "buoyancy"); return EDDY_OK;
    case EDDY_CUDA_VORTICITY:
        CU_TRY(launch_vorticity(c, dt), "vorticity confinement");
        return EDDY_OK;
    case EDDY_CUDA_ADVECT:
        if ((est = advect_init(c)) != EDDY_OK) return est;
        CU_TRY(launch_advect(c, dt), "advection");
        return EDDY_OK;
    case EDDY_CUDA_DIFFUSE:
        if ((est = diffuse_init(c)) != EDDY_OK) return est;
        CU_TRY(launch_diffuse(c, dt), "diffusion");
        return EDDY_OK;
    case EDDY_CUDA_PROJECT: {
        eddy_status st = run_project(c, dt);
        if (st == EDDY_OK) st = read_back(c);
        if (st == EDDY_OK) finish_project_stats(c);
        return st;
    }
    case EDDY_CUDA_DIAGNOSTICS: CU_TRY(launch_diagnostics(c), "diagnostics"); return EDDY_OK;
    case EDDY_CUDA_STAGE_COUNT: break;
    }
    return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "cuda: stage %d does not exist", (int)stage);
}

static eddy_status sources_stage(eddy_sim *s, cu_sim *c, float dt) {
    eddy_status st = cu_rasterize(s);
    return st != EDDY_OK ? st : run_emitters(s, c, dt);
}

static eddy_status forces_stage(eddy_sim *s, cu_sim *c, float dt) {
    eddy_status st = run_stage(s, c, EDDY_CUDA_BUOYANCY, dt);
    return st != EDDY_OK ? st : run_stage(s, c, EDDY_CUDA_VORTICITY, dt);
}

#define STEP_STAGE(sl, body)                                                             \
    do {                                                                                 \
        c->slot = (sl);                                                                  \
        eddy_status st_ = (body);                                                        \
        if (st_ != EDDY_OK) return st_;                                                  \
        CU_TRY(cudaEventRecord(c->ev[(sl) + 1], c->stream), "recording a stage event"); \
    } while (0)

static eddy_status cu_step(eddy_sim *s, float dt) {
    cu_sim *c = CS(s);
    double t0 = eddy__now_ms();
    for (int i = 0; i < EDDY_STAGE_COUNT; i++) s->stats.stage_ms[i] = 0;
    s->stats.dt = dt;
    CU_TRY(cudaMemsetAsync(c->d_rb->flags, 0, sizeof c->d_rb->flags, c->stream), "clearing flags");
    CU_TRY(cudaEventRecord(c->ev[0], c->stream), "recording a stage event");
    c->host_valid = 0;
    refresh_geo(s, c);
    STEP_STAGE(SLOT_SOURCES, sources_stage(s, c, dt));
    STEP_STAGE(SLOT_BOUNDARY1, boundaries(c));
    STEP_STAGE(SLOT_FORCES, forces_stage(s, c, dt));
    STEP_STAGE(SLOT_ADVECT, run_stage(s, c, EDDY_CUDA_ADVECT, dt));
    STEP_STAGE(SLOT_BOUNDARY2, boundaries(c));
    STEP_STAGE(SLOT_DIFFUSE, run_stage(s, c, EDDY_CUDA_DIFFUSE, dt));
    /* the boundaries again only where the diffusion may have changed a field: they are idempotent (every value they
     * set depends on the geometry alone), so after a diffusion that queued nothing they would rewrite the values of
     * the stage before it (cuda_notes 123) */
    const eddy_sim_def &dd = s->def;
    const bool diffused = dd.viscosity > 0 || dd.dye_diffusion > 0 || dd.temperature_diffusion > 0;
    STEP_STAGE(SLOT_BOUNDARY3, diffused ? boundaries(c) : EDDY_OK);
    /* the projection queues its end without waiting for the solve's decision (cuda_notes 120): the read-back below
     * brings it with the step's figures; the boundaries and diagnostics queued meanwhile are queued again after a
     * refinement (the boundaries change nothing the correction changed: it leaves every fixed face alone) */
    STEP_STAGE(SLOT_PROJECT, run_project(c, dt, true));
    STEP_STAGE(SLOT_BOUNDARY4, boundaries(c));
    STEP_STAGE(SLOT_DIAGNOSTICS, run_stage(s, c, EDDY_CUDA_DIAGNOSTICS, dt));
    eddy_status st = read_back(c);
    if (st != EDDY_OK) return st;
    int redo = 0;
    c->slot = SLOT_PROJECT;
    if ((st = project_resume(c, &redo)) != EDDY_OK) return st;
    if (redo) {
        CU_TRY(cudaEventRecord(c->ev[SLOT_PROJECT + 1], c->stream), "recording a stage event");
        STEP_STAGE(SLOT_BOUNDARY4, boundaries(c));
        STEP_STAGE(SLOT_DIAGNOSTICS, run_stage(s, c, EDDY_CUDA_DIAGNOSTICS, dt));
        if ((st = read_back(c)) != EDDY_OK) return st;
    }
    for (int sl = 0; sl <= SLOT_DIAGNOSTICS; sl++) {
        float ms = 0;
        if (cudaEventElapsedTime(&ms, c->ev[sl], c->ev[sl + 1]) == cudaSuccess) s->stats.stage_ms[slot_stage[sl]] += ms;
    }
    if ((st = check_flags(s, c, SLOT_BOUNDARY4)) != EDDY_OK) return st;
    finish_project_stats(c);
    s->time += dt;
    s->step++;
    fill_diagnostics(s, c, dt);
    if (!isfinite(s->stats.kinetic_energy) || !isfinite(s->stats.dye_total))
        return eddy__fail(s, EDDY_ERR_NON_FINITE, "non-finite diagnostics in step %ld", s->step);
    s->stats.step = s->step;
    s->stats.time = s->time;
    s->stats.step_ms = eddy__now_ms() - t0;
    return EDDY_OK;
}

static eddy_status cu_project(eddy_sim *s) {
    cu_sim *c = CS(s);
    CU_TRY(cudaMemsetAsync(c->d_rb->flags, 0, sizeof c->d_rb->flags, c->stream), "clearing flags");
    c->slot = SLOT_PROJECT;
    refresh_geo(s, c);
    eddy_status st = cu_rasterize(s);
    if (st != EDDY_OK) return st;
    CU_TRY(launch_velocity_boundaries(c), "velocity boundaries");
    float dt = s->def.dt > 0 ? s->def.dt : eddy__choose_dt(s);
    if ((st = run_project(c, dt)) != EDDY_OK) return st;
    CU_TRY(launch_velocity_boundaries(c), "velocity boundaries");
    c->host_valid &= ~(unsigned)(EDDY_SYNC_VELOCITY | (1u << EDDY_FIELD_PRESSURE));
    if ((st = read_back(c)) != EDDY_OK) return st;
    finish_project_stats(c);
    return check_flags(s, c, SLOT_COUNT - 1);
}

/* ------------------------------------------------------------------ create / destroy */
static void cu_destroy(eddy_sim *s) {
    cu_sim *c = CS(s);
    if (!c) return;
    if (c->stream) cudaStreamSynchronize(c->stream);
    advect_free(c);
    diffuse_free(c);
    project_free(c);
    void *bufs[] = {c->vel[0], c->vel[1], c->vel[2], c->vel_tmp[0], c->vel_tmp[1], c->vel_tmp[2], c->pressure,
                    c->dye[0], c->dye[1], c->dye[2], c->temp, c->scalar_tmp, c->solid, c->user_mask,
                    c->solid_vel[0], c->solid_vel[1], c->solid_vel[2], c->obst, c->partials, c->d_rb};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) cudaFree(bufs[i]);
    if (c->h_rb) cudaFreeHost(c->h_rb);
    for (int i = 0; i < 16; i++)
        if (c->ev[i]) cudaEventDestroy(c->ev[i]);
    if (c->stream) cudaStreamDestroy(c->stream);
    free(c->stage_shapes);
    free(c->raster_sig);
    free(c);
    s->backend = nullptr;
    s->backend_ops = nullptr;
}

static const eddy_backend_ops cuda_ops = {
    "cuda", cu_destroy, cu_step, cu_project, cu_diagnostics, cu_max_face_speed, cu_splat, cu_rasterize, cu_fetch, cu_upload,
};

static size_t blocks_of(int nx, int ny, int nz) { dim3 t = tiles(nx, ny, nz); return ECU_BLOCKS(t); }

extern "C" eddy_status eddy__cuda_attach(eddy_sim *s) {
    char why[256];
    if (!eddy__cuda_describe(why, sizeof why)) return eddy__fail(s, EDDY_ERR_UNSUPPORTED, "backend = cuda: %s", why);
    cu_sim *c = (cu_sim *)calloc(1, sizeof *c);
    if (!c) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    c->s = s;
    c->adv_feet = 1;
    c->prolong8_cells = PROLONG8_CELLS;
    c->fused_end = 1;
    s->backend = c;
    s->backend_ops = &cuda_ops;
    Geo &g = c->g;
    g.dim = s->dim;
    g.h = s->h;
    for (int a = 0; a < 3; a++) {
        g.n[a] = s->n[a];
        g.sn[a] = s->sn[a];
        g.ds[a] = s->def.dye_scale[a];
        g.sh[a] = s->sh[a];
        g.origin[a] = s->origin[a];
        g.periodic[a] = s->periodic[a];
    }
    for (int f = 0; f < 6; f++) {
        const eddy_boundary *b = &s->def.boundary[f];
        g.btype[f] = (int)b->type;
        for (int q = 0; q < 3; q++) {
            g.bvel[f][q] = b->velocity[q];
            g.bdye[f][q] = b->dye[q];
        }
        g.btemp[f] = b->temperature;
    }
    /* launch shapes: z in gridDim.z and y / 8 in gridDim.y (65535 each) */
    for (int a = 0; a < 3; a++) {
        int lim = a == 2 ? 65535 : (a == 1 ? 65535 * BY : (1 << 30));
        if (g.n[a] + 1 > lim || g.sn[a] > lim) {
            eddy_status st = eddy__fail(s, EDDY_ERR_UNSUPPORTED, "backend = cuda: grid[%d] = %d (scalar %d) exceeds the %d the kernels' launch shape allows",
                                        a, g.n[a], g.sn[a], lim - 1);
            cu_destroy(s);
            return st;
        }
    }
    /* 32-bit indexing on the device: the largest array (padded pressure levels, faces, scalars) below 2^31 */
    {
        double padded = 1, faces = 1;
        for (int a = 0; a < 3; a++) {
            padded *= a < g.dim ? g.n[a] + 2.0 : 1.0;
            faces *= g.n[a] + 1.0;
        }
        if (padded >= 2147483647.0 || faces >= 2147483647.0 || (double)s->nscalar >= 2147483647.0) {
            eddy_status st = eddy__fail(s, EDDY_ERR_UNSUPPORTED, "backend = cuda: a %d x %d x %d grid (scalars %d x %d x %d) has arrays of "
                                        "2^31 elements or more, beyond the kernels' 32-bit indexing",
                                        g.n[0], g.n[1], g.n[2], g.sn[0], g.sn[1], g.sn[2]);
            cu_destroy(s);
            return st;
        }
    }
    c->ncells = s->ncells;
    c->nscalar = s->nscalar;
    for (int a = 0; a < 3; a++) c->nface[a] = s->nface[a];
    eddy_status st = EDDY_OK;
    cudaError_t e = cudaGetDevice(&c->device);
    if (e == cudaSuccess) e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
    for (int i = 0; i < 16 && e == cudaSuccess; i++) e = cudaEventCreate(&c->ev[i]);
    if (e == cudaSuccess) e = cudaMallocHost((void **)&c->h_rb, sizeof(Readback));
    if (e != cudaSuccess) {
        st = cuda_fail(c, e, "creating the stream");
        cu_destroy(s);
        return st;
    }
    size_t nf = sizeof(float);
    /* the velocity and the solid cells with a tail of 16 bytes: 2D vorticity copies rows in whole 16-byte units
     * (vort_ring.cuh), up to 15 bytes past a row's run */
    const size_t tail = 16;
    struct { void **p; size_t bytes; const char *what; } allocs[] = {
        {(void **)&c->vel[0], c->nface[0] * nf + tail, "u"}, {(void **)&c->vel[1], c->nface[1] * nf + tail, "v"},
        {(void **)&c->vel[2], c->nface[2] * nf + tail, "w"}, {(void **)&c->vel_tmp[0], c->nface[0] * nf + tail, "scratch u"},
        {(void **)&c->vel_tmp[1], c->nface[1] * nf + tail, "scratch v"}, {(void **)&c->vel_tmp[2], c->nface[2] * nf + tail, "scratch w"},
        {(void **)&c->pressure, c->ncells * nf, "pressure"}, {(void **)&c->dye[0], c->nscalar * nf, "dye"},
        {(void **)&c->dye[1], c->nscalar * nf, "dye"}, {(void **)&c->dye[2], c->nscalar * nf, "dye"},
        {(void **)&c->temp, c->nscalar * nf, "temperature"}, {(void **)&c->scalar_tmp, c->nscalar * nf, "scalar scratch"},
        {(void **)&c->solid, c->ncells + tail, "solid cells"}, {(void **)&c->solid_vel[0], c->ncells * nf, "solid velocity"},
        {(void **)&c->solid_vel[1], c->ncells * nf, "solid velocity"}, {(void **)&c->solid_vel[2], c->ncells * nf, "solid velocity"},
        {(void **)&c->d_rb, sizeof(Readback), "results"}};
    for (size_t i = 0; i < sizeof allocs / sizeof allocs[0] && st == EDDY_OK; i++)
        st = dev_alloc(c, allocs[i].p, allocs[i].bytes, allocs[i].what);
    /* partials: the largest launch of any reduction */
    size_t pb = 3 * 1024;
    size_t cand[] = {blocks_of(g.n[0], g.n[1], g.n[2]), blocks_of(g.n[0] + 1, g.n[1], g.n[2]),
                     blocks_of(g.n[0], g.n[1] + 1, g.n[2]), blocks_of(g.n[0], g.n[1], g.n[2] + 1),
                     blocks_of(g.sn[0], g.sn[1], g.sn[2])};
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) pb = cand[i] > pb ? cand[i] : pb;
    c->partial_stride = pb;
    if (st == EDDY_OK) st = dev_alloc(c, (void **)&c->partials, (size_t)R_COUNT * pb * sizeof(double), "reduction partials");
    if (st == EDDY_OK) st = advect_init(c);
    if (st == EDDY_OK) st = diffuse_init(c);
    if (st == EDDY_OK) st = project_init(c);
    if (st == EDDY_OK && cudaMemsetAsync(c->d_rb, 0, sizeof(Readback), c->stream) != cudaSuccess)
        st = cuda_fail(c, cudaGetLastError(), "clearing results");
    c->mask_version = s->mask_version - 1; /* send the mask (if any) with the first rasterisation */
    if (st == EDDY_OK) st = cu_upload(s, EDDY_SYNC_ALL);
    c->scalar_live = 0; /* a new simulation's fields are zero */
    if (st == EDDY_OK) st = cu_rasterize(s);
    if (st == EDDY_OK) st = boundaries(c);
    if (st == EDDY_OK) st = read_back(c);
    if (st != EDDY_OK) {
        cu_destroy(s);
        return st;
    }
    c->host_valid = 0;
    return EDDY_OK;
}

/* ------------------------------------------------------------------ test and bench entry points */
extern "C" eddy_status eddy__cuda_run_stage(eddy_sim *s, eddy_cuda_stage stage, float dt) {
    if (!s || !s->backend_ops || s->backend_ops != &cuda_ops) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st = eddy__solids_current(s); /* obstacles changed since: rasterised as a step does first */
    if (st != EDDY_OK) return st;
    cu_sim *c = CS(s);
    c->slot = SLOT_API;
    c->host_valid = 0;
    return run_stage(s, c, stage, dt);
}

extern "C" eddy_status eddy__cuda_set_graphs(eddy_sim *s, int on) {
    if (!s || s->backend_ops != &cuda_ops) return EDDY_ERR_INVALID_ARGUMENT;
    project_use_graphs(CS(s), on);
    return EDDY_OK;
}

extern "C" eddy_status eddy__cuda_set_advect_cells(eddy_sim *s, int on) {
    if (!s || s->backend_ops != &cuda_ops) return EDDY_ERR_INVALID_ARGUMENT;
    advect_use_cells(CS(s), on);
    return advect_init(CS(s));
}

extern "C" eddy_status eddy__cuda_set_prolong8_cells(eddy_sim *s, long long cells) {
    if (!s || s->backend_ops != &cuda_ops || cells < 1) return EDDY_ERR_INVALID_ARGUMENT;
    project_set_prolong8_cells(CS(s), cells);
    return EDDY_OK;
}

extern "C" eddy_status eddy__cuda_set_fused_end(eddy_sim *s, int on) {
    if (!s || s->backend_ops != &cuda_ops) return EDDY_ERR_INVALID_ARGUMENT;
    project_set_fused_end(CS(s), on);
    return EDDY_OK;
}

extern "C" eddy_status eddy__cuda_set_advect_feet(eddy_sim *s, int on) {
    if (!s || s->backend_ops != &cuda_ops) return EDDY_ERR_INVALID_ARGUMENT;
    CS(s)->adv_feet = on != 0;
    return advect_init(CS(s));
}

extern "C" double eddy__cuda_sync_ms(eddy_sim *s) {
    if (!s || s->backend_ops != &cuda_ops) return -1;
    cu_sim *c = CS(s);
    float ms = 0;
    if (c->sync_started) {
        cudaEventRecord(c->ev[15], c->stream);
        cudaEventSynchronize(c->ev[15]);
        cudaEventElapsedTime(&ms, c->ev[14], c->ev[15]);
    }
    cudaEventRecord(c->ev[14], c->stream);
    cudaEventSynchronize(c->ev[14]);
    c->sync_started = 1;
    return cudaGetLastError() == cudaSuccess ? ms : -1.0;
}
