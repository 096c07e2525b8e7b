/* Stand-in for <omp.h> in the WebAssembly build: emscripten has no OpenMP, so the core runs on one thread there
 * (its `#pragma omp` lines are ignored and results are the same bytes as with any thread count). */
#ifndef EDDY_WASM_OMP_H
#define EDDY_WASM_OMP_H
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
#endif
