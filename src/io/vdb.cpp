// OpenVDB .vdb files through the OpenVDB library (Museth 2013, "VDB: High-resolution sparse volumes with dynamic
// topology"), behind the C interface of include/eddy/io.h. Dense eddy arrays become sparse grids: voxels whose
// value is within `tolerance` of 0 stay inactive (background 0). The grid transform is linear: index (i,j,k) maps to
// world origin + (i,j,k) * spacing, so voxel centres land on eddy's cell centres.
// Written only when OpenVDB is found at configure time (vdb_none.c otherwise).
#include "io_internal.h"
#include "temp_file.h"

#include <openvdb/openvdb.h>

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <string>

extern "C" int eddy_vdb_available(void) { return 1; }

// the largest dense array eddy_vdb_read makes: 2^31 voxels (8 GiB per float component)
#define EDDY_VDB_READ_MAX_VOXELS 2147483648.0

namespace {

openvdb::math::Transform::Ptr make_transform(const eddy_field_layout &lay) {
    openvdb::math::Mat4d m = openvdb::math::Mat4d::identity();
    m.setToScale(openvdb::Vec3d(lay.spacing[0], lay.spacing[1], lay.spacing[2]));
    m.setTranslation(openvdb::Vec3d(lay.origin[0], lay.origin[1], lay.origin[2]));
    return openvdb::math::Transform::createLinearTransform(m);
}

openvdb::GridBase::Ptr make_grid(const eddy_vdb_grid &g) {
    const int nx = g.layout.n[0], ny = g.layout.n[1], nz = g.layout.n[2];
    const float tol = g.tolerance;
    if (g.components == 1) {
        openvdb::FloatGrid::Ptr grid = openvdb::FloatGrid::create(0.0f);
        openvdb::FloatGrid::Accessor acc = grid->getAccessor();
        const float *d = g.data[0];
        for (int k = 0; k < nz; k++)
            for (int j = 0; j < ny; j++)
                for (int i = 0; i < nx; i++) {
                    float v = d[(size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * (size_t)k)];
                    if (std::fabs(v) > tol) acc.setValue(openvdb::Coord(i, j, k), v);
                }
        grid->setGridClass(openvdb::GRID_FOG_VOLUME);
        grid->setTransform(make_transform(g.layout));
        grid->setName(g.name);
        return grid;
    }
    openvdb::Vec3SGrid::Ptr grid = openvdb::Vec3SGrid::create(openvdb::Vec3s(0.0f));
    openvdb::Vec3SGrid::Accessor acc = grid->getAccessor();
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                size_t e = (size_t)i + (size_t)nx * ((size_t)j + (size_t)ny * (size_t)k);
                openvdb::Vec3s v(g.data[0][e], g.data[1][e], g.data[2][e]);
                if (std::fabs(v[0]) > tol || std::fabs(v[1]) > tol || std::fabs(v[2]) > tol)
                    acc.setValue(openvdb::Coord(i, j, k), v);
            }
    grid->setTransform(make_transform(g.layout));
    grid->setName(g.name);
    return grid;
}

// OpenVDB's io::File::write writes through an std::ofstream whose state it never checks, so a full disk (or a file
// size limit) left a truncated file that was then renamed into place as a success. The same archive (seekable, with
// grid offsets, as File::write makes it) is written here into a stream of ours, whose state is checked after close.
class checked_archive : public openvdb::io::Archive {
public:
    void write_to(std::ostream &os, const openvdb::GridPtrVec &grids) const { Archive::write(os, grids, true); }
};

}  // namespace

