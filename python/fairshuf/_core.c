/* _core.c -- the CPython layer over libfairshuf.  Thin on purpose: every
 * algorithm lives in the library; this file converts arguments, releases
 * the GIL around the work and turns fs_status codes into exceptions.
 * The Python-facing API and its documentation live in __init__.py. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <sodium.h>

#include <fairshuf.h>
#include <fairshuf/keyed.h>
#include <fairshuf/lines.h>

/* fs_status -> the exception a Python user expects: bad arguments are
 * ValueError, a refused OS generator or failed I/O is OSError, memory is
 * MemoryError.  Returns NULL so callers can `return raise_status(...)`. */
static PyObject *raise_status(int rc, const char *what)
{
    switch (rc) {
    case FS_ENOMEM:
        return PyErr_NoMemory();
    case FS_ERANDOM:
    case FS_EEOF:
        PyErr_Format(PyExc_OSError, "%s: %s", what, fs_strerror(rc));
        return NULL;
    case FS_EIO: {
        int e = errno;
        PyErr_Format(PyExc_OSError, "%s: %s: %s", what, fs_strerror(rc),
                     strerror(e ? e : EIO));
        return NULL;
    }
    default:
        PyErr_Format(PyExc_ValueError, "%s: %s", what, fs_strerror(rc));
        return NULL;
    }
}

/* A generator from (rng name, seed string or None).  NULL with an
 * exception set on failure.  Unseeded chacha20 (the default) is the
 * library's per-thread generator, fs_rng_default(): OS-keyed once per
 * thread and fork-safe, so a call does not pay for a fresh OS key (at
 * n = 1e5 that was a tenth of the time); put_rng() leaves it alone. */
static fs_rng *make_rng(const char *name, const char *seed)
{
    if (seed == NULL && (name == NULL || strcmp(name, "chacha20") == 0)) {
        fs_rng *d = fs_rng_default();
        if (d == NULL || fs_rng_error(d) != FS_OK) {
            raise_status(FS_ERANDOM, "generator");
            return NULL;
        }
        return d;
    }
    fs_rng *rng = NULL;
    int rc = fs_rng_new(&rng, name, seed);
    if (rc != FS_OK) {
        if (rc == FS_ENOTFOUND)
            PyErr_Format(PyExc_ValueError, "unknown generator '%s'",
                         name ? name : "chacha20");
        else if (rc == FS_ESEED)
            PyErr_SetString(PyExc_ValueError, "invalid seed: empty");
        else
            raise_status(rc, "generator");
        return NULL;
    }
    return rng;
}

/* Releases what make_rng() gave. */
static void put_rng(fs_rng *rng)
{
    if (rng != fs_rng_default())
        fs_rng_free(rng);
}

/* The end of every call that ran the library on a buffer with a
 * generator: both released, then None or the status as an exception. */
static PyObject *finish(int rc, fs_rng *rng, Py_buffer *view,
                        const char *what)
{
    put_rng(rng);
    PyBuffer_Release(view);
    if (rc != FS_OK)
        return raise_status(rc, what);
    Py_RETURN_NONE;
}

/* _shuffle(buffer, seed, rng, threads, permute_only_rows) -> None
 * Shuffles a writable C-contiguous buffer in place along its first axis:
 * row i is bytes [i*rowsize, (i+1)*rowsize).  Never a partial shuffle: on
 * any error the exception is raised and (library contract) the shuffle
 * functions fail before moving anything or the generator's sticky error
 * is reported. */
static PyObject *core_shuffle(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *obj;
    const char *seed = NULL, *name = NULL;
    unsigned int threads = 1;
    if (!PyArg_ParseTuple(args, "Oz|zI", &obj, &seed, &name, &threads))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS |
                                           PyBUF_FORMAT) != 0) {
        PyErr_Clear();
        /* Say which of the two requirements failed. */
        if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS) == 0) {
            PyBuffer_Release(&view);
            PyErr_SetString(PyExc_ValueError,
                            "shuffle: the array is read-only");
        } else if (PyObject_CheckBuffer(obj)) {
            PyErr_SetString(PyExc_ValueError,
                            "shuffle: the array is not C-contiguous");
        } else {
            PyErr_Format(PyExc_TypeError,
                         "shuffle: expected a writable buffer (numpy "
                         "array, bytearray, memoryview), got %s",
                         Py_TYPE(obj)->tp_name);
        }
        return NULL;
    }
    if (view.ndim == 0) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError,
                        "shuffle: a 0-d array has no axis to shuffle");
        return NULL;
    }
    size_t n = (size_t)view.shape[0];
    size_t row = n ? (size_t)view.len / n : 0;
    if (n < 2 || row == 0) { /* nothing to move: draw nothing */
        PyBuffer_Release(&view);
        Py_RETURN_NONE;
    }
    fs_rng *rng = make_rng(name, seed);
    if (rng == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = threads == 1 ? fs_shuffle(view.buf, n, row, rng)
                      : fs_shuffle_threads(view.buf, n, row, threads, rng);
    Py_END_ALLOW_THREADS
    return finish(rc, rng, &view, "shuffle");
}

