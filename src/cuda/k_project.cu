/* Pressure projection on the device (project.c, poisson_*.c): u <- u - (x_hi - x_lo) on open faces, with
 * A x = b, b = -(net outward flux), A the 5/7-point stencil over open faces, x = dt p / (rho h).
 *
 * The system, its padded layout (one ghost layer; periodic ghosts copied before each stencil), the multigrid
 * hierarchy (McAdams, Sifakis & Teran 2010: rediscretised coarse operators, renormalised cell-centred linear
 * prolongation, restriction = its transpose / 2^axes, red-black Gauss-Seidel 2+2, symmetric coarsest sweeps) and
 * the three solvers (Jacobi, red-black SOR, MGPCG) are the CPU's, kernel for loop: the same transfer tables, the
 * same float operations per cell, the same coarsest-level solve (one thread block, serial null-space sums in the
 * CPU's order). Dot products are deterministic block-tree sums in double, so they can differ from the CPU's row
 * sums in the last bits of a double.
 *
 * The operator (diag, 1/diag, prolongation weights, null-space components) is built by the CPU code on the host
 * (poisson_level.c, poisson_mg.c) when the solid cells change, and sent to the device: a static scene builds it
 * once; a moving obstacle rebuilds it in each step it changes a cell. */
#include "cu_sim.cuh"

/* poisson.h is C: its `restrict` is C++'s __restrict__ */
#define restrict __restrict__
extern "C" {
#include "../poisson.h"
}
#undef restrict

#include <string.h>
#include <cooperative_groups.h>
#include <algorithm>
#ifdef EDDY_CU_TAIL_CLOCKS
#include <stdio.h>
#endif

namespace ecu {

#define RBGS_CHECK_EVERY 8
/* |r| beyond this many |b|: SOR is diverging (poisson_iterative.c: a true red-black sweep stays under 4e9 |b|) */
#define RBGS_DIVERGED 1e12

/* one level, by value in kernels */
struct LevA {
    int dim;
    int n[3];
    int periodic[3];
    int sy, sz, origin; /* 32-bit: the attach keeps padded arrays below 2^31 elements */
    float w[3];
    const float *diag, *inv_diag, *inv_weight;
    /* 2D levels: per block of the level's sweep tiles (sweep_grid), the operator's values where every cell of the
     * block's region (tile and UNI_HALO) has the same diag, inv_diag > 0 and inv_weight (w = 1), else w = 0
     * (k_uni_tiles); nullptr: not computed */
    const float4 *uni;
    /* 3D levels (cuda_notes 82): the box ulo .. uhi (cells, inclusive, per axis) whose cells all have diag ud,
     * inv_diag uid > 0 and inv_weight uiw (bitwise; k_ubox_check); empty (ulo > uhi) when none was found */
    int ulo[3], uhi[3];
    float ud, uid, uiw;
};
__device__ inline int cell_at(const LevA &L, int i, int j, int k) { return L.origin + i + L.sy * j + L.sz * k; }
/* cell (i, j, k) and its neighbours up to m cells away along each axis inside LevA's uniform box: their diag,
 * inv_diag and inv_weight are L.ud, L.uid and L.uiw (the same values as loaded, cuda_notes 82) */
__device__ inline bool in_ubox(const LevA &L, int i, int j, int k, int m) {
    return i - m >= L.ulo[0] && i + m <= L.uhi[0] && j - m >= L.ulo[1] && j + m <= L.uhi[1] && k - m >= L.ulo[2] &&
           k + m <= L.uhi[2];
}

/* transfer tables of one axis (eddy_paxis) */
struct AxisT {
    int nf, nc, coarsened;
    const int *pc, *rf;
    const float *pw, *rw;
};

struct LevelD {
    LevA a;
    int periodic[3];
    size_t count;
    float *diag, *inv_diag, *inv_weight, *x, *b, *r;
    float *xa; /* second x for the out-of-place fused sweeps */
    float4 *uni; /* LevA::uni's array (2D levels) */
    int cur;   /* during a V-cycle: 1 when the level's current x is in xa */
    int tail_smem, tail_op, tail_tab; /* levels of k_tail: offsets in shared memory (TailLevel) */
    int *pc[3], *rf[3];
    float *pw[3], *rw[3];
    AxisT ax[3];
};

/* null-space components of a level (level 0 and the coarsest) */
struct CompD {
    int count;
    int single_all;
    int *label;     /* padded; -1 none */
    double *cells;  /* per component */
    double *sum;    /* per component, scratch */
};

struct TailLevel;
struct CGState;

struct PoissonWS {
    int nlevels;
    int tail_first;   /* first level that k_tail runs */
    size_t tail_smem; /* its dynamic shared memory, bytes */
    TailLevel *d_tail;/* device copy of every level's descriptor, for k_tail */
    float *tail_image;/* k_tail's shared memory after its vectors at its start (operators, tables) */
    size_t tail_vec;  /* floats of the vectors (x, b, r of every tail level) at the start of that shared memory */
    CGState *d_cg;    /* the conjugate gradient's scalars */
    int *h_active;    /* pinned: `active`, polled when graphs are off */
    int *d_ubad;      /* k_ubox_check's flags, UBOX_MARGINS per level */
    int use_graphs;   /* 1: the solve is two graph launches */
    int graphs;       /* 0 not built yet, 1 built, -1 failed (then the kernels are launched one by one) */
    cudaGraph_t gr_start, gr_loop;
    float graph_tol;  /* pressure.tolerance and max_iterations the graphs were captured with */
    int graph_max_it;
    int graph_warm;   /* and pressure.warm_start */
    float *h_warm_scale; /* pinned: dt / (rho h), sent to the device before each solve */
    cudaGraphExec_t g_start, g_loop;
    /* statistics of the last solve computed on the host (Jacobi, RBGS), else read back from the device */
    int host_stats, host_iters;
    double host_bnorm, host_residual;
    LevelD *lv;       /* host array of level descriptors (device pointers inside) */
    CompD comp0, compc;
    float *sol, *rhs, *res, *z, *p, *q;
    float *rs;        /* the mean-free residual written by level 0's first sweep (defer_shift) */
    int coop_blocks, coop_tiles; /* k_cg_apply_update's grid and tiles per block; 0: not used (cuda_notes 52) */
    int end_pending;  /* solve_end returned before its decision was read back (project_resume) */
    int end_refinements; /* ... at that refinement */
    float end_dt;     /* ... of that step's dt */
    double cells0;    /* cells of the single component of level 0 */
    bool built;
    /* signature of the solids the operator was built for */
    unsigned mask_version;
    int any_sdf;
    DShape *sig;
    int sig_count, sig_cap;
    bool have_sig;
};

/* ------------------------------------------------------------------ per-cell operations (poisson_level.c)
 * Shared by the grid-wide kernels (fine levels) and the single-block kernel that runs the coarse levels. */
#define NB2(x, e) (L.w[0] * ((x)[(e) - 1] + (x)[(e) + 1]) + L.w[1] * ((x)[(e) - L.sy] + (x)[(e) + L.sy]))
#define NB3(x, e) (NB2(x, e) + L.w[2] * ((x)[(e) - L.sz] + (x)[(e) + L.sz]))
#define NBD(x, e) (L.dim == 3 ? NB3(x, e) : NB2(x, e))
/* `active` (may be NULL): kernels of the conjugate gradient loop do nothing once the loop has stopped */
#define ECU_ACTIVE_OR_RETURN(active) \
    if ((active) && !*(active)) return;

__device__ inline void d_half(const LevA &L, float *__restrict__ x, const float *__restrict__ b, int i, int j, int k,
                              int colour, float omega, int zero_start) {
    const int par = (colour + j + k) & 1;
    int e = cell_at(L, i, j, k);
    if (zero_start) {
        x[e] = (i & 1) == par ? omega * (b[e] * L.inv_diag[e]) : 0.0f;
        return;
    }
    if ((i & 1) != par) return;
    float g = (b[e] + NBD(x, e)) * L.inv_diag[e];
    x[e] = omega == 1.0f ? g : x[e] + omega * (g - x[e]);
}

/* r = (b - A x) * inv_weight */
__device__ inline void d_residual_w(const LevA &L, const float *__restrict__ x, const float *__restrict__ b,
                                    float *__restrict__ r, int i, int j, int k) {
    int e = cell_at(L, i, j, k);
    r[e] = (b[e] - (L.diag[e] * x[e] - NBD(x, e))) * L.inv_weight[e];
}

/* the restriction's four fine taps and weights of coarse cell c along an axis: away from the ends the tables hold
 * the regular pattern (fine 2c-1 .. 2c+2 with 1/8, 3/8, 3/8, 1/8); there they are replaced by these constants, in
 * the same order, so the sums are the tables' */
__device__ inline void restrict_taps(const AxisT &ax, int c, int rf[4], float rw[4]) {
    if (ax.coarsened && c >= 1 && c <= ax.nc - 2) {
        rf[0] = 2 * c - 1; rf[1] = 2 * c; rf[2] = 2 * c + 1; rf[3] = 2 * c + 2;
        rw[0] = 0.125f; rw[1] = 0.375f; rw[2] = 0.375f; rw[3] = 0.125f;
    } else {
        for (int e = 0; e < 4; e++) {
            rf[e] = ax.rf[4 * c + e];
            rw[e] = ax.rw[4 * c + e];
        }
    }
}

/* whether coarse column cx's x taps are the regular pattern (restrict_taps) */
__device__ inline bool restrict_x_inside(const AxisT &ax0, int cx) { return ax0.coarsened && cx >= 1 && cx <= ax0.nc - 2; }

/* R along x (xin: restrict_x_inside), then along y (taps rfy, rwy), of fine plane fz for coarse column cx */
__device__ inline float restrict_xy(const LevA &F, const AxisT &ax0, const float *__restrict__ fr, int cx, bool xin,
                                    const int rfy[4], const float rwy[4], int fz) {
    auto xpass = [&](int fy) -> float {
        const float *f = fr + cell_at(F, 0, fy, fz);
        if (!ax0.coarsened) return f[cx];
        if (xin) return 0.125f * f[2 * cx - 1] + 0.375f * f[2 * cx] + 0.375f * f[2 * cx + 1] + 0.125f * f[2 * cx + 2];
        const int *rf = ax0.rf + 4 * cx;
        const float *rw = ax0.rw + 4 * cx;
        return rw[0] * f[rf[0]] + rw[1] * f[rf[1]] + rw[2] * f[rf[2]] + rw[3] * f[rf[3]];
    };
    return rwy[0] * xpass(rfy[0]) + rwy[1] * xpass(rfy[1]) + rwy[2] * xpass(rfy[2]) + rwy[3] * xpass(rfy[3]);
}

/* coarse b = mask * R fine r, for coarse cell (cx, cy, cz) (poisson_mg.c restrict_level, passes fused) */
__device__ inline void d_restrict(const LevA &F, const LevA &C, const AxisT &ax0, const AxisT &ax1, const AxisT &ax2,
                                  const float *__restrict__ fr, float *__restrict__ cb, int cx, int cy, int cz) {
    const bool xin = restrict_x_inside(ax0, cx);
    int rfy[4];
    float rwy[4];
    restrict_taps(ax1, cy, rfy, rwy);
    float v;
    if (F.dim == 2) {
        v = restrict_xy(F, ax0, fr, cx, xin, rfy, rwy, 0);
    } else {
        int rfz[4];
        float rwz[4];
        restrict_taps(ax2, cz, rfz, rwz);
        float t2[4];
        for (int e = 0; e < 4; e++) t2[e] = restrict_xy(F, ax0, fr, cx, xin, rfy, rwy, rfz[e]);
        v = rwz[0] * t2[0] + rwz[1] * t2[1] + rwz[2] * t2[2] + rwz[3] * t2[3];
    }
    int ec = cell_at(C, cx, cy, cz);
    cb[ec] = in_ubox(C, cx, cy, cz, 0) || C.diag[ec] > 0.0f ? v : 0.0f;
}

/* (P xc) at fine cell (i, fy, fz) (poisson_mg.c prolong_level, passes fused) */
__device__ inline float d_prolong_value(const LevA &F, const LevA &C, const AxisT &ax0, const AxisT &ax1, const AxisT &ax2,
                                        const float *__restrict__ xc, int i, int fy, int fz) {
    /* the tables' entries, or where the neighbour parent is inside the domain the regular 3/4, 1/4 pattern */
    auto entry = [](const AxisT &ax, int i, int *c0, int *c1, float *w0, float *w1) {
        if (ax.coarsened) {
            const int c = i >> 1, nb = (i & 1) ? c + 1 : c - 1;
            if (nb >= 0 && nb < ax.nc) {
                *c0 = c; *c1 = nb; *w0 = 0.75f; *w1 = 0.25f;
                return;
            }
        }
        *c0 = ax.pc[2 * i]; *c1 = ax.pc[2 * i + 1]; *w0 = ax.pw[2 * i]; *w1 = ax.pw[2 * i + 1];
    };
    int cy0, cy1, cz0 = 0, cz1 = 0;
    float wy0, wy1, wz0 = 0, wz1 = 0;
    entry(ax1, fy, &cy0, &cy1, &wy0, &wy1);
    if (F.dim == 3) entry(ax2, fz, &cz0, &cz1, &wz0, &wz1);
    auto t1 = [&](int c) -> float {
        if (F.dim == 3) {
            float a0 = wz0 * xc[cell_at(C, c, cy0, cz0)] + wz1 * xc[cell_at(C, c, cy0, cz1)];
            float a1 = wz0 * xc[cell_at(C, c, cy1, cz0)] + wz1 * xc[cell_at(C, c, cy1, cz1)];
            return wy0 * a0 + wy1 * a1;
        }
        return wy0 * xc[cell_at(C, c, cy0, 0)] + wy1 * xc[cell_at(C, c, cy1, 0)];
    };
    if (!ax0.coarsened) return t1(i);
    int c0, c1;
    float w0, w1;
    entry(ax0, i, &c0, &c1, &w0, &w1);
    return w0 * t1(c0) + w1 * t1(c1);
}

/* fine xf (+)= [inv_weight *] P xc at fine cell (i, fy, fz) */
__device__ inline void d_prolong(const LevA &F, const LevA &C, const AxisT &ax0, const AxisT &ax1, const AxisT &ax2,
                                 const float *__restrict__ xc, float *__restrict__ xf, int i, int fy, int fz, int add) {
    const float v = d_prolong_value(F, C, ax0, ax1, ax2, xc, i, fy, fz);
    const int e = cell_at(F, i, fy, fz);
    xf[e] = add ? xf[e] + (in_ubox(F, i, fy, fz, 0) ? F.uiw : F.inv_weight[e]) * v : v;
}

/* the coarse correction that the first post-sweep adds while staging x (k_sweep_tile with PRO) */
struct ProlongArgs {
    LevA C;
    AxisT ax0, ax1, ax2;
    const float *xc;
    float *cb; /* k_sweep_tile with RES == 2: the coarse level's b that the pass restricts into */
};

/* ------------------------------------------------------------------ grid-wide kernels */
/* ghosts of periodic axis a: copies of the opposite side (interior extent of the two other axes) */
__global__ void k_ghosts(LevA L, int a, float *v, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x), y = (int)blockIdx.y;
    if (x >= L.n[b0] || y >= L.n[b1]) return;
    int lo[3], hi[3];
    lo[b0] = hi[b0] = x;
    lo[b1] = hi[b1] = y;
    lo[a] = 0;
    hi[a] = L.n[a] - 1;
    int elo = cell_at(L, lo[0], lo[1], lo[2]), ehi = cell_at(L, hi[0], hi[1], hi[2]);
    int st = a == 0 ? 1 : (a == 1 ? L.sy : L.sz);
    v[ehi + st] = v[elo];
    v[elo - st] = v[ehi];
}

/* a half sweep: zero_start writes every cell (one thread each); otherwise one thread per cell of the colour,
 * over a grid of half the width */
__global__ void k_half_sweep(LevA L, float *__restrict__ x, const float *__restrict__ b, int colour, float omega,
                             int zero_start, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    ECU_IJK(zero_start ? L.n[0] : (L.n[0] + 1) / 2, L.n[1]);
    if (zero_start) {
        if (inside_) d_half(L, x, b, i, j, k, colour, omega, 1);
        return;
    }
    const int ic = 2 * i + ((colour + j + k) & 1);
    if (!inside_ || ic >= L.n[0]) return;
    d_half(L, x, b, ic, j, k, colour, omega, 0);
}

/* A full red-black sweep (colour c1, then the other) in one pass: x is staged in shared memory with a halo of two
 * cells; the first colour is computed on the tile and one halo layer (the halo copies are the neighbours' tiles'
 * own values, computed from the same inputs), the second on the tile. Every cell sees the neighbour values it sees
 * in two grid-wide half sweeps, so the results are the same bits. Out of place (x -> xout): blocks read halos that
 * other blocks own, which must not change under them. Levels without periodic axes (the ghosts are then zeros,
 * never written). b and 1/diag are read where used, once per cell and block (cuda_notes 26: staging them too
 * tripled the shared memory and halved the blocks per SM); the first colour's loop visits that colour's cells only.
 * With DOT the block also writes its partial of b.xout (the r.z of the conjugate gradient when this is level 0's
 * last post-sweep). */
/* Z (pre-smoothing in one pass, cuda_notes 36): the staged x is not read but computed as the first sweep from zero
 * (k_first_sweep's operations: red x = b / diag, black from its red neighbours), so the pass is the first sweep
 * and the second one; ghosts are read from x as before. Z == 2: level 0 of MGPCG, where b is r shifted by the
 * residual's mean (k_first_sweep_shift's operation, computed where read) and the shifted residual is written to rs
 * for the tile's cells. */
/* NS (cuda_notes 38): full sweeps in the pass (1 or 2), halo 2 NS; half sweep h of the 2 NS updates its colour on
 * the tile and 2 NS - 1 - h halo layers (in place in shared memory: a half sweep reads the other colour only). */
/* RES (cuda_notes 47): the pass also computes the level's residual (b - A x) * inv_weight on the tile into rout
 * (k_residual_w's operations on the same values): the halo grows by one, every half sweep of the pass is done in
 * shared memory (the last on the tile and one halo layer), and the residual's stencil reads the staged x. */
/* RES == 2 (cuda_notes 49, 2D): the residual on the tile and one halo layer into shared memory (halo 5), and its
 * restriction to the coarse cells under the tile into pa.cb with d_restrict's operations (the fine level addressed
 * in the shared array); the residual is not written to device memory and no k_restrict pass follows. */
template <bool B>
struct BoolC {
    static constexpr bool value = B;
};
template <int V>
struct IntC {
    static constexpr int value = V;
};
/* Blocks of 256 per SM that ptxas must fit (the register bound, cuda_notes 62): the 2D pre-smoothing pass with the
 * restriction (RES == 2) 6 (40 registers instead of 48, no spill; 8 spills), the 2D post-smoothing pass (NS == 2) 8
 * (32 registers: item 61's loops had taken it to 40); 0: ptxas's own choice (the other passes). */
#ifndef SWEEP_MINB_RES2
#define SWEEP_MINB_RES2 6
#endif
#ifndef SWEEP_MINB_POST
#define SWEEP_MINB_POST 8
#endif
#define SWEEP_MINB(RES, NS) ((RES) == 2 ? SWEEP_MINB_RES2 : (NS) == 2 ? SWEEP_MINB_POST : 0)
/* the halo of the regions that LevA::uni describes: the largest of the 2D passes (pre-smoothing with the restriction) */
#define UNI_HALO 5
/* LevA::uni of a 2D level for its TX x TY sweep tiles (one block of 256 threads per tile): the block's region of halo
 * UNI_HALO inside the level, every cell's diag, inv_diag and inv_weight bitwise those of its first cell, diag and
 * inv_diag > 0 (a solved cell: the pre-smoothing's shift then applies everywhere) */
template <int TX, int TY>
__global__ void k_uni_tiles(LevA L, const float *__restrict__ diag, const float *__restrict__ inv_diag,
                            const float *__restrict__ inv_weight, float4 *out, float mode) {
    constexpr int SX = TX + 2 * UNI_HALO, SY = TY + 2 * UNI_HALO;
    const int x0 = (int)blockIdx.x * TX - UNI_HALO, y0 = (int)blockIdx.y * TY - UNI_HALO;
    const int tid = (int)(threadIdx.x + blockDim.x * threadIdx.y), nt = (int)(blockDim.x * blockDim.y);
    const bool inner = x0 >= 0 && y0 >= 0 && x0 + SX <= L.n[0] && y0 + SY <= L.n[1];
    float d0 = 0.0f, id0 = 0.0f, iw0 = 0.0f;
    int ok = 0;
    if (inner) {
        const int e0 = cell_at(L, x0, y0, 0);
        d0 = diag[e0];
        id0 = inv_diag[e0];
        iw0 = inv_weight[e0];
        ok = d0 > 0.0f && id0 > 0.0f;
        for (int q = tid; q < SX * SY && ok; q += nt) {
            const int e = cell_at(L, x0 + q % SX, y0 + q / SX, 0);
            ok = __float_as_uint(diag[e]) == __float_as_uint(d0) && __float_as_uint(inv_diag[e]) == __float_as_uint(id0) &&
                 __float_as_uint(inv_weight[e]) == __float_as_uint(iw0);
        }
    }
    ok = __syncthreads_and(ok);
    if (tid == 0) out[blockIdx.x + gridDim.x * blockIdx.y] = make_float4(d0, id0, iw0, ok ? mode : 0.0f);
}