extern "C" eddy_status eddy_vdb_write(const char *path, const eddy_vdb_grid *grids, int count, char *msg,
                                      size_t msg_size) {
    if (!path || !path[0]) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "vdb path is empty");
    if (!grids || count < 1)
        return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: %d grids: expected at least one", path,
                             count);
    for (int i = 0; i < count; i++) {
        const eddy_vdb_grid &g = grids[i];
        if (!g.name || !g.name[0])
            return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: grid %d has no name", path, i);
        if (g.components != 1 && g.components != 3)
            return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: grid %s: components = %d: expected 1 or 3",
                                 path, g.name, g.components);
        for (int a = 0; a < 3; a++) {
            if (g.layout.n[a] < 1)
                return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: grid %s: n[%d] = %d: expected >= 1",
                                     path, g.name, a, g.layout.n[a]);
            if (!(g.layout.spacing[a] > 0.0f) || !std::isfinite(g.layout.spacing[a]))
                return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                                     "%s: grid %s: spacing[%d] = %g: expected > 0", path, g.name, a,
                                     (double)g.layout.spacing[a]);
        }
        for (int b = 0; b < i; b++)
            if (!std::strcmp(grids[b].name, g.name))
                return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                                     "%s: grids %d and %d are both named \"%s\": names must differ (OpenVDB would "
                                     "rename them \"%s[0]\" and \"%s[1]\")",
                                     path, b, i, g.name, g.name, g.name);
        for (int a = 0; a < 3; a++)
            if (!std::isfinite(g.layout.origin[a]))
                return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                                     "%s: grid %s: origin[%d] = %g: expected a finite position (m)", path, g.name, a,
                                     (double)g.layout.origin[a]);
        if (!(g.tolerance >= 0.0f) || !std::isfinite(g.tolerance))
            return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: grid %s: tolerance = %g: expected finite >= 0",
                                 path, g.name, (double)g.tolerance);
        // the voxel count must be addressable: n[0] n[1] n[2] floats per component
        const size_t nx = (size_t)g.layout.n[0], ny = (size_t)g.layout.n[1], nz = (size_t)g.layout.n[2];
        if (ny > SIZE_MAX / sizeof(float) / nx || nz > SIZE_MAX / sizeof(float) / (nx * ny))
            return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                                 "%s: grid %s: n = %d x %d x %d voxels: more than memory can address", path, g.name,
                                 g.layout.n[0], g.layout.n[1], g.layout.n[2]);
        const size_t voxels = nx * ny * nz;
        for (int c = 0; c < g.components; c++) {
            if (!g.data[c])
                return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "%s: grid %s: data[%d] is NULL", path,
                                     g.name, c);
            // a NaN or infinity would be written to disk as a voxel value (or, beside the tolerance, decide activity)
            for (size_t e = 0; e < voxels; e++)
                if (!std::isfinite(g.data[c][e]))
                    return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                                         "%s: grid %s: data[%d][%zu] (voxel %zu, %zu, %zu) = %g: expected a finite value",
                                         path, g.name, c, e, e % nx, e / nx % ny, e / (nx * ny), (double)g.data[c][e]);
        }
    }
    eddy_status st = EDDY_OK;
    char *tmp = eddy__temp_file_for(path, msg, msg_size, &st);
    if (!tmp) return st;
    int write_errno = 0;
    try {
        openvdb::initialize();  // idempotent and thread-safe: registers the grid types once per process
        openvdb::GridPtrVec vec;
        for (int i = 0; i < count; i++) vec.push_back(make_grid(grids[i]));
        std::ofstream os(tmp, std::ios_base::out | std::ios_base::binary | std::ios_base::trunc);
        errno = 0;
        if (os) checked_archive().write_to(os, vec);
        if (os) os.flush();
        if (os) os.close();
        if (!os) write_errno = errno ? errno : EIO; // the stream failed at some write (or close): errno says why
    } catch (const std::exception &e) {
        std::remove(tmp);
        std::free(tmp);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: OpenVDB write failed: %s", path, e.what());
    }
    if (write_errno) {
        std::remove(tmp);
        std::free(tmp);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: write failed: %s", path, std::strerror(write_errno));
    }
    if (std::rename(tmp, path) != 0) {
        int e = errno;
        std::remove(tmp);
        std::free(tmp);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: cannot rename the finished file into place: %s", path,
                             std::strerror(e));
    }
    std::free(tmp);
    return eddy__io_ok(msg, msg_size);
}

extern "C" void eddy_vdb_dense_free(eddy_vdb_dense *d) {
    if (!d) return;
    for (int c = 0; c < 3; c++) std::free(d->data[c]);
    std::memset(d, 0, sizeof *d);
}

