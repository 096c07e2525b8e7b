/* `eddy run` and `eddy resume`: the run loop.
 * Frame k (1-based) shows simulated time k / fps. Between frames the simulation takes CFL-limited steps, split
 * evenly so the last one lands exactly on the frame time (and on the time of each scene splat). Before each step
 * the scene's events at the current time are applied: moving obstacles and emitters are placed, splats that are
 * due are added (scene splats, then random splats), and splat paths add their force and dye for the step.
 * Everything that decides what happens next lives in the simulation state or in `run_state`, and a checkpoint
 * stores both, so a resumed run repeats the same operations and ends with the same bytes. */
#include "run.h"

#include "checkpoint.h"
#include "progress.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void run_options_init(run_options *o) {
    memset(o, 0, sizeof *o);
    o->frames = -1;
    o->threads = -1;
    o->dump = -1;
    o->checkpoint = -1;
}

static void say(const run *r, const char *fmt, const char *a) {
    if (r->opt.quiet) return;
    progress_clear(r->progress);
    fprintf(stderr, fmt, a);
}

/* ---------------------------------------------------------------- events */

static void random_splat(run *r, eddy_splat *sp) {
    const eddy_scene *sc = r->scene;
    const scene_random_splats *rs = &sc->random_splats;
    int dim = sc->def.dim;
    memset(sp, 0, sizeof *sp);
    for (int a = 0; a < dim; a++) {
        double lo = sc->def.origin[a] + rs->radius, hi = sc->def.origin[a] + sc->def.size[a] - rs->radius;
        if (hi < lo) lo = hi = sc->def.origin[a] + 0.5 * sc->def.size[a];
        sp->position[a] = (float)(lo + (hi - lo) * run_rng_uniform(&r->st.rng));
    }
    for (int a = 0; a < dim; a++) sp->velocity[a] = (float)(rs->speed * (2.0 * run_rng_uniform(&r->st.rng) - 1.0));
    /* a saturated colour of random hue (HSV with s = v = 1), as the WebGL demo picks them */
    double h = 6.0 * run_rng_uniform(&r->st.rng);
    int sector = (int)h % 6;
    double f = h - floor(h), q = 1 - f;
    double rgb[6][3] = {{1, f, 0}, {q, 1, 0}, {0, 1, f}, {0, q, 1}, {f, 0, 1}, {1, 0, q}};
    for (int c = 0; c < 3; c++) sp->dye[c] = (float)(rs->intensity * rgb[sector][c]);
    sp->radius = rs->radius;
}

static double random_splat_time(const scene_random_splats *rs, int i) {
    return rs->rate > 0 ? rs->start + (double)i / rs->rate : rs->start;
}

/* splats and moving bodies at time t, before a step */
static eddy_status apply_events(run *r, double t) {
    const eddy_scene *sc = r->scene;
    const double eps = 1e-9;
    eddy_status st = run_move_bodies(r, t);
    if (st != EDDY_OK) return st;
    while (r->st.next_splat < sc->splat_count && sc->splats[r->st.next_splat].time <= t + eps) {
        st = eddy_sim_splat(r->sim, &sc->splats[r->st.next_splat].splat);
        if (st != EDDY_OK) return st;
        r->st.next_splat++;
    }
    const scene_random_splats *rs = &sc->random_splats;
    while (r->st.random_done < rs->count && random_splat_time(rs, r->st.random_done) <= t + eps) {
        eddy_splat sp;
        random_splat(r, &sp);
        st = eddy_sim_splat(r->sim, &sp);
        if (st != EDDY_OK) return st;
        r->st.random_done++;
    }
    return EDDY_OK;
}

