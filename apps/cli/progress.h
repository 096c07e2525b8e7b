/* Progress of a run: a bar on a terminal (frame, steps per second, ETA), plain log lines otherwise. */
#ifndef EDDY_CLI_PROGRESS_H
#define EDDY_CLI_PROGRESS_H

#include <stdbool.h>

typedef struct progress progress;

/* `tty`: draw a bar that rewrites itself; else print a line about every tenth of the run. */
progress *progress_create(bool tty, bool quiet, int first_frame, int total_frames, long first_step);
/* after each step (the bar is redrawn at most 10 times a second) */
void progress_step(progress *p, int frame, double t, long step);
/* after each frame */
void progress_frame(progress *p, int frame, double t, long step);
/* clears the bar before other output; `progress_frame` redraws it */
void progress_clear(progress *p);
void progress_finish(progress *p, int frame, double t, long step);
void progress_free(progress *p);
double progress_now_s(void);

#endif
