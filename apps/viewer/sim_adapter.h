/* Runtime tuning for the viewer (the + and - keys change vorticity confinement while the
 * simulation runs), through the public eddy_sim_set_def. */
#ifndef VIEWER_SIM_ADAPTER_H
#define VIEWER_SIM_ADAPTER_H

#include "eddy/sim.h"

/** Sets the vorticity confinement epsilon (>= 0) used from the next step on. */
eddy_status viewer_sim_set_vorticity(eddy_sim *sim, float epsilon);

#endif
