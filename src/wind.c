/* Game wind field: a 3D MAC grid of air in a window that follows a moving centre (after the GDC 2019 talk
 * "Wind Simulation in God of War"). Each frame (Stam 1999, "Stable Fluids"):
 *   u <- u + (1 - e^(-dt/tau)) (a - u)          relaxation towards the ambient wind a(x, t) (wind_noise.c)
 *   gusts, explosions, colliders               sources (wind_sources.c)
 *   u <- (I - nu dt Lap)^-1 u                  diffusion, when viscosity > 0 (the core's diffuse.c)
 *   u <- u(x - dt u)                           advection, ambient air entering from outside (wind_advect.c)
 *   u <- u - grad p,  Lap p = div u            projection, p = 0 at the open window faces (the core's project.c)
 * The relaxation comes first, with the sources, so that the frame ends on a projected field.
 * Moving the window: the new origin is o' = o + (n + f) h with n whole cells and 0 <= f < 1 per axis. The arrays
 * are shifted by n cells exactly (row copies), then by f with the linear interpolation v_i + f (v_{i+1} - v_i),
 * which leaves a uniform field exactly unchanged; samples coming from outside the old window take the ambient
 * wind. A move towards -a is shifted by n + 1 cells, then back by 1 - f (v_{i-1} + f (v_i - v_{i-1}), the same
 * numbers), so that only the side the window moved to takes outside samples. The sampling copy (cell-centred
 * RGBA32F) is rebuilt after every frame and move. */
#include "wind_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

eddy_wind_def eddy_wind_def_default(void) {
    eddy_wind_def d;
    memset(&d, 0, sizeof d);
    d.grid[0] = 32;
    d.grid[1] = 16;
    d.grid[2] = 32;
    d.cell_size = 1.0f;
    d.noise_scale = 8.0f;
    d.noise_seed = 1;
    d.relaxation_time = 2.0f;
    /* the frame budget: 20 Jacobi iterations cost ~0.35 ms here and remove ~96% of the divergence each frame;
     * one MGPCG iteration costs ~1 ms at this size (bench/bench_wind.c prints the table) */
    d.pressure.solver = EDDY_PRESSURE_JACOBI;
    d.pressure.tolerance = 1e-3f;
    d.pressure.max_iterations = 20;
    d.max_explosions = 16;
    d.threads = 1;
    return d;
}

static bool finite3(const float v[3]) { return isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]); }

static eddy_sim_def sim_def_for(const eddy_wind_def *d) {
    eddy_sim_def sd = eddy_sim_def_default();
    sd.dim = 3;
    for (int a = 0; a < 3; a++) {
        sd.grid[a] = d->grid[a];
        sd.origin[a] = 0.0f; /* window-local coordinates */
        sd.gravity[a] = 0.0f;
    }
    sd.size[0] = (float)d->grid[0] * d->cell_size;
    sd.viscosity = d->viscosity;
    sd.advection = EDDY_ADVECT_SEMI_LAGRANGIAN; /* unused: the wind advects with wind_advect.c */
    sd.pressure = d->pressure;
    sd.threads = d->threads;
    for (int f = 0; f < 6; f++) sd.boundary[f].type = EDDY_BOUNDARY_OUTFLOW;
    return sd;
}

