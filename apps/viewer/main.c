/* eddy-view: the SDL2 shell of the viewer. It opens the window, turns SDL input (or a replay file) into viewer
 * events, shows the viewer's framebuffer through a streaming texture, and saves screenshots read back from the
 * window. `eddy view ...` runs this program. Usage: eddy-view --help; docs/viewer.md. */
#include "bench.h"
#include "output_file.h"
#include "replay.h"
#include "sdl_input.h"
#include "stir.h"
#include "viewer.h"

#include "eddy/render.h"

#include <SDL.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *usage =
    "usage: eddy-view [SCENE] [options]\n"
    "  SCENE                  a scene file or preset name (a preset of eddy scenes, or 'empty': a still box; default: default)\n"
    "  --window WxH           window size in pixels (default 960x540)\n"
    "  --grid NXxNY           override the 2D grid of the scene\n"
    "  --full                 the scene's own grid and solver settings (no real-time profile)\n"
    "  --set KEY=VALUE        override a scene value, as eddy run --set (repeatable)\n"
    "  --threads N            OpenMP threads for the step and for drawing, each (default: half the cores less one)\n"
    "  --fixed-dt S           advance S seconds per frame (default: wall clock; 1/60 with --replay/--screenshot-at)\n"
    "  --view NAME            dye, speed, vorticity or pressure at start\n"
    "  --no-post              start with post-processing (shading, bloom) off\n"
    "  --vorticity E          vorticity confinement at start (default: the scene's)\n"
    "  --hover                splat when the pointer moves, without a click\n"
    "  --color #RRGGBB        one dye colour for every stroke\n"
    "  --palette #RGB,#RGB..  stroke colours in turn (default: a random bright hue per stroke)\n"
    "  --radius F             splat radius as a fraction of the box height (default 0.04)\n"
    "  --transparent          dye as coverage over the background (else dye is added to it)\n"
    "  --background #RRGGBB   background colour (default black)\n"
    "  --background-image F   a PNG behind the dye (implies --transparent)\n"
    "  --seed N               stroke colours (default 1)\n"
    "  --replay FILE          feed recorded input events (docs/viewer.md); runs with a fixed 1/60 s step\n"
    "  --record FILE          write the input events of this session in the replay format (a new file)\n"
    "  --screenshot-at T FILE save the window as a PNG (a new file) when the viewer clock reaches T seconds, then exit\n"
    "  --force                let --screenshot-at and --record overwrite a file that exists\n"
    "  --bench N              N frames with a scripted drag, post-processing on then off; print frame times, exit\n"
    "  --no-status            hide the status line\n"
    "  --no-overlap           2D: step, then draw, on one thread (default: the step runs beside the drawing)\n"
    "keys: space pause, R reset, P post-processing, V view, +/- vorticity (0 to " VIEWER_VORTICITY_MAX_TEXT "), S screenshot, H help, Esc quit\n";

#define SHELL_MAX_SETS 64

typedef struct shell_args {
    viewer_options opt;
    const char *sets[SHELL_MAX_SETS];
    const char *replay_path, *record_path, *screenshot_path;
    double screenshot_at;
    int bench_frames;
    int force;      /* --force: --screenshot-at and --record may replace a file that exists */
} shell_args;

/* The viewer's limits on option values: a window the framebuffer can cover (below 16 pixels the framebuffer and the
 * window would differ), the renderer's largest picture; a frame step short enough that a replay or screenshot time is
 * reached in a sensible number of frames and long enough not to make one frame's step take minutes. */
#define SHELL_WINDOW_MIN 16
#define SHELL_WINDOW_MAX 16384
#define SHELL_GRID_MIN 3
#define SHELL_GRID_MAX 1048576
#define SHELL_FIXED_DT_MIN 1e-4
#define SHELL_FIXED_DT_MAX 1.0
#define SHELL_BENCH_MAX 100000

static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("eddy-view: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n(see eddy-view --help)\n", stderr);
    va_end(ap);
    return 2;
}

