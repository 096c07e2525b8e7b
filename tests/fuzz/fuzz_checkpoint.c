/* libFuzzer target: the checkpoint loader of `eddy resume` — the container, the command's state JSON, the stored
 * scene, and the simulation's state file (eddy_sim_load). The container's hash is not checked here so that
 * mutations reach the fields behind it (the resume command does check it). */
#include "checkpoint.h"
#include "scene.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    checkpoint_view v;
    char err[1024];
    if (!checkpoint_parse(data, size, false, &v, err, sizeof err)) {
        if (!err[0]) abort();
        return 0;
    }
    checkpoint_state cs;
    if (checkpoint_state_parse(v.json, v.json_len, &cs, err, sizeof err)) {
        scene_load_options o = scene_load_options_default();
        o.check_files = false;
        eddy_scene *sc = scene_parse(cs.scene_json, strlen(cs.scene_json), cs.scene_file, cs.scene_dir, &o, err, sizeof err);
        scene_free(sc);
        checkpoint_state_free(&cs);
    }
    eddy_sim *sim = NULL;
    if (checkpoint_load_sim(v.state, v.state_len, &sim, err, sizeof err) == EDDY_OK) {
        /* a loaded simulation is whole: it answers questions about itself */
        eddy_field_layout lay;
        (void)eddy_sim_field_layout(sim, EDDY_FIELD_DYE_R, &lay);
        eddy_sim_destroy(sim);
    }
    return 0;
}
