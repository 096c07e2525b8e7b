/* Marching squares and cubes (src/marching.c) and the OBJ / PLY / SVG writers.
 *
 * Sphere at 64^3 points (h = 1/63, radius 0.35 m = 22 h): the mesh's area and volume within 1% of 4 pi r^2 and
 * 4/3 pi r^3 (the bound; linear interpolation of a smooth field misplaces vertices by O(h^2), which for
 * r = 22 h is ~0.1%), every edge shared by exactly two triangles running in opposite directions (watertight,
 * consistently oriented), positive volume (triangles counter-clockwise seen from outside), and vertex normals
 * within 2 degrees of the exact radial direction (central differences of a smooth field: O(h^2) error). The same
 * from the exact distance, from a Gaussian density and from the swept distance of that density (normals within
 * 15 degrees there: the first-order sweep leaves O(h) errors, so its difference quotients are only O(1) accurate).
 * Watertightness under ambiguity: random fields (many ambiguous faces, exact zeros) kept outside on the grid's
 * faces must give closed meshes / closed loops. Circle (marching squares): one closed counter-clockwise loop,
 * length within 1% of 2 pi r, enclosed area within 1% of pi r^2. Files are written, re-read and counted.
 * Out of memory part-way (real failures: RLIMIT_AS lowered in child processes):
 * marching squares leaves the caller's lines exactly as they were, marching cubes leaves the mesh empty, never
 * half-built. EDDY_FULL_SIZE (--full): the sphere also at 128^3 and 256^3, random fields at 64^3. */
#define _POSIX_C_SOURCE 200809L /* mkfifo, symlink, lstat, fork, setrlimit */
#include "check.h"
#include "eddy/surface.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const double PI = 3.14159265358979323846;

static eddy_surface *make_surface(int dim, int n) {
    eddy_surface_def d = eddy_surface_def_default();
    d.dim = dim;
    d.n[0] = d.n[1] = n;
    d.n[2] = dim == 3 ? n : 1;
    d.h = 1.0f / (float)(n - 1);
    eddy_surface *s = NULL;
    char msg[256];
    CHECK(eddy_surface_create(&d, &s, msg, sizeof msg) == EDDY_OK, "%s", msg);
    return s;
}

/* simple deterministic generator for the random fields */
static uint32_t rng_next(uint32_t *state) {
    *state = *state * 1664525u + 1013904223u;
    return *state >> 8;
}

static void check_closed(const eddy_mesh *m, const char *what) {
    size_t boundary = 99, nonmanifold = 99;
    char msg[128];
    CHECK(eddy_mesh_edge_check(m, &boundary, &nonmanifold, msg, sizeof msg) == EDDY_OK, "%s", msg);
    CHECK(boundary == 0 && nonmanifold == 0, "%s: %zu boundary edges, %zu non-manifold or misoriented", what, boundary, nonmanifold);
}

