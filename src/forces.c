/* Buoyancy (Fedkiw, Stam & Jensen 2001, "Visual simulation of smoke"): f = alpha * d * g - beta * (T - T_amb) * g,
 * with d the dye density (R + G + B) and g gravity. Applied to each velocity face with the scalars interpolated to
 * the face position (the scalar grid may be finer than the velocity grid). */
#include "sim_internal.h"

eddy_status eddy__apply_buoyancy(eddy_sim *s, float dt) {
    const float alpha = s->def.buoyancy_density, beta = s->def.buoyancy_temperature, t_amb = s->def.ambient_temperature;
    if (alpha == 0.0f && beta == 0.0f) return EDDY_OK;
    for (int a = 0; a < s->dim; a++) {
        float g = s->def.gravity[a];
        if (g == 0.0f) continue;
        eddy_grid_desc vg = eddy__velocity_desc(s, a, s->vel[a]);
        eddy_grid_desc dr = eddy__scalar_desc(s, s->dye[0]), dg = eddy__scalar_desc(s, s->dye[1]),
                       db = eddy__scalar_desc(s, s->dye[2]), tg = eddy__scalar_desc(s, s->temperature);
        float *v = s->vel[a];
        int rows = vg.n[1] * vg.n[2];
#pragma omp parallel for num_threads(EDDY_THREADS(s)) schedule(static)
        for (int row = 0; row < rows; row++) {
            int j = row % vg.n[1], k = row / vg.n[1];
            for (int i = 0; i < vg.n[0]; i++) {
                float p[3];
                eddy__grid_pos(&vg, i, j, k, p);
                float d = 0.0f, temp = 0.0f;
                if (alpha != 0.0f) d = eddy__sample(&dr, p) + eddy__sample(&dg, p) + eddy__sample(&db, p);
                if (beta != 0.0f) temp = eddy__sample(&tg, p) - t_amb;
                v[eddy__idx(vg.n, i, j, k)] += dt * g * (alpha * d - beta * temp);
            }
        }
    }
    return EDDY_OK;
}
