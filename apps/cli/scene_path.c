/* Paths for moving obstacles, emitters and splat sources:
 *   circle:     p(t) = c + r (cos th, sin th),             th = 2 pi (t / T + phase)
 *   figure8:    p(t) = c + (a sin th, b sin 2th)           (a 1:2 Lissajous curve)
 *   keyframes:  piecewise-linear between (time, position) keys, held before the first and after the last key
 *               unless `loop` repeats them with period keys[last].time - keys[0].time.
 * Velocities are the exact time derivatives (piecewise constant for keyframes). */
#include "scene.h"

#include <math.h>
#include <string.h>

static const double two_pi = 6.283185307179586;

void scene_path_eval(const scene_path *p, double t, int dim, float pos[3], float vel[3]) {
    memset(vel, 0, 3 * sizeof(float));
    memcpy(pos, p->center, 3 * sizeof(float));
    int a = p->plane[0], b = p->plane[1];
    switch (p->type) {
    case SCENE_PATH_NONE: break;
    case SCENE_PATH_CIRCLE: {
        double w = two_pi / p->period, th = two_pi * (t / p->period + p->phase);
        pos[a] = (float)(p->center[a] + p->radius * cos(th));
        pos[b] = (float)(p->center[b] + p->radius * sin(th));
        vel[a] = (float)(-p->radius * w * sin(th));
        vel[b] = (float)(p->radius * w * cos(th));
        break;
    }
    case SCENE_PATH_FIGURE8: {
        double w = two_pi / p->period, th = two_pi * (t / p->period + p->phase);
        pos[a] = (float)(p->center[a] + p->extent[0] * sin(th));
        pos[b] = (float)(p->center[b] + p->extent[1] * sin(2 * th));
        vel[a] = (float)(p->extent[0] * w * cos(th));
        vel[b] = (float)(p->extent[1] * 2 * w * cos(2 * th));
        break;
    }
    case SCENE_PATH_KEYFRAMES: {
        const scene_keyframe *k = p->keys;
        int n = p->key_count;
        if (n <= 0) break;
        double t0 = k[0].time, t1 = k[n - 1].time;
        if (p->loop && n >= 2 && t > t0) t = t0 + fmod(t - t0, t1 - t0);
        if (n == 1 || t <= t0) {
            memcpy(pos, k[0].position, 3 * sizeof(float));
            break;
        }
        if (t >= t1) {
            memcpy(pos, k[n - 1].position, 3 * sizeof(float));
            break;
        }
        int i = 0;
        while (i + 1 < n && k[i + 1].time <= t) i++;
        double span = k[i + 1].time - k[i].time, f = (t - k[i].time) / span;
        for (int c = 0; c < 3; c++) {
            double d = (double)k[i + 1].position[c] - (double)k[i].position[c];
            pos[c] = (float)(k[i].position[c] + f * d);
            vel[c] = (float)(d / span);
        }
        break;
    }
    }
    if (dim == 2) pos[2] = vel[2] = 0.0f;
}
