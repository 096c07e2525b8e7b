/* --stats: every line is one JSON object with every documented key and type; one line per step, steps counting
 * up by one, time increasing by dt; probes report u, v, w, dye. */
#include "cli_util.h"

#include <cjson/cJSON.h>
#include <math.h>

static const char *const number_keys[] = {"t", "dt", "max_div", "rms_div", "kinetic_energy", "dye_total", "max_speed",
                                          "cfl", "pressure_residual", "step_ms"};
static const char *const stages[] = {"sources", "forces", "advect", "diffuse", "project", "boundary", "diagnostics"};

int main(void) {
    char dir[4096];
    cli_tempdir(dir, sizeof dir);
    int rc = cli_run(dir, "run --scene karman --set grid=[88,17] --frames 3 --no-video --quiet --stats s.jsonl "
                          "--set 'probes={\"wake\":[0.6,0.2],\"inlet\":[0.05,0.2]}'");
    CHECK(rc == 0, "exit %d:\n%s", rc, cli_output);
    size_t len = 0;
    char *text = cli_read(dir, "s.jsonl", &len);
    CHECK(text && len > 0, "no stats file");
    int lines = 0;
    long last_step = 0;
    double last_t = 0;
    for (char *line = text; text && *line;) {
        char *end = strchr(line, '\n');
        CHECK(end != NULL, "the last line is not terminated");
        if (!end) break;
        lines++;
        cJSON *o = cJSON_ParseWithLength(line, (size_t)(end - line));
        CHECK(cJSON_IsObject(o), "line %d is not a JSON object: %.*s", lines, (int)(end - line), line);
        const cJSON *step = cJSON_GetObjectItemCaseSensitive(o, "step");
        CHECK(cJSON_IsNumber(step) && (long)step->valuedouble == last_step + 1, "line %d: step should be %ld", lines, last_step + 1);
        if (cJSON_IsNumber(step)) last_step = (long)step->valuedouble;
        for (size_t k = 0; k < sizeof number_keys / sizeof number_keys[0]; k++)
            CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, number_keys[k])), "line %d: \"%s\" is not a number", lines,
                  number_keys[k]);
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, "pressure_iterations");
        CHECK(cJSON_IsNumber(it) && it->valuedouble == floor(it->valuedouble) && it->valuedouble >= 0,
              "line %d: pressure_iterations should be a count", lines);
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "t"), *dt = cJSON_GetObjectItemCaseSensitive(o, "dt");
        if (cJSON_IsNumber(t) && cJSON_IsNumber(dt)) {
            /* t advances by dt; dt is stored as a float, so agree to float precision (1e-6 relative) */
            CHECK(dt->valuedouble > 0 && fabs(t->valuedouble - last_t - dt->valuedouble) <= 1e-6 * (t->valuedouble + 1e-3),
                  "line %d: t = %.17g after %.17g with dt = %.9g", lines, t->valuedouble, last_t, dt->valuedouble);
            last_t = t->valuedouble;
        }
        const cJSON *sm = cJSON_GetObjectItemCaseSensitive(o, "stage_ms");
        CHECK(cJSON_IsObject(sm), "line %d: stage_ms is not an object", lines);
        for (size_t k = 0; k < sizeof stages / sizeof stages[0]; k++)
            CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(sm, stages[k])), "line %d: stage_ms.%s missing", lines, stages[k]);
        const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "probes");
        CHECK(cJSON_IsObject(pr) && cJSON_GetArraySize(pr) == 2, "line %d: probes should hold 2 probes", lines);
        static const char *const names[] = {"wake", "inlet"};
        for (int p = 0; p < 2; p++) {
            const cJSON *q = cJSON_GetObjectItemCaseSensitive(pr, names[p]);
            CHECK(cJSON_IsObject(q), "line %d: probe %s missing", lines, names[p]);
            static const char *const comps[] = {"u", "v", "w", "dye"};
            for (int c = 0; c < 4; c++)
                CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(q, comps[c])), "line %d: probes.%s.%s missing", lines, names[p],
                      comps[c]);
        }
        /* the inlet probe sits in the 1 m/s inflow: its u is near 1 (0.5 allows for the start-up and the walls) */
        const cJSON *in = cJSON_GetObjectItemCaseSensitive(pr, "inlet");
        const cJSON *u = in ? cJSON_GetObjectItemCaseSensitive(in, "u") : NULL;
        CHECK(cJSON_IsNumber(u) && fabs(u->valuedouble - 1.0) < 0.5, "line %d: inlet probe u = %g, expected about 1", lines,
              u ? u->valuedouble : -1.0);
        cJSON_Delete(o);
        line = end + 1;
    }
    /* 3 frames at 25 fps of a 1 m/s flow with h = 0.025 m and CFL 1: at least 0.12 s / 0.025 s = 5 steps */
    CHECK(lines >= 5, "only %d lines", lines);
    CHECK(fabs(last_t - 3.0 / 25.0) < 1e-9, "the last step should end on the third frame's time 0.12 s, not %.17g", last_t);
    /* pressure.warm_start reaches the library: the same run with it gives other residuals (the solves start from
     * the last pressure, not from 0) and still exits 0 */
    rc = cli_run(dir, "run --scene karman --set grid=[88,17] --frames 3 --no-video --quiet --stats w.jsonl "
                      "--set pressure.warm_start=true");
    CHECK(rc == 0, "warm start: exit %d:\n%s", rc, cli_output);
    size_t wlen = 0;
    char *warm = cli_read(dir, "w.jsonl", &wlen);
    /* step_ms differs between any two runs: compare the residuals only */
    char *a = text, *b = warm;
    int same = 0, compared = 0;
    while (a && b && (a = strstr(a, "\"pressure_residual\":")) && (b = strstr(b, "\"pressure_residual\":"))) {
        a += 20, b += 20;
        same += strtod(a, NULL) == strtod(b, NULL);
        compared++;
    }
    CHECK(compared >= 5 && same < compared, "pressure.warm_start=true changed none of %d residuals", compared);
    free(warm);
    free(text);
    cli_cleanup(dir);
    return check_finish("cli_stats");
}
