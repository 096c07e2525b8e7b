/* Advection on the device (advect.c): dq/dt + (u . grad) q = 0, then dissipation q *= 1/(1 + k dt).
 * Semi-Lagrangian with an RK2 midpoint backtrace through the start-of-stage velocity (Stam 1999); MacCormack with
 * the revert-to-semi-Lagrangian limiter (Selle et al. 2008); BFECC clamped to the nodes around the foot
 * (Kim et al. 2005). Velocity components are traced from their faces, scalars from the (possibly finer) scalar
 * cells. The CPU traces each grid once and stores the feet; here a later pass traces again (two velocity samples
 * in cache) or reads what the first pass kept (MacCormack: the velocity limiter's range; BFECC: the feet): the
 * same float operations, so the same feet. Interpolation is a + w (b - a), as on the CPU. MacCormack without
 * wrapping axes runs a thread per cell for all the grids (k_adv_cell3, k_adv_cell2): the elements' operations are
 * unchanged. */
#include "cu_sim.cuh"

namespace ecu {

/* a lattice of samples in index coordinates (advect.c `lattice`) */
struct Lat {
    int n[3];
    int wrap[3]; /* period on a periodic axis, 0 on a bounded one */
};
static Lat lat_of(const GDesc &d) {
    Lat L;
    for (int b = 0; b < 3; b++) {
        L.n[b] = d.n[b];
        L.wrap[b] = (d.periodic[b] && d.n[b] > 1) ? d.period[b] : 0;
    }
    return L;
}

/* The kernels' lattice mode W. ADV_WRAP: some lattice of the stage wraps (a periodic axis), so the upper node of
 * an axis may be node 0. ADV_UNIT: no wrap, so the upper node is always the lower one + 1 (every axis has at least
 * two nodes: eddy_sim_create requires 3 cells per axis) and the gathers' neighbours are constant offsets (+1, +nx,
 * +nx ny) from one address: immediate offsets for the x neighbours, no per-gather differences of node indices. */
enum { ADV_UNIT = 0, ADV_WRAP = 2 };
template <int W>
__device__ inline void locate_axis(int n, int wrap, float x, int *i0, int *i1, float *w) {
    if (W == ADV_WRAP && wrap) {
        if (!(fabsf(x) < 8388608.0f)) x = 0.0f;
        float fl = floorf(x);
        int i = (int)fl;
        *w = x - fl;
        if (i < 0 || i >= wrap) i = wrapi(i, wrap);
        *i0 = i;
        *i1 = i + 1 == wrap ? 0 : i + 1;
        return;
    }
    float hi = (float)(n - 1);
    if (!(x > 0.0f)) x = 0.0f;
    x = fminf(x, hi); /* x > hi ? hi : x, x being a number here (one instruction instead of a compare and a select) */
    int i = (int)x;
    if (i > n - 2) i = n - 2;
    *i0 = i;
    *i1 = i + 1;
    *w = x - (float)i;
}

__device__ inline float lerp_(float a, float b, float w) { return a + w * (b - a); }

/* the two nodes and the weight along one axis */
struct AxisW {
    int i0, i1;
    float w;
};
template <int W>
__device__ inline AxisW locate(int n, int wrap, float x) {
    AxisW a;
    locate_axis<W>(n, wrap, x, &a.i0, &a.i1, &a.w);
    return a;
}

/* bilinear / trilinear interpolation at located nodes, a + w (b - a) along x, then y, then z (the CPU's order).
 * Addressed from the (x0, y0, z0) node with offsets: one address per row instead of one per node. The node
 * offsets along each axis (1 along x, nx along y, nx ny along z in mode ADV_UNIT): */
struct Steps {
    int dx, dy, dz;
};
template <int W>
__device__ inline Steps steps_of(unsigned nx, unsigned nxy, const AxisW &x, const AxisW &y, const AxisW &z) {
    if (W == ADV_UNIT) return Steps{1, (int)nx, (int)nxy};
    return Steps{x.i1 - x.i0, (y.i1 - y.i0) * (int)nx, (z.i1 - z.i0) * (int)nxy};
}
/* the offset of a located point's (x0, y0, z0) node on a lattice of nx x ny nodes per plane */
template <int DIM>
__device__ inline unsigned node_of(unsigned nx, unsigned ny, const AxisW &x, const AxisW &y, const AxisW &z) {
    return (DIM == 3 ? (unsigned)z.i0 * (nx * ny) : 0u) + (unsigned)y.i0 * nx + (unsigned)x.i0;
}
/* the 2^d nodes from the (x0, y0, z0) node at offset o, in the order the interpolation and the limiters read them:
 * (x0, x1) of row (y0, z0), of (y1, z0), then of (y0, z1), (y1, z1) */
template <int DIM>
__device__ inline void corners_from(const float *__restrict__ d, unsigned o, const Steps &s, float v[8]) {
    const float *r00 = d + o;
    const float *r10 = r00 + s.dy;
    v[0] = __ldg(r00);
    v[1] = __ldg(r00 + s.dx);
    v[2] = __ldg(r10);
    v[3] = __ldg(r10 + s.dx);
    if (DIM == 3) {
        const float *r01 = r00 + s.dz, *r11 = r01 + s.dy;
        v[4] = __ldg(r01);
        v[5] = __ldg(r01 + s.dx);
        v[6] = __ldg(r11);
        v[7] = __ldg(r11 + s.dx);
    }
}
template <int DIM, int W>
__device__ inline void corners(const float *__restrict__ d, unsigned nx, unsigned ny, const AxisW &x, const AxisW &y,
                               const AxisW &z, float v[8]) {
    corners_from<DIM>(d, node_of<DIM>(nx, ny, x, y, z), steps_of<W>(nx, nx * ny, x, y, z), v);
}
template <int DIM>
__device__ inline float interp(const float v[8], const AxisW &x, const AxisW &y, const AxisW &z) {
    float c0 = lerp_(lerp_(v[0], v[1], x.w), lerp_(v[2], v[3], x.w), y.w);
    if (DIM == 2) return c0;
    float c1 = lerp_(lerp_(v[4], v[5], x.w), lerp_(v[6], v[7], x.w), y.w);
    return lerp_(c0, c1, z.w);
}
/* min and max of the nodes in that order (the CPU's limiters' order: the same value when +0 and -0 tie) */
template <int DIM>
__device__ inline void range_of(const float v[8], float *lo, float *hi) {
    float mn = INFINITY, mx = -INFINITY;
#pragma unroll
    for (int q = 0; q < (DIM == 3 ? 8 : 4); q++) {
        mn = v[q] < mn ? v[q] : mn;
        mx = v[q] > mx ? v[q] : mx;
    }
    *lo = mn;
    *hi = mx;
}
template <int W>
__device__ inline float gather2(const float *__restrict__ d, unsigned nx, const AxisW &x, const AxisW &y) {
    float v[8];
    const AxisW z{0, 0, 0.0f};
    corners<2, W>(d, nx, 1u, x, y, z, v);
    return interp<2>(v, x, y, z);
}
template <int W>
__device__ inline float gather3(const float *__restrict__ d, unsigned nx, unsigned ny, const AxisW &x, const AxisW &y,
                                const AxisW &z) {
    float v[8];
    corners<3, W>(d, nx, ny, x, y, z, v);
    return interp<3>(v, x, y, z);
}

/* a point located on a lattice: its nodes and weights along each axis (z unused in 2D) */
struct Loc {
    AxisW x, y, z;
};
template <int DIM, int W>
__device__ inline Loc lat_locate(const Lat &L, float x, float y, float z) {
    Loc p;
    p.x = locate<W>(L.n[0], L.wrap[0], x);
    p.y = locate<W>(L.n[1], L.wrap[1], y);
    p.z = AxisW{0, 0, 0.0f};
    if (DIM == 3) p.z = locate<W>(L.n[2], L.wrap[2], z);
    return p;
}
template <int DIM, int W>
__device__ inline float sample_at(const Lat &L, const float *__restrict__ d, const Loc &p) {
    float v[8];
    corners<DIM, W>(d, (unsigned)L.n[0], (unsigned)L.n[1], p.x, p.y, p.z, v);
    return interp<DIM>(v, p.x, p.y, p.z);
}
template <int DIM, int W>
__device__ inline float lat_sample(const Lat &L, const float *__restrict__ d, float x, float y, float z) {
    return sample_at<DIM, W>(L, d, lat_locate<DIM, W>(L, x, y, z));
}

/* min and max of the 2^d nodes around a located point (the limiters' range), in the CPU's order */
template <int DIM, int W>
__device__ inline void minmax_at(const Lat &L, const float *__restrict__ d, const Loc &p, float *lo, float *hi) {
    float v[8];
    corners<DIM, W>(d, (unsigned)L.n[0], (unsigned)L.n[1], p.x, p.y, p.z, v);
    range_of<DIM>(v, lo, hi);
}
/* the sample and the range of the same nodes, loaded once (MacCormack's first pass keeps the range) */
template <int DIM, int W>
__device__ inline float sample_range_at(const Lat &L, const float *__restrict__ d, const Loc &p, float *lo, float *hi) {
    float v[8];
    corners<DIM, W>(d, (unsigned)L.n[0], (unsigned)L.n[1], p.x, p.y, p.z, v);
    range_of<DIM>(v, lo, hi);
    return interp<DIM>(v, p.x, p.y, p.z);
}
/* min and max of field d's 2^d nodes from node o (mode ADV_UNIT: the neighbours at +1, +nx, +nx ny), in the
 * CPU's order: MacCormack's scalar limiter from the node its first pass kept (Multi.node) */
template <int DIM>
__device__ inline void minmax_node(const Lat &L, const float *__restrict__ d, unsigned o, float *lo, float *hi) {
    float v[8];
    const unsigned nx = (unsigned)L.n[0];
    corners_from<DIM>(d, o, Steps{1, (int)nx, (int)(nx * (unsigned)L.n[1])}, v);
    range_of<DIM>(v, lo, hi);
}
template <int DIM, int W>
__device__ inline void lat_minmax(const Lat &L, const float *__restrict__ d, float x, float y, float z, float *lo,
                                  float *hi) {
    minmax_at<DIM, W>(L, d, lat_locate<DIM, W>(L, x, y, z), lo, hi);
}

/* the velocity lattices and the step, shared by every kernel of the stage */
struct Tracer {
    Lat V[3];
    const float *v[3];
    int dim;
    float dtc; /* dt / h: m/s -> cells */
};
/* the grid being advected: element (i,j,k) at velocity-cell coordinate ((i,j,k) + off) / scale */
struct Map {
    int n[3];
    float off[3];
    float scale[3];
};

/* velocity at velocity-cell coordinate P: component a is lat_sample(V[a], P - 0.5 on the axes other than a).
 * The weights along axis b are the same for every component but b's own (the face lattice has one more node), so
 * they are located twice per axis instead of once per component and axis; the gathers and the lerps are
 * lat_sample's, in its order. */
template <int DIM, int W>
__device__ inline void velocity_at(const Tracer &t, const float P[3], float u[3]) {
    AxisW f[3], c[3]; /* along b: on the face lattice of component b, and on the cell-centred lattices */
#pragma unroll
    for (int b = 0; b < DIM; b++) {
        const Lat &F = t.V[b], &C = t.V[b == 0 ? 1 : 0];
        f[b] = locate<W>(F.n[b], F.wrap[b], P[b]);
        c[b] = locate<W>(C.n[b], C.wrap[b], P[b] - 0.5f);
    }
    if (DIM == 2) {
        u[0] = gather2<W>(t.v[0], (unsigned)t.V[0].n[0], f[0], c[1]);
        u[1] = gather2<W>(t.v[1], (unsigned)t.V[1].n[0], c[0], f[1]);
        u[2] = 0.0f;
        return;
    }
    u[0] = gather3<W>(t.v[0], (unsigned)t.V[0].n[0], (unsigned)t.V[0].n[1], f[0], c[1], c[2]);
    u[1] = gather3<W>(t.v[1], (unsigned)t.V[1].n[0], (unsigned)t.V[1].n[1], c[0], f[1], c[2]);
    u[2] = gather3<W>(t.v[2], (unsigned)t.V[2].n[0], (unsigned)t.V[2].n[1], c[0], c[1], f[2]);
}

/* The velocity at the element itself (advect.c face_node_velocity / cell_node_velocity), read from the faces
 * around it without locating: on face grid A the component A is the face value and the others the mean of the 4
 * faces around (along A first, as the CPU); on a scalar grid of the velocity's cells (dye_scale 1) each component
 * is the mean of the two faces of the cell. Same clamping and wrapping as the lattice sampler. 9 loads in 3D
 * instead of 24 gathers with their locating, and the CPU's float operations in its order. */
__device__ inline unsigned node3(const Lat &L, int i, int j, int k) {
    return (unsigned)i + (unsigned)L.n[0] * ((unsigned)j + (unsigned)L.n[1] * (unsigned)k);
}
template <int DIM, int A, int W>
__device__ inline void face_node_velocity(const Tracer &t, int i, int j, int k, float u[3]) {
    const int c[3] = {i, j, k};
    u[2] = 0.0f;
#pragma unroll
    for (int b = 0; b < DIM; b++) {
        const Lat &L = t.V[b];
        const float *__restrict__ d = t.v[b];
        if (b == A) {
            int w[3] = {c[0], c[1], c[2]};
            if (W == ADV_WRAP && L.wrap[A] && w[A] == L.wrap[A]) w[A] = 0; /* face n repeats face 0 */
            u[b] = __ldg(d + node3(L, w[0], w[1], w[2]));
            continue;
        }
        int lo[3] = {c[0], c[1], c[2]}, hi[3] = {c[0], c[1], c[2]};
        const int na = L.n[A];
        lo[A] = c[A] - 1;
        if (lo[A] < 0) lo[A] = W == ADV_WRAP && L.wrap[A] ? na - 1 : 0;
        if (hi[A] > na - 1) hi[A] = W == ADV_WRAP && L.wrap[A] ? 0 : na - 1;
        int lo_b[3] = {lo[0], lo[1], lo[2]}, hi_b[3] = {hi[0], hi[1], hi[2]};
        lo_b[b]++;
        hi_b[b]++;
        if (W == ADV_WRAP && L.wrap[b] && lo_b[b] == L.wrap[b]) lo_b[b] = hi_b[b] = 0; /* face n repeats face 0 */
        float v0 = lerp_(__ldg(d + node3(L, lo[0], lo[1], lo[2])), __ldg(d + node3(L, hi[0], hi[1], hi[2])), 0.5f);
        float v1 = lerp_(__ldg(d + node3(L, lo_b[0], lo_b[1], lo_b[2])), __ldg(d + node3(L, hi_b[0], hi_b[1], hi_b[2])), 0.5f);
        u[b] = lerp_(v0, v1, 0.5f);
    }
}
template <int DIM, int W>
__device__ inline void cell_node_velocity(const Tracer &t, int i, int j, int k, float u[3]) {
    u[2] = 0.0f;
#pragma unroll
    for (int b = 0; b < DIM; b++) {
        const Lat &L = t.V[b];
        int w[3] = {i, j, k};
        w[b]++;
        if (W == ADV_WRAP && L.wrap[b] && w[b] == L.wrap[b]) w[b] = 0; /* face n repeats face 0 */
        u[b] = lerp_(__ldg(t.v[b] + node3(L, i, j, k)), __ldg(t.v[b] + node3(L, w[0], w[1], w[2])), 0.5f);
    }
}

/* advect.c trace_row for one element, in two halves: the start (the element's position P and the velocity u1
 * there) is shared by the backward and the forward trace; the end gives the foot of the backward trace
 * (DIR = -1) or the end of the forward one (DIR = +1), in lattice coordinates of the grid; z = 0 in 2D, as the
 * CPU's missing third buffer reads. FACE: the velocity component whose faces are advected, -1 for a scalar grid
 * of the velocity's cells, -2 for a finer scalar grid (u1 sampled at P). */
template <int DIM, int FACE, int W>
__device__ inline void trace_start(const Tracer &t, const Map &m, int i, int j, int k, float P[3], float u1[3]) {
    /* the scale is 1 on a face grid and on a scalar grid of dye_scale 1 (FACE >= -1), where x / 1 = x exactly */
    P[1] = FACE >= -1 ? (float)j + m.off[1] : ((float)j + m.off[1]) / m.scale[1];
    P[2] = FACE >= -1 ? (float)k + m.off[2] : ((float)k + m.off[2]) / m.scale[2];
    P[0] = FACE >= -1 ? (float)i + m.off[0] : ((float)i + m.off[0]) / m.scale[0];
    if (FACE >= 0) face_node_velocity<DIM, (FACE < 0 ? 0 : FACE), W>(t, i, j, k, u1);
    else if (FACE == -1) cell_node_velocity<DIM, W>(t, i, j, k, u1);
    else velocity_at<DIM, W>(t, P, u1);
}
template <int DIR, int DIM, int FACE, int W>
__device__ inline void trace_end(const Tracer &t, const Map &m, const float P[3], const float u1[3], float out[3]) {
    float Q[3], u2[3];
#pragma unroll
    for (int b = 0; b < 3; b++) Q[b] = DIR < 0 ? P[b] - 0.5f * t.dtc * u1[b] : P[b] + 0.5f * t.dtc * u1[b];
    velocity_at<DIM, W>(t, Q, u2);
#pragma unroll
    for (int b = 0; b < 3; b++) {
        if (b < DIM) {
            const float x = DIR < 0 ? P[b] - t.dtc * u2[b] : P[b] + t.dtc * u2[b];
            out[b] = (FACE >= -1 ? x : x * m.scale[b]) - m.off[b]; /* x * 1 = x */
        }
        else out[b] = 0.0f;
    }
}

/* the element of a thread: blocks of blockDim.x x blockDim.y elements of one plane k (block_of). The x faces (FACE
 * 0) of 32 m cells are 32 m + 1 along x (257 at 256^3): the last column of blocks would keep one busy lane per
 * warp, each such warp costing as much as a full one (1/9 of the u grid's warps at 256^3), so those blocks take
 * the last x column instead, a thread per row j (blockDim.x blockDim.y rows per block, the spare blocks exit). */
#define ADV_IJK(nx, ny)                                                                                        \
    int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);                                                      \
    int j = (int)(blockIdx.y * blockDim.y + threadIdx.y);                                                      \
    const int k = (int)blockIdx.z;                                                                             \
    if (FACE == 0 && blockIdx.x == gridDim.x - 1 && (nx) - (int)(blockIdx.x * blockDim.x) == 1) {              \
        i = (nx) - 1;                                                                                          \
        j = (int)((blockIdx.y * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);                         \
    }                                                                                                          \
    const bool inside_ = i < (nx) && j < (ny);

/* The feet of the backward trace, kept from the first pass of BFECC for its last pass when x[0] is set: 4 B per
 * axis written and read again against a second trace (a midpoint sample of 24 gathers in 3D). The same floats
 * either way. */
struct Feet {
    float *x[3];
};
template <int DIM>
__device__ inline void feet_store(const Feet &F, unsigned e, const float b[3]) {
#pragma unroll
    for (int a = 0; a < DIM; a++) F.x[a][e] = b[a];
}
template <int DIM>
__device__ inline void feet_load(const Feet &F, unsigned e, float b[3]) {
    b[2] = 0.0f;
#pragma unroll
    for (int a = 0; a < DIM; a++) b[a] = F.x[a][e];
}

/* The limiter's range kept from MacCormack's first pass when lo is set: the first pass samples q at the backward
 * foot, and the limiter of the second pass takes the min and max of the same nodes of the same q; so the first pass
 * keeps min and max (8 B per element) instead of the foot (12 B in 3D), and the second pass neither locates the
 * foot again nor gathers its nodes. The same floats either way. */
struct Range {
    float *lo, *hi;
};

/* out = factor * A(q) */
template <int DIM, int FACE, int W>
__global__ void k_adv_backward(Tracer t, Map m, Lat L, const float *__restrict__ q, float *__restrict__ out, float factor,
                               Flags fl, int field, Feet F, Range R) {
    ADV_IJK(m.n[0], m.n[1]);
    if (!inside_) return;
    float P[3], u1[3], b[3];
    trace_start<DIM, FACE, W>(t, m, i, j, k, P, u1);
    trace_end<-1, DIM, FACE, W>(t, m, P, u1, b);
    const unsigned e = idx3(m.n, i, j, k);
    const Loc pb = lat_locate<DIM, W>(L, b[0], b[1], b[2]);
    float v;
    if (R.lo) {
        float lo, hi;
        v = factor * sample_range_at<DIM, W>(L, q, pb, &lo, &hi);
        R.lo[e] = lo;
        R.hi[e] = hi;
    } else v = factor * sample_at<DIM, W>(L, q, pb);
    out[e] = v;
    if (F.x[0]) feet_store<DIM>(F, e, b);
    if (field >= 0) flag_if_bad(fl, v, field);
}

/* MacCormack second pass: out = factor * limit(q^ + (q - A^R q^)/2). At most 32 registers (8 blocks of 256 per
 * SM): the compiler's choice in 3D was 40 (6 blocks), item 60. */
template <int DIM, int FACE, int W>
__global__ void __launch_bounds__(BX * BY, 8)
    k_adv_maccormack(Tracer t, Map m, Lat L, const float *__restrict__ q, const float *__restrict__ qhat,
                     float *__restrict__ out, float factor, Flags fl, int field, Range R) {
    ADV_IJK(m.n[0], m.n[1]);
    if (!inside_) return;
    const unsigned e = idx3(m.n, i, j, k);
    float P[3], u1[3], f[3], b[3];
    trace_start<DIM, FACE, W>(t, m, i, j, k, P, u1);
    trace_end<+1, DIM, FACE, W>(t, m, P, u1, f);
    float back = lat_sample<DIM, W>(L, qhat, f[0], f[1], f[2]);
    float qh = qhat[e];
    float v = qh + 0.5f * (q[e] - back);
    float lo, hi;
    if (R.lo) {
        lo = R.lo[e];
        hi = R.hi[e];
    } else {
        trace_end<-1, DIM, FACE, W>(t, m, P, u1, b);
        lat_minmax<DIM, W>(L, q, b[0], b[1], b[2], &lo, &hi);
    }
    if (v < lo || v > hi) v = qh;
    v = factor * v;
    out[e] = v;
    flag_if_bad(fl, v, field);
}

/* BFECC middle pass: corrected = q + (q - A^R q^)/2 */
template <int DIM, int FACE, int W>
__global__ void k_adv_bfecc_correct(Tracer t, Map m, Lat L, const float *__restrict__ q, const float *__restrict__ qhat,
                                    float *__restrict__ corrected) {
    ADV_IJK(m.n[0], m.n[1]);
    if (!inside_) return;
    const unsigned e = idx3(m.n, i, j, k);
    float P[3], u1[3], f[3];
    trace_start<DIM, FACE, W>(t, m, i, j, k, P, u1);
    trace_end<+1, DIM, FACE, W>(t, m, P, u1, f);
    float back = lat_sample<DIM, W>(L, qhat, f[0], f[1], f[2]);
    float qe = q[e];
    corrected[e] = qe + 0.5f * (qe - back);
}

/* the backward foot of element e: kept from the first pass when the feet are stored, else traced again */
template <int DIM, int FACE, int W>
__device__ inline void backward_foot(const Tracer &t, const Map &m, const Feet &F, unsigned e, int i, int j, int k,
                                     float b[3]) {
    if (F.x[0]) {
        feet_load<DIM>(F, e, b);
        return;
    }
    float P[3], u1[3];
    trace_start<DIM, FACE, W>(t, m, i, j, k, P, u1);
    trace_end<-1, DIM, FACE, W>(t, m, P, u1, b);
}

/* BFECC last pass: out = factor * clamp(A(corrected), min/max of q around the foot) */
template <int DIM, int FACE, int W>
__global__ void k_adv_bfecc_final(Tracer t, Map m, Lat L, const float *__restrict__ q, const float *__restrict__ corr,
                                  float *__restrict__ out, float factor, Flags fl, int field, Feet F) {
    ADV_IJK(m.n[0], m.n[1]);
    if (!inside_) return;
    const unsigned e = idx3(m.n, i, j, k);
    float b[3];
    backward_foot<DIM, FACE, W>(t, m, F, e, i, j, k, b);
    const Loc pb = lat_locate<DIM, W>(L, b[0], b[1], b[2]);
    float v = sample_at<DIM, W>(L, corr, pb);
    float lo, hi;
    minmax_at<DIM, W>(L, q, pb, &lo, &hi);
    v = v < lo ? lo : (v > hi ? hi : v);
    v = factor * v;
    out[e] = v;
    flag_if_bad(fl, v, field);
}

/* ------------------------------------------------------------------ every live scalar in one pass
 * Dye and temperature share the scalar grid, so one trace serves all of them. */
struct Multi {
    int n;                 /* fields */
    const float *q[4];     /* start-of-stage fields */
    const float *hat[4];   /* q^ (second passes) or BFECC's corrected fields (its last pass) */
    float *dst[4];         /* written */
    float factor[4];
    int field[4];          /* eddy_field of each, for the non-finite flags */
    unsigned *node;        /* MacCormack in mode ADV_UNIT: the backward foot's (x0, y0, z0) node, written by the first
                              pass for the second's limiter (else null: the second traces again) */
};

/* dst = factor * A(q) */
template <int DIM, int FACE, int W>
__global__ void k_advm_backward(Tracer t, Map m, Lat L, Multi M, Flags fl, int final_pass, Feet F) {
    ADV_IJK(m.n[0], m.n[1]);
    if (!inside_) return;
    float P[3], u1[3], b[3];
    trace_start<DIM, FACE, W>(t, m, i, j, k, P, u1);
    trace_end<-1, DIM, FACE, W>(t, m, P, u1, b);
    const unsigned e = idx3(m.n, i, j, k);
    if (F.x[0]) feet_store<DIM>(F, e, b);
    const Loc pb = lat_locate<DIM, W>(L, b[0], b[1], b[2]); /* once for every field */
    if (W == ADV_UNIT && M.node) M.node[e] = node_of<DIM>((unsigned)L.n[0], (unsigned)L.n[1], pb.x, pb.y, pb.z);
#pragma unroll
    for (int f = 0; f < 4; f++) {
        if (f >= M.n) break;
        float v = M.factor[f] * sample_at<DIM, W>(L, M.q[f], pb);
        M.dst[f][e] = v;
        if (final_pass) flag_if_bad(fl, v, M.field[f]);
    }
}

/* MacCormack second pass of every scalar. The limiter's nodes: KEPT (mode ADV_UNIT), from the node the first pass
 * wrote (4 B, neither a trace nor a locate: item 90); else the backward foot traced again (cheaper than keeping
 * its 12 B, item 58) */
template <int DIM, int FACE, int W, int KEPT>
__global__ void k_advm_maccormack(Tracer t, Map m, Lat L, Multi M, Flags fl) {
    ADV_IJK(m.n[0], m.n[1]);
    if (!inside_) return;
    const unsigned e = idx3(m.n, i, j, k);
    float P[3], u1[3], fw[3];
    trace_start<DIM, FACE, W>(t, m, i, j, k, P, u1);
    trace_end<+1, DIM, FACE, W>(t, m, P, u1, fw);
    const Loc pf = lat_locate<DIM, W>(L, fw[0], fw[1], fw[2]);
    constexpr bool kept = W == ADV_UNIT && KEPT;
    unsigned nb = 0;
    Loc pb;
    if (kept) {
        nb = M.node[e];
    } else {
        float b[3];
        trace_end<-1, DIM, FACE, W>(t, m, P, u1, b);
        pb = lat_locate<DIM, W>(L, b[0], b[1], b[2]);
    }
#pragma unroll
    for (int f = 0; f < 4; f++) {
        if (f >= M.n) break;
        float back = sample_at<DIM, W>(L, M.hat[f], pf);
        float qh = M.hat[f][e];
        float v = qh + 0.5f * (M.q[f][e] - back);
        float lo, hi;
        if (kept) {
            minmax_node<DIM>(L, M.q[f], nb, &lo, &hi);
        } else {
            minmax_at<DIM, W>(L, M.q[f], pb, &lo, &hi);
        }
        if (v < lo || v > hi) v = qh;
        v = M.factor[f] * v;
        M.dst[f][e] = v;
        flag_if_bad(fl, v, M.field[f]);
    }
}

/* BFECC middle pass into dst: q + (q - A^R q^)/2 */
template <int DIM, int FACE, int W>
__global__ void k_advm_bfecc_correct(Tracer t, Map m, Lat L, Multi M) {
    ADV_IJK(m.n[0], m.n[1]);
    if (!inside_) return;
    const unsigned e = idx3(m.n, i, j, k);
    float P[3], u1[3], fw[3];
    trace_start<DIM, FACE, W>(t, m, i, j, k, P, u1);
    trace_end<+1, DIM, FACE, W>(t, m, P, u1, fw);
    const Loc pf = lat_locate<DIM, W>(L, fw[0], fw[1], fw[2]);
#pragma unroll
    for (int f = 0; f < 4; f++) {
        if (f >= M.n) break;
        float back = sample_at<DIM, W>(L, M.hat[f], pf);
        float qe = M.q[f][e];
        M.dst[f][e] = qe + 0.5f * (qe - back);
    }
}

/* BFECC last pass: hat holds the corrected fields */
template <int DIM, int FACE, int W>
__global__ void k_advm_bfecc_final(Tracer t, Map m, Lat L, Multi M, Flags fl, Feet F) {
    ADV_IJK(m.n[0], m.n[1]);
    if (!inside_) return;
    const unsigned e = idx3(m.n, i, j, k);
    float b[3];
    backward_foot<DIM, FACE, W>(t, m, F, e, i, j, k, b);
    const Loc pb = lat_locate<DIM, W>(L, b[0], b[1], b[2]);
#pragma unroll
    for (int f = 0; f < 4; f++) {
        if (f >= M.n) break;
        float v = sample_at<DIM, W>(L, M.hat[f], pb);
        float lo, hi;
        minmax_at<DIM, W>(L, M.q[f], pb, &lo, &hi);
        v = v < lo ? lo : (v > hi ? hi : v);
        v = M.factor[f] * v;
        M.dst[f][e] = v;
        flag_if_bad(fl, v, M.field[f]);
    }
}

/* ------------------------------------------------------------------ the three velocity components in one pass
 * MacCormack in mode ADV_UNIT with the limiter's range kept: a thread per cell (i, j, k) advects the u, v and w
 * faces (i, j, k) of that cell (and, on a dye_scale-1 grid, its scalars), so each pass reads the velocity once
 * instead of once per component and once more for the scalars, and the start velocities share their loads and
 * their index arithmetic; the faces past the cells (u at i = nx, v at j = ny, w at k = nz) take the blocks of a
 * few planes past the last. Each element's float operations are those of k_adv_backward and k_adv_maccormack
 * (k_advm_backward and k_advm_maccormack for the scalars), in their order: the same bits. */
struct CellVel {
    Map m[3];       /* the face grids */
    float *hat[3];  /* q^ of each component */
    Range R[3];     /* the limiter's range of each component */
    float *out[3];  /* the new velocity */
    float factor;   /* dissipation */
};

/* MacCormack's first pass at face e of component A from its start velocity u1: q^ and the limiter's range */
template <int DIM, int A>
__device__ inline void cell_face_first(const Tracer &t, const CellVel &V, int i, int j, int k, unsigned e, const float u1[3]) {
    const Map &m = V.m[A];
    const float P[3] = {(float)i + m.off[0], (float)j + m.off[1], (float)k + m.off[2]};
    float b[3];
    trace_end<-1, DIM, A, ADV_UNIT>(t, m, P, u1, b);
    const Lat &L = t.V[A];
    const Loc pb = lat_locate<DIM, ADV_UNIT>(L, b[0], b[1], b[2]);
    float lo, hi;
    const float v = sample_range_at<DIM, ADV_UNIT>(L, t.v[A], pb, &lo, &hi); /* k_adv_backward's 1 * v is v */
    V.hat[A][e] = v;
    V.R[A].lo[e] = lo;
    V.R[A].hi[e] = hi;
}
/* MacCormack's second pass at face e of component A */
template <int DIM, int A>
__device__ inline void cell_face_second(const Tracer &t, const CellVel &V, Flags fl, int i, int j, int k, unsigned e,
                                 const float u1[3]) {
    const Map &m = V.m[A];
    const float P[3] = {(float)i + m.off[0], (float)j + m.off[1], (float)k + m.off[2]};
    float f[3];
    trace_end<+1, DIM, A, ADV_UNIT>(t, m, P, u1, f);
    const float back = lat_sample<DIM, ADV_UNIT>(t.V[A], V.hat[A], f[0], f[1], f[2]);
    const float qh = __ldg(V.hat[A] + e);
    float v = qh + 0.5f * (__ldg(t.v[A] + e) - back);
    const float lo = __ldg(V.R[A].lo + e), hi = __ldg(V.R[A].hi + e);
    if (v < lo || v > hi) v = qh;
    v = V.factor * v;
    V.out[A][e] = v;
    flag_if_bad(fl, v, EDDY_FIELD_U + A);
}

/* The start velocities of the u, v and w faces (i, j, k) of cell (i, j, k) (face_node_velocity of each, mode
 * ADV_UNIT): inside the cells the upper neighbours never clamp and the lower ones clamp only on the first layer
 * (i, j or k = 0, where the lower node is the node itself), so each lattice's nodes are its base node eu, ev, ew
 * minus 0 or one stride; the 27 loads of the three are 18 distinct ones. */
struct Start3 {
    float u[3][3];     /* u[A]: the start velocity of face A */
    float lo[3], hi[3]; /* component b at the cell's lower and upper b face (the scalars' start velocity) */
};
__device__ inline Start3 cell_start3(const Tracer &t, int i, int j, int k, unsigned eu, unsigned ev, unsigned ew) {
    const float *__restrict__ U = t.v[0];
    const float *__restrict__ Vv = t.v[1];
    const float *__restrict__ W = t.v[2];
    const unsigned yu = (unsigned)t.V[0].n[0], zu = yu * (unsigned)t.V[0].n[1]; /* strides of the u lattice */
    const unsigned yv = (unsigned)t.V[1].n[0], zv = yv * (unsigned)t.V[1].n[1];
    const unsigned yw = (unsigned)t.V[2].n[0], zw = yw * (unsigned)t.V[2].n[1];
    const unsigned dx = i > 0 ? 1u : 0u; /* the lower neighbour's offset along x (0: clamped onto the node) */
    const unsigned dyu = j > 0 ? yu : 0u, dyw = j > 0 ? yw : 0u;
    const unsigned dzu = k > 0 ? zu : 0u, dzv = k > 0 ? zv : 0u;
    const float u000 = __ldg(U + eu), u100 = __ldg(U + eu + 1);
    const float v000 = __ldg(Vv + ev), v010 = __ldg(Vv + ev + yv);
    const float w000 = __ldg(W + ew), w001 = __ldg(W + ew + zw);
    Start3 s;
    s.lo[0] = u000, s.hi[0] = u100, s.lo[1] = v000, s.hi[1] = v010, s.lo[2] = w000, s.hi[2] = w001;
    /* u face: v and w, the mean of the 4 faces around, along x first (face_node_velocity's lo, hi, lo_b, hi_b) */
    s.u[0][0] = u000;
    s.u[0][1] = lerp_(lerp_(__ldg(Vv + ev - dx), v000, 0.5f), lerp_(__ldg(Vv + ev - dx + yv), v010, 0.5f), 0.5f);
    s.u[0][2] = lerp_(lerp_(__ldg(W + ew - dx), w000, 0.5f), lerp_(__ldg(W + ew - dx + zw), w001, 0.5f), 0.5f);
    /* v face: u and w along y first */
    s.u[1][0] = lerp_(lerp_(__ldg(U + eu - dyu), u000, 0.5f), lerp_(__ldg(U + eu - dyu + 1), u100, 0.5f), 0.5f);
    s.u[1][1] = v000;
    s.u[1][2] = lerp_(lerp_(__ldg(W + ew - dyw), w000, 0.5f), lerp_(__ldg(W + ew - dyw + zw), w001, 0.5f), 0.5f);
    /* w face: u and v along z first */
    s.u[2][0] = lerp_(lerp_(__ldg(U + eu - dzu), u000, 0.5f), lerp_(__ldg(U + eu - dzu + 1), u100, 0.5f), 0.5f);
    s.u[2][1] = lerp_(lerp_(__ldg(Vv + ev - dzv), v000, 0.5f), lerp_(__ldg(Vv + ev - dzv + yv), v010, 0.5f), 0.5f);
    s.u[2][2] = w000;
    return s;
}

/* The scalars of a dye_scale-1 grid in the same pass (SC): the scalar element (i, j, k) is cell (i, j, k), its
 * start velocity (cell_node_velocity) the means of the cell's faces that the cell's start loaded, its index e; its
 * float operations are those of k_advm_backward (pass 1) and k_advm_maccormack (pass 2): the limiter's node kept by
 * pass 1 in M.node (KEPT), or with M.node null traced again by pass 2 (2D). */
template <int DIM, int PASS>
__device__ inline void cell_scalars(const Tracer &t, const Lat &L, const Multi &M, Flags fl, int i, int j, int k,
                                     unsigned e, const float u1[3]) {
    const float P[3] = {(float)i + 0.5f, (float)j + 0.5f, (float)k + 0.5f};
    const Map m = {{L.n[0], L.n[1], L.n[2]}, {0.5f, 0.5f, 0.5f}, {1.0f, 1.0f, 1.0f}};
    float x[3];
    if (PASS == 1) {
        trace_end<-1, DIM, -1, ADV_UNIT>(t, m, P, u1, x);
        const Loc pb = lat_locate<DIM, ADV_UNIT>(L, x[0], x[1], x[2]);
        if (M.node) M.node[e] = node_of<DIM>((unsigned)L.n[0], (unsigned)L.n[1], pb.x, pb.y, pb.z);
#pragma unroll
        for (int f = 0; f < 4; f++) {
            if (f >= M.n) break;
            M.dst[f][e] = M.factor[f] * sample_at<DIM, ADV_UNIT>(L, M.q[f], pb);
        }
        return;
    }
    trace_end<+1, DIM, -1, ADV_UNIT>(t, m, P, u1, x);
    const Loc pf = lat_locate<DIM, ADV_UNIT>(L, x[0], x[1], x[2]);
    unsigned nb;
    if (M.node) {
        nb = __ldg(M.node + e);
    } else {
        trace_end<-1, DIM, -1, ADV_UNIT>(t, m, P, u1, x);
        const Loc pb = lat_locate<DIM, ADV_UNIT>(L, x[0], x[1], x[2]);
        nb = node_of<DIM>((unsigned)L.n[0], (unsigned)L.n[1], pb.x, pb.y, pb.z);
    }
#pragma unroll
    for (int f = 0; f < 4; f++) {
        if (f >= M.n) break;
        float back = sample_at<DIM, ADV_UNIT>(L, M.hat[f], pf);
        float qh = __ldg(M.hat[f] + e);
        float v = qh + 0.5f * (__ldg(M.q[f] + e) - back);
        float lo, hi;
        minmax_node<DIM>(L, M.q[f], nb, &lo, &hi);
        if (v < lo || v > hi) v = qh;
        v = M.factor[f] * v;
        M.dst[f][e] = v;
        flag_if_bad(fl, v, M.field[f]);
    }
}

/* one face of component A outside the cells, its start velocity from face_node_velocity */
template <int DIM, int A, int PASS>
__device__ inline void rim_face(const Tracer &t, const CellVel &V, Flags fl, int i, int j, int k) {
    float u1[3];
    face_node_velocity<DIM, A, ADV_UNIT>(t, i, j, k, u1);
    const unsigned e = node3(t.V[A], i, j, k);
    if (PASS == 1) cell_face_first<DIM, A>(t, V, i, j, k, e, u1);
    else cell_face_second<DIM, A>(t, V, fl, i, j, k, e, u1);
}

/* PASS 1 or 2 of the three components (and with SC of the scalars) at the faces (i, j, k) of the cells: blocks of
 * BX x BY cells of plane blockIdx.z < nz. The faces past the cells in the planes after them (as full warps; a
 * separate launch of these 1.2% of the faces at 256^3 cost ~23 us per pass, a wave of latency): plane nz the w
 * faces at k = nz, then rim_u planes of the u faces at i = nx (a thread per (j, k)), then the v faces at j = ny
 * (per (i, k)). */
template <int PASS, int SC>
__global__ void __launch_bounds__(BX * BY, PASS == 1 ? 5 : 6)
    k_adv_cell3(Tracer t, CellVel V, Lat Ls, Multi M, Flags fl, int rim_u) {
    const int nx = t.V[1].n[0], ny = t.V[0].n[1], nz = t.V[0].n[2]; /* cells */
    const int bz = (int)blockIdx.z;
    if (bz >= nz) {
        const int r = (int)((((unsigned)(bz - nz - 1) * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) *
                            (blockDim.x * blockDim.y) + threadIdx.y * blockDim.x + threadIdx.x);
        if (bz == nz) {
            const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x), j = (int)(blockIdx.y * blockDim.y + threadIdx.y);
            if (i < nx && j < ny) rim_face<3, 2, PASS>(t, V, fl, i, j, nz);
        } else if (bz <= nz + rim_u) {
            if (r < ny * nz) rim_face<3, 0, PASS>(t, V, fl, nx, r % ny, r / ny);
        } else {
            const int rv = r - (int)((unsigned)rim_u * gridDim.y * gridDim.x * blockDim.x * blockDim.y);
            if (rv < nx * nz) rim_face<3, 1, PASS>(t, V, fl, rv % nx, ny, rv / nx);
        }
        return;
    }
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x), j = (int)(blockIdx.y * blockDim.y + threadIdx.y);
    const int k = bz;
    if (i >= nx || j >= ny) return;
    const unsigned eu = node3(t.V[0], i, j, k), ev = node3(t.V[1], i, j, k), ew = node3(t.V[2], i, j, k);
    const Start3 s = cell_start3(t, i, j, k, eu, ev, ew);
    /* the scalars' start velocity (cell_node_velocity): the mean of the cell's two faces per component */
    const float uc[3] = {lerp_(s.lo[0], s.hi[0], 0.5f), lerp_(s.lo[1], s.hi[1], 0.5f), lerp_(s.lo[2], s.hi[2], 0.5f)};
    if (PASS == 1) {
        cell_face_first<3, 0>(t, V, i, j, k, eu, s.u[0]);
        cell_face_first<3, 1>(t, V, i, j, k, ev, s.u[1]);
        cell_face_first<3, 2>(t, V, i, j, k, ew, s.u[2]);
    } else {
        cell_face_second<3, 0>(t, V, fl, i, j, k, eu, s.u[0]);
        cell_face_second<3, 1>(t, V, fl, i, j, k, ev, s.u[1]);
        cell_face_second<3, 2>(t, V, fl, i, j, k, ew, s.u[2]);
    }
    if (SC) cell_scalars<3, PASS>(t, Ls, M, fl, i, j, k, ew, uc);
}