static void sphere_case(int n, int source) {
    static const char *names[] = {"exact distance", "gaussian density", "swept distance"};
    const float c[3] = {0.5f, 0.49f, 0.51f};
    const double r = 0.35;
    eddy_surface *s = make_surface(3, n);
    if (!s) return;
    size_t N = eddy_surface_point_count(s);
    float *f = malloc(N * sizeof(float));
    eddy_obstacle_def sphere;
    memset(&sphere, 0, sizeof sphere);
    sphere.shape = EDDY_SHAPE_SPHERE;
    memcpy(sphere.center, c, sizeof c);
    sphere.radius = (float)r;
    CHECK(eddy_sdf_from_shapes(s, &sphere, 1, f, N) == EDDY_OK, "%s", eddy_surface_last_error(s));
    float level = 0;
    int inside_above = 0;
    if (source >= 1) { /* Gaussian exp(-d^2/sigma^2) with d the distance to the centre; level at d = r */
        const double sigma = 0.3;
        for (size_t p = 0; p < N; p++) {
            double d = f[p] + r;
            f[p] = (float)exp(-d * d / (sigma * sigma));
        }
        level = (float)exp(-r * r / (sigma * sigma));
        inside_above = 1;
    }
    if (source == 2) {
        CHECK(eddy_sdf_from_field(s, f, N, level, 1, f) == EDDY_OK, "%s", eddy_surface_last_error(s));
        level = 0;
        inside_above = 0;
    }
    eddy_mesh m = {0};
    CHECK(eddy_mesh_marching_cubes(s, f, N, level, inside_above, &m) == EDDY_OK, "%s", eddy_surface_last_error(s));
    double area = eddy_mesh_area(&m), vol = eddy_mesh_volume(&m);
    double area_x = 4 * PI * r * r, vol_x = 4.0 / 3.0 * PI * r * r * r;

    CHECK(fabs(area / area_x - 1) < 0.01, "area %g vs %g", area, area_x);
    CHECK(fabs(vol / vol_x - 1) < 0.01, "volume %g vs %g (negative: inward triangles)", vol, vol_x);
    check_closed(&m, names[source]);
    /* normals: radial within 2 degrees; each triangle's winding agrees with its vertices' normals */
    double worst = 1;
    size_t flipped = 0;
    for (size_t v = 0; v < m.vertex_count; v++) {
        double d[3], len = 0, dot = 0;
        for (int a = 0; a < 3; a++) d[a] = m.positions[3 * v + a] - c[a], len += d[a] * d[a];
        for (int a = 0; a < 3; a++) dot += d[a] / sqrt(len) * m.normals[3 * v + a];
        if (dot < worst) worst = dot;
    }
    for (size_t t = 0; t < m.triangle_count; t++) {
        const float *p0 = m.positions + 3 * m.triangles[3 * t], *p1 = m.positions + 3 * m.triangles[3 * t + 1],
                    *p2 = m.positions + 3 * m.triangles[3 * t + 2];
        double u[3], w[3], x[3], dot = 0;
        for (int a = 0; a < 3; a++) u[a] = p1[a] - p0[a], w[a] = p2[a] - p0[a];
        x[0] = u[1] * w[2] - u[2] * w[1];
        x[1] = u[2] * w[0] - u[0] * w[2];
        x[2] = u[0] * w[1] - u[1] * w[0];
        for (int a = 0; a < 3; a++) dot += x[a] * m.normals[3 * m.triangles[3 * t] + a];
        if (dot < 0) flipped++;
    }
    printf("  sphere %d^3 from %-16s: %zu vertices, %zu triangles, area %+.3f%%, volume %+.3f%%, normals within %.2f deg\n",
           n, names[source], m.vertex_count, m.triangle_count, 100 * (area / area_x - 1), 100 * (vol / vol_x - 1),
           acos(worst) * 180 / PI);
    /* smooth fields: central differences are second order, 2 degrees. The swept distance is first order: values
     * next to the pinned ones are off by ~0.1 h, so its difference quotients are off by ~0.1 and do not converge
     * (measured worst vertex 6.9, 8.5, 9.8 degrees at 64^3, 128^3, 256^3): a sanity bound of 15 degrees */
    double max_angle = source == 2 ? 15.0 : 2.0;
    CHECK(worst > cos(max_angle * PI / 180), "normal off radial by %.2f degrees", acos(worst) * 180 / PI);
    CHECK(flipped == 0, "%zu triangles wound against their normals", flipped);
    /* a second extraction reuses the arrays: same result, no growth */
    size_t vc = m.vertex_count, tc = m.triangle_count, cap = m.vertex_capacity;
    float *pos = m.positions;
    CHECK(eddy_mesh_marching_cubes(s, f, N, level, inside_above, &m) == EDDY_OK, "%s", eddy_surface_last_error(s));
    CHECK(m.vertex_count == vc && m.triangle_count == tc && m.vertex_capacity == cap && m.positions == pos, "re-extraction changed");
    eddy_mesh_free(&m);
    free(f);
    eddy_surface_destroy(s);
}

/* Random values in [-1, 1] (or in {-1, 0, 1}: exact zeros), -1 on the grid's faces so every surface closes. */
static void random_field(const eddy_surface *s, float *f, uint32_t seed, int integers) {
    const eddy_surface_def *d = eddy_surface_get_def(s);
    size_t N = eddy_surface_point_count(s);
    for (size_t p = 0; p < N; p++) {
        int i = (int)(p % (size_t)d->n[0]), j = (int)(p / (size_t)d->n[0] % (size_t)d->n[1]),
            k = (int)(p / ((size_t)d->n[0] * (size_t)d->n[1]));
        int edge = i == 0 || j == 0 || i == d->n[0] - 1 || j == d->n[1] - 1 ||
                   (d->dim == 3 && (k == 0 || k == d->n[2] - 1));
        uint32_t x = rng_next(&seed);
        f[p] = edge ? -1.0f : integers ? (float)((int)(x % 3) - 1) : (float)(x % 20001) / 10000.0f - 1.0f;
    }
}

