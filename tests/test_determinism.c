/* Determinism: the same run with 1, 2 and 3 threads, and with the AVX2 and the baseline builds of the row kernels
 * (vector_isa.h), gives identical bytes in every field and every diagnostic (lockstep games need it). Exercises every stage: splats, emitters, buoyancy (temperature and dye), vorticity
 * confinement, each advection scheme, viscosity, each pressure solver, moving obstacles; 2D and 3D, walls and
 * periodic axes (the confinement sweep splits the outermost axis between threads, and 3 threads split it
 * unevenly), inflow, outflow and no-slip faces, a scalar grid finer than the velocity grid and one of the same size
 * (2D: every advection scheme with both). */
#include "check.h"
#include "same_fields.h"
#include "sim_internal.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static eddy_sim *run(int dim, int threads, bool wide, eddy_advection adv, eddy_pressure_solver ps, bool periodic, int dye_scale) {
    eddy_sim_def d = eddy_sim_def_default();
    d.dim = dim;
    d.grid[0] = dim == 2 ? 48 : 20;
    d.grid[1] = dim == 2 ? 40 : 18;
    d.grid[2] = 16;
    d.size[0] = 1.0f;
    d.threads = threads;
    d.advection = adv;
    d.pressure.solver = ps;
    d.vorticity = 0.3f;
    d.viscosity = 1e-4f;
    d.dye_diffusion = 1e-4f;
    d.buoyancy_temperature = 0.5f;
    d.buoyancy_density = 0.05f;
    d.dye_scale[0] = d.dye_scale[1] = d.dye_scale[2] = dye_scale;
    d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_OUTFLOW;
    if (dye_scale == 1 && !periodic) { /* an inflow face too, and a no-slip one */
        d.boundary[EDDY_FACE_X_MIN].type = EDDY_BOUNDARY_INFLOW;
        d.boundary[EDDY_FACE_X_MIN].velocity[0] = 0.4f;
        d.boundary[EDDY_FACE_X_MIN].dye[2] = 0.5f;
        d.boundary[EDDY_FACE_Y_MAX].type = EDDY_BOUNDARY_NOSLIP;
    }
    if (periodic) { /* x and the outermost axis periodic, gravity tilted, scalars on the velocity grid */
        int outer = dim - 1;
        d.boundary[EDDY_FACE_X_MIN].type = d.boundary[EDDY_FACE_X_MAX].type = EDDY_BOUNDARY_PERIODIC;
        d.boundary[2 * outer].type = d.boundary[2 * outer + 1].type = EDDY_BOUNDARY_PERIODIC;
        d.dye_scale[0] = d.dye_scale[1] = d.dye_scale[2] = 1;
        d.gravity[0] = 0.7f;
    }
    eddy_sim *s = NULL;
    char msg[256];
    if (eddy_sim_create(&d, &s, msg, sizeof msg) != EDDY_OK) {
        CHECK(0, "create: %s", msg);
        return NULL;
    }
    s->avx2 = wide && eddy__cpu_has_avx2();
    eddy_obstacle_def o = {0};
    o.shape = EDDY_SHAPE_SPHERE;
    o.center[0] = 0.5f; o.center[1] = 0.4f; o.center[2] = 0.4f; o.radius = 0.1f;
    eddy_id id;
    eddy_sim_add_obstacle(s, &o, &id);
    eddy_emitter_def e = {0};
    e.shape = EDDY_SHAPE_SPHERE;
    e.center[0] = 0.3f; e.center[1] = 0.15f; e.center[2] = 0.4f; e.radius = 0.08f;
    e.dye[0] = 3; e.temperature = 10; e.velocity[1] = 0.5f; e.set_velocity = 1;
    eddy_sim_add_emitter(s, &e, NULL);
    for (int step = 0; step < 12; step++) {
        eddy_splat sp = {{0.2f + 0.05f * step, 0.5f, 0.4f}, 0.06f, {0.8f, 0.3f, 0.1f}, {0.2f, 0.5f, 1.0f}, 1.0f};
        eddy_sim_splat(s, &sp);
        float c[3] = {0.5f + 0.01f * step, 0.4f, 0.4f}, v[3] = {0.3f, 0, 0};
        eddy_sim_move_obstacle(s, id, c, v);
        if (eddy_sim_step(s) != EDDY_OK) {
            CHECK(0, "step: %s", eddy_sim_last_error(s));
            break;
        }
    }
    return s;
}