/* The start velocities of the u and v faces (i, j) of cell (i, j) in 2D: cell_start3 without z (12 loads of
 * face_node_velocity are 6 distinct ones). */
__device__ inline Start3 cell_start2(const Tracer &t, int i, int j, unsigned eu, unsigned ev) {
    const float *__restrict__ U = t.v[0];
    const float *__restrict__ Vv = t.v[1];
    const unsigned yu = (unsigned)t.V[0].n[0], yv = (unsigned)t.V[1].n[0];
    const unsigned dx = i > 0 ? 1u : 0u, dyu = j > 0 ? yu : 0u;
    const float u000 = __ldg(U + eu), u100 = __ldg(U + eu + 1);
    const float v000 = __ldg(Vv + ev), v010 = __ldg(Vv + ev + yv);
    Start3 s;
    s.lo[0] = u000, s.hi[0] = u100, s.lo[1] = v000, s.hi[1] = v010, s.lo[2] = s.hi[2] = 0.0f;
    s.u[0][0] = u000;
    s.u[0][1] = lerp_(lerp_(__ldg(Vv + ev - dx), v000, 0.5f), lerp_(__ldg(Vv + ev - dx + yv), v010, 0.5f), 0.5f);
    s.u[1][0] = lerp_(lerp_(__ldg(U + eu - dyu), u000, 0.5f), lerp_(__ldg(U + eu - dyu + 1), u100, 0.5f), 0.5f);
    s.u[1][1] = v000;
    s.u[0][2] = s.u[1][2] = s.u[2][0] = s.u[2][1] = s.u[2][2] = 0.0f;
    return s;
}

