/* bench_cuda: the CUDA backend on the card it finds. Prints tables, never pass/fail.
 *  1. The card's copy bandwidth (bytes read + bytes written over time): cudaMemcpy device-to-device and a copy
 *     kernel with 16-byte accesses, 1 GiB each, medians of 10 (cudaEvents).
 *  2. Each stage of the step on its own (eddy__cuda_run_stage), with the bytes it must move (every input array
 *     read once, every output written once) over its median time, against the copy bandwidth.
 *  3. Whole steps of a smoke scene (emitter, buoyancy, vorticity confinement, MacCormack, MGPCG to 1e-5) for 2D
 *     2048^2 and 4096^2 and 3D 256^3 and 512^3: median step time (host clock around eddy_sim_step, which waits for
 *     the device), the per-stage split (cudaEvents), pressure iterations.
 * Usage: bench_cuda [--quick] [--steps N] [--only 2048|4096|256|512] [--no-stages] [--stages-only] [--forces-only] [--advect-only]
 *                   [--stage2d N] [--stage3d N]
 * --stage2d / --stage3d: only the stage tables, of an N^2 and / or N^3 grid (how a kernel's share of copy changes
 * with the size). */
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

extern "C" {
#include "sim_internal.h"
#include "cuda/eddy_cuda.h"
}

#define CK(call)                                                                             \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

__global__ void copy_kernel(const float4 *__restrict__ a, float4 *__restrict__ b, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i];
}
__global__ void fill_kernel(float *a, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        a[i] = (float)(i % 1000) * 0.001f;
}

static double copy_bw_memcpy = 0, copy_bw_kernel = 0;

static void copy_bandwidth(void) {
    const size_t bytes = (size_t)1 << 30, n = bytes / sizeof(float);
    float *a, *b;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    fill_kernel<<<1024, 256>>>(a, n);
    fill_kernel<<<1024, 256>>>(b, n);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    std::vector<double> tm, tk;
    for (int r = 0; r < 12; r++) {
        CK(cudaEventRecord(e0));
        CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 2) tm.push_back(ms);
        CK(cudaEventRecord(e0));
        copy_kernel<<<sms * 8, 512>>>((const float4 *)a, (float4 *)b, n / 4);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaGetLastError());
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 2) tk.push_back(ms);
    }
    copy_bw_memcpy = 2.0 * bytes / (median(tm) * 1e-3) / 1e9;
    copy_bw_kernel = 2.0 * bytes / (median(tk) * 1e-3) / 1e9;
    printf("copy bandwidth (read + write, 1 GiB, median of 10):\n");
    printf("  cudaMemcpy D2D   %8.3f ms   %7.1f GB/s\n", median(tm), copy_bw_memcpy);
    printf("  copy kernel      %8.3f ms   %7.1f GB/s   (float4, %d blocks of 512)\n", median(tk), copy_bw_kernel, sms * 8);
    cudaFree(a);
    cudaFree(b);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
}

/* ---------------------------------------------------------------- scenes */
static eddy_sim *make_smoke(int dim, int n, eddy_advection adv, int extra_vorticity) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = n;
    d.grid[1] = n;
    d.grid[2] = dim == 3 ? n : 1;
    d.size[0] = 1.0f;
    d.dt = 0.25f / (float)n; /* CFL ~0.5 at the emitter's 2 m/s */
    d.advection = adv;
    d.buoyancy_temperature = 2.0f;
    d.buoyancy_density = 0.05f;
    d.vorticity = extra_vorticity ? 0.3f : 0.3f;
    d.dye_dissipation = 0.05f;
    d.pressure.tolerance = 1e-5f;
    d.backend = EDDY_BACKEND_CUDA;
    eddy_sim *s = NULL;
    char msg[512];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        fprintf(stderr, "create %dD %d: %s\n", dim, n, msg);
        return NULL;
    }
    eddy_emitter_def e;
    memset(&e, 0, sizeof e);
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 0.5f; e.center[1] = 0.12f; e.center[2] = 0.5f;
    e.radius = 0.06f;
    e.dye[0] = 3.0f; e.dye[1] = 1.5f; e.dye[2] = 0.5f;
    e.temperature = 10.0f;
    e.velocity[1] = 2.0f;
    e.set_velocity = 1;
    eddy_sim_add_emitter(s, &e, NULL);
    eddy_splat sp;
    memset(&sp, 0, sizeof sp);
    sp.position[0] = 0.35f; sp.position[1] = 0.5f; sp.position[2] = 0.5f;
    sp.radius = 0.08f;
    sp.velocity[0] = 1.0f;
    sp.dye[2] = 1.0f;
    eddy_sim_splat(s, &sp);
    return s;
}