static void random_cubes(int n, int trials) {
    eddy_surface *s = make_surface(3, n);
    if (!s) return;
    size_t N = eddy_surface_point_count(s);
    float *f = malloc(N * sizeof(float));
    eddy_mesh m = {0};
    size_t triangles = 0;
    for (int t = 0; t < trials; t++) {
        random_field(s, f, 12345u + (uint32_t)t, t & 1);
        for (int above = 0; above <= 1; above++) {
            CHECK(eddy_mesh_marching_cubes(s, f, N, t % 3 == 2 ? 0.3f : 0.0f, above, &m) == EDDY_OK, "%s",
                  eddy_surface_last_error(s));
            char what[64];
            snprintf(what, sizeof what, "random field %d (%s)", t, above ? "inside above" : "inside below");
            if (above) check_closed(&m, what); /* inside below: the faces are inside, the surface leaves the grid */
            triangles += m.triangle_count;
        }
    }
    printf("  random fields %d^3 x %d: %zu triangles, all closed\n", n, trials, triangles);
    eddy_mesh_free(&m);
    free(f);
    eddy_surface_destroy(s);
}

static double signed_area(const eddy_mesh_lines *l, size_t p) {
    double a = 0;
    size_t b = l->start[p], e = l->start[p + 1];
    for (size_t q = b; q < e; q++) {
        size_t r = q + 1 < e ? q + 1 : b;
        a += (double)l->points[2 * q] * l->points[2 * r + 1] - (double)l->points[2 * r] * l->points[2 * q + 1];
    }
    return 0.5 * a;
}

static void squares(void) {
    const double r = 0.3;
    eddy_surface *s = make_surface(2, 128);
    if (!s) return;
    size_t N = eddy_surface_point_count(s);
    float *f = malloc(N * sizeof(float));
    eddy_obstacle_def circle;
    memset(&circle, 0, sizeof circle);
    circle.shape = EDDY_SHAPE_SPHERE;
    circle.center[0] = 0.48f;
    circle.center[1] = 0.53f;
    circle.radius = (float)r;
    CHECK(eddy_sdf_from_shapes(s, &circle, 1, f, N) == EDDY_OK, "%s", eddy_surface_last_error(s));
    eddy_mesh_lines l = {0};
    CHECK(eddy_mesh_marching_squares(s, f, N, 0, 0, &l) == EDDY_OK, "%s", eddy_surface_last_error(s));
    double len = eddy_mesh_lines_length(&l), len_x = 2 * PI * r;
    CHECK(l.line_count == 1 && l.closed[0], "circle: %zu lines, first closed %d", l.line_count, l.line_count ? l.closed[0] : -1);
    CHECK(fabs(len / len_x - 1) < 0.01, "circle length %g vs %g", len, len_x);
    double area = l.line_count ? signed_area(&l, 0) : 0;
    CHECK(fabs(area / (PI * r * r) - 1) < 0.01, "circle area %g vs %g (negative: clockwise)", area, PI * r * r);
    printf("  circle 128^2: %zu points, length %+.3f%%, area %+.3f%%\n", l.point_count, 100 * (len / len_x - 1),
           100 * (area / (PI * r * r) - 1));

    /* writers: SVG re-read: one path per line, one Z per closed line, one coordinate pair per point */
    char msg[256];
    CHECK(eddy_mesh_lines_write_svg(&l, "test_surface_circle.svg", 256, msg, sizeof msg) == EDDY_OK, "%s", msg);
    FILE *fp = fopen("test_surface_circle.svg", "rb");
    size_t paths = 0, zs = 0, pairs = 0;
    if (fp) {
        char line[1 << 16];
        while (fgets(line, sizeof line, fp)) {
            if (strncmp(line, "<path", 5)) continue;
            paths++;
            for (char *q = line; *q; q++) {
                if (*q == 'Z') zs++;
                if (*q == 'M' || *q == 'L') pairs++;
            }
        }
        fclose(fp);
    }
    CHECK(fp && paths == l.line_count && zs == 1 && pairs == l.point_count, "svg: %zu paths, %zu Z, %zu points", paths, zs, pairs);
    CHECK(eddy_mesh_lines_write_svg(&l, "no/such/dir/c.svg", 0, msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "no/such/dir/c.svg"),
          "bad path: %s", msg);

    /* a field that leaves the grid: open lines ending on the grid's edge */
    circle.center[0] = 0.0f;
    CHECK(eddy_sdf_from_shapes(s, &circle, 1, f, N) == EDDY_OK, "%s", eddy_surface_last_error(s));
    CHECK(eddy_mesh_marching_squares(s, f, N, 0, 0, &l) == EDDY_OK, "%s", eddy_surface_last_error(s));
    CHECK(l.line_count == 1 && !l.closed[0] && fabsf(l.points[0]) < 1e-6f, "half circle: %zu lines, closed %d, x0 %g",
          l.line_count, l.closed[0], (double)l.points[0]);

    /* random fields, faces outside: only closed loops, each point used once, saddles included */
    size_t loops = 0;
    for (int t = 0; t < 8; t++) {
        random_field(s, f, 777u + (uint32_t)t, t & 1);
        CHECK(eddy_mesh_marching_squares(s, f, N, 0, 1, &l) == EDDY_OK, "%s", eddy_surface_last_error(s));
        for (size_t p = 0; p < l.line_count; p++) {
            CHECK(l.closed[p], "random field %d: line %zu open", t, p);
            CHECK(l.start[p + 1] - l.start[p] >= 4, "random field %d: loop of %u points", t, l.start[p + 1] - l.start[p]);
            /* zero area only for a loop through grid points alone: outside points exactly at the level between
             * inside neighbours (integer fields) make holes of zero size (a point, a slit) */
            int on_points = 1;
            const float h = eddy_surface_get_def(s)->h;
            for (size_t q = 2 * l.start[p]; q < 2 * l.start[p + 1]; q++)
                on_points &= fabsf(l.points[q] / h - roundf(l.points[q] / h)) < 1e-3f;
            CHECK(signed_area(&l, p) != 0 || ((t & 1) && on_points), "random field %d: loop %zu has no area", t, p);
        }
        loops += l.line_count;
    }
    printf("  random fields 128^2 x 8: %zu closed loops\n", loops);
    CHECK(eddy_mesh_marching_cubes(s, f, N, 0, 1, &(eddy_mesh){0}) == EDDY_ERR_INVALID_ARGUMENT, "cubes on a 2D grid accepted");
    eddy_mesh_lines_free(&l);
    free(f);
    eddy_surface_destroy(s);
}

