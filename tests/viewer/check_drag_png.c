/* Checks a viewer screenshot after the drag of drag.replay (left to right at half height, from 20% to 80% of the
 * width): dye along the path, none far from it, and the status line drawn.
 *   check_drag_png SHOT.png
 *   check_drag_png --lit SHOT.png     only: the picture shows something (at least 1% of its pixels lit)
 * Exit 0 when all hold, 1 otherwise (each check printed). */
#include "eddy/io.h"

#include <stdio.h>
#include <string.h>

static int lum(const eddy_image *img, int x, int y) {
    const uint8_t *p = img->rgba + 4 * ((size_t)y * (size_t)img->width + (size_t)x);
    int m = p[0] > p[1] ? p[0] : p[1];
    return m > p[2] ? m : p[2];
}

/* At least 1% of the pixels brighter than 40 of 255: a scene with dye shows far more (the default scene's streams
 * alone cover several percent); a blank or black window shows none. */
static int check_lit(const eddy_image *img) {
    size_t lit = 0, total = (size_t)img->width * (size_t)img->height;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) lit += lum(img, x, y) > 40;
    int ok = lit * 100 >= total;
    printf("%s picture shows something: %zu of %zu pixels lit (>= 1%%)\n", ok ? "ok  " : "FAIL", lit, total);
    return ok ? 0 : 1;
}

int main(int argc, char **argv) {
    int lit_only = argc == 3 && !strcmp(argv[1], "--lit");
    if (argc != 2 && !lit_only) { fprintf(stderr, "usage: check_drag_png [--lit] SHOT.png\n"); return 2; }
    eddy_image img = {0};
    char msg[512];
    if (eddy_png_read(argv[argc - 1], &img, msg, sizeof msg) != EDDY_OK) { printf("FAIL read: %s\n", msg); return 1; }
    if (lit_only) {
        int rc = check_lit(&img);
        eddy_image_free(&img);
        return rc;
    }
    const int W = img.width, H = img.height;
    const int status_rows = 30; /* the status line and the note line above it (2 x 13 px) */
    int failures = 0;

    /* Along the path: in every column between 30% and 70% of the width, the brightest pixel within 5% of the
     * height around the path is at least 60 of 255: the stroke leaves dye of about full brightness at its centre
     * (clamped), so 60 only allows for it fading and moving a little in the 0.05 s after the drag. */
    int weakest = 255;
    for (int x = (int)(0.3 * W); x <= (int)(0.7 * W); x++) {
        int best = 0;
        for (int y = (int)(0.45 * H); y <= (int)(0.55 * H); y++) if (lum(&img, x, y) > best) best = lum(&img, x, y);
        if (best < weakest) weakest = best;
    }
    printf("%s dye along the drag path: weakest column max %d >= 60\n", weakest >= 60 ? "ok  " : "FAIL", weakest);
    failures += weakest < 60;

    /* Far from it: rows more than 25% of the height away from the path (above the status rows) stay dark: below 12
     * of 255. A splat's Gaussian is exp(-(0.25 H / r)^2) < 1e-30 there (r = 4% of the height), so anything
     * brighter is dye drawn where nobody dragged (or a drawing error). */
    int far_max = 0, far_x = 0, far_y = 0;
    for (int y = 0; y < H - status_rows; y++) {
        if (y > 0.25 * H && y < 0.75 * H) continue;
        for (int x = 0; x < W; x++)
            if (lum(&img, x, y) > far_max) { far_max = lum(&img, x, y); far_x = x; far_y = y; }
    }
    printf("%s no dye far from the path: max %d < 12 (at %d,%d)\n", far_max < 12 ? "ok  " : "FAIL", far_max, far_x, far_y);
    failures += far_max >= 12;

    /* The status line is drawn: light text pixels in the bottom bar. */
    int text_pixels = 0;
    for (int y = H - 13; y < H; y++)
        for (int x = 0; x < W; x++) text_pixels += lum(&img, x, y) > 150;
    printf("%s status line drawn: %d text pixels > 100\n", text_pixels > 100 ? "ok  " : "FAIL", text_pixels);
    failures += text_pixels <= 100;

    eddy_image_free(&img);
    printf("%d passed, %d failed\n", 3 - failures, failures);
    return failures ? 1 : 0;
}