static void compare(int dim, eddy_advection adv, eddy_pressure_solver ps, bool periodic, int dye_scale) {
    /* the reference: 1 thread, baseline vector width; then 1 and 2 threads with AVX2 (where the CPU has it) and 3
     * with the baseline */
    eddy_sim *a = run(dim, 1, false, adv, ps, periodic, dye_scale);
    for (int variant = 0; variant < 3; variant++) {
        int threads = variant + 1;
        eddy_sim *b = run(dim, threads, variant < 2, adv, ps, periodic, dye_scale);
        if (a && b) {
            for (int f = 0; f <= EDDY_FIELD_TEMPERATURE; f++) {
                if (f == EDDY_FIELD_W && dim == 2) continue;
                CHECK(same_field_bytes(a, b, (eddy_field)f),
                      "%dD adv %d solver %d periodic %d dye_scale %d: field %s differs between 1 thread (baseline) and %d (%s)",
                      dim, (int)adv, (int)ps, (int)periodic, dye_scale, eddy_field_name((eddy_field)f), threads, b->avx2 ? "AVX2" : "baseline");
            }
            const eddy_step_stats *p = &a->stats, *q = &b->stats;
            CHECK(memcmp(&p->kinetic_energy, &q->kinetic_energy, sizeof(double)) == 0 &&
                      memcmp(&p->dye_total, &q->dye_total, sizeof(double)) == 0 && memcmp(&p->max_div, &q->max_div, sizeof(float)) == 0 &&
                      memcmp(&p->rms_div, &q->rms_div, sizeof(float)) == 0 && memcmp(&p->max_speed, &q->max_speed, sizeof(float)) == 0 &&
                      memcmp(&p->cfl, &q->cfl, sizeof(float)) == 0,
                  "%dD periodic %d: diagnostics differ between 1 thread (baseline) and %d (%s)", dim, (int)periodic, threads,
                  b->avx2 ? "AVX2" : "baseline");
            CHECK(p->pressure_iterations == q->pressure_iterations, "pressure iterations differ");
            CHECK(p->kinetic_energy > 0 && p->dye_total > 0, "nothing moved");
        }
        eddy_sim_destroy(b);
    }
    eddy_sim_destroy(a);
}

int main(void) {
    compare(2, EDDY_ADVECT_MACCORMACK, EDDY_PRESSURE_MGPCG, false, 2);
    compare(2, EDDY_ADVECT_BFECC, EDDY_PRESSURE_RBGS, false, 2);
    compare(2, EDDY_ADVECT_SEMI_LAGRANGIAN, EDDY_PRESSURE_JACOBI, false, 2);
    compare(2, EDDY_ADVECT_MACCORMACK, EDDY_PRESSURE_MGPCG, false, 1);
    compare(2, EDDY_ADVECT_BFECC, EDDY_PRESSURE_MGPCG, false, 1);
    compare(2, EDDY_ADVECT_SEMI_LAGRANGIAN, EDDY_PRESSURE_MGPCG, false, 1);
    compare(2, EDDY_ADVECT_MACCORMACK, EDDY_PRESSURE_MGPCG, true, 1);
    compare(3, EDDY_ADVECT_MACCORMACK, EDDY_PRESSURE_MGPCG, false, 2);
    compare(3, EDDY_ADVECT_MACCORMACK, EDDY_PRESSURE_MGPCG, true, 1);
    return check_finish("test_determinism");
}