/* bytes every input read once and every output written once, per stage of the smoke scene */
static double stage_bytes(eddy_sim *s, eddy_cuda_stage st) {
    double nf = 0;
    for (int a = 0; a < s->dim; a++) nf += (double)s->nface[a];
    double nc = (double)s->ncells, ns = (double)s->nscalar;
    switch (st) {
    case EDDY_CUDA_BUOYANCY: return 8.0 * (double)s->nface[1] + 16.0 * ns; /* v read+write; dye x3 + T read */
    case EDDY_CUDA_VORTICITY: /* velocity read+write; the solid mask only where the scene has solid cells (the
                                 kernels read it only then: k_forces.cu's SOL) */
        return 8.0 * nf + (s->obstacle_count > 0 || s->user_mask != NULL ? nc : 0.0);
    case EDDY_CUDA_ADVECT: return 8.0 * nf + 4.0 * 8.0 * ns;               /* velocity and 4 scalars read+write */
    case EDDY_CUDA_DIAGNOSTICS: return 4.0 * nf + nc + 12.0 * ns;          /* velocity, solid, dye read */
    case EDDY_CUDA_BOUNDARIES: return nc + 8.0 * (double)s->nface[0] / (double)s->n[0] * 2.0;
    case EDDY_CUDA_RASTERIZE: return 13.0 * nc;                           /* solid + 3 solid velocities written */
    case EDDY_CUDA_EMITTERS: return 0.0;
    default: return 0.0;
    }
}

static int forces_only; /* --forces-only: the stage table's buoyancy and vorticity rows */
static int advect_only; /* --advect-only: the stage table's advection rows */

