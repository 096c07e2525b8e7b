/* Diagnostics on the device (diagnostics.c): max and RMS divergence over fluid cells, max cell-centred speed,
 * kinetic energy and max |u| over faces (periodic duplicates skipped), total dye. Deterministic: each block
 * reduces in a fixed tree and writes one partial; one block per figure reduces the partials in a fixed order.
 * Per-cell values are computed with the CPU's float operations; sums are in double, as on the CPU, in a
 * different (fixed) order, so they agree with the CPU to double rounding. */
#include "cu_sim.cuh"

namespace ecu {

struct SlotOps {
    int v[2 * R_COUNT];
};
__global__ void __launch_bounds__(1024) k_finalize_many(double *partials, size_t stride, size_t nblocks, Readback *rb, SlotOps so) {
    __shared__ double sh[32];
    const int slot = so.v[2 * blockIdx.x], op = so.v[2 * blockIdx.x + 1];
    const double *p = partials + (size_t)slot * stride;
    double v = op == RED_SUM ? 0.0 : -INFINITY;
    for (size_t b = threadIdx.x; b < nblocks; b += blockDim.x) v = red2(v, p[b], op);
    v = op == RED_SUM ? block_reduce<RED_SUM>(v, sh) : block_reduce<RED_MAX>(v, sh);
    if (threadIdx.x == 0) rb->red[slot] = v;
}

cudaError_t finalize_reductions(cu_sim *c, const int *slots, const int *ops, int count, size_t nblocks) {
    SlotOps so;
    for (int i = 0; i < count; i++) {
        so.v[2 * i] = slots[i];
        so.v[2 * i + 1] = ops[i];
    }
    k_finalize_many<<<count, 1024, 0, c->stream>>>(c->partials, c->partial_stride, nblocks, c->d_rb, so);
    return cudaGetLastError();
}

__device__ inline float cell_divergence(const Geo &g, const Vel &v, int i, int j, int k) {
    int fu[3], fv[3];
    face_dims(g, 0, fu);
    face_dims(g, 1, fv);
    float d = v.c[0][idx3(fu, i + 1, j, k)] - v.c[0][idx3(fu, i, j, k)] + v.c[1][idx3(fv, i, j + 1, k)] -
              v.c[1][idx3(fv, i, j, k)];
    if (g.dim == 3) {
        int fw[3];
        face_dims(g, 2, fw);
        d += v.c[2][idx3(fw, i, j, k + 1)] - v.c[2][idx3(fw, i, j, k)];
    }
    return d / g.h;
}

__global__ void k_diag_cells(Geo g, Vel v, const uint8_t *__restrict__ solid, double *partials, size_t stride) {
    __shared__ double sh[32];
    double md = 0, sd = 0, ms = 0, fluid = 0;
    ECU_ROWS_BEGIN(g.n[0], g.n[1])
        const unsigned c = idx3(g.n, i, j, k);
        if (!solid[c]) {
            fluid += 1;
            double d = cell_divergence(g, v, i, j, k);
            md = fmax(md, fabs(d));
            sd += d * d;
            double sp2 = 0;
            for (int a = 0; a < g.dim; a++) {
                int fn[3], hi[3] = {i, j, k};
                face_dims(g, a, fn);
                hi[a]++;
                double u = 0.5 * ((double)v.c[a][idx3(fn, i, j, k)] + v.c[a][idx3(fn, hi[0], hi[1], hi[2])]);
                sp2 += u * u;
            }
            ms = fmax(ms, sp2);
        }
    ECU_ROWS_END
    size_t b = ECU_BLOCK_ID();
    md = block_reduce<RED_MAX>(md, sh);
    if (ECU_THREAD0()) partials[R_MAXDIV * stride + b] = md;
    sd = block_reduce<RED_SUM>(sd, sh);
    if (ECU_THREAD0()) partials[R_SUMDIV2 * stride + b] = sd;
    ms = block_reduce<RED_MAX>(ms, sh);
    if (ECU_THREAD0()) partials[R_MAXSPEED2 * stride + b] = ms;
    fluid = block_reduce<RED_SUM>(fluid, sh);
    if (ECU_THREAD0()) partials[R_FLUID * stride + b] = fluid;
}

/* energy and max |u| over the faces of component a; periodic duplicate layers skipped */
__global__ void k_diag_faces(Geo g, int a, const float *__restrict__ v, double *partials, size_t stride, int slot_e,
                             int slot_m) {
    __shared__ double sh[32];
    int fn[3];
    face_dims(g, a, fn);
    double sum = 0, mx = 0;
    ECU_ROWS_BEGIN(fn[0], fn[1])
        bool dup = (a == 0 && g.periodic[0] && i == g.n[0]) || (a == 1 && g.periodic[1] && j == g.n[1]) ||
                   (a == 2 && g.periodic[2] && k == g.n[2]);
        if (!dup) {
            double u = v[idx3(fn, i, j, k)];
            sum += u * u;
            mx = fmax(mx, fabs(u));
        }
    ECU_ROWS_END
    size_t b = ECU_BLOCK_ID();
    sum = block_reduce<RED_SUM>(sum, sh);
    if (ECU_THREAD0()) partials[slot_e * stride + b] = sum;
    if (slot_m >= 0) {
        mx = block_reduce<RED_MAX>(mx, sh);
        if (ECU_THREAD0()) partials[slot_m * stride + b] = mx;
    }
}

__global__ void k_diag_dye(Geo g, const float *__restrict__ d0, const float *__restrict__ d1,
                           const float *__restrict__ d2, double *partials, size_t stride) {
    __shared__ double sh[32];
    double sum = 0;
    ECU_ROWS_BEGIN(g.sn[0], g.sn[1])
        const unsigned q = idx3(g.sn, i, j, k);
        sum += (double)d0[q] + d1[q] + d2[q];
    ECU_ROWS_END
    sum = block_reduce<RED_SUM>(sum, sh);
    if (ECU_THREAD0()) partials[R_DYE * stride + ECU_BLOCK_ID()] = sum;
}

/* Blocks of every launch here fit the partial stride (backend.cu sizes it from the largest launch); unused
 * partial entries of a smaller launch are set to the neutral value first. */
__global__ void k_fill(double *p, size_t n, double v) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t < n) p[t] = v;
}
static void neutral(cu_sim *c, int slot, size_t from, double v) {
    size_t n = c->partial_stride - from;
    if (n) k_fill<<<(unsigned)((n + 255) / 256), 256, 0, c->stream>>>(c->partials + slot * c->partial_stride + from, n, v);
}

