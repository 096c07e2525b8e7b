/* Surface extraction: marching squares (2D) and marching cubes (3D) (Lorensen & Cline 1987, "Marching cubes", SIGGRAPH),
 * with ambiguous faces decided by the bilinear saddle value (Nielson & Hamann 1991, "The asymptotic decider").
 *
 * With g = field - level (or level - field), "inside" meaning g > 0, every grid edge whose ends lie on different
 * sides holds one vertex at the linear-interpolation crossing t = g_a / (g_a - g_b). The vertex is created once and
 * shared by every cell around the edge (rolling caches of the edges of the current slab/row).
 *
 * Instead of the 256-case triangle table, each cube is cut face by face: on each face (seen from outside the cube,
 * corners counter-clockwise) a segment joins each edge where the corners go outside -> inside ("entry") to an edge
 * where they go inside -> outside ("exit"); a face with both diagonals on opposite sides is ambiguous and joins its
 * inside corners when g_in1 * g_in2 > g_out1 * g_out2 (the sign of the bilinear saddle value), else separates them.
 * That decision uses only the face's four values, so the two cubes sharing a face cut it the same way: every
 * segment, hence every mesh edge, belongs to exactly two triangles on a surface that closes inside the grid. The
 * segments of a cube chain into loops (each crossed edge has one incoming and one outgoing segment) and each loop
 * becomes a triangle fan, counter-clockwise seen from outside, whose diagonals never join two edges of one cube
 * face (else the neighbour cube could draw the same diagonal; a loop without such a fan gets a centre vertex). Marching squares is the same on one face (segments
 * run exit -> entry so that closed loops go counter-clockwise around the inside), chained across cells into
 * polylines. Normals: the central-difference gradient of the field, interpolated along the edge, pointing outside.
 * Files are written to a unique temporary name beside `path` and renamed, so a reader never sees half a file; an
 * existing `path` that is not a regular file (folder, device, pipe, link) is refused, never replaced. */
#include "surface_internal.h"
#include "temp_file.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- growable arrays */

static int grow(void **data, size_t *capacity, size_t need, size_t elem_size) {
    if (need <= *capacity) return 1;
    size_t cap = *capacity ? *capacity : 1024;
    while (cap < need) cap *= 2;
    void *p = realloc(*data, cap * elem_size);
    if (!p) return 0;
    *data = p;
    *capacity = cap;
    return 1;
}

/* room for `need` entries of start (line count + 1) and of closed, which share line_capacity */
static int grow_lines(eddy_mesh_lines *l, size_t need) {
    if (need <= l->line_capacity) return 1;
    size_t cap = l->line_capacity ? l->line_capacity : 64;
    while (cap < need) cap *= 2;
    uint32_t *start = (uint32_t *)realloc(l->start, cap * sizeof(uint32_t));
    if (!start) return 0;
    l->start = start;
    uint8_t *closed = (uint8_t *)realloc(l->closed, cap);
    if (!closed) return 0;
    l->closed = closed;
    l->line_capacity = cap;
    return 1;
}

static int grow_mesh_vertices(eddy_mesh *m, size_t need) {
    if (need <= m->vertex_capacity) return 1;
    size_t cap = m->vertex_capacity ? m->vertex_capacity : 1024;
    while (cap < need) cap *= 2;
    float *pos = (float *)realloc(m->positions, cap * 3 * sizeof(float));
    if (!pos) return 0;
    m->positions = pos;
    float *nrm = (float *)realloc(m->normals, cap * 3 * sizeof(float));
    if (!nrm) return 0;
    m->normals = nrm;
    m->vertex_capacity = cap;
    return 1;
}

static int grow_mesh_triangles(eddy_mesh *m, size_t need) {
    if (need <= m->triangle_capacity) return 1;
    size_t cap = m->triangle_capacity ? m->triangle_capacity : 2048;
    while (cap < need) cap *= 2;
    uint32_t *t = (uint32_t *)realloc(m->triangles, cap * 3 * sizeof(uint32_t));
    if (!t) return 0;
    m->triangles = t;
    m->triangle_capacity = cap;
    return 1;
}

void eddy_mesh_free(eddy_mesh *m) {
    if (!m) return;
    free(m->positions);
    free(m->normals);
    free(m->triangles);
    memset(m, 0, sizeof *m);
}

void eddy_mesh_lines_free(eddy_mesh_lines *l) {
    if (!l) return;
    free(l->points);
    free(l->start);
    free(l->closed);
    memset(l, 0, sizeof *l);
}

static eddy_status check_extract_args(eddy_surface *s, const float *field, size_t count, float level, const void *out,
                                      int dim, const char *what) {
    if (s->dim != dim)
        return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "%s needs a %dD grid; this surface is %dD", what, dim, s->dim);
    eddy_status st = eddy__surface_check_array(s, field, count, "field");
    if (st != EDDY_OK) return st;
    if (!out) return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "%s: output is NULL", what);
    if (!isfinite(level)) return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "level = %g: must be finite", (double)level);
    if (count > (size_t)INT32_MAX)
        return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "%s: %zu points exceed 32-bit vertex indices", what, count);
    return EDDY_OK;
}

/* s->inside[p] = 1 where the point is inside (parallel over rows), so that the cell loops look at one byte per
 * corner and read the field only in cells the surface crosses. Fails on NaN, naming the first. */
