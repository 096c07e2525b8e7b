/* Benchmark of the surface module: fast sweeping serial vs the block wavefront, and marching cubes/squares.
 *
 *   bench_surface [--threads 2,4,...] [--runs N] [--block B] [--band M] [--quick]
 *
 * Field: two Gaussian blobs (one large in the middle, one small near a corner) thresholded at 0.5, so the signed
 * distance covers the whole grid from two interfaces. Sweep times are the medians of --runs runs (default 5; 256^3
 * runs 3 times); "seed" is the interface step, "sweep" the fast sweeping, "rounds" the rounds of 2^d sweeps until
 * nothing changed. Every parallel result is compared byte for byte with the serial one ("same"). Prints a table;
 * never passes or fails on time. */
#include "bench_median.h"
#include "eddy/surface.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void blobs(int dim, const int n[3], float h, float *f) {
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                float x[3] = {(float)i * h, (float)j * h, (float)k * h};
                const float c1[3] = {0.52f, 0.47f, 0.5f}, c2[3] = {0.85f, 0.2f, 0.8f};
                double r1 = 0, r2 = 0;
                for (int a = 0; a < dim; a++) {
                    r1 += (x[a] - c1[a]) * (x[a] - c1[a]);
                    r2 += (x[a] - c2[a]) * (x[a] - c2[a]);
                }
                f[(size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k)] =
                    (float)(exp(-r1 / 0.06) + exp(-r2 / 0.01));
            }
}

typedef struct options {
    int threads[8], nthreads, runs, block;
    float band;
    int quick;
} options;

static void bench_case(int dim, int size, const options *o) {
    eddy_surface_def d = eddy_surface_def_default();
    d.dim = dim;
    d.n[0] = d.n[1] = size;
    d.n[2] = dim == 3 ? size : 1;
    d.h = 1.0f / (float)(size - 1);
    d.max_distance = o->band;
    d.block[0] = d.block[1] = d.block[2] = o->block;
    size_t N = (size_t)d.n[0] * (size_t)d.n[1] * (size_t)d.n[2];
    float *f = malloc(N * sizeof(float)), *ref = malloc(N * sizeof(float)), *phi = malloc(N * sizeof(float));
    if (!f || !ref || !phi) {
        printf("%dD %d: out of memory\n", dim, size);
        free(f), free(ref), free(phi);
        return;
    }
    blobs(dim, d.n, d.h, f);
    int runs = o->runs > 0 ? o->runs : (dim == 3 && size >= 256 ? 3 : 5);
    char label[32];
    snprintf(label, sizeof label, dim == 3 ? "3D %d^3" : "2D %d^2", size);
    double serial_ms = 0;
    for (int t = -1; t < o->nthreads; t++) { /* t = -1: serial */
        eddy_surface_def dt = d;
        dt.threads = t < 0 ? 1 : o->threads[t];
        dt.schedule = t < 0 ? EDDY_SWEEP_SERIAL : EDDY_SWEEP_WAVEFRONT;
        eddy_surface *s = NULL;
        char msg[256];
        if (eddy_surface_create(&dt, &s, msg, sizeof msg) != EDDY_OK) {
            printf("%s: %s\n", label, msg);
            continue;
        }
        double seed[16], sweep[16];
        int rounds = 0;
        for (int r = 0; r < runs && r < 16; r++) {
            if (eddy_sdf_from_field(s, f, N, 0.5f, 1, t < 0 ? ref : phi) != EDDY_OK) {
                printf("%s: %s\n", label, eddy_surface_last_error(s));
                break;
            }
            seed[r] = eddy_surface_stats(s)->seed_ms;
            sweep[r] = eddy_surface_stats(s)->sweep_ms;
            rounds = eddy_surface_stats(s)->iterations;
        }
        double seed_ms = bench_median(seed, runs), sweep_ms = bench_median(sweep, runs);
        if (t < 0) serial_ms = sweep_ms;
        double updates = (double)N * rounds * (dim == 3 ? 8 : 4);
        char sched[32];
        if (t < 0) snprintf(sched, sizeof sched, "serial");
        else snprintf(sched, sizeof sched, "wavefront x%d", dt.threads);
        printf("| %-9s | %-13s | %6d | %8.1f | %9.1f | %9.1f | %6.2f | %-4s |\n", label, sched, rounds, seed_ms, sweep_ms,
               updates / (sweep_ms * 1e3), serial_ms / sweep_ms,
               t < 0 ? "ref" : (memcmp(phi, ref, N * sizeof(float)) ? "DIFF" : "same"));
        fflush(stdout);
        eddy_surface_destroy(s);
    }
    /* extraction from the density, on one thread (marching is serial) */
    eddy_surface *s = NULL;
    if (eddy_surface_create(&d, &s, NULL, 0) == EDDY_OK) {
        double ms[16];
        size_t out = 0;
        eddy_mesh mesh = {0};
        eddy_mesh_lines lines = {0};
        for (int r = 0; r < runs && r < 16; r++) {
            double t0 = omp_get_wtime();
            if (dim == 3) {
                eddy_mesh_marching_cubes(s, f, N, 0.5f, 1, &mesh);
                out = mesh.triangle_count;
            } else {
                eddy_mesh_marching_squares(s, f, N, 0.5f, 1, &lines);
                out = lines.point_count;
            }
            ms[r] = (omp_get_wtime() - t0) * 1e3;
        }
        printf("| %-9s | %-13s | %6s | %8s | %9.1f | %9s | %6s | %-4s |  (%zu %s)\n", label,
               dim == 3 ? "marching cubes" : "marching sq.", "", "", bench_median(ms, runs), "", "", "", out,
               dim == 3 ? "triangles" : "points");
        eddy_mesh_free(&mesh);
        eddy_mesh_lines_free(&lines);
        eddy_surface_destroy(s);
    }
    free(f);
    free(ref);
    free(phi);
}

int main(int argc, char **argv) {
    options o = {{2}, 1, 0, 0, 0.0f, 0};
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            o.nthreads = 0;
            for (char *p = argv[++i]; *p && o.nthreads < 8;) {
                o.threads[o.nthreads++] = (int)strtol(p, &p, 10);
                if (*p == ',') p++;
            }
        } else if (!strcmp(argv[i], "--runs") && i + 1 < argc) {
            o.runs = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--block") && i + 1 < argc) {
            o.block = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--band") && i + 1 < argc) {
            o.band = (float)atof(argv[++i]);
        } else if (!strcmp(argv[i], "--quick")) {
            o.quick = 1;
        } else {
            fprintf(stderr, "usage: %s [--threads 2,4] [--runs N] [--block B] [--band M] [--quick]\n", argv[0]);
            return 2;
        }
    }
    printf("fast sweeping, two blobs thresholded at 0.5; block %d (0 = default 64^2 / 16^3), band %g m (0 = none); "
           "%d processors; median of runs\n", o.block, (double)o.band, omp_get_num_procs());
    printf("| %-9s | %-13s | %6s | %8s | %9s | %9s | %6s | %-4s |\n", "grid", "schedule", "rounds", "seed ms", "sweep ms",
           "Mupd/s", "speedup", "bits");
    printf("|-----------|---------------|--------|----------|-----------|-----------|--------|------|\n");
    bench_case(2, o.quick ? 256 : 1024, &o);
    bench_case(3, o.quick ? 64 : 128, &o);
    if (!o.quick) bench_case(3, 256, &o);
    return 0;
}
