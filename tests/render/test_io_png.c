/* PNG files: RGBA and RGB round trips are exact (PNG is lossless); errors name the path and reason; no temporary
 * file is left behind, and a failed write leaves no file under the final name. */
#include "check.h"
#include "test_util.h"
#include <png.h>
#include <stdint.h>

/* a 16-bit RGBA PNG of one row of `n` pixels with no gAMA, sRGB or iCCP chunk (as Pillow and GIMP write them), through
 * libpng's own writer; libpng's default error handling aborts, which is what a test wants here */
static int write_png16(const char *path, const uint16_t *rgba, int n) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return 0;
    png_structp p = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
    png_infop info = png_create_info_struct(p);
    png_init_io(p, fp);
    png_set_IHDR(p, info, (png_uint_32)n, 1, 16, PNG_COLOR_TYPE_RGB_ALPHA, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(p, info);
    uint8_t row[4 * 2 * 8];
    for (int q = 0; q < 4 * n && q < 4 * 8; q++) row[2 * q] = (uint8_t)(rgba[q] >> 8), row[2 * q + 1] = (uint8_t)rgba[q];
    png_write_row(p, row);
    png_write_end(p, info);
    png_destroy_write_struct(&p, &info);
    return fclose(fp) == 0;
}

int main(void) {
    char dir[256], path[512], msg[512];
    test_dir("png", dir, sizeof dir);
    eddy_image img = {0}, back = {0};
    CHECK(eddy_image_init(&img, 37, 23, msg, sizeof msg) == EDDY_OK, "%s", msg);
    for (int y = 0; y < img.height; y++)
        for (int x = 0; x < img.width; x++) {
            uint8_t *p = img.rgba + 4 * ((size_t)y * img.width + x);
            p[0] = (uint8_t)(x * 7), p[1] = (uint8_t)(y * 11), p[2] = (uint8_t)(x * y), p[3] = (uint8_t)(255 - x - y);
        }
    /* RGBA round trip: every byte back */
    snprintf(path, sizeof path, "%s/rgba.png", dir);
    CHECK(eddy_png_write(path, &img, 1, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(eddy_png_read(path, &back, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(back.width == 37 && back.height == 23, "size %d x %d", back.width, back.height);
    CHECK(back.rgba && !memcmp(back.rgba, img.rgba, 37 * 23 * 4), "RGBA pixels differ after the round trip");
    eddy_image_free(&back);

    /* RGB: colour back, alpha read as opaque */
    snprintf(path, sizeof path, "%s/rgb.png", dir);
    CHECK(eddy_png_write(path, &img, 0, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(eddy_png_read(path, &back, msg, sizeof msg) == EDDY_OK, "%s", msg);
    int bad = 0;
    for (size_t p = 0; back.rgba && p < 37 * 23; p++)
        bad += memcmp(back.rgba + 4 * p, img.rgba + 4 * p, 3) != 0 || back.rgba[4 * p + 3] != 255;
    CHECK(back.rgba && bad == 0, "%d RGB pixels differ", bad);
    eddy_image_free(&back);
    CHECK(count_matching(dir, ".tmp-") == 0, "temporary files left in %s", dir);

    /* errors: a missing folder names the path and the errno reason; a non-PNG is a corrupt file */
    CHECK(eddy_png_write("no_such_folder/x.png", &img, 1, msg, sizeof msg) == EDDY_ERR_IO, "write into missing folder");
    CHECK(strstr(msg, "no_such_folder/x.png") && strstr(msg, "No such file"), "message: %s", msg);
    CHECK(eddy_png_read("no_such_file.png", &back, msg, sizeof msg) == EDDY_ERR_IO, "read missing");
    CHECK(strstr(msg, "no_such_file.png") && strstr(msg, "No such file"), "message: %s", msg);
    snprintf(path, sizeof path, "%s/not.png", dir);
    CHECK(eddy_file_write(path, "hello, not a png", 16, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(eddy_png_read(path, &back, msg, sizeof msg) == EDDY_ERR_CORRUPT_FILE, "non-PNG: %s", msg);
    CHECK(back.rgba == NULL, "failed read leaves the image empty");
    /* a truncated PNG */
    snprintf(path, sizeof path, "%s/rgba.png", dir);
    FILE *fp = fopen(path, "rb");
    char buf[4096];
    size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp) fclose(fp);
    snprintf(path, sizeof path, "%s/cut.png", dir);
    CHECK(n > 200 && eddy_file_write(path, buf, n / 2, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(eddy_png_read(path, &back, msg, sizeof msg) == EDDY_ERR_CORRUPT_FILE, "truncated PNG: %s", msg);
    /* a folder: Linux opens it and only the read fails, which was reported as "not a readable PNG: Read Error" */
    CHECK(eddy_png_read(dir, &back, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, dir) && strstr(msg, "directory"),
          "folder: %s", msg);
    /* a 16-bit PNG with no colour-space chunk is sRGB-encoded like an 8-bit one: 0x8080 is the 8-bit 128 (it was
     * taken as linear light, libpng's default, and brightened to 186); alpha stays straight */
    const uint16_t px16[4 * 4] = {0, 0, 0, 0xffff,          0x4040, 0x4040, 0x4040, 0xffff,
                                  0x8080, 0x8080, 0x8080, 0xffff, 0xffff, 0x8080, 0, 0x8080};
    const uint8_t want8[4 * 4] = {0, 0, 0, 255, 64, 64, 64, 255, 128, 128, 128, 255, 255, 128, 0, 128};
    snprintf(path, sizeof path, "%s/deep.png", dir);
    CHECK(write_png16(path, px16, 4), "cannot write %s", path);
    CHECK(eddy_png_read(path, &back, msg, sizeof msg) == EDDY_OK && back.width == 4 && back.height == 1, "%s", msg);
    CHECK(back.rgba && !memcmp(back.rgba, want8, sizeof want8),
          "16-bit PNG read as (%d %d %d %d) (%d %d %d %d) (%d %d %d %d) (%d %d %d %d): expected value / 257",
          back.rgba[0], back.rgba[1], back.rgba[2], back.rgba[3], back.rgba[4], back.rgba[5], back.rgba[6], back.rgba[7],
          back.rgba[8], back.rgba[9], back.rgba[10], back.rgba[11], back.rgba[12], back.rgba[13], back.rgba[14],
          back.rgba[15]);
    eddy_image_free(&back);

    /* a side past libpng's limit (1000000 pixels) failed only inside libpng, as "Invalid IHDR data": refused up
     * front with the size and the limit, nothing written */
    eddy_image wide = {0};
    CHECK(eddy_image_init(&wide, PNG_USER_WIDTH_MAX + 1, 1, msg, sizeof msg) == EDDY_OK, "%s", msg);
    snprintf(path, sizeof path, "%s/wide.png", dir);
    char want[128];
    snprintf(want, sizeof want, "%ld x 1 pixels", (long)PNG_USER_WIDTH_MAX + 1);
    CHECK(eddy_png_write(path, &wide, 1, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, path) &&
              strstr(msg, want) && strstr(msg, "at most"),
          "a PNG wider than libpng's limit: %s", msg);
    CHECK(file_size(path) == -1 && count_matching(dir, ".tmp-") == 0, "a refused PNG left a file");
    eddy_image_free(&wide);

    eddy_image empty = {0};
    CHECK(eddy_png_write(path, &empty, 1, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT, "empty image");
    CHECK(eddy_image_init(&back, 0, 5, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT, "zero width");
    eddy_image_free(&img);
    return check_finish("test_io_png");
}
