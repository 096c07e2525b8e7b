/* Vorticity confinement's sweep (vorticity_sweep.c) against a straightforward per-cell implementation of the
 * formulas in vorticity.c, byte for byte: every vector width the CPU runs (baseline, AVX2, AVX-512, and the
 * one-float build of WebAssembly, compiled into this test), 1, 2 and 3 threads (blocks of slabs as thin as one, even
 * and as uneven as the split by the threads' speeds makes them, balance.h), 3D
 * planes cut into bands as narrow as one row, faces written with ordinary and with non-temporal stores, over 2D and
 * 3D grids whose sizes are and are not multiples of the vector widths, every combination of periodic axes (the others
 * walls, with one-sided differences), solid cells, regions where the gradient of |curl| vanishes, and cell sizes
 * that are a power of two and that are not (h cancels in the sweep's units: it must not matter).
 *
 * Tolerance: none, the bytes must be equal: the sweep performs the same float operations in the same order as the
 * formulas, so any difference is a bug. The test also checks that it would see one: references one rounding apart
 * (the squares of |g| summed in another order; c * (1 / |g|) instead of c / |g|) must differ from the reference. */
/* the sweep's one-float-wide build (the WebAssembly page's) is compiled into this test: its instances end in _scalar */
#define EDDY_VF_SCALAR
#define EDDY_ISA scalar
#include "check.h"
#include "sim_internal.h"
#include "vorticity_sweep.h"

#include "vorticity_sweep.c"
static const eddy_vort_sweep_fn scalar_instances[2] = {eddy__vort_sweep2_scalar, eddy__vort_sweep3_scalar};

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t rng_state = 12345u;
static float rnd(void) { /* in [-1, 1) */
    rng_state = rng_state * 1664525u + 1013904223u;
    return (float)(rng_state >> 8) / 8388608.0f - 1.0f;
}

/* ---------------------------------------------------------------- the reference, one cell at a time */

typedef struct ref {
    const eddy_sim *s;
    float *uc[3], *w[3], *mag, *f[3];
    int variant; /* deliberately different: 1 sums the squares of |g| in another order, 2 takes c * (1 / |g|) */
} ref;

static int nb(const eddy_sim *s, int b, int x, int d) {
    x += d;
    return s->periodic[b] ? eddy__wrap(x, s->n[b]) : eddy__clampi(x, 0, s->n[b] - 1);
}

/* D_b of cell array f at c (vorticity.c): central, one-sided at a wall (times 2), wrapped on a periodic axis */
static float ddx(const eddy_sim *s, const float *f, int b, const int c[3]) {
    if (b >= s->dim) return 0.0f;
    int lo[3] = {c[0], c[1], c[2]}, hi[3] = {c[0], c[1], c[2]};
    lo[b] = nb(s, b, c[b], -1);
    hi[b] = nb(s, b, c[b], +1);
    int span = s->periodic[b] ? 2 : hi[b] - lo[b];
    float d = f[eddy__idx(s->n, hi[0], hi[1], hi[2])] - f[eddy__idx(s->n, lo[0], lo[1], lo[2])];
    return d * (span == 1 ? 2.0f : 1.0f);
}

