/* eddy render: pictures of a simulation — dye with the classic WebGL demo's post-processing, scalar views with
 * perceptual colour maps and a colour bar, slices of 3D fields, a ray-marched volume with self-shadowing, and
 * flipbook sprite sheets. Every option, its unit and its default: docs/rendering.md.
 *
 * Usage:
 *   eddy_renderer *r; eddy_renderer_create(0, &r, msg, sizeof msg);
 *   eddy_render_def def = eddy_render_def_default(); def.bloom = 1;
 *   eddy_image img = {0};
 *   eddy_render_sim(r, sim, &def, &img);      // (re)allocates img only when its size changes
 *   eddy_png_write("frame.png", &img, 0, msg, sizeof msg);
 *   eddy_image_free(&img); eddy_renderer_destroy(r);
 *
 * A renderer keeps its scratch buffers between calls (a steady render of the same size allocates nothing); it is
 * not thread-safe, use one per thread. Renderers are independent of simulations: one can draw many. */
#ifndef EDDY_RENDER_H
#define EDDY_RENDER_H

#include "io.h"
#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What a 2D picture or a slice shows. */
typedef enum eddy_view {
    EDDY_VIEW_DYE = 0,     /**< dye r,g,b as colour (linear values, tonemapped, sRGB-encoded), post-processing */
    EDDY_VIEW_SPEED,       /**< |u|, m/s, sequential map */
    EDDY_VIEW_VORTICITY,   /**< curl (2D: signed, diverging map; 3D: |curl|, sequential), 1/s */
    EDDY_VIEW_PRESSURE,    /**< Pa, diverging map */
    EDDY_VIEW_DIVERGENCE,  /**< div u, 1/s, diverging map */
    EDDY_VIEW_TEMPERATURE, /**< K above ambient, sequential (inferno-like) map */
    EDDY_VIEW_U,           /**< x velocity at cell centres, m/s, diverging map */
    EDDY_VIEW_V,           /**< y velocity, diverging */
    EDDY_VIEW_W,           /**< z velocity (3D), diverging */
    EDDY_VIEW_LIQUID,      /**< a liquid surface: the zero level of a signed distance (negative inside), shaded as a
                                rounded liquid with an anti-aliased edge. eddy_render_sim: the distance to where the
                                total dye r+g+b crosses liquid_level; eddy_render_input_2d: `scalar` holds it (m) */
    EDDY_VIEW_COUNT
} eddy_view;

/** Colour maps. Sequential maps rise monotonically in CIELAB lightness; the diverging map is white (lightest) at
 *  the centre and falls symmetrically to blue and red. All are interpolated in CIELAB between a few anchors. */
typedef enum eddy_colormap {
    EDDY_COLORMAP_AUTO = 0,  /**< the view's own: viridis (speed, 3D vorticity), inferno (temperature), diverging */
    EDDY_COLORMAP_VIRIDIS,   /**< sequential, dark blue-violet -> teal -> yellow */
    EDDY_COLORMAP_INFERNO,   /**< sequential, black -> purple -> orange -> pale yellow */
    EDDY_COLORMAP_GREY,      /**< sequential, black -> white, linear in lightness */
    EDDY_COLORMAP_DIVERGING, /**< blue -> white -> red */
    EDDY_COLORMAP_COUNT
} eddy_colormap;

/** How linear dye values map into [0,1] before sRGB encoding. */
typedef enum eddy_tonemap {
    EDDY_TONEMAP_CLAMP = 0, /**< min(v, 1) (default; the classic demo's look) */
    EDDY_TONEMAP_REINHARD,  /**< v / (1 + v) */
    EDDY_TONEMAP_ACES       /**< Narkowicz's ACES filmic fit */
} eddy_tonemap;

/** Names for the command line and scene files ("dye", "speed", ...; "viridis", ...; "clamp", ...).
 *  `*_from_name` return EDDY_ERR_INVALID_ARGUMENT for an unknown name. */
