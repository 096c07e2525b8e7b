/* Rendering a simulation: its fields are gathered through the public API (views of stored fields, copies of
 * computed ones into the renderer's scratch) into an eddy_render_input, then drawn by view2d.c or volume.c.
 * The box is the simulation domain: origin .. origin + n*h. Solid cells come from EDDY_FIELD_SOLID. */
#include "render_internal.h"
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static eddy_status sim_fail(eddy_renderer *r, eddy_sim *sim, eddy_status st, const char *what) {
    return eddy__rfail(r, st, "render: %s: %s", what, eddy_sim_last_error(sim));
}

static eddy_status read_copy(eddy_renderer *r, eddy_sim *sim, eddy_field f, eddy__fbuf *buf, eddy_field_layout *lay) {
    eddy_status st = eddy_sim_field_layout(sim, f, lay);
    if (st != EDDY_OK) return sim_fail(r, sim, st, eddy_field_name(f));
    if ((st = eddy__fbuf_reserve(r, buf, lay->count)) != EDDY_OK) return st;
    st = eddy_sim_read_field(sim, f, buf->p, lay->count);
    if (st != EDDY_OK) return sim_fail(r, sim, st, eddy_field_name(f));
    return EDDY_OK;
}

static eddy_status view_of(eddy_renderer *r, eddy_sim *sim, eddy_field f, const float **data, eddy_field_layout *lay) {
    *data = eddy_sim_field_view(sim, f, lay);
    if (!*data) return sim_fail(r, sim, EDDY_ERR_INVALID_ARGUMENT, eddy_field_name(f));
    return EDDY_OK;
}

/* velocity component a averaged from its faces to cell centres */
static eddy_status face_to_centre(eddy_renderer *r, eddy_sim *sim, int a, const int n[3]) {
    static const eddy_field comp[3] = {EDDY_FIELD_U, EDDY_FIELD_V, EDDY_FIELD_W};
    const float *face;
    eddy_field_layout fl;
    eddy_status st = view_of(r, sim, comp[a], &face, &fl);
    if (st != EDDY_OK) return st;
    size_t count = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
    if ((st = eddy__fbuf_reserve(r, &r->field, count)) != EDDY_OK) return st;
    const size_t stride = a == 0 ? 1 : (a == 1 ? (size_t)fl.n[0] : (size_t)fl.n[0] * (size_t)fl.n[1]);
    float *out = r->field.p;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                size_t f0 = (size_t)i + (size_t)fl.n[0] * ((size_t)j + (size_t)fl.n[1] * (size_t)k);
                const float sum = face[f0] + face[f0 + stride];
                /* two faces near FLT_MAX overflow the sum (an infinite centre between finite faces): halve first */
                out[(size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * (size_t)k)] =
                    isfinite(sum) ? 0.5f * sum : 0.5f * face[f0] + 0.5f * face[f0 + stride];
            }
    return EDDY_OK;
}

/* The signed distance (m, negative inside) to where the total dye r+g+b crosses `level`, on the dye grid, into
 * r->sdf: the liquid view's input. The surface workspace is made for the dye grid once (and again only when the grid
 * changes), so a steady render allocates nothing. */
static eddy_status liquid_sdf(eddy_renderer *r, eddy_sim *sim, float level, eddy_render_input *in) {
    eddy_field_layout dl;
    const float *dye[3];
    eddy_status st;
    for (int c = 0; c < 3; c++)
        if ((st = view_of(r, sim, (eddy_field)(EDDY_FIELD_DYE_R + c), &dye[c], &dl)) != EDDY_OK) return st;
    eddy_surface_def want;
    char msg[256];
    if ((st = eddy_surface_def_from_layout(&dl, &want, msg, sizeof msg)) != EDDY_OK)
        return eddy__rfail(r, st, "render.view = liquid: %s", msg);
    want.threads = r->threads;
    const eddy_surface_def *have = r->surface ? eddy_surface_get_def(r->surface) : NULL;
    if (!have || have->dim != want.dim || memcmp(have->n, want.n, sizeof want.n) != 0 || have->h != want.h ||
        memcmp(have->origin, want.origin, sizeof want.origin) != 0) {
        eddy_surface_destroy(r->surface);
        r->surface = NULL;
        if ((st = eddy_surface_create(&want, &r->surface, msg, sizeof msg)) != EDDY_OK)
            return eddy__rfail(r, st, "render.view = liquid: %s", msg);
    }
    if ((st = eddy__fbuf_reserve(r, &r->field, dl.count)) != EDDY_OK) return st;
    if ((st = eddy__fbuf_reserve(r, &r->sdf, dl.count)) != EDDY_OK) return st;
    float *total = r->field.p;
    for (size_t e = 0; e < dl.count; e++) {
        float t = dye[0][e] + dye[1][e] + dye[2][e];
        /* three finite channels near FLT_MAX overflow a float sum, which the distance refused as not finite */
        if (!isfinite(t)) t = (float)fmax(fmin((double)dye[0][e] + dye[1][e] + dye[2][e], FLT_MAX), -FLT_MAX);
        total[e] = t;
    }
    if ((st = eddy_sdf_from_field(r->surface, total, dl.count, level, 1, r->sdf.p)) != EDDY_OK)
        return eddy__rfail(r, st, "render.view = liquid: %s", eddy_surface_last_error(r->surface));
    in->scalar = r->sdf.p;
    memcpy(in->scalar_n, dl.n, sizeof in->scalar_n);
    return EDDY_OK;
}

