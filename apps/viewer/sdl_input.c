/* See sdl_input.h. */
#include "sdl_input.h"

#include <math.h>

#include <string.h>

/* SDL keys to the viewer's codes (printable keys as lower-case ASCII). A held key repeats only where a press steps a
 * value (vorticity, the camera): a toggle or an action once per press (a held S saved a screenshot per repeat). */
static int translate_key(const SDL_KeyboardEvent *k) {
    SDL_Keycode code = k->keysym.sym;
    if (k->repeat && !(code == SDLK_KP_PLUS || code == SDLK_KP_MINUS || code == SDLK_EQUALS || code == SDLK_PLUS ||
                       code == SDLK_MINUS || code == SDLK_UNDERSCORE || code == SDLK_LEFT || code == SDLK_RIGHT ||
                       code == SDLK_UP || code == SDLK_DOWN))
        return -1;
    switch (code) {
    case SDLK_ESCAPE: return VIEWER_KEY_ESCAPE;
    case SDLK_LEFT: return VIEWER_KEY_LEFT;
    case SDLK_RIGHT: return VIEWER_KEY_RIGHT;
    case SDLK_UP: return VIEWER_KEY_UP;
    case SDLK_DOWN: return VIEWER_KEY_DOWN;
    case SDLK_KP_PLUS: return '+';
    case SDLK_KP_MINUS: return '-';
    case SDLK_EQUALS: return (k->keysym.mod & KMOD_SHIFT) ? '+' : '=';
    default: break;
    }
    if (code >= 32 && code < 127) return (int)code;
    return -1;
}

/* A pixel position as a window fraction, within the range a replay holds: while a button is held SDL reports the
 * pointer anywhere on the screen, and a recorded -3.1 was a line its replay refused. */
static float window_fraction(int pixel, int size) {
    float f = (float)pixel / (float)size;
    return f < VIEWER_FRACTION_MIN ? VIEWER_FRACTION_MIN : f > VIEWER_FRACTION_MAX ? VIEWER_FRACTION_MAX : f;
}

int sdl_input_translate(const SDL_Event *e, int win_w, int win_h, int shift, double now, viewer_event *out) {
    memset(out, 0, sizeof *out);
    out->time = now;
    switch (e->type) {
    case SDL_QUIT: out->kind = VIEWER_EVENT_QUIT; return 1;
    case SDL_MOUSEMOTION:
        out->kind = VIEWER_EVENT_MOVE;
        out->x = window_fraction(e->motion.x, win_w);
        out->y = window_fraction(e->motion.y, win_h);
        return 1;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        /* the left and right buttons drag; the middle and side buttons acted as the left one (releasing one ended a
         * left-drag held meanwhile) */
        if (e->button.button != SDL_BUTTON_LEFT && e->button.button != SDL_BUTTON_RIGHT) return 0;
        out->kind = e->type == SDL_MOUSEBUTTONDOWN ? VIEWER_EVENT_DOWN : VIEWER_EVENT_UP;
        out->x = window_fraction(e->button.x, win_w);
        out->y = window_fraction(e->button.y, win_h);
        out->button = e->button.button == SDL_BUTTON_RIGHT ? VIEWER_BUTTON_RIGHT : VIEWER_BUTTON_LEFT;
        out->shift = shift != 0;
        return 1;
    case SDL_MOUSEWHEEL: /* within the replay range (the zoom is the same: it saturates long before), so a recording replays */
        out->kind = VIEWER_EVENT_WHEEL;
        out->wheel = fminf(fmaxf((float)e->wheel.y, -VIEWER_WHEEL_MAX), VIEWER_WHEEL_MAX);
        return 1;
    case SDL_KEYDOWN:
        out->kind = VIEWER_EVENT_KEY;
        out->key = translate_key(&e->key);
        return out->key >= 0;
    default: return 0;
    }
}
