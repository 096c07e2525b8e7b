/* Helpers shared by the render/io tests: scratch folders, file checks, pixels. */
#ifndef EDDY_TEST_RENDER_UTIL_H
#define EDDY_TEST_RENDER_UTIL_H
#include "eddy/render.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* a fresh folder named after the test (removed and recreated) */
static inline void test_dir(const char *name, char *out, size_t size) {
    snprintf(out, size, "scratch_%s", name);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", out, out);
    if (system(cmd) != 0) fprintf(stderr, "cannot make %s\n", out);
}

static inline long file_size(const char *path) {
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)sb.st_size : -1;
}

/* number of entries in a folder whose name contains `part` */
static inline int count_matching(const char *dir, const char *part) {
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, part)) n++;
    closedir(d);
    return n;
}

static inline const uint8_t *px(const eddy_image *img, int x, int y) {
    return img->rgba + 4 * ((size_t)y * (size_t)img->width + (size_t)x);
}

static inline int image_is_constant(const eddy_image *img) {
    for (size_t p = 1; p < (size_t)img->width * (size_t)img->height; p++)
        if (memcmp(img->rgba + 4 * p, img->rgba, 4) != 0) return 0;
    return 1;
}

static inline double mean_channel(const eddy_image *img, int c) {
    double s = 0;
    for (size_t p = 0; p < (size_t)img->width * (size_t)img->height; p++) s += img->rgba[4 * p + c];
    return s / ((double)img->width * img->height);
}
#endif