template <int DIM, int TX, int TY, int TZ, bool PRO, bool DOT, int Z, int NS = 1, int RES = 0>
__global__ void __launch_bounds__(256, SWEEP_MINB(RES, NS))
    k_sweep_tile(LevA L, const float *__restrict__ x, float *__restrict__ xout, const float *__restrict__ b, int c1,
                 const int *active, ProlongArgs pa, double *partials, float *__restrict__ rs, const float *mean,
                 float *__restrict__ rout) {
    /* a kernel launched after this one with programmatic serialisation (k_tail, cuda_notes 78) may start now: it
     * waits for this grid's results itself (no effect on other launches) */
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    ECU_ACTIVE_OR_RETURN(active);
    const float shift = Z == 2 ? -*mean : 0.0f;
    /* b at padded index q (ghosts: r = 0, inv_diag = 0; inv_diag > 0 exactly where diag > 0) */
#define BV(q) (Z == 2 ? (L.inv_diag[q] > 0.0f ? b[q] + shift : b[q]) : b[q])
    constexpr int HR = RES;
    static_assert(RES < 2 || DIM == 2, "the restriction from shared memory is 2D");
    constexpr int RSX = TX + 2, RSY = TY + 2; /* RES == 2: the residual on the tile and one layer */
    __shared__ float rsm[RES == 2 ? RSX * RSY : 1];
    /* Z: the staging holds the first sweep's red half from zero on one more layer, and the black half is the first
     * of the half sweeps in shared memory (cuda_notes 48: computed while staging, each black cell gathered its four
     * red neighbours' b and 1/diag, divergent from the red lanes) */
    constexpr int ZE = Z ? 1 : 0;
    constexpr int H = 2 * NS + HR + ZE;
    constexpr int SX = TX + 2 * H, SY = TY + 2 * H, SZ = DIM == 3 ? TZ + 2 * H : 1, S = SX * SY * SZ;
    constexpr int SSY = SX, SSZ = SX * SY;
    static_assert(TX % 2 == 0, "even tile width: a row of a region holds half its cells of each colour");
    static_assert(Z == 0 || NS == 1, "the pre-smoothing pass is one sweep after the first");
    static_assert(!RES || (!DOT && !PRO), "the residual is fused into the pre-smoothing pass only");
    __shared__ float xs[S];
    /* uniform blocks with staging (UNI == 2, cuda_notes 79): b (shifted where Z == 2) on the region, as xs; and with PRO
     * the coarse x under the region (the prolongation's 4 coarse values per staged cell read from here) */
    constexpr int CW = SX / 2 + 2, CH = SY / 2 + 2;
    __shared__ float bs[DIM == 2 ? S : 1];
    __shared__ float cs[DIM == 2 && PRO ? CW * CH : 1];
    const float *__restrict__ inv_diag = L.inv_diag;
    const int tid = (int)(threadIdx.x + blockDim.x * threadIdx.y), nt = (int)(blockDim.x * blockDim.y);
    const int x0 = (int)blockIdx.x * TX - H, y0 = (int)blockIdx.y * TY - H, z0 = DIM == 3 ? (int)blockIdx.z * TZ - H : 0;
    /* the pass's body for blocks whose staged region lies inside the level (INNER: no bounds tests; cuda_notes 61)
     * and for the others; the same cells and operations in both */
    /* UNI (cuda_notes 76): the block's region has one value of diag, inv_diag (> 0) and inv_weight (L.uni), held in
     * registers instead of loaded per cell; the same values in the same operations */
    float u_d = 0.0f, u_id = 0.0f, u_iw = 0.0f;
    auto body = [&](auto inner_c, auto uni_c) -> double {
        constexpr bool INNER = decltype(inner_c)::value;
        constexpr int UNIV = decltype(uni_c)::value;
        constexpr bool UNI = UNIV != 0, STG = UNIV == 2 && DIM == 2;
        static_assert(!UNI || INNER, "a uniform region lies inside the level");
        /* STG: the region's b from bs (index s of xs) */
#define BVS(q, s) (STG ? bs[s] : BVU(q))
        /* STG with PRO: the coarse cells under the region, x0 / 2 - 1 .. x0 / 2 + CW - 2 (in the level: the region lies
         * inside it with UNI_HALO - H >= 1 cells to spare on each side, so every fine cell's two coarse neighbours of
         * d_prolong_value's regular pattern exist; both axes coarsened) */
        const int cxb = (x0 >> 1) - 1, cyb = (y0 >> 1) - 1;
        if constexpr (STG && PRO) {
            /* (dependent on the lambda's parameter: a non-dependent assertion is checked in discarded branches too) */
            static_assert(!STG || H < UNI_HALO, "the prolongation's coarse neighbours inside the level");
            static_assert(!STG || (H % 2 == 0 && TY % 2 == 0), "even region origin: CW x CH coarse cells");
            for (int q = tid; q < CW * CH; q += 256) cs[q] = pa.xc[cell_at(pa.C, cxb + q % CW, cyb + q / CW, 0)];
            __syncthreads();
        }
#define IDV(q) (UNI ? u_id : inv_diag[q])
#define DGV(q) (UNI ? u_d : L.diag[q])
#define IWV(q) (UNI ? u_iw : L.inv_weight[q])
#define BVU(q) (UNI ? (Z == 2 ? b[q] + shift : b[q]) : BV(q))
        if constexpr (DIM == 2) {
            /* 2D: the thread's position in the region advanced by 256 (launch_sweep's block) without divisions */
            constexpr int NT = 256, DX = NT % SX, DY = NT / SX;
            int lx = tid % SX, ly = tid / SX;
            for (int q = tid; q < S; q += NT) {
                const int gx = x0 + lx, gy = y0 + ly;
                float xv = 0.0f;
                if (INNER || (gx >= -1 && gx <= L.n[0] && gy >= -1 && gy <= L.n[1])) {
                    const int e = cell_at(L, gx, gy, 0);
                    const bool interior = INNER || (gx >= 0 && gx < L.n[0] && gy >= 0 && gy < L.n[1]);
                    if constexpr (STG) {
                        const float bv = Z == 2 ? b[e] + shift : b[e];
                        bs[q] = bv;
                        if (Z) {
                            xv = ((gx + gy) & 1) == 0 ? 1.0f * (bv * u_id) : 0.0f;
                        } else {
                            xv = x[e];
                        }
                        if constexpr (PRO) {
                            /* d_prolong_value's regular pattern (entry) from cs: the same operations */
                            const int c0 = gx >> 1, c1 = (gx & 1) ? c0 + 1 : c0 - 1;
                            const int cy0 = gy >> 1, cy1 = (gy & 1) ? cy0 + 1 : cy0 - 1;
                            const int r0 = CW * (cy0 - cyb) - cxb, r1 = CW * (cy1 - cyb) - cxb;
                            const float t0 = 0.75f * cs[r0 + c0] + 0.25f * cs[r1 + c0];
                            const float t1 = 0.75f * cs[r0 + c1] + 0.25f * cs[r1 + c1];
                            xv = xv + u_iw * (0.75f * t0 + 0.25f * t1);
                        }
                    } else {
                    if (Z && interior) {
                        xv = ((gx + gy) & 1) == 0 ? 1.0f * (BVU(e) * IDV(e)) : 0.0f;
                    } else {
                        xv = x[e];
                    }
                    if (PRO && interior)
                        xv = xv + IWV(e) * d_prolong_value(L, pa.C, pa.ax0, pa.ax1, pa.ax2, pa.xc, gx, gy, 0);
                    }
                }
                xs[q] = xv;
                lx += DX;
                ly += DY;
                if (lx >= SX) {
                    lx -= SX;
                    ly++;
                }
            }
        } else {
            /* 3D (cuda_notes 83, 130): the thread's position in the region advanced by 256 without divisions; blocks
             * inside the level (INNER) without bounds tests (every staged cell is a cell of the level), the others
             * with them (the cells and operations of a q-linear loop: each element is computed on its own) */
            constexpr int NT = 256, DX = NT % SX, DY = (NT / SX) % SY, DZ = NT / (SX * SY);
            int lx = tid % SX, ly = (tid / SX) % SY, lz = tid / (SX * SY);
            for (int q = tid; q < S; q += NT) {
                const int gx = x0 + lx, gy = y0 + ly, gz = z0 + lz;
                float xv = 0.0f;
                if (INNER || (gx >= -1 && gx <= L.n[0] && gy >= -1 && gy <= L.n[1] && gz >= -1 && gz <= L.n[2])) {
                    const int e = cell_at(L, gx, gy, gz);
                    const bool interior = INNER || (gx >= 0 && gx < L.n[0] && gy >= 0 && gy < L.n[1] && gz >= 0 && gz < L.n[2]);
                    if (Z && interior) {
                        /* red from zero (k_first_sweep's b / diag); black is computed by the first half sweep below */
                        xv = ((gx + gy + gz) & 1) == 0 ? 1.0f * (BVU(e) * IDV(e)) : 0.0f;
                    } else {
                        xv = x[e];
                    }
                    if (PRO && interior) xv = xv + IWV(e) * d_prolong_value(L, pa.C, pa.ax0, pa.ax1, pa.ax2, pa.xc, gx, gy, gz);
                }
                xs[q] = xv;
                lx += DX;
                ly += DY;
                lz += DZ;
                if (lx >= SX) {
                    lx -= SX;
                    ly++;
                }
                if (ly >= SY) {
                    ly -= SY;
                    lz++;
                }
            }
        }
        /* (the braces of this else matter: nvcc 13.0 dropped this barrier after a braceless `else for` of a discarded
         * `if constexpr` branch inside the generic lambda, cuda_notes 62) */
        __syncthreads();
#define NBS(q) (DIM == 3 ? L.w[0] * (xs[(q) - 1] + xs[(q) + 1]) + L.w[1] * (xs[(q) - SSY] + xs[(q) + SSY]) + \
                                   L.w[2] * (xs[(q) - SSZ] + xs[(q) + SSZ])                                \
                             : L.w[0] * (xs[(q) - 1] + xs[(q) + 1]) + L.w[1] * (xs[(q) - SSY] + xs[(q) + SSY]))
        /* the half sweeps in shared memory, h on the tile and M = H - 1 - h halo layers (real cells only): the first
         * sweep's black half (Z), the half sweeps before the last, and with RES the last as well; a row of a region
         * holds RX / 2 cells of the colour; x0 + H is even, so the cell at region column lx has the parity of lx + M */
#pragma unroll
        for (int h = 0; h < 2 * NS - 1 + (RES ? 1 : 0) + ZE; h++) {
            const int M = H - 1 - h, RX = TX + 2 * M, RY = TY + 2 * M, RZ = DIM == 3 ? TZ + 2 * M : 1;
            const int R = RX * RY * RZ, p = c1 ^ ((h + ZE) & 1), o = H - M;
            (void)R; /* 3D only */
            if constexpr (DIM == 2) {
                /* 2D (cuda_notes 54): a thread keeps its column m of the colour and steps rows, so the region's index
                 * divisions are done once per half sweep instead of once per cell (256 threads: launch_sweep's block) */
                constexpr int NT = 256;
                const int COLS = RX / 2, RPP = NT / COLS, m = tid % COLS;
                for (int ly = tid / COLS; ly < RY && tid < RPP * COLS; ly += RPP) {
                    const int gy = y0 + o + ly;
                    const int lx = 2 * m + ((gy + p + M) & 1);
                    const int gx = x0 + o + lx;
                    if (!INNER && (gx < 0 || gx >= L.n[0] || gy < 0 || gy >= L.n[1])) continue;
                    const int e = cell_at(L, gx, gy, 0);
                    const int s = (lx + o) + SSY * (ly + o);
                    xs[s] = (BVS(e, s) + NBS(s)) * IDV(e);
                }
            } else {
                /* 3D (cuda_notes 83, 130): as 2D, a thread keeps its column m of the colour and steps the region's
                 * rows (y, z) with carries instead of divisions; bounds tests only outside INNER */
                constexpr int NT = 256;
                const int COLS = RX / 2, RPP = NT / COLS, m = tid % COLS, DLY = RPP % RY, DLZ = RPP / RY;
                const int row0 = tid / COLS;
                int ly = row0 % RY, lz = row0 / RY;
                for (int row = row0; row < RY * RZ && tid < RPP * COLS; row += RPP) {
                    const int gy = y0 + o + ly, gz = z0 + o + lz;
                    const int lx = 2 * m + ((gy + gz + p + M) & 1);
                    const int gx = x0 + o + lx;
                    if (INNER || (gx >= 0 && gx < L.n[0] && gy >= 0 && gy < L.n[1] && gz >= 0 && gz < L.n[2])) {
                        const int e = cell_at(L, gx, gy, gz);
                        const int s = (lx + o) + SSY * (ly + o) + SSZ * (lz + o);
                        xs[s] = (BVU(e) + NBS(s)) * IDV(e);
                    }
                    ly += DLY;
                    lz += DLZ;
                    if (ly >= RY) {
                        ly -= RY;
                        lz++;
                    }
                }
            }
            __syncthreads();
        }
        /* second colour on the tile, then the tile back to device memory */
        double acc = 0.0;
        {
            constexpr int T = TX * TY * (DIM == 3 ? TZ : 1);
            /* 2D: a thread keeps its column (256 is a multiple of TX: q = tid + 256 k is column tid % TX, rows
             * tid / TX + k 256 / TX, the cells and the order of the loop over q) */
            constexpr int NT2 = DIM == 2 ? 256 : 1, RSTEP = DIM == 2 ? NT2 / TX : 1;
            static_assert(DIM == 3 || NT2 % TX == 0, "2D tile width divides the block");
            for (int q = tid, r2 = DIM == 2 ? tid / TX : 0; q < T; q += nt, r2 += RSTEP) {
                const int lx = DIM == 2 ? tid % TX : q % TX, ly = DIM == 2 ? r2 : (q / TX) % TY, lz = DIM == 3 ? q / (TX * TY) : 0;
                const int gx = x0 + H + lx, gy = y0 + H + ly, gz = DIM == 3 ? z0 + H + lz : 0;
                if (!INNER && (gx >= L.n[0] || gy >= L.n[1] || (DIM == 3 && gz >= L.n[2]))) continue;
                const int s = (lx + H) + SSY * (ly + H) + SSZ * (DIM == 3 ? lz + H : 0);
                const int e = cell_at(L, gx, gy, gz);
                float v = xs[s];
                const bool second = ((gx + gy + gz + c1) & 1) != 0; /* the last half sweep's colour (2 NS - 1 odd) */
                const float be = DOT || second || Z == 2 || RES ? BVS(e, s) : 0.0f;
                if (second && !RES) v = (be + NBS(s)) * IDV(e);
                xout[e] = v;
                if (RES == 1) rout[e] = (be - (DGV(e) * v - NBS(s))) * IWV(e);
                if (Z == 2) rs[e] = be;
                if (DOT) acc += (double)be * (double)v;
            }
        }
        if (RES == 2) {
            /* the residual on the tile and one layer (cells of the level only; the restriction reads no other) */
            constexpr int RDX = 256 % RSX, RDY = 256 / RSX;
            int lx = tid % RSX, ly = tid / RSX;
            for (int q = tid; q < RSX * RSY; q += 256) {
                const int gx = x0 + H - 1 + lx, gy = y0 + H - 1 + ly;
                const int s = (lx + H - 1) + SSY * (ly + H - 1);
                lx += RDX;
                ly += RDY;
                if (lx >= RSX) {
                    lx -= RSX;
                    ly++;
                }
                if (!INNER && (gx < 0 || gx >= L.n[0] || gy < 0 || gy >= L.n[1])) continue;
                const int e = cell_at(L, gx, gy, 0);
                rsm[q] = (BVS(e, s) - (DGV(e) * xs[s] - NBS(s))) * IWV(e);
            }
            __syncthreads();
            /* the fine level as d_restrict sees it: cell (i, j) at rsm[(i - fx0 + 1) + RSX (j - fy0 + 1)] */
            const int fx0 = x0 + H, fy0 = y0 + H;
            LevA F = L;
            F.sy = RSX;
            F.origin = 1 - fx0 + RSX * (1 - fy0);
            const int cx0 = fx0 / 2, cy0 = fy0 / 2;
            for (int q = tid; q < (TX / 2) * (TY / 2); q += nt) {
                const int cx = cx0 + q % (TX / 2), cy = cy0 + q / (TX / 2);
                if (cx >= pa.C.n[0] || cy >= pa.C.n[1]) continue;
                d_restrict(F, pa.C, pa.ax0, pa.ax1, pa.ax2, rsm, pa.cb, cx, cy, 0);
            }
        }
        return acc;
#undef IDV
#undef DGV
#undef IWV
#undef BVU
#undef BVS
    };
    double acc;
    if constexpr (DIM == 2) {
        static_assert(H <= UNI_HALO, "L.uni covers regions of halo UNI_HALO");
        const bool inner = x0 >= 0 && y0 >= 0 && x0 + SX <= L.n[0] && y0 + SY <= L.n[1];
        int uni = 0;
        if (inner && L.uni) {
            const float4 u = L.uni[blockIdx.x + gridDim.x * blockIdx.y];
            u_d = u.x;
            u_id = u.y;
            u_iw = u.z;
            uni = (int)u.w;
        }
        /* the staged form (2) needs both axes coarsened for the prolongation's pattern */
        if (uni == 2 && PRO && !(pa.ax0.coarsened && pa.ax1.coarsened)) uni = 1;
        if (uni == 2) {
            acc = body(BoolC<true>{}, IntC<2>{});
        } else if (uni) {
            acc = body(BoolC<true>{}, IntC<1>{});
        } else if (inner) {
            acc = body(BoolC<true>{}, IntC<0>{});
        } else {
            acc = body(BoolC<false>{}, IntC<0>{});
        }
    } else {
        /* 3D: the INNER body where the staged region lies inside the level, and with the uniform box's values
         * where it lies inside LevA's box (cuda_notes 82-83) */
        const bool inner = x0 >= 0 && y0 >= 0 && z0 >= 0 && x0 + SX <= L.n[0] && y0 + SY <= L.n[1] && z0 + SZ <= L.n[2];
        const bool uni = x0 >= L.ulo[0] && y0 >= L.ulo[1] && z0 >= L.ulo[2] && x0 + SX - 1 <= L.uhi[0] &&
                         y0 + SY - 1 <= L.uhi[1] && z0 + SZ - 1 <= L.uhi[2];
        if (inner && uni) {
            u_d = L.ud;
            u_id = L.uid;
            u_iw = L.uiw;
            acc = body(BoolC<true>{}, IntC<1>{});
        } else if (inner) {
            acc = body(BoolC<true>{}, IntC<0>{});
        } else {
            acc = body(BoolC<false>{}, IntC<0>{});
        }
    }
#undef NBS
#undef BV
    if (DOT) {
        __shared__ double sh[32];
        acc = block_reduce<RED_SUM>(acc, sh);
        if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
    }
}

/* LevA's uniform box (cuda_notes 82): *bad = 1 where a cell of [m, n - 1 - m] (each axis) differs bitwise from the
 * box's first cell in diag, inv_diag or inv_weight, or where that cell is not solved (diag or inv_diag <= 0) */
#define UBOX_MARGINS 2
__global__ void k_ubox_check(LevA L, int m, int *bad) {
    ECU_IJK(L.n[0] - 2 * m, L.n[1] - 2 * m);
    if (!inside_) return;
    const int mz = L.dim == 3 ? m : 0; /* 2D: the one layer k = 0 */
    const int e0 = cell_at(L, m, m, mz), e = cell_at(L, i + m, j + m, k + mz);
    const float d0 = L.diag[e0], id0 = L.inv_diag[e0], iw0 = L.inv_weight[e0];
    const bool ok = d0 > 0.0f && id0 > 0.0f && __float_as_uint(L.diag[e]) == __float_as_uint(d0) &&
                    __float_as_uint(L.inv_diag[e]) == __float_as_uint(id0) &&
                    __float_as_uint(L.inv_weight[e]) == __float_as_uint(iw0);
    if (!ok) *bad = 1;
}

/* the first sweep of a V-cycle level, both halves at once: red from zero (x = b / diag), then black from the red
 * neighbours computed in place (b / diag there); the same operations as the two half sweeps, for levels with no
 * periodic axis (where every neighbour of a black cell is red or a zero ghost) */
__global__ void k_first_sweep(LevA L, float *__restrict__ x, const float *__restrict__ b, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    const int e = cell_at(L, i, j, k);
    /* the cell and its neighbours in the uniform box: inv_diag from the box (cuda_notes 82) */
    const bool u = in_ubox(L, i, j, k, 1);
#define IDG(q) (u ? L.uid : L.inv_diag[q])
    if ((i & 1) == ((j + k) & 1)) {
        x[e] = 1.0f * (b[e] * IDG(e));
        return;
    }
    /* a red neighbour's value; ghosts hold b = 0, inv_diag = 0 */
#define RED(q) (1.0f * (b[q] * IDG(q)))
    float nb = L.w[0] * (RED(e - 1) + RED(e + 1)) + L.w[1] * (RED(e - L.sy) + RED(e + L.sy));
    if (L.dim == 3) nb = nb + L.w[2] * (RED(e - L.sz) + RED(e + L.sz));
#undef RED
    x[e] = (b[e] + nb) * IDG(e);
#undef IDG
}

__global__ void k_jacobi(LevA L, const float *__restrict__ in, float *__restrict__ out, const float *__restrict__ b) {
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    int e = cell_at(L, i, j, k);
    out[e] = (b[e] + NBD(in, e)) * L.inv_diag[e];
}

__global__ void k_residual_w(LevA L, const float *__restrict__ x, const float *__restrict__ b, float *__restrict__ r,
                             const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    if (in_ubox(L, i, j, k, 0)) {
        /* d_residual_w's operations with the box's diag and inv_weight */
        const int e = cell_at(L, i, j, k);
        r[e] = (b[e] - (L.ud * x[e] - NBD(x, e))) * L.uiw;
        return;
    }
    d_residual_w(L, x, b, r, i, j, k);
}

/* k_residual_w for KZ cells along z per thread (cuda_notes 176): x below, at and above the cell kept in registers
 * as the thread steps up (one new x of the column per cell instead of three); the same operations per cell.
 * Measured on the H100 (ncu, 3D 256^3 level 0): 102 -> 92 us with KZ = 4 */
template <int KZ>
__global__ void k_residual_wz(LevA L, const float *__restrict__ x, const float *__restrict__ b, float *__restrict__ r,
                              const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    const int i = (int)(blockIdx.x * BX + threadIdx.x), j = (int)(blockIdx.y * BY + threadIdx.y);
    const int k0 = (int)blockIdx.z * KZ;
    if (i >= L.n[0] || j >= L.n[1]) return;
    int e = cell_at(L, i, j, k0);
    float xm = x[e - L.sz], xc = x[e];
#pragma unroll
    for (int kk = 0; kk < KZ; kk++, e += L.sz) {
        if (k0 + kk >= L.n[2]) break;
        const float xp = x[e + L.sz];
        const float nb = NB2(x, e) + L.w[2] * (xm + xp);
        if (in_ubox(L, i, j, k0 + kk, 0)) r[e] = (b[e] - (L.ud * xc - nb)) * L.uiw;
        else r[e] = (b[e] - (L.diag[e] * xc - nb)) * L.inv_weight[e];
        xm = xc;
        xc = xp;
    }
}

/* masked |b - A x|^2 partials */
__global__ void k_residual_norm2(LevA L, const float *__restrict__ x, const float *__restrict__ b, double *partials) {
    __shared__ double sh[32];
    double acc = 0.0;
    ECU_ROWS_BEGIN(L.n[0], L.n[1])
        int e = cell_at(L, i, j, k);
        float a = b[e] - (L.diag[e] * x[e] - NBD(x, e));
        acc += L.diag[e] > 0.0f ? (double)a * (double)a : 0.0;
    ECU_ROWS_END
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
}

/* the operator's diagonal at cell e: the level's uniform value inside its box (cuda_notes 122) */
__device__ inline float diag_at(const LevA &L, int i, int j, int k, int e) {
    return in_ubox(L, i, j, k, 0) ? L.ud : L.diag[e];
}
/* (A x)_e on solved cells, 0 elsewhere */
__device__ inline float apply_at(const LevA &L, const float *__restrict__ x, int i, int j, int k, int e) {
    const float d = diag_at(L, i, j, k, e);
    const float a = d * x[e] - NBD(x, e);
    return d > 0.0f ? a : 0.0f;
}
/* (b - A x)_e on solved cells (diagonal d > 0), 0 elsewhere */
__device__ inline float residual_at(const LevA &L, const float *__restrict__ x, const float *__restrict__ b, int e, float d) {
    const float a = b[e] - (d * x[e] - NBD(x, e));
    return d > 0.0f ? a : 0.0f;
}

/* out = A in (0 where not solved; not stored when out is null, cuda_notes 174); partial in.out */
__global__ void k_apply(LevA L, const float *__restrict__ in, float *__restrict__ out, double *partials, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    __shared__ double sh[32];
    double acc = 0.0;
    ECU_ROWS_BEGIN(L.n[0], L.n[1])
        int e = cell_at(L, i, j, k);
        const float y = apply_at(L, in, i, j, k, e);
        if (out) out[e] = y;
        acc += (double)in[e] * (double)y;
    ECU_ROWS_END
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
}

__global__ void k_dot(LevA L, const float *__restrict__ a, const float *__restrict__ b, double *partials, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    __shared__ double sh[32];
    double acc = 0.0;
    ECU_ROWS_BEGIN(L.n[0], L.n[1])
        int e = cell_at(L, i, j, k);
        acc += (double)a[e] * (double)b[e];
    ECU_ROWS_END
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
}

/* the device-side scalars of the conjugate gradient loop */
struct CGState {
    double rz, tolb;
    float alpha, beta, mean;
    float warm_scale; /* dt / (rho h) of this step, for the warm start (sent before each solve) */
    int it, max_it, active;
    int converged; /* the recursive residual reached the tolerance (else: breakdown or the iteration cap) */
    int cold;      /* the warm start's residual was not finite: the solve starts from 0 instead (k_warm_fallback) */
};

/* k_first_sweep on level 0 of MGPCG with k_res_shift folded in (cuda_notes 27): b = r - mean on solved cells (mean
 * from the last convergence test, 0 after a start), computed where read, the same float operation as k_res_shift;
 * the shifted residual is also written to rs, which the rest of the V-cycle, r.z and the next update read. */
__global__ void k_first_sweep_shift(LevA L, float *__restrict__ x, const float *__restrict__ r, float *__restrict__ rs,
                                    const CGState *cg) {
    ECU_ACTIVE_OR_RETURN(&cg->active);
    const float shift = -cg->mean;
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    const int e = cell_at(L, i, j, k);
    /* the cell and its neighbours in the uniform box: inv_diag from the box, > 0 (cuda_notes 82) */
    const bool u = in_ubox(L, i, j, k, 1);
#define IDG(q) (u ? L.uid : L.inv_diag[q])
    /* inv_diag > 0 exactly where diag > 0 (k_res_shift's test); ghosts: r = 0, inv_diag = 0 */
#define BSH(q) (u || L.inv_diag[q] > 0.0f ? r[q] + shift : r[q])
    const float be = BSH(e);
    rs[e] = be;
    if ((i & 1) == ((j + k) & 1)) {
        x[e] = 1.0f * (be * IDG(e));
        return;
    }
#define RED(q) (1.0f * (BSH(q) * IDG(q)))
    float nb = L.w[0] * (RED(e - 1) + RED(e + 1)) + L.w[1] * (RED(e - L.sy) + RED(e + L.sy));
    if (L.dim == 3) nb = nb + L.w[2] * (RED(e - L.sz) + RED(e + L.sz));
#undef RED
#undef BSH
    x[e] = (be + nb) * IDG(e);
#undef IDG
}

/* x += alpha p, r = r_in - alpha q on one thread's ECU_ROWS rows of a tile, adding r.r and the sum of r. The
 * rows' values are loaded first, then updated and stored (each element is read before it is written; the same
 * values and order of the sums either way): where r may alias r_in the compiler kept each row's loads behind the
 * previous row's stores (cuda_notes 46: 0.11 warps issued per cycle, DRAM at 55%). q_at(row, e) gives q, read
 * ahead with the other loads when Q_AHEAD (from device memory) or as the row is stored (from shared memory). */
/* the first iteration of a solve (cuda_notes 125), level 0 without periodic axes, whose padding nothing writes:
 * CG_X_ZERO: x0 = 0 was not written (no memset; x is not read), CG_P_FROM_Z: p is z (no copy; read from z and stored
 * into pout as the update passes) */
