/* A wind scene (docs/scenes.md, "Wind scenes"): a player walks a path through the game wind field (include/eddy/
 * wind.h), stirring the air with a sphere collider; particles ride the wind. Frame k (1-based) shows time t = k/fps:
 *   player position p and velocity v from the path at t (scene_path.c: circle, figure-eight, keyframes)
 *   eddy_wind_move(p)                                  the window follows the player (the air stays in the world)
 *   eddy_wind_frame(1/fps, sphere at p moving at v)    relaxation, collider, advection, projection
 *   eddy_particles_update(1/fps)                       particles in the wind, respawned around the player
 * The picture is a map of the window seen from above, x to the right and z up the picture: the wind speed in the
 * horizontal plane at the player's height, colour-mapped and darkened (eddy_render_input_2d on the window's
 * texture copy), the particles as dots coloured by their speed, the wind in that plane as arrows on a world-fixed
 * lattice (eddy_wind_sample), and the player. One stats line per frame (run_stats.c). */
#include "run.h"

#include "eddy/io.h"
#include "eddy/render.h"
#include "progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { SPEED_LUT = 256 };

struct run_wind {
    eddy_wind *wind;
    eddy_particles *particles;
    float *texture;     /* RGBA32F copy of the window: u, v, w, |u| per cell */
    float *speed;       /* its speed channel */
    size_t cells;
    uint8_t lut[3 * SPEED_LUT]; /* the speed colour map, sRGB bytes */
    float player[3];    /* where the player is, m */
};

void run_wind_free(run_wind *w) {
    if (!w) return;
    eddy_particles_destroy(w->particles);
    eddy_wind_destroy(w->wind);
    free(w->texture);
    free(w->speed);
    free(w);
}

const eddy_wind *run_wind_field(const run *r) { return r->wind ? r->wind->wind : NULL; }

bool run_wind_setup(run *r, char *err, size_t err_size) {
    const scene_wind *sw = r->scene->wind;
    run_wind *w = (run_wind *)calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    r->wind = w;
    eddy_wind_def def = sw->def;
    eddy_particles_def pd = sw->particles;
    if (r->opt.threads >= 0) def.threads = pd.threads = r->opt.threads;
    char msg[512];
    if (eddy_wind_create(&def, &w->wind, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "%s: wind: %s", r->scene->file, msg);
        return false;
    }
    if (eddy_particles_create(&pd, &w->particles, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "%s: wind.particles: %s", r->scene->file, msg);
        return false;
    }
    w->cells = (size_t)def.grid[0] * (size_t)def.grid[1] * (size_t)def.grid[2];
    w->texture = (float *)malloc(4 * w->cells * sizeof(float));
    w->speed = (float *)malloc(w->cells * sizeof(float));
    if (!w->texture || !w->speed) {
        snprintf(err, err_size, "out of memory for the wind window's picture");
        return false;
    }
    for (int i = 0; i < SPEED_LUT; i++) {
        float c[3];
        eddy_colormap_eval(sw->render.colormap, (float)i / (SPEED_LUT - 1), c);
        for (int k = 0; k < 3; k++) w->lut[3 * i + k] = (uint8_t)lrintf(c[k] * 255.0f);
    }
    memcpy(w->player, def.center, sizeof w->player);
    return true;
}

/* ---------------------------------------------------------------- the picture */

/* world (x, z) to continuous pixel coordinates of the map (x right, z up) */
typedef struct map {
    double ox, oz, sx, sz; /* origin, m; pixels per m */
    int H;
} map;

static void to_pixel(const map *m, double x, double z, float *px, float *py) {
    *px = (float)((x - m->ox) * m->sx);
    *py = (float)(m->H - (z - m->oz) * m->sz);
}

