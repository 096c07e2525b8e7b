/* diagnostics_rows.c built for AVX-512 (vector_isa.h) */
#define EDDY_ISA avx512
#include "../diagnostics_rows.c"