eddy_status eddy_wind_def_validate(const eddy_wind_def *d, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!d) return eddy__def_error(msg, msg_size, "wind definition is NULL");
    for (int a = 0; a < 3; a++)
        if (d->grid[a] < 3 || d->grid[a] > 1024)
            return eddy__def_error(msg, msg_size, "wind grid[%d] = %d: must be between 3 and 1024 cells", a, d->grid[a]);
    if ((size_t)d->grid[0] * d->grid[1] * d->grid[2] > ((size_t)1 << 26))
        return eddy__def_error(msg, msg_size, "wind grid %d x %d x %d: more than 2^26 cells", d->grid[0], d->grid[1], d->grid[2]);
    if (!(d->cell_size >= 1e-9f && d->cell_size <= 1e9f)) /* the simulation's range of cell sizes */
        return eddy__def_error(msg, msg_size, "wind cell_size = %g: must be 1e-9 .. 1e9 m", (double)d->cell_size);
    for (int a = 0; a < 3; a++)
        if (!isfinite(d->center[a]))
            return eddy__def_error(msg, msg_size, "wind center[%d] = %g: must be a finite position in metres", a, (double)d->center[a]);
    for (int a = 0; a < 3; a++)
        if (!(fabsf(d->ambient[a]) <= EDDY__WIND_MAX_SPEED))
            return eddy__def_error(msg, msg_size, "wind ambient[%d] = %g: must be within +-%g m/s", a, (double)d->ambient[a],
                                   (double)EDDY__WIND_MAX_SPEED);
    if (!(d->noise_amplitude >= 0 && d->noise_amplitude <= EDDY__WIND_MAX_SPEED))
        return eddy__def_error(msg, msg_size, "wind noise_amplitude = %g: must be 0 .. %g m/s", (double)d->noise_amplitude,
                               (double)EDDY__WIND_MAX_SPEED);
    if (d->noise_amplitude > 0 && (!isfinite(d->noise_scale) || d->noise_scale < d->cell_size))
        return eddy__def_error(msg, msg_size, "wind noise_scale = %g m: must be at least the cell size %g m",
                         (double)d->noise_scale, (double)d->cell_size);
    if (!isfinite(d->relaxation_time) || d->relaxation_time < 0)
        return eddy__def_error(msg, msg_size, "wind relaxation_time = %g: must be >= 0 s (0 = none)", (double)d->relaxation_time);
    if (!isfinite(d->viscosity) || d->viscosity < 0)
        return eddy__def_error(msg, msg_size, "wind viscosity = %g: must be >= 0 m^2/s", (double)d->viscosity);
    if (d->max_explosions < 0 || d->max_explosions > 4096)
        return eddy__def_error(msg, msg_size, "wind max_explosions = %d: must be 0..4096", d->max_explosions);
    if (d->threads < 0 || d->threads > 1024)
        return eddy__def_error(msg, msg_size, "wind threads = %d: must be 0..1024", d->threads);
    if (d->snap_to_cells != 0 && d->snap_to_cells != 1)
        return eddy__def_error(msg, msg_size, "wind snap_to_cells = %d: must be 0 or 1", d->snap_to_cells);
    /* the pressure settings (and the rest of the simulation behind the field) by the simulation's own checks, so
     * that a definition this accepts is one eddy_wind_create accepts */
    eddy_sim_def sd = sim_def_for(d);
    char sim_msg[256];
    if (eddy_sim_def_validate(&sd, sim_msg, sizeof sim_msg) != EDDY_OK)
        return eddy__def_error(msg, msg_size, "wind %s", sim_msg);
    return EDDY_OK;
}

void eddy_wind_destroy(eddy_wind *w) {
    if (!w) return;
    eddy_sim_destroy(w->sim);
    free(w->cache);
    for (int a = 0; a < 3; a++) {
        free(w->ambient_face[a]);
        free(w->source_flow[a]);
        free(w->noise_index[a]);
        free(w->noise_weight[a]);
    }
    free(w->noise_lattice);
    free(w->noise_layer);
    free(w->explosions);
    free(w->explosion_age);
    free(w);
}

static double window_origin_for(const eddy_wind *w, int a, double center) {
    double o = center - 0.5 * (double)w->n[a] * (double)w->h;
    return w->def.snap_to_cells ? floor(o / (double)w->h + 0.5) * (double)w->h : o;
}

static void fill_ambient(eddy_wind *w);
static void build_cache(eddy_wind *w, bool *finite_out);

eddy_status eddy_wind_create(const eddy_wind_def *def, eddy_wind **out, char *msg, size_t msg_size) {
    if (!out) return eddy__def_error(msg, msg_size, "out pointer is NULL");
    *out = NULL;
    eddy_status st = eddy_wind_def_validate(def, msg, msg_size);
    if (st != EDDY_OK) return st;
    eddy_sim_def sd = sim_def_for(def);
    eddy_wind *w = (eddy_wind *)calloc(1, sizeof *w);
    if (!w) return EDDY_ERR_OUT_OF_MEMORY;
    w->def = *def;
    st = eddy_sim_create(&sd, &w->sim, msg, msg_size);
    if (st != EDDY_OK) {
        free(w);
        return st;
    }
    for (int a = 0; a < 3; a++) {
        w->n[a] = def->grid[a];
        w->ambient[a] = def->ambient[a];
    }
    w->h = def->cell_size;
    w->inv_h = 1.0f / w->h;
    for (int a = 0; a < 3; a++) w->pn[a] = w->n[a] + 2;
    for (int a = 0; a < 3; a++) {
        w->center[a] = def->center[a];
        w->origin[a] = window_origin_for(w, a, def->center[a]);
    }
    eddy_sim *s = w->sim;
    size_t padded = (size_t)w->pn[0] * w->pn[1] * w->pn[2];
    bool ok = (w->cache = (float *)calloc(4 * padded, sizeof(float))) != NULL;
    if (def->noise_amplitude > 0) {
        size_t lat = 1;
        for (int a = 0; a < 3; a++) {
            lat *= (size_t)w->n[a] + 4;
            ok = ok && (w->ambient_face[a] = (float *)calloc(s->nface[a], sizeof(float))) &&
                 (w->noise_index[a] = (int *)calloc((size_t)w->n[a] + 1, sizeof(int))) &&
                 (w->noise_weight[a] = (float *)calloc((size_t)w->n[a] + 1, sizeof(float)));
        }
        size_t layer = 0; /* the largest face layer across an axis */
        for (int a = 0; a < 3; a++) {
            size_t l = ((size_t)w->n[(a + 1) % 3] + 1) * ((size_t)w->n[(a + 2) % 3] + 1);
            layer = l > layer ? l : layer;
        }
        ok = ok && (w->noise_lattice = (float *)calloc(lat, sizeof(float))) &&
             (w->noise_layer = (float *)calloc(layer, sizeof(float)));
    }
    if (def->max_explosions > 0) {
        for (int a = 0; a < 3; a++) ok = ok && (w->source_flow[a] = (float *)calloc(s->nface[a], sizeof(float)));
        ok = ok && (w->explosions = (eddy_wind_explosion *)calloc((size_t)def->max_explosions, sizeof *w->explosions)) &&
             (w->explosion_age = (float *)calloc((size_t)def->max_explosions, sizeof(float)));
    }
    if (!ok) {
        eddy__def_error(msg, msg_size, "out of memory allocating a %d x %d x %d wind field", w->n[0], w->n[1], w->n[2]);
        eddy_wind_destroy(w);
        return EDDY_ERR_OUT_OF_MEMORY;
    }
    fill_ambient(w);
    bool finite;
    build_cache(w, &finite);
    *out = w;
    return EDDY_OK;
}

