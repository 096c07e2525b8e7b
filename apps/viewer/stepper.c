/* The step thread (see stepper.h): a mutex and one condition variable hand a request over and the result back. */
#include "stepper.h"

#include <string.h>
#include <time.h>

static double stepper_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void *stepper_main(void *arg) {
    stepper *sp = arg;
    pthread_mutex_lock(&sp->lock);
    for (;;) {
        while (!sp->pending && !sp->quit) pthread_cond_wait(&sp->changed, &sp->lock);
        if (sp->quit) break;
        sp->pending = 0;
        eddy_sim *sim = sp->sim;
        double duration = sp->duration;
        pthread_mutex_unlock(&sp->lock);

        double t0 = stepper_now_ms();
        long before = eddy_sim_step_count(sim);
        eddy_status st = eddy_sim_advance(sim, duration);
        int substeps = (int)(eddy_sim_step_count(sim) - before);
        double stage_ms[EDDY_STAGE_COUNT];
        /* the stats hold the last substep's stages: a frame's substeps cost about as much each */
        const eddy_step_stats *stats = eddy_sim_stats(sim);
        for (int k = 0; k < EDDY_STAGE_COUNT; k++) stage_ms[k] = stats->stage_ms[k] * substeps;
        double ms = stepper_now_ms() - t0;

        pthread_mutex_lock(&sp->lock);
        sp->result = st;
        sp->step_ms = ms;
        sp->substeps = substeps;
        memcpy(sp->stage_ms, stage_ms, sizeof stage_ms);
        sp->busy = 0;
        pthread_cond_broadcast(&sp->changed);
    }
    pthread_mutex_unlock(&sp->lock);
    return NULL;
}

int stepper_init(stepper *sp) {
    memset(sp, 0, sizeof *sp);
    if (pthread_mutex_init(&sp->lock, NULL) != 0) return -1;
    if (pthread_cond_init(&sp->changed, NULL) != 0) {
        pthread_mutex_destroy(&sp->lock);
        return -1;
    }
    if (pthread_create(&sp->thread, NULL, stepper_main, sp) != 0) {
        pthread_cond_destroy(&sp->changed);
        pthread_mutex_destroy(&sp->lock);
        return -1;
    }
    sp->started = 1;
    return 0;
}

void stepper_destroy(stepper *sp) {
    if (!sp->started) return;
    stepper_wait(sp);
    pthread_mutex_lock(&sp->lock);
    sp->quit = 1;
    pthread_cond_broadcast(&sp->changed);
    pthread_mutex_unlock(&sp->lock);
    pthread_join(sp->thread, NULL);
    pthread_cond_destroy(&sp->changed);
    pthread_mutex_destroy(&sp->lock);
    sp->started = 0;
}

void stepper_start(stepper *sp, eddy_sim *sim, double duration) {
    pthread_mutex_lock(&sp->lock);
    sp->sim = sim;
    sp->duration = duration;
    sp->busy = 1;
    sp->pending = 1;
    pthread_cond_broadcast(&sp->changed);
    pthread_mutex_unlock(&sp->lock);
}

eddy_status stepper_wait(stepper *sp) {
    if (!sp->started) return EDDY_OK;
    pthread_mutex_lock(&sp->lock);
    while (sp->busy) pthread_cond_wait(&sp->changed, &sp->lock);
    eddy_status st = sp->result;
    sp->result = EDDY_OK;
    pthread_mutex_unlock(&sp->lock);
    return st;
}
