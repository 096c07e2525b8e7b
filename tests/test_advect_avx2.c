/* The AVX2 build of the advection (8 elements of a row at once, gathered nodes, the first pass run inside the
 * trace; 2D and 3D) gives the same bytes as the baseline build, on the shapes where its special cases live: rows
 * shorter than 8 (the scalar fallback), rows of exactly 8, rows whose last group of 8 overlaps the one before, the
 * boundary elements whose start-of-trace velocity is read with clamping (walls, an inflow and an outflow face), a
 * scalar grid finer than the velocity's (sampled first stage), feet outside the domain (CFL above 1: the clamped
 * locate), with and without an obstacle, every scheme, 1 and 2 threads; and periodic axes (wrapped lattices, the
 * seam where a stencil's upper node wraps to node 0, feet wrapped from outside). Exact comparison: both builds do
 * the same float operations in the same order. Skipped (passes) on a CPU without AVX2. */
#include "check.h"
#include "same_fields.h"
#include "stirred_scene.h"
#include "sim_internal.h"

#include <stdio.h>
#include <string.h>

typedef struct variant {
    int dim;
    int n[3];
    eddy_advection scheme;
    int dye_scale[3];
    int periodic; /* bit a: axis a periodic */
    bool obstacle;
} variant;

static eddy_sim *run(const variant *v, int threads, bool wide) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = v->dim;
    for (int a = 0; a < 3; a++) {
        d.grid[a] = v->n[a];
        d.dye_scale[a] = v->dye_scale[a];
    }
    stirred_scene_def(&d, threads, v->scheme, 2.5f); /* CFL above 1 in places: feet leave the domain */
    d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_OUTFLOW;
    /* an inflow face: the velocity at its faces is prescribed, the rows next to it read it clamped */
    d.boundary[EDDY_FACE_X_MIN].type = EDDY_BOUNDARY_INFLOW;
    d.boundary[EDDY_FACE_X_MIN].velocity[0] = 0.6f;
    d.boundary[EDDY_FACE_X_MIN].dye[1] = 1.0f;
    d.boundary[EDDY_FACE_X_MIN].temperature = 2.0f;
    d.boundary[EDDY_FACE_Y_MAX].type = EDDY_BOUNDARY_NOSLIP;
    for (int a = 0; a < v->dim; a++)
        if (v->periodic >> a & 1) d.boundary[2 * a].type = d.boundary[2 * a + 1].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return NULL;
    }
    s->avx2 = wide;
    const stirred_scene scene = {v->obstacle, 0.15f, 4, 0.12f, 0.4f, 0.1f};
    run_stirred_scene(s, &scene);
    return s;
}

static void compare(const variant *v) {
    for (int threads = 1; threads <= 2; threads++) {
        eddy_sim *base = run(v, threads, false), *wide = run(v, threads, true);
        for (int f = 0; base && wide && f <= EDDY_FIELD_TEMPERATURE; f++) {
            if (f == EDDY_FIELD_W && v->dim == 2) continue;
            CHECK(same_field_bytes(base, wide, (eddy_field)f),
                  "%dD %dx%dx%d scheme %d dye_scale %dx%dx%d periodic axes %d obstacle %d, %d threads: %s differs between AVX2 "
                  "and baseline", v->dim, v->n[0], v->n[1], v->n[2], (int)v->scheme, v->dye_scale[0], v->dye_scale[1],
                  v->dye_scale[2], v->periodic, v->obstacle, threads, eddy_field_name((eddy_field)f));
        }
        if (base) CHECK(base->stats.kinetic_energy > 0 && base->stats.dye_total > 0, "nothing moved");
        eddy_sim_destroy(base);
        eddy_sim_destroy(wide);
    }
}

int main(void) {
    if (!eddy__cpu_has_avx2()) {
        printf("test_advect_avx2: this CPU has no AVX2, nothing to compare\n");
        return check_finish("test_advect_avx2");
    }
    const variant variants[] = {
        {3, {6, 9, 7}, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, 0, true},     /* x rows of 6 and 7: scalar fallback */
        {3, {8, 7, 9}, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, 0, true},     /* rows of exactly 8 (u faces: 9) */
        {3, {13, 11, 10}, EDDY_ADVECT_SEMI_LAGRANGIAN, {2, 1, 3}, 0, true}, /* finer, uneven scalar grid */
        {3, {13, 11, 10}, EDDY_ADVECT_BFECC, {1, 1, 1}, 0, true},
        {3, {21, 12, 11}, EDDY_ADVECT_MACCORMACK, {2, 2, 2}, 0, true},
        {3, {21, 12, 11}, EDDY_ADVECT_BFECC, {3, 1, 1}, 0, false},
        /* 2D: 4-node stencils, 2 components */
        {2, {6, 9, 1}, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, 0, true},     /* rows of 6 and 7: scalar fallback */
        {2, {7, 10, 1}, EDDY_ADVECT_BFECC, {1, 1, 1}, 0, false},        /* rows of 7 (fallback) and 8 (u faces) */
        {2, {8, 7, 1}, EDDY_ADVECT_SEMI_LAGRANGIAN, {1, 1, 1}, 0, true}, /* rows of exactly 8 (u faces: 9) */
        {2, {13, 11, 1}, EDDY_ADVECT_SEMI_LAGRANGIAN, {2, 2, 1}, 0, false},
        {2, {13, 11, 1}, EDDY_ADVECT_SEMI_LAGRANGIAN, {1, 1, 1}, 0, true},
        {2, {21, 12, 1}, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, 0, false},
        {2, {21, 12, 1}, EDDY_ADVECT_MACCORMACK, {2, 2, 1}, 0, true},
        {2, {21, 12, 1}, EDDY_ADVECT_MACCORMACK, {3, 2, 1}, 0, true},   /* uneven finer scalar grid */
        {2, {29, 19, 1}, EDDY_ADVECT_BFECC, {1, 1, 1}, 0, true},
        {2, {29, 19, 1}, EDDY_ADVECT_BFECC, {2, 2, 1}, 0, false},
        {2, {29, 19, 1}, EDDY_ADVECT_BFECC, {2, 2, 1}, 0, true},
        /* periodic axes: wrapped lattices (the seam, where x1 wraps to node 0, loads each node alone) */
        {2, {21, 12, 1}, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, 1, true},   /* x */
        {2, {21, 12, 1}, EDDY_ADVECT_BFECC, {2, 2, 1}, 2, true},        /* y */
        {2, {21, 12, 1}, EDDY_ADVECT_SEMI_LAGRANGIAN, {1, 1, 1}, 3, false}, /* both */
        {2, {7, 12, 1}, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, 3, true},    /* rows of 7: the wrapping scalar code */
        {2, {8, 9, 1}, EDDY_ADVECT_BFECC, {3, 2, 1}, 1, true},
        {3, {13, 11, 10}, EDDY_ADVECT_MACCORMACK, {1, 1, 1}, 2, true},  /* y */
        {3, {13, 11, 10}, EDDY_ADVECT_BFECC, {2, 1, 2}, 5, true},       /* x and z */
        {3, {9, 8, 10}, EDDY_ADVECT_SEMI_LAGRANGIAN, {1, 1, 1}, 7, false}, /* all three */
    };
    for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) compare(&variants[i]);
    return check_finish("test_advect_avx2");
}
