/* Vector width chosen at run time. A hot row kernel is written once as an always-inline function and wrapped
 * twice: EDDY_AVX2 compiles its wrapper for AVX2 (8 floats per instruction), the other wrapper for the baseline
 * x86-64 (SSE2, 4 floats); eddy_sim.avx2, set at creation from the CPU, picks one. Both wrappers perform the same
 * float operations in the same order: AVX2 here never brings FMA (a contracted a*b+c rounds once, not twice, and
 * would change the bits), so results are identical on every machine and for any choice. Tests flip `avx2` to
 * compare the two paths byte for byte. */
#ifndef EDDY_VECTOR_ISA_H
#define EDDY_VECTOR_ISA_H

#include <stdbool.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define EDDY_HAVE_AVX2_PATH 1
#define EDDY_AVX2 __attribute__((target("avx2")))
static inline bool eddy__cpu_has_avx2(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2");
}
#else
#define EDDY_HAVE_AVX2_PATH 0
#define EDDY_AVX2
static inline bool eddy__cpu_has_avx2(void) { return false; }
#endif

#endif
