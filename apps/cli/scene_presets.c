/* The built-in presets: scenes/ JSON files compiled into the program (see embed_scenes.cmake). */
#include "scene.h"

struct embedded_scene { const char *name; const char *text; size_t len; };
extern const struct embedded_scene eddy_embedded_scenes[];
extern const int eddy_embedded_scene_count;

int scene_preset_count(void) { return eddy_embedded_scene_count; }

const char *scene_preset_name(int i) {
    return (i >= 0 && i < eddy_embedded_scene_count) ? eddy_embedded_scenes[i].name : NULL;
}

const char *scene_preset_text(int i, size_t *len) {
    if (i < 0 || i >= eddy_embedded_scene_count) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = eddy_embedded_scenes[i].len;
    return eddy_embedded_scenes[i].text;
}
