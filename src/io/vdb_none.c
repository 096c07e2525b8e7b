/* Stand-ins for the OpenVDB writer when the library was configured without OpenVDB (see src/io/CMakeLists.txt). */
#include "io_internal.h"
#include <string.h>

int eddy_vdb_available(void) { return 0; }

static eddy_status no_vdb(const char *path, char *msg, size_t msg_size) {
    return eddy__io_fail(msg, msg_size, EDDY_ERR_UNSUPPORTED,
                         "%s: this eddy was built without OpenVDB; install libopenvdb-dev and libboost-dev and "
                         "reconfigure",
                         path ? path : "(vdb)");
}

eddy_status eddy_vdb_write(const char *path, const eddy_vdb_grid *grids, int count, char *msg, size_t msg_size) {
    (void)grids;
    (void)count;
    return no_vdb(path, msg, msg_size);
}

eddy_status eddy_vdb_read(const char *path, const char *name, eddy_vdb_dense *out, char *msg, size_t msg_size) {
    (void)name;
    if (out) memset(out, 0, sizeof *out);
    return no_vdb(path, msg, msg_size);
}

void eddy_vdb_dense_free(eddy_vdb_dense *d) {
    if (d) memset(d, 0, sizeof *d);
}
