/* PLACEHOLDER — replaced by the implicit diffusion work. */
#include "sim_internal.h"
eddy_status eddy__diffuse_init(eddy_sim *s) { (void)s; return EDDY_OK; }
void eddy__diffuse_free(eddy_sim *s) { (void)s; }
eddy_status eddy__diffuse(eddy_sim *s, float dt) { (void)dt; (void)s; return EDDY_OK; }
