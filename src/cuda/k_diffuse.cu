/* Implicit viscosity and scalar diffusion on the device (diffuse.c): one backward Euler step
 *     (I - nu dt L) q^{n+1} = q*
 * per velocity component (on its faces) and per scalar (on the scalar grid), solved by Jacobi-preconditioned
 * conjugate gradient to |r|/|b| <= 1e-6, matrix-free. Boundary rows, couplings and the folding of boundary values
 * into the right-hand side are diffuse.c's, element for element; fixed elements are identity rows. The host reads
 * two reduced scalars per iteration (p.q, then r.r) to take the same decisions as the CPU loop. */
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
    float *r, *p, *q, *diag;
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

/* diffuse.c setup_system: couplings, diagonal, boundary values folded into the rhs, r = rhs - A x */
__global__ void k_dif_setup(Geo g, DSys sys, const uint8_t *__restrict__ fixed, uint8_t *__restrict__ links_out,
                            float *__restrict__ diag_out, float *__restrict__ r_out, double *partials, size_t stride,
                            int slot_b, int slot_r) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double b2 = 0.0, r2 = 0.0;
    if (inside_) {
        const size_t e = idx3(sys.n, i, j, k);
        const size_t stride_[3] = {1, (size_t)sys.n[0], (size_t)sys.n[0] * (size_t)sys.n[1]};
        const int a = sys.comp;
        const float *x = sys.x;
        if (fixed[e]) {
            links_out[e] = 0;
            diag_out[e] = 1.0f;
            r_out[e] = 0.0f;
        } else {
            int c[3] = {i, j, k};
            float diag = 1.0f, rhs = x[e], coupled = 0.0f;
            uint8_t links = 0;
            for (int b = 0; b < sys.dim; b++) {
                float cb = sys.c[b];
                for (int side = 0; side < 2; side++) {
                    int ib = c[b] + (side ? 1 : -1);
                    if (sys.wrap[b]) {
                        ib = ib < 0 ? sys.ext[b] - 1 : (ib >= sys.ext[b] ? 0 : ib);
                    } else if (ib < 0 || ib >= sys.ext[b]) {
                        if (a < 0 || b == a) continue;
                        int bt = g.btype[2 * b + side];
                        if (bt == EDDY_BOUNDARY_NOSLIP) {
                            diag += 2.0f * cb;
                        } else if (bt == EDDY_BOUNDARY_MOVING || bt == EDDY_BOUNDARY_INFLOW) {
                            diag += 2.0f * cb;
                            rhs += 2.0f * cb * g.bvel[2 * b + side][a];
                        }
                        continue;
                    }
                    size_t gq = (size_t)((ptrdiff_t)e + ((ptrdiff_t)ib - c[b]) * (ptrdiff_t)stride_[b]);
                    if (fixed[gq]) {
                        if (a < 0) continue;
                        float w = b == a ? cb : 2.0f * cb;
                        diag += w;
                        rhs += w * x[gq];
                    } else {
                        diag += cb;
                        coupled += cb * x[gq];
                        links |= (uint8_t)(1u << (2 * b + side));
                    }
                }
            }
            float res = rhs - (diag * x[e] - coupled);
            links_out[e] = links;
            diag_out[e] = diag;
            r_out[e] = res;
            b2 = (double)rhs * rhs;
            r2 = (double)res * res;
        }
    }
    size_t blk = ECU_BLOCK_ID();
    b2 = block_reduce<RED_SUM>(b2, sh);
    if (ECU_THREAD0()) partials[slot_b * stride + blk] = b2;
    r2 = block_reduce<RED_SUM>(r2, sh);
    if (ECU_THREAD0()) partials[slot_r * stride + blk] = r2;
}

__global__ void k_dif_zero(DSys sys, const uint8_t *__restrict__ fixed) {
    ECU_IJK(sys.n[0], sys.n[1]);
    if (!inside_) return;
    size_t e = idx3(sys.n, i, j, k);
    if (!fixed[e]) sys.x[e] = 0.0f;
}

