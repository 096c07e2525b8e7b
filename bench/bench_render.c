/* bench_render: time to make pictures and files. A 1024x576 dye frame from a 512x288 grid (plain, and with the
 * demo's shading + bloom + edges), a vorticity view with colour bar, a 128^3 volume at 512x512 (light sweep and ray
 * march, with and without shadows), and the writers (PNG 1024x576, NPY and VDB of 128^3). Median of the runs, for
 * 1 thread and all threads. A table, never pass/fail.  Usage: bench_render [runs] (default 5, plus one warm-up). */
#include "bench_median.h"
#include "eddy/render.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_ms(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }

typedef eddy_status (*job_fn)(void *ctx);

/* median wall time, ms; *cpu (may be NULL) gets the median process CPU time, which on a busy machine is the better
 * estimate of single-thread cost */
static double time_job(job_fn fn, void *ctx, int runs, double *cpu) {
    double t[64], c[64];
    if (runs > 64) runs = 64;
    if (fn(ctx) != EDDY_OK) return NAN; /* warm-up: scratch buffers grow here */
    for (int i = 0; i < runs; i++) {
        double t0 = now_ms(), c0 = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
        fn(ctx);
        t[i] = now_ms() - t0;
        c[i] = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    if (cpu) *cpu = bench_median(c, runs);
    return bench_median(t, runs);
}

typedef struct job {
    eddy_renderer *r;
    eddy_render_input *in;
    eddy_render_def rd;
    eddy_volume_def vd;
    eddy_image img;
    const char *path;
    const float *data;
} job;

static eddy_status do_2d(void *c) {
    job *j = c;
    return eddy_render_input_2d(j->r, j->in, &j->rd, &j->img);
}
static eddy_status do_volume(void *c) {
    job *j = c;
    return eddy_render_volume_input(j->r, j->in, &j->vd, &j->img);
}
static eddy_status do_png(void *c) {
    job *j = c;
    char msg[256];
    return eddy_png_write(j->path, &j->img, 0, msg, sizeof msg);
}
static eddy_status do_npy(void *c) {
    job *j = c;
    char msg[256];
    size_t shape[3] = {128, 128, 128};
    return eddy_npy_write(j->path, j->data, 3, shape, msg, sizeof msg);
}
static eddy_status do_vdb(void *c) {
    job *j = c;
    char msg[256];
    eddy_vdb_grid g = {.name = "density", .layout = {{128, 128, 128}, {1, 1, 1}, {0, 0, 0}, 128 * 128 * 128},
                       .components = 1, .data = {j->data}};
    return eddy_vdb_write(j->path, &g, 1, msg, sizeof msg);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1) runs = 1;
    /* 2D: swirls of three colours on 512 x 288 cells, an obstacle disk */
    enum { NX = 512, NY = 288 };
    float *d2[3];
    uint8_t *solid2 = malloc(NX * NY);
    float *vort = malloc(sizeof(float) * NX * NY);
    for (int c = 0; c < 3; c++) d2[c] = malloc(sizeof(float) * NX * NY);
    for (int j = 0; j < NY; j++)
        for (int i = 0; i < NX; i++) {
            float x = (float)i / NX, y = (float)j / NY;
            size_t e = (size_t)i + (size_t)NX * j;
            d2[0][e] = fmaxf(0.0f, sinf(9.0f * x + 3.0f * sinf(7.0f * y)));
            d2[1][e] = fmaxf(0.0f, sinf(11.0f * y + 2.0f * sinf(5.0f * x)));
            d2[2][e] = 0.6f * fmaxf(0.0f, cosf(13.0f * (x + y)));
            vort[e] = sinf(20.0f * x) * cosf(15.0f * y);
            solid2[e] = (x - 0.25f) * (x - 0.25f) + (y - 0.5f) * (y - 0.5f) * 0.32f < 0.003f;
        }
    eddy_render_input in2 = {.dim = 2, .box_size = {16.0f / 9.0f, 1, 1}, .dye_n = {NX, NY, 1},
                             .dye = {d2[0], d2[1], d2[2]}, .scalar_n = {NX, NY, 1}, .scalar = vort,
                             .solid_n = {NX, NY, 1}, .solid = solid2};
    /* 3D: 128^3 of billowing dye (a noisy ball) */
    enum { N3 = 128 };
    size_t n3 = (size_t)N3 * N3 * N3;
    float *d3[3];
    for (int c = 0; c < 3; c++) d3[c] = malloc(sizeof(float) * n3);
    for (int k = 0; k < N3; k++)
        for (int j = 0; j < N3; j++)
            for (int i = 0; i < N3; i++) {
                float x = (i + 0.5f) / N3 - 0.5f, y = (j + 0.5f) / N3 - 0.5f, z = (k + 0.5f) / N3 - 0.5f;
                float rr = sqrtf(x * x + y * y + z * z);
                float wob = 0.06f * sinf(23.0f * x) * sinf(19.0f * y) * sinf(17.0f * z);
                float v = fmaxf(0.0f, fminf(1.0f, (0.33f + wob - rr) * 20.0f));
                size_t e = (size_t)i + (size_t)N3 * ((size_t)j + (size_t)N3 * k);
                d3[0][e] = v, d3[1][e] = v * 0.8f, d3[2][e] = v * (0.5f + y);
            }
    eddy_render_input in3 = {.dim = 3, .box_size = {1, 1, 1}, .dye_n = {N3, N3, N3}, .dye = {d3[0], d3[1], d3[2]}};

    int max_threads = omp_get_max_threads();
    printf("bench_render: median of %d runs (ms); machine threads %d; OpenVDB %s\n", runs, max_threads,
           eddy_vdb_available() ? "yes" : "no");
    printf("%-46s %9s %9s %9s\n", "case", "1 thr", "1 thr cpu", "all thr");
    int thread_counts[2] = {1, max_threads};
    const char *names[] = {"2D dye 512x288 -> 1024x576, plain", "2D dye 1024x576 + shading + bloom + edges",
                           "2D vorticity 1024x576 + colour bar", "volume 128^3 -> 512x512, shadows (step 0.5)",
                           "volume 128^3 -> 512x512, no shadows", "volume 128^3 -> 512x512, shadows, step 1",
                           "PNG write 1024x576 RGB", "NPY write 128^3", "VDB write 128^3 (dense ball)"};
    enum { NCASE = 9 };
    double t[NCASE][2], cpu[NCASE];
    for (int ti = 0; ti < 2; ti++) {
        eddy_renderer *r = NULL;
        char msg[256];
        eddy_renderer_create(thread_counts[ti], &r, msg, sizeof msg);
        job j = {.r = r, .in = &in2};
        j.rd = eddy_render_def_default();
        j.rd.width = 1024;
        j.rd.height = 576;
        t[0][ti] = time_job(do_2d, &j, runs, ti == 0 ? &cpu[0] : NULL);
        j.rd.shading = j.rd.bloom = j.rd.edges = 1;
        t[1][ti] = time_job(do_2d, &j, runs, ti == 0 ? &cpu[1] : NULL);
        j.rd = eddy_render_def_default();
        j.rd.width = 1024, j.rd.height = 576, j.rd.view = EDDY_VIEW_VORTICITY, j.rd.colorbar = 1;
        t[2][ti] = time_job(do_2d, &j, runs, ti == 0 ? &cpu[2] : NULL);
        if (ti == 0) {
            j.rd = eddy_render_def_default();
            j.rd.width = 1024, j.rd.height = 576, j.rd.shading = j.rd.bloom = 1;
            do_2d(&j);
            eddy_png_write("bench_render_2d.png", &j.img, 0, msg, sizeof msg);
            j.path = "bench_render_frame.png";
            t[6][0] = time_job(do_png, &j, runs, &cpu[6]);
            j.path = "bench_render.npy";
            j.data = d3[0];
            t[7][0] = time_job(do_npy, &j, runs, &cpu[7]);
            j.path = "bench_render.vdb";
            t[8][0] = eddy_vdb_available() ? time_job(do_vdb, &j, runs, &cpu[8]) : (cpu[8] = NAN);
            remove("bench_render_frame.png");
            remove("bench_render.npy");
            remove("bench_render.vdb");
        }
        t[6][1] = t[7][1] = t[8][1] = NAN; /* writers are serial */
        eddy_image_free(&j.img);
        j.in = &in3;
        j.vd = eddy_volume_def_default();
        t[3][ti] = time_job(do_volume, &j, runs, ti == 0 ? &cpu[3] : NULL);
        if (ti == 1) eddy_png_write("bench_render_volume.png", &j.img, 0, msg, sizeof msg);
        j.vd.shadows = 0;
        t[4][ti] = time_job(do_volume, &j, runs, ti == 0 ? &cpu[4] : NULL);
        j.vd.shadows = 1;
        j.vd.step = 1.0f;
        t[5][ti] = time_job(do_volume, &j, runs, ti == 0 ? &cpu[5] : NULL);
        eddy_image_free(&j.img);
        eddy_renderer_destroy(r);
    }
    for (int c = 0; c < NCASE; c++) {
        printf("%-46s %9.1f %9.1f ", names[c], t[c][0], cpu[c]);
        if (isnan(t[c][1])) printf("%9s\n", "-");
        else printf("%9.1f\n", t[c][1]);
    }
    printf("pictures: bench_render_2d.png, bench_render_volume.png\n");
    for (int c = 0; c < 3; c++) free(d2[c]), free(d3[c]);
    free(vort);
    free(solid2);
    return 0;
}
