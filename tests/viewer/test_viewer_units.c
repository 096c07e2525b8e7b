/* Unit checks of the viewer's logic without a window: the replay format (parse, errors, exact round trip), the bitmap
 * font (glyphs differ, text lands where asked, clipping), stirring colours (palette order, parse errors), the splats a
 * stroke leaves in a simulation (dye along the segment, none far away), and input replayed into a viewer: the
 * vorticity keys' limits, a right-drag's grab and its pointer leaving the picture. */
#include "bench.h"
#include "font.h"
#include "output_file.h"
#include "replay.h"
#include "stir.h"
#include "viewer.h"
#include "viewer_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures = 0, passes = 0;
#define CHECK(cond, ...)                                          \
    do {                                                          \
        if (cond) passes++;                                       \
        else { failures++; printf("FAIL %s:%d: ", __FILE__, __LINE__); printf(__VA_ARGS__); printf("\n"); } \
    } while (0)

static void test_replay(void) {
    const char *text = "# comment\n\n0 move 0.1 0.2\n0.05 down 0.1 0.2 left   # press\n0.1 up 0.3 0.2 shift-right\n"
                       "0.2 key plus\n0.2 key V\n0.3 wheel -2\n0.4 leave\n1 quit\n";
    replay r;
    char msg[256] = "";
    CHECK(replay_parse(text, "t", &r, msg, sizeof msg) == 0, "parse: %s", msg);
    CHECK(r.count == 8, "8 events, got %d", r.count);
    if (r.count == 8) {
        CHECK(r.events[0].kind == VIEWER_EVENT_MOVE && fabsf(r.events[0].x - 0.1f) < 1e-6f, "move");
        CHECK(r.events[1].kind == VIEWER_EVENT_DOWN && r.events[1].button == VIEWER_BUTTON_LEFT && !r.events[1].shift, "down left");
        CHECK(r.events[2].kind == VIEWER_EVENT_UP && r.events[2].button == VIEWER_BUTTON_RIGHT && r.events[2].shift, "up shift-right");
        CHECK(r.events[3].key == '+' && r.events[4].key == 'v', "keys plus, V -> v");
        CHECK(r.events[5].kind == VIEWER_EVENT_WHEEL && r.events[5].wheel == -2, "wheel");
        CHECK(r.events[6].kind == VIEWER_EVENT_LEAVE && r.events[7].kind == VIEWER_EVENT_QUIT, "leave, quit");
        /* polling hands out events in order up to the clock */
        CHECK(replay_poll(&r, 0.0) == &r.events[0] && replay_poll(&r, 0.0) == NULL, "poll at 0");
        CHECK(replay_poll(&r, 0.06) == &r.events[1] && replay_poll(&r, 0.06) == NULL, "poll at 0.06");
        /* round trip through the writer */
        FILE *f = tmpfile();
        for (int i = 0; i < r.count; i++) replay_write_event(f, &r.events[i]);
        rewind(f);
        char buf[1024];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        replay again;
        CHECK(replay_parse(buf, "written", &again, msg, sizeof msg) == 0 && again.count == r.count, "round trip: %s", msg);
        for (int i = 0; i < again.count && i < r.count; i++)
            CHECK(again.events[i].kind == r.events[i].kind && again.events[i].key == r.events[i].key &&
                      fabsf(again.events[i].x - r.events[i].x) < 1e-4f && again.events[i].shift == r.events[i].shift,
                  "round trip event %d", i);
        replay_free(&again);
    }
    replay_free(&r);
    struct { const char *text, *expect; } bad[] = {
        {"x move 0 0\n", "time"},          {"1 move 0 0\n0.5 move 0 0\n", "back in time"},
        {"0 jump 0 0\n", "kind"},          {"0 move 0.5\n", "move"},
        {"0 down 0.5 0.5 middle\n", "button"}, {"0 key f1\n", "key"},
        {"0 wheel\n", "wheel"},            {"0 quit now\n", "no arguments"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = '\0';
        CHECK(replay_parse(bad[i].text, "bad.replay", &r, msg, sizeof msg) != 0, "bad %zu parses", i);
        CHECK(strstr(msg, bad[i].expect) && strstr(msg, "bad.replay:"), "bad %zu message '%s' names '%s'", i, msg, bad[i].expect);
    }
    CHECK(replay_load("/nonexistent/x.replay", &r, msg, sizeof msg) != 0 && strstr(msg, "cannot open"), "missing file: %s", msg);
}

/* A recording replays what was handled, exactly: times of frames (sums of float 1/60 steps, which four decimals
 * moved into the next frame), positions and wheel notches read back bit for bit, a '#' key reads back (as a character
 * it started a comment), and a recorder writes times in order even when an event comes with an earlier time in the
 * same frame (a replayed event handled after the window's own). */
static void test_replay_exact(void) {
    viewer_event ev[6];
    memset(ev, 0, sizeof ev);
    double clock = 0;
    for (int i = 0; i < 7; i++) clock += (double)(1.0f / 60.0f); /* the viewer's clock after 7 frames */
    ev[0].kind = VIEWER_EVENT_MOVE; ev[0].time = clock; ev[0].x = 0.123456789f; ev[0].y = -0.98765431f;
    ev[1].kind = VIEWER_EVENT_DOWN; ev[1].time = clock; ev[1].x = 1.0f / 3.0f; ev[1].y = 1.9999999f;
    ev[1].button = VIEWER_BUTTON_RIGHT; ev[1].shift = 1;
    ev[2].kind = VIEWER_EVENT_KEY; ev[2].time = 0.123456789012345678; ev[2].key = '#';
    ev[3].kind = VIEWER_EVENT_WHEEL; ev[3].time = 1e-30; ev[3].wheel = 2.71828f;
    ev[4].kind = VIEWER_EVENT_KEY; ev[4].time = 3.0; ev[4].key = '+';
    ev[5].kind = VIEWER_EVENT_QUIT; ev[5].time = 1e6 / 7.0;
    /* the times must not decrease: sort the two small ones first */
    viewer_event ordered[6] = {ev[3], ev[0], ev[1], ev[2], ev[4], ev[5]};
    ordered[3].time = 0.3333333333333333; /* after clock (0.1167) */
    FILE *f = tmpfile();
    for (int i = 0; i < 6; i++) replay_write_event(f, &ordered[i]);
    rewind(f);
    char buf[2048], msg[256] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    replay r;
    CHECK(replay_parse(buf, "exact", &r, msg, sizeof msg) == 0 && r.count == 6, "written events read back: %s\n%s", msg, buf);
    for (int i = 0; i < r.count && i < 6; i++) {
        const viewer_event *a = &ordered[i], *b = &r.events[i];
        CHECK(a->kind == b->kind && a->time == b->time && a->x == b->x && a->y == b->y && a->wheel == b->wheel &&
                  a->key == b->key && a->button == b->button && a->shift == b->shift,
              "event %d exactly as written: time %.17g -> %.17g, x %.9g -> %.9g, y %.9g -> %.9g, wheel %.9g -> %.9g, key %d -> %d",
              i, a->time, b->time, (double)a->x, (double)b->x, (double)a->y, (double)b->y, (double)a->wheel,
              (double)b->wheel, a->key, b->key);
    }
    replay_free(&r);
    /* short values stay short: what a person wrote reads as they wrote it */
    viewer_event m;
    memset(&m, 0, sizeof m);
    m.kind = VIEWER_EVENT_MOVE; m.time = 0.05; m.x = 0.3f; m.y = 0.5f;
    f = tmpfile();
    replay_write_event(f, &m);
    rewind(f);
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    CHECK(strcmp(buf, "0.05 move 0.3 0.5\n") == 0, "short values written short: '%s'", buf);

    /* the recorder: a window's quit at the frame's clock, then a replayed move of the same frame at an earlier time */
    char dir[] = "/tmp/viewer_units_XXXXXX", path[96];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/order.replay", dir);
    replay_recorder rec;
    CHECK(replay_recorder_open(&rec, path, msg, sizeof msg) == 0, "recorder: %s", msg);
    viewer_event q;
    memset(&q, 0, sizeof q);
    q.kind = VIEWER_EVENT_QUIT; q.time = clock;
    m.time = clock - 0.01;
    replay_recorder_write(&rec, &q);
    replay_recorder_write(&rec, &m);
    CHECK(replay_recorder_finish(&rec, msg, sizeof msg) == 0, "finish: %s", msg);
    msg[0] = '\0';
    CHECK(replay_load(path, &r, msg, sizeof msg) == 0 && r.count == 2 && r.events[1].time == clock &&
              r.events[1].kind == VIEWER_EVENT_MOVE, "an earlier time in the same frame is written at the last time: %s", msg);
    replay_free(&r);
    remove(path);
    remove(dir);
}

/* Files that are not replays: each refused with a message naming the file and what is wrong, nothing parsed. */
static void test_replay_bad_files(void) {
    char dir[] = "/tmp/viewer_units_XXXXXX", path[64], msg[256];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    replay r;
    /* a NUL byte used to end the text there: a quit after it was never seen and the viewer ran on for ever */
    snprintf(path, sizeof path, "%s/nul.replay", dir);
    FILE *f = fopen(path, "wb");
    static const char with_nul[] = "0 move 0.5 0.5\n\0" "0.1 quit\n";
    fwrite(with_nul, 1, sizeof with_nul - 1, f);
    fclose(f);
    msg[0] = '\0';
    CHECK(replay_load(path, &r, msg, sizeof msg) != 0 && strstr(msg, "nul.replay:2:") && strstr(msg, "NUL"),
          "NUL byte refused naming line 2: '%s'", msg);
    replay_free(&r);
    remove(path);
    /* a folder: the reason is named */
    msg[0] = '\0';
    CHECK(replay_load(dir, &r, msg, sizeof msg) != 0 && strstr(msg, "directory"), "folder refused naming why: '%s'", msg);
    /* an input that does not end (it used to be read until memory ran out) */
    msg[0] = '\0';
    CHECK(replay_load("/dev/zero", &r, msg, sizeof msg) != 0 && strstr(msg, "/dev/zero:1:") && strstr(msg, "NUL"),
          "/dev/zero refused at its first byte: '%s'", msg);
    remove(dir);
}

/* Replay values out of range: the message names the value and the range; a float-overflowing wheel (1e300 became an
 * infinite zoom) is refused; a time too small for a double is a time of 0, not an error. */
static void test_replay_values(void) {
    replay r;
    char msg[256] = "";
    struct { const char *text, *expect; } bad[] = {
        {"-1 quit\n", "time '-1'"},
        {"0 move 0.5 nan\n", "got 'nan'"},
        {"0 down 3 0.5 left\n", "got '3'"},
        {"0 wheel 1e300\n", "wheel '1e300'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = '\0';
        CHECK(replay_parse(bad[i].text, "v.replay", &r, msg, sizeof msg) != 0 && strstr(msg, bad[i].expect),
              "value %zu: message '%s' names '%s'", i, msg, bad[i].expect);
    }
    CHECK(replay_parse("1e-400 move 1e-400 0.5\n", "v.replay", &r, msg, sizeof msg) == 0 && r.count == 1 &&
              r.events[0].time == 0.0, "a tiny time reads as 0: %s", msg);
    replay_free(&r);
}

/* --record and --screenshot-at files: nothing of the user's is replaced unasked; a recording is renamed into place
 * only when finished, and a dropped one leaves nothing. */
static void test_output_files(void) {
    char dir[] = "/tmp/viewer_units_XXXXXX", path[96], link_path[96], msg[512];
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(path, sizeof path, "%s/out.replay", dir);
    CHECK(output_file_check("--record", path, 0, msg, sizeof msg) == 0, "a new file is fine: %s", msg);
    CHECK(access(path, F_OK) != 0, "the check leaves nothing behind");
    replay_recorder rec;
    CHECK(replay_recorder_open(&rec, path, msg, sizeof msg) == 0, "recorder: %s", msg);
    viewer_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = VIEWER_EVENT_QUIT;
    ev.time = 0.5;
    replay_recorder_write(&rec, &ev);
    CHECK(access(path, F_OK) != 0, "nothing under the final name while recording");
    CHECK(replay_recorder_finish(&rec, msg, sizeof msg) == 0, "finish: %s", msg);
    replay back;
    CHECK(replay_load(path, &back, msg, sizeof msg) == 0 && back.count == 1 && back.events[0].kind == VIEWER_EVENT_QUIT,
          "the recording reads back: %s", msg);
    replay_free(&back);
    msg[0] = '\0';
    CHECK(output_file_check("--record", path, 0, msg, sizeof msg) != 0 && strstr(msg, "exists") && strstr(msg, "--force"),
          "an existing file is refused without --force: '%s'", msg);
    CHECK(output_file_check("--record", path, 1, msg, sizeof msg) == 0, "and allowed with it: %s", msg);
    snprintf(link_path, sizeof link_path, "%s/link.png", dir);
    CHECK(symlink(path, link_path) == 0, "symlink");
    msg[0] = '\0';
    CHECK(output_file_check("--screenshot-at", link_path, 1, msg, sizeof msg) != 0 && strstr(msg, "symbolic link"),
          "a link is refused even with --force: '%s'", msg);
    CHECK(output_file_check("--screenshot-at", dir, 1, msg, sizeof msg) != 0 && strstr(msg, "directory"),
          "a folder is refused: '%s'", msg);
    CHECK(output_file_check("--screenshot-at", "/dev/null", 1, msg, sizeof msg) != 0 && strstr(msg, "device"),
          "a device is refused: '%s'", msg);
    CHECK(output_file_check("--screenshot-at", "/nonexistent-folder/x.png", 0, msg, sizeof msg) != 0 &&
              strstr(msg, "No such file"), "a missing folder is found before the run: '%s'", msg);
    /* a dropped recording (the window could not open) leaves nothing */
    snprintf(path, sizeof path, "%s/dropped.replay", dir);
    CHECK(replay_recorder_open(&rec, path, msg, sizeof msg) == 0, "recorder 2: %s", msg);
    replay_recorder_abort(&rec);
    CHECK(access(path, F_OK) != 0, "a dropped recording leaves nothing");
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "clean up");
}

/* Scenes: a path of any length is opened as given (it was cut at 255 characters, naming another file or none); --grid
 * on a 3D scene is refused (it was left out without a word). */
static void test_scene_inputs(void) {
    char dir[] = "/tmp/viewer_units_XXXXXX", path[512], msg[512] = "";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    int n = snprintf(path, sizeof path, "%s/", dir);
    memset(path + n, 's', 240);
    snprintf(path + n + 240, sizeof path - (size_t)n - 240, ".json");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "create %s", path);
    if (f) {
        fputs("{\"name\": \"long\", \"dim\": 2, \"grid\": [16, 16], \"size\": 1}", f);
        fclose(f);
    }
    viewer_scene *sc = NULL;
    CHECK(viewer_scene_open(path, NULL, &sc, msg, sizeof msg) == 0, "a %zu-character path opens: %s", strlen(path), msg);
    viewer_scene_close(sc);
    remove(path);
    remove(dir);
    viewer_scene_options so;
    memset(&so, 0, sizeof so);
    so.grid[0] = so.grid[1] = 20;
    so.threads = 1;
    msg[0] = '\0';
    sc = NULL;
    CHECK(viewer_scene_open("smoke3d", &so, &sc, msg, sizeof msg) != 0 && strstr(msg, "--grid") && strstr(msg, "3D"),
          "--grid on a 3D scene refused: '%s'", msg);
    viewer_scene_close(sc);
}

