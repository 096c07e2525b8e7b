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

/* One thread walks ECU_ROWS consecutive faces along y. The scalars are interpolated at each face as sample() does
 * (x, then y, then z), which is separable: the x- and z-weights are the thread's for all its faces, and the
 * x-interpolated value of a scalar row (c00, c10, ...) is the same float for every face that reads that row. The
 * row a face shares with the face below it (its lower row is the previous upper one wherever the grids align) is
 * kept in registers: half the gathers and x-lerps, the same bits. */
constexpr int BUOY_FIELDS = 4; /* dye R, G, B and temperature */
template <int DIM>
__global__ void __launch_bounds__(BLOCK) k_buoyancy(Geo g, int a, float dt, float ga, float alpha, float beta, float t_amb,
                                                    float *__restrict__ v, const float *__restrict__ d0,
                                                    const float *__restrict__ d1, const float *__restrict__ d2,
                                                    const float *__restrict__ t, Flags fl) {
    const GDesc vg = velocity_desc(g, a), sg = scalar_desc(g);
    const int i = (int)(blockIdx.x * BX + threadIdx.x), k = (int)blockIdx.z;
    const int jb = (int)(blockIdx.y * BY + threadIdx.y) * ECU_ROWS;
    if (i >= vg.n[0] || jb >= vg.n[1]) return;
    int x0, x1, z0 = 0, z1 = 0;
    float wx, wz = 0.0f;
    face_axis(vg, sg, 0, i, &x0, &x1, &wx);
    if (DIM == 3) face_axis(vg, sg, 2, k, &z0, &z1, &wz);
    const float omx = 1 - wx, omz = 1 - wz;
    const float *__restrict__ f[BUOY_FIELDS] = {d0, d1, d2, t};
    const bool use[BUOY_FIELDS] = {alpha != 0.0f, alpha != 0.0f, alpha != 0.0f, beta != 0.0f};
    const unsigned sx = (unsigned)sg.n[0], plane = sx * (unsigned)sg.n[1];
    const unsigned base0 = plane * (unsigned)z0, base1 = plane * (unsigned)z1;
    /* x-interpolated values of one scalar row (y index `row`) at z0 (and z1) for every field */
    struct Row {
        int y;
        float c[BUOY_FIELDS][2];
    };
    auto load_row = [&](Row &r, int y) {
        r.y = y;
#pragma unroll
        for (int q = 0; q < BUOY_FIELDS; q++) {
            if (!use[q]) continue;
            const unsigned o0 = base0 + sx * (unsigned)y;
            r.c[q][0] = __ldg(&f[q][o0 + x0]) * omx + __ldg(&f[q][o0 + x1]) * wx;
            if (DIM == 3) {
                const unsigned o1 = base1 + sx * (unsigned)y;
                r.c[q][1] = __ldg(&f[q][o1 + x0]) * omx + __ldg(&f[q][o1 + x1]) * wx;
            }
        }
    };
    Row lo, hi;
    lo.y = hi.y = -1;
    unsigned fq = (unsigned)i + (unsigned)vg.n[0] * ((unsigned)jb + (unsigned)vg.n[1] * k);
    for (int r = 0; r < ECU_ROWS; r++) {
        const int j = jb + r;
        if (j >= vg.n[1]) break;
        int y0, y1;
        float wy;
        face_axis(vg, sg, 1, j, &y0, &y1, &wy);
        /* the rows of this face from those of the previous one where they coincide */
        Row nlo, nhi;
        if (y0 == hi.y) nlo = hi;
        else if (y0 == lo.y) nlo = lo;
        else load_row(nlo, y0);
        if (y1 == hi.y) nhi = hi;
        else if (y1 == lo.y) nhi = lo;
        else load_row(nhi, y1);
        lo = nlo;
        hi = nhi;
        const float omy = 1 - wy;
        float s[BUOY_FIELDS];
#pragma unroll
        for (int q = 0; q < BUOY_FIELDS; q++) {
            const float c0 = lo.c[q][0] * omy + hi.c[q][0] * wy;
            if (DIM == 3 && sg.n[2] > 1) {
                const float c1 = lo.c[q][1] * omy + hi.c[q][1] * wy;
                s[q] = c0 * omz + c1 * wz;
            } else {
                s[q] = c0;
            }
        }
        float d = 0.0f, temp = 0.0f;
        if (use[0]) d = s[0] + s[1] + s[2];
        if (use[3]) temp = s[3] - t_amb;
        const float nv = v[fq] + dt * ga * (alpha * d - beta * temp);
        v[fq] = nv;
        flag_if_bad(fl, nv, EDDY_FIELD_U + a);
        fq += (unsigned)vg.n[0];
    }
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
        if (c->g.dim == 3)
            k_buoyancy<3><<<tiles_rows(fn[0], fn[1], fn[2]), tile_block(), 0, c->stream>>>(
                c->g, a, dt, ga, alpha, beta, t_amb, c->vel[a], c->dye[0], c->dye[1], c->dye[2], c->temp, flags_for(c));
        else
            k_buoyancy<2><<<tiles_rows(fn[0], fn[1], fn[2]), tile_block(), 0, c->stream>>>(
                c->g, a, dt, ga, alpha, beta, t_amb, c->vel[a], c->dye[0], c->dye[1], c->dye[2], c->temp, flags_for(c));
    }
    return cudaGetLastError();
}

