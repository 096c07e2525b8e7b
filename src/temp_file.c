/* Unique temporary files beside their destination: in the same folder, so that rename(2) stays on one file
 * system and replaces the destination atomically. */
#define _POSIX_C_SOURCE 200809L
#include "temp_file.h"

#include <errno.h>
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

const char *eddy__not_replaceable(const char *path) {
    struct stat sb;
    if (lstat(path, &sb) != 0 || S_ISREG(sb.st_mode)) return NULL;
    return S_ISDIR(sb.st_mode) ? "a directory" : S_ISLNK(sb.st_mode) ? "a symbolic link" : "a device, pipe or socket";
}
