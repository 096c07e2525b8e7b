/* The wind preset end to end, a few frames at a small size: frames are written and are not flat; the particles
 * show where they are (every particle of the dump lights the pixel under it, in colour); each frame writes one
 * stats line with every documented key, step_ms among them; the dump holds the window's fields, the particles and
 * where the window is; wind scenes refuse checkpoints. */
#include "cli_util.h"

#include "eddy/io.h"

#include <cjson/cJSON.h>
#include <math.h>

enum { COUNT = 3000, SIZE = 160 };

static const uint8_t *pixel(const eddy_image *img, int x, int y) { return img->rgba + 4 * ((size_t)x + (size_t)img->width * y); }

static bool load(const char *dir, const char *name, eddy_image *img) {
    char path[4200], msg[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    memset(img, 0, sizeof *img);
    eddy_status st = eddy_png_read(path, img, msg, sizeof msg);
    CHECK(st == EDDY_OK, "%s: %s", name, msg);
    return st == EDDY_OK;
}

static bool flat(const eddy_image *img) {
    for (size_t p = 1; p < (size_t)img->width * (size_t)img->height; p++)
        if (memcmp(img->rgba + 4 * p, img->rgba, 3) != 0) return false;
    return true;
}

static void check_stats(const char *dir, const char *name, int frames) {
    static const char *const number_keys[] = {"t", "dt", "max_div", "rms_div", "kinetic_energy", "dye_total", "max_speed",
                                              "cfl", "pressure_residual", "step_ms"};
    static const char *const stages[] = {"sources", "forces", "advect", "diffuse", "project", "boundary", "diagnostics",
                                         "move", "particles"};
    size_t len = 0;
    char *text = cli_read(dir, name, &len);
    CHECK(text != NULL, "no stats file %s", name);
    int lines = 0;
    for (char *line = text; text && *line;) {
        char *end = strchr(line, '\n');
        if (!end) break;
        lines++;
        cJSON *o = cJSON_ParseWithLength(line, (size_t)(end - line));
        CHECK(cJSON_IsObject(o), "line %d is not a JSON object", lines);
        const cJSON *step = cJSON_GetObjectItemCaseSensitive(o, "step");
        CHECK(cJSON_IsNumber(step) && step->valuedouble == lines, "line %d: step should be the frame number", lines);
        for (size_t k = 0; k < sizeof number_keys / sizeof number_keys[0]; k++)
            CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, number_keys[k])), "line %d: \"%s\" is not a number", lines,
                  number_keys[k]);
        const cJSON *ms = cJSON_GetObjectItemCaseSensitive(o, "step_ms");
        CHECK(cJSON_IsNumber(ms) && ms->valuedouble > 0, "line %d: step_ms (move + frame) should be a positive time", lines);
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "pressure_iterations");
        /* the preset's projection: 20 Jacobi iterations every frame */
        CHECK(cJSON_IsNumber(it) && it->valuedouble == 20, "line %d: pressure_iterations should be 20", lines);
        const cJSON *dt = cJSON_GetObjectItemCaseSensitive(o, "dt"), *t = cJSON_GetObjectItemCaseSensitive(o, "t");
        /* one wind frame per picture at 30 fps; dt is stored as a float (1e-6 relative) */
        CHECK(cJSON_IsNumber(dt) && fabs(dt->valuedouble - 1.0 / 30) < 1e-7, "line %d: dt should be 1/30 s", lines);
        CHECK(cJSON_IsNumber(t) && fabs(t->valuedouble - lines / 30.0) < 1e-5, "line %d: t should be frame / 30 s", lines);
        const cJSON *dye = cJSON_GetObjectItemCaseSensitive(o, "dye_total");
        CHECK(cJSON_IsNumber(dye) && dye->valuedouble == 0, "line %d: a wind scene has no dye", lines);
        const cJSON *sm = cJSON_GetObjectItemCaseSensitive(o, "stage_ms");
        for (size_t k = 0; k < sizeof stages / sizeof stages[0]; k++)
            CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(sm, stages[k])), "line %d: stage_ms.%s missing", lines, stages[k]);
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "probes");
        const cJSON *q = cJSON_GetObjectItemCaseSensitive(pr, "behind");
        CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(q, "u")) && cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(q, "w")),
              "line %d: probe \"behind\" missing", lines);
        cJSON_Delete(o);
        line = end + 1;
    }
    CHECK(lines == frames, "%d stats lines for %d frames", lines, frames);
    free(text);
}

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    char args[2048];
    snprintf(args, sizeof args,
             "run --scene wind --frames 3 --no-video --quiet --out w --stats w.jsonl --dump 3 --set wind.particles.count=%d "
             "--set render.width=%d --set 'probes={\"behind\":[-2,1,0]}'",
             COUNT, SIZE);
    int rc = cli_run(dir, args);
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    eddy_image img;
    if (load(dir, "w/frame_00003.png", &img)) {
        /* the window is 32 m x 32 m seen from above */
        CHECK(img.width == SIZE && img.height == SIZE, "size %d x %d, expected %d x %d", img.width, img.height, SIZE, SIZE);
        CHECK(!flat(&img), "the wind picture is flat");
        eddy_image_free(&img);
    }
    CHECK(cli_exists(dir, "w/frame_00001.png") && cli_exists(dir, "w/frame_00002.png"), "frames 1 and 2 missing");
    check_stats(dir, "w.jsonl", 3);
    static const char *const dumped[] = {"u.npy", "v.npy", "w.npy", "pressure.npy", "particles.npy", "particle_velocities.npy",
                                         "window.json"};
    for (size_t i = 0; i < sizeof dumped / sizeof dumped[0]; i++) {
        char name[128];
        snprintf(name, sizeof name, "w/dump_00003/%s", dumped[i]);
        CHECK(cli_file_size(dir, name) > 0, "dump lacks %s", dumped[i]);
    }

    /* particles alone on black (no speed slice, arrows or player): each particle of the dump lights the pixel under
     * it, in colour; nothing else is drawn */
    snprintf(args, sizeof args,
             "run --scene wind --frames 3 --no-video --quiet --out p --dump 3 --set wind.particles.count=%d --set render.width=%d "
             "--set render.speed=false --set render.arrows=false --set render.player=false",
             COUNT, SIZE);
    rc = cli_run(dir, args);
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    char path[4200], msg[256];
    eddy_npy pos;
    memset(&pos, 0, sizeof pos);
    snprintf(path, sizeof path, "%s/p/dump_00003/particles.npy", dir);
    CHECK(eddy_npy_read(path, &pos, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(pos.ndim == 2 && pos.shape[0] == COUNT && pos.shape[1] == 3, "particles.npy should be (%d, 3)", COUNT);
    char *wj = cli_read(dir, "p/dump_00003/window.json", NULL);
    cJSON *win = wj ? cJSON_Parse(wj) : NULL;
    const cJSON *origin = cJSON_GetObjectItemCaseSensitive(win, "origin");
    CHECK(cJSON_GetArraySize(origin) == 3, "window.json has no origin");
    if (load(dir, "p/frame_00003.png", &img) && pos.ndim == 2 && cJSON_GetArraySize(origin) == 3) {
        double ox = cJSON_GetArrayItem(origin, 0)->valuedouble, oz = cJSON_GetArrayItem(origin, 2)->valuedouble;
        const double ppm = SIZE / 32.0; /* pixels per metre */
        int lit_under = 0, inside = 0;
        for (size_t i = 0; i < pos.shape[0]; i++) {
            double px = (pos.data[3 * i] - ox) * ppm, py = SIZE - (pos.data[3 * i + 2] - oz) * ppm;
            if (px < 0 || py < 0 || px >= SIZE || py >= SIZE) continue;
            inside++;
            const uint8_t *c = pixel(&img, (int)px, (int)py);
            lit_under += c[0] + c[1] + c[2] > 40;
        }
        /* particles respawn inside the window, so all are in the picture; a disc of radius 1 px covers the pixel
         * holding its centre by at least 0.79 (centre at most 0.71 px from the pixel's centre): every one is lit */
        CHECK(inside == COUNT, "%d of %d particles inside the picture", inside, COUNT);
        CHECK(lit_under == inside, "%d of %d particles light the pixel under them", lit_under, inside);
        /* the lit pixels are the particles' colours (viridis by speed: never grey), and only the particles are drawn:
         * at most pi (r + 1)^2 = 12.6 pixels each */
        int lit = 0, coloured = 0;
        for (int y = 0; y < img.height; y++)
            for (int x = 0; x < img.width; x++) {
                const uint8_t *c = pixel(&img, x, y);
                int mx = c[0] > c[1] ? (c[0] > c[2] ? c[0] : c[2]) : (c[1] > c[2] ? c[1] : c[2]);
                int mn = c[0] < c[1] ? (c[0] < c[2] ? c[0] : c[2]) : (c[1] < c[2] ? c[1] : c[2]);
                if (mx == 0) continue;
                lit++;
                coloured += mx - mn > mx / 4;
            }
        CHECK(lit > COUNT / 2 && lit < 13 * COUNT, "%d lit pixels for %d particles", lit, COUNT);
        CHECK(coloured > 9 * lit / 10, "%d of %d lit pixels are coloured", coloured, lit);
        eddy_image_free(&img);
    }
    cJSON_Delete(win);
    free(wj);
    eddy_npy_free(&pos);

    /* a wind scene always starts from still air: no checkpoints */
    rc = cli_run(dir, "run --scene wind --frames 3 --no-video --quiet --out c --checkpoint 1");
    CHECK(rc == 2 && strstr(cli_output, "--checkpoint: a wind scene") != NULL, "checkpoint refused: exit %d:\n%s", rc, cli_output);
    cli_cleanup(dir);
    return check_finish("cli_wind");
}
