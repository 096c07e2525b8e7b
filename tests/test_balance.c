/* Blocks of slabs by the threads' measured speeds (src/balance.h): even until measured or while the rates are within
 * 15% of each other, else in proportion to the rates, each counted as at least a quarter of their mean, every slab
 * in exactly one block; a rate the fastest lately (a slow call only decays it), a thread without slabs taking the
 * others' mean. */
#include "balance.h"
#include "check.h"

#include <math.h>
#include <stdio.h>

#define CHECK_NEAR(got, want, tol, what)                                                                               \
    CHECK(fabs((got) - (want)) <= (tol), "%s: %.9g, want %.9g", what, (double)(got), (double)(want))

/* the blocks tile [0, slabs) in order */
static void check_tiles(const int *bounds, int threads, int slabs, const char *what) {
    CHECK(bounds[0] == 0 && bounds[threads] == slabs, "%s: blocks span [%d, %d), want [0, %d)", what, bounds[0],
          bounds[threads], slabs);
    for (int t = 0; t < threads; t++)
        CHECK(bounds[t] <= bounds[t + 1], "%s: block %d is [%d, %d)", what, t, bounds[t], bounds[t + 1]);
}

int main(void) {
    eddy_balance b = {0};
    int bounds[EDDY_BALANCE_MAX_THREADS + 1];
    double seconds[EDDY_BALANCE_MAX_THREADS];

    /* nothing measured: even blocks */
    eddy__balance_bounds(&b, 128, 2, bounds);
    check_tiles(bounds, 2, 128, "even");
    CHECK(bounds[1] == 64, "even split of 128 by 2 at %d, want 64", bounds[1]);

    /* thread 0 ran its 64 slabs in 1 ms, thread 1 in 1.5 ms: rates 64000 and 42667; blocks 128 * 0.6 = 76.8 -> 77 */
    seconds[0] = 1e-3, seconds[1] = 1.5e-3;
    eddy__balance_record(&b, 2, bounds, seconds);
    CHECK_NEAR(b.rate[0], 64000.0, 1e-6, "rate of thread 0");
    CHECK_NEAR(b.rate[1], 128000.0 / 3.0, 1e-6, "rate of thread 1");
    eddy__balance_bounds(&b, 128, 2, bounds);
    check_tiles(bounds, 2, 128, "by speed");
    CHECK(bounds[1] == 77, "split by speed at %d, want 77", bounds[1]);

    /* the next call: thread 0 77 slabs in 1.1 ms (70000/s: faster, taken), thread 1 51 in 3.0 ms (17000/s: one slow
     * call, so its rate is the old one decayed, 0.8 * 42667) */
    seconds[0] = 1.1e-3, seconds[1] = 3.0e-3;
    eddy__balance_record(&b, 2, bounds, seconds);
    CHECK_NEAR(b.rate[0], 77.0 / 1.1e-3, 1e-6, "a faster rate is taken");
    CHECK_NEAR(b.rate[1], EDDY_BALANCE_DECAY * 128000.0 / 3.0, 1e-6, "a slow call decays the old rate only");
    /* slow call after slow call: the rate follows, to 17000/s after 4 more (0.8^5 * 42667 = 13981 < 17000) */
    for (int call = 0; call < 4; call++) eddy__balance_record(&b, 2, bounds, seconds);
    CHECK_NEAR(b.rate[1], 51.0 / 3.0e-3, 1e-6, "a thread slow call after call is followed");

    /* rates within EDDY_BALANCE_SPREAD (1.15) of each other: even blocks; just beyond it: by the rates */
    eddy_balance near = {2, {1.14, 1.0}}, far = {2, {1.16, 1.0}};
    eddy__balance_bounds(&near, 128, 2, bounds);
    CHECK(bounds[1] == 64, "rates 1.14 : 1: split at %d, want 64 (even)", bounds[1]);
    eddy__balance_bounds(&far, 128, 2, bounds);
    CHECK(bounds[1] == 69, "rates 1.16 : 1: split at %d, want 69 (128 * 1.16 / 2.16 = 68.7)", bounds[1]);

    /* another loop (other slabs) with the same team: by the same rates, 100 * 70000 / 87000 = 80.5 -> 80; another
     * team: even again */
    eddy__balance_bounds(&b, 100, 2, bounds);
    CHECK(bounds[1] == 80, "other slab count: split at %d, want 80", bounds[1]);
    eddy__balance_bounds(&b, 128, 3, bounds);
    check_tiles(bounds, 3, 128, "other team");
    CHECK(bounds[1] == 43 && bounds[2] == 85, "other team: %d %d, want 43 85", bounds[1], bounds[2]);

    /* a thread 100x slower is weighted as a quarter of the mean rate: weights 100 and 0.25 * 50.5 = 12.625, the cut
     * at 128 * 100 / 112.625 = 113.65 -> 114, so it keeps 14 slabs */
    eddy_balance slow = {2, {100.0, 1.0}};
    eddy__balance_bounds(&slow, 128, 2, bounds);
    check_tiles(bounds, 2, 128, "floor");
    CHECK(bounds[2] - bounds[1] == 14, "the slow thread takes %d slabs, want 14", bounds[2] - bounds[1]);

    /* more threads than slabs: blocks may be empty, every slab still in one */
    eddy_balance many = {0};
    eddy__balance_bounds(&many, 3, 8, bounds);
    check_tiles(bounds, 8, 3, "8 threads, 3 slabs");
    for (int t = 0; t < 8; t++)
        seconds[t] = 1e-3;
    eddy__balance_record(&many, 8, bounds, seconds);
    for (int t = 0; t < 8; t++)
        CHECK(many.rate[t] > 0.0, "thread %d without slabs has rate %g, want the others' mean", t, many.rate[t]);
    CHECK_NEAR(many.rate[0], 1000.0, 1e-9, "an empty block's thread takes the mean: thread 0");

    /* a thread whose time reads 0 (a clock too coarse) keeps its old rate */
    eddy_balance keep = {2, {5.0, 7.0}};
    const int halves[3] = {0, 5, 10};
    seconds[0] = 0.0, seconds[1] = 1.0;
    eddy__balance_record(&keep, 2, halves, seconds);
    CHECK_NEAR(keep.rate[0], 5.0, 0.0, "rate kept when the time reads 0");
    CHECK_NEAR(keep.rate[1], 5.6, 1e-12, "a slower call: 0.8 * 7");

    /* a loop's run: blocks by the rates (3 : 1 -> 75 of 100), the times recorded at its end */
    eddy_balance r31 = {2, {3.0, 1.0}};
    eddy_balance_run run;
    int r0, r1;
    eddy__balance_begin(&run, &r31, 100, 2, true);
    double start = eddy__balance_block(&run, 0, 2, &r0, &r1);
    CHECK(r0 == 0 && r1 == 75, "run: thread 0 takes [%d, %d), want [0, 75)", r0, r1);
    eddy__balance_timed(&run, 0, 2, start - 1.0); /* 75 slabs in about a second */
    start = eddy__balance_block(&run, 1, 2, &r0, &r1);
    CHECK(r0 == 75 && r1 == 100, "run: thread 1 takes [%d, %d), want [75, 100)", r0, r1);
    eddy__balance_timed(&run, 1, 2, start - 5.0); /* 25 slabs in about 5 s */
    eddy__balance_end(&run);
    CHECK(r31.rate[0] > 74.0 && r31.rate[0] < 75.0, "run: thread 0's rate %g, want about 75", r31.rate[0]);
    CHECK(r31.rate[1] > 4.9 && r31.rate[1] < 5.0, "run: thread 1's rate %g, want about 5", r31.rate[1]);
    /* a team smaller than asked: even blocks for it, nothing recorded */
    eddy_balance before = r31;
    eddy__balance_begin(&run, &r31, 100, 2, true);
    start = eddy__balance_block(&run, 0, 1, &r0, &r1);
    CHECK(r0 == 0 && r1 == 100, "run, team of 1: [%d, %d), want [0, 100)", r0, r1);
    eddy__balance_timed(&run, 0, 1, start);
    eddy__balance_end(&run);
    CHECK(r31.rate[0] == before.rate[0] && r31.rate[1] == before.rate[1], "run, team of 1: rates changed");
    /* balancing off: even blocks, nothing recorded */
    eddy__balance_begin(&run, &r31, 100, 2, false);
    start = eddy__balance_block(&run, 1, 2, &r0, &r1);
    CHECK(r0 == 50 && r1 == 100, "run, off: thread 1 takes [%d, %d), want [50, 100)", r0, r1);
    eddy__balance_timed(&run, 1, 2, start - 1.0);
    eddy__balance_end(&run);
    CHECK(r31.rate[1] == before.rate[1], "run, off: rates changed");
    return check_finish("test_balance");
}
