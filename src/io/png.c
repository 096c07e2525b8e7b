/* PNG files through libpng's simplified API (png_image): 8-bit RGBA/RGB out, any PNG in as RGBA8. */
#define _POSIX_C_SOURCE 200809L
#include "io_internal.h"
#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>

eddy_status eddy_png_write(const char *path, const eddy_image *img, int with_alpha, char *msg, size_t msg_size) {
    if (!path) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "PNG path is NULL");
    if (!img || !img->rgba || img->width < 1 || img->height < 1)
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: the image is empty", path);
    /* libpng refuses a side past its limit only once writing, as "Invalid IHDR data" */
    if (img->width > PNG_USER_WIDTH_MAX || img->height > PNG_USER_HEIGHT_MAX)
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                             "%s: image of %d x %d pixels: a PNG side is at most %ld x %ld pixels (libpng's limit)",
                             path, img->width, img->height, (long)PNG_USER_WIDTH_MAX, (long)PNG_USER_HEIGHT_MAX);
    const uint8_t *pixels = img->rgba;
    uint8_t *rgb = NULL;
    size_t npx = (size_t)img->width * (size_t)img->height;
    if (!with_alpha) { /* the simplified API writes what it is given: pack RGB */
        rgb = malloc(npx * 3);
        if (!rgb) return eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        for (size_t p = 0; p < npx; p++) memcpy(rgb + 3 * p, img->rgba + 4 * p, 3);
        pixels = rgb;
    }
    eddy__tmpfile t;
    eddy_status st = eddy__tmp_open(path, &t, msg, msg_size);
    if (st != EDDY_OK) {
        free(rgb);
        return st;
    }
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    pi.width = (png_uint_32)img->width;
    pi.height = (png_uint_32)img->height;
    pi.format = with_alpha ? PNG_FORMAT_RGBA : PNG_FORMAT_RGB;
#ifdef PNG_IMAGE_FLAG_FAST
    pi.flags |= PNG_IMAGE_FLAG_FAST; /* frames are written every few steps: speed over the last few percent of size */
#endif
    errno = 0;
    int ok = png_image_write_to_stdio(&pi, t.fp, 0, pixels, 0, NULL);
    free(rgb);
    if (!ok) {
        int e = errno;
        char reason[256];
        snprintf(reason, sizeof reason, "%s", pi.message);
        png_image_free(&pi);
        eddy__tmp_abort(&t);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: PNG write failed: %s%s%s", path, reason,
                             e ? ": " : "", e ? strerror(e) : "");
    }
    png_image_free(&pi);
    return eddy__tmp_commit(&t, msg, msg_size);
}

eddy_status eddy_png_read(const char *path, eddy_image *img, char *msg, size_t msg_size) {
    if (!img) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "image is NULL");
    memset(img, 0, sizeof *img);
    if (!path) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "PNG path is NULL");
    FILE *fp;
    eddy_status opened = eddy__io_open_read(path, &fp, msg, msg_size);
    if (opened != EDDY_OK) return opened;
    png_image pi;
    memset(&pi, 0, sizeof pi);
    pi.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_stdio(&pi, fp)) {
        eddy_status st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: not a readable PNG: %s", path,
                                       pi.message);
        png_image_free(&pi);
        fclose(fp);
        return st;
    }
    pi.format = PNG_FORMAT_RGBA;
    /* a 16-bit PNG without gAMA/sRGB is sRGB-encoded like an 8-bit one (as browsers, GIMP and Pillow read it), not
     * linear, libpng's default, which brightened it (0x8080 grey read as 186, not 128); begin_read resets the flags */
    pi.flags |= PNG_IMAGE_FLAG_16BIT_sRGB;
    eddy_status st = eddy_image_init(img, (int)pi.width, (int)pi.height, msg, msg_size);
    if (pi.width > (1u << 28) || pi.height > (1u << 28) || st != EDDY_OK) {
        png_image_free(&pi);
        fclose(fp);
        eddy_image_free(img);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: PNG of %u x %u pixels is too large", path,
                             (unsigned)pi.width, (unsigned)pi.height);
    }
    if (!png_image_finish_read(&pi, NULL, img->rgba, 0, NULL)) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_CORRUPT_FILE, "%s: PNG decoding failed: %s", path, pi.message);
        png_image_free(&pi);
        fclose(fp);
        eddy_image_free(img);
        return st;
    }
    png_image_free(&pi);
    fclose(fp);
    return eddy__io_ok(msg, msg_size);
}