/* splat paths: over a step of d seconds, a splat at the path's position pushing along its motion */
static eddy_status apply_splat_paths(run *r, double t, double d) {
    const eddy_scene *sc = r->scene;
    for (int i = 0; i < sc->splat_path_count; i++) {
        const scene_splat_path *p = &sc->splat_paths[i];
        if (t + 1e-9 < p->start || (p->end > 0 && t >= p->end)) continue;
        eddy_splat sp;
        memset(&sp, 0, sizeof sp);
        float vel[3];
        scene_path_eval(&p->path, t, sc->def.dim, sp.position, vel);
        double speed = sqrt((double)vel[0] * vel[0] + (double)vel[1] * vel[1] + (double)vel[2] * vel[2]);
        for (int a = 0; a < 3; a++) {
            sp.velocity[a] = speed > 0 ? (float)(p->force * d * vel[a] / speed) : 0.0f;
            sp.dye[a] = (float)(p->dye[a] * d);
        }
        sp.temperature = (float)(p->temperature * d);
        sp.radius = p->radius;
        eddy_status st = eddy_sim_splat(r->sim, &sp);
        if (st != EDDY_OK) return st;
    }
    return EDDY_OK;
}

/* ---------------------------------------------------------------- checkpoint state */

char *run_state_to_json(const run *r) {
    const run_state *s = &r->st;
    cJSON *o = cJSON_CreateObject();
    if (!o) return NULL;
    char rng[32];
    snprintf(rng, sizeof rng, "%016llx", (unsigned long long)s->rng);
    cJSON_AddNumberToObject(o, "eddy_checkpoint", 1);
    cJSON_AddNumberToObject(o, "frame", s->frame);
    cJSON_AddNumberToObject(o, "frames", s->total_frames);
    cJSON_AddNumberToObject(o, "fps", s->fps);
    cJSON_AddNumberToObject(o, "next_splat", s->next_splat);
    cJSON_AddNumberToObject(o, "random_done", s->random_done);
    cJSON_AddStringToObject(o, "rng", rng);
    cJSON_AddNumberToObject(o, "dump", s->dump);
    cJSON_AddNumberToObject(o, "checkpoint", s->checkpoint);
    /* absolute paths, so that `eddy resume` works from any folder */
    char abs_out[PATH_MAX], abs_stats[PATH_MAX];
    cJSON_AddStringToObject(o, "out", realpath(s->out_dir, abs_out) ? abs_out : s->out_dir);
    cJSON_AddStringToObject(o, "stats", s->stats_path[0] && realpath(s->stats_path, abs_stats) ? abs_stats : s->stats_path);
    cJSON_AddNumberToObject(o, "stats_bytes", (double)s->stats_bytes);
    cJSON_AddBoolToObject(o, "video", s->video);
    cJSON *ids = cJSON_AddArrayToObject(o, "obstacle_ids");
    for (int i = 0; ids && i < r->scene->obstacle_count; i++) cJSON_AddItemToArray(ids, cJSON_CreateNumber(r->obstacle_ids[i]));
    ids = cJSON_AddArrayToObject(o, "emitter_ids");
    for (int i = 0; ids && i < r->scene->emitter_count; i++) cJSON_AddItemToArray(ids, cJSON_CreateNumber(r->emitter_ids[i]));
    cJSON_AddStringToObject(o, "scene_file", r->scene->file);
    cJSON_AddStringToObject(o, "scene_dir", r->scene->base_dir);
    cJSON *scene = cJSON_Parse(r->scene->json);
    if (scene) cJSON_AddItemToObject(o, "scene", scene);
    char *text = scene ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return text;
}

/* ---------------------------------------------------------------- the loop */

static void run_free(run *r) {
    if (r->out) run_output_free(r->out);
    run_surface_free(r->surface);
    run_wind_free(r->wind);
    if (r->stats) fclose(r->stats);
    progress_free(r->progress);
    eddy_sim_destroy(r->sim);
    scene_free(r->scene);
    free(r->obstacle_ids);
    free(r->emitter_ids);
}

static int sim_error(run *r, eddy_status st, const char *what) {
    progress_clear(r->progress);
    if (what)
        fprintf(stderr, "eddy: simulation error: %s: %s (%s)\n", what, eddy_sim_last_error(r->sim), eddy_status_string(st));
    else
        fprintf(stderr, "eddy: simulation error: %s (%s)\n", eddy_sim_last_error(r->sim), eddy_status_string(st));
    fprintf(stderr, "eddy: stopped at t = %.6g s, step %ld; the %d frame%s written so far in %s/ are valid\n",
            eddy_sim_time(r->sim), eddy_sim_step_count(r->sim), r->st.frame, r->st.frame == 1 ? "" : "s", r->st.out_dir);
    return EXIT_SIM_ERROR;
}

