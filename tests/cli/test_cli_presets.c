/* Every built-in scene runs a few steps at a small size (shrunk with --set) and writes its frames and stats;
 * `eddy scenes` lists them all. */
#include "cli_util.h"

#include "scene.h"

/* grids a few cells across, keeping each preset's box (cells stay square because size is given as the x extent) */
static const char *shrink(const char *name) {
    if (!strcmp(name, "default") || !strcmp(name, "splash")) return "--set grid=[32,18]";
    if (!strcmp(name, "smoke")) return "--set grid=[16,24]";
    if (!strcmp(name, "cavity") || !strcmp(name, "taylor_green")) return "--set grid=[16,16]";
    if (!strcmp(name, "karman")) return "--set grid=[88,17]";
    if (!strcmp(name, "smoke3d")) return "--set grid=[12,16,12] --set render.volume.width=48 --set render.volume.height=60";
    if (!strcmp(name, "wind")) return "--set wind.particles.count=2000 --set render.width=128";
    return "";
}

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    CHECK(cli_run(dir, "scenes") == 0, "eddy scenes failed: %s", cli_output);
    for (int i = 0; i < scene_preset_count(); i++) {
        const char *name = scene_preset_name(i);
        CHECK(strstr(cli_output, name) != NULL, "eddy scenes does not list %s:\n%s", name, cli_output);
    }
    static const char *const required[] = {"default", "smoke", "cavity", "taylor_green", "karman", "splash", "smoke3d", "wind"};
    static char scenes[sizeof cli_output];
    memcpy(scenes, cli_output, sizeof scenes);
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        CHECK(strstr(scenes, required[i]) != NULL, "preset %s is missing", required[i]);

    for (int i = 0; i < scene_preset_count(); i++) {
        const char *name = scene_preset_name(i);
        char args[1024], out[64];
        snprintf(out, sizeof out, "out_%s", name);
        snprintf(args, sizeof args, "run --scene %s %s --frames 2 --no-video --quiet --out %s --stats %s.jsonl", name, shrink(name), out,
                 name);
        int rc = cli_run(dir, args);
        CHECK(rc == 0, "%s: exit %d:\n%s", args, rc, cli_output);
        char f1[128], f2[128], st[128];
        snprintf(f1, sizeof f1, "%s/frame_00001.png", out);
        snprintf(f2, sizeof f2, "%s/frame_00002.png", out);
        snprintf(st, sizeof st, "%s.jsonl", name);
        CHECK(cli_file_size(dir, f1) > 0 && cli_file_size(dir, f2) > 0, "%s: frames missing", name);
        size_t len = 0;
        char *stats = cli_read(dir, st, &len);
        int lines = 0;
        for (size_t k = 0; stats && k < len; k++) lines += stats[k] == '\n';
        CHECK(lines >= 2, "%s: %d stats lines for 2 frames", name, lines);
        free(stats);
        /* the preset parses on its own too, from its text */
        char err[1024];
        scene_load_options lo = scene_load_options_default();
        size_t n = 0;
        const char *text = scene_preset_text(i, &n);
        eddy_scene *sc = scene_parse(text, n, name, NULL, &lo, err, sizeof err);
        CHECK(sc != NULL, "%s: %s", name, err);
        CHECK(sc && sc->description && strlen(sc->description) > 10, "%s: needs a description for `eddy scenes`", name);
        scene_free(sc);
    }
    cli_cleanup(dir);
    return check_finish("cli_presets");
}