/* k_adv_cell3 in 2D: blocks of block_of(2) cells; the faces past the cells (u at i = nx, then v at j = ny) take the
 * rows of blocks after the last (blockIdx.y >= gy), a thread per face. */
template <int PASS, int SC>
__global__ void __launch_bounds__(BX * BY / 2, PASS == 1 ? 10 : 12)
    k_adv_cell2(Tracer t, CellVel V, Lat Ls, Multi M, Flags fl, int gy) {
    const int nx = t.V[1].n[0], ny = t.V[0].n[1]; /* cells */
    const int by = (int)blockIdx.y;
    if (by >= gy) {
        const int r = (int)((((unsigned)(by - gy) * gridDim.x + blockIdx.x) * (blockDim.x * blockDim.y)) +
                            threadIdx.y * blockDim.x + threadIdx.x);
        if (r < ny) rim_face<2, 0, PASS>(t, V, fl, nx, r, 0);
        else if (r < ny + nx) rim_face<2, 1, PASS>(t, V, fl, r - ny, ny, 0);
        return;
    }
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x), j = (int)(by * (int)blockDim.y + (int)threadIdx.y);
    if (i >= nx || j >= ny) return;
    const unsigned eu = node3(t.V[0], i, j, 0), ev = node3(t.V[1], i, j, 0), es = node3(Ls, i, j, 0);
    const Start3 s = cell_start2(t, i, j, eu, ev);
    const float uc[3] = {lerp_(s.lo[0], s.hi[0], 0.5f), lerp_(s.lo[1], s.hi[1], 0.5f), 0.0f};
    if (PASS == 1) {
        cell_face_first<2, 0>(t, V, i, j, 0, eu, s.u[0]);
        cell_face_first<2, 1>(t, V, i, j, 0, ev, s.u[1]);
    } else {
        cell_face_second<2, 0>(t, V, fl, i, j, 0, eu, s.u[0]);
        cell_face_second<2, 1>(t, V, fl, i, j, 0, ev, s.u[1]);
    }
    if (SC) cell_scalars<2, PASS>(t, Ls, M, fl, i, j, 0, es, uc);
}