const char *eddy_wind_last_error(const eddy_wind *w) { return w ? w->sim->error : "null wind field"; }
const eddy_wind_def *eddy_wind_get_def(const eddy_wind *w) { return w ? &w->def : NULL; }
const eddy_wind_frame_stats *eddy_wind_stats(const eddy_wind *w) { return w ? &w->stats : NULL; }
double eddy_wind_time(const eddy_wind *w) { return w ? w->time : 0.0; }
eddy_sim *eddy_wind_sim(eddy_wind *w) { return w ? w->sim : NULL; }

void eddy_wind_get_window(const eddy_wind *w, eddy_wind_window *win) {
    if (!w || !win) return;
    for (int a = 0; a < 3; a++) {
        win->n[a] = w->n[a];
        win->origin[a] = w->origin[a];
        win->center[a] = w->center[a];
    }
    win->cell_size = w->h;
}

void eddy_wind_ambient_at(const eddy_wind *w, const float pos[3], float vel[3]) {
    if (!w || !pos || !vel) return;
    double p[3] = {pos[0], pos[1], pos[2]};
    for (int c = 0; c < 3; c++) vel[c] = eddy__wind_ambient(w, p, c);
}

eddy_status eddy_wind_set_ambient(eddy_wind *w, const float ambient[3]) {
    if (!w) return EDDY_ERR_INVALID_ARGUMENT;
    w->sim->error[0] = '\0';
    if (!ambient) return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "set_ambient: ambient is NULL");
    for (int a = 0; a < 3; a++)
        if (!(fabsf(ambient[a]) <= EDDY__WIND_MAX_SPEED))
            return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "set_ambient: ambient[%d] = %g: must be within +-%g m/s", a,
                              (double)ambient[a], (double)EDDY__WIND_MAX_SPEED);
    for (int c = 0; c < 3; c++) w->ambient[c] = ambient[c];
    return EDDY_OK;
}

/* ---------------------------------------------------------------- face geometry */

/* sample offsets (in cells) of face array a: faces of component a sit on integer positions along a */
static void face_offsets(int a, float off[3]) {
    for (int b = 0; b < 3; b++) off[b] = (b == a) ? 0.0f : 0.5f;
}

/* ambient value of component `comp` at element (i,j,k) of a grid whose element (0,0,0) is at world o + off * h */
static inline float ambient_elem(const eddy_wind *w, int comp, const double o[3], const float off[3], int i, int j, int k) {
    if (w->def.noise_amplitude == 0.0f) return w->ambient[comp];
    double p[3] = {o[0] + ((double)i + off[0]) * w->h, o[1] + ((double)j + off[1]) * w->h,
                   o[2] + ((double)k + off[2]) * w->h};
    return eddy__wind_ambient(w, p, comp);
}

/* The whole field is the ambient wind (used at creation). */
static void fill_ambient(eddy_wind *w) {
    eddy_sim *s = w->sim;
    for (int a = 0; a < 3; a++) {
        int fn[3];
        float off[3];
        eddy__face_dims(s, a, fn);
        face_offsets(a, off);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++)
                    s->vel[a][eddy__idx(fn, i, j, k)] = ambient_elem(w, a, w->origin, off, i, j, k);
    }
}

/* ---------------------------------------------------------------- moving the window */

/* data <- data shifted by d whole cells: new (i,j,k) = old (i,j,k) + d, with the ambient where that is outside.
 * `o` is the new origin. Row copies; `scratch` has at least as many elements. */
