/* vorticity_overlap_probe: does 3D vorticity confinement's memory time overlap its compute? Times the stage
 * (eddy__vort_apply) on a random 128^3 field with the caches flushed first (192 MB read), against a copy of the bytes it
 * must move (its three face arrays into vel_tmp, its solid mask read) after the same flush, and against the sweep on
 * grids whose data stays in the caches (128x8x16: rings and data in L2; 128x128x16: data in L3; the median call times
 * 128 and 8, so as 128^3; 1 thread, where a grid of 16 planes has no halo planes between threads). Also the call after its inputs,
 * its outputs or both were read back into the caches, with plain stores instead of streaming ones, and back to back.
 * Blocks of each variant alternate round by round; each figure is a median over the rounds. A table, never pass/fail.
 * If memory overlapped compute, the cold call would take about the larger of "in L2" (divided by the threads: an even
 * split) and the copy; if it adds, about their sum.
 * Usage: vorticity_overlap_probe [threads (1)] [rounds (8)] */
#include "bench_median.h"
#include "sim_internal.h"
#include "vorticity_sweep.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

enum { CALLS = 4 }; /* calls per variant and round */

typedef struct {
    int threads;
    float *flush_buf; /* larger than every cache level: reading it evicts the fields */
    size_t flush_n;
    volatile float sink;
} probe;

static void flush_caches(probe *p) {
    const float *b = p->flush_buf;
    float acc = 0;
#pragma omp parallel for num_threads(p->threads) reduction(+ : acc)
    for (size_t i = 0; i < p->flush_n; i += 16) acc += b[i];
    p->sink = acc;
}

/* reads one float per cache line of the three arrays: brings them back into the caches */
static void read_back(probe *p, float *const f[3], const size_t n[3]) {
    float acc = 0;
    for (int a = 0; a < 3; a++) {
        const float *v = f[a];
#pragma omp parallel for num_threads(p->threads) reduction(+ : acc)
        for (size_t i = 0; i < n[a]; i += 16) acc += v[i];
    }
    p->sink = acc;
}

#if defined(__x86_64__)
/* streaming stores as the sweep writes its y- and z-faces: 512-bit where the CPU has them, else 128-bit */
__attribute__((target("avx512f"))) static void stream_copy_512(float *dst, const float *src, size_t n) {
    for (size_t i = 0; i < n; i += 16) _mm512_stream_ps(dst + i, _mm512_loadu_ps(src + i));
}
static void stream_copy_128(float *dst, const float *src, size_t n) {
    for (size_t i = 0; i < n; i += 4) _mm_stream_ps(dst + i, _mm_loadu_ps(src + i));
}
#endif

/* the stage's bytes copied: each face array into vel_tmp (streaming or plain stores), then the solid mask read */
static void copy_stage_bytes(probe *p, eddy_sim *s, bool streaming) {
    for (int a = 0; a < 3; a++) {
        const float *src = s->vel[a];
        float *dst = s->vel_tmp[a];
        const size_t n = s->nface[a], whole = n & ~(size_t)1023;
        bool streamed = false;
#if defined(__x86_64__)
        if (streaming && ((uintptr_t)dst & 63) == 0) {
            const bool wide = __builtin_cpu_supports("avx512f");
#pragma omp parallel for num_threads(p->threads) schedule(static)
            for (size_t b = 0; b < whole; b += 1024) {
                if (wide) stream_copy_512(dst + b, src + b, 1024);
                else stream_copy_128(dst + b, src + b, 1024);
            }
            _mm_sfence();
            for (size_t i = whole; i < n; i++) dst[i] = src[i];
            streamed = true;
        }
#endif
        if (!streamed) {
#pragma omp parallel for num_threads(p->threads) schedule(static)
            for (size_t i = 0; i < n; i++) dst[i] = src[i];
        }
    }
    unsigned acc = 0;
    const uint8_t *m = s->solid;
#pragma omp parallel for num_threads(p->threads) reduction(+ : acc)
    for (size_t i = 0; i < s->ncells; i += 64) acc += m[i];
    p->sink = (float)acc;
}

static eddy_sim *random_sim(int n0, int n1, int n2, int threads) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = 3, d.grid[0] = n0, d.grid[1] = n1, d.grid[2] = n2;
    d.threads = threads, d.dt = 0.01f, d.vorticity = 0.3f;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        fprintf(stderr, "vorticity_overlap_probe: %s\n", msg);
        return NULL;
    }
    unsigned state = 1u;
    for (int a = 0; a < 3; a++)
        for (size_t i = 0; i < s->nface[a]; i++) {
            state = state * 1664525u + 1013904223u;
            s->vel[a][i] = (float)(state >> 8) / 16777216.0f - 0.5f;
        }
    return s;
}

enum { COLD, COPY_STREAM, COPY_PLAIN, INPUTS_READ, OUTPUTS_READ, BOTH_READ, PLAIN_STORES, BACK_TO_BACK, IN_L3, IN_L2, NV };
static const char *const variant_name[NV] = {
    "cold (caches flushed)",        "copy of its bytes, streaming",      "copy of its bytes, plain stores",
    "flushed, then inputs read",    "flushed, then outputs read",        "flushed, then both read",
    "cold, plain stores",           "back to back",                      "in L3: 128x128x16, x 8 (1 thr)",
    "in L2: 128x8x16, x 128 (1 thr)"};

