/* .npy files written by eddy, loaded by NumPy itself: every shape from 0-D to 4-D and an empty one load with
 * numpy.load (allow_pickle=False) as float32 little-endian C-order arrays of the values written, and their headers
 * pass numpy.lib.format's own strict parser (magic, version 1.0, 64-byte alignment, the trailing newline); files
 * numpy writes (its own header spacing, float64, big-endian, format 2.0) read back in eddy, Fortran order refused.
 * Skipped, with the reason printed, when no python3 with numpy is found (Debian: apt-get install python3-numpy). */
#define _POSIX_C_SOURCE 200809L /* popen */
#include "check.h"
#include "test_util.h"

/* the script numpy runs: argv[1] is the folder, argv[2:] the names; one line "ok NAME" or "bad NAME: why" each */
static const char SCRIPT[] =
    "import sys, numpy as np\n"
    "from numpy.lib import format as f\n"
    "shapes = {'d0': (), 'd1': (7,), 'd2': (3, 5), 'd3': (2, 3, 4), 'd4': (1, 2, 1, 3), 'empty': (0, 3)}\n"
    "for name in sys.argv[2:]:\n"
    "    path = sys.argv[1] + '/' + name + '.npy'\n"
    "    try:\n"
    "        with open(path, 'rb') as fp:\n"
    "            raw = fp.read()\n"
    "            fp.seek(0)\n"
    "            assert f.read_magic(fp) == (1, 0), 'version'\n"
    "            shape, fortran, dtype = f.read_array_header_1_0(fp)\n"
    "            start = fp.tell()\n"
    "        assert start % 64 == 0, 'data starts at %d' % start\n"
    "        assert raw[start - 1:start] == b'\\n', 'no newline before the data'\n"
    "        assert shape == shapes[name] and not fortran and dtype == np.dtype('<f4'), (shape, fortran, dtype)\n"
    "        a = np.load(path, allow_pickle=False)\n"
    "        want = (np.arange(int(np.prod(shape)), dtype=np.float32) * np.float32(0.5) - np.float32(1)).reshape(shape)\n"
    "        assert a.dtype == np.dtype('<f4') and a.shape == shape and a.flags['C_CONTIGUOUS'], (a.dtype, a.shape)\n"
    "        assert np.array_equal(a, want), 'values'\n"
    "        print('ok ' + name)\n"
    "    except Exception as e:\n"
    "        print('bad %s: %r' % (name, e))\n";

/* files numpy writes for eddy_npy_read (argv[1] is the folder): its own spacing "(2, 3, 4)", float64, big-endian,
 * format 2.0 (4-byte header length) and a Fortran-order array, which eddy refuses */
static const char SAVE[] =
    "import sys, numpy as np\n"
    "from numpy.lib import format as f\n"
    "d = sys.argv[1] + '/'\n"
    "a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * np.float32(0.5) - np.float32(1)\n"
    "np.save(d + 'np_d3.npy', a)\n"
    "np.save(d + 'np_f8.npy', np.array([1.5, -2.25, 1e10]))\n"
    "np.save(d + 'np_be.npy', np.array([1.5, -2.25, 3.0], dtype='>f4'))\n"
    "with open(d + 'np_v2.npy', 'wb') as fp:\n"
    "    f.write_array(fp, a, version=(2, 0))\n"
    "np.save(d + 'np_fortran.npy', np.asfortranarray(a))\n"
    "print('saved')\n";

/* a python3 that imports numpy, or NULL */
static const char *find_python(void) {
    static const char *const candidates[] = {"python3", "/usr/bin/python3"};
    for (int i = 0; i < 2; i++) {
        char cmd[256];
        snprintf(cmd, sizeof cmd, "%s -c 'import numpy' >/dev/null 2>&1", candidates[i]);
        if (system(cmd) == 0) return candidates[i];
    }
    return NULL;
}