/* ------------------------------------------------------------------ vorticity confinement, one pass
 * The CPU's sweep (vorticity.c, vorticity_sweep.c) on the device: a block owns a tile of cells across the slabs
 * (rows of 128 cells in 2D, 32 x 16 cells in 3D) and a run of `slabs` slabs along the outermost axis (y in 2D,
 * z in 3D); it marches along that axis with rings of slabs in shared memory: the cell velocity of slab L, the curl
 * and |curl| of L - 1, the cell force of L - 2, then the new faces of L - 2 (into vel_tmp; the stage swaps).
 * The tile carries a halo of 3 cells across the slabs (cell velocity 3, curl 2, force 1), recomputed by the
 * neighbouring blocks; nothing but the new velocity is written. Same window, neighbour rules and float
 * operations as the CPU sweep (a division by the spacing is a multiply where that is exact), so the same bits. */
struct VortSweep {
    float den[3], rcp[3]; /* [span]: (float)span * h, and 1 / that (exact when h is a power of two) */
    float scale, dt;
    int slabs;            /* slabs per block */
};
template <bool MUL>
__device__ inline float quot(float x, const VortSweep &w, int span) { return MUL ? x * w.rcp[span] : x / w.den[span]; }
/* a neighbour's index as the rule sees it (wrapped later on a periodic axis, clamped on a bounded one) */
__device__ inline int refc(int c, int n, int per) { return per ? c : clampi(c, 0, n - 1); }
__device__ inline int physc(int c, int n, int per) { return per ? wrapi(c, n) : c; }
__device__ inline int spanc(int c, int n, int per) { return per ? 2 : clampi(c + 1, 0, n - 1) - clampi(c - 1, 0, n - 1); }
__device__ inline int ring(int L, int r) { return ((L % r) + r) % r; }

/* the slabs a block needs (vorticity_sweep.c window_of) */
struct Window {
    int fmin, fmax, cmin, cmax, umin, umax;
    bool last;
};
__device__ inline Window window_of(int s0, int s1, int ns, int ps) {
    Window v;
    v.last = s1 == ns;
    v.fmin = s0 - 1;
    v.fmax = v.last ? ns : s1 - 1;
    if (!ps) {
        v.fmin = clampi(v.fmin, 0, ns - 1);
        v.fmax = clampi(v.fmax, 0, ns - 1);
    }
    v.cmin = v.fmin - 1, v.cmax = v.fmax + 1, v.umin = v.fmin - 2, v.umax = v.fmax + 2;
    if (!ps) {
        v.cmin = clampi(v.cmin, 0, ns - 1); v.cmax = clampi(v.cmax, 0, ns - 1);
        v.umin = clampi(v.umin, 0, ns - 1); v.umax = clampi(v.umax, 0, ns - 1);
    }
    return v;
}

