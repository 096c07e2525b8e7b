/* Bulk asynchronous copies from global into shared memory (cp.async.bulk, sm_90) and the mbarriers that count their
 * bytes: the few PTX instructions the 2D vorticity ring (vort_ring.cuh) and the access-pattern probes
 * (bench/cuda/bulk_probe.cu) use, each written once. Addresses of shared memory are 32-bit (the shared window). */
#ifndef EDDY_BULK_COPY_CUH
#define EDDY_BULK_COPY_CUH

#include <cstdint>

namespace ecu {

__device__ inline uint32_t smem_addr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

/* a barrier whose phase completes after `count` arrivals (and the bytes announced by expect_tx) */
__device__ inline void mbar_init(uint64_t *b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(b)), "r"(count));
}
/* after the initialisations, before any copy or wait: makes them visible to the copy engine and the other threads */
__device__ inline void mbar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); }
/* one arrival that also announces `bytes` the phase waits for */
__device__ inline void mbar_expect_tx(uint64_t *b, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
__device__ inline void mbar_arrive(uint64_t *b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(b)) : "memory");
}
/* until the phase of this parity has completed */
__device__ inline void mbar_wait(uint64_t *b, uint32_t parity) {
    asm volatile("{\n .reg .pred p;\n W: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra W;\n}" ::"r"(smem_addr(b)),
                 "r"(parity)
                 : "memory");
}
/* `bytes` (a multiple of 16; both addresses 16-byte aligned) from global to shared memory, counted on barrier b */
__device__ inline void bulk_copy(void *dst, const void *src, uint32_t bytes, uint64_t *b) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
                 "l"(src), "r"(bytes), "r"(smem_addr(b))
                 : "memory");
}

} /* namespace ecu */

#endif
