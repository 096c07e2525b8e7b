/* x where keep, else +0, as a bit mask rather than a branch: loops that use it stay free of control flow, so the
 * vectoriser handles them (solid cells and vanishing gradients in vorticity.c and diagnostics.c). */
#ifndef EDDY_KEEP_IF_H
#define EDDY_KEEP_IF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static inline float eddy__keep_float(float x, bool keep) {
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    b &= (uint32_t)0 - (uint32_t)keep;
    memcpy(&x, &b, sizeof x);
    return x;
}

static inline double eddy__keep_double(double x, bool keep) {
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    b &= (uint64_t)0 - (uint64_t)keep;
    memcpy(&x, &b, sizeof x);
    return x;
}

#endif
