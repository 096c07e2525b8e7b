/* Setting up a run: the simulation from the scene's definition, its obstacles and emitters, and the initial fields
 *   taylor_green:  u =  A sin(kx x) cos(ky y) [cos(kz z)],  v = -A (kx/ky) cos(kx x) sin(ky y) [cos(kz z)],
 *                  k_a = 2 pi / L_a (divergence-free for any box; Taylor & Green 1937)
 *   shear_layer:   u = A tanh(rho (y' - 1/4)) below y' = 1/2, A tanh(rho (3/4 - y')) above, v = A delta sin(2 pi (x' + 1/4)),
 *                  x' = x/Lx, y' = y/Ly, rho = 30, delta = 0.05 (Bell, Colella & Glaz 1989); dye marks the two layers
 * or fields loaded from .npy files and dye from a PNG picture. Any initial velocity is projected once so the run
 * starts divergence-free. Also: moving obstacles and emitters, the CFL step, the random generator. */
#include "run.h"

#include "eddy/io.h"
#include "eddy/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double two_pi = 6.283185307179586;

uint64_t run_rng_next(uint64_t *state) {
    /* splitmix64 (Steele, Lea & Flood 2014): one 64-bit word of state, easy to store in a checkpoint */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double run_rng_uniform(uint64_t *state) { return (double)(run_rng_next(state) >> 11) * (1.0 / 9007199254740992.0); }

double run_max_dt(eddy_sim *sim) {
    /* The same rule as the library's step (sim.c, eddy__choose_dt): dt = min(max_dt, cfl h / max |face velocity|),
     * computed in float in the same order, so that eddy_sim_advance(d) with d <= this takes exactly one step. */
    const eddy_sim_def *d = eddy_sim_get_def(sim);
    if (d->dt > 0) return d->dt;
    float vmax = 0.0f;
    for (int a = 0; a < d->dim; a++) {
        eddy_field_layout lay;
        const float *v = eddy_sim_field_view(sim, (eddy_field)(EDDY_FIELD_U + a), &lay);
        if (!v) continue;
        for (size_t i = 0; i < lay.count; i++) {
            float m = fabsf(v[i]);
            if (m > vmax) vmax = m;
        }
    }
    float dt = d->max_dt;
    if (vmax > 0) {
        float lim = d->cfl * eddy_sim_cell_size(sim) / vmax;
        if (lim < dt) dt = lim;
    }
    return dt;
}

eddy_status run_move_bodies(run *r, double t) {
    const eddy_scene *sc = r->scene;
    int dim = sc->def.dim;
    for (int i = 0; i < sc->obstacle_count; i++) {
        const scene_obstacle *o = &sc->obstacles[i];
        float pos[3], vel[3];
        if (o->path.type != SCENE_PATH_NONE) {
            scene_path_eval(&o->path, t, dim, pos, vel);
        } else if (o->moving) {
            for (int a = 0; a < 3; a++) {
                vel[a] = o->def.velocity[a];
                pos[a] = (float)(o->def.center[a] + (double)o->def.velocity[a] * t);
            }
        } else {
            continue;
        }
        eddy_status st = eddy_sim_move_obstacle(r->sim, r->obstacle_ids[i], pos, vel);
        if (st != EDDY_OK) return st;
    }
    for (int i = 0; i < sc->emitter_count; i++) {
        const scene_emitter *e = &sc->emitters[i];
        if (e->path.type == SCENE_PATH_NONE) continue;
        float pos[3], vel[3];
        scene_path_eval(&e->path, t, dim, pos, vel);
        eddy_status st = eddy_sim_move_emitter(r->sim, r->emitter_ids[i], pos);
        if (st != EDDY_OK) return st;
    }
    return EDDY_OK;
}

/* ---------------------------------------------------------------- initial fields */

/* world position of element `idx` of a field layout */
static void layout_pos(const eddy_field_layout *l, size_t idx, double p[3]) {
    size_t i = idx % (size_t)l->n[0], rest = idx / (size_t)l->n[0];
    size_t j = rest % (size_t)l->n[1], k = rest / (size_t)l->n[1];
    p[0] = l->origin[0] + (double)i * l->spacing[0];
    p[1] = l->origin[1] + (double)j * l->spacing[1];
    p[2] = l->origin[2] + (double)k * l->spacing[2];
}

static bool write_field(run *r, eddy_field f, const float *data, size_t count, char *err, size_t err_size) {
    eddy_status st = eddy_sim_write_field(r->sim, f, data, count);
    if (st != EDDY_OK) {
        snprintf(err, err_size, "%s: initial %s: %s", r->scene->file, eddy_field_name(f), eddy_sim_last_error(r->sim));
        return false;
    }
    return true;
}

static bool analytic_flow(run *r, char *err, size_t err_size) {
    const eddy_scene *sc = r->scene;
    const eddy_sim_def *d = &sc->def;
    double A = sc->initial.amplitude;
    double L[3] = {d->size[0], d->size[1], d->dim == 3 ? d->size[2] : 1.0};
    double k[3] = {two_pi / L[0], two_pi / L[1], two_pi / L[2]};
    for (int a = 0; a < d->dim; a++) {
        eddy_field f = (eddy_field)(EDDY_FIELD_U + a);
        eddy_field_layout lay;
        if (eddy_sim_field_layout(r->sim, f, &lay) != EDDY_OK) continue;
        float *buf = (float *)malloc(lay.count * sizeof(float));
        if (!buf) {
            snprintf(err, err_size, "out of memory for the initial velocity");
            return false;
        }
        for (size_t i = 0; i < lay.count; i++) {
            double p[3];
            layout_pos(&lay, i, p);
            double x = p[0] - d->origin[0], y = p[1] - d->origin[1], z = p[2] - d->origin[2];
            double zf = d->dim == 3 ? cos(k[2] * z) : 1.0, v = 0;
            if (sc->initial.flow == SCENE_FLOW_TAYLOR_GREEN) {
                if (a == 0) v = A * sin(k[0] * x) * cos(k[1] * y) * zf;
                else if (a == 1) v = -A * (k[0] / k[1]) * cos(k[0] * x) * sin(k[1] * y) * zf;
            } else {
                double xs = x / L[0], ys = y / L[1];
                if (a == 0) v = A * (ys <= 0.5 ? tanh(30.0 * (ys - 0.25)) : tanh(30.0 * (0.75 - ys)));
                else if (a == 1) v = A * 0.05 * sin(two_pi * (xs + 0.25));
            }
            buf[i] = (float)v;
        }
        bool ok = write_field(r, f, buf, lay.count, err, err_size);
        free(buf);
        if (!ok) return false;
    }
    if (sc->initial.flow == SCENE_FLOW_SHEAR_LAYER && !sc->initial.dye) {
        /* dye marks the layers: the middle band (flowing -x) blue, the outer bands orange */
        eddy_field_layout lay;
        if (eddy_sim_field_layout(r->sim, EDDY_FIELD_DYE_R, &lay) != EDDY_OK) return true;
        float *c[3];
        c[0] = (float *)malloc(3 * lay.count * sizeof(float));
        if (!c[0]) {
            snprintf(err, err_size, "out of memory for the initial dye");
            return false;
        }
        c[1] = c[0] + lay.count;
        c[2] = c[1] + lay.count;
        for (size_t i = 0; i < lay.count; i++) {
            double p[3];
            layout_pos(&lay, i, p);
            double ys = (p[1] - d->origin[1]) / L[1];
            double s = 0.5 + 0.5 * (ys <= 0.5 ? tanh(30.0 * (ys - 0.25)) : tanh(30.0 * (0.75 - ys)));
            c[0][i] = (float)(0.9 * s + 0.1 * (1 - s));
            c[1][i] = (float)(0.45 * s + 0.35 * (1 - s));
            c[2][i] = (float)(0.1 * s + 0.9 * (1 - s));
        }
        bool ok = write_field(r, EDDY_FIELD_DYE_R, c[0], lay.count, err, err_size) &&
                  write_field(r, EDDY_FIELD_DYE_G, c[1], lay.count, err, err_size) &&
                  write_field(r, EDDY_FIELD_DYE_B, c[2], lay.count, err, err_size);
        free(c[0]);
        if (!ok) return false;
    }
    return true;
}

static void shape_text(const eddy_field_layout *l, int dim, int channels, char *buf, size_t size) {
    if (dim == 2) {
        if (channels > 1) snprintf(buf, size, "(%d, %d, %d)", channels, l->n[1], l->n[0]);
        else snprintf(buf, size, "(%d, %d)", l->n[1], l->n[0]);
    } else {
        if (channels > 1) snprintf(buf, size, "(%d, %d, %d, %d)", channels, l->n[2], l->n[1], l->n[0]);
        else snprintf(buf, size, "(%d, %d, %d)", l->n[2], l->n[1], l->n[0]);
    }
}

/* Loads an .npy into field f (or the three dye channels when f is DYE_R and the file has 3 channels). */
static bool npy_field(run *r, const char *key, const char *path, eddy_field f, char *err, size_t err_size) {
    int dim = r->scene->def.dim;
    eddy_field_layout lay;
    if (eddy_sim_field_layout(r->sim, f, &lay) != EDDY_OK) {
        snprintf(err, err_size, "%s: initial.%s: %s", r->scene->file, key, eddy_sim_last_error(r->sim));
        return false;
    }
    eddy_npy a;
    memset(&a, 0, sizeof a);
    char msg[512];
    if (eddy_npy_read(path, &a, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "%s: initial.%s: %s", r->scene->file, key, msg);
        return false;
    }
    bool dye = f == EDDY_FIELD_DYE_R;
    /* expected: (ny, nx) / (nz, ny, nx); dye also (3, ny, nx) / (3, nz, ny, nx) */
    int channels = (dye && a.ndim == dim + 1 && a.shape[0] == 3) ? 3 : 1;
    bool ok = a.ndim == dim + (channels > 1);
    for (int i = 0; ok && i < dim; i++) ok = a.shape[a.ndim - 1 - i] == (size_t)lay.n[i];
    if (!ok) {
        char want[96], want3[96], got[128] = "(";
        shape_text(&lay, dim, 1, want, sizeof want);
        shape_text(&lay, dim, 3, want3, sizeof want3);
        size_t used = 1;
        for (int i = 0; i < a.ndim && used + 24 < sizeof got; i++)
            used += (size_t)snprintf(got + used, sizeof got - used, "%s%zu", i ? ", " : "", a.shape[i]);
        snprintf(got + used, sizeof got - used, ")");
        snprintf(err, err_size, "%s: initial.%s: %s has shape %s; the %s field needs %s%s%s (x fastest, see docs/scenes.md)",
                 r->scene->file, key, path, got, key, want, dye ? " or " : "", dye ? want3 : "");
        eddy_npy_free(&a);
        return false;
    }
    ok = true;
    if (dye) {
        for (int c = 0; ok && c < 3; c++)
            ok = write_field(r, (eddy_field)(EDDY_FIELD_DYE_R + c), a.data + (channels == 3 ? (size_t)c * lay.count : 0), lay.count,
                             err, err_size);
    } else {
        ok = write_field(r, f, a.data, lay.count, err, err_size);
    }
    eddy_npy_free(&a);
    return ok;
}

static bool png_dye(run *r, const char *path, char *err, size_t err_size) {
    eddy_field_layout lay;
    char msg[512];
    if (eddy_sim_field_layout(r->sim, EDDY_FIELD_DYE_R, &lay) != EDDY_OK) return false;
    eddy_image img;
    memset(&img, 0, sizeof img);
    if (eddy_png_read(path, &img, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "%s: initial.dye: %s", r->scene->file, msg);
        return false;
    }
    float *buf = (float *)malloc(3 * lay.count * sizeof(float));
    bool ok = buf != NULL;
    if (ok) {
        float *dye[3] = {buf, buf + lay.count, buf + 2 * lay.count};
        if (eddy_dye_from_image(&img, lay.n[0], lay.n[1], dye, msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "%s: initial.dye: %s", r->scene->file, msg);
            ok = false;
        }
        for (int c = 0; ok && c < 3; c++) ok = write_field(r, (eddy_field)(EDDY_FIELD_DYE_R + c), dye[c], lay.count, err, err_size);
    } else {
        snprintf(err, err_size, "out of memory for the initial dye");
    }
    free(buf);
    eddy_image_free(&img);
    return ok;
}

static bool initial_fields(run *r, bool *set_velocity, char *err, size_t err_size) {
    const scene_initial *in = &r->scene->initial;
    *set_velocity = false;
    if (in->flow != SCENE_FLOW_NONE) {
        if (!analytic_flow(r, err, err_size)) return false;
        *set_velocity = true;
    }
    struct { const char *key; const char *path; eddy_field f; } files[] = {
        {"u", in->u, EDDY_FIELD_U}, {"v", in->v, EDDY_FIELD_V}, {"w", in->w, EDDY_FIELD_W},
        {"pressure", in->pressure, EDDY_FIELD_PRESSURE}, {"temperature", in->temperature, EDDY_FIELD_TEMPERATURE}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        if (!files[i].path) continue;
        if (!npy_field(r, files[i].key, files[i].path, files[i].f, err, err_size)) return false;
        if (files[i].f <= EDDY_FIELD_W) *set_velocity = true;
    }
    if (in->dye) {
        size_t n = strlen(in->dye);
        bool png = n >= 4 && !strcmp(in->dye + n - 4, ".png");
        if (png ? !png_dye(r, in->dye, err, err_size) : !npy_field(r, "dye", in->dye, EDDY_FIELD_DYE_R, err, err_size)) return false;
    }
    return true;
}

bool run_setup_sim(run *r, char *err, size_t err_size) {
    const eddy_scene *sc = r->scene;
    eddy_sim_def def = sc->def;
    if (r->opt.threads >= 0) def.threads = r->opt.threads;
    char msg[512];
    eddy_status st = eddy_sim_create(&def, &r->sim, msg, sizeof msg);
    if (st != EDDY_OK) {
        snprintf(err, err_size, "%s: %s (%s)", sc->file, msg, eddy_status_string(st));
        return false;
    }
    r->obstacle_ids = (eddy_id *)calloc((size_t)sc->obstacle_count + 1, sizeof(eddy_id));
    r->emitter_ids = (eddy_id *)calloc((size_t)sc->emitter_count + 1, sizeof(eddy_id));
    if (!r->obstacle_ids || !r->emitter_ids) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    for (int i = 0; i < sc->obstacle_count; i++) {
        st = eddy_sim_add_obstacle(r->sim, &sc->obstacles[i].def, &r->obstacle_ids[i]);
        if (st != EDDY_OK) {
            snprintf(err, err_size, "%s: obstacles[%d]: %s", sc->file, i, eddy_sim_last_error(r->sim));
            return false;
        }
    }
    for (int i = 0; i < sc->emitter_count; i++) {
        st = eddy_sim_add_emitter(r->sim, &sc->emitters[i].def, &r->emitter_ids[i]);
        if (st != EDDY_OK) {
            snprintf(err, err_size, "%s: emitters[%d]: %s", sc->file, i, eddy_sim_last_error(r->sim));
            return false;
        }
    }
    bool set_velocity = false;
    if (!initial_fields(r, &set_velocity, err, err_size)) return false;
    if (set_velocity) {
        st = eddy_sim_project(r->sim);
        if (st != EDDY_OK) {
            snprintf(err, err_size, "%s: projecting the initial velocity: %s", sc->file, eddy_sim_last_error(r->sim));
            return false;
        }
    }
    return true;
}
