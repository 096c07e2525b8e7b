/* Scenes: a JSON file (docs/scenes.md) checked against its schema and turned into a simulation definition plus
 * the things the command drives around it (moving obstacles, splats, paths, initial fields, probes, pictures).
 * Every error names the file, the key path ("obstacles[0].radius") and what was expected. */
#ifndef EDDY_CLI_SCENE_H
#define EDDY_CLI_SCENE_H

#include "eddy/eddy.h"
#include "eddy/render.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCENE_ERROR_SIZE 1024
/* `eddy run` stops a frame that needs more steps than this (the flow is blowing up); the loader refuses an fps for
 * which a frame needs more even at the scene's largest step */
#define SCENE_MAX_STEPS_PER_FRAME 1000000
/* render.volume.step, in cells: below this the ray march's samples (up to 1/step per cell crossed) make a frame take
 * hours, and a step far below float precision of the ray distance stops the march from advancing at all */
#define SCENE_VOLUME_STEP_MIN 0.01

/* A moving point: a circle, a figure-eight (Lissajous 1:2) or piecewise-linear keyframes. */
typedef enum scene_path_type { SCENE_PATH_NONE = 0, SCENE_PATH_CIRCLE, SCENE_PATH_FIGURE8, SCENE_PATH_KEYFRAMES } scene_path_type;

typedef struct scene_keyframe {
    double time;     /* s */
    float position[3]; /* m */
} scene_keyframe;

typedef struct scene_path {
    scene_path_type type;
    float center[3];   /* m (circle, figure-eight) */
    float radius;      /* m (circle) */
    float extent[2];   /* m, half width and half height (figure-eight) */
    int plane[2];      /* axes spanned by circle / figure-eight: (0,1) = xy by default */
    double period;     /* s per turn */
    double phase;      /* turns, 0..1 */
    scene_keyframe *keys; /* keyframes, increasing time */
    int key_count;
    bool loop;         /* keyframes repeat with period keys[last].time - keys[0].time */
} scene_path;

/* Position (m) and velocity (m/s) of a path at time t (s). */
void scene_path_eval(const scene_path *p, double t, int dim, float pos[3], float vel[3]);

typedef struct scene_obstacle {
    eddy_obstacle_def def; /* center is the position at t = 0 */
    bool moving;           /* velocity != 0: translates with def.velocity */
    scene_path path;       /* SCENE_PATH_NONE unless it follows a path */
} scene_obstacle;

typedef struct scene_emitter {
    eddy_emitter_def def;
    scene_path path;
} scene_emitter;

typedef struct scene_splat {
    double time; /* s */
    int index;   /* position in the scene file (ties in time keep this order) */
    eddy_splat splat;
} scene_splat;

typedef struct scene_random_splats {
    int count;        /* total number of splats; 0 = none */
    double rate;      /* splats per second; 0 = all at `start` */
    double start;     /* s */
    unsigned long long seed;
    float radius;     /* m */
    float speed;      /* m/s, largest velocity added */
    float intensity;  /* dye brightness of the random colours */
} scene_random_splats;

typedef struct scene_splat_path {
    scene_path path;
    float radius;      /* m */
    float force;       /* m/s^2 along the direction of motion */
    float dye[3];      /* dye per second */
    float temperature; /* K per second */
    double start, end; /* s; end 0 = forever */
} scene_splat_path;

typedef enum scene_flow { SCENE_FLOW_NONE = 0, SCENE_FLOW_TAYLOR_GREEN, SCENE_FLOW_SHEAR_LAYER } scene_flow;

/* Initial state. File paths are resolved (relative to the scene file) and checked to exist. */
typedef struct scene_initial {
    scene_flow flow;
    float amplitude;   /* m/s */
    char *u, *v, *w, *pressure, *temperature; /* .npy paths or NULL */
    char *dye;         /* .npy (3 channels or 1) or .png path, or NULL */
} scene_initial;

typedef struct scene_probe {
    char *name;
    float position[3];
} scene_probe;

/* How frames are drawn: the render module's definitions, filled from the scene's "render" object. */
typedef struct scene_render {
    eddy_render_def picture; /* 2D pictures and 3D slices */
    int scale;               /* 2D: output pixels per dye cell when width and height are not given */
    bool volume;             /* 3D: ray-marched volume (default) rather than a slice */
    eddy_volume_def vol;
} scene_render;

typedef enum scene_video { SCENE_VIDEO_NONE = 0, SCENE_VIDEO_MP4, SCENE_VIDEO_GIF } scene_video;

typedef struct scene_output {
    char *dir;         /* default "out" */
    double fps;        /* frames per second of simulated time */
    bool png;          /* write frame_NNNN.png */
    scene_video video;
    bool sheet;        /* write a flipbook sprite sheet */
    eddy_flipbook_def sheet_def;
    bool vdb;          /* 3D: .vdb volumes every dump */
    int dump;          /* .npy fields every N frames, 0 = never */
    int checkpoint;    /* checkpoint every N frames, 0 = never */
    float video_finish_seconds; /* s ffmpeg has to finish the video after the last frame (eddy_video_def), 0 = no limit */
} scene_output;

