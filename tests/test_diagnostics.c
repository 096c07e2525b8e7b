/* Diagnostics against a direct double-precision computation on random fields: max and RMS divergence over fluid
 * cells, kinetic energy 0.5 sum u_f^2 h^d, total dye sum (R+G+B) times the scalar cell volume, max cell-centred
 * speed, CFL = max |u_face| dt / h. 2D and 3D, walls and periodic axes (whose repeated last face counts once), a
 * solid obstacle, a scalar grid 2x finer and one of the velocity grid's size, a cell size that is and one that is
 * not a power of two (diagnostics multiply by 1/h only when that is exact). Tolerances: the library forms each
 * term in float (relative error <= 2^-24 per operation, a few operations) and sums in double, so sums agree to
 * 1e-6 relative; the maxima are of the same float values (max |div| to 1e-6 relative because the reference
 * divides in double), speed and CFL to 1e-6. Every vector width (SSE2, AVX2 and AVX-512 where the CPU has them)
 * gives the one-float build's per-row partials byte for byte (checked here too). */
/* the row kernels' one-float-wide build (the WebAssembly page's) is compiled into this test: instances end in _scalar */
#define EDDY_VF_SCALAR
#define EDDY_ISA scalar
#include "check.h"
#include "sim_internal.h"

#include "diagnostics_rows.c"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static float rnd(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)((*state >> 8) & 0xffff) / 65536.0f * 2.0f - 1.0f;
}

static double rel(double a, double b) { return fabs(a - b) / (fabs(b) > 1e-300 ? fabs(b) : 1.0); }

