/* RGBA8 image buffers shared by the render and io modules. */
#include "io_internal.h"
#include <stdlib.h>
#include <string.h>

eddy_status eddy_image_init(eddy_image *img, int width, int height, char *msg, size_t msg_size) {
    if (!img) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "image is NULL");
    memset(img, 0, sizeof *img);
    /* 2^28 pixels (1 GiB of RGBA) is far beyond any picture we make and keeps 4*w*h inside size_t and int math */
    if (width < 1 || height < 1 || (double)width * (double)height > (double)(1 << 28))
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                             "image size %d x %d: each side must be >= 1 and the area at most 2^28 pixels", width,
                             height);
    img->rgba = calloc((size_t)width * (size_t)height, 4);
    if (!img->rgba)
        return eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "image of %d x %d pixels: out of memory", width,
                             height);
    img->width = width;
    img->height = height;
    return eddy__io_ok(msg, msg_size);
}

void eddy_image_free(eddy_image *img) {
    if (!img) return;
    free(img->rgba);
    memset(img, 0, sizeof *img);
}