static void shift_whole(eddy_wind *w, float *data, float *scratch, const int fn[3], const float off[3], int comp,
                        const int d[3], const double o[3]) {
    int rows = fn[1] * fn[2];
#pragma omp parallel for num_threads(EDDY_THREADS(w->sim)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % fn[1], k = row / fn[1];
        int sj = j + d[1], sk = k + d[2];
        float *dst = scratch + (size_t)row * fn[0];
        int lo = 0, hi = 0; /* destination range [lo, hi) copied from the old array */
        if (sj >= 0 && sj < fn[1] && sk >= 0 && sk < fn[2]) {
            lo = d[0] < 0 ? -d[0] : 0;
            hi = d[0] > 0 ? fn[0] - d[0] : fn[0];
            if (hi <= lo) lo = hi = 0;
        }
        if (hi > lo) memcpy(dst + lo, data + eddy__idx(fn, lo + d[0], sj, sk), (size_t)(hi - lo) * sizeof(float));
        for (int i = 0; i < lo; i++) dst[i] = ambient_elem(w, comp, o, off, i, j, k);
        for (int i = (hi > lo ? hi : 0); i < fn[0]; i++) dst[i] = ambient_elem(w, comp, o, off, i, j, k);
    }
    memcpy(data, scratch, (size_t)rows * fn[0] * sizeof(float));
}

/* data <- data shifted by a fraction of a cell along axis a, in place. Forward (the window moved towards +a):
 * v_l <- v_l + f (v_{l+1} - v_l), ascending l (reads v_{l+1} before it is overwritten), the sample past the end
 * (index m) is the ambient wind. Backward (towards -a, after a whole-cell shift rounded towards zero):
 * v_l <- v_{l-1} + f (v_l - v_{l-1}), descending l, the sample before the start (index -1) is the ambient wind.
 * Either way the only sample taken from outside is on the side the window moved to: the far side keeps the
 * old window's edge sample. `o` is the current origin (before this fractional shift). Along y and z whole x
 * rows are combined, which keeps the loops contiguous. */
static void shift_fraction(eddy_wind *w, float *data, const int fn[3], const float off[3], int comp, int a, float f,
                           bool backward, const double o[3]) {
    const size_t stride[3] = {1, (size_t)fn[0], (size_t)fn[0] * fn[1]};
    const int m = fn[a];
    /* the layer of samples entering (index m, or -1 backward): constant, or the noise on that layer */
    const float *ghost = NULL;
    if (w->def.noise_amplitude > 0) {
        int lo[3] = {0, 0, 0}, cnt[3] = {fn[0], fn[1], fn[2]};
        lo[a] = backward ? -1 : m;
        cnt[a] = 1;
        eddy__wind_ambient_block(w, comp, o, off, lo, cnt, w->noise_layer);
        ghost = w->noise_layer; /* element (i,j,k) with the a index dropped, x fastest */
    }
    const float constant = w->ambient[comp];
    if (a == 0) {
        int rows = fn[1] * fn[2];
#pragma omp parallel for num_threads(EDDY_THREADS(w->sim)) schedule(static)
        for (int row = 0; row < rows; row++) {
            float *v = data + (size_t)row * fn[0];
            float g = ghost ? ghost[row] : constant;
            if (backward) {
                for (int i = m - 1; i > 0; i--) v[i] = v[i - 1] + f * (v[i] - v[i - 1]);
                v[0] = g + f * (v[0] - g);
            } else {
                for (int i = 0; i < m - 1; i++) v[i] = v[i] + f * (v[i + 1] - v[i]);
                v[m - 1] = v[m - 1] + f * (g - v[m - 1]);
            }
        }
        return;
    }
    const int other = a == 1 ? 2 : 1; /* the axis split over threads */
#pragma omp parallel for num_threads(EDDY_THREADS(w->sim)) schedule(static)
    for (int t = 0; t < fn[other]; t++) {
        float *base = data + (size_t)t * stride[other];
        const float *g = ghost ? ghost + (size_t)t * fn[0] : NULL;
        if (backward) {
            for (int l = m - 1; l > 0; l--) {
                float *r = base + (size_t)l * stride[a];
                const float *rp = r - stride[a];
                for (int i = 0; i < fn[0]; i++) r[i] = rp[i] + f * (r[i] - rp[i]);
            }
            for (int i = 0; i < fn[0]; i++) {
                float gi = g ? g[i] : constant;
                base[i] = gi + f * (base[i] - gi);
            }
            continue;
        }
        for (int l = 0; l < m - 1; l++) {
            float *r = base + (size_t)l * stride[a];
            const float *rn = r + stride[a];
            for (int i = 0; i < fn[0]; i++) r[i] = r[i] + f * (rn[i] - r[i]);
        }
        float *r = base + (size_t)(m - 1) * stride[a];
        for (int i = 0; i < fn[0]; i++) r[i] = r[i] + f * ((g ? g[i] : constant) - r[i]);
    }
}

