/* SDL input to viewer events (viewer_event.h): the window's pointer, buttons, wheel, keys and closing. Apart from the
 * shell (main.c), so that the translation is tested on made-up SDL events without a display. */
#ifndef VIEWER_SDL_INPUT_H
#define VIEWER_SDL_INPUT_H

#include "viewer_event.h"

#include <SDL.h>

/** Translates `e`, seen in a window of `win_w` x `win_h` pixels with shift held or not (`shift`), into `*out` at the
 *  viewer clock `now`. Returns 1 for an event the viewer takes, 0 for any other (window events are the shell's). */
int sdl_input_translate(const SDL_Event *e, int win_w, int win_h, int shift, double now, viewer_event *out);

#endif