static eddy_status classify_points(eddy_surface *s, const float *field, float level, float sign) {
    const int n0 = s->n[0], rows = s->rows;
#pragma omp parallel for num_threads(s->threads) schedule(static)
    for (int row = 0; row < rows; row++) {
        const size_t base = (size_t)row * (size_t)n0;
        int bad = -1;
        for (int i = 0; i < n0; i++) {
            const float f = field[base + (size_t)i];
            if (isnan(f) && bad < 0) bad = i;
            s->inside[base + (size_t)i] = (uint8_t)(sign * (f - level) > 0);
        }
        s->row_bad[row] = bad;
    }
    for (int row = 0; row < rows; row++)
        if (s->row_bad[row] >= 0)
            return eddy__surface_fail(s, EDDY_ERR_INVALID_ARGUMENT, "field at point (%d, %d, %d) is NaN: the surface is undefined there",
                                      s->row_bad[row], row % s->n[1], row / s->n[1]);
    return EDDY_OK;
}

/* Fraction t in [0, 1] from point a to the crossing of the level between a and b (on opposite sides). In float
 * as always; where the float indicators overflow (values or a level near the float range, or infinite values,
 * which would give inf/inf = NaN) in double, with an infinite end taking the crossing to the other end (the limit
 * of the linear interpolation) and two infinite ends meeting halfway. */
static float crossing(float fa, float fb, float level, float sign) {
    const float ga = sign * (fa - level), gb = sign * (fb - level), diff = ga - gb;
    if (isfinite(diff)) return ga / diff; /* ga, gb on opposite sides: diff != 0 */
    const double da = (double)sign * ((double)fa - (double)level), db = (double)sign * ((double)fb - (double)level);
    if (isinf(da) && isinf(db)) return 0.5f;
    if (isinf(da)) return 1.0f;
    if (isinf(db)) return 0.0f;
    return (float)(da / (da - db));
}

static int ensure_edge_cache(eddy_surface *s, size_t need) {
    return grow((void **)&s->edge_cache, &s->edge_cache_size, need, sizeof(int32_t));
}

/* ---------------------------------------------------------------- marching cubes */

/* Cube corner c sits at offset (c & 1, c >> 1 & 1, c >> 2). Faces list their corners counter-clockwise seen from
 * outside the cube: -x, +x, -y, +y, -z, +z. */
static const int face_corners[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};

/* local edge id of the cube edge joining corners ca and cb: x edges 0..3, y edges 4..7, z edges 8..11 */
static int cube_edge(int ca, int cb) {
    int lo = ca < cb ? ca : cb, bit = ca ^ cb;
    if (bit == 1) return lo >> 1;
    if (bit == 2) return 4 + (lo & 1) + ((lo >> 2) << 1);
    return 8 + lo;
}
/* the lower corner and axis of a local edge */
static void edge_base(int e, int *corner, int *axis) {
    if (e < 4) *corner = 2 * e, *axis = 0;
    else if (e < 8) *corner = ((e - 4) & 1) + (((e - 4) >> 1) << 2), *axis = 1;
    else *corner = e - 8, *axis = 2;
}

typedef struct mc_ctx {
    eddy_surface *s;
    const float *field;
    float level, sign;
    eddy_mesh *mesh;
    int32_t *xe[2], *ye[2], *ze; /* vertex per edge: x and y edges of planes z (by parity), z edges of the slab */
    int edge_faces[12];          /* bit f set when local edge e lies on face f */
} mc_ctx;

static inline float indicator(const mc_ctx *c, size_t p) { return c->sign * (c->field[p] - c->level); }

/* central-difference gradient of the field at point (i,j,k), one-sided at the grid's edge */
static void field_gradient(const eddy_surface *s, const float *f, int i, int j, int k, float g[3]) {
    const int idx[3] = {i, j, k};
    const size_t stride[3] = {1, (size_t)s->n[0], (size_t)s->n[0] * (size_t)s->n[1]};
    const size_t p = eddy__sidx(s->n, i, j, k);
    for (int a = 0; a < 3; a++) {
        if (a >= s->dim) {
            g[a] = 0;
            continue;
        }
        int lo = idx[a] > 0, hi = idx[a] < s->n[a] - 1;
        float fl = lo ? f[p - stride[a]] : f[p], fh = hi ? f[p + stride[a]] : f[p];
        g[a] = (fh - fl) / ((float)(lo + hi) * s->h);
    }
}

/* vertex on the edge from point (i,j,k) along axis; returns its index or -1 when out of memory */
static int32_t make_vertex(mc_ctx *c, int i, int j, int k, int axis) {
    eddy_surface *s = c->s;
    eddy_mesh *m = c->mesh;
    if (!grow_mesh_vertices(m, m->vertex_count + 1)) return -1;
    int o[3] = {i, j, k};
    int q[3] = {i, j, k};
    q[axis]++;
    const size_t pa = eddy__sidx(s->n, o[0], o[1], o[2]), pb = eddy__sidx(s->n, q[0], q[1], q[2]);
    const float ga = indicator(c, pa);
    const float t = crossing(c->field[pa], c->field[pb], c->level, c->sign);
    float *pos = m->positions + 3 * m->vertex_count, *nrm = m->normals + 3 * m->vertex_count;
    float gra[3], grb[3];
    field_gradient(s, c->field, o[0], o[1], o[2], gra);
    field_gradient(s, c->field, q[0], q[1], q[2], grb);
    float len2 = 0;
    for (int a = 0; a < 3; a++) {
        pos[a] = s->def.origin[a] + ((float)o[a] + (a == axis ? t : 0.0f)) * s->h;
        /* outside is where g decreases: n = -grad g = -sign * grad field */
        nrm[a] = -c->sign * ((1.0f - t) * gra[a] + t * grb[a]);
        len2 += nrm[a] * nrm[a];
    }
    if (len2 > 0 && isfinite(len2)) {
        float inv = 1.0f / sqrtf(len2);
        for (int a = 0; a < 3; a++) nrm[a] *= inv;
    } else { /* flat field: the edge direction from the inside end to the outside end */
        for (int a = 0; a < 3; a++) nrm[a] = a == axis ? (ga > 0 ? 1.0f : -1.0f) : 0.0f;
    }
    return (int32_t)m->vertex_count++;
}