/* A viewer without a window on the empty scene, for replaying key and pointer input. */
static viewer *units_viewer(const char *scene) {
    viewer_options o = viewer_options_default();
    o.scene = scene;
    o.window[0] = 160;
    o.window[1] = 90;
    o.threads = 1;
    o.fixed_dt = 1.0f / 60.0f;
    o.overlap = 0;
    viewer *v = NULL;
    char msg[512] = "";
    CHECK(viewer_create(&o, &v, msg, sizeof msg) == 0, "viewer on %s: %s", scene, msg);
    return v;
}

/* Replays `text` into the viewer (every event at once: keys need no frames). */
static void units_replay(viewer *v, const char *text) {
    replay r;
    char msg[256] = "";
    CHECK(replay_parse(text, "keys", &r, msg, sizeof msg) == 0, "keys parse: %s", msg);
    for (int i = 0; i < r.count; i++) viewer_handle(v, &r.events[i]);
    replay_free(&r);
}

/* The + key stops at the viewer's limit (a scene's range, as --vorticity): 20,001 presses gave 1000.05 and went on;
 * the note says the limit, and - steps down from it. The simulation runs with the value shown. */
static void test_vorticity_keys(void) {
    viewer *v = units_viewer("empty");
    if (!v) return;
    enum { PRESSES = 20100 };
    char *text = malloc(PRESSES * sizeof "0 key minus\n"), *p = text; /* the longer line */
    CHECK(text != NULL, "out of memory");
    if (!text) { viewer_destroy(v); return; }
    for (int i = 0; i < PRESSES; i++) p += sprintf(p, "0 key plus\n");
    units_replay(v, text);
    float e = eddy_sim_get_def(viewer_sim(v))->vorticity;
    CHECK(e == VIEWER_VORTICITY_MAX, "%d presses of + give the most, %g: got %.9g", PRESSES, (double)VIEWER_VORTICITY_MAX, (double)e);
    CHECK(strstr(viewer_status_note(v), "1000.00") && strstr(viewer_status_note(v), "the most: 0 to 1000"), "the note says the limit: '%s'",
          viewer_status_note(v));
    units_replay(v, "0 key minus\n");
    e = eddy_sim_get_def(viewer_sim(v))->vorticity;
    CHECK(fabsf(e - 999.95f) < 1e-3f && !strstr(viewer_status_note(v), "the most"), "- steps down from it: %.9g, '%s'", (double)e,
          viewer_status_note(v));
    CHECK(viewer_frame(v, 0) == 0, "a frame at the most: %s", viewer_error(v));
    /* and down to the least */
    p = text;
    for (int i = 0; i < PRESSES; i++) p += sprintf(p, "0 key minus\n");
    units_replay(v, text);
    e = eddy_sim_get_def(viewer_sim(v))->vorticity;
    CHECK(e == 0.0f && strstr(viewer_status_note(v), "the least: 0 to 1000"), "- stops at 0: %g, '%s'", (double)e, viewer_status_note(v));
    free(text);
    viewer_destroy(v);
}

