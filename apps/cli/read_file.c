/* Opening the files the eddy command reads (read_file.h). */
#include "read_file.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

FILE *cli_open_for_reading(const char *path, const char *what, char *err, size_t err_size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open the %s: %s", path, what, strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fclose(f);
        snprintf(err, err_size, "%s: is a directory, not a %s", path, what);
        return NULL;
    }
    return f;
}