static int32_t cube_vertex(mc_ctx *c, int i, int j, int k, int e) {
    int corner, axis;
    edge_base(e, &corner, &axis);
    int pi = i + (corner & 1), pj = j + ((corner >> 1) & 1), pk = k + (corner >> 2);
    size_t at = (size_t)pi + (size_t)c->s->n[0] * (size_t)pj;
    int32_t *slot = axis == 0 ? &c->xe[pk & 1][at] : axis == 1 ? &c->ye[pk & 1][at] : &c->ze[at];
    if (*slot < 0) *slot = make_vertex(c, pi, pj, pk, axis);
    return *slot;
}

/* Triangulates one loop of local edges. A fan diagonal between two vertices on a common cube face could also be
 * drawn by the neighbour cube across that face (4 triangles on one edge), so the fan's apex is chosen such that no
 * diagonal joins two edges of one face; such a diagonal exists in this cube only. When no apex works (rare: loops
 * of 6 or more around tunnels) the loop is fanned around a new vertex at its centroid. Returns 0 when out of memory. */
static int triangulate_loop(mc_ctx *c, int i, int j, int k, const int *loop, int len) {
    eddy_mesh *m = c->mesh;
    int32_t v[12];
    for (int q = 0; q < len; q++)
        if ((v[q] = cube_vertex(c, i, j, k, loop[q])) < 0) return 0;
    int apex = -1;
    for (int a = 0; a < len && apex < 0; a++) {
        int ok = 1;
        for (int q = 2; q + 1 < len && ok; q++) ok = !(c->edge_faces[loop[a]] & c->edge_faces[loop[(a + q) % len]]);
        if (ok) apex = a;
    }
    if (apex >= 0) {
        if (!grow_mesh_triangles(m, m->triangle_count + (size_t)(len - 2))) return 0;
        for (int q = 1; q + 1 < len; q++) {
            uint32_t *tri = m->triangles + 3 * m->triangle_count++;
            tri[0] = (uint32_t)v[apex];
            tri[1] = (uint32_t)v[(apex + q) % len];
            tri[2] = (uint32_t)v[(apex + q + 1) % len];
        }
        return 1;
    }
    if (!grow_mesh_vertices(m, m->vertex_count + 1) || !grow_mesh_triangles(m, m->triangle_count + (size_t)len)) return 0;
    float *pos = m->positions + 3 * m->vertex_count, *nrm = m->normals + 3 * m->vertex_count;
    float len2 = 0;
    for (int a = 0; a < 3; a++) {
        float sp = 0, sn = 0;
        for (int q = 0; q < len; q++) sp += m->positions[3 * (size_t)v[q] + a], sn += m->normals[3 * (size_t)v[q] + a];
        pos[a] = sp / (float)len;
        nrm[a] = sn;
        len2 += sn * sn;
    }
    for (int a = 0; a < 3; a++) nrm[a] = len2 > 0 ? nrm[a] / sqrtf(len2) : 0.0f;
    uint32_t centre = (uint32_t)m->vertex_count++;
    for (int q = 0; q < len; q++) {
        uint32_t *tri = m->triangles + 3 * m->triangle_count++;
        tri[0] = centre;
        tri[1] = (uint32_t)v[q];
        tri[2] = (uint32_t)v[(q + 1) % len];
    }
    return 1;
}

/* Cuts cube (i,j,k) with corner indicators g[8]; returns 0 when out of memory. */
static int cut_cube(mc_ctx *c, int i, int j, int k, const float g[8]) {
    int next[12];
    for (int e = 0; e < 12; e++) next[e] = -1;
    for (int f = 0; f < 6; f++) {
        const int *fc = face_corners[f];
        int in[4], inside = 0;
        for (int m = 0; m < 4; m++) inside += in[m] = g[fc[m]] > 0;
        if (inside == 0 || inside == 4) continue;
        int edge[4];
        for (int m = 0; m < 4; m++) edge[m] = cube_edge(fc[m], fc[(m + 1) & 3]);
        if (inside == 2 && in[0] == in[2]) { /* ambiguous: diagonal corners on the same side */
            int a = in[0] ? 0 : 1;           /* the inside diagonal is (a, a+2) */
            int joined = g[fc[a]] * g[fc[a + 2]] > g[fc[a + 1]] * g[fc[(a + 3) & 3]];
            for (int m = 0; m < 4; m++)
                if (!in[m] && in[(m + 1) & 3]) /* entry E_m: to the exit after it (separate) or before it (join) */
                    next[edge[m]] = edge[joined ? (m + 3) & 3 : (m + 1) & 3];
        } else {
            int entry = -1, exit = -1;
            for (int m = 0; m < 4; m++) {
                if (!in[m] && in[(m + 1) & 3]) entry = m;
                if (in[m] && !in[(m + 1) & 3]) exit = m;
            }
            next[edge[entry]] = edge[exit];
        }
    }
    for (int e0 = 0; e0 < 12; e0++) {
        if (next[e0] < 0) continue;
        int loop[12], len = 0, e = e0;
        do {
            loop[len++] = e;
            int nx = next[e];
            next[e] = -1; /* visited */
            e = nx;
        } while (e >= 0 && e != e0 && len < 12);
        if (len >= 3 && !triangulate_loop(c, i, j, k, loop, len)) return 0;
    }
    return 1;
}