/* A whole number in [lo, hi], all of `s`. */
static int parse_long(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* A number in [lo, hi], all of `s` (NaN and infinities are not in any range). */
static int parse_double(const char *s, double lo, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

/* "AxB", each a whole number in [lo, hi]. */
static int parse_pair(const char *s, int lo, int hi, int out[2]) {
    const char *x = strchr(s, 'x');
    char first[32];
    long a, b;
    if (!x || (size_t)(x - s) >= sizeof first) return -1;
    memcpy(first, s, (size_t)(x - s));
    first[x - s] = '\0';
    if (parse_long(first, lo, hi, &a) || parse_long(x + 1, lo, hi, &b)) return -1;
    out[0] = (int)a;
    out[1] = (int)b;
    return 0;
}

/* options that take one value: each may be given once */
enum {
    GIVEN_WINDOW = 1 << 0, GIVEN_GRID = 1 << 1, GIVEN_THREADS = 1 << 2, GIVEN_FIXED_DT = 1 << 3, GIVEN_VIEW = 1 << 4,
    GIVEN_VORTICITY = 1 << 5, GIVEN_COLORS = 1 << 6, GIVEN_RADIUS = 1 << 7, GIVEN_BACKGROUND = 1 << 8,
    GIVEN_BACKGROUND_IMAGE = 1 << 9, GIVEN_SEED = 1 << 10, GIVEN_REPLAY = 1 << 11, GIVEN_RECORD = 1 << 12,
    GIVEN_SCREENSHOT = 1 << 13, GIVEN_BENCH = 1 << 14,
};

/* Whether argv[*i] is the option `name`, which takes one value: 1 with the value in *val (*i moved onto it), 0 when it
 * is another argument, -1 (said on stderr) when the value is missing or the option was given before (`flag` in
 * *given; 0 for an option that may be repeated). */
static int value_option(int argc, char **argv, int *i, const char *name, unsigned flag, unsigned *given, const char **val) {
    if (strcmp(argv[*i], name) != 0) return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "eddy-view: %s needs a value\n%s", name, usage);
        return -1;
    }
    if (*given & flag) {
        if (flag == GIVEN_COLORS) usage_error("%s: the stroke colours were given before (--color and --palette set them): give them once", name);
        else usage_error("%s given twice: give it once", name);
        return -1;
    }
    *given |= flag;
    *val = argv[++*i];
    return 1;
}

