/* The viewer's logic without a window system: it owns the scene, the renderer and the window's pixels, takes
 * input events (viewer_event.h), steps and draws a frame into an RGBA framebuffer. The SDL shell (main.c) shows
 * that framebuffer, feeds events from the keyboard and mouse or from a replay file, and saves screenshots. */
#ifndef VIEWER_H
#define VIEWER_H

#include "stir.h"
#include "viewer_event.h"

#include "eddy/types.h"

#include <stddef.h>
#include <stdint.h>

/** The most vorticity confinement the viewer sets (--vorticity, the + key): a scene's `vorticity` range (0 to 1000,
 *  apps/cli/scene.c), so that a key never takes it where no scene can start. */
#define VIEWER_VORTICITY_MAX 1000.0f
#define VIEWER_VORTICITY_MAX_TEXT "1000" /* the same, in help texts */

typedef struct viewer_options {
    const char *scene;        /**< scene file or preset; NULL = default */
    int window[2];            /**< window size, pixels; default 960 x 540 */
    int grid[2];              /**< > 0: override the 2D grid; default 0 (scene's, after the real-time profile) */
    int full_resolution;      /**< nonzero: the scene as it is, no real-time profile (viewer_scene.h) */
    const char *const *sets;  /**< scene overrides "key.path=value", as eddy run --set */
    int set_count;
    int threads;              /**< OpenMP threads; 0 = one less than the cores (one is left to the display server) */
    float fixed_dt;           /**< > 0: every frame advances this many seconds (replays: 1/60); 0 = wall clock */
    stir_def stir;            /**< splat radius, colours, hover */
    int post;                 /**< post-processing (shading + bloom) at start; default 1 */
    int transparent;          /**< draw dye as coverage over the background colour or image; default 0 */
    float background[3];      /**< linear RGB behind the dye; default black */
    const char *background_image; /**< PNG shown behind the dye (implies transparent); NULL = none */
    int view;                 /**< eddy_view at start; default dye */
    float vorticity;          /**< < 0: the scene's; else the confinement to start with */
    unsigned seed;            /**< stroke colours; default 1 */
    int show_status;          /**< status line; default 1 */
    int overlap;              /**< 2D: step on its own thread while the last state is drawn; default 1 (0: step, then
                                   draw, on one thread: for comparison) */
} viewer_options;

viewer_options viewer_options_default(void);

typedef struct viewer viewer;

/** Creates the viewer (scene, simulation, renderer, framebuffer). Returns 0, or -1 with a message. */
int viewer_create(const viewer_options *opt, viewer **out, char *msg, size_t msg_size);
void viewer_destroy(viewer *v);

/** Handles one input event (pointer, key, wheel). */
void viewer_handle(viewer *v, const viewer_event *ev);
/** Advances one frame: `wall_dt` s of wall time since the last frame (ignored with a fixed step), and draws. In 2D
 *  the picture shows the state before this frame's step, which runs on a thread of its own until the next frame
 *  (or an event that touches the simulation) waits for it. Returns 0, or -1 when the simulation failed (the
 *  message is in viewer_error and on the status line). */
int viewer_frame(viewer *v, double wall_dt);
/** The framebuffer's byte order: nonzero B, G, R, A (the usual window format on little-endian machines: the shell
 *  copies it as it is), zero R, G, B, A (the default). */
void viewer_set_bgra(viewer *v, int bgra);
/** The framebuffer (what the window shows): RGBA (or BGRA, viewer_set_bgra), rows top first, `*w` x `*h`. */
const uint8_t *viewer_pixels(const viewer *v, int *w, int *h);
/** Resizes the framebuffer to a new window size. */
int viewer_resize(viewer *v, int w, int h);

/** The viewer clock, s (sum of frame steps). */
double viewer_clock(const viewer *v);
/** Simulated time of the picture last drawn, s. */
double viewer_sim_time(const viewer *v);
/** Parts of a frame's work, in the order they run. */
typedef enum viewer_phase {
    VIEWER_PHASE_WAIT = 0,  /**< waiting for the last frame's step to finish */
    VIEWER_PHASE_INPUT,     /**< stirring splats, the dragged obstacle, the scene's own splats and moving bodies */
    VIEWER_PHASE_RENDER,    /**< fields to the picture (2D: copying them first; colour, obstacles), post excluded */
    VIEWER_PHASE_POST,      /**< post-processing: normal-map shading and bloom */
    VIEWER_PHASE_COMPOSE,   /**< the picture scaled into the window over the background */
    VIEWER_PHASE_OVERLAY,   /**< status line, notes and help text */
    VIEWER_PHASE_STEP,      /**< the simulation step (the last one finished): in 2D it runs on its own thread beside
                                 the phases above and the present, in 3D before the render */
    VIEWER_PHASE_COUNT
} viewer_phase;

/** Wall-clock timing of the last frame, ms. */
typedef struct viewer_timing {
    double phase_ms[VIEWER_PHASE_COUNT];
    double work_ms;                      /**< the whole of viewer_frame on the calling thread */
    int substeps;                        /**< simulation steps taken by the step */
    double stage_ms[EDDY_STAGE_COUNT];   /**< the step's stages (eddy_step_stats), summed over the substeps */
} viewer_timing;
const viewer_timing *viewer_last_timing(const viewer *v);
/** Wall time of the last frame's own work (stir, step, render, compose), ms. */
double viewer_work_ms(const viewer *v);
/** Post-processing (shading, bloom) is on. */
int viewer_post(const viewer *v);
/** The simulation grid as text ("128x72"). */
void viewer_grid_text(const viewer *v, char *buf, size_t size);
/** The dye grid as text ("256x144"). */
void viewer_dye_grid_text(const viewer *v, char *buf, size_t size);
/** The scene's name. */
const char *viewer_scene_label(const viewer *v);
/** OpenMP threads the viewer runs with. */
int viewer_threads(const viewer *v);
/** Sets the measured frames per second shown on the status line. */
void viewer_set_fps(viewer *v, double fps);
int viewer_want_quit(const viewer *v);
/** The simulation, to read (tests, tools): waits for the step in flight first. Valid until the next frame or event. */
eddy_sim *viewer_sim(viewer *v);
/** The note on the status line (the last key's effect, a saved screenshot, ...), "" when none is shown. */
const char *viewer_status_note(const viewer *v);
const char *viewer_error(const viewer *v);
/** Set by the S key: the path the next screenshot goes to (then cleared by viewer_screenshot_done). */
const char *viewer_pending_screenshot(const viewer *v);
void viewer_screenshot_done(viewer *v, int ok, const char *message);
/** Writes RGBA pixels (rows top first) as a PNG; returns 0, or -1 with a message. */
int viewer_save_png(const char *path, const uint8_t *rgba, int w, int h, char *msg, size_t msg_size);

#endif