const char *eddy_view_name(eddy_view view);
eddy_status eddy_view_from_name(const char *name, eddy_view *out);
const char *eddy_colormap_name(eddy_colormap map);
eddy_status eddy_colormap_from_name(const char *name, eddy_colormap *out);
const char *eddy_tonemap_name(eddy_tonemap tm);
eddy_status eddy_tonemap_from_name(const char *name, eddy_tonemap *out);

/** Colour of map `map` at t in [0,1] (clamped; NaN gives t = 0) as sRGB-encoded values in [0,1].
 *  EDDY_COLORMAP_AUTO evaluates viridis. */
void eddy_colormap_eval(eddy_colormap map, float t, float srgb[3]);

/** A 2D picture (or a slice of a 3D simulation). Start from eddy_render_def_default(). */
typedef struct eddy_render_def {
    eddy_view view;          /**< default DYE */
    int width, height;       /**< output pixels; both 0 (default) = one pixel per scalar (dye) cell of the plane
                                  shown; one 0 = derived from the other keeping the box's aspect ratio */
    /* 3D simulations: the plane shown. Axis 2 shows x right, y up; axis 1: x right, z up; axis 0: z right, y up. */
    int slice_axis;          /**< 0, 1 or 2; default 2 */
    int slice_index;         /**< >= 0: this scalar-cell layer; -1 (default): use slice_position */
    float slice_position;    /**< world coordinate along slice_axis, m, when slice_index < 0; NaN (default) = middle */

    /* dye view */
    float exposure;          /**< multiplies dye before tonemapping; default 1 */
    eddy_tonemap tonemap;    /**< default CLAMP */
    float background[3];     /**< linear RGB under the dye (added where dye is thin); default 0,0,0 */
    int transparent;         /**< nonzero: alpha = coverage = max(r,g,b) after tonemapping, colour = dye/alpha; the
                                  background is not drawn (PNG with alpha for games and web pages); default 0 */
    /* normal-mapped Phong shading from luminance (the demo's SHADING) */
    int shading;             /**< default 0 */
    float bump_scale;        /**< height of the luminance surface per unit luminance, in dye cells; default 8 */
    float ambient;           /**< ambient weight; default 0.7 */
    float diffuse;           /**< diffuse (Lambert) weight; default 0.3 */
    float specular;          /**< specular (Phong) weight; default 0 */
    float shininess;         /**< Phong exponent; default 32 */
    float light_dir[3];      /**< towards the light, image axes (x right, y up, z out of the screen); default 0,0,1 */
    /* bloom (the demo's BLOOM): soft-knee bright pass, blurred through a pyramid of half-size levels, added */
    int bloom;               /**< default 0 */
    float bloom_threshold;   /**< luminance where bloom starts; default 0.6 */
    float bloom_soft_knee;   /**< 0 (hard) .. 1 (soft) transition around the threshold; default 0.7 */
    float bloom_intensity;   /**< weight of the added glow; default 0.8 */
    int bloom_levels;        /**< pyramid levels, 1..12 (fewer when the image gets small); default 6 */
    /* edge highlighting: Sobel gradient magnitude of luminance brightens edges */
    int edges;               /**< default 0 */
    float edge_strength;     /**< a unit luminance step across one dye cell adds strength * edge_color; default 1 */
    float edge_color[3];     /**< linear RGB added at edges, times strength and gradient; default 1,1,1 */

    /* scalar views (speed, vorticity, pressure, divergence, temperature, u, v, w) */
    eddy_colormap colormap;  /**< default AUTO */
    float range_min, range_max; /**< value range mapped onto the colour map; equal (default 0,0) = automatic:
                                     [min,max] of the plane for sequential maps, [-m,m] with m = max|v| for diverging */
    int colorbar;            /**< nonzero: a colour bar with min/max labels along the right edge; default 0 */

    /* liquid view */
    float liquid_level;      /**< eddy_render_sim: the surface lies where the total dye r+g+b crosses this (more dye =
                                  liquid); default 0.5 */
    float liquid_color[3];   /**< linear RGB of the liquid, lit by the built-in light; default 0.02, 0.22, 0.7 */

    /* every view */
    int draw_obstacles;      /**< solid cells drawn flat in obstacle_color; default 1 */
    uint8_t obstacle_color[4]; /**< sRGB + alpha; default 128,128,128,255 */
} eddy_render_def;