eddy_status eddy_wind_move(eddy_wind *w, const float center[3]) {
    if (!w) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_sim *s = w->sim;
    s->error[0] = '\0';
    if (!center) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "wind move: center is NULL");
    for (int a = 0; a < 3; a++)
        if (!isfinite(center[a]))
            return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "wind move: center[%d] = %g: must be a finite position in metres", a,
                              (double)center[a]);
    double t0 = eddy__now_ms();
    const double h = w->h;
    double target[3], o[3];
    int whole[3];
    float frac[3];
    bool backward[3];
    bool any_whole = false;
    for (int a = 0; a < 3; a++) {
        target[a] = window_origin_for(w, a, center[a]);
        double d = (target[a] - w->origin[a]) / h;
        double r = floor(d + 0.5);
        if (w->def.snap_to_cells || fabs(d - r) < 1e-6) d = r; /* whole cells up to rounding of the inputs */
        double fl = floor(d);
        frac[a] = (float)(d - fl);
        if (frac[a] >= 1.0f) frac[a] = 0.0f, fl += 1.0; /* d - fl rounded up to 1 in float */
        /* a move towards -a: whole cells rounded towards zero, then the remainder interpolated backwards, so that
         * the far edge interpolates towards the old window's edge sample (rounding down and interpolating
         * forwards blended it with the ambient wind although the old window held the sample) */
        backward[a] = frac[a] > 0.0f && fl < 0.0;
        if (backward[a]) fl += 1.0;
        /* beyond the window everything is ambient: clamp (also keeps a teleport from overflowing int) */
        double lim = (double)w->n[a] + 2.0;
        fl = fl > lim ? lim : (fl < -lim ? -lim : fl);
        whole[a] = (int)fl;
        any_whole = any_whole || whole[a] != 0;
        /* origin after the whole-cell shift (also when clamped) */
        o[a] = backward[a] ? target[a] + (1.0 - (double)frac[a]) * h : target[a] - (double)frac[a] * h;
    }
    /* the velocity faces move; the pressure is not kept between frames (each projection solves afresh) */
    struct { float *data; float *scratch; int fn[3]; float off[3]; } arr[3];
    for (int a = 0; a < 3; a++) {
        arr[a].data = s->vel[a];
        arr[a].scratch = s->vel_tmp[a];
        eddy__face_dims(s, a, arr[a].fn);
        face_offsets(a, arr[a].off);
    }
    if (any_whole)
        for (int q = 0; q < 3; q++) shift_whole(w, arr[q].data, arr[q].scratch, arr[q].fn, arr[q].off, q, whole, o);
    for (int a = 0; a < 3; a++) {
        if (frac[a] == 0.0f) continue;
        for (int q = 0; q < 3; q++) shift_fraction(w, arr[q].data, arr[q].fn, arr[q].off, q, a, frac[a], backward[a], o);
        if (backward[a]) o[a] -= (1.0 - (double)frac[a]) * h;
        else o[a] += (double)frac[a] * h;
    }
    for (int a = 0; a < 3; a++) {
        w->origin[a] = target[a];
        w->center[a] = center[a];
    }
    bool finite;
    build_cache(w, &finite);
    w->stats.move_ms = eddy__now_ms() - t0;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- the frame */

/* padded cache element of cell (i,j,k), i in [-1, n] */
static inline float *cache_at(const eddy_wind *w, int i, int j, int k) {
    return w->cache + 4 * ((size_t)(i + 1) + (size_t)w->pn[0] * ((size_t)(j + 1) + (size_t)w->pn[1] * (size_t)(k + 1)));
}

/* cell-centred copy u_c = (u_{i} + u_{i+1}) / 2 per component, plus |u|, then the ghost layer (copies of the edge
 * cells, axis by axis so that edges and corners are filled too); the largest speed into the stats */
