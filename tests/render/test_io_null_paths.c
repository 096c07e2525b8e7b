/* Every reader and writer given a NULL path: EDDY_ERR_INVALID_ARGUMENT, whatever else is wrong with the call, and
 * a message that does not pass the NULL to printf's %s (undefined behaviour in C; glibc wrote "(null): data is
 * NULL"): some messages named the path before checking it. */
#include "check.h"
#include "test_util.h"
#include "eddy/surface.h"

static void check_null_path(const char *what, eddy_status st, const char *msg) {
    CHECK(st == EDDY_ERR_INVALID_ARGUMENT, "%s: status %d (%s): expected EDDY_ERR_INVALID_ARGUMENT", what, (int)st, msg);
    CHECK(msg[0] && !strstr(msg, "(null)"), "%s: message: %s", what, msg);
}

#define NULL_PATH(call)                                                                                              \
    do {                                                                                                             \
        msg[0] = '\0';                                                                                               \
        check_null_path(#call, call, msg);                                                                           \
    } while (0)

int main(void) {
    char msg[512];
    float data[4] = {0};
    size_t shape[1] = {4};
    eddy_sim_def def = eddy_sim_def_default();
    def.grid[0] = def.grid[1] = 8;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&def, &sim, msg, sizeof msg) == EDDY_OK, "create: %s", msg);
    eddy_image img = {0};
    eddy_npy npy;
    eddy_vdb_dense dense;
    eddy_mesh mesh = {0};
    eddy_mesh_lines lines = {0};
    eddy_video *video = NULL;
    eddy_video_def vdef = {0};
    /* NULL data, simulation or field as well: the path is what is reported */
    NULL_PATH(eddy_file_write(NULL, NULL, 4, msg, sizeof msg));
    NULL_PATH(eddy_file_write(NULL, data, sizeof data, msg, sizeof msg));
    NULL_PATH(eddy_png_write(NULL, NULL, 0, msg, sizeof msg));
    NULL_PATH(eddy_png_read(NULL, &img, msg, sizeof msg));
    NULL_PATH(eddy_npy_write(NULL, NULL, 1, shape, msg, sizeof msg));
    NULL_PATH(eddy_npy_write(NULL, data, 1, shape, msg, sizeof msg));
    NULL_PATH(eddy_npy_read(NULL, &npy, msg, sizeof msg));
    NULL_PATH(eddy_npy_write_field(NULL, NULL, EDDY_FIELD_U, msg, sizeof msg));
    NULL_PATH(eddy_npy_write_field(NULL, sim, (eddy_field)99, msg, sizeof msg));
    NULL_PATH(eddy_npy_write_field(NULL, sim, EDDY_FIELD_U, msg, sizeof msg));
    NULL_PATH(eddy_vdb_write(NULL, NULL, 1, msg, sizeof msg));
    NULL_PATH(eddy_vdb_write_sim(NULL, NULL, msg, sizeof msg));
    NULL_PATH(eddy_vdb_write_sim(NULL, sim, msg, sizeof msg));
    NULL_PATH(eddy_vdb_read(NULL, "density", &dense, msg, sizeof msg));
    NULL_PATH(eddy_video_open(NULL, &vdef, &video, msg, sizeof msg));
    NULL_PATH(eddy_mesh_write_obj(&mesh, NULL, msg, sizeof msg));
    NULL_PATH(eddy_mesh_write_ply(&mesh, NULL, msg, sizeof msg));
    NULL_PATH(eddy_mesh_lines_write_svg(&lines, NULL, 64, msg, sizeof msg));
    CHECK(video == NULL, "a video was opened on a NULL path");
    eddy_sim_destroy(sim);
    return check_finish("test_io_null_paths");
}