/* p = D^-1 r; partial r.p */
__global__ void k_dif_start(DSys sys, const float *__restrict__ r, const float *__restrict__ diag, float *__restrict__ p,
                            double *partials, size_t stride, int slot) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double acc = 0.0;
    if (inside_) {
        size_t e = idx3(sys.n, i, j, k);
        float pe = r[e] / diag[e];
        p[e] = pe;
        acc = (double)r[e] * pe;
    }
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[slot * stride + ECU_BLOCK_ID()] = acc;
}

/* q = A p; partial p.q (diffuse.c apply_operator) */
__global__ void k_dif_apply(DSys sys, const uint8_t *__restrict__ links, const float *__restrict__ diag,
                            const float *__restrict__ p, float *__restrict__ q, double *partials, size_t stride, int slot) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double acc = 0.0;
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
        if (l & 1u) sx += p[i > 0 ? e - 1 : e + (size_t)(sys.ext[0] - 1)];
        if (l & 2u) sx += p[i + 1 < sys.ext[0] ? e + 1 : e - (size_t)i];
        if (l & 4u) sy += p[(ptrdiff_t)e + ym];
        if (l & 8u) sy += p[(ptrdiff_t)e + yp];
        if (l & 16u) sz += p[(ptrdiff_t)e + zm];
        if (l & 32u) sz += p[(ptrdiff_t)e + zp];
        float qe = diag[e] * p[e] - (sys.c[0] * sx + sys.c[1] * sy + sys.c[2] * sz);
        q[e] = qe;
        acc = (double)p[e] * qe;
    }
    acc = block_reduce<RED_SUM>(acc, sh);
    if (ECU_THREAD0()) partials[slot * stride + ECU_BLOCK_ID()] = acc;
}

/* x += alpha p, r -= alpha q; partials r.D^-1 r and r.r */
__global__ void k_dif_update(DSys sys, float alpha, const float *__restrict__ p, const float *__restrict__ q,
                             float *__restrict__ r, const float *__restrict__ diag, double *partials, size_t stride,
                             int slot_z, int slot_r, Flags fl, int field) {
    __shared__ double sh[32];
    ECU_IJK(sys.n[0], sys.n[1]);
    double a = 0.0, b = 0.0;
    if (inside_) {
        size_t e = idx3(sys.n, i, j, k);
        float xe = sys.x[e] + alpha * p[e];
        sys.x[e] = xe;
        flag_if_bad(fl, xe, field);
        float re = r[e] - alpha * q[e];
        r[e] = re;
        a = (double)re * re / diag[e];
        b = (double)re * re;
    }
    size_t blk = ECU_BLOCK_ID();
    a = block_reduce<RED_SUM>(a, sh);
    if (ECU_THREAD0()) partials[slot_z * stride + blk] = a;
    b = block_reduce<RED_SUM>(b, sh);
    if (ECU_THREAD0()) partials[slot_r * stride + blk] = b;
}

/* p = D^-1 r + beta p */
__global__ void k_dif_direction(DSys sys, float beta, const float *__restrict__ r, const float *__restrict__ diag,
                                float *__restrict__ p) {
    ECU_IJK(sys.n[0], sys.n[1]);
    if (!inside_) return;
    size_t e = idx3(sys.n, i, j, k);
    p[e] = r[e] / diag[e] + beta * p[e];
}

eddy_status diffuse_init(cu_sim *c) {
    const eddy_sim_def &d = c->s->def;
    c->dif = nullptr;
    if (!(d.viscosity > 0 || d.dye_diffusion > 0 || d.temperature_diffusion > 0)) return EDDY_OK;
    c->dif = (DiffuseWS *)calloc(1, sizeof(DiffuseWS));
    if (!c->dif) return eddy__fail(c->s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    size_t cap = c->nscalar;
    for (int a = 0; a < c->g.dim; a++) cap = c->nface[a] > cap ? c->nface[a] : cap;
    DiffuseWS *w = c->dif;
    eddy_status st = EDDY_OK;
    float **fl[4] = {&w->r, &w->p, &w->q, &w->diag};
    for (int i = 0; i < 4 && st == EDDY_OK; i++) st = dev_alloc(c, (void **)fl[i], cap * sizeof(float), "diffusion vectors");
    if (st == EDDY_OK) st = dev_alloc(c, (void **)&w->fixed, cap, "diffusion flags");
    if (st == EDDY_OK) st = dev_alloc(c, (void **)&w->links, cap, "diffusion links");
    return st;
}

void diffuse_free(cu_sim *c) {
    if (!c->dif) return;
    DiffuseWS *w = c->dif;
    void *b[] = {w->r, w->p, w->q, w->diag, w->fixed, w->links};
    for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) cudaFree(b[i]);
    free(w);
    c->dif = nullptr;
}

