/* One simulation field as a .npy file, shape (nz, ny, nx) in 3D and (ny, nx) in 2D (x fastest), read through the
 * public API (kept apart from npy.c so programs that only read and write arrays do not need the simulation). */
#include "io_internal.h"
#include <stdlib.h>

eddy_status eddy_npy_write_field(const char *path, eddy_sim *sim, eddy_field field, char *msg, size_t msg_size) {
    if (!path) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "npy path is NULL");
    if (!sim) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: simulation is NULL", path);
    eddy_field_layout lay;
    eddy_status st = eddy_sim_field_layout(sim, field, &lay);
    if (st != EDDY_OK)
        return eddy__io_fail(msg, msg_size, st, "%s: field %d: %s", path, (int)field, eddy_sim_last_error(sim));
    float *buf = malloc(lay.count * sizeof(float));
    if (!buf) return eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    st = eddy_sim_read_field(sim, field, buf, lay.count);
    if (st != EDDY_OK) {
        free(buf);
        return eddy__io_fail(msg, msg_size, st, "%s: reading field %s: %s", path, eddy_field_name(field),
                             eddy_sim_last_error(sim));
    }
    size_t shape[3];
    int ndim;
    if (eddy_sim_get_def(sim)->dim == 3) {
        ndim = 3;
        shape[0] = (size_t)lay.n[2], shape[1] = (size_t)lay.n[1], shape[2] = (size_t)lay.n[0];
    } else {
        ndim = 2;
        shape[0] = (size_t)lay.n[1], shape[1] = (size_t)lay.n[0];
    }
    st = eddy_npy_write(path, buf, ndim, shape, msg, msg_size);
    free(buf);
    return st;
}
