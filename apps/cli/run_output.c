/* What a run writes: the output folder (never overwriting without --force), one picture per frame (PNG), the
 * video (frames piped to ffmpeg), a flipbook sprite sheet, field dumps (.npy) and OpenVDB volumes. A wind scene draws
 * its own picture into the output's image and hands it to run_output_picture.
 * A resumed run feeds the frames already on disk to the video and the sheet first, so they come out whole. */
#include "run.h"

#include "eddy/io.h"
#include "eddy/render.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

struct run_output {
    eddy_renderer *renderer;
    eddy_image img;
    eddy_video *video;
    bool video_wanted;       /* the scene asks for a video and ffmpeg is there */
    bool video_started;
    char video_path[RUN_PATH_MAX + 256];
    eddy_flipbook *sheet;
    int sheet_capacity;
    char summary[3 * RUN_PATH_MAX];
    bool resuming;
    char video_error[RUN_PATH_MAX + 1200]; /* why the video that was asked for could not be made ("" = no failure) */
};

static bool is_dir(const char *path) {
    struct stat s;
    return stat(path, &s) == 0 && S_ISDIR(s.st_mode);
}

static bool exists(const char *path) {
    struct stat s;
    return stat(path, &s) == 0;
}

/* creates `path` and its missing parents; `first_created` (may be NULL) gets the topmost folder made, "" if none */
static bool make_dirs(const char *path, char *first_created, size_t first_size, char *err, size_t err_size) {
    char buf[RUN_PATH_MAX];
    if (first_created && first_size) first_created[0] = '\0';
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        snprintf(err, err_size, "%.200s...: path too long (at most %d bytes)", path, RUN_PATH_MAX - 1);
        return false;
    }
    size_t n = strlen(buf);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (!is_dir(buf)) {
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                snprintf(err, err_size, "cannot create folder %s: %s", buf, strerror(errno));
                return false;
            }
            if (first_created && first_size && !first_created[0]) snprintf(first_created, first_size, "%s", buf);
        }
        buf[i] = c;
    }
    return true;
}

void run_output_undo_dir(const char *chosen, const char *first_created) {
    if (!first_created || !first_created[0]) return;
    char buf[RUN_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", chosen);
    size_t stop = strlen(first_created);
    /* rmdir only removes empty folders: anything written there in the meantime stays */
    for (;;) {
        if (rmdir(buf) != 0) return;
        if (strlen(buf) <= stop) return;
        char *slash = strrchr(buf, '/');
        if (!slash) return;
        *slash = '\0';
        if (strlen(buf) < stop) return;
    }
}

bool run_output_choose_dir(const char *wanted, bool explicit_dir, bool force, char *chosen, size_t size, char *created,
                           size_t created_size, char *err, size_t err_size) {
    (void)explicit_dir;
    if (created && created_size) created[0] = '\0';
    /* before anything is created: a longer name would be cut short, and the files inside would not fit */
    if (strlen(wanted) > RUN_OUT_DIR_MAX) {
        snprintf(err, err_size, "output folder %.60s...: path too long (%zu bytes; at most %d)", wanted, strlen(wanted),
                 RUN_OUT_DIR_MAX);
        return false;
    }
    char base[RUN_PATH_MAX];
    snprintf(base, sizeof base, "%s", wanted);
    size_t n = strlen(base);
    while (n > 1 && base[n - 1] == '/') base[--n] = '\0';
    if (exists(base) && !is_dir(base)) {
        snprintf(err, err_size, "%s exists and is not a folder", base);
        return false;
    }
    if (force || !exists(base)) {
        snprintf(chosen, size, "%s", base);
    } else {
        /* out exists: out-1, out-2, ... (nothing is overwritten without --force) */
        int k = 1;
        for (; k < 100000; k++) {
            snprintf(chosen, size, "%s-%d", base, k);
            if (!exists(chosen)) break;
        }
        if (k == 100000) {
            snprintf(err, err_size, "no free folder name %s-N; remove old outputs or use --force", base);
            return false;
        }
    }
    return make_dirs(chosen, created, created_size, err, err_size);
}

/* file names of the video: the scene's name, letters, digits, '-', '_' and '.' kept, anything else '_' */
static void video_base_name(const eddy_scene *sc, char *name, size_t size) {
    snprintf(name, size, "%s", sc->name && *sc->name ? sc->name : "video");
    for (char *c = name; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' ||
              (*c == '.' && c != name)))
            *c = '_';
}

