/* --stats FILE.jsonl: one JSON object per step with the library's diagnostics (docs/cli.md lists the keys):
 * step, t, dt, max_div, rms_div, kinetic_energy, dye_total, max_speed, cfl, pressure_iterations,
 * pressure_residual, step_ms, stage_ms {stage: ms}, probes {name: {u, v, w, dye}}.
 * JSON has no NaN or infinity: such values are written as null. */
#include "run.h"

#include <math.h>

static void num(FILE *f, const char *key, double v, int digits) {
    if (isfinite(v)) fprintf(f, "\"%s\":%.*g", key, digits, v);
    else fprintf(f, "\"%s\":null", key);
}

void run_stats_write(run *r) {
    FILE *f = r->stats;
    if (!f) return;
    const eddy_step_stats *s = eddy_sim_stats(r->sim);
    fprintf(f, "{\"step\":%ld,", s->step);
    num(f, "t", s->time, 17), fputc(',', f);
    num(f, "dt", s->dt, 9), fputc(',', f);
    num(f, "max_div", s->max_div, 9), fputc(',', f);
    num(f, "rms_div", s->rms_div, 9), fputc(',', f);
    num(f, "kinetic_energy", s->kinetic_energy, 17), fputc(',', f);
    num(f, "dye_total", s->dye_total, 17), fputc(',', f);
    num(f, "max_speed", s->max_speed, 9), fputc(',', f);
    num(f, "cfl", s->cfl, 9), fputc(',', f);
    fprintf(f, "\"pressure_iterations\":%d,", s->pressure_iterations);
    num(f, "pressure_residual", s->pressure_residual, 9), fputc(',', f);
    num(f, "step_ms", s->step_ms, 6);
    fputs(",\"stage_ms\":{", f);
    for (int i = 0; i < EDDY_STAGE_COUNT; i++) {
        if (i) fputc(',', f);
        num(f, eddy_stage_name((eddy_stage)i), s->stage_ms[i], 6);
    }
    fputs("},\"probes\":{", f);
    const eddy_scene *sc = r->scene;
    for (int i = 0; i < sc->probe_count; i++) {
        float vel[3] = {0, 0, 0}, dye = 0;
        eddy_sim_sample_velocity(r->sim, sc->probes[i].position, vel);
        for (int c = 0; c < 3; c++) {
            float v = 0;
            eddy_sim_sample_field(r->sim, (eddy_field)(EDDY_FIELD_DYE_R + c), sc->probes[i].position, &v);
            dye += v;
        }
        /* probe names are letters, digits, '_' and '-' (checked by the scene loader): no escaping needed */
        fprintf(f, "%s\"%s\":{", i ? "," : "", sc->probes[i].name);
        num(f, "u", vel[0], 9), fputc(',', f);
        num(f, "v", vel[1], 9), fputc(',', f);
        num(f, "w", sc->def.dim == 3 ? vel[2] : 0.0, 9), fputc(',', f);
        num(f, "dye", dye, 9);
        fputc('}', f);
    }
    fputs("}}\n", f);
}

/* A wind scene: one line per frame (one wind frame per picture). The same keys as a fluid step, so the same readers
 * work: step = the frame, step_ms = move + frame (the game's cost of the wind; particles apart), dye_total = 0 (there
 * is no dye), cfl = max_speed dt / cell size; stage_ms maps the wind's parts onto the stage names (sources: relaxation,
 * gusts and colliders; diagnostics: the divergence check and the sampling copy; forces and boundary 0) and adds
 * "move" and "particles". Probes sample the wind (dye 0). */
void run_stats_write_wind(run *r, const eddy_wind_frame_stats *ws, double rms_div, double kinetic_energy, double particles_ms) {
    FILE *f = r->stats;
    if (!f) return;
    const eddy_scene *sc = r->scene;
    fprintf(f, "{\"step\":%ld,", ws->frame);
    num(f, "t", ws->time, 17), fputc(',', f);
    num(f, "dt", ws->dt, 9), fputc(',', f);
    num(f, "max_div", ws->max_div, 9), fputc(',', f);
    num(f, "rms_div", rms_div, 9), fputc(',', f);
    num(f, "kinetic_energy", kinetic_energy, 17), fputc(',', f);
    num(f, "dye_total", 0.0, 17), fputc(',', f);
    num(f, "max_speed", ws->max_speed, 9), fputc(',', f);
    num(f, "cfl", (double)ws->max_speed * ws->dt / sc->wind->def.cell_size, 9), fputc(',', f);
    fprintf(f, "\"pressure_iterations\":%d,", ws->pressure_iterations);
    num(f, "pressure_residual", ws->pressure_residual, 9), fputc(',', f);
    num(f, "step_ms", ws->move_ms + ws->frame_ms, 6);
    fputs(",\"stage_ms\":{", f);
    const struct { const char *name; double ms; } stages[] = {
        {"sources", ws->sources_ms}, {"forces", 0.0}, {"advect", ws->advect_ms}, {"diffuse", ws->diffuse_ms},
        {"project", ws->project_ms}, {"boundary", 0.0}, {"diagnostics", ws->finish_ms}, {"move", ws->move_ms},
        {"particles", particles_ms}};
    for (size_t i = 0; i < sizeof stages / sizeof stages[0]; i++) {
        if (i) fputc(',', f);
        num(f, stages[i].name, stages[i].ms, 6);
    }
    fprintf(f, "},\"solid_cells\":%d,\"probes\":{", ws->solid_cells);
    for (int i = 0; i < sc->probe_count; i++) {
        float vel[3] = {0, 0, 0};
        eddy_wind_sample(run_wind_field(r), sc->probes[i].position, vel);
        fprintf(f, "%s\"%s\":{", i ? "," : "", sc->probes[i].name);
        num(f, "u", vel[0], 9), fputc(',', f);
        num(f, "v", vel[1], 9), fputc(',', f);
        num(f, "w", vel[2], 9), fputc(',', f);
        num(f, "dye", 0.0, 9);
        fputc('}', f);
    }
    fputs("}}\n", f);
}
