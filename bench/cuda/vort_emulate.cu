/* Host emulation of the vorticity confinement kernels (src/cuda/vort_tile.cuh) against the CPU's
 * eddy__apply_vorticity without a GPU (cuda_notes 65, 71, 205, 208): the kernels use fused multiply-adds,
 * reciprocals and approximate roots (emulated by fmaf and libm's roots), so the faces are compared to 1e-6 of the
 * largest face (a wrong neighbour or an unwritten face is O(1)). The warp kernels on 32-lane arrays (a
 * shuffle is an array shift); in 3D the warps of a block step by step (the barrier between the steps) with the
 * block's shared memory filled with NaN first. 2D for 1, 2 and 4 columns per lane, 3D for 1 and 2 columns and 8,
 * 16, 25 and 26 warps per block, on grids with walls, periodic axes, partial strips and blocks, 2D strips inside the
 * domain (the instance k_vort2 runs there), 3 x 3, and chunks of
 * 1 to 53 rows / planes; every face must be written exactly once. Not built by CMake; with a CPU build of the library in build/:
 *   nvcc -std=c++17 -ccbin clang++ -O2 --fmad=false -Xcompiler -ffp-contract=off -Isrc/cuda -Isrc -Iinclude \
 *     bench/cuda/vort_emulate.cu build/src/libeddy.a -lgomp -o /tmp/vort_emulate && /tmp/vort_emulate
 * prints one line per grid and "all equal (to 1e-6)". (Built with g++ 12 at -O2 the 4-column runs differ from the
 * CPU, at -O0 / -O1, with -fno-inline or with clang they do not: not understood; the device code is not built by
 * g++.) */