constexpr int V2X = 128, V2R = V2X + 6;
template <bool MUL>
__global__ void __launch_bounds__(V2X) k_vort2(Geo g, VortSweep w, Vel v, const uint8_t *__restrict__ solid,
                                               float *__restrict__ nu, float *__restrict__ nv, Flags fl) {
    __shared__ float UC[2][3][V2R], WZ[2][V2R], MAG[3][V2R], F[2][2][V2R];
    const int n0 = g.n[0], ns = g.n[1], px = g.periodic[0], ps = g.periodic[1];
    const int x0 = (int)blockIdx.x * V2X, s0 = (int)blockIdx.y * w.slabs, s1 = min(s0 + w.slabs, ns);
    const int tid = (int)threadIdx.x;
    const float *__restrict__ u = v.c[0], *__restrict__ vv = v.c[1];
    const Window win = window_of(s0, s1, ns, ps);
    auto key = [&](int L) { return ps ? L : clampi(L, 0, ns - 1); };
    auto loc = [&](int x) { return x - x0 + 3; };
    auto inside = [&](int x) { return px || (x >= 0 && x < n0); };
    /* the new faces of row t: x-faces (the last cell also writes face n0) and the y-faces below the cells */
    auto faces = [&](int t, bool top_only) {
        const int x = x0 + tid;
        if (x >= n0) return;
        const float *f1l = F[1][ring(key(t - 1), 2)], *f1h = F[1][ring(key(t), 2)];
        const unsigned qv = (unsigned)x + (unsigned)n0 * (unsigned)t;
        const float y = vv[qv] + w.dt * (0.5f * (f1l[loc(x)] + f1h[loc(x)]));
        nv[qv] = y;
        flag_if_bad(fl, y, EDDY_FIELD_V);
        if (top_only) return;
        const float *f0 = F[0][ring(t, 2)];
        const unsigned qu = (unsigned)x + (unsigned)(n0 + 1) * (unsigned)t;
        const float a = u[qu] + w.dt * (0.5f * (f0[loc(refc(x - 1, n0, px))] + f0[loc(x)]));
        nu[qu] = a;
        flag_if_bad(fl, a, EDDY_FIELD_U);
        if (x == n0 - 1) {
            const float b = u[qu + 1] + w.dt * (0.5f * (f0[loc(x)] + f0[loc(refc(n0, n0, px))]));
            nu[qu + 1] = b;
            flag_if_bad(fl, b, EDDY_FIELD_U);
        }
    };
    for (int L = win.umin; L <= win.fmax + 2; L++) {
        if (L <= win.umax) {
            const int j = physc(L, ns, ps), sl = ring(L, 3);
            for (int e = tid; e < V2R; e += V2X) {
                const int x = x0 - 3 + e;
                if (!inside(x)) continue;
                const int ix = physc(x, n0, px);
                const unsigned qu = (unsigned)ix + (unsigned)(n0 + 1) * (unsigned)j, qv = (unsigned)ix + (unsigned)n0 * (unsigned)j;
                UC[0][sl][e] = 0.5f * (u[qu] + u[qu + 1]);
                UC[1][sl][e] = 0.5f * (vv[qv] + vv[qv + n0]);
            }
        }
        __syncthreads();
        const int c = L - 1;
        if (c >= win.cmin && c <= win.cmax) {
            const int sl = ring(c, 3), sm = ring(key(c - 1), 3), sp = ring(key(c + 1), 3), dy = spanc(c, ns, ps);
            for (int e = 1 + tid; e < V2R - 1; e += V2X) {
                const int x = x0 - 3 + e;
                if (!inside(x)) continue;
                const float dx = quot<MUL>(UC[1][sl][loc(refc(x + 1, n0, px))] - UC[1][sl][loc(refc(x - 1, n0, px))], w, spanc(x, n0, px));
                const float z = dx - quot<MUL>(UC[0][sp][e] - UC[0][sm][e], w, dy);
                WZ[ring(c, 2)][e] = z;
                MAG[sl][e] = sqrtf(z * z);
            }
        }
        __syncthreads();
        const int t = L - 2;
        if (t >= win.fmin && t <= win.fmax) {
            const int sl = ring(t, 3), sm = ring(key(t - 1), 3), sp = ring(key(t + 1), 3), dy = spanc(t, ns, ps);
            const int j = physc(t, ns, ps);
            for (int e = 2 + tid; e < V2R - 2; e += V2X) {
                const int x = x0 - 3 + e;
                if (!inside(x)) continue;
                const float gx = quot<MUL>(MAG[sl][loc(refc(x + 1, n0, px))] - MAG[sl][loc(refc(x - 1, n0, px))], w, spanc(x, n0, px));
                const float gy = quot<MUL>(MAG[sp][e] - MAG[sm][e], w, dy);
                const float len = sqrtf(gx * gx + gy * gy);
                const bool keep = len > 1e-20f && solid[(unsigned)physc(x, n0, px) + (unsigned)n0 * (unsigned)j] == 0;
                const float nx = gx / len, ny = gy / len, wz = WZ[ring(t, 2)][e];
                F[0][ring(t, 2)][e] = keep ? w.scale * (ny * wz) : 0.0f;
                F[1][ring(t, 2)][e] = keep ? w.scale * (0.0f - nx * wz) : 0.0f;
            }
        }
        __syncthreads();
        if (t >= s0 && t < s1) faces(t, false);
    }
    if (win.last) faces(ns, true);
}