/* the new faces of every component, into out[a] */
static void reference(ref *r, float dt, float *out[3]) {
    const eddy_sim *s = r->s;
    const int *n = s->n;
    const float c = 0.125f * (s->def.vorticity * dt);
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                size_t c = eddy__idx(n, i, j, k);
                for (int a = 0; a < 3; a++) {
                    if (a >= s->dim) { r->uc[a][c] = 0.0f; continue; }
                    int fn[3], hi[3] = {i, j, k};
                    eddy__face_dims(s, a, fn);
                    hi[a]++;
                    r->uc[a][c] = s->vel[a][eddy__idx(fn, i, j, k)] + s->vel[a][eddy__idx(fn, hi[0], hi[1], hi[2])];
                }
            }
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                const int c3[3] = {i, j, k};
                size_t q = eddy__idx(n, i, j, k);
                float wx = 0, wy = 0, wz = ddx(s, r->uc[1], 0, c3) - ddx(s, r->uc[0], 1, c3);
                if (s->dim == 3) {
                    wx = ddx(s, r->uc[2], 1, c3) - ddx(s, r->uc[1], 2, c3);
                    wy = ddx(s, r->uc[0], 2, c3) - ddx(s, r->uc[2], 0, c3);
                }
                r->w[0][q] = wx, r->w[1][q] = wy, r->w[2][q] = wz;
                r->mag[q] = sqrtf(wx * wx + wy * wy + wz * wz);
            }
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                const int c3[3] = {i, j, k};
                size_t q = eddy__idx(n, i, j, k);
                const int v = r->variant;
                float gx = ddx(s, r->mag, 0, c3), gy = ddx(s, r->mag, 1, c3), gz = ddx(s, r->mag, 2, c3);
                float len = v == 1 ? sqrtf(gx * gx + (gy * gy + gz * gz)) : sqrtf(gx * gx + gy * gy + gz * gz);
                float inv = 0.0f; /* +0 in solid cells and where the gradient vanishes */
                if (len > 1e-20f && s->solid[q] == 0) inv = v == 2 ? c * (1.0f / len) : c / len;
                const float nx = gx * inv, ny = gy * inv, nz = gz * inv, *w0 = r->w[0], *w1 = r->w[1], *w2 = r->w[2];
                r->f[0][q] = ny * w2[q] - nz * w1[q];
                r->f[1][q] = nz * w0[q] - nx * w2[q];
                r->f[2][q] = nx * w1[q] - ny * w0[q];
            }
    /* face i along a lies between cells i - 1 and i (clamped at a wall, wrapped if periodic) */
    for (int a = 0; a < s->dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    int lo[3] = {i, j, k}, hi[3] = {i, j, k}, x = a == 0 ? i : a == 1 ? j : k;
                    lo[a] = nb(s, a, x, -1);
                    hi[a] = s->periodic[a] ? eddy__wrap(x, n[a]) : eddy__clampi(x, 0, n[a] - 1);
                    size_t q = eddy__idx(fn, i, j, k);
                    float fl = r->f[a][eddy__idx(n, lo[0], lo[1], lo[2])], fh = r->f[a][eddy__idx(n, hi[0], hi[1], hi[2])];
                    out[a][q] = s->vel[a][q] + (fl + fh);
                }
    }
}

/* ---------------------------------------------------------------- the cases */

static eddy_sim *make(int dim, const int n[3], int periodic_mask, bool pow2) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    for (int a = 0; a < 3; a++) d.grid[a] = n[a];
    const float h = pow2 ? 0.125f : 0.1f;
    d.size[0] = h * (float)n[0];
    d.vorticity = 0.35f;
    for (int a = 0; a < dim; a++)
        if (periodic_mask & (1 << a)) d.boundary[2 * a].type = d.boundary[2 * a + 1].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return NULL;
    }
    /* random faces, a block of uniform flow (there |curl| is constant: its gradient vanishes) and ~10% solids */
    for (int a = 0; a < dim; a++) {
        int fn[3];
        eddy__face_dims(s, a, fn);
        for (int k = 0; k < fn[2]; k++)
            for (int j = 0; j < fn[1]; j++)
                for (int i = 0; i < fn[0]; i++) {
                    bool calm = i < fn[0] / 2 && j < fn[1] / 2 && k <= fn[2] / 2;
                    s->vel[a][eddy__idx(fn, i, j, k)] = calm ? 0.25f * (float)(a + 1) : rnd();
                }
    }
    for (size_t c = 0; c < s->ncells; c++) s->solid[c] = rnd() > 0.8f ? EDDY_CELL_SOLID : EDDY_CELL_FLUID;
    return s;
}

static bool same(const eddy_sim *s, float *const want[3], float *const got[3]) {
    for (int a = 0; a < s->dim; a++)
        if (memcmp(want[a], got[a], s->nface[a] * sizeof(float)) != 0) return false;
    return true;
}

/* first differing face, for the message */
static void first_difference(const eddy_sim *s, float *const want[3], float *const got[3], char *out, size_t size) {
    for (int a = 0; a < s->dim; a++)
        for (size_t q = 0; q < s->nface[a]; q++)
            if (memcmp(&want[a][q], &got[a][q], sizeof(float)) != 0) {
                snprintf(out, size, "component %d face %zu: %.9g, reference %.9g", a, q, (double)got[a][q], (double)want[a][q]);
                return;
            }
    snprintf(out, size, "none");
}

static int cases_run;

