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
    double rate[EDDY_BALANCE_MAX_THREADS]; /* slabs per second of each thread, the fastest lately (see below) */
} eddy_balance;

/* The blocks of `threads` (<= EDDY_BALANCE_MAX_THREADS) threads over `slabs` slabs: thread t takes
 * [bounds[t], bounds[t + 1]) (threads + 1 entries). Even blocks until rates for this very split are known, and while
 * the fastest rate is within EDDY_BALANCE_SPREAD of the slowest (measured with the vCPUs level, 3D 128^3: blocks
 * following rates 3-8% apart ran 1.50-1.59 ms against even blocks' 1.45-1.50); else blocks in proportion to the
 * rates, each rate counted as at least a quarter of their mean (a thread slowed for one call is not starved of work
 * and keeps being measured). */
#define EDDY_BALANCE_SPREAD 1.15
void eddy__balance_bounds(const eddy_balance *b, int slabs, int threads, int *bounds);

/* Record the seconds each thread took (`threads` entries) for its block of the bounds above. A thread's rate is the
 * fastest it has run lately: the new rate, or the old one times EDDY_BALANCE_DECAY if that is more. A thread that
 * lost its CPU for part of one call (another program's time slice) keeps its rate, while one that runs slower call
 * after call (a busy sibling hyperthread) is followed within two or three calls. Balancing by each call's own
 * rate instead, threads sharing a CPU with a busy program ran 2.2-8.0 ms per call against even blocks' 1.7-1.8
 * (most rounds; 3D 128^3, 2 threads): the slow calls come and go at random. */
#define EDDY_BALANCE_DECAY 0.8
void eddy__balance_record(eddy_balance *b, int slabs, int threads, const int *bounds, const double *seconds);

#endif