static bool write_checkpoint(run *r, char *err, size_t err_size) {
    if (r->stats) {
        fflush(r->stats);
        r->st.stats_bytes = ftell(r->stats);
    }
    char *json = run_state_to_json(r);
    if (!json) {
        snprintf(err, err_size, "checkpoint: out of memory");
        return false;
    }
    char path[RUN_PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/checkpoint_%05d.eddy", r->st.out_dir, r->st.frame);
    bool ok = checkpoint_save(path, r->sim, json, err, err_size);
    cJSON_free(json);
    if (ok) say(r, "eddy: checkpoint %s\n", path);
    return ok;
}

static int loop(run *r) {
    char err[2048];
    const eddy_scene *sc = r->scene;
    const double fps = r->st.fps;
    r->progress = progress_create(isatty(STDERR_FILENO), r->opt.quiet, r->st.frame, r->st.total_frames, eddy_sim_step_count(r->sim));
    int code = EXIT_OK;
    bool stopped = false;
    while (r->st.frame < r->st.total_frames) {
        double target = (double)(r->st.frame + 1) / fps;
        long steps_this_frame = 0;
        for (;;) {
            double t = eddy_sim_time(r->sim);
            double remaining = target - t;
            if (remaining <= 1e-9 * (target > 1 ? target : 1)) break;
            eddy_status st = apply_events(r, t);
            if (st != EDDY_OK) return sim_error(r, st, "applying the scene's events");
            double dt_max = run_max_dt(r->sim);
            double k = ceil(remaining / dt_max - 1e-6);
            double d = remaining / (k < 1 ? 1 : k);
            if (r->st.next_splat < sc->splat_count) {
                double ts = sc->splats[r->st.next_splat].time;
                if (ts > t + 1e-9 && ts < t + d) d = ts - t; /* land on the splat's time */
            }
            st = apply_splat_paths(r, t, d);
            if (st != EDDY_OK) return sim_error(r, st, "applying the splat paths");
            /* the splat paths may have sped the flow up: keep to one step */
            double dt_after = run_max_dt(r->sim);
            if (d > dt_after) {
                k = ceil(remaining / dt_after - 1e-6);
                double d2 = remaining / (k < 1 ? 1 : k);
                if (d2 < d) d = d2;
            }
            st = eddy_sim_advance(r->sim, d);
            if (st != EDDY_OK) return sim_error(r, st, NULL);
            run_stats_write(r);
            progress_step(r->progress, r->st.frame, eddy_sim_time(r->sim), eddy_sim_step_count(r->sim));
            if (++steps_this_frame > SCENE_MAX_STEPS_PER_FRAME) {
                progress_clear(r->progress);
                fprintf(stderr, "eddy: simulation error: the step size collapsed (more than a million steps in frame %d, "
                                "dt = %g s, step %ld): the flow is blowing up\n",
                        r->st.frame + 1, d, eddy_sim_step_count(r->sim));
                return EXIT_SIM_ERROR;
            }
        }
        int frame = r->st.frame + 1;
        if (!run_output_frame(r->out, r, frame, err, sizeof err) || !run_surface_frame(r, frame, err, sizeof err)) {
            progress_clear(r->progress);
            fprintf(stderr, "eddy: %s\n", err);
            return EXIT_SIM_ERROR;
        }
        r->st.frame = frame;
        if (r->st.dump > 0 && frame % r->st.dump == 0 && !run_output_dump(r, frame, err, sizeof err)) {
            progress_clear(r->progress);
            fprintf(stderr, "eddy: %s\n", err);
            return EXIT_SIM_ERROR;
        }
        progress_frame(r->progress, frame, eddy_sim_time(r->sim), eddy_sim_step_count(r->sim));
        bool stop_here = r->opt.stop_at > 0 && frame == r->opt.stop_at && frame < r->st.total_frames;
        if (frame < r->st.total_frames && ((r->st.checkpoint > 0 && frame % r->st.checkpoint == 0) || stop_here) &&
            !write_checkpoint(r, err, sizeof err)) {
            progress_clear(r->progress);
            fprintf(stderr, "eddy: %s\n", err);
            return EXIT_SIM_ERROR;
        }
        if (stop_here) {
            stopped = true;
            break;
        }
    }
    progress_finish(r->progress, r->st.frame, eddy_sim_time(r->sim), eddy_sim_step_count(r->sim));
    if (stopped) {
        run_output_abort(r->out);
        if (!r->opt.quiet)
            fprintf(stderr, "eddy: stopped after frame %d of %d; continue with: eddy resume %s/checkpoint_%05d.eddy\n",
                    r->st.frame, r->st.total_frames, r->st.out_dir, r->st.frame);
        return code;
    }
    return code;
}

/* finishes outputs after the loop (also after an error: the video of the frames so far is kept) */
static int finish(run *r, int code) {
    char err[2048];
    if (r->out) {
        bool stopped_early = code == EXIT_OK && r->st.frame < r->st.total_frames;
        if (!stopped_early && !run_output_close(r->out, r, err, sizeof err)) {
            fprintf(stderr, "eddy: %s\n", err);
            if (code == EXIT_OK) code = EXIT_SIM_ERROR;
        }
        if (code == EXIT_OK && !stopped_early && !r->opt.quiet && run_output_summary(r->out))
            fprintf(stderr, "eddy: wrote %s\n", run_output_summary(r->out));
    }
    if (r->stats && fclose(r->stats) != 0) {
        fprintf(stderr, "eddy: writing the stats file %s failed\n", r->st.stats_path);
        if (code == EXIT_OK) code = EXIT_SIM_ERROR;
    }
    r->stats = NULL;
    run_free(r);
    return code;
}

/* A new stats file: refused when it is a folder, or a file that exists and --force was not given (it may be anything,
 * the scene file itself included). Checked before the output folder is made, and again by the exclusive open. */
static bool check_new_stats(const char *path, bool force, char *err, size_t err_size) {
    struct stat sb;
    if (stat(path, &sb) != 0) return true;
    if (S_ISDIR(sb.st_mode)) {
        snprintf(err, err_size, "--stats %.1024s: is a folder; expected the name of a file to write", path);
        return false;
    }
    if (!force) {
        snprintf(err, err_size, "--stats %.1024s: the file exists; give another name, or --force to overwrite it", path);
        return false;
    }
    return true;
}

static bool open_new_stats(run *r, const char *path, bool force, char *err, size_t err_size) {
    if (!check_new_stats(path, force, err, err_size)) return false;
    errno = 0;
    r->stats = fopen(path, force ? "wb" : "wbx"); /* "x": fails if the file appeared since the check */
    if (!r->stats) {
        if (errno == EEXIST)
            snprintf(err, err_size, "--stats %.1024s: the file exists; give another name, or --force to overwrite it", path);
        else
            snprintf(err, err_size, "--stats %.1024s: cannot open for writing: %s", path, strerror(errno));
        return false;
    }
    snprintf(r->st.stats_path, sizeof r->st.stats_path, "%s", path);
    return true;
}

/* Resuming the run's own stats file: cut back to its size at the checkpoint, then append. A file now shorter than
 * that lost lines the checkpoint counts on (truncate would pad it with NUL bytes): refused. */
static bool continue_stats(run *r, const char *path, long long keep_bytes, char *err, size_t err_size) {
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, err_size, "the run's stats file %.1024s cannot be continued: %s; give --stats FILE to write the resumed "
                                "part to a new file", path, strerror(errno));
        return false;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, err_size, "the run's stats file %.1024s cannot be continued: it is no longer a regular file; give "
                                "--stats FILE to write the resumed part to a new file", path);
        return false;
    }
    if ((long long)sb.st_size < keep_bytes) {
        snprintf(err, err_size, "the run's stats file %.1024s has %lld bytes, fewer than the %lld it had at the checkpoint "
                                "(it was changed since): continuing it would leave a gap; restore it, or give --stats FILE "
                                "to write the resumed part to a new file", path, (long long)sb.st_size, keep_bytes);
        return false;
    }
    if (truncate(path, (off_t)keep_bytes) != 0) {
        snprintf(err, err_size, "the run's stats file %.1024s cannot be cut back to %lld bytes: %s", path, keep_bytes,
                 strerror(errno));
        return false;
    }
    r->stats = fopen(path, "ab");
    if (!r->stats) {
        snprintf(err, err_size, "the run's stats file %.1024s: cannot open for writing: %s", path, strerror(errno));
        return false;
    }
    snprintf(r->st.stats_path, sizeof r->st.stats_path, "%s", path);
    return true;
}

