/* eddy: surfaces on plain grids — signed distance fields (from a density or any scalar, from analytic shapes,
 * re-initialisation of a level set), the Eikonal equation |grad phi| = 1 by fast sweeping (serial or a parallel
 * block wavefront with bit-identical results), and surface extraction (marching squares -> polylines -> SVG,
 * marching cubes -> triangle meshes with normals -> OBJ / binary PLY).
 *
 * Grids are point grids: value (i,j,k) sits at world position origin + (i,j,k) * h and is stored at
 * data[i + n[0]*(j + n[1]*k)] (x fastest), like every eddy field. A simulation field fits directly:
 * `eddy_surface_def_from_layout` turns its `eddy_field_layout` into a surface definition.
 *
 * Sign convention: a signed distance is negative inside, positive outside (like the obstacle shapes).
 * A density is "inside" where it is above the level (`inside_above` = 1); a level set where it is below.
 *
 * Typical use (a 3D dye field to a signed distance and a mesh):
 *     eddy_surface_def def; eddy_surface_def_from_layout(&layout, &def, msg, sizeof msg);
 *     eddy_surface *surf; eddy_surface_create(&def, &surf, msg, sizeof msg);
 *     eddy_sdf_from_field(surf, dye, count, 0.5f, 1, sdf);               // sdf: count floats, caller memory
 *     eddy_mesh mesh = {0};
 *     eddy_mesh_marching_cubes(surf, dye, count, 0.5f, 1, &mesh);
 *     eddy_mesh_write_ply(&mesh, "frame_0001.ply", msg, sizeof msg);
 *     eddy_mesh_free(&mesh); eddy_surface_destroy(surf);
 * Failures return a status; the detail is in `eddy_surface_last_error(surf)` or in the caller's `msg` buffer.
 * The library never prints, exits or aborts. One `eddy_surface` is not thread-safe; separate ones are independent. */
#ifndef EDDY_SURFACE_H
#define EDDY_SURFACE_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How the Eikonal sweeps run. Both give the same bytes (see docs/surfaces.md for why). */
typedef enum eddy_sweep_schedule {
    EDDY_SWEEP_AUTO = 0,   /**< the wavefront when more than one thread is used, else serial (default) */
    EDDY_SWEEP_SERIAL,     /**< textbook fast sweeping: 2^d lexicographic loops, one thread */
    EDDY_SWEEP_WAVEFRONT   /**< blocks of points run as OpenMP tasks once their upwind neighbour blocks are done */
} eddy_sweep_schedule;

/** A grid of points and the solver settings. Start from `eddy_surface_def_default()` (or `_from_layout`). */
typedef struct eddy_surface_def {
    int dim;            /**< 2 or 3; default 2 */
    int n[3];           /**< points per axis, 2 .. 2^24 each (n[2] is 1 in 2D), 2^31 in all; default 128 x 128 x 1 */
    float h;            /**< distance between neighbouring points, m, 1e-9 .. 1e9; default 1/128 */
    float origin[3];    /**< world position of point (0,0,0), m; default 0 */
    float max_distance; /**< narrow band, m: points farther than this from the interface get +-max_distance
                             (and the sweeps do no work there); 0 = whole grid (default) */
    float tolerance;    /**< sweeping stops after a round of 2^d sweeps in which no value changed by more than
                             this, m; 0 (default) = until a round changes nothing (the exact discrete solution) */
    int max_iterations; /**< rounds of 2^d sweeps at most; 0 = 64 (default). Stopping early is reported in the
                             stats (`converged` = 0), not as an error */
    int threads;        /**< OpenMP threads; 0 = OpenMP default (default) */
    eddy_sweep_schedule schedule; /**< default EDDY_SWEEP_AUTO */
    int block[3];       /**< wavefront block, points per axis, >= 1; 0 = default (2D 64 x 64, 3D 16 x 16 x 16) */
} eddy_surface_def;

/** What the last signed-distance call did. */
typedef struct eddy_sdf_stats {
    size_t pinned;       /**< points next to the interface whose distance was set directly (fixed by the sweeps) */
    int iterations;      /**< rounds of 2^d sweeps */
    int sweeps;          /**< single sweeps (iterations * 2^d) */
    float last_change;   /**< largest change of a value in the last round, m */
    int converged;       /**< 1 when the last round changed nothing by more than the tolerance */
    double seed_ms;      /**< wall time of the interface step, ms */
    double sweep_ms;     /**< wall time of the sweeps, ms */
} eddy_sdf_stats;

typedef struct eddy_surface eddy_surface;