static int parse_args(int argc, char **argv, shell_args *a) {
    memset(a, 0, sizeof *a);
    a->opt = viewer_options_default();
    a->screenshot_at = -1;
    unsigned given = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *val = NULL;
        long n;
        double d;
        int m;
#define VALUE_OPTION(name, flag) if ((m = value_option(argc, argv, &i, name, flag, &given, &val)) < 0) return 2; else if (m)
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) { fputs(usage, stdout); return 1; }
        else if (!strcmp(arg, "--full")) a->opt.full_resolution = 1;
        else if (!strcmp(arg, "--no-post")) a->opt.post = 0;
        else if (!strcmp(arg, "--hover")) a->opt.stir.hover = 1;
        else if (!strcmp(arg, "--transparent")) a->opt.transparent = 1;
        else if (!strcmp(arg, "--no-status")) a->opt.show_status = 0;
        else if (!strcmp(arg, "--no-overlap")) a->opt.overlap = 0;
        else if (!strcmp(arg, "--force")) a->force = 1;
        else VALUE_OPTION("--window", GIVEN_WINDOW) {
            if (parse_pair(val, SHELL_WINDOW_MIN, SHELL_WINDOW_MAX, a->opt.window))
                return usage_error("--window %s: expected WIDTHxHEIGHT in pixels, each from %d to %d", val, SHELL_WINDOW_MIN,
                                   SHELL_WINDOW_MAX);
        }
        else VALUE_OPTION("--grid", GIVEN_GRID) {
            if (parse_pair(val, SHELL_GRID_MIN, SHELL_GRID_MAX, a->opt.grid))
                return usage_error("--grid %s: expected NXxNY cells, each from %d to %d", val, SHELL_GRID_MIN, SHELL_GRID_MAX);
        }
        else VALUE_OPTION("--set", 0) {
            if (!strchr(val, '=')) return usage_error("--set %s: expected KEY=VALUE", val);
            if (a->opt.set_count >= SHELL_MAX_SETS) return usage_error("--set %s: more than %d --set options", val, SHELL_MAX_SETS);
            a->sets[a->opt.set_count++] = val;
        }
        else VALUE_OPTION("--threads", GIVEN_THREADS) {
            if (parse_long(val, 0, 1024, &n)) return usage_error("--threads %s: expected a whole number from 0 (the default) to 1024", val);
            a->opt.threads = (int)n;
        }
        else VALUE_OPTION("--fixed-dt", GIVEN_FIXED_DT) {
            if (parse_double(val, SHELL_FIXED_DT_MIN, SHELL_FIXED_DT_MAX, &d))
                return usage_error("--fixed-dt %s: expected seconds per frame from %g to %g", val, SHELL_FIXED_DT_MIN,
                                   SHELL_FIXED_DT_MAX);
            a->opt.fixed_dt = (float)d;
        }
        else VALUE_OPTION("--view", GIVEN_VIEW) {
            /* the views the viewer cycles through; the renderer knows more, which the viewer does not show */
            eddy_view view;
            if (eddy_view_from_name(val, &view) != EDDY_OK ||
                (view != EDDY_VIEW_DYE && view != EDDY_VIEW_SPEED && view != EDDY_VIEW_VORTICITY && view != EDDY_VIEW_PRESSURE))
                return usage_error("--view %s: expected dye, speed, vorticity or pressure", val);
            a->opt.view = view;
        }
        else VALUE_OPTION("--vorticity", GIVEN_VORTICITY) {
            if (parse_double(val, 0, VIEWER_VORTICITY_MAX, &d))
                return usage_error("--vorticity %s: expected a number from 0 to %g", val, (double)VIEWER_VORTICITY_MAX);
            a->opt.vorticity = (float)d;
        }
        else VALUE_OPTION("--color", GIVEN_COLORS) {
            if (stir_parse_palette(val, &a->opt.stir) || a->opt.stir.color_count != 1)
                return usage_error("--color %s: expected one colour #RRGGBB", val);
        }
        else VALUE_OPTION("--palette", GIVEN_COLORS) {
            if (stir_parse_palette(val, &a->opt.stir))
                return usage_error("--palette %s: expected #RRGGBB colours separated by commas, at most %d", val, STIR_MAX_COLORS);
        }
        else VALUE_OPTION("--radius", GIVEN_RADIUS) {
            if (parse_double(val, 0, 1, &d) || !(d > 0 && d < 1))
                return usage_error("--radius %s: expected a fraction of the box height, more than 0 and less than 1", val);
            a->opt.stir.radius = (float)d;
        }
        else VALUE_OPTION("--background", GIVEN_BACKGROUND) {
            if (stir_parse_color(val, a->opt.background)) return usage_error("--background %s: expected a colour #RRGGBB", val);
        }
        else VALUE_OPTION("--background-image", GIVEN_BACKGROUND_IMAGE) {
            if (!*val) return usage_error("--background-image: expected a PNG file name, got an empty one");
            a->opt.background_image = val;
        }
        else VALUE_OPTION("--seed", GIVEN_SEED) {
            if (parse_long(val, 0, 4294967295L, &n)) return usage_error("--seed %s: expected a whole number from 0 to 4294967295", val);
            a->opt.seed = (unsigned)n;
        }
        else VALUE_OPTION("--replay", GIVEN_REPLAY) {
            if (!*val) return usage_error("--replay: expected a replay file name, got an empty one");
            a->replay_path = val;
        }
        else VALUE_OPTION("--record", GIVEN_RECORD) {
            if (!*val) return usage_error("--record: expected a file name, got an empty one");
            a->record_path = val;
        }
        else if (!strcmp(arg, "--screenshot-at")) {
            if (i + 2 >= argc) return usage_error("--screenshot-at needs T and FILE");
            if (given & GIVEN_SCREENSHOT) return usage_error("--screenshot-at given twice: give it once");
            given |= GIVEN_SCREENSHOT;
            /* finite: the viewer clock never reaches an infinite time, and the viewer would run for ever */
            if (parse_double(argv[i + 1], 0, HUGE_VAL, &a->screenshot_at) || !isfinite(a->screenshot_at))
                return usage_error("--screenshot-at %s: expected a time in seconds >= 0", argv[i + 1]);
            if (!argv[i + 2][0]) return usage_error("--screenshot-at %s: expected a PNG file name, got an empty one", argv[i + 1]);
            a->screenshot_path = argv[i + 2];
            i += 2;
        }
        else VALUE_OPTION("--bench", GIVEN_BENCH) {
            if (parse_long(val, 1, SHELL_BENCH_MAX, &n))
                return usage_error("--bench %s: expected a number of frames from 1 to %d", val, SHELL_BENCH_MAX);
            a->bench_frames = (int)n;
        }
        else if (arg[0] == '-' && arg[1]) { fprintf(stderr, "eddy-view: unknown option %s\n%s", arg, usage); return 2; }
        else if (!a->opt.scene) a->opt.scene = arg;
        else return usage_error("more than one scene given (%s, %s)", a->opt.scene, arg);