static eddy_status gather(eddy_renderer *r, eddy_sim *sim, bool want_dye, int scalar_view, float liquid_level,
                          bool want_solid, eddy_render_input *in) {
    if (!sim) return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render: simulation is NULL");
    memset(in, 0, sizeof *in);
    const eddy_sim_def *def = eddy_sim_get_def(sim);
    in->dim = def->dim;
    eddy_field_layout cl;
    eddy_status st = eddy_sim_field_layout(sim, EDDY_FIELD_PRESSURE, &cl);
    if (st != EDDY_OK) return sim_fail(r, sim, st, "pressure layout");
    const float h = eddy_sim_cell_size(sim);
    for (int a = 0; a < 3; a++) {
        in->box_min[a] = def->origin[a];
        in->box_size[a] = (float)cl.n[a] * h;
    }
    if (want_dye) {
        eddy_field_layout dl;
        for (int c = 0; c < 3; c++)
            if ((st = view_of(r, sim, (eddy_field)(EDDY_FIELD_DYE_R + c), &in->dye[c], &dl)) != EDDY_OK) return st;
        memcpy(in->dye_n, dl.n, sizeof in->dye_n);
    }
    eddy_field_layout sl;
    switch (scalar_view) {
    case EDDY_VIEW_SPEED:
    case EDDY_VIEW_VORTICITY:
    case EDDY_VIEW_DIVERGENCE: {
        eddy_field f = scalar_view == EDDY_VIEW_SPEED ? EDDY_FIELD_SPEED
                     : scalar_view == EDDY_VIEW_VORTICITY ? EDDY_FIELD_VORTICITY : EDDY_FIELD_DIVERGENCE;
        if ((st = read_copy(r, sim, f, &r->field, &sl)) != EDDY_OK) return st;
        in->scalar = r->field.p;
        memcpy(in->scalar_n, sl.n, sizeof in->scalar_n);
        break;
    }
    case EDDY_VIEW_PRESSURE:
    case EDDY_VIEW_TEMPERATURE:
        if ((st = view_of(r, sim, scalar_view == EDDY_VIEW_PRESSURE ? EDDY_FIELD_PRESSURE : EDDY_FIELD_TEMPERATURE,
                          &in->scalar, &sl)) != EDDY_OK)
            return st;
        memcpy(in->scalar_n, sl.n, sizeof in->scalar_n);
        break;
    case EDDY_VIEW_U:
    case EDDY_VIEW_V:
    case EDDY_VIEW_W: {
        int a = scalar_view - EDDY_VIEW_U;
        if (a == 2 && in->dim == 2)
            return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render.view = w: a 2D simulation has no z velocity");
        if ((st = face_to_centre(r, sim, a, cl.n)) != EDDY_OK) return st;
        in->scalar = r->field.p;
        memcpy(in->scalar_n, cl.n, sizeof in->scalar_n);
        break;
    }
    case EDDY_VIEW_LIQUID:
        if ((st = liquid_sdf(r, sim, liquid_level, in)) != EDDY_OK) return st;
        break;
    default: break;
    }
    if (want_solid) {
        eddy_field_layout ol;
        if ((st = read_copy(r, sim, EDDY_FIELD_SOLID, &r->field2[0], &ol)) != EDDY_OK) return st;
        if (ol.count > r->solid_cap) {
            uint8_t *p = realloc(r->solid, ol.count);
            if (!p) return eddy__rfail(r, EDDY_ERR_OUT_OF_MEMORY, "render: solid mask of %zu cells: out of memory", ol.count);
            r->solid = p;
            r->solid_cap = ol.count;
        }
        bool any = false;
        for (size_t e = 0; e < ol.count; e++) {
            r->solid[e] = r->field2[0].p[e] != 0.0f;
            any |= r->solid[e];
        }
        if (any) { /* no solid cells: leave the mask out, which skips the obstacle passes */
            in->solid = r->solid;
            memcpy(in->solid_n, ol.n, sizeof in->solid_n);
        }
    }
    return EDDY_OK;
}

