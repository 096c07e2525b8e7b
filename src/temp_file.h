/* A unique temporary file beside a destination, for writers that write whole files under a temporary name and
 * rename them into place (state files, surfaces, every writer of the io module, flipbooks). Internal, not installed. */
#ifndef EDDY_TEMP_FILE_H
#define EDDY_TEMP_FILE_H

#include "eddy/types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Creates "<path>.tmp-XXXXXX" (mkstemp: a name no other file has, so nothing of the user's is overwritten), empty,
 * readable by others (0644), closed. Returns the name (caller frees), or NULL with errno set. */
char *eddy__temp_file_beside(const char *path);

/* The temporary file for a writer of `path` (every writer of the library goes through this): refuses an empty path,
 * and anything at `path` that the final rename would replace but that is not a regular file (a directory, a symbolic
 * link itself, a device, pipe or socket), then eddy__temp_file_beside. NULL with *st and msg set on failure. */
char *eddy__temp_file_for(const char *path, char *msg, size_t msg_size, eddy_status *st);

#ifdef __cplusplus
}
#endif
#endif
