/* The liquid view: a signed distance drawn as a lit liquid. The liquid is where phi < 0 (its area is right to a
 * stated tolerance, its edge one pixel wide), the flat middle is one colour, the rim is lit from the upper left
 * (brighter there than at the lower right), the outside is the background; transparent mode gives coverage
 * alpha; eddy_render_sim finds the surface of the total dye at liquid_level; 1 and 2 threads give the same bytes.
 * The pictures are written to scratch_render_liquid/ for a look. */
#include "check.h"
#include "test_util.h"
#include <math.h>

enum { N = 64, PX = 128 };

static int lum(const uint8_t *p) { return p[0] + p[1] + p[2]; }

int main(void) {
    char dir[256], msg[512], path[512];
    test_dir("render_liquid", dir, sizeof dir);
    const double pi = 3.14159265358979;
    /* the exact signed distance of a circle of radius 0.25 m at (0.5, 0.5) in a unit box of 64 x 64 cells */
    static float phi[N * N];
    const float R = 0.25f, h = 1.0f / N;
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            float x = ((float)i + 0.5f) * h - 0.5f, y = ((float)j + 0.5f) * h - 0.5f;
            phi[i + N * j] = sqrtf(x * x + y * y) - R;
        }
    eddy_render_input in;
    memset(&in, 0, sizeof in);
    in.dim = 2;
    in.box_size[0] = in.box_size[1] = 1.0f;
    in.scalar = phi;
    in.scalar_n[0] = in.scalar_n[1] = N;
    in.scalar_n[2] = 1;

    eddy_renderer *r = NULL;
    CHECK(eddy_renderer_create(1, &r, msg, sizeof msg) == EDDY_OK, "%s", msg);
    eddy_render_def def = eddy_render_def_default();
    def.view = EDDY_VIEW_LIQUID;
    def.width = PX;
    eddy_image img = {0}, alpha = {0};
    CHECK(eddy_render_input_2d(r, &in, &def, &img) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    snprintf(path, sizeof path, "%s/circle.png", dir);
    eddy_png_write(path, &img, 0, msg, sizeof msg);
    CHECK(img.width == PX && img.height == PX, "size %d x %d", img.width, img.height);
    const uint8_t *mid = px(&img, 64, 64), *corner = px(&img, 2, 2);
    CHECK(mid[2] > 100 && mid[2] > mid[0] + 50 && mid[2] > mid[1], "the middle is the liquid's blue: %d %d %d", mid[0], mid[1], mid[2]);
    CHECK(lum(corner) == 0 && corner[3] == 255, "outside: the (black) background");
    /* the middle is flat (more than the 3-cell rim = 6 px from the edge): one colour */
    CHECK(!memcmp(px(&img, 50, 64), mid, 4) && !memcmp(px(&img, 64, 78), mid, 4), "the flat middle is one colour");
    /* the rim leans outwards: towards the light (upper left) it is brighter than away from it (lower right) */
    const uint8_t *rim_ul = px(&img, 42, 42), *rim_lr = px(&img, 85, 85); /* 30.4 px from the centre, on the diagonal */
    CHECK(lum(rim_ul) > lum(rim_lr) + 60, "upper-left rim %d brighter than lower-right rim %d", lum(rim_ul), lum(rim_lr));

    /* ---- transparent: alpha is the coverage; its sum is the disc's area in pixels. The sdf is bilinear between
     * exact samples (error < h^2/(8R) = 1.2e-4 m = 0.016 px at the rim) and the one-pixel ramp integrates to the
     * area up to lattice sampling: within 1% ---- */
    def.transparent = 1;
    CHECK(eddy_render_input_2d(r, &in, &def, &alpha) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    double cover = 0;
    for (size_t p = 0; p < (size_t)PX * PX; p++) cover += alpha.rgba[4 * p + 3] / 255.0;
    double area = pi * (R * PX) * (R * PX);
    CHECK(fabs(cover - area) < 0.01 * area, "liquid area %.1f px, circle %.1f px", cover, area);
    CHECK(px(&alpha, 64, 64)[3] == 255 && px(&alpha, 2, 2)[3] == 0, "alpha 1 inside, 0 outside");
    /* the edge is one pixel wide: along the row through the centre, partial alpha only at the two crossings */
    int partial = 0;
    for (int x = 0; x < PX; x++) partial += px(&alpha, x, 64)[3] > 0 && px(&alpha, x, 64)[3] < 255;
    CHECK(partial >= 1 && partial <= 4, "%d partly covered pixels along the middle row", partial);
    def.transparent = 0;

    /* ---- a background colour shows outside, and a missing distance is refused ---- */
    def.background[0] = 1.0f;
    CHECK(eddy_render_input_2d(r, &in, &def, &img) == EDDY_OK && px(&img, 2, 2)[0] == 255 && px(&img, 2, 2)[2] == 0,
          "red background outside");
    def.background[0] = 0.0f;
    eddy_render_input none = in;
    none.scalar = NULL;
    CHECK(eddy_render_input_2d(r, &none, &def, &img) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(eddy_renderer_last_error(r), "signed distance") != NULL,
          "liquid without a distance: %s", eddy_renderer_last_error(r));

    /* ---- from a simulation: a disk of dye 1 (r = 0.2 m) in a 48 x 48 box; level 0.5 ---- */
    eddy_sim_def sd = eddy_sim_def_default();
    sd.grid[0] = sd.grid[1] = 48;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&sd, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    static float dye[48 * 48];
    for (int j = 0; j < 48; j++)
        for (int i = 0; i < 48; i++) {
            float x = ((float)i + 0.5f) / 48 - 0.3f, y = ((float)j + 0.5f) / 48 - 0.6f;
            dye[i + 48 * j] = sqrtf(x * x + y * y) < 0.2f ? 0.6f : 0.0f;
        }
    CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_G, dye, 48 * 48) == EDDY_OK, "write dye");
    eddy_render_def sdef = eddy_render_def_default();
    sdef.view = EDDY_VIEW_LIQUID;
    sdef.width = 96;
    CHECK(eddy_render_sim(r, sim, &sdef, &img) == EDDY_OK, "%s", eddy_renderer_last_error(r));
    snprintf(path, sizeof path, "%s/sim.png", dir);
    eddy_png_write(path, &img, 0, msg, sizeof msg);
    /* world (0.3, 0.6) is pixel (28.8, 38.4); (0.85, 0.15) is far outside */
    const uint8_t *in_px = px(&img, 28, 38), *out_px = px(&img, 81, 81);
    CHECK(in_px[2] > 100 && in_px[2] > in_px[0] + 50, "liquid where the dye is: %d %d %d", in_px[0], in_px[1], in_px[2]);
    CHECK(lum(out_px) == 0, "no liquid where there is no dye");
    CHECK(!image_is_constant(&img), "the picture is not flat");
    uint8_t *first = img.rgba;
    CHECK(eddy_render_sim(r, sim, &sdef, &img) == EDDY_OK && img.rgba == first, "a second frame reuses the image");
    /* a level above all the dye: no liquid anywhere */
    sdef.liquid_level = 0.7f;
    CHECK(eddy_render_sim(r, sim, &sdef, &img) == EDDY_OK && image_is_constant(&img), "level above the dye: no liquid");
    /* the range the refusal gives, -1e30 .. 1e30, holds its ends: 1e30f (above 1e30 as a float) was refused */
    {
        const float levels[3] = {1e30f, -1e30f, 1.1e30f};
        for (int l = 0; l < 3; l++) {
            eddy_render_def ld = sdef;
            ld.liquid_level = levels[l];
            const eddy_status st = eddy_render_def_validate(&ld, msg, sizeof msg);
            CHECK(l < 2 ? st == EDDY_OK : st == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "-1e+30 .. 1e+30"),
                  "liquid_level %g: status %d: %s", (double)levels[l], (int)st, msg);
        }
    }
    sdef.liquid_level = 0.5f;

    /* ---- thread count does not change the bytes ---- */
    eddy_renderer *r2 = NULL;
    CHECK(eddy_renderer_create(2, &r2, msg, sizeof msg) == EDDY_OK, "%s", msg);
    eddy_image img2 = {0};
    CHECK(eddy_render_sim(r, sim, &sdef, &img) == EDDY_OK && eddy_render_sim(r2, sim, &sdef, &img2) == EDDY_OK, "render");
    CHECK(img.width == img2.width && !memcmp(img.rgba, img2.rgba, (size_t)img.width * img.height * 4), "1 and 2 threads differ");

    /* dye of 3e38 (finite) in all three channels: the total r+g+b overflowed float, and the distance refused the
     * infinity the renderer made ("values must be finite"); now the liquid is where the dye is */
    {
        static float huge[48 * 48];
        for (int e = 0; e < 48 * 48; e++) huge[e] = dye[e] > 0.0f ? 3e38f : 0.0f;
        int written = 1;
        for (int c = 0; c < 3; c++)
            written &= eddy_sim_write_field(sim, (eddy_field)(EDDY_FIELD_DYE_R + c), huge, 48 * 48) == EDDY_OK;
        CHECK(written, "a finite 3e38 is a valid dye");
        CHECK(eddy_render_sim(r, sim, &sdef, &img) == EDDY_OK, "%s", eddy_renderer_last_error(r));
        in_px = px(&img, 28, 38), out_px = px(&img, 81, 81);
        CHECK(in_px[2] > 100 && in_px[2] > in_px[0] + 50 && lum(out_px) == 0, "liquid where the dye is: %d %d %d",
              in_px[0], in_px[1], in_px[2]);
    }

    eddy_image_free(&img);
    eddy_image_free(&img2);
    eddy_image_free(&alpha);
    eddy_renderer_destroy(r);
    eddy_renderer_destroy(r2);
    eddy_sim_destroy(sim);
    return check_finish("test_render_liquid");
}
