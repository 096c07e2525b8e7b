/* The median of a bench's timings (sorts them in place): the middle one, or the mean of the middle two; and their
 * range. */
#ifndef EDDY_BENCH_MEDIAN_H
#define EDDY_BENCH_MEDIAN_H

#include <stdlib.h>

static int bench_cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* the smallest and largest of v[0..n), n >= 1 */
static inline void bench_range(const double *v, int n, double *lo, double *hi) {
    *lo = *hi = v[0];
    for (int i = 1; i < n; i++) *lo = v[i] < *lo ? v[i] : *lo, *hi = v[i] > *hi ? v[i] : *hi;
}

#endif