/* launches kern<dim, face, mode> on the stage's stream (mode: a local of the caller, ADV_UNIT or
 * ADV_WRAP): FACE_GO for a face grid (face 0..dim-1), SCALAR_GO for the scalar grid (face -1 with dye_scale 1,
 * else -2) */
#define ADV_GO(kern, D, F, gr, ...)                                                                          \
    do {                                                                                                     \
        if (mode == ADV_WRAP) kern<D, F, ADV_WRAP><<<gr, blk, 0, c->stream>>>(__VA_ARGS__);         \
        else kern<D, F, ADV_UNIT><<<gr, blk, 0, c->stream>>>(__VA_ARGS__);                          \
    } while (0)
#define FACE_GO(kern, face, gr, ...)                                                                         \
    do {                                                                                                     \
        if (c->g.dim == 3) {                                                                                 \
            if ((face) == 0) ADV_GO(kern, 3, 0, gr, __VA_ARGS__);                                            \
            else if ((face) == 1) ADV_GO(kern, 3, 1, gr, __VA_ARGS__);                                       \
            else ADV_GO(kern, 3, 2, gr, __VA_ARGS__);                                                        \
        } else if ((face) == 0) ADV_GO(kern, 2, 0, gr, __VA_ARGS__);                                         \
        else ADV_GO(kern, 2, 1, gr, __VA_ARGS__);                                                            \
    } while (0)
