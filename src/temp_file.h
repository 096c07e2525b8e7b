/* A unique temporary file beside a destination, for writers that write whole files under a temporary name and
 * rename them into place (the state files here, every writer of the io module). Internal, not installed. */
#ifndef EDDY_TEMP_FILE_H
#define EDDY_TEMP_FILE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Creates "<path>.tmp-XXXXXX" (mkstemp: a name no other file has, so nothing of the user's is overwritten), empty,
 * readable by others (0644), closed. Returns the name (caller frees), or NULL with errno set. */
char *eddy__temp_file_beside(const char *path);

/* What is at `path` when the rename of a finished temporary file would replace something that is not an ordinary
 * file: "a directory", "a symbolic link" (lstat: the link itself, which the rename would replace, not its target) or
 * "a device, pipe or socket". NULL when nothing is there or a regular file is (that one is replaced, as documented). */
const char *eddy__not_replaceable(const char *path);

#ifdef __cplusplus
}
#endif
#endif
