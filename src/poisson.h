/* Internal interface of the pressure solvers (not installed): the discrete Poisson system of the projection,
 * the grid levels it lives on, and the solvers (poisson_level.c: storage and stencil kernels shared by all solvers;
 * poisson_iterative.c: Jacobi and red-black Gauss-Seidel/SOR; poisson_mg.c: multigrid V-cycle and MGPCG).
 *
 * The system. With phi = h * x the scaled pressure (x in m/s) and u <- u - (x_hi - x_lo) on every open face,
 * div u = 0 in every solved cell c reads
 *     (A x)_c = sum over open faces f of c of w_a(f) * (x_c - x_nb(f)) = b_c = -(net outward flux of u through c),
 * a symmetric positive (semi)definite 5-point (2D) / 7-point (3D) matrix. A face is open when both cells are
 * solved fluid cells, or when it is an outflow domain face (the outside neighbour is a Dirichlet x = 0 cell).
 * Walls, inflow faces and faces touching solids are closed (Neumann). w_a = 1 on the simulation grid; coarser
 * multigrid levels carry w_a = (h / h_level_a)^2 so that every level approximates the same -h^2 Laplacian.
 *
 * Layout. Every vector of a level is padded with one ghost cell on each side of every active axis:
 * cell (i,j,k) is element origin + i + sy*j + sz*k, ghosts hold 0 (Neumann/Dirichlet sides, never written) or a
 * copy of the opposite side (periodic axes, refreshed before each stencil). diag = 0 marks a cell that is not
 * solved (solid, or fluid with every face closed); such cells keep x = 0. Rows (j,k) are the unit of parallel
 * work; reductions store one double per row and add the rows serially, so results do not depend on threads. */
#ifndef EDDY_POISSON_H
#define EDDY_POISSON_H

#include "sim_internal.h"

#include <stddef.h>

/* 1D transfer between a level (nf cells along an axis) and the next coarser one (nc cells). Prolongation is
 * cell-centred linear interpolation: fine cell i takes pw[2i] * coarse[pc[2i]] + pw[2i+1] * coarse[pc[2i+1]]
 * (3/4 of its parent, 1/4 of the parent's neighbour on its side; weight 0 when that neighbour is outside a
 * non-periodic domain). Restriction is its transpose divided by 2 (an average): coarse c takes
 * sum_{e<4} rw[4c+e] * fine[rf[4c+e]]. An axis too short to coarsen (nc = nf) has identity tables. */
typedef struct eddy_paxis {
    int nf, nc;
    bool coarsened;
    int *pc;
    float *pw;
    int *rf;
    float *rw;
} eddy_paxis;

/* Connected groups of solved cells with no Dirichlet (outflow) cell: each is a null vector of A (x + constant
 * solves the same system). Their right-hand sides are made mean-free and so are their solutions. */
typedef struct eddy_pcomponents {
    int32_t *label;  /* per padded element: component index, or -1 (not solved, or reaches an outflow face) */
    int count;       /* number of pure-Neumann components */
    bool single_all; /* exactly one, holding every solved cell: masked parallel sums are enough */
    double *sum, *cells;
    int cap;
} eddy_pcomponents;

typedef struct eddy_plevel {
    int dim;
    int n[3];          /* cells per axis (n[2] = 1 in 2D) */
    int pad[3];        /* padded extent per axis (n + 2 on active axes, 1 on z in 2D) */
    ptrdiff_t sy, sz;  /* padded stride of +1 in y and in z (sz = 0 in 2D) */
    size_t origin;     /* padded index of cell (0,0,0) */
    size_t count;      /* padded elements */
    int rows;          /* n[1] * n[2] */
    bool parallel;     /* large enough to be worth an OpenMP team */
    bool periodic[3];
    bool outflow[6];   /* domain side is outflow: Dirichlet x = 0 outside */
    float w[3];        /* coupling per axis */
    float *diag;       /* sum of couplings of open faces; 0 = not solved. Ghosts copy across periodic axes. */
    float *inv_diag;   /* 1 / diag, 0 where diag = 0 */
    float *inv_weight; /* multigrid: 1 / (sum of interpolation weights of fluid parents), 0 where not solved */
    float *x, *b, *r;  /* solution, right-hand side, residual; level 0 borrows x and b from the caller */
    float *scratch;    /* per-level scratch (fluid mask at build time) */
    eddy_paxis axis[3];/* transfer to the next coarser level (unused on the coarsest) */
    eddy_pcomponents comps; /* built on level 0 and on the coarsest level */
} eddy_plevel;

/* Multigrid parameters (poisson_mg.c). */
enum {
    EDDY_MG_SMOOTH = 2,          /* red-black Gauss-Seidel sweeps before and after the coarse correction */
    EDDY_MG_COARSEST_SWEEPS = 24 /* symmetric sweep pairs on the coarsest level (at most 3 cells per axis) */
};