/* The largest |value| of a field. */
static float field_max_abs(eddy_sim *sim, eddy_field field) {
    eddy_field_layout l;
    if (eddy_sim_field_layout(sim, field, &l) != EDDY_OK) return INFINITY;
    size_t n = (size_t)l.n[0] * (size_t)l.n[1] * (size_t)(l.n[2] > 0 ? l.n[2] : 1);
    float *buf = malloc(n * sizeof *buf), m = 0;
    if (!buf || eddy_sim_read_field(sim, field, buf, n) != EDDY_OK) { free(buf); return INFINITY; }
    for (size_t i = 0; i < n; i++) m = fmaxf(m, fabsf(buf[i]));
    free(buf);
    return m;
}

/* A right-drag that grabs the default scene's cylinder from the far side of the box: the cylinder goes to the
 * pointer, but pushes the fluid no faster than a stroke may move it (3 box heights per second: 3 m/s here); it
 * moved at 71 m/s for a frame, the step took 31 substeps and the fluid reached 65-71 m/s. */
static void test_obstacle_grab(void) {
    viewer *v = units_viewer("default");
    if (!v) return;
    eddy_sim *sim = viewer_sim(v);
    const float box_h = eddy_sim_cell_size(sim) * (float)eddy_sim_get_def(sim)->grid[1];
    CHECK(viewer_frame(v, 0) == 0, "first frame: %s", viewer_error(v)); /* lays the picture out in the window */
    float before = fmaxf(field_max_abs(viewer_sim(v), EDDY_FIELD_U), field_max_abs(viewer_sim(v), EDDY_FIELD_V));
    units_replay(v, "0 down 0.9 0.5 right\n");
    int most_substeps = 0;
    float fastest = 0;
    for (int f = 0; f < 4; f++) {
        CHECK(viewer_frame(v, 0) == 0, "frame %d: %s", f, viewer_error(v));
        if (viewer_last_timing(v)->substeps > most_substeps) most_substeps = viewer_last_timing(v)->substeps;
        sim = viewer_sim(v);
        fastest = fmaxf(fastest, fmaxf(field_max_abs(sim, EDDY_FIELD_U), field_max_abs(sim, EDDY_FIELD_V)));
    }
    /* the scene's own flow (about 2 m/s) plus the cylinder's push at 3 box heights per second, with room for the
     * flow around it */
    CHECK(fastest < before + 1.5f * 3.0f * box_h, "the fluid moves at most %g m/s after the grab (%g before): %g m/s",
          (double)(before + 1.5f * 3.0f * box_h), (double)before, (double)fastest);
    CHECK(most_substeps <= 4, "a frame of the grab takes a few substeps: %d", most_substeps);
    viewer_destroy(v);
}

