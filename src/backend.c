/* Backend selection: the CPU backend is the code in this folder; a device backend (CUDA, src/cuda/) keeps the
 * fields on its device and replaces the stages through the hooks of eddy_backend_ops (sim_internal.h). */
#include "sim_internal.h"

#include <stdio.h>

#ifdef EDDY_HAVE_CUDA
#include "cuda/eddy_cuda.h"
#endif

const char *eddy_backend_name(eddy_backend backend) {
    switch (backend) {
    case EDDY_BACKEND_CPU: return "cpu";
    case EDDY_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

int eddy_backend_available(eddy_backend backend, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    switch (backend) {
    case EDDY_BACKEND_CPU:
#if defined(EDDY_HAVE_AVX2_BUILD)
        if (msg && msg_size)
            snprintf(msg, msg_size, "OpenMP, up to %d threads, %s row kernels%s", omp_get_max_threads(),
                     eddy__cpu_has_avx2() ? "AVX2" : "SSE2",
#if defined(EDDY_HAVE_AVX512_BUILD)
                     eddy__cpu_has_avx512() ? ", AVX-512 vorticity confinement" : ""
#else
                     ""
#endif
            );
#else
        if (msg && msg_size) snprintf(msg, msg_size, "OpenMP, up to %d threads", omp_get_max_threads());
#endif
        return 1;
    case EDDY_BACKEND_CUDA:
#ifdef EDDY_HAVE_CUDA
        return eddy__cuda_describe(msg, msg_size);
#else
        if (msg && msg_size) snprintf(msg, msg_size, "not compiled in (configure with -DEDDY_CUDA=ON)");
        return 0;
#endif
    }
    if (msg && msg_size) snprintf(msg, msg_size, "unknown backend %d", (int)backend);
    return 0;
}

eddy_status eddy__backend_attach(eddy_sim *s) {
    switch (s->def.backend) {
    case EDDY_BACKEND_CPU: return EDDY_OK;
    case EDDY_BACKEND_CUDA:
#ifdef EDDY_HAVE_CUDA
        return eddy__cuda_attach(s);
#else
        return eddy__fail(s, EDDY_ERR_UNSUPPORTED, "backend = cuda: this build has no CUDA backend");
#endif
    }
    return eddy__fail(s, EDDY_ERR_INVALID_ARGUMENT, "backend = %d: unknown", (int)s->def.backend);
}

eddy_status eddy__fetch(eddy_sim *s, unsigned fields) {
    if (fields & EDDY_SYNC_SOLID) {
        eddy_status st = eddy__solids_current(s);
        if (st != EDDY_OK) return st;
    }
    return s->backend_ops ? s->backend_ops->fetch(s, fields) : EDDY_OK;
}

eddy_status eddy__upload(eddy_sim *s, unsigned fields) {
    return s->backend_ops ? s->backend_ops->upload(s, fields) : EDDY_OK;
}