static void build_cache(eddy_wind *w, bool *finite_out) {
    eddy_sim *s = w->sim;
    const int *n = s->n;
    int fu[3], fv[3], fw[3];
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    eddy__face_dims(s, 2, fw);
    const float *U = s->vel[0], *V = s->vel[1], *W = s->vel[2];
    int rows = n[1] * n[2];
    double *partial = s->row_partial;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % n[1], k = row / n[1];
        const float *u = U + eddy__idx(fu, 0, j, k);
        const float *v0 = V + eddy__idx(fv, 0, j, k), *v1 = V + eddy__idx(fv, 0, j + 1, k);
        const float *w0 = W + eddy__idx(fw, 0, j, k), *w1 = W + eddy__idx(fw, 0, j, k + 1);
        float *c = cache_at(w, 0, j, k);
        float vmax = 0.0f;
        bool bad = false;
        for (int i = 0; i < n[0]; i++) {
            float x = 0.5f * (u[i] + u[i + 1]), y = 0.5f * (v0[i] + v1[i]), z = 0.5f * (w0[i] + w1[i]);
            float sp = sqrtf(x * x + y * y + z * z);
            c[4 * i + 0] = x;
            c[4 * i + 1] = y;
            c[4 * i + 2] = z;
            c[4 * i + 3] = sp;
            bad = bad || !(sp <= FLT_MAX);
            vmax = sp > vmax ? sp : vmax;
        }
        memcpy(c - 4, c, 4 * sizeof(float));                            /* x ghosts */
        memcpy(c + 4 * n[0], c + 4 * (n[0] - 1), 4 * sizeof(float));
        partial[row] = bad ? -1.0 : (double)vmax;
    }
    const size_t xrow = 4 * (size_t)w->pn[0] * sizeof(float);
    for (int k = 0; k < n[2]; k++) { /* y ghost rows, whole padded rows */
        memcpy(cache_at(w, -1, -1, k), cache_at(w, -1, 0, k), xrow);
        memcpy(cache_at(w, -1, n[1], k), cache_at(w, -1, n[1] - 1, k), xrow);
    }
    const size_t plane = xrow * (size_t)w->pn[1]; /* z ghost planes */
    memcpy(cache_at(w, -1, -1, -1), cache_at(w, -1, -1, 0), plane);
    memcpy(cache_at(w, -1, -1, n[2]), cache_at(w, -1, -1, n[2] - 1), plane);
    float vmax = 0.0f;
    bool finite = true;
    for (int row = 0; row < rows; row++) {
        if (partial[row] < 0) finite = false;
        else if ((float)partial[row] > vmax) vmax = (float)partial[row];
    }
    w->stats.max_speed = vmax;
    *finite_out = finite;
}

/* max |div u| over air cells (row maxima, then the max of the rows: exact in any order) */
static float max_divergence(eddy_wind *w) {
    eddy_sim *s = w->sim;
    const int *n = s->n;
    int fu[3], fv[3], fw[3];
    eddy__face_dims(s, 0, fu);
    eddy__face_dims(s, 1, fv);
    eddy__face_dims(s, 2, fw);
    const float inv_h = 1.0f / s->h;
    int rows = n[1] * n[2];
    double *partial = s->row_partial;
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
    for (int row = 0; row < rows; row++) {
        int j = row % n[1], k = row / n[1];
        const float *u = s->vel[0] + eddy__idx(fu, 0, j, k);
        const float *v0 = s->vel[1] + eddy__idx(fv, 0, j, k), *v1 = s->vel[1] + eddy__idx(fv, 0, j + 1, k);
        const float *w0 = s->vel[2] + eddy__idx(fw, 0, j, k), *w1 = s->vel[2] + eddy__idx(fw, 0, j, k + 1);
        const uint8_t *solid = s->solid + eddy__idx(n, 0, j, k);
        float m = 0.0f;
        for (int i = 0; i < n[0]; i++) {
            if (solid[i]) continue;
            float d = fabsf(((u[i + 1] - u[i]) + (v1[i] - v0[i]) + (w1[i] - w0[i])) * inv_h);
            m = d > m ? d : m;
        }
        partial[row] = m;
    }
    float m = 0.0f;
    for (int row = 0; row < rows; row++) m = (float)partial[row] > m ? (float)partial[row] : m;
    return m;
}

/* u <- u + k (a - u), k = 1 - exp(-dt / tau) */
static void relax(eddy_wind *w, float dt) {
    if (w->def.relaxation_time <= 0) return;
    eddy_sim *s = w->sim;
    const float k = (float)(1.0 - exp(-(double)dt / (double)w->def.relaxation_time));
    const bool noise = w->def.noise_amplitude > 0;
    for (int a = 0; a < 3; a++) {
        float *v = s->vel[a];
        const float *amb = w->ambient_face[a];
        const float c = w->ambient[a];
        long count = (long)s->nface[a];
        if (noise) {
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
            for (long q = 0; q < count; q++) v[q] = v[q] + k * (amb[q] - v[q]);
        } else {
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
            for (long q = 0; q < count; q++) v[q] = v[q] + k * (c - v[q]);
        }
    }
}

static void add_flow(eddy_wind *w, float sign) {
    eddy_sim *s = w->sim;
    for (int a = 0; a < 3; a++) {
        float *v = s->vel[a];
        const float *f = w->source_flow[a];
        long count = (long)s->nface[a];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
        for (long q = 0; q < count; q++) v[q] += sign * f[q];
    }
}

