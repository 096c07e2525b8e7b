/* Forces on the device. Buoyancy (forces.c, Fedkiw, Stam & Jensen 2001): u_a += dt g_a (alpha d - beta (T - T_amb))
 * with dye density and temperature sampled at the face. Vorticity confinement (vorticity.c, Steinhoff & Underhill
 * 1994): omega = curl u at cell centres from cell-averaged velocity, N = grad|omega| / |grad|omega||,
 * f = eps h (N x omega), averaged back to faces. Each kernel does the CPU loop body's float operations in order. */
#include "cu_sim.cuh"

namespace ecu {

/* axis b of grid.c's locate() for a face at index x along b: the same float operations */
__device__ inline void face_axis(const GDesc &vg, const GDesc &sg, int b, int x, int *i0, int *i1, float *w) {
    const float p = vg.origin[b] + ((float)x + vg.off[b]) * vg.spacing[b];
    axis_weights(sg, b, (p - sg.origin[b]) / sg.spacing[b] - sg.off[b], i0, i1, w);
}

/* One thread walks R consecutive faces along y. The scalars are interpolated at each face as sample() does
 * (x, then y, then z), which is separable: the x- and z-weights are the thread's for all its faces, and the
 * x-interpolated value of a scalar row (c00, c10, ...) is the same float for every face that reads that row.
 * Where each face's lower row is the previous face's upper row (the grids align: the usual case), the thread
 * loads its R + 1 rows and R velocities at once (independent loads in flight) and interpolates from registers:
 * half the gathers and x-lerps, the same bits. Elsewhere each face gathers its two rows. */
constexpr int BUOY_FIELDS = 4; /* dye R, G, B and temperature */
template <int DIM, int R, int MINB /* blocks per SM: caps the registers */>
__global__ void __launch_bounds__(BLOCK, MINB) k_buoyancy(Geo g, int a, float dt, float ga, float alpha, float beta, float t_amb,
                                                    float *__restrict__ v, const float *__restrict__ d0,
                                                    const float *__restrict__ d1, const float *__restrict__ d2,
                                                    const float *__restrict__ t, Flags fl) {
    const GDesc vg = velocity_desc(g, a), sg = scalar_desc(g);
    const int i = (int)(blockIdx.x * BX + threadIdx.x), k = (int)blockIdx.z;
    const int jb = (int)(blockIdx.y * BY + threadIdx.y) * R;
    if (i >= vg.n[0] || jb >= vg.n[1]) return;
    const int nr = min(R, vg.n[1] - jb);
    int x0, x1, z0 = 0, z1 = 0;
    float wx, wz = 0.0f;
    face_axis(vg, sg, 0, i, &x0, &x1, &wx);
    if (DIM == 3) face_axis(vg, sg, 2, k, &z0, &z1, &wz);
    const float omx = 1 - wx, omz = 1 - wz;
    const bool flat = DIM == 2 || sg.n[2] == 1;
    const float *__restrict__ f[BUOY_FIELDS] = {d0, d1, d2, t};
    const bool use[BUOY_FIELDS] = {alpha != 0.0f, alpha != 0.0f, alpha != 0.0f, beta != 0.0f};
    const unsigned sx = (unsigned)sg.n[0], plane = sx * (unsigned)sg.n[1];
    const unsigned base0 = plane * (unsigned)z0, base1 = plane * (unsigned)z1;
    constexpr int NZ = DIM == 3 ? 2 : 1;
    /* x-interpolated value of field q in scalar row y at z0 (zz = 0) or z1 (zz = 1) */
    auto rowval = [&](int q, int y, int zz) {
        const unsigned o = (zz ? base1 : base0) + sx * (unsigned)y;
        return __ldg(&f[q][o + x0]) * omx + __ldg(&f[q][o + x1]) * wx;
    };
    /* the sample at a face from its two rows' values, then the force */
    auto apply = [&](unsigned fq, float vold, const float (&lo)[BUOY_FIELDS][NZ], const float (&hi)[BUOY_FIELDS][NZ], float wy) {
        const float omy = 1 - wy;
        float sm[BUOY_FIELDS];
#pragma unroll
        for (int q = 0; q < BUOY_FIELDS; q++) {
            const float c0 = lo[q][0] * omy + hi[q][0] * wy;
            if (DIM == 3 && !flat) {
                const float c1 = lo[q][NZ - 1] * omy + hi[q][NZ - 1] * wy;
                sm[q] = c0 * omz + c1 * wz;
            } else {
                sm[q] = c0;
            }
        }
        float d = 0.0f, temp = 0.0f;
        if (use[0]) d = sm[0] + sm[1] + sm[2];
        if (use[3]) temp = sm[3] - t_amb;
        const float nv = vold + dt * ga * (alpha * d - beta * temp);
        v[fq] = nv;
        flag_if_bad(fl, nv, EDDY_FIELD_U + a);
    };
    int ylo[R], yhi[R];
    float wy[R];
    bool aligned = true;
#pragma unroll
    for (int r = 0; r < R; r++) {
        if (r >= nr) break;
        face_axis(vg, sg, 1, jb + r, &ylo[r], &yhi[r], &wy[r]);
        if (r > 0) aligned = aligned && ylo[r] == yhi[r - 1];
    }
    const unsigned fq0 = (unsigned)i + (unsigned)vg.n[0] * ((unsigned)jb + (unsigned)vg.n[1] * k);
    if (aligned) {
        float rv[R + 1][BUOY_FIELDS][NZ], vo[R];
#pragma unroll
        for (int m = 0; m <= R; m++) {
            if (m > nr) break;
            const int y = m == 0 ? ylo[0] : yhi[m - 1];
#pragma unroll
            for (int q = 0; q < BUOY_FIELDS; q++)
#pragma unroll
                for (int zz = 0; zz < NZ; zz++) rv[m][q][zz] = use[q] ? rowval(q, y, zz) : 0.0f;
        }
#pragma unroll
        for (int r = 0; r < R; r++)
            if (r < nr) vo[r] = v[fq0 + (unsigned)r * (unsigned)vg.n[0]];
#pragma unroll
        for (int r = 0; r < R; r++) {
            if (r >= nr) break;
            apply(fq0 + (unsigned)r * (unsigned)vg.n[0], vo[r], rv[r], rv[r + 1], wy[r]);
        }
        return;
    }
    for (int r = 0; r < nr; r++) {
        float lo[BUOY_FIELDS][NZ], hi[BUOY_FIELDS][NZ];
#pragma unroll
        for (int q = 0; q < BUOY_FIELDS; q++)
#pragma unroll
            for (int zz = 0; zz < NZ; zz++) {
                lo[q][zz] = use[q] ? rowval(q, ylo[r], zz) : 0.0f;
                hi[q][zz] = use[q] ? rowval(q, yhi[r], zz) : 0.0f;
            }
        const unsigned fq = fq0 + (unsigned)r * (unsigned)vg.n[0];
        apply(fq, v[fq], lo, hi, wy[r]);
    }
}

cudaError_t launch_buoyancy(cu_sim *c, float dt) {
    const eddy_sim_def &d = c->s->def;
    const float alpha = d.buoyancy_density, beta = d.buoyancy_temperature, t_amb = d.ambient_temperature;
    if (alpha == 0.0f && beta == 0.0f) return cudaSuccess;
    /* faces per thread and the register cap (__launch_bounds__ blocks per SM): the loads in flight per SM are
     * what sets the bandwidth. 2D: 2 faces, 32 registers (8 blocks of 256 per SM); 3D: 4 faces, 64 registers
     * (4 blocks). Uncapped, 8 faces in 2D / 4 in 3D took 80 registers (3 blocks): 53% / 54-58% of copy. */
    constexpr int R2 = 2, MINB2 = 8, R3 = 4, MINB3 = 4;
    for (int a = 0; a < c->g.dim; a++) {
        float ga = d.gravity[a];
        if (ga == 0.0f) continue;
        int fn[3];
        face_dims(c->g, a, fn);
        const int R = c->g.dim == 3 ? R3 : R2;
        const dim3 grid((unsigned)((fn[0] + BX - 1) / BX), (unsigned)((fn[1] + BY * R - 1) / (BY * R)), (unsigned)fn[2]);
        if (c->g.dim == 3)
            k_buoyancy<3, R3, MINB3><<<grid, tile_block(), 0, c->stream>>>(c->g, a, dt, ga, alpha, beta, t_amb, c->vel[a],
                                                                          c->dye[0], c->dye[1], c->dye[2], c->temp, flags_for(c));
        else
            k_buoyancy<2, R2, MINB2><<<grid, tile_block(), 0, c->stream>>>(c->g, a, dt, ga, alpha, beta, t_amb, c->vel[a],
                                                                          c->dye[0], c->dye[1], c->dye[2], c->temp, flags_for(c));
    }
    return cudaGetLastError();
}

/* ------------------------------------------------------------------ vorticity confinement */
__device__ inline int nbr(const Geo &g, int b, int x, int d) {
    x += d;
    return g.periodic[b] ? wrapi(x, g.n[b]) : clampi(x, 0, g.n[b] - 1);
}
/* vorticity.c ddx: central difference of cell array f along b, one-sided at a clamped wall */
/* x / ((float)span * h): a multiply by the reciprocal where that is exact (h a power of two: the same bits, as the
 * CPU's sweep does), a division otherwise */
struct Spans {
    float den[3], rcp[3];
};
template <bool MUL>
__device__ inline float quot(float x, const Spans &sp, int span) { return MUL ? x * sp.rcp[span] : x / sp.den[span]; }
template <bool MUL>
__device__ inline float ddx(const Geo &g, const Spans &sp, const float *__restrict__ f, int b, int i, int j, int k) {
    if (b >= g.dim) return 0.0f;
    int c[3] = {i, j, k}, lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[b] = nbr(g, b, c[b], -1);
    hi[b] = nbr(g, b, c[b], +1);
    int span = g.periodic[b] ? 2 : hi[b] - lo[b];
    if (span == 0) return 0.0f;
    return quot<MUL>(f[idx3(g.n, hi[0], hi[1], hi[2])] - f[idx3(g.n, lo[0], lo[1], lo[2])], sp, span);
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
template <bool MUL>
__device__ inline float ddx_u(const Geo &g, const Spans &sp, const Vel &v, int a, int b, int i, int j, int k) {
    if (b >= g.dim) return 0.0f;
    int c[3] = {i, j, k}, lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[b] = nbr(g, b, c[b], -1);
    hi[b] = nbr(g, b, c[b], +1);
    int span = g.periodic[b] ? 2 : hi[b] - lo[b];
    if (span == 0) return 0.0f;
    return quot<MUL>(ucell(g, v, a, hi[0], hi[1], hi[2]) - ucell(g, v, a, lo[0], lo[1], lo[2]), sp, span);
}

template <bool MUL>
__global__ void k_curl(Geo g, Spans sp, Vel v, Curl cs) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    const unsigned c = idx3(g.n, i, j, k);
    float wx = 0, wy = 0, wz = ddx_u<MUL>(g, sp, v, 1, 0, i, j, k) - ddx_u<MUL>(g, sp, v, 0, 1, i, j, k);
    if (g.dim == 3) {
        wx = ddx_u<MUL>(g, sp, v, 2, 1, i, j, k) - ddx_u<MUL>(g, sp, v, 1, 2, i, j, k);
        wy = ddx_u<MUL>(g, sp, v, 0, 2, i, j, k) - ddx_u<MUL>(g, sp, v, 2, 0, i, j, k);
        cs.om[0][c] = wx;
        cs.om[1][c] = wy;
    }
    cs.om[2][c] = wz;
    cs.mag[c] = sqrtf(wx * wx + wy * wy + wz * wz);
}

/* the confinement force at cell (i,j,k), every component (vorticity.c, the cell-force loop) */
template <bool MUL>
__device__ inline void force_at(const Geo &g, const Spans &sp, const Curl &cs, const uint8_t *__restrict__ solid, float scale, int i,
                                int j, int k, float f[3]) {
    const unsigned c = idx3(g.n, i, j, k);
    float gx = ddx<MUL>(g, sp, cs.mag, 0, i, j, k), gy = ddx<MUL>(g, sp, cs.mag, 1, i, j, k), gz = ddx<MUL>(g, sp, cs.mag, 2, i, j, k);
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
template <bool MUL>
__global__ void k_vort_force(Geo g, Spans sp, Curl cs, const uint8_t *__restrict__ solid, float scale, CellForce cf) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    float f[3];
    force_at<MUL>(g, sp, cs, solid, scale, i, j, k, f);
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
    Spans sp;
    sp.den[0] = sp.rcp[0] = 0.0f; /* spans are 1 or 2 (n >= 3) */
    bool mul = true;
    for (int span = 1; span <= 2; span++) {
        int e;
        sp.den[span] = (float)span * g.h;
        sp.rcp[span] = 1.0f / sp.den[span];
        mul = mul && frexpf(sp.den[span], &e) == 0.5f && isnormal(sp.den[span]) && isnormal(sp.rcp[span]);
    }
    const dim3 gc = tiles(g.n[0], g.n[1], g.n[2]);
    if (mul) {
        k_curl<true><<<gc, tile_block(), 0, c->stream>>>(g, sp, vel_of(c), cs);
        k_vort_force<true><<<gc, tile_block(), 0, c->stream>>>(g, sp, cs, c->solid, eps * g.h, cf);
    } else {
        k_curl<false><<<gc, tile_block(), 0, c->stream>>>(g, sp, vel_of(c), cs);
        k_vort_force<false><<<gc, tile_block(), 0, c->stream>>>(g, sp, cs, c->solid, eps * g.h, cf);
    }
    /* every component reads the start-of-stage velocity of none but itself: the faces may update in turn */
    for (int a = 0; a < g.dim; a++) {
        int fn[3];
        face_dims(g, a, fn);
        k_vort_apply<<<tiles(fn[0], fn[1], fn[2]), tile_block(), 0, c->stream>>>(g, a, dt, c->vel[a], cf.f[a], flags_for(c));
    }
    return cudaGetLastError();
}

} /* namespace ecu */
