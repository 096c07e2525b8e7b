/* Sources on the device (sources.c): Gaussian splats q += q0 exp(-|x - c|^2 / r^2), cut off beyond 4r, on the
 * scalar grid and on each velocity component's faces; emitters add dye and temperature at a rate inside their
 * shape and may impose a velocity there. Same float operations as the CPU, in the same order. */
#include "cu_sim.cuh"

#include <algorithm>

namespace ecu {

#define SPLAT_CUTOFF 4.0f

/* sources.c index_range */
static void index_range(const GDesc &d, int b, float x0, float x1, int *lo, int *hi) {
    float a0 = (x0 - d.origin[b]) / d.spacing[b] - d.off[b];
    float a1 = (x1 - d.origin[b]) / d.spacing[b] - d.off[b];
    if (d.n[b] == 1) { *lo = *hi = 0; return; }
    /* clamped before the conversion: a far splat gives coordinates no int holds (undefined behaviour to convert) */
    const float top = (float)(d.n[b] - 1);
    *lo = !(a0 > 0.0f) ? 0 : (a0 >= top ? d.n[b] - 1 : (int)floorf(a0));
    *hi = !(a1 > 0.0f) ? 0 : (a1 >= top ? d.n[b] - 1 : (int)ceilf(a1));
}

struct SplatArgs {
    GDesc d;
    int lo[3], cnt[3];
    float c[3];
    float inv_r2;
    int dim;
    int narrays;
    float *arr[4];
    float amount[4];
    int *overflow; /* the dry run (sources.c): set where a sum would not be finite, nothing written; NULL: write */
};

__global__ void k_splat(SplatArgs a) {
    ECU_IJK(a.cnt[0], a.cnt[1]);
    if (!inside_) return;
    int ii = a.lo[0] + i, jj = a.lo[1] + j, kk = a.lo[2] + k;
    float p[3];
    grid_pos(a.d, ii, jj, kk, p);
    float dx = p[0] - a.c[0], dy = p[1] - a.c[1], dz = a.dim == 3 ? p[2] - a.c[2] : 0.0f;
    /* exp in double, rounded once to float: what glibc's expf returns (it is accurate to ~0.5 ulp), where the
     * device's expf can differ by an ulp or two; a splat costs O(r^d), so the double exp is free */
    float w = (float)exp((double)(-(dx * dx + dy * dy + dz * dz) * a.inv_r2));
    size_t q = idx3(a.d.n, ii, jj, kk);
    for (int m = 0; m < a.narrays; m++) {
        const float sum = a.arr[m][q] + a.amount[m] * w;
        if (!a.overflow) a.arr[m][q] = sum;
        else if (!isfinite(sum)) atomicOr(a.overflow, 1);
    }
}

static cudaError_t splat_grid(cu_sim *c, const GDesc &d, float *const *arrays, const float *amount, int count,
                              const float ctr[3], float r, int *overflow) {
    SplatArgs a;
    a.d = d;
    int hi[3];
    for (int b = 0; b < 3; b++) {
        index_range(d, b, ctr[b] - SPLAT_CUTOFF * r, ctr[b] + SPLAT_CUTOFF * r, &a.lo[b], &hi[b]);
        a.cnt[b] = hi[b] - a.lo[b] + 1;
        a.c[b] = ctr[b];
    }
    a.inv_r2 = 1.0f / (r * r);
    a.dim = c->g.dim;
    a.narrays = count;
    a.overflow = overflow;
    for (int m = 0; m < count; m++) {
        a.arr[m] = arrays[m];
        a.amount[m] = amount[m];
    }
    k_splat<<<tiles(a.cnt[0], a.cnt[1], a.cnt[2]), tile_block(), 0, c->stream>>>(a);
    return cudaGetLastError();
}

cudaError_t launch_splat(cu_sim *c, const eddy_splat *sp, const float ctr[3], int *overflow_at) {
    GDesc sg = scalar_desc(c->g);
    float *scalars[4] = {c->dye[0], c->dye[1], c->dye[2], c->temp};
    float amounts[4] = {sp->dye[0], sp->dye[1], sp->dye[2], sp->temperature};
    int *flags = c->d_rb->splat_overflow;
    *overflow_at = -2;
    cudaError_t e = cudaSuccess;
    /* a dry run first, only where the amounts could overflow (sources.c): one flag word per grid (scalars, then each
     * velocity component), read back once; an ordinary splat neither launches it nor waits for the device */
    for (int pass = eddy__splat_may_overflow(sp, c->g.dim) ? 0 : 1; pass < 2 && e == cudaSuccess; pass++) {
        const bool dry = pass == 0;
        if (dry) e = cudaMemsetAsync(flags, 0, sizeof c->d_rb->splat_overflow, c->stream);
        if (e == cudaSuccess) e = splat_grid(c, sg, scalars, amounts, 4, ctr, sp->radius, dry ? &flags[0] : nullptr);
        for (int a = 0; a < c->g.dim && e == cudaSuccess; a++) {
            if (sp->velocity[a] == 0.0f) continue;
            GDesc vg = velocity_desc(c->g, a);
            float *arr[1] = {c->vel[a]};
            e = splat_grid(c, vg, arr, &sp->velocity[a], 1, ctr, sp->radius, dry ? &flags[1 + a] : nullptr);
        }
        if (!dry || e != cudaSuccess) continue;
        e = cudaMemcpyAsync(c->h_rb->splat_overflow, flags, sizeof c->d_rb->splat_overflow, cudaMemcpyDeviceToHost, c->stream);
        if (e == cudaSuccess) e = cudaStreamSynchronize(c->stream);
        for (int g = 0; g < 4 && e == cudaSuccess && *overflow_at == -2; g++)
            if (c->h_rb->splat_overflow[g]) *overflow_at = g - 1;
        if (*overflow_at != -2) return cudaSuccess;
    }
    return e;
}

/* ---------------------------------------------------------------- emitters (in list order, as the CPU) */
__device__ inline float emitter_sdf(const DShape &e, const float p[3], int dim) {
    DShape z = e;
    z.axis[0] = z.axis[1] = z.axis[2] = 0.0f;
    return shape_sdf(z, p, dim);
}

/* One emitter over its bounding box (the CPU loops over the whole grid; outside the box the signed distance is
 * positive, so the cells it skips are the ones the CPU leaves alone). Launched per emitter, in list order. */
struct Box {
    int lo[3], cnt[3];
};
/* index box of grid d covering the emitter's bounding box, one sample of margin for rounding */
static Box emitter_box(const GDesc &d, const DShape &e, int dim) {
    Box b;
    for (int a = 0; a < 3; a++) {
        if (a >= dim || d.n[a] == 1) {
            b.lo[a] = 0;
            b.cnt[a] = d.n[a];
            continue;
        }
        float r = e.shape == EDDY_SHAPE_BOX ? e.half_size[a] : e.radius;
        float x0 = (e.center[a] - r - d.origin[a]) / d.spacing[a] - d.off[a];
        float x1 = (e.center[a] + r - d.origin[a]) / d.spacing[a] - d.off[a];
        int i0 = isfinite(x0) ? clampi((int)floorf(fmaxf(x0, -1.0f)) - 1, 0, d.n[a] - 1) : 0;
        int i1 = isfinite(x1) ? clampi((int)ceilf(fminf(x1, (float)d.n[a])) + 1, 0, d.n[a] - 1) : d.n[a] - 1;
        b.lo[a] = i0;
        b.cnt[a] = i1 >= i0 ? i1 - i0 + 1 : 0;
    }
    return b;
}

/* one emitter's scalars and velocity components in one launch with its shape by value (no copy of the emitter list
 * to the device; cuda_notes 124): part blockIdx.z / nz is the scalars (kind -1: dye and temperature += rate dt inside
 * the shape) or velocity component `kind` (set inside the shape); the parts write different arrays, and the emitters'
 * launches follow each other in the list's order */
struct EmitParts {
    Box b[4];
    int kind[4];
    int nz; /* the largest box's cnt[2] */
};
__global__ void k_emit_one(Geo g, DShape d, EmitParts ep, float dt, float *d0, float *d1, float *d2, float *t,
                           float *v0, float *v1, float *v2, Flags fl) {
    const int part = (int)blockIdx.z / ep.nz, k = (int)blockIdx.z % ep.nz;
    const Box bx = ep.b[part];
    const int i = (int)(blockIdx.x * BX + threadIdx.x), j = (int)(blockIdx.y * BY + threadIdx.y);
    if (i >= bx.cnt[0] || j >= bx.cnt[1] || k >= bx.cnt[2]) return;
    const int ii = bx.lo[0] + i, jj = bx.lo[1] + j, kk = bx.lo[2] + k;
    const int a = ep.kind[part];
    float p[3];
    if (a < 0) {
        GDesc sg = scalar_desc(g);
        grid_pos(sg, ii, jj, kk, p);
        if (emitter_sdf(d, p, g.dim) >= 0) return;
        const unsigned q = idx3(g.sn, ii, jj, kk);
        d0[q] += d.dye[0] * dt;
        d1[q] += d.dye[1] * dt;
        d2[q] += d.dye[2] * dt;
        t[q] += d.temperature * dt;
        flag_if_bad(fl, d0[q], EDDY_FIELD_DYE_R);
        flag_if_bad(fl, d1[q], EDDY_FIELD_DYE_G);
        flag_if_bad(fl, d2[q], EDDY_FIELD_DYE_B);
        flag_if_bad(fl, t[q], EDDY_FIELD_TEMPERATURE);
        return;
    }
    GDesc vg = velocity_desc(g, a);
    grid_pos(vg, ii, jj, kk, p);
    float *v = a == 0 ? v0 : a == 1 ? v1 : v2;
    if (emitter_sdf(d, p, g.dim) < 0) v[idx3(vg.n, ii, jj, kk)] = d.velocity[a];
}

cudaError_t launch_emitters(cu_sim *c, int count, float dt) {
    const Geo &g = c->g;
    for (int e = 0; e < count; e++) {
        const DShape &d = c->stage_shapes[e];
        EmitParts ep = {};
        int np = 0, gx = 0, gy = 0, nz = 0;
        auto add = [&](const Box &b, int kind) {
            if (!(b.cnt[0] > 0 && b.cnt[1] > 0 && b.cnt[2] > 0)) return;
            ep.b[np] = b;
            ep.kind[np++] = kind;
            const dim3 tg = tiles(b.cnt[0], b.cnt[1], b.cnt[2]);
            gx = std::max(gx, (int)tg.x);
            gy = std::max(gy, (int)tg.y);
            nz = std::max(nz, b.cnt[2]);
        };
        add(emitter_box(scalar_desc(g), d, g.dim), -1);
        if (d.set_velocity)
            for (int a = 0; a < g.dim; a++) add(emitter_box(velocity_desc(g, a), d, g.dim), a);
        if (np == 0) continue;
        ep.nz = nz;
        k_emit_one<<<dim3((unsigned)gx, (unsigned)gy, (unsigned)(np * nz)), tile_block(), 0, c->stream>>>(
            g, d, ep, dt, c->dye[0], c->dye[1], c->dye[2], c->temp, c->vel[0], c->vel[1], c->vel[2], flags_for(c));
    }
    return cudaGetLastError();
}

} /* namespace ecu */