/* A failure part-way: the caller gets an empty mesh, never a half-built one passed off as the surface. (Its old
 * contents are overwritten by then; keeping a copy to restore would double the memory that may just have run out.) */
static eddy_status mesh_failed(eddy_surface *s, eddy_mesh *mesh, eddy_status st) {
    const size_t vertices = mesh->vertex_count, triangles = mesh->triangle_count;
    mesh->vertex_count = mesh->triangle_count = 0;
    if (st == EDDY_ERR_OUT_OF_MEMORY)
        return eddy__surface_fail(s, st, "out of memory for a mesh of %zu vertices, %zu triangles (the mesh is left empty)",
                                  vertices, triangles);
    return eddy__surface_fail(s, st, "mesh exceeds 2^31 vertices (the mesh is left empty)");
}

eddy_status eddy_mesh_marching_cubes(eddy_surface *s, const float *field, size_t count, float level, int inside_above,
                                     eddy_mesh *mesh) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st = check_extract_args(s, field, count, level, mesh, 3, "marching cubes");
    if (st != EDDY_OK) return st;
    const int n0 = s->n[0], n1 = s->n[1], n2 = s->n[2];
    const size_t plane = (size_t)n0 * (size_t)n1;
    if (!ensure_edge_cache(s, 5 * plane))
        return eddy__surface_fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the marching-cubes edge cache");
    mc_ctx c = {s, field, level, inside_above ? 1.0f : -1.0f, mesh,
                {s->edge_cache, s->edge_cache + plane}, {s->edge_cache + 2 * plane, s->edge_cache + 3 * plane},
                s->edge_cache + 4 * plane, {0}};
    for (size_t e = 0; e < 5 * plane; e++) s->edge_cache[e] = -1;
    memset(c.edge_faces, 0, sizeof c.edge_faces);
    for (int f = 0; f < 6; f++)
        for (int q = 0; q < 4; q++) c.edge_faces[cube_edge(face_corners[f][q], face_corners[f][(q + 1) & 3])] |= 1 << f;
    if ((st = classify_points(s, field, level, c.sign)) != EDDY_OK) return st;
    mesh->vertex_count = mesh->triangle_count = 0;
    for (int k = 0; k + 1 < n2; k++) {
        if (k > 0) { /* plane k+1 reuses the buffers of plane k-1; the slab's z edges are new */
            for (size_t e = 0; e < plane; e++) c.xe[(k + 1) & 1][e] = c.ye[(k + 1) & 1][e] = c.ze[e] = -1;
        }
        for (int j = 0; j + 1 < n1; j++) {
            const uint8_t *r00 = s->inside + eddy__sidx(s->n, 0, j, k), *r01 = r00 + n0, *r10 = r00 + plane, *r11 = r10 + n0;
            for (int i = 0; i + 1 < n0; i++) {
                const int inside = r00[i] + r00[i + 1] + r01[i] + r01[i + 1] + r10[i] + r10[i + 1] + r11[i] + r11[i + 1];
                if (inside == 0 || inside == 8) continue;
                float g[8];
                for (int corner = 0; corner < 8; corner++)
                    g[corner] = indicator(&c, eddy__sidx(s->n, i + (corner & 1), j + ((corner >> 1) & 1), k + (corner >> 2)));
                if (!cut_cube(&c, i, j, k, g)) return mesh_failed(s, mesh, EDDY_ERR_OUT_OF_MEMORY);
                if (mesh->vertex_count > (size_t)INT32_MAX - 16) return mesh_failed(s, mesh, EDDY_ERR_UNSUPPORTED);
            }
        }
    }
    return EDDY_OK;
}

/* ---------------------------------------------------------------- marching squares */

typedef struct ms_ctx {
    eddy_surface *s;
    const float *field;
    float level, sign;
    int32_t *xe[2], *ye; /* vertex per x edge of rows (by parity), per y edge of the current cell row */
    size_t vertex_count;
} ms_ctx;

/* vertex on the edge from point (i,j) along axis; -1 when out of memory */
static int32_t ms_vertex(ms_ctx *c, int i, int j, int axis) {
    eddy_surface *s = c->s;
    int32_t *slot = axis == 0 ? &c->xe[j & 1][i] : &c->ye[i];
    if (*slot >= 0) return *slot;
    if (c->vertex_count + 1 > s->link_capacity) { /* point positions and links share one capacity */
        size_t cap = s->link_capacity ? 2 * s->link_capacity : 1024;
        float *pts = (float *)realloc(s->link_points, cap * 2 * sizeof(float));
        if (!pts) return -1;
        s->link_points = pts;
        int32_t *l = (int32_t *)realloc(s->link, cap * 2 * sizeof(int32_t));
        if (!l) return -1;
        s->link = l;
        s->link_capacity = cap;
    }
    const float t = crossing(c->field[eddy__sidx(s->n, i, j, 0)], c->field[eddy__sidx(s->n, i + (axis == 0), j + (axis == 1), 0)],
                             c->level, c->sign);
    float *pt = s->link_points + 2 * c->vertex_count;
    pt[0] = s->def.origin[0] + ((float)i + (axis == 0 ? t : 0.0f)) * s->h;
    pt[1] = s->def.origin[1] + ((float)j + (axis == 1 ? t : 0.0f)) * s->h;
    s->link[2 * c->vertex_count] = -1;     /* next */
    s->link[2 * c->vertex_count + 1] = -1; /* prev */
    *slot = (int32_t)c->vertex_count;
    return (int32_t)c->vertex_count++;
}