static void stage_table(int dim, int n, int reps) {
    printf("\nstages on their own, %dD %d^%d (ms: median of %d single calls, each with the host's launch gap; b2b: %d calls\n"
           "back to back, per call; bytes = compulsory traffic; GB/s and %%copy of the single call, then of b2b):\n", dim, n, dim, reps, reps);
    printf("  %-28s %10s %10s %10s %10s %8s %8s\n", "stage", "ms", "b2b ms", "MB", "GB/s", "%copy", "b2b%");
    /* feet 0: MacCormack / BFECC trace again in their later passes instead of keeping the first pass's feet;
     * obstacle 1: the scene with a sphere in the plume (solid cells: the stages' instances that read them) */
    struct { const char *name; eddy_cuda_stage st; eddy_advection adv; int feet, obstacle; } rows[] = {
        {"rasterize (no obstacles)", EDDY_CUDA_RASTERIZE, EDDY_ADVECT_MACCORMACK, 1, 0},
        {"boundaries", EDDY_CUDA_BOUNDARIES, EDDY_ADVECT_MACCORMACK, 1, 0},
        {"buoyancy", EDDY_CUDA_BUOYANCY, EDDY_ADVECT_MACCORMACK, 1, 0},
        {"vorticity confinement", EDDY_CUDA_VORTICITY, EDDY_ADVECT_MACCORMACK, 1, 0},
        {"vorticity, one obstacle", EDDY_CUDA_VORTICITY, EDDY_ADVECT_MACCORMACK, 1, 1},
        {"diagnostics", EDDY_CUDA_DIAGNOSTICS, EDDY_ADVECT_MACCORMACK, 1, 0},
        {"advect MacCormack", EDDY_CUDA_ADVECT, EDDY_ADVECT_MACCORMACK, 1, 0},
        {"advect MacCormack, retraced", EDDY_CUDA_ADVECT, EDDY_ADVECT_MACCORMACK, 0, 0},
        {"advect semi-Lagrangian", EDDY_CUDA_ADVECT, EDDY_ADVECT_SEMI_LAGRANGIAN, 1, 0},
        {"advect BFECC", EDDY_CUDA_ADVECT, EDDY_ADVECT_BFECC, 1, 0},
        {"advect BFECC, retraced", EDDY_CUDA_ADVECT, EDDY_ADVECT_BFECC, 0, 0},
    };
    eddy_sim *s = NULL;
    eddy_advection cur = (eddy_advection)-1;
    int cur_obstacle = -1;
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        if (forces_only && rows[r].st != EDDY_CUDA_BUOYANCY && rows[r].st != EDDY_CUDA_VORTICITY) continue;
        if (advect_only && rows[r].st != EDDY_CUDA_ADVECT) continue;
        if (rows[r].adv != cur || rows[r].obstacle != cur_obstacle) {
            eddy_sim_destroy(s);
            s = make_smoke(dim, n, rows[r].adv, 1);
            if (!s) return;
            if (rows[r].obstacle) {
                eddy_obstacle_def o;
                memset(&o, 0, sizeof o);
                o.shape = EDDY_SHAPE_SPHERE;
                o.center[0] = 0.5f; o.center[1] = 0.5f; o.center[2] = 0.5f;
                o.radius = 0.1f;
                if (eddy_sim_add_obstacle(s, &o, NULL) != EDDY_OK) {
                    printf("  obstacle: %s\n", eddy_sim_last_error(s));
                    eddy_sim_destroy(s);
                    return;
                }
            }
            for (int k = 0; k < 3; k++) eddy_sim_step(s); /* nonzero fields everywhere near the source */
            cur = rows[r].adv;
            cur_obstacle = rows[r].obstacle;
        }
        std::vector<double> t;
        eddy__cuda_set_advect_feet(s, rows[r].feet);
        eddy__cuda_sync_ms(s);
        for (int k = 0; k < reps + 2; k++) {
            eddy__cuda_run_stage(s, rows[r].st, s->def.dt * 0.01f);
            double ms = eddy__cuda_sync_ms(s);
            if (k >= 2) t.push_back(ms);
        }
        /* the same stage queued reps times: the GPU never waits for the host between calls */
        eddy__cuda_sync_ms(s);
        for (int k = 0; k < reps; k++) eddy__cuda_run_stage(s, rows[r].st, s->def.dt * 0.01f);
        double b2b = eddy__cuda_sync_ms(s) / reps;
        double ms = median(t), bytes = stage_bytes(s, rows[r].st);
        if (bytes > 0)
            printf("  %-28s %10.4f %10.4f %10.1f %10.1f %7.1f%% %7.1f%%\n", rows[r].name, ms, b2b, bytes / 1e6,
                   bytes / (ms * 1e-3) / 1e9, 100.0 * bytes / (ms * 1e-3) / 1e9 / copy_bw_kernel,
                   100.0 * bytes / (b2b * 1e-3) / 1e9 / copy_bw_kernel);
        else
            printf("  %-28s %10.4f %10.4f\n", rows[r].name, ms, b2b);
    }
    eddy_sim_destroy(s);
}

static void set_warm_start(eddy_sim *s, int on) {
    eddy_sim_def d = *eddy_sim_get_def(s);
    d.pressure.warm_start = on;
    eddy_sim_set_def(s, &d);
}

static void step_table_row(int dim, int n, int warm, int steps, int warm_start) {
    eddy_sim *s = make_smoke(dim, n, EDDY_ADVECT_MACCORMACK, 0);
    if (!s) return;
    set_warm_start(s, warm_start);
    std::vector<double> t, st[EDDY_STAGE_COUNT], its, r0;
    for (int k = 0; k < warm + steps; k++) {
        if (eddy_sim_step(s) != EDDY_OK) {
            printf("  step failed: %s\n", eddy_sim_last_error(s));
            break;
        }
        const eddy_step_stats *x = eddy_sim_stats(s);
        if (k < warm) continue;
        t.push_back(x->step_ms);
        for (int q = 0; q < EDDY_STAGE_COUNT; q++) st[q].push_back(x->stage_ms[q]);
        its.push_back(x->pressure_iterations);
        r0.push_back(x->pressure_residual_initial);
    }
    char label[32];
    snprintf(label, sizeof label, dim == 2 ? "2D %d^2" : "3D %d^3", n);
    printf("  %-10s %9.3f %7.0f |", label, median(t), median(its));
    for (int q = 0; q < EDDY_STAGE_COUNT; q++) printf(" %8.3f", median(st[q]));
    double mean_its = 0;
    for (double v : its) mean_its += v / (double)its.size();
    printf(" | %.2e %8.2e %5.2f\n", (double)eddy_sim_stats(s)->pressure_residual, median(r0), mean_its);
    eddy_sim_destroy(s);
}

