/* Forces on the device. Buoyancy (forces.c, Fedkiw, Stam & Jensen 2001): u_a += dt g_a (alpha d - beta (T - T_amb))
 * with dye density and temperature sampled at the face. Vorticity confinement (vorticity.c, Steinhoff & Underhill
 * 1994): omega = curl u at cell centres from cell-averaged velocity, N = grad|omega| / |grad|omega||,
 * f = eps h (N x omega), averaged back to faces. Buoyancy does the CPU loop body's float operations in order;
 * vorticity fuses multiply-adds and uses approximate roots (vort_tile.cuh). */
#include "cu_sim.cuh"
#include "vort_tile.cuh"
#include "vort_ring.cuh"

namespace ecu {

/* axis b of the buoyancy's samples for a face at index x along b (forces.c build_axis): locate()'s weights at the
 * face's exact sample coordinate (sim_internal.h eddy__face_sample_coord), the same float operations */
__host__ __device__ inline void face_axis(const GDesc &vg, const GDesc &sg, int b, int x, int *i0, int *i1, float *w) {
    const int k = sg.n[b] / vg.period[b];
    axis_weights(sg, b, ((float)x + vg.off[b]) * (float)k - sg.off[b], i0, i1, w);
}

/* One thread walks R consecutive faces along y. The scalars are interpolated at each face as sample() does
 * (x, then y, then z), which is separable: the x- and z-weights are the thread's for all its faces, and the
 * x-interpolated value of a scalar row (c00, c10, ...) is the same float for every face that reads that row.
 * Where each face's lower row is the previous face's upper row (the grids align: the usual case), the thread
 * loads its R + 1 rows and R velocities at once (independent loads in flight) and interpolates from registers:
 * half the gathers and x-lerps, the same bits. Elsewhere each face gathers its two rows. */
constexpr int BUOY_FIELDS = 4; /* dye R, G, B and temperature */
/* a face's new velocity from its samples of the fields (forces.c's formula and float operations) */
__device__ inline float buoyant(float vold, const float (&sm)[BUOY_FIELDS], const bool (&use)[BUOY_FIELDS], float dt, float ga,
                                float alpha, float beta, float t_amb) {
    float d = 0.0f, temp = 0.0f;
    if (use[0]) d = sm[0] + sm[1] + sm[2];
    if (use[3]) temp = sm[3] - t_amb;
    return vold + dt * ga * (alpha * d - beta * temp);
}
/* a buoyancy thread's faces: column i of plane k, rows jb .. jb + nr - 1 of the face grid of component a, and the
 * scalar columns (x0 / x1, z0 / z1, weights wx, wz) that the column's faces sample; false if it has none */
struct BuoyFaces {
    GDesc vg, sg;
    int i, k, jb, nr, x0, x1, z0, z1;
    float wx, wz;
};
template <int R>
__device__ inline bool buoy_faces(const Geo &g, int a, int dim, BuoyFaces &c) {
    c.vg = velocity_desc(g, a);
    c.sg = scalar_desc(g);
    c.i = (int)(blockIdx.x * BX + threadIdx.x);
    c.k = (int)blockIdx.z;
    c.jb = (int)(blockIdx.y * BY + threadIdx.y) * R;
    if (c.i >= c.vg.n[0] || c.jb >= c.vg.n[1]) return false;
    c.nr = min(R, c.vg.n[1] - c.jb);
    c.z0 = c.z1 = 0;
    c.wz = 0.0f;
    face_axis(c.vg, c.sg, 0, c.i, &c.x0, &c.x1, &c.wx);
    if (dim == 3) face_axis(c.vg, c.sg, 2, c.k, &c.z0, &c.z1, &c.wz);
    return true;
}
template <int DIM, int R, int MINB /* blocks per SM: caps the registers */>
__global__ void __launch_bounds__(BLOCK, MINB) k_buoyancy(Geo g, int a, float dt, float ga, float alpha, float beta, float t_amb,
                                                    float *__restrict__ v, const float *__restrict__ d0,
                                                    const float *__restrict__ d1, const float *__restrict__ d2,
                                                    const float *__restrict__ t, Flags fl) {
    BuoyFaces c;
    if (!buoy_faces<R>(g, a, DIM, c)) return;
    const GDesc &vg = c.vg, &sg = c.sg;
    const int i = c.i, k = c.k, jb = c.jb, nr = c.nr, x0 = c.x0, x1 = c.x1, z0 = c.z0, z1 = c.z1;
    const float wx = c.wx, wz = c.wz;
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
        const float nv = buoyant(vold, sm, use, dt, ga, alpha, beta, t_amb);
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

/* Faces along gravity on a grid of dye_scale 1 (the usual case): each face's x- and z-coordinates are those of a
 * scalar column, so its x- and z-weights are exactly 0 (1 at the last column, where the pair of samples is clamped),
 * and c * 1 + c' * 0 is c for every finite c' (at most a zero of the other sign), as the CPU's row kernel skips
 * them on its regular run (buoyancy_rows.c): a thread reads one value per row and field (the general kernel two,
 * four in 3D) for R + 1 rows and its R velocities, all loads first, then interpolates in y. A thread whose faces
 * are not all like that (the rows at a clamped end of y) takes each face in general. */
template <int R, int MINB>
__global__ void __launch_bounds__(BLOCK, MINB) k_buoyancy_unit(Geo g, int a, float dt, float ga, float alpha, float beta,
                                                         float t_amb, float *__restrict__ v, const float *__restrict__ d0,
                                                         const float *__restrict__ d1, const float *__restrict__ d2,
                                                         const float *__restrict__ t, Flags fl) {
    BuoyFaces c;
    if (!buoy_faces<R>(g, a, g.dim, c)) return;
    const GDesc &vg = c.vg, &sg = c.sg;
    const int i = c.i, k = c.k, jb = c.jb, nr = c.nr, x0 = c.x0, x1 = c.x1, z0 = c.z0, z1 = c.z1;
    const float wx = c.wx, wz = c.wz;
    const float *__restrict__ f[BUOY_FIELDS] = {d0, d1, d2, t};
    const bool use[BUOY_FIELDS] = {alpha != 0.0f, alpha != 0.0f, alpha != 0.0f, beta != 0.0f};
    const unsigned sx = (unsigned)sg.n[0], plane = sx * (unsigned)sg.n[1];
    const unsigned fq0 = (unsigned)i + (unsigned)vg.n[0] * ((unsigned)jb + (unsigned)vg.n[1] * k);
    auto force = [&](unsigned fq, float vold, const float (&sm)[BUOY_FIELDS]) {
        const float nv = buoyant(vold, sm, use, dt, ga, alpha, beta, t_amb);
        v[fq] = nv;
        flag_if_bad(fl, nv, EDDY_FIELD_U + a);
    };
    int ylo[R], yhi[R];
    float wy[R];
    bool unit = (wx == 0.0f || wx == 1.0f) && (wz == 0.0f || wz == 1.0f);
#pragma unroll
    for (int r = 0; r < R; r++) {
        if (r >= nr) break;
        face_axis(vg, sg, 1, jb + r, &ylo[r], &yhi[r], &wy[r]);
        if (r > 0) unit = unit && ylo[r] == yhi[r - 1];
    }
    if (!unit) {
        /* each face on its own: sample() at its exact sample coordinates (face_axis) */
        int node0[3] = {x0, 0, z0}, node1[3] = {x1, 0, z1};
        float w[3] = {wx, 0.0f, wz};
#pragma unroll 1
        for (int r = 0; r < nr; r++) {
            face_axis(vg, sg, 1, jb + r, &node0[1], &node1[1], &w[1]);
            float sm[BUOY_FIELDS];
#pragma unroll 1
            for (int q = 0; q < BUOY_FIELDS; q++) {
                const float *fq = q == 0 ? d0 : (q == 1 ? d1 : (q == 2 ? d2 : t));
                const float x = use[q] ? sample_located(sg, fq, node0, node1, w) : 0.0f;
                sm[0] = q == 0 ? x : sm[0];
                sm[1] = q == 1 ? x : sm[1];
                sm[2] = q == 2 ? x : sm[2];
                sm[3] = q == 3 ? x : sm[3];
            }
            const unsigned fq = fq0 + (unsigned)r * (unsigned)vg.n[0];
            force(fq, v[fq], sm);
        }
        return;
    }
    const unsigned col = (unsigned)(wx == 0.0f ? x0 : x1) + plane * (unsigned)(wz == 0.0f ? z0 : z1);
    float rv[R + 1][BUOY_FIELDS], vo[R];
#pragma unroll
    for (int m = 0; m <= R; m++) {
        if (m > nr) break;
        const unsigned o = col + sx * (unsigned)(m == 0 ? ylo[0] : yhi[m - 1]);
#pragma unroll
        for (int q = 0; q < BUOY_FIELDS; q++) rv[m][q] = use[q] ? __ldg(&f[q][o]) : 0.0f;
    }
#pragma unroll
    for (int r = 0; r < R; r++)
        if (r < nr) vo[r] = v[fq0 + (unsigned)r * (unsigned)vg.n[0]];
#pragma unroll
    for (int r = 0; r < R; r++) {
        if (r >= nr) break;
        const float omy = 1 - wy[r];
        float sm[BUOY_FIELDS];
#pragma unroll
        for (int q = 0; q < BUOY_FIELDS; q++) sm[q] = rv[r][q] * omy + rv[r + 1][q] * wy[r];
        force(fq0 + (unsigned)r * (unsigned)vg.n[0], vo[r], sm);
    }
}

/* does every face of component a sit on a scalar column (x- and z-weights 0 or 1)? face_axis's float operations
 * on the host (the same bits: no contraction; the kernel checks again per thread) */
static bool buoyancy_unit(const Geo &g, int a) {
    const GDesc vg = velocity_desc(g, a), sg = scalar_desc(g);
    for (int b = 0; b < g.dim; b += 2)
        for (int x = 0; x < vg.n[b]; x++) {
            int i0, i1;
            float w;
            face_axis(vg, sg, b, x, &i0, &i1, &w);
            if (w != 0.0f && w != 1.0f) return false;
        }
    return true;
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
        if (c->buoy_unit[a] == 0) c->buoy_unit[a] = buoyancy_unit(c->g, a) ? 1 : -1;
        if (c->buoy_unit[a] > 0) {
            /* 2 faces per thread at 40 registers (6 blocks of 256 per SM): 76.6% / 94.1% of copy (2D, 3D) against
             * 72.6% / 91.5% for 4 faces at 48 (cuda_notes 66) */
            constexpr int RU = 2, MINBU = 6;
            const dim3 grid((unsigned)((fn[0] + BX - 1) / BX), (unsigned)((fn[1] + BY * RU - 1) / (BY * RU)), (unsigned)fn[2]);
            k_buoyancy_unit<RU, MINBU><<<grid, tile_block(), 0, c->stream>>>(c->g, a, dt, ga, alpha, beta, t_amb, c->vel[a],
                                                                            c->dye[0], c->dye[1], c->dye[2], c->temp, flags_for(c));
            continue;
        }
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

/* ------------------------------------------------------------------ vorticity confinement
 * One pass (vort_tile.cuh): in 2D a warp per strip of columns and chunk of rows, in 3D a block of warps per strip
 * of columns, rows and chunk of z-planes; the new faces go into vel_tmp, then the arrays swap (the advection swaps them too: nothing holds
 * the velocity pointers across stages, and the solver's CUDA graphs do not read the velocity). */
/* 2D: a block of VR_WARPS warps on adjacent strips of one chunk of rows, each reading its rows from a ring that the
 * block's producer warp fills (vort_ring.cuh) */
/* 3D: one column per lane, 25 warps (rows) per block, 20 of them written: 72 registers (7 warps on a scheduler: 24
 * warps would allow 80, but 256^3 would then need 140 blocks), one block of 800 threads per SM; 256^3 is 10 x 13
 * blocks (cuda_notes 71-72, 194) */
constexpr int V3_COLS = 1, V3_WARPS = 25;
/* SOL: the scene has solid cells (without any, the solid array is not read) */
template <bool SOL>
__global__ void __launch_bounds__(32 * (VR_WARPS + 1), SOL ? VR_MINB_SOL : VR_MINB) k_vort2(VortArgs A, int strips, int groups, int ky) {
    const int group = (int)blockIdx.x % groups, chunk = (int)blockIdx.x / groups, wi = (int)threadIdx.x / 32;
    const int n0 = A.n[0], first = group * VR_WARPS, active = vt_min(VR_WARPS, strips - first);
    const bool px = A.periodic[0] != 0;
    /* the consumers that read the ring: all but the x-end strips of a periodic axis */
    auto uses_ring = [&](int strip) { return !px || vw_inner<VW_COLS>(strip, n0); };
    int users = 0;
    for (int k = 0; k < active; k++) users += uses_ring(first + k);
    const Vw2Rows rows = vw2_rows(A, chunk, ky);
    const int lo = vt_max(first * vw_out<VW_COLS>() - 3, 0);
    const int hi = vt_min((first + active - 1) * vw_out<VW_COLS>() - 3 + 32 * VW_COLS, n0) + 1; /* u's columns [lo, hi) */
    if (threadIdx.x == 0) {
        for (int s = 0; s < VR_RING; s++) {
            mbar_init(&vr_full[s], 1);                       /* the producer's arrival and its copies' bytes */
            mbar_init(&vr_empty[s], 32u * (unsigned)users); /* every lane of every consumer */
        }
        mbar_init_fence();
    }
    __syncthreads();
    const int m1 = rows.umax;
    const Vw2Ring ring{rows.umin, lo, n0, A.n[1], A.periodic[1] != 0};
    if (wi == VR_WARPS) { /* the producer: one lane issues every copy */
        if (users > 0 && (threadIdx.x & 31) == 0) vr_produce<SOL>(A, ring, m1, hi);
        return;
    }
    if (wi >= active) return;
    if (uses_ring(first + wi)) vort2_strip<VW_COLS, float, int, bool, SOL>(A, first + wi, chunk, ky, ring);
    else vort2_strip<VW_COLS, float, int, bool, SOL>(A, first + wi, chunk, ky);
}
/* 3D: a block of V3_WARPS warps per strip, rows and chunk of planes (Vort3Warp); the steps in the chunk's middle
 * (every level due, no plane clamped or wrapped) run a body without tests on the plane */
template <bool SOL>
__global__ void __launch_bounds__(32 * V3_WARPS, 1) k_vort3w(VortArgs A) {
    __shared__ float v3_sm[v3w_floats<V3_COLS, V3_WARPS>()];
    Vort3Warp<V3_COLS, V3_WARPS, float, int, bool, SOL> st;
    st.init(A, (int)blockIdx.x, (int)blockIdx.y, (int)blockIdx.z, (int)(threadIdx.x / 32), v3_sm);
    const int s0 = st.s0(), s1 = st.s1();
    int L = st.umin;
    constexpr bool PAIRS = !SOL;
    for (; L <= st.tend && (L < s0 || (PAIRS && (L & 1))); L++) {
        st.template step<false>(L);
        __syncthreads();
    }
    /* steady steps in pairs: the shared-memory ring slots are constants and the two-plane rings renamed, not moved
     * (cuda_notes 184: 30% slower in item 112, when loads were still consumed in the step that issued them); a last
     * odd one runs as a general step, and so does an odd first one (the pairs start on even planes). With solid cells
     * one at a time: in pairs that kernel spills (8 bytes, cuda_notes 205) */
    if constexpr (PAIRS) {
        for (; L + 1 <= s1; L += 2) {
            st.template step<true, 0>(L);
            __syncthreads();
            st.template step<true, 1>(L + 1);
            __syncthreads();
        }
    } else {
        for (; L <= s1; L++) {
            st.template step<true>(L);
            __syncthreads();
        }
    }
    for (; L <= st.tend; L++) {
        st.template step<false>(L);
        __syncthreads();
    }
    st.finish(A);
}

/* 3D: planes per block. The blocks of a plane times the chunks of z are the blocks; a chunk marches 5 planes more
 * than it writes (the lower levels at its ends). The count that minimises (waves of resident blocks) x (planes per
 * chunk + 5),
 * with chunks of at least 8 planes (small grids: a few blocks, each marching). */
static int vort_chunk(int tiles, int nz, int slots) {
    int best = nz;
    double best_cost = 1e300;
    for (int ch = 1; ch <= 64 && ch <= nz; ch++) {
        const int kz = (nz + ch - 1) / ch, chunks = (nz + kz - 1) / kz;
        if (kz < 8 && ch > 1) break;
        const double waves = (double)(((long long)tiles * chunks + slots - 1) / slots);
        const double cost = waves * (kz + 5);
        if (cost < best_cost - 1e-9) {
            best_cost = cost;
            best = kz;
        }
    }
    return best;
}

/* the warps (2D) or blocks (3D) resident on the device: once per simulation and kernel */
template <class K>
static cudaError_t vort_setup(cu_sim *c, K kernel, int threads, int per_block, int *slots) {
    int per_sm = 0, sms = 0;
    cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, c->device);
    *slots = per_sm * sms * per_block > 0 ? per_sm * sms * per_block : 1;
    return e;
}

/* 2D: blocks of VR_WARPS strips side by side, and as many chunks of rows (16 or more each: a chunk recomputes ~3 rows
 * of the lower levels at its ends) as fill the resident blocks once */
template <bool SOL>
static cudaError_t launch_vort2(cu_sim *c, const VortArgs &A, int *slots) {
    cudaError_t e = *slots ? cudaSuccess : vort_setup(c, k_vort2<SOL>, 32 * (VR_WARPS + 1), 1, slots);
    if (e != cudaSuccess) return e;
    const int strips = vw_strips(A.n[0], vw_out<VW_COLS>()), groups = (strips + VR_WARPS - 1) / VR_WARPS;
    const int chunks = vt_max(1, vt_min(A.n[1] / 16, *slots / groups));
    const int ky = (A.n[1] + chunks - 1) / chunks, blocks = groups * ((A.n[1] + ky - 1) / ky);
    k_vort2<SOL><<<(unsigned)blocks, 32 * (VR_WARPS + 1), 0, c->stream>>>(A, strips, groups, ky);
    return cudaSuccess;
}
template <bool SOL>
static cudaError_t launch_vort3(cu_sim *c, VortArgs A, int *slots) {
    cudaError_t e = *slots ? cudaSuccess : vort_setup(c, k_vort3w<SOL>, 32 * V3_WARPS, 1, slots);
    if (e != cudaSuccess) return e;
    const int tx = vw_strips(A.n[0], vw_out<V3_COLS>()), ty = vw_strips(A.n[1], V3_WARPS - 5);
    A.kz = vort_chunk(tx * ty, A.n[2], *slots);
    const dim3 grid((unsigned)tx, (unsigned)ty, (unsigned)((A.n[2] + A.kz - 1) / A.kz));
    k_vort3w<SOL><<<grid, 32 * V3_WARPS, 0, c->stream>>>(A);
    return cudaSuccess;
}

cudaError_t launch_vorticity(cu_sim *c, float dt) {
    const float eps = c->s->def.vorticity;
    if (eps == 0.0f) return cudaSuccess;
    const Geo &g = c->g;
    VortArgs A;
    vort_args_step(A, g.h, eps, dt);
    for (int a = 0; a < 3; a++) {
        A.n[a] = g.n[a];
        A.periodic[a] = g.periodic[a];
        A.v[a] = c->vel[a];
        A.out[a] = c->vel_tmp[a];
    }
    A.solid = c->solid;
    A.flag = flags_for(c).word;
    A.kz = 0;
    const bool sol = any_solid(c);
    int *slots = &c->vort_slots[sol ? 1 : 0]; /* the resident warps or blocks of the kernel instance */
    cudaError_t e;
    if (g.dim == 2) {
        e = sol ? launch_vort2<true>(c, A, slots) : launch_vort2<false>(c, A, slots);
    } else {
        e = sol ? launch_vort3<true>(c, A, slots) : launch_vort3<false>(c, A, slots);
    }
    if (e != cudaSuccess) return e;
    for (int a = 0; a < g.dim; a++) {
        float *t = c->vel[a];
        c->vel[a] = c->vel_tmp[a];
        c->vel_tmp[a] = t;
    }
    return cudaGetLastError();
}

} /* namespace ecu */
