/* Inputs at the edges of what the surface API accepts (src/surface.c, src/marching.c).
 *
 * Measures of a mesh or polylines the caller filled in: eddy_mesh_area / _volume / eddy_mesh_lines_length read
 * positions through the caller's indices and offsets, so an index past vertex_count, NULL arrays with nonzero
 * counts or start offsets past point_count must give NaN, never a read out of bounds; eddy_mesh_edge_check refuses
 * them with a message naming the triangle. Vertex indices are 32-bit: edges of vertices at and past 2^31 are
 * told apart (the check reads only the indices, so a mesh of 2^31 + 8 vertices needs no vertex arrays here).
 * Grid size: the distances and vertex positions are floats, which count whole steps of h exactly only up to 2^24;
 * a longer axis (distances stalled at 2^24 h, grid points that round together) is refused.
 * Densities one float apart: eddy_sdf_from_densities still finds the interface between them. */
#include "check.h"
#include "eddy/surface.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* a unit right tetrahedron, closed and counter-clockwise seen from outside: volume 1/6, area 1.5 + sqrt(3)/2 */
static float tet_positions[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static float tet_normals[12] = {-1, -1, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
static uint32_t tet_triangles[12] = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};

static eddy_mesh tetrahedron(uint32_t *triangles) {
    eddy_mesh m;
    memset(&m, 0, sizeof m);
    memcpy(triangles, tet_triangles, sizeof tet_triangles);
    m.positions = tet_positions;
    m.normals = tet_normals;
    m.triangles = triangles;
    m.vertex_count = 4;
    m.triangle_count = 4;
    return m;
}

static void mesh_measures(void) {
    uint32_t tri[12];
    eddy_mesh m = tetrahedron(tri);
    size_t boundary = 99, nonmanifold = 99;
    char msg[256];
    /* the valid mesh first: the checks below must not refuse it */
    CHECK(fabs(eddy_mesh_volume(&m) - 1.0 / 6.0) < 1e-7, "tetrahedron volume %g", eddy_mesh_volume(&m));
    CHECK(fabs(eddy_mesh_area(&m) - (1.5 + sqrt(3.0) / 2)) < 1e-6, "tetrahedron area %g", eddy_mesh_area(&m));
    CHECK(eddy_mesh_edge_check(&m, &boundary, &nonmanifold, msg, sizeof msg) == EDDY_OK && boundary == 0 && nonmanifold == 0,
          "tetrahedron: %zu boundary, %zu non-manifold: %s", boundary, nonmanifold, msg);

    /* an index far past the 4 vertices: the measures must not read there */
    tri[7] = 100000000u;
    CHECK(isnan(eddy_mesh_area(&m)), "index past vertex_count: area %g, not NaN", eddy_mesh_area(&m));
    CHECK(isnan(eddy_mesh_volume(&m)), "index past vertex_count: volume %g, not NaN", eddy_mesh_volume(&m));
    CHECK(eddy_mesh_edge_check(&m, &boundary, &nonmanifold, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "triangle 2") && strstr(msg, "100000000"),
          "edge check of an index past vertex_count: '%s'", msg);

    /* NULL arrays with nonzero counts */
    m = tetrahedron(tri);
    m.triangles = NULL;
    CHECK(isnan(eddy_mesh_area(&m)) && isnan(eddy_mesh_volume(&m)), "NULL triangles: area %g volume %g", eddy_mesh_area(&m),
          eddy_mesh_volume(&m));
    CHECK(eddy_mesh_edge_check(&m, &boundary, &nonmanifold, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "NULL"),
          "edge check of NULL triangles: '%s'", msg);
    m = tetrahedron(tri);
    m.positions = NULL;
    CHECK(isnan(eddy_mesh_area(&m)) && isnan(eddy_mesh_volume(&m)), "NULL positions: area %g volume %g", eddy_mesh_area(&m),
          eddy_mesh_volume(&m));
    m.triangle_count = 0; /* nothing to measure: 0, as for a NULL mesh */
    CHECK(eddy_mesh_area(&m) == 0 && eddy_mesh_volume(&m) == 0 && eddy_mesh_area(NULL) == 0, "empty mesh: area %g",
          eddy_mesh_area(&m));
}

/* Two triangles that share no edge: six boundary edges. Vertex A = 2^31 + 5 is joined to 0 in one triangle and to
 * 2^31 in the other; both edges end at A, run in opposite directions, and differ only in bit 31 of their other end. */
static void edge_check_high_indices(void) {
    const uint32_t top = UINT32_C(1) << 31, a = top + 5;
    uint32_t tri[6] = {0, a, 1, a, top, 2};
    eddy_mesh m;
    memset(&m, 0, sizeof m);
    m.triangles = tri;
    m.triangle_count = 2;
    m.vertex_count = (size_t)top + 8;
    size_t boundary = 99, nonmanifold = 99;
    char msg[256] = "";
    CHECK(eddy_mesh_edge_check(&m, &boundary, &nonmanifold, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(boundary == 6 && nonmanifold == 0, "indices past 2^31: %zu boundary edges (expected 6), %zu non-manifold", boundary,
          nonmanifold);
}

static void lines_measures(void) {
    float pts[8] = {0, 0, 1, 0, 1, 1, 0, 1};
    uint32_t start[2] = {0, 4};
    uint8_t closed[1] = {1};
    eddy_mesh_lines l;
    memset(&l, 0, sizeof l);
    l.points = pts;
    l.point_count = 4;
    l.start = start;
    l.closed = closed;
    l.line_count = 1;
    CHECK(fabs(eddy_mesh_lines_length(&l) - 4.0) < 1e-12, "unit square: length %g", eddy_mesh_lines_length(&l));
    start[1] = 50000000u; /* past the 4 points */
    CHECK(isnan(eddy_mesh_lines_length(&l)), "start past point_count: length %g, not NaN", eddy_mesh_lines_length(&l));
    start[1] = 4;
    start[0] = 3; /* a first line that does not start at point 0 is not a polyline list the library makes */
    CHECK(isnan(eddy_mesh_lines_length(&l)), "start[0] = 3: length %g, not NaN", eddy_mesh_lines_length(&l));
    start[0] = 0;
    l.closed = NULL;
    CHECK(isnan(eddy_mesh_lines_length(&l)), "NULL closed: length %g, not NaN", eddy_mesh_lines_length(&l));
}

static void axis_limit(void) {
    eddy_surface_def d = eddy_surface_def_default();
    char msg[256] = "";
    d.n[0] = (1 << 24) + 1;
    d.n[1] = 2;
    CHECK(eddy_surface_def_validate(&d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "n[0] = 16777217"),
          "2D axis of 2^24 + 1 points: '%s'", msg);
    d.dim = 3;
    d.n[0] = 2;
    d.n[1] = 4;
    d.n[2] = (1 << 24) + 7;
    CHECK(eddy_surface_def_validate(&d, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "n[2] = 16777223"),
          "3D axis of 2^24 + 7 points: '%s'", msg);
    d.n[2] = 1 << 24; /* the longest axis still accepted (checked, not allocated) */
    CHECK(eddy_surface_def_validate(&d, msg, sizeof msg) == EDDY_OK, "3D axis of 2^24 points: '%s'", msg);
}

/* Densities that are adjacent floats (or the two smallest): the halfway level must still leave the inside density
 * inside and the outside density outside, so a half-and-half field has its interface (columns 0..2 inside). */
static void adjacent_densities(void) {
    const float pairs[4][2] = {{1.0f, 0x1.000002p0f}, {0x1.000002p0f, 1.0f}, {0.0f, 0x1p-149f}, {0x1p-149f, 0.0f}};
    eddy_surface_def d = eddy_surface_def_default();
    d.n[0] = d.n[1] = 8;
    d.h = 1;
    eddy_surface *s = NULL;
    char msg[256];
    CHECK(eddy_surface_create(&d, &s, msg, sizeof msg) == EDDY_OK, "%s", msg);
    if (!s) return;
    for (int c = 0; c < 4; c++) {
        float f[64], phi[64];
        for (int p = 0; p < 64; p++) f[p] = p % 8 < 3 ? pairs[c][0] : pairs[c][1];
        CHECK(eddy_sdf_from_densities(s, f, 64, pairs[c][0], pairs[c][1], phi) == EDDY_OK, "%s", eddy_surface_last_error(s));
        size_t wrong = 0;
        for (int p = 0; p < 64; p++) wrong += !isfinite(phi[p]) || (phi[p] < 0) != (p % 8 < 3);
        CHECK(eddy_surface_stats(s)->pinned == 16 && wrong == 0,
              "inside %a, outside %a: %zu pinned (expected 16), %zu points not finite or on the wrong side", (double)pairs[c][0],
              (double)pairs[c][1], eddy_surface_stats(s)->pinned, wrong);
    }
    eddy_surface_destroy(s);
}

int main(void) {
    mesh_measures();
    edge_check_high_indices();
    lines_measures();
    axis_limit();
    adjacent_densities();
    return check_finish("test_surface_inputs");
}
