/* Volume rendering: a ball of dye shows where it is and in its colour, the empty corners show the background (or
 * alpha 0 in transparent mode), self-shadowing darkens the side away from the light and a ball behind another
 * (seen from the light) is darker than without shadows, obstacles are opaque grey, the camera aims where told,
 * 1 and 2 threads give the same bytes, and a box of very uneven cells renders in a bounded number of steps per ray.
 * Pictures go to scratch_render_volume/. */
#include "check.h"
#include "test_util.h"
#include <math.h>

enum { N = 32 };
static float dr[N * N * N], dg[N * N * N], db[N * N * N];
static uint8_t solid[N * N * N];
static char dir[256];

static void ball(float *f, float cx, float cy, float cz, float rad, float val) {
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                float x = (i + 0.5f) / N, y = (j + 0.5f) / N, z = (k + 0.5f) / N;
                if ((x - cx) * (x - cx) + (y - cy) * (y - cy) + (z - cz) * (z - cz) < rad * rad) f[i + N * (j + N * k)] = val;
            }
}

static void save(const char *name, const eddy_image *img) {
    char path[512], msg[256];
    snprintf(path, sizeof path, "%s/%s.png", dir, name);
    eddy_png_write(path, img, 1, msg, sizeof msg);
}

static double region_mean(const eddy_image *img, int x0, int y0, int x1, int y1, int c) {
    double s = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) s += px(img, x, y)[c];
    return s / ((x1 - x0) * (y1 - y0));
}