#undef VALUE_OPTION
    }
    /* the bench drives its own stroke and ends after its runs: a replay or a screenshot would cut it short, and the
     * table would silently not be printed */
    if (a->bench_frames && (a->replay_path || a->screenshot_path))
        return usage_error("--bench runs a scripted drag of its own: it does not combine with %s",
                           a->replay_path ? "--replay" : "--screenshot-at");
    a->opt.sets = a->sets;
    if ((a->replay_path || a->screenshot_path || a->bench_frames) && !(a->opt.fixed_dt > 0)) a->opt.fixed_dt = 1.0f / 60.0f;
    return 0;
}

/* CPU time of this process (all its threads), ms: on a shared machine, with --threads 1, the honest cost of a
 * frame's own work whatever else runs (presenting's share in the X server is not counted). */
static double process_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* The window surface holds 32-bit pixels with bytes B, G, R, (A or unused) on this machine: the viewer can compose
 * in that order and the frame is copied as it is. */
static int window_is_bgra(SDL_Window *win) {
    SDL_Surface *surf = SDL_GetWindowSurface(win);
    if (!surf) return 0;
    Uint32 f = surf->format->format;
    return (f == SDL_PIXELFORMAT_BGRA32 || (f == SDL_PIXELFORMAT_RGB888 && SDL_BYTEORDER == SDL_LIL_ENDIAN));
}

/* Copies the viewer's framebuffer into the window's surface: as it is when the viewer composes in the window's
 * order (window_is_bgra), else converted to its pixel format. */
static int show_frame(SDL_Window *win, const uint8_t *pixels, int w, int h, int bgra) {
    SDL_Surface *surf = SDL_GetWindowSurface(win);
    if (!surf || surf->w != w || surf->h != h) return -1;
    if (SDL_MUSTLOCK(surf) && SDL_LockSurface(surf) != 0) return -1;
    Uint32 from = bgra ? surf->format->format : SDL_PIXELFORMAT_RGBA32; /* the same format: a plain copy */
    int rc = SDL_ConvertPixels(w, h, from, pixels, w * 4, surf->format->format, surf->pixels, surf->pitch);
    if (SDL_MUSTLOCK(surf)) SDL_UnlockSurface(surf);
    return rc;
}

/* Reads the window's surface (what the window shows) back and writes it as a PNG. */
static int save_window(SDL_Window *win, const char *path, char *msg, size_t msg_size) {
    SDL_Surface *surf = SDL_GetWindowSurface(win);
    if (!surf) { snprintf(msg, msg_size, "cannot read the window: %s", SDL_GetError()); return -1; }
    const int w = surf->w, h = surf->h;
    uint8_t *buf = malloc((size_t)w * (size_t)h * 4);
    if (!buf) { snprintf(msg, msg_size, "out of memory"); return -1; }
    int rc = -1;
    if (SDL_MUSTLOCK(surf)) SDL_LockSurface(surf);
    int converted = SDL_ConvertPixels(w, h, surf->format->format, surf->pixels, surf->pitch, SDL_PIXELFORMAT_RGBA32, buf, w * 4);
    if (SDL_MUSTLOCK(surf)) SDL_UnlockSurface(surf);
    if (converted != 0)
        snprintf(msg, msg_size, "cannot read the window: %s", SDL_GetError());
    else
        rc = viewer_save_png(path, buf, w, h, msg, msg_size);
    free(buf);
    return rc;
}

