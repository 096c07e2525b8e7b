/* The 2D vorticity kernel's rows through shared memory (cuda_notes 228-231). A block is VR_WARPS consumer warps on
 * adjacent strips of one chunk of rows (vort2_warp: two sub-strips of 32 columns per warp, 59 written, lane l owning
 * columns l and 32 + l) and a producer warp, one lane of which copies each row the chunk reads (u's row, v's faces
 * above it, the solid cells) for all the block's strips at once: one bulk asynchronous copy (cp.async.bulk) per
 * array and row, 1-2 KB contiguous, into a ring of VR_RING slots, completion counted in bytes on the slot's "full"
 * mbarrier. A consumer waits for its row's slot at the start of the step that reads it and reads its columns, the
 * row below and the old faces three rows back from the ring (no values held across steps: 96 registers without
 * spilling); it releases a slot on the slot's "empty" mbarrier after the last step that reads it, and the producer
 * waits for every consumer's release before it fills the slot again. No consumer issues a copy (each copy a warp
 * issued cost it ~60 instructions: cuda_notes 219-221), and the pieces are wider than a warp's (cuda_notes 228: the
 * pattern alone 80-83% of copy, against 56-64% for loads into registers). The warps at the x-ends of a periodic axis
 * read wrapped columns outside the block's rows and load from global memory as before. */
#ifndef EDDY_VORT_RING_CUH
#define EDDY_VORT_RING_CUH

#include "bulk_copy.cuh"
#include "vort_tile.cuh"

namespace ecu {

/* VW_COLS sub-strips per warp; VR_WARPS consumers and a producer per block, VR_MINB blocks per SM (20 warps, 96
 * registers; with solid cells VR_MINB_SOL, the registers the solid cells' instance needs without spilling);
 * VR_RING slots: 8 measured fastest (6, 12 and 16 slower, cuda_notes 230) */
constexpr int VW_COLS = 2;
constexpr int VR_WARPS = 4, VR_MINB = 4, VR_MINB_SOL = 3, VR_RING = 8;
constexpr int VR_PIECE = (VR_WARPS * vw_out<VW_COLS>() + 32 + 3) / 4 * 4; /* floats of a slot's row piece */
constexpr int VR_PIECE8 = (VR_PIECE + 15) / 16 * 16;                     /* bytes of its solid cells */
/* the ring, at namespace scope so that every access compiles to a shared-memory one at a constant base */
__shared__ alignas(16) float vr_u[VR_RING * VR_PIECE], vr_v[VR_RING * VR_PIECE];
__shared__ alignas(16) uint8_t vr_s[VR_RING * VR_PIECE8];
__shared__ uint64_t vr_full[VR_RING], vr_empty[VR_RING];
struct Vw2Ring {
    static constexpr bool enabled = true;
    int m0, lo, n0, n1;
    bool ps;
    __device__ unsigned slot(int M) const { return (unsigned)(M - m0) % VR_RING; }
    __device__ int phys(int M) const { return vt_phys(M, n1, ps); } /* the row that key M reads */
    /* where a row's piece starts in its array: 16-byte aligned at or before column lo */
    __device__ static int start(int row0, int lo) { return (row0 + lo) & ~3; }
    __device__ static int start8(int row0, int lo) { return (row0 + lo) & ~15; }
    /* the pieces of key M (physical row y), indexed by column: u's row y, v's row y + 1 (the faces above row y), the
     * solid cells of row y; a piece starts at start(row0, lo), so column c lies row0 + c - start = c - lo + (row0 +
     * lo) mod 4 (16 for bytes) into it */
    __device__ const float *urow(int M, int y) const { return vr_u + (int)slot(M) * VR_PIECE + ((y * (n0 + 1) + lo) & 3) - lo; }
    __device__ const float *vrow(int M, int y) const { return vr_v + (int)slot(M) * VR_PIECE + (((y + 1) * n0 + lo) & 3) - lo; }
    __device__ const uint8_t *srow(int M, int y) const { return vr_s + (int)slot(M) * VR_PIECE8 + ((y * n0 + lo) & 15) - lo; }
    /* a consumer, before it reads row M */
    __device__ void wait(int M) const { mbar_wait(&vr_full[slot(M)], ((unsigned)(M - m0) / VR_RING) & 1u); }
    /* the producer, before it fills row M's slot again: every consumer has released the row VR_RING before */
    __device__ void wait_empty(int M) const { mbar_wait(&vr_empty[slot(M)], ((unsigned)(M - m0) / VR_RING - 1u) & 1u); }
    /* every lane arrives (the barrier counts the consumers' lanes): no branch, no warp barrier */
    __device__ void release(int M) const { mbar_arrive(&vr_empty[slot(M)]); }
};

/* the producer's lane: rows ring.m0 .. m1 (u's columns [lo, hi), lo the ring's) into their slots, in order, each
 * once every consumer has released the row VR_RING before it */
template <bool SOL>
__device__ inline void vr_produce(const VortArgs &A, const Vw2Ring &ring, int m1, int hi) {
    const int n0 = A.n[0], lo = ring.lo;
    for (int M = ring.m0; M <= m1; M++) {
        const unsigned s = ring.slot(M);
        if (M - ring.m0 >= VR_RING) ring.wait_empty(M);
        /* whole 16-byte units: up to 15 bytes past the row's run (the arrays have a tail for it) */
        const int y = ring.phys(M);
        const int gu = Vw2Ring::start(y * (n0 + 1), lo), gv = Vw2Ring::start((y + 1) * n0, lo), gs = Vw2Ring::start8(y * n0, lo);
        const uint32_t bu = 4u * (uint32_t)((y * (n0 + 1) + hi - gu + 3) & ~3);
        const uint32_t bv = 4u * (uint32_t)(((y + 1) * n0 + vt_min(hi, n0) - gv + 3) & ~3);
        const uint32_t bs = SOL ? (uint32_t)((y * n0 + vt_min(hi, n0) - gs + 15) & ~15) : 0u;
        mbar_expect_tx(&vr_full[s], bu + bv + bs);
        bulk_copy(vr_u + s * VR_PIECE, A.v[0] + gu, bu, &vr_full[s]);
        bulk_copy(vr_v + s * VR_PIECE, A.v[1] + gv, bv, &vr_full[s]);
        if (SOL) bulk_copy(vr_s + s * VR_PIECE8, A.solid + gs, bs, &vr_full[s]);
    }
}

} /* namespace ecu */

#endif
