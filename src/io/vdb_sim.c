/* A simulation's volumes as OpenVDB grids (names as Houdini and Blender expect them):
 *   density      max(dye r, g, b) on the scalar grid (what a renderer shows as smoke)
 *   color        Vec3 dye (r, g, b) on the scalar grid
 *   temperature  K above ambient, scalar grid
 *   vel          Vec3 velocity averaged from the faces to cell centres, m/s
 *   pressure     Pa at cell centres
 * Fields are read through the public API, so this works on every backend. */
#include "io_internal.h"
#include <stdlib.h>
#include <string.h>

typedef struct field_buf {
    eddy_field_layout layout;
    float *data;
} field_buf;

static eddy_status read_one(eddy_sim *sim, eddy_field f, field_buf *b, const char *path, char *msg, size_t msg_size) {
    eddy_status st = eddy_sim_field_layout(sim, f, &b->layout);
    if (st != EDDY_OK)
        return eddy__io_fail(msg, msg_size, st, "%s: field %s: %s", path, eddy_field_name(f), eddy_sim_last_error(sim));
    b->data = malloc(b->layout.count * sizeof(float));
    if (!b->data) return eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    st = eddy_sim_read_field(sim, f, b->data, b->layout.count);
    if (st != EDDY_OK)
        return eddy__io_fail(msg, msg_size, st, "%s: reading %s: %s", path, eddy_field_name(f), eddy_sim_last_error(sim));
    return EDDY_OK;
}

eddy_status eddy_vdb_write_sim(const char *path, eddy_sim *sim, char *msg, size_t msg_size) {
    if (!path) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "vdb path is NULL");
    if (!sim) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: simulation is NULL", path);
    if (!eddy_vdb_available()) return eddy_vdb_write(path, NULL, 0, msg, msg_size);
    const int dim = eddy_sim_get_def(sim)->dim;
    enum { R, G, B, T, P, U, V, W, NF };
    const eddy_field fields[NF] = {EDDY_FIELD_DYE_R, EDDY_FIELD_DYE_G, EDDY_FIELD_DYE_B, EDDY_FIELD_TEMPERATURE,
                                   EDDY_FIELD_PRESSURE, EDDY_FIELD_U, EDDY_FIELD_V, EDDY_FIELD_W};
    field_buf b[NF];
    memset(b, 0, sizeof b);
    float *density = NULL, *vel[3] = {NULL, NULL, NULL};
    eddy_status st = EDDY_OK;
    for (int f = 0; f < NF && st == EDDY_OK; f++)
        if (f != W || dim == 3) st = read_one(sim, fields[f], &b[f], path, msg, msg_size);
    if (st != EDDY_OK) goto done;

    const eddy_field_layout *sl = &b[R].layout, *cl = &b[P].layout;
    density = malloc(sl->count * sizeof(float));
    for (int a = 0; a < 3; a++) vel[a] = malloc(cl->count * sizeof(float));
    if (!density || !vel[0] || !vel[1] || !vel[2]) {
        st = eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        goto done;
    }
    for (size_t e = 0; e < sl->count; e++) {
        float m = b[R].data[e] > b[G].data[e] ? b[R].data[e] : b[G].data[e];
        density[e] = m > b[B].data[e] ? m : b[B].data[e];
    }
    /* face to centre: the mean of the two faces of each cell along each axis */
    const int nx = cl->n[0], ny = cl->n[1], nz = cl->n[2];
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                size_t c = (size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * (size_t)k);
                size_t fu = (size_t)i + (size_t)(nx + 1) * ((size_t)j + (size_t)ny * (size_t)k);
                size_t fv = (size_t)i + (size_t)nx * ((size_t)j + (size_t)(ny + 1) * (size_t)k);
                vel[0][c] = 0.5f * (b[U].data[fu] + b[U].data[fu + 1]);
                vel[1][c] = 0.5f * (b[V].data[fv] + b[V].data[fv + (size_t)nx]);
                vel[2][c] = dim == 3 ? 0.5f * (b[W].data[c] + b[W].data[c + (size_t)nx * (size_t)ny]) : 0.0f;
            }
    eddy_vdb_grid g[5];
    memset(g, 0, sizeof g);
    g[0] = (eddy_vdb_grid){.name = "density", .layout = *sl, .components = 1, .data = {density}};
    g[1] = (eddy_vdb_grid){.name = "color", .layout = *sl, .components = 3, .data = {b[R].data, b[G].data, b[B].data}};
    g[2] = (eddy_vdb_grid){.name = "temperature", .layout = b[T].layout, .components = 1, .data = {b[T].data}};
    g[3] = (eddy_vdb_grid){.name = "vel", .layout = *cl, .components = 3, .data = {vel[0], vel[1], vel[2]}};
    g[4] = (eddy_vdb_grid){.name = "pressure", .layout = *cl, .components = 1, .data = {b[P].data}};
    for (int i = 0; i < 5; i++)
        if (dim == 2) g[i].layout.spacing[2] = g[i].layout.spacing[0]; /* a one-voxel-thick slab of cubic voxels */
    st = eddy_vdb_write(path, g, 5, msg, msg_size);
done:
    for (int f = 0; f < NF; f++) free(b[f].data);
    free(density);
    for (int a = 0; a < 3; a++) free(vel[a]);
    return st;
}
