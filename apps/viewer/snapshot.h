/* A copy of what a 2D picture of a simulation reads (dye, the view's scalar field, the solid cells), taken between
 * steps, so the picture can be drawn from it while the simulation takes its next step on another thread
 * (stepper.h). Buffers grow once and are kept: a steady frame allocates nothing. */
#ifndef VIEWER_SNAPSHOT_H
#define VIEWER_SNAPSHOT_H

#include "eddy/render.h"

typedef struct snapshot {
    float *dye[3];
    float *scalar;
    float *solid_f;          /* the solid field as the simulation gives it (0 or 1 per velocity cell) */
    uint8_t *solid;          /* the same as bytes, as the renderer reads it */
    size_t dye_cap[3], scalar_cap, solid_f_cap, solid_cap; /* elements */
    eddy_render_input in;   /* points into the buffers above */
    int picture_n[2];       /* one pixel per dye cell: the size of every 2D view's picture */
    double sim_time;        /* s, when taken */
} snapshot;

/** Copies the fields `view` needs from `sim` (2D). Returns EDDY_OK, or a status with a message. */
eddy_status snapshot_take(snapshot *sn, eddy_sim *sim, eddy_view view, char *msg, size_t msg_size);
/** Draws the copy as eddy_render_sim would draw the simulation (def's size fields are left to the copy). */
eddy_status snapshot_render(const snapshot *sn, eddy_renderer *r, const eddy_render_def *def, eddy_image *img);
void snapshot_free(snapshot *sn);

#endif
