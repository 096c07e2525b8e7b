/* The liquid view: a signed distance phi (m, negative inside; from src/sdf.c + src/eikonal.c or the caller) drawn
 * as a lit liquid surface seen from above.
 *   coverage  a = clamp(1/2 - phi / p, 0, 1)          p = the pixel size, m: a one-pixel anti-aliased edge centred
 *                                                      on phi = 0, sharp at any output size (the area stays right)
 *   depth     d = -phi,  height z(d) = R (1 - (1 - d/R)^2) for d < R, else R   a rounded rim R = 3 cells wide
 *   normal    n = normalize(z'(d) grad phi, 1)         grad phi by central differences one cell apart: the rim
 *                                                      leans outwards, the flat middle faces the viewer
 *   colour    c = liquid_color (ka + kd max(0, n.l)) + ks max(0, n.h)^s      Blinn-Phong, a fixed light from the
 *                                                      upper left (l), viewer on the z axis, h = (l + v) / |l + v|
 *   out       = c a + background (1 - a), or colour c with alpha a (transparent)
 * Then obstacles, as in every view. Tonemap: clamp; the output is sRGB-encoded. */
#include "render_internal.h"
#include <math.h>
#include <string.h>

enum { RIM_CELLS = 3 };
static const float ka = 0.35f, kd = 0.65f, ks = 0.55f, shininess = 48.0f;

eddy_status eddy__render_liquid(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def,
                                const plane_map *pm, eddy_image *img) {
    if (!in->scalar)
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT,
                           "render.view = liquid: the input's scalar must hold the signed distance (m, negative inside)");
    const int W = img->width, H = img->height;
    const int *n = in->scalar_n;
    const float cell = in->box_size[pm->h] / (float)n[pm->h];        /* m per sdf cell */
    const float pixel = in->box_size[pm->h] / (float)W;              /* m per pixel */
    const float rim = (float)RIM_CELLS * cell;
    /* light (image axes: x right, y up, z towards the viewer) and the Blinn half vector */
    float l[3] = {-0.45f, 0.55f, 1.0f}, hv[3];
    float ll = sqrtf(l[0] * l[0] + l[1] * l[1] + l[2] * l[2]);
    for (int k = 0; k < 3; k++) l[k] /= ll;
    float hl = sqrtf(l[0] * l[0] + l[1] * l[1] + (l[2] + 1.0f) * (l[2] + 1.0f));
    hv[0] = l[0] / hl, hv[1] = l[1] / hl, hv[2] = (l[2] + 1.0f) / hl;
    const float *col = def->liquid_color, *bg = def->background;
#pragma omp parallel for num_threads(EDDY_R_THREADS(r)) schedule(static)
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float c[3];
            pixel_cells(pm, n, W, H, x, y, c);
            float phi = eddy__sample_cells(in->scalar, n, c);
            float a = 0.5f - phi / pixel;
            a = a > 0.0f ? (a < 1.0f ? a : 1.0f) : 0.0f; /* NaN reads as outside */
            uint8_t *o = img->rgba + 4 * ((size_t)y * (size_t)W + (size_t)x);
            float out[3] = {0.0f, 0.0f, 0.0f};
            if (a > 0.0f) {
                /* gradient along the picture's axes, one cell each way */
                float ch[3] = {c[0], c[1], c[2]}, cv[3] = {c[0], c[1], c[2]};
                ch[pm->h] += 1.0f;
                cv[pm->v] += 1.0f;
                float gx = eddy__sample_cells(in->scalar, n, ch), gy = eddy__sample_cells(in->scalar, n, cv);
                ch[pm->h] -= 2.0f;
                cv[pm->v] -= 2.0f;
                gx = (gx - eddy__sample_cells(in->scalar, n, ch)) / (2.0f * cell);
                gy = (gy - eddy__sample_cells(in->scalar, n, cv)) / (2.0f * cell);
                float d = -phi, slope = 0.0f;
                if (d < rim) slope = d > 0.0f ? 2.0f * (1.0f - d / rim) : 2.0f;
                float nv[3] = {slope * gx, slope * gy, 1.0f};
                if (!isfinite(nv[0]) || !isfinite(nv[1])) nv[0] = nv[1] = 0.0f; /* no interface in reach */
                float nl = sqrtf(nv[0] * nv[0] + nv[1] * nv[1] + 1.0f);
                float ndl = (nv[0] * l[0] + nv[1] * l[1] + nv[2] * l[2]) / nl;
                float ndh = (nv[0] * hv[0] + nv[1] * hv[1] + nv[2] * hv[2]) / nl;
                float diff = ka + kd * (ndl > 0.0f ? ndl : 0.0f);
                float spec = ndh > 0.0f ? ks * powf(ndh, shininess) : 0.0f;
                for (int k = 0; k < 3; k++) out[k] = fminf(col[k] * diff + spec, 1.0f);
            }
            if (def->transparent) {
                for (int k = 0; k < 3; k++) o[k] = eddy__encode(r, out[k]);
                o[3] = (uint8_t)(a * 255.0f + 0.5f);
            } else {
                for (int k = 0; k < 3; k++) o[k] = eddy__encode(r, out[k] * a + fminf(bg[k], 1.0f) * (1.0f - a));
                o[3] = 255;
            }
        }
    }
    eddy__draw_obstacles(r, in, def, pm, img);
    return EDDY_OK;
}
