/* A .vdb volume written by `eddy run` (output.vdb) reads back through OpenVDB with the same values as the .npy dump
 * of the same frame: the temperature grid voxel by voxel, exactly (both hold the simulation's float32 values; VDB
 * leaves out exact zeros, which read back as the background 0). Skipped when eddy is built without OpenVDB. */
#include "cli_util.h"

#include "eddy/io.h"

int main(void) {
    if (!eddy_vdb_available()) {
        printf("cli_vdb: built without OpenVDB, skipped\n");
        return 0;
    }
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    int rc = cli_run(dir, "run --scene smoke3d --set grid=[10,12,10] --set render.volume.width=24 --set render.volume.height=24 "
                          "--set output.vdb=true --frames 3 --dump 3 --no-video --quiet --out v");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    char vdb[8400], npy[8400], msg[512];
    snprintf(vdb, sizeof vdb, "%s/v/volume_00003.vdb", dir);
    snprintf(npy, sizeof npy, "%s/v/dump_00003/temperature.npy", dir);
    eddy_vdb_dense d;
    memset(&d, 0, sizeof d);
    eddy_npy a;
    memset(&a, 0, sizeof a);
    bool have_vdb = eddy_vdb_read(vdb, "temperature", &d, msg, sizeof msg) == EDDY_OK;
    CHECK(have_vdb, "%s: %s", vdb, msg);
    bool have_npy = eddy_npy_read(npy, &a, msg, sizeof msg) == EDDY_OK;
    CHECK(have_npy, "%s: %s", npy, msg);
    if (have_vdb && have_npy) {
        CHECK(a.ndim == 3 && a.shape[0] == 10 && a.shape[1] == 12 && a.shape[2] == 10, "temperature.npy has the wrong shape");
        CHECK(d.components == 1, "temperature should be a float grid");
        size_t nonzero = 0, mismatched = 0, outside = 0;
        for (size_t k = 0; k < a.shape[0]; k++)
            for (size_t j = 0; j < a.shape[1]; j++)
                for (size_t i = 0; i < a.shape[2]; i++) {
                    float want = a.data[i + a.shape[2] * (j + a.shape[1] * k)];
                    long x = (long)i - d.index_min[0], y = (long)j - d.index_min[1], z = (long)k - d.index_min[2];
                    bool in = x >= 0 && y >= 0 && z >= 0 && x < d.layout.n[0] && y < d.layout.n[1] && z < d.layout.n[2];
                    float got = in ? d.data[0][x + (size_t)d.layout.n[0] * ((size_t)y + (size_t)d.layout.n[1] * z)] : 0.0f;
                    if (want != 0) nonzero++;
                    if (!in && want != 0) outside++;
                    if (got != want) mismatched++;
                }
        CHECK(nonzero > 0, "the plume has no heat at frame 3");
        CHECK(outside == 0, "%zu heated voxels lie outside the VDB grid's active box", outside);
        CHECK(mismatched == 0, "%zu voxels differ between the .vdb and the .npy", mismatched);
    }
    eddy_vdb_dense_free(&d);
    eddy_npy_free(&a);
    cli_cleanup(dir);
    return check_finish("cli_vdb");
}
