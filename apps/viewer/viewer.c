/* The viewer's logic (see viewer.h): input to stirring, obstacle dragging and key actions; a frame steps the
 * simulation, renders it (eddy_render: 2D views with post-processing, or the volume with an orbit camera in 3D),
 * scales the picture into the window (letterboxed, bilinear), lays it over the background and draws the status
 * line and help with the viewer's bitmap font. */
#include "viewer.h"

#include "eddy/render.h"
#include "font.h"
#include "sim_adapter.h"
#include "snapshot.h"
#include "stepper.h"
#include "viewer_scene.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const eddy_view viewer_views[] = {EDDY_VIEW_DYE, EDDY_VIEW_SPEED, EDDY_VIEW_VORTICITY, EDDY_VIEW_PRESSURE};
enum { VIEWER_VIEW_COUNT = 4, SCREENSHOT_NAMES = 9999 };

struct viewer {
    viewer_options opt;
    viewer_scene *scene;
    eddy_renderer *renderer;
    eddy_render_def render_def;
    eddy_volume_def volume_def;
    eddy_image picture;      /* the rendered view */
    int *columns;            /* bilinear column weights (see viewer_scale_columns) */
    int column_count, column_source;
    uint8_t *hrows;          /* the picture's rows scaled to the window width */
    size_t hrows_size;
    int threads;             /* OpenMP threads of the viewer's own loops */
    eddy_image background;   /* the background image at window size, when given */
    uint8_t *pixels;         /* the window, RGBA */
    int width, height;
    int rect[4];             /* where the picture lies in the window: x, y, w, h */
    int bgra;                /* the framebuffer's bytes are B, G, R, A (else R, G, B, A) */
    int dim;

    stir stirrer;
    float pointer[2];        /* window fractions */
    int pointer_inside;
    int left_down, right_down, shift_down;
    int dragged_obstacle;    /* scene index, -1 when none */
    int dragged_moving;      /* the dragged obstacle imposes a velocity (it moved since it last stood still) */

    int view_index, post, paused, show_help;
    float vorticity;
    float yaw, pitch, distance; /* 3D orbit camera around the box centre */

    double clock, fps;
    viewer_timing timing;    /* the last frame's */
    stepper stepper;         /* 2D: the frame's step runs on its own thread while the frame is drawn */
    int stepping;            /* a step is in flight: the simulation is the stepper's until viewer_sync */
    snapshot snap;           /* 2D: the fields the picture is drawn from */
    double shown_time;       /* simulated time of the picture, s */
    int quit;
    char error[512];
    char note[640];          /* a line shown for a while (saved screenshot, ...) */
    double note_until;
    char screenshot_path[512];
    int screenshot_pending;
    int screenshot_counter;
};

