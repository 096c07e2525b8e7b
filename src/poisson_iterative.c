/* Stationary iterations for the pressure system A x = b (see poisson.h), both from x = 0:
 *  - Jacobi, x <- D^-1 (b + (D - A) x), a fixed number of times: the classic real-time projection (Stam 2003,
 *    "Real-Time Fluid Dynamics for Games"; Harris 2004, GPU Gems ch. 38). Its error shrinks per iteration by the
 *    spectral radius of I - D^-1 A, cos(pi/n) on an n^d periodic grid of odd n, so it needs O(n^2) iterations.
 *  - Red-black Gauss-Seidel with over-relaxation omega (SOR; Young 1950), iterated to a relative residual.
 *    Plain Gauss-Seidel (omega = 1) converges at cos^2(pi/n) per iteration; the optimal omega = 2/(1+sin(pi/n))
 *    brings that to about 1 - 2 pi/n. The red-black order makes each half sweep parallel and thread-independent. */
#include "poisson.h"

#include <math.h>
#include <string.h>

/* residual norm checks of SOR: every this many iterations (each check costs about one half sweep) */
#define RBGS_CHECK_EVERY 8
/* |r| beyond this many |b| means SOR is diverging. A true red-black sweep is a sequence of single-cell relaxations,
 * none of which raises the A-norm of the error for 0 < omega < 2, so |r| <= sqrt(lambda_max / lambda_min) |b|, under
 * 4e9 |b| even for 2^31 cells in one snake-shaped region. Only a sweep that is not a true red-black order does
 * more: on a periodic axis of odd length the first and last cells of a line share a colour and are updated
 * together, and with omega > 1 that pair can grow without bound (7 x 13 periodic in x, omega 1.9: |r| / |b| = 1e29
 * after 400 iterations, then infinities and NaN in the velocity). */
#define RBGS_DIVERGED 1e12

void eddy__poisson_jacobi(eddy_poisson *P, int iterations, double *residual2) {
    eddy_plevel *L = &P->levels[0];
    float *in = P->sol, *out = P->res;
    memset(in, 0, L->count * sizeof(float));
    for (int it = 0; it < iterations; it++) {
        eddy__plevel_jacobi(L, in, out, P->rhs, P->threads);
        float *t = in;
        in = out;
        out = t;
    }
    /* the last iterate is in `in`: make it the solution (the two buffers are both owned by P) */
    P->sol = in;
    P->res = out;
    *residual2 = eddy__plevel_residual_norm2(L, P->sol, P->rhs, P->partial, P->threads);
}

int eddy__poisson_rbgs(eddy_poisson *P, float omega, double tol, double bnorm, int max_iterations, double *residual2,
                       bool *diverged) {
    eddy_plevel *L = &P->levels[0];
    float *x = P->sol;
    *diverged = false;
    for (int it = 1; it <= max_iterations; it++) {
        eddy__plevel_sweep_pair(L, x, P->rhs, 0, omega, it == 1, NULL, P->threads);
        if (it % RBGS_CHECK_EVERY == 0 || it == max_iterations) {
            *residual2 = eddy__plevel_residual_norm2(L, x, P->rhs, P->partial, P->threads);
            if (sqrt(*residual2) <= tol * bnorm) return it;
            if (!(sqrt(*residual2) <= RBGS_DIVERGED * bnorm)) { /* also NaN */
                *diverged = true;
                return it;
            }
        }
    }
    return max_iterations;
}
