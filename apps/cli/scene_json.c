/* Typed, path-aware getters over cJSON for the scene loader (see scene_json.h). */
#include "scene_json.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool path_from_set(const jcheck *c, const char *path) {
    for (int i = 0; i < c->set_count; i++) {
        size_t n = strlen(c->set_paths[i]);
        if (!strncmp(path, c->set_paths[i], n) && (path[n] == '\0' || path[n] == '.' || path[n] == '['))
            return true;
        /* an error on a parent object caused by a new key set below it */
        size_t m = strlen(path);
        if (m && !strncmp(c->set_paths[i], path, m) && (c->set_paths[i][m] == '.' || c->set_paths[i][m] == '['))
            return true;
    }
    return false;
}

/* "FILE: PATH: message", or "FILE: message" when `say_path` is false (the message names the key itself) */
static bool fail_v(jcheck *c, const char *path, bool say_path, const char *fmt, va_list ap) {
    if (!c->err || !c->err_size) return false;
    char body[768];
    vsnprintf(body, sizeof body, fmt, ap);
    const char *from_set = (path && *path && path_from_set(c, path)) ? " (from --set)" : "";
    if (path && *path && say_path)
        snprintf(c->err, c->err_size, "%s: %s: %s%s", c->file ? c->file : "scene", path, body, from_set);
    else
        snprintf(c->err, c->err_size, "%s: %s%s", c->file ? c->file : "scene", body, from_set);
    return false;
}

bool jc_fail(jcheck *c, const char *path, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fail_v(c, path, true, fmt, ap);
    va_end(ap);
    return false;
}

bool jc_fail_keyed(jcheck *c, const char *path, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fail_v(c, path, false, fmt, ap);
    va_end(ap);
    return false;
}

const char *jc_key_path(char *out, const char *path, const char *key) {
    if (path && *path)
        snprintf(out, JPATH_MAX, "%s.%s", path, key);
    else
        snprintf(out, JPATH_MAX, "%s", key);
    return out;
}

const char *jc_index_path(char *out, const char *path, int index) {
    snprintf(out, JPATH_MAX, "%s[%d]", path ? path : "", index);
    return out;
}

const char *jc_describe(const cJSON *v, char *buf, size_t size) {
    if (!v) snprintf(buf, size, "nothing");
    else if (cJSON_IsString(v)) snprintf(buf, size, "string \"%.60s\"", v->valuestring ? v->valuestring : "");
    else if (cJSON_IsNumber(v)) snprintf(buf, size, "%.9g", v->valuedouble);
    else if (cJSON_IsTrue(v)) snprintf(buf, size, "true");
    else if (cJSON_IsFalse(v)) snprintf(buf, size, "false");
    else if (cJSON_IsNull(v)) snprintf(buf, size, "null");
    else if (cJSON_IsArray(v)) snprintf(buf, size, "an array of %d", cJSON_GetArraySize(v));
    else if (cJSON_IsObject(v)) snprintf(buf, size, "an object");
    else snprintf(buf, size, "an invalid value");
    return buf;
}

const cJSON *jc_member(const cJSON *obj, const char *key) {
    if (!cJSON_IsObject(obj)) return NULL;
    for (const cJSON *m = obj->child; m; m = m->next)
        if (m->string && !strcmp(m->string, key)) return m;
    return NULL;
}

bool jc_object(jcheck *c, const cJSON *v, const char *path, const char *const *allowed) {
    char got[96];
    if (!cJSON_IsObject(v)) return jc_fail(c, path, "expected an object, got %s", jc_describe(v, got, sizeof got));
    for (const cJSON *m = v->child; m; m = m->next) {
        char p[JPATH_MAX];
        const char *key = m->string ? m->string : "";
        bool known = false;
        for (int i = 0; allowed && allowed[i]; i++)
            if (!strcmp(allowed[i], key)) known = true;
        if (!known) {
            char list[512] = "";
            size_t used = 0;
            for (int i = 0; allowed && allowed[i] && used + 2 < sizeof list; i++) {
                int w = snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", allowed[i]);
                if (w < 0) break;
                used += (size_t)w;
            }
            return jc_fail(c, jc_key_path(p, path, key), "unknown key (expected one of: %s)", list);
        }
        for (const cJSON *o = v->child; o != m; o = o->next)
            if (o->string && !strcmp(o->string, key))
                return jc_fail(c, jc_key_path(p, path, key), "key given twice");
    }
    return true;
}

static bool in_range(double x, jrange r) {
    if (!isfinite(x)) return false;
    if (r.lo_open ? !(x > r.lo) : !(x >= r.lo)) return false;
    if (r.hi_open ? !(x < r.hi) : !(x <= r.hi)) return false;
    return true;
}

static const char *range_text(jrange r, char *buf, size_t size) {
    const char *u = (r.unit && *r.unit) ? r.unit : NULL;
    char unit[48] = "";
    if (u) snprintf(unit, sizeof unit, " %s", u);
    if (r.lo <= -1e29 && r.hi >= 1e29) snprintf(buf, size, "a finite number%s", unit);
    else if (r.hi >= 1e29) snprintf(buf, size, "a number %s %g%s", r.lo_open ? ">" : ">=", r.lo, unit);
    else if (r.lo <= -1e29) snprintf(buf, size, "a number %s %g%s", r.hi_open ? "<" : "<=", r.hi, unit);
    else
        snprintf(buf, size, "a number in %s%g, %g%s%s", r.lo_open ? "(" : "[", r.lo, r.hi, r.hi_open ? ")" : "]", unit);
    return buf;
}