static bool draw(run *r, char *err, size_t err_size) {
    run_wind *w = r->wind;
    const scene_wind_render *rr = &r->scene->wind->render;
    eddy_wind_window win;
    eddy_wind_get_window(w->wind, &win);
    const double ext[3] = {win.n[0] * (double)win.cell_size, win.n[1] * (double)win.cell_size, win.n[2] * (double)win.cell_size};
    const int W = rr->width;
    int H = rr->height;
    if (H <= 0) H = (int)lround(W * ext[2] / ext[0]);
    if (H < 1) H = 1;
    float vmin = rr->range[0], vmax = rr->range[1];
    if (!(vmax > vmin)) { /* automatic: [0, the frame's largest speed] */
        vmin = 0.0f;
        vmax = eddy_wind_stats(w->wind)->max_speed;
        if (!(vmax > 1e-6f)) vmax = 1e-6f;
    }
    eddy_image *img = run_output_image(r->out);
    eddy_status st;
    /* the speed in the horizontal plane through the player, as the background */
    if (rr->slice) {
        if ((st = eddy_wind_copy_texture(w->wind, EDDY_WIND_RGBA32F, w->texture, 4 * w->cells * sizeof(float))) != EDDY_OK) {
            snprintf(err, err_size, "wind: %s", eddy_wind_last_error(w->wind));
            return false;
        }
        for (size_t c = 0; c < w->cells; c++) w->speed[c] = w->texture[4 * c + 3];
        eddy_render_input in;
        memset(&in, 0, sizeof in);
        in.dim = 3;
        for (int a = 0; a < 3; a++) {
            in.box_min[a] = (float)win.origin[a];
            in.box_size[a] = (float)ext[a];
            in.scalar_n[a] = win.n[a];
        }
        in.scalar = w->speed;
        eddy_render_def def = eddy_render_def_default();
        def.view = EDDY_VIEW_SPEED;
        def.width = W;
        def.height = H;
        def.slice_axis = 1; /* x right, z up */
        double y = w->player[1], lo = win.origin[1], hi = win.origin[1] + ext[1];
        def.slice_position = (float)(y < lo ? lo : y > hi ? hi : y);
        def.colormap = rr->colormap;
        def.range_min = vmin;
        def.range_max = vmax;
        def.draw_obstacles = 0;
        eddy_renderer *ren = run_output_renderer(r->out);
        if ((st = eddy_render_input_2d(ren, &in, &def, img)) != EDDY_OK) {
            snprintf(err, err_size, "rendering frame: %s (%s)", eddy_renderer_last_error(ren), eddy_status_string(st));
            return false;
        }
        const float b = rr->slice_brightness;
        for (size_t p = 0; p < (size_t)W * (size_t)H; p++)
            for (int k = 0; k < 3; k++) img->rgba[4 * p + k] = (uint8_t)lrintf(img->rgba[4 * p + k] * b);
    } else {
        char msg[256];
        if (!img->rgba || img->width != W || img->height != H) {
            eddy_image_free(img);
            if (eddy_image_init(img, W, H, msg, sizeof msg) != EDDY_OK) {
                snprintf(err, err_size, "rendering frame: %s", msg);
                return false;
            }
        }
        for (size_t p = 0; p < (size_t)W * (size_t)H; p++) {
            memset(img->rgba + 4 * p, 0, 3);
            img->rgba[4 * p + 3] = 255;
        }
    }
    map m = {win.origin[0], win.origin[2], W / ext[0], H / ext[2], H};
    /* particles: dots coloured by their speed */
    if (rr->particles) {
        const float *pos = eddy_particles_positions(w->particles), *vel = eddy_particles_velocities(w->particles);
        const int n = eddy_particles_count(w->particles);
        const float scale = (float)(SPEED_LUT - 1) / (vmax - vmin);
        const uint8_t alpha = (uint8_t)lrintf(rr->particle_opacity * 255.0f);
        for (int i = 0; i < n; i++) {
            const float *p = pos + 3 * i, *v = vel + 3 * i;
            float speed = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            float t = (speed - vmin) * scale + 0.5f;
            int li = t > 0.0f ? (t < (float)(SPEED_LUT - 1) ? (int)t : SPEED_LUT - 1) : 0;
            uint8_t c[4] = {w->lut[3 * li], w->lut[3 * li + 1], w->lut[3 * li + 2], alpha};
            float px, py;
            to_pixel(&m, p[0], p[2], &px, &py);
            eddy_image_draw_point(img, px, py, rr->particle_radius, c);
        }
    }
    /* arrows: the wind in the plane of the player's height, on a lattice fixed in the world (they do not swim as the
     * window slides), spacing apart; `scale` metres of arrow per m/s */
    if (rr->arrows) {
        const double s = rr->arrow_spacing;
        long i0 = (long)ceil(win.origin[0] / s), i1 = (long)floor((win.origin[0] + ext[0]) / s);
        long k0 = (long)ceil(win.origin[2] / s), k1 = (long)floor((win.origin[2] + ext[2]) / s);
        for (long k = k0; k <= k1; k++)
            for (long i = i0; i <= i1; i++) {
                float at[3] = {(float)(i * s), w->player[1], (float)(k * s)}, v[3];
                eddy_wind_sample(w->wind, at, v);
                float x0, y0, x1, y1;
                to_pixel(&m, at[0], at[2], &x0, &y0);
                to_pixel(&m, at[0] + rr->arrow_scale * v[0], at[2] + rr->arrow_scale * v[2], &x1, &y1);
                float len = hypotf(x1 - x0, y1 - y0);
                if (!(len >= 1.0f)) continue; /* still air: no arrow */
                float head = fminf(fmaxf(0.3f * len, 2.0f), 8.0f);
                eddy_image_draw_arrow(img, x0, y0, x1, y1, rr->arrow_width, head, rr->arrow_color);
            }
    }
    if (rr->player) {
        float px, py;
        to_pixel(&m, w->player[0], w->player[2], &px, &py);
        eddy_image_draw_point(img, px, py, (float)(r->scene->wind->radius * m.sx), rr->player_color);
    }
    return true;
}

