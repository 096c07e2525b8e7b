/* 2D pictures of a simulation, checked for content: dye shows where it was written (and the image top is max y),
 * transparent mode gives coverage alpha, each post-processing pass does what it says where it should and nothing
 * where it should not, obstacles are flat grey, scalar views use the documented maps, ranges and colour bar,
 * slices of a 3D simulation pick the right layer, results are the same bytes for 1 and 2 threads, and
 * eddy_render_size gives the size the renderer makes (or its refusal) from the definitions alone.
 * The pictures are written to scratch_render_2d/ for a look. */
#include "check.h"
#include "test_util.h"
#include <math.h>

static char dir[256];
static void save(const char *name, const eddy_image *img) {
    char path[512], msg[256];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    eddy_png_write(path, img, 1, msg, sizeof msg);
}

enum { NX = 64, NY = 36 };

/* a disk of dye (value 1 inside radius r, smooth 1.5-cell rim) at world (cx, cy) into channel c */
static void disk(float *f, float h, float cx, float cy, float r) {
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            float x = ((float)i + 0.5f) * h, y = ((float)j + 0.5f) * h;
            float d = sqrtf((x - cx) * (x - cx) + (y - cy) * (y - cy));
            float v = (r - d) / (1.5f * h) + 0.5f;
            f[i + NX * j] = fmaxf(f[i + NX * j], fminf(fmaxf(v, 0.0f), 1.0f));
        }
}

static int lum(const uint8_t *p) { return p[0] + p[1] + p[2]; }

/* eddy_render_size: the picture size from the definitions alone, and the size eddy_render_sim then makes (the same
 * rule: the renderer uses it). 2D and each 3D slice axis, dye_scale, one side given, refusals over 16384. */