eddy_render_def eddy_render_def_default(void);
/** Checks a definition; `msg` (may be NULL) names the first bad value. */
eddy_status eddy_render_def_validate(const eddy_render_def *def, char *msg, size_t msg_size);

/** The largest side of a 2D picture, pixels. */
#define EDDY_RENDER_MAX_SIDE 16384

/** The size of the 2D picture eddy_render_sim makes with `def` of a simulation created from `sim_def`, without the
 *  simulation (e.g. to check a scene before running it): width and height as `def` gives them, a side left at 0
 *  derived as eddy_render_def says (both 0: one pixel per dye cell of the plane shown, grid x dye_scale; one 0: from
 *  the other with the box's aspect ratio, at least 1 pixel). eddy_render_sim uses this. EDDY_ERR_INVALID_ARGUMENT
 *  with `msg` (may be NULL) naming the size and where it came from when a side would exceed EDDY_RENDER_MAX_SIDE,
 *  or naming the bad value of an invalid `def` or `sim_def`, or, for a 3D simulation, a slice_index past the last
 *  dye cell along slice_axis or a slice_position outside the box (what eddy_render_sim refuses, in its words; 2D
 *  simulations ignore the slice options); *width and *height are then 0. */
eddy_status eddy_render_size(const eddy_render_def *def, const eddy_sim_def *sim_def, int *width, int *height,
                             char *msg, size_t msg_size);

/** A pinhole camera. */
typedef struct eddy_camera {
    float position[3]; /**< m (world) */
    float target[3];   /**< point looked at, m */
    float up[3];       /**< approximate up direction; default 0,1,0 */
    float fov;         /**< vertical field of view, degrees, 0.01 .. 179; default 40 */
} eddy_camera;

/** A ray-marched volume rendering of dye (3D). Density is max(r,g,b); its colour (albedo) is dye / density.
 *  Single scattering of one directional light with self-shadowing from a precomputed light transmittance volume,
 *  plus an ambient term. Start from eddy_volume_def_default(). */
typedef struct eddy_volume_def {
    int width, height;         /**< pixels; default 512 x 512 */
    eddy_camera camera;        /**< all zero position and target (default) = automatic: looking at the box centre
                                    from the +z side, a little above, framing the whole box */
    float density_scale;       /**< optical thickness of unit density across the box's largest side; default 20 */
    float step;                /**< ray-march step in scalar cells, 0.01 .. 4; default 0.5. No sample moves more than
                                    `step` cells along any axis: a ray steps `step` x the smallest cell side, or
                                    `step`/2 cells along the axis it crosses fastest where that is longer (uneven
                                    cells; with cubic cells it never is), so a ray takes at most about
                                    2 x (the most cells along an axis) / step samples however thin the cells */
    float light_dir[3];        /**< towards the light (world); default 0.4, 1, 0.3 (normalised) */
    float light_color[3];      /**< linear RGB times intensity; default 1,1,1 (x light_intensity) */
    float light_intensity;     /**< default 1.2 */
    float ambient;             /**< ambient (sky) light, linear; default 0.25 */
    int shadows;               /**< self-shadowing; default 1 */
    float exposure;            /**< default 1 */
    eddy_tonemap tonemap;      /**< default ACES */
    float background[3];       /**< linear RGB; default 0.02,0.02,0.03 */
    int transparent;           /**< alpha = 1 - transmittance, colour unpremultiplied; default 0 */
    int draw_obstacles;        /**< solid cells as opaque shaded grey surfaces; default 1 */
} eddy_volume_def;

