/* Implicit viscosity and scalar diffusion on the device (diffuse.c): one backward Euler step
 *     (I - nu dt L) q^{n+1} = q*
 * per velocity component (on its faces) and per scalar (on the scalar grid), solved by Jacobi-preconditioned
 * conjugate gradient to 1e-6 of max(|b|, |r0|), matrix-free, A applied in differences form, the constant mode
 * deflated in zero-flux systems (exact conservation). Boundary rows, couplings and the folding of boundary values
 * into the right-hand side are diffuse.c's, element for element; fixed elements are identity rows. The host reads
 * the reduced sums twice per iteration to take the same decisions as the CPU loop. */
#include "cu_sim.cuh"

namespace ecu {

#define DIFFUSE_TOLERANCE 1e-6
#define DIFFUSE_MAX_COEFFICIENT 1e12

struct DSys {
    float *x;
    int n[3];
    int ext[3];
    int wrap[3];
    float c[3];
    int dim;
    int comp; /* velocity component, or -1 for a scalar */
};

struct DiffuseWS {
    float *r, *p, *q, *diag, *base; /* base: 1 + Dirichlet weights; diag: base + coupled weights (Jacobi) */
    uint8_t *fixed, *links;
};

/* boundary.c eddy__face_fixed */
__device__ inline bool face_fixed(const Geo &g, const uint8_t *__restrict__ solid, int a, int i, int j, int k) {
    int c[3] = {i, j, k};
    int ia = c[a], n = g.n[a];
    if (!g.periodic[a]) {
        if (ia == 0) return g.btype[2 * a] != EDDY_BOUNDARY_OUTFLOW;
        if (ia == n) return g.btype[2 * a + 1] != EDDY_BOUNDARY_OUTFLOW;
    }
    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[a] = wrapi(ia - 1, n);
    hi[a] = wrapi(ia, n);
    return solid[idx3(g.n, lo[0], lo[1], lo[2])] || solid[idx3(g.n, hi[0], hi[1], hi[2])];
}

__global__ void k_dif_fixed(Geo g, DSys sys, const uint8_t *__restrict__ solid, uint8_t *__restrict__ fixed) {
    ECU_IJK(sys.n[0], sys.n[1]);
    if (!inside_) return;
    size_t e = idx3(sys.n, i, j, k);
    const int a = sys.comp;
    if (a < 0) {
        fixed[e] = solid[idx3(g.n, i / g.ds[0], j / g.ds[1], k / g.ds[2])] != 0;
        return;
    }
    int c[3] = {i, j, k};
    fixed[e] = (g.periodic[a] && c[a] == g.n[a]) || face_fixed(g, solid, a, i, j, k);
}

/* per-block partial of one sum into slot s (partials + s * stride) */
#define DIF_PARTIAL(s, v)                                                   \
    do {                                                                    \
        double v_ = block_reduce<RED_SUM>((v), sh);                         \
        if (ECU_THREAD0()) partials[(size_t)(s) * stride + blk] = v_;       \
    } while (0)

/* diffuse.c setup_system: couplings, base and Jacobi diagonals, boundary values folded into the rhs,
 * r = rhs - (base x + sum c (x - x_nb)). Sums (slots 0..5): |rhs|^2, |r|^2, sum rhs, sum r, unknowns, Dirichlet terms */
__global__ void k_dif_setup(Geo g, DSys sys, const uint8_t *__restrict__ fixed, uint8_t *__restrict__ links_out,
                            float *__restrict__ base_out, float *__restrict__ diag_out, float *__restrict__ r_out,
                            double *partials, size_t stride) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double b2 = 0.0, r2 = 0.0, bsum = 0.0, rsum = 0.0, unknowns = 0.0, dirichlet = 0.0;
    if (inside_) {
        const size_t e = idx3(sys.n, i, j, k);
        const size_t stride_[3] = {1, (size_t)sys.n[0], (size_t)sys.n[0] * (size_t)sys.n[1]};
        const int a = sys.comp;
        const float *x = sys.x;
        if (fixed[e]) {
            links_out[e] = 0;
            base_out[e] = diag_out[e] = 1.0f;
            r_out[e] = 0.0f;
        } else {
            const int c[3] = {i, j, k};
            float base = 1.0f, rhs = x[e], coupled = 0.0f, coupled_weight = 0.0f;
            uint8_t links = 0;
#pragma unroll
            for (int b = 0; b < 3; b++) {
                if (b >= sys.dim) break;
                float cb = sys.c[b];
#pragma unroll
                for (int side = 0; side < 2; side++) {
                    int ib = c[b] + (side ? 1 : -1);
                    if (sys.wrap[b]) {
                        ib = ib < 0 ? sys.ext[b] - 1 : (ib >= sys.ext[b] ? 0 : ib);
                    } else if (ib < 0 || ib >= sys.ext[b]) {
                        if (a < 0 || b == a) continue;
                        int bt = g.btype[2 * b + side];
                        if (bt == EDDY_BOUNDARY_NOSLIP) {
                            base += 2.0f * cb;
                            dirichlet += 1.0;
                        } else if (bt == EDDY_BOUNDARY_MOVING || bt == EDDY_BOUNDARY_INFLOW) {
                            base += 2.0f * cb;
                            rhs += 2.0f * cb * g.bvel[2 * b + side][a];
                            dirichlet += 1.0;
                        }
                        continue;
                    }
                    size_t gq = (size_t)((ptrdiff_t)e + ((ptrdiff_t)ib - c[b]) * (ptrdiff_t)stride_[b]);
                    if (fixed[gq]) {
                        if (a < 0) continue;
                        float w = b == a ? cb : 2.0f * cb;
                        base += w;
                        rhs += w * x[gq];
                        dirichlet += 1.0;
                    } else {
                        coupled_weight += cb;
                        coupled += cb * (x[e] - x[gq]);
                        links |= (uint8_t)(1u << (2 * b + side));
                    }
                }
            }
            float res = rhs - (base * x[e] + coupled);
            links_out[e] = links;
            base_out[e] = base;
            diag_out[e] = base + coupled_weight;
            r_out[e] = res;
            b2 = (double)rhs * rhs;
            r2 = (double)res * res;
            bsum = rhs;
            rsum = res;
            unknowns = 1.0;
        }
    }
    size_t blk = ECU_BLOCK_ID();
    DIF_PARTIAL(0, b2);
    DIF_PARTIAL(1, r2);
    DIF_PARTIAL(2, bsum);
    DIF_PARTIAL(3, rsum);
    DIF_PARTIAL(4, unknowns);
    DIF_PARTIAL(5, dirichlet);
}

