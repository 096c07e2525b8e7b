/* Overlays drawn into finished pictures: the colour bar of scalar views with its min/max labels, in a small 5x7
 * bitmap font of our own (digits and the characters of "%.3g" numbers). */
#include "render_internal.h"
#include <stdio.h>
#include <string.h>

/* each glyph: 7 rows of 5 bits, the high bit on the left */
typedef struct glyph {
    char ch;
    uint8_t rows[7];
} glyph;

static const glyph font[] = {
    {'0', {0x0e, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0e}}, {'1', {0x04, 0x0c, 0x04, 0x04, 0x04, 0x04, 0x0e}},
    {'2', {0x0e, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1f}}, {'3', {0x1f, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0e}},
    {'4', {0x02, 0x06, 0x0a, 0x12, 0x1f, 0x02, 0x02}}, {'5', {0x1f, 0x10, 0x1e, 0x01, 0x01, 0x11, 0x0e}},
    {'6', {0x06, 0x08, 0x10, 0x1e, 0x11, 0x11, 0x0e}}, {'7', {0x1f, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0e, 0x11, 0x11, 0x0e, 0x11, 0x11, 0x0e}}, {'9', {0x0e, 0x11, 0x11, 0x0f, 0x01, 0x02, 0x0c}},
    {'-', {0x00, 0x00, 0x00, 0x1f, 0x00, 0x00, 0x00}}, {'+', {0x00, 0x04, 0x04, 0x1f, 0x04, 0x04, 0x00}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0c, 0x0c}}, {'e', {0x00, 0x00, 0x0e, 0x11, 0x1f, 0x10, 0x0e}},
    {'i', {0x04, 0x00, 0x0c, 0x04, 0x04, 0x04, 0x0e}}, {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'f', {0x06, 0x09, 0x08, 0x1c, 0x08, 0x08, 0x08}}, {'a', {0x00, 0x00, 0x0e, 0x01, 0x0f, 0x11, 0x0f}},
    {' ', {0, 0, 0, 0, 0, 0, 0}},
};

static const uint8_t *find_glyph(char c) {
    for (size_t i = 0; i < sizeof font / sizeof font[0]; i++)
        if (font[i].ch == c) return font[i].rows;
    return NULL;
}

int eddy__text_width(const char *text, int s) {
    int n = (int)strlen(text);
    return n ? (6 * n - 1) * s : 0;
}

static void put(eddy_image *img, int x, int y, const uint8_t c[4]) {
    if (x < 0 || y < 0 || x >= img->width || y >= img->height) return;
    memcpy(img->rgba + 4 * ((size_t)y * (size_t)img->width + (size_t)x), c, 4);
}

void eddy__draw_text(eddy_image *img, int x, int y, int s, const char *text, const uint8_t color[4]) {
    for (const char *p = text; *p; p++, x += 6 * s) {
        const uint8_t *g = find_glyph(*p);
        if (!g) continue;
        for (int row = 0; row < 7; row++)
            for (int col = 0; col < 5; col++)
                if (g[row] & (0x10 >> col))
                    for (int dy = 0; dy < s; dy++)
                        for (int dx = 0; dx < s; dx++) put(img, x + col * s + dx, y + row * s + dy, color);
    }
}

/* white text with a one-pixel dark outline, readable on any colour */
static void label(eddy_image *img, int x, int y, int s, const char *text) {
    static const uint8_t dark[4] = {0, 0, 0, 255}, white[4] = {255, 255, 255, 255};
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            if (dx || dy) eddy__draw_text(img, x + dx, y + dy, s, text, dark);
    eddy__draw_text(img, x, y, s, text, white);
}

void eddy__draw_colorbar(eddy_image *img, const uint8_t *lut, int lut_size, float vmin, float vmax) {
    const int W = img->width, H = img->height;
    if (W < 8 || H < 8) return;
    int bw = W / 40 > 6 ? W / 40 : 6;
    int margin = W / 100 > 4 ? W / 100 : 4;
    int bh = H * 6 / 10;
    int x0 = W - margin - bw, y0 = (H - bh) / 2;
    if (x0 < 1) return;
    static const uint8_t dark[4] = {0, 0, 0, 255};
    for (int y = 0; y < bh; y++) {
        int i = bh > 1 ? (int)((float)(bh - 1 - y) / (float)(bh - 1) * (float)(lut_size - 1) + 0.5f) : 0;
        uint8_t c[4] = {lut[3 * i], lut[3 * i + 1], lut[3 * i + 2], 255};
        for (int x = 0; x < bw; x++) put(img, x0 + x, y0 + y, c);
    }
    for (int x = -1; x <= bw; x++) put(img, x0 + x, y0 - 1, dark), put(img, x0 + x, y0 + bh, dark);
    for (int y = -1; y <= bh; y++) put(img, x0 - 1, y0 + y, dark), put(img, x0 + bw, y0 + y, dark);
    if (W < 48 || H < 24) return; /* too small for readable labels */
    int s = H / 240 > 1 ? H / 240 : 1;
    char hi[32], lo[32];
    snprintf(hi, sizeof hi, "%.3g", (double)vmax);
    snprintf(lo, sizeof lo, "%.3g", (double)vmin);
    int gap = 3 * s;
    label(img, x0 - gap - eddy__text_width(hi, s), y0, s, hi);
    label(img, x0 - gap - eddy__text_width(lo, s), y0 + bh - 7 * s, s, lo);
}
