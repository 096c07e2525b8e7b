/* Drawing into finished pictures: anti-aliased points (discs), lines and arrows, for overlays such as particles
 * and wind arrows. Coverage is the analytic one-pixel ramp of a distance field (the usual cheap area
 * approximation, e.g. Gupta & Sproull 1981 for lines): a pixel whose centre lies at distance d from the shape's
 * centre line or centre point gets coverage clamp(r + 1/2 - d, 0, 1), with r the half width or the radius. Shapes
 * thinner than a pixel are drawn one pixel wide at a proportionally lower opacity, so they keep their ink. Pixels
 * are blended "over" in sRGB bytes (like the obstacle overlay: an overlay colour, not light). An arrow is drawn
 * in one pass over its three strokes (coverage = the largest), so the strokes do not blend twice where they
 * meet. Shapes are clipped to the image; nothing is allocated. */
#include "render_internal.h"
#include <math.h>
#include <string.h>

typedef struct segment {
    float ax, ay, bx, by;
} segment;

static bool finite_all(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* distance from (px, py) to the segment a-b; inside the segment's span the perpendicular distance comes from the
 * cross product, which stays exact for a long line far outside the image (no cancellation of large positions).
 * In double: the squares of float coordinates beyond ~1e19 (and differences of ones beyond ~1.7e38) overflow a float,
 * and an infinite length made every pixel beside the line "on" it. */
static float segment_distance(const segment *s, float px, float py) {
    double dx = (double)s->bx - s->ax, dy = (double)s->by - s->ay;
    double len2 = dx * dx + dy * dy;
    double rx = (double)px - s->ax, ry = (double)py - s->ay;
    double dot = rx * dx + ry * dy;
    if (len2 <= 0.0 || dot <= 0.0) return (float)sqrt(rx * rx + ry * ry);
    if (dot >= len2) {
        double ex = (double)px - s->bx, ey = (double)py - s->by;
        return (float)sqrt(ex * ex + ey * ey);
    }
    return (float)(fabs(rx * dy - ry * dx) / sqrt(len2));
}

static void blend(uint8_t *p, const uint8_t rgba[4], float cover) {
    float a = cover * (float)rgba[3] / 255.0f;
    if (a <= 0.0f) return;
    for (int k = 0; k < 3; k++) p[k] = (uint8_t)((float)rgba[k] * a + (float)p[k] * (1.0f - a) + 0.5f);
    p[3] = (uint8_t)(255.0f * a + (float)p[3] * (1.0f - a) + 0.5f);
}

/* Strokes of half width hw (>= 0) around `segs`, or a disc when a segment has zero length. */
static void draw_strokes(eddy_image *img, const segment *segs, int count, float hw, const uint8_t rgba[4]) {
    /* thinner than a pixel: one pixel wide, opacity scaled by the width (lines) or the area (a lone point) */
    float scale = 1.0f;
    if (hw < 0.5f) {
        bool point = count == 1 && segs[0].ax == segs[0].bx && segs[0].ay == segs[0].by;
        scale = point ? (2.0f * hw) * (2.0f * hw) : 2.0f * hw;
        hw = 0.5f;
    }
    float lo_x = INFINITY, lo_y = INFINITY, hi_x = -INFINITY, hi_y = -INFINITY;
    for (int i = 0; i < count; i++) {
        lo_x = fminf(lo_x, fminf(segs[i].ax, segs[i].bx));
        hi_x = fmaxf(hi_x, fmaxf(segs[i].ax, segs[i].bx));
        lo_y = fminf(lo_y, fminf(segs[i].ay, segs[i].by));
        hi_y = fmaxf(hi_y, fmaxf(segs[i].ay, segs[i].by));
    }
    const float reach = hw + 1.0f;
    /* clip in float first: a shape far outside the image must not overflow the int conversion */
    float fx0 = floorf(lo_x - reach), fx1 = ceilf(hi_x + reach), fy0 = floorf(lo_y - reach), fy1 = ceilf(hi_y + reach);
    if (fx1 < 0.0f || fy1 < 0.0f || fx0 >= (float)img->width || fy0 >= (float)img->height) return;
    int x0 = fx0 < 0.0f ? 0 : (int)fx0, y0 = fy0 < 0.0f ? 0 : (int)fy0;
    int x1 = fx1 >= (float)img->width ? img->width - 1 : (int)fx1, y1 = fy1 >= (float)img->height ? img->height - 1 : (int)fy1;
    for (int y = y0; y <= y1; y++) {
        for (int x = x0; x <= x1; x++) {
            float px = (float)x + 0.5f, py = (float)y + 0.5f, d = INFINITY;
            for (int i = 0; i < count; i++) d = fminf(d, segment_distance(&segs[i], px, py));
            float cover = hw + 0.5f - d;
            if (cover <= 0.0f) continue;
            cover = (cover > 1.0f ? 1.0f : cover) * scale;
            blend(img->rgba + 4 * ((size_t)y * (size_t)img->width + (size_t)x), rgba, cover);
        }
    }
}

static eddy_status check_image(const eddy_image *img, const uint8_t rgba[4]) {
    if (!img || !img->rgba || img->width < 1 || img->height < 1 || !rgba) return EDDY_ERR_INVALID_ARGUMENT;
    return EDDY_OK;
}

eddy_status eddy_image_draw_point(eddy_image *img, float x, float y, float radius, const uint8_t rgba[4]) {
    const float v[3] = {x, y, radius};
    if (check_image(img, rgba) != EDDY_OK || !finite_all(v, 3) || radius < 0.0f) return EDDY_ERR_INVALID_ARGUMENT;
    segment s = {x, y, x, y};
    draw_strokes(img, &s, 1, radius, rgba);
    return EDDY_OK;
}

eddy_status eddy_image_draw_line(eddy_image *img, float x0, float y0, float x1, float y1, float width,
                                 const uint8_t rgba[4]) {
    const float v[5] = {x0, y0, x1, y1, width};
    if (check_image(img, rgba) != EDDY_OK || !finite_all(v, 5) || width < 0.0f) return EDDY_ERR_INVALID_ARGUMENT;
    segment s = {x0, y0, x1, y1};
    draw_strokes(img, &s, 1, 0.5f * width, rgba);
    return EDDY_OK;
}

eddy_status eddy_image_draw_arrow(eddy_image *img, float x0, float y0, float x1, float y1, float width, float head,
                                  const uint8_t rgba[4]) {
    const float v[6] = {x0, y0, x1, y1, width, head};
    if (check_image(img, rgba) != EDDY_OK || !finite_all(v, 6) || width < 0.0f || head < 0.0f)
        return EDDY_ERR_INVALID_ARGUMENT;
    segment s[3] = {{x0, y0, x1, y1}, {x1, y1, x1, y1}, {x1, y1, x1, y1}};
    const double dx = (double)x1 - x0, dy = (double)y1 - y0, len = sqrt(dx * dx + dy * dy); /* no float overflow */
    int count = 1;
    if (len > 0.0 && head > 0.0f) {
        /* two strokes from the tip, back along the shaft turned by +-25 degrees */
        const float c = 0.906307787f, sn = 0.422618262f;
        float ux = (float)(-dx / len * head), uy = (float)(-dy / len * head);
        s[1].bx = x1 + c * ux - sn * uy;
        s[1].by = y1 + sn * ux + c * uy;
        s[2].bx = x1 + c * ux + sn * uy;
        s[2].by = y1 - sn * ux + c * uy;
        count = 3;
    }
    draw_strokes(img, s, count, 0.5f * width, rgba);
    return EDDY_OK;
}