eddy_status eddy_mesh_marching_squares(eddy_surface *s, const float *field, size_t count, float level, int inside_above,
                                       eddy_mesh_lines *lines) {
    if (!s) return EDDY_ERR_INVALID_ARGUMENT;
    eddy_status st = check_extract_args(s, field, count, level, lines, 2, "marching squares");
    if (st != EDDY_OK) return st;
    const int n0 = s->n[0], n1 = s->n[1];
    if (!ensure_edge_cache(s, 3 * (size_t)n0))
        return eddy__surface_fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for the marching-squares edge cache");
    ms_ctx c = {s, field, level, inside_above ? 1.0f : -1.0f, {s->edge_cache, s->edge_cache + n0}, s->edge_cache + 2 * n0, 0};
    for (size_t e = 0; e < 3 * (size_t)n0; e++) s->edge_cache[e] = -1;
    if ((st = classify_points(s, field, level, c.sign)) != EDDY_OK) return st;
    for (int j = 0; j + 1 < n1; j++) {
        for (int i = 0; i < n0; i++) c.xe[(j + 1) & 1][i] = c.ye[i] = -1;
        const uint8_t *r0 = s->inside + (size_t)j * (size_t)n0, *r1 = r0 + n0;
        for (int i = 0; i + 1 < n0; i++) {
            const int corners_inside = r0[i] + r0[i + 1] + r1[i] + r1[i + 1];
            if (corners_inside == 0 || corners_inside == 4) continue;
            /* corners counter-clockwise: (i,j), (i+1,j), (i+1,j+1), (i,j+1); edge m joins corner m and m+1 */
            static const int ci[4] = {0, 1, 1, 0}, cj[4] = {0, 0, 1, 1};
            static const int edge_i[4] = {0, 1, 0, 0}, edge_j[4] = {0, 0, 1, 0}, edge_axis[4] = {0, 1, 0, 1};
            float g[4];
            int in[4], inside = 0;
            for (int m = 0; m < 4; m++) {
                g[m] = c.sign * (field[eddy__sidx(s->n, i + ci[m], j + cj[m], 0)] - level);
                inside += in[m] = g[m] > 0;
            }
            if (inside == 0 || inside == 4) continue;
            int from[2] = {0, 0}, to[2] = {0, 0}, segments = 0; /* set below for every crossing; zeroed for newer GCCs that cannot see it */
            if (inside == 2 && in[0] == in[2]) {
                int a = in[0] ? 0 : 1;
                int joined = g[a] * g[a + 2] > g[a + 1] * g[(a + 3) & 3];
                for (int m = 0; m < 4; m++)
                    if (in[m] && !in[(m + 1) & 3]) { /* exit E_m: to the entry after it (join) or before it (separate) */
                        from[segments] = m;
                        to[segments++] = joined ? (m + 1) & 3 : (m + 3) & 3;
                    }
            } else {
                for (int m = 0; m < 4; m++) {
                    if (in[m] && !in[(m + 1) & 3]) from[0] = m;
                    if (!in[m] && in[(m + 1) & 3]) to[0] = m;
                }
                segments = 1;
            }
            for (int q = 0; q < segments; q++) {
                int32_t v = ms_vertex(&c, i + edge_i[from[q]], j + edge_j[from[q]], edge_axis[from[q]]);
                int32_t w = v < 0 ? -1 : ms_vertex(&c, i + edge_i[to[q]], j + edge_j[to[q]], edge_axis[to[q]]);
                if (v < 0 || w < 0)
                    return eddy__surface_fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu contour points", c.vertex_count);
                s->link[2 * (size_t)v] = w;
                s->link[2 * (size_t)w + 1] = v;
            }
        }
    }
    /* chain: open polylines first (from points without a predecessor), then closed loops; in vertex order */
    const size_t nv = c.vertex_count;
    int32_t *link = s->link;
    /* Every allocation before the first write, so that a failure leaves the caller's lines as they were. Each
     * polyline has at least 2 points (a segment's two ends), so at most nv / 2 lines. */
    const size_t max_lines = nv / 2;
    if (!grow((void **)&lines->points, &lines->point_capacity, nv > 0 ? nv : 1, 2 * sizeof(float)) ||
        !grow_lines(lines, max_lines + 1))
        return eddy__surface_fail(s, EDDY_ERR_OUT_OF_MEMORY, "out of memory for %zu contour points", nv);
    lines->point_count = lines->line_count = 0;
    for (int pass = 0; pass < 2; pass++)
        for (size_t v0 = 0; v0 < nv; v0++) {
            int32_t prev = link[2 * v0 + 1];
            if (pass == 0 ? prev != -1 : prev < 0) continue; /* pass 0: chain starts; pass 1: unvisited loop points */
            lines->start[lines->line_count] = (uint32_t)lines->point_count;
            int32_t v = (int32_t)v0;
            do {
                lines->points[2 * lines->point_count] = s->link_points[2 * (size_t)v];
                lines->points[2 * lines->point_count + 1] = s->link_points[2 * (size_t)v + 1];
                lines->point_count++;
                int32_t nx = link[2 * (size_t)v];
                link[2 * (size_t)v + 1] = -2; /* visited */
                v = nx;
            } while (v >= 0 && v != (int32_t)v0);
            lines->closed[lines->line_count] = (uint8_t)(pass == 1);
            lines->line_count++;
            lines->start[lines->line_count] = (uint32_t)lines->point_count;
        }
    if (lines->line_count == 0) lines->start[0] = 0;
    lines->bounds_min[0] = s->def.origin[0];
    lines->bounds_min[1] = s->def.origin[1];
    lines->bounds_max[0] = s->def.origin[0] + (float)(n0 - 1) * s->h;
    lines->bounds_max[1] = s->def.origin[1] + (float)(n1 - 1) * s->h;
    return EDDY_OK;
}