__global__ void k_dif_zero(DSys sys, const uint8_t *__restrict__ fixed) {
    ECU_IJK(sys.n[0], sys.n[1]);
    if (!inside_) return;
    size_t e = idx3(sys.n, i, j, k);
    if (!fixed[e]) sys.x[e] = 0.0f;
}

/* r -= r_mean on the unknowns, p = 0; sums r.z, r.r, sum z, sum r (z = D^-1 r) */
__global__ void k_dif_start(DSys sys, const uint8_t *__restrict__ fixed, float *__restrict__ r, const float *__restrict__ diag,
                            float *__restrict__ p, float r_mean, double *partials, size_t stride) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double rz = 0.0, rr = 0.0, zsum = 0.0, rsum = 0.0;
    if (inside_) {
        size_t e = idx3(sys.n, i, j, k);
        p[e] = 0.0f;
        if (!fixed[e]) {
            float re = r[e] - r_mean;
            float z = re / diag[e];
            r[e] = re;
            rz = (double)re * z;
            rr = (double)re * re;
            zsum = z;
            rsum = re;
        }
    }
    size_t blk = ECU_BLOCK_ID();
    DIF_PARTIAL(0, rz);
    DIF_PARTIAL(1, rr);
    DIF_PARTIAL(2, zsum);
    DIF_PARTIAL(3, rsum);
}