/* Every event the viewer handles comes through here, whatever its source (the window, the replay file, the bench's
 * script): with --record it is written down first, so that replaying the recording hands the viewer the same events
 * in the same frames and runs the session again (a replay recorded only the window's own events: its closing). */
static void deliver(viewer *v, replay_recorder *rec, const viewer_event *ev) {
    replay_recorder_write(rec, ev);
    viewer_handle(v, ev);
}

int main(int argc, char **argv) {
    shell_args args;
    int rc = parse_args(argc, argv, &args);
    if (rc) return rc == 1 ? 0 : rc;

    char msg[1024];
    /* the outputs first: a run is not spent on a file that cannot be saved, nor one that would replace the user's */
    if ((args.screenshot_path && output_file_check("--screenshot-at", args.screenshot_path, args.force, msg, sizeof msg) != 0) ||
        (args.record_path && output_file_check("--record", args.record_path, args.force, msg, sizeof msg) != 0)) {
        fprintf(stderr, "eddy-view: %s\n", msg);
        return 2;
    }
    replay rep = {0};
    if (args.replay_path && replay_load(args.replay_path, &rep, msg, sizeof msg) != 0) {
        fprintf(stderr, "eddy-view: replay: %s\n", msg);
        return 2;
    }
    replay_recorder recorder = {0};
    if (args.record_path && replay_recorder_open(&recorder, args.record_path, msg, sizeof msg) != 0) {
        fprintf(stderr, "eddy-view: --record: %s\n", msg);
        replay_free(&rep);
        return 2;
    }

    viewer *v;
    if (viewer_create(&args.opt, &v, msg, sizeof msg) != 0) {
        fprintf(stderr, "eddy-view: %s\n", msg);
        replay_free(&rep);
        replay_recorder_abort(&recorder);
        return 2;
    }
    int scripted = args.replay_path || args.screenshot_path || args.bench_frames;
    /* the window surface without OpenGL: the pixels are composed on the CPU anyway */
    SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0");
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        fprintf(stderr, "eddy-view: cannot open a window: %s (no display? try xvfb-run)\n", SDL_GetError());
        viewer_destroy(v);
        replay_free(&rep);
        replay_recorder_abort(&recorder);
        return 1;
    }
    int win_w = args.opt.window[0], win_h = args.opt.window[1];
    SDL_Window *win = SDL_CreateWindow("eddy", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, win_w, win_h,
                                       scripted ? 0 : SDL_WINDOW_RESIZABLE);
    /* the picture is composed on the CPU at window size (viewer.c), so it goes straight into the window's surface:
     * one conversion, no texture upload */
    if (!win || !SDL_GetWindowSurface(win)) {
        fprintf(stderr, "eddy-view: cannot create the window: %s\n", SDL_GetError());
        replay_recorder_abort(&recorder); /* nothing was recorded */
        rc = 1;
        goto done;
    }
    /* the framebuffer is at least 16 pixels a side (viewer_resize): a smaller window could not show it */
    SDL_SetWindowMinimumSize(win, SHELL_WINDOW_MIN, SHELL_WINDOW_MIN);
    const int bgra = window_is_bgra(win);
    viewer_set_bgra(v, bgra);

    bench bench_state;
    memset(&bench_state, 0, sizeof bench_state);
    if (args.bench_frames && bench_init(&bench_state, args.bench_frames) != 0) {
        fprintf(stderr, "eddy-view: out of memory\n");
        bench_free(&bench_state);
        replay_recorder_abort(&recorder);
        rc = 1;
        goto done;
    }
    double load_before[3];
    bench_load_average(load_before);
    /* the bench runs with post-processing on (the default look), then off; --no-post: off only */
    int bench_runs = args.opt.post ? 2 : 1, bench_run = 0;
    double bench_row[BENCH_COLUMNS], frame_start_ms = 0, frame_start_cpu = 0;
    Uint64 freq = SDL_GetPerformanceFrequency(), last = SDL_GetPerformanceCounter();
    double fps_ema = 0;
    int frame = 0, mouse_down_buttons = 0;
    double last_frame_clock = 0; /* the viewer clock when the last frame began */
    rc = 0;
    while (!viewer_want_quit(v)) {
        SDL_Event e;
        while (SDL_PollEvent(&e)) {
            viewer_event ev;
            int have = sdl_input_translate(&e, win_w, win_h, (SDL_GetModState() & KMOD_SHIFT) != 0, viewer_clock(v), &ev);
            if (have && (ev.kind == VIEWER_EVENT_DOWN || ev.kind == VIEWER_EVENT_UP))
                mouse_down_buttons += ev.kind == VIEWER_EVENT_DOWN ? 1 : -1;
            if (e.type == SDL_WINDOWEVENT) {
                if (e.window.event == SDL_WINDOWEVENT_LEAVE && mouse_down_buttons <= 0) {
                    ev.kind = VIEWER_EVENT_LEAVE;
                    have = 1;
                } else if (e.window.event == SDL_WINDOWEVENT_SIZE_CHANGED) {
                    win_w = e.window.data1;
                    win_h = e.window.data2;
                    if (!SDL_GetWindowSurface(win) || viewer_resize(v, win_w, win_h) != 0) {
                        fprintf(stderr, "eddy-view: cannot resize: %s\n", viewer_error(v)[0] ? viewer_error(v) : SDL_GetError());
                        rc = 1;
                        goto loop_end;
                    }
                }
            }
            /* during a replay only closing the window counts: the script drives the input */
            if (!have || (scripted && ev.kind != VIEWER_EVENT_QUIT)) continue;
            deliver(v, &recorder, &ev);
        }
        if (args.bench_frames) { /* a scripted stroke: a circle around the box centre, the button held */
            viewer_event ev;
            memset(&ev, 0, sizeof ev);
            double t = viewer_clock(v);
            ev.time = t;
            ev.kind = frame == 0 ? VIEWER_EVENT_DOWN : VIEWER_EVENT_MOVE;
            ev.button = VIEWER_BUTTON_LEFT;
            ev.x = (float)(0.5 + 0.25 * cos(2.0 * t));
            ev.y = (float)(0.5 + 0.25 * sin(2.0 * t));
            deliver(v, &recorder, &ev);
        }
        const viewer_event *rev;
        while ((rev = replay_poll(&rep, viewer_clock(v)))) deliver(v, &recorder, rev);

        Uint64 now = SDL_GetPerformanceCounter();
        double wall_dt = (double)(now - last) / (double)freq;
        last = now;
        if (wall_dt > 0) fps_ema = fps_ema > 0 ? 0.9 * fps_ema + 0.1 / wall_dt : 1.0 / wall_dt;
        viewer_set_fps(v, fps_ema);
        last_frame_clock = viewer_clock(v);
        if (viewer_frame(v, wall_dt) != 0 && scripted) {
            fprintf(stderr, "eddy-view: %s\n", viewer_error(v));
            rc = 1;
            break;
        }
        Uint64 present_start = SDL_GetPerformanceCounter();
        int fw, fh;
        const uint8_t *pixels = viewer_pixels(v, &fw, &fh);
        if (show_frame(win, pixels, fw, fh, bgra) != 0) {
            fprintf(stderr, "eddy-view: cannot draw into the window: %s\n", SDL_GetError());
            rc = 1;
            break;
        }
        const char *shot = viewer_pending_screenshot(v);
        if (shot) {
            int ok = save_window(win, shot, msg, sizeof msg) == 0;
            viewer_screenshot_done(v, ok, ok ? shot : msg);
        }
        if (args.screenshot_path && viewer_clock(v) >= args.screenshot_at - 1e-9) {
            if (save_window(win, args.screenshot_path, msg, sizeof msg) != 0) {
                fprintf(stderr, "eddy-view: screenshot: %s\n", msg);
                rc = 1;
            } else {
                printf("saved %s at t = %.3f s (sim %.3f s)\n", args.screenshot_path, viewer_clock(v), viewer_sim_time(v));
            }
            break;
        }
        SDL_UpdateWindowSurface(win);
        double present_ms = (double)(SDL_GetPerformanceCounter() - present_start) * 1e3 / (double)freq;
        if (!scripted) { /* live: no faster than 60 frames per second (the window surface has no vsync) */
            double spent = (double)(SDL_GetPerformanceCounter() - now) / (double)freq;
            if (spent < 1.0 / 60.0) SDL_Delay((Uint32)((1.0 / 60.0 - spent) * 1000.0));
        }
        frame++;
        if (args.bench_frames) {
            /* a frame runs from one loop's start to the next's: events, stirring, work, present, all of it */
            double t_ms = (double)SDL_GetPerformanceCounter() * 1e3 / (double)freq, cpu = process_cpu_ms();
            if (frame > 1) {
                const viewer_timing *tm = viewer_last_timing(v);
                bench_row[BENCH_FRAME] = t_ms - frame_start_ms;
                bench_row[BENCH_CPU] = cpu - frame_start_cpu;
                for (int k = 0; k < VIEWER_PHASE_COUNT; k++) bench_row[BENCH_PHASE0 + k] = tm->phase_ms[k];
                bench_row[BENCH_PRESENT] = present_ms;
                bench_row[BENCH_OTHER] = bench_row[BENCH_FRAME] - tm->work_ms - present_ms;
                for (int k = 0; k < EDDY_STAGE_COUNT; k++) bench_row[BENCH_STAGE0 + k] = tm->stage_ms[k];
                bench_row[BENCH_SUBSTEPS] = tm->substeps;
                bench_record(&bench_state, bench_row);
            }
            frame_start_ms = t_ms;
            frame_start_cpu = cpu;
            if (bench_run_done(&bench_state)) {
                bench_finish_run(&bench_state, viewer_post(v) ? "on" : "off");
                if (++bench_run >= bench_runs) break;
                /* the next run: post-processing off (it is on: two runs), the scene from its start; as keys, which a
                 * recording keeps */
                viewer_event key;
                memset(&key, 0, sizeof key);
                key.time = viewer_clock(v);
                key.kind = VIEWER_EVENT_KEY;
                key.key = 'p';
                deliver(v, &recorder, &key);
                key.key = 'r';
                deliver(v, &recorder, &key);
                frame = 0;
            }
        }
    }