constexpr int V3X = 32, V3Y = 16, V3T = V3X * V3Y, V3RX = V3X + 6, V3RY = V3Y + 6, V3R = V3RX * V3RY;
constexpr size_t V3_SMEM = (size_t)(9 + 6 + 3 + 6) * V3R * sizeof(float); /* uc 3x3, curl 3x2, |curl| 3, force 3x2 */
template <bool MUL>
__global__ void __launch_bounds__(V3T, 2) k_vort3(Geo g, VortSweep w, Vel v, const uint8_t *__restrict__ solid,
                                                  float *__restrict__ nu, float *__restrict__ nv, float *__restrict__ nw,
                                                  Flags fl) {
    extern __shared__ float sm_[];
    float *const UC = sm_;           /* [comp][3 slots][V3R] */
    float *const OM = UC + 9 * V3R;  /* [comp][2][V3R] */
    float *const MAG = OM + 6 * V3R; /* [3][V3R] */
    float *const F = MAG + 3 * V3R;  /* [comp][2][V3R] */
    const int n0 = g.n[0], n1 = g.n[1], ns = g.n[2], px = g.periodic[0], py = g.periodic[1], ps = g.periodic[2];
    const int x0 = (int)blockIdx.x * V3X, y0 = (int)blockIdx.y * V3Y;
    const int s0 = (int)blockIdx.z * w.slabs, s1 = min(s0 + w.slabs, ns);
    const int tid = (int)threadIdx.x;
    const float *__restrict__ u = v.c[0], *__restrict__ vv = v.c[1], *__restrict__ ww = v.c[2];
    const unsigned plane = (unsigned)n0 * (unsigned)n1;
    const Window win = window_of(s0, s1, ns, ps);
    auto key = [&](int L) { return ps ? L : clampi(L, 0, ns - 1); };
    auto loc = [&](int x, int y) { return (x - x0 + 3) + V3RX * (y - y0 + 3); };
    auto inside = [&](int x, int y) { return (px || (x >= 0 && x < n0)) && (py || (y >= 0 && y < n1)); };
    /* thread (tx, ty) writes the lower faces of cell (x0 + tx, y0 + ty) of slab t, the last cell of a row or
     * column also the face past it; top_only: the z-faces of the top plane */
    auto faces = [&](int t, bool top_only) {
        const int x = x0 + tid % V3X, y = y0 + tid / V3X;
        if (x >= n0 || y >= n1) return;
        const int me = loc(x, y);
        const float *f2l = F + (2 * 2 + ring(key(t - 1), 2)) * V3R, *f2h = F + (2 * 2 + ring(key(t), 2)) * V3R;
        const unsigned qw = (unsigned)x + (unsigned)n0 * ((unsigned)y + (unsigned)n1 * (unsigned)t);
        const float c = ww[qw] + w.dt * (0.5f * (f2l[me] + f2h[me]));
        nw[qw] = c;
        flag_if_bad(fl, c, EDDY_FIELD_W);
        if (top_only) return;
        const float *f0 = F + (0 * 2 + ring(t, 2)) * V3R, *f1 = F + (1 * 2 + ring(t, 2)) * V3R;
        const unsigned qu = (unsigned)x + (unsigned)(n0 + 1) * ((unsigned)y + (unsigned)n1 * (unsigned)t);
        const float a = u[qu] + w.dt * (0.5f * (f0[loc(refc(x - 1, n0, px), y)] + f0[me]));
        nu[qu] = a;
        flag_if_bad(fl, a, EDDY_FIELD_U);
        if (x == n0 - 1) {
            const float a1 = u[qu + 1] + w.dt * (0.5f * (f0[me] + f0[loc(refc(n0, n0, px), y)]));
            nu[qu + 1] = a1;
            flag_if_bad(fl, a1, EDDY_FIELD_U);
        }
        const unsigned qv = (unsigned)x + (unsigned)n0 * ((unsigned)y + (unsigned)(n1 + 1) * (unsigned)t);
        const float b = vv[qv] + w.dt * (0.5f * (f1[loc(x, refc(y - 1, n1, py))] + f1[me]));
        nv[qv] = b;
        flag_if_bad(fl, b, EDDY_FIELD_V);
        if (y == n1 - 1) {
            const float b1 = vv[qv + n0] + w.dt * (0.5f * (f1[me] + f1[loc(x, refc(n1, n1, py))]));
            nv[qv + n0] = b1;
            flag_if_bad(fl, b1, EDDY_FIELD_V);
        }
    };
    for (int L = win.umin; L <= win.fmax + 2; L++) {
        if (L <= win.umax) {
            const int k = physc(L, ns, ps), sl = ring(L, 3);
            for (int e = tid; e < V3R; e += V3T) {
                const int x = x0 - 3 + e % V3RX, y = y0 - 3 + e / V3RX;
                if (!inside(x, y)) continue;
                const unsigned ix = (unsigned)physc(x, n0, px), iy = (unsigned)physc(y, n1, py);
                const unsigned qu = ix + (unsigned)(n0 + 1) * (iy + (unsigned)n1 * (unsigned)k);
                const unsigned qv = ix + (unsigned)n0 * (iy + (unsigned)(n1 + 1) * (unsigned)k);
                const unsigned qw = ix + (unsigned)n0 * (iy + (unsigned)n1 * (unsigned)k);
                UC[(0 * 3 + sl) * V3R + e] = 0.5f * (u[qu] + u[qu + 1]);
                UC[(1 * 3 + sl) * V3R + e] = 0.5f * (vv[qv] + vv[qv + n0]);
                UC[(2 * 3 + sl) * V3R + e] = 0.5f * (ww[qw] + ww[qw + plane]);
            }
        }
        __syncthreads();
        const int c = L - 1;
        if (c >= win.cmin && c <= win.cmax) {
            const int sl = ring(c, 3), dz = spanc(c, ns, ps);
            const float *c0 = UC + (0 * 3 + sl) * V3R, *c1 = UC + (1 * 3 + sl) * V3R, *c2 = UC + (2 * 3 + sl) * V3R;
            const float *c0m = UC + (0 * 3 + ring(key(c - 1), 3)) * V3R, *c0p = UC + (0 * 3 + ring(key(c + 1), 3)) * V3R;
            const float *c1m = UC + (1 * 3 + ring(key(c - 1), 3)) * V3R, *c1p = UC + (1 * 3 + ring(key(c + 1), 3)) * V3R;
            float *ox = OM + (0 * 2 + ring(c, 2)) * V3R, *oy = OM + (1 * 2 + ring(c, 2)) * V3R, *oz = OM + (2 * 2 + ring(c, 2)) * V3R;
            float *mag = MAG + sl * V3R;
            constexpr int CX = V3RX - 2, CN = CX * (V3RY - 2);
            for (int e = tid; e < CN; e += V3T) {
                const int x = x0 - 2 + e % CX, y = y0 - 2 + e / CX;
                if (!inside(x, y)) continue;
                const int me = loc(x, y), xm = loc(refc(x - 1, n0, px), y), xp = loc(refc(x + 1, n0, px), y);
                const int ym = loc(x, refc(y - 1, n1, py)), yp = loc(x, refc(y + 1, n1, py));
                const int dx = spanc(x, n0, px), dy = spanc(y, n1, py);
                const float ax = quot<MUL>(c2[xp] - c2[xm], w, dx); /* d uc2 / dx */
                const float bx = quot<MUL>(c1[xp] - c1[xm], w, dx); /* d uc1 / dx */
                const float wx = quot<MUL>(c2[yp] - c2[ym], w, dy) - quot<MUL>(c1p[me] - c1m[me], w, dz);
                const float wy = quot<MUL>(c0p[me] - c0m[me], w, dz) - ax;
                const float wz = bx - quot<MUL>(c0[yp] - c0[ym], w, dy);
                ox[me] = wx;
                oy[me] = wy;
                oz[me] = wz;
                mag[me] = sqrtf(wx * wx + wy * wy + wz * wz);
            }
        }
        __syncthreads();
        const int t = L - 2;
        if (t >= win.fmin && t <= win.fmax) {
            const int k = physc(t, ns, ps), dz = spanc(t, ns, ps);
            const float *mag = MAG + ring(t, 3) * V3R, *mm = MAG + ring(key(t - 1), 3) * V3R, *mp = MAG + ring(key(t + 1), 3) * V3R;
            const float *ox = OM + (0 * 2 + ring(t, 2)) * V3R, *oy = OM + (1 * 2 + ring(t, 2)) * V3R, *oz = OM + (2 * 2 + ring(t, 2)) * V3R;
            float *fx = F + (0 * 2 + ring(t, 2)) * V3R, *fy = F + (1 * 2 + ring(t, 2)) * V3R, *fz = F + (2 * 2 + ring(t, 2)) * V3R;
            constexpr int FX = V3RX - 4, FN = FX * (V3RY - 4);
            for (int e = tid; e < FN; e += V3T) {
                const int x = x0 - 1 + e % FX, y = y0 - 1 + e / FX;
                if (!inside(x, y)) continue;
                const int me = loc(x, y), xm = loc(refc(x - 1, n0, px), y), xp = loc(refc(x + 1, n0, px), y);
                const int ym = loc(x, refc(y - 1, n1, py)), yp = loc(x, refc(y + 1, n1, py));
                const float gx = quot<MUL>(mag[xp] - mag[xm], w, spanc(x, n0, px));
                const float gy = quot<MUL>(mag[yp] - mag[ym], w, spanc(y, n1, py));
                const float gz = quot<MUL>(mp[me] - mm[me], w, dz);
                const float len = sqrtf(gx * gx + gy * gy + gz * gz);
                const unsigned cq = (unsigned)physc(x, n0, px) + (unsigned)n0 * ((unsigned)physc(y, n1, py) + (unsigned)n1 * (unsigned)k);
                const bool keep = len > 1e-20f && solid[cq] == 0;
                const float nx = gx / len, ny = gy / len, nz = gz / len;
                fx[me] = keep ? w.scale * (ny * oz[me] - nz * oy[me]) : 0.0f;
                fy[me] = keep ? w.scale * (nz * ox[me] - nx * oz[me]) : 0.0f;
                fz[me] = keep ? w.scale * (nx * oy[me] - ny * ox[me]) : 0.0f;
            }
        }
        __syncthreads();
        if (t >= s0 && t < s1) faces(t, false);
    }
    if (win.last) faces(ns, true);
}

