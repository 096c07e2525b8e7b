/* Replay files: recorded input events as text, one per line, so viewer runs are scriptable and testable.
 * Format (docs/viewer.md):   TIME KIND [ARGS]     '#' starts a comment; blank lines are skipped.
 *   0.10 move 0.20 0.50          pointer to 20% from the left, 50% from the top of the window
 *   0.10 down 0.20 0.50 left     press (left | right | shift-left | shift-right) at a position
 *   0.60 up 0.80 0.50 left       release
 *   1.00 key v                   a key: one character, or space, escape, plus, minus, hash, left, right, up, down
 *   1.20 wheel 1                 wheel notches (positive: away from the user, zooms in)
 *   1.30 leave                   pointer left the window
 *   3.00 quit                    close the viewer
 * TIME is in seconds of the viewer clock and must not decrease. */
#ifndef VIEWER_REPLAY_H
#define VIEWER_REPLAY_H

#include "viewer_event.h"

#include <stddef.h>
#include <stdio.h>

typedef struct replay {
    viewer_event *events;
    int count;
    int next;      /* index of the next event to deliver */
} replay;

/** Parses `text` (NUL-terminated) into `out`; on error returns -1 with a message naming `name`, the line and
 *  what was expected. */
int replay_parse(const char *text, const char *name, replay *out, char *msg, size_t msg_size);
/** Reads and parses a file. Refused with a message, as soon as it is seen (an input that does not end is not read
 *  for ever): a file that cannot be read (a folder, ...), a NUL byte or a line over 511 characters (not a replay),
 *  more than 1 GiB. */
int replay_load(const char *path, replay *out, char *msg, size_t msg_size);
void replay_free(replay *r);
/** The next event with time <= `now`, or NULL. */
const viewer_event *replay_poll(replay *r, double now);
/** Writes one event as a line of the format (for --record), its numbers in as many decimals as read back exactly. */
void replay_write_event(FILE *f, const viewer_event *ev);
/** A recording (--record): events written to a temporary file beside `path`, renamed to `path` when the recording is
 *  finished and every byte was written, so a failed or cut-short recording never stands under the final name. */
typedef struct replay_recorder {
    FILE *file;
    char *tmp_path; /* owned */
    char *path;     /* owned */
    int error;      /* errno of the first failed write, 0 while all went well */
    double last_time; /* time of the last event written */
} replay_recorder;

/** Starts a recording for `path` (the caller has checked what is there: output_file_check). Returns 0, or -1 with a
 *  message. */
int replay_recorder_open(replay_recorder *rec, const char *path, char *msg, size_t msg_size);
/** Writes one event (a failed write is reported by replay_recorder_finish), at the time of the last one written when
 *  its own is earlier. */
void replay_recorder_write(replay_recorder *rec, const viewer_event *ev);
/** Finishes the recording: the file is complete and renamed into place (0), or it could not be written whole and
 *  is removed (-1 with a message naming the file and why). Frees the recorder either way. */
int replay_recorder_finish(replay_recorder *rec, char *msg, size_t msg_size);
/** Drops the recording: the temporary file is removed, nothing is left at the path. */
void replay_recorder_abort(replay_recorder *rec);
/** Name of a key for the format ("space", "hash", "v", ...); `buf` holds single characters. */
const char *replay_key_name(int key, char buf[2]);

#endif