cudaError_t launch_diagnostics(cu_sim *c) {
    const Geo &g = c->g;
    dim3 gc = tiles_rows(g.n[0], g.n[1], g.n[2]);
    k_diag_cells<<<gc, tile_block(), 0, c->stream>>>(g, vel_of(c), c->solid, c->partials, c->partial_stride);
    size_t nb = ECU_BLOCKS(gc);
    neutral(c, R_MAXDIV, nb, 0);
    neutral(c, R_SUMDIV2, nb, 0);
    neutral(c, R_MAXSPEED2, nb, 0);
    neutral(c, R_FLUID, nb, 0);
    for (int a = 0; a < 3; a++) {
        if (a >= g.dim) {
            neutral(c, R_ENERGY0 + a, 0, 0);
            neutral(c, R_MAXFACE0 + a, 0, 0);
            continue;
        }
        int fn[3];
        face_dims(g, a, fn);
        dim3 gf = tiles_rows(fn[0], fn[1], fn[2]);
        k_diag_faces<<<gf, tile_block(), 0, c->stream>>>(g, a, c->vel[a], c->partials, c->partial_stride,
                                                         R_ENERGY0 + a, R_MAXFACE0 + a);
        neutral(c, R_ENERGY0 + a, ECU_BLOCKS(gf), 0);
        neutral(c, R_MAXFACE0 + a, ECU_BLOCKS(gf), 0);
    }
    dim3 gs = tiles_rows(g.sn[0], g.sn[1], g.sn[2]);
    k_diag_dye<<<gs, tile_block(), 0, c->stream>>>(g, c->dye[0], c->dye[1], c->dye[2], c->partials, c->partial_stride);
    neutral(c, R_DYE, ECU_BLOCKS(gs), 0);
    const int slots[] = {R_MAXDIV, R_SUMDIV2, R_MAXSPEED2, R_FLUID, R_ENERGY0, R_ENERGY1, R_ENERGY2,
                         R_MAXFACE0, R_MAXFACE1, R_MAXFACE2, R_DYE};
    const int ops[] = {RED_MAX, RED_SUM, RED_MAX, RED_SUM, RED_SUM, RED_SUM, RED_SUM, RED_MAX, RED_MAX, RED_MAX, RED_SUM};
    return finalize_reductions(c, slots, ops, 11, c->partial_stride);
}

/* max |u_face| over all faces of all components, periodic duplicates included (as eddy__choose_dt) */
__global__ void k_max_abs(const float *__restrict__ v, size_t n, double *partials) {
    __shared__ double sh[32];
    double mx = 0;
    for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < n; t += (size_t)gridDim.x * blockDim.x)
        mx = fmax(mx, (double)fabsf(v[t]));
    mx = block_reduce<RED_MAX>(mx, sh);
    if (threadIdx.x == 0) partials[blockIdx.x] = mx;
}

cudaError_t launch_max_face(cu_sim *c) {
    const unsigned blocks = 1024;
    for (int a = 0; a < 3; a++) {
        double *p = c->partials + R_MAXVEL * c->partial_stride + a * blocks;
        if (a < c->g.dim) k_max_abs<<<blocks, 256, 0, c->stream>>>(c->vel[a], c->nface[a], p);
        else k_fill<<<blocks / 256, 256, 0, c->stream>>>(p, blocks, 0.0);
    }
    const int slots[] = {R_MAXVEL};
    const int ops[] = {RED_MAX};
    return finalize_reductions(c, slots, ops, 1, 3 * blocks);
}

} /* namespace ecu */
