/* TEMPORARY: functions still being written (forces, vorticity, diagnostics, sources, fields, state). */
#include "sim_internal.h"
eddy_status eddy__apply_splat(eddy_sim *s, const eddy_splat *sp) { (void)sp; (void)s; return EDDY_OK; }
eddy_status eddy__apply_emitters(eddy_sim *s, float dt) { (void)dt; (void)s; return EDDY_OK; }
eddy_status eddy__apply_buoyancy(eddy_sim *s, float dt) { (void)dt; (void)s; return EDDY_OK; }
eddy_status eddy__apply_vorticity(eddy_sim *s, float dt) { (void)dt; (void)s; return EDDY_OK; }
eddy_status eddy__diagnostics(eddy_sim *s, float dt) { (void)dt; (void)s; return EDDY_OK; }
float eddy__cell_divergence(const eddy_sim *s, int i, int j, int k) {
    const int *n = s->n; int fu[3], fv[3], fw[3];
    eddy__face_dims(s, 0, fu); eddy__face_dims(s, 1, fv); eddy__face_dims(s, 2, fw);
    float d = s->vel[0][eddy__idx(fu, i + 1, j, k)] - s->vel[0][eddy__idx(fu, i, j, k)]
            + s->vel[1][eddy__idx(fv, i, j + 1, k)] - s->vel[1][eddy__idx(fv, i, j, k)];
    if (s->dim == 3) d += s->vel[2][eddy__idx(fw, i, j, k + 1)] - s->vel[2][eddy__idx(fw, i, j, k)];
    (void)n; return d / s->h;
}