/* `repeats` calls in a row; their time into *ms. On failure, *failed names the simulation whose error to print. */
static bool time_stage(eddy_sim *s, const eddy_vort_options *o, int repeats, double *ms, eddy_sim **failed) {
    const double t0 = eddy__now_ms();
    for (int r = 0; r < repeats; r++)
        if (eddy__vort_apply(s, 1e-6f, o) != EDDY_OK) {
            *failed = s;
            return false;
        }
    *ms = eddy__now_ms() - t0;
    return true;
}

/* a grid 1/`parts` of 128^3 whose data stays in the caches: the median of 16 calls in a row, times `parts` (single
 * calls, so that one the host interrupts does not count) */
static bool time_in_cache(eddy_sim *s, const eddy_vort_options *o, int parts, double *ms, eddy_sim **failed) {
    double call[16];
    for (int c = 0; c < 16; c++)
        if (!time_stage(s, o, 1, &call[c], failed)) return false;
    *ms = bench_median(call, 16) * parts;
    return true;
}

int main(int argc, char **argv) {
    const int threads = argc > 1 ? atoi(argv[1]) : 1, rounds = argc > 2 ? atoi(argv[2]) : 8;
    if (threads < 1 || threads > 256 || rounds < 1 || rounds > 1000) {
        fprintf(stderr, "vorticity_overlap_probe: threads must be 1-256 and rounds 1-1000, got '%s' '%s'\n",
                argc > 1 ? argv[1] : "", argc > 2 ? argv[2] : "");
        return 2;
    }
    probe p = {.threads = threads, .flush_n = (size_t)48 << 20};
    p.flush_buf = malloc(p.flush_n * sizeof(float));
    eddy_sim *big = random_sim(128, 128, 128, threads), *mid = random_sim(128, 128, 16, 1), *tiny = random_sim(128, 8, 16, 1);
    double *t[NV] = {0};
    eddy_sim *failed = NULL;
    int status = 0;
    bool ok = p.flush_buf && big && mid && tiny;
    for (int v = 0; v < NV; v++) ok = ok && (t[v] = malloc(sizeof(double) * (size_t)rounds * CALLS)) != NULL;
    if (!ok) {
        fprintf(stderr, "vorticity_overlap_probe: out of memory (or a grid not created, above)\n");
        status = 1;
        goto done;
    }
    for (size_t i = 0; i < p.flush_n; i++) p.flush_buf[i] = 1.0f;
    const eddy_vort_options o = eddy__vort_default_options();
    eddy_vort_options plain = o;
    plain.stream_bytes = SIZE_MAX;

    for (int r = 0; r < rounds && ok; r++)
        for (int v = 0; v < NV && ok; v++)
            for (int k = 0; k <= CALLS && ok; k++) { /* k = 0 warms up; its time is not kept */
                double ms = 0;
                if (v == BACK_TO_BACK) ok = time_stage(big, &o, 1, &ms, &failed);
                else if (v == IN_L3 || v == IN_L2) ok = time_in_cache(v == IN_L3 ? mid : tiny, &o, v == IN_L3 ? 8 : 128, &ms, &failed);
                else {
                    flush_caches(&p);
                    if (v == INPUTS_READ || v == BOTH_READ) read_back(&p, big->vel, big->nface);
                    if (v == OUTPUTS_READ || v == BOTH_READ) read_back(&p, big->vel_tmp, big->nface);
                    if (v == COPY_STREAM || v == COPY_PLAIN) {
                        const double t0 = eddy__now_ms();
                        copy_stage_bytes(&p, big, v == COPY_STREAM);
                        ms = eddy__now_ms() - t0;
                    } else ok = time_stage(big, v == PLAIN_STORES ? &plain : &o, 1, &ms, &failed);
                }
                if (k > 0) t[v][r * CALLS + k - 1] = ms;
            }
    if (!ok) {
        fprintf(stderr, "vorticity_overlap_probe: the stage failed: %s\n", eddy_sim_last_error(failed));
        status = 1;
        goto done;
    }

    const int n = rounds * CALLS;
    double med[NV];
    printf("vorticity confinement, 3D 128^3, %d thread%s, %d rounds of %d calls per variant: median (quartiles) ms\n",
           threads, threads > 1 ? "s" : "", rounds, CALLS);
    for (int v = 0; v < NV; v++) {
        med[v] = bench_median(t[v], n); /* sorts: the quartiles below index the sorted times */
        printf("  %-34s %7.3f  (%.3f-%.3f)\n", variant_name[v], med[v], t[v][n / 4], t[v][(3 * n) / 4]);
    }
    /* the in-cache grids run 1 thread: with more, their time split evenly is the in-cache estimate */
    const double in_cache = med[IN_L2] / threads, sum = in_cache + med[COPY_STREAM];
    const double larger = in_cache > med[COPY_STREAM] ? in_cache : med[COPY_STREAM];
    printf("  in L2%s + streaming copy %.3f ms, the larger of them %.3f: cold / sum %.2f, cold / larger %.2f\n",
           threads > 1 ? " / threads" : "", sum, larger, med[COLD] / sum, med[COLD] / larger);

done:
    for (int v = 0; v < NV; v++) free(t[v]);
    eddy_sim_destroy(tiny);
    eddy_sim_destroy(mid);
    eddy_sim_destroy(big);
    free(p.flush_buf);
    return status;
}