bool jc_number_value(jcheck *c, const cJSON *v, const char *path, jrange r, double *out) {
    char want[128], got[96];
    if (!cJSON_IsNumber(v) || !in_range(v->valuedouble, r))
        return jc_fail(c, path, "expected %s, got %s", range_text(r, want, sizeof want), jc_describe(v, got, sizeof got));
    *out = v->valuedouble;
    return true;
}

bool jc_number(jcheck *c, const cJSON *obj, const char *path, const char *key, jrange r, double *out) {
    const cJSON *v = jc_member(obj, key);
    if (!v) return true;
    char p[JPATH_MAX];
    return jc_number_value(c, v, jc_key_path(p, path, key), r, out);
}

/* A value is stored as float: a nonzero one that becomes 0 or subnormal there would silently change meaning (dt 0 is
 * the adaptive step) or lose its precision. */
static bool float_underflows(double d) {
    float f = (float)d;
    return d != 0 && (f == 0 || !isnormal(f));
}

static bool float_fail(jcheck *c, const char *path, double d) {
    return jc_fail(c, path, "%.9g is too close to 0 to be stored (a float): expected 0 or a magnitude of at least %g", d,
                   (double)FLT_MIN);
}

bool jc_float(jcheck *c, const cJSON *obj, const char *path, const char *key, jrange r, float *out) {
    double d = *out;
    /* keep the range inside float */
    if (r.hi > 3e38) r.hi = 3e38;
    if (r.lo < -3e38) r.lo = -3e38;
    if (!jc_number(c, obj, path, key, r, &d)) return false;
    if (float_underflows(d)) {
        char p[JPATH_MAX];
        return float_fail(c, jc_key_path(p, path, key), d);
    }
    *out = (float)d;
    return true;
}

bool jc_int(jcheck *c, const cJSON *obj, const char *path, const char *key, jrange r, int *out) {
    const cJSON *v = jc_member(obj, key);
    if (!v) return true;
    char p[JPATH_MAX], want[128], got[96];
    jc_key_path(p, path, key);
    if (r.hi > 2147483647.0) r.hi = 2147483647.0;
    if (r.lo < -2147483647.0) r.lo = -2147483647.0;
    if (!cJSON_IsNumber(v) || !in_range(v->valuedouble, r) || v->valuedouble != floor(v->valuedouble)) {
        range_text(r, want, sizeof want);
        return jc_fail(c, p, "expected a whole %s, got %s", want + 2 /* drop "a " */, jc_describe(v, got, sizeof got));
    }
    *out = (int)v->valuedouble;
    return true;
}

bool jc_bool(jcheck *c, const cJSON *obj, const char *path, const char *key, bool *out) {
    const cJSON *v = jc_member(obj, key);
    if (!v) return true;
    char p[JPATH_MAX], got[96];
    if (!cJSON_IsBool(v)) return jc_fail(c, jc_key_path(p, path, key), "expected true or false, got %s", jc_describe(v, got, sizeof got));
    *out = cJSON_IsTrue(v);
    return true;
}

bool jc_string(jcheck *c, const cJSON *obj, const char *path, const char *key, char **out) {
    const cJSON *v = jc_member(obj, key);
    if (!v) return true;
    char p[JPATH_MAX], got[96];
    if (!cJSON_IsString(v) || !v->valuestring)
        return jc_fail(c, jc_key_path(p, path, key), "expected a string, got %s", jc_describe(v, got, sizeof got));
    char *s = strdup(v->valuestring);
    if (!s) return jc_fail(c, jc_key_path(p, path, key), "out of memory");
    free(*out);
    *out = s;
    return true;
}

bool jc_enum(jcheck *c, const cJSON *obj, const char *path, const char *key, const char *const *names, int *out) {
    const cJSON *v = jc_member(obj, key);
    if (!v) return true;
    char p[JPATH_MAX], got[96], list[256] = "";
    jc_key_path(p, path, key);
    if (cJSON_IsString(v) && v->valuestring)
        for (int i = 0; names[i]; i++)
            if (!strcmp(names[i], v->valuestring)) {
                *out = i;
                return true;
            }
    size_t used = 0;
    for (int i = 0; names[i] && used + 2 < sizeof list; i++) {
        int w = snprintf(list + used, sizeof list - used, "%s\"%s\"", i ? ", " : "", names[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    return jc_fail(c, p, "expected one of %s, got %s", list, jc_describe(v, got, sizeof got));
}

bool jc_vec_value(jcheck *c, const cJSON *v, const char *path, int n, jrange r, float *out) {
    char want[128], got[96];
    if (r.hi > 3e38) r.hi = 3e38;
    if (r.lo < -3e38) r.lo = -3e38;
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return jc_fail(c, path, "expected an array of %d numbers, got %s", n, jc_describe(v, got, sizeof got));
    float tmp[16];
    int i = 0;
    for (const cJSON *e = v->child; e; e = e->next, i++) {
        char p[JPATH_MAX];
        double d;
        if (!cJSON_IsNumber(e) || !in_range(e->valuedouble, r))
            return jc_fail(c, jc_index_path(p, path, i), "expected %s, got %s", range_text(r, want, sizeof want),
                           jc_describe(e, got, sizeof got));
        d = e->valuedouble;
        if (float_underflows(d)) return float_fail(c, jc_index_path(p, path, i), d);
        if (i < 16) tmp[i] = (float)d;
    }
    for (i = 0; i < n && i < 16; i++) out[i] = tmp[i];
    return true;
}

bool jc_vec(jcheck *c, const cJSON *obj, const char *path, const char *key, int n, jrange r, float *out) {
    const cJSON *v = jc_member(obj, key);
    if (!v) return true;
    char p[JPATH_MAX];
    return jc_vec_value(c, v, jc_key_path(p, path, key), n, r, out);
}
