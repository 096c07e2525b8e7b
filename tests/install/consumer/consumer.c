/* A program outside the eddy tree: creates a simulation, splats, reads a value back. */
#include <eddy/eddy.h>
#include <stdio.h>

int main(void) {
    eddy_sim_def def = eddy_sim_def_default();
    def.grid[0] = def.grid[1] = 16;
    eddy_sim *sim = NULL;
    char msg[128];
    if (eddy_sim_create(&def, &sim, msg, sizeof msg) != EDDY_OK) { printf("consumer: %s\n", msg); return 1; }
    eddy_splat sp = {{0.5f, 0.5f, 0}, 0.1f, {0, 0, 0}, {1, 0, 0}, 0};
    float p[3] = {0.5f, 0.5f, 0}, v = 0;
    int ok = eddy_sim_splat(sim, &sp) == EDDY_OK && eddy_sim_sample_field(sim, EDDY_FIELD_DYE_R, p, &v) == EDDY_OK && v > 0.5f;
    eddy_sim_destroy(sim);
    printf(ok ? "consumer: ok\n" : "consumer: wrong value\n");
    return ok ? 0 : 1;
}
