/* Diagnostics on the device (diagnostics.c): max and RMS divergence over fluid cells, max cell-centred speed,
 * kinetic energy and max |u| over faces (periodic duplicates skipped), total dye. Deterministic: each block
 * reduces in a fixed tree and writes one partial; the partials are reduced in a fixed order (k_diag: by its last
 * block; the other reductions: k_finalize_many, one block per figure).
 * Per-cell values are computed with the CPU's float operations; sums are in double, as on the CPU, in a
 * different (fixed) order, so they agree with the CPU to double rounding. */
#include "cu_sim.cuh"

namespace ecu {

struct SlotOps {
    int v[2 * R_COUNT];
    unsigned count[R_COUNT]; /* partials of each slot; 0: the slot's figure is 0 */
};
__global__ void __launch_bounds__(1024) k_finalize_many(double *partials, size_t stride, Readback *rb, SlotOps so) {
    __shared__ double sh[32];
    const int slot = so.v[2 * blockIdx.x], op = so.v[2 * blockIdx.x + 1];
    const size_t nblocks = so.count[blockIdx.x];
    const double *p = partials + (size_t)slot * stride;
    double v = op == RED_SUM ? 0.0 : -INFINITY;
    for (size_t b = threadIdx.x; b < nblocks; b += blockDim.x) v = red2(v, p[b], op);
    v = op == RED_SUM ? block_reduce<RED_SUM>(v, sh) : block_reduce<RED_MAX>(v, sh);
    if (threadIdx.x == 0) rb->red[slot] = nblocks ? v : 0.0;
}

static cudaError_t finalize_counts(cu_sim *c, const int *slots, const int *ops, const size_t *counts, int count) {
    SlotOps so;
    for (int i = 0; i < count; i++) {
        so.v[2 * i] = slots[i];
        so.v[2 * i + 1] = ops[i];
        so.count[i] = (unsigned)counts[i];
    }
    k_finalize_many<<<count, 1024, 0, c->stream>>>(c->partials, c->partial_stride, c->d_rb, so);
    return cudaGetLastError();
}

cudaError_t finalize_reductions(cu_sim *c, const int *slots, const int *ops, int count, size_t nblocks) {
    size_t counts[R_COUNT];
    for (int i = 0; i < count; i++) counts[i] = nblocks;
    return finalize_counts(c, slots, ops, counts, count);
}

/* the slot of k_diag's figure q, and how its values combine */
__device__ inline int diag_slot(int q) {
    return q == 0 ? R_MAXDIV : q == 1 ? R_SUMDIV2 : q == 2 ? R_MAXSPEED2 : q == 3 ? R_FLUID : q == 4 ? R_ENERGY0
         : q == 5 ? R_MAXFACE0 : R_DYE;
}
__device__ inline int diag_op(int q) { return q == 0 || q == 2 || q == 5 ? RED_MAX : RED_SUM; }

/* One pass over the cells, as diagnostics_rows.c: a thread walks DIAG_ROWS consecutive cell rows of its column
 * (the y-faces between two rows are read once), a warp covers 32 cells of a row (coalesced). Per cell the terms
 * are the CPU's float operations: the divergence d (d * (1/h) where that is exact, as the CPU), d^2 and |d| over
 * fluid cells, the squared cell-centred speed, u^2 + v^2 + w^2 of the cell's lower faces and their largest |u|
 * (the faces past the last cell of a non-periodic axis are added by the cells below them), R + G + B when the
 * scalar grid is the velocity grid. Sums of those float terms are in double (the CPU's terms, summed in another
 * fixed order), maxima in float (exact in any order).
 * The blocks are the ones resident on the device (one wave), each taking the tiles blockIdx.x, + gridDim.x, ... in
 * turn; the last block to finish reduces every block's partials in a fixed order (no finalize launch: cuda_notes
 * 195). Deterministic for a given device (the block count is its resident count). */
/* rows per thread and blocks per SM (64 registers): back to back, 2D 2048^2 / 3D 256^3, 4 rows at 4 blocks 84 / 98.5%
 * of copy, 8 rows 82 / 98%, 2 rows 84 / 95%, 8 rows at 3 blocks (80 registers) 74 / 93%, 2 rows at 5 blocks 80% and 1
 * row at 6 blocks 75% (2D; cuda_notes 195) */
constexpr int DIAG_ROWS = 4, DIAG_MINB = 4;
/* k_diag's tiles of BX columns and BY * DIAG_ROWS rows: along x, along y */
__host__ __device__ inline int diag_tiles_x(int n0) { return (n0 + BX - 1) / BX; }
__host__ __device__ inline int diag_tiles_y(int n1) { return (n1 + BY * DIAG_ROWS - 1) / (BY * DIAG_ROWS); }
template <int DIM, bool MUL, bool DYE>
__global__ void __launch_bounds__(BLOCK, DIAG_MINB) k_diag(Geo g, Vel v, const uint8_t *__restrict__ solid,
                                                const float *__restrict__ dr, const float *__restrict__ dg,
                                                const float *__restrict__ db, float rh, double *partials, size_t stride,
                                                Readback *rb, int dye_blocks) {
    const int n0 = g.n[0], n1 = g.n[1], n2 = g.n[2];
    const int tx = diag_tiles_x(n0), ty = diag_tiles_y(n1), tiles = tx * ty * n2;
    double sd = 0, e = 0, dye = 0;
    float mdf = 0, ms = 0, mf = 0;
    int fluid = 0;
    for (int tile = (int)blockIdx.x; tile < tiles; tile += (int)gridDim.x) {
        const int i = (tile % tx) * BX + (int)threadIdx.x, k = tile / (tx * ty);
        const int jb = ((tile / tx) % ty * BY + (int)threadIdx.y) * DIAG_ROWS;
        if (i < n0 && jb < n1) {
            const float *__restrict__ u = v.c[0], *__restrict__ vv = v.c[1], *__restrict__ w = v.c[2];
            const float h = g.h;
            const bool xlast = i == n0 - 1 && !g.periodic[0];
            const bool ztop = DIM == 3 && k == n2 - 1 && !g.periodic[2];
            unsigned qu = (unsigned)i + (unsigned)(n0 + 1) * ((unsigned)jb + (unsigned)n1 * k);
            unsigned qv = (unsigned)i + (unsigned)n0 * ((unsigned)jb + (unsigned)(n1 + 1) * k);
            unsigned c = (unsigned)i + (unsigned)n0 * ((unsigned)jb + (unsigned)n1 * k);
            const unsigned plane = (unsigned)n0 * n1;
            float v0 = vv[qv];
            /* no branch in the rows' loop (rows past the grid read the last row again and count nothing; the faces past
             * the last cell added by selects, + 0 elsewhere: the same sums), so ptxas can issue the loads of several
             * rows together (cuda_notes 195) */
            const int rows = n1 - jb < DIAG_ROWS ? n1 - jb : DIAG_ROWS;
            const bool ytop = !g.periodic[1];
#pragma unroll
            for (int r = 0; r < DIAG_ROWS; r++) {
                const bool in = r < rows;
                const float u0 = u[qu], u1 = u[qu + 1], v1 = vv[qv + n0];
                float w0 = 0, w1 = 0;
                float d = u1 - u0 + v1 - v0;
                if (DIM == 3) {
                    w0 = w[c];
                    w1 = w[c + plane];
                    d += w1 - w0;
                }
                d = MUL ? d * rh : d / h;
                const bool f = in && solid[c] == 0;
                fluid += f;
                const float ad = f ? fabsf(d) : 0.0f;
                mdf = ad > mdf ? ad : mdf;
                sd += (double)(f ? d * d : 0.0f);
                const float cu = 0.5f * (u0 + u1), cv = 0.5f * (v0 + v1);
                float sp2 = cu * cu + cv * cv;
                if (DIM == 3) {
                    const float cw = 0.5f * (w0 + w1);
                    sp2 += cw * cw;
                }
                sp2 = f ? sp2 : 0.0f;
                ms = sp2 > ms ? sp2 : ms;
                float af = fabsf(u0) > fabsf(v0) ? fabsf(u0) : fabsf(v0), ef = u0 * u0 + v0 * v0;
                if (DIM == 3) {
                    af = fabsf(w0) > af ? fabsf(w0) : af;
                    ef += w0 * w0;
                }
                af = in ? af : 0.0f;
                mf = af > mf ? af : mf;
                e += in ? (double)ef : 0.0;
                const bool xl = in && xlast, yl = in && ytop && jb + r == n1 - 1;
                e += xl ? (double)(u1 * u1) : 0.0;
                mf = xl && fabsf(u1) > mf ? fabsf(u1) : mf;
                e += yl ? (double)(v1 * v1) : 0.0;
                mf = yl && fabsf(v1) > mf ? fabsf(v1) : mf;
                if (DIM == 3) {
                    const bool zl = in && ztop;
                    e += zl ? (double)(w1 * w1) : 0.0;
                    mf = zl && fabsf(w1) > mf ? fabsf(w1) : mf;
                }
                if (DYE) dye += in ? (double)(dr[c] + dg[c] + db[c]) : 0.0;
                v0 = v1;
                if (r + 1 < rows) {
                    qu += n0 + 1;
                    qv += n0;
                    c += n0;
                }
            }
        }
    }
    /* block: each warp's values by shuffles, then warp 0 over the warps in a fixed order */
    __shared__ double sh[7][BLOCK / 32];
    const int lane = (int)((threadIdx.x + BX * threadIdx.y) & 31), warp = (int)((threadIdx.x + BX * threadIdx.y) >> 5);
    auto warp_sum = [&](double x, int q) {
        for (int o = 16; o > 0; o >>= 1) x += __shfl_down_sync(0xffffffffu, x, o);
        if (lane == 0) sh[q][warp] = x;
    };
    auto warp_max = [&](float x, int q) {
        for (int o = 16; o > 0; o >>= 1) x = fmaxf(x, __shfl_down_sync(0xffffffffu, x, o));
        if (lane == 0) sh[q][warp] = (double)x;
    };
    warp_max(mdf, 0);
    warp_sum(sd, 1);
    warp_max(ms, 2);
    for (int o = 16; o > 0; o >>= 1) fluid += __shfl_down_sync(0xffffffffu, fluid, o);
    if (lane == 0) sh[3][warp] = (double)fluid;
    warp_sum(e, 4);
    warp_max(mf, 5);
    if (DYE) warp_sum(dye, 6);
    __syncthreads();
    if (warp == 0 && lane < (DYE ? 7 : 6)) {
        const int q = lane, op = diag_op(q);
        double t = sh[q][0];
        for (int w2 = 1; w2 < BLOCK / 32; w2++) t = red2(t, sh[q][w2], op);
        partials[(size_t)diag_slot(q) * stride + blockIdx.x] = t;
    }
    /* the last block reduces: warp q the partials of figure q, lane l those l, l + 32, ... in order, then a fixed
     * shuffle tree (the dye's from k_diag_dye where the scalar grid is finer) */
    __shared__ bool last;
    __threadfence();
    __syncthreads();
    if (warp == 0 && lane == 0) last = atomicAdd(&rb->diag_done, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    if (warp < 7) {
        const int q = warp, slot = diag_slot(q), op = diag_op(q);
        const int n = q == 6 && !DYE ? dye_blocks : (int)gridDim.x;
        const double *p = partials + (size_t)slot * stride;
        double t = op == RED_MAX ? -INFINITY : 0.0;
        for (int b = lane; b < n; b += 32) t = red2(t, __ldcg(p + b), op);
        for (int o = 16; o > 0; o >>= 1) t = red2(t, __shfl_down_sync(0xffffffffu, t, o), op);
        if (lane == 0) rb->red[slot] = n > 0 ? t : 0.0;
    } else if (lane < 4) {
        /* the other components' energy and face maximum are in slots ENERGY0 / MAXFACE0 */
        const int zero[4] = {R_ENERGY1, R_ENERGY2, R_MAXFACE1, R_MAXFACE2};
        rb->red[zero[lane]] = 0.0;
    }
    if (warp == 0 && lane == 0) rb->diag_done = 0;
}

/* total dye when the scalar grid is finer than the velocity grid: R + G + B in float, summed in double */
__global__ void k_diag_dye(Geo g, const float *__restrict__ d0, const float *__restrict__ d1,
                           const float *__restrict__ d2, double *partials, size_t stride) {
    __shared__ double sh[32];
    double sum = 0;
    ECU_ROWS_BEGIN(g.sn[0], g.sn[1])
        const unsigned q = idx3(g.sn, i, j, k);
        sum += (double)(d0[q] + d1[q] + d2[q]);
    ECU_ROWS_END
    sum = block_reduce<RED_SUM>(sum, sh);
    if (ECU_THREAD0()) partials[R_DYE * stride + ECU_BLOCK_ID()] = sum;
}

template <int DIM, bool MUL, bool DYE>
static cudaError_t launch_diag_cells(cu_sim *c, float rh, int dye_blocks) {
    if (c->diag_blocks == 0) {
        int per_sm = 0, sms = 0;
        cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k_diag<DIM, MUL, DYE>, BLOCK, 0);
        if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device);
        if (e != cudaSuccess) return e;
        /* one wave, but no more blocks than tiles, nor than the partials' stride holds */
        const size_t tiles = (size_t)diag_tiles_x(c->g.n[0]) * (size_t)diag_tiles_y(c->g.n[1]) * (size_t)c->g.n[2];
        size_t nb = (size_t)(per_sm > 0 ? per_sm : 1) * (size_t)(sms > 0 ? sms : 1);
        nb = nb < tiles ? nb : tiles;
        c->diag_blocks = (int)nb;
    }
    k_diag<DIM, MUL, DYE><<<(unsigned)c->diag_blocks, tile_block(), 0, c->stream>>>(
        c->g, vel_of(c), c->solid, c->dye[0], c->dye[1], c->dye[2], rh, c->partials, c->partial_stride, c->d_rb, dye_blocks);
    return cudaGetLastError();
}

