/* Byte-for-byte comparison of one field of two simulations, for the tests that require identical results (thread
 * counts, vector widths). */
#ifndef EDDY_TEST_SAME_FIELDS_H
#define EDDY_TEST_SAME_FIELDS_H

#include "eddy/eddy.h"

#include <stdbool.h>
#include <string.h>

static inline bool same_field_bytes(eddy_sim *a, eddy_sim *b, eddy_field f) {
    eddy_field_layout L;
    eddy_sim_field_layout(a, f, &L);
    const float *x = eddy_sim_field_view(a, f, NULL), *y = eddy_sim_field_view(b, f, NULL);
    return memcmp(x, y, L.count * sizeof(float)) == 0;
}

#endif
