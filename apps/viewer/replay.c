/* Replay files: parsing and writing the event lines described in replay.h. */
#include "replay.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const struct { const char *name; int key; } replay_named_keys[] = {
    {"space", ' '}, {"escape", VIEWER_KEY_ESCAPE}, {"plus", '+'}, {"minus", '-'}, {"left", VIEWER_KEY_LEFT},
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

static int parse_fraction(const char *tok, float *out) {
    char *end;
    errno = 0;
    double v = tok ? strtod(tok, &end) : 0;
    if (!tok || *end || errno || !isfinite(v) || v < -1.0 || v > 2.0) return -1;
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
        char *end;
        errno = 0;
        ev.time = strtod(tok[0], &end);
        if (*end || errno || !isfinite(ev.time) || ev.time < 0) {
            replay_free(out);
            return replay_fail(msg, msg_size, name, line_no, "time: expected seconds >= 0");
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
                return replay_fail(msg, msg_size, name, line_no,
                                   ev.kind == VIEWER_EVENT_MOVE ? "move: expected 'TIME move X Y' with X, Y window fractions"
                                                                : "down/up: expected 'TIME down|up X Y BUTTON' with X, Y window fractions");
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
                                   "key: expected one character or space, escape, plus, minus, left, right, up, down");
            }
        } else if (!strcmp(kind, "wheel")) {
            ev.kind = VIEWER_EVENT_WHEEL;
            errno = 0;
            double v = ntok == 3 ? strtod(tok[2], &end) : 0;
            if (ntok != 3 || *end || errno || !isfinite(v)) {
                replay_free(out);
                return replay_fail(msg, msg_size, name, line_no, "wheel: expected 'TIME wheel NOTCHES'");
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

int replay_load(const char *path, replay *out, char *msg, size_t msg_size) {
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (msg && msg_size) snprintf(msg, msg_size, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    char *text = malloc(cap);
    while (text) {
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (len < cap - 1) break;
        char *grown = realloc(text, cap * 2);
        if (!grown) { free(text); text = NULL; break; }
        text = grown;
        cap *= 2;
    }
    int read_error = ferror(f);
    fclose(f);
    if (!text || read_error) {
        free(text);
        if (msg && msg_size) snprintf(msg, msg_size, "%s: cannot read", path);
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

void replay_write_event(FILE *f, const viewer_event *ev) {
    char buf[2];
    switch (ev->kind) {
    case VIEWER_EVENT_MOVE: fprintf(f, "%.4f move %.4f %.4f\n", ev->time, ev->x, ev->y); break;
    case VIEWER_EVENT_DOWN:
    case VIEWER_EVENT_UP:
        fprintf(f, "%.4f %s %.4f %.4f %s%s\n", ev->time, ev->kind == VIEWER_EVENT_DOWN ? "down" : "up", ev->x, ev->y,
                ev->shift ? "shift-" : "", ev->button == VIEWER_BUTTON_RIGHT ? "right" : "left");
        break;
    case VIEWER_EVENT_KEY: fprintf(f, "%.4f key %s\n", ev->time, replay_key_name(ev->key, buf)); break;
    case VIEWER_EVENT_WHEEL: fprintf(f, "%.4f wheel %g\n", ev->time, ev->wheel); break;
    case VIEWER_EVENT_LEAVE: fprintf(f, "%.4f leave\n", ev->time); break;
    case VIEWER_EVENT_QUIT: fprintf(f, "%.4f quit\n", ev->time); break;
    }
}