/* `name` is PREFIX, five or more digits, SUFFIX: a name the command itself gives (frame_00001.png, ...) */
static bool numbered_name(const char *name, const char *prefix, const char *suffix) {
    size_t np = strlen(prefix), ns = strlen(suffix), n = strlen(name);
    if (n < np + 5 + ns || strncmp(name, prefix, np) != 0 || strcmp(name + n - ns, suffix) != 0) return false;
    for (size_t i = np; i < n - ns; i++)
        if (name[i] < '0' || name[i] > '9') return false;
    return true;
}

static bool remove_file(const char *path, char *err, size_t err_size) {
    if (unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, err_size, "--force: cannot remove the earlier run's %s: %s", path, strerror(errno));
        return false;
    }
    return true;
}

bool run_output_clear_dir(const run *r, char *err, size_t err_size) {
    static const char *const dump_files[] = {"u.npy", "v.npy", "w.npy", "pressure.npy", "dye.npy", "temperature.npy",
                                             "sdf.npy", "particles.npy", "particle_velocities.npy", "window.json", NULL};
    const char *dir = r->st.out_dir;
    char path[RUN_PATH_MAX + 600], name[201];
    video_base_name(r->scene, name, sizeof name);
    const char *fixed[] = {"sheet.png", "sheet.json", NULL};
    for (int i = 0; fixed[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, fixed[i]);
        if (!remove_file(path, err, err_size)) return false;
    }
    const char *ext[] = {"mp4", "gif"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s.%s", dir, name, ext[i]);
        if (!remove_file(path, err, err_size)) return false;
    }
    DIR *d = opendir(dir);
    if (!d) {
        snprintf(err, err_size, "--force: cannot list %s: %s", dir, strerror(errno));
        return false;
    }
    bool ok = true;
    struct stat sb;
    for (struct dirent *e; ok && (e = readdir(d)) != NULL;) {
        const char *f = e->d_name;
        snprintf(path, sizeof path, "%s/%s", dir, f);
        if (numbered_name(f, "frame_", ".png") || numbered_name(f, "checkpoint_", ".eddy") ||
            numbered_name(f, "volume_", ".vdb") || numbered_name(f, "surface_", ".svg") ||
            numbered_name(f, "surface_", ".ply") || numbered_name(f, "surface_", ".obj")) {
            if (!is_dir(path)) ok = remove_file(path, err, err_size);
        } else if (numbered_name(f, "dump_", "") && lstat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) { /* not through a link */
            char inner[RUN_PATH_MAX + 700];
            for (int i = 0; ok && dump_files[i]; i++) {
                snprintf(inner, sizeof inner, "%s/%s", path, dump_files[i]);
                ok = remove_file(inner, err, err_size);
            }
            if (ok) rmdir(path); /* kept when something else is in it */
        }
    }
    closedir(d);
    return ok;
}

static void frame_path(const run *r, int frame, char *out, size_t size) {
    snprintf(out, size, "%s/frame_%05d.png", r->st.out_dir, frame);
}

/* Whether frame k (1-based) of n goes into a sheet of `cap` cells: evenly spaced when n > cap. */
static bool sheet_takes(int k, int n, int cap) {
    if (n <= cap) return true;
    long long a = (long long)(k - 1) * cap / n, b = (long long)(k - 2) * cap / n;
    return k == 1 || a != b;
}

static bool render(run_output *o, run *r, char *err, size_t err_size) {
    const scene_render *sr = &r->scene->render;
    eddy_status st;
    if (r->scene->def.dim == 3 && sr->volume) {
        st = eddy_render_volume_sim(o->renderer, r->sim, &sr->vol, &o->img);
    } else {
        eddy_render_def def = sr->picture;
        int w, h; /* render.scale: that many pixels per dye cell of the renderer's own size (checked at load) */
        if (def.width == 0 && def.height == 0 && sr->scale > 1 &&
            eddy_render_size(&def, &r->scene->def, &w, &h, NULL, 0) == EDDY_OK)
            def.width = sr->scale * w, def.height = sr->scale * h;
        st = eddy_render_sim(o->renderer, r->sim, &def, &o->img);
    }
    if (st != EDDY_OK) {
        snprintf(err, err_size, "rendering frame: %s (%s)", eddy_renderer_last_error(o->renderer), eddy_status_string(st));
        return false;
    }
    return true;
}

