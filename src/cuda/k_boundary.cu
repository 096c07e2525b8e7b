/* Boundary conditions on the device (boundary.c). Velocity, per component, in three passes:
 *   1. faces touching a solid cell take the mean velocity of their solid neighbours;
 *   2. domain faces: inflow -> prescribed, outflow -> left free (advected, corrected by the projection), else 0;
 *   3. periodic axes: face layer n repeats layer 0.
 * Scalars: inflow faces set the first layer of scalar cells (faces in order x-, x+, y-, ...), then solid cells
 * are emptied. */
#include "cu_sim.cuh"

#include <algorithm>

namespace ecu {

/* pass 2 at domain face f of component a on `side`: inflow -> prescribed, outflow -> left free (advected, then
 * corrected by the projection), else 0 */
__device__ inline void domain_face(const Geo &g, int a, int side, float *v, size_t f) {
    switch (g.btype[2 * a + side]) {
    case EDDY_BOUNDARY_INFLOW: v[f] = g.bvel[2 * a + side][a]; break;
    case EDDY_BOUNDARY_OUTFLOW: break;
    default: v[f] = 0.0f; break;
    }
}

/* pass 3 at (x, y) of the layers of component a (coordinates along the two axes other than a): face n repeats face 0 */
__device__ inline void periodic_face(const Geo &g, int a, const int fn[3], int x, int y, float *v) {
    const int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
    int c[3], s0[3];
    c[a] = g.n[a];
    s0[a] = 0;
    c[b0] = s0[b0] = x;
    c[b1] = s0[b1] = y;
    v[idx3(fn, c[0], c[1], c[2])] = v[idx3(fn, s0[0], s0[1], s0[2])];
}

__global__ void k_vel_periodic(Geo g, int a, float *__restrict__ v) {
    int fn[3];
    face_dims(g, a, fn);
    int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
    int x = (int)(blockIdx.x * blockDim.x + threadIdx.x), y = (int)blockIdx.y;
    if (x >= fn[b0] || y >= fn[b1]) return;
    periodic_face(g, a, fn, x, y, v);
}

/* passes 2 and 3 of every component in one launch (no solid cell anywhere; cuda_notes 121): blockIdx.z = 2 a + side,
 * the grid covers the largest layer; a thread sets one domain face, or on a periodic axis (side 0) copies face 0 to n */
__global__ void k_vel_domain_all(Geo g, float *__restrict__ v0, float *__restrict__ v1, float *__restrict__ v2) {
    const int a = (int)blockIdx.z >> 1, side = (int)blockIdx.z & 1;
    int fn[3];
    face_dims(g, a, fn);
    const int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
    const int x = (int)(blockIdx.x * blockDim.x + threadIdx.x), y = (int)blockIdx.y;
    if (x >= fn[b0] || y >= fn[b1]) return;
    float *v = a == 0 ? v0 : a == 1 ? v1 : v2;
    if (g.periodic[a]) {
        if (!side) periodic_face(g, a, fn, x, y, v);
        return;
    }
    int c[3];
    c[b0] = x;
    c[b1] = y;
    c[a] = side ? g.n[a] : 0;
    domain_face(g, a, side, v, idx3(fn, c[0], c[1], c[2]));
}

cudaError_t launch_periodic_copy(cu_sim *c, int a) {
    int fn[3];
    face_dims(c->g, a, fn);
    int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
    dim3 gr((unsigned)((fn[b0] + 127) / 128), (unsigned)fn[b1], 1);
    k_vel_periodic<<<gr, 128, 0, c->stream>>>(c->g, a, c->vel[a]);
    return cudaGetLastError();
}

/* all three passes in one: every face of component a. A periodic face n takes the value its face 0 gets: it
 * computes the solid value itself, or copies face 0 where no solid is near (face 0 is then not written). */
__global__ void k_vel_faces(Geo g, int a, float *__restrict__ v, const uint8_t *__restrict__ solid, const float *__restrict__ sva) {
    int fn[3];
    face_dims(g, a, fn);
    ECU_IJK(fn[0], fn[1]);
    if (!inside_) return;
    int c[3] = {i, j, k};
    const int n = g.n[a];
    int ia = c[a];
    const unsigned f = idx3(fn, i, j, k);
    if (!g.periodic[a] && (ia == 0 || ia == n)) {
        domain_face(g, a, ia == 0 ? 0 : 1, v, f);
        return;
    }
    const bool top = g.periodic[a] && ia == n;
    if (top) ia = 0;
    int lo[3] = {i, j, k}, hi[3] = {i, j, k};
    lo[a] = wrapi(ia - 1, n);
    hi[a] = wrapi(ia, n);
    const unsigned cl = idx3(g.n, lo[0], lo[1], lo[2]), ch = idx3(g.n, hi[0], hi[1], hi[2]);
    const bool sl = solid[cl], sh = solid[ch];
    if (!(sl || sh)) {
        if (top) {
            int z[3] = {i, j, k};
            z[a] = 0;
            v[f] = v[idx3(fn, z[0], z[1], z[2])];
        }
        return;
    }
    float sum = 0.0f;
    int cnt = 0;
    if (sl) { sum += sva[cl]; cnt++; }
    if (sh) { sum += sva[ch]; cnt++; }
    v[f] = cnt ? sum / (float)cnt : 0.0f;
}

cudaError_t launch_velocity_boundaries(cu_sim *c) {
    const Geo &g = c->g;
    if (!any_solid(c)) {
        /* no solid cell anywhere: only the domain faces (or the periodic copies) change */
        int gx = 1, gy = 1;
        for (int a = 0; a < g.dim; a++) {
            int fn[3];
            face_dims(g, a, fn);
            const int b0 = a == 0 ? 1 : 0, b1 = a == 2 ? 1 : 2;
            gx = std::max(gx, (fn[b0] + 127) / 128);
            gy = std::max(gy, fn[b1]);
        }
        k_vel_domain_all<<<dim3((unsigned)gx, (unsigned)gy, (unsigned)(2 * g.dim)), 128, 0, c->stream>>>(
            g, c->vel[0], c->vel[1], c->vel[2]);
        return cudaGetLastError();
    }
    for (int a = 0; a < g.dim; a++) {
        int fn[3];
        face_dims(g, a, fn);
        k_vel_faces<<<tiles(fn[0], fn[1], fn[2]), tile_block(), 0, c->stream>>>(g, a, c->vel[a], c->solid, c->solid_vel[a]);
    }
    return cudaGetLastError();
}

__global__ void k_scalar_boundaries(Geo g, const uint8_t *__restrict__ solid, float *d0, float *d1, float *d2, float *t,
                                    int any_inflow, int solids) {
    ECU_IJK(g.sn[0], g.sn[1]);
    if (!inside_) return;
    size_t q = idx3(g.sn, i, j, k);
    if (any_inflow) {
        int c[3] = {i, j, k};
        for (int f = 0; f < 2 * g.dim; f++) {
            if (g.btype[f] != EDDY_BOUNDARY_INFLOW) continue;
            int a = f / 2, layer = (f & 1) ? g.sn[a] - 1 : 0;
            if (c[a] != layer) continue;
            d0[q] = g.bdye[f][0];
            d1[q] = g.bdye[f][1];
            d2[q] = g.bdye[f][2];
            t[q] = g.btemp[f];
        }
    }
    if (solids && solid[idx3(g.n, i / g.ds[0], j / g.ds[1], k / g.ds[2])]) {
        d0[q] = d1[q] = d2[q] = 0.0f;
        t[q] = 0.0f;
    }
}

cudaError_t launch_scalar_boundaries(cu_sim *c) {
    const Geo &g = c->g;
    int any_inflow = 0;
    for (int f = 0; f < 2 * g.dim; f++) any_inflow |= g.btype[f] == EDDY_BOUNDARY_INFLOW;
    const int solids = any_solid(c);
    if (!any_inflow && !solids) return cudaSuccess; /* nothing to set */
    k_scalar_boundaries<<<tiles(g.sn[0], g.sn[1], g.sn[2]), tile_block(), 0, c->stream>>>(
        g, c->solid, c->dye[0], c->dye[1], c->dye[2], c->temp, any_inflow, solids);
    return cudaGetLastError();
}

} /* namespace ecu */