loop_end:
    if (!viewer_want_quit(v)) {
        /* the session ended without a quit event (the screenshot was taken, the bench finished, a failure): the
         * recording ends with one at the start of the last frame, so that its replay draws the same frames and stops */
        viewer_event quit;
        memset(&quit, 0, sizeof quit);
        quit.time = last_frame_clock;
        quit.kind = VIEWER_EVENT_QUIT;
        replay_recorder_write(&recorder, &quit);
    }
    if (args.bench_frames && bench_state.run_count != bench_runs && rc == 0) {
        /* closed before the runs were done: no table, and no success */
        fprintf(stderr, "eddy-view: --bench: stopped after %d of %d runs, before the table\n", bench_state.run_count, bench_runs);
        rc = 1;
    }
    if (args.bench_frames && bench_state.run_count == bench_runs) {
        char grid[32], dye[32];
        viewer_grid_text(v, grid, sizeof grid);
        viewer_dye_grid_text(v, dye, sizeof dye);
        bench_print(&bench_state, stdout, viewer_scene_label(v), grid, dye, win_w, win_h, viewer_threads(v),
                    SDL_GetCPUCount(), load_before);
    }
    bench_free(&bench_state);
    if (args.screenshot_path && rc == 0 && viewer_clock(v) < args.screenshot_at - 1e-9) {
        fprintf(stderr, "eddy-view: closed at t = %.3f s before the screenshot time %.3f s\n", viewer_clock(v),
                args.screenshot_at);
        rc = 1;
    }
done:
    if (win) SDL_DestroyWindow(win);
    /* No SDL_Quit: it unloads the X11 libraries SDL opened, after which leak checkers cannot name the owners of
     * what those libraries keep for the process's life (tests/viewer/lsan.supp); the process ends here anyway. */
    viewer_destroy(v);
    replay_free(&rep);
    if (args.record_path && replay_recorder_finish(&recorder, msg, sizeof msg) != 0) {
        fprintf(stderr, "eddy-view: --record: %s\n", msg);
        if (rc == 0) rc = 1;
    }
    return rc;
}