static bool sheet_add(run_output *o, run *r, const eddy_image *img, char *err, size_t err_size) {
    char msg[512];
    if (!o->sheet) {
        eddy_flipbook_def def = r->scene->output.sheet_def;
        def.fps = (float)r->st.fps;
        if (def.frame_width == 0 || def.frame_height == 0) {
            /* 128 pixels on the longer side, keeping the picture's aspect */
            int w = img->width, h = img->height;
            if (w >= h) {
                def.frame_width = 128;
                def.frame_height = (int)((long long)h * 128 / w);
            } else {
                def.frame_height = 128;
                def.frame_width = (int)((long long)w * 128 / h);
            }
            if (def.frame_width < 1) def.frame_width = 1;
            if (def.frame_height < 1) def.frame_height = 1;
        }
        if (eddy_flipbook_create(&def, &o->sheet, msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "sprite sheet: %s", msg);
            return false;
        }
        o->sheet_capacity = def.columns * def.rows;
    }
    if (eddy_flipbook_count(o->sheet) >= o->sheet_capacity) return true;
    if (eddy_flipbook_add(o->sheet, img, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "sprite sheet: %s", msg);
        return false;
    }
    return true;
}

static bool video_start(run_output *o, run *r, const eddy_image *img, char *err, size_t err_size) {
    eddy_video_def def = eddy_video_def_default();
    def.width = img->width;
    def.height = img->height;
    def.fps = (float)r->st.fps;
    def.format = r->scene->output.video == SCENE_VIDEO_GIF ? EDDY_VIDEO_GIF : EDDY_VIDEO_MP4;
    def.finish_seconds = r->scene->output.video_finish_seconds;
    char msg[1024];
    o->video_started = true;
    /* no video does not stop the run (the frames are still written), but the run then fails at the end */
    if (eddy_video_open(o->video_path, &def, &o->video, msg, sizeof msg) != EDDY_OK) {
        if (!r->opt.quiet) fprintf(stderr, "eddy: no video: %s\n", msg);
        snprintf(o->video_error, sizeof o->video_error, "%s", msg);
        o->video = NULL;
        o->video_wanted = false;
        return true;
    }
    (void)err;
    (void)err_size;
    /* a resumed run first sends the frames already written */
    for (int k = 1; k <= r->st.frame; k++) {
        char path[RUN_PATH_MAX + 32];
        frame_path(r, k, path, sizeof path);
        eddy_image old;
        memset(&old, 0, sizeof old);
        if (eddy_png_read(path, &old, msg, sizeof msg) != EDDY_OK) {
            if (!r->opt.quiet) fprintf(stderr, "eddy: no video: the earlier frame %s cannot be read: %s\n", path, msg);
            snprintf(o->video_error, sizeof o->video_error, "an earlier frame cannot be read: %s", msg);
            eddy_video_abort(o->video);
            o->video = NULL;
            o->video_wanted = false;
            return true;
        }
        bool same_size = old.width == img->width && old.height == img->height;
        eddy_status st = same_size ? eddy_video_write(o->video, &old) : EDDY_ERR_INVALID_ARGUMENT;
        if (st != EDDY_OK) {
            if (same_size) snprintf(o->video_error, sizeof o->video_error, "%s", eddy_video_last_error(o->video));
            else
                snprintf(o->video_error, sizeof o->video_error, "the earlier frame %s is %d x %d pixels, the new ones %d x %d",
                         path, old.width, old.height, img->width, img->height);
        }
        eddy_image_free(&old);
        if (st != EDDY_OK) {
            if (!r->opt.quiet) fprintf(stderr, "eddy: no video: %s\n", o->video_error);
            eddy_video_abort(o->video);
            o->video = NULL;
            o->video_wanted = false;
            return true;
        }
    }
    return true;
}