int main(void) {
    const char *python = find_python();
    if (!python) {
        printf("test_io_npy_numpy: skipped: no python3 with numpy (apt-get install python3-numpy)\n");
        return 0;
    }
    char dir[256], path[512], msg[512];
    test_dir("npy_numpy", dir, sizeof dir);
    static float data[64];
    for (int i = 0; i < 64; i++) data[i] = (float)i * 0.5f - 1.0f;
    static const struct {
        const char *name;
        int ndim;
        size_t shape[4];
    } arrays[] = {{"d0", 0, {0}},          {"d1", 1, {7}},          {"d2", 2, {3, 5}},
                  {"d3", 3, {2, 3, 4}},    {"d4", 4, {1, 2, 1, 3}}, {"empty", 2, {0, 3}}};
    enum { NA = sizeof arrays / sizeof arrays[0] };
    for (int i = 0; i < NA; i++) {
        snprintf(path, sizeof path, "%s/%s.npy", dir, arrays[i].name);
        CHECK(eddy_npy_write(path, data, arrays[i].ndim, arrays[i].shape, msg, sizeof msg) == EDDY_OK, "%s", msg);
    }
    snprintf(path, sizeof path, "%s/check.py", dir);
    CHECK(eddy_file_write(path, SCRIPT, sizeof SCRIPT - 1, msg, sizeof msg) == EDDY_OK, "%s", msg);

    char cmd[1024];
    int len = snprintf(cmd, sizeof cmd, "%s %s/check.py %s", python, dir, dir);
    for (int i = 0; i < NA; i++) len += snprintf(cmd + len, sizeof cmd - (size_t)len, " %s", arrays[i].name);
    FILE *pp = popen(cmd, "r");
    CHECK(pp != NULL, "cannot run %s", cmd);
    char out[4096] = {0};
    size_t n = pp ? fread(out, 1, sizeof out - 1, pp) : 0;
    out[n] = '\0';
    int status = pp ? pclose(pp) : -1;
    CHECK(status == 0, "%s exited with %d: %s", python, status, out);
    for (int i = 0; i < NA; i++) {
        char ok[64];
        snprintf(ok, sizeof ok, "ok %s\n", arrays[i].name);
        CHECK(strstr(out, ok) != NULL, "numpy on %s.npy: %s", arrays[i].name, out);
    }

    /* the other way: files numpy writes, read by eddy */
    snprintf(path, sizeof path, "%s/save.py", dir);
    CHECK(eddy_file_write(path, SAVE, sizeof SAVE - 1, msg, sizeof msg) == EDDY_OK, "%s", msg);
    snprintf(cmd, sizeof cmd, "%s %s/save.py %s", python, dir, dir);
    pp = popen(cmd, "r");
    n = pp ? fread(out, 1, sizeof out - 1, pp) : 0;
    out[n] = '\0';
    status = pp ? pclose(pp) : -1;
    CHECK(status == 0 && strstr(out, "saved"), "%s exited with %d: %s", python, status, out);
    static const char *const same_as_d3[] = {"np_d3", "np_v2"};
    for (int i = 0; i < 2; i++) {
        eddy_npy a;
        snprintf(path, sizeof path, "%s/%s.npy", dir, same_as_d3[i]);
        CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && a.ndim == 3 && a.shape[0] == 2 &&
                  a.shape[1] == 3 && a.shape[2] == 4 && a.data && !memcmp(a.data, data, 24 * sizeof(float)),
              "%s: %s", path, msg);
        eddy_npy_free(&a);
    }
    eddy_npy a;
    snprintf(path, sizeof path, "%s/np_f8.npy", dir);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && a.count == 3 && a.data[0] == 1.5f &&
              a.data[1] == -2.25f && a.data[2] == 1e10f, "%s: %s", path, msg);
    eddy_npy_free(&a);
    snprintf(path, sizeof path, "%s/np_be.npy", dir);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_OK && a.count == 3 && a.data[0] == 1.5f &&
              a.data[1] == -2.25f && a.data[2] == 3.0f, "%s: %s", path, msg);
    eddy_npy_free(&a);
    snprintf(path, sizeof path, "%s/np_fortran.npy", dir);
    CHECK(eddy_npy_read(path, &a, msg, sizeof msg) == EDDY_ERR_UNSUPPORTED && strstr(msg, "fortran_order"), "%s: %s",
          path, msg);
    return check_finish("test_io_npy_numpy");
}
