/* The AVX2 row kernels (vector_isa.h) must leave the upper halves of the ymm registers clean (vzeroupper) when they
 * return: otherwise every SSE instruction that follows, in eddy or in the calling program, runs several times
 * slower until something clears them (measured: a 3D buoyancy pass 0.8 -> 3.2 ms after one dirty return). The
 * processor reports whether that state is in use: XGETBV with ECX = 1 returns XINUSE, whose bit 2 is the AVX
 * state (upper ymm halves) and bit 6 the upper 256 bits of zmm0-15 (the AVX-512 vorticity build). After each kind
 * of step on each thread count both must be clear. (Bits 5 and 7, the opmasks and zmm16-31, are set by glibc's
 * EVEX string functions, which use those registers precisely because they cause no SSE penalty.) Skipped (exit 0, with a message)
 * where the CPU has no AVX2 or no XGETBV-1. */
#include "check.h"
#include "sim_internal.h"

#include <stdio.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <cpuid.h>
static int have_xinuse(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 27))) return 0; /* OSXSAVE */
    if (__get_cpuid_max(0, NULL) < 0xd) return 0;
    __cpuid_count(0xd, 1, a, b, c, d);
    return (a >> 2) & 1; /* XGETBV with ECX = 1 */
}
static unsigned long long xinuse(void) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    return ((unsigned long long)hi << 32) | lo;
}
#else
static int have_xinuse(void) { return 0; }
static unsigned long long xinuse(void) { return 0; }
#endif

static void run(int dim, int threads, float vorticity, float buoyancy) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = d.grid[1] = d.grid[2] = dim == 2 ? 64 : 24;
    d.size[0] = 1.0f;
    d.threads = threads;
    d.vorticity = vorticity;
    d.buoyancy_temperature = buoyancy;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return;
    }
    CHECK(s->avx2, "the AVX2 path should be chosen on a CPU with AVX2");
    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 0.5f; e.center[1] = 0.2f; e.center[2] = 0.5f; e.radius = 0.1f;
    e.dye[0] = 1; e.temperature = 5; e.velocity[1] = 1; e.set_velocity = 1;
    eddy_sim_add_emitter(s, &e, NULL);
    for (int i = 0; i < 3; i++) {
        CHECK(eddy_sim_step(s) == EDDY_OK, "step: %s", eddy_sim_last_error(s));
        CHECK((xinuse() & 0x44u) == 0, "%dD, %d threads, vorticity %g, buoyancy %g: the upper ymm / AVX-512 state is dirty after step %d (XINUSE %#llx)",
              dim, threads, vorticity, buoyancy, i + 1, xinuse());
    }
    CHECK(eddy_sim_update_diagnostics(s) == EDDY_OK, "diagnostics");
    CHECK((xinuse() & 4u) == 0, "%dD, %d threads: the upper ymm state is dirty after the diagnostics", dim, threads);
    eddy_sim_destroy(s);
}

int main(void) {
    if (!eddy__cpu_has_avx2() || !have_xinuse()) {
        printf("test_vector_state: SKIPPED (no AVX2 or no XGETBV-1 on this CPU)\n");
        return 0;
    }
    for (int dim = 2; dim <= 3; dim++)
        for (int threads = 1; threads <= 2; threads++) {
            run(dim, threads, 0.3f, 1.0f);
            run(dim, threads, 0.0f, 0.0f);
        }
    return check_finish("test_vector_state");
}
