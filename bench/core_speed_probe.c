/* core_speed_probe: how fast each CPU of this machine runs eddy's vorticity confinement on its own. One thread,
 * pinned to each CPU in turn, times the stage on a 64^3 grid (its data stays in the caches of one core), and a
 * chain of dependent float multiply-adds (bound by the latency of one operation, not by the core's throughput).
 * On a shared host a CPU whose sibling hyperthread is busy runs the vector kernel markedly slower while the chain
 * is not: with the stages' static split of the work, a 2-thread stage then waits for the slower thread.
 * Usage: core_speed_probe [rounds (3)] */
#define _GNU_SOURCE
#include "bench_median.h"
#include "sim_internal.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CALLS = 41 };

/* ns per cell of the stage: the median of CALLS calls */
static double stage_ns(eddy_sim *s) {
    double t[CALLS];
    for (int r = 0; r < CALLS; r++) {
        const double t0 = eddy__now_ms();
        eddy__apply_vorticity(s, s->def.dt);
        t[r] = eddy__now_ms() - t0;
    }
    return bench_median(t, CALLS) * 1e6 / (double)s->ncells;
}

/* ns per step of a dependent multiply-add chain: the fastest of 5 */
static double chain_ns(void) {
    volatile float seed = 1.0f;
    double best = 0;
    for (int r = 0; r < 5; r++) {
        float x = seed;
        const long steps = 4000000;
        const double t0 = eddy__now_ms();
        for (long i = 0; i < steps; i++) x = x * 0.9999f + 1e-4f;
        const double t = (eddy__now_ms() - t0) * 1e6 / (double)steps;
        seed = x;
        best = r == 0 || t < best ? t : best;
    }
    return best;
}

int main(int argc, char **argv) {
    char *end = NULL;
    const long rounds = argc > 1 ? strtol(argv[1], &end, 10) : 3;
    if (argc > 2 || (argc > 1 && (*end != '\0' || rounds < 1 || rounds > 100))) {
        fprintf(stderr, "core_speed_probe: usage: core_speed_probe [rounds, 1-100 (3)], got '%s'\n", argc > 1 ? argv[1] : "");
        return 2;
    }
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        perror("core_speed_probe: sched_getaffinity");
        return 1;
    }
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = 3;
    d.grid[0] = d.grid[1] = d.grid[2] = 64;
    d.threads = 1;
    d.dt = 0.01f;
    d.vorticity = 0.3f;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        fprintf(stderr, "core_speed_probe: %s\n", msg);
        return 1;
    }
    unsigned state = 1u;
    for (int a = 0; a < 3; a++)
        for (size_t i = 0; i < s->nface[a]; i++) {
            state = state * 1664525u + 1013904223u;
            s->vel[a][i] = (float)(state >> 8) / 16777216.0f - 0.5f;
        }
    printf("core_speed_probe: vorticity confinement, 64^3, 1 thread (ns per cell, median of %d calls) and a dependent "
           "multiply-add chain (ns per step), per CPU\n", CALLS);
    for (long round = 0; round < rounds; round++) {
        printf("round %ld:", round);
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, &allowed)) continue;
            cpu_set_t one;
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            if (sched_setaffinity(0, sizeof one, &one) != 0) continue;
            const double stage = stage_ns(s), chain = chain_ns();
            printf(" | cpu %d: vorticity %.2f, chain %.2f", cpu, stage, chain);
        }
        printf("\n");
        sched_setaffinity(0, sizeof allowed, &allowed);
    }
    eddy_sim_destroy(s);
    return 0;
}