/* one step of the smoke scene between cudaProfilerStart/Stop, for ncu --profile-from-start off; the MGPCG
 * kernels are launched one by one (graphs off) so that every kernel is profiled on its own */
static int profile_step(int dim, int n, int warm_start) {
    eddy_sim *s = make_smoke(dim, n, EDDY_ADVECT_MACCORMACK, 0);
    if (!s) return 1;
    set_warm_start(s, warm_start);
    eddy__cuda_set_graphs(s, 0);
    for (int k = 0; k < 4; k++) eddy_sim_step(s);
    cudaProfilerStart();
    eddy_status st = eddy_sim_step(s);
    cudaProfilerStop();
    printf("profiled one %dD %d step: %s, %d pressure iterations\n", dim, n, st == EDDY_OK ? "ok" : eddy_sim_last_error(s),
           eddy_sim_stats(s)->pressure_iterations);
    eddy_sim_destroy(s);
    return 0;
}

int main(int argc, char **argv) {
    int quick = 0, steps = 20, only = 0, stages = 1, step_rows = 1, stage2 = 0, stage3 = 0;
    for (int i = 1; i + 2 < argc; i++)
        if (!strcmp(argv[i], "--profile"))
            return profile_step(atoi(argv[i + 1]), atoi(argv[i + 2]), i + 3 < argc ? atoi(argv[i + 3]) : 1);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quick")) quick = 1;
        else if (!strcmp(argv[i], "--steps") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = atoi(argv[++i]);
        else if ((!strcmp(argv[i], "--stage2d") || !strcmp(argv[i], "--stage3d")) && i + 1 < argc) {
            const bool is2 = argv[i][7] == '2';
            const int n = atoi(argv[i + 1]), hi = is2 ? 8192 : 640; /* the largest that fit 80 GB with room */
            if (n < 16 || n > hi) {
                fprintf(stderr, "bench_cuda: %s %s: expected a grid size from 16 to %d\n", argv[i], argv[i + 1], hi);
                return 2;
            }
            (is2 ? stage2 : stage3) = n;
            i++;
        }
        else if (!strcmp(argv[i], "--no-stages")) stages = 0;
        else if (!strcmp(argv[i], "--stages-only")) step_rows = 0;
        else if (!strcmp(argv[i], "--forces-only")) forces_only = 1, step_rows = 0;
        else if (!strcmp(argv[i], "--advect-only")) advect_only = 1, step_rows = 0;
    }
    char msg[256];
    if (!eddy_backend_available(EDDY_BACKEND_CUDA, msg, sizeof msg)) {
        printf("SKIP: %s\n", msg);
        return 0;
    }
    printf("device: %s\n", msg);
    copy_bandwidth();
    if (stage2 || stage3) { /* the stage tables at the sizes asked for, nothing else */
        if (stage2) stage_table(2, stage2, 10);
        if (stage3) stage_table(3, stage3, 10);
        return 0;
    }
    if (stages && (!only || only == 2048)) stage_table(2, quick ? 512 : 2048, 10);
    if (stages && (!only || only == 256)) stage_table(3, quick ? 64 : 256, 10);
    int sizes2[2] = {quick ? 256 : 2048, quick ? 512 : 4096}, sizes3[2] = {quick ? 32 : 256, quick ? 64 : 512};
    for (int warm_start = 0; step_rows && warm_start <= 1; warm_start++) {
        printf("\nwhole steps, smoke scene (MacCormack, MGPCG to 1e-5, pressure.warm_start = %d), median of %d after 5 "
               "warm-up (ms; r0: initial relative residual, its: mean iterations):\n", warm_start, steps);
        printf("  %-10s %9s %7s |", "grid", "step", "p-its");
        for (int q = 0; q < EDDY_STAGE_COUNT; q++) printf(" %8.8s", eddy_stage_name((eddy_stage)q));
        printf(" | residual       r0   its\n");
        for (int k = 0; k < 2; k++)
            if (!only || only == sizes2[k] || (quick && only == 0)) step_table_row(2, sizes2[k], 5, steps, warm_start);
        for (int k = 0; k < 2; k++)
            if (!only || only == sizes3[k] || (quick && only == 0))
                step_table_row(3, sizes3[k], 5, k == 1 ? (steps + 1) / 2 : steps, warm_start);
    }
    return 0;
}
