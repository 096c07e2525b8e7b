/* eddy: the command. `eddy run` runs the built-in vortex street; see `eddy --help` and docs/cli.md.
 * Exit codes: 0 success, 1 simulation error (frames written so far stay valid), 2 usage or scene error. */
#include "launcher.h" /* apps/viewer: eddy view, eddy serve */
#include "run.h"

#include "eddy/io.h"
#include "eddy/render.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const usage_text =
    "eddy " EDDY_VERSION_STRING " - fluid simulation (stable fluids on a staggered MAC grid, 2D and 3D)\n"
    "\n"
    "usage:\n"
    "  eddy run [SCENE.json] [options]    run a scene file, or the built-in vortex street when none is given\n"
    "  eddy run --scene NAME [options]    run a built-in scene (see `eddy scenes`)\n"
    "  eddy resume CHECKPOINT [options]   continue a run from a checkpoint written with --checkpoint\n"
    "  eddy view [SCENE] [options]        open a window; the mouse stirs the fluid (docs/viewer.md)\n"
    "  eddy serve [PORT]                  serve the WebAssembly page on localhost (default port 8080)\n"
    "  eddy scenes                        list the built-in scenes\n"
    "  eddy info                          version, threads, backends and outputs compiled in\n"
    "  eddy --help, eddy run --help       this text; the options of `eddy run`\n"
    "  eddy --version\n"
    "\n"
    "Frames (PNG) and a video (MP4, through ffmpeg) go to out/, or out-1, out-2, ... when out/ exists.\n"
    "`eddy run --scene wind` runs the game wind field: a player walking through particles.\n"
    "Scenes are JSON files: every key is described in docs/scenes.md.\n"
    "Exit codes: 0 success, 1 simulation error, 2 usage or scene error.\n";

static const char *const run_help_text =
    "usage: eddy run [SCENE.json | --scene NAME] [options]\n"
    "\n"
    "Runs a scene and writes frame_NNNNN.png pictures and a video into the output folder.\n"
    "Without a scene, runs the built-in default: a vortex street in a 16:9 box.\n"
    "\n"
    "options:\n"
    "  --scene NAME          a built-in scene (`eddy scenes` lists them)\n"
    "  --frames N            number of frames to write (default: the scene's duration x fps)\n"
    "  --fps F               frames per second of simulated time (default: the scene's output.fps, 30)\n"
    "  --out DIR             output folder (default: the scene's output.dir, \"out\"); when it exists, DIR-1,\n"
    "                        DIR-2, ... is used instead\n"
    "  --force               write into the output folder even if it exists: the files an earlier run wrote there\n"
    "                        (frames, video, sheet, dumps, checkpoints, volumes, surfaces) are removed first;\n"
    "                        also lets --stats overwrite an existing file\n"
    "  --threads N           OpenMP threads (default: all cores); results do not depend on it\n"
    "  --backend cpu|cuda    where the simulation runs (default: the scene's \"backend\", cpu); cuda needs a build\n"
    "                        configured with -DEDDY_CUDA=ON and an NVIDIA GPU\n"
    "  --quiet               print errors only\n"
    "  --set KEY.PATH=VALUE  override a scene value; VALUE is JSON (text that is not JSON is a string);\n"
    "                        repeatable: --set viscosity=0.01 --set grid=[128,128] --set obstacles[0].radius=0.1\n"
    "  --stats FILE.jsonl    one JSON object per step: step, t, dt, max_div, rms_div, kinetic_energy, dye_total,\n"
    "                        max_speed, cfl, pressure_iterations, pressure_residual, step_ms, stage_ms, probes\n"
    "  --dump N              write the fields as NumPy .npy files every N frames (DIR/dump_NNNNN/: u, v, w,\n"
    "                        pressure, dye, temperature, and sdf with --surface; layout in docs/cli.md)\n"
    "  --surface             surfaces of the dye (the scene's \"surface\" settings, or total dye at level 0.5):\n"
    "                        the signed distance as sdf.npy in the dumps, and every frame the surface as\n"
    "                        DIR/surface_NNNNN.svg (2D polylines) or .ply (3D triangles; .obj with surface.format)\n"
    "  --checkpoint N        write DIR/checkpoint_NNNNN.eddy every N frames (`eddy resume` continues from it)\n"
    "  --stop-at K           stop after frame K, writing a checkpoint to resume from later\n"
    "  --no-video            PNG frames only\n"
    "  -h, --help            this text\n"
    "\n"
    "`eddy resume CHECKPOINT` takes --quiet, --stats FILE (a new stats file, --force to overwrite one that exists;\n"
    "by default the run's own stats file is continued) and --stop-at K. It writes into the run's folder and ends\n"
    "with the same bytes as a run that never stopped.\n"
    "\n"
    "Exit codes: 0 success; 1 simulation error (the message names the stage and step; frames written so far\n"
    "stay valid); 2 usage or scene error (the message names the file, the key and what was expected).\n";