/* Surfaces (--surface, "surface"): the signed distance of a field at a level, in the dumps, and meshes per frame. */
typedef enum scene_surface_field {
    SCENE_SURFACE_DYE = 0,   /* r + g + b */
    SCENE_SURFACE_DYE_R, SCENE_SURFACE_DYE_G, SCENE_SURFACE_DYE_B,
    SCENE_SURFACE_TEMPERATURE
} scene_surface_field;

typedef struct scene_surface {
    bool on;
    scene_surface_field field;
    float level;       /* inside where the field is above it */
    bool meshes;       /* surface_NNNNN.svg (2D) / .ply or .obj (3D) every frame */
    bool obj;          /* 3D meshes as OBJ rather than binary PLY */
    float band;        /* m: narrow band of the signed distance, 0 = the whole grid */
} scene_surface;

/* A wind scene ("wind" at the top level): a player walking a path through the game wind field (eddy/wind.h),
 * stirring it with a sphere collider; particles carried by the wind; a map of the window seen from above. */
typedef struct scene_wind_render {
    int width, height;       /* pixels; height 0 = from the window's aspect */
    eddy_colormap colormap;  /* speed colours of the slice and the particles */
    float range[2];          /* m/s; equal = automatic [0, the frame's largest speed] */
    bool slice;              /* the colour-mapped speed in the plane of the player's height, as the background */
    float slice_brightness;  /* its brightness factor, 0..1 */
    bool particles;
    float particle_radius;   /* pixels */
    float particle_opacity;  /* 0..1 */
    bool arrows;
    float arrow_spacing;     /* m */
    float arrow_scale;       /* s: metres of arrow per m/s of wind */
    float arrow_width;       /* pixels */
    uint8_t arrow_color[4];  /* sRGB bytes + alpha */
    bool player;             /* draw the collider */
    uint8_t player_color[4];
} scene_wind_render;

typedef struct scene_wind {
    eddy_wind_def def;           /* center: set from the player's path at t = 0 */
    eddy_particles_def particles;
    scene_path path;             /* the player's walk */
    float radius;                /* m, the player's sphere collider */
    scene_wind_render render;
} scene_wind;

typedef struct eddy_scene {
    char *name;
    char *description;
    char *file;        /* where it came from (for messages), e.g. "scenes/smoke.json" or "preset:smoke" */
    char *base_dir;    /* relative file paths are resolved against this */
    char *json;        /* the checked scene, overrides applied, printed compactly (stored in checkpoints) */
    eddy_sim_def def;
    double duration;   /* s */
    scene_obstacle *obstacles; int obstacle_count;
    scene_emitter *emitters; int emitter_count;
    scene_splat *splats; int splat_count;         /* sorted by time */
    scene_random_splats random_splats;
    scene_splat_path *splat_paths; int splat_path_count;
    scene_initial initial;
    scene_probe *probes; int probe_count;
    scene_render render;
    scene_output output;
    scene_surface surface;
    scene_wind *wind;  /* a wind scene when not NULL: def, obstacles, ... are unused */
} eddy_scene;

typedef struct scene_load_options {
    const char *const *overrides; /* "key.path=value" strings, may be NULL */
    int override_count;
    bool check_files;            /* check that files named by the scene exist (off when resuming) */
    bool check_memory;           /* refuse grids that do not fit in this machine's memory */
    bool surface;                /* --surface: as if the scene said "surface": true when it has no "surface" key */
    bool check_picture_size;     /* `eddy run`: refuse pictures and sprite sheets larger than the renderer makes (off by
                                    default: resuming and the viewer do not draw the scene's pictures again at load) */
    bool video;                  /* with check_picture_size: a video is wanted (not --no-video), so pictures are drawn */
} scene_load_options;

scene_load_options scene_load_options_default(void);
/* A frame of 1/fps seconds fits in SCENE_MAX_STEPS_PER_FRAME steps at the scene's largest step (dt, or max_dt);
 * false with `why` = "FPS: ... expected fps >= F" when it does not (the caller names the key or option). */
bool scene_fps_fits(const eddy_scene *sc, double fps, char *why, size_t why_size);

/* Parses `text` (`len` bytes) named `file` (for messages); relative paths resolve against `base_dir` (NULL = cwd).
 * Returns NULL on error with the message in err. */
eddy_scene *scene_parse(const char *text, size_t len, const char *file, const char *base_dir,
                        const scene_load_options *opt, char *err, size_t err_size);
/* Reads and parses a file. */
eddy_scene *scene_load_file(const char *path, const scene_load_options *opt, char *err, size_t err_size);
/* Loads a built-in preset by name. */
eddy_scene *scene_load_preset(const char *name, const scene_load_options *opt, char *err, size_t err_size);
void scene_free(eddy_scene *scene);

/* Built-in presets (scenes/ JSON files compiled in). */
int scene_preset_count(void);
const char *scene_preset_name(int i);
const char *scene_preset_text(int i, size_t *len);
/* One-line description of a preset ("" when none). Parses the preset; never fails on built-ins. */
const char *scene_preset_description(int i, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