#define CG_X_ZERO 1
#define CG_P_FROM_Z 2
template <bool Q_AHEAD, class QAt, int FIRST = 0>
__device__ inline void cg_update_rows(const LevA &L, float alpha, int i, int j0, int kz, float *__restrict__ x, float *r,
                                      const float *r_in, const float *__restrict__ p, QAt q_at, double &rr, double &sum,
                                      float *__restrict__ pout = nullptr) {
    float xv[ECU_ROWS], pv[ECU_ROWS], rv[ECU_ROWS], qv[ECU_ROWS];
#pragma unroll
    for (int r_ = 0; r_ < ECU_ROWS; r_++) {
        const int j = j0 + r_ * BY;
        if (i >= L.n[0] || j >= L.n[1]) continue;
        const int e = cell_at(L, i, j, kz);
        if (!(FIRST & CG_X_ZERO)) xv[r_] = x[e];
        pv[r_] = p[e];
        rv[r_] = r_in[e];
        if (Q_AHEAD) qv[r_] = q_at(r_, e);
    }
#pragma unroll
    for (int r_ = 0; r_ < ECU_ROWS; r_++) {
        const int j = j0 + r_ * BY;
        if (i >= L.n[0] || j >= L.n[1]) continue;
        const int e = cell_at(L, i, j, kz);
        /* x = 0: the same addition to +0 (never contracted or folded: -0 products give +0 as on the CPU) */
        x[e] = FIRST & CG_X_ZERO ? __fadd_rn(0.0f, alpha * pv[r_]) : xv[r_] + alpha * pv[r_];
        if (FIRST & CG_P_FROM_Z) pout[e] = pv[r_];
        const float re = rv[r_] - alpha * (Q_AHEAD ? qv[r_] : q_at(r_, e));
        r[e] = re;
        rr += (double)re * (double)re;
        /* r is +0 in unsolved cells (b, q and the true residual are masked there, the shift skips them), so
         * the plain sum is the masked sum, without reading diag */
        sum += (double)re;
    }
}

/* the block's partial of r.r and, when `msum` is set, of the sum of r (the CG updates' reductions) */
__device__ inline void cg_update_partials(double acc, double sum, double *partials, double *msum, double *sh) {
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
    if (msum) {
        sum = block_reduce<RED_SUM>(sum, sh);
        if (ECU_THREAD0()) msum[ECU_BLOCK_ID()] = sum;
    }
}

/* x += alpha p, r -= alpha q; partials r.r and, when `msum` is set, the sum of r over solved cells (alpha from
 * the state) */
__global__ void k_cg_update(LevA L, const CGState *cg, float *__restrict__ x, float *r, const float *r_in,
                            const float *__restrict__ p, const float *__restrict__ q, double *partials, double *msum) {
    ECU_ACTIVE_OR_RETURN(&cg->active);
    __shared__ double sh[32];
    const float alpha = cg->alpha;
    double acc = 0.0, sum = 0.0;
    const int i = (int)(blockIdx.x * BX + threadIdx.x), k = (int)blockIdx.z;
    const int j0 = (int)(blockIdx.y * (BY * ECU_ROWS) + threadIdx.y);
    cg_update_rows<true>(L, alpha, i, j0, k, x, r, r_in, p, [&](int, int e) { return q[e]; }, acc, sum);
    cg_update_partials(acc, sum, partials, msum, sh);
}

/* k_cg_update with q = A p computed where read (k_apply's operations on the same p: the same bits) instead of
 * loaded (cuda_notes 174): k_apply then only sums p.q, so q is neither written nor read back (8 B per cell), and p's
 * stencil is read here. FIRST = CG_P_FROM_Z: the first iteration after a (re)start reads z as p and stores it into
 * pout (cuda_notes 175: no copy of z into p) */
template <int FIRST>
__global__ void k_cg_update_ap(LevA L, const CGState *cg, float *__restrict__ x, float *r, const float *r_in,
                               const float *__restrict__ p, double *partials, double *msum, float *__restrict__ pout) {
    const int i = (int)(blockIdx.x * BX + threadIdx.x), k = (int)blockIdx.z;
    const int j0 = (int)(blockIdx.y * (BY * ECU_ROWS) + threadIdx.y);
    if (!cg->active) {
        /* CG_X_ZERO: x was not cleared; where the solve stops before this update, x0 = 0 is written instead */
        if (FIRST & CG_X_ZERO)
            for (int r_ = 0; r_ < ECU_ROWS; r_++)
                if (i < L.n[0] && j0 + r_ * BY < L.n[1]) x[cell_at(L, i, j0 + r_ * BY, k)] = 0.0f;
        return;
    }
    __shared__ double sh[32];
    const float alpha = cg->alpha;
    double acc = 0.0, sum = 0.0;
    auto q_at = [&](int r_, int e) { return apply_at(L, p, i, j0 + r_ * BY, k, e); };
    cg_update_rows<true, decltype(q_at), FIRST>(L, alpha, i, j0, k, x, r, r_in, p, q_at, acc, sum, pout);
    cg_update_partials(acc, sum, partials, msum, sh);
}

/* q = A p, alpha = r.z / p.q, x += alpha p, r = r_in - alpha q in one cooperative launch (cuda_notes 52): a block
 * owns the reduction tiles t = blockIdx.x + k gridDim.x (k < T, T tiles of BX x BY ECU_ROWS cells, k_apply's
 * layout) and keeps its q in shared memory across the grid barrier, so q is never written to device memory and
 * k_cg_alpha's launch is gone; every block sums the p.q partials in the same fixed order (the same alpha in all),
 * block 0 records it (and a breakdown as k_cg_alpha does). The per-cell operations are k_apply's and k_cg_update's;
 * the partials are per block of this launch (partials, msum: gridDim.x of them for k_cg_check). */
/* 4 blocks per SM (at most 64 registers): uncapped it took 3, too few for a grid of 2048 / 4 tiles */
template <int FIRST>
__global__ void __launch_bounds__(256, 4) k_cg_apply_update(LevA L, CGState *cg, float *__restrict__ x, float *r,
                                                         const float *r_in, const float *__restrict__ p, double *pq_part,
                                                         double *partials, double *msum, Readback *rb, int ntx, int nty,
                                                         int ntiles, int T, float *__restrict__ pout) {
    const int tid = (int)(threadIdx.x + BX * threadIdx.y);
    /* CG_X_ZERO: x was not cleared; where the solve stops here, x = 0 is written instead of the update */
    auto zero_x = [&]() {
        for (int k = 0; k < T; k++) {
            const int t = (int)blockIdx.x + k * (int)gridDim.x;
            if (t >= ntiles) break;
            const int i = (t % ntx) * BX + (int)threadIdx.x, kz = t / (ntx * nty);
            const int j0 = ((t / ntx) % nty) * (BY * ECU_ROWS) + (int)threadIdx.y;
            for (int r_ = 0; r_ < ECU_ROWS; r_++) {
                const int j = j0 + r_ * BY;
                if (i < L.n[0] && j < L.n[1]) x[cell_at(L, i, j, kz)] = 0.0f;
            }
        }
    };
    if (!cg->active) { /* the same decision in every block: active changes only after the barrier */
        if (FIRST & CG_X_ZERO) zero_x();
        return;
    }
    extern __shared__ float qs[];
    __shared__ double sh[32];
    double acc = 0.0;
    for (int k = 0; k < T; k++) {
        const int t = (int)blockIdx.x + k * (int)gridDim.x;
        if (t >= ntiles) break;
        const int i = (t % ntx) * BX + (int)threadIdx.x, kz = t / (ntx * nty);
        const int j0 = ((t / ntx) % nty) * (BY * ECU_ROWS) + (int)threadIdx.y;
#pragma unroll
        for (int r_ = 0; r_ < ECU_ROWS; r_++) {
            const int j = j0 + r_ * BY;
            if (i >= L.n[0] || j >= L.n[1]) continue;
            const int e = cell_at(L, i, j, kz);
            const float y = apply_at(L, p, i, j, kz, e);
            qs[(k * ECU_ROWS + r_) * 256 + tid] = y;
            acc += (double)p[e] * (double)y;
        }
    }
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) pq_part[blockIdx.x] = acc;
    cooperative_groups::this_grid().sync();
    /* alpha, as k_cg_alpha computes it from these partials */
    double v = 0.0;
    for (int b = tid; b < (int)gridDim.x; b += 256) v += __ldcg(pq_part + b);
    v = block_reduce<RED_SUM>(v, sh);
    __shared__ float alpha_s;
    __shared__ int stop_s;
    if (tid == 0) {
        const double pq = v, rz = cg->rz;
        stop_s = !(pq > 0.0) || !(rz > 0.0);
        alpha_s = stop_s ? 0.0f : (float)(rz / pq);
        if (blockIdx.x == 0) {
            if (stop_s) {
                cg->active = 0;
                rb->red[R_CG_ITER] = cg->it;
            } else {
                cg->alpha = alpha_s;
            }
        }
    }
    __syncthreads();
    if (stop_s) {
        if (FIRST & CG_X_ZERO) zero_x();
        return;
    }
    const float alpha = alpha_s;
    double rr = 0.0, sum = 0.0;
    for (int k = 0; k < T; k++) {
        const int t = (int)blockIdx.x + k * (int)gridDim.x;
        if (t >= ntiles) break;
        const int i = (t % ntx) * BX + (int)threadIdx.x, kz = t / (ntx * nty);
        const int j0 = ((t / ntx) % nty) * (BY * ECU_ROWS) + (int)threadIdx.y;
        auto qv = [&](int r_, int) { return qs[(k * ECU_ROWS + r_) * 256 + tid]; };
        cg_update_rows<false, decltype(qv), FIRST>(L, alpha, i, j0, kz, x, r, r_in, p, qv, rr, sum, pout);
    }
    rr = block_reduce<RED_SUM>(rr, sh);
    if (ECU_THREAD0()) partials[blockIdx.x] = rr;
    sum = block_reduce<RED_SUM>(sum, sh);
    if (ECU_THREAD0()) msum[blockIdx.x] = sum;
}

/* one pure-Neumann component holding every solved cell: r -= its mean, kept by the device (poisson_mg.c
 * cg_update keeps the residual mean-free so that it cannot drift below float precision) */
__global__ void k_res_shift(LevA L, const CGState *cg, float *__restrict__ r) {
    ECU_ACTIVE_OR_RETURN(&cg->active);
    const float shift = -cg->mean;
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    int e = cell_at(L, i, j, k);
    if (L.diag[e] > 0.0f) r[e] = r[e] + shift;
}

__global__ void k_cg_direction(LevA L, const CGState *cg, float *__restrict__ p, const float *__restrict__ z) {
    ECU_ACTIVE_OR_RETURN(&cg->active);
    const float beta = cg->beta;
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    int e = cell_at(L, i, j, k);
    p[e] = z[e] + beta * p[e];
}

/* one block: the fixed-order sum of `n` partials, valid in thread 0 */
__device__ inline double sum_partials(const double *p, size_t n) {
    __shared__ double sh[32];
    double v = 0.0;
    for (size_t b = threadIdx.x; b < n; b += blockDim.x) v += p[b];
    return block_reduce<RED_SUM>(v, sh);
}

/* start of a solve: |b|^2 (partials) -> bnorm; the loop runs only when it is positive and finite (project.c) */
__global__ void __launch_bounds__(1024) k_cg_start(CGState *cg, const double *partials, size_t n, double tol, int max_it, Readback *rb) {
    double bb = sum_partials(partials, n);
    if (threadIdx.x) return;
    double bnorm = sqrt(bb);
    cg->tolb = tol * bnorm;
    cg->it = 0;
    cg->max_it = max_it;
    cg->converged = 0;
    cg->cold = 0;
    cg->mean = 0.0f; /* the start's residual is mean-free: level 0's first sweep shifts it by -0 (defer_shift) */
    cg->active = bnorm > 0.0 && isfinite(bnorm);
    rb->red[R_CG_BNORM2] = bb;
    rb->red[R_CG_INIT2] = bb;
    rb->red[R_CG_ITER] = 0;
    rb->red[R_CG_RES0] = 0;
}
/* warm start: x0 = p dt / (rho h) on solved cells (project.c warm_row), 0 when there is nothing to solve */
__global__ void k_warm(Geo g, LevA L, const CGState *cg, const float *__restrict__ p, float *__restrict__ x) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    const int e = cell_at(L, i, j, k);
    x[e] = cg->active && L.diag[e] > 0.0f ? cg->warm_scale * p[idx3(g.n, i, j, k)] : 0.0f;
}
/* |b - A x0|^2 of the warm start: already converged, or the loop starts from this residual */
__global__ void __launch_bounds__(1024) k_cg_initial(CGState *cg, const double *partials, size_t n, Readback *rb) {
    if (!cg->active) return;
    double rr = sum_partials(partials, n);
    if (threadIdx.x) return;
    if (!isfinite(rr)) { /* a guess float cannot hold (poisson_mg.c): the cold start's residual, |b|^2 */
        cg->cold = 1;
        return; /* R_CG_INIT2 keeps |b|^2 from k_cg_start */
    }
    rb->red[R_CG_INIT2] = rr;
    if (sqrt(rr) <= cg->tolb) {
        cg->converged = 1;
        cg->active = 0;
        rb->red[R_CG_RES0] = 1;
    }
}
/* ... and then x0 = 0, r = b, as a cold solve starts (b is mean-free, as r would be) */
__global__ void k_warm_fallback(LevA L, const CGState *cg, const float *__restrict__ b, float *__restrict__ x,
                                float *__restrict__ r) {
    if (!cg->cold) return;
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    const int e = cell_at(L, i, j, k);
    x[e] = 0.0f;
    r[e] = L.diag[e] > 0.0f ? b[e] : 0.0f;
}
/* r.z of the first V-cycle */
__global__ void __launch_bounds__(1024) k_cg_rz(CGState *cg, const double *partials, size_t n) {
    if (!cg->active) return;
    double v = sum_partials(partials, n);
    if (threadIdx.x == 0) cg->rz = v;
}
/* p.q -> alpha, or the end of the loop (poisson_mg.c: breakdown when p.q or r.z is not positive) */
__global__ void __launch_bounds__(1024) k_cg_alpha(CGState *cg, const double *partials, size_t n, Readback *rb) {
    if (!cg->active) return;
    double pq = sum_partials(partials, n);
    if (threadIdx.x) return;
    if (!(pq > 0.0) || !(cg->rz > 0.0)) {
        cg->active = 0;
        rb->red[R_CG_ITER] = cg->it;
        return;
    }
    cg->alpha = (float)(cg->rz / pq);
}
/* r.r after the update: converged, or out of iterations. With `msum` (one component holding every solved cell)
 * the residual's mean m is to be removed (k_res_shift): |r - m|^2 = |r|^2 - cells m^2 */
__global__ void __launch_bounds__(1024) k_cg_check(CGState *cg, const double *partials, const double *msum, size_t n,
                                                   double cells, Readback *rb) {
    if (!cg->active) return;
    double rr = sum_partials(partials, n);
    double ms = msum ? sum_partials(msum, n) : 0.0;
    if (threadIdx.x) return;
    if (msum) {
        double m = ms / cells;
        cg->mean = (float)m;
        rr -= cells * m * m;
    }
    cg->it++;
    rb->red[R_CG_ITER] = cg->it;
    if (sqrt(rr) <= cg->tolb) cg->converged = 1;
    if (cg->converged || cg->it >= cg->max_it) cg->active = 0;
    rb->red[R_CG_RES0] = cg->converged;
}
/* a refinement's solve (project.c): from x = 0 on the divergence the corrections left; the tolerance (the first b's),
 * the iteration count and its cap go on */
__global__ void k_cg_refine(CGState *cg) {
    cg->active = 1;
    cg->converged = 0;
    cg->mean = 0.0f;
}
/* r = b - A x on solved cells (the true residual) */
__global__ void k_residual_m(LevA L, const float *__restrict__ x, const float *__restrict__ b, float *__restrict__ r) {
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    int e = cell_at(L, i, j, k);
    float a = b[e] - (L.diag[e] * x[e] - NBD(x, e));
    r[e] = L.diag[e] > 0.0f ? a : 0.0f;
}

/* r.z of the new V-cycle -> beta */
__global__ void __launch_bounds__(1024) k_cg_beta(CGState *cg, const double *partials, size_t n) {
    if (!cg->active) return;
    double rz_next = sum_partials(partials, n);
    if (threadIdx.x) return;
    cg->beta = (float)(rz_next / cg->rz);
    cg->rz = rz_next;
}
/* the graph's while condition */
__global__ void k_cg_condition(const CGState *cg, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, cg->active ? 1u : 0u); }

__global__ void k_restrict(LevA F, LevA C, AxisT ax0, AxisT ax1, AxisT ax2, const float *__restrict__ fr,
                           float *__restrict__ cb, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    ECU_IJK(C.n[0], C.n[1]);
    if (!inside_) return;
    d_restrict(F, C, ax0, ax1, ax2, fr, cb, i, j, k);
}

/* 3D restriction with four threads per coarse cell (cuda_notes 86): thread e of cell (cx, cy, cz) sums d_restrict's
 * t2[e] (y, then x, of fine plane rfz[e]), and thread 0 combines the four from shared memory in d_restrict's order;
 * for the small, latency-bound levels (a quarter of the serial loads per thread). Block 32 x 8: 32 x 2 coarse cells */
__global__ void k_restrict4(LevA F, LevA C, AxisT ax0, AxisT ax1, AxisT ax2, const float *__restrict__ fr,
                            float *__restrict__ cb, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    __shared__ float t2s[BY][BX];
    const int tx = (int)threadIdx.x, ty = (int)threadIdx.y, e = ty & 3;
    const int cx = (int)blockIdx.x * BX + tx, cy = (int)blockIdx.y * (BY / 4) + (ty >> 2), cz = (int)blockIdx.z;
    const bool in = cx < C.n[0] && cy < C.n[1];
    int rfz[4];
    float rwz[4];
    restrict_taps(ax2, cz, rfz, rwz);
    if (in) {
        const bool xin = restrict_x_inside(ax0, cx);
        int rfy[4];
        float rwy[4];
        restrict_taps(ax1, cy, rfy, rwy);
        int fz = rfz[0];
        for (int q = 1; q < 4; q++) fz = q == e ? rfz[q] : fz;
        t2s[ty][tx] = restrict_xy(F, ax0, fr, cx, xin, rfy, rwy, fz);
    }
    __syncthreads();
    if (!in || e) return;
    const float v = rwz[0] * t2s[ty][tx] + rwz[1] * t2s[ty + 1][tx] + rwz[2] * t2s[ty + 2][tx] + rwz[3] * t2s[ty + 3][tx];
    const int ec = cell_at(C, cx, cy, cz);
    cb[ec] = in_ubox(C, cx, cy, cz, 0) || C.diag[ec] > 0.0f ? v : 0.0f;
}

__global__ void k_prolong(LevA F, LevA C, AxisT ax0, AxisT ax1, AxisT ax2, const float *__restrict__ xc,
                          float *__restrict__ xf, int add, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    ECU_IJK(F.n[0], F.n[1]);
    if (!inside_) return;
    d_prolong(F, C, ax0, ax1, ax2, xc, xf, i, j, k, add);
}

/* 3D prolongation with every axis coarsened, a thread per coarse cell and its 2 x 2 x 2 fine cells (cuda_notes 84):
 * where the coarse cell's neighbours along every axis exist (d_prolong_value's regular pattern for all 8 fine
 * cells), the 27 coarse values are loaded once and the z, then y, then x lerps shared between the fine cells that
 * use them: each fine value is d_prolong_value's w0 t1(c0) + w1 t1(c1) of the same products and sums; other coarse
 * cells run d_prolong per fine cell */
__global__ void __launch_bounds__(256, 5) k_prolong8(LevA F, LevA C, AxisT ax0, AxisT ax1, AxisT ax2, const float *__restrict__ xc,
                           float *__restrict__ xf, int add, const int *active) {
    ECU_ACTIVE_OR_RETURN(active);
    ECU_IJK(C.n[0], C.n[1]);
    if (!inside_) return;
    const bool regular = i >= 1 && i <= C.n[0] - 2 && j >= 1 && j <= C.n[1] - 2 && k >= 1 && k <= C.n[2] - 2;
    if (!regular) {
        for (int dz = 0; dz < 2; dz++)
            for (int dy = 0; dy < 2; dy++)
                for (int dx = 0; dx < 2; dx++) {
                    const int fi = 2 * i + dx, fj = 2 * j + dy, fk = 2 * k + dz;
                    if (fi < F.n[0] && fj < F.n[1] && fk < F.n[2]) d_prolong(F, C, ax0, ax1, ax2, xc, xf, fi, fj, fk, add);
                }
        return;
    }
    /* the 8 fine values first, then the fine cells' x and weights loaded together, then the stores (cuda_notes 133:
     * with each fine cell's load behind the previous cell's store, 8 serial round trips per thread) */
    float v8[8];
#pragma unroll
    for (int dz = 0; dz < 2; dz++) {
        /* entry along z: c0 = k (0.75), c1 = k - 1 or k + 1 (0.25) */
        const int kn = dz ? k + 1 : k - 1;
        float a[3][3]; /* [x: i - 1 .. i + 1][y: j - 1 .. j + 1] */
#pragma unroll
        for (int cx = 0; cx < 3; cx++)
#pragma unroll
            for (int cy = 0; cy < 3; cy++)
                a[cx][cy] = 0.75f * xc[cell_at(C, i - 1 + cx, j - 1 + cy, k)] + 0.25f * xc[cell_at(C, i - 1 + cx, j - 1 + cy, kn)];
#pragma unroll
        for (int dy = 0; dy < 2; dy++) {
            /* t1(c) = wy0 a0 + wy1 a1: cy0 = j (index 1), cy1 = j - 1 or j + 1 */
            float t[3];
#pragma unroll
            for (int cx = 0; cx < 3; cx++) t[cx] = 0.75f * a[cx][1] + 0.25f * a[cx][dy ? 2 : 0];
#pragma unroll
            for (int dx = 0; dx < 2; dx++) v8[4 * dz + 2 * dy + dx] = 0.75f * t[1] + 0.25f * t[dx ? 2 : 0];
        }
    }
    const int e0 = cell_at(F, 2 * i, 2 * j, 2 * k);
#define FINE_E(n) (e0 + ((n) & 1) + F.sy * (((n) >> 1) & 1) + F.sz * ((n) >> 2))
    if (add) {
        float old[8], w[8];
#pragma unroll
        for (int n = 0; n < 8; n++) {
            const int e = FINE_E(n);
            old[n] = xf[e];
            w[n] = in_ubox(F, 2 * i + (n & 1), 2 * j + ((n >> 1) & 1), 2 * k + (n >> 2), 0) ? F.uiw : F.inv_weight[e];
        }
#pragma unroll
        for (int n = 0; n < 8; n++) xf[FINE_E(n)] = old[n] + w[n] * v8[n];
    } else {
#pragma unroll
        for (int n = 0; n < 8; n++) xf[FINE_E(n)] = v8[n];
    }
#undef FINE_E
}

/* ------------------------------------------------------------------ null space */
/* the CPU's serial remove_mean, in one thread (coarsest level: at most 27 cells) */
/* cells0: C.cells[0] when one component holds every solved cell (read once by the caller) */
__device__ void remove_mean_serial(const LevA &L, const CompD &C, float *v, double cells0) {
    if (C.count == 0) return;
    const int n0 = L.n[0], rows = L.n[1] * L.n[2];
    if (C.single_all) {
        double total = 0.0;
        for (int row = 0; row < rows; row++) {
            const float *a = v + cell_at(L, 0, row % L.n[1], row / L.n[1]);
            const float *d = L.diag + cell_at(L, 0, row % L.n[1], row / L.n[1]);
            double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            int i = 0;
            for (; i + 8 <= n0; i += 8) {
#pragma unroll
                for (int l = 0; l < 8; l++) acc[l] += d[i + l] > 0.0f ? (double)a[i + l] : 0.0;
            }
            /* the rest of the row with constant indices (acc stays in registers: cuda_notes 42) */
#pragma unroll
            for (int l = 0; l < 8; l++)
                if (i + l < n0) acc[l] += d[i + l] > 0.0f ? (double)a[i + l] : 0.0;
            total += ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
        }
        float mean = (float)(total / cells0);
        for (int row = 0; row < rows; row++) {
            int o = cell_at(L, 0, row % L.n[1], row / L.n[1]);
            for (int i = 0; i < n0; i++) v[o + i] = L.diag[o + i] > 0.0f ? v[o + i] - mean : v[o + i];
        }
        return;
    }
    for (int c = 0; c < C.count; c++) C.sum[c] = 0.0;
    for (int row = 0; row < rows; row++) {
        int o = cell_at(L, 0, row % L.n[1], row / L.n[1]);
        for (int i = 0; i < n0; i++) {
            int lab = C.label[o + i];
            if (lab >= 0) C.sum[lab] += (double)v[o + i];
        }
    }
    for (int c = 0; c < C.count; c++) C.sum[c] /= C.cells[c];
    for (int row = 0; row < rows; row++) {
        int o = cell_at(L, 0, row % L.n[1], row / L.n[1]);
        for (int i = 0; i < n0; i++) {
            int lab = C.label[o + i];
            if (lab >= 0) v[o + i] = (float)((double)v[o + i] - C.sum[lab]);
        }
    }
}