static eddy_status check_sources(eddy_wind *w, const eddy_wind_sources *src) {
    if (!src) return EDDY_OK;
    if (src->collider_count < 0 || (src->collider_count > 0 && !src->colliders))
        return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind sources: collider_count = %d with colliders %s",
                          src->collider_count, src->colliders ? "set" : "NULL");
    if (src->gust_count < 0 || (src->gust_count > 0 && !src->gusts))
        return eddy__fail(w->sim, EDDY_ERR_INVALID_ARGUMENT, "wind sources: gust_count = %d with gusts %s",
                          src->gust_count, src->gusts ? "set" : "NULL");
    for (int i = 0; i < src->collider_count; i++) {
        eddy_status st = eddy__wind_check_collider(w, &src->colliders[i], i);
        if (st != EDDY_OK) return st;
    }
    for (int i = 0; i < src->gust_count; i++) {
        eddy_status st = eddy__wind_check_gust(w, &src->gusts[i], i);
        if (st != EDDY_OK) return st;
    }
    return EDDY_OK;
}

eddy_status eddy_wind_frame(eddy_wind *w, float dt, const eddy_wind_sources *src) {
    if (!w) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_sim *s = w->sim;
    s->error[0] = '\0';
    if (!isfinite(dt) || dt <= 0 || dt > 1)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "wind frame: dt = %g: must be in (0, 1] seconds", (double)dt);
    eddy_status st = check_sources(w, src);
    if (st != EDDY_OK) return st;
    eddy_wind_frame_stats *stats = &w->stats;
    double t0 = eddy__now_ms(), t;

    /* sources: relaxation, gusts, colliders; explosions as a potential flow added around the projection */
    if (w->def.noise_amplitude > 0) eddy__wind_fill_ambient_faces(w);
    relax(w, dt);
    if (src && src->gust_count > 0) {
        st = eddy__wind_apply_gusts(w, src->gusts, src->gust_count, dt);
        if (st != EDDY_OK) return st;
    }
    st = eddy__wind_apply_colliders(w, src ? src->colliders : NULL, src ? src->collider_count : 0);
    if (st != EDDY_OK) return st;
    int explosions = w->explosion_count > 0 ? eddy__wind_explosion_flow(w) : 0;
    t = eddy__now_ms();
    stats->sources_ms = t - t0;

    stats->diffuse_ms = 0.0;
    if (w->def.viscosity > 0) {
        st = eddy__diffuse(s, dt);
        if (st != EDDY_OK) return st;
        eddy__wind_impose_solid_faces(w);
        double t1 = eddy__now_ms();
        stats->diffuse_ms = t1 - t;
        t = t1;
    }

    eddy__wind_advect(w, dt);
    eddy__wind_impose_solid_faces(w);
    double t1 = eddy__now_ms();
    stats->advect_ms = t1 - t;
    t = t1;

    /* the projection keeps the faces touching solid cells fixed and sets p = 0 at the open window faces */
    if (explosions) add_flow(w, -1.0f);
    st = eddy__project(s, dt);
    if (st != EDDY_OK) return st;
    if (explosions) {
        add_flow(w, 1.0f);
        eddy__wind_impose_solid_faces(w); /* collider faces keep the collider's velocity */
    }
    t1 = eddy__now_ms();
    stats->project_ms = t1 - t;
    t = t1;

    bool finite;
    build_cache(w, &finite);
    if (!finite)
        return eddy__fail(s, EDDY_ERR_NON_FINITE, "wind frame %ld: non-finite velocity (dt = %g s)", stats->frame + 1,
                          (double)dt);
    stats->max_div = max_divergence(w);
    stats->finish_ms = eddy__now_ms() - t;

    /* time, noise drift, explosion ages */
    w->time += dt;
    for (int c = 0; c < 3; c++) w->noise_offset[c] += (double)w->ambient[c] * dt;
    int kept = 0;
    for (int e = 0; e < w->explosion_count; e++) {
        w->explosion_age[e] += dt;
        if (w->explosion_age[e] < w->explosions[e].duration) {
            w->explosions[kept] = w->explosions[e];
            w->explosion_age[kept] = w->explosion_age[e];
            kept++;
        }
    }
    w->explosion_count = kept;
    stats->frame++;
    stats->time = w->time;
    stats->dt = dt;
    stats->pressure_iterations = s->stats.pressure_iterations;
    stats->pressure_residual = s->stats.pressure_residual;
    stats->active_explosions = explosions;
    stats->frame_ms = eddy__now_ms() - t0;
    return EDDY_OK;
}

eddy_status eddy_wind_sync(eddy_wind *w) {
    if (!w) return EDDY_ERR_INVALID_ARGUMENT;
    w->sim->error[0] = '\0';
    bool finite;
    build_cache(w, &finite);
    if (!finite) return eddy__fail(w->sim, EDDY_ERR_NON_FINITE, "wind sync: the simulation holds non-finite velocities");
    return EDDY_OK;
}

