/* Replay files: parsing and writing the event lines described in replay.h. */
#define _POSIX_C_SOURCE 200809L
#include "replay.h"

#include "temp_file.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int key; } replay_named_keys[] = {
    /* '#' has a name: as a character it would start a comment, and a recorded '#' key could not be read back */
    {"space", ' '}, {"escape", VIEWER_KEY_ESCAPE}, {"plus", '+'}, {"minus", '-'}, {"hash", '#'}, {"left", VIEWER_KEY_LEFT},
    {"right", VIEWER_KEY_RIGHT}, {"up", VIEWER_KEY_UP}, {"down", VIEWER_KEY_DOWN},
};

const char *replay_key_name(int key, char buf[2]) {
    for (size_t i = 0; i < sizeof replay_named_keys / sizeof replay_named_keys[0]; i++)
        if (replay_named_keys[i].key == key) return replay_named_keys[i].name;
    if (key > 32 && key < 127) { buf[0] = (char)key; buf[1] = '\0'; return buf; }
    return "unknown";
}

static int replay_key_from_name(const char *name) {
    for (size_t i = 0; i < sizeof replay_named_keys / sizeof replay_named_keys[0]; i++)
        if (strcmp(replay_named_keys[i].name, name) == 0) return replay_named_keys[i].key;
    if (strlen(name) == 1 && name[0] > 32 && name[0] < 127) {
        char c = name[0];
        return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
    }
    return -1;
}

static int replay_fail(char *msg, size_t msg_size, const char *name, int line, const char *what) {
    if (msg && msg_size) snprintf(msg, msg_size, "%s:%d: %s", name, line, what);
    return -1;
}

/* Positions may lie off the window, VIEWER_FRACTION_MIN .. MAX. A value too small for a double (1e-400) reads as 0, as
 * it is. */
static int parse_fraction(const char *tok, float *out) {
    char *end;
    double v = tok ? strtod(tok, &end) : 0;
    if (!tok || end == tok || *end || !(v >= VIEWER_FRACTION_MIN && v <= VIEWER_FRACTION_MAX)) return -1;
    *out = (float)v;
    return 0;
}

int replay_parse(const char *text, const char *name, replay *out, char *msg, size_t msg_size) {
    memset(out, 0, sizeof *out);
    int cap = 0, line_no = 0;
    double last_time = 0;
    const char *p = text;
    char line[512];
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        line_no++;
        if (len >= sizeof line) { replay_free(out); return replay_fail(msg, msg_size, name, line_no, "line longer than 511 characters"); }
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (nl ? 1 : 0);
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *tok[6] = {0};
        int ntok = 0;
        char *save = NULL;
        for (char *t = strtok_r(line, " \t\r", &save); t && ntok < 6; t = strtok_r(NULL, " \t\r", &save)) tok[ntok++] = t;
        if (ntok == 0) continue;
        viewer_event ev;
        memset(&ev, 0, sizeof ev);
        char *end, what[160];
        ev.time = strtod(tok[0], &end);
        if (end == tok[0] || *end || !isfinite(ev.time) || ev.time < 0) {
            replay_free(out);
            snprintf(what, sizeof what, "time '%.40s': expected seconds >= 0", tok[0]);
            return replay_fail(msg, msg_size, name, line_no, what);
        }
        if (ev.time < last_time) {
            replay_free(out);
            return replay_fail(msg, msg_size, name, line_no, "time: events must not go back in time");
        }
        last_time = ev.time;
        const char *kind = ntok > 1 ? tok[1] : "";
        int expected_tokens;
        if (!strcmp(kind, "move") || !strcmp(kind, "down") || !strcmp(kind, "up")) {
            ev.kind = !strcmp(kind, "move") ? VIEWER_EVENT_MOVE : !strcmp(kind, "down") ? VIEWER_EVENT_DOWN : VIEWER_EVENT_UP;
            expected_tokens = ev.kind == VIEWER_EVENT_MOVE ? 4 : 5;
            if (ntok != expected_tokens || parse_fraction(tok[2], &ev.x) || parse_fraction(tok[3], &ev.y)) {
                replay_free(out);
                const char *bad = ntok != expected_tokens ? NULL : parse_fraction(tok[2], &ev.x) ? tok[2] : tok[3];
                snprintf(what, sizeof what, "%s: expected '%s' with X, Y window fractions from -1 to 2%s%.40s%s",
                         ev.kind == VIEWER_EVENT_MOVE ? "move" : "down/up",
                         ev.kind == VIEWER_EVENT_MOVE ? "TIME move X Y" : "TIME down|up X Y BUTTON", bad ? ", got '" : "",
                         bad ? bad : "", bad ? "'" : "");
                return replay_fail(msg, msg_size, name, line_no, what);
            }
            if (ev.kind != VIEWER_EVENT_MOVE) {
                const char *b = tok[4];
                if (!strncmp(b, "shift-", 6)) { ev.shift = 1; b += 6; }
                if (!strcmp(b, "left")) ev.button = VIEWER_BUTTON_LEFT;
                else if (!strcmp(b, "right")) ev.button = VIEWER_BUTTON_RIGHT;
                else {
                    replay_free(out);
                    return replay_fail(msg, msg_size, name, line_no, "button: expected left, right, shift-left or shift-right");
                }
            }
        } else if (!strcmp(kind, "key")) {
            ev.kind = VIEWER_EVENT_KEY;
            ev.key = ntok == 3 ? replay_key_from_name(tok[2]) : -1;
            if (ev.key < 0) {
                replay_free(out);
                return replay_fail(msg, msg_size, name, line_no,
                                   "key: expected one character or space, escape, plus, minus, hash, left, right, up, down");
            }
        } else if (!strcmp(kind, "wheel")) {
            ev.kind = VIEWER_EVENT_WHEEL;
            /* bounded: a float holds it, and a thousand notches already zoom from one end to the other */
            double v = ntok == 3 ? strtod(tok[2], &end) : 0;
            if (ntok != 3 || end == tok[2] || *end || !(fabs(v) <= (double)VIEWER_WHEEL_MAX)) {
                replay_free(out);
                snprintf(what, sizeof what, "wheel%s%.40s%s: expected 'TIME wheel NOTCHES', notches from -1000 to 1000",
                         ntok == 3 ? " '" : "", ntok == 3 ? tok[2] : "", ntok == 3 ? "'" : "");
                return replay_fail(msg, msg_size, name, line_no, what);
            }
            ev.wheel = (float)v;
        } else if (!strcmp(kind, "leave") || !strcmp(kind, "quit")) {
            ev.kind = !strcmp(kind, "leave") ? VIEWER_EVENT_LEAVE : VIEWER_EVENT_QUIT;
            if (ntok != 2) {
                replay_free(out);
                return replay_fail(msg, msg_size, name, line_no, "leave/quit take no arguments");
            }
        } else {
            replay_free(out);
            return replay_fail(msg, msg_size, name, line_no, "kind: expected move, down, up, key, wheel, leave or quit");
        }
        if (out->count == cap) {
            int ncap = cap ? 2 * cap : 64;
            viewer_event *grown = realloc(out->events, (size_t)ncap * sizeof *grown);
            if (!grown) { replay_free(out); return replay_fail(msg, msg_size, name, line_no, "out of memory"); }
            out->events = grown;
            cap = ncap;
        }
        out->events[out->count++] = ev;
    }
    return 0;
}

