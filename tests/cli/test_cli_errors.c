/* Every documented scene error (docs/scenes.md, "Errors") gives exit code 2 and a message naming the file, the key
 * path and what was expected; so do usage errors. Scenes are written with ' for " to keep them readable. */
#include "cli_util.h"

#include "eddy/io.h"
#include "eddy/render.h"

typedef struct error_case {
    const char *scene;   /* scene text (' becomes "), or NULL: no file, `args` only */
    const char *args;    /* extra arguments */
    const char *expect[3];
} error_case;

#define BASE "'grid': [16, 16], 'duration': 0.1"
#define PLAYER "'player': {'path': {'type': 'circle', 'center': [0, 1, 0], 'radius': 5}}"

static const error_case cases[] = {
    /* syntax */
    {"{'grid': [16, 16],\n 'viscosity': 0.1,,\n}", "", {"bad.json: line 2, column", "not valid JSON"}},
    {"{" BASE "} trailing", "", {"bad.json", "after the JSON value"}},
    {"[1, 2]", "", {"bad.json", "expected an object"}},
    /* unknown keys, anywhere */
    {"{" BASE ", 'viscosty': 0.1}", "", {"bad.json: viscosty: unknown key", "viscosity"}},
    {"{" BASE ", 'pressure': {'tol': 1e-3}}", "", {"bad.json: pressure.tol: unknown key", "tolerance"}},
    {"{" BASE ", 'obstacles': [{'shape': 'circle', 'center': [0.5, 0.5], 'radius': 0.1, 'colour': [1,0,0]}]}", "",
     {"bad.json: obstacles[0].colour: unknown key"}},
    {"{" BASE ", 'viscosity': 0.1, 'viscosity': 0.2}", "", {"bad.json: viscosity: key given twice"}},
    /* wrong types */
    {"{" BASE ", 'viscosity': 'thick'}", "", {"bad.json: viscosity: expected a number >= 0 m^2/s", "got string \"thick\""}},
    {"{'grid': 64}", "", {"bad.json: grid: expected an array of 2 or 3 cell counts"}},
    {"{'grid': [16, 16.5]}", "", {"bad.json: grid[1]: expected a whole number of cells"}},
    {"{" BASE ", 'output': {'png': 'yes'}}", "", {"bad.json: output.png: expected true or false"}},
    {"{" BASE ", 'advection': 'upwind'}", "", {"bad.json: advection: expected one of \"maccormack\"", "got string \"upwind\""}},
    {"{" BASE ", 'render': {'view': 'colour'}}", "", {"bad.json: render.view: expected one of", "\"vorticity\""}},
    {"{" BASE ", 'probes': {'a': [0.5]}}", "", {"bad.json: probes.a: expected an array of 2 numbers"}},
    /* out of range */
    {"{" BASE ", 'cfl': 100}", "", {"bad.json: cfl: expected a number in (0, 50]", "got 100"}},
    {"{" BASE ", 'viscosity': -1}", "", {"bad.json: viscosity: expected a number >= 0", "got -1"}},
    {"{'grid': [2, 16]}", "", {"bad.json: grid[0]: expected a whole number of cells in [3, 1048576]", "got 2"}},
    {"{" BASE ", 'pressure': {'tolerance': 2}}", "", {"bad.json: pressure.tolerance: expected a number in (0, 1)"}},
    {"{" BASE ", 'dim': 4}", "", {"bad.json: dim: expected a whole number in [2, 3]"}},
    /* inconsistent settings */
    {"{'dim': 3, 'grid': [16, 16]}", "", {"bad.json: grid: expected 3 cell counts for dim 3"}},
    {"{'grid': [16, 16], 'size': [1, 2]}", "", {"bad.json: size[1]", "cells must be square"}},
    {"{" BASE ", 'dt': 0.01, 'cfl': 1}", "", {"bad.json: dt: set either dt", "not both"}},
    {"{" BASE ", 'boundary': {'x-': 'periodic'}}", "", {"bad.json: boundary.x-: periodic on x- only", "boundary.x+"}},
    {"{" BASE ", 'boundary': {'x-': 'inflow'}}", "", {"bad.json: boundary.x-: \"inflow\" needs a velocity"}},
    {"{" BASE ", 'boundary': {'y+': {'type': 'moving'}}}", "", {"bad.json: boundary.y+.velocity: missing"}},
    {"{" BASE ", 'boundary': {'z-': 'wall'}}", "", {"bad.json: boundary.z-: a 2D box has no z faces"}},
    {"{" BASE ", 'boundary': {'x-': 'door'}}", "", {"bad.json: boundary.x-: expected one of \"wall\"", "got string \"door\""}},
    {"{" BASE ", 'obstacles': [{'shape': 'circle', 'center': [2, 0.5], 'radius': 0.1}]}", "",
     {"bad.json: obstacles[0].center: [2, 0.5] is outside the box [0, 1] x [0, 1] m"}},
    {"{" BASE ", 'obstacles': [{'shape': 'circle', 'center': [0.5, 0.5]}]}", "", {"bad.json: obstacles[0].radius: missing"}},
    {"{" BASE ", 'obstacles': [{'shape': 'box', 'center': [0.5, 0.5], 'radius': 0.1}]}", "",
     {"bad.json: obstacles[0].radius: a box takes half_size"}},
    {"{" BASE ", 'obstacles': [{'shape': 'circle', 'center': [0.5, 0.5], 'radius': 0.1, 'velocity': [1, 0], "
     "'path': {'type': 'circle', 'center': [0.5, 0.5], 'radius': 0.1}}]}",
     "", {"bad.json: obstacles[0].center: an obstacle on a path"}},
    {"{" BASE ", 'emitters': [{'shape': 'circle', 'center': [0.5, -0.1], 'radius': 0.1}]}", "",
     {"bad.json: emitters[0].center: [0.5, -0.1] is outside the box"}},
    {"{" BASE ", 'splats': [{'position': [0.5, 1.5]}]}", "", {"bad.json: splats[0].position", "outside the box"}},
    {"{" BASE ", 'probes': {'wake': [1.5, 0.5]}}", "", {"bad.json: probes.wake: [1.5, 0.5] is outside the box"}},
    {"{" BASE ", 'splat_paths': [{'path': {'type': 'keyframes', 'keys': [{'time': 1, 'position': [0.1, 0.1]}, "
     "{'time': 0.5, 'position': [0.2, 0.2]}]}}]}",
     "", {"bad.json: splat_paths[0].path.keys[1].time: 0.5 s: keyframe times must increase"}},
    {"{" BASE ", 'splat_paths': [{'path': {'type': 'circle', 'center': [0.5, 0.5], 'radius': 0.2}, 'start': 2, 'end': 1}]}",
     "", {"bad.json: splat_paths[0].end: 1 s: must be after start"}},
    {"{" BASE ", 'pressure': {'solver': 'mgpcg', 'omega': 1.5}}", "", {"bad.json: pressure.omega: only used by solver \"rbgs\""}},
    {"{" BASE ", 'pressure': {'warm_start': 1}}", "", {"bad.json: pressure.warm_start: expected true or false"}},
    {"{" BASE ", 'pressure': {'solver': 'jacobi', 'warm_start': true}}", "", {"bad.json: pressure.warm_start: only used by solver \"mgpcg\""}},
    {"{'dim': 3, 'grid': [4000, 4000, 4000]}", "", {"bad.json: grid: [4000, 4000, 4000] needs about", "GiB"}},
    /* a step that would make the ray march endless (it hung) */
    {"{'dim': 3, 'grid': [8, 8, 8], 'render': {'volume': {'width': 32, 'height': 32, 'step': 1e-30}}}", "",
     {"bad.json: render.volume.step: expected a number in [0.01, 4] cells", "got 1e-30"}},
    /* an fps whose frame needs more than the step limit (it hung for many minutes) */
    {"{" BASE ", 'output': {'fps': 1e-9}}", "", {"bad.json: output.fps: 1e-09", "max_dt = 0.05 s", "expected fps >= 2e-05"}},
    {"{" BASE ", 'dt': 0.001}", "--set output.fps=1e-4", {"bad.json: output.fps: 0.0001", "dt = 0.001 s", "expected fps >= 0.001"}},
    {"{" BASE "}", "--fps 1e-6", {"--fps 1e-06", "more than 1000000 steps", "expected fps >= 2e-05"}},
    /* values that are 0 or subnormal once stored as float (dt 0 would be the adaptive step) */
    {"{" BASE ", 'dt': 1e-46}", "", {"bad.json: dt: 1e-46 is too close to 0"}},
    {"{" BASE "}", "--set max_dt=1e-46", {"bad.json: max_dt: 1e-46 is too close to 0", "(from --set)"}},
    {"{" BASE "}", "--set pressure.tolerance=1e-46", {"bad.json: pressure.tolerance: 1e-46 is too close to 0"}},
    {"{" BASE ", 'splats': [{'position': [0.5, 1e-40]}]}", "", {"bad.json: splats[0].position[1]: 1e-40 is too close to 0"}},
    /* pictures and sheets larger than the renderer makes: refused at load, not after the first frame */
    {"{'grid': [512, 3], 'render': {'scale': 64}}", "", {"bad.json: render.scale", "32768 x 192 picture", "at most 16384"}},
    {"{'grid': [3, 100000]}", "--set render.width=16384", {"bad.json: render.width", "at most 16384", "(from --set)"}},
    {"{" BASE ", 'output': {'sprite_sheet': {'columns': 64, 'rows': 64, 'frame_width': 4096, 'frame_height': 4096}}}", "",
     {"bad.json: output.sprite_sheet: 64 columns of 4096 pixels", "262144 pixels wide"}},
    {"{" BASE ", 'output': {'sprite_sheet': {'columns': 2, 'rows': 200}}}", "",
     {"bad.json: output.sprite_sheet: 200 rows of 128 pixels", "frame_height, not set"}},
    {"{" BASE ", 'render': {'slice': {'axis': 'z'}}}", "", {"bad.json: render.slice: a 2D scene is drawn whole"}},
    /* the video writer's time to finish (eddy_video_def.finish_seconds) */
    {"{" BASE ", 'output': {'video_finish_seconds': -1}}", "",
     {"bad.json: output.video_finish_seconds: expected a number >= 0 s, got -1\n"}},
    {"{" BASE ", 'output': {'video_finish_seconds': 1e999}}", "",
     {"bad.json: output.video_finish_seconds: expected a number >= 0 s, got inf\n"}},
    {"{" BASE ", 'output': {'video_finish_seconds': 'soon'}}", "",
     {"bad.json: output.video_finish_seconds: expected a number >= 0 s, got string \"soon\"\n"}},
    {"{" BASE "}", "--set output.video_finish_seconds=-2",
     {"bad.json: output.video_finish_seconds: expected a number >= 0 s, got -2 (from --set)\n"}},
    {"{" BASE ", 'output': {'video_finish_seconds': 1e-46}}", "", {"bad.json: output.video_finish_seconds: 1e-46 is too close to 0"}},
    /* files */
    {"{" BASE ", 'initial': {'dye': 'nowhere.npy'}}", "", {"bad.json: initial.dye: file", "nowhere.npy\" cannot be read"}},
    {"{" BASE ", 'initial': {'u': 'field.txt'}}", "", {"bad.json: initial.u: expected a .npy file name"}},
    {"{'dim': 3, 'grid': [8, 8, 8], 'initial': {'dye': 'dye.png'}}", "", {"bad.json: initial.dye: dye from a PNG picture needs a 2D scene"}},
    {"{" BASE ", 'initial': {'flow': 'taylor_green', 'u': 'u16.npy'}}", "", {"bad.json: initial.flow", "sets the velocity"}},
    {"{" BASE ", 'initial': {'u': 'u16.npy'}}", "", {"bad.json: initial.u", "has shape (16, 16)", "needs (16, 17)"}},
    /* surfaces */
    {"{" BASE ", 'surface': {'level': 'high'}}", "", {"bad.json: surface.level: expected a finite number", "got string \"high\""}},
    {"{" BASE ", 'surface': {'format': 'stl'}}", "", {"bad.json: surface.format: expected one of \"ply\", \"obj\""}},
    {"{" BASE ", 'surface': {'format': 'obj'}}", "", {"bad.json: surface.format: 2D surfaces are written as SVG"}},
    {"{" BASE ", 'surface': 'yes'}", "", {"bad.json: surface: expected true, false or an object"}},
    {"{" BASE ", 'surface': {'band': -1}}", "", {"bad.json: surface.band: expected a number >= 0 m"}},
    {"{" BASE ", 'dye_scale': [1, 2]}", "--surface", {"bad.json: surface: needs square dye cells", "[1, 2]"}},
    {"{'grid': [8, 8, 8], 'render': {'view': 'liquid'}}", "", {"bad.json: render.view: \"liquid\" is a 2D view"}},
    {"{" BASE ", 'render': {'view': 'liquid'}, 'surface': {'field': 'temperature'}}", "",
     {"bad.json: surface.field: the liquid view", "got \"temperature\""}},
    /* wind scenes */
    {"{'wind': {" PLAYER "}, 'grid': [16, 16]}", "", {"bad.json: grid: not used by a wind scene"}},
    {"{'wind': {}}", "", {"bad.json: wind.player: missing"}},
    {"{'wind': {'player': {'path': {'type': 'circle', 'center': [0, 1, 0], 'radius': 5}, 'radius': -1}}}", "",
     {"bad.json: wind.player.radius: expected a number in (0, 1000] m", "got -1"}},
    {"{'wind': {'player': {'path': {'type': 'circle', 'center': [0, 1], 'radius': 5}}}}", "",
     {"bad.json: wind.player.path.center: expected an array of 3 numbers"}},
    {"{'wind': {" PLAYER ", 'particles': {'count': 0}}}", "", {"bad.json: wind.particles.count: expected a whole number", "got 0"}},
    {"{'wind': {" PLAYER ", 'grid': [32, 2, 32]}}", "", {"bad.json: wind.grid[1]: expected a whole number in [3, 1024]"}},
    {"{'wind': {" PLAYER ", 'particles': {'region_min': [0, 0, 0], 'region_max': [1, 0, 1]}}}", "",
     {"bad.json: wind.particles.region_max[1]: 0 m: must be above region_min[1]"}},
    {"{'wind': {" PLAYER ", 'noise': {'amplitude': 1, 'scale': 0.5}}}", "", {"bad.json: wind.noise.scale: 0.5 m: expected at least the cell size"}},
    {"{'wind': {" PLAYER "}, 'render': {'view': 'dye'}}", "", {"bad.json: render.view: unknown key", "arrows"}},
    {"{'wind': {" PLAYER "}, 'render': {'arrows': {'spacing': 0.1}}}", "", {"bad.json: render.arrows.spacing", "at most 4096"}},
    {"{'wind': {" PLAYER "}, 'output': {'fps': 0.5}}", "", {"bad.json: output.fps: 0.5", "expected fps >= 1"}},
    {"{'wind': {" PLAYER "}, 'output': {'checkpoint': 5}}", "", {"bad.json: output.checkpoint: a wind scene cannot be checkpointed"}},
    {"{'wind': {" PLAYER "}}", "--surface", {"bad.json: surface: not used by a wind scene"}},
    {"{'wind': {" PLAYER "}}", "--checkpoint 1", {"--checkpoint: a wind scene (bad.json) cannot be checkpointed"}},
    {"{'wind': {" PLAYER "}}", "--fps 0.5", {"--fps 0.5: a wind scene", "expected fps >= 1"}},
    /* --set */
    {"{" BASE "}", "--set viscosity=thick", {"bad.json: viscosity: expected a number", "(from --set)"}},
    {"{" BASE "}", "--set viscosity", {"--set viscosity: expected key.path=value"}},
    {"{" BASE "}", "--set obstacles[2].radius=0.1", {"--set obstacles[2].radius=0.1: the scene has no element obstacles[2]"}},
    {"{" BASE "}", "--set render.viw=speed", {"bad.json: render.viw: unknown key", "(from --set)"}},
    {"{'dim': 2, 'grid': [16, 16]}", "--set grid=[16,16,16]", {"bad.json: grid: expected 2 cell counts for dim 2", "(from --set)"}},
    /* usage */
    {NULL, "run nowhere.json", {"nowhere.json: cannot open the scene file"}},
    {NULL, "run --scene nowhere", {"nowhere: no such built-in scene", "karman"}},
    {NULL, "run --frames -3", {"--frames -3: expected a whole number"}},
    {NULL, "run --colour", {"unknown option --colour"}},
    {NULL, "launch", {"unknown command \"launch\""}},
    {NULL, "resume", {"resume needs a checkpoint file"}},
    {NULL, "resume nowhere.eddy", {"nowhere.eddy: cannot open"}},
    {NULL, "resume bad.npy", {"not an eddy checkpoint"}},
    {NULL, "run a.json b.json", {"one too many"}},
    {NULL, "resume x.eddy --surface", {"resume: --surface cannot change a run"}},
    {NULL, "resume x.eddy --force", {"resume: --force only lets --stats FILE overwrite"}},
    /* the stats file is checked before the output folder is made: a usage error leaves no folder behind */
    {"{" BASE "}", "--stats /nonexistent/dir/s.jsonl", {"--stats /nonexistent/dir/s.jsonl: cannot open for writing: No such file"}},
    {"{" BASE "}", "--stats .", {"--stats .: is a folder"}},
    /* a name with a '/' or ending in .json is a file, not a built-in scene */
    {NULL, "run --scene ./nosuch.json", {"./nosuch.json: cannot open the scene file: No such file or directory"}},
    {NULL, "run --scene bad.npy.json", {"bad.npy.json: cannot open the scene file"}},
    {NULL, "run .", {".: is a directory, not a scene file"}},
    {NULL, "resume .", {".: is a directory, not a checkpoint file"}},
    {NULL, "run --scene default --scene smoke", {"--scene given twice"}},
    {NULL, "run --out a --frames 1 --out b", {"--out given twice"}},
    {NULL, "run --stats a.jsonl --stats b.jsonl", {"--stats given twice"}},
    /* serve takes one port: more is refused before anything is served */
    {NULL, "serve 18081 extra", {"serve takes one port number; extra is one too many"}},
    {NULL, "serve 18082 --bogus", {"--bogus is one too many"}},
    {NULL, "serve --bogus", {"serve: unknown option --bogus"}},
    {NULL, "serve ''", {"port '': expected a number 0..65535"}}, /* an empty port was taken as port 0 */
};

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    /* helper files: a 16 x 16 array (wrong shape for u), a picture, a file that is not a checkpoint */
    float zeros[16 * 16] = {0};
    size_t shape[2] = {16, 16};
    char path[4200], msg[256];
    snprintf(path, sizeof path, "%s/u16.npy", dir);
    CHECK(eddy_npy_write(path, zeros, 2, shape, msg, sizeof msg) == EDDY_OK, "npy: %s", msg);
    snprintf(path, sizeof path, "%s/bad.npy", dir);
    CHECK(eddy_npy_write(path, zeros, 2, shape, msg, sizeof msg) == EDDY_OK, "npy: %s", msg);
    eddy_image img = {0};
    CHECK(eddy_image_init(&img, 4, 4, msg, sizeof msg) == EDDY_OK, "image: %s", msg);
    snprintf(path, sizeof path, "%s/dye.png", dir);
    CHECK(eddy_png_write(path, &img, 1, msg, sizeof msg) == EDDY_OK, "png: %s", msg);
    eddy_image_free(&img);

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const error_case *c = &cases[i];
        char args[2048];
        if (c->scene) {
            char text[2048];
            snprintf(text, sizeof text, "%s", c->scene);
            for (char *p = text; *p; p++)
                if (*p == '\'') *p = '"';
            CHECK(cli_write(dir, "bad.json", text), "cannot write the scene");
            snprintf(args, sizeof args, "run bad.json --frames 1 --no-video --quiet --out o %s", c->args);
        } else {
            snprintf(args, sizeof args, "%s", c->args);
        }
        int rc = cli_run_limited(dir, 60, args);
        CHECK(rc == 2, "case %zu (%s): exit %d, expected 2; output:\n%s", i, c->scene ? c->scene : c->args, rc, cli_output);
        for (int k = 0; k < 3 && c->expect[k]; k++)
            CHECK(strstr(cli_output, c->expect[k]) != NULL, "case %zu (%s): message lacks \"%s\":\n%s", i,
                  c->scene ? c->scene : c->args, c->expect[k], cli_output);
        /* a scene or usage error is found before anything is written, the output folder included */
        CHECK(!cli_exists(dir, "o"), "case %zu (%s) left the output folder behind", i, c->scene ? c->scene : c->args);
        char rm[4200];
        snprintf(rm, sizeof rm, "rm -rf '%s/o'", dir);
        if (system(rm) != 0) fprintf(stderr, "could not remove %s/o\n", dir);
    }
    /* the picture-size refusal says its key once (it read "render.width: render.width = 1000 with ..."), whole */
    static const struct {
        const char *scene, *args, *message;
    } exact[] = {
        {"{\"grid\": [4, 100], \"render\": {\"width\": 1000}}", "",
         "eddy: bad.json: render.width = 1000 with the box's aspect 0.04 (1 x 25 m) makes a 1000 x 25000 picture: "
         "expected at most 16384 pixels per side\n"},
        {"{\"grid\": [100, 4]}", "--set render.height=16384",
         "eddy: bad.json: render.height = 16384 with the box's aspect 25 (1 x 0.04 m) makes a 409600 x 16384 picture: "
         "expected at most 16384 pixels per side (from --set)\n"},
        {"{\"grid\": [3, 100000]}", "",
         "eddy: bad.json: grid: one pixel per cell of the 3 x 100000 cells on the picture's axes makes a 3 x 100000 "
         "picture: expected at most 16384 pixels per side; set render.width or render.height\n"},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        char args[512];
        CHECK(cli_write(dir, "bad.json", exact[i].scene), "cannot write the scene");
        snprintf(args, sizeof args, "run bad.json --frames 1 --no-video --quiet --out o %s", exact[i].args);
        int rc = cli_run_limited(dir, 60, args);
        CHECK(rc == 2 && strcmp(cli_output, exact[i].message) == 0, "picture size %zu: exit %d, message\n%s\nexpected\n%s",
              i, rc, cli_output, exact[i].message);
    }
    /* a scene file with a NUL byte: cJSON would read only the text before it */
    snprintf(path, sizeof path, "%s/nul.json", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite("{\"grid\": [16, 16]}\0{}", 1, 21, f) == 21 && fclose(f) == 0, "cannot write nul.json");
    int rc = cli_run_limited(dir, 60, "run nul.json --frames 1 --no-video --quiet --out o");
    CHECK(rc == 2 && strstr(cli_output, "nul.json: NUL byte at offset 18"), "a scene with a NUL byte: exit %d:\n%s", rc, cli_output);
    CHECK(!cli_exists(dir, "o"), "a scene with a NUL byte left the output folder behind");
    /* an --out longer than a path can be: refused before a folder is made (it was cut short and 2048 folders made) */
    {
        static char args[12000];
        int used = snprintf(args, sizeof args, "run --frames 1 --no-video --quiet --out ");
        for (int k = 0; k < 2100; k++) used += snprintf(args + used, sizeof args - (size_t)used, "a/");
        rc = cli_run_limited(dir, 60, args);
        CHECK(rc == 2 && strstr(cli_output, "path too long"), "a too long --out: exit %d:\n%.300s", rc, cli_output);
        CHECK(!cli_exists(dir, "a"), "a too long --out created folders");
    }
    /* the renderer library itself refuses a step that would never end the march, and keeps taking valid ones */
    eddy_volume_def vd = eddy_volume_def_default();
    vd.step = 1e-30f;
    CHECK(eddy_volume_def_validate(&vd, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "volume.step"),
          "the library takes volume.step 1e-30: %s", msg);
    vd.step = 0.009f;
    CHECK(eddy_volume_def_validate(&vd, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT, "the library takes volume.step 0.009");
    vd.step = 0.01f;
    CHECK(eddy_volume_def_validate(&vd, msg, sizeof msg) == EDDY_OK, "the library refuses volume.step 0.01: %s", msg);
    vd.step = 4.0f;
    CHECK(eddy_volume_def_validate(&vd, msg, sizeof msg) == EDDY_OK, "the library refuses volume.step 4: %s", msg);
    cli_cleanup(dir);
    return check_finish("cli_errors");
}