struct eddy_poisson {
    eddy_plevel *levels; /* levels[0] is the simulation grid */
    int nlevels;
    int threads;
    float *sol, *rhs;            /* solution x and right-hand side b on level 0 (padded) */
    float *res, *z, *p, *q;      /* conjugate gradient vectors (padded) */
    float *t1, *t2;              /* separable transfer temporaries, sized for level 0 -> 1 */
    double *partial;             /* two slots per row of level 0 */
    size_t *list;                /* flood fill work list (level 0 cells) */
    uint8_t *solid_seen;         /* s->solid when the operator was last built */
    bool built;
};

/* ---- poisson_level.c: storage and kernels ---- */
eddy_status eddy__plevel_alloc(eddy_plevel *L, int dim, const int n[3], const bool periodic[3],
                               const bool outflow[6], const float w[3], bool own_vectors);
void eddy__plevel_free(eddy_plevel *L);
/* offset of the first cell of row `row` (= j + n1*k) */
static inline size_t eddy__plevel_row(const eddy_plevel *L, int row) {
    int j = row % L->n[1], k = row / L->n[1];
    return L->origin + (size_t)((ptrdiff_t)j * L->sy + (ptrdiff_t)k * L->sz);
}
/* diag and inv_diag from a fluid mask stored in L->scratch (1 = fluid, 0 = not; ghosts ignored) */
void eddy__plevel_build_diag(eddy_plevel *L, int threads);
/* copy periodic sides into the ghosts of `v` */
void eddy__plevel_fill_ghosts(const eddy_plevel *L, float *v, int threads);
/* out = A in (0 where not solved); returns sum in*out when `dot` is set (deterministic) */
double eddy__plevel_apply(const eddy_plevel *L, float *in, float *out, bool dot, double *partial, int threads);
/* r = (b - A x) * scale, scale = inv_weight when `weighted`, else 1 (0 where not solved); x ghosts refreshed */
void eddy__plevel_residual(const eddy_plevel *L, float *x, const float *b, float *r, bool weighted, int threads);
/* |b - A x|^2 over solved cells */
double eddy__plevel_residual_norm2(const eddy_plevel *L, float *x, const float *b, double *partial, int threads);
/* red-black Gauss-Seidel half sweep over cells of colour (i+j+k) % 2 == colour, over-relaxed by omega;
 * `zero_start`: x is taken as 0 and both colours are written (the other one as 0) */
void eddy__plevel_half_sweep(const eddy_plevel *L, float *x, const float *b, int colour, float omega,
                             bool zero_start, int threads);
/* out = D^-1 (b + sum of neighbours of in): one Jacobi iteration */
void eddy__plevel_jacobi(const eddy_plevel *L, float *in, float *out, const float *b, int threads);
/* sum a*b over solved cells (deterministic) */
double eddy__plevel_dot(const eddy_plevel *L, const float *a, const float *b, double *partial, int threads);
/* sum of a[i]*b[i] over one row, and of a[i] where d[i] > 0, in eight fixed lanes (same bytes for any SIMD width) */
double eddy__row_dot(const float *restrict a, const float *restrict b, int n);
double eddy__row_masked_sum(const float *restrict a, const float *restrict d, int n);
/* serial sum of the row partials, in row order */
double eddy__sum_rows(const double *partial, int rows);
/* flood-fills the pure-Neumann components of the level (serial; at build time); `list` holds one entry per cell */
eddy_status eddy__plevel_label(eddy_plevel *L, size_t *list);
/* subtracts, in each pure-Neumann component, the mean of v over its cells */
void eddy__plevel_remove_mean(eddy_plevel *L, float *v, double *partial, int threads);

/* ---- poisson_iterative.c ---- */
/* exactly `iterations` Jacobi iterations from x = 0; the result is in P->sol */
void eddy__poisson_jacobi(eddy_poisson *P, int iterations);
/* red-black SOR from x = 0 until |r| <= tol*|b| (checked every few iterations) or max_iterations;
 * returns the iterations done */
int eddy__poisson_rbgs(eddy_poisson *P, float omega, double tol, double bnorm, int max_iterations);

/* ---- poisson_mg.c ---- */
eddy_status eddy__poisson_mg_alloc(eddy_poisson *P, int dim, const int n[3], const bool periodic[3],
                                   const bool outflow[6]);
/* builds coarse operators, interpolation weights and the coarsest components after level 0 changed */
eddy_status eddy__poisson_mg_build(eddy_poisson *P);
/* out = M^-1 in: one symmetric V-cycle from a zero guess (a fixed SPD linear operator) */
void eddy__poisson_vcycle(eddy_poisson *P, float *in, float *out);
/* conjugate gradient preconditioned by the V-cycle from x = 0; returns the iterations done */
int eddy__poisson_mgpcg(eddy_poisson *P, double tol, double bnorm, int max_iterations);

#endif
