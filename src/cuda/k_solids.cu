/* Obstacle rasterisation on the device (obstacles.c): a cell is solid when the user mask marks it or the signed
 * distance of an obstacle at its centre is negative; the last obstacle covering a cell sets its velocity.
 * Obstacles given by an SDF callback are host functions: backend.cu rasterises those on the host. */
#include "cu_sim.cuh"

namespace ecu {

__global__ void k_rasterize(Geo g, const DShape *__restrict__ obst, int count, const uint8_t *__restrict__ mask,
                            uint8_t *__restrict__ solid, float *__restrict__ sv0, float *__restrict__ sv1,
                            float *__restrict__ sv2) {
    ECU_IJK(g.n[0], g.n[1]);
    if (!inside_) return;
    size_t c = idx3(g.n, i, j, k);
    float p[3] = {g.origin[0] + ((float)i + 0.5f) * g.h, g.origin[1] + ((float)j + 0.5f) * g.h,
                  g.origin[2] + ((float)k + 0.5f) * g.h};
    uint8_t sol = mask ? mask[c] : 0;
    float v[3] = {0, 0, 0};
    for (int o = 0; o < count; o++) {
        DShape d = obst[o];
        if (shape_sdf(d, p, g.dim) < 0) {
            sol = 1;
            v[0] = d.velocity[0];
            v[1] = d.velocity[1];
            v[2] = g.dim == 3 ? d.velocity[2] : 0.0f;
        }
    }
    solid[c] = sol;
    sv0[c] = v[0];
    sv1[c] = v[1];
    sv2[c] = v[2];
}

cudaError_t launch_rasterize(cu_sim *c, int obstacle_count) {
    k_rasterize<<<tiles(c->g.n[0], c->g.n[1], c->g.n[2]), tile_block(), 0, c->stream>>>(
        c->g, c->obst, obstacle_count, c->s->user_mask ? c->user_mask : nullptr, c->solid, c->solid_vel[0],
        c->solid_vel[1], c->solid_vel[2]);
    return cudaGetLastError();
}

} /* namespace ecu */
