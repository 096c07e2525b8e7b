/* Pictures have content: a red splat shows up red where it was put and nowhere else; a Taylor-Green vorticity
 * view is not flat; a 3D volume rendering of a plume is not flat; a sprite sheet and its JSON are written. */
#include "cli_util.h"

#include "eddy/io.h"

static const uint8_t *pixel(const eddy_image *img, int x, int y) { return img->rgba + 4 * ((size_t)x + (size_t)img->width * y); }

static bool flat(const eddy_image *img) {
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++)
            if (memcmp(pixel(img, x, y), pixel(img, 0, 0), 3) != 0) return false;
    return true;
}

static bool load(const char *dir, const char *name, eddy_image *img) {
    char path[4200], msg[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(img, 0, sizeof *img);
    eddy_status st = eddy_png_read(path, img, msg, sizeof msg);
    CHECK(st == EDDY_OK, "%s: %s", name, msg);
    return st == EDDY_OK;
}

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    /* still fluid, one red splat at (0.25, 0.75) in a unit box drawn 4 pixels per cell: image 128 x 128 */
    CHECK(cli_write(dir, "splat.json",
                    "{\"grid\": [32, 32], \"duration\": 0.04, \"splats\": [{\"position\": [0.25, 0.75], \"radius\": 0.06, "
                    "\"dye\": [1, 0, 0]}], \"render\": {\"scale\": 4}, \"output\": {\"fps\": 25, \"video\": \"none\"}}"),
          "write scene");
    int rc = cli_run(dir, "run splat.json --quiet --out splat");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    eddy_image img;
    if (load(dir, "splat/frame_00001.png", &img)) {
        CHECK(img.width == 128 && img.height == 128, "size %d x %d, expected 128 x 128", img.width, img.height);
        /* the splat's centre: x = 0.25 * 128, y = (1 - 0.75) * 128 from the top */
        const uint8_t *c = pixel(&img, 32, 32), *far = pixel(&img, 100, 100);
        CHECK(c[0] > 150 && c[1] < 60 && c[2] < 60, "the splat's centre is (%d, %d, %d), expected red", c[0], c[1], c[2]);
        CHECK(far[0] < 30 && far[1] < 30 && far[2] < 30, "far from the splat (%d, %d, %d), expected dark", far[0], far[1], far[2]);
        /* mirrored position (y flipped) stays dark: the picture is not upside down */
        const uint8_t *m = pixel(&img, 32, 96);
        CHECK(m[0] < 30, "the mirrored position is lit (%d): image rows run from the top (max y) down", m[0]);
        eddy_image_free(&img);
    }
    rc = cli_run(dir, "run --scene taylor_green --set grid=[24,24] --frames 1 --quiet --no-video --out tg");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    if (load(dir, "tg/frame_00001.png", &img)) {
        CHECK(!flat(&img), "the vorticity view of Taylor-Green vortices is flat");
        eddy_image_free(&img);
    }
    rc = cli_run(dir, "run --scene smoke3d --set grid=[12,16,12] --set render.volume.width=40 --set render.volume.height=50 "
                      "--frames 3 --quiet --no-video --out s3");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    if (load(dir, "s3/frame_00003.png", &img)) {
        CHECK(img.width == 40 && img.height == 50, "volume size %d x %d, expected 40 x 50", img.width, img.height);
        CHECK(!flat(&img), "the volume rendering of the plume is flat");
        eddy_image_free(&img);
    }
    rc = cli_run(dir, "run --scene splash --set grid=[32,18] --frames 6 --quiet --no-video --out sheet "
                      "--set 'output.sprite_sheet={\"columns\":3,\"rows\":2}'");
    CHECK(rc == 0, "sprite sheet run: exit %d:\n%s", rc, cli_output);
    CHECK(cli_file_size(dir, "sheet/sheet.png") > 0 && cli_file_size(dir, "sheet/sheet.json") > 0, "no sprite sheet");
    cli_cleanup(dir);
    return check_finish("cli_pictures");
}