static int usage_error(const char *fmt, const char *a) {
    fprintf(stderr, "eddy: ");
    fprintf(stderr, fmt, a);
    fprintf(stderr, "\n(see `eddy --help` or `eddy run --help`)\n");
    return EXIT_USAGE;
}

static bool parse_int(const char *s, int lo, int hi, int *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return false;
    *out = (int)v;
    return true;
}

static bool parse_double(const char *s, double lo, double hi, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) return false;
    *out = v;
    return true;
}

/* Option value: "--name=value" or "--name value". Returns NULL (and sets *missing) when absent. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *matched, bool *missing) {
    size_t n = strlen(name);
    const char *a = argv[*i];
    *matched = false;
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') {
        *matched = true;
        return a + n + 1;
    }
    if (a[n] != '\0') return NULL;
    *matched = true;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    (*i)++;
    return argv[*i];
}

static int parse_run_args(int argc, char **argv, bool resume, run_options *o) {
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        bool m = false, missing = false;
        const char *v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(run_help_text, stdout);
            return -1;
        }
        if (!strcmp(a, "--force")) { o->force = true; continue; }
        if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) { o->quiet = true; continue; }
        if (!strcmp(a, "--no-video")) { o->no_video = true; continue; }
        if (!strcmp(a, "--surface")) { o->surface = true; continue; }
#define OPTION(name)                                                        \
    v = option_value(argc, argv, &i, name, &m, &missing);                   \
    if (missing) return usage_error("%s needs a value", name);              \
    if (m)
        OPTION("--scene") {
            if (o->preset) return usage_error("%s given twice: give it once", "--scene");
            o->preset = v;
            continue;
        }
        OPTION("--frames") {
            if (o->frames >= 0) return usage_error("%s given twice: give it once", "--frames");
            if (!parse_int(v, 1, 10000000, &o->frames)) return usage_error("--frames %s: expected a whole number from 1 to 10000000", v);
            continue;
        }
        OPTION("--fps") {
            if (o->fps > 0) return usage_error("%s given twice: give it once", "--fps");
            if (!parse_double(v, 1e-6, 1000, &o->fps) || !(o->fps > 0)) return usage_error("--fps %s: expected a number in (0, 1000]", v);
            continue;
        }
        OPTION("--out") {
            if (o->out_dir) return usage_error("%s given twice: give it once", "--out");
            if (!*v) return usage_error("--out%s: expected a folder name", "");
            /* room for DIR-N and the longest name written inside (the video: up to 200 characters of the scene's name) */
            if (strlen(v) > RUN_OUT_DIR_MAX)
                return usage_error("--out %.60s...: path too long (at most " RUN_OUT_DIR_MAX_TEXT " bytes)", v);
            o->out_dir = v;
            continue;
        }
        OPTION("--threads") {
            if (o->threads >= 0) return usage_error("%s given twice: give it once", "--threads");
            if (!parse_int(v, 0, 1024, &o->threads)) return usage_error("--threads %s: expected a whole number from 0 (all cores) to 1024", v);
            continue;
        }
        OPTION("--backend") {
            if (o->backend_set[0]) return usage_error("%s given twice: give it once", "--backend");
            if (strcmp(v, "cpu") != 0 && strcmp(v, "cuda") != 0) return usage_error("--backend %s: expected cpu or cuda", v);
            if (o->set_count == RUN_MAX_SETS) return usage_error("--backend %s: too many --set options", v);
            snprintf(o->backend_set, sizeof o->backend_set, "backend=\"%s\"", v);
            o->sets[o->set_count++] = o->backend_set;
            continue;
        }
        OPTION("--set") {
            if (o->set_count == RUN_MAX_SETS) return usage_error("--set %s: too many --set options", v);
            o->sets[o->set_count++] = v;
            continue;
        }
        OPTION("--stats") {
            if (o->stats_path) return usage_error("%s given twice: give it once", "--stats");
            if (!*v) return usage_error("--stats%s: expected a file name", "");
            if (strlen(v) >= RUN_PATH_MAX) return usage_error("--stats %.60s...: path too long (at most 4095 bytes)", v);
            o->stats_path = v;
            continue;
        }
        OPTION("--dump") {
            if (o->dump >= 0) return usage_error("%s given twice: give it once", "--dump");
            if (!parse_int(v, 0, 1000000, &o->dump)) return usage_error("--dump %s: expected a whole number of frames (0 = never)", v);
            continue;
        }
        OPTION("--checkpoint") {
            if (o->checkpoint >= 0) return usage_error("%s given twice: give it once", "--checkpoint");
            if (!parse_int(v, 0, 1000000, &o->checkpoint)) return usage_error("--checkpoint %s: expected a whole number of frames (0 = never)", v);
            continue;
        }
        OPTION("--stop-at") {
            if (o->stop_at > 0) return usage_error("%s given twice: give it once", "--stop-at");
            if (!parse_int(v, 1, 10000000, &o->stop_at)) return usage_error("--stop-at %s: expected a frame number >= 1", v);
            continue;
        }
