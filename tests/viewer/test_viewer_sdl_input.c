/* The SDL shell's input translation (sdl_input.c) on made-up SDL events, no display: pointer positions stay in the
 * range a replay file holds (a drag out of the window, where SDL keeps reporting the pointer, was recorded as a line
 * its replay refused), only the left and right buttons drag (the middle button and side buttons acted as the left
 * one, and letting go of one ended a left-drag), and a held key repeats only where a press steps a value (+, -,
 * arrows): a held S saved a screenshot per repeat, a held space or P flickered. */
#include "../check.h"
#include "replay.h"
#include "sdl_input.h"

#include <stdio.h>
#include <string.h>

enum { W = 960, H = 540 };

static SDL_Event motion(int x, int y) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_MOUSEMOTION;
    e.motion.x = x;
    e.motion.y = y;
    return e;
}

static SDL_Event button(Uint32 type, Uint8 which, int x, int y) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.button.button = which;
    e.button.x = x;
    e.button.y = y;
    return e;
}

static SDL_Event key(SDL_Keycode sym, Uint16 mod, Uint8 repeat) {
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_KEYDOWN;
    e.key.keysym.sym = sym;
    e.key.keysym.mod = mod;
    e.key.repeat = repeat;
    return e;
}

/* The event as a recording writes it reads back as a replay line. */
static int replays(const viewer_event *ev, char *line, size_t size) {
    FILE *f = tmpfile();
    if (!f) return 0;
    replay_write_event(f, ev);
    rewind(f);
    size_t n = fread(line, 1, size - 1, f);
    line[n] = '\0';
    fclose(f);
    replay r;
    char msg[256];
    int ok = replay_parse(line, "recorded", &r, msg, sizeof msg) == 0 && r.count == 1;
    replay_free(&r);
    return ok;
}

static void test_pointer(void) {
    viewer_event ev;
    char line[256];
    SDL_Event e = motion(W / 2, H / 4);
    CHECK(sdl_input_translate(&e, W, H, 0, 1.5, &ev) == 1 && ev.kind == VIEWER_EVENT_MOVE && ev.x == 0.5f &&
              ev.y == 0.25f && ev.time == 1.5, "a move inside: %g %g at %g", (double)ev.x, (double)ev.y, ev.time);
    /* a drag out of the window: SDL reports the pointer anywhere on the screen */
    const int far[][2] = {{-3000, 100}, {5000, 270}, {480, -2000}, {480, 4000}, {-100000, 100000}};
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
        e = motion(far[i][0], far[i][1]);
        CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1 && ev.x >= -1 && ev.x <= 2 && ev.y >= -1 && ev.y <= 2,
              "a move to (%d, %d) stays within -1 .. 2 window sizes: %g %g", far[i][0], far[i][1], (double)ev.x, (double)ev.y);
        CHECK(replays(&ev, line, sizeof line), "its recording replays: %s", line);
        e = button(SDL_MOUSEBUTTONUP, SDL_BUTTON_LEFT, far[i][0], far[i][1]);
        CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1 && ev.kind == VIEWER_EVENT_UP && replays(&ev, line, sizeof line),
              "a release at (%d, %d) is recorded as a line that replays: %s", far[i][0], far[i][1], line);
    }
    /* just off the window: as it is (a drag may leave the picture and come back) */
    e = motion(-W / 2, H + H / 2);
    CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1 && ev.x == -0.5f && ev.y == 1.5f, "just outside, as it is: %g %g",
          (double)ev.x, (double)ev.y);
}