static void writers(void) {
    eddy_surface *s = make_surface(3, 24);
    if (!s) return;
    size_t N = eddy_surface_point_count(s);
    float *f = malloc(N * sizeof(float));
    eddy_obstacle_def box;
    memset(&box, 0, sizeof box);
    box.shape = EDDY_SHAPE_BOX;
    box.center[0] = box.center[1] = box.center[2] = 0.5f;
    box.half_size[0] = 0.3f;
    box.half_size[1] = 0.2f;
    box.half_size[2] = 0.25f;
    CHECK(eddy_sdf_from_shapes(s, &box, 1, f, N) == EDDY_OK, "%s", eddy_surface_last_error(s));
    eddy_mesh m = {0};
    CHECK(eddy_mesh_marching_cubes(s, f, N, 0, 0, &m) == EDDY_OK, "%s", eddy_surface_last_error(s));
    check_closed(&m, "box");
    char msg[256];
    /* OBJ: count v, vn, f lines; the first vertex's coordinates read back to float precision */
    FILE *fp = fopen("test_surface_box.obj.tmp", "wb"); /* a file of the user's beside it, never overwritten */
    if (fp) fputs("kept", fp), fclose(fp);
    CHECK(eddy_mesh_write_obj(&m, "test_surface_box.obj", msg, sizeof msg) == EDDY_OK, "%s", msg);
    char kept[8] = {0};
    fp = fopen("test_surface_box.obj.tmp", "rb");
    CHECK(fp && fread(kept, 1, sizeof kept - 1, fp) == 4 && !strcmp(kept, "kept"), "the writer overwrote test_surface_box.obj.tmp");
    if (fp) fclose(fp);
    remove("test_surface_box.obj.tmp");
    fp = fopen("test_surface_box.obj", "rb");
    size_t v = 0, vn = 0, fc = 0;
    float first[3] = {0, 0, 0};
    if (fp) {
        char line[256];
        while (fgets(line, sizeof line, fp)) {
            if (!strncmp(line, "v ", 2) && v++ == 0) sscanf(line + 2, "%f %f %f", &first[0], &first[1], &first[2]);
            if (!strncmp(line, "vn ", 3)) vn++;
            if (!strncmp(line, "f ", 2)) fc++;
        }
        fclose(fp);
    }
    CHECK(fp && v == m.vertex_count && vn == v && fc == m.triangle_count, "obj: %zu v, %zu vn, %zu f vs %zu, %zu", v, vn, fc,
          m.vertex_count, m.triangle_count);
    CHECK(!memcmp(first, m.positions, sizeof first), "obj first vertex %g %g %g", (double)first[0], (double)first[1], (double)first[2]);
    /* PLY: header counts, exact file size, the last triangle's indices */
    CHECK(eddy_mesh_write_ply(&m, "test_surface_box.ply", msg, sizeof msg) == EDDY_OK, "%s", msg);
    fp = fopen("test_surface_box.ply", "rb");
    size_t pv = 0, pf = 0;
    long header = 0, size = 0;
    unsigned char last[13] = {0};
    if (fp) {
        char line[256];
        while (fgets(line, sizeof line, fp)) {
            sscanf(line, "element vertex %zu", &pv);
            sscanf(line, "element face %zu", &pf);
            if (!strcmp(line, "end_header\n")) break;
        }
        header = ftell(fp);
        fseek(fp, -13, SEEK_END);
        CHECK(fread(last, 1, 13, fp) == 13, "ply read");
        fseek(fp, 0, SEEK_END);
        size = ftell(fp);
        fclose(fp);
    }
    uint32_t idx = (uint32_t)last[9] | (uint32_t)last[10] << 8 | (uint32_t)last[11] << 16 | (uint32_t)last[12] << 24;
    CHECK(pv == m.vertex_count && pf == m.triangle_count, "ply header %zu %zu", pv, pf);
    CHECK(size == header + (long)(24 * pv + 13 * pf), "ply size %ld, expected %ld", size, header + (long)(24 * pv + 13 * pf));
    CHECK(last[0] == 3 && idx == m.triangles[3 * m.triangle_count - 1], "ply last index %u vs %u", idx,
          m.triangles[3 * m.triangle_count - 1]);
    CHECK(eddy_mesh_write_ply(&m, "no/such/dir/b.ply", msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "no/such/dir/b.ply"),
          "bad path: %s", msg);
    printf("  box 24^3: %zu vertices, %zu triangles written and re-read (OBJ, PLY)\n", m.vertex_count, m.triangle_count);
    /* only an ordinary file is replaced: a folder, a pipe or a link at the path is refused and left as it was */
    CHECK(eddy_mesh_write_obj(&m, ".", msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "a directory"), "folder: %s", msg);
    remove("test_surface_fifo.ply");
    int fifo = mkfifo("test_surface_fifo.ply", 0644) == 0;
    struct stat sb;
    CHECK(!fifo || (eddy_mesh_write_ply(&m, "test_surface_fifo.ply", msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "not a regular file") &&
                    lstat("test_surface_fifo.ply", &sb) == 0 && S_ISFIFO(sb.st_mode)),
          "a pipe at the path was replaced: %s", msg);
    remove("test_surface_fifo.ply");
    int link = symlink("test_surface_box.ply", "test_surface_link.ply") == 0;
    CHECK(!link || (eddy_mesh_write_ply(&m, "test_surface_link.ply", msg, sizeof msg) == EDDY_ERR_IO && strstr(msg, "symbolic link") &&
                    lstat("test_surface_link.ply", &sb) == 0 && S_ISLNK(sb.st_mode)),
          "a link at the path was replaced: %s", msg);
    remove("test_surface_link.ply");
    /* nothing non-finite is written */
    float keep = m.positions[4];
    m.positions[4] = NAN;
    CHECK(eddy_mesh_write_obj(&m, "test_surface_nan.obj", msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT && strstr(msg, "vertex 1") &&
              !fopen("test_surface_nan.obj", "rb"),
          "NaN position written: %s", msg);
    m.positions[4] = keep;
    f[5] = NAN;
    CHECK(eddy_mesh_marching_cubes(s, f, N, 0, 0, &m) == EDDY_ERR_INVALID_ARGUMENT && strstr(eddy_surface_last_error(s), "(5, 0, 0) is NaN"),
          "NaN accepted: %s", eddy_surface_last_error(s));
    /* infinite values and values near the float range cross at finite points (inf/inf was NaN) */
    for (int pass = 0; pass < 2; pass++) {
        for (size_t p = 0; p < N; p++) {
            int i = (int)(p % 24), j = (int)(p / 24 % 24), k = (int)(p / 576);
            int in = (i - 11) * (i - 11) + (j - 12) * (j - 12) + (k - 12) * (k - 12) < 40;
            f[p] = pass == 0 ? (in ? -INFINITY : 1.0f) : (in ? -3e38f : 3e38f);
        }
        float level = pass == 0 ? 0.0f : 3e38f * 0.5f + 1e38f; /* pass 1: level - inside overflows float */
        CHECK(eddy_mesh_marching_cubes(s, f, N, level, 0, &m) == EDDY_OK && m.vertex_count > 0, "%s", eddy_surface_last_error(s));
        size_t bad = 0;
        for (size_t q = 0; q < 3 * m.vertex_count; q++) bad += !isfinite(m.positions[q]) || !isfinite(m.normals[q]);
        CHECK(bad == 0, "pass %d: %zu non-finite vertex values", pass, bad);
    }
    eddy_mesh_free(&m);
    free(f);
    eddy_surface_destroy(s);

    /* SVG: start offsets past the points, and non-finite points, are refused before anything is written */
    float pts[4] = {0.1f, 0.1f, 0.5f, 0.5f};
    uint32_t start[2] = {0, 1000};
    uint8_t closed[1] = {0};
    eddy_mesh_lines l = {pts, 2, start, closed, 1, {0, 0}, {1, 1}, 2, 1};
    CHECK(eddy_mesh_lines_write_svg(&l, "test_surface_bad.svg", 0, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "start[1] = 1000") && !fopen("test_surface_bad.svg", "rb"),
          "start past the points: %s", msg);
    start[1] = 2;
    pts[3] = INFINITY;
    CHECK(eddy_mesh_lines_write_svg(&l, "test_surface_bad.svg", 0, msg, sizeof msg) == EDDY_ERR_INVALID_ARGUMENT &&
              strstr(msg, "point 1"),
          "infinite point: %s", msg);
    remove("test_surface_bad.svg");

    /* marching squares across an infinite value: finite points */
    s = make_surface(2, 16);
    if (!s) return;
    N = eddy_surface_point_count(s);
    f = malloc(N * sizeof(float));
    for (size_t p = 0; p < N; p++) f[p] = (p % 16 > 4 && p % 16 < 10 && p / 16 > 4 && p / 16 < 10) ? INFINITY : 0.0f;
    eddy_mesh_lines lines = {0};
    CHECK(eddy_mesh_marching_squares(s, f, N, 0.5f, 1, &lines) == EDDY_OK && lines.point_count > 0, "%s", eddy_surface_last_error(s));
    size_t bad = 0;
    for (size_t q = 0; q < 2 * lines.point_count; q++) bad += !isfinite(lines.points[q]);
    CHECK(bad == 0, "marching squares over inf: %zu non-finite coordinates", bad);
    eddy_mesh_lines_free(&lines);
    free(f);
    eddy_surface_destroy(s);
}

/* ---------------------------------------------------------------- out of memory while building the output */

/* Real allocation failures, no fault hooks in the library: each extraction runs in a child process whose address
 * space (RLIMIT_AS) may grow by only `room` bytes. A binary search over room (to 4 KiB) finds where the extraction
 * just fits; every probe on the way that ran out of memory must have returned EDDY_ERR_OUT_OF_MEMORY with a message
 * and left the output as documented (squares: exactly as before the call; cubes: empty). The probes just below the
 * fit fail at the extraction's last allocation, which used to come after part of the output was written (the
 * lines' start/closed arrays, grown line by line; the mesh arrays, grown vertex by vertex). */
#if defined(__SANITIZE_ADDRESS__)
#define EDDY_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EDDY_TEST_UNDER_ASAN 1
#endif
#endif
#ifdef EDDY_TEST_UNDER_ASAN
/* AddressSanitizer's allocator aborts when the limit refuses it memory; this makes malloc return NULL instead, as
 * without it (its shadow memory is reserved before main, so the limit above the current size still works) */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }
