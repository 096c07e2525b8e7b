/* OpenVDB files: grids written by eddy read back through the OpenVDB library with the same values at the same
 * world positions (float and Vec3 grids, anisotropic voxels, an offset origin); zero voxels stay inactive (sparse);
 * a missing grid is NOT_FOUND; a grid whose active voxels are too far apart to read densely is refused. A simulation's grids carry the documented names. Skipped, with the reason printed,
 * when this build has no OpenVDB. */
#include "check.h"
#include "test_util.h"
#include <math.h>

int main(void) {
    if (!eddy_vdb_available()) {
        printf("test_io_vdb: skipped: this build has no OpenVDB (install libopenvdb-dev libboost-dev)\n");
        return 0;
    }
    char dir[256], path[512], msg[512];
    test_dir("vdb", dir, sizeof dir);
    enum { NX = 9, NY = 7, NZ = 5, N = NX * NY * NZ };
    static float d[N], vx[N], vy[N], vz[N];
    int nonzero = 0;
    for (int k = 0; k < NZ; k++)
        for (int j = 0; j < NY; j++)
            for (int i = 0; i < NX; i++) {
                int e = i + NX * (j + NY * k);
                /* a blob in one corner, zero elsewhere: the written grid is sparse */
                d[e] = (i < 4 && j < 3) ? 0.5f + (float)(i + 2 * j + 3 * k) * 0.125f : 0.0f;
                nonzero += d[e] != 0.0f;
                vx[e] = (float)i, vy[e] = (float)-j, vz[e] = (float)k * 0.5f;
            }
    eddy_vdb_grid g[2] = {
        {.name = "density", .layout = {{NX, NY, NZ}, {0.1f, 0.2f, 0.3f}, {1.0f, -2.0f, 0.5f}, N}, .components = 1,
         .data = {d}},
        {.name = "vel", .layout = {{NX, NY, NZ}, {0.1f, 0.2f, 0.3f}, {1.0f, -2.0f, 0.5f}, N}, .components = 3,
         .data = {vx, vy, vz}},
    };
    snprintf(path, sizeof path, "%s/a.vdb", dir);
    CHECK(eddy_vdb_write(path, g, 2, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary file left");

    eddy_vdb_dense r;
    CHECK(eddy_vdb_read(path, "density", &r, msg, sizeof msg) == EDDY_OK, "%s", msg);
    /* the active bounding box is the blob only: i 0..3, j 0..2, k 0..4 */
    CHECK(r.components == 1 && r.layout.n[0] == 4 && r.layout.n[1] == 3 && r.layout.n[2] == NZ,
          "active box %d x %d x %d", r.layout.n[0], r.layout.n[1], r.layout.n[2]);
    CHECK(r.index_min[0] == 0 && r.index_min[1] == 0 && r.index_min[2] == 0, "index origin");
    /* transforms are stored as doubles: float round trip within 1e-6 relative */
    CHECK(fabsf(r.layout.spacing[0] - 0.1f) < 1e-6f && fabsf(r.layout.spacing[1] - 0.2f) < 1e-6f &&
              fabsf(r.layout.spacing[2] - 0.3f) < 1e-6f, "voxel size");
    CHECK(fabsf(r.layout.origin[0] - 1.0f) < 1e-6f && fabsf(r.layout.origin[1] + 2.0f) < 1e-6f &&
              fabsf(r.layout.origin[2] - 0.5f) < 1e-6f, "world origin of voxel (0,0,0)");
    int same = 0;
    for (int k = 0; k < r.layout.n[2] && r.data[0]; k++)
        for (int j = 0; j < r.layout.n[1]; j++)
            for (int i = 0; i < r.layout.n[0]; i++)
                same += r.data[0][i + r.layout.n[0] * (j + r.layout.n[1] * k)] == d[i + NX * (j + NY * k)];
    CHECK(same == 4 * 3 * NZ && same == nonzero, "%d of %d values identical", same, nonzero);
    eddy_vdb_dense_free(&r);

    CHECK(eddy_vdb_read(path, "vel", &r, msg, sizeof msg) == EDDY_OK && r.components == 3, "%s", msg);
    /* voxel (0,0,0) has velocity (0,0,0) and is inactive; the box starts at the first nonzero one */
    int vsame = 0, vcount = 0;
    for (int k = 0; k < r.layout.n[2] && r.data[2]; k++)
        for (int j = 0; j < r.layout.n[1]; j++)
            for (int i = 0; i < r.layout.n[0]; i++) {
                int si = i + r.index_min[0], sj = j + r.index_min[1], sk = k + r.index_min[2];
                int e = si + NX * (sj + NY * sk), q = i + r.layout.n[0] * (j + r.layout.n[1] * k);
                vcount++;
                vsame += r.data[0][q] == vx[e] && r.data[1][q] == vy[e] && r.data[2][q] == vz[e];
            }
    CHECK(vcount == N && vsame == N, "vel: %d of %d voxels identical (box %d x %d x %d)", vsame, vcount, r.layout.n[0],
          r.layout.n[1], r.layout.n[2]);
    eddy_vdb_dense_free(&r);

    CHECK(eddy_vdb_read(path, "nope", &r, msg, sizeof msg) == EDDY_ERR_NOT_FOUND && strstr(msg, "nope"), "%s", msg);
    /* vdb_far_voxels.vdb: a float grid "density" with two active voxels, (0,0,0) and (4194303,4194303,4194303)
     * (made with OpenVDB: FloatGrid, accessor.setValue at both, io::File::write). Its dense box has 2^66 voxels,
     * a count that wrapped size_t to 0 and overran a malloc(0); it is refused with the sides named. */
    CHECK(eddy_vdb_read(EDDY_SOURCE_DIR "/tests/render/vdb_far_voxels.vdb", "density", &r, msg, sizeof msg) ==
                  EDDY_ERR_UNSUPPORTED &&
              strstr(msg, "4194304 x 4194304 x 4194304") && strstr(msg, "dense"),
          "%s", msg);
    CHECK(r.data[0] == NULL && r.layout.count == 0, "a refused read leaves the dense array empty");
    CHECK(eddy_vdb_read("missing.vdb", "density", &r, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "missing.vdb"),
          "%s", msg);
    g[0].components = 2;
    CHECK(eddy_vdb_write(path, g, 1, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "components"),
          "%s", msg);
    g[0].components = 1;
    /* NaN would be written to disk as a voxel (and a NaN tolerance left every voxel out): refused, file kept */
    char nan_path[600];
    snprintf(nan_path, sizeof nan_path, "%s/nan.vdb", dir);
    g[0].tolerance = NAN;
    CHECK(eddy_vdb_write(nan_path, g, 1, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "tolerance = nan"),
          "a NaN tolerance: %s", msg);
    g[0].tolerance = 0.0f;
    const int bad = 2 + NX * (1 + NY * 3);
    const float d_bad = d[bad], vy_bad = vy[bad];
    vy[bad] = INFINITY;
    CHECK(eddy_vdb_write(nan_path, g, 2, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "grid vel: data[1]") && strstr(msg, "(voxel 2, 1, 3) = inf"),
          "an infinite velocity: %s", msg);
    vy[bad] = vy_bad;
    d[bad] = NAN;
    CHECK(eddy_vdb_write(nan_path, g, 1, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "= nan"),
          "a NaN density: %s", msg);
    d[bad] = d_bad;
    /* a NaN origin of cubic voxels was written as no translation at all (voxel (0,0,0) at the world origin, no error);
     * with other voxels OpenVDB failed with "Inversion of singular 4x4 matrix". Both are refused, naming the origin */
    eddy_vdb_grid cubic = g[0];
    cubic.layout.spacing[1] = cubic.layout.spacing[2] = cubic.layout.spacing[0];
    cubic.layout.origin[0] = NAN;
    CHECK(eddy_vdb_write(nan_path, &cubic, 1, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "grid density: origin[0] = nan"),
          "a NaN origin, cubic voxels: %s", msg);
    g[1].layout.origin[2] = NAN;
    CHECK(eddy_vdb_write(nan_path, g, 2, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "grid vel: origin[2] = nan"),
          "a NaN origin: %s", msg);
    g[1].layout.origin[2] = -INFINITY;
    CHECK(eddy_vdb_write(nan_path, g, 2, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "grid vel: origin[2] = -inf"),
          "an infinite origin: %s", msg);
    g[1].layout.origin[2] = g[0].layout.origin[2];
    /* two grids of one name were written as "density[0]" and "density[1]", so no grid "density" was in the file */
    g[1].name = "density";
    CHECK(eddy_vdb_write(nan_path, g, 2, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "grids 0 and 1 are both named \"density\""),
          "two grids named density: %s", msg);
    g[1].name = "vel";
    /* all zero (no dye yet): a valid grid with no active voxel and its transform; read as one voxel of 0 */
    static float zeros[N];
    eddy_vdb_grid empty = g[0];
    empty.data[0] = zeros;
    snprintf(path, sizeof path, "%s/empty.vdb", dir);
    CHECK(eddy_vdb_write(path, &empty, 1, msg, sizeof msg) == EDDY_OK, "all-zero grid: %s", msg);
    CHECK(eddy_vdb_read(path, "density", &r, msg, sizeof msg) == EDDY_OK && r.layout.count == 1 && r.data[0] &&
              r.data[0][0] == 0.0f && r.index_min[0] == 0 && fabsf(r.layout.spacing[2] - 0.3f) < 1e-6f,
          "all-zero grid read back as one voxel of 0 with its voxel size: %s", msg);
    eddy_vdb_dense_free(&r);
    FILE *nf = fopen(nan_path, "rb");
    CHECK(nf == NULL, "a refused write left %s", nan_path);
    if (nf) fclose(nf);
    CHECK(count_matching(dir, ".tmp-") == 0, "no temporary file left");

    /* a 3D simulation: the documented grid names, density = max(r,g,b) */
    eddy_sim_def def = eddy_sim_def_default();
    def.dim = 3;
    def.grid[0] = 8, def.grid[1] = 6, def.grid[2] = 4;
    eddy_sim *sim = NULL;
    CHECK(eddy_sim_create(&def, &sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (sim) {
        static float dr[8 * 6 * 4], dg[8 * 6 * 4];
        dr[3 + 8 * (2 + 6 * 1)] = 0.25f;
        dg[3 + 8 * (2 + 6 * 1)] = 0.75f;
        CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_R, dr, 192) == EDDY_OK, "write dye");
        CHECK(eddy_sim_write_field(sim, EDDY_FIELD_DYE_G, dg, 192) == EDDY_OK, "write dye");
        snprintf(path, sizeof path, "%s/sim.vdb", dir);
        CHECK(eddy_vdb_write_sim(path, sim, msg, sizeof msg) == EDDY_OK, "%s", msg);
        const char *names[] = {"density", "color", "temperature", "vel", "pressure"};
        for (int i = 0; i < 5; i++) {
            eddy_status st = eddy_vdb_read(path, names[i], &r, msg, sizeof msg);
            CHECK(st == EDDY_OK, "grid %s: %s", names[i], msg);
            if (i == 0 && st == EDDY_OK) {
                CHECK(r.layout.count == 1 && r.data[0][0] == 0.75f, "density is max(r,g,b) at the one dyed voxel");
                float h = eddy_sim_cell_size(sim);
                CHECK(fabsf(r.layout.origin[0] - 3.5f * h) < 1e-6f && fabsf(r.layout.origin[1] - 2.5f * h) < 1e-6f &&
                          fabsf(r.layout.origin[2] - 1.5f * h) < 1e-6f,
                      "voxel centre at the cell centre: (%g %g %g)", r.layout.origin[0], r.layout.origin[1],
                      r.layout.origin[2]);
            }
            eddy_vdb_dense_free(&r);
        }
        eddy_sim_destroy(sim);
    }
    return check_finish("test_io_vdb");
}
