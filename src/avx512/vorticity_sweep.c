/* vorticity_sweep.c built for AVX-512 (vector_isa.h) */
#define EDDY_ISA avx512
#include "../vorticity_sweep.c"