/* ---------------------------------------------------------------- measures */

/* The caller may fill a mesh or polylines in itself: the measures and the checks below read through its indices
 * and offsets only after these say that every one of them lands inside the arrays. */

/* triangles given and every index below vertex_count; returns the first bad triangle entry, or SIZE_MAX when
 * all are good (and (size_t)-2 when the triangles are NULL) */
#define MESH_TRIANGLES_NULL ((size_t)-2)
static size_t mesh_bad_index(const eddy_mesh *m) {
    if (m->triangle_count && !m->triangles) return MESH_TRIANGLES_NULL;
    for (size_t i = 0; i < 3 * m->triangle_count; i++)
        if (m->triangles[i] >= m->vertex_count) return i;
    return SIZE_MAX;
}

/* the positions can be read at every index of every triangle */
static int mesh_readable(const eddy_mesh *m) {
    return (!m->triangle_count || m->positions) && mesh_bad_index(m) == SIZE_MAX;
}

/* polyline offsets: arrays given, start[0] = 0, not decreasing, the last within point_count; returns 0 when so,
 * else writes the reason into msg (may be NULL) */
static int lines_bad(const eddy_mesh_lines *l, char *msg, size_t msg_size) {
    if (!l->line_count) return 0;
    if (!l->points || !l->start || !l->closed) {
        eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "lines arrays are NULL but line_count is %zu", l->line_count);
        return 1;
    }
    if (l->start[0] != 0 || l->start[l->line_count] > l->point_count) {
        eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT,
                  "lines start[0] = %u, start[%zu] = %u: must be 0 and at most point_count = %zu", (unsigned)l->start[0],
                  l->line_count, (unsigned)l->start[l->line_count], l->point_count);
        return 1;
    }
    for (size_t p = 0; p < l->line_count; p++)
        if (l->start[p + 1] < l->start[p]) {
            eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "lines start[%zu] = %u < start[%zu] = %u: must not decrease",
                      p + 1, (unsigned)l->start[p + 1], p, (unsigned)l->start[p]);
            return 1;
        }
    return 0;
}

double eddy_mesh_area(const eddy_mesh *m) {
    if (!m) return 0;
    if (!mesh_readable(m)) return NAN;
    double area = 0;
    for (size_t t = 0; t < m->triangle_count; t++) {
        const float *a = m->positions + 3 * (size_t)m->triangles[3 * t], *b = m->positions + 3 * (size_t)m->triangles[3 * t + 1],
                    *c = m->positions + 3 * (size_t)m->triangles[3 * t + 2];
        double u[3] = {(double)b[0] - a[0], (double)b[1] - a[1], (double)b[2] - a[2]};
        double v[3] = {(double)c[0] - a[0], (double)c[1] - a[1], (double)c[2] - a[2]};
        double x = u[1] * v[2] - u[2] * v[1], y = u[2] * v[0] - u[0] * v[2], z = u[0] * v[1] - u[1] * v[0];
        area += 0.5 * sqrt(x * x + y * y + z * z);
    }
    return area;
}

double eddy_mesh_volume(const eddy_mesh *m) {
    if (!m) return 0;
    if (!mesh_readable(m)) return NAN;
    double vol = 0;
    for (size_t t = 0; t < m->triangle_count; t++) {
        const float *a = m->positions + 3 * (size_t)m->triangles[3 * t], *b = m->positions + 3 * (size_t)m->triangles[3 * t + 1],
                    *c = m->positions + 3 * (size_t)m->triangles[3 * t + 2];
        vol += (double)a[0] * ((double)b[1] * c[2] - (double)b[2] * c[1]) + (double)a[1] * ((double)b[2] * c[0] - (double)b[0] * c[2]) +
               (double)a[2] * ((double)b[0] * c[1] - (double)b[1] * c[0]);
    }
    return vol / 6.0;
}

double eddy_mesh_lines_length(const eddy_mesh_lines *l) {
    if (!l) return 0;
    if (lines_bad(l, NULL, 0)) return NAN;
    double len = 0;
    for (size_t p = 0; p < l->line_count; p++) {
        size_t a = l->start[p], b = l->start[p + 1];
        for (size_t q = a; q < b; q++) {
            size_t r = q + 1 < b ? q + 1 : (l->closed[p] ? a : q);
            double dx = (double)l->points[2 * r] - l->points[2 * q], dy = (double)l->points[2 * r + 1] - l->points[2 * q + 1];
            len += sqrt(dx * dx + dy * dy);
        }
    }
    return len;
}