/* spread: values over 2^-30 .. 2^30, so that the double sums round and their order shows in their bits */
static void check_case(int dim, bool periodic, int dye_scale, float size, int n0_cells, bool spread) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = n0_cells;
    d.grid[1] = dim == 2 ? 38 : 17;
    d.grid[2] = 13;
    d.size[0] = size;
    d.dt = 0.01f;
    d.threads = 2;
    d.dye_scale[0] = d.dye_scale[1] = d.dye_scale[2] = dye_scale;
    if (periodic) {
        d.boundary[EDDY_FACE_X_MIN].type = d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_PERIODIC;
        d.boundary[2 * (dim - 1)].type = d.boundary[2 * (dim - 1) + 1].type = EDDY_BOUNDARY_PERIODIC;
    }
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return;
    }
    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_SPHERE;
    o.center[0] = 0.4f * size; o.center[1] = 0.3f * size; o.center[2] = 0.3f * size; o.radius = 0.15f * size;
    CHECK(eddy_sim_add_obstacle(s, &o, NULL) == EDDY_OK, "obstacle: %s", eddy_sim_last_error(s));
    unsigned seed = 12345u + (unsigned)(dim * 7 + periodic * 3 + dye_scale);
    for (int f = 0; f <= EDDY_FIELD_TEMPERATURE; f++) {
        if (f == EDDY_FIELD_W && dim == 2) continue;
        if (f == EDDY_FIELD_PRESSURE) continue;
        eddy_field_layout L;
        eddy_sim_field_layout(s, (eddy_field)f, &L);
        float *buf = malloc(L.count * sizeof(float));
        for (size_t i = 0; i < L.count; i++) {
            buf[i] = f >= EDDY_FIELD_DYE_R ? 0.5f + 0.5f * rnd(&seed) : 3.0f * rnd(&seed);
            if (spread) buf[i] = ldexpf(buf[i], (int)(61.0f * (0.5f + 0.5f * rnd(&seed))) - 30);
        }
        CHECK(eddy_sim_write_field(s, (eddy_field)f, buf, L.count) == EDDY_OK, "write %s", eddy_field_name((eddy_field)f));
        free(buf);
    }
    /* the reference, straight from the definitions */
    const int n0 = s->n[0], n1 = s->n[1], n2 = s->n[2];
    int fn[3][3];
    for (int a = 0; a < 3; a++) eddy__face_dims(s, a, fn[a]);
    double maxdiv = 0, sumdiv2 = 0, maxsp2 = 0, energy = 0, maxface = 0, dye = 0;
    size_t fluid = 0;
    for (int k = 0; k < n2; k++)
        for (int j = 0; j < n1; j++)
            for (int i = 0; i < n0; i++) {
                double c[3] = {0, 0, 0}, div = 0;
                for (int a = 0; a < dim; a++) {
                    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
                    hi[a]++;
                    double f0 = s->vel[a][eddy__idx(fn[a], lo[0], lo[1], lo[2])], f1 = s->vel[a][eddy__idx(fn[a], hi[0], hi[1], hi[2])];
                    div += f1 - f0;
                    c[a] = 0.5 * (f0 + f1);
                }
                if (s->solid[eddy__idx(s->n, i, j, k)] != 0) continue;
                fluid++;
                div /= s->h;
                maxdiv = fmax(maxdiv, fabs(div));
                sumdiv2 += div * div;
                maxsp2 = fmax(maxsp2, c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            }
    for (int a = 0; a < dim; a++)
        for (int k = 0; k < fn[a][2]; k++)
            for (int j = 0; j < fn[a][1]; j++)
                for (int i = 0; i < fn[a][0]; i++) {
                    int idx[3] = {i, j, k};
                    if (s->periodic[a] && idx[a] == s->n[a]) continue; /* the repeated last face */
                    double x = s->vel[a][eddy__idx(fn[a], i, j, k)];
                    energy += x * x;
                    maxface = fmax(maxface, fabs(x));
                }
    for (size_t q = 0; q < s->nscalar; q++) dye += (double)s->dye[0][q] + s->dye[1][q] + s->dye[2][q];
    const double hd = dim == 3 ? (double)s->h * s->h * s->h : (double)s->h * s->h;
    const double sv = (double)s->sh[0] * s->sh[1] * (dim == 3 ? s->sh[2] : 1.0);
    const char *what = periodic ? "periodic" : "walls";
    /* the per-row partials of the one-float build, which every vector width must match byte for byte */
    const diag_layout lay = eddy__diag_layout(s);
    double *scalar_partials = calloc(lay.total, sizeof(double));
    if (!scalar_partials) {
        CHECK(0, "out of memory for %zu partials", lay.total);
        eddy_sim_destroy(s);
        return;
    }
    int e2;
    const bool pow2 = frexpf(s->h, &e2) == 0.5f; /* the instance that multiplies by 1/h (exact) */
    const eddy_diag_row_fn scalar_row = dim == 2 ? (pow2 ? eddy__diag_row_2d_mul_scalar : eddy__diag_row_2d_div_scalar)
                                                 : (pow2 ? eddy__diag_row_3d_mul_scalar : eddy__diag_row_3d_div_scalar);
    size_t scalar_fluid = 0;
    for (int k = 0; k < n2; k++)
        for (int j = 0; j < n1; j++) scalar_fluid += (size_t)scalar_row(s, &lay, scalar_partials, j, k);
    CHECK(scalar_fluid == fluid, "%dD: the one-float build counts %zu fluid cells, not %zu", dim, scalar_fluid, fluid);
    eddy_step_stats first = {0};
    const char *isa_name[3] = {"baseline", "AVX2", "AVX-512"};
    const bool can[3] = {true, eddy__cpu_has_avx2(), eddy__cpu_has_avx2() && eddy__cpu_has_avx512()};
    for (int isa = 0; isa < 3; isa++) {
        if (!can[isa]) continue;
        s->avx2 = isa >= 1;
        s->avx512 = isa == 2;
        CHECK(eddy_sim_update_diagnostics(s) == EDDY_OK, "diagnostics: %s", eddy_sim_last_error(s));
        const eddy_step_stats *st = &s->stats;
        CHECK(memcmp(s->diag_partial, scalar_partials, lay.total * sizeof(double)) == 0,
              "%dD %s x%d: the %s row partials differ from the one-float build's", dim, what, dye_scale, isa_name[isa]);
        CHECK(rel(st->max_div, maxdiv) <= 1e-6, "%dD %s x%d: max div %.9g vs %.9g", dim, what, dye_scale, st->max_div, maxdiv);
        CHECK(rel(st->rms_div, sqrt(sumdiv2 / (double)fluid)) <= 1e-6, "%dD %s: rms div %.9g vs %.9g", dim, what, st->rms_div,
              sqrt(sumdiv2 / (double)fluid));
        CHECK(rel(st->kinetic_energy, 0.5 * energy * hd) <= 1e-6, "%dD %s: energy %.12g vs %.12g", dim, what, st->kinetic_energy,
              0.5 * energy * hd);
        CHECK(rel(st->dye_total, dye * sv) <= 1e-6, "%dD %s x%d: dye %.12g vs %.12g", dim, what, dye_scale, st->dye_total, dye * sv);
        CHECK(rel(st->max_speed, sqrt(maxsp2)) <= 1e-6, "%dD %s: max speed %.9g vs %.9g", dim, what, st->max_speed, sqrt(maxsp2));
        CHECK(rel(st->cfl, maxface * d.dt / s->h) <= 1e-6, "%dD %s: cfl %.9g vs %.9g", dim, what, st->cfl, maxface * d.dt / s->h);
        if (isa == 0) first = *st;
        else
            CHECK(memcmp(&first.kinetic_energy, &st->kinetic_energy, sizeof(double)) == 0 &&
                      memcmp(&first.dye_total, &st->dye_total, sizeof(double)) == 0 && first.max_div == st->max_div &&
                      first.rms_div == st->rms_div && first.max_speed == st->max_speed && first.cfl == st->cfl,
                  "%dD %s: the %s and baseline diagnostics differ", dim, what, isa_name[isa]);
    }
    free(scalar_partials);
    eddy_sim_destroy(s);
}

int main(void) {
    check_case(2, false, 2, 1.0f, 45, false);
    check_case(2, true, 1, 1.0f, 45, false);
    check_case(2, false, 1, 45.0f / 64.0f, 45, false); /* h = 1/64 */
    check_case(3, false, 2, 1.3f, 19, false);
    check_case(3, false, 1, 19.0f / 32.0f, 19, false); /* h = 1/32 */
    check_case(3, true, 1, 1.0f, 19, false);
    /* rows of several whole vectors of every width and a tail, values whose sums round */
    check_case(2, false, 1, 1.0f, 77, true);
    check_case(3, false, 2, 1.0f, 41, true);
    check_case(3, true, 1, 41.0f / 64.0f, 41, true);
    return check_finish("test_diagnostics");
}
