/* bench_wind: the game wind field's frame budget. One core (threads = 1) unless told otherwise.
 *   1. eddy_wind_move + eddy_wind_frame of the default 32 x 16 x 32 field (1 m cells) at 60 frames/s: a player
 *      (sphere collider, r = 0.6 m) walking at 4 m/s with the window centred on it, ambient wind 2 m/s, for
 *      several projection settings (the first row is the default definition); median ms of the whole frame and of
 *      each part.
 *   2. eddy_particles_update of 100,000 particles in that field, and eddy_wind_sample_batch of 100,000 points.
 * Prints medians over the timed repetitions (after warm-up); a table, never pass/fail.
 * Usage: bench_wind [frames] [threads]   (defaults 300 and 1) */
#include "bench_median.h"
#include "wind_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of the calling thread: on a shared machine it leaves out the time the thread waited for a core */
static double cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

typedef struct {
    const char *name;
    eddy_pressure_solver solver;
    float tolerance;
    int max_iterations;
    float noise;
} frame_case;

/* the player's path: a walk around a circle of 20 m at 4 m/s, 1 m above the ground (y up) */
static void player_at(double t, float pos[3], float vel[3]) {
    const double R = 20.0, speed = 4.0, om = speed / R;
    pos[0] = (float)(R * cos(om * t));
    pos[1] = 1.0f;
    pos[2] = (float)(R * sin(om * t));
    vel[0] = (float)(-speed * sin(om * t));
    vel[1] = 0.0f;
    vel[2] = (float)(speed * cos(om * t));
}

static eddy_wind *run_frames(const frame_case *c, int frames, int threads, int warm, bool print) {
    eddy_wind_def d = eddy_wind_def_default();
    d.ambient[0] = 2.0f;
    d.noise_amplitude = c->noise;
    d.pressure.solver = c->solver;
    d.pressure.tolerance = c->tolerance;
    d.pressure.max_iterations = c->max_iterations;
    d.threads = threads;
    eddy_wind *w = NULL;
    char msg[256];
    if (eddy_wind_create(&d, &w, msg, sizeof msg) != EDDY_OK) {
        printf("create failed: %s\n", msg);
        return NULL;
    }
    const float dt = 1.0f / 60.0f;
    double *t_frame = calloc((size_t)frames, sizeof(double)), *t_move = calloc((size_t)frames, sizeof(double));
    double *t_cpu = calloc((size_t)frames, sizeof(double));
    double *t_src = calloc((size_t)frames, sizeof(double)), *t_adv = calloc((size_t)frames, sizeof(double));
    double *t_proj = calloc((size_t)frames, sizeof(double)), *t_fin = calloc((size_t)frames, sizeof(double));
    double its = 0, div = 0, res = 0;
    int timed = 0;
    for (int f = 0; f < frames + warm; f++) {
        eddy_wind_collider player = {.shape = EDDY_SHAPE_SPHERE, .radius = 0.6f};
        player_at(f * (double)dt, player.center, player.velocity);
        eddy_wind_sources src = {.colliders = &player, .collider_count = 1};
        double t0 = eddy__now_ms(), c0 = cpu_ms();
        eddy_status st = eddy_wind_move(w, player.center);
        if (st == EDDY_OK) st = eddy_wind_frame(w, dt, &src);
        double t1 = eddy__now_ms(), c1 = cpu_ms();
        if (st != EDDY_OK) {
            printf("%s: frame failed: %s\n", c->name, eddy_wind_last_error(w));
            break;
        }
        if (f < warm) continue;
        const eddy_wind_frame_stats *s = eddy_wind_stats(w);
        t_frame[timed] = t1 - t0;
        t_cpu[timed] = c1 - c0;
        t_move[timed] = s->move_ms;
        t_src[timed] = s->sources_ms;
        t_adv[timed] = s->advect_ms;
        t_proj[timed] = s->project_ms;
        t_fin[timed] = s->finish_ms;
        its += s->pressure_iterations;
        res = s->pressure_residual > res ? s->pressure_residual : res;
        div = s->max_div > div ? s->max_div : div;
        timed++;
    }
    if (print && timed) {
        double wall = bench_median(t_frame, timed), cpu = bench_median(t_cpu, timed);
        printf("%-26s %3d %7.3f %7.3f %6.3f %7.3f %7.3f %7.3f %6.3f %5.1f %9.1e %9.1e\n", c->name, threads, wall, cpu,
               bench_median(t_move, timed), bench_median(t_src, timed), bench_median(t_adv, timed), bench_median(t_proj, timed),
               bench_median(t_fin, timed), its / timed, res, div);
    }
    free(t_cpu);
    free(t_frame);
    free(t_move);
    free(t_src);
    free(t_adv);
    free(t_proj);
    free(t_fin);
    return w;
}