/* A right-drag that leaves the picture with the button held: the obstacle stays where the pointer left it and stands
 * still. It went on imposing its last velocity (3 m/s here, the clamp) on the fluid, frame after frame, until the
 * pointer came back or the button was let go. */
static void test_obstacle_left_behind(void) {
    viewer *v = units_viewer("default");
    if (!v) return;
    CHECK(viewer_frame(v, 0) == 0, "first frame: %s", viewer_error(v)); /* lays the picture out in the window */
    /* the cylinder (at 0.236, 0.49 of the window) dragged right, then the pointer out of the window */
    const char *steps[] = {"0 down 0.236 0.49 right\n", "0 move 0.28 0.49\n", "0 move 0.32 0.49\n"};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        units_replay(v, steps[i]);
        CHECK(viewer_frame(v, 0) == 0, "drag frame %zu: %s", i, viewer_error(v));
    }
    eddy_sim *sim = viewer_sim(v);
    const eddy_sim_def *d = eddy_sim_get_def(sim);
    const float h = eddy_sim_cell_size(sim);
    const float centre[3] = {d->origin[0] + 0.32f * h * (float)d->grid[0], d->origin[1] + (1 - 0.49f) * h * (float)d->grid[1], 0};
    float u[3];
    CHECK(eddy_sim_sample_velocity(sim, centre, u) == EDDY_OK && u[0] > 1.0f, "dragged: the cylinder moves at %g m/s", (double)u[0]);
    units_replay(v, "0 move 1.5 0.49\n");
    for (int f = 0; f < 10; f++) CHECK(viewer_frame(v, 0) == 0, "frame %d off the picture: %s", f, viewer_error(v));
    CHECK(eddy_sim_sample_velocity(viewer_sim(v), centre, u) == EDDY_OK && fabsf(u[0]) < 1e-6f && fabsf(u[1]) < 1e-6f,
          "held off the picture, the cylinder stands still: %g %g m/s", (double)u[0], (double)u[1]);
    viewer_destroy(v);
}