static void check_render_size(eddy_renderer *r) {
    char msg[512];
    int w = -1, h = -1;
    eddy_image img = {0};
    struct {
        int dim, grid[3], dye_scale[3], slice_axis, view, width, height, want_w, want_h;
    } cases[] = {
        {2, {40, 30, 1}, {1, 1, 1}, 2, EDDY_VIEW_DYE, 0, 0, 40, 30},      /* one pixel per dye cell */
        {2, {40, 30, 1}, {2, 3, 1}, 2, EDDY_VIEW_DYE, 0, 0, 80, 90},      /* dye cells = grid x dye_scale */
        {2, {40, 30, 1}, {1, 1, 1}, 2, EDDY_VIEW_DYE, 100, 0, 100, 75},   /* height from the box's aspect */
        {2, {40, 30, 1}, {1, 1, 1}, 2, EDDY_VIEW_SPEED, 0, 60, 80, 60},   /* width from it; any view */
        {2, {40, 30, 1}, {1, 1, 1}, 2, EDDY_VIEW_DYE, 33, 7, 33, 7},      /* both given */
        {2, {400, 3, 1}, {1, 1, 1}, 2, EDDY_VIEW_DYE, 100, 0, 100, 1},    /* a side under a pixel is one pixel */
        {3, {16, 8, 12}, {1, 2, 1}, 2, EDDY_VIEW_DYE, 0, 0, 16, 16},      /* across z: x right, y up */
        {3, {16, 8, 12}, {1, 2, 1}, 1, EDDY_VIEW_PRESSURE, 0, 0, 16, 12}, /* across y: x right, z up */
        {3, {16, 8, 12}, {1, 2, 1}, 0, EDDY_VIEW_DYE, 0, 32, 48, 32},     /* across x: z right, y up */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        eddy_sim_def sd = eddy_sim_def_default();
        sd.dim = cases[c].dim;
        memcpy(sd.grid, cases[c].grid, sizeof sd.grid);
        memcpy(sd.dye_scale, cases[c].dye_scale, sizeof sd.dye_scale);
        sd.size[0] = 0.5f * (float)sd.grid[0]; /* cells of 0.5 m */
        eddy_render_def rd = eddy_render_def_default();
        rd.slice_axis = cases[c].slice_axis, rd.view = (eddy_view)cases[c].view;
        rd.width = cases[c].width, rd.height = cases[c].height;
        CHECK(eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg) == EDDY_OK && w == cases[c].want_w &&
                  h == cases[c].want_h,
              "case %zu: %d x %d, expected %d x %d: %s", c, w, h, cases[c].want_w, cases[c].want_h, msg);
        eddy_sim *sim = NULL;
        CHECK(eddy_sim_create(&sd, &sim, msg, sizeof msg) == EDDY_OK, "case %zu: %s", c, msg);
        CHECK(sim && eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && img.width == w && img.height == h,
              "case %zu: the renderer makes %d x %d, eddy_render_size said %d x %d: %s", c, img.width, img.height, w, h,
              eddy_renderer_last_error(r));
        eddy_sim_destroy(sim);
    }
    /* refusals: a side over 16384, named with where it came from; the renderer refuses with the same words */
    eddy_sim_def tall = eddy_sim_def_default();
    tall.grid[0] = 3, tall.grid[1] = 100000;
    eddy_render_def rd = eddy_render_def_default();
    rd.width = 16384;
    CHECK(eddy_render_size(&rd, &tall, &w, &h, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && w == 0 && h == 0 &&
              strstr(msg, "render.width = 16384") && strstr(msg, "16384 x 546133") &&
              strstr(msg, "at most 16384"),
          "%s", msg);
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&tall, &sim, NULL, 0) == EDDY_OK, "a 3 x 100000 simulation");
    CHECK(sim && eddy_render_sim(r, sim, &rd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
              !strcmp(eddy_renderer_last_error(r), msg),
          "the renderer's refusal is the same: %s", eddy_renderer_last_error(r));
    eddy_sim_destroy(sim);
    rd.width = 0;
    CHECK(eddy_render_size(&rd, &tall, &w, &h, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "one pixel per cell of the 3 x 100000 cells") && strstr(msg, "set render.width"),
          "%s", msg);
    tall.dim = 3, tall.grid[2] = 4, rd.slice_axis = 0, rd.height = 300; /* across x: z right, y up */
    CHECK(eddy_render_size(&rd, &tall, &w, &h, msg, sizeof msg) == EDDY_OK && w == 1 && h == 300, "%d x %d: %s", w,
          h, msg);
    /* bad definitions are named, and the outputs are required */
    tall.grid[0] = 2;
    CHECK(eddy_render_size(&rd, &tall, &w, &h, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "grid[0]"),
          "%s", msg);
    tall.grid[0] = 3, rd.height = -1;
    CHECK(eddy_render_size(&rd, &tall, &w, &h, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "render.height"), "%s", msg);
    rd.height = 0;
    CHECK(eddy_render_size(&rd, &tall, NULL, &h, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT, "%s", msg);
    CHECK(eddy_render_size(NULL, &tall, &w, &h, NULL, 0) == EDDY_ERR_INVALID_ARGUMENT, "NULL definition");
    eddy_image_free(&img);
}

/* eddy_render_size checks the slice as the render does (one rule): on a 3D simulation a slice_index past the last
 * dye cell along slice_axis, or a slice_position outside the box, used to be sized as OK and then refused by the
 * render. Each axis, the dye view and one on the velocity cells (an index counts dye cells whatever the view),
 * dye_scale 2 on the y axis, an origin away from 0; a 2D simulation ignores the slice options. */
static void check_render_size_slices(eddy_renderer *r) {
    char msg[512], first[512];
    int w = -1, h = -1;
    eddy_image img = {0};
    eddy_sim_def sd = eddy_sim_def_default();
    sd.dim = 3;
    sd.grid[0] = 16, sd.grid[1] = 8, sd.grid[2] = 12;
    sd.dye_scale[1] = 2;                               /* dye cells 16 x 16 x 12 */
    sd.size[0] = 8.0f;                                 /* cells of 0.5 m: a box of 8 x 4 x 6 m */
    sd.origin[0] = -1.0f, sd.origin[1] = 2.0f, sd.origin[2] = 10.0f;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&sd, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    const int dye_cells[3] = {16, 16, 12};
    const float lo[3] = {-1.0f, 2.0f, 10.0f}, hi[3] = {7.0f, 6.0f, 16.0f};
    const eddy_view views[2] = {EDDY_VIEW_DYE, EDDY_VIEW_PRESSURE};
    for (int a = 0; a < 3 && sim; a++)
        for (int vi = 0; vi < 2; vi++) {
            eddy_render_def rd = eddy_render_def_default();
            rd.slice_axis = a, rd.view = views[vi];
            /* the last layer and the box's ends are in; one past them is out, for both */
            const int good_index[2] = {0, dye_cells[a] - 1}, bad_index[2] = {dye_cells[a], 1000000};
            const float good_pos[2] = {lo[a], hi[a]}, bad_pos[2] = {lo[a] - 0.01f, hi[a] + 0.01f};
            for (int q = 0; q < 2; q++) {
                rd.slice_index = good_index[q];
                eddy_status st = eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg);
                CHECK(st == EDDY_OK && w > 0 && h > 0, "axis %d %s slice_index %d: %s", a, eddy_view_name(rd.view),
                      rd.slice_index, msg);
                CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && img.width == w && img.height == h,
                      "axis %d %s slice_index %d renders: %s", a, eddy_view_name(rd.view), rd.slice_index,
                      eddy_renderer_last_error(r));
                rd.slice_index = bad_index[q];
                st = eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg);
                char want[64];
                snprintf(want, sizeof want, "slice_index = %d: expected 0 .. %d", rd.slice_index, dye_cells[a] - 1);
                CHECK(st == EDDY_ERR_INVALID_ARGUMENT && w == 0 && h == 0 && strstr(msg, want),
                      "axis %d %s slice_index %d: status %d, %d x %d: %s", a, eddy_view_name(rd.view), rd.slice_index,
                      (int)st, w, h, msg);
                CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
                          !strcmp(eddy_renderer_last_error(r), msg),
                      "the render refuses it in the same words: '%s' / '%s'", eddy_renderer_last_error(r), msg);
                rd.slice_index = -1, rd.slice_position = good_pos[q];
                CHECK(eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg) == EDDY_OK &&
                          eddy_render_sim(r, sim, &rd, &img) == EDDY_OK,
                      "axis %d slice_position %g m: %s / %s", a, (double)rd.slice_position, msg,
                      eddy_renderer_last_error(r));
                rd.slice_position = bad_pos[q];
                st = eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg);
                CHECK(st == EDDY_ERR_INVALID_ARGUMENT && w == 0 && h == 0 && strstr(msg, "slice_position") &&
                          strstr(msg, "inside the box"),
                      "axis %d slice_position %g m: status %d: %s", a, (double)rd.slice_position, (int)st, msg);
                CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
                          !strcmp(eddy_renderer_last_error(r), msg),
                      "the render refuses it in the same words: '%s' / '%s'", eddy_renderer_last_error(r), msg);
                rd.slice_position = NAN;
            }
        }
    eddy_sim_destroy(sim);
    /* an index below -1 is a bad definition for both */
    eddy_render_def rd = eddy_render_def_default();
    rd.slice_index = -2;
    CHECK(eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "slice_index = -2"), "%s", msg);
    snprintf(first, sizeof first, "%s", msg);
    sd.dim = 2, sd.grid[2] = 1;
    CHECK(eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && !strcmp(msg, first),
          "-2 is refused in 2D too: %s", msg);
    /* 2D: the slice options are ignored, by the size and by the render */
    sim = NULL;
    CHECK(eddy_sim_create(&sd, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    rd.slice_index = 1000000, rd.slice_axis = 0;
    CHECK(eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg) == EDDY_OK && w == 16 && h == 16, "2D: %d x %d: %s", w,
          h, msg);
    CHECK(sim && eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && img.width == 16 && img.height == 16, "2D: %s",
          eddy_renderer_last_error(r));
    rd.slice_index = -1, rd.slice_position = -1e30f;
    CHECK(eddy_render_size(&rd, &sd, &w, &h, msg, sizeof msg) == EDDY_OK && sim &&
              eddy_render_sim(r, sim, &rd, &img) == EDDY_OK,
          "2D ignores slice_position: %s / %s", msg, eddy_renderer_last_error(r));
    eddy_sim_destroy(sim);
    eddy_image_free(&img);
}

