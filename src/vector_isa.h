/* Vector width chosen at run time, with the same bits either way.
 *
 * Row kernels whose loops the compiler vectorises (`#pragma omp simd`) are built twice from one source: the file
 * compiles as the baseline x86-64 build (SSE2, 4 floats per instruction), and a two-line file under src/avx2/
 * includes it again with EDDY_ISA = avx2 and -mavx2 (8 floats), each instance named with EDDY_ISA_NAME. (A
 * target("avx2") attribute on a wrapper is not enough for these: OpenMP lowers a simd loop, and sizes its
 * vector, for the function it is written in.) Hand-written intrinsics may instead sit in functions marked
 * EDDY_AVX2. eddy_sim.avx2, set at creation from the CPU, picks the AVX2 instances (EDDY_ISA_PICK).
 *
 * Both builds perform the same float operations in the same order: AVX2 here never brings FMA (a contracted
 * a*b+c rounds once, not twice, and would change the bits), so results are identical on every machine. Tests flip
 * `avx2` to compare the two paths byte for byte. */
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
static inline bool eddy__cpu_has_avx512(void) { /* AVX-512 F, with the OS saving its registers (libgcc checks XCR0) */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
}
#else
#define EDDY_HAVE_AVX2_PATH 0
#define EDDY_AVX2
static inline bool eddy__cpu_has_avx2(void) { return false; }
static inline bool eddy__cpu_has_avx512(void) { return false; }
#endif

/* the name of a row kernel instance: name_base, or name_avx2 in the src/avx2/ build (name_avx512 in src/avx512/,
 * built the same way with -mavx512f for kernels that need it; picked where eddy_sim.avx2 and .avx512 are both set) */
#ifndef EDDY_ISA
#define EDDY_ISA base
#endif
#define EDDY_ISA_CAT2(a, b) a##_##b
#define EDDY_ISA_CAT(a, b) EDDY_ISA_CAT2(a, b)
#define EDDY_ISA_NAME(name) EDDY_ISA_CAT(name, EDDY_ISA)

/* Every exported function of an AVX2 build ends with EDDY_ISA_LEAVE(): a vzeroupper, so that no path (GCC left
 * one in the diagnostics' row kernel) returns with the upper halves of the ymm registers dirty, which would make
 * every SSE instruction after it, in eddy or in the caller's program, several times slower. */
#if defined(__AVX__) && defined(__GNUC__)
#include <immintrin.h>
#define EDDY_ISA_LEAVE() _mm256_zeroupper()
#else
#define EDDY_ISA_LEAVE() ((void)0)
#endif

/* the instance of a row kernel to call; EDDY_HAVE_AVX2_BUILD is defined by CMake when src/avx2/ is built */
#if defined(EDDY_HAVE_AVX2_BUILD)
#define EDDY_ISA_PICK(s, name) ((s)->avx2 ? name##_avx2 : name##_base)
#else
#define EDDY_ISA_PICK(s, name) (name##_base)
#endif
/* the same for a row kernel also built for AVX-512 (src/avx512/) */
#if defined(EDDY_HAVE_AVX512_BUILD)
#define EDDY_ISA_PICK_WIDEST(s, name) ((s)->avx2 && (s)->avx512 ? name##_avx512 : EDDY_ISA_PICK(s, name))
#else
#define EDDY_ISA_PICK_WIDEST(s, name) EDDY_ISA_PICK(s, name)
#endif

#endif