static void test_font(void) {
    /* distinct glyphs for the characters of the status line */
    const char *chars = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.:+-/()%";
    for (const char *a = chars; *a; a++)
        for (const char *b = a + 1; *b; b++)
            CHECK(memcmp(font_glyph(*a), font_glyph(*b), FONT_GLYPH_H) != 0, "glyphs '%c' and '%c' identical", *a, *b);
    int w, h;
    font_measure("ab\ncde", 2, &w, &h);
    CHECK(w == 3 * FONT_CELL_W * 2 && h == 2 * FONT_CELL_H * 2, "measure %dx%d", w, h);
    enum { W = 40, H = 20 };
    uint8_t px[W * H * 4];
    memset(px, 0, sizeof px);
    const uint8_t white[4] = {255, 255, 255, 255};
    font_draw(px, W, H, 3, 4, "I", 1, white); /* 'I': top bar columns 1..3, stem at column 2 */
    CHECK(px[4 * (4 * W + 4)] == 255 && px[4 * (4 * W + 3)] == 0 && px[4 * (5 * W + 5)] == 255, "I drawn at (3,4)");
    int lit = 0;
    for (int i = 0; i < W * H; i++) lit += px[4 * i] != 0;
    CHECK(lit == 3 + 5 + 3, "I has 11 pixels, got %d", lit);
    font_draw(px, W, H, 38, 18, "W", 3, white); /* mostly outside: must not write out of bounds (ASan) */
    font_draw(px, W, H, -10, -10, "W", 3, white);
    CHECK(1, "clipping");
}