/** Defaults: 2D, 128 x 128 points spaced 1/128 m, whole grid, exact convergence, OpenMP threads, auto schedule. */
eddy_surface_def eddy_surface_def_default(void);
/** A definition for a simulation field's layout (dim 3 when n[2] > 1). Fails when the spacing differs between axes
 *  (the sweeps assume square cells); other members keep their defaults. `msg` may be NULL. */
eddy_status eddy_surface_def_from_layout(const eddy_field_layout *layout, eddy_surface_def *def, char *msg,
                                         size_t msg_size);
/** Checks `def`; `msg` (may be NULL) names the first bad value. */
eddy_status eddy_surface_def_validate(const eddy_surface_def *def, char *msg, size_t msg_size);
/** Creates a surface workspace (masks and scheduler scratch for this grid, allocated once). On failure *out is
 *  NULL and `msg` (may be NULL) gets the reason. */
eddy_status eddy_surface_create(const eddy_surface_def *def, eddy_surface **out, char *msg, size_t msg_size);
void eddy_surface_destroy(eddy_surface *surf);
/** Detail of the last failure on this workspace ("" when none). */
const char *eddy_surface_last_error(const eddy_surface *surf);
const eddy_surface_def *eddy_surface_get_def(const eddy_surface *surf);
/** Points in the grid (n[0]*n[1]*n[2]); every array passed in or out has exactly this many elements. */
size_t eddy_surface_point_count(const eddy_surface *surf);
/** Statistics of the last eddy_sdf_* call. */
const eddy_sdf_stats *eddy_surface_stats(const eddy_surface *surf);

/* ---------------------------------------------------------------- signed distance */

/** Signed distance to the level set {field = level}: finds where the level crosses between neighbouring points
 *  (linear interpolation), sets the distance at the points next to it (`eddy_sdf_seed`), then fills the rest by
 *  fast sweeping (`eddy_sdf_sweep`). `inside_above` nonzero: values above the level are inside (densities);
 *  zero: values below are inside. `phi` (count floats, caller memory) receives the distance, m, negative inside.
 *  `phi` may equal `field` (in place). */
eddy_status eddy_sdf_from_field(eddy_surface *surf, const float *field, size_t count, float level, int inside_above,
                                float *phi);
/** As `eddy_sdf_from_field` with the level halfway between an inside and an outside density, inside on the
 *  inside density's side (densities that are adjacent floats: the outside density is the level). */
eddy_status eddy_sdf_from_densities(eddy_surface *surf, const float *field, size_t count, float inside_density,
                                    float outside_density, float *phi);
/** The interface step alone: at points with a face neighbour across the level, phi = the signed distance to the
 *  interface (from the crossings along each axis, exact for a planar interface); elsewhere phi = +-INFINITY
 *  carrying the sign. The pinned points are marked in `eddy_sdf_pinned_mask`. */
eddy_status eddy_sdf_seed(eddy_surface *surf, const float *field, size_t count, float level, int inside_above,
                          float *phi);
/** Fast sweeping: solves |grad phi| = 1 outward from the pinned points (Godunov upwind, Zhao 2005). On entry,
 *  pinned points hold their signed distance; every point's sign bit says inside (set) or outside, its magnitude is
 *  ignored where not pinned. `pinned` (count bytes, nonzero = pinned) or NULL for the mask of the last
 *  `eddy_sdf_seed`. With no pinned point at all the result is +-INFINITY (or +-max_distance with a narrow band). */
eddy_status eddy_sdf_sweep(eddy_surface *surf, float *phi, size_t count, const uint8_t *pinned);
/** Re-initialisation: replaces a level set (negative inside, any slope) in place by the signed distance to its
 *  zero level set. */
eddy_status eddy_sdf_reinitialize(eddy_surface *surf, float *phi, size_t count);
/** Exact signed distance to analytic shapes (sphere/circle, box, capsule, or a user callback), evaluated at every
 *  point (parallel over rows). Several shapes are joined (minimum): exact outside the union, and inside where the
 *  shapes do not overlap; `eddy_sdf_reinitialize` afterwards makes it exact everywhere up to the sweep error. */
eddy_status eddy_sdf_from_shapes(eddy_surface *surf, const eddy_obstacle_def *shapes, int shape_count, float *phi,
                                 size_t count);
/** Pinned points of the last `eddy_sdf_seed` / `_from_field` / `_reinitialize` (1 = pinned), count bytes;
 *  valid until the next call on `surf`. */
const uint8_t *eddy_sdf_pinned_mask(const eddy_surface *surf);

/* ---------------------------------------------------------------- extraction */

/** A triangle mesh. Zero-initialise (`eddy_mesh m = {0};`); extraction reuses its arrays; `eddy_mesh_free` frees. */
typedef struct eddy_mesh {
    float *positions;       /**< 3 per vertex, world m */
    float *normals;         /**< 3 per vertex, unit, pointing outside (from the field gradient) */
    uint32_t *triangles;    /**< 3 vertex indices per triangle, counter-clockwise seen from outside */
    size_t vertex_count, triangle_count;
    size_t vertex_capacity, triangle_capacity;
} eddy_mesh;