run_output *run_output_open(run *r, bool resuming, char *err, size_t err_size) {
    run_output *o = (run_output *)calloc(1, sizeof *o);
    if (!o) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    o->resuming = resuming;
    char msg[512];
    int threads = r->opt.threads >= 0 ? r->opt.threads : r->scene->def.threads;
    if (eddy_renderer_create(threads, &o->renderer, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "renderer: %s", msg);
        free(o);
        return NULL;
    }
    char name[201];
    video_base_name(r->scene, name, sizeof name);
    const char *ext = r->scene->output.video == SCENE_VIDEO_GIF ? "gif" : "mp4";
    snprintf(o->video_path, sizeof o->video_path, "%s/%.200s.%s", r->st.out_dir, name, ext);
    o->video_wanted = r->st.video;
    if (o->video_wanted && !eddy_ffmpeg_available(NULL)) {
        if (!r->opt.quiet)
            fprintf(stderr, "eddy: ffmpeg not found: writing PNG frames only (install it with: sudo apt-get install ffmpeg)\n");
        o->video_wanted = false;
    }
    if (resuming && r->scene->output.sheet) {
        /* the sheet's earlier frames, from the PNGs on disk */
        for (int k = 1; k <= r->st.frame; k++) {
            if (!sheet_takes(k, r->st.total_frames, r->scene->output.sheet_def.columns * r->scene->output.sheet_def.rows)) continue;
            char path[RUN_PATH_MAX + 32];
            frame_path(r, k, path, sizeof path);
            eddy_image old;
            memset(&old, 0, sizeof old);
            if (eddy_png_read(path, &old, msg, sizeof msg) != EDDY_OK) {
                snprintf(err, err_size, "sprite sheet: the earlier frame %s cannot be read: %s", path, msg);
                run_output_close(o, r, msg, sizeof msg);
                return NULL;
            }
            bool ok = sheet_add(o, r, &old, err, err_size);
            eddy_image_free(&old);
            if (!ok) {
                run_output_close(o, r, msg, sizeof msg);
                return NULL;
            }
        }
    }
    return o;
}

bool run_output_wants_picture(const run_output *o, const run *r) {
    const scene_output *so = &r->scene->output;
    return so->png || o->video_wanted || so->sheet;
}

eddy_renderer *run_output_renderer(run_output *o) { return o->renderer; }
eddy_image *run_output_image(run_output *o) { return &o->img; }

bool run_output_picture(run_output *o, run *r, int frame, bool alpha, char *err, size_t err_size) {
    const scene_output *so = &r->scene->output;
    char msg[1024];
    if (so->png) {
        char path[RUN_PATH_MAX + 32];
        frame_path(r, frame, path, sizeof path);
        if (eddy_png_write(path, &o->img, alpha, msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "%s", msg);
            return false;
        }
    }
    if (o->video_wanted && !o->video_started && !video_start(o, r, &o->img, err, err_size)) return false;
    if (o->video && eddy_video_write(o->video, &o->img) != EDDY_OK) {
        if (!r->opt.quiet) fprintf(stderr, "eddy: video stopped: %s\n", eddy_video_last_error(o->video));
        snprintf(o->video_error, sizeof o->video_error, "stopped at frame %d: %s", frame, eddy_video_last_error(o->video));
        eddy_video_abort(o->video);
        o->video = NULL;
        o->video_wanted = false;
    }
    if (so->sheet && sheet_takes(frame, r->st.total_frames, so->sheet_def.columns * so->sheet_def.rows) &&
        !sheet_add(o, r, &o->img, err, err_size))
        return false;
    return true;
}

