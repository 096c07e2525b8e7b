/* Perceptual colour maps, interpolated linearly in CIELAB (D65) between a few sRGB anchor colours, so lightness
 * changes linearly along each map: sequential maps rise monotonically in L*, the diverging map rises to white at
 * the centre and falls symmetrically (both ends have the same L*). The sequential anchors are the landmark colours
 * of matplotlib's viridis and inferno (van der Walt & Smith 2015) at even steps; between them this is our own
 * Lab interpolation, not their tables. The diverging ends are Moreland's cool-warm end points (Moreland 2009). */
#include "render_internal.h"
#include <math.h>

typedef struct anchors {
    int count;
    uint32_t rgb[8]; /* 0xRRGGBB */
} anchors;

static const anchors maps[EDDY_COLORMAP_COUNT] = {
    [EDDY_COLORMAP_AUTO] = {5, {0x440154, 0x3b528b, 0x21918c, 0x5ec962, 0xfde725}},
    [EDDY_COLORMAP_VIRIDIS] = {5, {0x440154, 0x3b528b, 0x21918c, 0x5ec962, 0xfde725}},
    [EDDY_COLORMAP_INFERNO] = {6, {0x000004, 0x420a68, 0x932667, 0xdd513a, 0xfca50a, 0xfcffa4}},
    [EDDY_COLORMAP_GREY] = {2, {0x000000, 0xffffff}},
    [EDDY_COLORMAP_DIVERGING] = {3, {0x3b4cc0, 0xf7f7f7, 0xb40426}},
};

/* D65 white */
static const double Xn = 0.95047, Yn = 1.0, Zn = 1.08883;

static double srgb_to_lin(double s) { return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4); }
static double lin_to_srgb(double l) { return l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1.0 / 2.4) - 0.055; }
static double lab_f(double t) { return t > 216.0 / 24389.0 ? cbrt(t) : (24389.0 / 27.0 * t + 16.0) / 116.0; }
static double lab_finv(double f) { return f * f * f > 216.0 / 24389.0 ? f * f * f : (116.0 * f - 16.0) * 27.0 / 24389.0; }

static void hex_to_lab(uint32_t hex, double lab[3]) {
    double r = srgb_to_lin((double)((hex >> 16) & 255) / 255.0);
    double g = srgb_to_lin((double)((hex >> 8) & 255) / 255.0);
    double b = srgb_to_lin((double)(hex & 255) / 255.0);
    double X = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
    double Y = 0.2126729 * r + 0.7151522 * g + 0.0721750 * b;
    double Z = 0.0193339 * r + 0.1191920 * g + 0.9503041 * b;
    double fx = lab_f(X / Xn), fy = lab_f(Y / Yn), fz = lab_f(Z / Zn);
    lab[0] = 116.0 * fy - 16.0;
    lab[1] = 500.0 * (fx - fy);
    lab[2] = 200.0 * (fy - fz);
}

static void lab_to_srgb(const double lab[3], float srgb[3]) {
    double fy = (lab[0] + 16.0) / 116.0, fx = fy + lab[1] / 500.0, fz = fy - lab[2] / 200.0;
    double X = Xn * lab_finv(fx), Y = Yn * lab_finv(fy), Z = Zn * lab_finv(fz);
    double rgb[3] = {3.2404542 * X - 1.5371385 * Y - 0.4985314 * Z, -0.9692660 * X + 1.8760108 * Y + 0.0415560 * Z,
                     0.0556434 * X - 0.2040259 * Y + 1.0572252 * Z};
    for (int c = 0; c < 3; c++) {
        double l = rgb[c] < 0.0 ? 0.0 : (rgb[c] > 1.0 ? 1.0 : rgb[c]); /* clamp the rare out-of-gamut blend */
        srgb[c] = (float)lin_to_srgb(l);
    }
}

void eddy_colormap_eval(eddy_colormap map, float t, float srgb[3]) {
    if (!srgb) return;
    if (map < 0 || map >= EDDY_COLORMAP_COUNT) map = EDDY_COLORMAP_VIRIDIS;
    if (!(t > 0.0f)) t = 0.0f; /* NaN too */
    if (t > 1.0f) t = 1.0f;
    const anchors *a = &maps[map];
    double x = (double)t * (double)(a->count - 1);
    int i = (int)x;
    if (i >= a->count - 1) i = a->count - 2;
    double f = x - (double)i, l0[3], l1[3], lab[3];
    hex_to_lab(a->rgb[i], l0);
    hex_to_lab(a->rgb[i + 1], l1);
    for (int c = 0; c < 3; c++) lab[c] = l0[c] + (l1[c] - l0[c]) * f;
    lab_to_srgb(lab, srgb);
}

void eddy__colormap_lut(eddy_colormap map, uint8_t *lut, int size) {
    for (int i = 0; i < size; i++) {
        float c[3];
        eddy_colormap_eval(map, size > 1 ? (float)i / (float)(size - 1) : 0.0f, c);
        for (int k = 0; k < 3; k++) lut[3 * i + k] = (uint8_t)(c[k] * 255.0f + 0.5f);
    }
}

bool eddy__view_signed(eddy_view view, int dim) {
    switch (view) {
    case EDDY_VIEW_VORTICITY: return dim == 2; /* 3D vorticity is |curl| */
    case EDDY_VIEW_PRESSURE:
    case EDDY_VIEW_DIVERGENCE:
    case EDDY_VIEW_U:
    case EDDY_VIEW_V:
    case EDDY_VIEW_W: return true;
    default: return false;
    }
}

eddy_colormap eddy__view_colormap(eddy_view view, int dim) {
    if (eddy__view_signed(view, dim)) return EDDY_COLORMAP_DIVERGING;
    if (view == EDDY_VIEW_TEMPERATURE) return EDDY_COLORMAP_INFERNO;
    return EDDY_COLORMAP_VIRIDIS;
}
