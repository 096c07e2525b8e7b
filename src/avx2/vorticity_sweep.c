/* vorticity_sweep.c built for AVX2 (vector_isa.h) */
#define EDDY_ISA avx2
#include "../vorticity_sweep.c"