int run_command(const run_options *opt) {
    run R;
    memset(&R, 0, sizeof R);
    run *r = &R;
    r->opt = *opt;
    char err[2048];
    scene_load_options lo = scene_load_options_default();
    lo.overrides = opt->sets;
    lo.override_count = opt->set_count;
    lo.surface = opt->surface;
    lo.check_picture_size = true;
    lo.video = !opt->no_video;
    if (opt->scene_file) r->scene = scene_load_file(opt->scene_file, &lo, err, sizeof err);
    else r->scene = scene_load_preset(opt->preset ? opt->preset : "default", &lo, err, sizeof err);
    if (!r->scene) {
        fprintf(stderr, "eddy: %s\n", err);
        return EXIT_USAGE;
    }
    const eddy_scene *sc = r->scene;
    run_state *s = &r->st;
    if (opt->fps > 0 && !scene_fps_fits(sc, opt->fps, err, sizeof err)) {
        fprintf(stderr, "eddy: --fps %s\n", err);
        run_free(r);
        return EXIT_USAGE;
    }
    s->fps = opt->fps > 0 ? opt->fps : sc->output.fps;
    if (opt->frames >= 0) s->total_frames = opt->frames;
    else s->total_frames = (int)llround(sc->duration * s->fps);
    if (s->total_frames < 1) s->total_frames = 1;
    s->dump = opt->dump >= 0 ? opt->dump : sc->output.dump;
    s->checkpoint = opt->checkpoint >= 0 ? opt->checkpoint : sc->output.checkpoint;
    s->rng = sc->random_splats.seed;
    s->video = sc->output.video != SCENE_VIDEO_NONE && !opt->no_video;
    if (opt->stop_at > 0 && opt->stop_at >= s->total_frames) {
        fprintf(stderr, "eddy: --stop-at %d: the run has only %d frames\n", opt->stop_at, s->total_frames);
        run_free(r);
        return EXIT_USAGE;
    }
    if (sc->wind) {
        /* a wind scene starts from still air every time: nothing to checkpoint; one wind frame per picture */
        const char *refused = opt->checkpoint > 0 ? "--checkpoint" : opt->stop_at > 0 ? "--stop-at" : NULL;
        if (refused) {
            fprintf(stderr, "eddy: %s: a wind scene (%s) cannot be checkpointed\n", refused, sc->file);
            run_free(r);
            return EXIT_USAGE;
        }
        if (s->fps < 1.0) {
            fprintf(stderr, "eddy: --fps %g: a wind scene takes one wind frame of 1/fps seconds per picture, at most 1 s: "
                            "expected fps >= 1\n", s->fps);
            run_free(r);
            return EXIT_USAGE;
        }
    }
    /* the simulation first: a scene error (a file of the wrong shape) leaves no folder behind */
    if (sc->wind ? !run_wind_setup(r, err, sizeof err) : !(run_setup_sim(r, err, sizeof err) && run_surface_open(r, err, sizeof err))) {
        fprintf(stderr, "eddy: %s\n", err);
        run_free(r);
        return EXIT_USAGE;
    }
    /* the stats file before the folder: a usage error leaves nothing behind */
    if (opt->stats_path && !check_new_stats(opt->stats_path, opt->force, err, sizeof err)) {
        fprintf(stderr, "eddy: %s\n", err);
        run_free(r);
        return EXIT_USAGE;
    }
    const char *wanted = opt->out_dir ? opt->out_dir : sc->output.dir;
    char created[RUN_PATH_MAX];
    if (!run_output_choose_dir(wanted, opt->out_dir != NULL, opt->force, s->out_dir, sizeof s->out_dir, created,
                               sizeof created, err, sizeof err)) {
        fprintf(stderr, "eddy: %s\n", err);
        run_free(r);
        return EXIT_USAGE;
    }
    /* opened once the folder exists, as the file may be inside it; on failure the new, still empty folder goes */
    if (opt->stats_path && !open_new_stats(r, opt->stats_path, opt->force, err, sizeof err)) {
        fprintf(stderr, "eddy: %s\n", err);
        run_output_undo_dir(s->out_dir, created);
        run_free(r);
        return EXIT_USAGE;
    }
    if (opt->force && !created[0] && !run_output_clear_dir(r, err, sizeof err)) {
        fprintf(stderr, "eddy: %s\n", err);
        run_free(r);
        return EXIT_SIM_ERROR;
    }
    r->out = run_output_open(r, false, err, sizeof err);
    if (!r->out) {
        fprintf(stderr, "eddy: %s\n", err);
        run_free(r);
        return EXIT_SIM_ERROR;
    }
    if (sc->wind) {
        if (!opt->quiet) {
            const eddy_wind_def *d = &sc->wind->def;
            fprintf(stderr, "eddy: %s: wind window %d x %d x %d cells of %g m, %d particles, %d frames at %g fps (%g s) -> %s/\n",
                    sc->name ? sc->name : sc->file, d->grid[0], d->grid[1], d->grid[2], (double)d->cell_size,
                    sc->wind->particles.count, s->total_frames, s->fps, s->total_frames / s->fps, s->out_dir);
        }
        return finish(r, run_wind_loop(r));
    }
    if (!opt->quiet) {
        const eddy_sim_def *d = &sc->def;
        char cells[64];
        if (d->dim == 3) snprintf(cells, sizeof cells, "%d x %d x %d", d->grid[0], d->grid[1], d->grid[2]);
        else snprintf(cells, sizeof cells, "%d x %d", d->grid[0], d->grid[1]);
        fprintf(stderr, "eddy: %s: %dD, %s cells, %d frames at %g fps (%g s) -> %s/\n", sc->name ? sc->name : sc->file, d->dim,
                cells, s->total_frames, s->fps, s->total_frames / s->fps, s->out_dir);
    }
    return finish(r, loop(r));
}