int main(int argc, char **argv) {
    int frames = argc > 1 ? atoi(argv[1]) : 300;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    if (frames < 5) frames = 5;
    const frame_case cases[] = {
        {"Jacobi 20 its (default)", EDDY_PRESSURE_JACOBI, 1e-3f, 20, 0.0f},
        {"default + ambient noise", EDDY_PRESSURE_JACOBI, 1e-3f, 20, 1.0f},
        {"MGPCG tol 1e-3, <= 8 its", EDDY_PRESSURE_MGPCG, 1e-3f, 8, 0.0f},
        {"MGPCG 1 it", EDDY_PRESSURE_MGPCG, 1e-3f, 1, 0.0f},
        {"MGPCG 2 its", EDDY_PRESSURE_MGPCG, 1e-3f, 2, 0.0f},
        {"RBGS 5 its", EDDY_PRESSURE_RBGS, 1e-3f, 5, 0.0f},
        {"RBGS 10 its", EDDY_PRESSURE_RBGS, 1e-3f, 10, 0.0f},
        {"Jacobi 10 its", EDDY_PRESSURE_JACOBI, 1e-3f, 10, 0.0f},
        {"Jacobi 40 its", EDDY_PRESSURE_JACOBI, 1e-3f, 40, 0.0f},
    };
    printf("wind frame, default 32 x 16 x 32 field, dt = 1/60 s, player collider + moving window; medians of %d frames, ms\n",
           frames);
    printf("frame: move + frame, wall clock; cpu: CPU time of the calling thread (leaves out waiting for a core);\n"
           "parts: wall clock; its: mean pressure iterations; max resid: largest relative residual; max div: 1/s\n");
    printf("%-26s %3s %7s %7s %6s %7s %7s %7s %6s %5s %9s %9s\n", "projection", "thr", "frame", "cpu", "move",
           "sources", "advect", "project", "finish", "its", "max resid", "max div");
    eddy_wind *keep = NULL;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        eddy_wind *w = run_frames(&cases[c], frames, threads, 20, true);
        if (c == 0) keep = w;
        else eddy_wind_destroy(w);
    }
    if (!keep) return 1;

    /* particles in the field the first case left behind */
    const int N = 100000, reps = 41;
    eddy_particles_def pd = eddy_particles_def_default();
    pd.count = N;
    pd.drag = 3.0f;
    pd.gravity[1] = -2.0f;
    pd.lifetime = 4.0f;
    pd.threads = threads;
    eddy_particles *p = NULL;
    char msg[256];
    if (eddy_particles_create(&pd, &p, msg, sizeof msg) != EDDY_OK) {
        printf("particles: %s\n", msg);
        return 1;
    }
    double t[64], tc[64];
    eddy_particles_update(p, keep, 1.0f / 60.0f); /* births */
    for (int r = 0; r < reps; r++) {
        double t0 = eddy__now_ms(), c0 = cpu_ms();
        eddy_particles_update(p, keep, 1.0f / 60.0f);
        t[r] = eddy__now_ms() - t0;
        tc[r] = cpu_ms() - c0;
    }
    double part_ms = bench_median(t, reps), part_cpu = bench_median(tc, reps);
    float *vel = malloc(3 * (size_t)N * sizeof(float));
    for (int r = 0; r < reps; r++) {
        double t0 = eddy__now_ms(), c0 = cpu_ms();
        eddy_wind_sample_batch(keep, eddy_particles_positions(p), 3, vel, 3, (size_t)N);
        t[r] = eddy__now_ms() - t0;
        tc[r] = cpu_ms() - c0;
    }
    double batch_ms = bench_median(t, reps), batch_cpu = bench_median(tc, reps);
    printf("\nparticles and sampling, medians of %d repetitions\n", reps);
    printf("%-36s %3s %9s %9s %12s\n", "", "thr", "wall ms", "cpu ms", "cpu ns/item");
    printf("%-36s %3d %9.3f %9.3f %12.1f\n", "eddy_particles_update, 100,000", threads, part_ms, part_cpu,
           part_cpu * 1e6 / N);
    printf("%-36s %3d %9.3f %9.3f %12.1f\n", "eddy_wind_sample_batch, 100,000", threads, batch_ms, batch_cpu,
           batch_cpu * 1e6 / N);
    free(vel);
    eddy_particles_destroy(p);
    eddy_wind_destroy(keep);
    return 0;
}