/* One level as the single-block kernel sees it. */
struct TailLevel {
    LevA a;
    AxisT ax[3]; /* transfer to the next coarser level */
    float *x, *b, *r;
    int count;   /* padded elements */
    int smem;    /* offset of its vectors (x, b, r) in shared memory, floats */
    int op;      /* offset of its operator (diag, inv_diag, inv_weight) in shared memory, floats */
    int tab;     /* offset of its transfer tables in shared memory (per axis pc, pw, rf, rw), words; -1: none */
};
/* the level with its operator in shared memory */
__device__ inline TailLevel tail_in_smem(const TailLevel &T, float *sm) {
    TailLevel S = T;
    float *base = sm + T.smem, *op = sm + T.op;
    S.x = base;
    S.b = base + T.count;
    S.r = base + 2 * T.count;
    S.a.diag = op;
    S.a.inv_diag = op + T.count;
    S.a.inv_weight = op + 2 * T.count;
    return S;
}

/* block-wide: periodic ghosts of x */
__device__ void tail_ghosts(const LevA &L, float *x) {
    for (int a = 0; a < L.dim; a++) {
        if (!L.periodic[a]) continue;
        int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
        for (int q = (int)threadIdx.x; q < L.n[b0] * L.n[b1]; q += (int)blockDim.x) {
            int lo[3], hi[3];
            lo[b0] = hi[b0] = q % L.n[b0];
            lo[b1] = hi[b1] = q / L.n[b0];
            lo[a] = 0;
            hi[a] = L.n[a] - 1;
            int elo = cell_at(L, lo[0], lo[1], lo[2]), ehi = cell_at(L, hi[0], hi[1], hi[2]);
            int st = a == 0 ? 1 : (a == 1 ? L.sy : L.sz);
            x[ehi + st] = x[elo];
            x[elo - st] = x[ehi];
        }
        __syncthreads();
    }
}
/* every cell of a level, the block seen as 32 x 32 threads over (columns, rows): one division per row instead of
 * three per cell (the phases of these small levels are bound by instructions, not memory) */
#define TAIL_CELLS(L, body)                                                                      \
    for (int r_ = (int)threadIdx.x >> 5; r_ < (L).n[1] * (L).n[2]; r_ += (int)blockDim.x >> 5) { \
        const int j = r_ % (L).n[1], k = r_ / (L).n[1];                                          \
        for (int i = (int)threadIdx.x & 31; i < (L).n[0]; i += 32) {                             \
            body;                                                                                \
        }                                                                                        \
    }                                                                                            \
    __syncthreads();

/* a half sweep of a level of at most 32 cells by the first warp (ghosts first on periodic axes) */
__device__ void warp_half(const TailLevel &T, int colour, int zero_start, int ncell) {
    const LevA &L = T.a;
    const int lane = (int)threadIdx.x;
    if (!zero_start) {
        for (int a = 0; a < L.dim; a++) {
            if (!L.periodic[a]) continue;
            int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
            if (lane < L.n[b0] * L.n[b1]) {
                int lo[3], hi[3];
                lo[b0] = hi[b0] = lane % L.n[b0];
                lo[b1] = hi[b1] = lane / L.n[b0];
                lo[a] = 0;
                hi[a] = L.n[a] - 1;
                int elo = cell_at(L, lo[0], lo[1], lo[2]), ehi = cell_at(L, hi[0], hi[1], hi[2]);
                int st = a == 0 ? 1 : (a == 1 ? L.sy : L.sz);
                T.x[ehi + st] = T.x[elo];
                T.x[elo - st] = T.x[ehi];
            }
            __syncwarp();
        }
    }
    if (lane < ncell) {
        const int i = lane % L.n[0], j = (lane / L.n[0]) % L.n[1], k = lane / (L.n[0] * L.n[1]);
        d_half(L, T.x, T.b, i, j, k, colour, 1.0f, zero_start);
    }
    __syncwarp();
}

__device__ void tail_half(const TailLevel &T, int colour, int zero_start) {
    if (!zero_start) tail_ghosts(T.a, T.x);
    TAIL_CELLS(T.a, d_half(T.a, T.x, T.b, i, j, k, colour, 1.0f, zero_start));
}

/* A sequence of half sweeps over a level of at most K x blockDim cells without periodic axes, K cells per thread: the
 * cell's index and colour, and the stencil's strides and weights are read once into registers, so a half sweep is
 * the stencil's loads and the same float operations as d_half (omega 1); the first half sweep
 * starts from x = 0 when zero_first. `sync`: __syncwarp (one warp, level of at most 32 cells)
 * or __syncthreads between the half sweeps. These phases are latency-bound (one SM, tiny levels): the saved
 * descriptor loads and index divisions are most of their time. Half sweep h has colour first ^ (h & 1). */
__device__ inline bool tail_fast_ok(const LevA &L, int limit) {
    return !L.periodic[0] && !L.periodic[1] && !L.periodic[2] && L.n[0] * L.n[1] * L.n[2] <= limit;
}
template <bool WARP, int K>
__device__ void tail_sweeps(const TailLevel &T, int first, int nhalf, int zero_first) {
    extern __shared__ float sm[];
    const LevA &L = T.a;
    const int n0 = L.n[0], n1 = L.n[1], ncell = n0 * L.n[1] * L.n[2];
    const int sy = L.sy, sz = L.sz;
    const float w0 = L.w[0], w1 = L.w[1], w2 = L.w[2];
    const bool d3 = L.dim == 3;
    /* the arrays as offsets into the dynamic shared memory (32-bit shared addresses instead of generic pointers:
     * the registers that let K = 4 fit under k_tail's 64-register bound) */
    const int xo = (int)(T.x - sm), bo = (int)(T.b - sm), io = (int)(L.inv_diag - sm);
    /* cells of the thread, each as (padded index << 1) | colour, -1 for none; a cell is updated in the half sweep of
     * its colour (i + j + k) & 1, as in d_half. K = 1: cell t; K > 1: pairs of consecutive cells (2 (t + p nt),
     * + 1), which along a row of even width have both colours, so that every thread works in every half sweep */
    int ec[K];
#pragma unroll
    for (int q = 0; q < K; q++) {
        const int t = K == 1 ? (int)threadIdx.x : 2 * ((int)threadIdx.x + (q >> 1) * (int)blockDim.x) + (q & 1);
        ec[q] = -1;
        if (t < ncell) {
            const int i = t % n0, j = (t / n0) % n1, k = t / (n0 * n1);
            ec[q] = (cell_at(L, i, j, k) << 1) | ((i + j + k) & 1);
        }
    }
    for (int h = 0; h < nhalf; h++) {
        const int colour = first ^ (h & 1);
#pragma unroll
        for (int q = 0; q < K; q++) {
            if (ec[q] < 0) continue;
            const int c = ec[q] >> 1, mine = ec[q] & 1;
            const int cx = xo + c;
            if (h == 0 && zero_first) {
                sm[cx] = mine == colour ? 1.0f * (sm[bo + c] * sm[io + c]) : 0.0f;
            } else if (mine == colour) {
                float nb = w0 * (sm[cx - 1] + sm[cx + 1]) + w1 * (sm[cx - sy] + sm[cx + sy]);
                if (d3) nb = nb + w2 * (sm[cx - sz] + sm[cx + sz]);
                sm[cx] = (sm[bo + c] + nb) * sm[io + c];
            }
        }
        if (WARP) __syncwarp();
        else __syncthreads();
    }
}
/* The coarsest level's symmetric sweeps, (red, black) x sweeps from zero then (black, red) x sweeps, by one warp
 * with every cell's x in its lane's register and the neighbours' values by shuffles (cuda_notes 43): the same
 * float operations as tail_sweeps<true, 1> (a level without periodic axes: ghosts are zero, outside cells have
 * none), no shared-memory round trip or warp barrier per half sweep. */
__device__ void warp_sweeps_shfl(const TailLevel &T, int sweeps) {
    const LevA &L = T.a;
    const int n0 = L.n[0], n1 = L.n[1], n01 = n0 * L.n[1], ncell = n01 * L.n[2];
    const int lane = (int)threadIdx.x;
    const bool has = lane < ncell, d3 = L.dim == 3;
    const int i = has ? lane % n0 : 0, j = has ? (lane / n0) % n1 : 0, k = has ? lane / n01 : 0;
    const int c = has ? cell_at(L, i, j, k) : 0;
    const float bv = has ? T.b[c] : 0.0f, idg = has ? L.inv_diag[c] : 0.0f;
    const float w0 = L.w[0], w1 = L.w[1], w2 = L.w[2];
    const int mine = (i + j + k) & 1;
    /* the source lane of each neighbour, and whether it is a cell (else the ghost's zero) */
    const bool hxm = has && i > 0, hxp = has && i < n0 - 1, hym = has && j > 0, hyp = has && j < n1 - 1;
    const bool hzm = has && d3 && k > 0, hzp = has && d3 && k < L.n[2] - 1;
    const int sxm = hxm ? lane - 1 : lane, sxp = hxp ? lane + 1 : lane, sym = hym ? lane - n0 : lane,
              syp = hyp ? lane + n0 : lane, szm = hzm ? lane - n01 : lane, szp = hzp ? lane + n01 : lane;
    float xv = 0.0f;
    const int nhalf = 4 * sweeps;
    for (int h = 0; h < nhalf; h++) {
        const int colour = h < 2 * sweeps ? (h & 1) : 1 ^ (h & 1);
        float xm = __shfl_sync(0xffffffffu, xv, sxm), xp = __shfl_sync(0xffffffffu, xv, sxp);
        float ym = __shfl_sync(0xffffffffu, xv, sym), yp = __shfl_sync(0xffffffffu, xv, syp);
        float zm = __shfl_sync(0xffffffffu, xv, szm), zp = __shfl_sync(0xffffffffu, xv, szp);
        xm = hxm ? xm : 0.0f;
        xp = hxp ? xp : 0.0f;
        ym = hym ? ym : 0.0f;
        yp = hyp ? yp : 0.0f;
        zm = hzm ? zm : 0.0f;
        zp = hzp ? zp : 0.0f;
        if (h == 0) {
            xv = mine == colour ? 1.0f * (bv * idg) : 0.0f;
        } else if (mine == colour) {
            float nb = w0 * (xm + xp) + w1 * (ym + yp);
            if (d3) nb = nb + w2 * (zm + zp);
            xv = (bv + nb) * idg;
        }
    }
    if (has) T.x[c] = xv;
    __syncwarp();
}

/* A coarsest level of 2 x 2 (x 2) cells without periodic axes by one thread, every value in registers (cuda_notes
 * 43): the same half sweeps and float operations as tail_sweeps (a neighbour outside the level is a ghost's zero,
 * added in the same place of the sum) */
__device__ inline bool tail_two_cells(const LevA &L) {
    return !L.periodic[0] && !L.periodic[1] && !L.periodic[2] && L.n[0] == 2 && L.n[1] == 2 && L.n[2] == (L.dim == 3 ? 2 : 1);
}
template <bool D3, int COLOUR>
__device__ __forceinline__ void two_half(float *x, const float *bv, const float *idg, float w0, float w1, float w2, bool zero) {
    constexpr int NC = D3 ? 8 : 4;
#pragma unroll
    for (int c = 0; c < NC; c++) {
        const int i = c & 1, j = (c >> 1) & 1, k = c >> 2;
        if (((i + j + k) & 1) != COLOUR) {
            if (zero) x[c] = 0.0f;
            continue;
        }
        if (zero) {
            x[c] = 1.0f * (bv[c] * idg[c]);
            continue;
        }
        const float xm = i ? x[c - 1] : 0.0f, xp = i ? 0.0f : x[c + 1];
        const float ym = j ? x[c - 2] : 0.0f, yp = j ? 0.0f : x[c + 2];
        float nb = w0 * (xm + xp) + w1 * (ym + yp);
        if (D3) {
            const float zm = k ? x[c - 4] : 0.0f, zp = k ? 0.0f : x[c + 4];
            nb = nb + w2 * (zm + zp);
        }
        x[c] = (bv[c] + nb) * idg[c];
    }
}
/* remove_mean_serial's single-component mean of a 2 x 2 (x 2) level held in registers (rows of 2 cells, cell c = i + 2 j
 * + 4 k): the same double operations in the same order (the row's acc[8] with acc[2..7] zero), so the same bits */
template <int NC>
__device__ __forceinline__ float two_mean(const float *v, const float *d, double cells0) {
    double total = 0.0;
#pragma unroll
    for (int row = 0; row < NC / 2; row++) {
        double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        acc[0] += d[2 * row] > 0.0f ? (double)v[2 * row] : 0.0;
        acc[1] += d[2 * row + 1] > 0.0f ? (double)v[2 * row + 1] : 0.0;
        total += ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    }
    return (float)(total / cells0);
}
/* The coarsest 2 x 2 (x 2) level's whole solve by one thread in registers (cuda_notes 117): b's mean removed (when
 * mean_b), (red, black) x sweeps from zero then (black, red) x sweeps, x's mean removed, x stored;
 * remove_mean_serial's operations on a single component holding every solved cell (mean: with such a component;
 * without it, the sweeps alone). b is not written back: nothing reads the coarsest b after its solve. */
template <bool D3>
__device__ void single_solve_2(const TailLevel &T, int sweeps, bool mean, bool mean_b, double cells0) {
    constexpr int NC = D3 ? 8 : 4;
    const LevA &L = T.a;
    const float w0 = L.w[0], w1 = L.w[1], w2 = L.w[2];
    float x[NC], bv[NC], idg[NC], dg[NC];
#pragma unroll
    for (int c = 0; c < NC; c++) {
        const int e = cell_at(L, c & 1, (c >> 1) & 1, c >> 2);
        bv[c] = T.b[e];
        idg[c] = L.inv_diag[e];
        dg[c] = L.diag[e];
        x[c] = 0.0f;
    }
    if (mean && mean_b) {
        const float m = two_mean<NC>(bv, dg, cells0);
#pragma unroll
        for (int c = 0; c < NC; c++) bv[c] = dg[c] > 0.0f ? bv[c] - m : bv[c];
    }
#pragma unroll 1
    for (int s = 0; s < sweeps; s++) {
        two_half<D3, 0>(x, bv, idg, w0, w1, w2, s == 0);
        two_half<D3, 1>(x, bv, idg, w0, w1, w2, false);
    }
#pragma unroll 1
    for (int s = 0; s < sweeps; s++) {
        two_half<D3, 1>(x, bv, idg, w0, w1, w2, false);
        two_half<D3, 0>(x, bv, idg, w0, w1, w2, false);
    }
    if (mean) {
        const float m = two_mean<NC>(x, dg, cells0);
#pragma unroll
        for (int c = 0; c < NC; c++) x[c] = dg[c] > 0.0f ? x[c] - m : x[c];
    }
#pragma unroll
    for (int c = 0; c < NC; c++) T.x[cell_at(L, c & 1, (c >> 1) & 1, c >> 2)] = x[c];
}

/* a level's pre- or post-smoothing through tail_sweeps when it qualifies (one cell per thread: K = 4 for the 64^2
 * level spilled registers under the 1024-thread bound of k_tail) */
__device__ bool tail_smooth_fast(const TailLevel &T, int level, bool pre) {
    /* (red, black) x sweeps from zero; (black, red) x sweeps */
    const int first = pre ? 0 : 1, zero = pre ? 1 : 0, nhalf = 2 * EDDY_MG_SWEEPS(T.a.dim, level);
    if (tail_fast_ok(T.a, (int)blockDim.x)) {
        tail_sweeps<false, 1>(T, first, nhalf, zero);
        return true;
    }
    if (tail_fast_ok(T.a, 4 * (int)blockDim.x)) {
        tail_sweeps<false, 4>(T, first, nhalf, zero);
        return true;
    }
    return false;
}

/* levels first..nl-1 of the V-cycle in one block: smoothing, transfers and the coarsest solve
 * (poisson_mg.c eddy__poisson_vcycle below `first`, coarsest_solve), every array of those levels in shared
 * memory: the many short phases then wait on shared-memory latency instead of L2's */
#define TAIL_LEVELS 24
#ifdef EDDY_CU_TAIL_CLOCKS
__shared__ long long tail_clk[64];
__shared__ int tail_nclk;
#define TAIL_STAMP()                                           \
    do {                                                       \
        if (threadIdx.x == 0 && tail_nclk < 64) tail_clk[tail_nclk++] = clock64(); \
    } while (0)
#else
#define TAIL_STAMP() \
    do {             \
    } while (0)
#endif
__device__ void tail_body(const TailLevel *lv, int first, int nl, const CompD &coarse, int sweeps, double coarse_cells);
__global__ void __launch_bounds__(1024) k_tail(const TailLevel *glv, int first, int nl, CompD coarse, int sweeps, const int *active,
                                               const float4 *__restrict__ image, int vec4, int image4, const float *__restrict__ b_first,
                                               float *x_first) {
    ECU_ACTIVE_OR_RETURN(active);
#ifdef EDDY_CU_TAIL_CLOCKS
    if (threadIdx.x == 0) tail_nclk = 0;
#endif
    TAIL_STAMP();
    extern __shared__ float sm[];
    __shared__ TailLevel lv[TAIL_LEVELS];
    __shared__ double coarse_cells;
    const int tid = (int)threadIdx.x, nt = (int)blockDim.x;
    if (tid == 0) coarse_cells = coarse.count && coarse.single_all ? coarse.cells[0] : 1.0;
    for (int l = first + tid; l < nl; l += nt) {
        TailLevel S = tail_in_smem(glv[l], sm);
        if (S.tab >= 0 && l + 1 < nl) {
            /* the transfer tables read from their shared-memory copies */
            int o = S.tab;
            for (int a = 0; a < S.a.dim; a++) {
                const int nf = S.ax[a].nf, nc = S.ax[a].nc;
                S.ax[a].pc = (const int *)(sm + o);
                S.ax[a].pw = sm + o + 2 * nf;
                S.ax[a].rf = (const int *)(sm + o + 4 * nf);
                S.ax[a].rw = sm + o + 4 * nf + 4 * nc;
                o += 4 * nf + 8 * nc;
            }
        }
        lv[l - first] = S;
    }
    /* stage: the vectors of every level zeroed (ghosts included), one flat copy of the image (the operators and
     * tables, after the vectors), then level first's b (cuda_notes 41: copied level by level through the
     * descriptors in global memory, the staging was a chain of dependent loads, 16 us of the kernel's 84) */
    float4 *sm4 = reinterpret_cast<float4 *>(sm);
    for (int q = tid; q < vec4; q += nt) sm4[q] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 4
    for (int q = tid; q < image4; q += nt) sm4[vec4 + q] = image[q];
    /* launched with programmatic serialisation (cuda_notes 78) the kernel may have started while the pass before it
     * (which writes b_first) still runs: the staging above reads nothing that pass writes; wait for it here (without
     * such a launch this returns at once) */
    asm volatile("griddepcontrol.wait;" ::: "memory");
    __syncthreads();
    {
        const TailLevel &S = lv[0];
        const int cnt = S.count;
        float *sb = sm + S.smem + cnt;
#pragma unroll 4
        for (int q = tid; q < cnt; q += nt) sb[q] = b_first[q];
    }
    __syncthreads();
    TAIL_STAMP();
    tail_body(lv, first, nl, coarse, sweeps, coarse_cells);
    /* level first's correction back to device memory (interior cells; ghosts there stay as they are) */
    const TailLevel &S = lv[0];
    TAIL_CELLS(S.a, { const int e = cell_at(S.a, i, j, k); x_first[e] = S.x[e]; });
    TAIL_STAMP();
#ifdef EDDY_CU_TAIL_CLOCKS
    if (threadIdx.x == 0) {
        printf("tail clocks:");
        for (int q = 1; q < tail_nclk; q++) printf(" %lld", tail_clk[q] - tail_clk[q - 1]);
        printf(" total %lld\n", tail_clk[tail_nclk - 1] - tail_clk[0]);
    }
#endif
}

__device__ void tail_body(const TailLevel *lv, int first, int nl, const CompD &coarse, int sweeps, double coarse_cells) {
    for (int l = first; l + 1 < nl; l++) {
        const TailLevel &T = lv[l - first];
        if (!tail_smooth_fast(T, l, true)) {
            for (int s = 0; s < EDDY_MG_SWEEPS(T.a.dim, l); s++) {
                tail_half(T, 0, s == 0);
                tail_half(T, 1, 0);
            }
        }
        TAIL_STAMP();
        tail_ghosts(T.a, T.x);
        TAIL_CELLS(T.a, d_residual_w(T.a, T.x, T.b, T.r, i, j, k));
        TAIL_STAMP();
        const TailLevel &C = lv[l + 1 - first];
        TAIL_CELLS(C.a, d_restrict(T.a, C.a, T.ax[0], T.ax[1], T.ax[2], T.r, C.b, i, j, k));
        TAIL_STAMP();
    }
    const TailLevel &C = lv[nl - 1 - first];
    if (tail_two_cells(C.a) && (coarse.count == 0 || coarse.single_all)) {
        /* the coarsest 2 x 2 (x 2) level with its two mean removals in one thread (cuda_notes 117) */
        if (threadIdx.x == 0) {
            /* (the sweeps as the constant k_tail is launched with: with the parameter, k_tail spilled 12 bytes) */
            if (C.a.dim == 3) single_solve_2<true>(C, (int)EDDY_MG_COARSEST_SWEEPS, coarse.count != 0, nl - 1 > 0, coarse_cells);
            else single_solve_2<false>(C, (int)EDDY_MG_COARSEST_SWEEPS, coarse.count != 0, nl - 1 > 0, coarse_cells);
        }
        __syncthreads();
        TAIL_STAMP();
    } else {
        if (nl - 1 > 0 && threadIdx.x == 0) remove_mean_serial(C.a, coarse, C.b, coarse_cells);
        __syncthreads();
        TAIL_STAMP();
        const int ncoarse = C.a.n[0] * C.a.n[1] * C.a.n[2];
        if (ncoarse <= 32) {
            /* the coarsest level (at most 27 cells) by one warp: 4 * sweeps half sweeps with warp barriers only */
            if (threadIdx.x == 0 && tail_two_cells(C.a)) {
                if (C.a.dim == 3) single_solve_2<true>(C, sweeps, false, false, 0.0);
                else single_solve_2<false>(C, sweeps, false, false, 0.0);
            } else if (tail_two_cells(C.a)) {
            } else if (threadIdx.x < 32 && tail_fast_ok(C.a, 32)) {
                /* (red, black) x sweeps from zero, then (black, red) x sweeps */
                warp_sweeps_shfl(C, sweeps);
            } else if (threadIdx.x < 32) {
                for (int s = 0; s < sweeps; s++) {
                    warp_half(C, 0, s == 0, ncoarse);
                    warp_half(C, 1, 0, ncoarse);
                }
                for (int s = 0; s < sweeps; s++) {
                    warp_half(C, 1, 0, ncoarse);
                    warp_half(C, 0, 0, ncoarse);
                }
            }
            __syncthreads();
        } else {
            for (int s = 0; s < sweeps; s++) {
                tail_half(C, 0, s == 0);
                tail_half(C, 1, 0);
            }
            for (int s = 0; s < sweeps; s++) {
                tail_half(C, 1, 0);
                tail_half(C, 0, 0);
            }
        }
        TAIL_STAMP();
        if (threadIdx.x == 0) remove_mean_serial(C.a, coarse, C.x, coarse_cells);
        __syncthreads();
        TAIL_STAMP();
    }
    for (int l = nl - 2; l >= first; l--) {
        const TailLevel &T = lv[l - first];
        const TailLevel &Cl = lv[l + 1 - first];
        TAIL_CELLS(T.a, d_prolong(T.a, Cl.a, T.ax[0], T.ax[1], T.ax[2], Cl.x, T.x, i, j, k, 1));
        TAIL_STAMP();
        if (!tail_smooth_fast(T, l, false)) {
            for (int s = 0; s < EDDY_MG_SWEEPS(T.a.dim, l); s++) {
                tail_half(T, 1, 0);
                tail_half(T, 0, 0);
            }
        }
        TAIL_STAMP();
    }
}

/* level-0 null space, parallel: one component holding every solved cell (the common case) */
__global__ void k_masked_sum(LevA L, const float *__restrict__ v, double *partials) {
    __shared__ double sh[32];
    double acc = 0.0;
    ECU_ROWS_BEGIN(L.n[0], L.n[1])
        int e = cell_at(L, i, j, k);
        acc += L.diag[e] > 0.0f ? (double)v[e] : 0.0;
    ECU_ROWS_END
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
}
/* k_residual_m with k_masked_sum's partials of the result (the same values summed in the same order: the same bits,
 * one pass fewer); xpartials (when not null): k_masked_sum's partials of x as well, x's mean for the end of the
 * projection (cuda_notes 96) */