/* ---------------------------------------------------------------- sampling */

eddy_status eddy_wind_sample(const eddy_wind *w, const float pos[3], float vel[3]) {
    if (!w || !pos || !vel) return EDDY_ERR_INVALID_ARGUMENT;
    const bool finite = finite3(pos); /* before sampling: vel may be pos (in place) */
    eddy__wind_sample_world(w, pos, vel);
    /* a NaN or infinite position got the constant ambient wind; say so (no message: samplers may run at once) */
    return finite ? EDDY_OK : EDDY_ERR_INVALID_ARGUMENT;
}

eddy_status eddy_wind_sample_batch(const eddy_wind *w, const float *positions, size_t position_stride,
                                   float *velocities, size_t velocity_stride, size_t count) {
    if (!w) return EDDY_ERR_INVALID_ARGUMENT;
    if (count == 0) return EDDY_OK;
    if (!positions || !velocities) return EDDY_ERR_INVALID_ARGUMENT;
    if (position_stride == 0) position_stride = 3;
    if (velocity_stride == 0) velocity_stride = 3;
    if (position_stride < 3 || velocity_stride < 3) return EDDY_ERR_INVALID_ARGUMENT;
    long n = (long)count;
    int bad = 0;
#pragma omp parallel for num_threads(EDDY_THREADS(w->sim)) schedule(static) reduction(| : bad)
    for (long p = 0; p < n; p++) {
        const float *pos = positions + (size_t)p * position_stride;
        bad |= !finite3(pos); /* before sampling: velocities may overwrite positions (in place) */
        eddy__wind_sample_world(w, pos, velocities + (size_t)p * velocity_stride);
    }
    return bad ? EDDY_ERR_INVALID_ARGUMENT : EDDY_OK; /* as eddy_wind_sample, for every point */
}

/* IEEE 754 binary16 from binary32, round to nearest even; overflow saturates to +-65504, NaN stays NaN */
static uint16_t half_from_float(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);  /* NaN */
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7bffu); /* rounds to >= 65520: saturate at 65504 */
    if (ax < 0x38800000u) {                                    /* below 2^-14: subnormal half or zero */
        if (ax < 0x33000000u) return sign;                     /* below 2^-25: rounds to 0 */
        uint32_t mant = (ax & 0x7fffffu) | 0x800000u; /* 24-bit significand; the half's unit is 2^-24 */
        int shift = 126 - (int)(ax >> 23);              /* 14..24 */
        uint32_t half = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1u), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t r = ax - 0x38000000u; /* rebias exponent 127 -> 15 (in the 23-bit mantissa frame) */
    uint32_t half = r >> 13, rem = r & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) half++;
    return (uint16_t)(sign | half);
}

eddy_status eddy_wind_copy_texture(const eddy_wind *w, eddy_wind_texture_format format, void *dst, size_t dst_bytes) {
    if (!w) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_sim *s = w->sim;
    if ((unsigned)format > EDDY_WIND_RGB16F)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "copy_texture: format = %d is not a texture format", (int)format);
    int channels = (format == EDDY_WIND_RGBA32F || format == EDDY_WIND_RGBA16F) ? 4 : 3;
    size_t bytes_per = (format == EDDY_WIND_RGBA32F || format == EDDY_WIND_RGB32F) ? 4 : 2;
    size_t need = s->ncells * (size_t)channels * bytes_per;
    if (!dst || dst_bytes < need)
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "copy_texture: destination of %zu bytes; %d x %d x %d texels need %zu",
                          dst ? dst_bytes : 0, w->n[0], w->n[1], w->n[2], need);
    /* texel (i,j,k) = cache cell (i,j,k); rows of n0 texels are contiguous in both */
    const int *n = w->n;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++) {
            const float *c = cache_at(w, 0, j, k);
            size_t t0 = (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k); /* first texel of the row */
            switch (format) {
            case EDDY_WIND_RGBA32F: memcpy((float *)dst + 4 * t0, c, 4 * (size_t)n[0] * sizeof(float)); break;
            case EDDY_WIND_RGB32F: {
                float *d = (float *)dst + 3 * t0;
                for (int i = 0; i < n[0]; i++) {
                    d[3 * i] = c[4 * i];
                    d[3 * i + 1] = c[4 * i + 1];
                    d[3 * i + 2] = c[4 * i + 2];
                }
                break;
            }
            case EDDY_WIND_RGBA16F:
            case EDDY_WIND_RGB16F: {
                uint16_t *d = (uint16_t *)dst + (size_t)channels * t0;
                for (int i = 0; i < n[0]; i++)
                    for (int ch = 0; ch < channels; ch++) d[channels * i + ch] = half_from_float(c[4 * i + ch]);
                break;
            }
            }
        }
    return EDDY_OK;
}