extern "C" eddy_status eddy_vdb_read(const char *path, const char *name, eddy_vdb_dense *out, char *msg,
                                     size_t msg_size) {
    if (!out) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "vdb output is NULL");
    std::memset(out, 0, sizeof *out);
    if (!path || !name) return eddy__io_fail(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "vdb path or grid name is NULL");
    try {
        openvdb::initialize();
        openvdb::io::File file(path);
        file.open();
        if (!file.hasGrid(name)) {
            file.close();
            return eddy__io_fail(msg, msg_size, EDDY_ERR_NOT_FOUND, "%s: no grid named \"%s\"", path, name);
        }
        openvdb::GridBase::Ptr base = file.readGrid(name);
        file.close();
        openvdb::CoordBBox box = base->evalActiveVoxelBoundingBox();
        if (box.empty()) box = openvdb::CoordBBox(openvdb::Coord(0), openvdb::Coord(0));
        // the sides in 64 bits (they can exceed int) and their product checked before it can wrap size_t: active
        // voxels far apart make a bounding box too large to read densely
        long long side[3];
        for (int a = 0; a < 3; a++) side[a] = (long long)box.max()[a] - (long long)box.min()[a] + 1;
        if ((double)side[0] * (double)side[1] * (double)side[2] > (double)EDDY_VDB_READ_MAX_VOXELS ||
            side[0] > INT_MAX || side[1] > INT_MAX || side[2] > INT_MAX)
            return eddy__io_fail(msg, msg_size, EDDY_ERR_UNSUPPORTED,
                                 "%s: grid \"%s\": its active voxels span %lld x %lld x %lld = %.4g voxels: more than "
                                 "2^31 to read as a dense array",
                                 path, name, side[0], side[1], side[2],
                                 (double)side[0] * (double)side[1] * (double)side[2]);
        openvdb::Coord dim = box.dim();
        out->layout.count = (size_t)dim[0] * (size_t)dim[1] * (size_t)dim[2];
        for (int a = 0; a < 3; a++) {
            out->index_min[a] = box.min()[a];
            out->layout.n[a] = dim[a];
            out->layout.spacing[a] = (float)base->transform().voxelSize()[a];
        }
        openvdb::Vec3d o = base->transform().indexToWorld(box.min());
        for (int a = 0; a < 3; a++) out->layout.origin[a] = (float)o[a];
        openvdb::FloatGrid::Ptr fg = openvdb::gridPtrCast<openvdb::FloatGrid>(base);
        openvdb::Vec3SGrid::Ptr vg = openvdb::gridPtrCast<openvdb::Vec3SGrid>(base);
        if (!fg && !vg) {
            std::memset(out, 0, sizeof *out);
            return eddy__io_fail(msg, msg_size, EDDY_ERR_UNSUPPORTED, "%s: grid \"%s\" is of type %s: expected float or vec3s",
                                 path, name, base->type().c_str());
        }
        out->components = fg ? 1 : 3;
        for (int c = 0; c < out->components; c++) {
            out->data[c] = (float *)std::malloc(out->layout.count * sizeof(float));
            if (!out->data[c]) {
                eddy_vdb_dense_free(out);
                return eddy__io_fail(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
            }
        }
        size_t e = 0;
        for (int k = box.min()[2]; k <= box.max()[2]; k++)
            for (int j = box.min()[1]; j <= box.max()[1]; j++)
                for (int i = box.min()[0]; i <= box.max()[0]; i++, e++) {
                    openvdb::Coord c(i, j, k);
                    if (fg) {
                        out->data[0][e] = fg->tree().getValue(c);
                    } else {
                        openvdb::Vec3s v = vg->tree().getValue(c);
                        out->data[0][e] = v[0], out->data[1][e] = v[1], out->data[2][e] = v[2];
                    }
                }
        // the loop above runs x fastest, matching eddy's layout (element (i,j,k) at i + nx*(j + ny*k))
    } catch (const std::exception &ex) {
        eddy_vdb_dense_free(out);
        return eddy__io_fail(msg, msg_size, EDDY_ERR_IO, "%s: OpenVDB read failed: %s", path, ex.what());
    }
    return eddy__io_ok(msg, msg_size);
}
