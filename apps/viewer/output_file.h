/* Files the viewer writes on request (--screenshot-at's PNG, --record's replay), checked before the viewer starts:
 * a run is not spent on a picture or recording that cannot be saved, and nothing of the user's is replaced unasked. */
#ifndef VIEWER_OUTPUT_FILE_H
#define VIEWER_OUTPUT_FILE_H

#include <stddef.h>

/** 0 when `path` can be written as a new file: its folder takes files, and nothing is there, or a regular file and
 *  `overwrite` (--force) is set. Else -1 with a message naming `option`, the path and why (a file that exists, a
 *  folder, link, device, pipe or socket, a folder that is missing or read-only). */
int output_file_check(const char *option, const char *path, int overwrite, char *msg, size_t msg_size);

#endif
