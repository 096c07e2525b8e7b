/* PNG files: RGBA and RGB round trips are exact (PNG is lossless); errors name the path and reason; no temporary
 * file is left behind, and a failed write leaves no file under the final name. */
#include "check.h"
#include "test_util.h"
#include <stdint.h>

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
    eddy_image empty = {0};
    CHECK(eddy_png_write(path, &empty, 1, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT, "empty image");
    CHECK(eddy_image_init(&back, 0, 5, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT, "zero width");
    eddy_image_free(&img);
    return check_finish("test_io_png");
}