/* A replay is text of short lines. What is not is refused as it is read, so an input that does not end (/dev/zero, a
 * device, a stream) stops at its first NUL byte or overlong line instead of being read until memory runs out. Text of
 * valid length stops at 1 GiB (hours of input recorded from a 1000 Hz mouse). */
#define REPLAY_MAX_BYTES ((size_t)1 << 30)
#define REPLAY_MAX_LINE 511

int replay_load(const char *path, replay *out, char *msg, size_t msg_size) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (msg && msg_size) snprintf(msg, msg_size, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0, line_len = 0;
    char *text = malloc(cap);
    int line = 1, nul = 0, too_long = 0, too_large = 0;
    errno = 0;
    while (text) {
        size_t got = fread(text + len, 1, cap - len - 1, f);
        for (size_t i = len; i < len + got && !nul && !too_long; i++) {
            if (text[i] == '\n') { line++; line_len = 0; }
            else if (text[i] == '\0') nul = 1; /* the parser reads NUL-terminated text: the file would end there */
            else too_long = ++line_len > REPLAY_MAX_LINE;
        }
        len += got;
        if (nul || too_long || len < cap - 1) break;
        if (len > REPLAY_MAX_BYTES) { too_large = 1; break; }
        char *grown = realloc(text, cap * 2);
        if (!grown) { free(text); text = NULL; break; }
        text = grown;
        cap *= 2;
    }
    int read_error = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (!text || read_error || nul || too_long || too_large) {
        free(text);
        if (!msg || !msg_size) return -1;
        if (nul) snprintf(msg, msg_size, "%s:%d: a NUL byte: a replay file is text", path, line);
        else if (too_long) snprintf(msg, msg_size, "%s:%d: line longer than %d characters", path, line, REPLAY_MAX_LINE);
        else if (too_large) snprintf(msg, msg_size, "%s: more than %zu MiB: not a replay file", path, REPLAY_MAX_BYTES >> 20);
        else if (read_error) snprintf(msg, msg_size, "%s: cannot read: %s", path, strerror(read_error));
        else snprintf(msg, msg_size, "%s: out of memory", path);
        return -1;
    }
    text[len] = '\0';
    int rc = replay_parse(text, path, out, msg, msg_size);
    free(text);
    return rc;
}

void replay_free(replay *r) {
    free(r->events);
    memset(r, 0, sizeof *r);
}

