/* eddy io: images, PNG, NumPy .npy, OpenVDB .vdb and video (through the ffmpeg program).
 *
 * Every writer writes a temporary file in the destination's folder and renames it over the destination only when
 * the whole file is written, so a reader never sees a partial file under the final name. Errors go into the
 * caller's `msg` buffer (may be NULL), naming the path and the reason (the errno string where there is one).
 * Nothing here prints, exits or aborts. See docs/files.md for the file layouts. */
#ifndef EDDY_IO_H
#define EDDY_IO_H

#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------------------------ */
/* Images                                                                                                        */

/** An 8-bit RGBA image: `rgba[4*(x + width*y)]` is pixel (x, y), row 0 at the top, colour sRGB-encoded,
 *  alpha straight (not premultiplied). The image owns `rgba`; free it with eddy_image_free. */
typedef struct eddy_image {
    int width, height; /**< pixels, >= 1 each */
    uint8_t *rgba;     /**< 4 * width * height bytes */
} eddy_image;

/** Allocates a width x height image of transparent black. On failure *img is zeroed. */
eddy_status eddy_image_init(eddy_image *img, int width, int height, char *msg, size_t msg_size);
/** Frees the pixels and zeroes the struct; safe on a zeroed or already freed image. */
void eddy_image_free(eddy_image *img);

/** Writes `size` bytes to `path` through a temporary file and a rename (for small text files: JSON, logs). */
eddy_status eddy_file_write(const char *path, const void *data, size_t size, char *msg, size_t msg_size);

/* ------------------------------------------------------------------------------------------------------------ */
/* PNG (libpng)                                                                                                  */

/** Writes an 8-bit PNG: RGBA when `with_alpha` is nonzero, else RGB (alpha dropped). Sides of at most 1000000
 *  pixels (libpng's limit; EDDY_ERR_INVALID_ARGUMENT beyond). */
eddy_status eddy_png_write(const char *path, const eddy_image *img, int with_alpha, char *msg, size_t msg_size);
/** Reads any PNG (grey, palette, 16-bit, with or without alpha) into a new RGBA8 image (free it with
 *  eddy_image_free); a 16-bit PNG with no colour-space chunk is read as sRGB, like an 8-bit one. A missing,
 *  truncated or non-PNG file gives EDDY_ERR_IO / EDDY_ERR_CORRUPT_FILE. */
eddy_status eddy_png_read(const char *path, eddy_image *img, char *msg, size_t msg_size);

/* ------------------------------------------------------------------------------------------------------------ */
/* NumPy .npy (format version 1.0)                                                                               */

/** Shape convention: arrays are C order with x fastest, so a field of layout n = (nx, ny, nz) is written with
 *  shape (nz, ny, nx) in 3D and (ny, nx) in 2D; velocity components keep their face grids ((ny, nx+1) for u in
 *  2D, ...). Element type is float32 little-endian ('<f4'). */
#define EDDY_NPY_MAX_DIMS 4

/** An array read from a .npy file; owns `data`. */
typedef struct eddy_npy {
    int ndim;                           /**< 0..EDDY_NPY_MAX_DIMS */
    size_t shape[EDDY_NPY_MAX_DIMS];    /**< C order: shape[ndim-1] varies fastest */
    size_t count;                       /**< product of the shape (1 for ndim 0) */
    float *data;                        /**< count floats */
} eddy_npy;

/** Writes `count` = prod(shape) floats as a '<f4' C-order array. */
eddy_status eddy_npy_write(const char *path, const float *data, int ndim, const size_t *shape,
                           char *msg, size_t msg_size);
/** Reads a .npy of '<f4' or '<f8' (converted to float), C order, version 1.x/2.x/3.x. Free with eddy_npy_free. */
eddy_status eddy_npy_read(const char *path, eddy_npy *out, char *msg, size_t msg_size);
void eddy_npy_free(eddy_npy *a);
/** Writes one simulation field (any of eddy_field, computed ones included) with the shape convention above. */
eddy_status eddy_npy_write_field(const char *path, eddy_sim *sim, eddy_field field, char *msg, size_t msg_size);

/* ------------------------------------------------------------------------------------------------------------ */
/* OpenVDB .vdb (optional at build time)                                                                         */

/** 1 when the library was built with OpenVDB, else 0 (the vdb calls then return EDDY_ERR_UNSUPPORTED). */
int eddy_vdb_available(void);

/** One grid to write: a dense array (x fastest) of `components` floats per voxel (1: FloatGrid, 3: Vec3SGrid
 *  from three separate arrays). Voxel (i,j,k) is centred at world position layout.origin + (i,j,k)*spacing.
 *  Values with |v| <= `tolerance` (all components) are left out (inactive, background 0), keeping the file sparse. */
typedef struct eddy_vdb_grid {
    const char *name;             /**< grid name, e.g. "density" */
    eddy_field_layout layout;     /**< n, spacing (m, may differ per axis), origin (m) */
    int components;               /**< 1 or 3 */
    const float *data[3];         /**< data[0] (and data[1], data[2] when components = 3) */
    float tolerance;              /**< default 0: only exact zeros are left out */
} eddy_vdb_grid;

