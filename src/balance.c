/* Blocks of slabs in proportion to the threads' measured speeds (balance.h). */
#include "balance.h"

#include <omp.h>

static bool known(const eddy_balance *b, int threads) {
    return threads <= EDDY_BALANCE_MAX_THREADS && b->threads == threads;
}

void eddy__balance_bounds(const eddy_balance *b, int slabs, int threads, int *bounds) {
    if (threads > EDDY_BALANCE_MAX_THREADS) threads = EDDY_BALANCE_MAX_THREADS; /* the caller splits evenly */
    const bool measured = known(b, threads);
    double weight[EDDY_BALANCE_MAX_THREADS], total = 0.0, mean = 0.0, lo = 0.0, hi = 0.0;
    for (int t = 0; t < threads; t++) {
        const double r = measured ? b->rate[t] : 1.0;
        mean += r;
        lo = t == 0 || r < lo ? r : lo;
        hi = t == 0 || r > hi ? r : hi;
    }
    mean /= threads;
    const bool level = !(hi > EDDY_BALANCE_SPREAD * lo); /* (also when a rate is not a number) */
    for (int t = 0; t < threads; t++) {
        const double r = measured && !level ? b->rate[t] : 1.0;
        weight[t] = r > 0.25 * mean ? r : 0.25 * mean;
        total += weight[t];
    }
    double before = 0.0;
    bounds[0] = 0;
    for (int t = 0; t < threads; t++) {
        before += weight[t];
        int cut = t + 1 == threads ? slabs : (int)(slabs * (before / total) + 0.5);
        if (cut < bounds[t]) cut = bounds[t];
        if (cut > slabs) cut = slabs;
        bounds[t + 1] = cut;
    }
}

void eddy__balance_record(eddy_balance *b, int threads, const int *bounds, const double *seconds) {
    if (threads > EDDY_BALANCE_MAX_THREADS) return;
    const bool measured = known(b, threads);
    for (int t = 0; t < threads; t++) {
        const int own = bounds[t + 1] - bounds[t];
        double r = measured ? b->rate[t] : 0.0;
        if (own > 0 && seconds[t] > 0.0) {
            const double now = own / seconds[t];
            r = now > EDDY_BALANCE_DECAY * r ? now : EDDY_BALANCE_DECAY * r;
        }
        b->rate[t] = r;
    }
    /* a thread never measured (no slabs, or no time) takes the mean of the others */
    double sum = 0.0;
    int with = 0;
    for (int t = 0; t < threads; t++)
        if (b->rate[t] > 0.0) sum += b->rate[t], with++;
    for (int t = 0; t < threads; t++)
        if (!(b->rate[t] > 0.0)) b->rate[t] = with ? sum / with : 1.0;
    b->threads = threads;
}

void eddy__balance_begin(eddy_balance_run *run, eddy_balance *b, int slabs, int threads, bool on) {
    run->b = b;
    run->slabs = slabs;
    run->threads = threads;
    run->on = on && threads <= EDDY_BALANCE_MAX_THREADS;
    run->whole = true;
    if (run->on) eddy__balance_bounds(b, slabs, threads, run->bounds);
}

double eddy__balance_block(const eddy_balance_run *run, int t, int nt, int *r0, int *r1) {
    if (run->on && nt == run->threads) {
        *r0 = run->bounds[t];
        *r1 = run->bounds[t + 1];
    } else {
        *r0 = (int)((long long)run->slabs * t / nt);
        *r1 = (int)((long long)run->slabs * (t + 1) / nt);
    }
    return omp_get_wtime();
}

void eddy__balance_timed(eddy_balance_run *run, int t, int nt, double start) {
    if (!run->on) return;
    if (nt == run->threads) run->seconds[t] = omp_get_wtime() - start;
    else if (t == 0) run->whole = false; /* a smaller team than the bounds were cut for */
}

void eddy__balance_end(eddy_balance_run *run) {
    if (run->on && run->whole) eddy__balance_record(run->b, run->threads, run->bounds, run->seconds);
}
