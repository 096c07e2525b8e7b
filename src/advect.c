/* PLACEHOLDER — replaced by the advection work (semi-Lagrangian RK2, BFECC, MacCormack). */
#include "sim_internal.h"
eddy_status eddy__advect_init(eddy_sim *s) { (void)s; return EDDY_OK; }
void eddy__advect_free(eddy_sim *s) { (void)s; }
eddy_status eddy__advect(eddy_sim *s, float dt) { (void)dt; return eddy__fail(s, EDDY_ERR_UNSUPPORTED, "advection not implemented yet"); }