/* q = base p + sum c (p - p_nb); sums p.q, sum q (diffuse.c apply_operator) */
__global__ void k_dif_apply(DSys sys, const uint8_t *__restrict__ links, const float *__restrict__ base,
                            const float *__restrict__ p, float *__restrict__ q, double *partials, size_t stride) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double pq = 0.0, qsum = 0.0;
    if (inside_) {
        const int n0 = sys.n[0];
        size_t e = idx3(sys.n, i, j, k);
        ptrdiff_t ym = j > 0 ? -(ptrdiff_t)n0 : (ptrdiff_t)(sys.ext[1] - 1) * n0;
        ptrdiff_t yp = j + 1 < sys.ext[1] ? (ptrdiff_t)n0 : -(ptrdiff_t)j * n0;
        ptrdiff_t zm = 0, zp = 0;
        if (sys.dim == 3) {
            ptrdiff_t sz = (ptrdiff_t)n0 * sys.n[1];
            zm = k > 0 ? -sz : (ptrdiff_t)(sys.ext[2] - 1) * sz;
            zp = k + 1 < sys.ext[2] ? sz : -(ptrdiff_t)k * sz;
        }
        unsigned l = links[e];
        float sx = 0.0f, sy = 0.0f, sz = 0.0f;
        const float pe = p[e];
        if (l & 1u) sx += pe - p[i > 0 ? e - 1 : e + (size_t)(sys.ext[0] - 1)];
        if (l & 2u) sx += pe - p[i + 1 < sys.ext[0] ? e + 1 : e - (size_t)i];
        if (l & 4u) sy += pe - p[(ptrdiff_t)e + ym];
        if (l & 8u) sy += pe - p[(ptrdiff_t)e + yp];
        if (l & 16u) sz += pe - p[(ptrdiff_t)e + zm];
        if (l & 32u) sz += pe - p[(ptrdiff_t)e + zp];
        float qe = base[e] * pe + (sys.c[0] * sx + sys.c[1] * sy + sys.c[2] * sz);
        q[e] = qe;
        pq = (double)pe * qe;
        qsum = qe;
    }
    size_t blk = ECU_BLOCK_ID();
    DIF_PARTIAL(0, pq);
    DIF_PARTIAL(1, qsum);
}

/* x += alpha p, r -= alpha (q - q_mean) on the unknowns; sums r.z, r.r, sum z, sum r */
__global__ void k_dif_update(DSys sys, const uint8_t *__restrict__ fixed, float alpha, float q_mean, const float *__restrict__ p,
                             const float *__restrict__ q, float *__restrict__ r, const float *__restrict__ diag,
                             double *partials, size_t stride, Flags fl, int field) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double rz = 0.0, rr = 0.0, zsum = 0.0, rsum = 0.0;
    if (inside_) {
        size_t e = idx3(sys.n, i, j, k);
        if (!fixed[e]) {
            float xe = sys.x[e] + alpha * p[e];
            sys.x[e] = xe;
            flag_if_bad(fl, xe, field);
            float re = r[e] - alpha * (q[e] - q_mean);
            float z = re / diag[e];
            r[e] = re;
            rz = (double)re * z;
            rr = (double)re * re;
            zsum = z;
            rsum = re;
        }
    }
    size_t blk = ECU_BLOCK_ID();
    DIF_PARTIAL(0, rz);
    DIF_PARTIAL(1, rr);
    DIF_PARTIAL(2, zsum);
    DIF_PARTIAL(3, rsum);
}

/* p = D^-1 r - z_mean + beta p on the unknowns, 0 on fixed rows */
__global__ void k_dif_direction(DSys sys, const uint8_t *__restrict__ fixed, float beta, float z_mean, const float *__restrict__ r,
                                const float *__restrict__ diag, float *__restrict__ p) {
    ECU_IJK(sys.n[0], sys.n[1]);
    if (!inside_) return;
    size_t e = idx3(sys.n, i, j, k);
    p[e] = fixed[e] ? 0.0f : (r[e] / diag[e] - z_mean) + beta * p[e];
}

/* sum of x over the unknowns (slot 0) */
__global__ void k_dif_sum_unknowns(DSys sys, const uint8_t *__restrict__ fixed, double *partials, size_t stride) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double acc = 0.0;
    if (inside_) {
        size_t e = idx3(sys.n, i, j, k);
        if (!fixed[e]) acc = sys.x[e];
    }
    size_t blk = ECU_BLOCK_ID();
    DIF_PARTIAL(0, acc);
}

/* x += shift on the unknowns: the exact total of a zero-flux system */
__global__ void k_dif_shift(DSys sys, const uint8_t *__restrict__ fixed, float shift) {
    ECU_IJK(sys.n[0], sys.n[1]);
    if (!inside_) return;
    size_t e = idx3(sys.n, i, j, k);
    if (!fixed[e]) sys.x[e] += shift;
}