int resume_command(const run_options *opt) {
    run R;
    memset(&R, 0, sizeof R);
    run *r = &R;
    r->opt = *opt;
    char err[2048], msg[1024];
    uint8_t *data = NULL;
    size_t len = 0;
    checkpoint_view view;
    if (!checkpoint_read_file(opt->resume, &data, &len, err, sizeof err)) {
        fprintf(stderr, "eddy: resume: %s\n", err);
        return EXIT_USAGE;
    }
    if (!checkpoint_parse(data, len, true, &view, msg, sizeof msg)) {
        fprintf(stderr, "eddy: resume: %s: %s\n", opt->resume, msg);
        free(data);
        return EXIT_USAGE;
    }
    checkpoint_state cs;
    if (!checkpoint_state_parse(view.json, view.json_len, &cs, msg, sizeof msg)) {
        fprintf(stderr, "eddy: resume: %s: %s\n", opt->resume, msg);
        free(data);
        return EXIT_USAGE;
    }
    r->st = cs.st;
    scene_load_options lo = scene_load_options_default();
    lo.check_files = false; /* initial files were read when the run started */
    r->scene = scene_parse(cs.scene_json, strlen(cs.scene_json), cs.scene_file, cs.scene_dir, &lo, err, sizeof err);
    if (!r->scene) {
        fprintf(stderr, "eddy: resume: %s: the stored scene: %s\n", opt->resume, err);
        checkpoint_state_free(&cs);
        free(data);
        return EXIT_USAGE;
    }
    eddy_status st = checkpoint_load_sim(view.state, view.state_len, &r->sim, msg, sizeof msg);
    free(data);
    if (st != EDDY_OK) {
        fprintf(stderr, "eddy: resume: %s: %s\n", opt->resume, msg[0] ? msg : eddy_status_string(st));
        checkpoint_state_free(&cs);
        run_free(r);
        return EXIT_USAGE;
    }
    if (!checkpoint_check_scene(&r->scene->def, eddy_sim_get_def(r->sim), msg, sizeof msg)) {
        fprintf(stderr, "eddy: resume: checkpoint %s is corrupt: %s\n", opt->resume, msg);
        checkpoint_state_free(&cs);
        run_free(r);
        return EXIT_USAGE;
    }
    if (cs.obstacle_count != r->scene->obstacle_count || cs.emitter_count != r->scene->emitter_count) {
        fprintf(stderr, "eddy: resume: %s: the obstacle and emitter ids do not match the stored scene\n", opt->resume);
        checkpoint_state_free(&cs);
        run_free(r);
        return EXIT_USAGE;
    }
    r->obstacle_ids = cs.obstacle_ids;
    r->emitter_ids = cs.emitter_ids;
    cs.obstacle_ids = cs.emitter_ids = NULL;
    checkpoint_state_free(&cs);
    if (r->st.next_splat > r->scene->splat_count || r->st.random_done > r->scene->random_splats.count) {
        fprintf(stderr, "eddy: resume: %s: the splat counters do not match the stored scene\n", opt->resume);
        run_free(r);
        return EXIT_USAGE;
    }
    if (opt->stop_at > 0 && (opt->stop_at <= r->st.frame || opt->stop_at >= r->st.total_frames)) {
        fprintf(stderr, "eddy: --stop-at %d: must be between the checkpoint's frame %d and the run's %d frames\n", opt->stop_at,
                r->st.frame, r->st.total_frames);
        run_free(r);
        return EXIT_USAGE;
    }
    if (!run_surface_open(r, err, sizeof err)) {
        fprintf(stderr, "eddy: resume: %s\n", err);
        run_free(r);
        return EXIT_USAGE;
    }
    struct stat sb;
    if (stat(r->st.out_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "eddy: resume: the run's folder %s is gone\n", r->st.out_dir);
        run_free(r);
        return EXIT_USAGE;
    }
    /* copied: open_*_stats write the name into r->st.stats_path (--stats is at most RUN_PATH_MAX - 1 bytes, main.c) */
    char stats[RUN_PATH_MAX];
    const char *stats_from = opt->stats_path ? opt->stats_path : r->st.stats_path;
    size_t stats_len = strnlen(stats_from, sizeof stats - 1);
    memcpy(stats, stats_from, stats_len);
    stats[stats_len] = '\0';
    if (stats[0] && !(opt->stats_path ? open_new_stats(r, stats, opt->force, err, sizeof err)
                                      : continue_stats(r, stats, r->st.stats_bytes, err, sizeof err))) {
        fprintf(stderr, "eddy: resume: %s\n", err);
        run_free(r);
        return EXIT_USAGE;
    }
    r->out = run_output_open(r, true, err, sizeof err);
    if (!r->out) {
        fprintf(stderr, "eddy: %s\n", err);
        run_free(r);
        return EXIT_SIM_ERROR;
    }
    if (!opt->quiet)
        fprintf(stderr, "eddy: resuming %s at frame %d of %d (t = %g s, step %ld) -> %s/\n", r->scene->name ? r->scene->name : r->scene->file,
                r->st.frame, r->st.total_frames, eddy_sim_time(r->sim), eddy_sim_step_count(r->sim), r->st.out_dir);
    return finish(r, loop(r));
}
