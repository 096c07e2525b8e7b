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

/* The projection's solver defaults and MGPCG's refinement cap, shared by both backends (project.c, k_project.cu):
 * iterations where pressure.max_iterations is 0; at most MGPCG_MAX_REFINEMENTS refinements, and only while each at
 * least halves |r| (|r|^2 falls 4x), so a tolerance below what the velocity's own rounding allows ends fast. */
#define MGPCG_DEFAULT_ITERATIONS 200
#define RBGS_DEFAULT_ITERATIONS 20000
#define JACOBI_DEFAULT_ITERATIONS 60
#define MGPCG_MAX_REFINEMENTS 2

#include <stddef.h>
#include <string.h>

/* Four-float vectors (GCC/Clang vector extensions: SSE on x86-64, NEON on ARM) for the loops whose selects the
 * auto-vectoriser leaves scalar. Every operation is element-wise, so each lane computes exactly what the scalar
 * tail computes and the bytes do not depend on the vector width. */
typedef float eddy_v4f __attribute__((vector_size(16)));
typedef int32_t eddy_v4i __attribute__((vector_size(16)));
typedef float eddy_v2f __attribute__((vector_size(8)));
typedef double eddy_v2d __attribute__((vector_size(16)));
static inline eddy_v4f eddy_v4_load(const float *p) {
    eddy_v4f v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void eddy_v4_store(float *p, eddy_v4f v) { memcpy(p, &v, sizeof v); }
/* two floats widened to doubles */
static inline eddy_v2d eddy_v2_load_wide(const float *p) {
    eddy_v2f v;
    memcpy(&v, p, sizeof v);
    return __builtin_convertvector(v, eddy_v2d);
}
static inline eddy_v4f eddy_v4_all(float a) { return (eddy_v4f){a, a, a, a}; }
/* lanes of a where m is all ones, of b where m is 0 */
static inline eddy_v4f eddy_v4_select(eddy_v4i m, eddy_v4f a, eddy_v4f b) {
    return (eddy_v4f)(((eddy_v4i)a & m) | ((eddy_v4i)b & ~m));
}
/* all ones where v > 0 */
static inline eddy_v4i eddy_v4_positive(eddy_v4f v) { return (eddy_v4i)(v > eddy_v4_all(0.0f)); }

/* 1D transfer between a level (nf cells along an axis) and the next coarser one (nc cells). Prolongation is
 * cell-centred linear interpolation: fine cell i takes pw[2i] * coarse[pc[2i]] + pw[2i+1] * coarse[pc[2i+1]]
 * (3/4 of its parent, 1/4 of the parent's neighbour on its side; behind a wall that neighbour is missing (weight
 * 0, the normalisation by the weights of the solved parents takes over), behind an outflow side it is the
 * odd reflection of the parent (3/4 - 1/4 = 1/2 on the parent, x = 0 on the side). nw holds the weights used
 * for the normalisation sums (an outflow neighbour counts as present). Restriction is the transpose of pw divided
 * by 2 (an average): coarse c takes sum_{e<4} rw[4c+e] * fine[rf[4c+e]]. An axis too short to coarsen (nc = nf)
 * has identity tables. */
typedef struct eddy_paxis {
    int nf, nc;
    bool coarsened;
    int *pc;
    float *pw, *nw;
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
    /* labelling work space: runs of solved cells, at most `run_slots` per row (slot row*run_slots + r) */
    int run_slots;
    int32_t *row_runs, *run_start, *run_end, *run_parent, *run_id;
    uint8_t *run_dirichlet;
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
    float dirichlet_factor[3]; /* outflow side coupling = w * factor (1 on level 0, see poisson_mg.c) */
    float *diag;       /* sum of couplings of open faces; 0 = not solved. Ghosts copy across periodic axes. */
    float *inv_diag;   /* 1 / diag, 0 where diag = 0 */
    float *inv_weight; /* multigrid: 1 / (sum of interpolation weights of fluid parents), 0 where not solved */
    float *x, *b, *r;  /* solution, right-hand side, residual; level 0 borrows x and b from the caller */
    float *scratch;    /* per-level scratch (fluid mask at build time) */
    eddy_paxis axis[3];/* transfer to the next coarser level (unused on the coarsest) */
    eddy_pcomponents comps; /* built on level 0 and on the coarsest level */
} eddy_plevel;

/* for (row = 0; row < rows; row++) stmt; split over an OpenMP team in fixed blocks (schedule static) when `par`
 * and threads > 1, else a plain loop: entering the OpenMP runtime, even for a team of one, costs more than the
 * work of a small grid level. */
#define EDDY_FOR_ROWS(par, threads, rows, stmt)                                                          \
    do {                                                                                                 \
        const int eddy_rows_ = (rows), eddy_threads_ = (threads);                                        \
        if ((par) && eddy_threads_ > 1) {                                                                \
            _Pragma("omp parallel for num_threads(eddy_threads_) schedule(static)")                     \
            for (int row = 0; row < eddy_rows_; row++) stmt;                                             \
        } else {                                                                                         \
            for (int row = 0; row < eddy_rows_; row++) stmt;                                             \
        }                                                                                                \
    } while (0)

/* Multigrid parameters (poisson_mg.c). */
enum {
    EDDY_MG_SMOOTH = 2,           /* red-black Gauss-Seidel sweeps before and after the coarse correction */
    EDDY_MG_SMOOTH_COARSE_3D = 3, /* the same on 3D levels below the finest (see EDDY_MG_SWEEPS) */
    EDDY_MG_COARSEST_SWEEPS = 24  /* symmetric sweep pairs on the coarsest level (at most 3 cells per axis) */
};
/* Sweeps before and after the coarse correction on level `level` of a `dim`-D hierarchy. A 3D V-cycle converged
 * no better than its coarse levels' solves: one sweep more on every 3D level below the finest takes the smoke
 * scene at 128^3 and 256^3 from 5 MGPCG iterations to 4 at 1e-5 (the 4th iteration's residual 2.8e-5 -> 7-9e-6),
 * for ~1/7 of a finest-level sweep per sweep added. In 2D the coarse levels are 1/4 of their parent and 2048^2 already
 * converges in 4 (the device's 2D passes are built for exactly two sweeps), so 2D keeps 2. */
#define EDDY_MG_SWEEPS(dim, level) ((dim) == 3 && (level) > 0 ? (int)EDDY_MG_SMOOTH_COARSE_3D : (int)EDDY_MG_SMOOTH)

struct eddy_poisson {
    eddy_plevel *levels; /* levels[0] is the simulation grid */
    int nlevels;
    int threads;
    float *sol, *rhs;            /* solution x and right-hand side b on level 0 (padded) */
    float *res, *z, *p, *q;      /* conjugate gradient vectors (padded) */
    float *t1, *t2;              /* separable transfer temporaries, sized for level 0 -> 1 */
    double *partial;             /* two slots per row of level 0 */
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
/* one row of eddy__plevel_residual (ghosts of x already filled) */
void eddy__plevel_residual_row(const eddy_plevel *L, const float *x, const float *b, float *r, bool weighted, int row);
/* |b - A x|^2 over solved cells */
double eddy__plevel_residual_norm2(const eddy_plevel *L, float *x, const float *b, double *partial, int threads);
/* red-black Gauss-Seidel: a half sweep over the cells of colour `first` ((i+j+k) % 2), then one over the other
 * colour, fused into one pass (same result), over-relaxed by omega; `zero_start` takes x as 0. When `partial` is
 * set, returns sum b*x after the pass (deterministic), else 0 */
double eddy__plevel_sweep_pair(const eddy_plevel *L, float *x, const float *b, int first, float omega, bool zero_start,
                               double *partial, int threads);
/* p = z + beta p, then q = A p, fused into one pass; returns sum p*q (deterministic) */
double eddy__plevel_direction_apply(const eddy_plevel *L, float *p, const float *z, float beta, float *q,
                                    double *partial, int threads);
/* out = D^-1 (b + sum of neighbours of in): one Jacobi iteration */
void eddy__plevel_jacobi(const eddy_plevel *L, float *in, float *out, const float *b, int threads);
/* sum a*b over solved cells (deterministic) */
double eddy__plevel_dot(const eddy_plevel *L, const float *a, const float *b, double *partial, int threads);
/* sum of a[i]*b[i] over one row, and of a[i] where d[i] > 0, in eight fixed lanes (same bytes for any SIMD width) */
double eddy__row_dot(const float *restrict a, const float *restrict b, int n);
double eddy__row_masked_sum(const float *restrict a, const float *restrict d, int n);
/* x[i] += a where d[i] > 0 */
void eddy__row_masked_add(float *restrict x, const float *restrict d, float a, int n);
/* serial sum of the row partials, in row order */
double eddy__sum_rows(const double *partial, int rows);
/* work space of eddy__plevel_label (allocated once) */
eddy_status eddy__plevel_alloc_components(eddy_plevel *L);
/* finds the pure-Neumann components of the level (at build time) */
void eddy__plevel_label(eddy_plevel *L, int threads);
/* subtracts, in each pure-Neumann component, the mean of v over its cells */
void eddy__plevel_remove_mean(eddy_plevel *L, float *v, double *partial, int threads);

/* ---- poisson_iterative.c ---- */
/* exactly `iterations` Jacobi iterations from x = 0; the result is in P->sol, |b - Ax|^2 in residual2 */
void eddy__poisson_jacobi(eddy_poisson *P, int iterations, double *residual2);
/* red-black SOR from x = 0 until |r| <= tol*|b| (checked every few iterations) or max_iterations;
 * returns the iterations done and |b - Ax|^2 in residual2. *diverged: stopped because |r| grew past any bound a
 * convergent sweep allows (omega > 1 on a periodic axis of odd length); x is then not a solution */
int eddy__poisson_rbgs(eddy_poisson *P, float omega, double tol, double bnorm, int max_iterations, double *residual2,
                       bool *diverged);

/* ---- poisson_mg.c ---- */
eddy_status eddy__poisson_mg_alloc(eddy_poisson *P, int dim, const int n[3], const bool periodic[3],
                                   const bool outflow[6]);
/* builds coarse operators, interpolation weights and the coarsest components after level 0 changed */
eddy_status eddy__poisson_mg_build(eddy_poisson *P);
/* out = M^-1 in: one symmetric V-cycle from a zero guess (a fixed SPD linear operator); returns sum in*out */
double eddy__poisson_vcycle(eddy_poisson *P, float *in, float *out);
/* conjugate gradient preconditioned by the V-cycle from x = 0 (or P->sol) until the recurrence's residual is at most
 * tol |b| (*converged), a breakdown or max_iterations; returns the iterations done and the recomputed |b - Ax|^2 of
 * the result in residual2 (the projection refines through the velocity when that misses the tolerance: project.c).
 * warm: start from the x already in P->sol (else from 0); *initial2 receives |b - A x0|^2 (mean-free) */
int eddy__poisson_mgpcg(eddy_poisson *P, double tol, double bnorm, int max_iterations, bool warm, double *initial2,
                        double *residual2, bool *converged);

#endif