eddy_status eddy_render_size(const eddy_render_def *def, const eddy_sim_def *sim_def, int *width, int *height,
                             char *msg, size_t msg_size) {
    if (!width || !height) {
        if (msg && msg_size) snprintf(msg, msg_size, "render size: width and height outputs are required");
        return EDDY_ERR_INVALID_ARGUMENT;
    }
    *width = *height = 0;
    eddy_status st = eddy_render_def_validate(def, msg, msg_size);
    if (st == EDDY_OK) st = eddy_sim_def_validate(sim_def, msg, msg_size);
    if (st != EDDY_OK) return st;
    /* the box and dye grid as eddy_sim_create makes them (gather reads them back): cells of h = size[0] / grid[0],
     * dye cells grid x dye_scale, one cell and no refinement on the axis a 2D simulation lacks */
    const int dim = sim_def->dim;
    const float h = sim_def->size[0] / (float)sim_def->grid[0];
    int n[3];
    float box[3];
    for (int a = 0; a < 3; a++) {
        const int cells = a < dim ? sim_def->grid[a] : 1;
        n[a] = cells * (a < dim ? sim_def->dye_scale[a] : 1);
        box[a] = (float)cells * h;
    }
    /* the slice first, as every render checks it: an index counts dye cells whatever the view; 2D ignores it */
    float frac;
    const int s = def->slice_axis;
    if (dim == 3 && (st = eddy__slice_fraction(def, n[s], sim_def->origin[s], box[s], &frac, msg, msg_size)) != EDDY_OK)
        return st;
    int ph, pv;
    eddy__plane_axes(dim, def->slice_axis, &ph, &pv);
    return eddy__picture_size(def, n, box, ph, pv, width, height, msg, msg_size);
}

static eddy_status render_gathered(eddy_renderer *r, eddy_sim *sim, const eddy_render_input *gathered,
                                   const eddy_render_def *def, eddy_image *img);

eddy_status eddy_render_sim(eddy_renderer *r, eddy_sim *sim, const eddy_render_def *def, eddy_image *img) {
    if (!r) return EDDY_ERR_INVALID_ARGUMENT;
    r->error[0] = '\0';
    eddy_status st = eddy_render_def_validate(def, r->error, sizeof r->error);
    if (st != EDDY_OK) return st;
    if (!sim) return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "render: simulation is NULL");
    /* the size by the published rule, from the simulation's definition; every view then draws at that size */
    eddy_render_def sized = *def;
    if ((st = eddy_render_size(def, eddy_sim_get_def(sim), &sized.width, &sized.height, r->error, sizeof r->error)) !=
        EDDY_OK)
        return st;
    eddy_render_input in;
    bool dye = def->view == EDDY_VIEW_DYE;
    const double t0 = eddy__ms();
    if ((st = gather(r, sim, dye, dye ? -1 : (int)def->view, def->liquid_level, def->draw_obstacles != 0, &in)) != EDDY_OK)
        return st;
    const double gather_ms = eddy__ms() - t0;
    st = render_gathered(r, sim, &in, &sized, img);
    r->timing.gather_ms = gather_ms;
    return st;
}

/* the 2D picture of fields already gathered, at the size `def` gives (both sides set) */
static eddy_status render_gathered(eddy_renderer *r, eddy_sim *sim, const eddy_render_input *gathered,
                                   const eddy_render_def *def, eddy_image *img) {
    eddy_render_input in = *gathered;
    eddy_status st;
    bool dye = def->view == EDDY_VIEW_DYE;
    if (!dye && in.dim == 3 && def->slice_index >= 0) {
        /* slice indices count scalar (dye) cells for every view, while speed, pressure, ... live on the velocity
         * cells: translate the index (checked by eddy_render_size) into the position the input path expects */
        eddy_field_layout dl;
        if ((st = eddy_sim_field_layout(sim, EDDY_FIELD_DYE_R, &dl)) != EDDY_OK) return sim_fail(r, sim, st, "dye layout");
        eddy_render_def d2 = *def;
        int s = def->slice_axis;
        d2.slice_index = -1;
        d2.slice_position = in.box_min[s] + ((float)def->slice_index + 0.5f) / (float)dl.n[s] * in.box_size[s];
        return eddy_render_input_2d(r, &in, &d2, img);
    }
    return eddy_render_input_2d(r, &in, def, img);
}

eddy_status eddy_render_volume_sim(eddy_renderer *r, eddy_sim *sim, const eddy_volume_def *def, eddy_image *img) {
    if (!r) return EDDY_ERR_INVALID_ARGUMENT;
    r->error[0] = '\0';
    eddy_status st = eddy_volume_def_validate(def, r->error, sizeof r->error);
    if (st != EDDY_OK) return st;
    if (sim && eddy_sim_get_def(sim)->dim != 3)
        return eddy__rfail(r, EDDY_ERR_INVALID_ARGUMENT, "volume rendering needs a 3D simulation (dim = %d)",
                           eddy_sim_get_def(sim)->dim);
    eddy_render_input in;
    if ((st = gather(r, sim, true, -1, 0.0f, def->draw_obstacles != 0, &in)) != EDDY_OK) return st;
    return eddy_render_volume_input(r, &in, def, img);
}