int main(void) {
    char msg[512];
    test_dir("render_volume", dir, sizeof dir);
    eddy_renderer *r = NULL;
    CHECK(eddy_renderer_create(0, &r, msg, sizeof msg) == EDDY_OK, "%s", msg);
    /* a unit box, an orange ball in the middle */
    ball(dr, 0.5f, 0.5f, 0.5f, 0.25f, 1.0f);
    ball(dg, 0.5f, 0.5f, 0.5f, 0.25f, 0.5f);
    eddy_render_input in = {.dim = 3, .box_min = {0, 0, 0}, .box_size = {1, 1, 1}, .dye_n = {N, N, N},
                            .dye = {dr, dg, db}};
    eddy_volume_def vd = eddy_volume_def_default();
    vd.width = 96, vd.height = 96;
    /* looking down -z at the centre: at 1.1 m with 40 degrees the ball (radius 0.25 m) spans about 60 pixels */
    vd.camera.position[0] = 0.5f, vd.camera.position[1] = 0.5f, vd.camera.position[2] = 1.6f;
    vd.camera.target[0] = 0.5f, vd.camera.target[1] = 0.5f, vd.camera.target[2] = 0.5f;
    eddy_image img = {0}, img2 = {0};
    CHECK(eddy_render_volume_input(r, &in, &vd, &img) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    save("ball", &img);
    CHECK(img.width == 96 && img.height == 96, "size");
    const uint8_t *c = px(&img, 48, 48), *corner = px(&img, 2, 2);
    CHECK(c[0] > 120 && c[0] > c[1] && c[1] > c[2], "ball centre is orange: %d %d %d", c[0], c[1], c[2]);
    /* background (0.02, 0.02, 0.03) linear, shown as given: sRGB 0.1517 * 255 = 39 and 0.1898 * 255 = 48 */
    CHECK(abs(corner[0] - 39) <= 1 && abs(corner[2] - 48) <= 1, "corner shows the background: %d %d %d", corner[0],
          corner[1], corner[2]);
    /* light from above (+y): the top of the ball is lit, its bottom in its own shadow */
    double top = region_mean(&img, 40, 28, 56, 34, 0), bottom = region_mean(&img, 40, 62, 56, 68, 0);
    CHECK(top > bottom + 20, "self-shadowing: top %.1f vs bottom %.1f", top, bottom);
    vd.shadows = 0;
    CHECK(eddy_render_volume_input(r, &in, &vd, &img2) == EDDY_OK, "no shadows");
    save("ball_noshadow", &img2);
    double top2 = region_mean(&img2, 40, 28, 56, 34, 0), bottom2 = region_mean(&img2, 40, 62, 56, 68, 0);
    CHECK(fabs(top2 - bottom2) < 0.5 * fabs(top - bottom), "without shadows top and bottom are alike: %.1f %.1f", top2,
          bottom2);
    CHECK(mean_channel(&img2, 0) > mean_channel(&img, 0), "shadows darken the picture");
    vd.shadows = 1;

    /* a dense small ball above the big one and towards the camera, with the light straight above: its shadow
     * falls on the upper front of the big ball (image rows 18..26 around the centre column) */
    vd.light_dir[0] = 0, vd.light_dir[1] = 1, vd.light_dir[2] = 0;
    CHECK(eddy_render_volume_input(r, &in, &vd, &img2) == EDDY_OK, "one ball");
    double lit = region_mean(&img2, 40, 18, 56, 26, 0);
    ball(dr, 0.5f, 0.86f, 0.68f, 0.1f, 3.0f);
    ball(dg, 0.5f, 0.86f, 0.68f, 0.1f, 3.0f);
    ball(db, 0.5f, 0.86f, 0.68f, 0.1f, 3.0f);
    CHECK(eddy_render_volume_input(r, &in, &vd, &img2) == EDDY_OK, "two balls");
    save("two_balls", &img2);
    double shaded = region_mean(&img2, 40, 18, 56, 26, 0);
    CHECK(shaded + 15 < lit, "the ball above casts a shadow on the top of the other: %.1f vs %.1f unshaded", shaded, lit);
    vd.light_dir[0] = 0.4f, vd.light_dir[1] = 1, vd.light_dir[2] = 0.3f;

    /* transparent: alpha 0 where there is nothing */
    vd.transparent = 1;
    CHECK(eddy_render_volume_input(r, &in, &vd, &img) == EDDY_OK, "transparent");
    save("transparent", &img);
    CHECK(px(&img, 2, 2)[3] == 0 && px(&img, 48, 48)[3] > 200, "alpha: corner %d, centre %d", px(&img, 2, 2)[3],
          px(&img, 48, 48)[3]);
    vd.transparent = 0;

    /* an obstacle in front of the ball (towards the camera) hides it behind opaque grey */
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                solid[i + N * (j + N * k)] = (i >= 13 && i < 19 && j >= 13 && j < 19 && k >= 26 && k < 30);
    in.solid = solid;
    memcpy(in.solid_n, in.dye_n, sizeof in.solid_n);
    CHECK(eddy_render_volume_input(r, &in, &vd, &img) == EDDY_OK, "obstacle");
    save("obstacle", &img);
    const uint8_t *o = px(&img, 48, 48);
    CHECK(abs(o[0] - o[2]) <= 2 && abs(o[0] - o[1]) <= 2 && o[0] > 20, "grey obstacle in front: %d %d %d", o[0], o[1], o[2]);

    /* automatic camera frames the whole box; 1 vs 2 threads identical */
    memset(vd.camera.position, 0, sizeof vd.camera.position);
    memset(vd.camera.target, 0, sizeof vd.camera.target);
    eddy_renderer *r1 = NULL, *r2 = NULL;
    eddy_renderer_create(1, &r1, msg, sizeof msg);
    eddy_renderer_create(2, &r2, msg, sizeof msg);
    CHECK(eddy_render_volume_input(r1, &in, &vd, &img) == EDDY_OK && eddy_render_volume_input(r2, &in, &vd, &img2) == EDDY_OK,
          "auto camera");
    save("auto_camera", &img);
    CHECK(!memcmp(img.rgba, img2.rgba, 96 * 96 * 4), "1 and 2 threads: same bytes");
    CHECK(!image_is_constant(&img), "auto camera sees the dye");
    /* the box fits: the border rows show background only */
    int border_dye = 0;
    for (int x = 0; x < 96; x++) border_dye += px(&img, x, 0)[0] > 45 || px(&img, x, 95)[0] > 45;
    CHECK(border_dye == 0, "automatic framing keeps the dye inside the picture (%d border pixels)", border_dye);

    /* cells far thinner along one axis than the others: a 1 m x 1 m x 1e-6 m box of 128^3 cells seen edge-on, its
     * middle row of rays running inside the slab through faint red dye. The march used to step half the smallest
     * cell side on every ray: 2.6e8 steps for each of these rays, many minutes for this small picture (the test's
     * timeout in tests/render/CMakeLists.txt stops it). A ray now steps at most half a cell along any axis: about
     * 500 steps. The picture is the one a march five times finer gives. */
    {
        enum { T = 128 };
        const size_t count = (size_t)T * T * T;
        float *faint = malloc(count * sizeof *faint);
        for (size_t e = 0; e < count; e++) faint[e] = 0.015f * (1.0f + sinf(0.3f * (float)(e % T))); /* along x */
        eddy_render_input slab = {.dim = 3, .box_size = {1, 1, 1e-6f}, .dye_n = {T, T, T}, .dye = {faint, NULL, NULL}};
        eddy_volume_def edge = eddy_volume_def_default();
        edge.width = 255, edge.height = 15; /* odd: the middle row's rays have no z component */
        edge.camera.fov = 1.7f;             /* the box's near face (1 m at 2 m) fills the width */
        const float from[3] = {3.0f, 0.5f, 0.5e-6f}, at[3] = {0.5f, 0.5f, 0.5e-6f}, up[3] = {0, 0, 1};
        memcpy(edge.camera.position, from, sizeof from);
        memcpy(edge.camera.target, at, sizeof at);
        memcpy(edge.camera.up, up, sizeof up);
        eddy_image coarse = {0}, fine = {0};
        CHECK(eddy_render_volume_input(r, &slab, &edge, &coarse) == EDDY_OK, "%s", eddy_renderer_last_error(r));
        edge.step = 0.1f;
        CHECK(eddy_render_volume_input(r, &slab, &edge, &fine) == EDDY_OK, "%s", eddy_renderer_last_error(r));
        save("thin_slab_edge_on", &coarse);
        int worst = 0, dye_seen = 0;
        for (int x = 0; x < 255 && coarse.rgba && fine.rgba; x++) {
            for (int c = 0; c < 3; c++) {
                const int diff = abs(px(&coarse, x, 7)[c] - px(&fine, x, 7)[c]);
                worst = diff > worst ? diff : worst;
            }
            dye_seen += px(&coarse, x, 7)[0] > px(&coarse, x, 0)[0] + 20;
        }
        CHECK(dye_seen > 100, "the middle row shows the slab's red dye (%d of 255 pixels)", dye_seen);
        CHECK(worst <= 2, "step 0.5 and step 0.1 give the same picture: largest difference %d", worst);
        eddy_image_free(&coarse);
        eddy_image_free(&fine);
        free(faint);
    }

    /* dye at the float limits: a finite 3e38 in a simulation (its extinction density_scale x 3e38 / box overflowed
     * float, and the light sweep's differences of infinite depths were NaN) and an infinite input array (NaN from
     * its interpolation, and in transparent mode a NaN alpha converted to a byte: undefined) used to come out
     * black; an opaque red ball now, drawn as one of 1e30 is */
    {
        enum { S = 16 };
        static float big[S * S * S], huge[S * S * S], inf[S * S * S];
        for (int k = 0; k < S; k++)
            for (int j = 0; j < S; j++)
                for (int i = 0; i < S; i++) {
                    const int e = i + S * (j + S * k);
                    const int in_ball = (i - 8) * (i - 8) + (j - 8) * (j - 8) + (k - 8) * (k - 8) < 25;
                    big[e] = in_ball ? 1e30f : 0.0f;
                    huge[e] = in_ball ? 3e38f : 0.0f;
                    inf[e] = in_ball ? INFINITY : 0.0f;
                }
        eddy_sim_def sd = eddy_sim_def_default();
        sd.dim = 3;
        sd.grid[0] = sd.grid[1] = sd.grid[2] = S;
        eddy_sim *sim = NULL;
        CHECK(eddy_sim_create(&sd, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
        eddy_volume_def ld = eddy_volume_def_default();
        ld.width = ld.height = 48;
        eddy_image ref = {0}, got = {0};
        CHECK(sim && eddy_sim_write_field(sim, EDDY_FIELD_DYE_R, big, S * S * S) == EDDY_OK &&
                  eddy_render_volume_sim(r, sim, &ld, &ref) == EDDY_OK,
              "a ball of 1e30: %s", eddy_renderer_last_error(r));
        const uint8_t *c = ref.rgba ? px(&ref, 24, 24) : (const uint8_t *)"\0\0\0\0";
        CHECK(c[0] > 60 && c[0] > c[1] + 40 && c[3] == 255, "the 1e30 ball is red: %d %d %d %d", c[0], c[1], c[2], c[3]);
        for (int t = 0; t < 2 && sim; t++) {
            ld.transparent = t;
            CHECK(eddy_render_volume_sim(r, sim, &ld, &ref) == EDDY_OK, "%s", eddy_renderer_last_error(r));
            CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_R, huge, S * S * S) == EDDY_OK &&
                      eddy_render_volume_sim(r, sim, &ld, &got) == EDDY_OK,
                  "a ball of 3e38: %s", eddy_renderer_last_error(r));
            CHECK(got.rgba && !memcmp(got.rgba, ref.rgba, 48 * 48 * 4),
                  "transparent %d: a ball of 3e38 is drawn as one of 1e30: centre %d %d %d %d", t,
                  got.rgba ? px(&got, 24, 24)[0] : 0, got.rgba ? px(&got, 24, 24)[1] : 0,
                  got.rgba ? px(&got, 24, 24)[2] : 0, got.rgba ? px(&got, 24, 24)[3] : 0);
            eddy_render_input vin = {.dim = 3, .box_size = {1, 1, 1}, .dye_n = {S, S, S}, .dye = {inf, NULL, NULL}};
            CHECK(eddy_render_volume_input(r, &vin, &ld, &got) == EDDY_OK, "%s", eddy_renderer_last_error(r));
            const uint8_t *g = px(&got, 24, 24);
            CHECK(g[0] > 60 && g[0] > g[1] + 40 && g[3] == 255, "transparent %d: an infinite ball is opaque red: %d %d %d %d",
                  t, g[0], g[1], g[2], g[3]);
            CHECK(sim && eddy_sim_write_field(sim, EDDY_FIELD_DYE_R, big, S * S * S) == EDDY_OK, "back to 1e30");
        }
        eddy_sim_destroy(sim);
        eddy_image_free(&ref);
        eddy_image_free(&got);
    }

    /* directions of any length: a light_dir of (2^-100, 2^-99, 2^-101) used to normalise to 0/0 (every voxel in
     * shadow), a camera.up of 2^-30 (below the 1e-6 parallel test) read as no up (the picture turned by 90
     * degrees), a target 1e-25 m from the camera as the same point ("coincide at float precision"). Each now draws
     * as its unit-length direction does, to the byte. */
    {
        eddy_volume_def unit = eddy_volume_def_default(), small = unit;
        unit.width = unit.height = small.width = small.height = 40;
        unit.light_dir[0] = 1, unit.light_dir[1] = 2, unit.light_dir[2] = 0.5f;
        small.light_dir[0] = ldexpf(1, -100), small.light_dir[1] = ldexpf(1, -99), small.light_dir[2] = ldexpf(1, -101);
        eddy_image a = {0}, b = {0};
        CHECK(eddy_render_volume_input(r, &in, &unit, &a) == EDDY_OK && eddy_render_volume_input(r, &in, &small, &b) == EDDY_OK,
              "%s", eddy_renderer_last_error(r));
        CHECK(a.rgba && b.rgba && !memcmp(a.rgba, b.rgba, 40 * 40 * 4) && !image_is_constant(&a),
              "light_dir (2^-100, 2^-99, 2^-101) draws as (1, 2, 0.5)");
        memcpy(small.light_dir, unit.light_dir, sizeof small.light_dir);
        small.camera.up[1] = ldexpf(1, -30);
        CHECK(eddy_render_volume_input(r, &in, &small, &b) == EDDY_OK, "%s", eddy_renderer_last_error(r));
        CHECK(a.rgba && b.rgba && !memcmp(a.rgba, b.rgba, 40 * 40 * 4), "camera.up (0, 2^-30, 0) draws as (0, 1, 0)");
        /* looking from the origin along +z at a target 1 m or 1e-25 m away (the box behind it, seen from inside) */
        const float target[2] = {1.0f, 1e-25f};
        for (int t = 0; t < 2; t++) {
            eddy_volume_def look = unit;
            look.camera.target[2] = target[t];
            look.camera.fov = 120.0f;
            CHECK(eddy_render_volume_input(r, &in, &look, t ? &b : &a) == EDDY_OK, "target %g m away: %s",
                  (double)target[t], eddy_renderer_last_error(r));
        }
        CHECK(a.rgba && b.rgba && !memcmp(a.rgba, b.rgba, 40 * 40 * 4), "a target 1e-25 m away gives the direction");
        /* the field of view's documented ends: 0.01f (below 0.01 in float) was refused as outside 0.01 .. 179 */
        const float fovs[4] = {0.01f, 179.0f, 0.0099f, 179.01f};
        for (int f = 0; f < 4; f++) {
            eddy_volume_def look = unit;
            look.camera.fov = fovs[f];
            const eddy_status st = eddy_render_volume_input(r, &in, &look, &a);
            CHECK(f < 2 ? st == EDDY_OK : st == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_renderer_last_error(r), "camera.fov"),
                  "fov %g: status %d: %s", (double)fovs[f], (int)st, eddy_renderer_last_error(r));
        }
        eddy_image_free(&a);
        eddy_image_free(&b);
    }

    /* errors */
    vd.step = 0;
    CHECK(eddy_render_volume_input(r, &in, &vd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_renderer_last_error(r), "volume.step"), "%s", eddy_renderer_last_error(r));
    vd.step = 0.5f;
    /* boxes float cannot resolve: a 1e-38 m box (cells-per-metre infinite: ray steps of 0 and undefined cell
     * indices, a crash), a 1 m box 1e9 m from the origin (its cells vanish in float: a frame that never ended), a
     * 1e30 m box (the camera distance overflows: never ended either). Refused, naming the axis and the box. */
    const float sizes[3] = {1e-38f, 1.0f, 1e30f}, mins[3] = {0.0f, 1e9f, 0.0f};
    for (int c = 0; c < 3; c++) {
        eddy_render_input bad = in;
        for (int a = 0; a < 3; a++) bad.box_size[a] = sizes[c], bad.box_min[a] = mins[c];
        CHECK(eddy_render_volume_input(r, &bad, &vd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
                  strstr(eddy_renderer_last_error(r), "volume input: axis 0: box"),
              "box %g at %g: %s", (double)sizes[c], (double)mins[c], eddy_renderer_last_error(r));
    }
    {
        eddy_render_input bad = in; /* the message names the value that is wrong */
        bad.box_min[1] = INFINITY;
        CHECK(eddy_render_volume_input(r, &bad, &vd, &img) == EDDY_ERR_INVALID_ARGUMENT &&
                  strstr(eddy_renderer_last_error(r), "box_min[1] = inf"), "%s", eddy_renderer_last_error(r));
        bad.dim = 2;
        const eddy_render_def plain = eddy_render_def_default();
        CHECK(eddy_render_input_2d(r, &bad, &plain, &img) ==
                      EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_renderer_last_error(r), "box_min[1] = inf"),
              "%s", eddy_renderer_last_error(r));
    }
    in.dim = 2;
    CHECK(eddy_render_volume_input(r, &in, &vd, &img) == EDDY_ERR_INVALID_ARGUMENT, "2D input refused");

    /* a 3D simulation */
    eddy_sim_def def = eddy_sim_def_default();
    def.dim = 3;
    def.grid[0] = 24, def.grid[1] = 16, def.grid[2] = 16;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&def, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (sim) {
        static float d[24 * 16 * 16];
        for (int k = 4; k < 12; k++)
            for (int j = 4; j < 12; j++)
                for (int i = 8; i < 16; i++) d[i + 24 * (j + 16 * k)] = 1.0f;
        CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_B, d, sizeof d / sizeof d[0]) == EDDY_OK, "write dye");
        vd = eddy_volume_def_default();
        vd.width = 64, vd.height = 48;
        CHECK(eddy_render_volume_sim(r, sim, &vd, &img) == EDDY_OK, "%s", eddy_renderer_last_error(r));
        save("sim", &img);
        CHECK(img.width == 64 && img.height == 48 && px(&img, 32, 24)[2] > px(&img, 32, 24)[0] + 40, "blue cube in view");
        eddy_sim_destroy(sim);
    }
    eddy_image_free(&img);
    eddy_image_free(&img2);
    eddy_renderer_destroy(r);
    eddy_renderer_destroy(r1);
    eddy_renderer_destroy(r2);
    return check_finish("test_render_volume");
}