viewer_options viewer_options_default(void) {
    viewer_options o;
    memset(&o, 0, sizeof o);
    o.window[0] = 960;
    o.window[1] = 540;
    o.stir = stir_def_default();
    o.post = 1;
    o.view = EDDY_VIEW_DYE;
    o.vorticity = -1;
    o.seed = 1;
    o.show_status = 1;
    o.overlap = 1;
    return o;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void viewer_note(viewer *v, const char *text) {
    snprintf(v->note, sizeof v->note, "%s", text);
    v->note_until = v->clock + 3.0;
}

/* Waits for the step in flight; after it the simulation is the viewer's alone. A failed step stops the simulation
 * (the message stays on the status line). */
static void viewer_sync(viewer *v) {
    if (!v->stepping) return;
    eddy_status st = stepper_wait(&v->stepper);
    v->stepping = 0;
    v->timing.phase_ms[VIEWER_PHASE_STEP] = v->stepper.step_ms;
    v->timing.substeps = v->stepper.substeps;
    memcpy(v->timing.stage_ms, v->stepper.stage_ms, sizeof v->timing.stage_ms);
    if (st != EDDY_OK && !v->error[0]) {
        eddy_sim *sim = viewer_scene_sim(v->scene);
        snprintf(v->error, sizeof v->error, "simulation stopped: %s: %s", eddy_status_string(st), eddy_sim_last_error(sim));
        v->paused = 1;
    }
}

static void viewer_setup_camera(viewer *v) {
    const eddy_sim_def *d = eddy_sim_get_def(viewer_scene_sim(v->scene));
    float h = eddy_sim_cell_size(viewer_scene_sim(v->scene));
    float size[3] = {h * (float)d->grid[0], h * (float)d->grid[1], h * (float)d->grid[2]};
    float extent = fmaxf(size[0], fmaxf(size[1], size[2]));
    eddy_camera *c = &v->volume_def.camera;
    for (int a = 0; a < 3; a++) c->target[a] = d->origin[a] + 0.5f * size[a];
    c->position[0] = c->target[0] + v->distance * extent * cosf(v->pitch) * sinf(v->yaw);
    c->position[1] = c->target[1] + v->distance * extent * sinf(v->pitch);
    c->position[2] = c->target[2] + v->distance * extent * cosf(v->pitch) * cosf(v->yaw);
    c->up[0] = 0; c->up[1] = 1; c->up[2] = 0;
}

static int viewer_apply_settings(viewer *v, char *msg, size_t msg_size) {
    eddy_sim *sim = viewer_scene_sim(v->scene);
    if (v->vorticity < 0) v->vorticity = eddy_sim_get_def(sim)->vorticity;
    if (viewer_sim_set_vorticity(sim, v->vorticity) != EDDY_OK) {
        snprintf(msg, msg_size, "%s", eddy_sim_last_error(sim));
        return -1;
    }
    v->dim = eddy_sim_get_def(sim)->dim;
    return 0;
}

static void swap_red_blue(eddy_image *img) {
    size_t n = (size_t)img->width * (size_t)img->height;
    for (size_t i = 0; i < n; i++) {
        uint8_t t = img->rgba[4 * i];
        img->rgba[4 * i] = img->rgba[4 * i + 2];
        img->rgba[4 * i + 2] = t;
    }
}

static int viewer_load_background(viewer *v, char *msg, size_t msg_size) {
    eddy_image_free(&v->background);
    if (!v->opt.background_image) return 0;
    eddy_image original = {0};
    if (eddy_png_read(v->opt.background_image, &original, msg, msg_size) != EDDY_OK) return -1;
    eddy_status st = eddy_image_resize(&original, v->width, v->height, &v->background, msg, msg_size);
    eddy_image_free(&original);
    if (st == EDDY_OK && v->bgra) swap_red_blue(&v->background);
    return st == EDDY_OK ? 0 : -1;
}

int viewer_resize(viewer *v, int w, int h) {
    if (w < 16) w = 16;
    if (h < 16) h = 16;
    uint8_t *p = realloc(v->pixels, (size_t)w * (size_t)h * 4);
    if (!p) return -1;
    v->pixels = p;
    v->width = w;
    v->height = h;
    char msg[256];
    if (v->opt.background_image && viewer_load_background(v, msg, sizeof msg) != 0) {
        snprintf(v->error, sizeof v->error, "%s", msg);
        return -1;
    }
    return 0;
}

int viewer_create(const viewer_options *opt, viewer **out, char *msg, size_t msg_size) {
    *out = NULL;
    viewer *v = calloc(1, sizeof *v);
    if (!v) { snprintf(msg, msg_size, "out of memory"); return -1; }
    v->opt = opt ? *opt : viewer_options_default();
    if (v->opt.background_image) v->opt.transparent = 1;
    v->dragged_obstacle = -1;
    if (v->opt.threads <= 0) {
        /* one core to the display server, which presents every frame; the rest shared by the step and the drawing,
         * which run at the same time (2 cores: one thread each) */
        int cores = omp_get_num_procs();
        v->opt.threads = cores > 3 ? (cores - 1) / 2 : 1;
    }
    v->threads = v->opt.threads;
    v->post = v->opt.post;
    v->vorticity = v->opt.vorticity;
    v->yaw = 0.6f;
    v->pitch = 0.35f;
    v->distance = 1.9f;
    for (int i = 0; i < VIEWER_VIEW_COUNT; i++)
        if ((int)viewer_views[i] == v->opt.view) v->view_index = i;
    viewer_scene_options so;
    memset(&so, 0, sizeof so);
    so.grid[0] = v->opt.grid[0];
    so.grid[1] = v->opt.grid[1];
    so.full_resolution = v->opt.full_resolution;
    so.sets = v->opt.sets;
    so.set_count = v->opt.set_count;
    so.threads = v->opt.threads;
    so.seed = v->opt.seed;
    if (stepper_init(&v->stepper) != 0) {
        snprintf(msg, msg_size, "cannot start the simulation thread");
        free(v);
        return -1;
    }
    if (viewer_scene_open(v->opt.scene, &so, &v->scene, msg, msg_size) != 0 || viewer_apply_settings(v, msg, msg_size) != 0 ||
        eddy_renderer_create(v->opt.threads, &v->renderer, msg, msg_size) != EDDY_OK) {
        viewer_destroy(v);
        return -1;
    }
    v->render_def = eddy_render_def_default();
    /* a gentler glow than the renderer's defaults: the window shows the picture large, and a strong bloom of a
     * bright blob washes over the whole box */
    v->render_def.bloom_intensity = 0.35f;
    v->render_def.bloom_levels = 4;
    v->volume_def = eddy_volume_def_default();
    stir_init(&v->stirrer, &v->opt.stir, v->opt.seed);
    if (viewer_resize(v, v->opt.window[0], v->opt.window[1]) != 0) {
        snprintf(msg, msg_size, "%s", v->error[0] ? v->error : "out of memory");
        viewer_destroy(v);
        return -1;
    }
    *out = v;
    return 0;
}

void viewer_destroy(viewer *v) {
    if (!v) return;
    stepper_destroy(&v->stepper);
    snapshot_free(&v->snap);
    eddy_image_free(&v->picture);
    free(v->columns);
    free(v->hrows);
    eddy_image_free(&v->background);
    eddy_renderer_destroy(v->renderer);
    viewer_scene_close(v->scene);
    free(v->pixels);
    free(v);
}

/* Window fraction -> world position on the picture (2D), or on the plane through the box centre facing the
 * camera (3D). Returns 0 when the pointer is outside the picture. */
static int viewer_pointer_world(viewer *v, float world[3]) {
    eddy_sim *sim = viewer_scene_sim(v->scene);
    const eddy_sim_def *d = eddy_sim_get_def(sim);
    float h = eddy_sim_cell_size(sim);
    float fx = (v->pointer[0] * (float)v->width - (float)v->rect[0]) / (float)v->rect[2];
    float fy = (v->pointer[1] * (float)v->height - (float)v->rect[1]) / (float)v->rect[3];
    if (!v->pointer_inside || fx < 0 || fx > 1 || fy < 0 || fy > 1) return 0;
    if (v->dim == 2) {
        world[0] = d->origin[0] + fx * h * (float)d->grid[0];
        world[1] = d->origin[1] + (1 - fy) * h * (float)d->grid[1];
        world[2] = 0;
        return 1;
    }
    const eddy_camera *c = &v->volume_def.camera;
    float f[3], r[3], u[3], len;
    for (int a = 0; a < 3; a++) f[a] = c->target[a] - c->position[a];
    len = sqrtf(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
    for (int a = 0; a < 3; a++) f[a] /= len;
    r[0] = f[1] * c->up[2] - f[2] * c->up[1];
    r[1] = f[2] * c->up[0] - f[0] * c->up[2];
    r[2] = f[0] * c->up[1] - f[1] * c->up[0];
    len = sqrtf(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
    for (int a = 0; a < 3; a++) r[a] /= len;
    u[0] = r[1] * f[2] - r[2] * f[1];
    u[1] = r[2] * f[0] - r[0] * f[2];
    u[2] = r[0] * f[1] - r[1] * f[0];
    float tan_half = tanf(c->fov * 0.5f * 3.14159265f / 180.0f);
    float aspect = (float)v->rect[2] / (float)v->rect[3];
    float sx = (2 * fx - 1) * tan_half * aspect, sy = (1 - 2 * fy) * tan_half;
    float dir[3];
    for (int a = 0; a < 3; a++) dir[a] = f[a] + sx * r[a] + sy * u[a];
    float along = 0, dir_f = 0;
    for (int a = 0; a < 3; a++) {
        along += (c->target[a] - c->position[a]) * f[a];
        dir_f += dir[a] * f[a];
    }
    float t = along / dir_f;
    for (int a = 0; a < 3; a++) {
        float lo = d->origin[a], hi = d->origin[a] + h * (float)d->grid[a];
        world[a] = fminf(fmaxf(c->position[a] + t * dir[a], lo), hi);
    }
    return 1;
}

/* The next free eddy-NNNN.png: never an earlier screenshot (lstat, so a dangling link counts as taken, not as
 * free), and none at all, with a note, when the names up to eddy-9999.png are all taken. */
static void viewer_next_screenshot(viewer *v) {
    while (v->screenshot_counter < SCREENSHOT_NAMES) {
        snprintf(v->screenshot_path, sizeof v->screenshot_path, "eddy-%04d.png", ++v->screenshot_counter);
        struct stat st;
        if (lstat(v->screenshot_path, &st) != 0 && errno == ENOENT) {
            v->screenshot_pending = 1;
            return;
        }
    }
    viewer_note(v, "screenshot not saved: eddy-0001.png .. eddy-9999.png are all taken here");
}

static void viewer_key(viewer *v, int key) {
    char text[128];
    switch (key) {
    case ' ': v->paused = !v->paused; break;
    case 'r': {
        char msg[256];
        if (viewer_scene_reset(v->scene, msg, sizeof msg) != 0 || viewer_apply_settings(v, msg, sizeof msg) != 0) {
            snprintf(v->error, sizeof v->error, "reset: %s", msg);
            v->quit = 1;
        }
        v->dragged_obstacle = -1;
        viewer_note(v, "reset");
        break;
    }
    case 'p':
        v->post = !v->post;
        viewer_note(v, v->post ? "post-processing on" : "post-processing off");
        break;
    case 'v':
        v->view_index = (v->view_index + 1) % VIEWER_VIEW_COUNT;
        snprintf(text, sizeof text, "view: %s", eddy_view_name(viewer_views[v->view_index]));
        viewer_note(v, text);
        break;
    case '+': case '=':
    case '-': case '_': {
        int up = key == '+' || key == '=';
        /* steps of 0.05 (the demo's slider resolution), kept in 0 .. VIEWER_VORTICITY_MAX (it rose without end) */
        v->vorticity = fminf(fmaxf(0.0f, v->vorticity + (up ? 0.05f : -0.05f)), VIEWER_VORTICITY_MAX);
        v->vorticity = roundf(v->vorticity * 100.0f) / 100.0f;
        viewer_sim_set_vorticity(viewer_scene_sim(v->scene), v->vorticity);
        const int at_limit = v->vorticity == (up ? VIEWER_VORTICITY_MAX : 0.0f);
        if (at_limit) /* said, as --vorticity says its range */
            snprintf(text, sizeof text, "vorticity confinement %.2f (the %s: 0 to %g)", (double)v->vorticity,
                     up ? "most" : "least", (double)VIEWER_VORTICITY_MAX);
        else
            snprintf(text, sizeof text, "vorticity confinement %.2f", (double)v->vorticity);
        viewer_note(v, text);
        break;
    }
    case 's': viewer_next_screenshot(v); break;
    case 'h': v->show_help = !v->show_help; break;
    case 'q': case VIEWER_KEY_ESCAPE: v->quit = 1; break;
    case VIEWER_KEY_LEFT: v->yaw -= 0.1f; break;
    case VIEWER_KEY_RIGHT: v->yaw += 0.1f; break;
    case VIEWER_KEY_UP: v->pitch = fminf(v->pitch + 0.1f, 1.5f); break;
    case VIEWER_KEY_DOWN: v->pitch = fmaxf(v->pitch - 0.1f, -1.5f); break;
    default: break;
    }
}

/* The dragged obstacle stays where it is and stops pushing the fluid. */
static void viewer_halt_obstacle(viewer *v) {
    int i = v->dragged_obstacle;
    float zero[3] = {0, 0, 0};
    eddy_sim_move_obstacle(viewer_scene_sim(v->scene), viewer_scene_obstacle_id(v->scene, i),
                           viewer_scene_obstacle_center(v->scene, i), zero);
    v->dragged_moving = 0;
}

void viewer_handle(viewer *v, const viewer_event *ev) {
    /* pointer moves, the wheel and leaving only change the viewer's own state; the rest may touch the simulation */
    if (ev->kind != VIEWER_EVENT_MOVE && ev->kind != VIEWER_EVENT_WHEEL && ev->kind != VIEWER_EVENT_LEAVE) viewer_sync(v);
    switch (ev->kind) {
    case VIEWER_EVENT_MOVE: {
        float dx = ev->x - v->pointer[0], dy = ev->y - v->pointer[1];
        if (v->dim == 3 && v->left_down && !v->shift_down) { /* orbit */
            v->yaw -= dx * 4.0f;
            v->pitch = fminf(fmaxf(v->pitch + dy * 3.0f, -1.5f), 1.5f);
        }
        v->pointer[0] = ev->x;
        v->pointer[1] = ev->y;
        v->pointer_inside = 1;
        break;
    }
    case VIEWER_EVENT_DOWN:
    case VIEWER_EVENT_UP: {
        int down = ev->kind == VIEWER_EVENT_DOWN;
        v->pointer[0] = ev->x;
        v->pointer[1] = ev->y;
        v->pointer_inside = 1;
        if (ev->button == VIEWER_BUTTON_LEFT) {
            v->left_down = down;
            if (down) v->shift_down = ev->shift;
        } else if (ev->button == VIEWER_BUTTON_RIGHT) {
            v->right_down = down;
            if (!down && v->dragged_obstacle >= 0) { /* let go: the obstacle stops */
                viewer_halt_obstacle(v);
                v->dragged_obstacle = -1;
            }
        }
        break;
    }
    case VIEWER_EVENT_KEY: viewer_key(v, ev->key); break;
    case VIEWER_EVENT_WHEEL: v->distance = fminf(fmaxf(v->distance * powf(0.9f, ev->wheel), 0.6f), 6.0f); break;
    case VIEWER_EVENT_LEAVE: v->pointer_inside = 0; break;
    case VIEWER_EVENT_QUIT: v->quit = 1; break;
    }
}

/* Right-drag: the obstacle nearest the pointer follows it (a new one appears when the scene has none) and pushes
 * the fluid with its velocity. */
static void viewer_drag_obstacle(viewer *v, const float world[3], float dt) {
    eddy_sim *sim = viewer_scene_sim(v->scene);
    if (v->dragged_obstacle < 0) {
        float best = INFINITY;
        for (int i = 0; i < viewer_scene_obstacle_count(v->scene); i++) {
            const float *c = viewer_scene_obstacle_center(v->scene, i);
            float d2 = 0;
            for (int a = 0; a < v->dim; a++) d2 += (c[a] - world[a]) * (c[a] - world[a]);
            if (d2 < best) { best = d2; v->dragged_obstacle = i; }
        }
        if (v->dragged_obstacle < 0) {
            const eddy_sim_def *d = eddy_sim_get_def(sim);
            float radius = 0.07f * eddy_sim_cell_size(sim) * (float)d->grid[1];
            v->dragged_obstacle = viewer_scene_add_obstacle(v->scene, world, radius);
            return;
        }
    }
    int i = v->dragged_obstacle;
    float *c = viewer_scene_obstacle_center(v->scene, i);
    float vel[3] = {0, 0, 0}, speed2 = 0;
    for (int a = 0; a < v->dim; a++) {
        vel[a] = dt > 0 ? (world[a] - c[a]) / dt : 0;
        speed2 += vel[a] * vel[a];
    }
    /* A jump of the pointer (an obstacle grabbed across the box, the pointer back in the picture) is not a throw: the
     * obstacle still goes to the pointer, but pushes the fluid no faster than a stroke does (stir_def.max_speed box
     * heights per second). Unclamped, grabbing the default scene's cylinder from the far side moved it at 71 m/s
     * for a frame: 31 substeps and a blast through the box. */
    const eddy_sim_def *d = eddy_sim_get_def(sim);
    const float max_speed = v->stirrer.def.max_speed * eddy_sim_cell_size(sim) * (float)d->grid[1];
    if (speed2 > max_speed * max_speed)
        for (int a = 0; a < v->dim; a++) vel[a] *= max_speed / sqrtf(speed2);
    v->dragged_moving = speed2 > 0;
    memcpy(c, world, 3 * sizeof(float));
    eddy_sim_move_obstacle(sim, viewer_scene_obstacle_id(v->scene, i), c, vel);
}

static int viewer_render(viewer *v) {
    eddy_sim *sim = viewer_scene_sim(v->scene);
    eddy_status st;
    eddy_view view = viewer_views[v->view_index];
    if (v->dim == 3 && view == EDDY_VIEW_DYE) {
        viewer_setup_camera(v);
        /* half the window's resolution: the ray march is the costly part, and the volume is smooth */
        v->volume_def.width = v->width / 2;
        v->volume_def.height = v->height / 2;
        v->volume_def.transparent = v->opt.transparent;
        memcpy(v->volume_def.background, v->opt.background, sizeof v->volume_def.background);
        st = eddy_render_volume_sim(v->renderer, sim, &v->volume_def, &v->picture);
    } else {
        eddy_render_def *d = &v->render_def;
        d->view = view;
        d->shading = v->post;
        d->bloom = v->post;
        d->transparent = v->opt.transparent;
        d->colorbar = view != EDDY_VIEW_DYE;
        memcpy(d->background, v->opt.background, sizeof d->background);
        st = snapshot_render(&v->snap, v->renderer, d, &v->picture);
    }
    if (st != EDDY_OK) {
        snprintf(v->error, sizeof v->error, "render: %s", eddy_renderer_last_error(v->renderer));
        return -1;
    }
    return 0;
}

/* Column weights of the bilinear scaling from `sw` source columns to `pw` picture columns (8-bit fractions). */
static int viewer_scale_columns(viewer *v, int sw, int pw) {
    if (v->column_count == pw && v->column_source == sw) return 0;
    int *c = realloc(v->columns, (size_t)pw * 3 * sizeof(int));
    if (!c) return -1;
    v->columns = c;
    for (int x = 0; x < pw; x++) {
        float fx = ((float)x + 0.5f) * (float)sw / (float)pw - 0.5f;
        if (fx < 0) fx = 0;
        int x0 = (int)fx;
        c[3 * x] = 4 * x0;
        c[3 * x + 1] = 4 * (x0 + 1 < sw ? x0 + 1 : sw - 1);
        c[3 * x + 2] = (int)((fx - (float)x0) * 256.0f);
    }
    v->column_count = pw;
    v->column_source = sw;
    return 0;
}

/* The window: the picture scaled bilinearly into its letterbox rectangle and laid over the background (colour or
 * image) by its alpha; the bars around it show the background. Rows in parallel (each row is independent). */
static void viewer_compose(viewer *v) {
    const int W = v->width, H = v->height, sw = v->picture.width, sh = v->picture.height;
    float scale = fminf((float)W / (float)sw, (float)H / (float)sh);
    int pw = (int)((float)sw * scale + 0.5f), ph = (int)((float)sh * scale + 0.5f);
    if (pw < 1) pw = 1;
    if (ph < 1) ph = 1;
    if (pw > W) pw = W;
    if (ph > H) ph = H;
    v->rect[0] = (W - pw) / 2;
    v->rect[1] = (H - ph) / 2;
    v->rect[2] = pw;
    v->rect[3] = ph;
    if (viewer_scale_columns(v, sw, pw) != 0) return;
    uint8_t bg[4] = {0, 0, 0, 255};
    for (int c = 0; c < 3; c++) {
        float l = fminf(fmaxf(v->opt.background[c], 0.0f), 1.0f);
        float s = l <= 0.0031308f ? 12.92f * l : 1.055f * powf(l, 1.0f / 2.4f) - 0.055f;
        bg[c] = (uint8_t)lrintf(s * 255.0f);
    }
    if (v->bgra) { uint8_t t = bg[0]; bg[0] = bg[2]; bg[2] = t; }
    /* separable: each picture row scaled across once, then each window row blends two of those */
    size_t row_bytes = (size_t)pw * 4;
    if (v->hrows_size < (size_t)sh * row_bytes) {
        uint8_t *grown = realloc(v->hrows, (size_t)sh * row_bytes);
        if (!grown) return;
        v->hrows = grown;
        v->hrows_size = (size_t)sh * row_bytes;
    }
    const int *cols = v->columns;
    /* Two channels per 32-bit multiply (SWAR): bytes 0 and 2 of a pixel sit in the low halves of two 16-bit lanes,
     * bytes 1 and 3 likewise after a shift; a (256 - t) + b t + 128 <= 255 * 256 + 128 stays inside its lane, so
     * each byte comes out exactly as the per-byte formula gives it. The window's byte order: the picture's RGBA,
     * or BGRA (bytes 0 and 2 swapped here, once per scaled pixel). */
    const int swap = v->bgra;
#pragma omp parallel for num_threads(v->threads) schedule(static)
    for (int sy = 0; sy < sh; sy++) {
        const uint8_t *src = v->picture.rgba + (size_t)sy * (size_t)sw * 4;
        uint8_t *dst = v->hrows + (size_t)sy * row_bytes;
        for (int x = 0; x < pw; x++) {
            const int a0 = cols[3 * x], a1 = cols[3 * x + 1];
            const uint32_t tx = (uint32_t)cols[3 * x + 2], ux = 256u - tx;
            uint32_t p0, p1;
            memcpy(&p0, src + a0, 4);
            memcpy(&p1, src + a1, 4);
            uint32_t even = (((p0 & 0x00ff00ffu) * ux + (p1 & 0x00ff00ffu) * tx + 0x00800080u) >> 8) & 0x00ff00ffu;
            uint32_t odd = ((((p0 >> 8) & 0x00ff00ffu) * ux + ((p1 >> 8) & 0x00ff00ffu) * tx + 0x00800080u)) & 0xff00ff00u;
            if (swap) even = ((even & 0xffu) << 16) | (even >> 16);
            const uint32_t out = even | odd;
            memcpy(dst + 4 * (size_t)x, &out, 4);
        }
    }
    const uint8_t *image = v->background.rgba;
    const int blend = v->opt.transparent || v->dim == 3 ? 1 : 0; /* opaque pictures are copied */
#pragma omp parallel for num_threads(v->threads) schedule(static)
    for (int y = 0; y < H; y++) {
        uint8_t *out = v->pixels + (size_t)y * (size_t)W * 4;
        const uint8_t *under_row = image ? image + (size_t)y * (size_t)W * 4 : NULL;
        int py = y - v->rect[1];
        int x_begin = (py >= 0 && py < ph) ? v->rect[0] : W, x_end = (py >= 0 && py < ph) ? v->rect[0] + pw : W;
        for (int x = 0; x < W; x++) { /* bars: the background */
            if (x == x_begin) x = x_end;
            if (x >= W) break;
            const uint8_t *u = under_row ? under_row + 4 * x : bg;
            out[4 * x] = u[0]; out[4 * x + 1] = u[1]; out[4 * x + 2] = u[2]; out[4 * x + 3] = 255;
        }
        if (x_begin >= W) continue;
        float fy = ((float)py + 0.5f) * (float)sh / (float)ph - 0.5f;
        if (fy < 0) fy = 0;
        int y0 = (int)fy, y1 = y0 + 1 < sh ? y0 + 1 : sh - 1;
        const int ty = (int)((fy - (float)y0) * 256.0f);
        const uint8_t *A = v->hrows + (size_t)y0 * row_bytes, *B = v->hrows + (size_t)y1 * row_bytes;
        uint8_t *o = out + 4 * (size_t)v->rect[0];
        if (!blend) { /* opaque: alpha is 255 in both rows and stays 255 */
            /* a (256 - t) + b t + 128 <= 255 * 256 + 128 fits 16 bits: 16-bit lanes, twice as many per instruction */
            const uint16_t w0 = (uint16_t)(256 - ty), w1 = (uint16_t)ty;
            for (size_t i = 0; i < row_bytes; i++) o[i] = (uint8_t)((uint16_t)(A[i] * w0 + B[i] * w1 + 128) >> 8);
            continue;
        }
        for (int x = 0; x < pw; x++, o += 4) {
            uint8_t p[4];
            for (int c = 0; c < 4; c++) p[c] = (uint8_t)((A[4 * x + c] * (256 - ty) + B[4 * x + c] * ty + 128) >> 8);
            const uint8_t *u = under_row ? under_row + 4 * (size_t)(v->rect[0] + x) : bg;
            const int a = p[3];
            for (int c = 0; c < 3; c++) { /* (p a + u (255 - a)) / 255, exact for 8-bit values */
                int t = p[c] * a + u[c] * (255 - a) + 128;
                o[c] = (uint8_t)((t + (t >> 8)) >> 8);
            }
            o[3] = 255;
        }
    }
}

void viewer_grid_text(const viewer *v, char *buf, size_t size) {
    const eddy_sim_def *d = eddy_sim_get_def(viewer_scene_sim(v->scene));
    if (d->dim == 2)
        snprintf(buf, size, "%dx%d", d->grid[0], d->grid[1]);
    else
        snprintf(buf, size, "%dx%dx%d", d->grid[0], d->grid[1], d->grid[2]);
}

void viewer_dye_grid_text(const viewer *v, char *buf, size_t size) {
    eddy_field_layout l;
    if (eddy_sim_field_layout(viewer_scene_sim(v->scene), EDDY_FIELD_DYE_R, &l) != EDDY_OK)
        snprintf(buf, size, "?");
    else if (v->dim == 2)
        snprintf(buf, size, "%dx%d", l.n[0], l.n[1]);
    else
        snprintf(buf, size, "%dx%dx%d", l.n[0], l.n[1], l.n[2]);
}

const char *viewer_scene_label(const viewer *v) { return viewer_scene_name(v->scene); }
int viewer_threads(const viewer *v) { return v->threads; }

static void viewer_overlay(viewer *v) {
    static const uint8_t white[4] = {235, 235, 235, 255}, shade[4] = {0, 0, 0, 150};
    const uint8_t red[4] = {v->bgra ? 110 : 255, 110, v->bgra ? 255 : 110, 255};
    char line[512];
    if (v->opt.show_status) {
        char res[64];
        viewer_grid_text(v, res, sizeof res);
        const double work_ms = v->timing.work_ms;
        double frame_ms = v->fps > 0 ? 1000.0 / v->fps : work_ms;
        snprintf(line, sizeof line, "%5.1f ms/frame (%4.1f fps, work %4.1f ms)  t %.2f s  %s  %s%s  vort %.2f%s  H: help",
                 frame_ms, v->fps > 0 ? v->fps : 1000.0 / fmax(work_ms, 1e-3), work_ms, v->shown_time, res,
                 eddy_view_name(viewer_views[v->view_index]), v->post ? " +post" : "", (double)v->vorticity,
                 v->paused ? "  PAUSED" : "");
        int bar = FONT_CELL_H + 4;
        font_fill_rect(v->pixels, v->width, v->height, 0, v->height - bar, v->width, bar, shade);
        font_draw(v->pixels, v->width, v->height, 4, v->height - bar + 3, line, 1, white);
        if (v->error[0]) {
            font_fill_rect(v->pixels, v->width, v->height, 0, v->height - 2 * bar, v->width, bar, shade);
            font_draw(v->pixels, v->width, v->height, 4, v->height - 2 * bar + 3, v->error, 1, red);
        } else if (v->note[0] && v->clock < v->note_until) {
            int tw, th;
            font_measure(v->note, 1, &tw, &th);
            font_fill_rect(v->pixels, v->width, v->height, 0, v->height - 2 * bar, tw + 8, bar, shade);
            font_draw(v->pixels, v->width, v->height, 4, v->height - 2 * bar + 3, v->note, 1, white);
        }
    }
    if (v->show_help) {
        const char *help =
            "eddy viewer\n"
            "\n"
            "left-drag        splat dye and velocity\n"
            "right-drag       move the obstacle\n"
            "space            pause / run\n"
            "R                reset the scene\n"
            "P                post-processing on/off\n"
            "V                view: dye, speed, vorticity, pressure\n"
            "+ / -            vorticity confinement (0 to " VIEWER_VORTICITY_MAX_TEXT ")\n"
            "S                save a PNG screenshot\n"
            "H                this help\n"
            "Esc, Q           quit\n"
            "\n"
            "3D: left-drag orbits, wheel zooms,\n"
            "    shift+left-drag splats";
        int tw, th, scale = v->width >= 800 ? 2 : 1;
        font_measure(help, scale, &tw, &th);
        int x = (v->width - tw) / 2, y = (v->height - th) / 2;
        font_fill_rect(v->pixels, v->width, v->height, x - 12, y - 12, tw + 24, th + 24, shade);
        font_draw(v->pixels, v->width, v->height, x, y, help, scale, white);
    }
}

/* A frame: wait for the last frame's step; apply the input (stirring, the dragged obstacle, the scene's own
 * splats and bodies); in 2D copy the fields to draw, start this frame's step on the step thread and draw the copy
 * meanwhile (the picture shows the state before the step, with this frame's splats); in 3D step, then draw. */
int viewer_frame(viewer *v, double wall_dt) {
    viewer_timing *tm = &v->timing;
    memset(tm, 0, sizeof *tm);
    const double t0 = now_ms();
    viewer_sync(v);
    const double t1 = now_ms();
    float dt = v->opt.fixed_dt > 0 ? v->opt.fixed_dt : (float)fmin(fmax(wall_dt, 0.0), 1.0 / 15.0);
    eddy_sim *sim = viewer_scene_sim(v->scene);
    float world[3];
    int have_pointer = viewer_pointer_world(v, world);
    int splatting = v->dim == 2 || v->shift_down;
    int step = 0;
    if (dt > 0 && !v->error[0]) {
        eddy_status st = stir_frame(&v->stirrer, sim, v->left_down && splatting, have_pointer && splatting ? world : NULL, dt);
        if (st == EDDY_OK && v->right_down && have_pointer) viewer_drag_obstacle(v, world, dt);
        /* held off the picture, the obstacle stands still: it pushed on at its last velocity until the pointer came
         * back or the button was let go */
        else if (v->right_down && v->dragged_obstacle >= 0 && v->dragged_moving) viewer_halt_obstacle(v);
        if (st == EDDY_OK && !v->paused) st = viewer_scene_before_step(v->scene, dt);
        if (st != EDDY_OK) {
            snprintf(v->error, sizeof v->error, "simulation stopped: %s: %s", eddy_status_string(st), eddy_sim_last_error(sim));
            v->paused = 1;
        }
        step = !v->paused && !v->error[0];
    }
    v->clock += dt;
    const double t2 = now_ms();
    eddy_view view = viewer_views[v->view_index];
    int rc = 0;
    double serial_step_ms = 0;
    if (v->dim == 2 && step && !v->opt.overlap) { /* step, then draw: the picture shows the state after the step */
        const double ts = now_ms();
        stepper_start(&v->stepper, sim, dt);
        v->stepping = 1;
        viewer_sync(v);
        step = 0;
        serial_step_ms = now_ms() - ts;
    }
    if (v->dim == 2) {
        char msg[400];
        eddy_status st = snapshot_take(&v->snap, sim, view, msg, sizeof msg);
        if (st != EDDY_OK) {
            snprintf(v->error, sizeof v->error, "render: %s", msg);
            rc = -1;
        }
        v->shown_time = v->snap.sim_time;
        if (step) {
            stepper_start(&v->stepper, sim, dt);
            v->stepping = 1;
        }
    } else if (step) { /* the volume is drawn from the simulation itself, after its step */
        stepper_start(&v->stepper, sim, dt);
        v->stepping = 1;
        viewer_sync(v);
    }
    if (v->dim != 2) v->shown_time = eddy_sim_time(sim);
    const double t3 = now_ms();
    if (rc == 0) rc = viewer_render(v);
    const double t4 = now_ms();
    if (rc == 0) viewer_compose(v);
    const double t5 = now_ms();
    viewer_overlay(v);
    const double t6 = now_ms();
    eddy_render_timing rt;
    eddy_renderer_last_timing(v->renderer, &rt);
    const int flat = v->dim == 2 || view != EDDY_VIEW_DYE; /* the volume has no post pass */
    tm->phase_ms[VIEWER_PHASE_INPUT] = t2 - t1;
    tm->phase_ms[VIEWER_PHASE_WAIT] = t1 - t0;
    tm->phase_ms[VIEWER_PHASE_POST] = flat ? rt.post_ms : 0.0;
    tm->phase_ms[VIEWER_PHASE_RENDER] = t4 - t2 - serial_step_ms - tm->phase_ms[VIEWER_PHASE_POST]; /* the copy included */
    if (v->dim != 2) tm->phase_ms[VIEWER_PHASE_RENDER] -= t3 - t2; /* 3D: the step is its own phase */
    tm->phase_ms[VIEWER_PHASE_COMPOSE] = t5 - t4;
    tm->phase_ms[VIEWER_PHASE_OVERLAY] = t6 - t5;
    tm->work_ms = t6 - t0;
    return rc == 0 && !v->error[0] ? 0 : -1;
}

void viewer_set_bgra(viewer *v, int bgra) {
    bgra = bgra != 0;
    if (bgra != v->bgra && v->background.rgba) swap_red_blue(&v->background);
    v->bgra = bgra;
}

const uint8_t *viewer_pixels(const viewer *v, int *w, int *h) {
    *w = v->width;
    *h = v->height;
    return v->pixels;
}

double viewer_clock(const viewer *v) { return v->clock; }
double viewer_sim_time(const viewer *v) { return v->shown_time; }
double viewer_work_ms(const viewer *v) { return v->timing.work_ms; }
const viewer_timing *viewer_last_timing(const viewer *v) { return &v->timing; }
int viewer_post(const viewer *v) { return v->post; }
void viewer_set_fps(viewer *v, double fps) { v->fps = fps; }
int viewer_want_quit(const viewer *v) { return v->quit; }
const char *viewer_error(const viewer *v) { return v->error; }
eddy_sim *viewer_sim(viewer *v) {
    viewer_sync(v);
    return viewer_scene_sim(v->scene);
}
const char *viewer_status_note(const viewer *v) { return v->note[0] && v->clock < v->note_until ? v->note : ""; }
const char *viewer_pending_screenshot(const viewer *v) { return v->screenshot_pending ? v->screenshot_path : NULL; }

void viewer_screenshot_done(viewer *v, int ok, const char *message) {
    char text[600];
    v->screenshot_pending = 0;
    snprintf(text, sizeof text, ok ? "saved %s" : "screenshot failed: %s", message);
    viewer_note(v, text);
}

int viewer_save_png(const char *path, const uint8_t *rgba, int w, int h, char *msg, size_t msg_size) {
    eddy_image img = {w, h, (uint8_t *)rgba};
    return eddy_png_write(path, &img, 0, msg, msg_size) == EDDY_OK ? 0 : -1;
}
