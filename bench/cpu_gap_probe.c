/* cpu_gap_probe: how long busy threads go without running on this machine. Each thread reads the clock in a loop
 * for the given seconds; a step between two readings longer than 1 ms is time the thread was not running (the kernel
 * or the hypervisor gave its CPU to someone else). Stage timings taken while threads lose time this way are the
 * host's, not the code's (bench.c's "fastest" ratio is blind to them, its median is not).
 * Usage: cpu_gap_probe [threads (2)] [seconds (5)] */
#include "sim_internal.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    const int threads = argc > 1 ? atoi(argv[1]) : 2;
    const double seconds = argc > 2 ? atof(argv[2]) : 5.0;
    if (threads < 1 || threads > 1024 || !(seconds > 0.0 && seconds <= 600.0)) {
        fprintf(stderr, "cpu_gap_probe: threads must be 1-1024 and seconds in (0, 600], got %s %s\n", argc > 1 ? argv[1] : "",
                argc > 2 ? argv[2] : "");
        return 2;
    }
    const double start = eddy__now_ms(), span = seconds * 1e3;
    double longest = 0.0, lost = 0.0;
#pragma omp parallel num_threads(threads) reduction(max : longest) reduction(+ : lost)
    {
        double last = eddy__now_ms();
        for (double t = last; t - start < span; t = eddy__now_ms()) {
            const double step = t - last;
            longest = step > longest ? step : longest;
            if (step > 1.0) lost += step;
            last = t;
        }
    }
    printf("cpu_gap_probe: %d busy threads for %.1f s: each lost %.0f ms (%.0f%%) in gaps over 1 ms, the longest %.1f ms\n",
           threads, seconds, lost / threads, 100.0 * lost / threads / span, longest);
    return 0;
}