__global__ void k_residual_m_sum(LevA L, const float *__restrict__ x, const float *__restrict__ b, float *__restrict__ r,
                                 double *partials, double *xpartials, double *sqpartials) {
    __shared__ double sh[32];
    __shared__ double shx[32];
    __shared__ double shq[32];
    double acc = 0.0, accx = 0.0, accq = 0.0;
    ECU_ROWS_BEGIN(L.n[0], L.n[1])
        int e = cell_at(L, i, j, k);
        const float xe = x[e];
        const float de = diag_at(L, i, j, k, e);
        const float v = residual_at(L, x, b, e, de);
        if (r) r[e] = v; /* null: the end's residual, not stored (cuda_notes 129) */
        acc += de > 0.0f ? (double)v : 0.0;
        accx += de > 0.0f ? (double)xe : 0.0;
        accq += (double)v * (double)v; /* v = 0 where not solved */
    ECU_ROWS_END
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
    if (xpartials) {
        accx = block_reduce<RED_SUM>(accx, shx);
        if (ECU_THREAD0()) xpartials[ECU_BLOCK_ID()] = accx;
    }
    if (sqpartials) {
        accq = block_reduce<RED_SUM>(accq, shq);
        if (ECU_THREAD0()) sqpartials[ECU_BLOCK_ID()] = accq;
    }
}
/* |r - m|^2 = |r|^2 - cells m^2 over the component's cells, m = sum r / cells (cuda_notes 191): the end's
 * mean-free residual norm from k_residual_m_sum's sums, without a second pass over x and b */
__global__ void k_rr_mean_free(Readback *rb, int sum_slot, int sq_slot, double cells) {
    const double m = rb->red[sum_slot] / cells, rr = rb->red[sq_slot] - cells * m * m;
    rb->red[sq_slot] = rr > 0.0 ? rr : 0.0;
}
__global__ void k_sub_mean(LevA L, float *v, const Readback *rb, int slot, double cells) {
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    const float mean = (float)(rb->red[slot] / cells);
    int e = cell_at(L, i, j, k);
    if (L.diag[e] > 0.0f) v[e] = v[e] - mean;
}
/* k_sub_mean over k_dot's launch (ECU_ROWS rows per thread) with k_dot's partials of v.v after the subtraction: the
 * same bits as k_sub_mean then k_dot, one pass fewer (cuda_notes 28) */
__global__ void k_sub_mean_dot(LevA L, float *v, const Readback *rb, int slot, double cells, double *partials,
                               float *__restrict__ copy) {
    __shared__ double sh[32];
    const float mean = (float)(rb->red[slot] / cells);
    double acc = 0.0;
    ECU_ROWS_BEGIN(L.n[0], L.n[1])
        const int e = cell_at(L, i, j, k);
        float val = v[e];
        if (in_ubox(L, i, j, k, 0) || L.diag[e] > 0.0f) { /* the box's diag is > 0 (cuda_notes 122) */
            val = val - mean;
            v[e] = val;
        }
        if (copy) copy[e] = val;
        acc += (double)val * (double)val;
    ECU_ROWS_END
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
}
/* k_sub_mean on the solution with k_write_pressure's output (p = scale x, the same bits; one pass fewer) */
__global__ void k_sub_mean_pressure(Geo g, LevA L, float *v, const Readback *rb, int slot, double cells,
                                    float *__restrict__ p, float scale, Flags fl) {
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    const float mean = (float)(rb->red[slot] / cells);
    const int e = cell_at(L, i, j, k);
    float val = v[e];
    if (L.diag[e] > 0.0f) {
        val = val - mean;
        v[e] = val;
    }
    const float pv = scale * val;
    p[idx3(g.n, i, j, k)] = pv;
    flag_if_bad(fl, pv, EDDY_FIELD_PRESSURE);
}
/* several components: sums of 8 labels [base, base+8) per pass */
__global__ void k_label_sums(LevA L, const int *__restrict__ label, const float *__restrict__ v, int base, double *partials,
                             size_t stride) {
    __shared__ double sh[32];
    ECU_IJK(L.n[0], L.n[1]);
    int lab = -1;
    double val = 0.0;
    if (inside_) {
        int e = cell_at(L, i, j, k);
        lab = label[e] - base;
        val = (double)v[e];
    }
    for (int s = 0; s < 8; s++) {
        double acc = block_reduce<RED_SUM>(lab == s ? val : 0.0, sh);
        if (ECU_THREAD0()) partials[s * stride + ECU_BLOCK_ID()] = acc;
    }
}
__global__ void k_label_finalize(const double *partials, size_t stride, size_t nblocks, int base, int count, CompD C) {
    int s = (int)blockIdx.x;
    if (base + s >= count) return;
    double v = sum_partials(partials + s * stride, nblocks);
    if (threadIdx.x == 0) C.sum[base + s] = v / C.cells[base + s];
}
__global__ void k_label_sub(LevA L, const int *__restrict__ label, float *v, CompD C) {
    ECU_IJK(L.n[0], L.n[1]);
    if (!inside_) return;
    int e = cell_at(L, i, j, k);
    int lab = label[e];
    if (lab >= 0) v[e] = (float)((double)v[e] - C.sum[lab]);
}

/* ------------------------------------------------------------------ projection kernels (project.c) */
/* b = -(net outflow) of cell (i, j, k) where it is a fluid cell (diag > 0), else 0 */
__device__ inline float cell_rhs(const Geo &g, const LevA &L, const Vel &v, int i, int j, int k) {
    int fu[3], fv[3];
    face_dims(g, 0, fu);
    face_dims(g, 1, fv);
    float flux = (v.c[0][idx3(fu, i + 1, j, k)] - v.c[0][idx3(fu, i, j, k)]) + (v.c[1][idx3(fv, i, j + 1, k)] - v.c[1][idx3(fv, i, j, k)]);
    if (g.dim == 3) {
        int fw[3];
        face_dims(g, 2, fw);
        flux = flux + (v.c[2][idx3(fw, i, j, k + 1)] - v.c[2][idx3(fw, i, j, k)]);
    }
    return in_ubox(L, i, j, k, 0) || L.diag[cell_at(L, i, j, k)] > 0.0f ? -flux : 0.0f; /* cuda_notes 122 */
}

__global__ void k_rhs(Geo g, LevA L, Vel v, float *__restrict__ b) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    b[cell_at(L, i, j, k)] = cell_rhs(g, L, v, i, j, k);
}

/* k_rhs with k_masked_sum's partials of b (the same bits, one pass fewer) */
__global__ void k_rhs_sum(Geo g, LevA L, Vel v, float *__restrict__ b, double *partials) {
    __shared__ double sh[32];
    double acc = 0.0;
    ECU_ROWS_BEGIN(L.n[0], L.n[1])
        int e = cell_at(L, i, j, k);
        float bv = cell_rhs(g, L, v, i, j, k);
        b[e] = bv;
        acc += L.diag[e] > 0.0f ? (double)bv : 0.0;
    ECU_ROWS_END
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[ECU_BLOCK_ID()] = acc;
}

/* u_a -= x_hi - x_lo on open faces (project.c correct_velocity) */
__global__ void k_correct(Geo g, LevA L, int a, int out_lo, int out_hi, float *__restrict__ u, const float *__restrict__ x,
                          Flags fl) {
    int fn[3];
    face_dims(g, a, fn);
    ECU_IJK(fn[0], fn[1]);
    if (!inside_) return;
    int c[3] = {i, j, k};
    const int f = c[a], na = g.n[a];
    const bool per = g.periodic[a];
    const int stride = a == 0 ? 1 : (a == 1 ? L.sy : L.sz);
    if (per && f == na) return; /* written with face 0 */
    int hc[3] = {i, j, k};
    /* the cell above the face (layer f; for f = na the ghost) */
    int eh = cell_at(L, hc[0], hc[1], hc[2]), el = eh - stride;
    const float *d = L.diag;
    size_t q = idx3(fn, i, j, k);
    float val = u[q];
    bool wrote = false;
    if (f > 0 && f < na) {
        float gr = x[eh] - x[el];
        val = val - ((d[eh] > 0.0f && d[el] > 0.0f) ? gr : 0.0f);
        wrote = true;
    } else if (per) { /* f == 0: the cell below is the ghost copy of layer na-1 */
        float gr = x[eh] - x[el];
        val = val - ((d[eh] > 0.0f && d[el] > 0.0f) ? gr : 0.0f);
        int tc[3] = {i, j, k};
        tc[a] = na;
        u[idx3(fn, tc[0], tc[1], tc[2])] = val;
        wrote = true;
    } else if (f == 0 && out_lo) {
        if (a == 0) { if (d[eh] > 0.0f) { val = val - x[eh]; wrote = true; } }
        else { val = val - (d[eh] > 0.0f ? x[eh] : 0.0f); wrote = true; }
    } else if (f == na && out_hi) {
        if (a == 0) { if (d[el] > 0.0f) { val = val + x[el]; wrote = true; } }
        else { val = val + (d[el] > 0.0f ? x[el] : 0.0f); wrote = true; }
    }
    if (wrote) {
        u[q] = val;
        flag_if_bad(fl, val, EDDY_FIELD_U + a);
    }
}

/* the end of run_project's refinement loop (project.c): the solve stands when only the recurrence had not converged,
 * the true residual meets the tolerance, the refinements or iterations are spent, or the last refinement did not
 * reduce |r|^2 by 4x. Evaluated by k_pressure_correct from the readback (the host's double operations, the same bits), so
 * the projection's end is queued before the host has read the residual (cuda_notes 97). */
#define R_SOLVE_DONE (R_SCRATCH0 + 5)
struct SolveEnd {
    double tol, last;
    int max_it, last_refinement;
};
__host__ __device__ inline bool solve_done(const double *rb, const SolveEnd &se) {
    const double rr = rb[R_CG_RNORM2], bnorm = sqrt(rb[R_CG_BNORM2]);
    const bool converged = rb[R_CG_RES0] != 0.0;
    const int it = (int)rb[R_CG_ITER];
    return !converged || sqrt(rr) <= se.tol * bnorm || se.last_refinement || it >= se.max_it || rr > 0.25 * se.last;
}

/* one face of axis a at layer f between cells el (below) and eh (above), solved as sl and sh: k_correct's operations
 * (without its periodic branch) on x - mean, the mean subtracted where a cell is solved, as each reader computes it */
__device__ inline void correct_face_mean(float *w, size_t q, int a, int f, int na, const float *__restrict__ x, int eh,
                                         int el, bool sh, bool sl, float mean, int out_lo, int out_hi, Flags fl) {
    float val = w[q];
    bool wrote = false;
    if (f > 0 && f < na) {
        float gr = (sh ? x[eh] - mean : x[eh]) - (sl ? x[el] - mean : x[el]);
        val = val - ((sh && sl) ? gr : 0.0f);
        wrote = true;
    } else if (f == 0 && out_lo) {
        const float xh = sh ? x[eh] - mean : x[eh];
        if (a == 0) { if (sh) { val = val - xh; wrote = true; } }
        else { val = val - (sh ? xh : 0.0f); wrote = true; }
    } else if (f == na && out_hi) {
        const float xl = sl ? x[el] - mean : x[el];
        if (a == 0) { if (sl) { val = val + xl; wrote = true; } }
        else { val = val + (sl ? xl : 0.0f); wrote = true; }
    }
    if (wrote) {
        w[q] = val;
        flag_if_bad(fl, val, EDDY_FIELD_U + a);
    }
}

/* The end of an MGPCG projection without periodic axes, one component holding every solved cell (cuda_notes 81 in
 * 2D, 190 in 3D): k_sub_mean_pressure's x - mean (not written back: nothing reads x after the step; the warm start
 * reads the pressure) and the pressure, and every k_correct pass, in one launch over (n0 + 1) x (n1 + 1) (x (n2 + 1))
 * positions: cell (i, j, k) and the u, v (and w) faces (i, j, k); the x - mean of a face's two cells is computed by
 * each reader (the same float operation). It replaces k_masked_sum, k_sub_mean_pressure and one k_correct per
 * component, and decides the solve's end from the readback itself (a refinement follows when it is not: the host
 * reads that decision). add: a refinement's x, whose pressure adds to the one written before. */
__global__ void k_pressure_correct(Geo g, LevA L, const float *__restrict__ x, Readback *rb, int slot, double cells,
                                    float *__restrict__ p, float scale, int add, float *__restrict__ u,
                                    float *__restrict__ v, float *__restrict__ w, int3 out_lo, int3 out_hi, Flags fl,
                                    SolveEnd se) {
    const int i = (int)(blockIdx.x * BX + threadIdx.x), j = (int)(blockIdx.y * BY + threadIdx.y), k = (int)blockIdx.z;
    const int n0 = g.n[0], n1 = g.n[1], n2 = g.n[2];
    if (i == 0 && j == 0 && k == 0) rb->red[R_SOLVE_DONE] = solve_done(rb->red, se) ? 1.0 : 0.0;
    if (i > n0 || j > n1) return;
    const float mean = (float)(rb->red[slot] / cells);
    const float *d = L.diag;
    auto solved = [&](int e, int ci, int cj, int ck) { return in_ubox(L, ci, cj, ck, 0) || d[e] > 0.0f; };
    const int e = cell_at(L, i, j, k);
    if (i < n0 && j < n1 && k < n2) { /* n2 = 1 in 2D */
        const size_t c = idx3(g.n, i, j, k);
        float pv = scale * (solved(e, i, j, k) ? x[e] - mean : x[e]);
        if (add) pv = p[c] + pv;
        p[c] = pv;
        flag_if_bad(fl, pv, EDDY_FIELD_PRESSURE);
    }
    auto face = [&](float *wf, size_t q, int a, int f, int na, int stride, int olo, int ohi) {
        const int li = a == 0 ? i - 1 : i, lj = a == 1 ? j - 1 : j, lk = a == 2 ? k - 1 : k; /* the cell below */
        correct_face_mean(wf, q, a, f, na, x, e, e - stride, solved(e, i, j, k), solved(e - stride, li, lj, lk), mean,
                          olo, ohi, fl);
    };
    if (j < n1 && k < n2) face(u, (size_t)i + (size_t)(n0 + 1) * (j + (size_t)n1 * k), 0, i, n0, 1, out_lo.x, out_hi.x);
    if (i < n0 && k < n2) face(v, (size_t)i + (size_t)n0 * (j + (size_t)(n1 + 1) * k), 1, j, n1, L.sy, out_lo.y, out_hi.y);
    if (g.dim == 3 && i < n0 && j < n1) face(w, (size_t)i + (size_t)n0 * (j + (size_t)n1 * k), 2, k, n2, L.sz, out_lo.z, out_hi.z);
}

/* add: a refinement's x (project.c) */
__global__ void k_write_pressure(Geo g, LevA L, const float *__restrict__ x, float *__restrict__ p, float scale, int add,
                                 Flags fl) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    const size_t c = idx3(g.n, i, j, k);
    float v = scale * x[cell_at(L, i, j, k)];
    if (add) v = p[c] + v;
    p[c] = v;
    flag_if_bad(fl, v, EDDY_FIELD_PRESSURE);
}

/* ------------------------------------------------------------------ host side */
/* levels with at most this many cells run inside one thread block (k_tail): below it a grid-wide launch costs
 * more than the whole level's work */
#define TAIL_MAX_CELLS 4096
/* 2D: levels of at most 1024 cells (32^2 .. 2^2 at 2048^2) in the block; the 64^2 level grid-wide (cuda_notes 116) */
#define TAIL_MAX_CELLS_2D 1024
#define COOP_TILES 4
#define TAIL_THREADS 1024

static dim3 cells_grid(const LevA &L) { return tiles(L.n[0], L.n[1], L.n[2]); }
static size_t cells_blocks(const LevA &L) { dim3 g = cells_grid(L); return ECU_BLOCKS(g); }
static dim3 half_grid(const LevA &L) { return tiles((L.n[0] + 1) / 2, L.n[1], L.n[2]); }
/* the reduction kernels' launch (ECU_ROWS rows per thread) and its number of partials */
static dim3 red_grid(const LevA &L) { return tiles_rows(L.n[0], L.n[1], L.n[2]); }
static size_t red_blocks(const LevA &L) { dim3 g = red_grid(L); return ECU_BLOCKS(g); }

static void ghosts(cu_sim *c, const LevelD &L, float *v, const int *active) {
    for (int a = 0; a < L.a.dim; a++) {
        if (!L.periodic[a]) continue;
        int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
        dim3 gr((unsigned)((L.a.n[b0] + 127) / 128), (unsigned)L.a.n[b1], 1);
        k_ghosts<<<gr, 128, 0, c->stream>>>(L.a, a, v, active);
    }
}

/* the partials of one reduction (slot R_SCRATCH0 + k) */
static double *part(cu_sim *c, int k) { return c->partials + (size_t)(R_SCRATCH0 + k) * c->partial_stride; }

