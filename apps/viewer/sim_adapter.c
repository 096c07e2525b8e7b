/* See sim_adapter.h: changes def.vorticity through the public eddy_sim_set_def. */
#include "sim_adapter.h"

eddy_status viewer_sim_set_vorticity(eddy_sim *sim, float epsilon) {
    eddy_sim_def def = *eddy_sim_get_def(sim);
    def.vorticity = epsilon;
    return eddy_sim_set_def(sim, &def);
}