static float coefficient(double k, double dt, double spacing) {
    double cc = k * dt / (spacing * spacing);
    return (float)(cc < DIFFUSE_MAX_COEFFICIENT ? cc : DIFFUSE_MAX_COEFFICIENT);
}

enum { S_A = R_SCRATCH0, S_B = R_SCRATCH0 + 1 };

/* reduces the partials of up to two slots and waits for them */
static cudaError_t reduce2(cu_sim *c, int sa, int sb, size_t nblocks, double *a, double *b) {
    const int slots[2] = {sa, sb}, ops[2] = {RED_SUM, RED_SUM};
    cudaError_t e = finalize_reductions(c, slots, ops, sb >= 0 ? 2 : 1, nblocks);
    if (e == cudaSuccess) e = cudaMemcpyAsync(c->h_rb->red + R_SCRATCH0, c->d_rb->red + R_SCRATCH0, 2 * sizeof(double),
                                              cudaMemcpyDeviceToHost, c->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
    *a = c->h_rb->red[sa];
    if (b) *b = c->h_rb->red[sb];
    return e;
}

static cudaError_t solve(cu_sim *c, const DSys &sys, int field) {
    DiffuseWS *w = c->dif;
    dim3 gr = tiles(sys.n[0], sys.n[1], sys.n[2]), bl = tile_block();
    size_t nb = ECU_BLOCKS(gr);
    double *P = c->partials;
    size_t ps = c->partial_stride;
    k_dif_fixed<<<gr, bl, 0, c->stream>>>(c->g, sys, c->solid, w->fixed);
    k_dif_setup<<<gr, bl, 0, c->stream>>>(c->g, sys, w->fixed, w->links, w->diag, w->r, P, ps, S_A, S_B);
    double bb, rr;
    cudaError_t e = reduce2(c, S_A, S_B, nb, &bb, &rr);
    if (e != cudaSuccess) return e;
    double bnorm = sqrt(bb), target = DIFFUSE_TOLERANCE * bnorm;
    if (bnorm == 0.0) {
        k_dif_zero<<<gr, bl, 0, c->stream>>>(sys, w->fixed);
        return cudaGetLastError();
    }
    const int max_iterations = 100 + 4 * (sys.ext[0] + sys.ext[1] + sys.ext[2]);
    double rz = 0.0;
    if (sqrt(rr) > target) {
        k_dif_start<<<gr, bl, 0, c->stream>>>(sys, w->r, w->diag, w->p, P, ps, S_A);
        if ((e = reduce2(c, S_A, -1, nb, &rz, nullptr)) != cudaSuccess) return e;
    }
    int iterations = 0;
    Flags fl = flags_for(c);
    while (sqrt(rr) > target && iterations < max_iterations) {
        double pq;
        k_dif_apply<<<gr, bl, 0, c->stream>>>(sys, w->links, w->diag, w->p, w->q, P, ps, S_A);
        if ((e = reduce2(c, S_A, -1, nb, &pq, nullptr)) != cudaSuccess) return e;
        if (!(pq > 0.0)) break;
        double rz_new;
        k_dif_update<<<gr, bl, 0, c->stream>>>(sys, (float)(rz / pq), w->p, w->q, w->r, w->diag, P, ps, S_A, S_B, fl, field);
        if ((e = reduce2(c, S_A, S_B, nb, &rz_new, &rr)) != cudaSuccess) return e;
        iterations++;
        if (sqrt(rr) <= target) break;
        k_dif_direction<<<gr, bl, 0, c->stream>>>(sys, (float)(rz_new / rz), w->r, w->diag, w->p);
        rz = rz_new;
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