#include "vort_tile.cuh"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <type_traits>
extern "C" {
#include "sim_internal.h"
}
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
namespace ecu {
struct WB { bool v[32]; WB() {} explicit WB(bool b) { for (int i = 0; i < 32; i++) v[i] = b; } };
struct WI { int v[32]; WI() {} explicit WI(int b) { for (int i = 0; i < 32; i++) v[i] = b; } };
struct WF { float v[32]; WF() {} explicit WF(float b) { for (int i = 0; i < 32; i++) v[i] = b; } };
#define EW(T, S, R, op) \
  inline R operator op(const T &a, const T &b) { R r; for (int i = 0; i < 32; i++) r.v[i] = a.v[i] op b.v[i]; return r; } \
  inline R operator op(const T &a, S b) { R r; for (int i = 0; i < 32; i++) r.v[i] = a.v[i] op b; return r; } \
  inline R operator op(S a, const T &b) { R r; for (int i = 0; i < 32; i++) r.v[i] = a op b.v[i]; return r; }
EW(WF, float, WF, +) EW(WF, float, WF, -) EW(WF, float, WF, *) EW(WF, float, WF, /)
EW(WF, float, WB, >) EW(WF, float, WB, <) EW(WF, float, WB, ==)
EW(WI, int, WI, +) EW(WI, int, WI, -) EW(WI, int, WI, *)
EW(WI, int, WB, >=) EW(WI, int, WB, <) EW(WI, int, WB, <=) EW(WI, int, WB, ==) EW(WI, int, WB, >)
EW(WB, bool, WB, &&) EW(WB, bool, WB, ||)
inline WF vsel(const WB &m, const WF &a, const WF &b) { WF r; for (int i = 0; i < 32; i++) r.v[i] = m.v[i] ? a.v[i] : b.v[i]; return r; }
inline WI vsel(const WB &m, const WI &a, const WI &b) { WI r; for (int i = 0; i < 32; i++) r.v[i] = m.v[i] ? a.v[i] : b.v[i]; return r; }
inline int vafter(const WF &, const WF &, const WB &) { return 0; }
inline WI vlane(const WI &) { WI r; for (int i = 0; i < 32; i++) r.v[i] = i; return r; }
inline WF vnext(const WF &x) { WF r; for (int i = 0; i < 32; i++) r.v[i] = x.v[i < 31 ? i + 1 : i]; return r; }
inline WF vprev(const WF &x) { WF r; for (int i = 0; i < 32; i++) r.v[i] = x.v[i > 0 ? i - 1 : i]; return r; }
inline WF vrot(const WF &x, int d) { WF r; for (int i = 0; i < 32; i++) r.v[i] = x.v[(i + d) & 31]; return r; }
inline WF vfrom(const WF &x, const WI &s) { WF r; for (int i = 0; i < 32; i++) { if (s.v[i] < 0 || s.v[i] > 31) abort(); r.v[i] = x.v[s.v[i]]; } return r; }
inline WF vload(const float *p, const WI &i, const WB &m) { WF r; for (int k = 0; k < 32; k++) r.v[k] = m.v[k] ? p[i.v[k]] : 0.0f; return r; }
inline WI vload8(const uint8_t *p, const WI &i, const WB &m) { WI r; for (int k = 0; k < 32; k++) r.v[k] = m.v[k] ? (int)p[i.v[k]] : 0; return r; }
inline WI vminv(const WI &a, const WI &b) { WI r; for (int i = 0; i < 32; i++) r.v[i] = a.v[i] < b.v[i] ? a.v[i] : b.v[i]; return r; }
inline WI vmaxv(const WI &a, const WI &b) { WI r; for (int i = 0; i < 32; i++) r.v[i] = a.v[i] > b.v[i] ? a.v[i] : b.v[i]; return r; }
inline WI vwrapv(const WI &g, int n) { WI r; for (int i = 0; i < 32; i++) r.v[i] = vt_wrap(g.v[i], n); return r; }
inline WB operator!(const WB &a) { WB r; for (int i = 0; i < 32; i++) r.v[i] = !a.v[i]; return r; }
inline WB visfinite(const WF &x) { WB r; for (int i = 0; i < 32; i++) r.v[i] = isfinite(x.v[i]); return r; }
inline void vput(float *out, const WI &q, const WF &v, const WB &m) {
    for (int i = 0; i < 32; i++) if (m.v[i]) { if (!isnan(out[q.v[i]])) { fprintf(stderr, "face %d written twice\n", q.v[i]); abort(); } out[q.v[i]] = v.v[i]; }
}
inline void vsts(float *p, const WI &i, const WF &v) { for (int k = 0; k < 32; k++) p[i.v[k]] = v.v[k]; }
inline WF vfma(const WF &a, const WF &b, const WF &c) { WF r; for (int i = 0; i < 32; i++) r.v[i] = fmaf(a.v[i], b.v[i], c.v[i]); return r; }
inline WF vsqrt_approx(const WF &x) { WF r; for (int i = 0; i < 32; i++) r.v[i] = vt_sqrt_approx(x.v[i]); return r; }
inline WF vrsqrt_approx(const WF &x) { WF r; for (int i = 0; i < 32; i++) r.v[i] = vt_rsqrt_approx(x.v[i]); return r; }
inline WF operator-(const WF &a) { WF r; for (int i = 0; i < 32; i++) r.v[i] = -a.v[i]; return r; }
inline WF vfinacc(const WF &acc, const WF &v, const WB &m) { WF r; for (int i = 0; i < 32; i++) r.v[i] = m.v[i] ? fmaf(v.v[i], 0.0f, acc.v[i]) : acc.v[i]; return r; }
inline void vflags_bit(const VortArgs &A, int bit, const WB &bad) { for (int i = 0; i < 32; i++) if (A.flag && bad.v[i]) *A.flag |= 1 << bit; }
inline void vflags(const VortArgs &A, int a, const WB &bad) { vflags_bit(A, EDDY_FIELD_U + a, bad); }
}