bool run_output_frame(run_output *o, run *r, int frame, char *err, size_t err_size) {
    const scene_output *so = &r->scene->output;
    char msg[1024];
    if (run_output_wants_picture(o, r)) {
        if (!render(o, r, err, err_size)) return false;
        int alpha = r->scene->def.dim == 3 && r->scene->render.volume ? r->scene->render.vol.transparent
                                                                       : r->scene->render.picture.transparent;
        if (!run_output_picture(o, r, frame, alpha != 0, err, err_size)) return false;
    }
    if (so->vdb && r->scene->def.dim == 3) {
        char path[RUN_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/volume_%05d.vdb", r->st.out_dir, frame);
        if (eddy_vdb_write_sim(path, r->sim, msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "%s", msg);
            return false;
        }
    }
    return true;
}

bool run_output_dump(run *r, int frame, char *err, size_t err_size) {
    char dir[RUN_PATH_MAX + 32], path[RUN_PATH_MAX + 64], msg[512];
    snprintf(dir, sizeof dir, "%s/dump_%05d", r->st.out_dir, frame);
    if (!make_dirs(dir, NULL, 0, err, err_size)) return false;
    if (r->wind) return run_wind_dump(r, dir, err, err_size);
    const eddy_sim_def *d = &r->scene->def;
    eddy_field fields[] = {EDDY_FIELD_U, EDDY_FIELD_V, EDDY_FIELD_W, EDDY_FIELD_PRESSURE, EDDY_FIELD_TEMPERATURE};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i] == EDDY_FIELD_W && d->dim == 2) continue;
        snprintf(path, sizeof path, "%s/%s.npy", dir, eddy_field_name(fields[i]));
        if (eddy_npy_write_field(path, r->sim, fields[i], msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "dump: %s", msg);
            return false;
        }
    }
    /* dye: one array of shape (3, [nz,] ny, nx), channel planes r, g, b */
    eddy_field_layout lay;
    if (eddy_sim_field_layout(r->sim, EDDY_FIELD_DYE_R, &lay) != EDDY_OK) {
        snprintf(err, err_size, "dump: %s", eddy_sim_last_error(r->sim));
        return false;
    }
    float *buf = (float *)malloc(3 * lay.count * sizeof(float));
    if (!buf) {
        snprintf(err, err_size, "dump: out of memory");
        return false;
    }
    bool ok = true;
    for (int c = 0; ok && c < 3; c++)
        ok = eddy_sim_read_field(r->sim, (eddy_field)(EDDY_FIELD_DYE_R + c), buf + (size_t)c * lay.count, lay.count) == EDDY_OK;
    if (!ok) snprintf(err, err_size, "dump: %s", eddy_sim_last_error(r->sim));
    if (ok) {
        size_t shape[4] = {3, 0, 0, 0};
        int nd = 1;
        if (d->dim == 3) shape[nd++] = (size_t)lay.n[2];
        shape[nd++] = (size_t)lay.n[1];
        shape[nd++] = (size_t)lay.n[0];
        snprintf(path, sizeof path, "%s/dye.npy", dir);
        if (eddy_npy_write(path, buf, nd, shape, msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "dump: %s", msg);
            ok = false;
        }
    }
    free(buf);
    /* the signed distance of the surface, on the dye grid (--surface) */
    if (ok && r->surface) ok = run_surface_dump(r, dir, err, err_size);
    return ok;
}

bool run_output_close(run_output *o, run *r, char *err, size_t err_size) {
    if (!o) return true;
    bool ok = true;
    char msg[1024];
    size_t used = (size_t)snprintf(o->summary, sizeof o->summary, "%d frame%s in %s/", r->st.frame,
                                   r->st.frame == 1 ? "" : "s", r->st.out_dir);
    if (o->video) {
        if (eddy_video_close(o->video, msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "video: %s", msg);
            ok = false;
        } else if (used < sizeof o->summary) {
            used += (size_t)snprintf(o->summary + used, sizeof o->summary - used, ", video %s", o->video_path);
        }
        o->video = NULL;
    } else if (o->video_error[0]) {
        snprintf(err, err_size, "no video %s: %s (the PNG frames in %s/ are kept)", o->video_path, o->video_error, r->st.out_dir);
        ok = false;
    }
    if (o->sheet) {
        char path[RUN_PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/sheet.png", r->st.out_dir);
        if (eddy_flipbook_write(o->sheet, path, msg, sizeof msg) != EDDY_OK) {
            snprintf(err, err_size, "sprite sheet: %s", msg);
            ok = false;
        } else if (used < sizeof o->summary) {
            snprintf(o->summary + used, sizeof o->summary - used, ", sprite sheet %s", path);
        }
    }
    eddy_flipbook_destroy(o->sheet);
    o->sheet = NULL;
    eddy_image_free(&o->img);
    eddy_renderer_destroy(o->renderer);
    o->renderer = NULL;
    return ok;
}

/* Stops without finishing the video or the sheet (a run stopped by --stop-at continues later). */
void run_output_abort(run_output *o) {
    if (!o) return;
    eddy_video_abort(o->video);
    o->video = NULL;
    eddy_flipbook_destroy(o->sheet);
    o->sheet = NULL;
    eddy_image_free(&o->img);
    eddy_renderer_destroy(o->renderer);
    o->renderer = NULL;
}

void run_output_free(run_output *o) {
    if (!o) return;
    run_output_abort(o);
    free(o);
}

const char *run_output_summary(const run_output *o) { return o && o->summary[0] ? o->summary : NULL; }
