/* Splitting a sweep's slabs between threads in proportion to how fast each thread ran them on the previous calls.
 *
 * Why: a compute-bound sweep split evenly waits for its slowest thread, and threads are not equally fast: hybrid
 * CPUs mix performance and efficiency cores, and on a shared host a CPU whose sibling hyperthread is busy runs vector
 * code markedly slower (bench/core_speed_probe measured 2.09-2.16 against 1.33-1.43 ns per cell for vorticity
 * confinement on the two vCPUs of one core). Only the work each thread takes moves: a sweep whose result does not
 * depend on where its blocks are cut (vorticity_sweep.c) keeps its bits. */
#ifndef EDDY_BALANCE_H
#define EDDY_BALANCE_H

#include <stdbool.h>

enum { EDDY_BALANCE_MAX_THREADS = 64 }; /* beyond: even blocks */

typedef struct eddy_balance {
    int threads, slabs;                    /* the split the rates belong to (0: none measured yet) */
    double rate[EDDY_BALANCE_MAX_THREADS]; /* slabs per second of each thread, smoothed over calls */
} eddy_balance;

/* The blocks of `threads` (<= EDDY_BALANCE_MAX_THREADS) threads over `slabs` slabs: thread t takes
 * [bounds[t], bounds[t + 1]) (threads + 1 entries). Even blocks until rates for this very split are known; then
 * blocks in proportion to the rates, each rate counted as at least a quarter of their mean (a thread slowed for one
 * call is not starved of work and keeps being measured). */
void eddy__balance_bounds(const eddy_balance *b, int slabs, int threads, int *bounds);

/* Record the seconds each thread took (`threads` entries) for its block of the bounds above: the rates become the
 * mean of the old and the new (one slow call moves the split only halfway). */
void eddy__balance_record(eddy_balance *b, int slabs, int threads, const int *bounds, const double *seconds);

#endif