/* reduces slot R_SCRATCH0 + k over nblocks partials and waits for the value */
static cudaError_t reduce_read(cu_sim *c, int k, size_t nblocks, double *out) {
    const int slots[1] = {R_SCRATCH0 + k}, ops[1] = {RED_SUM};
    cudaError_t e = finalize_reductions(c, slots, ops, 1, nblocks);
    if (e == cudaSuccess) e = cudaMemcpyAsync(&c->h_rb->red[R_SCRATCH0 + k], &c->d_rb->red[R_SCRATCH0 + k], sizeof(double),
                                              cudaMemcpyDeviceToHost, c->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
    *out = c->h_rb->red[R_SCRATCH0 + k];
    return e;
}

/* summed: the single component's partials are already in part(c, 2) (k_rhs_sum, k_residual_m_sum) */
static bool mean_sum_fused(cu_sim *c) { return c->pois->comp0.count && c->pois->comp0.single_all; }
/* dot: also the partials of v.v after the removal (k_dot's launch), single component only (mean_sum_fused);
 * pressure: also p = scale v into the pressure field (k_write_pressure), likewise */
struct PressureOut {
    float scale;
};
/* copy (with dot): the result written there too (MGPCG's starting residual, cuda_notes 98) */
static void remove_mean0(cu_sim *c, float *v, bool summed = false, double *dot = nullptr, const PressureOut *pres = nullptr,
                         float *copy = nullptr) {
    PoissonWS *P = c->pois;
    const CompD &C = P->comp0;
    const LevA &L = P->lv[0].a;
    if (C.count == 0) return;
    dim3 gr = cells_grid(L);
    size_t nb = cells_blocks(L);
    if (C.single_all) {
        if (!summed) k_masked_sum<<<red_grid(L), tile_block(), 0, c->stream>>>(L, v, part(c, 2));
        const int slots[1] = {R_SCRATCH0 + 2}, ops[1] = {RED_SUM};
        finalize_reductions(c, slots, ops, 1, red_blocks(L));
        if (dot) k_sub_mean_dot<<<red_grid(L), tile_block(), 0, c->stream>>>(L, v, c->d_rb, R_SCRATCH0 + 2, P->cells0, dot, copy);
        else if (pres)
            k_sub_mean_pressure<<<gr, tile_block(), 0, c->stream>>>(c->g, L, v, c->d_rb, R_SCRATCH0 + 2, P->cells0, c->pressure,
                                                                    pres->scale, flags_for(c));
        else k_sub_mean<<<gr, tile_block(), 0, c->stream>>>(L, v, c->d_rb, R_SCRATCH0 + 2, P->cells0);
        return;
    }
    for (int base = 0; base < C.count; base += 8) {
        k_label_sums<<<gr, tile_block(), 0, c->stream>>>(L, C.label, v, base, part(c, 3), c->partial_stride);
        k_label_finalize<<<8, 256, 0, c->stream>>>(part(c, 3), c->partial_stride, nb, base, C.count, C);
    }
    k_label_sub<<<gr, tile_block(), 0, c->stream>>>(L, C.label, v, C);
}

/* A full red-black sweep (colour c1, then the other) in one k_sweep_tile pass, levels without periodic axes. Tiles:
 * 2D 64 x 32 and 3D 32 x 8 x 8; levels of at most SMALL_TILE_CELLS cells (512^2, 64^3) 32 x 16 and 32 x 8 x 4, for
 * more blocks in flight on those latency-bound levels (measured on the H100, 10-step medians: 2D 2048^2 project
 * 3.118 -> 2.984 ms, 3D 256^3 9.686 -> 9.618 ms).
 * pro (2D only): the first post-sweep, which adds the coarse correction of level l+1 while staging. Measured on
 * the H100: 2D 2048^2 level 0 65 us against 27 (k_prolong) + 47 (sweep); in 3D the trilinear prolongation of the
 * 2-cell halo (1.9x the tile) made it 582 us against 120 + 261, so 3D keeps the separate k_prolong pass.
 * dot: the blocks' partials of b.xout, one per block of sweep_grid. */
#ifndef SMALL_TILE_CELLS
#define SMALL_TILE_CELLS 262144
#endif
static bool small_tile(const LevA &L) { return (long long)L.n[0] * L.n[1] * L.n[2] <= SMALL_TILE_CELLS; }
/* 2D levels of at most TINY_TILE_CELLS cells (256^2 .. 128^2 at 2048^2): tiles of 32 x 8 (cuda_notes 63: more blocks on
 * these latency-bound levels; measured on the H100, 2D 2048^2 project 1.713 / 1.705 -> 1.689 / 1.689 ms; up to 512^2:
 * 1.701 / 1.706) */
#ifndef TINY_TILE_CELLS
#define TINY_TILE_CELLS 65536
#endif
static bool tiny_tile(const LevA &L) { return L.dim == 2 && (long long)L.n[0] * L.n[1] <= TINY_TILE_CELLS; }
template <int DIM, int TX, int TY, int TZ>
static dim3 tile_grid(const LevA &L) {
    return dim3((unsigned)((L.n[0] + TX - 1) / TX), (unsigned)((L.n[1] + TY - 1) / TY), (unsigned)((L.n[2] + TZ - 1) / TZ));
}
/* zero: 1 the pre-smoothing from zero in one pass (the first sweep computed while staging), 2 the same on level 0
 * of MGPCG with b = r shifted by -*mean and the shifted residual written to rs (see k_sweep_tile) */
template <int DIM, int TX, int TY, int TZ>
static void launch_sweep(cu_sim *c, const LevA &L, const float *x, float *xout, const float *b, int c1, const int *active,
                         const ProlongArgs &pa, bool pro, double *dot, int zero, float *rs, const float *mean, int ns,
                         float *rout) {
    const dim3 gr = tile_grid<DIM, TX, TY, TZ>(L), bl(32, 8);
    cudaStream_t st = c->stream;
    /* (3D: one sweep per pass and no fused residual, full_sweep: those forms are 2D only) */
    if constexpr (DIM == 2) {
    if (ns == 2) {
        if (dot) k_sweep_tile<DIM, TX, TY, TZ, true, true, 0, 2><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
        else k_sweep_tile<DIM, TX, TY, TZ, true, false, 0, 2><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
        return;
    }
    if constexpr (DIM == 2) {
        if (pa.cb) {
            if (zero == 1)
                k_sweep_tile<DIM, TX, TY, TZ, false, false, 1, 1, 2><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
            else if (zero == 2)
                k_sweep_tile<DIM, TX, TY, TZ, false, false, 2, 1, 2><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
            return;
        }
    }
    if (rout) {
        if (DIM == 2 && zero == 1)
            k_sweep_tile<DIM, TX, TY, TZ, false, false, 1, 1, 1><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
        else if (DIM == 2 && zero == 2)
            k_sweep_tile<DIM, TX, TY, TZ, false, false, 2, 1, 1><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
        return;
    }
    }
    if (zero == 1) k_sweep_tile<DIM, TX, TY, TZ, false, false, 1><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
    else if (zero == 2) k_sweep_tile<DIM, TX, TY, TZ, false, false, 2><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
    else if (pro && dot) k_sweep_tile<DIM, TX, TY, TZ, true, true, 0><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
    else if (pro) k_sweep_tile<DIM, TX, TY, TZ, true, false, 0><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
    else if (dot) k_sweep_tile<DIM, TX, TY, TZ, false, true, 0><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
    else k_sweep_tile<DIM, TX, TY, TZ, false, false, 0><<<gr, bl, 0, st>>>(L, x, xout, b, c1, active, pa, dot, rs, mean, rout);
}
static dim3 sweep_grid(const LevA &L) {
    if (tiny_tile(L)) return tile_grid<2, 32, 8, 1>(L);
    if (L.dim == 2) return small_tile(L) ? tile_grid<2, 32, 16, 1>(L) : tile_grid<2, 64, 32, 1>(L);
    return small_tile(L) ? tile_grid<3, 32, 8, 4>(L) : tile_grid<3, 32, 8, 8>(L);
}
/* LevA::uni of 2D level l for the tiles of sweep_grid (cuda_notes 76), after the operator is sent */
static void uni_tiles(cu_sim *c, const LevelD &D) {
    const LevA &L = D.a;
    if (!D.uni || L.dim != 2) return;
    const dim3 gr = sweep_grid(L), bl(32, 8);
    const float mode = 2.0f; /* the staged form (k_sweep_tile's UNI == 2) */
    if (tiny_tile(L)) k_uni_tiles<32, 8><<<gr, bl, 0, c->stream>>>(L, D.diag, D.inv_diag, D.inv_weight, D.uni, mode);
    else if (small_tile(L)) k_uni_tiles<32, 16><<<gr, bl, 0, c->stream>>>(L, D.diag, D.inv_diag, D.inv_weight, D.uni, mode);
    else k_uni_tiles<64, 32><<<gr, bl, 0, c->stream>>>(L, D.diag, D.inv_diag, D.inv_weight, D.uni, mode);
}
static void full_sweep(cu_sim *c, const LevA &L, const float *x, float *xout, const float *b, int c1, const int *active,
                       const ProlongArgs *pro = nullptr, double *dot = nullptr, int zero = 0, float *rs = nullptr,
                       const float *mean = nullptr, int ns = 1, float *rout = nullptr, const ProlongArgs *rst = nullptr) {
    ProlongArgs pa = {};
    if (pro) pa = *pro;
    if (rst) pa = *rst;
    const bool sm = small_tile(L), p = pro != nullptr && L.dim == 2;
    if (tiny_tile(L)) launch_sweep<2, 32, 8, 1>(c, L, x, xout, b, c1, active, pa, p, dot, zero, rs, mean, ns, rout);
    else if (L.dim == 2 && sm) launch_sweep<2, 32, 16, 1>(c, L, x, xout, b, c1, active, pa, p, dot, zero, rs, mean, ns, rout);
    else if (L.dim == 2) launch_sweep<2, 64, 32, 1>(c, L, x, xout, b, c1, active, pa, p, dot, zero, rs, mean, ns, rout);
    else if (sm) launch_sweep<3, 32, 8, 4>(c, L, x, xout, b, c1, active, pa, false, dot, zero, rs, mean, 1, nullptr);
    else launch_sweep<3, 32, 8, 8>(c, L, x, xout, b, c1, active, pa, false, dot, zero, rs, mean, 1, nullptr);
}

/* level 0 runs grid-wide kernels without periodic axes: its first sweep is k_first_sweep and its post-sweeps are
 * tiles, which the two fusions below need */
static bool level0_plain(cu_sim *c) {
    const PoissonWS *P = c->pois;
    const LevelD &L = P->lv[0];
    return P->tail_first > 0 && !L.periodic[0] && !L.periodic[1] && !L.periodic[2];
}
/* the residual's mean removed by level 0's first sweep instead of a k_res_shift pass (one component holding every
 * solved cell) */
static bool defer_shift(cu_sim *c) { return level0_plain(c) && mean_sum_fused(c); }
/* r.z from the partials of level 0's last post-sweep instead of a k_dot pass */
static bool fused_rz(cu_sim *c) { return level0_plain(c); }
/* the residual the conjugate gradient reads: the shifted copy when the shift is deferred */
static float *cg_r(cu_sim *c) { return defer_shift(c) ? c->pois->rs : c->pois->res; }
static size_t rz_blocks(cu_sim *c) {
    const LevA &L = c->pois->lv[0].a;
    if (fused_rz(c)) { dim3 g = sweep_grid(L); return ECU_BLOCKS(g); }
    return red_blocks(L);
}
/* r.z of the V-cycle's z, into part(c, 0) (rz_blocks partials) */
static void rz_partials(cu_sim *c, const int *active) {
    PoissonWS *P = c->pois;
    const LevA &L = P->lv[0].a;
    if (!fused_rz(c)) k_dot<<<red_grid(L), tile_block(), 0, c->stream>>>(L, cg_r(c), P->z, part(c, 0), active);
}

/* the first two pre-sweeps of a level in one k_sweep_tile pass (zero = 1 or 2) instead of k_first_sweep and a tile
 * (cuda_notes 36). Measured on the H100 (2D 2048^2 / 3D 256^3 project, 20-step medians): 2D all levels 2.357 ->
 * 2.236 ms (coarse levels only: 2.310); 3D slower then (9.65 -> 9.88 ms with level 0, 9.69 without: the staged
 * first sweep gathered 7 b and inv_diag pairs per black cell of a 2.5x halo). With the uniform box and the 3D INNER
 * loops (cuda_notes 82-83, 87) 3D level 0 gains (project 8.61 -> 8.48 ms; every 3D level: 8.54), so every 2D level
 * and 3D level 0. */
static int pre_fused(const cu_sim *c, int l) {
    const LevA &L = c->pois->lv[l].a;
    return EDDY_MG_SWEEPS(L.dim, l) >= 2 && (L.dim == 2 || l == 0);
}

/* the 2D passes below are built for exactly two sweeps on every level */
static constexpr bool two_sweeps_2d = EDDY_MG_SWEEPS(2, 0) == 2 && EDDY_MG_SWEEPS(2, 1) == 2;

/* the residual of a 2D level computed by its pre-smoothing pass (k_sweep_tile with RES, halo 3) instead of a
 * k_residual_w pass (cuda_notes 47); levels without periodic axes */
static bool res_fused(const LevA &L) { return L.dim == 2 && two_sweeps_2d; }

/* ... and restricted by it into the coarse b (k_sweep_tile with RES == 2, halo 5) instead of a k_restrict pass
 * (cuda_notes 49): 2D levels without periodic axes whose two axes are both coarsened */
static bool rst_fused(const LevelD &L) {
    return res_fused(L.a) && L.ax[0].coarsened && L.ax[1].coarsened && !L.periodic[0] && !L.periodic[1];
}

/* both post-sweeps of a 2D level in one k_sweep_tile pass (NS = 2, halo 4; the prolongation added while staging)
 * instead of two (cuda_notes 38). Measured on the H100 (project, 20-step medians): 2D 2048^2 2.235 -> 2.078 ms
 * (levels below 0 only: 2.168), 4096^2 8.09 -> 7.51 ms. 3D keeps its separate k_prolong and two passes (the 3D
 * halo of one pass already costs more than its saved bytes, notes 10, 36). */
static bool post_one_pass(const LevA &L) { return L.dim == 2 && two_sweeps_2d; }

/* the 3D prolongation by coarse cells (k_prolong8, cuda_notes 84): levels of at least c->prolong8_cells cells
 * (PROLONG8_CELLS unless a test lowers it) with every axis coarsened. Measured on the H100 (3D 256^3 project, 20-step medians): level 0 only 8.45 -> 8.37 ms (ncu: 137 ->
 * 113 us per V-cycle); on the 128^3 .. 32^3 levels too it lost (19 -> 25 us, 4-5 -> 10 us: 48 registers, 5 blocks per
 * SM, and 8x fewer threads on latency-bound levels) */
static bool prolong8(const cu_sim *c, const LevelD &L) {
    return L.a.dim == 3 && L.ax[0].coarsened && L.ax[1].coarsened && L.ax[2].coarsened &&
           (long long)L.a.n[0] * L.a.n[1] * L.a.n[2] >= c->prolong8_cells;
}
/* the 3D restriction with four threads per coarse cell (k_restrict4, cuda_notes 86) into coarse levels of at most
 * RESTRICT4_CELLS cells (64^3): measured on the H100, 3D 256^3 project 8.34 -> 8.30 ms; on every level 8.48 ms */
#define RESTRICT4_CELLS 262144
static bool restrict4(const LevelD &C) { return C.a.dim == 3 && (long long)C.a.n[0] * C.a.n[1] * C.a.n[2] <= RESTRICT4_CELLS; }

/* the 3D residual by columns of RESIDUAL_KZ cells (k_residual_wz, cuda_notes 176) on levels of at least
 * c->prolong8_cells cells */
#define RESIDUAL_KZ 4
static bool residual_z(const cu_sim *c, const LevelD &L) {
    return L.a.dim == 3 && (long long)L.a.n[0] * L.a.n[1] * L.a.n[2] >= c->prolong8_cells;
}

/* out = M^-1 in: one V-cycle (poisson_mg.c eddy__poisson_vcycle); levels from tail_first on run in one block */
static void vcycle(cu_sim *c, float *in, float *out, const int *active) {
    PoissonWS *P = c->pois;
    const int nl = P->nlevels, tf = P->tail_first;
    P->lv[0].b = in;
    P->lv[0].x = out;
    const dim3 bl = tile_block();
    for (int l = 0; l < tf; l++) {
        LevelD &L = P->lv[l];
        dim3 gr = cells_grid(L.a);
        const bool any_periodic = L.periodic[0] || L.periodic[1] || L.periodic[2];
        const int sweeps = EDDY_MG_SWEEPS(L.a.dim, l);
        if (!any_periodic) {
            /* ping-pong between x and xa: 1 + (S - 1) pre and S post sweeps end in x */
            float *buf[2] = {L.x, L.xa};
            /* the first sweep writes where 2S - 1 flips end in x; where the post-sweeps are one pass (one flip), where
             * 2S - 2 flips do */
            const bool one_post = post_one_pass(L.a);
            int cur = one_post ? 0 : 1; /* 2S - 1 is odd */
            int s = 1;
            const int zero = pre_fused(c, l);
            /* the residual computed by the pre-smoothing pass when that is the last pre-sweep, and restricted by it
             * where both axes are coarsened */
            float *rout = res_fused(L.a) ? L.r : nullptr;
            const bool rr = rst_fused(L);
            ProlongArgs ra = {};
            if (rr) ra = ProlongArgs{P->lv[l + 1].a, L.ax[0], L.ax[1], L.ax[2], nullptr, P->lv[l + 1].b};
            if (zero && l == 0 && defer_shift(c)) {
                /* the first and second sweeps in one pass, reading r and writing the shifted residual rs */
                full_sweep(c, L.a, buf[cur], buf[cur ^ 1], L.b, 0, &P->d_cg->active, nullptr, nullptr, 2, P->rs,
                           &P->d_cg->mean, 1, rout, rr ? &ra : nullptr);
                L.b = P->rs;
                s++, cur ^= 1;
            } else if (zero) {
                full_sweep(c, L.a, buf[cur], buf[cur ^ 1], L.b, 0, active, nullptr, nullptr, 1, nullptr, nullptr, 1, rout,
                           rr ? &ra : nullptr);
                s++, cur ^= 1;
            } else if (l == 0 && defer_shift(c)) {
                k_first_sweep_shift<<<gr, bl, 0, c->stream>>>(L.a, buf[cur], L.b, P->rs, P->d_cg);
                L.b = P->rs;
            } else {
                k_first_sweep<<<gr, bl, 0, c->stream>>>(L.a, buf[cur], L.b, active);
            }
            for (; s < sweeps; s++, cur ^= 1) full_sweep(c, L.a, buf[cur], buf[cur ^ 1], L.b, 0, active);
            /* cur now names the buffer holding x: the residual, and the post sweeps, start there */
            L.cur = cur;
        }
        for (int s = 0; s < sweeps && any_periodic; s++) {
            if (s > 0) ghosts(c, L, L.x, active);
            k_half_sweep<<<s == 0 ? gr : half_grid(L.a), bl, 0, c->stream>>>(L.a, L.x, L.b, 0, 1.0f, s == 0, active);
            ghosts(c, L, L.x, active);
            k_half_sweep<<<half_grid(L.a), bl, 0, c->stream>>>(L.a, L.x, L.b, 1, 1.0f, 0, active);
        }
        float *xnow = any_periodic ? L.x : (L.cur ? L.xa : L.x);
        if (any_periodic || !res_fused(L.a)) {
            ghosts(c, L, xnow, active);
            if (residual_z(c, L)) {
                const dim3 zg(gr.x, gr.y, (unsigned)((L.a.n[2] + RESIDUAL_KZ - 1) / RESIDUAL_KZ));
                k_residual_wz<RESIDUAL_KZ><<<zg, bl, 0, c->stream>>>(L.a, xnow, L.b, L.r, active);
            } else {
                k_residual_w<<<gr, bl, 0, c->stream>>>(L.a, xnow, L.b, L.r, active);
            }
        }
        LevelD &C = P->lv[l + 1];
        if (restrict4(C)) {
            const dim3 rg((unsigned)((C.a.n[0] + BX - 1) / BX), (unsigned)((C.a.n[1] + BY / 4 - 1) / (BY / 4)), (unsigned)C.a.n[2]);
            k_restrict4<<<rg, bl, 0, c->stream>>>(L.a, C.a, L.ax[0], L.ax[1], L.ax[2], L.r, C.b, active);
        } else if (any_periodic || !rst_fused(L)) {
            k_restrict<<<cells_grid(C.a), bl, 0, c->stream>>>(L.a, C.a, L.ax[0], L.ax[1], L.ax[2], L.r, C.b, active);
        }
    }
    {
        /* programmatic serialisation after a sweep tile (cuda_notes 78): the image staging overlaps that pass */
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(1);
        cfg.blockDim = dim3(TAIL_THREADS);
        cfg.dynamicSmemBytes = P->tail_smem;
        cfg.stream = c->stream;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        cfg.attrs = at;
        cfg.numAttrs = tf > 0 ? 1 : 0;
        cudaLaunchKernelEx(&cfg, k_tail, (const TailLevel *)P->d_tail, tf, nl, nl > 1 ? P->compc : P->comp0,
                           (int)EDDY_MG_COARSEST_SWEEPS, active, (const float4 *)P->tail_image, (int)(P->tail_vec / 4),
                           (int)((P->tail_smem / 4 - P->tail_vec) / 4), (const float *)(tf ? P->lv[tf].b : P->res),
                           tf ? P->lv[tf].x : P->z);
    }
    for (int l = tf - 1; l >= 0; l--) {
        LevelD &L = P->lv[l];
        LevelD &C = P->lv[l + 1];
        dim3 gr = cells_grid(L.a);
        const bool any_periodic = L.periodic[0] || L.periodic[1] || L.periodic[2];
        const int sweeps = EDDY_MG_SWEEPS(L.a.dim, l);
        if (!any_periodic) {
            float *buf[2] = {L.x, L.xa};
            int cur = L.cur;
            /* 2D: the prolongation is added by the first post-sweep as it stages x (no k_prolong pass) */
            const ProlongArgs pa = {C.a, L.ax[0], L.ax[1], L.ax[2], C.x, nullptr};
            const bool fuse = L.a.dim == 2;
            if (!fuse && prolong8(c, L))
                k_prolong8<<<cells_grid(C.a), bl, 0, c->stream>>>(L.a, C.a, L.ax[0], L.ax[1], L.ax[2], C.x, buf[cur], 1, active);
            else if (!fuse)
                k_prolong<<<gr, bl, 0, c->stream>>>(L.a, C.a, L.ax[0], L.ax[1], L.ax[2], C.x, buf[cur], 1, active);
            if (post_one_pass(L.a)) {
                /* both post-sweeps in one pass (the prolongation added while staging): x is in xa (cur == 1, see the
                 * pre-smoothing), the result goes to x */
                full_sweep(c, L.a, buf[cur], buf[cur ^ 1], L.b, 1, active, &pa,
                           l == 0 && fused_rz(c) ? part(c, 0) : nullptr, 0, nullptr, nullptr, 2);
                continue;
            }
            for (int s = 0; s < sweeps; s++, cur ^= 1)
                full_sweep(c, L.a, buf[cur], buf[cur ^ 1], L.b, 1, active, s == 0 && fuse ? &pa : nullptr,
                           l == 0 && s == sweeps - 1 && fused_rz(c) ? part(c, 0) : nullptr);
            continue; /* cur == 0: the result is in x */
        }
        k_prolong<<<gr, bl, 0, c->stream>>>(L.a, C.a, L.ax[0], L.ax[1], L.ax[2], C.x, L.x, 1, active);
        for (int s = 0; s < sweeps; s++) {
            ghosts(c, L, L.x, active);
            k_half_sweep<<<half_grid(L.a), bl, 0, c->stream>>>(L.a, L.x, L.b, 1, 1.0f, 0, active);
            ghosts(c, L, L.x, active);
            k_half_sweep<<<half_grid(L.a), bl, 0, c->stream>>>(L.a, L.x, L.b, 0, 1.0f, 0, active);
        }
    }
}

static cudaError_t dot0(cu_sim *c, const float *a, const float *b, double *out) {
    const LevA &L = c->pois->lv[0].a;
    k_dot<<<red_grid(L), tile_block(), 0, c->stream>>>(L, a, b, part(c, 0), nullptr);
    return reduce_read(c, 0, red_blocks(L), out);
}

/* MGPCG (poisson_mg.c eddy__poisson_mgpcg) with every scalar on the device. The loop is rotated so that an
 * iteration ends with the convergence test: the iteration that converges then queues no V-cycle whose kernels
 * would all return at once (about 40 empty launches at 2048^2).
 * The second half of an iteration: q = A p, alpha, x += alpha p, r -= alpha q, the test */
/* the first iteration's shortcuts (CG_X_ZERO, CG_P_FROM_Z) apply: the cooperative update on a level 0 without
 * periodic axes */
static bool cg_first_fused(cu_sim *c) {
    PoissonWS *P = c->pois;
    const LevelD &L0 = P->lv[0];
    return P->coop_blocks && P->comp0.count && P->comp0.single_all && !L0.periodic[0] && !L0.periodic[1] &&
           !L0.periodic[2];
}

/* the CG update computes q = A p where it reads it (k_cg_update_ap, cuda_notes 174): 3D levels (2D runs the
 * cooperative k_cg_apply_update, which keeps q in shared memory). Measured on the H100 (3D 256^3, ncu per
 * iteration): k_apply 80 -> 58 us, the update 161 -> 161 us; project 7.99 -> 7.82 ms with 175 */
static bool q_where_read(const LevA &L) {
    return L.dim == 3;
}

/* ... and its first iteration after a (re)start reads z as p and stores p as it passes (CG_P_FROM_Z) instead of
 * copying z into p (cuda_notes 175): level 0 without periodic axes (p's ghosts are not filled then) */
static bool p_from_z(cu_sim *c) {
    const LevelD &L0 = c->pois->lv[0];
    return q_where_read(L0.a) && !L0.periodic[0] && !L0.periodic[1] && !L0.periodic[2];
}

static void cg_update_check(cu_sim *c, int first = 0) {
    PoissonWS *P = c->pois;
    LevelD &L0 = P->lv[0];
    const LevA &L = L0.a;
    dim3 gr = cells_grid(L), bl = tile_block();
    size_t nb = red_blocks(L);
    const int *active = &P->d_cg->active;
    ghosts(c, L0, P->p, active);
    const CompD &C0c = P->comp0;
    if (P->coop_blocks && C0c.count && C0c.single_all) {
        const dim3 rg = red_grid(L);
        LevA La = L;
        CGState *cgp = P->d_cg;
        float *xs_ = P->sol, *rs_ = P->res, *ps_ = first & CG_P_FROM_Z ? P->z : P->p, *po_ = P->p;
        const float *rin = cg_r(c);
        double *pq = part(c, 0), *rr = part(c, 1), *ms = part(c, 4);
        Readback *rbp = c->d_rb;
        int ntx = (int)rg.x, nty = (int)rg.y, ntiles = (int)ECU_BLOCKS(rg), T = P->coop_tiles;
        void *args[] = {&La, &cgp, &xs_, &rs_, &rin, &ps_, &pq, &rr, &ms, &rbp, &ntx, &nty, &ntiles, &T, &po_};
        const void *kern = first == (CG_X_ZERO | CG_P_FROM_Z) ? (const void *)k_cg_apply_update<CG_X_ZERO | CG_P_FROM_Z>
                           : first == CG_P_FROM_Z         ? (const void *)k_cg_apply_update<CG_P_FROM_Z>
                                                          : (const void *)k_cg_apply_update<0>;
        cudaLaunchCooperativeKernel(kern, dim3((unsigned)P->coop_blocks), bl, args,
                                    (size_t)T * ECU_ROWS * 256 * sizeof(float), c->stream);
        k_cg_check<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 1), part(c, 4), (size_t)P->coop_blocks, P->cells0, c->d_rb);
        if (!defer_shift(c)) k_res_shift<<<gr, bl, 0, c->stream>>>(L, P->d_cg, P->res);
        return;
    }
    const bool qa = q_where_read(L);
    const float *pin = first & CG_P_FROM_Z ? P->z : P->p; /* the first iteration's p is z (p_from_z) */
    k_apply<<<red_grid(L), bl, 0, c->stream>>>(L, pin, qa ? nullptr : P->q, part(c, 0), active);
    k_cg_alpha<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 0), nb, c->d_rb);
    const CompD &C0 = P->comp0;
    double *msum = C0.count && C0.single_all ? part(c, 4) : nullptr;
    if (qa) {
        auto *kern = first & CG_X_ZERO     ? k_cg_update_ap<CG_X_ZERO | CG_P_FROM_Z>
                     : first & CG_P_FROM_Z ? k_cg_update_ap<CG_P_FROM_Z>
                                           : k_cg_update_ap<0>;
        kern<<<red_grid(L), bl, 0, c->stream>>>(L, P->d_cg, P->sol, P->res, cg_r(c), pin, part(c, 1), msum,
                                                first & CG_P_FROM_Z ? P->p : nullptr);
    } else {
        k_cg_update<<<red_grid(L), bl, 0, c->stream>>>(L, P->d_cg, P->sol, P->res, cg_r(c), P->p, P->q, part(c, 1), msum);
    }
    if (C0.count && C0.single_all) {
        k_cg_check<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 1), part(c, 4), nb, P->cells0, c->d_rb);
        /* the mean is removed by the next V-cycle's first sweep when the shift is deferred */
        if (!defer_shift(c)) k_res_shift<<<gr, bl, 0, c->stream>>>(L, P->d_cg, P->res);
    } else if (C0.count) {
        /* several components: their means removed, then |r|^2 again */
        remove_mean0(c, P->res);
        k_dot<<<red_grid(L), bl, 0, c->stream>>>(L, P->res, P->res, part(c, 1), active);
        k_cg_check<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 1), nullptr, nb, 1.0, c->d_rb);
    } else {
        k_cg_check<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 1), nullptr, nb, 1.0, c->d_rb);
    }
}

/* the first iteration after a (re)start: the direction is the preconditioned residual */
/* x_zero: x0 = 0 is still to be written (mgpcg_start leaves it to the update where cg_first_fused or p_from_z) */
static void cg_first_iteration(cu_sim *c, bool x_zero = false) {
    PoissonWS *P = c->pois;
    const int *active = &P->d_cg->active;
    vcycle(c, P->res, P->z, active);
    rz_partials(c, active);
    k_cg_rz<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 0), rz_blocks(c));
    if (cg_first_fused(c)) {
        cg_update_check(c, CG_P_FROM_Z | (x_zero ? CG_X_ZERO : 0));
        return;
    }
    if (p_from_z(c)) {
        cg_update_check(c, CG_P_FROM_Z | (x_zero ? CG_X_ZERO : 0));
        return;
    }
    cudaMemcpyAsync(P->p, P->z, P->lv[0].count * sizeof(float), cudaMemcpyDeviceToDevice, c->stream);
    cg_update_check(c);
}

/* b = -(net outward flux) of the velocity (project.c compute_rhs), mean-free; when the mean removal is fused
 * (mean_sum_fused) it also leaves |b|^2's partials in part(c, 0) for k_cg_start and, with to_res, writes r = b */
static void queue_rhs(cu_sim *c, bool to_res) {
    PoissonWS *P = c->pois;
    const LevA &L = P->lv[0].a;
    const Geo &g = c->g;
    const bool fused = mean_sum_fused(c);
    if (fused) k_rhs_sum<<<red_grid(L), tile_block(), 0, c->stream>>>(g, L, vel_of(c), P->rhs, part(c, 2));
    else k_rhs<<<tiles(g.n[0], g.n[1], g.n[2]), tile_block(), 0, c->stream>>>(g, L, vel_of(c), P->rhs);
    remove_mean0(c, P->rhs, fused, fused ? part(c, 0) : nullptr, nullptr, fused && to_res ? P->res : nullptr);
}

/* a cold start's x0 = 0 and r = b, where nothing fused writes them: x0 the first update where it can (CG_X_ZERO:
 * the cooperative update, 3D's p_from_z), r queue_rhs's mean removal when fused */
static void cold_start(cu_sim *c) {
    PoissonWS *P = c->pois;
    const size_t bytes = P->lv[0].count * sizeof(float);
    if (!cg_first_fused(c) && !p_from_z(c)) cudaMemsetAsync(P->sol, 0, bytes, c->stream);
    if (!mean_sum_fused(c)) cudaMemcpyAsync(P->res, P->rhs, bytes, cudaMemcpyDeviceToDevice, c->stream);
}

