/* Stirring the fluid with a pointer, as in the classic WebGL fluid demo: while the button is held (or always, in
 * hover mode) every frame splats dye and velocity along the segment the pointer moved since the last frame.
 * A stroke gets one colour: a random bright hue, the next colour of a palette, or a single fixed colour.
 * Shared by the SDL viewer and the WebAssembly page; pure C, no window system. */
#ifndef VIEWER_STIR_H
#define VIEWER_STIR_H

#include "eddy/sim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STIR_MAX_COLORS 16

typedef struct stir_def {
    float radius;          /**< splat radius as a fraction of the box height (Gaussian exp(-d^2/r^2)); default 0.04 */
    float velocity_gain;   /**< splat velocity = gain * pointer velocity (m/s); default 1 */
    float max_speed;       /**< pointer speeds above this many box heights per second are clamped (a jump of the
                                pointer between two frames is not a flick); default 3 */
    float dye_amount;      /**< dye added at a splat centre (linear, per splat); default 0.3 */
    float spacing;         /**< splats along a segment at most this many radii apart; default 0.5 */
    int hover;             /**< nonzero: splat whenever the pointer moves, no button needed; default 0 */
    float hover_color_period; /**< hover mode: seconds between colour changes; default 1 */
    int color_count;       /**< 0 (default): a random bright hue per stroke; else cycle through `colors` */
    float colors[STIR_MAX_COLORS][3]; /**< linear RGB in [0,1], scaled by dye_amount */
} stir_def;

stir_def stir_def_default(void);

typedef struct stir {
    stir_def def;
    uint32_t rng;          /* xorshift32 state: the same seed gives the same colours */
    int active;            /* a stroke is in progress */
    int have_last;
    float last[2];         /* pointer position at the last frame, m */
    float color[3];        /* this stroke's dye (already scaled by dye_amount) */
    int next_color;        /* palette index of the next stroke */
    double color_age;      /* hover mode: seconds since the colour was picked */
} stir;

void stir_init(stir *st, const stir_def *def, uint32_t seed);
/** Parses "#rrggbb" (sRGB hex) into linear RGB; returns 0 on success. */
int stir_parse_color(const char *text, float rgb[3]);
/** Parses a comma-separated list of "#rrggbb" colours into def->colors; returns 0 on success. */
int stir_parse_palette(const char *text, stir_def *def);

/** Called once per frame before stepping: `down` is whether the stirring button is held, `pos` the pointer in
 *  world metres (NULL when the pointer is outside), `dt` the frame's simulated time in s (> 0). Splats into `sim`.
 *  Returns the first failing status of eddy_sim_splat (EDDY_OK otherwise). */
eddy_status stir_frame(stir *st, eddy_sim *sim, int down, const float *pos, float dt);

/** HSV (each in [0,1]) to RGB, as the demo's generateColor. */
void stir_hsv_to_rgb(float h, float s, float v, float rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
