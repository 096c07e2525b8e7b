/* Drawing overlays (points, lines, arrows): shapes land where their coordinates say (pixel centres at i + 0.5,
 * row 0 at the top), cover the area they should (ink = area within a stated tolerance), are anti-aliased only
 * along the rim, blend by their alpha, are clipped at the image edges, and bad arguments are refused.
 * The pictures are written to scratch_render_draw/ for a look. */
#include "check.h"
#include "test_util.h"
#include <math.h>

enum { W = 48, H = 40 };

static void clear(eddy_image *img, uint8_t r, uint8_t g, uint8_t b) {
    for (size_t p = 0; p < (size_t)img->width * (size_t)img->height; p++) {
        img->rgba[4 * p] = r, img->rgba[4 * p + 1] = g, img->rgba[4 * p + 2] = b, img->rgba[4 * p + 3] = 255;
    }
}

/* total red ink in pixels of full coverage: sum of the red channel / 255 (white shapes on black) */
static double ink(const eddy_image *img) {
    double s = 0;
    for (size_t p = 0; p < (size_t)img->width * (size_t)img->height; p++) s += img->rgba[4 * p];
    return s / 255.0;
}

int main(void) {
    char dir[256], msg[256], path[512];
    test_dir("render_draw", dir, sizeof dir);
    eddy_image img = {0};
    CHECK(eddy_image_init(&img, W, H, msg, sizeof msg) == EDDY_OK, "%s", msg);
    const uint8_t white[4] = {255, 255, 255, 255};
    const double pi = 3.14159265358979;

    /* ---- a disc of radius 5 centred on pixel (20, 12) ---- */
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_point(&img, 20.5f, 12.5f, 5.0f, white) == EDDY_OK, "point");
    snprintf(path, sizeof path, "%s/point.png", dir);
    eddy_png_write(path, &img, 0, msg, sizeof msg);
    CHECK(px(&img, 20, 12)[0] == 255 && px(&img, 23, 15)[0] == 255, "inside the disc: full coverage");
    CHECK(px(&img, 26, 12)[0] == 0 && px(&img, 20, 18)[0] == 0 && px(&img, 25, 17)[0] == 0, "beyond r + 1/2: untouched");
    int rim = px(&img, 25, 12)[0]; /* centre 5 px away: coverage 1/2 */
    CHECK(rim > 110 && rim < 145, "the rim pixel at distance r is half covered: %d", rim);
    /* the one-pixel ramp integrates to the disc's area up to the pixel sampling error: for r = 5 the sum over the
     * lattice differs from pi r^2 = 78.5 by well under 3% (rounding to bytes adds < 0.2%) */
    double a = ink(&img);
    CHECK(fabs(a - pi * 25.0) < 0.03 * pi * 25.0, "disc ink %.2f, area %.2f", a, pi * 25.0);
    CHECK(px(&img, 20, 12)[1] == 255 && px(&img, 20, 12)[3] == 255, "white and opaque");

    /* a point thinner than a pixel keeps its ink: radius 0.25 -> area pi/16 */
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_point(&img, 10.5f, 30.5f, 0.25f, white) == EDDY_OK, "small point");
    a = ink(&img);
    /* drawn as a half-pixel disc (ramp sum 1.0 over the centre pixel for a centred point) at opacity (2r)^2 = 1/4:
     * ink 0.25 against the exact area 0.196 (the half-pixel disc has the area of a whole pixel under the ramp) */
    CHECK(a > 0.15 && a < 0.3 && px(&img, 10, 30)[0] > 0, "sub-pixel point ink %.3f", a);

    /* ---- a horizontal line along row 8, width 1: exactly that row between the ends ---- */
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_line(&img, 4.0f, 8.5f, 40.0f, 8.5f, 1.0f, white) == EDDY_OK, "line");
    for (int x = 5; x < 40; x++) CHECK(px(&img, x, 8)[0] == 255, "row 8, x = %d: %d", x, px(&img, x, 8)[0]);
    for (int x = 0; x < W; x++) CHECK(px(&img, x, 7)[0] == 0 && px(&img, x, 9)[0] == 0, "rows 7 and 9 untouched at x = %d", x);
    /* ink = length x width + the round ends (caps of half a pixel each side add ~ pi/4 in all) */
    a = ink(&img);
    CHECK(fabs(a - 36.0) < 1.5, "line ink %.2f, expected 36 (+ caps)", a);

    /* a diagonal, width 2: ink = length x width within 5% (the 45-degree ramp over-covers the lattice slightly) */
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_line(&img, 5.0f, 5.0f, 35.0f, 35.0f, 2.0f, white) == EDDY_OK, "diagonal");
    snprintf(path, sizeof path, "%s/diagonal.png", dir);
    eddy_png_write(path, &img, 0, msg, sizeof msg);
    double len = sqrt(2.0) * 30.0;
    a = ink(&img);
    CHECK(fabs(a - (2.0 * len + pi)) < 0.05 * 2.0 * len, "diagonal ink %.2f, expected %.2f", a, 2.0 * len + pi);
    CHECK(px(&img, 20, 20)[0] == 255 && px(&img, 30, 10)[0] == 0, "on the diagonal lit, off it dark");

    /* ---- alpha: half-opaque red over blue ---- */
    clear(&img, 0, 0, 255);
    const uint8_t red_half[4] = {255, 0, 0, 128};
    CHECK(eddy_image_draw_point(&img, 24.0f, 20.0f, 6.0f, red_half) == EDDY_OK, "alpha point");
    const uint8_t *c = px(&img, 24, 20);
    CHECK(abs(c[0] - 128) <= 1 && c[1] == 0 && abs(c[2] - 127) <= 1 && c[3] == 255, "half red over blue: %d %d %d %d", c[0], c[1],
          c[2], c[3]);

    /* ---- an arrow pointing right: shaft, tip, both head strokes; nothing behind the tail ---- */
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_arrow(&img, 6.0f, 20.5f, 40.0f, 20.5f, 1.0f, 8.0f, white) == EDDY_OK, "arrow");
    snprintf(path, sizeof path, "%s/arrow.png", dir);
    eddy_png_write(path, &img, 0, msg, sizeof msg);
    CHECK(px(&img, 20, 20)[0] == 255 && px(&img, 39, 20)[0] == 255, "shaft and tip");
    /* the head strokes end 8 px back at +-25 degrees: (40 - 7.25, 20.5 -+ 3.38) */
    CHECK(px(&img, 33, 17)[0] > 100 && px(&img, 33, 23)[0] > 100, "head strokes above and below: %d %d", px(&img, 33, 17)[0],
          px(&img, 33, 23)[0]);
    CHECK(px(&img, 20, 17)[0] == 0 && px(&img, 20, 23)[0] == 0 && px(&img, 3, 20)[0] == 0, "no head at the tail");
    /* one pass: where strokes overlap at the tip the colour is the colour, not brighter or darker */
    CHECK(px(&img, 39, 20)[0] == 255 && px(&img, 39, 20)[3] == 255, "tip");

    /* ---- clipping: shapes across and far beyond the edges; the image keeps its size and nothing else changes ---- */
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_point(&img, -2.0f, -2.0f, 4.0f, white) == EDDY_OK, "clipped point");
    CHECK(px(&img, 0, 0)[0] > 230 && px(&img, 3, 3)[0] == 0, "the corner of a clipped disc: %d", px(&img, 0, 0)[0]);
    CHECK(eddy_image_draw_line(&img, -1e9f, 30.5f, 1e9f, 30.5f, 1.0f, white) == EDDY_OK, "huge line");
    CHECK(px(&img, 0, 30)[0] == 255 && px(&img, W - 1, 30)[0] == 255, "a line across the whole image");
    CHECK(eddy_image_draw_point(&img, 1e30f, 5.0f, 3.0f, white) == EDDY_OK, "far away point is a no-op");
    /* a line whose length squared overflows a float (an arrow of a blown-up velocity) is still a thin line: it used
     * to paint every pixel beside it, the perpendicular distance divided by an infinite length being 0 */
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_line(&img, 10.5f, 20.5f, 1e20f, 20.5f, 1.0f, white) == EDDY_OK, "very long line");
    CHECK(px(&img, 30, 20)[0] == 255 && px(&img, 30, 10)[0] == 0 && px(&img, 30, 30)[0] == 0,
          "only the line's row is inked: %d %d", px(&img, 30, 10)[0], px(&img, 30, 30)[0]);
    CHECK(fabs(ink(&img) - (W - 10.5 + 0.5)) < 1.5, "ink %.2f = the visible length", ink(&img));
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_line(&img, 0.0f, 0.0f, 3e38f, 3e38f, 1.0f, white) == EDDY_OK, "diagonal to FLT_MAX");
    CHECK(px(&img, 5, 5)[0] == 255 && px(&img, 5, 30)[0] == 0 && px(&img, 30, 5)[0] == 0, "the diagonal only");
    clear(&img, 0, 0, 0);
    CHECK(eddy_image_draw_arrow(&img, 10.0f, 10.0f, 10.0f, 10.0f, 1.0f, 4.0f, white) == EDDY_OK, "zero-length arrow is a dot");

    /* ---- bad arguments ---- */
    CHECK(eddy_image_draw_point(NULL, 1, 1, 1, white) == EDDY_ERR_INVALID_ARGUMENT, "NULL image");
    CHECK(eddy_image_draw_point(&img, NAN, 1, 1, white) == EDDY_ERR_INVALID_ARGUMENT, "NaN position");
    CHECK(eddy_image_draw_point(&img, 1, 1, -1, white) == EDDY_ERR_INVALID_ARGUMENT, "negative radius");
    CHECK(eddy_image_draw_line(&img, 1, 1, INFINITY, 1, 1, white) == EDDY_ERR_INVALID_ARGUMENT, "infinite end");
    CHECK(eddy_image_draw_arrow(&img, 1, 1, 2, 2, 1, -1, white) == EDDY_ERR_INVALID_ARGUMENT, "negative head");
    CHECK(eddy_image_draw_line(&img, 1, 1, 2, 2, 1, NULL) == EDDY_ERR_INVALID_ARGUMENT, "NULL colour");

    eddy_image_free(&img);
    return check_finish("test_render_draw");
}