/* Dye at the float limits: a finite 3e38 written into a simulation, 3e38 times exposure 2 (infinity in float) and
 * an infinite input array are the brightest dye, red 255 and opaque, with every post-process and tonemap. They used
 * to overflow into NaN: bloom blacked out the disk and its glow, Reinhard's inf / (1 + inf) made it black, and in
 * transparent mode its alpha was a NaN converted to a byte (undefined; 0 on x86). */
static void check_huge_dye(eddy_renderer *r) {
    enum { M = 32 };
    char msg[512];
    static float red[M * M];
    int inside[M * M];
    for (int j = 0; j < M; j++)
        for (int i = 0; i < M; i++) {
            inside[i + M * j] = (i - 16) * (i - 16) + (j - 16) * (j - 16) < 36;
            red[i + M * j] = inside[i + M * j] ? 3e38f : 0.0f;
        }
    eddy_sim_def sd = eddy_sim_def_default();
    sd.grid[0] = sd.grid[1] = M;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&sd, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(sim && eddy_sim_write_field(sim, EDDY_FIELD_DYE_R, red, M * M) == EDDY_OK, "a finite 3e38 is a valid dye");
    static float inf_red[M * M];
    for (int e = 0; e < M * M; e++) inf_red[e] = inside[e] ? INFINITY : 0.0f;
    eddy_render_input in = {.dim = 2, .box_size = {1, 1, 1}, .dye_n = {M, M, 1}, .dye = {inf_red, NULL, NULL}};
    eddy_image img = {0};
    for (int variant = 0; variant < 9 && sim; variant++)
        for (int source = 0; source < 2; source++) {
            eddy_render_def rd = eddy_render_def_default();
            const char *what = "plain";
            switch (variant) {
            case 1: rd.bloom = 1, what = "bloom"; break;
            case 2: rd.shading = 1, rd.specular = 1, what = "shading"; break;
            case 3: rd.edges = 1, what = "edges"; break;
            case 4: rd.bloom = rd.shading = rd.edges = 1, rd.bloom_intensity = 1e6f, what = "all, bloom 1e6"; break;
            case 5: rd.tonemap = EDDY_TONEMAP_REINHARD, rd.exposure = 2, what = "reinhard x2"; break;
            case 6: rd.tonemap = EDDY_TONEMAP_ACES, rd.exposure = 2, what = "aces x2"; break;
            case 7: rd.tonemap = EDDY_TONEMAP_REINHARD, rd.exposure = 2, rd.transparent = 1, what = "transparent"; break;
            case 8: rd.bloom = 1, rd.width = 80, rd.transparent = 1, what = "bloom, resampled, transparent"; break;
            default: break;
            }
            const eddy_status st =
                source == 0 ? eddy_render_sim(r, sim, &rd, &img) : eddy_render_input_2d(r, &in, &rd, &img);
            CHECK(st == EDDY_OK, "%s: %s", what, eddy_renderer_last_error(r));
            int wrong = 0, first = -1;
            for (int y = 0; y < img.height && st == EDDY_OK; y++)
                for (int x = 0; x < img.width; x++) {
                    const int i = x * M / img.width, j = M - 1 - y * M / img.height; /* the cell under the pixel */
                    if (!inside[i + M * j]) continue;
                    const uint8_t *p = px(&img, x, y);
                    if (p[0] != 255 || p[3] != 255) wrong++, first = first < 0 ? x + img.width * y : first;
                }
            CHECK(wrong == 0, "%s, %s: %d pixels of the disk are not red 255 and opaque (the first: %d %d %d %d)", what,
                  source ? "infinite input" : "3e38 in a simulation", wrong, first < 0 ? 0 : img.rgba[4 * first],
                  first < 0 ? 0 : img.rgba[4 * first + 1], first < 0 ? 0 : img.rgba[4 * first + 2],
                  first < 0 ? 0 : img.rgba[4 * first + 3]);
        }
    eddy_sim_destroy(sim);
    eddy_image_free(&img);
}