/* an edge use: the vertex pair (low index << 32 | high index) and whether the triangle runs high -> low */
typedef struct edge_use {
    uint64_t pair;
    uint8_t reversed;
} edge_use;

static int compare_edge_use(const void *a, const void *b) {
    const edge_use *x = (const edge_use *)a, *y = (const edge_use *)b;
    if (x->pair != y->pair) return x->pair < y->pair ? -1 : 1;
    return (int)x->reversed - (int)y->reversed;
}

eddy_status eddy_mesh_edge_check(const eddy_mesh *m, size_t *boundary, size_t *nonmanifold, char *msg, size_t msg_size) {
    if (msg && msg_size) msg[0] = '\0';
    if (!m || !boundary || !nonmanifold) return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "mesh or outputs NULL");
    *boundary = *nonmanifold = 0;
    const size_t bad = mesh_bad_index(m);
    if (bad == MESH_TRIANGLES_NULL)
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "mesh triangles are NULL but triangle_count is %zu",
                         m->triangle_count);
    if (bad != SIZE_MAX)
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "triangle %zu uses vertex %u; the mesh has %zu", bad / 3,
                         (unsigned)m->triangles[bad], m->vertex_count);
    size_t ne = 3 * m->triangle_count;
    if (ne == 0) return EDDY_OK;
    edge_use *uses = (edge_use *)malloc(ne * sizeof(edge_use));
    if (!uses) return eddy__msg(msg, msg_size, EDDY_ERR_OUT_OF_MEMORY, "out of memory checking %zu edges", ne);
    for (size_t t = 0; t < m->triangle_count; t++)
        for (int e = 0; e < 3; e++) {
            uint64_t a = m->triangles[3 * t + e], b = m->triangles[3 * t + (e + 1) % 3];
            uses[3 * t + e].pair = a < b ? (a << 32 | b) : (b << 32 | a);
            uses[3 * t + e].reversed = (uint8_t)(a > b);
        }
    qsort(uses, ne, sizeof *uses, compare_edge_use);
    for (size_t i = 0; i < ne;) {
        size_t j = i;
        while (j < ne && uses[j].pair == uses[i].pair) j++;
        size_t count = j - i;
        if (count == 1) (*boundary)++;
        else if (count > 2 || uses[i].reversed == uses[i + 1].reversed) (*nonmanifold)++;
        i = j;
    }
    free(uses);
    return EDDY_OK;
}

/* ---------------------------------------------------------------- writers */

typedef struct out_file {
    FILE *f;
    char *tmp;
    const char *path;
} out_file;

static eddy_status open_out(out_file *o, const char *path, char *msg, size_t msg_size) {
    o->f = NULL;
    o->path = path;
    eddy_status st;
    o->tmp = eddy__temp_file_for(path, msg, msg_size, &st);
    if (!o->tmp) return st;
    o->f = fopen(o->tmp, "wb");
    if (!o->f) {
        st = eddy__msg(msg, msg_size, EDDY_ERR_IO, "cannot create '%s': %s", o->tmp, strerror(errno));
        remove(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return st;
    }
    return EDDY_OK;
}

/* closes and renames when everything was written (ok), else removes the temporary file */
static eddy_status close_out(out_file *o, int ok, char *msg, size_t msg_size) {
    eddy_status st = EDDY_OK;
    int err = ferror(o->f) ? errno : 0;
    if (fclose(o->f) != 0 && !err) err = errno ? errno : EIO;
    if (!ok || err) {
        st = eddy__msg(msg, msg_size, EDDY_ERR_IO, "cannot write '%s': %s", o->tmp, strerror(err ? err : EIO));
        remove(o->tmp);
    } else if (rename(o->tmp, o->path) != 0) {
        st = eddy__msg(msg, msg_size, EDDY_ERR_IO, "cannot rename '%s' to '%s': %s", o->tmp, o->path, strerror(errno));
        remove(o->tmp);
    }
    free(o->tmp);
    return st;
}

static eddy_status check_mesh(const eddy_mesh *m, char *msg, size_t msg_size) {
    if (!m) return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "mesh is NULL");
    if ((m->vertex_count && (!m->positions || !m->normals)) || (m->triangle_count && !m->triangles))
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "mesh arrays are NULL but counts are not zero");
    const size_t bad = mesh_bad_index(m);
    if (bad != SIZE_MAX)
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "triangle %zu uses vertex %u; the mesh has %zu", bad / 3,
                         (unsigned)m->triangles[bad], m->vertex_count);
    for (size_t i = 0; i < 3 * m->vertex_count; i++)
        if (!isfinite(m->positions[i]) || !isfinite(m->normals[i]))
            return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "vertex %zu: %s[%zu] = %g: must be finite", i / 3,
                             isfinite(m->positions[i]) ? "normal" : "position", i % 3,
                             (double)(isfinite(m->positions[i]) ? m->normals[i] : m->positions[i]));
    return EDDY_OK;
}