#define SCALAR_GO(kern, face, gr, ...)                                                                       \
    do {                                                                                                     \
        if (c->g.dim == 3) {                                                                                 \
            if ((face) == -1) ADV_GO(kern, 3, -1, gr, __VA_ARGS__);                                          \
            else ADV_GO(kern, 3, -2, gr, __VA_ARGS__);                                                       \
        } else if ((face) == -1) ADV_GO(kern, 2, -1, gr, __VA_ARGS__);                                       \
        else ADV_GO(kern, 2, -2, gr, __VA_ARGS__);                                                           \
    } while (0)
/* the MacCormack scalar pass: KEPT (the limiter's node kept by the first pass) in 3D in mode ADV_UNIT only */
#define MACC_GO(D, F, gr, keep, ...)                                                                         \
    do {                                                                                                     \
        if (mode == ADV_WRAP) k_advm_maccormack<D, F, ADV_WRAP, 0><<<gr, blk, 0, c->stream>>>(__VA_ARGS__);  \
        else if (D == 3 && (keep))                                                                           \
            k_advm_maccormack<D, F, ADV_UNIT, D == 3><<<gr, blk, 0, c->stream>>>(__VA_ARGS__);               \
        else k_advm_maccormack<D, F, ADV_UNIT, 0><<<gr, blk, 0, c->stream>>>(__VA_ARGS__);                  \
    } while (0)