/** Writes `count` grids into one .vdb file (half floats off, Blosc/zip compression as OpenVDB chooses). Grid names
 *  must differ; values, origins and tolerances must be finite (EDDY_ERR_INVALID_ARGUMENT, nothing written). */
eddy_status eddy_vdb_write(const char *path, const eddy_vdb_grid *grids, int count, char *msg, size_t msg_size);
/** Writes a 3D simulation's volumes as the grids: "density" (max of dye r,g,b), "color" (Vec3 dye), "temperature",
 *  "vel" (Vec3 velocity at cell centres, m/s), "pressure" (Pa). 2D simulations are written as one-voxel-thick
 *  volumes. Names follow Houdini/Blender conventions (docs/files.md). */
eddy_status eddy_vdb_write_sim(const char *path, eddy_sim *sim, char *msg, size_t msg_size);

/** A dense array read back from a .vdb grid, covering the grid's active voxel bounding box. Owns its data. */
typedef struct eddy_vdb_dense {
    int index_min[3];          /**< index-space coordinate of element (0,0,0) */
    eddy_field_layout layout;  /**< n, spacing and world origin of element (0,0,0) (from the grid transform) */
    int components;            /**< 1 or 3 */
    float *data[3];            /**< layout.count floats each; unused ones NULL */
} eddy_vdb_dense;
/** Reads the float or Vec3 grid named `name`. EDDY_ERR_NOT_FOUND when there is no such grid. */
eddy_status eddy_vdb_read(const char *path, const char *name, eddy_vdb_dense *out, char *msg, size_t msg_size);
void eddy_vdb_dense_free(eddy_vdb_dense *d);

/* ------------------------------------------------------------------------------------------------------------ */
/* Video through the ffmpeg program                                                                              */

typedef enum eddy_video_format {
    EDDY_VIDEO_MP4 = 0, /**< H.264 (libx264), yuv420p, CRF quality; odd sizes are padded to even */
    EDDY_VIDEO_GIF      /**< animated GIF with a per-video palette */
} eddy_video_format;

typedef struct eddy_video_def {
    int width, height;        /**< frame size in pixels (every frame must have it) */
    float fps;                /**< frames per second, > 0; default 30 */
    eddy_video_format format; /**< default MP4 */
    int crf;                  /**< H.264 constant rate factor 0..51, lower is better; default 18 */
    const char *ffmpeg;       /**< program to run; NULL = "ffmpeg" found on PATH */
    float stall_seconds;      /**< a frame ffmpeg takes no bytes of for this long fails the video (ffmpeg is stopped)
                                   instead of blocking forever; 0 = wait without limit; default 300 */
    float finish_seconds;     /**< after the last frame, ffmpeg has this long to finish the file and exit, else it is
                                   killed and the video is not written; 0 = wait without limit; default 300 */
} eddy_video_def;

eddy_video_def eddy_video_def_default(void);

/** 1 when `program` (NULL = "ffmpeg") can be run (found on PATH and executable), else 0. */
int eddy_ffmpeg_available(const char *program);

typedef struct eddy_video eddy_video;
/** Starts ffmpeg writing to a temporary file beside `path`. A missing ffmpeg gives EDDY_ERR_UNSUPPORTED with a
 *  message saying how to install it (`apt-get install ffmpeg`). */
eddy_status eddy_video_open(const char *path, const eddy_video_def *def, eddy_video **out, char *msg, size_t msg_size);
/** Sends one frame (alpha is ignored). A failing ffmpeg gives EDDY_ERR_IO with the end of its log, and so does one
 *  that takes no data for `stall_seconds` (it is then stopped, as in eddy_video_close). */
eddy_status eddy_video_write(eddy_video *v, const eddy_image *frame);
/** Finishes the video: waits for ffmpeg (at most `finish_seconds`) and renames the temporary file to the path only
 *  if ffmpeg exited 0; otherwise (ffmpeg exited with a status, was killed by a signal, or did not exit in time and
 *  was killed) removes it, leaving whatever was at the path untouched, and says which. An ffmpeg that is still not
 *  reaped 5 s after SIGKILL (stuck in the kernel) is given up on: close then fails naming its pid, and returns
 *  instead of waiting for ever. Frees `v` in every case. The outcome does not depend on the caller's SIGCHLD
 *  disposition (ffmpeg's exit status comes from a `/bin/sh` that runs it, started with posix_spawn, so it shares
 *  none of the caller's memory; it is signalled through a pidfd where the kernel has them, Linux 5.3+). As for any
 *  shell, a status of 129..192 may be an exit status or a signal (128 + n): it is reported as either. Neither ffmpeg
 *  nor any other child of the caller inherits the video's descriptors. */
eddy_status eddy_video_close(eddy_video *v, char *msg, size_t msg_size);
/** Stops ffmpeg, removes the temporary file and frees `v` (NULL is fine). */
void eddy_video_abort(eddy_video *v);
/** The detail of the last error on this video ("" when none). */
const char *eddy_video_last_error(const eddy_video *v);

#ifdef __cplusplus
}
#endif
#endif