/* allocates the solver's vectors once any diffusion is on (at creation, or later through eddy_sim_set_def) */
eddy_status diffuse_init(cu_sim *c) {
    const eddy_sim_def &d = c->s->def;
    if (c->dif || !(d.viscosity > 0 || d.dye_diffusion > 0 || d.temperature_diffusion > 0)) return EDDY_OK;
    c->dif = (DiffuseWS *)calloc(1, sizeof(DiffuseWS));
    if (!c->dif) return eddy__fail(c->s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    size_t cap = c->nscalar;
    for (int a = 0; a < c->g.dim; a++) cap = c->nface[a] > cap ? c->nface[a] : cap;
    DiffuseWS *w = c->dif;
    eddy_status st = EDDY_OK;
    float **fl[5] = {&w->r, &w->p, &w->q, &w->diag, &w->base};
    for (int i = 0; i < 5 && st == EDDY_OK; i++) st = dev_alloc(c, (void **)fl[i], cap * sizeof(float), "diffusion vectors");
    if (st == EDDY_OK) st = dev_alloc(c, (void **)&w->fixed, cap, "diffusion flags");
    if (st == EDDY_OK) st = dev_alloc(c, (void **)&w->links, cap, "diffusion links");
    return st;
}

void diffuse_free(cu_sim *c) {
    if (!c->dif) return;
    DiffuseWS *w = c->dif;
    void *b[] = {w->r, w->p, w->q, w->diag, w->base, w->fixed, w->links};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) cudaFree(b[i]);
    free(w);
    c->dif = nullptr;
}

static float coefficient(double k, double dt, double spacing) {
    double cc = k * dt / (spacing * spacing);
    return (float)(cc < DIFFUSE_MAX_COEFFICIENT ? cc : DIFFUSE_MAX_COEFFICIENT);
}