/* whether a lattice the stage samples wraps (a periodic axis) */
static bool wraps(const Lat &L) { return L.wrap[0] || L.wrap[1] || L.wrap[2]; }

struct AdvectWS {
    float *tmp[2];   /* q^ and the BFECC-corrected field of one velocity component (largest grid) */
    float *hat[4];   /* q^ of each scalar (hat[0] = tmp[0]) */
    float *corr[4];  /* BFECC-corrected scalars (corr[0] = tmp[1]) */
    float *out[3];   /* with cu_sim.scalar_tmp: the four new scalar fields */
    /* What the first pass keeps for the later ones when cu_sim.adv_feet is set (else they trace again):
     * MacCormack: the velocity's limiter range (Range) in feet[0], feet[1]; for its scalars in 3D in mode
     * ADV_UNIT the backward foot's node (Multi.node, 4 B) in feet[0] (12 B of feet cost more than a trace, item
     * 58; the node also saves the locating, item 90). BFECC: the feet of every grid in 3D (in 2D it traces
     * again). */
    float *feet[3];
    /* MacCormack with the range kept, in mode ADV_UNIT (k_adv_cell3 / k_adv_cell2, the velocity and the scalars in
     * the same pass): q^ of u, v, w in cell_keep[7], cell_keep[0], cell_keep[1] (tmp[0] is the scalars' hat[0]), the
     * ranges' lo and hi of v and w in cell_keep[2..5] (u's in feet[0], feet[1]), the scalars' node in cell_keep[6];
     * 2D uses four of them (hat u and v, v's range) */
    float *cell_keep[8];
    bool cell_keep_failed; /* no cell_keep (the device had no room for it, or a test turned the cell kernels off):
                              the per-component kernels run, which need none of it */
};

/* blocks of 32 x 8 elements in 3D (a wider block gained nothing, item 24) and 32 x 4 in 2D */
static dim3 block_of(int dim) { return dim3((unsigned)BX, (unsigned)(dim == 2 ? BY / 2 : BY), 1); }
static dim3 grid_of(int dim, const Map &m) {
    const dim3 b = block_of(dim);
    return dim3((unsigned)((m.n[0] + (int)b.x - 1) / (int)b.x), (unsigned)((m.n[1] + (int)b.y - 1) / (int)b.y),
                (unsigned)m.n[2]);
}