/* ---------------------------------------------------------------- dumps */

bool run_wind_dump(run *r, const char *dir, char *err, size_t err_size) {
    run_wind *w = r->wind;
    char path[RUN_PATH_MAX + 64], msg[512];
    eddy_sim *sim = eddy_wind_sim(w->wind);
    /* the window's fields, window-local (the layout of docs/cli.md with origin = the window's corner) */
    const eddy_field fields[] = {EDDY_FIELD_U, EDDY_FIELD_V, EDDY_FIELD_W, EDDY_FIELD_PRESSURE};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, eddy_field_name(fields[i]));
        if (eddy_npy_write_field(path, sim, fields[i], msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "dump: %s", msg);
            return false;
        }
    }
    /* particles: (count, 3) positions and velocities, world */
    size_t shape[2] = {(size_t)eddy_particles_count(w->particles), 3};
    snprintf(path, sizeof path, "%s/particles.npy", dir);
    bool ok = eddy_npy_write(path, eddy_particles_positions(w->particles), 2, shape, msg, sizeof msg) == EDDY_OK;
    if (ok) {
        snprintf(path, sizeof path, "%s/particle_velocities.npy", dir);
        ok = eddy_npy_write(path, eddy_particles_velocities(w->particles), 2, shape, msg, sizeof msg) == EDDY_OK;
    }
    if (!ok) {
        snprintf(err, err_size, "dump: %s", msg);
        return false;
    }
    /* where the window is, for reading the fields in world coordinates */
    eddy_wind_window win;
    eddy_wind_get_window(w->wind, &win);
    snprintf(path, sizeof path, "%s/window.json", dir);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(err, err_size, "dump: cannot write %s", path);
        return false;
    }
    fprintf(f, "{\"time\": %.17g, \"grid\": [%d, %d, %d], \"cell_size\": %.9g, \"origin\": [%.17g, %.17g, %.17g], "
               "\"player\": [%.9g, %.9g, %.9g]}\n",
            eddy_wind_time(w->wind), win.n[0], win.n[1], win.n[2], (double)win.cell_size, win.origin[0], win.origin[1],
            win.origin[2], (double)w->player[0], (double)w->player[1], (double)w->player[2]);
    if (fclose(f) != 0) {
        snprintf(err, err_size, "dump: cannot write %s", path);
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------- the loop */

static int wind_error(run *r, const char *what) {
    progress_clear(r->progress);
    fprintf(stderr, "eddy: simulation error: %s: %s\n", what, eddy_wind_last_error(r->wind->wind));
    fprintf(stderr, "eddy: stopped at frame %d; the %d frame%s written so far in %s/ are valid\n", r->st.frame + 1, r->st.frame,
            r->st.frame == 1 ? "" : "s", r->st.out_dir);
    return EXIT_SIM_ERROR;
}

int run_wind_loop(run *r) {
    run_wind *w = r->wind;
    const scene_wind *sw = r->scene->wind;
    const float dt = (float)(1.0 / r->st.fps);
    char err[2048];
    r->progress = progress_create(isatty(STDERR_FILENO), r->opt.quiet, 0, r->st.total_frames, 0);
    while (r->st.frame < r->st.total_frames) {
        int frame = r->st.frame + 1;
        double t = frame / r->st.fps;
        eddy_wind_collider body;
        memset(&body, 0, sizeof body);
        body.shape = EDDY_SHAPE_SPHERE;
        body.radius = sw->radius;
        scene_path_eval(&sw->path, t, 3, body.center, body.velocity);
        memcpy(w->player, body.center, sizeof w->player);
        if (eddy_wind_move(w->wind, body.center) != EDDY_OK) return wind_error(r, "moving the window");
        eddy_wind_sources src = {&body, 1, NULL, 0};
        if (eddy_wind_frame(w->wind, dt, &src) != EDDY_OK) return wind_error(r, "wind frame");
        double t0 = progress_now_s();
        if (eddy_particles_update(w->particles, w->wind, dt) != EDDY_OK) {
            progress_clear(r->progress);
            fprintf(stderr, "eddy: simulation error: particles: %s\n", eddy_particles_last_error(w->particles));
            return EXIT_SIM_ERROR;
        }
        double particles_ms = (progress_now_s() - t0) * 1e3;
        if (r->stats) {
            /* the divergence's RMS and the energy, from the simulation behind the field (not part of the frame time) */
            eddy_sim *sim = eddy_wind_sim(w->wind);
            double rms = NAN, ke = NAN;
            if (eddy_sim_update_diagnostics(sim) == EDDY_OK) {
                rms = eddy_sim_stats(sim)->rms_div;
                ke = eddy_sim_stats(sim)->kinetic_energy;
            }
            run_stats_write_wind(r, eddy_wind_stats(w->wind), rms, ke, particles_ms);
        }
        if (run_output_wants_picture(r->out, r) &&
            !(draw(r, err, sizeof err) && run_output_picture(r->out, r, frame, false, err, sizeof err))) {
            progress_clear(r->progress);
            fprintf(stderr, "eddy: %s\n", err);
            return EXIT_SIM_ERROR;
        }
        r->st.frame = frame;
        if (r->st.dump > 0 && frame % r->st.dump == 0 && !run_output_dump(r, frame, err, sizeof err)) {
            progress_clear(r->progress);
            fprintf(stderr, "eddy: %s\n", err);
            return EXIT_SIM_ERROR;
        }
        progress_frame(r->progress, frame, t, frame);
    }
    progress_finish(r->progress, r->st.frame, r->st.frame / r->st.fps, r->st.frame);
    return EXIT_OK;
}