#endif

/* a probe's exit codes: apart from 1, which a sanitizer's error report exits with */
enum { PROBE_BUILT = 10, PROBE_REFUSED_AS_DOCUMENTED, PROBE_BROKEN, PROBE_OTHER, PROBE_NO_LIMIT };

typedef struct oom_case {
    eddy_surface *s;
    const float *field;
    size_t count;
    size_t expect;                /* lines or triangles of the extraction when it fits */
    eddy_mesh_lines *lines;       /* squares: the caller's lines, holding an earlier result ... */
    const eddy_mesh_lines *saved; /* ... and a copy of it */
    eddy_mesh *mesh;              /* cubes: the caller's mesh, holding an earlier result */
} oom_case;

/* the process's address space in bytes (Linux /proc), 0 when unknown */
static size_t address_space_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    int ok = f && fscanf(f, "%lu", &pages) == 1;
    if (f) fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return ok && page > 0 ? (size_t)pages * (size_t)page : 0;
}

/* Runs probe(c) in a child whose address space may grow by `room` bytes beyond `base`; its exit code, or
 * 100 + signal when it was killed. */
static int run_with_room(size_t base, size_t room, int (*probe)(const oom_case *), const oom_case *c) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        struct rlimit lim;
        if (getrlimit(RLIMIT_AS, &lim) != 0) _exit(PROBE_NO_LIMIT);
        lim.rlim_cur = (rlim_t)(base + room);
        if (setrlimit(RLIMIT_AS, &lim) != 0) _exit(PROBE_NO_LIMIT);
        _exit(probe(c));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

