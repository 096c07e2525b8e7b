/* See output_file.h. The library's writers put whole files under a temporary name beside the destination and rename
 * them into place (src/temp_file.c); the check makes that temporary file once, so a folder that takes no files is
 * found now rather than when the screenshot is due. */
#define _POSIX_C_SOURCE 200809L
#include "output_file.h"

#include "temp_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int output_file_check(const char *option, const char *path, int overwrite, char *msg, size_t msg_size) {
    char why[512];
    eddy_status st;
    /* refuses a folder, link, device, pipe or socket at the path (the rename would replace it) and a folder that
     * takes no files */
    char *tmp = eddy__temp_file_for(path, why, sizeof why, &st);
    if (!tmp) {
        snprintf(msg, msg_size, "%s: %s", option, why);
        return -1;
    }
    remove(tmp);
    free(tmp);
    struct stat sb;
    if (!overwrite && lstat(path, &sb) == 0) {
        snprintf(msg, msg_size, "%s %s: the file exists; give another name, or --force to overwrite it", option, path);
        return -1;
    }
    return 0;
}