/** 2D polylines. Polyline p is points[2*start[p] .. 2*start[p+1]) (x, y in m); closed[p] = 1 when its last point
 *  joins its first (the first point is not repeated). Closed loops run counter-clockwise around the inside. */
typedef struct eddy_mesh_lines {
    float *points;
    size_t point_count;
    uint32_t *start;        /**< line_count + 1 entries */
    uint8_t *closed;        /**< line_count entries */
    size_t line_count;
    float bounds_min[2], bounds_max[2]; /**< the grid's extent, m (the SVG viewport) */
    size_t point_capacity, line_capacity;
} eddy_mesh_lines;

/** Marching cubes (3D): the surface {field = level} as triangles with one vertex per crossed grid edge (shared by
 *  the cubes around it, so a surface that closes inside the grid is watertight: every edge has two triangles).
 *  Ambiguous cube faces are resolved by the bilinear saddle (asymptotic decider), the same in both cubes sharing
 *  the face. Normals are the normalised field gradient (central differences), interpolated along the edge.
 *  On failure `mesh` never holds a partial surface: a failure before extraction starts (a bad argument, a NaN in
 *  the field) leaves it as it was; running out of memory (EDDY_ERR_OUT_OF_MEMORY) or past 2^31 vertices
 *  (EDDY_ERR_UNSUPPORTED) part-way leaves it empty (counts 0, arrays kept for reuse). */
eddy_status eddy_mesh_marching_cubes(eddy_surface *surf, const float *field, size_t count, float level,
                                     int inside_above, eddy_mesh *mesh);
/** Marching squares (2D): the curve {field = level} as polylines, joined across cells, closed where the curve
 *  closes inside the grid, open where it leaves the grid. Saddle cells use the asymptotic decider.
 *  On any failure (out of memory included) `lines` holds exactly what it held before the call (its arrays may
 *  have been reallocated larger). */
eddy_status eddy_mesh_marching_squares(eddy_surface *surf, const float *field, size_t count, float level,
                                       int inside_above, eddy_mesh_lines *lines);
void eddy_mesh_free(eddy_mesh *mesh);
void eddy_mesh_lines_free(eddy_mesh_lines *lines);

/** Surface area, m^2, and enclosed volume, m^3 (divergence theorem; exact for a closed mesh). 0 for a NULL mesh;
 *  NaN for a mesh that cannot be read as it says (NULL arrays with triangles, an index >= vertex_count). */
double eddy_mesh_area(const eddy_mesh *mesh);
double eddy_mesh_volume(const eddy_mesh *mesh);
/** Total length of the polylines, m (closing segments included). 0 for NULL lines; NaN for lines whose arrays are
 *  NULL or whose `start` offsets do not begin at 0, decrease or run past `point_count`. */
double eddy_mesh_lines_length(const eddy_mesh_lines *lines);
/** Edge check: `boundary` = edges used by one triangle, `nonmanifold` = edges used by more than two or twice in
 *  the same direction (inconsistent orientation). A closed, consistently oriented mesh has 0 and 0. Reads only the
 *  triangles: NULL triangles with a nonzero count or an index >= vertex_count fail (EDDY_ERR_INVALID_ARGUMENT). */
eddy_status eddy_mesh_edge_check(const eddy_mesh *mesh, size_t *boundary, size_t *nonmanifold, char *msg,
                                 size_t msg_size);

/** Writers. Each writes a unique temporary file `path`.tmp-XXXXXX beside `path` and renames it to `path` when
 *  complete, so a reader never sees a partial file; an existing `path` that is not a regular file (directory,
 *  device, pipe, symbolic link) is refused, never replaced. Non-finite positions or normals, indices out of range
 *  and polyline offsets past the points are refused before anything is written. On failure the message (in `msg`,
 *  may be NULL) names the path or the bad value and the reason.
 *  OBJ: "v", "vn" and "f a//a b//b c//c" lines (1-based). PLY: binary_little_endian 1.0, float x y z nx ny nz,
 *  faces as uchar count + int indices. SVG: one path per polyline, y up, `width_px` wide (0 = 512). */
eddy_status eddy_mesh_write_obj(const eddy_mesh *mesh, const char *path, char *msg, size_t msg_size);
eddy_status eddy_mesh_write_ply(const eddy_mesh *mesh, const char *path, char *msg, size_t msg_size);
eddy_status eddy_mesh_lines_write_svg(const eddy_mesh_lines *lines, const char *path, int width_px, char *msg,
                                      size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