/* the start: |b|, x0 (0, or the warm start from the pressure) and its residual, the first iteration */
static void mgpcg_start(cu_sim *c) {
    PoissonWS *P = c->pois;
    LevelD &L0 = P->lv[0];
    const LevA &L = L0.a;
    const eddy_pressure_def *pd = &c->s->def.pressure;
    dim3 bl = tile_block();
    const size_t nb = red_blocks(L);
    /* |b|^2: the partials were written by the mean removal of b in run_project when it was fused */
    if (!mean_sum_fused(c)) k_dot<<<red_grid(L), bl, 0, c->stream>>>(L, P->rhs, P->rhs, part(c, 0), nullptr);
    k_cg_start<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 0), nb, (double)pd->tolerance,
                                          pd->max_iterations > 0 ? pd->max_iterations : MGPCG_DEFAULT_ITERATIONS, c->d_rb);
    if (pd->warm_start) {
        /* r = b - A x0, mean-free (poisson_mg.c true_residual) */
        k_warm<<<tiles(c->g.n[0], c->g.n[1], c->g.n[2]), bl, 0, c->stream>>>(c->g, L, P->d_cg, c->pressure, P->sol);
        ghosts(c, L0, P->sol, nullptr);
        if (mean_sum_fused(c))
            k_residual_m_sum<<<red_grid(L), bl, 0, c->stream>>>(L, P->sol, P->rhs, P->res, part(c, 2), nullptr, nullptr);
        else k_residual_m<<<cells_grid(L), bl, 0, c->stream>>>(L, P->sol, P->rhs, P->res);
        if (mean_sum_fused(c)) {
            remove_mean0(c, P->res, true, part(c, 0));
        } else {
            remove_mean0(c, P->res);
            k_dot<<<red_grid(L), bl, 0, c->stream>>>(L, P->res, P->res, part(c, 0), nullptr);
        }
        k_cg_initial<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 0), nb, c->d_rb);
        k_warm_fallback<<<cells_grid(L), bl, 0, c->stream>>>(L, P->d_cg, P->rhs, P->sol, P->res);
        ghosts(c, L0, P->sol, nullptr);
    } else {
        cold_start(c);
    }
    cg_first_iteration(c, !pd->warm_start);
}

/* ... and one more iteration: kernels after the loop's end return at once */
static void mgpcg_iteration(cu_sim *c) {
    PoissonWS *P = c->pois;
    LevelD &L0 = P->lv[0];
    const LevA &L = L0.a;
    dim3 gr = cells_grid(L), bl = tile_block();
    const int *active = &P->d_cg->active;
    vcycle(c, P->res, P->z, active);
    rz_partials(c, active);
    k_cg_beta<<<1, 1024, 0, c->stream>>>(P->d_cg, part(c, 0), rz_blocks(c));
    k_cg_direction<<<gr, bl, 0, c->stream>>>(L, P->d_cg, P->p, P->z);
    cg_update_check(c);
}

static void destroy_graphs(PoissonWS *P) {
    if (P->g_start) cudaGraphExecDestroy(P->g_start);
    if (P->g_loop) cudaGraphExecDestroy(P->g_loop);
    if (P->gr_start) cudaGraphDestroy(P->gr_start);
    if (P->gr_loop) cudaGraphDestroy(P->gr_loop);
    P->g_start = P->g_loop = nullptr;
    P->gr_start = P->gr_loop = nullptr;
}

/* Captures the start into one graph and the iterations into a graph whose conditional while node repeats its
 * body until the device clears `active`: a whole solve is two graph launches and no host round trip. */
static bool build_graphs(cu_sim *c) {
    PoissonWS *P = c->pois;
    cudaStream_t st = c->stream;
    bool ok = cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
    if (ok) {
        mgpcg_start(c);
        ok = cudaStreamEndCapture(st, &P->gr_start) == cudaSuccess && cudaGetLastError() == cudaSuccess;
    }
    ok = ok && cudaGraphInstantiate(&P->g_start, P->gr_start, 0) == cudaSuccess;
    cudaGraphConditionalHandle h;
    ok = ok && cudaGraphCreate(&P->gr_loop, 0) == cudaSuccess &&
         cudaGraphConditionalHandleCreate(&h, P->gr_loop, 0, cudaGraphCondAssignDefault) == cudaSuccess;
    /* the condition is first set from `active` by a kernel ahead of the while node: the start may have converged */
    cudaGraphNode_t setter = nullptr;
    if (ok) {
        ok = cudaStreamBeginCaptureToGraph(st, P->gr_loop, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
        if (ok) {
            k_cg_condition<<<1, 1, 0, st>>>(P->d_cg, h);
            cudaGraph_t g = P->gr_loop;
            ok = cudaStreamEndCapture(st, &g) == cudaSuccess && cudaGetLastError() == cudaSuccess;
        }
        size_t nn = 1;
        ok = ok && cudaGraphGetNodes(P->gr_loop, &setter, &nn) == cudaSuccess && nn == 1;
    }
    cudaGraphNodeParams np = {}; /* value-initialised: its union has no default constructor */
    np.type = cudaGraphNodeTypeConditional;
    np.conditional.handle = h;
    np.conditional.type = cudaGraphCondTypeWhile;
    np.conditional.size = 1;
    cudaGraphNode_t node;
    ok = ok && cudaGraphAddNode(&node, P->gr_loop, &setter, nullptr, 1, &np) == cudaSuccess;
    if (ok) {
        cudaGraph_t body = np.conditional.phGraph_out[0];
        ok = cudaStreamBeginCaptureToGraph(st, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
        if (ok) {
            mgpcg_iteration(c);
            k_cg_condition<<<1, 1, 0, st>>>(P->d_cg, h);
            ok = cudaStreamEndCapture(st, &body) == cudaSuccess && cudaGetLastError() == cudaSuccess;
        }
    }
    ok = ok && cudaGraphInstantiate(&P->g_loop, P->gr_loop, 0) == cudaSuccess;
    if (!ok) {
        cudaStreamCaptureStatus cs;
        if (cudaStreamIsCapturing(st, &cs) == cudaSuccess && cs != cudaStreamCaptureStatusNone) {
            cudaGraph_t junk;
            cudaStreamEndCapture(st, &junk);
            if (junk) cudaGraphDestroy(junk);
        }
        (void)cudaGetLastError();
        destroy_graphs(P);
    }
    return ok;
}

static cudaError_t mgpcg_loop(cu_sim *c);

/* queues a whole MGPCG solve; iterations, |b|^2 land in the readback area */
static cudaError_t mgpcg(cu_sim *c) {
    PoissonWS *P = c->pois;
    /* the graphs hold the tolerance and the iteration cap: eddy_sim_set_def may change them */
    const eddy_pressure_def *pd = &c->s->def.pressure;
    if (P->graphs != 0 && (P->graph_tol != pd->tolerance || P->graph_max_it != pd->max_iterations ||
                           P->graph_warm != pd->warm_start)) {
        destroy_graphs(P);
        P->graphs = 0;
    }
    if (P->use_graphs && P->graphs == 0) {
        P->graph_tol = pd->tolerance;
        P->graph_max_it = pd->max_iterations;
        P->graph_warm = pd->warm_start;
        P->graphs = build_graphs(c) ? 1 : -1;
    }
    if (P->use_graphs && P->graphs > 0) {
        cudaError_t e = cudaGraphLaunch(P->g_start, c->stream);
        if (e == cudaSuccess) e = cudaGraphLaunch(P->g_loop, c->stream);
        return e;
    }
    mgpcg_start(c);
    return mgpcg_loop(c);
}

/* the iterations until the device clears `active`: the loop graph, or the kernels with the host polling */
static cudaError_t mgpcg_loop(cu_sim *c) {
    PoissonWS *P = c->pois;
    if (P->use_graphs && P->graphs > 0) return cudaGraphLaunch(P->g_loop, c->stream);
    const eddy_pressure_def *pd = &c->s->def.pressure;
    const int max_it = pd->max_iterations > 0 ? pd->max_iterations : MGPCG_DEFAULT_ITERATIONS;
    for (int it = 0; it <= max_it; it++) {
        cudaError_t e = cudaMemcpyAsync(&P->h_active[0], &P->d_cg->active, sizeof(int), cudaMemcpyDeviceToHost, c->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
        if (e != cudaSuccess) return e;
        if (!P->h_active[0]) break;
        mgpcg_iteration(c);
    }
    return cudaGetLastError();
}

/* the end of an MGPCG projection in one pass (k_pressure_correct, cuda_notes 81, 190): no periodic axes, one
 * component holding every solved cell; c->fused_end off (tests) takes the separate passes */
static bool pressure_correct_fused(cu_sim *c) {
    const Geo &g = c->g;
    return mean_sum_fused(c) && c->fused_end && !g.periodic[0] && !g.periodic[1] && (g.dim == 2 || !g.periodic[2]);
}

static cudaError_t residual_norm2(cu_sim *c, float *x, const float *b, double *out) {
    PoissonWS *P = c->pois;
    const LevA &L = P->lv[0].a;
    ghosts(c, P->lv[0], x, nullptr);
    k_residual_norm2<<<red_grid(L), tile_block(), 0, c->stream>>>(L, x, b, part(c, 0));
    return reduce_read(c, 0, red_blocks(L), out);
}

static cudaError_t rbgs(cu_sim *c, float omega, double tol, double bnorm, int max_iterations, int *iters,
                        double *rel, bool *diverged) {
    PoissonWS *P = c->pois;
    *diverged = false;
    LevelD &L0 = P->lv[0];
    dim3 gr = cells_grid(L0.a), bl = tile_block();
    for (int it = 1; it <= max_iterations; it++) {
        if (it > 1) ghosts(c, L0, P->sol, nullptr);
        k_half_sweep<<<it == 1 ? gr : half_grid(L0.a), bl, 0, c->stream>>>(L0.a, P->sol, P->rhs, 0, omega, it == 1, nullptr);
        ghosts(c, L0, P->sol, nullptr);
        k_half_sweep<<<half_grid(L0.a), bl, 0, c->stream>>>(L0.a, P->sol, P->rhs, 1, omega, 0, nullptr);
        if (it % RBGS_CHECK_EVERY == 0 || it == max_iterations) {
            double rr;
            cudaError_t e = residual_norm2(c, P->sol, P->rhs, &rr);
            if (e != cudaSuccess) return e;
            if (sqrt(rr) <= tol * bnorm) {
                *iters = it;
                return cudaSuccess;
            }
            if (!(sqrt(rr) <= RBGS_DIVERGED * bnorm)) { /* also NaN */
                *iters = it;
                *rel = sqrt(rr) / bnorm;
                *diverged = true;
                return cudaSuccess;
            }
        }
    }
    *iters = max_iterations;
    return cudaGetLastError();
}

static cudaError_t jacobi(cu_sim *c, int iterations) {
    PoissonWS *P = c->pois;
    LevelD &L0 = P->lv[0];
    dim3 gr = cells_grid(L0.a), bl = tile_block();
    float *in = P->sol, *out = P->res;
    cudaMemsetAsync(in, 0, L0.count * sizeof(float), c->stream);
    for (int it = 0; it < iterations; it++) {
        ghosts(c, L0, in, nullptr);
        k_jacobi<<<gr, bl, 0, c->stream>>>(L0.a, in, out, P->rhs);
        float *tmp = in;
        in = out;
        out = tmp;
    }
    /* the result back into sol (the MGPCG graphs and the coarse levels hold sol and res by address) */
    if (in != P->sol) cudaMemcpyAsync(P->sol, in, L0.count * sizeof(float), cudaMemcpyDeviceToDevice, c->stream);
    /* res was a ping-pong buffer whose ghosts got periodic copies: cleared, so that its padding is zero again when a
     * later MGPCG solve writes r = b on the cells only (cuda_notes 98, 116) */
    cudaMemsetAsync(P->res, 0, L0.count * sizeof(float), c->stream);
    return cudaGetLastError();
}

/* ---------------------------------------------------------------- the operator, built on the host */
static eddy_status send(cu_sim *c, void *dst, const void *src, size_t bytes) {
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, c->stream);
    if (e != cudaSuccess) return cuda_fail(c, e, "sending the pressure operator");
    return EDDY_OK;
}

static eddy_status send_comps(cu_sim *c, CompD *D, const eddy_plevel *L) {
    const eddy_pcomponents *C = &L->comps;
    cudaFree(D->cells);
    cudaFree(D->sum);
    D->cells = D->sum = nullptr;
    D->count = C->count;
    D->single_all = C->single_all;
    eddy_status st = EDDY_OK;
    if (!D->label) st = dev_alloc(c, (void **)&D->label, L->count * sizeof(int32_t), "pressure components");
    if (st == EDDY_OK && C->label) st = send(c, D->label, C->label, L->count * sizeof(int32_t));
    if (st == EDDY_OK && C->count > 0) {
        st = dev_alloc(c, (void **)&D->cells, (size_t)C->count * sizeof(double), "pressure components");
        if (st == EDDY_OK) st = dev_alloc(c, (void **)&D->sum, (size_t)C->count * sizeof(double), "pressure components");
        if (st == EDDY_OK) st = send(c, D->cells, C->cells, (size_t)C->count * sizeof(double));
    }
    return st;
}

/* k_tail's shared memory as it starts a V-cycle: per level x, b, r zero and diag, inv_diag, inv_weight; the transfer
 * tables; copied flat by the kernel (cuda_notes 41) */
static eddy_status fill_tail_image(cu_sim *c) {
    PoissonWS *P = c->pois;
    cudaStream_t st = c->stream;
    const size_t V = P->tail_vec;
    cudaError_t e = cudaMemsetAsync(P->tail_image, 0, P->tail_smem - V * sizeof(float), st);
    for (int l = P->tail_first; l < P->nlevels && e == cudaSuccess; l++) {
        const LevelD &D = P->lv[l];
        float *base = P->tail_image + (D.tail_op - V);
        const size_t n = D.count, bytes = n * sizeof(float);
        e = cudaMemcpyAsync(base, D.diag, bytes, cudaMemcpyDeviceToDevice, st);
        if (e == cudaSuccess) e = cudaMemcpyAsync(base + n, D.inv_diag, bytes, cudaMemcpyDeviceToDevice, st);
        if (e == cudaSuccess) e = cudaMemcpyAsync(base + 2 * n, D.inv_weight, bytes, cudaMemcpyDeviceToDevice, st);
        if (D.tail_tab < 0 || l + 1 >= P->nlevels) continue;
        float *o = P->tail_image + (D.tail_tab - V);
        for (int a = 0; a < D.a.dim && e == cudaSuccess; a++) {
            const size_t nf = D.ax[a].nf, nc = D.ax[a].nc;
            e = cudaMemcpyAsync(o, D.pc[a], 2 * nf * sizeof(int), cudaMemcpyDeviceToDevice, st);
            if (e == cudaSuccess) e = cudaMemcpyAsync(o + 2 * nf, D.pw[a], 2 * nf * sizeof(float), cudaMemcpyDeviceToDevice, st);
            if (e == cudaSuccess) e = cudaMemcpyAsync(o + 4 * nf, D.rf[a], 4 * nc * sizeof(int), cudaMemcpyDeviceToDevice, st);
            if (e == cudaSuccess) e = cudaMemcpyAsync(o + 4 * nf + 4 * nc, D.rw[a], 4 * nc * sizeof(float), cudaMemcpyDeviceToDevice, st);
            o += 4 * nf + 8 * nc;
        }
    }
    return e == cudaSuccess ? EDDY_OK : cuda_fail(c, e, "staging the coarse multigrid levels");
}

static eddy_status build_operator(cu_sim *c) {
    eddy_sim *s = c->s;
    eddy_poisson *HP = s->poisson;
    PoissonWS *P = c->pois;
    eddy_status st = eddy__fetch(s, EDDY_SYNC_SOLID);
    if (st != EDDY_OK) return st;
    if (P->built && HP->built && memcmp(HP->solid_seen, s->solid, s->ncells) == 0) return EDDY_OK;
    HP->threads = EDDY_THREADS(s);
    eddy_plevel *L = &HP->levels[0];
    const int n0 = s->n[0];
    for (int row = 0; row < L->rows; row++) {
        float *m = L->scratch + eddy__plevel_row(L, row);
        const uint8_t *solid = s->solid + (size_t)row * n0;
        for (int i = 0; i < n0; i++) m[i] = solid[i] == EDDY_CELL_SOLID ? 0.0f : 1.0f;
    }
    eddy__plevel_build_diag(L, HP->threads);
    eddy__plevel_label(L, HP->threads);
    st = eddy__poisson_mg_build(HP);
    if (st != EDDY_OK) return eddy__fail(s, st, "pressure solver: out of memory building the operator");
    memcpy(HP->solid_seen, s->solid, s->ncells);
    HP->built = true;
    destroy_graphs(P); /* they hold the component tables by value */
    P->graphs = 0;
    for (int l = 0; l < P->nlevels && st == EDDY_OK; l++) {
        const eddy_plevel *H = &HP->levels[l];
        LevelD &D = P->lv[l];
        size_t bytes = H->count * sizeof(float);
        st = send(c, D.diag, H->diag, bytes);
        if (st == EDDY_OK) st = send(c, D.inv_diag, H->inv_diag, bytes);
        if (st == EDDY_OK) st = send(c, D.inv_weight, H->inv_weight, bytes);
        if (st == EDDY_OK) uni_tiles(c, D);
    }
    /* 3D: each level's uniform box, the cells at least m = 1 (else 2) from its sides (cuda_notes 82); set from the
     * flags after the synchronisation below. 2D: level 0's only, where k_tail does not run it (cuda_notes 122: the
     * CG kernels, the right-hand side, the true residual and the end read diag per cell; the coarser levels' tiles
     * have item 76's tables) */
    const bool d3 = HP->levels[0].dim == 3;
    const bool ubox = P->d_ubad && (d3 || P->tail_first > 0);
    const int ubox_levels = d3 ? P->nlevels : 1;
    if (st == EDDY_OK && ubox) {
        if (cudaMemsetAsync(P->d_ubad, 0, (size_t)P->nlevels * UBOX_MARGINS * sizeof(int), c->stream) != cudaSuccess)
            st = cuda_fail(c, cudaGetLastError(), "pressure operator");
        for (int l = 0; l < ubox_levels && st == EDDY_OK; l++) {
            LevA &A = P->lv[l].a;
            for (int a = 0; a < 3; a++) A.ulo[a] = 1, A.uhi[a] = 0;
            for (int m = 1; m <= UBOX_MARGINS; m++) {
                if (A.n[0] <= 2 * m || A.n[1] <= 2 * m || (d3 && A.n[2] <= 2 * m)) continue;
                k_ubox_check<<<tiles(A.n[0] - 2 * m, A.n[1] - 2 * m, d3 ? A.n[2] - 2 * m : 1), tile_block(), 0, c->stream>>>(
                    A, m, P->d_ubad + l * UBOX_MARGINS + (m - 1));
            }
        }
    }
    if (st == EDDY_OK) st = fill_tail_image(c);
    if (st == EDDY_OK) st = send_comps(c, &P->comp0, &HP->levels[0]);
    if (st == EDDY_OK && P->nlevels > 1) st = send_comps(c, &P->compc, &HP->levels[P->nlevels - 1]);
    if (st == EDDY_OK && cudaStreamSynchronize(c->stream) != cudaSuccess) st = cuda_fail(c, cudaGetLastError(), "sending the pressure operator");
    if (st == EDDY_OK && ubox) {
        int bad[TAIL_LEVELS * UBOX_MARGINS];
        const int nl = ubox_levels < TAIL_LEVELS ? ubox_levels : TAIL_LEVELS;
        if (cudaMemcpy(bad, P->d_ubad, (size_t)nl * UBOX_MARGINS * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess)
            st = cuda_fail(c, cudaGetLastError(), "pressure operator");
        for (int l = 0; l < nl && st == EDDY_OK; l++) {
            LevA &A = P->lv[l].a;
            const eddy_plevel *H = &HP->levels[l];
            for (int m = 1; m <= UBOX_MARGINS; m++) {
                if (A.n[0] <= 2 * m || A.n[1] <= 2 * m || (d3 && A.n[2] <= 2 * m) || bad[l * UBOX_MARGINS + (m - 1)])
                    continue;
                const size_t e0 = (size_t)A.origin + (size_t)m * (1 + (size_t)A.sy + (d3 ? (size_t)A.sz : 0));
                A.ud = H->diag[e0];
                A.uid = H->inv_diag[e0];
                A.uiw = H->inv_weight[e0];
                for (int a = 0; a < 3; a++) A.ulo[a] = m, A.uhi[a] = A.n[a] - 1 - m;
                /* 2D: k = 0 and its (absent) neighbours k +- m' pass in_ubox's z test for m' <= UBOX_MARGINS */
                if (!d3) A.ulo[2] = -UBOX_MARGINS, A.uhi[2] = UBOX_MARGINS;
                break;
            }
        }
    }
    if (st == EDDY_OK) {
        P->cells0 = P->comp0.count ? HP->levels[0].comps.cells[0] : 1.0;
        P->built = true;
    }
    return st;
}

/* true when the solid cells may differ from those the operator was built for */
static bool solids_may_have_changed(cu_sim *c) {
    eddy_sim *s = c->s;
    PoissonWS *P = c->pois;
    bool any_sdf = false;
    for (int o = 0; o < s->obstacle_count; o++) any_sdf = any_sdf || s->obstacles[o].def.shape == EDDY_SHAPE_SDF;
    if (!P->built || !P->have_sig || any_sdf || P->any_sdf || P->mask_version != s->mask_version ||
        P->sig_count != s->obstacle_count)
        return true;
    for (int o = 0; o < s->obstacle_count; o++) {
        const eddy_obstacle_def *d = &s->obstacles[o].def;
        const DShape &g = P->sig[o];
        if (g.shape != (int)d->shape || g.radius != d->radius || memcmp(g.center, d->center, sizeof g.center) ||
            memcmp(g.half_size, d->half_size, sizeof g.half_size) || memcmp(g.axis, d->axis, sizeof g.axis))
            return true;
    }
    return false;
}

static eddy_status remember_solids(cu_sim *c) {
    eddy_sim *s = c->s;
    PoissonWS *P = c->pois;
    if (s->obstacle_count > P->sig_cap) {
        int cap = 2 * s->obstacle_count;
        DShape *p = (DShape *)realloc(P->sig, (size_t)cap * sizeof(DShape));
        if (!p) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
        P->sig = p;
        P->sig_cap = cap;
    }
    P->any_sdf = 0;
    for (int o = 0; o < s->obstacle_count; o++) {
        const eddy_obstacle_def *d = &s->obstacles[o].def;
        DShape &g = P->sig[o];
        memset(&g, 0, sizeof g);
        g.shape = (int)d->shape;
        g.radius = d->radius;
        memcpy(g.center, d->center, sizeof g.center);
        memcpy(g.half_size, d->half_size, sizeof g.half_size);
        memcpy(g.axis, d->axis, sizeof g.axis);
        P->any_sdf |= d->shape == EDDY_SHAPE_SDF;
    }
    P->sig_count = s->obstacle_count;
    P->mask_version = s->mask_version;
    P->have_sig = true;
    return EDDY_OK;
}

eddy_status project_init(cu_sim *c) {
    eddy_sim *s = c->s;
    eddy_poisson *HP = s->poisson;
    if (!HP) return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "cuda: the pressure solver's host workspace is missing");
    PoissonWS *P = (PoissonWS *)calloc(1, sizeof(PoissonWS));
    if (!P) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    c->pois = P;
    P->use_graphs = 1;
    P->nlevels = HP->nlevels;
    P->lv = (LevelD *)calloc((size_t)P->nlevels, sizeof(LevelD));
    if (!P->lv) return eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    eddy_status st = EDDY_OK;
    for (int l = 0; l < P->nlevels && st == EDDY_OK; l++) {
        const eddy_plevel *H = &HP->levels[l];
        LevelD &D = P->lv[l];
        D.count = H->count;
        D.a.dim = H->dim;
        for (int a = 0; a < 3; a++) {
            D.a.n[a] = H->n[a];
            D.a.w[a] = H->w[a];
            D.a.periodic[a] = D.periodic[a] = H->periodic[a];
        }
        D.a.sy = (int)H->sy;
        D.a.sz = (int)H->sz;
        D.a.origin = (int)H->origin;
        size_t bytes = H->count * sizeof(float);
        st = dev_alloc(c, (void **)&D.diag, bytes, "pressure operator");
        if (st == EDDY_OK) st = dev_alloc(c, (void **)&D.inv_diag, bytes, "pressure operator");
        if (st == EDDY_OK) st = dev_alloc(c, (void **)&D.inv_weight, bytes, "pressure operator");
        if (st == EDDY_OK) st = dev_alloc(c, (void **)&D.r, bytes, "pressure residual");
        if (st == EDDY_OK && l > 0) st = dev_alloc(c, (void **)&D.x, bytes, "pressure level");
        if (st == EDDY_OK && l > 0) st = dev_alloc(c, (void **)&D.b, bytes, "pressure level");
        if (st == EDDY_OK && l > 0) {
            if (cudaMemsetAsync(D.x, 0, bytes, c->stream) != cudaSuccess || cudaMemsetAsync(D.b, 0, bytes, c->stream) != cudaSuccess)
                st = cuda_fail(c, cudaGetLastError(), "clearing the pressure levels");
        }
        if (st == EDDY_OK && cudaMemsetAsync(D.r, 0, bytes, c->stream) != cudaSuccess)
            st = cuda_fail(c, cudaGetLastError(), "clearing the pressure levels");
        if (st == EDDY_OK) st = dev_alloc(c, (void **)&D.xa, bytes, "pressure level");
        if (st == EDDY_OK && cudaMemsetAsync(D.xa, 0, bytes, c->stream) != cudaSuccess)
            st = cuda_fail(c, cudaGetLastError(), "clearing the pressure levels");
        D.a.diag = D.diag;
        D.a.inv_diag = D.inv_diag;
        D.a.inv_weight = D.inv_weight;
        D.a.uni = nullptr;
        for (int a = 0; a < 3; a++) D.a.ulo[a] = 1, D.a.uhi[a] = 0; /* no uniform box until build_operator */
        if (st == EDDY_OK && D.a.dim == 2) {
            const dim3 g = sweep_grid(D.a);
            st = dev_alloc(c, (void **)&D.uni, ECU_BLOCKS(g) * sizeof(float4), "pressure operator");
            D.a.uni = D.uni;
        }
        for (int a = 0; a < 3 && st == EDDY_OK && l + 1 < P->nlevels; a++) {
            const eddy_paxis *ax = &H->axis[a];
            st = dev_alloc(c, (void **)&D.pc[a], 2 * (size_t)ax->nf * sizeof(int), "transfer tables");
            if (st == EDDY_OK) st = dev_alloc(c, (void **)&D.pw[a], 2 * (size_t)ax->nf * sizeof(float), "transfer tables");
            if (st == EDDY_OK) st = dev_alloc(c, (void **)&D.rf[a], 4 * (size_t)ax->nc * sizeof(int), "transfer tables");
            if (st == EDDY_OK) st = dev_alloc(c, (void **)&D.rw[a], 4 * (size_t)ax->nc * sizeof(float), "transfer tables");
            if (st == EDDY_OK) st = send(c, D.pc[a], ax->pc, 2 * (size_t)ax->nf * sizeof(int));
            if (st == EDDY_OK) st = send(c, D.pw[a], ax->pw, 2 * (size_t)ax->nf * sizeof(float));
            if (st == EDDY_OK) st = send(c, D.rf[a], ax->rf, 4 * (size_t)ax->nc * sizeof(int));
            if (st == EDDY_OK) st = send(c, D.rw[a], ax->rw, 4 * (size_t)ax->nc * sizeof(float));
            D.ax[a].nf = ax->nf;
            D.ax[a].nc = ax->nc;
            D.ax[a].coarsened = ax->coarsened;
            D.ax[a].pc = D.pc[a];
            D.ax[a].pw = D.pw[a];
            D.ax[a].rf = D.rf[a];
            D.ax[a].rw = D.rw[a];
        }
    }
    size_t bytes = HP->levels[0].count * sizeof(float);
    float **vecs[7] = {&P->sol, &P->rhs, &P->res, &P->z, &P->p, &P->q, &P->rs};
    for (int v = 0; v < 7 && st == EDDY_OK; v++) {
        if (vecs[v] == &P->q && q_where_read(P->lv[0].a)) continue; /* q = A p is never stored (3D: 67 MB at 256^3) */
        st = dev_alloc(c, (void **)vecs[v], bytes, "pressure vectors");
        if (st == EDDY_OK && cudaMemsetAsync(*vecs[v], 0, bytes, c->stream) != cudaSuccess)
            st = cuda_fail(c, cudaGetLastError(), "clearing the pressure vectors");
    }
    /* the single-block tail: from the first level small enough whose levels fit in shared memory together;
     * level 0 of the V-cycle reads res, writes z */
    int optin = 0;
    cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, c->device);
    const size_t budget = optin > 32768 ? (size_t)optin - 16384 : 16384;
    P->tail_first = P->nlevels - 1;
    for (int l = 0; l < P->nlevels; l++) {
        const LevA &a = P->lv[l].a;
        size_t bytes = 0;
        for (int q = l; q < P->nlevels; q++) bytes += 6 * P->lv[q].count * sizeof(float);
        if ((long long)a.n[0] * a.n[1] * a.n[2] <= (a.dim == 2 ? TAIL_MAX_CELLS_2D : TAIL_MAX_CELLS) && bytes <= budget && P->nlevels - l <= TAIL_LEVELS) {
            P->tail_first = l;
            break;
        }
    }
    P->tail_vec = 0;
    for (int q = P->tail_first; q < P->nlevels; q++) P->tail_vec += 3 * P->lv[q].count;
    P->tail_vec = (P->tail_vec + 3) / 4 * 4; /* the operators start on a float4 */
    P->tail_smem = P->tail_vec * sizeof(float);
    for (int q = P->tail_first; q < P->nlevels; q++) P->tail_smem += 3 * P->lv[q].count * sizeof(float);
    /* the transfer tables of the tail's levels (but the coarsest) after the arrays, where they fit too */
    size_t tab_words = 0;
    for (int q = P->tail_first; q + 1 < P->nlevels; q++)
        for (int a = 0; a < P->lv[q].a.dim; a++) tab_words += 4 * (size_t)P->lv[q].ax[a].nf + 8 * (size_t)P->lv[q].ax[a].nc;
    const bool tail_tables = P->tail_smem + tab_words * 4 + 16 <= budget;
    if (tail_tables) P->tail_smem += tab_words * 4;
    P->tail_smem = (P->tail_smem + 15) / 16 * 16; /* k_tail stages it as float4 */
    if (st == EDDY_OK) st = dev_alloc(c, (void **)&P->tail_image, P->tail_smem - P->tail_vec * sizeof(float), "multigrid levels");
    if (st == EDDY_OK && P->tail_smem > budget)
        st = eddy__fail(s, EDDY_ERR_UNSUPPORTED, "cuda: the coarsest multigrid level (%d x %d x %d) does not fit in shared memory",
                        P->lv[P->nlevels - 1].a.n[0], P->lv[P->nlevels - 1].a.n[1], P->lv[P->nlevels - 1].a.n[2]);
    if (st == EDDY_OK && cudaFuncSetAttribute(k_tail, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)P->tail_smem) != cudaSuccess)
        st = cuda_fail(c, cudaGetLastError(), "shared memory for the coarse multigrid levels");
    if (st == EDDY_OK) {
        TailLevel *h = (TailLevel *)calloc((size_t)P->nlevels, sizeof(TailLevel));
        if (!h) st = eddy__fail(s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
        for (int l = 0; h && l < P->nlevels; l++) {
            h[l].a = P->lv[l].a;
            for (int a = 0; a < 3; a++) h[l].ax[a] = P->lv[l].ax[a];
            h[l].x = l ? P->lv[l].x : P->z;
            h[l].b = l ? P->lv[l].b : P->res;
            h[l].r = P->lv[l].r;
            h[l].count = (int)P->lv[l].count;
            h[l].smem = 0;
            h[l].op = 0;
            h[l].tab = -1;
        }
        size_t off = 0;
        for (int l = P->tail_first; h && l < P->nlevels; l++) {
            h[l].smem = (int)off;
            off += 3 * P->lv[l].count;
        }
        off = P->tail_vec;
        for (int l = P->tail_first; h && l < P->nlevels; l++) {
            h[l].op = (int)off;
            off += 3 * P->lv[l].count;
        }
        for (int l = P->tail_first; h && tail_tables && l + 1 < P->nlevels; l++) {
            h[l].tab = (int)off;
            for (int a = 0; a < P->lv[l].a.dim; a++) off += 4 * (size_t)P->lv[l].ax[a].nf + 8 * (size_t)P->lv[l].ax[a].nc;
        }
        for (int l = 0; h && l < P->nlevels; l++) {
            P->lv[l].tail_smem = h[l].smem;
            P->lv[l].tail_op = h[l].op;
            P->lv[l].tail_tab = h[l].tab;
        }
        if (st == EDDY_OK) st = dev_alloc(c, (void **)&P->d_tail, (size_t)P->nlevels * sizeof(TailLevel), "multigrid levels");
        if (st == EDDY_OK) st = send(c, P->d_tail, h, (size_t)P->nlevels * sizeof(TailLevel));
        if (st == EDDY_OK && cudaStreamSynchronize(c->stream) != cudaSuccess) st = cuda_fail(c, cudaGetLastError(), "multigrid levels");
        free(h);
    }
    /* k_cg_apply_update (cuda_notes 52) where a resident grid holds every reduction tile with at most COOP_TILES tiles
     * per block (their q in shared memory) */
    P->coop_blocks = P->coop_tiles = 0;
    if (st == EDDY_OK) {
        int coop = 0, sms = 0, per_sm = 0;
        cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, c->device);
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device);
        const size_t ntiles = red_blocks(P->lv[0].a);
        for (int T = 1; coop && T <= COOP_TILES; T++) {
            const size_t smem = (size_t)T * ECU_ROWS * 256 * sizeof(float);
            /* the fewest resident blocks of its forms (cuda_notes 125: the first iteration's) */
            int p1 = 0, p2 = 0;
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_cg_apply_update<0>, 256, smem) != cudaSuccess ||
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p1, k_cg_apply_update<CG_P_FROM_Z>, 256, smem) != cudaSuccess ||
                cudaOccupancyMaxActiveBlocksPerMultiprocessor(&p2, k_cg_apply_update<CG_X_ZERO | CG_P_FROM_Z>, 256, smem) !=
                    cudaSuccess)
                break;
            per_sm = std::min(per_sm, std::min(p1, p2));
            const size_t G = (ntiles + T - 1) / T;
            if (G <= (size_t)per_sm * sms && G <= c->partial_stride) {
                P->coop_blocks = (int)G;
                P->coop_tiles = T;
                break;
            }
        }
        cudaGetLastError();
    }
    if (st == EDDY_OK) st = dev_alloc(c, (void **)&P->d_cg, sizeof(CGState), "solver scalars");
    if (st == EDDY_OK && cudaMemsetAsync(P->d_cg, 0, sizeof(CGState), c->stream) != cudaSuccess)
        st = cuda_fail(c, cudaGetLastError(), "solver scalars");
    if (st == EDDY_OK) st = dev_alloc(c, (void **)&P->d_ubad, (size_t)P->nlevels * UBOX_MARGINS * sizeof(int), "pressure operator");
    if (st == EDDY_OK && cudaMallocHost((void **)&P->h_active, sizeof(int)) != cudaSuccess)
        st = cuda_fail(c, cudaGetLastError(), "solver scalars");
    if (st == EDDY_OK && cudaMallocHost((void **)&P->h_warm_scale, sizeof(float)) != cudaSuccess)
        st = cuda_fail(c, cudaGetLastError(), "solver scalars");
    if (st == EDDY_OK && cudaStreamSynchronize(c->stream) != cudaSuccess) st = cuda_fail(c, cudaGetLastError(), "pressure solver set-up");
    return st;
}

