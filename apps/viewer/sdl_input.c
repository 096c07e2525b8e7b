/* See sdl_input.h. */
#include "sdl_input.h"

#include <string.h>

/* SDL keys to the viewer's codes (printable keys as lower-case ASCII). */
static int translate_key(const SDL_KeyboardEvent *k) {
    SDL_Keycode code = k->keysym.sym;
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

int sdl_input_translate(const SDL_Event *e, int win_w, int win_h, int shift, double now, viewer_event *out) {
    memset(out, 0, sizeof *out);
    out->time = now;
    switch (e->type) {
    case SDL_QUIT: out->kind = VIEWER_EVENT_QUIT; return 1;
    case SDL_MOUSEMOTION:
        out->kind = VIEWER_EVENT_MOVE;
        out->x = (float)e->motion.x / (float)win_w;
        out->y = (float)e->motion.y / (float)win_h;
        return 1;
    case SDL_MOUSEBUTTONDOWN:
    case SDL_MOUSEBUTTONUP:
        out->kind = e->type == SDL_MOUSEBUTTONDOWN ? VIEWER_EVENT_DOWN : VIEWER_EVENT_UP;
        out->x = (float)e->button.x / (float)win_w;
        out->y = (float)e->button.y / (float)win_h;
        out->button = e->button.button == SDL_BUTTON_RIGHT ? VIEWER_BUTTON_RIGHT : VIEWER_BUTTON_LEFT;
        out->shift = shift != 0;
        return 1;
    case SDL_MOUSEWHEEL: out->kind = VIEWER_EVENT_WHEEL; out->wheel = (float)e->wheel.y; return 1;
    case SDL_KEYDOWN:
        out->kind = VIEWER_EVENT_KEY;
        out->key = translate_key(&e->key);
        return out->key >= 0;
    default: return 0;
    }
}
