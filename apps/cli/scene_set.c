/* --set key.path=value overrides on the scene's JSON tree (see scene_set.h). */
#include "scene_set.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEGMENTS 32
#define SEGMENT_MAX 128

typedef struct segment {
    char key[SEGMENT_MAX];
    int index; /* >= 0: an array element */
} segment;

static bool all_digits(const char *s, size_t n) {
    if (n == 0 || n > 9) return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i])) return false;
    return true;
}

/* Splits "a.b[2].c" / "a.b.2.c" into segments. */
static int split_path(const char *path, size_t len, segment *seg, char *err, size_t err_size, const char *text) {
    int n = 0;
    size_t i = 0;
    while (i < len) {
        if (n == MAX_SEGMENTS) {
            snprintf(err, err_size, "--set %s: the key path is deeper than %d levels", text, MAX_SEGMENTS);
            return -1;
        }
        if (path[i] == '[') {
            size_t j = i + 1;
            while (j < len && path[j] != ']') j++;
            if (j == len || !all_digits(path + i + 1, j - i - 1)) {
                snprintf(err, err_size, "--set %s: expected an array index like [0] in the key path", text);
                return -1;
            }
            seg[n].key[0] = '\0';
            seg[n].index = atoi(path + i + 1);
            n++;
            i = j + 1;
            if (i < len && path[i] == '.') i++;
            continue;
        }
        size_t j = i;
        while (j < len && path[j] != '.' && path[j] != '[') j++;
        if (j == i || j - i >= SEGMENT_MAX) {
            snprintf(err, err_size, "--set %s: empty or too long key in the key path", text);
            return -1;
        }
        if (all_digits(path + i, j - i)) {
            seg[n].key[0] = '\0';
            seg[n].index = atoi(path + i);
        } else {
            memcpy(seg[n].key, path + i, j - i);
            seg[n].key[j - i] = '\0';
            seg[n].index = -1;
        }
        n++;
        i = j;
        if (i < len && path[i] == '.') {
            i++;
            if (i == len) {
                snprintf(err, err_size, "--set %s: the key path ends with '.'", text);
                return -1;
            }
        }
    }
    return n;
}

static cJSON *object_member(cJSON *obj, const char *key) {
    for (cJSON *m = obj->child; m; m = m->next)
        if (m->string && !strcmp(m->string, key)) return m;
    return NULL;
}

bool scene_apply_override(cJSON *root, const char *text, char **norm_path, char *err, size_t err_size) {
    *norm_path = NULL;
    const char *eq = strchr(text, '=');
    if (!eq || eq == text) {
        snprintf(err, err_size, "--set %s: expected key.path=value (for example --set viscosity=0.001)", text);
        return false;
    }
    segment seg[MAX_SEGMENTS];
    int n = split_path(text, (size_t)(eq - text), seg, err, err_size, text);
    if (n <= 0) {
        if (n == 0) snprintf(err, err_size, "--set %s: empty key path", text);
        return false;
    }
    /* the normalised path, as the loader prints key paths */
    size_t cap = (size_t)(eq - text) + 16 * (size_t)n + 1;
    char *norm = (char *)malloc(cap);
    if (!norm) {
        snprintf(err, err_size, "out of memory");
        return false;
    }
    size_t used = 0;
    for (int i = 0; i < n; i++) {
        int w = seg[i].index >= 0 ? snprintf(norm + used, cap - used, "[%d]", seg[i].index)
                                  : snprintf(norm + used, cap - used, "%s%s", i ? "." : "", seg[i].key);
        if (w > 0) used += (size_t)w;
    }
    const char *value_text = eq + 1;
    const char *end = NULL;
    cJSON *value = cJSON_ParseWithOpts(value_text, &end, 1);
    if (!value) value = cJSON_CreateString(value_text); /* not JSON: a string */
    if (!value) {
        free(norm);
        snprintf(err, err_size, "out of memory");
        return false;
    }
    cJSON *node = root;
    for (int i = 0; i < n; i++) {
        bool last = i == n - 1;
        if (seg[i].index >= 0) {
            if (!cJSON_IsArray(node) || seg[i].index >= cJSON_GetArraySize(node)) {
                snprintf(err, err_size, "--set %s: the scene has no element %s (only existing array elements can be set)",
                         text, norm);
                goto fail;
            }
            if (last) {
                cJSON_ReplaceItemInArray(node, seg[i].index, value);
                break;
            }
            node = cJSON_GetArrayItem(node, seg[i].index);
            continue;
        }
        if (!cJSON_IsObject(node)) {
            snprintf(err, err_size, "--set %s: cannot set key \"%s\": the value above it is not an object", text, seg[i].key);
            goto fail;
        }
        cJSON *m = object_member(node, seg[i].key);
        if (last) {
            if (m) cJSON_ReplaceItemInObjectCaseSensitive(node, seg[i].key, value);
            else cJSON_AddItemToObject(node, seg[i].key, value);
            break;
        }
        if (!m) {
            m = cJSON_CreateObject();
            if (!m) {
                snprintf(err, err_size, "out of memory");
                goto fail;
            }
            cJSON_AddItemToObject(node, seg[i].key, m);
        }
        node = m;
    }
    *norm_path = norm;
    return true;
fail:
    cJSON_Delete(value);
    free(norm);
    return false;
}