static void test_buttons(void) {
    viewer_event ev;
    SDL_Event e = button(SDL_MOUSEBUTTONDOWN, SDL_BUTTON_LEFT, 96, 54);
    CHECK(sdl_input_translate(&e, W, H, 1, 0, &ev) == 1 && ev.kind == VIEWER_EVENT_DOWN && ev.button == VIEWER_BUTTON_LEFT &&
              ev.shift == 1 && ev.x == 0.1f && ev.y == 0.1f, "a shift-left press");
    e = button(SDL_MOUSEBUTTONUP, SDL_BUTTON_RIGHT, 96, 54);
    CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1 && ev.kind == VIEWER_EVENT_UP && ev.button == VIEWER_BUTTON_RIGHT &&
              ev.shift == 0, "a right release");
    const Uint8 others[] = {SDL_BUTTON_MIDDLE, SDL_BUTTON_X1, SDL_BUTTON_X2};
    for (size_t i = 0; i < sizeof others; i++) {
        e = button(SDL_MOUSEBUTTONDOWN, others[i], 96, 54);
        CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 0, "button %d pressed: not the left button (kind %d, button %d)",
              others[i], ev.kind, ev.button);
        e = button(SDL_MOUSEBUTTONUP, others[i], 96, 54);
        CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 0, "button %d released: does not end a left-drag", others[i]);
    }
}

static void test_keys(void) {
    viewer_event ev;
    SDL_Event e = key(SDLK_EQUALS, KMOD_LSHIFT, 0);
    CHECK(sdl_input_translate(&e, W, H, 1, 0, &ev) == 1 && ev.kind == VIEWER_EVENT_KEY && ev.key == '+', "shift = is +");
    e = key(SDLK_KP_MINUS, 0, 0);
    CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1 && ev.key == '-', "keypad minus");
    e = key(SDLK_F1, 0, 0);
    CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 0, "F1 is no key of the viewer's");
    /* held: the keys that step a value repeat, the toggles and actions do not */
    const struct { SDL_Keycode sym; int repeats; } held[] = {
        {SDLK_KP_PLUS, 1}, {SDLK_MINUS, 1}, {SDLK_EQUALS, 1}, {SDLK_LEFT, 1}, {SDLK_RIGHT, 1}, {SDLK_UP, 1},
        {SDLK_DOWN, 1}, {SDLK_s, 0}, {SDLK_SPACE, 0}, {SDLK_p, 0}, {SDLK_v, 0}, {SDLK_r, 0}, {SDLK_h, 0},
    };
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++) {
        e = key(held[i].sym, 0, 0);
        CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1, "key %d pressed", (int)held[i].sym);
        e = key(held[i].sym, 0, 1);
        CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == held[i].repeats, "key %d held: %s", (int)held[i].sym,
              held[i].repeats ? "repeats" : "does not repeat");
    }
}

static void test_other(void) {
    viewer_event ev;
    SDL_Event e;
    memset(&e, 0, sizeof e);
    e.type = SDL_QUIT;
    CHECK(sdl_input_translate(&e, W, H, 0, 2.0, &ev) == 1 && ev.kind == VIEWER_EVENT_QUIT && ev.time == 2.0, "closing");
    e.type = SDL_MOUSEWHEEL;
    e.wheel.y = -3;
    CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1 && ev.kind == VIEWER_EVENT_WHEEL && ev.wheel == -3.0f, "wheel");
    /* a wheel event beyond the replay range is recorded within it (a recording of it used to be refused on replay) */
    e.wheel.y = 5000;
    CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1 && ev.wheel == VIEWER_WHEEL_MAX, "wheel 5000 -> %g", ev.wheel);
    e.wheel.y = -5000;
    CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 1 && ev.wheel == -VIEWER_WHEEL_MAX, "wheel -5000 -> %g", ev.wheel);
    memset(&e, 0, sizeof e);
    e.type = SDL_WINDOWEVENT;
    e.window.event = SDL_WINDOWEVENT_LEAVE;
    CHECK(sdl_input_translate(&e, W, H, 0, 0, &ev) == 0, "window events are the shell's");
}

int main(void) {
    test_pointer();
    test_buttons();
    test_keys();
    test_other();
    return check_finish("viewer_sdl_input");
}