/* _sample(n, k, out_buffer, seed, rng) -> None: k distinct indices of
 * [0, n) in uniformly random order, written as uint64 into out. */
static PyObject *core_sample(PyObject *self, PyObject *args)
{
    (void)self;
    unsigned long long n, k;
    PyObject *obj;
    const char *seed = NULL, *name = NULL;
    if (!PyArg_ParseTuple(args, "KKOz|z", &n, &k, &obj, &seed, &name))
        return NULL;
    if (k > n) {
        PyErr_Format(PyExc_ValueError,
                     "sample: k = %llu is larger than n = %llu", k, n);
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) !=
        0)
        return NULL;
    if ((size_t)view.len < k * sizeof(uint64_t)) {
        PyBuffer_Release(&view);
        PyErr_SetString(PyExc_ValueError, "sample: output buffer too small");
        return NULL;
    }
    fs_rng *rng = make_rng(name, seed);
    if (rng == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = fs_sample(n, (size_t)k, (uint64_t *)view.buf, rng);
    Py_END_ALLOW_THREADS
    return finish(rc, rng, &view, "sample");
}

/* _lines_fd: open_output hook of fs_lines_config. */
static int lines_output(void *arg) { return *(int *)arg; }

/* _lines(in_fd, out_fd, seed, memory, head, tmpdir, threads) -> (lines, written)
 * The library's keyed line shuffle from one descriptor to another; the
 * Python layer owns the files (temp file beside dst, rename on success). */
static PyObject *core_lines(PyObject *self, PyObject *args)
{
    (void)self;
    int in_fd, out_fd;
    const char *seed = NULL, *tmpdir = NULL;
    unsigned long long memory = 0, head = UINT64_MAX;
    unsigned int threads = 1;
    if (!PyArg_ParseTuple(args, "iizKKzI", &in_fd, &out_fd, &seed, &memory,
                          &head, &tmpdir, &threads))
        return NULL;
    fs_lines_config c;
    memset(&c, 0, sizeof c);
    c.delim = '\n';
    c.head = head;
    c.memory = (size_t)memory;
    c.tmpdir = tmpdir;
    c.threads = threads;
    c.open_output = lines_output;
    c.output_arg = &out_fd;
    int rc = seed ? fs_seed_to_key(seed, c.key) : fs_os_random(c.key, 32);
    if (rc != FS_OK)
        return rc == FS_ESEED ? (PyErr_SetString(PyExc_ValueError,
                                                 "invalid seed: empty"),
                                 NULL)
                              : raise_status(rc, "lines");
    fs_lines_result res;
    memset(&res, 0, sizeof res);
    Py_BEGIN_ALLOW_THREADS
    rc = fs_lines_shuffle(in_fd, &c, &res);
    Py_END_ALLOW_THREADS
    sodium_memzero(c.key, sizeof c.key);
    if (rc != FS_OK) {
        if (rc == FS_EIO) {
            static const char *where[] = {"lines", "lines: input",
                                          "lines: output",
                                          "lines: temporary file"};
            errno = res.err;
            return raise_status(rc, where[res.where <= FS_LINES_TEMP
                                              ? res.where
                                              : 0]);
        }
        return raise_status(rc, "lines");
    }
    return Py_BuildValue("KK", (unsigned long long)res.lines,
                         (unsigned long long)res.written);
}