eddy_volume_def eddy_volume_def_default(void);
eddy_status eddy_volume_def_validate(const eddy_volume_def *def, char *msg, size_t msg_size);

/** Plain arrays to render when the data is not in an eddy_sim (tests, tools, the wind module).
 *  Each array is cell-centred, x fastest, and covers the whole box evenly: element (i,j,k) of an array of n cells
 *  sits at box_min + (i+0.5, j+0.5, k+0.5) * box_size / n. Arrays may have different resolutions. */
typedef struct eddy_render_input {
    int dim;                 /**< 2 or 3 */
    float box_min[3];        /**< m */
    float box_size[3];       /**< m, > 0 (box_size[2] ignored in 2D) */
    int dye_n[3];            /**< cells of the dye arrays (n[2] = 1 in 2D) */
    const float *dye[3];     /**< r, g, b; NULL reads as 0 */
    int scalar_n[3];         /**< cells of `scalar` */
    const float *scalar;     /**< the value of a scalar view (its unit is the view's); NULL reads as 0 */
    int solid_n[3];          /**< cells of `solid` */
    const uint8_t *solid;    /**< nonzero = solid; NULL = none */
} eddy_render_input;

typedef struct eddy_renderer eddy_renderer;
/** `threads`: OpenMP threads for rendering, 0 = OpenMP default. Results do not depend on the thread count. */
eddy_status eddy_renderer_create(int threads, eddy_renderer **out, char *msg, size_t msg_size);
void eddy_renderer_destroy(eddy_renderer *r);
/** The detail of the last error ("" when none). */
const char *eddy_renderer_last_error(const eddy_renderer *r);
/** The value range the last scalar view used (after automatic ranging), e.g. for a legend. */
void eddy_renderer_last_range(const eddy_renderer *r, float *min, float *max);

/** Where the last 2D render (eddy_render_sim or eddy_render_input_2d) spent its wall-clock time, ms: for
 *  benchmarks and frame-time displays. The parts add up to the whole call, less argument checks. */
typedef struct eddy_render_timing {
    double gather_ms;   /**< reading the simulation's fields (eddy_render_sim only) */
    double draw_ms;     /**< fields to linear colour, tonemapping and sRGB encoding (or colour-mapping) */
    double post_ms;     /**< post-processing: shading, bloom, edges */
    double overlay_ms;  /**< obstacles and the colour bar drawn over the picture */
} eddy_render_timing;
void eddy_renderer_last_timing(const eddy_renderer *r, eddy_render_timing *out);

/** Renders a 2D view (of a 2D simulation, or a slice of a 3D one) into `img`. `img` must be zeroed or a valid
 *  image; it is reallocated only when its size differs from the output size. Reads fields through the public
 *  API (the simulation is not changed). */
eddy_status eddy_render_sim(eddy_renderer *r, eddy_sim *sim, const eddy_render_def *def, eddy_image *img);
/** The same from plain arrays (a 3D input is sliced as def says). */
eddy_status eddy_render_input_2d(eddy_renderer *r, const eddy_render_input *in, const eddy_render_def *def,
                                 eddy_image *img);
/** Volume rendering of a 3D simulation's dye (and obstacles). */
eddy_status eddy_render_volume_sim(eddy_renderer *r, eddy_sim *sim, const eddy_volume_def *def, eddy_image *img);
/** The same from plain arrays (in->dim must be 3). */
eddy_status eddy_render_volume_input(eddy_renderer *r, const eddy_render_input *in, const eddy_volume_def *def,
                                     eddy_image *img);

/* ---- image helpers ---- */
/** Resamples `src` to width x height into `dst` (area average when shrinking, bilinear when growing).
 *  `dst` must be zeroed or a valid image, and not `src` nor a copy of it sharing its pixels
 *  (EDDY_ERR_INVALID_ARGUMENT). */