eddy_status eddy_mesh_write_obj(const eddy_mesh *m, const char *path, char *msg, size_t msg_size) {
    eddy_status st = check_mesh(m, msg, msg_size);
    if (st != EDDY_OK) return st;
    out_file o;
    if ((st = open_out(&o, path, msg, msg_size)) != EDDY_OK) return st;
    int ok = fprintf(o.f, "# eddy surface: %zu vertices, %zu triangles\n", m->vertex_count, m->triangle_count) > 0;
    for (size_t v = 0; ok && v < m->vertex_count; v++)
        ok = fprintf(o.f, "v %.9g %.9g %.9g\n", (double)m->positions[3 * v], (double)m->positions[3 * v + 1],
                     (double)m->positions[3 * v + 2]) > 0;
    for (size_t v = 0; ok && v < m->vertex_count; v++)
        ok = fprintf(o.f, "vn %.6g %.6g %.6g\n", (double)m->normals[3 * v], (double)m->normals[3 * v + 1],
                     (double)m->normals[3 * v + 2]) > 0;
    for (size_t t = 0; ok && t < m->triangle_count; t++) {
        unsigned long a = m->triangles[3 * t] + 1UL, b = m->triangles[3 * t + 1] + 1UL, c = m->triangles[3 * t + 2] + 1UL;
        ok = fprintf(o.f, "f %lu//%lu %lu//%lu %lu//%lu\n", a, a, b, b, c, c) > 0;
    }
    return close_out(&o, ok, msg, msg_size);
}

static void put_le32(unsigned char *b, uint32_t x) {
    b[0] = (unsigned char)(x & 0xff);
    b[1] = (unsigned char)((x >> 8) & 0xff);
    b[2] = (unsigned char)((x >> 16) & 0xff);
    b[3] = (unsigned char)(x >> 24);
}
static void put_lef(unsigned char *b, float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    put_le32(b, x);
}

eddy_status eddy_mesh_write_ply(const eddy_mesh *m, const char *path, char *msg, size_t msg_size) {
    eddy_status st = check_mesh(m, msg, msg_size);
    if (st != EDDY_OK) return st;
    out_file o;
    if ((st = open_out(&o, path, msg, msg_size)) != EDDY_OK) return st;
    int ok = fprintf(o.f,
                     "ply\nformat binary_little_endian 1.0\ncomment eddy surface\nelement vertex %zu\n"
                     "property float x\nproperty float y\nproperty float z\n"
                     "property float nx\nproperty float ny\nproperty float nz\n"
                     "element face %zu\nproperty list uchar int vertex_indices\nend_header\n",
                     m->vertex_count, m->triangle_count) > 0;
    unsigned char buf[24];
    for (size_t v = 0; ok && v < m->vertex_count; v++) {
        for (int a = 0; a < 3; a++) {
            put_lef(buf + 4 * a, m->positions[3 * v + a]);
            put_lef(buf + 12 + 4 * a, m->normals[3 * v + a]);
        }
        ok = fwrite(buf, 1, 24, o.f) == 24;
    }
    for (size_t t = 0; ok && t < m->triangle_count; t++) {
        buf[0] = 3;
        for (int a = 0; a < 3; a++) put_le32(buf + 1 + 4 * a, m->triangles[3 * t + a]);
        ok = fwrite(buf, 1, 13, o.f) == 13;
    }
    return close_out(&o, ok, msg, msg_size);
}

eddy_status eddy_mesh_lines_write_svg(const eddy_mesh_lines *l, const char *path, int width_px, char *msg, size_t msg_size) {
    if (!l) return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "lines is NULL");
    if (width_px < 0 || width_px > 1000000)
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "width_px = %d: must be 1..1000000 (0 = 512)", width_px);
    if (lines_bad(l, msg, msg_size)) return EDDY_ERR_INVALID_ARGUMENT;
    if (l->line_count) {
        for (size_t q = 0; q < 2 * (size_t)l->start[l->line_count]; q++)
            if (!isfinite(l->points[q]))
                return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "lines point %zu: %c = %g: must be finite", q / 2,
                                 q % 2 ? 'y' : 'x', (double)l->points[q]);
    }
    double w = (double)l->bounds_max[0] - l->bounds_min[0], hgt = (double)l->bounds_max[1] - l->bounds_min[1];
    if (!(w > 0 && hgt > 0 && isfinite(w) && isfinite(hgt)))
        return eddy__msg(msg, msg_size, EDDY_ERR_INVALID_ARGUMENT, "lines bounds are empty (%g x %g m)", w, hgt);
    double scale = (width_px ? width_px : 512) / w;
    out_file o;
    eddy_status st = open_out(&o, path, msg, msg_size);
    if (st != EDDY_OK) return st;
    int ok = fprintf(o.f,
                     "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.3f %.3f\">\n"
                     "<rect x=\"0\" y=\"0\" width=\"%.3f\" height=\"%.3f\" fill=\"white\" stroke=\"#999\"/>\n"
                     "<g fill=\"none\" stroke=\"black\" stroke-width=\"1\" stroke-linejoin=\"round\">\n",
                     w * scale, hgt * scale, w * scale, hgt * scale, w * scale, hgt * scale) > 0;
    for (size_t p = 0; ok && p < l->line_count; p++) {
        ok = fputs("<path d=\"", o.f) >= 0;
        for (size_t q = l->start[p]; ok && q < l->start[p + 1]; q++) {
            double x = ((double)l->points[2 * q] - l->bounds_min[0]) * scale;
            double y = ((double)l->bounds_max[1] - l->points[2 * q + 1]) * scale; /* SVG y runs down */
            ok = fprintf(o.f, "%s%.3f %.3f", q == l->start[p] ? "M" : " L", x, y) > 0;
        }
        if (ok) ok = fputs(l->closed[p] ? " Z\"/>\n" : "\"/>\n", o.f) >= 0;
    }
    if (ok) ok = fputs("</g>\n</svg>\n", o.f) >= 0;
    return close_out(&o, ok, msg, msg_size);
}
