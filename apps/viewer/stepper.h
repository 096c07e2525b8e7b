/* A thread of its own for a simulation's steps, so that a frame's step runs while the previous state is drawn and
 * shown (on a 2-core machine: the step on one core, rendering and presenting on the other). One step is in flight
 * at most; stepper_wait returns when it has finished. Between stepper_wait and the next stepper_start the caller
 * owns the simulation alone (splats, obstacles, reading fields); while a step is in flight it must not touch it.
 * The order of operations on the simulation is the caller's, whatever the timing, so results are deterministic. */
#ifndef VIEWER_STEPPER_H
#define VIEWER_STEPPER_H

#include "eddy/sim.h"

#include <pthread.h>

typedef struct stepper {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int started;         /* the thread exists */
    int busy;            /* a step was requested and has not been waited for */
    int pending;         /* the thread has yet to start it */
    int quit;
    eddy_sim *sim;
    double duration;     /* s to advance */
    eddy_status result;
    double step_ms;      /* wall time of the last step */
    int substeps;        /* eddy_sim steps it took */
    double stage_ms[EDDY_STAGE_COUNT]; /* its stages, the last substep's times the substeps */
} stepper;

/** Starts the thread. Returns 0, or -1 when it cannot be created. */
int stepper_init(stepper *sp);
/** Waits for a step in flight, then ends the thread. */
void stepper_destroy(stepper *sp);
/** Advances `sim` by `duration` s (eddy_sim_advance) on the thread; returns at once. */
void stepper_start(stepper *sp, eddy_sim *sim, double duration);
/** Waits for the step in flight, if any; returns its status (EDDY_OK when none was in flight). */
eddy_status stepper_wait(stepper *sp);

#endif