void project_free(cu_sim *c) {
    PoissonWS *P = c->pois;
    if (!P) return;
    destroy_graphs(P);
    if (P->lv) {
        for (int l = 0; l < P->nlevels; l++) {
            LevelD &D = P->lv[l];
            void *b[] = {D.diag, D.inv_diag, D.inv_weight, D.r, D.x, D.b, D.xa, D.uni};
            if (l == 0) b[4] = b[5] = nullptr; /* level 0 borrows */
            for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) cudaFree(b[i]);
            for (int a = 0; a < 3; a++) {
                cudaFree(D.pc[a]);
                cudaFree(D.pw[a]);
                cudaFree(D.rf[a]);
                cudaFree(D.rw[a]);
            }
        }
        free(P->lv);
    }
    CompD *cs[2] = {&P->comp0, &P->compc};
    for (int i = 0; i < 2; i++) {
        cudaFree(cs[i]->label);
        cudaFree(cs[i]->cells);
        cudaFree(cs[i]->sum);
    }
    void *v[] = {P->sol, P->rhs, P->res, P->z, P->p, P->q, P->rs, P->d_tail, P->d_cg, P->tail_image, P->d_ubad};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) cudaFree(v[i]);
    if (P->h_active) cudaFreeHost(P->h_active);
    if (P->h_warm_scale) cudaFreeHost(P->h_warm_scale);
    free(P->sig);
    free(P);
    c->pois = nullptr;
}

void project_use_graphs(cu_sim *c, int on) {
    if (c->pois) c->pois->use_graphs = on;
}

/* the tests lower the k_prolong8 threshold so that small grids run it; the captured graphs hold the old choice */
void project_set_prolong8_cells(cu_sim *c, long long cells) {
    c->prolong8_cells = cells;
    if (c->pois && c->pois->graphs != 0) {
        destroy_graphs(c->pois);
        c->pois->graphs = 0;
    }
}

/* the tests turn the fused end (k_pressure_correct) off to compare it with the separate passes */
void project_set_fused_end(cu_sim *c, int on) { c->fused_end = on != 0; }

/* after the step's read-back: the pressure statistics into eddy_step_stats */
void finish_project_stats(cu_sim *c) {
    PoissonWS *P = c->pois;
    eddy_step_stats *st = &c->s->stats;
    if (P->host_stats) {
        st->pressure_iterations = P->host_iters;
        st->pressure_residual = (float)P->host_residual;
        st->pressure_residual_initial = P->host_bnorm > 0.0 ? 1.0f : 0.0f;
        return;
    }
    const double *r = c->h_rb->red;
    double bnorm = sqrt(r[R_CG_BNORM2]);
    bool solved = bnorm > 0.0 && isfinite(bnorm);
    st->pressure_iterations = solved ? (int)r[R_CG_ITER] : 0;
    st->pressure_residual = solved ? (float)(sqrt(r[R_CG_RNORM2]) / bnorm) : 0.0f;
    st->pressure_residual_initial = bnorm > 0.0 ? (solved ? (float)(sqrt(r[R_CG_INIT2]) / bnorm) : 1.0f) : 0.0f;
}

/* x's correction of the faces on their own (the separate end): ghosts, then one k_correct per component; with x = 0
 * (nothing solved) it changes nothing, as the CPU's skipped one */
static void correct_faces(cu_sim *c) {
    PoissonWS *P = c->pois;
    const Geo &g = c->g;
    ghosts(c, P->lv[0], P->sol, nullptr);
    for (int a = 0; a < g.dim; a++) {
        int fn[3];
        face_dims(g, a, fn);
        int out_lo = !g.periodic[a] && g.btype[2 * a] == EDDY_BOUNDARY_OUTFLOW;
        int out_hi = !g.periodic[a] && g.btype[2 * a + 1] == EDDY_BOUNDARY_OUTFLOW;
        k_correct<<<tiles(fn[0], fn[1], fn[2]), tile_block(), 0, c->stream>>>(g, P->lv[0].a, a, out_lo, out_hi, c->vel[a],
                                                                          P->sol, flags_for(c));
    }
}

/* an MGPCG solve's end in separate passes: x mean-free, the faces, the pressure written (add: added, a refinement) */
static void correct_separate(cu_sim *c, float pressure_scale, bool add) {
    PoissonWS *P = c->pois;
    const Geo &g = c->g;
    /* one component holding every solved cell: the first pressure is written by the mean removal */
    const bool by_mean = mean_sum_fused(c) && !add;
    const PressureOut po = {pressure_scale};
    remove_mean0(c, P->sol, false, nullptr, by_mean ? &po : nullptr);
    correct_faces(c);
    if (!by_mean)
        k_write_pressure<<<tiles(g.n[0], g.n[1], g.n[2]), tile_block(), 0, c->stream>>>(g, P->lv[0].a, P->sol, c->pressure,
                                                                                     pressure_scale, add ? 1 : 0, flags_for(c));
}

/* a refinement (project.c): b = the divergence the corrections left (mean-free), r = b, x = 0, then the solve; as
 * run_project's start and mgpcg_start's cold start */
static cudaError_t refine(cu_sim *c) {
    PoissonWS *P = c->pois;
    queue_rhs(c, true);
    cold_start(c);
    k_cg_refine<<<1, 1, 0, c->stream>>>(P->d_cg);
    cg_first_iteration(c, true);
    return mgpcg_loop(c);
}

/* project.c: check the true residual; the velocity is corrected and the pressure written (added after the first
 * solve); when only the recurrence had met the tolerance, refine (at most MGPCG_MAX_REFINEMENTS times, while |r|^2
 * keeps falling by 4x). `refinements` done so far; `last` the |r|^2 of the solve before (INFINITY at first). With the
 * fused end (cuda_notes 96-97, 190) the residual's pass also sums x, and k_pressure_correct is queued at once: it
 * writes the decision to the readback. defer (fused end only, cuda_notes 120): return without waiting for that
 * decision; the step reads it back with its figures and calls project_resume. */
static eddy_status solve_end(cu_sim *c, float dt, int refinements, double last, bool defer) {
    eddy_sim *s = c->s;
    PoissonWS *P = c->pois;
    LevelD &L0 = P->lv[0];
    const LevA &L = L0.a;
    const Geo &g = c->g;
    const dim3 bl = tile_block();
    const eddy_pressure_def *pd = &s->def.pressure;
    const float pressure_scale = s->def.density * s->h / dt;
    cudaError_t e = cudaSuccess;
    const int max_it = pd->max_iterations > 0 ? pd->max_iterations : MGPCG_DEFAULT_ITERATIONS;
    const bool fused_end = pressure_correct_fused(c);
    P->end_pending = 0;
    for (;; refinements++) {
        ghosts(c, L0, P->sol, nullptr);
        /* single component: r is not stored (cuda_notes 129): its sum, |r|^2 and (fused end) x's sum in one pass,
         * |r - mean|^2 = |r|^2 - cells mean^2 (cuda_notes 191) */
        double *rr_part = c->partials + (size_t)R_CG_RNORM2 * c->partial_stride;
        if (mean_sum_fused(c)) {
            k_residual_m_sum<<<red_grid(L), bl, 0, c->stream>>>(L, P->sol, P->rhs, nullptr, part(c, 2),
                                                                 fused_end ? part(c, 3) : nullptr, rr_part);
            const int slots[3] = {R_SCRATCH0 + 2, R_CG_RNORM2, R_SCRATCH0 + 3}, ops[3] = {RED_SUM, RED_SUM, RED_SUM};
            if ((e = finalize_reductions(c, slots, ops, fused_end ? 3 : 2, red_blocks(L))) != cudaSuccess)
                return cuda_fail(c, e, "pressure residual");
            k_rr_mean_free<<<1, 1, 0, c->stream>>>(c->d_rb, R_SCRATCH0 + 2, R_CG_RNORM2, P->cells0);
        } else {
            k_residual_m<<<cells_grid(L), bl, 0, c->stream>>>(L, P->sol, P->rhs, P->res);
            remove_mean0(c, P->res);
            k_dot<<<red_grid(L), bl, 0, c->stream>>>(L, P->res, P->res, rr_part, nullptr);
            const int slots[1] = {R_CG_RNORM2}, ops[1] = {RED_SUM};
            if ((e = finalize_reductions(c, slots, ops, 1, red_blocks(L))) != cudaSuccess)
                return cuda_fail(c, e, "pressure residual");
        }
        const SolveEnd se = {(double)pd->tolerance, last, max_it, refinements == MGPCG_MAX_REFINEMENTS};
        if (fused_end) {
            /* x's mean (slot R_SCRATCH0 + 3), then pressure and every correction in one pass */
            auto outflow = [&](int side) { return side < 2 * g.dim && g.btype[side] == EDDY_BOUNDARY_OUTFLOW ? 1 : 0; };
            const int3 lo = make_int3(outflow(0), outflow(2), outflow(4)), hi = make_int3(outflow(1), outflow(3), outflow(5));
            k_pressure_correct<<<tiles(g.n[0] + 1, g.n[1] + 1, g.dim == 3 ? g.n[2] + 1 : 1), bl, 0, c->stream>>>(
                g, L, P->sol, c->d_rb, R_SCRATCH0 + 3, P->cells0, c->pressure, pressure_scale, refinements > 0 ? 1 : 0,
                c->vel[0], c->vel[1], c->vel[2], lo, hi, flags_for(c), se);
        } else {
            correct_separate(c, pressure_scale, refinements > 0);
        }
        if (fused_end && defer) {
            /* the step's read-back brings the decision (R_SOLVE_DONE) with its figures: one wait per step */
            P->end_pending = 1;
            P->end_refinements = refinements;
            P->end_dt = dt;
            return EDDY_OK;
        }
        e = cudaMemcpyAsync(c->h_rb->red + R_CG_BNORM2, c->d_rb->red + R_CG_BNORM2,
                            (R_SOLVE_DONE + 1 - R_CG_BNORM2) * sizeof(double), cudaMemcpyDeviceToHost, c->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
        if (e != cudaSuccess) return cuda_fail(c, e, "pressure residual");
        const double *rb = c->h_rb->red;
        if (fused_end ? rb[R_SOLVE_DONE] != 0.0 : solve_done(rb, se)) break;
        last = rb[R_CG_RNORM2];
        if ((e = refine(c)) != cudaSuccess) return cuda_fail(c, e, "pressure solve (MGPCG refinement)");
    }
    return EDDY_OK;
}

/* the step's read-back holds the deferred decision of solve_end: a refinement (rare) is run now, and *redo says
 * that the stages after the projection must be queued again */
eddy_status project_resume(cu_sim *c, int *redo) {
    PoissonWS *P = c->pois;
    *redo = 0;
    if (!P || !P->end_pending) return EDDY_OK;
    P->end_pending = 0;
    if (c->h_rb->red[R_SOLVE_DONE] != 0.0) return EDDY_OK;
    *redo = 1;
    cudaError_t e = refine(c);
    if (e != cudaSuccess) return cuda_fail(c, e, "pressure solve (MGPCG refinement)");
    eddy_status st = solve_end(c, P->end_dt, P->end_refinements + 1, c->h_rb->red[R_CG_RNORM2], false);
    if (st == EDDY_OK && (e = cudaGetLastError()) != cudaSuccess) return cuda_fail(c, e, "projection");
    return st;
}

eddy_status run_project(cu_sim *c, float dt, bool defer_end) {
    eddy_sim *s = c->s;
    PoissonWS *P = c->pois;
    if (!(dt > 0.0f) || !isfinite(dt))
        return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "projection dt = %g: must be a positive number of seconds", (double)dt);
    eddy_status st = eddy__pressure_scale_check(s, dt);
    if (st != EDDY_OK) return st;
    if (solids_may_have_changed(c)) {
        if ((st = build_operator(c)) != EDDY_OK) return st;
        if ((st = remember_solids(c)) != EDDY_OK) return st;
    }
    LevelD &L0 = P->lv[0];
    const LevA &L = L0.a;
    const Geo &g = c->g;
    const dim3 bl = tile_block();
    const eddy_pressure_def *pd = &s->def.pressure;
    /* MGPCG's r = b without a warm start (one read of b fewer) */
    queue_rhs(c, pd->solver == EDDY_PRESSURE_MGPCG && !pd->warm_start);
    cudaError_t e = cudaSuccess;
    const float pressure_scale = s->def.density * s->h / dt;
    if (pd->solver == EDDY_PRESSURE_MGPCG) {
        /* no host round trip: the device decides everything, the step reads the figures at its end */
        P->host_stats = 0;
        if (pd->warm_start) {
            /* the scale of this step's x (the graphs read it from the device) */
            *P->h_warm_scale = dt / (s->def.density * s->h);
            e = cudaMemcpyAsync(&P->d_cg->warm_scale, P->h_warm_scale, sizeof(float), cudaMemcpyHostToDevice, c->stream);
            if (e != cudaSuccess) return cuda_fail(c, e, "pressure warm start");
        }
        if ((e = mgpcg(c)) != cudaSuccess) return cuda_fail(c, e, "pressure solve (MGPCG)");
        if ((st = solve_end(c, dt, 0, INFINITY, defer_end && pressure_correct_fused(c))) != EDDY_OK) return st;
        if ((e = cudaGetLastError()) != cudaSuccess) return cuda_fail(c, e, "projection");
        return EDDY_OK;
    } else {
        double bb;
        if ((e = dot0(c, P->rhs, P->rhs, &bb)) != cudaSuccess) return cuda_fail(c, e, "pressure right-hand side");
        double bnorm = sqrt(bb);
        int iterations = 0;
        double residual = 0.0;
        if (bnorm > 0.0 && isfinite(bnorm)) {
            if (pd->solver == EDDY_PRESSURE_JACOBI) {
                iterations = pd->max_iterations > 0 ? pd->max_iterations : JACOBI_DEFAULT_ITERATIONS;
                e = jacobi(c, iterations);
            } else {
                const float omega = pd->omega > 0.0f ? pd->omega : 1.0f;
                bool diverged;
                double rel = 0.0;
                e = rbgs(c, omega, pd->tolerance, bnorm, pd->max_iterations > 0 ? pd->max_iterations : RBGS_DEFAULT_ITERATIONS,
                         &iterations, &rel, &diverged);
                if (e == cudaSuccess && diverged) return eddy__rbgs_diverged(s, omega, iterations, rel);
            }
            if (e != cudaSuccess) return cuda_fail(c, e, "pressure solve");
            remove_mean0(c, P->sol);
            double rr;
            if ((e = residual_norm2(c, P->sol, P->rhs, &rr)) != cudaSuccess) return cuda_fail(c, e, "pressure residual");
            residual = sqrt(rr) / bnorm;
        } else {
            cudaMemsetAsync(P->sol, 0, L0.count * sizeof(float), c->stream);
        }
        P->host_stats = 1;
        P->host_iters = iterations;
        P->host_bnorm = bnorm;
        P->host_residual = residual;
    }
    correct_faces(c);
    k_write_pressure<<<tiles(g.n[0], g.n[1], g.n[2]), bl, 0, c->stream>>>(g, L, P->sol, c->pressure, pressure_scale, 0,
                                                                          flags_for(c));
    if ((e = cudaGetLastError()) != cudaSuccess) return cuda_fail(c, e, "projection");
    return EDDY_OK;
}

} /* namespace ecu */
