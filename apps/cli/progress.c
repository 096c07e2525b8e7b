/* Progress reporting (see progress.h). Everything goes to stderr so stdout stays free for data. */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct progress {
    bool tty, quiet, drawn;
    int first_frame, total;
    long first_step;
    double start, last_draw;
    int last_decile;
};

double progress_now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

progress *progress_create(bool tty, bool quiet, int first_frame, int total_frames, long first_step) {
    progress *p = (progress *)calloc(1, sizeof *p);
    if (!p) return NULL;
    p->tty = tty;
    p->quiet = quiet;
    p->first_frame = first_frame;
    p->total = total_frames > 0 ? total_frames : 1;
    p->first_step = first_step;
    p->start = p->last_draw = progress_now_s();
    p->last_decile = first_frame * 10 / p->total;
    return p;
}

static void format_time(double s, char *buf, size_t size) {
    if (!(s >= 0) || s > 1e7) {
        snprintf(buf, size, "--:--");
        return;
    }
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, size, "%ld:%02ld:%02ld", t / 3600, (t / 60) % 60, t % 60);
    else snprintf(buf, size, "%ld:%02ld", t / 60, t % 60);
}

static void rates(const progress *p, int frame, long step, double *steps_per_s, double *eta) {
    double el = progress_now_s() - p->start;
    long steps = step - p->first_step;
    int frames = frame - p->first_frame;
    *steps_per_s = el > 0 ? (double)steps / el : 0;
    *eta = (frames > 0 && el > 0) ? el / frames * (p->total - frame) : -1;
}

static void draw(progress *p, int frame, double t, long step) {
    double sps, eta;
    rates(p, frame, step, &sps, &eta);
    char eta_text[32];
    format_time(eta, eta_text, sizeof eta_text);
    int width = 24, filled = (int)((long long)frame * width / p->total);
    char bar[32];
    for (int i = 0; i < width; i++) bar[i] = i < filled ? '#' : '-';
    bar[width] = '\0';
    fprintf(stderr, "\r[%s] frame %d/%d  t = %.3f s  %.0f steps/s  ETA %s \033[K", bar, frame, p->total, t, sps, eta_text);
    fflush(stderr);
    p->drawn = true;
    p->last_draw = progress_now_s();
}

void progress_step(progress *p, int frame, double t, long step) {
    if (!p || p->quiet || !p->tty) return;
    if (progress_now_s() - p->last_draw >= 0.1) draw(p, frame, t, step);
}

void progress_frame(progress *p, int frame, double t, long step) {
    if (!p || p->quiet) return;
    if (p->tty) {
        if (progress_now_s() - p->last_draw >= 0.1 || frame == p->total) draw(p, frame, t, step);
        return;
    }
    int decile = frame * 10 / p->total;
    if (decile == p->last_decile && frame != p->first_frame + 1) return;
    p->last_decile = decile;
    double sps, eta;
    rates(p, frame, step, &sps, &eta);
    char eta_text[32];
    format_time(eta, eta_text, sizeof eta_text);
    fprintf(stderr, "eddy: frame %d/%d  t = %.3f s  step %ld  %.0f steps/s  ETA %s\n", frame, p->total, t, step, sps, eta_text);
}

void progress_clear(progress *p) {
    if (!p || !p->tty || !p->drawn) return;
    fprintf(stderr, "\r\033[K");
    p->drawn = false;
}

void progress_finish(progress *p, int frame, double t, long step) {
    if (!p || p->quiet) return;
    progress_clear(p);
    double el = progress_now_s() - p->start, sps, eta;
    rates(p, frame, step, &sps, &eta);
    fprintf(stderr, "eddy: %d frame%s, %ld steps to t = %.3f s in %.1f s (%.0f steps/s)\n", frame - p->first_frame,
            frame - p->first_frame == 1 ? "" : "s", step - p->first_step, t, el, sps);
}

void progress_free(progress *p) { free(p); }
