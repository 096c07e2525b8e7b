/* buoyancy_rows.c built for AVX2 (vector_isa.h) */
#define EDDY_ISA avx2
#include "../buoyancy_rows.c"