static void test_stir(void) {
    stir_def d = stir_def_default();
    CHECK(stir_parse_palette("#ff0000,#00ff00", &d) == 0 && d.color_count == 2, "palette parses");
    CHECK(fabsf(d.colors[0][0] - 1) < 1e-6f && d.colors[0][1] == 0 && d.colors[1][1] > 0.99f, "palette values");
    stir_def bad = stir_def_default();
    CHECK(stir_parse_palette("#ff00", &bad) != 0 && stir_parse_palette("red", &bad) != 0 &&
              stir_parse_palette("#ff0000,", &bad) != 0 && stir_parse_palette("", &bad) != 0, "bad palettes rejected");
    float rgb[3];
    CHECK(stir_parse_color("#808080", rgb) == 0 && fabsf(rgb[0] - 0.2158605f) < 1e-4f, "sRGB 128 -> linear 0.2159");

    eddy_sim_def def = eddy_sim_def_default();
    def.grid[0] = 64; def.grid[1] = 32; def.size[0] = 2.0f;
    eddy_sim *sim;
    char msg[256];
    CHECK(eddy_sim_create(&def, &sim, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    if (!sim) return;
    stir st;
    stir_init(&st, &d, 5);
    float a[3] = {0.4f, 0.5f, 0}, b[3] = {1.6f, 0.5f, 0};
    CHECK(stir_frame(&st, sim, 1, a, 1.0f / 60) == EDDY_OK, "stroke start");
    CHECK(stir_frame(&st, sim, 1, b, 1.0f / 60) == EDDY_OK, "stroke move");
    float v = 0, far = 0, vel[3];
    float mid[3] = {1.0f, 0.5f, 0}, away[3] = {1.0f, 0.05f, 0};
    eddy_sim_sample_field(sim, EDDY_FIELD_DYE_R, mid, &v);
    eddy_sim_sample_field(sim, EDDY_FIELD_DYE_R, away, &far);
    /* palette colour 0 is red: the segment's middle holds red dye; 0.45 m away (11 radii) holds none */
    CHECK(v > 0.1f, "dye on the segment: %g", v);
    CHECK(far < 1e-6f, "no dye far away: %g", far);
    eddy_sim_sample_velocity(sim, mid, vel);
    CHECK(vel[0] > 0 && fabsf(vel[1]) < 1e-3f * vel[0], "velocity along the drag: %g %g", vel[0], vel[1]);
    /* next stroke takes the next palette colour (green) */
    stir_frame(&st, sim, 0, b, 1.0f / 60);
    stir_frame(&st, sim, 1, away, 1.0f / 60);
    float g = 0;
    eddy_sim_sample_field(sim, EDDY_FIELD_DYE_G, away, &g);
    CHECK(g > 0.1f, "second stroke green: %g", g);
    eddy_sim_destroy(sim);
}

static void test_bench(void) {
    /* 110 frames: the first 10 (warm-up) take 1000 ms and must not count; then 100 frames of 1, 2, ..., 100 ms in a
     * shuffled order. Median of 1..100 = 50.5; nearest-rank p95 = the 95th smallest = 95. */
    bench b;
    CHECK(bench_init(&b, 110) == 0, "bench_init");
    CHECK(b.warmup == 10, "warm-up of 10 frames, got %d", b.warmup);
    double row[BENCH_COLUMNS];
    memset(row, 0, sizeof row);
    for (int i = 0; i < 110; i++) {
        row[BENCH_FRAME] = i < 10 ? 1000.0 : (double)(1 + (37 * (i - 10)) % 100); /* 37 is prime to 100: a permutation */
        row[BENCH_SUBSTEPS] = 2;
        bench_record(&b, row);
    }
    CHECK(bench_run_done(&b), "run done after 110 frames");
    bench_finish_run(&b, "on");
    CHECK(b.run_count == 1 && b.runs[0].counted == 100, "one run of 100 counted frames");
    CHECK(b.runs[0].median[BENCH_FRAME] == 50.5, "median 50.5, got %g", b.runs[0].median[BENCH_FRAME]);
    CHECK(b.runs[0].p95[BENCH_FRAME] == 95.0, "p95 95, got %g", b.runs[0].p95[BENCH_FRAME]);
    CHECK(b.runs[0].median[BENCH_SUBSTEPS] == 2.0, "substeps median 2");
    CHECK(!bench_run_done(&b), "the next run starts empty");
    bench_free(&b);
}

int main(void) {
    test_bench();
    test_replay();
    test_replay_exact();
    test_replay_bad_files();
    test_replay_values();
    test_output_files();
    test_scene_inputs();
    test_vorticity_keys();
    test_obstacle_grab();
    test_obstacle_left_behind();
    test_font();
    test_stir();
    printf("%d passed, %d failed\n", passes, failures);
    return failures ? 1 : 0;
}