template <int DIM, bool MUL>
static cudaError_t launch_diag_dim(cu_sim *c, bool dye, float rh, int dye_blocks) {
    return dye ? launch_diag_cells<DIM, MUL, true>(c, rh, dye_blocks) : launch_diag_cells<DIM, MUL, false>(c, rh, dye_blocks);
}

cudaError_t launch_diagnostics(cu_sim *c) {
    const Geo &g = c->g;
    const bool same = g.sn[0] == g.n[0] && g.sn[1] == g.n[1] && g.sn[2] == g.n[2];
    /* d * (1/h) is d / h, bit for bit, when h is a power of two (and neither is denormal): as the CPU */
    int ex;
    const float rh = 1.0f / g.h;
    const bool mul = frexpf(g.h, &ex) == 0.5f && isnormal(g.h) && isnormal(rh);
    /* the dye of a finer scalar grid first: k_diag's last block reduces its partials too */
    int nd = 0;
    if (!same) {
        dim3 gs = tiles_rows(g.sn[0], g.sn[1], g.sn[2]);
        k_diag_dye<<<gs, tile_block(), 0, c->stream>>>(g, c->dye[0], c->dye[1], c->dye[2], c->partials, c->partial_stride);
        nd = (int)ECU_BLOCKS(gs);
    }
    if (g.dim == 3) return mul ? launch_diag_dim<3, true>(c, same, rh, nd) : launch_diag_dim<3, false>(c, same, rh, nd);
    return mul ? launch_diag_dim<2, true>(c, same, rh, nd) : launch_diag_dim<2, false>(c, same, rh, nd);
}

/* Blocks of k_max_abs fill their partials; unused entries of a two-dimensional run are set to 0 first. */
__global__ void k_fill(double *p, size_t n, double v) {
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t < n) p[t] = v;
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
