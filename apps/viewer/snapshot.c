/* Field copies for drawing beside the step (see snapshot.h). What is copied follows eddy_render_sim's gathering
 * (src/render/render_sim.c) for the 2D views the viewer shows: dye for the dye view; speed or vorticity computed
 * from the velocity, or the pressure, for the scalar views; solid cells as bytes when there are any. */
#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int grow(void **p, size_t *cap, size_t count, size_t elem) {
    if (count <= *cap) return 0;
    void *q = realloc(*p, count * elem);
    if (!q) return -1;
    *p = q;
    *cap = count;
    return 0;
}

eddy_status snapshot_take(snapshot *sn, eddy_sim *sim, eddy_view view, char *msg, size_t msg_size) {
    eddy_render_input *in = &sn->in;
    memset(in, 0, sizeof *in);
    const eddy_sim_def *def = eddy_sim_get_def(sim);
    eddy_field_layout cl, dl, l;
    eddy_status st;
    if ((st = eddy_sim_field_layout(sim, EDDY_FIELD_PRESSURE, &cl)) != EDDY_OK ||
        (st = eddy_sim_field_layout(sim, EDDY_FIELD_DYE_R, &dl)) != EDDY_OK) {
        snprintf(msg, msg_size, "snapshot: %s", eddy_sim_last_error(sim));
        return st;
    }
    in->dim = def->dim;
    const float h = eddy_sim_cell_size(sim);
    for (int a = 0; a < 3; a++) {
        in->box_min[a] = def->origin[a];
        in->box_size[a] = (float)cl.n[a] * h;
    }
    sn->picture_n[0] = dl.n[0];
    sn->picture_n[1] = dl.n[1];
    sn->sim_time = eddy_sim_time(sim);
    if (view == EDDY_VIEW_DYE) {
        for (int c = 0; c < 3; c++) {
            if (grow((void **)&sn->dye[c], &sn->dye_cap[c], dl.count, sizeof(float))) goto oom;
            const float *d = eddy_sim_field_view(sim, (eddy_field)(EDDY_FIELD_DYE_R + c), &l);
            if (!d) goto sim_error;
            memcpy(sn->dye[c], d, dl.count * sizeof(float));
            in->dye[c] = sn->dye[c];
        }
        memcpy(in->dye_n, dl.n, sizeof in->dye_n);
    } else {
        eddy_field f = view == EDDY_VIEW_SPEED ? EDDY_FIELD_SPEED
                     : view == EDDY_VIEW_VORTICITY ? EDDY_FIELD_VORTICITY : EDDY_FIELD_PRESSURE;
        if ((st = eddy_sim_field_layout(sim, f, &l)) != EDDY_OK) goto sim_error;
        if (grow((void **)&sn->scalar, &sn->scalar_cap, l.count, sizeof(float))) goto oom;
        if ((st = eddy_sim_read_field(sim, f, sn->scalar, l.count)) != EDDY_OK) goto sim_error;
        in->scalar = sn->scalar;
        memcpy(in->scalar_n, l.n, sizeof in->scalar_n);
    }
    if ((st = eddy_sim_field_layout(sim, EDDY_FIELD_SOLID, &l)) != EDDY_OK) goto sim_error;
    if (grow((void **)&sn->solid_f, &sn->solid_f_cap, l.count, sizeof(float))) goto oom;
    if (grow((void **)&sn->solid, &sn->solid_cap, l.count, 1)) goto oom;
    if ((st = eddy_sim_read_field(sim, EDDY_FIELD_SOLID, sn->solid_f, l.count)) != EDDY_OK) goto sim_error;
    int any = 0;
    for (size_t e = 0; e < l.count; e++) {
        sn->solid[e] = sn->solid_f[e] != 0.0f;
        any |= sn->solid[e];
    }
    if (any) { /* no solid cells: left out, which skips the obstacle pass */
        in->solid = sn->solid;
        memcpy(in->solid_n, l.n, sizeof in->solid_n);
    }
    return EDDY_OK;
oom:
    snprintf(msg, msg_size, "snapshot: out of memory");
    return EDDY_ERR_OUT_OF_MEMORY;
sim_error:
    snprintf(msg, msg_size, "snapshot: %s", eddy_sim_last_error(sim));
    return st != EDDY_OK ? st : EDDY_ERR_INVALID_ARGUMENT;
}

eddy_status snapshot_render(const snapshot *sn, eddy_renderer *r, const eddy_render_def *def, eddy_image *img) {
    eddy_render_def d = *def;
    if (d.width == 0 && d.height == 0) { /* every view at one pixel per dye cell, as eddy_render_sim draws them */
        d.width = sn->picture_n[0];
        d.height = sn->picture_n[1];
    }
    return eddy_render_input_2d(r, &sn->in, &d, img);
}

void snapshot_free(snapshot *sn) {
    for (int c = 0; c < 3; c++) free(sn->dye[c]);
    free(sn->scalar);
    free(sn->solid_f);
    free(sn->solid);
    memset(sn, 0, sizeof *sn);
}