eddy_status eddy_image_resize(const eddy_image *src, int width, int height, eddy_image *dst, char *msg, size_t msg_size);
/** Dye from a picture (an initial condition): the image is resampled to nx x ny cells, flipped so the top row
 *  becomes max y, sRGB-decoded to linear and multiplied by alpha. dye[c] hold nx*ny floats each, x fastest. */
eddy_status eddy_dye_from_image(const eddy_image *img, int nx, int ny, float *const dye[3], char *msg, size_t msg_size);

/* ---- drawing overlays into an image (particles, arrows) ----
 * Coordinates are in pixels, continuous: pixel (i, j) covers [i, i+1) x [j, j+1), row 0 at the top, so its centre
 * is (i + 0.5, j + 0.5). Shapes are anti-aliased (coverage ramps from 1 to 0 over one pixel at the edge), blended
 * "over" the image with `rgba` (sRGB bytes, alpha = opacity) and clipped to it. A shape thinner than a pixel is
 * drawn one pixel wide at a proportionally lower opacity (it keeps its ink). EDDY_ERR_INVALID_ARGUMENT for an empty
 * image, a NULL colour, a coordinate that is not finite or a negative size. Serial; nothing is allocated. */
/** A filled disc of `radius` pixels centred at (x, y). */
eddy_status eddy_image_draw_point(eddy_image *img, float x, float y, float radius, const uint8_t rgba[4]);
/** A line from (x0, y0) to (x1, y1), `width` pixels wide, with round ends. */
eddy_status eddy_image_draw_line(eddy_image *img, float x0, float y0, float x1, float y1, float width,
                                 const uint8_t rgba[4]);
/** An arrow from (x0, y0) to its tip (x1, y1): the line plus a head of two strokes `head` pixels long at +-25
 *  degrees to the shaft, drawn in one pass (the strokes do not blend twice where they meet). */
eddy_status eddy_image_draw_arrow(eddy_image *img, float x0, float y0, float x1, float y1, float width, float head,
                                  const uint8_t rgba[4]);

/* ---- flipbook sprite sheets ---- */
/** columns x rows frames of frame_width x frame_height pixels tiled into one image, filled row by row from the
 *  top left. Start from eddy_flipbook_def_default(). */
typedef struct eddy_flipbook_def {
    int columns, rows;               /**< default 8 x 8 */
    int frame_width, frame_height;   /**< pixels per frame; default 128 x 128 */
    float fps;                       /**< playback rate written to the JSON; default 30 */
} eddy_flipbook_def;

eddy_flipbook_def eddy_flipbook_def_default(void);

typedef struct eddy_flipbook eddy_flipbook;
eddy_status eddy_flipbook_create(const eddy_flipbook_def *def, eddy_flipbook **out, char *msg, size_t msg_size);
void eddy_flipbook_destroy(eddy_flipbook *fb);
/** Adds the next frame, resampled to the frame size when it differs. EDDY_ERR_INVALID_ARGUMENT when full. */
eddy_status eddy_flipbook_add(eddy_flipbook *fb, const eddy_image *frame, char *msg, size_t msg_size);
/** Frames added so far; the sheet holds columns*rows. */
int eddy_flipbook_count(const eddy_flipbook *fb);
/** The sheet image as it stands (unfilled cells are transparent). */
const eddy_image *eddy_flipbook_image(const eddy_flipbook *fb);
/** Writes the sheet as an RGBA PNG at `png_path` and a JSON beside it (same path with ".json" in place of
 *  ".png", or appended): {"image", "columns", "rows", "frame_width", "frame_height", "frame_count", "fps",
 *  "order": "row-major from top-left"}. */
eddy_status eddy_flipbook_write(const eddy_flipbook *fb, const char *png_path, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif
#endif
