/* Minimal test helpers: CHECK prints the failing condition and counts it; main returns check_finish(). */
#ifndef EDDY_TEST_CHECK_H
#define EDDY_TEST_CHECK_H
#include <stdio.h>
#include <string.h>

static int check_failures_;
static int check_count_;
#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        check_count_++;                                                             \
        if (!(cond)) {                                                              \
            check_failures_++;                                                      \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                           \
            fprintf(stderr, "\n");                                                  \
        }                                                                           \
    } while (0)
/* --full selects the full-size validation variant (registered by CMake when EDDY_FULL_SIZE appears). */
static inline int check_full_size(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--full")) return 1;
    return 0;
}
static inline int check_finish(const char *name) {
    printf("%s: %d checks, %d failed\n", name, check_count_, check_failures_);
    return check_failures_ ? 1 : 0;
}
#endif