/* Scalar views of finite fields at the float limits. Bilinear sampling between cells of -3e38 and +3e38 took b - a
 * in float (infinite, times a zero weight NaN: a cell of +3e38 drew the map's low end); u faces of 3e38 averaged to
 * an infinite centre (left out of the automatic range: [-0.5, 0.5]); a constant plane of 1e30 lost its unit range
 * in float (a zero width: the low end, not the middle a constant plane gets). */
static void check_scalar_limits(eddy_renderer *r) {
    enum { M = 32 };
    char msg[512];
    eddy_sim_def sd = eddy_sim_def_default();
    sd.grid[0] = sd.grid[1] = M;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&sd, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (!sim) return;
    static float f[(M + 1) * M];
    for (int e = 0; e < M * M; e++) f[e] = (e % 2) ? 3e38f : -3e38f; /* odd columns +3e38 */
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_PRESSURE, f, M * M) == EDDY_OK, "%s", eddy_sim_last_error(sim));
    eddy_render_def rd = eddy_render_def_default();
    rd.view = EDDY_VIEW_PRESSURE;
    rd.width = 3 * M; /* pixel 3i + 1 sits on the centre of cell column i */
    eddy_image img = {0};
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    float lo, hi, top[3], bottom[3];
    eddy_renderer_last_range(r, &lo, &hi);
    eddy_colormap_eval(EDDY_COLORMAP_DIVERGING, 1.0f, top);
    eddy_colormap_eval(EDDY_COLORMAP_DIVERGING, 0.0f, bottom);
    CHECK(lo == -3e38f && hi == 3e38f, "range [%g, %g]", (double)lo, (double)hi);
    int wrong = 0;
    for (int i = 0; i < M && img.rgba; i++) {
        const float *want = i % 2 ? top : bottom;
        const uint8_t *p = px(&img, 3 * i + 1, 10);
        for (int k = 0; k < 3; k++) wrong += abs(p[k] - (int)(want[k] * 255.0f + 0.5f)) > 1;
    }
    CHECK(wrong == 0, "cells of +3e38 at the top of the map and -3e38 at the bottom: %d channels wrong", wrong);
    const uint8_t *between = px(&img, 2, 10); /* a third of the way from -3e38 to +3e38 */
    CHECK(between[2] < 250 && between[0] > 100, "between the cells a value between: %d %d %d", between[0], between[1],
          between[2]);
    /* u of 3e38 on every face: 3e38 at every centre (no-slip walls: half that beside them) */
    for (int e = 0; e < (M + 1) * M; e++) f[e] = 3e38f;
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_U, f, (M + 1) * M) == EDDY_OK, "%s", eddy_sim_last_error(sim));
    rd = eddy_render_def_default();
    rd.view = EDDY_VIEW_U;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    eddy_renderer_last_range(r, &lo, &hi);
    CHECK(hi == 3e38f && lo == -3e38f, "u range [%g, %g]: the centres are finite", (double)lo, (double)hi);
    /* a constant plane: the middle of the map at 1 K and at 1e30 K */
    rd = eddy_render_def_default();
    rd.view = EDDY_VIEW_TEMPERATURE;
    uint8_t mid[2][4];
    const float constant[2] = {1.0f, 1e30f};
    for (int c = 0; c < 2; c++) {
        for (int e = 0; e < M * M; e++) f[e] = constant[c];
        CHECK(eddy_sim_write_field(sim, EDDY_FIELD_TEMPERATURE, f, M * M) == EDDY_OK, "%s", eddy_sim_last_error(sim));
        CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && image_is_constant(&img), "%s",
              eddy_renderer_last_error(r));
        memcpy(mid[c], px(&img, 5, 5), 4);
    }
    CHECK(!memcmp(mid[0], mid[1], 4), "a constant 1e30 K is the middle colour, as 1 K: %d %d %d against %d %d %d",
          mid[1][0], mid[1][1], mid[1][2], mid[0][0], mid[0][1], mid[0][2]);
    eddy_sim_destroy(sim);
    /* values that are not finite (plain arrays; a simulation stopped by a non-finite step) are drawn as
     * docs/rendering.md says: left out of the automatic range, NaN at the map's low end as eddy_colormap_eval draws
     * it, infinities at the ends */
    static const float row[4] = {NAN, INFINITY, -INFINITY, 2.0f};
    const float values[4] = {0.0f, 1.0f, 0.0f, 1.0f}; /* where each lands on the map */
    eddy_render_input in = {.dim = 2, .box_size = {4, 1, 1}, .scalar_n = {4, 1, 1}, .scalar = row};
    eddy_render_def sv = eddy_render_def_default();
    sv.view = EDDY_VIEW_SPEED; /* viridis */
    CHECK(eddy_render_input_2d(r, &in, &sv, &img) == EDDY_OK && img.width == 4, "%s", eddy_renderer_last_error(r));
    eddy_renderer_last_range(r, &lo, &hi);
    CHECK(lo == 1.5f && hi == 2.5f, "the automatic range holds the finite value only: [%g, %g]", (double)lo, (double)hi);
    for (int i = 0; i < 4 && img.rgba; i++) {
        float want[3];
        eddy_colormap_eval(EDDY_COLORMAP_VIRIDIS, i == 3 ? 0.5f : values[i], want);
        const uint8_t *p = px(&img, i, 0);
        int off = 0;
        for (int k = 0; k < 3; k++) off += abs(p[k] - (int)(want[k] * 255.0f + 0.5f)) > 2;
        CHECK(off == 0, "value %g drawn at t = %g: %d %d %d", (double)row[i], i == 3 ? 0.5 : (double)values[i], p[0],
              p[1], p[2]);
    }
    eddy_image_free(&img);
}

