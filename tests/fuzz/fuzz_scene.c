/* libFuzzer target: the scene loader. The input is a scene's text, optionally followed by NUL-separated --set
 * overrides ("key.path=value"), so the override parser is fuzzed too. Nothing is simulated (a fuzzed grid may be
 * huge); paths of moving things are evaluated to reach that code. */
#include "scene.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *copy = (char *)malloc(size + 1);
    if (!copy) return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    size_t text_len = strlen(copy);
    const char *sets[4];
    int n = 0;
    for (size_t at = text_len + 1; at < size && n < 4; at += strlen(copy + at) + 1) sets[n++] = copy + at;
    scene_load_options o = scene_load_options_default();
    o.check_files = false;
    o.overrides = sets;
    o.override_count = n;
    char err[SCENE_ERROR_SIZE];
    eddy_scene *sc = scene_parse(copy, text_len, "fuzz.json", NULL, &o, err, sizeof err);
    if (sc) {
        float p[3], v[3];
        for (int i = 0; i < sc->obstacle_count; i++) scene_path_eval(&sc->obstacles[i].path, 1.25, sc->def.dim, p, v);
        for (int i = 0; i < sc->splat_path_count; i++) scene_path_eval(&sc->splat_paths[i].path, 7.5, sc->def.dim, p, v);
        for (int i = 0; i < sc->emitter_count; i++) scene_path_eval(&sc->emitters[i].path, 0.5, sc->def.dim, p, v);
        if (sc->wind) scene_path_eval(&sc->wind->path, 3.0, 3, p, v);
        scene_free(sc);
    } else if (!err[0]) {
        abort(); /* every refusal must say why */
    }
    free(copy);
    return 0;
}