const viewer_event *replay_poll(replay *r, double now) {
    /* a small tolerance so that an event at t = k/60 is not missed to float rounding of the frame clock */
    if (r->next < r->count && r->events[r->next].time <= now + 1e-9) return &r->events[r->next++];
    return NULL;
}

/* `v` in the fewest decimals that read back as the same value (a float, as the reader converts positions and wheel
 * notches, or a double: times), so that a recording replays exactly the events that were handled: four decimals
 * moved a frame's time (1/60 s written as 0.0167) into the next frame, and positions off by up to 5e-5. Exponent
 * notation only for values too small for 20 decimals. */
static const char *replay_number(char buf[64], double v, int as_float) {
    for (int d = 0; d <= 20; d++) {
        int n = snprintf(buf, 64, "%.*f", d, v);
        if (n < 0 || n >= 64) break;
        double back = strtod(buf, NULL);
        if (as_float ? (float)back == (float)v : back == v) return buf;
    }
    snprintf(buf, 64, as_float ? "%.9g" : "%.17g", v);
    return buf;
}

void replay_write_event(FILE *f, const viewer_event *ev) {
    char key[2], t[64], x[64], y[64], w[64];
    replay_number(t, ev->time, 0);
    switch (ev->kind) {
    case VIEWER_EVENT_MOVE: fprintf(f, "%s move %s %s\n", t, replay_number(x, ev->x, 1), replay_number(y, ev->y, 1)); break;
    case VIEWER_EVENT_DOWN:
    case VIEWER_EVENT_UP:
        fprintf(f, "%s %s %s %s %s%s\n", t, ev->kind == VIEWER_EVENT_DOWN ? "down" : "up", replay_number(x, ev->x, 1),
                replay_number(y, ev->y, 1), ev->shift ? "shift-" : "", ev->button == VIEWER_BUTTON_RIGHT ? "right" : "left");
        break;
    case VIEWER_EVENT_KEY: fprintf(f, "%s key %s\n", t, replay_key_name(ev->key, key)); break;
    case VIEWER_EVENT_WHEEL: fprintf(f, "%s wheel %s\n", t, replay_number(w, ev->wheel, 1)); break;
    case VIEWER_EVENT_LEAVE: fprintf(f, "%s leave\n", t); break;
    case VIEWER_EVENT_QUIT: fprintf(f, "%s quit\n", t); break;
    }
}

int replay_recorder_open(replay_recorder *rec, const char *path, char *msg, size_t msg_size) {
    memset(rec, 0, sizeof *rec);
    eddy_status st;
    rec->tmp_path = eddy__temp_file_for(path, msg, msg_size, &st);
    rec->path = strdup(path);
    if (!rec->tmp_path || !rec->path) {
        if (rec->tmp_path && msg && msg_size) snprintf(msg, msg_size, "%s: out of memory", path);
        replay_recorder_abort(rec);
        return -1;
    }
    rec->file = fopen(rec->tmp_path, "w");
    if (!rec->file) {
        if (msg && msg_size) snprintf(msg, msg_size, "%s: cannot write %s: %s", path, rec->tmp_path, strerror(errno));
        replay_recorder_abort(rec);
        return -1;
    }
    fputs("# eddy viewer replay: TIME KIND [ARGS] (docs/viewer.md)\n", rec->file);
    return 0;
}

void replay_recorder_write(replay_recorder *rec, const viewer_event *ev) {
    if (!rec->file) return;
    /* never earlier than the last line (the format's rule): a frame's window events are handled before its replayed
     * ones, which may carry an earlier time inside the same frame; either time hands them to the same frame */
    viewer_event e = *ev;
    if (e.time < rec->last_time) e.time = rec->last_time;
    rec->last_time = e.time;
    errno = 0;
    replay_write_event(rec->file, &e);
    if (ferror(rec->file) && !rec->error) rec->error = errno ? errno : EIO;
}

int replay_recorder_finish(replay_recorder *rec, char *msg, size_t msg_size) {
    if (!rec->file) { replay_recorder_abort(rec); return 0; }
    int e = rec->error ? rec->error : ferror(rec->file) ? EIO : 0;
    errno = 0;
    if (fclose(rec->file) != 0 && !e) e = errno ? errno : EIO;
    rec->file = NULL;
    if (!e && rename(rec->tmp_path, rec->path) != 0) e = errno;
    if (e) {
        if (msg && msg_size) snprintf(msg, msg_size, "%s: the recording could not be written whole: %s (nothing kept)",
                                      rec->path, strerror(e));
        replay_recorder_abort(rec);
        return -1;
    }
    free(rec->tmp_path);
    free(rec->path);
    memset(rec, 0, sizeof *rec);
    return 0;
}

void replay_recorder_abort(replay_recorder *rec) {
    if (rec->file) fclose(rec->file);
    if (rec->tmp_path) remove(rec->tmp_path);
    free(rec->tmp_path);
    free(rec->path);
    memset(rec, 0, sizeof *rec);
}
