/* Splitting a sweep's slabs between threads in proportion to how fast each thread ran them on the previous calls.
 *
 * Why: a compute-bound sweep split evenly waits for its slowest thread, and threads are not equally fast: hybrid
 * CPUs mix performance and efficiency cores, and on a shared host a CPU whose sibling hyperthread is busy runs vector
 * code markedly slower (bench/core_speed_probe measured 2.09-2.16 against 1.33-1.43 ns per cell for vorticity
 * confinement on the two vCPUs of one core). Only the work each thread takes moves: a sweep whose result does not
 * depend on where its blocks are cut (vorticity_sweep.c) keeps its bits. A thread's rate stands for the CPU it runs
 * on; the OS kept each thread on its CPU (2-vCPU VM: 0 moves in 6 x 154 calls of 3D 128^3), and binding them with
 * OMP_PROC_BIND=true measured the same (2.36-2.37 against 2.30-2.38 ms). */
#ifndef EDDY_BALANCE_H
#define EDDY_BALANCE_H

#include <stdbool.h>

enum { EDDY_BALANCE_MAX_THREADS = 64 }; /* beyond: even blocks */

typedef struct eddy_balance {
    int threads;                           /* the team the rates belong to (0: none measured yet) */
    double rate[EDDY_BALANCE_MAX_THREADS]; /* slabs per second of each thread, the fastest lately (see below) */
} eddy_balance;

/* The blocks of `threads` (<= EDDY_BALANCE_MAX_THREADS) threads over `slabs` slabs: thread t takes
 * [bounds[t], bounds[t + 1]) (threads + 1 entries). Even blocks until rates for this team are known, and while the
 * fastest rate is within EDDY_BALANCE_SPREAD of the slowest (measured with the vCPUs level, 3D 128^3: blocks
 * following rates 3-8% apart ran 1.50-1.59 ms against even blocks' 1.45-1.50); else blocks in proportion to the
 * rates, each rate counted as at least a quarter of their mean (a thread slowed for one call is not starved of work
 * and keeps being measured). Only the rates' ratios matter: the team's rates hold for another slab count. */
#define EDDY_BALANCE_SPREAD 1.15
void eddy__balance_bounds(const eddy_balance *b, int slabs, int threads, int *bounds);

/* Record the seconds each thread took (`threads` entries) for its block of the bounds above. A thread's rate is the
 * fastest it has run lately: the new rate, or the old one times EDDY_BALANCE_DECAY if that is more. A thread that
 * lost its CPU for part of one call (another program's time slice) keeps its rate, while one that runs slower call
 * after call (a busy sibling hyperthread) is followed within two or three calls. Balancing by each call's own
 * rate instead, threads sharing a CPU with a busy program ran 2.2-8.0 ms per call against even blocks' 1.7-1.8
 * (most rounds; 3D 128^3, 2 threads): the slow calls come and go at random. The decay is per call, so it suits a
 * loop run once a step. Advection's traces and passes by it (a dozen loops a step, one balance for each kind) ran
 * 105.5-106.4 ms a step against even blocks' 95.0-95.8 in two rounds and level in four (3D 128^3), most likely
 * because a few slow calls within one step moved the split; advection keeps even blocks. */
#define EDDY_BALANCE_DECAY 0.8
void eddy__balance_record(eddy_balance *b, int threads, const int *bounds, const double *seconds);

/* One parallel loop over slabs cut by a balance: eddy__balance_begin before the parallel region; in it, each thread
 * takes its block and start time from eddy__balance_block and reports with eddy__balance_timed when done;
 * eddy__balance_end after the region records the times. With `on` false, more than EDDY_BALANCE_MAX_THREADS
 * threads, or a team smaller than asked, the blocks are even and nothing is recorded. */
typedef struct eddy_balance_run {
    eddy_balance *b;
    int slabs, threads;
    bool on, whole;
    int bounds[EDDY_BALANCE_MAX_THREADS + 1];
    double seconds[EDDY_BALANCE_MAX_THREADS];
} eddy_balance_run;
void eddy__balance_begin(eddy_balance_run *run, eddy_balance *b, int slabs, int threads, bool on);
/* thread t of a team of nt: its block [*r0, *r1) and the time it starts (omp_get_wtime) */
double eddy__balance_block(const eddy_balance_run *run, int t, int nt, int *r0, int *r1);
void eddy__balance_timed(eddy_balance_run *run, int t, int nt, double start);
void eddy__balance_end(eddy_balance_run *run);

#endif
