/* PLACEHOLDER — replaced by the pressure projection work (Jacobi, RBGS, MGPCG). */
#include "sim_internal.h"
eddy_status eddy__project_init(eddy_sim *s) { (void)s; return EDDY_OK; }
void eddy__project_free(eddy_sim *s) { (void)s; }
eddy_status eddy__project(eddy_sim *s, float dt) { (void)dt; return eddy__fail(s, EDDY_ERR_UNSUPPORTED, "projection not implemented yet"); }