/* the kernels' lattice mode for a stage sampling the velocity lattices and L */
static int stage_mode(const Tracer &t, const Lat &L) {
    return wraps(t.V[0]) || wraps(t.V[1]) || wraps(t.V[2]) || wraps(L) ? ADV_WRAP : ADV_UNIT;
}

/* allocates what the current scheme needs (called at creation and before each advection: eddy_sim_set_def may
 * change the scheme); buffers already there are kept */
eddy_status advect_init(cu_sim *c) {
    if (!c->adv) c->adv = (AdvectWS *)calloc(1, sizeof(AdvectWS));
    if (!c->adv) return eddy__fail(c->s, EDDY_ERR_OUT_OF_MEMORY, "cuda: out of host memory");
    size_t cap = c->nscalar;
    for (int a = 0; a < c->g.dim; a++) cap = c->nface[a] > cap ? c->nface[a] : cap;
    int want = c->s->def.advection == EDDY_ADVECT_SEMI_LAGRANGIAN ? 0 : (c->s->def.advection == EDDY_ADVECT_MACCORMACK ? 1 : 2);
    AdvectWS *w = c->adv;
    eddy_status st = EDDY_OK;
    for (int b = 0; b < want && st == EDDY_OK; b++)
        if (!w->tmp[b]) st = dev_alloc(c, (void **)&w->tmp[b], cap * sizeof(float), "advection scratch");
    w->hat[0] = w->tmp[0];
    w->corr[0] = w->tmp[1];
    const size_t sb = c->nscalar * sizeof(float);
    for (int f = 1; f < 4 && st == EDDY_OK; f++) {
        if (want >= 1 && !w->hat[f]) st = dev_alloc(c, (void **)&w->hat[f], sb, "advection scratch");
        if (st == EDDY_OK && want >= 2 && !w->corr[f]) st = dev_alloc(c, (void **)&w->corr[f], sb, "advection scratch");
    }
    for (int f = 0; f < 3 && st == EDDY_OK; f++)
        if (!w->out[f]) st = dev_alloc(c, (void **)&w->out[f], sb, "advected scalars");
    /* MacCormack: the range's lo and hi; BFECC: the feet in 3D */
    const int nfeet = want == 1 ? 2 : (c->g.dim == 3 ? 3 : 0);
    for (int a = 0; a < nfeet && st == EDDY_OK && want >= 1 && c->adv_feet; a++)
        if (!w->feet[a]) st = dev_alloc(c, (void **)&w->feet[a], cap * sizeof(float), "advection feet");
    /* cell_keep is 8 arrays of the largest face grid in 3D (4.3 GB at 512^3), 4 in 2D (67 MB at 2048^2), for a
     * faster path, not a need: without room for it the per-component kernels run, with the same results */
    if (st == EDDY_OK && want == 1 && c->adv_feet && !w->cell_keep[0] && !w->cell_keep_failed) {
        for (int a = 0; a < 8 && !w->cell_keep_failed; a++) {
            const bool used = c->g.dim == 3 || a == 0 || a == 2 || a == 3 || a == 7; /* 2D: hat u, v and v's range */
            if (used && cudaMalloc((void **)&w->cell_keep[a], cap * sizeof(float)) != cudaSuccess) {
                w->cell_keep[a] = nullptr; /* not promised by cudaMalloc on failure */
                w->cell_keep_failed = true;
            }
        }
        if (w->cell_keep_failed) {
            (void)cudaGetLastError();
            for (int a = 0; a < 8; a++) {
                cudaFree(w->cell_keep[a]);
                w->cell_keep[a] = nullptr;
            }
        }
    }
    return st;
}

/* on = 0: the per-component kernels instead of the cell kernels (tests); on = 1: the cell kernels again where there is
 * room */
void advect_use_cells(cu_sim *c, int on) {
    AdvectWS *w = c->adv;
    if (!w) return;
    for (int a = 0; a < 8; a++) {
        cudaFree(w->cell_keep[a]);
        w->cell_keep[a] = nullptr;
    }
    w->cell_keep_failed = !on;
}

void advect_free(cu_sim *c) {
    if (!c->adv) return;
    AdvectWS *w = c->adv;
    cudaFree(w->tmp[0]);
    cudaFree(w->tmp[1]);
    for (int f = 1; f < 4; f++) {
        cudaFree(w->hat[f]);
        cudaFree(w->corr[f]);
    }
    for (int f = 0; f < 3; f++) {
        cudaFree(w->out[f]);
        cudaFree(w->feet[f]);
    }
    for (int f = 0; f < 8; f++) cudaFree(w->cell_keep[f]);
    free(w);
    c->adv = nullptr;
}

/* the feet buffers of BFECC in 3D when cu_sim.adv_feet is set, else none (the passes trace again: in 2D a trace
 * costs less than keeping its feet, item 58) */
static Feet feet_of(cu_sim *c) {
    Feet F;
    const bool on = c->adv_feet && c->s->def.advection == EDDY_ADVECT_BFECC && c->g.dim == 3 && c->adv->feet[0];
    for (int a = 0; a < 3; a++) F.x[a] = on ? c->adv->feet[a] : nullptr;
    return F;
}

/* MacCormack's kept limiter range of a velocity component when cu_sim.adv_feet is set (in the feet buffers) */
static Range range_of_velocity(cu_sim *c) {
    const AdvectWS *w = c->adv;
    const bool on = c->adv_feet && c->s->def.advection == EDDY_ADVECT_MACCORMACK && w->feet[0];
    return on ? Range{w->feet[0], w->feet[1]} : Range{nullptr, nullptr};
}

static cudaError_t advect_field(cu_sim *c, const Tracer &t, const Map &m, int face, const Lat &L, const float *q,
                                float *out, float factor, int field) {
    const dim3 blk = block_of(c->g.dim), gr = grid_of(c->g.dim, m);
    Flags fl = flags_for(c);
    Feet F = feet_of(c), none = {{nullptr, nullptr, nullptr}};
    const Range R = range_of_velocity(c), no_range = {nullptr, nullptr};
    const int mode = stage_mode(t, L);
    float *t0 = c->adv->tmp[0], *t1 = c->adv->tmp[1];
    switch (c->s->def.advection) {
    case EDDY_ADVECT_SEMI_LAGRANGIAN:
        FACE_GO(k_adv_backward, face, gr, t, m, L, q, out, factor, fl, field, none, no_range);
        break;
    case EDDY_ADVECT_MACCORMACK:
        FACE_GO(k_adv_backward, face, gr, t, m, L, q, t0, 1.0f, fl, -1, none, R);
        FACE_GO(k_adv_maccormack, face, gr, t, m, L, q, t0, out, factor, fl, field, R);
        break;
    case EDDY_ADVECT_BFECC:
        FACE_GO(k_adv_backward, face, gr, t, m, L, q, t0, 1.0f, fl, -1, F, no_range);
        FACE_GO(k_adv_bfecc_correct, face, gr, t, m, L, q, t0, t1);
        FACE_GO(k_adv_bfecc_final, face, gr, t, m, L, q, t1, out, factor, fl, field, F);
        break;
    }
    return cudaGetLastError();
}

static float decay_factor(float k, float dt) { return 1.0f / (1.0f + k * dt); }

/* whether the velocity takes k_adv_cell3 / k_adv_cell2 (MacCormack, range kept, no lattice wraps) */
static bool velocity_in_one_pass(cu_sim *c, const Tracer &t) {
    const AdvectWS *w = c->adv;
    return c->s->def.advection == EDDY_ADVECT_MACCORMACK && c->adv_feet && w->feet[0] &&
           w->cell_keep[7] && !wraps(t.V[0]) && !wraps(t.V[1]) && !wraps(t.V[2]);
}
/* the velocity's MacCormack passes by k_adv_cell3 (k_adv_cell2 in 2D), with the scalars when A (pass 1's fields: q^ and the node)
 * and M (pass 2's) are given (a dye_scale-1 grid of the same lattice mode) */
