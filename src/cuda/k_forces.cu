/* Forces on the device. Buoyancy (forces.c, Fedkiw, Stam & Jensen 2001): u_a += dt g_a (alpha d - beta (T - T_amb))
 * with dye density and temperature sampled at the face. Vorticity confinement (vorticity.c, Steinhoff & Underhill
 * 1994): omega = curl u at cell centres from cell-averaged velocity, N = grad|omega| / |grad|omega||,
 * f = eps h (N x omega), averaged back to faces. Each kernel does the CPU loop body's float operations in order. */
#include "cu_sim.cuh"

namespace ecu {

__global__ void k_buoyancy(Geo g, int a, float dt, float ga, float alpha, float beta, float t_amb,
                           float *__restrict__ v, const float *__restrict__ d0, const float *__restrict__ d1,
                           const float *__restrict__ d2, const float *__restrict__ t, Flags fl) {
    GDesc vg = velocity_desc(g, a);
    ECU_IJK(vg.n[0], vg.n[1]);
    if (!inside_) return;
    GDesc sg = scalar_desc(g);
    float p[3];
    grid_pos(vg, i, j, k, p);
    /* the four samples sit at one position: locate once, then sample()'s arithmetic per array */
    int i0[3], i1[3];
    float w[3];
    locate(sg, p, i0, i1, w);
    auto at = [&](const float *__restrict__ f) -> float {
        const int *n = sg.n;
        float c00 = __ldg(&f[idx3(n, i0[0], i0[1], i0[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i0[1], i0[2])]) * w[0];
        float c10 = __ldg(&f[idx3(n, i0[0], i1[1], i0[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i1[1], i0[2])]) * w[0];
        float c0 = c00 * (1 - w[1]) + c10 * w[1];
        if (n[2] == 1) return c0;
        float c01 = __ldg(&f[idx3(n, i0[0], i0[1], i1[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i0[1], i1[2])]) * w[0];
        float c11 = __ldg(&f[idx3(n, i0[0], i1[1], i1[2])]) * (1 - w[0]) + __ldg(&f[idx3(n, i1[0], i1[1], i1[2])]) * w[0];
        float c1 = c01 * (1 - w[1]) + c11 * w[1];
        return c0 * (1 - w[2]) + c1 * w[2];
    };
    float d = 0.0f, temp = 0.0f;
    if (alpha != 0.0f) d = at(d0) + at(d1) + at(d2);
    if (beta != 0.0f) temp = at(t) - t_amb;
    size_t f = idx3(vg.n, i, j, k);
    float nv = v[f] + dt * ga * (alpha * d - beta * temp);
    v[f] = nv;
    flag_if_bad(fl, nv, EDDY_FIELD_U + a);
}

cudaError_t launch_buoyancy(cu_sim *c, float dt) {
    const eddy_sim_def &d = c->s->def;
    const float alpha = d.buoyancy_density, beta = d.buoyancy_temperature, t_amb = d.ambient_temperature;
    if (alpha == 0.0f && beta == 0.0f) return cudaSuccess;
    for (int a = 0; a < c->g.dim; a++) {
        float ga = d.gravity[a];
        if (ga == 0.0f) continue;
        int fn[3];
        face_dims(c->g, a, fn);
        k_buoyancy<<<tiles(fn[0], fn[1], fn[2]), tile_block(), 0, c->stream>>>(
            c->g, a, dt, ga, alpha, beta, t_amb, c->vel[a], c->dye[0], c->dye[1], c->dye[2], c->temp, flags_for(c));
    }
    return cudaGetLastError();
}

/* ------------------------------------------------------------------ vorticity confinement */
__device__ inline int nbr(const Geo &g, int b, int x, int d) {
    x += d;
    return g.periodic[b] ? wrapi(x, g.n[b]) : clampi(x, 0, g.n[b] - 1);
}
/* vorticity.c ddx: central difference of cell array f along b, one-sided at a clamped wall */
__device__ inline float ddx(const Geo &g, const float *__restrict__ f, int b, int i, int j, int k) {
    if (b >= g.dim) return 0.0f;
    int c[3] = {i, j, k}, lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[b] = nbr(g, b, c[b], -1);
    hi[b] = nbr(g, b, c[b], +1);
    int span = g.periodic[b] ? 2 : hi[b] - lo[b];
    if (span == 0) return 0.0f;
    return (f[idx3(g.n, hi[0], hi[1], hi[2])] - f[idx3(g.n, lo[0], lo[1], lo[2])]) / ((float)span * g.h);
}

/* The CPU runs four passes (cell velocity, curl, cell force, face average) through five cell arrays; here three
 * kernels do the same arithmetic: the curl reads the cell velocities off the faces, the cell force is computed
 * once per cell from |curl| around it, and each face averages its two cells' forces. */
struct Curl {
    float *om[3], *mag; /* om[0], om[1] unused (zero) in 2D */
};

/* cell-centred velocity component a at (i,j,k): mean of its two faces (vorticity.c eddy__cell_velocity) */
__device__ inline float ucell(const Geo &g, const Vel &v, int a, int i, int j, int k) {
    if (a >= g.dim) return 0.0f;
    int fn[3], hi[3] = {i, j, k};
    face_dims(g, a, fn);
    hi[a]++;
    return 0.5f * (v.c[a][idx3(fn, i, j, k)] + v.c[a][idx3(fn, hi[0], hi[1], hi[2])]);
}
/* ddx of the cell velocity component a along b */
__device__ inline float ddx_u(const Geo &g, const Vel &v, int a, int b, int i, int j, int k) {
    if (b >= g.dim) return 0.0f;
    int c[3] = {i, j, k}, lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[b] = nbr(g, b, c[b], -1);
    hi[b] = nbr(g, b, c[b], +1);
    int span = g.periodic[b] ? 2 : hi[b] - lo[b];
    if (span == 0) return 0.0f;
    return (ucell(g, v, a, hi[0], hi[1], hi[2]) - ucell(g, v, a, lo[0], lo[1], lo[2])) / ((float)span * g.h);
}

__global__ void k_curl(Geo g, Vel v, Curl cs) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    const unsigned c = idx3(g.n, i, j, k);
    float wx = 0, wy = 0, wz = ddx_u(g, v, 1, 0, i, j, k) - ddx_u(g, v, 0, 1, i, j, k);
    if (g.dim == 3) {
        wx = ddx_u(g, v, 2, 1, i, j, k) - ddx_u(g, v, 1, 2, i, j, k);
        wy = ddx_u(g, v, 0, 2, i, j, k) - ddx_u(g, v, 2, 0, i, j, k);
        cs.om[0][c] = wx;
        cs.om[1][c] = wy;
    }
    cs.om[2][c] = wz;
    cs.mag[c] = sqrtf(wx * wx + wy * wy + wz * wz);
}

/* the confinement force at cell (i,j,k), every component (vorticity.c, the cell-force loop) */
__device__ inline void force_at(const Geo &g, const Curl &cs, const uint8_t *__restrict__ solid, float scale, int i,
                                int j, int k, float f[3]) {
    const unsigned c = idx3(g.n, i, j, k);
    float gx = ddx(g, cs.mag, 0, i, j, k), gy = ddx(g, cs.mag, 1, i, j, k), gz = ddx(g, cs.mag, 2, i, j, k);
    float len = sqrtf(gx * gx + gy * gy + gz * gz);
    if (!(len > 1e-20f && !solid[c])) {
        f[0] = f[1] = f[2] = 0.0f;
        return;
    }
    float nx = gx / len, ny = gy / len, nz = gz / len;
    float o0 = g.dim == 3 ? cs.om[0][c] : 0.0f, o1 = g.dim == 3 ? cs.om[1][c] : 0.0f, o2 = cs.om[2][c];
    f[0] = scale * (ny * o2 - nz * o1);
    f[1] = scale * (nz * o0 - nx * o2);
    f[2] = scale * (nx * o1 - ny * o0);
}

/* the cell force, once per cell (it was computed twice per face: normalised gradients, sqrt and divisions made
 * the face kernels instruction-bound at ~10% of copy bandwidth) */
struct CellForce {
    float *f[3];
};
__global__ void k_vort_force(Geo g, Curl cs, const uint8_t *__restrict__ solid, float scale, CellForce cf) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    float f[3];
    force_at(g, cs, solid, scale, i, j, k, f);
    const unsigned c = idx3(g.n, i, j, k);
    cf.f[0][c] = f[0];
    cf.f[1][c] = f[1];
    if (g.dim == 3) cf.f[2][c] = f[2];
}

/* face = mean of its two cells' forces (the same float operations as before: the same bits) */
__global__ void k_vort_apply(Geo g, int a, float dt, float *__restrict__ v, const float *__restrict__ fa_cell, Flags fl) {
    int fn[3];
    face_dims(g, a, fn);
    ECU_IJK(fn[0], fn[1]);
    if (!inside_) return;
    int c[3] = {i, j, k}, lo[3] = {i, j, k}, hi[3] = {i, j, k};
    int n = g.n[a];
    if (g.periodic[a]) {
        lo[a] = wrapi(c[a] - 1, n);
        hi[a] = wrapi(c[a], n);
    } else {
        lo[a] = clampi(c[a] - 1, 0, n - 1);
        hi[a] = clampi(c[a], 0, n - 1);
    }
    float fa = 0.5f * (fa_cell[idx3(g.n, lo[0], lo[1], lo[2])] + fa_cell[idx3(g.n, hi[0], hi[1], hi[2])]);
    const unsigned q = idx3(fn, i, j, k);
    float nv = v[q] + dt * fa;
    v[q] = nv;
    flag_if_bad(fl, nv, EDDY_FIELD_U + a);
}

cudaError_t launch_vorticity(cu_sim *c, float dt) {
    const float eps = c->s->def.vorticity;
    if (eps == 0.0f) return cudaSuccess;
    const Geo &g = c->g;
    Curl cs;
    CellForce cf;
    size_t N = c->ncells;
    for (int a = 0; a < 3; a++) cs.om[a] = c->cell + a * N;
    cs.mag = c->cell + 3 * N;
    for (int a = 0; a < 3; a++) cf.f[a] = c->cell + (4 + a) * N;
    k_curl<<<tiles(g.n[0], g.n[1], g.n[2]), tile_block(), 0, c->stream>>>(g, vel_of(c), cs);
    k_vort_force<<<tiles(g.n[0], g.n[1], g.n[2]), tile_block(), 0, c->stream>>>(g, cs, c->solid, eps * g.h, cf);
    /* every component reads the start-of-stage velocity of none but itself: the faces may update in turn */
    for (int a = 0; a < g.dim; a++) {
        int fn[3];
        face_dims(g, a, fn);
        k_vort_apply<<<tiles(fn[0], fn[1], fn[2]), tile_block(), 0, c->stream>>>(g, a, dt, c->vel[a], cf.f[a], flags_for(c));
    }
    return cudaGetLastError();
}

} /* namespace ecu */