static int same_lines(const eddy_mesh_lines *a, const eddy_mesh_lines *b) {
    return a->point_count == b->point_count && a->line_count == b->line_count &&
           !memcmp(a->bounds_min, b->bounds_min, sizeof a->bounds_min) && !memcmp(a->bounds_max, b->bounds_max, sizeof a->bounds_max) &&
           !memcmp(a->points, b->points, 2 * a->point_count * sizeof(float)) &&
           !memcmp(a->start, b->start, (a->line_count + 1) * sizeof(uint32_t)) && !memcmp(a->closed, b->closed, a->line_count);
}

static int squares_probe(const oom_case *c) {
    eddy_status st = eddy_mesh_marching_squares(c->s, c->field, c->count, 0.5f, 1, c->lines);
    if (st == EDDY_OK) return c->lines->line_count == c->expect ? PROBE_BUILT : PROBE_OTHER;
    if (st != EDDY_ERR_OUT_OF_MEMORY || !strstr(eddy_surface_last_error(c->s), "out of memory")) return PROBE_OTHER;
    if (same_lines(c->lines, c->saved)) return PROBE_REFUSED_AS_DOCUMENTED;
    fprintf(stderr, "  marching squares out of memory: lines changed from %zu lines, %zu points to %zu lines, %zu points\n",
            c->saved->line_count, c->saved->point_count, c->lines->line_count, c->lines->point_count);
    return PROBE_BROKEN;
}