/* reduces `count` sums (partial slots R_SCRATCH0 + 0..count-1) and waits for them */
static cudaError_t sums(cu_sim *c, int count, size_t nblocks, double out[6]) {
    int slots[6], ops[6];
    for (int k = 0; k < count; k++) {
        slots[k] = R_SCRATCH0 + k;
        ops[k] = RED_SUM;
    }
    cudaError_t e = finalize_reductions(c, slots, ops, count, nblocks);
    if (e == cudaSuccess) e = cudaMemcpyAsync(c->h_rb->red + R_SCRATCH0, c->d_rb->red + R_SCRATCH0, (size_t)count * sizeof(double),
                                              cudaMemcpyDeviceToHost, c->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
    for (int k = 0; k < count; k++) out[k] = c->h_rb->red[R_SCRATCH0 + k];
    return e;
}

/* diffuse.c solve: Jacobi-preconditioned CG, the constant deflated in zero-flux systems, the target relative to
 * max(|rhs|, |r0|); the host takes the CPU loop's decisions from the reduced sums */
static cudaError_t solve(cu_sim *c, const DSys &sys, int field) {
    DiffuseWS *w = c->dif;
    dim3 gr = tiles(sys.n[0], sys.n[1], sys.n[2]), bl = tile_block();
    size_t nb = ECU_BLOCKS(gr);
    double *P = c->partials + (size_t)R_SCRATCH0 * c->partial_stride;
    size_t ps = c->partial_stride;
    k_dif_fixed<<<gr, bl, 0, c->stream>>>(c->g, sys, c->solid, w->fixed);
    k_dif_setup<<<gr, bl, 0, c->stream>>>(c->g, sys, w->fixed, w->links, w->base, w->diag, w->r, P, ps);
    double setup[6], s4[6];
    cudaError_t e = sums(c, 6, nb, setup);
    if (e != cudaSuccess) return e;
    const double unknowns = setup[4];
    const bool deflate = setup[5] == 0.0 && unknowns > 0;
    double rr = setup[1], bnorm = sqrt(setup[0]);
    double scale = bnorm > sqrt(rr) ? bnorm : sqrt(rr), target = DIFFUSE_TOLERANCE * scale;
    if (bnorm == 0.0) {
        k_dif_zero<<<gr, bl, 0, c->stream>>>(sys, w->fixed);
        return cudaGetLastError();
    }
    const int max_iterations = 100 + 4 * (sys.ext[0] + sys.ext[1] + sys.ext[2]);
    int iterations = 0;
    double rz = 0.0;
    Flags fl = flags_for(c);
    if (sqrt(rr) > target) {
        k_dif_start<<<gr, bl, 0, c->stream>>>(sys, w->fixed, w->r, w->diag, w->p, deflate ? (float)(setup[3] / unknowns) : 0.0f, P, ps);
        if ((e = sums(c, 4, nb, s4)) != cudaSuccess) return e;
        float z_mean = deflate ? (float)(s4[2] / unknowns) : 0.0f;
        rz = s4[0] - z_mean * s4[3];
        rr = s4[1];
        k_dif_direction<<<gr, bl, 0, c->stream>>>(sys, w->fixed, 0.0f, z_mean, w->r, w->diag, w->p);
    }
    while (sqrt(rr) > target && iterations < max_iterations) {
        k_dif_apply<<<gr, bl, 0, c->stream>>>(sys, w->links, w->base, w->p, w->q, P, ps);
        if ((e = sums(c, 2, nb, s4)) != cudaSuccess) return e;
        double pq = s4[0];
        if (!(pq > 0.0) || !(rz > 0.0)) break;
        float q_mean = deflate ? (float)(s4[1] / unknowns) : 0.0f;
        k_dif_update<<<gr, bl, 0, c->stream>>>(sys, w->fixed, (float)(rz / pq), q_mean, w->p, w->q, w->r, w->diag, P, ps, fl, field);
        if ((e = sums(c, 4, nb, s4)) != cudaSuccess) return e;
        iterations++;
        rr = s4[1];
        if (sqrt(rr) <= target) break;
        float z_mean = deflate ? (float)(s4[2] / unknowns) : 0.0f;
        double rz_new = s4[0] - z_mean * s4[3];
        k_dif_direction<<<gr, bl, 0, c->stream>>>(sys, w->fixed, (float)(rz_new / rz), z_mean, w->r, w->diag, w->p);
        rz = rz_new;
    }
    if (deflate) {
        k_dif_sum_unknowns<<<gr, bl, 0, c->stream>>>(sys, w->fixed, P, ps);
        if ((e = sums(c, 1, nb, s4)) != cudaSuccess) return e;
        k_dif_shift<<<gr, bl, 0, c->stream>>>(sys, w->fixed, (float)((setup[2] - s4[0]) / unknowns));
    }
    return cudaGetLastError();
}

cudaError_t launch_diffuse(cu_sim *c, float dt) {
    const eddy_sim_def &d = c->s->def;
    const Geo &g = c->g;
    cudaError_t e = cudaSuccess;
    if (d.viscosity > 0) {
        for (int a = 0; a < g.dim && e == cudaSuccess; a++) {
            DSys sys;
            sys.x = c->vel[a];
            sys.dim = g.dim;
            sys.comp = a;
            face_dims(g, a, sys.n);
            for (int b = 0; b < 3; b++) {
                sys.wrap[b] = g.periodic[b];
                sys.ext[b] = g.periodic[b] ? g.n[b] : sys.n[b];
                sys.c[b] = b < g.dim ? coefficient(d.viscosity, dt, g.h) : 0.0f;
            }
            e = solve(c, sys, EDDY_FIELD_U + a);
            if (e == cudaSuccess && g.periodic[a]) e = launch_periodic_copy(c, a);
        }
    }
    for (int f = 0; f < 4 && e == cudaSuccess; f++) {
        float k = f < 3 ? d.dye_diffusion : d.temperature_diffusion;
        if (!(k > 0) || !(c->scalar_live & (1u << f))) continue;
        DSys sys;
        sys.x = f < 3 ? c->dye[f] : c->temp;
        sys.dim = g.dim;
        sys.comp = -1;
        for (int b = 0; b < 3; b++) {
            sys.n[b] = g.sn[b];
            sys.wrap[b] = g.periodic[b];
            sys.ext[b] = g.sn[b];
            sys.c[b] = b < g.dim ? coefficient(k, dt, g.sh[b]) : 0.0f;
        }
        e = solve(c, sys, EDDY_FIELD_DYE_R + f);
    }
    return e;
}

} /* namespace ecu */
