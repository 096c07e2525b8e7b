/* --surface end to end. 2D: a still Gaussian blob of dye; the dump's sdf.npy has the dye grid's shape, is negative
 * exactly where the dye is above the level and is the distance to the level's circle within a stated error; the
 * frame's SVG holds one closed polyline on that circle; the liquid view shows the liquid where the dye is. 3D: a
 * blob gives a binary PLY with triangles (and an OBJ on request) and a 3D sdf.npy. Bad surface settings are scene
 * errors (tests/cli/test_cli_errors.c). */
#include "cli_util.h"

#include "eddy/io.h"

#include <math.h>

enum { N = 32 };

static const uint8_t *pixel(const eddy_image *img, int x, int y) { return img->rgba + 4 * ((size_t)x + (size_t)img->width * y); }

/* "element NAME COUNT" from a PLY header, or -1 */
static long ply_count(const char *ply, const char *element) {
    char key[64];
    snprintf(key, sizeof key, "element %s ", element);
    const char *p = strstr(ply, key);
    return p ? strtol(p + strlen(key), NULL, 10) : -1;
}

int main(void) {
    char dir[4096], path[4200], msg[256];
    cli_tempdir(dir, sizeof dir);
    /* dye r = exp(-d^2 / r^2), r = 0.15 m, centred in a unit box of 32 x 32 cells; the fluid is still, so the blob
     * stays; level 0.5 lies on the circle of radius R0 = r sqrt(ln 2) */
    const double r = 0.15, R0 = r * sqrt(log(2.0)), h = 1.0 / N;
    CHECK(cli_write(dir, "blob.json",
                    "{\"grid\": [32, 32], \"duration\": 0.04, \"splats\": [{\"position\": [0.5, 0.5], \"radius\": 0.15, "
                    "\"dye\": [1, 0, 0]}], \"render\": {\"scale\": 4}, \"output\": {\"fps\": 25, \"video\": \"none\"}}"),
          "write scene");
    int rc = cli_run(dir, "run blob.json --surface --dump 1 --quiet --out b");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);

    eddy_npy sdf, dye;
    memset(&sdf, 0, sizeof sdf);
    memset(&dye, 0, sizeof dye);
    snprintf(path, sizeof path, "%s/b/dump_00001/sdf.npy", dir);
    CHECK(eddy_npy_read(path, &sdf, msg, sizeof msg) == EDDY_OK, "sdf.npy: %s", msg);
    snprintf(path, sizeof path, "%s/b/dump_00001/dye.npy", dir);
    CHECK(eddy_npy_read(path, &dye, msg, sizeof msg) == EDDY_OK, "dye.npy: %s", msg);
    CHECK(sdf.ndim == 2 && sdf.shape[0] == N && sdf.shape[1] == N, "sdf.npy should be (%d, %d) like one dye channel", N, N);
    if (sdf.ndim == 2 && sdf.count == N * N && dye.count == 3 * N * N) {
        double worst = 0;
        int wrong_sign = 0;
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double x = (i + 0.5) * h - 0.5, y = (j + 0.5) * h - 0.5;
                double exact = sqrt(x * x + y * y) - R0, got = sdf.data[i + N * j];
                float total = dye.data[i + N * j] + dye.data[N * N + i + N * j] + dye.data[2 * N * N + i + N * j];
                wrong_sign += (got < 0) != (total > 0.5f);
                if (fabs(got - exact) > worst) worst = fabs(got - exact);
            }
        CHECK(wrong_sign == 0, "%d points where the sign of sdf disagrees with dye > 0.5", wrong_sign);
        /* the interface is found by linear interpolation of the Gaussian between points (error << h) and the rest by
         * first-order fast sweeping; the surfaces tests bound a circle's error by about h (docs/surfaces.md) */
        CHECK(worst < 1.0 * h, "largest distance error %.4f m, h = %.4f m", worst, h);
        CHECK(sdf.data[N / 2 + N * (N / 2)] < -0.09, "the blob's middle is deep inside: %g m", sdf.data[N / 2 + N * (N / 2)]);
        CHECK(sdf.data[0] > 0.4, "the corner is far outside: %g m", sdf.data[0]);
    }
    eddy_npy_free(&sdf);
    eddy_npy_free(&dye);

    /* the SVG: one closed polyline on the circle. Its viewport is the point grid's extent [h/2, 1 - h/2] drawn 512 wide,
     * y up, so the circle's centre is (256, 256) and its radius R0 * 512 / (1 - h) */
    size_t len = 0;
    char *svg = cli_read(dir, "b/surface_00001.svg", &len);
    CHECK(svg != NULL, "no b/surface_00001.svg");
    if (svg) {
        const char *p = strstr(svg, "<path"), *d = p ? strstr(p, " d=\"") : NULL;
        CHECK(p && !strstr(p + 1, "<path"), "expected exactly one polyline");
        CHECK(d != NULL, "no path data");
        const char *end = d ? strchr(d + 4, '"') : NULL;
        CHECK(end && end[-1] == 'Z', "the polyline is not closed");
        int points = 0;
        double worst = 0, scale = 512.0 / (1.0 - h);
        for (const char *q = d ? d + 4 : NULL; q && q < end;) {
            if (*q == 'M' || *q == 'L') {
                char *next;
                double x = strtod(q + 1, &next), y = strtod(next, &next);
                double dist = sqrt((x - 256) * (x - 256) + (y - 256) * (y - 256)) / scale;
                if (fabs(dist - R0) > worst) worst = fabs(dist - R0);
                points++;
                q = next;
            } else {
                q++;
            }
        }
        CHECK(points >= 16, "%d points on the polyline", points);
        /* crossings found by linear interpolation of the Gaussian along cell edges: well within a quarter cell */
        CHECK(worst < 0.25 * h, "polyline points off the circle by up to %.4f m", worst);
        free(svg);
    }

    /* the liquid view: liquid where the dye is, background elsewhere */
    rc = cli_run(dir, "run blob.json --set render.view=liquid --quiet --out l");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    eddy_image img;
    memset(&img, 0, sizeof img);
    snprintf(path, sizeof path, "%s/l/frame_00001.png", dir);
    if (eddy_png_read(path, &img, msg, sizeof msg) == EDDY_OK) {
        CHECK(img.width == 4 * N && img.height == 4 * N, "size %d x %d", img.width, img.height);
        const uint8_t *mid = pixel(&img, 2 * N, 2 * N), *corner = pixel(&img, 4, 4);
        CHECK(mid[2] > 100 && mid[2] > mid[0] + 50, "the blob is liquid blue: %d %d %d", mid[0], mid[1], mid[2]);
        CHECK(corner[0] + corner[1] + corner[2] == 0, "no liquid in the corner");
        /* the liquid's edge is the circle: just inside it liquid, just outside it none (pixels of 1/128 m) */
        int in_x = (int)((0.5 + R0 - 0.02) * 4 * N), out_x = (int)((0.5 + R0 + 0.02) * 4 * N);
        CHECK(pixel(&img, in_x, 2 * N)[2] > 60 && pixel(&img, out_x, 2 * N)[2] == 0, "edge at the circle: %d inside, %d outside",
              pixel(&img, in_x, 2 * N)[2], pixel(&img, out_x, 2 * N)[2]);
        eddy_image_free(&img);
    } else {
        CHECK(0, "%s", msg);
    }

    /* 3D: a blob in a 12^3 box gives a closed triangle mesh as binary PLY, and a 3D sdf.npy */
    CHECK(cli_write(dir, "blob3.json",
                    "{\"grid\": [12, 12, 12], \"duration\": 0.04, \"splats\": [{\"position\": [0.5, 0.5, 0.5], \"radius\": 0.25, "
                    "\"dye\": [0, 1, 0]}], \"render\": {\"volume\": {\"width\": 24, \"height\": 24}}, \"output\": {\"fps\": 25, "
                    "\"video\": \"none\"}}"),
          "write scene");
    rc = cli_run(dir, "run blob3.json --surface --dump 1 --quiet --out c");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    char *ply = cli_read(dir, "c/surface_00001.ply", &len);
    CHECK(ply && !strncmp(ply, "ply\nformat binary_little_endian 1.0\n", 36), "c/surface_00001.ply is not a binary PLY");
    if (ply) {
        long v = ply_count(ply, "vertex"), f = ply_count(ply, "face");
        CHECK(v > 20 && f > 30, "the PLY has %ld vertices and %ld triangles", v, f);
        /* a closed surface: every edge in two triangles, so 2 V - F = 4 (Euler, genus 0) */
        CHECK(2 * v - f == 4, "V = %ld, F = %ld: not a closed sphere-like mesh", v, f);
        const char *body = strstr(ply, "end_header\n");
        /* each vertex x y z nx ny nz as float, each face a count byte and 3 ints */
        CHECK(body && (long)(len - (size_t)(body + 11 - ply)) == v * 24 + f * 13, "PLY body size");
        free(ply);
    }
    snprintf(path, sizeof path, "%s/c/dump_00001/sdf.npy", dir);
    CHECK(eddy_npy_read(path, &sdf, msg, sizeof msg) == EDDY_OK && sdf.ndim == 3 && sdf.shape[0] == 12 && sdf.shape[2] == 12,
          "3D sdf.npy should be (12, 12, 12): %s", msg);
    if (sdf.count == 12 * 12 * 12) CHECK(sdf.data[6 + 12 * (6 + 12 * 6)] < 0 && sdf.data[0] > 0, "sign of the 3D sdf");
    eddy_npy_free(&sdf);
    rc = cli_run(dir, "run blob3.json --set 'surface={\"format\": \"obj\", \"level\": 0.3}' --quiet --out o");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    char *obj = cli_read(dir, "o/surface_00001.obj", &len);
    CHECK(obj && strstr(obj, "\nv ") && strstr(obj, "\nvn ") && strstr(obj, "\nf "), "o/surface_00001.obj lacks v, vn or f lines");
    free(obj);
    CHECK(!cli_exists(dir, "o/surface_00001.ply"), "OBJ requested, PLY written");
    cli_cleanup(dir);
    return check_finish("cli_surface");
}