static void check_case(int dim, const int n[3], int periodic_mask, bool pow2) {
    eddy_sim *s = make(dim, n, periodic_mask, pow2);
    if (!s) return;
    const float dt = 0.37f;
    float *in[3] = {0}, *want[3] = {0}, *other[3] = {0};
    ref r = {s, {0}, {0}, NULL, {0}, 0};
    for (int a = 0; a < 3; a++) {
        r.uc[a] = malloc(s->ncells * sizeof(float));
        r.w[a] = malloc(s->ncells * sizeof(float));
        r.f[a] = malloc(s->ncells * sizeof(float));
        if (a < dim) {
            in[a] = malloc(s->nface[a] * sizeof(float));
            want[a] = malloc(s->nface[a] * sizeof(float));
            other[a] = malloc(s->nface[a] * sizeof(float));
            memcpy(in[a], s->vel[a], s->nface[a] * sizeof(float));
        }
    }
    r.mag = malloc(s->ncells * sizeof(float));
    reference(&r, dt, want);
    /* the sensitivity check, once per grid shape of 64 cells or more (on 27, c / |g| and c * (1 / |g|) can agree
     * everywhere; in 2D the third square is 0, so variant 1 is the reference) */
    if (periodic_mask == 0 && !pow2 && s->ncells >= 64)
        for (r.variant = dim == 3 ? 1 : 2; r.variant <= 2; r.variant++) {
            reference(&r, dt, other);
            CHECK(!same(s, want, other), "%dD %dx%dx%d: variant %d of the formula should change some byte", dim, n[0],
                  n[1], n[2], r.variant);
        }
    r.variant = 0;
    const bool can[4] = {true, eddy__cpu_has_avx2(), eddy__cpu_has_avx2() && eddy__cpu_has_avx512(), true};
    for (int isa = 0; isa < 4; isa++) {
        if (!can[isa]) continue;
        for (int threads = 1; threads <= 3; threads++)
            for (int narrow = 0; narrow < 3; narrow++) {
                s->avx2 = isa >= 1;
                s->avx512 = isa == 2;
                s->def.threads = threads;
                for (int a = 0; a < dim; a++) memcpy(s->vel[a], in[a], s->nface[a] * sizeof(float));
                /* narrow: bands of one row (a budget of nothing) and faces written past the caches (non-temporal
                 * stores: from any size); else the library's defaults. The threads have measured 1 : 3 : 0.5 slabs
                 * per second; (2) cuts the blocks by those rates, the others even (balancing off: even_blocks) */
                eddy_vort_options o = eddy__vort_default_options();
                if (narrow == 1) o.ring_budget = 0, o.min_band_rows = 1, o.stream_bytes = 0;
                const double rate[3] = {1.0, 3.0, 0.5};
                s->vort_balance = (eddy_balance){0};
                s->vort_balance.threads = threads;
                for (int t = 0; t < threads; t++) s->vort_balance.rate[t] = rate[t];
                s->even_blocks = narrow != 2;
                if (isa == 3) o.instances = scalar_instances;
                eddy_status st = eddy__vort_apply(s, dt, &o);
                CHECK(st == EDDY_OK, "apply: %s", eddy_sim_last_error(s));
                if (!same(s, want, s->vel)) {
                    char where[160];
                    first_difference(s, want, s->vel, where, sizeof where);
                    CHECK(0, "%dD %dx%dx%d periodic %d%d%d h %s, %s, %d threads%s: differs from the reference (%s)", dim,
                          n[0], n[1], n[2], periodic_mask & 1, (periodic_mask >> 1) & 1, (periodic_mask >> 2) & 1,
                          pow2 ? "2^-3" : "0.1", isa == 0 ? "baseline" : isa == 1 ? "AVX2" : isa == 2 ? "AVX-512" : "scalar", threads,
                          narrow == 1 ? ", 1-row bands, streaming stores" : narrow == 2 ? ", uneven blocks" : "", where);
                }
                cases_run++;
            }
    }
    for (int a = 0; a < 3; a++) {
        free(r.uc[a]), free(r.w[a]), free(r.f[a]);
        free(in[a]), free(want[a]), free(other[a]);
    }
    free(r.mag);
    eddy_sim_destroy(s);
}

int main(void) {
    /* rows of 3 to 37 cells: shorter than one vector, whole vectors of 4, 8 and 16, and one past or short of them */
    const int shapes2[][3] = {{3, 3, 1}, {5, 7, 1}, {16, 9, 1}, {17, 12, 1}, {31, 4, 1}, {32, 11, 1}, {37, 6, 1}};
    const int shapes3[][3] = {{3, 3, 3}, {5, 4, 6}, {16, 7, 5}, {17, 9, 4}, {33, 5, 7}, {8, 10, 3}};
    for (size_t c = 0; c < sizeof shapes2 / sizeof shapes2[0]; c++)
        for (int p = 0; p < 4; p++)
            for (int pow2 = 0; pow2 < 2; pow2++) check_case(2, shapes2[c], p, pow2);
    for (size_t c = 0; c < sizeof shapes3 / sizeof shapes3[0]; c++)
        for (int p = 0; p < 8; p++)
            for (int pow2 = 0; pow2 < 2; pow2++) check_case(3, shapes3[c], p, pow2);
    printf("test_vorticity_sweep: %d runs compared\n", cases_run);
    return check_finish("test_vorticity_sweep");
}
