/* Colour maps: CIELAB lightness (computed here independently from the sRGB output) rises monotonically along the
 * sequential maps and rises to the centre and falls after it, symmetrically, along the diverging one; ends and
 * names are as documented. */
#include "check.h"
#include "test_util.h"
#include <math.h>

static double lightness(const float srgb[3]) {
    double lin[3];
    for (int c = 0; c < 3; c++) {
        double s = srgb[c];
        lin[c] = s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
    }
    double Y = 0.2126729 * lin[0] + 0.7151522 * lin[1] + 0.0721750 * lin[2];
    double f = Y > 216.0 / 24389.0 ? cbrt(Y) : (24389.0 / 27.0 * Y + 16.0) / 116.0;
    return 116.0 * f - 16.0;
}

int main(void) {
    enum { N = 512 };
    const eddy_colormap seq[] = {EDDY_COLORMAP_VIRIDIS, EDDY_COLORMAP_INFERNO, EDDY_COLORMAP_GREY};
    for (int m = 0; m < 3; m++) {
        double prev = -1.0, lo = 1e9, hi = -1e9;
        int rises = 1;
        for (int i = 0; i < N; i++) {
            float c[3];
            eddy_colormap_eval(seq[m], (float)i / (N - 1), c);
            double L = lightness(c);
            /* strictly increasing up to the 8-bit-free float output; 0.01 L* absorbs the out-of-gamut clamp */
            if (L < prev - 0.01) rises = 0;
            prev = L;
            lo = fmin(lo, L), hi = fmax(hi, L);
        }
        CHECK(rises, "%s: lightness not monotone", eddy_colormap_name(seq[m]));
        CHECK(hi - lo > 60.0, "%s: lightness spans only %.1f L*", eddy_colormap_name(seq[m]), hi - lo);
    }
    /* diverging: up to the middle, down after it, ends equally dark, centre near white */
    double Lmid = 0, L0 = 0, L1 = 0, prev = -1;
    int up = 1, down = 1;
    for (int i = 0; i < N; i++) {
        float c[3];
        float t = (float)i / (N - 1);
        eddy_colormap_eval(EDDY_COLORMAP_DIVERGING, t, c);
        double L = lightness(c);
        if (i == 0) L0 = L;
        if (i == N - 1) L1 = L;
        if (t <= 0.5f && L < prev - 0.01) up = 0;
        if (t > 0.5f && L > prev + 0.01) down = 0;
        prev = L;
        if (i == N / 2) Lmid = L;
    }
    CHECK(up && down, "diverging lightness must rise to the centre and fall after it");
    CHECK(fabs(L0 - L1) < 1.0, "diverging ends L* %.2f and %.2f differ", L0, L1);
    CHECK(Lmid > 90.0, "diverging centre L* %.1f: expected near white", Lmid);
    float blue[3], red[3];
    eddy_colormap_eval(EDDY_COLORMAP_DIVERGING, 0.0f, blue);
    eddy_colormap_eval(EDDY_COLORMAP_DIVERGING, 1.0f, red);
    CHECK(blue[2] > blue[0] && red[0] > red[2], "diverging: low end blue, high end red");
    /* clamping and NaN */
    float a[3], b[3];
    eddy_colormap_eval(EDDY_COLORMAP_VIRIDIS, -5.0f, a);
    eddy_colormap_eval(EDDY_COLORMAP_VIRIDIS, NAN, b);
    CHECK(!memcmp(a, b, sizeof a), "t < 0 and NaN both give the low end");
    /* names */
    for (int m = 0; m < EDDY_COLORMAP_COUNT; m++) {
        eddy_colormap back;
        CHECK(eddy_colormap_from_name(eddy_colormap_name((eddy_colormap)m), &back) == EDDY_OK && (int)back == m, "name %d", m);
    }
    for (int v = 0; v < EDDY_VIEW_COUNT; v++) {
        eddy_view back;
        CHECK(eddy_view_from_name(eddy_view_name((eddy_view)v), &back) == EDDY_OK && (int)back == v, "view name %d", v);
    }
    eddy_view vv;
    CHECK(eddy_view_from_name("vorticty", &vv) == EDDY_ERR_INVALID_ARGUMENT, "unknown view name refused");
    /* NULL outputs are refused (they used to be written through: a crash), NULL colour is a no-op */
    CHECK(eddy_view_from_name("dye", NULL) == EDDY_ERR_INVALID_ARGUMENT, "NULL view output");
    CHECK(eddy_colormap_from_name("viridis", NULL) == EDDY_ERR_INVALID_ARGUMENT, "NULL colormap output");
    CHECK(eddy_colormap_from_name("gray", NULL) == EDDY_ERR_INVALID_ARGUMENT, "NULL colormap output (alias)");
    CHECK(eddy_tonemap_from_name("aces", NULL) == EDDY_ERR_INVALID_ARGUMENT, "NULL tonemap output");
    eddy_colormap_eval(EDDY_COLORMAP_VIRIDIS, 0.5f, NULL);
    return check_finish("test_render_colormap");
}
