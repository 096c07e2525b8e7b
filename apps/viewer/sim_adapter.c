/* See sim_adapter.h: writes def.vorticity, which the confinement stage (src/vorticity.c) reads every step. */
#include "sim_adapter.h"
#include "sim_internal.h"

#include <math.h>

eddy_status viewer_sim_set_vorticity(eddy_sim *sim, float epsilon) {
    if (!(epsilon >= 0) || !isfinite(epsilon))
        return eddy__fail(sim, EDDY_ERR_INVALID_ARGUMENT, "vorticity = %g: must be finite and >= 0", (double)epsilon);
    sim->def.vorticity = epsilon;
    return EDDY_OK;
}
