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
    float d = 0.0f, temp = 0.0f;
    if (alpha != 0.0f) d = sample(sg, d0, p) + sample(sg, d1, p) + sample(sg, d2, p);
    if (beta != 0.0f) temp = sample(sg, t, p) - t_amb;
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

struct Cells {
    float *uc[3], *om[3], *mag;
};

__global__ void k_cell_velocity(Geo g, Vel v, Cells cs) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    size_t c = idx3(g.n, i, j, k);
    for (int a = 0; a < 3; a++) {
        if (a >= g.dim) { cs.uc[a][c] = 0.0f; continue; }
        int fn[3], hi[3] = {i, j, k};
        face_dims(g, a, fn);
        hi[a]++;
        cs.uc[a][c] = 0.5f * (v.c[a][idx3(fn, i, j, k)] + v.c[a][idx3(fn, hi[0], hi[1], hi[2])]);
    }
}

__global__ void k_curl(Geo g, Cells cs) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    size_t c = idx3(g.n, i, j, k);
    float wx = 0, wy = 0, wz = ddx(g, cs.uc[1], 0, i, j, k) - ddx(g, cs.uc[0], 1, i, j, k);
    if (g.dim == 3) {
        wx = ddx(g, cs.uc[2], 1, i, j, k) - ddx(g, cs.uc[1], 2, i, j, k);
        wy = ddx(g, cs.uc[0], 2, i, j, k) - ddx(g, cs.uc[2], 0, i, j, k);
    }
    cs.om[0][c] = wx;
    cs.om[1][c] = wy;
    cs.om[2][c] = wz;
    cs.mag[c] = sqrtf(wx * wx + wy * wy + wz * wz);
}

/* the cell force, written over the cell velocities (no longer read) */
__global__ void k_vort_force(Geo g, Cells cs, const uint8_t *__restrict__ solid, float scale) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    size_t c = idx3(g.n, i, j, k);
    float gx = ddx(g, cs.mag, 0, i, j, k), gy = ddx(g, cs.mag, 1, i, j, k), gz = ddx(g, cs.mag, 2, i, j, k);
    float len = sqrtf(gx * gx + gy * gy + gz * gz);
    float fx = 0, fy = 0, fz = 0;
    if (len > 1e-20f && !solid[c]) {
        float nx = gx / len, ny = gy / len, nz = gz / len;
        fx = scale * (ny * cs.om[2][c] - nz * cs.om[1][c]);
        fy = scale * (nz * cs.om[0][c] - nx * cs.om[2][c]);
        fz = scale * (nx * cs.om[1][c] - ny * cs.om[0][c]);
    }
    cs.uc[0][c] = fx;
    cs.uc[1][c] = fy;
    cs.uc[2][c] = fz;
}

__global__ void k_vort_faces(Geo g, int a, float dt, float *__restrict__ v, const float *__restrict__ f, Flags fl) {
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
    float fa = 0.5f * (f[idx3(g.n, lo[0], lo[1], lo[2])] + f[idx3(g.n, hi[0], hi[1], hi[2])]);
    size_t q = idx3(fn, i, j, k);
    float nv = v[q] + dt * fa;
    v[q] = nv;
    flag_if_bad(fl, nv, EDDY_FIELD_U + a);
}

static Cells cells_of(cu_sim *c) {
    Cells cs;
    size_t N = c->ncells;
    for (int a = 0; a < 3; a++) {
        cs.uc[a] = c->cell + a * N;
        cs.om[a] = c->cell + (3 + a) * N;
    }
    cs.mag = c->cell + 6 * N;
    return cs;
}

cudaError_t launch_vorticity(cu_sim *c, float dt) {
    const float eps = c->s->def.vorticity;
    if (eps == 0.0f) return cudaSuccess;
    const Geo &g = c->g;
    Cells cs = cells_of(c);
    dim3 gr = tiles(g.n[0], g.n[1], g.n[2]);
    k_cell_velocity<<<gr, tile_block(), 0, c->stream>>>(g, vel_of(c), cs);
    k_curl<<<gr, tile_block(), 0, c->stream>>>(g, cs);
    k_vort_force<<<gr, tile_block(), 0, c->stream>>>(g, cs, c->solid, eps * g.h);
    for (int a = 0; a < g.dim; a++) {
        int fn[3];
        face_dims(g, a, fn);
        k_vort_faces<<<tiles(fn[0], fn[1], fn[2]), tile_block(), 0, c->stream>>>(g, a, dt, c->vel[a], cs.uc[a], flags_for(c));
    }
    return cudaGetLastError();
}

} /* namespace ecu */