#undef OPTION
        if (a[0] == '-' && a[1] != '\0') return usage_error("unknown option %s", a);
        if (resume) {
            if (o->resume) return usage_error("resume takes one checkpoint file; %s is one too many", a);
            o->resume = a;
        } else {
            if (o->scene_file) return usage_error("run takes one scene file; %s is one too many", a);
            o->scene_file = a;
        }
    }
    if (resume) {
        if (!o->resume) return usage_error("resume needs a checkpoint file: eddy resume OUT/checkpoint_NNNNN.eddy%s", "");
        const char *not_here = o->preset ? "--scene" : o->set_count ? "--set" : o->frames >= 0 ? "--frames" : o->fps > 0 ? "--fps"
                             : o->out_dir ? "--out" : o->dump >= 0 ? "--dump" : o->checkpoint >= 0 ? "--checkpoint"
                             : o->no_video ? "--no-video" : o->threads >= 0 ? "--threads"
                             : o->surface ? "--surface" : NULL;
        if (o->force && !o->stats_path)
            return usage_error("resume: %s only lets --stats FILE overwrite an existing file (the run's folder is continued, "
                               "not replaced)", "--force");
        if (not_here)
            return usage_error("resume: %s cannot change a run that is continued (the checkpoint holds the scene and its settings)", not_here);
    } else if (o->scene_file && o->preset) {
        return usage_error("give a scene file or --scene NAME, not both (%s)", o->scene_file);
    }
    return 0;
}

static int cmd_scenes(void) {
    char desc[512];
    int width = 0;
    for (int i = 0; i < scene_preset_count(); i++) {
        int n = (int)strlen(scene_preset_name(i));
        if (n > width) width = n;
    }
    for (int i = 0; i < scene_preset_count(); i++)
        printf("%-*s  %s\n", width, scene_preset_name(i), scene_preset_description(i, desc, sizeof desc));
    return EXIT_OK;
}

static int cmd_info(void) {
    printf("eddy %s\n", EDDY_VERSION_STRING);
    printf("threads:   %d (OpenMP; --threads N or OMP_NUM_THREADS to change)\n", omp_get_max_threads());
    char cuda_msg[256], cpu_msg[256];
    eddy_backend_available(EDDY_BACKEND_CPU, cpu_msg, sizeof cpu_msg);
    if (eddy_backend_available(EDDY_BACKEND_CUDA, cuda_msg, sizeof cuda_msg))
        printf("backends:  cpu (%s), cuda (%s)\n", cpu_msg, cuda_msg);
    else
        printf("backends:  cpu (%s); cuda: %s\n", cpu_msg, cuda_msg);
    printf("solvers:   pressure mgpcg (default), jacobi, rbgs; advection maccormack (default), semi_lagrangian, bfecc\n");
    printf("outputs:   png (libpng), npy, sprite sheets, checkpoints");
    printf(", vdb (OpenVDB): %s", eddy_vdb_available() ? "yes" : "no (built without OpenVDB)");
    printf("\nvideo:     %s\n", eddy_ffmpeg_available(NULL) ? "mp4, gif (ffmpeg found)"
                                                            : "none: ffmpeg not found (sudo apt-get install ffmpeg)");
    printf("scenes:    cJSON %s; %d built in (`eddy scenes`)\n", cJSON_Version(), scene_preset_count());
    return EXIT_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fputs(usage_text, stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2 && (!strcmp(argv[2], "run") || !strcmp(argv[2], "resume"))) fputs(run_help_text, stdout);
        else fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("eddy %s\n", EDDY_VERSION_STRING);
        return EXIT_OK;
    }
    if (!strcmp(cmd, "scenes") || !strcmp(cmd, "info")) {
        if (argc > 2) {
            if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
                fputs(usage_text, stdout);
                return EXIT_OK;
            }
            return usage_error("%s takes no arguments", cmd);
        }
        return !strcmp(cmd, "scenes") ? cmd_scenes() : cmd_info();
    }
    if (!strcmp(cmd, "run") || !strcmp(cmd, "resume")) {
        bool resume = !strcmp(cmd, "resume");
        run_options o;
        run_options_init(&o);
        int rc = parse_run_args(argc, argv, resume, &o);
        if (rc < 0) return EXIT_OK; /* --help */
        if (rc > 0) return rc;
        return resume ? resume_command(&o) : run_command(&o);
    }
    if (!strcmp(cmd, "view")) return eddy_view_main(argv[0], argc - 2, argv + 2);
    if (!strcmp(cmd, "serve")) {
        /* eddy serve [PORT]: anything more is a mistake to point out, not to ignore while the server starts */
        if (argc > 3) return usage_error("serve takes one port number; %s is one too many", argv[3]);
        if (argc == 3 && argv[2][0] == '-') {
            if (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h")) {
                fputs(usage_text, stdout);
                return EXIT_OK;
            }
            return usage_error("serve: unknown option %s (usage: eddy serve [PORT])", argv[2]);
        }
        return eddy_serve_main(argv[0], argc - 2, argv + 2);
    }
    return usage_error("unknown command \"%s\": expected run, resume, view, serve, scenes or info", cmd);
}
