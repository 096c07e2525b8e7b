/* Stand-in for <omp.h> in the WebAssembly build: emscripten has no OpenMP, so the core runs on one thread there
 * (its `#pragma omp` lines are ignored, and the core's results do not depend on the thread count). Covers the
 * OpenMP runtime calls the core uses; add any new one here. */
#ifndef EDDY_WASM_OMP_H
#define EDDY_WASM_OMP_H
#include <time.h>
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_num_procs(void) { return 1; }
static inline int omp_in_parallel(void) { return 0; }
static inline void omp_set_num_threads(int n) { (void)n; }
static inline double omp_get_wtime(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif
