/* Unique temporary files beside their destination: in the same folder, so that rename(2) stays on one file
 * system and replaces the destination atomically. */
#define _POSIX_C_SOURCE 200809L
#include "temp_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *eddy__temp_file_beside(const char *path) {
    const size_t len = strlen(path);
    char *tmp = malloc(len + sizeof ".tmp-XXXXXX");
    if (!tmp) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(tmp, path, len);
    memcpy(tmp + len, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        const int e = errno;
        free(tmp);
        errno = e;
        return NULL;
    }
    /* mkstemp creates 0600; finished outputs are ordinary files others may read (as with a umask of 022) */
    fchmod(fd, 0644);
    close(fd);
    return tmp;
}

/* what is at `path` when it is not a regular file (the rename would replace it), else NULL; *mode: the permission
 * bits of the regular file there, -1 when there is none */
static const char *not_replaceable(const char *path, int *mode) {
    struct stat sb;
    *mode = -1;
    if (lstat(path, &sb) != 0) return NULL;
    if (S_ISREG(sb.st_mode)) {
        *mode = (int)(sb.st_mode & 0777);
        return NULL;
    }
    return S_ISDIR(sb.st_mode)   ? "a directory (a folder)"
           : S_ISLNK(sb.st_mode) ? "a symbolic link"
                                 : "a device, pipe or socket";
}

char *eddy__temp_file_for(const char *path, char *msg, size_t msg_size, eddy_status *st) {
    if (!path || !path[0]) {
        *st = EDDY_ERR_INVALID_ARGUMENT;
        if (msg && msg_size) snprintf(msg, msg_size, "output path is empty");
        return NULL;
    }
    int mode;
    const char *kind = not_replaceable(path, &mode);
    if (kind) {
        *st = EDDY_ERR_IO;
        if (msg && msg_size) snprintf(msg, msg_size, "cannot write '%s': it exists and is %s, not a regular file", path, kind);
        return NULL;
    }
    char *tmp = eddy__temp_file_beside(path);
    if (!tmp) {
        const int e = errno;
        *st = e == ENOMEM ? EDDY_ERR_OUT_OF_MEMORY : EDDY_ERR_IO;
        if (msg && msg_size) {
            if (e == ENOMEM) snprintf(msg, msg_size, "%s: out of memory", path);
            else snprintf(msg, msg_size, "%s: cannot create a temporary file beside it: %s", path, strerror(e));
        }
        return NULL;
    }
    /* the file it replaces keeps its permission bits (a private 0600 file saved over became 0644, readable by others);
     * the owner's write bit stays, which the writer needs (a read-only file is replaced, as before) */
    if (mode >= 0 && chmod(tmp, (mode_t)(mode | 0200)) != 0) {
        const int e = errno;
        remove(tmp);
        free(tmp);
        *st = EDDY_ERR_IO;
        if (msg && msg_size) snprintf(msg, msg_size, "%s: cannot give its temporary file the old file's mode %03o: %s", path,
                                      (unsigned)(mode | 0200), strerror(e));
        return NULL;
    }
    *st = EDDY_OK;
    return tmp;
}