int main(void) {
    char msg[512];
    test_dir("render_2d", dir, sizeof dir);
    eddy_sim_def def = eddy_sim_def_default();
    def.grid[0] = NX, def.grid[1] = NY; /* h = 1/64 m, box 1 x 0.5625 m */
    eddy_sim *sim = NULL;
    if (eddy_sim_create(&def, &sim, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return check_finish("test_render_2d");
    }
    const float h = eddy_sim_cell_size(sim);
    static float red[NX * NY], green[NX * NY];
    disk(red, h, 0.25f, 0.40f, 0.08f);   /* pixel (16, 10.4): upper left */
    disk(green, h, 0.75f, 0.15f, 0.08f); /* pixel (48, 26.4): lower right */
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_R, red, NX * NY) == EDDY_OK, "write red");
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_G, green, NX * NY) == EDDY_OK, "write green");

    eddy_renderer *r = NULL;
    CHECK(eddy_renderer_create(0, &r, msg, sizeof msg) == EDDY_OK, "%s", msg);
    eddy_render_def rd = eddy_render_def_default();
    eddy_image plain = {0}, img = {0};

    /* ---- plain dye: one pixel per cell, red upper left, green lower right, black elsewhere ---- */
    CHECK(eddy_render_sim(r, sim, &rd, &plain) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    save("dye", &plain);
    CHECK(plain.width == NX && plain.height == NY, "default size %d x %d = scalar cells", plain.width, plain.height);
    const uint8_t *pr = px(&plain, 16, 10), *pg = px(&plain, 48, 26), *pb = px(&plain, 60, 2);
    CHECK(pr[0] == 255 && pr[1] == 0 && pr[2] == 0 && pr[3] == 255, "red disk: %d %d %d %d", pr[0], pr[1], pr[2], pr[3]);
    CHECK(pg[0] == 0 && pg[1] == 255 && pg[2] == 0, "green disk: %d %d %d", pg[0], pg[1], pg[2]);
    CHECK(pb[0] == 0 && pb[1] == 0 && pb[2] == 0 && pb[3] == 255, "empty corner is opaque black");
    CHECK(lum(px(&plain, 16, NY - 1 - 10)) == 0, "the red disk is not mirrored to the bottom (image top = max y)");
    CHECK(!image_is_constant(&plain), "image is not constant");
    uint8_t *first = plain.rgba;
    CHECK(eddy_render_sim(r, sim, &rd, &plain) == EDDY_OK && plain.rgba == first, "same size: the image is reused");

    /* a chosen width keeps the aspect ratio; a dye value of 0.5 is sRGB-encoded (0.5 linear -> 188) */
    rd.width = 128;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && img.width == 128 && img.height == 72, "128 x %d", img.height);
    rd.width = 0;
    rd.exposure = 0.5f;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "exposure");
    CHECK(px(&img, 16, 10)[0] == 188, "0.5 linear encodes to sRGB 188, got %d", px(&img, 16, 10)[0]);
    rd.exposure = 1.0f;

    /* ---- transparent: coverage alpha, unpremultiplied colour ---- */
    rd.transparent = 1;
    rd.exposure = 0.25f;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "transparent");
    save("transparent", &img);
    CHECK(px(&img, 60, 2)[3] == 0, "no dye: alpha 0");
    const uint8_t *t = px(&img, 16, 10);
    CHECK(t[3] == 64 && t[0] == 255 && t[1] == 0, "dye 0.25: alpha 64 and full red, got %d %d %d %d", t[0], t[1], t[2], t[3]);
    rd.transparent = 0;
    rd.exposure = 1.0f;

    /* ---- bloom: light spreads outside the disk; nothing with an unreachable threshold ---- */
    rd.bloom = 1;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "bloom");
    save("bloom", &img);
    int near_before = px(&plain, 16, 17)[0], near_after = px(&img, 16, 17)[0];
    CHECK(near_after > near_before + 10, "bloom glow 7 px below the red disk: %d -> %d", near_before, near_after);
    CHECK(px(&img, 16, 17)[1] < near_after / 2, "the glow near the red disk is red");
    rd.bloom_threshold = 50.0f;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "bloom");
    CHECK(!memcmp(img.rgba, plain.rgba, (size_t)NX * NY * 4), "bloom above every value adds nothing");
    rd.bloom = 0;
    rd.bloom_threshold = 0.6f;

    /* ---- shading: flat areas keep their colour (ambient + diffuse = 1, light from the viewer), slopes darken ---- */
    rd.shading = 1;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "shading");
    save("shading", &img);
    CHECK(px(&img, 16, 10)[0] == 255 && lum(px(&img, 60, 2)) == 0, "flat inside and outside: unchanged");
    double sum_plain = 0, sum_shaded = 0;
    int darker = 0;
    for (size_t p = 0; p < (size_t)NX * NY; p++) {
        sum_plain += plain.rgba[4 * p];
        sum_shaded += img.rgba[4 * p];
        darker += img.rgba[4 * p] < plain.rgba[4 * p];
    }
    CHECK(darker > 10 && sum_shaded < sum_plain, "the rims are shaded: %d darker pixels", darker);
    for (size_t p = 0; p < (size_t)NX * NY; p++)
        if (img.rgba[4 * p] > plain.rgba[4 * p]) {
            CHECK(0, "shading brightened pixel %zu", p);
            break;
        }
    /* a light direction of any length is the same light: (2^-100, 2^-101, 2^-100) used to normalise to 0/0 (no
     * light: the shading of a light from the viewer), now it lights as (1, 0.5, 1) does, to the byte */
    {
        eddy_image lit = {0}, tiny = {0};
        rd.light_dir[0] = 1.0f, rd.light_dir[1] = 0.5f, rd.light_dir[2] = 1.0f;
        CHECK(eddy_render_sim(r, sim, &rd, &lit) == EDDY_OK, "%s", eddy_renderer_last_error(r));
        rd.light_dir[0] = ldexpf(1.0f, -100), rd.light_dir[1] = ldexpf(1.0f, -101), rd.light_dir[2] = ldexpf(1.0f, -100);
        CHECK(eddy_render_sim(r, sim, &rd, &tiny) == EDDY_OK, "%s", eddy_renderer_last_error(r));
        CHECK(lit.rgba && tiny.rgba && !memcmp(lit.rgba, tiny.rgba, (size_t)NX * NY * 4) && memcmp(lit.rgba, img.rgba, (size_t)NX * NY * 4),
              "light_dir (2^-100, 2^-101, 2^-100) lights as (1, 0.5, 1), not as the light from the viewer");
        eddy_image_free(&lit);
        eddy_image_free(&tiny);
        rd.light_dir[0] = rd.light_dir[1] = 0.0f, rd.light_dir[2] = 1.0f;
    }
    rd.shading = 0;

    /* ---- edges: white is added on the rims only ---- */
    rd.edges = 1;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "edges");
    save("edges", &img);
    int rim_blue = 0, flat_blue = px(&img, 16, 10)[2] + px(&img, 60, 2)[2];
    for (int x = 0; x < NX; x++) rim_blue = rim_blue > px(&img, x, 10)[2] ? rim_blue : px(&img, x, 10)[2];
    CHECK(rim_blue > 100 && flat_blue == 0, "edge highlight on the rim (blue %d), none on flat areas (%d)", rim_blue,
          flat_blue);
    rd.edges = 0;

    /* ---- obstacles: flat grey ---- */
    eddy_obstacle_def ob = {0};
    ob.shape = EDDY_SHAPE_SPHERE;
    ob.center[0] = 0.5f, ob.center[1] = 0.28f, ob.radius = 0.06f;
    eddy_id oid;
    CHECK(eddy_sim_add_obstacle(sim, &ob, &oid) == EDDY_OK, "%s", eddy_sim_last_error(sim));
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "obstacle");
    save("obstacle", &img);
    const uint8_t *o = px(&img, 32, 18);
    CHECK(o[0] == 128 && o[1] == 128 && o[2] == 128 && o[3] == 255, "obstacle grey: %d %d %d", o[0], o[1], o[2]);
    rd.draw_obstacles = 0;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && lum(px(&img, 32, 18)) == 0, "obstacles can be hidden");
    rd.draw_obstacles = 1;

    /* ---- determinism: post-processing on 1 and 2 threads gives the same bytes ---- */
    eddy_renderer *r1 = NULL, *r2 = NULL;
    eddy_renderer_create(1, &r1, msg, sizeof msg);
    eddy_renderer_create(2, &r2, msg, sizeof msg);
    eddy_image a = {0}, b = {0};
    rd.bloom = rd.shading = rd.edges = 1;
    rd.width = 200;
    CHECK(eddy_render_sim(r1, sim, &rd, &a) == EDDY_OK && eddy_render_sim(r2, sim, &rd, &b) == EDDY_OK, "threads");
    CHECK(a.rgba && b.rgba && !memcmp(a.rgba, b.rgba, (size_t)a.width * a.height * 4), "1 and 2 threads: same bytes");
    save("all_post", &a);
    rd = eddy_render_def_default();

    /* ---- scalar views: a solid-body rotation u = -(y - yc), v = x - xc has vorticity 2 ---- */
    static float u[(NX + 1) * NY], v[NX * (NY + 1)];
    const float xc = 0.5f, yc = 0.28125f;
    for (int j = 0; j < NY; j++)
        for (int i = 0; i <= NX; i++) u[i + (NX + 1) * j] = -((((float)j + 0.5f) * h) - yc);
    for (int j = 0; j <= NY; j++)
        for (int i = 0; i < NX; i++) v[i + NX * j] = ((float)i + 0.5f) * h - xc;
    CHECK(eddy_sim_remove_obstacle(sim, oid) == EDDY_OK, "remove obstacle");
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_U, u, sizeof u / sizeof u[0]) == EDDY_OK, "%s", eddy_sim_last_error(sim));
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_V, v, sizeof v / sizeof v[0]) == EDDY_OK, "%s", eddy_sim_last_error(sim));
    float lo, hi;
    rd.view = EDDY_VIEW_VORTICITY;
    rd.colorbar = 1;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    save("vorticity", &img);
    eddy_renderer_last_range(r, &lo, &hi);
    CHECK(lo == -hi && hi > 1.5f, "diverging range is symmetric: [%g, %g]", lo, hi);
    const uint8_t *c = px(&img, 20, 18);
    CHECK(c[0] > c[2], "positive vorticity on the red side: %d %d %d", c[0], c[1], c[2]);
    /* the colour bar: top = high end of the map, bottom = low end */
    float top[3], bot[3];
    eddy_colormap_eval(EDDY_COLORMAP_DIVERGING, 1.0f, top);
    eddy_colormap_eval(EDDY_COLORMAP_DIVERGING, 0.0f, bot);
    const uint8_t *bt = px(&img, 57, 7), *bb = px(&img, 57, 27);
    CHECK(abs(bt[0] - (int)(top[0] * 255 + 0.5f)) <= 1 && abs(bt[2] - (int)(top[2] * 255 + 0.5f)) <= 1,
          "bar top %d %d %d", bt[0], bt[1], bt[2]);
    CHECK(abs(bb[0] - (int)(bot[0] * 255 + 0.5f)) <= 1 && abs(bb[2] - (int)(bot[2] * 255 + 0.5f)) <= 1,
          "bar bottom %d %d %d", bb[0], bb[1], bb[2]);
    rd.width = 320;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "large vorticity");
    save("vorticity_large", &img);
    int white = 0;
    for (int y = 0; y < img.height; y++)
        for (int x = img.width * 3 / 4; x < img.width; x++) white += lum(px(&img, x, y)) == 765;
    CHECK(white > 20, "colour bar labels drawn in white (%d pixels)", white);
    rd.width = 0;
    rd.colorbar = 0;

    rd.view = EDDY_VIEW_SPEED;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "speed");
    save("speed", &img);
    eddy_renderer_last_range(r, &lo, &hi);
    /* speed = distance from the centre: from ~0 (a half cell off) to the corner cell, ~0.56 m/s */
    CHECK(lo < 0.02f && fabsf(hi - 0.561f) < 0.03f, "speed range [%g, %g]", lo, hi);
    CHECK(lum(px(&img, 32, 18)) < lum(px(&img, 0, 0)), "slow centre darker than fast corner (viridis)");
    rd.range_min = 0, rd.range_max = 10;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "fixed range");
    eddy_renderer_last_range(r, &lo, &hi);
    CHECK(lo == 0 && hi == 10, "a fixed range is kept");
    /* a range as wide as float allows: its width overflowed float and every value took the bottom colour */
    rd.range_min = -1e30f, rd.range_max = 1e30f;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "range +-1e30");
    uint8_t mid[3];
    memcpy(mid, px(&img, 32, 18), 3);
    rd.range_min = -3e38f, rd.range_max = 3e38f;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "range +-3e38");
    CHECK(!memcmp(mid, px(&img, 32, 18), 3) && (mid[0] | mid[1] | mid[2]) != 0,
          "range +-3e38 maps speed ~0 to the middle colour as +-1e30 does: %d %d %d against %d %d %d", px(&img, 32, 18)[0],
          px(&img, 32, 18)[1], px(&img, 32, 18)[2], mid[0], mid[1], mid[2]);
    rd.range_min = rd.range_max = 0;

    rd.view = EDDY_VIEW_DIVERGENCE;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "divergence");
    eddy_renderer_last_range(r, &lo, &hi);
    CHECK(lo == -hi, "divergence range symmetric");
    rd.view = EDDY_VIEW_PRESSURE;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "pressure");
    rd.view = EDDY_VIEW_U;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "u");
    CHECK(px(&img, 32, 2)[2] > px(&img, 32, 2)[0] && px(&img, 32, 33)[0] > px(&img, 32, 33)[2],
          "u < 0 at the top (blue), > 0 at the bottom (red)");
    static float temp[NX * NY];
    disk(temp, h, 0.25f, 0.40f, 0.08f);
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_TEMPERATURE, temp, NX * NY) == EDDY_OK, "temperature");
    rd.view = EDDY_VIEW_TEMPERATURE;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK, "temperature");
    save("temperature", &img);
    CHECK(lum(px(&img, 16, 10)) > lum(px(&img, 60, 2)) + 300, "hot disk bright on inferno");

    /* ---- errors name the parameter ---- */
    rd.view = EDDY_VIEW_W;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_renderer_last_error(r), "z velocity"), "%s", eddy_renderer_last_error(r));
    rd = eddy_render_def_default();
    rd.bloom_levels = 0;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_renderer_last_error(r), "bloom_levels = 0"), "%s", eddy_renderer_last_error(r));
    eddy_sim_destroy(sim);

    /* ---- slices of a 3D simulation ---- */
    eddy_sim_def d3 = eddy_sim_def_default();
    d3.dim = 3;
    d3.grid[0] = 16, d3.grid[1] = 12, d3.grid[2] = 8;
    CHECK(eddy_sim_create(&d3, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    static float layer[16 * 12 * 8];
    for (int j = 0; j < 12; j++)
        for (int i = 0; i < 16; i++) layer[i + 16 * (j + 12 * 2)] = 1.0f; /* dye in z layer 2 only */
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_B, layer, 16 * 12 * 8) == EDDY_OK, "write 3D dye");
    rd = eddy_render_def_default();
    rd.slice_index = 2;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && img.width == 16 && img.height == 12, "z slice size");
    CHECK(px(&img, 5, 5)[2] == 255, "layer 2 is blue");
    rd.slice_index = 5;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && lum(px(&img, 5, 5)) == 0, "layer 5 is empty");
    rd.slice_index = -1; /* NaN position: the middle, z = 4 */
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && image_is_constant(&img), "middle layer empty");
    rd.slice_position = 2.5f / 16.0f; /* metres: the centre of layer 2 (h = 1/16) */
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && px(&img, 5, 5)[2] == 255, "slice by position");
    rd.slice_position = NAN;
    rd.slice_axis = 0; /* x slice: z right, y up */
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && img.width == 8 && img.height == 12, "x slice %d x %d",
          img.width, img.height);
    CHECK(px(&img, 2, 5)[2] == 255 && lum(px(&img, 5, 5)) == 0, "x slice shows the layer as column z = 2");
    rd.slice_axis = 1; /* y slice: x right, z up: layer 2 is image row 8 - 1 - 2 = 5 */
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && img.width == 16 && img.height == 8, "y slice size");
    CHECK(px(&img, 3, 5)[2] == 255 && lum(px(&img, 3, 2)) == 0, "y slice shows the layer as row 5");
    rd.slice_axis = 2;
    rd.slice_index = 8;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_renderer_last_error(r), "slice_index = 8"), "%s", eddy_renderer_last_error(r));
    rd.slice_index = -1;
    rd.view = EDDY_VIEW_W;
    CHECK(eddy_render_sim(r, sim, &rd, &img) == EDDY_OK && img.width == 16 && img.height == 12, "w slice");
    eddy_sim_destroy(sim);

    /* ---- a size derived from a long thin box: beyond 16384 it is refused, not wrapped through an int ---- */
    {
        static const float one[4] = {1, 1, 1, 1};
        eddy_render_input in;
        memset(&in, 0, sizeof in);
        in.dim = 2;
        in.box_size[0] = 1e6f, in.box_size[1] = 1.0f, in.box_size[2] = 1.0f;
        in.dye_n[0] = 2, in.dye_n[1] = 2, in.dye_n[2] = 1;
        in.dye[0] = in.dye[1] = in.dye[2] = one;
        eddy_render_def thin = eddy_render_def_default();
        thin.height = 16384; /* width = 1.6e10: it used to wrap to a negative int, silently made 1 pixel */
        CHECK(eddy_render_input_2d(r, &in, &thin, &img) == EDDY_ERR_INVALID_ARGUMENT &&
                  strstr(eddy_renderer_last_error(r), "16384000000 x 16384"),
              "%s (%d x %d)", eddy_renderer_last_error(r), img.width, img.height);
        thin.height = 4; /* width 4e6: refused as before */
        CHECK(eddy_render_input_2d(r, &in, &thin, &img) == EDDY_ERR_INVALID_ARGUMENT, "width 4e6");
        thin.height = 0, thin.width = 100; /* height 1e-4 pixel: one pixel */
        CHECK(eddy_render_input_2d(r, &in, &thin, &img) == EDDY_OK && img.width == 100 && img.height == 1,
              "%s (%d x %d)", eddy_renderer_last_error(r), img.width, img.height);
    }
    check_render_size(r);
    check_render_size_slices(r);
    check_huge_dye(r);
    check_scalar_limits(r);
    /* a resize of an image that claims no pixels is refused, not read out of bounds */
    {
        uint8_t four[16] = {0};
        eddy_image bad = {4, 0, four}, out = {0};
        CHECK(eddy_image_resize(&bad, 3, 3, &out, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
                  strstr(msg, "4 x 0"), "%s", msg);
        bad.width = -2, bad.height = 2;
        CHECK(eddy_image_resize(&bad, 3, 3, &out, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT, "%s", msg);
        eddy_image_free(&out);
        /* a copy of the source struct as the destination shares its pixels: they were freed to reallocate the
         * destination, then read (a use after free); refused, the source left as it was */
        eddy_image src = {0};
        CHECK(eddy_image_init(&src, 4, 4, msg, sizeof msg) == EDDY_OK, "%s", msg);
        if (src.rgba) memset(src.rgba, 77, 4 * 4 * 4);
        eddy_image alias = src;
        const int sizes[2] = {8, 4}; /* a new size, and the same */
        for (int q = 0; q < 2 && src.rgba; q++) {
            CHECK(eddy_image_resize(&src, sizes[q], sizes[q], &alias, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
                      strstr(msg, "distinct") && alias.rgba == src.rgba && src.rgba[63] == 77,
                  "a destination sharing the source's pixels (%d x %d): %s", sizes[q], sizes[q], msg);
        }
        eddy_image_free(&src);
    }

    eddy_image_free(&plain);
    eddy_image_free(&img);
    eddy_image_free(&a);
    eddy_image_free(&b);
    eddy_renderer_destroy(r);
    eddy_renderer_destroy(r1);
    eddy_renderer_destroy(r2);
    return check_finish("test_render_2d");
}