static int cubes_probe(const oom_case *c) {
    eddy_status st = eddy_mesh_marching_cubes(c->s, c->field, c->count, 0.5f, 1, c->mesh);
    if (st == EDDY_OK) return c->mesh->triangle_count == c->expect ? PROBE_BUILT : PROBE_OTHER;
    if (st != EDDY_ERR_OUT_OF_MEMORY || !strstr(eddy_surface_last_error(c->s), "out of memory")) return PROBE_OTHER;
    if (c->mesh->vertex_count == 0 && c->mesh->triangle_count == 0) return PROBE_REFUSED_AS_DOCUMENTED;
    fprintf(stderr, "  marching cubes out of memory: a partial mesh of %zu vertices, %zu triangles was left (expected empty)\n",
            c->mesh->vertex_count, c->mesh->triangle_count);
    return PROBE_BROKEN;
}

static const char *probe_name(int code) {
    switch (code) {
    case PROBE_BUILT: return "built";
    case PROBE_REFUSED_AS_DOCUMENTED: return "out of memory, output as documented";
    case PROBE_BROKEN: return "out of memory, output left half-built";
    case PROBE_OTHER: return "another status or a wrong result";
    case PROBE_NO_LIMIT: return "setrlimit failed";
    default: return code < 0 ? "fork failed" : code >= 100 ? "killed by a signal" : "exited early (a sanitizer's report?)";
    }
}

static void out_of_memory_search(const char *what, int (*probe)(const oom_case *), const oom_case *c) {
    const size_t base = address_space_bytes();
    if (!base) {
        printf("  %s out of memory: skipped (no /proc/self/statm to measure the address space)\n", what);
        return;
    }
    size_t lo = (size_t)1 << 20, hi = (size_t)1 << 26; /* room: 1 MiB for the stack and stdio; these need ~10 MiB */
    struct rlimit lim;
    if (getrlimit(RLIMIT_AS, &lim) != 0 || (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < base + hi)) {
        printf("  %s out of memory: skipped (the hard RLIMIT_AS leaves less than %zu MiB of room)\n", what, hi >> 20);
        return;
    }
    int code = run_with_room(base, hi, probe, c);
    CHECK(code == PROBE_BUILT, "%s with %zu MiB of room: %s (%d)", what, hi >> 20, probe_name(code), code);
    if (code != PROBE_BUILT) return;
    int refused = 0;
    code = run_with_room(base, lo, probe, c);
    CHECK(code == PROBE_REFUSED_AS_DOCUMENTED, "%s with %zu MiB of room: %s (%d)", what, lo >> 20, probe_name(code), code);
    if (code != PROBE_REFUSED_AS_DOCUMENTED) return;
    refused++;
    while (hi - lo > 4096) {
        const size_t mid = lo + (hi - lo) / 2;
        code = run_with_room(base, mid, probe, c);
        CHECK(code == PROBE_BUILT || code == PROBE_REFUSED_AS_DOCUMENTED, "%s with %zu bytes of room: %s (%d)", what, mid,
              probe_name(code), code);
        if (code == PROBE_BUILT) hi = mid;
        else if (code == PROBE_REFUSED_AS_DOCUMENTED) lo = mid, refused++;
        else return;
    }
    printf("  %s: out of memory in %d probes, each leaving the output as documented; fits in %zu KiB of room\n", what, refused,
           hi >> 10);
}

static eddy_surface *make_serial_surface(int dim, int n) {
    eddy_surface_def d = eddy_surface_def_default();
    d.dim = dim;
    d.n[0] = d.n[1] = n;
    d.n[2] = dim == 3 ? n : 1;
    d.h = 1.0f / (float)(n - 1);
    d.threads = 1; /* OpenMP's thread pool does not survive fork */
    eddy_surface *s = NULL;
    char msg[256];
    CHECK(eddy_surface_create(&d, &s, msg, sizeof msg) == EDDY_OK, "%s", msg);
    return s;
}

