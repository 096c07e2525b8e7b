/* Surfaces of a run (--surface, the scene's "surface"): the field (total dye r+g+b by default, or one channel, or
 * the temperature) on the dye grid, its level set {field = level} with the inside above the level, and
 *   - the signed distance to it (m, negative inside; the interface step and fast sweeping of src/sdf.c and
 *     src/eikonal.c) as `sdf.npy` in every dump, shaped like one dye channel;
 *   - the surface itself every frame: marching squares polylines as SVG (2D), marching cubes triangles with normals
 *     as binary PLY or OBJ (3D). Meshes come from the field, not from the distance: the field's gradient gives
 *     smoother normals than the swept distance, and it saves the sweeps on frames without a dump.
 * One surface workspace for the dye grid, made once; a steady frame allocates nothing beyond the meshes' growth. */
#include "run.h"

#include "eddy/io.h"

#include <stdlib.h>
#include <string.h>

struct run_surface {
    eddy_surface *surf;
    eddy_field_layout lay; /* the dye grid: the surface's points are its cell centres */
    float *field, *sdf;
    eddy_mesh mesh;
    eddy_mesh_lines lines;
};

void run_surface_free(run_surface *s) {
    if (!s) return;
    eddy_surface_destroy(s->surf);
    free(s->field);
    free(s->sdf);
    eddy_mesh_free(&s->mesh);
    eddy_mesh_lines_free(&s->lines);
    free(s);
}

bool run_surface_open(run *r, char *err, size_t err_size) {
    const scene_surface *ss = &r->scene->surface;
    if (!ss->on) return true;
    run_surface *s = (run_surface *)calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, err_size, "surface: out of memory");
        return false;
    }
    r->surface = s;
    if (eddy_sim_field_layout(r->sim, EDDY_FIELD_DYE_R, &s->lay) != EDDY_OK) {
        snprintf(err, err_size, "surface: %s", eddy_sim_last_error(r->sim));
        return false;
    }
    char msg[512];
    eddy_surface_def def;
    if (eddy_surface_def_from_layout(&s->lay, &def, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "%s: surface: %s", r->scene->file, msg);
        return false;
    }
    def.max_distance = ss->band;
    def.threads = r->opt.threads >= 0 ? r->opt.threads : r->scene->def.threads;
    if (eddy_surface_create(&def, &s->surf, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "%s: surface: %s", r->scene->file, msg);
        return false;
    }
    s->field = (float *)malloc(s->lay.count * sizeof(float));
    s->sdf = (float *)malloc(s->lay.count * sizeof(float));
    if (!s->field || !s->sdf) {
        snprintf(err, err_size, "surface: out of memory for %zu points", s->lay.count);
        return false;
    }
    return true;
}

/* the chosen field into s->field */
static bool gather(run *r, char *err, size_t err_size) {
    run_surface *s = r->surface;
    scene_surface_field f = r->scene->surface.field;
    eddy_field_layout lay;
    bool ok = true;
    if (f == SCENE_SURFACE_DYE) {
        const float *c[3];
        for (int k = 0; ok && k < 3; k++) ok = (c[k] = eddy_sim_field_view(r->sim, (eddy_field)(EDDY_FIELD_DYE_R + k), &lay)) != NULL;
        for (size_t i = 0; ok && i < s->lay.count; i++) s->field[i] = c[0][i] + c[1][i] + c[2][i];
    } else {
        eddy_field which = f == SCENE_SURFACE_TEMPERATURE ? EDDY_FIELD_TEMPERATURE : (eddy_field)(EDDY_FIELD_DYE_R + (f - SCENE_SURFACE_DYE_R));
        ok = eddy_sim_read_field(r->sim, which, s->field, s->lay.count) == EDDY_OK;
    }
    if (!ok) snprintf(err, err_size, "surface: %s", eddy_sim_last_error(r->sim));
    return ok;
}

bool run_surface_frame(run *r, int frame, char *err, size_t err_size) {
    run_surface *s = r->surface;
    if (!s || !r->scene->surface.meshes) return true;
    if (!gather(r, err, err_size)) return false;
    const scene_surface *ss = &r->scene->surface;
    char path[RUN_PATH_MAX + 32], msg[1024];
    eddy_status st;
    if (r->scene->def.dim == 3) {
        st = eddy_mesh_marching_cubes(s->surf, s->field, s->lay.count, ss->level, 1, &s->mesh);
        if (st == EDDY_OK) {
            snprintf(path, sizeof path, "%s/surface_%05d.%s", r->st.out_dir, frame, ss->obj ? "obj" : "ply");
            st = ss->obj ? eddy_mesh_write_obj(&s->mesh, path, msg, sizeof msg) : eddy_mesh_write_ply(&s->mesh, path, msg, sizeof msg);
            if (st != EDDY_OK) {
                snprintf(err, err_size, "%s", msg);
                return false;
            }
        }
    } else {
        st = eddy_mesh_marching_squares(s->surf, s->field, s->lay.count, ss->level, 1, &s->lines);
        if (st == EDDY_OK) {
            snprintf(path, sizeof path, "%s/surface_%05d.svg", r->st.out_dir, frame);
            if ((st = eddy_mesh_lines_write_svg(&s->lines, path, 0, msg, sizeof msg)) != EDDY_OK) {
                snprintf(err, err_size, "%s", msg);
                return false;
            }
        }
    }
    if (st != EDDY_OK) {
        snprintf(err, err_size, "surface of frame %d: %s (%s)", frame, eddy_surface_last_error(s->surf), eddy_status_string(st));
        return false;
    }
    return true;
}

bool run_surface_dump(run *r, const char *dir, char *err, size_t err_size) {
    run_surface *s = r->surface;
    if (!gather(r, err, err_size)) return false;
    eddy_status st = eddy_sdf_from_field(s->surf, s->field, s->lay.count, r->scene->surface.level, 1, s->sdf);
    if (st != EDDY_OK) {
        snprintf(err, err_size, "surface: %s (%s)", eddy_surface_last_error(s->surf), eddy_status_string(st));
        return false;
    }
    /* (sy, sx) or (sz, sy, sx): like one dye channel, x fastest */
    size_t shape[3];
    int nd = 0;
    if (r->scene->def.dim == 3) shape[nd++] = (size_t)s->lay.n[2];
    shape[nd++] = (size_t)s->lay.n[1];
    shape[nd++] = (size_t)s->lay.n[0];
    char path[RUN_PATH_MAX + 64], msg[512];
    snprintf(path, sizeof path, "%s/sdf.npy", dir);
    if (eddy_npy_write(path, s->sdf, nd, shape, msg, sizeof msg) != EDDY_OK) {
        snprintf(err, err_size, "dump: %s", msg);
        return false;
    }
    return true;
}