/* ------------------------------------------------------------------------
 * KeyedPermutation: fs_keyed behind a Python type.  The Python-facing
 * wrapper (slicing, iteration, docs) is fairshuf.KeyedPermutation in
 * __init__.py; this type holds the C state and answers in bulk.
 * ---------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    fs_keyed p;
} KeyedObject;

static int keyed_init(KeyedObject *self, PyObject *args, PyObject *kw)
{
    (void)kw;
    unsigned long long n, epoch = 0;
    const char *seed;
    if (!PyArg_ParseTuple(args, "Ks|K", &n, &seed, &epoch))
        return -1;
    int rc = fs_keyed_from_seed(&self->p, n, seed, epoch);
    if (rc != FS_OK) {
        if (rc == FS_ESEED)
            PyErr_SetString(PyExc_ValueError, "invalid seed: empty");
        else
            raise_status(rc, "KeyedPermutation");
        return -1;
    }
    return 0;
}

static void keyed_dealloc(KeyedObject *self)
{
    fs_keyed_wipe(&self->p);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* at(i) / inverse(j) for one index; the caller checked 0 <= i < n. */
static PyObject *keyed_at(KeyedObject *self, PyObject *arg)
{
    unsigned long long i = PyLong_AsUnsignedLongLong(arg);
    if (i == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromUnsignedLongLong(fs_keyed_at(&self->p, i));
}

static PyObject *keyed_inverse(KeyedObject *self, PyObject *arg)
{
    unsigned long long j = PyLong_AsUnsignedLongLong(arg);
    if (j == (unsigned long long)-1 && PyErr_Occurred())
        return NULL;
    return PyLong_FromUnsignedLongLong(fs_keyed_inverse(&self->p, j));
}

/* fill(start, step, out): out[k] = at(start + k*step) for every uint64
 * slot of out, the GIL released.  Positions were checked by the caller. */
static PyObject *keyed_fill(KeyedObject *self, PyObject *args)
{
    unsigned long long start;
    long long step;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "KLO", &start, &step, &obj))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) !=
        0)
        return NULL;
    uint64_t *out = view.buf;
    size_t count = (size_t)view.len / sizeof *out;
    Py_BEGIN_ALLOW_THREADS
    uint64_t i = start;
    for (size_t k = 0; k < count; k++, i += (uint64_t)step)
        out[k] = fs_keyed_at(&self->p, i);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyMethodDef keyed_methods[] = {
    {"at", (PyCFunction)keyed_at, METH_O, NULL},
    {"inverse", (PyCFunction)keyed_inverse, METH_O, NULL},
    {"fill", (PyCFunction)keyed_fill, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyObject *keyed_size(KeyedObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(fs_keyed_size(&self->p));
}

static PyGetSetDef keyed_getset[] = {
    {"n", (getter)keyed_size, NULL, NULL, NULL}, {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject KeyedType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fairshuf._core._Keyed",
    .tp_basicsize = sizeof(KeyedObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)keyed_init,
    .tp_dealloc = (destructor)keyed_dealloc,
    .tp_methods = keyed_methods,
    .tp_getset = keyed_getset,
};

static PyObject *core_version(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyUnicode_FromString(fs_version());
}

static PyObject *core_generators(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    size_t count;
    const fs_rng_info *info = fs_rng_list(&count);
    PyObject *list = PyList_New((Py_ssize_t)count);
    if (list == NULL)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        PyObject *name = PyUnicode_FromString(info[i].name);
        if (name == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, name);
    }
    return list;
}

static PyObject *core_stream_version(PyObject *self, PyObject *noargs)
{
    (void)self;
    (void)noargs;
    return PyLong_FromLong(FS_STREAM_VERSION);
}

static PyMethodDef core_methods[] = {
    {"_generators", core_generators, METH_NOARGS, NULL},
    {"_stream_version", core_stream_version, METH_NOARGS, NULL},
    {"_shuffle", core_shuffle, METH_VARARGS, NULL},
    {"_sample", core_sample, METH_VARARGS, NULL},
    {"_lines", core_lines, METH_VARARGS, NULL},
    {"_version", core_version, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef core_module = {PyModuleDef_HEAD_INIT, "_core",
                                         "libfairshuf bindings (internal)",
                                         -1, core_methods, NULL, NULL, NULL,
                                         NULL};

PyMODINIT_FUNC PyInit__core(void)
{
    if (PyType_Ready(&KeyedType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&KeyedType);
    if (PyModule_AddObject(m, "_Keyed", (PyObject *)&KeyedType) < 0) {
        Py_DECREF(&KeyedType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