/* 1 at the even points away from the faces (each one an isolated bump: one small loop / closed surface each),
 * else 0; `single` keeps only the bump nearest the middle. Returns the number of bumps. */
static size_t bumps(float *f, int n, int dim, int single) {
    const int nk = dim == 3 ? n : 1, mid = n / 2 & ~1;
    size_t count = 0;
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                const int interior = i >= 2 && j >= 2 && i < n - 2 && j < n - 2 && (dim == 2 || (k >= 2 && k < n - 2));
                const int even = !(i & 1) && !(j & 1) && !(k & 1);
                const int chosen = !single || (i == mid && j == mid && (dim == 2 || k == mid));
                const int bump = interior && even && chosen;
                f[(size_t)i + (size_t)n * ((size_t)j + (size_t)n * (size_t)k)] = bump ? 1.0f : 0.0f;
                count += (size_t)bump;
            }
    return count;
}

static void squares_out_of_memory(void) {
    /* the caller's lines hold one small loop; the probes extract ~65 000 loops (4 points each) into them */
    const int n = 512;
    eddy_surface *s = make_serial_surface(2, n);
    if (!s) return;
    const size_t N = eddy_surface_point_count(s);
    float *f = malloc(N * sizeof(float));
    eddy_mesh_lines lines = {0}, saved = {0};
    bumps(f, n, 2, 1);
    CHECK(eddy_mesh_marching_squares(s, f, N, 0.5f, 1, &lines) == EDDY_OK && lines.line_count == 1, "one bump: %zu lines",
          lines.line_count);
    saved = lines;
    saved.points = malloc(2 * lines.point_count * sizeof(float));
    saved.start = malloc((lines.line_count + 1) * sizeof(uint32_t));
    saved.closed = malloc(lines.line_count);
    memcpy(saved.points, lines.points, 2 * lines.point_count * sizeof(float));
    memcpy(saved.start, lines.start, (lines.line_count + 1) * sizeof(uint32_t));
    memcpy(saved.closed, lines.closed, lines.line_count);
    const size_t all_loops = bumps(f, n, 2, 0);
    const oom_case c = {s, f, N, all_loops, &lines, &saved, NULL};
    out_of_memory_search("marching squares", squares_probe, &c);
    eddy_mesh_lines_free(&saved);
    eddy_mesh_lines_free(&lines);
    free(f);
    eddy_surface_destroy(s);
}

static void cubes_out_of_memory(void) {
    /* the caller's mesh holds one small surface; the probes extract ~27 000 closed surfaces into it */
    const int n = 64;
    eddy_surface *s = make_serial_surface(3, n);
    if (!s) return;
    const size_t N = eddy_surface_point_count(s);
    float *f = malloc(N * sizeof(float));
    eddy_mesh mesh = {0};
    bumps(f, n, 3, 1);
    CHECK(eddy_mesh_marching_cubes(s, f, N, 0.5f, 1, &mesh) == EDDY_OK && mesh.triangle_count == 8, "one bump: %zu triangles",
          mesh.triangle_count);
    const size_t all_triangles = 8 * bumps(f, n, 3, 0); /* an octahedron each: one triangle in each of its 8 cubes */
    const oom_case c = {s, f, N, all_triangles, NULL, NULL, &mesh};
    out_of_memory_search("marching cubes", cubes_probe, &c);
    eddy_mesh_free(&mesh);
    free(f);
    eddy_surface_destroy(s);
}

/* Runs `part` in a child forked before anything large was allocated and freed: memory the allocator kept from
 * earlier tests would let the probes grow without touching the limit. */
static void in_fresh_process(void (*part)(void), const char *what) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        part();
        fflush(stdout);
        _exit(check_failures_ ? 1 : 0);
    }
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s out of memory: failed (status %d)", what, status);
}

static void out_of_memory(void) {
    in_fresh_process(squares_out_of_memory, "marching squares");
    in_fresh_process(cubes_out_of_memory, "marching cubes");
}

int main(int argc, char **argv) {
    int full = check_full_size(argc, argv); /* EDDY_FULL_SIZE */
    printf("out of memory (first, while the heap is fresh):\n");
    out_of_memory();
    printf("marching cubes:\n");
    for (int source = 0; source < 3; source++) sphere_case(64, source);
    if (full) {
        sphere_case(128, 2);
        sphere_case(256, 2);
    }
    random_cubes(full ? 64 : 20, full ? 12 : 6);
    printf("marching squares:\n");
    squares();
    printf("writers:\n");
    writers();
    remove("test_surface_circle.svg");
    remove("test_surface_box.obj");
    remove("test_surface_box.ply");
    return check_finish("test_surface_marching");
}