static cudaError_t advect_cells(cu_sim *c, const Tracer &t, float factor, const Lat &Ls, const Multi *A,
                                 const Multi *M) {
    AdvectWS *w = c->adv;
    CellVel V;
    float *hat[3] = {w->cell_keep[7], w->cell_keep[0], w->cell_keep[1]};
    float *lo[3] = {w->feet[0], w->cell_keep[2], w->cell_keep[4]}, *hi[3] = {w->feet[1], w->cell_keep[3], w->cell_keep[5]};
    for (int a = 0; a < 3; a++) {
        GDesc vd = velocity_desc(c->g, a);
        for (int b = 0; b < 3; b++) {
            V.m[a].n[b] = vd.n[b];
            V.m[a].off[b] = vd.off[b];
            V.m[a].scale[b] = 1.0f;
        }
        V.hat[a] = hat[a];
        V.R[a] = Range{lo[a], hi[a]};
        V.out[a] = c->vel_tmp[a];
    }
    V.factor = factor;
    const Flags fl = flags_for(c);
    const int *n = c->g.n;
    const Multi none = {};
    if (c->g.dim == 2) {
        const dim3 blk = block_of(2);
        const unsigned gx = (unsigned)((n[0] + (int)blk.x - 1) / (int)blk.x), gy = (unsigned)((n[1] + (int)blk.y - 1) / (int)blk.y);
        /* rows of blocks after the cells for the faces past them: u at i = nx, v at j = ny */
        const long row = (long)gx * blk.x * blk.y;
        const dim3 gr(gx, gy + (unsigned)((n[0] + n[1] + row - 1) / row), 1);
        if (A) {
            k_adv_cell2<1, 1><<<gr, blk, 0, c->stream>>>(t, V, Ls, *A, fl, (int)gy);
            k_adv_cell2<2, 1><<<gr, blk, 0, c->stream>>>(t, V, Ls, *M, fl, (int)gy);
        } else {
            k_adv_cell2<1, 0><<<gr, blk, 0, c->stream>>>(t, V, Ls, none, fl, (int)gy);
            k_adv_cell2<2, 0><<<gr, blk, 0, c->stream>>>(t, V, Ls, none, fl, (int)gy);
        }
        return cudaGetLastError();
    }
    const dim3 blk = block_of(3);
    const unsigned gx = (unsigned)((n[0] + BX - 1) / BX), gy = (unsigned)((n[1] + BY - 1) / BY);
    /* the planes after the cells: the w faces at k = nz, then the u faces at i = nx, then the v faces at j = ny */
    const long plane = (long)gx * gy * BX * BY;
    const int rim_u = (int)(((long)n[1] * n[2] + plane - 1) / plane), rim_v = (int)(((long)n[0] * n[2] + plane - 1) / plane);
    const dim3 gr(gx, gy, (unsigned)(n[2] + 1 + rim_u + rim_v));
    if (A) {
        k_adv_cell3<1, 1><<<gr, blk, 0, c->stream>>>(t, V, Ls, *A, fl, rim_u);
        k_adv_cell3<2, 1><<<gr, blk, 0, c->stream>>>(t, V, Ls, *M, fl, rim_u);
    } else {
        k_adv_cell3<1, 0><<<gr, blk, 0, c->stream>>>(t, V, Ls, none, fl, rim_u);
        k_adv_cell3<2, 0><<<gr, blk, 0, c->stream>>>(t, V, Ls, none, fl, rim_u);
    }
    return cudaGetLastError();
}

cudaError_t launch_advect(cu_sim *c, float dt) {
    const Geo &g = c->g;
    const eddy_sim_def &d = c->s->def;
    Tracer t;
    t.dim = g.dim;
    t.dtc = dt / g.h;
    for (int a = 0; a < 3; a++) {
        GDesc vd = velocity_desc(g, a);
        t.V[a] = lat_of(vd);
        t.v[a] = a < g.dim ? c->vel[a] : nullptr;
    }
    cudaError_t e = cudaSuccess;
    const float fv = decay_factor(d.velocity_dissipation, dt);
    /* MacCormack: the velocity (and the scalars of a dye_scale-1 grid) in one pass per cell, further down */
    const bool cells = velocity_in_one_pass(c, t);
    for (int a = 0; a < g.dim && e == cudaSuccess && !cells; a++) {
        GDesc vd = velocity_desc(g, a);
        Map m;
        for (int b = 0; b < 3; b++) {
            m.n[b] = vd.n[b];
            m.off[b] = vd.off[b];
            m.scale[b] = 1.0f;
        }
        e = advect_field(c, t, m, a, lat_of(vd), c->vel[a], c->vel_tmp[a], fv, EDDY_FIELD_U + a);
    }
    /* scalars: fields known to be zero stay zero (the CPU skips them the same way) */
    GDesc sd = scalar_desc(g);
    Map m;
    for (int b = 0; b < 3; b++) {
        m.n[b] = g.sn[b];
        m.off[b] = 0.5f;
        m.scale[b] = (float)g.ds[b];
    }
    float fd = decay_factor(d.dye_dissipation, dt), ft = decay_factor(d.temperature_dissipation, dt);
    AdvectWS *w = c->adv;
    float **pool[4] = {&c->scalar_tmp, &w->out[0], &w->out[1], &w->out[2]};
    float **live[4];
    Multi M;
    M.n = 0;
    for (int f = 0; f < 4; f++) {
        if (!(c->scalar_live & (1u << f))) continue;
        live[M.n] = f < 3 ? &c->dye[f] : &c->temp;
        M.q[M.n] = *live[M.n];
        M.factor[M.n] = f < 3 ? fd : ft;
        M.field[M.n] = EDDY_FIELD_DYE_R + f;
        M.n++;
    }
    const Lat L = lat_of(sd);
    const int face = d.dye_scale[0] == 1 && d.dye_scale[1] == 1 && d.dye_scale[2] == 1 ? -1 : -2;
    M.node = nullptr;
    Multi A = M; /* pass 1 writes q^ (factor 1) */
    for (int f = 0; f < M.n; f++) {
        M.dst[f] = *pool[f];
        A.dst[f] = w->hat[f];
        A.factor[f] = 1.0f;
        M.hat[f] = A.hat[f] = w->hat[f];
    }
    /* the scalars in the cell kernel with the velocity: a dye_scale-1 grid, its node kept in cell_keep[6] */
    const bool sc_cells = cells && M.n > 0 && face == -1 && !wraps(L);
    /* in 2D the second pass traces the foot again: cheaper than the node's write and read (items 90, 157) */
    if (sc_cells && g.dim == 3) A.node = M.node = (unsigned *)w->cell_keep[6];
    if (cells && e == cudaSuccess) e = advect_cells(c, t, fv, L, sc_cells ? &A : nullptr, sc_cells ? &M : nullptr);
    if (M.n > 0 && e == cudaSuccess) {
        const dim3 blk = block_of(g.dim), gr = grid_of(g.dim, m);
        Flags fl = flags_for(c);
        Feet F = feet_of(c), none = {{nullptr, nullptr, nullptr}};
        const int mode = stage_mode(t, L);
        if (!sc_cells) switch (d.advection) {
        case EDDY_ADVECT_SEMI_LAGRANGIAN:
            SCALAR_GO(k_advm_backward, face, gr, t, m, L, M, fl, 1, none);
            break;
        case EDDY_ADVECT_MACCORMACK: {
            /* the limiter's node kept in feet[0] (cap >= nscalar elements) in 3D in mode ADV_UNIT; a 2D trace
             * costs less than the node's write and read (item 90) */
            const bool keep = g.dim == 3 && mode == ADV_UNIT && c->adv_feet && w->feet[0];
            if (keep) A.node = M.node = (unsigned *)w->feet[0];
            SCALAR_GO(k_advm_backward, face, gr, t, m, L, A, fl, 0, none);
            if (g.dim == 3) {
                if (face == -1) MACC_GO(3, -1, gr, keep, t, m, L, M, fl);
                else MACC_GO(3, -2, gr, keep, t, m, L, M, fl);
            } else if (face == -1) MACC_GO(2, -1, gr, keep, t, m, L, M, fl);
            else MACC_GO(2, -2, gr, keep, t, m, L, M, fl);
            break;
        }
        case EDDY_ADVECT_BFECC: {
            SCALAR_GO(k_advm_backward, face, gr, t, m, L, A, fl, 0, F);
            Multi C = A; /* corrected fields into corr */
            for (int f = 0; f < M.n; f++) C.dst[f] = w->corr[f];
            SCALAR_GO(k_advm_bfecc_correct, face, gr, t, m, L, C);
            Multi Fm = M;
            for (int f = 0; f < M.n; f++) Fm.hat[f] = w->corr[f];
            SCALAR_GO(k_advm_bfecc_final, face, gr, t, m, L, Fm, fl, F);
            break;
        }
        }
        e = cudaGetLastError();
        /* the new fields take the fields' places; the old ones become the pool */
        for (int f = 0; f < M.n; f++) {
            float *old = *live[f];
            *live[f] = *pool[f];
            *pool[f] = old;
        }
    }
    for (int a = 0; a < g.dim; a++) {
        float *tmp = c->vel[a];
        c->vel[a] = c->vel_tmp[a];
        c->vel_tmp[a] = tmp;
    }
    return e;
}

} /* namespace ecu */
