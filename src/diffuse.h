/* What the last implicit diffusion stage did (diffuse.c), for tests and benchmarks. Not installed. */
#ifndef EDDY_DIFFUSE_H
#define EDDY_DIFFUSE_H

#include "sim_internal.h"

typedef struct eddy_diffuse_report {
    int solves;          /* linear systems solved in the last call (velocity components + scalar fields) */
    int max_iterations;  /* most CG iterations any of them took */
    int total_iterations;
    float max_residual;  /* largest final relative residual |r| / max(|b|, |r0|) among them */
    int not_converged;   /* solves stopped by the iteration cap */
} eddy_diffuse_report;

eddy_diffuse_report eddy__diffuse_last_report(const eddy_sim *s);

#endif