cudaError_t launch_vorticity(cu_sim *c, float dt) {
    const float eps = c->s->def.vorticity;
    if (eps == 0.0f) return cudaSuccess;
    const Geo &g = c->g;
    VortSweep w;
    w.den[0] = w.rcp[0] = 0.0f; /* spans are 1 or 2 (n >= 3) */
    bool mul = true;
    for (int span = 1; span <= 2; span++) {
        int e;
        w.den[span] = (float)span * g.h;
        w.rcp[span] = 1.0f / w.den[span];
        mul = mul && frexpf(w.den[span], &e) == 0.5f && isnormal(w.den[span]) && isnormal(w.rcp[span]);
    }
    w.scale = eps * g.h;
    w.dt = dt;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device);
    const int ns = g.n[g.dim - 1];
    const unsigned tx = (unsigned)((g.n[0] + (g.dim == 3 ? V3X : V2X) - 1) / (g.dim == 3 ? V3X : V2X));
    const unsigned ty = g.dim == 3 ? (unsigned)((g.n[1] + V3Y - 1) / V3Y) : 1u;
    /* runs of 32 slabs (the halo of 5 slabs recomputed per run), shorter where that leaves the SMs idle */
    const int per_sm = g.dim == 3 ? 2 : 8;
    w.slabs = 32;
    while (w.slabs > 4 && (size_t)tx * ty * (size_t)((ns + w.slabs - 1) / w.slabs) < (size_t)per_sm * sms) w.slabs /= 2;
    const unsigned tz = (unsigned)((ns + w.slabs - 1) / w.slabs);
    const Flags fl = flags_for(c);
    if (g.dim == 3) {
        auto k = mul ? k_vort3<true> : k_vort3<false>;
        cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)V3_SMEM);
        k<<<dim3(tx, ty, tz), V3T, V3_SMEM, c->stream>>>(g, w, vel_of(c), c->solid, c->vel_tmp[0], c->vel_tmp[1],
                                                         c->vel_tmp[2], fl);
    } else {
        auto k = mul ? k_vort2<true> : k_vort2<false>;
        k<<<dim3(tx, tz, 1), V2X, 0, c->stream>>>(g, w, vel_of(c), c->solid, c->vel_tmp[0], c->vel_tmp[1], fl);
    }
    /* the new faces are in vel_tmp (the pass reads the velocity it started from throughout) */
    for (int a = 0; a < g.dim; a++) {
        float *t = c->vel[a];
        c->vel[a] = c->vel_tmp[a];
        c->vel_tmp[a] = t;
    }
    return cudaGetLastError();
}

} /* namespace ecu */