using namespace ecu;
static unsigned rs = 1234567u;
static int g_nc = 2;
static int g_w3 = 26; /* 3D: warps per block */
static float rnd() { rs = rs * 1664525u + 1013904223u; return (float)(rs >> 8) / (float)(1u << 23) - 1.0f; }
static int run(int dim, int nx, int ny, int nz, int px, int py, int pz, float size, int kz, const char *name) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim; d.grid[0] = nx; d.grid[1] = ny; d.grid[2] = dim == 3 ? nz : 1; d.size[0] = size; d.dt = 0.01f;
    d.vorticity = 0.8f;
    if (px) d.boundary[0].type = d.boundary[1].type = EDDY_BOUNDARY_PERIODIC;
    if (py) d.boundary[2].type = d.boundary[3].type = EDDY_BOUNDARY_PERIODIC;
    if (pz && dim == 3) d.boundary[4].type = d.boundary[5].type = EDDY_BOUNDARY_PERIODIC;
    eddy_sim *s = NULL; char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) { printf("create: %s\n", msg); return 1; }
    eddy_obstacle_def o; memset(&o, 0, sizeof o);
    o.shape = EDDY_SHAPE_SPHERE; o.center[0] = 0.37f * size; o.center[1] = 0.45f * size * ny / nx; o.center[2] = 0.5f * size * nz / nx; o.radius = 0.12f * size;
    eddy_sim_add_obstacle(s, &o, NULL);
    eddy__rasterize_solids_cpu(s);
    std::vector<float> v0[3];
    for (int a = 0; a < dim; a++) {
        for (size_t i = 0; i < s->nface[a]; i++) s->vel[a][i] = rnd();
        // some zero regions (len = 0 cells) and a few exact zeros
        for (size_t i = 0; i < s->nface[a] / 4; i++) s->vel[a][i] = 0.0f;
        v0[a].assign(s->vel[a], s->vel[a] + s->nface[a]);
    }
    VortArgs A;
    memset(&A, 0, sizeof A);
    for (int b = 0; b < 3; b++) { A.n[b] = s->n[b]; A.periodic[b] = s->periodic[b]; }
    vort_args_step(A, s->h, d.vorticity, 0.01f);
    /* 3D: the steady steps in pairs (the kernel without solid cells) on grids whose h is a power of two, one at a
     * time (the kernel with solid cells) on the others, so that both loops are checked on every grid shape */
    int h_exp;
    const bool pairs = frexpf(s->h, &h_exp) == 0.5f;
    std::vector<float> out[3];
    for (int a = 0; a < dim; a++) { out[a].assign(s->nface[a], NAN); A.v[a] = v0[a].data(); A.out[a] = out[a].data(); }
    A.solid = s->solid;
    int flag = 0; A.flag = &flag;
    A.kz = kz;
    if (dim == 2 && kz > 0) {
        /* warp kernel: kz rows per chunk */
        auto go = [&](auto ncv) {
            constexpr int NC = decltype(ncv)::value;
            const int strips = vw_strips(nx, vw_out<NC>()), chunks = (ny + kz - 1) / kz;
            for (int c = 0; c < chunks; c++)
                for (int st = 0; st < strips; st++) {
                    vort2_strip<NC, WF, WI, WB>(A, st, c, kz); /* as k_vort2, without its ring */
                }
        };
        if (g_nc == 1) go(std::integral_constant<int, 1>());
        else if (g_nc == 2) go(std::integral_constant<int, 2>());
        else go(std::integral_constant<int, 4>());
    } else if (dim == 3) {
        auto go = [&](auto ncv, auto wv, auto pairsv) {
            constexpr int NC = decltype(ncv)::value, W = decltype(wv)::value;
            constexpr bool PAIRS = decltype(pairsv)::value;
            typedef Vort3Warp<NC, W, WF, WI, WB> WS;
            const int strips = vw_strips(nx, vw_out<NC>()), yb = vw_strips(ny, W - 5), chunks = (nz + kz - 1) / kz;
            std::vector<float> sm(v3w_floats<NC, W>());
            std::vector<WS> ws(W);
            for (int bz = 0; bz < chunks; bz++)
                for (int by = 0; by < yb; by++)
                    for (int st = 0; st < strips; st++) {
                        std::fill(sm.begin(), sm.end(), NAN);
                        for (int w = 0; w < W; w++) ws[w].init(A, st, by, bz, w, sm.data());
                        /* k_vort3w's loops: general steps, steady steps in pairs, general steps */
                        const int s0 = ws[0].s0(), s1 = ws[0].s1(), tend = ws[0].tend;
                        int L = ws[0].umin;
                        for (; L <= tend && (L < s0 || (PAIRS && (L & 1))); L++)
                            for (int w = 0; w < W; w++) ws[w].template step<false>(L);
                        if (PAIRS) {
                            for (; L + 1 <= s1; L += 2) {
                                for (int w = 0; w < W; w++) ws[w].template step<true, 0>(L);
                                for (int w = 0; w < W; w++) ws[w].template step<true, 1>(L + 1);
                            }
                        } else {
                            for (; L <= s1; L++)
                                for (int w = 0; w < W; w++) ws[w].template step<true>(L);
                        }
                        for (; L <= tend; L++)
                            for (int w = 0; w < W; w++) ws[w].template step<false>(L);
                        for (int w = 0; w < W; w++) ws[w].finish(A);
                    }
        };
        auto gw = [&](auto ncv, auto pairsv) {
            if (g_w3 == 16) go(ncv, std::integral_constant<int, 16>(), pairsv);
            else if (g_w3 == 26) go(ncv, std::integral_constant<int, 26>(), pairsv);
            else if (g_w3 == 25) go(ncv, std::integral_constant<int, 25>(), pairsv);
            else go(ncv, std::integral_constant<int, 8>(), pairsv);
        };
        auto gm = [&](auto ncv) {
            if (pairs) gw(ncv, std::true_type());
            else gw(ncv, std::false_type());
        };
        if (g_nc == 1) gm(std::integral_constant<int, 1>());
        else gm(std::integral_constant<int, 2>());
    }
    if (eddy__apply_vorticity(s, 0.01f) != EDDY_OK) { printf("cpu failed\n"); return 1; }
    long bad = 0, nz0 = 0;
    double big = 0, worst = 0;
    for (int a = 0; a < dim; a++)
        for (size_t i = 0; i < s->nface[a]; i++) big = fmax(big, fabs(s->vel[a][i]));
    for (int a = 0; a < dim; a++)
        for (size_t i = 0; i < s->nface[a]; i++) {
            const double e = fabs((double)s->vel[a][i] - out[a][i]) / big;
            worst = isnan(e) ? INFINITY : fmax(worst, e);
            if (!(e <= 1e-6)) {
                if (bad < 5) printf("  %s: comp %d face %zu cpu %.9g emu %.9g\n", name, a, i, s->vel[a][i], out[a][i]);
                bad++;
            }
            if (s->vel[a][i] != v0[a][i]) nz0++;
        }
    printf("%-34s pairs %d: %ld faces differ (%ld changed by the force; largest difference %.2g of the largest face), flag %d\n",
           name, (int)pairs, bad, nz0, worst, flag);
    eddy_sim_destroy(s);
    return bad != 0;
}
int main() {
    int fails = 0;
    for (g_nc = 1; g_nc <= 4; g_nc *= 2) {
    printf("-- NC %d\n", g_nc);
    fails += run(2, 70, 53, 1, 0, 0, 0, 1.0f, 8, "W 2D 70x53 walls ky 8");
    fails += run(2, 70, 53, 1, 0, 0, 0, 1.0f, 53, "W 2D 70x53 walls ky 53");
    fails += run(2, 70, 53, 1, 1, 0, 0, 1.0f, 7, "W 2D 70x53 periodic x ky 7");
    fails += run(2, 70, 53, 1, 0, 1, 0, 1.0f, 5, "W 2D 70x53 periodic y ky 5");
    fails += run(2, 70, 53, 1, 1, 1, 0, 1.0f, 53, "W 2D 70x53 periodic xy ky 53");
    fails += run(2, 128, 64, 1, 0, 0, 0, 1.0f, 16, "W 2D 128x64 walls (h 2^-7)");
    fails += run(2, 128, 96, 1, 1, 1, 0, 1.0f, 1, "W 2D 128x96 periodic (h 2^-7) ky 1");
    fails += run(2, 3, 5, 1, 1, 0, 0, 1.0f, 2, "W 2D 3x5 periodic x");
    fails += run(2, 3, 3, 1, 0, 0, 0, 1.0f, 1, "W 2D 3x3");
    fails += run(2, 3, 4, 1, 0, 1, 0, 1.0f, 3, "W 2D 3x4 periodic y");
    fails += run(2, 52, 26, 1, 0, 0, 0, 1.0f, 13, "W 2D 52x26 walls");
    fails += run(2, 52, 26, 1, 1, 0, 0, 1.0f, 13, "W 2D 52x26 periodic x");
    fails += run(2, 27, 30, 1, 1, 1, 0, 1.0f, 4, "W 2D 27x30 periodic");
    /* wide enough for strips inside the domain (vw_inner) at every NC */
    fails += run(2, 300, 40, 1, 0, 0, 0, 1.0f, 11, "W 2D 300x40 walls (inner strips)");
    fails += run(2, 300, 40, 1, 1, 1, 0, 1.0f, 40, "W 2D 300x40 periodic (inner strips)");
    fails += run(2, 116, 40, 1, 0, 0, 0, 1.0f, 9, "W 2D 116x40 walls");
    fails += run(2, 122, 40, 1, 0, 0, 0, 1.0f, 9, "W 2D 122x40 walls");
    fails += run(2, 200, 33, 1, 1, 0, 0, 1.0f, 11, "W 2D 200x33 periodic x");
    /* whole strips (27 and 59 written columns per strip): the last face in the first halo position or a strip more */
    fails += run(2, 54, 20, 1, 0, 0, 0, 1.0f, 9, "W 2D 54x20 walls");
    fails += run(2, 54, 20, 1, 1, 0, 0, 1.0f, 9, "W 2D 54x20 periodic x");
    fails += run(2, 118, 20, 1, 0, 0, 0, 1.0f, 9, "W 2D 118x20 walls");
    fails += run(2, 118, 20, 1, 1, 0, 0, 1.0f, 9, "W 2D 118x20 periodic x");
    }
    for (g_nc = 1; g_nc <= 2; g_nc++)
        for (int wi = 0; wi < 4; wi++) {
            g_w3 = wi == 0 ? 8 : wi == 1 ? 16 : wi == 2 ? 25 : 26;
            printf("-- 3D warps: NC %d, W %d\n", g_nc, g_w3);
            fails += run(3, 29, 24, 21, 0, 0, 0, 1.0f, 7, "W3 29x24x21 kz 7");
            fails += run(3, 29, 24, 21, 0, 0, 0, 1.0f, 1, "W3 29x24x21 kz 1");
            fails += run(3, 29, 24, 21, 0, 0, 0, 1.0f, 21, "W3 29x24x21 kz 21");
            fails += run(3, 29, 24, 21, 0, 0, 1, 1.0f, 5, "W3 periodic z kz 5");
            fails += run(3, 29, 24, 21, 0, 0, 1, 1.0f, 2, "W3 periodic z kz 2");
            fails += run(3, 29, 24, 21, 1, 1, 0, 1.0f, 4, "W3 periodic xy kz 4");
            fails += run(3, 40, 33, 19, 1, 1, 1, 1.0f, 6, "W3 periodic xyz kz 6");
            fails += run(3, 70, 20, 9, 0, 1, 0, 1.0f, 9, "W3 70x20x9 periodic y");
            fails += run(3, 32, 32, 32, 0, 0, 0, 1.0f, 11, "W3 32^3 (pairs) kz 11");
            fails += run(3, 64, 48, 16, 1, 0, 1, 1.0f, 8, "W3 64x48x16 (pairs) per xz");
            fails += run(3, 3, 3, 3, 1, 0, 1, 1.0f, 1, "W3 3^3 per xz kz 1");
            fails += run(3, 3, 4, 5, 0, 0, 0, 1.0f, 2, "W3 3x4x5 kz 2");
            fails += run(3, 5, 20, 4, 0, 0, 0, 1.0f, 4, "W3 5x20x4 walls");
            /* whole strips and blocks of rows (27 columns; 3, 11, 20 and 21 rows): the last faces in the first halo
             * position, or a strip and a block more along a periodic axis */
            fails += run(3, 54, 3 * (g_w3 - 5), 6, 0, 0, 0, 1.0f, 6, "W3 whole strips and blocks, walls");
            fails += run(3, 54, 3 * (g_w3 - 5), 6, 1, 1, 0, 1.0f, 6, "W3 whole strips and blocks, per xy");
            fails += run(3, 54, 2 * (g_w3 - 5) - 1, 5, 1, 1, 1, 1.0f, 5, "W3 one row short, per xyz");
        }
    printf("%s\n", fails ? "FAILED" : "all equal (to 1e-6)");
    return fails;
}
