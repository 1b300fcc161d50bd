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
#include <fairshuf/weighted.h>
#include <pythread.h>

#include "outfile.h" /* lib/: the one output helper (lines -o's rules) */

/* "O&" converter for an integer argument in [0, 2^64): Python ints never
 * wrap (PyArg's "K" would reduce them modulo 2^64): a non-integer is
 * TypeError, a negative one ValueError, one above 2^64 - 1 OverflowError. */
static int u64_arg(PyObject *obj, void *out)
{
    PyObject *v = PyNumber_Index(obj);
    if (v == NULL)
        return 0;
    PyObject *zero = PyLong_FromLong(0);
    int neg = zero ? PyObject_RichCompareBool(v, zero, Py_LT) : -1;
    Py_XDECREF(zero);
    if (neg != 0) {
        Py_DECREF(v);
        if (neg > 0)
            PyErr_SetString(PyExc_ValueError,
                            "expected an integer >= 0, got a negative one");
        return 0;
    }
    unsigned long long x = PyLong_AsUnsignedLongLong(v);
    Py_DECREF(v);
    if (x == (unsigned long long)-1 && PyErr_Occurred()) {
        PyErr_SetString(PyExc_OverflowError,
                        "integer argument above 2**64 - 1");
        return 0;
    }
    *(uint64_t *)out = x;
    return 1;
}

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
/* The rows of a writable C-contiguous buffer (axis 0): 1 with view held
 * and *n, *row set; 0 with an exception; -1 when there is nothing to move
 * (fewer than 2 rows; view released). */
static int get_rows(PyObject *obj, Py_buffer *view, size_t *n, size_t *row)
{
    /* No PyBUF_FORMAT: rows are bytes, and numpy exports no format for
     * datetime64/timedelta64 (asking for one refused a writable array) */
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) !=
        0) {
        PyErr_Clear();
        /* Say which of the two requirements failed. */
        if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS) == 0) {
            PyBuffer_Release(view);
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
        return 0;
    }
    if (view->ndim == 0) {
        PyBuffer_Release(view);
        PyErr_SetString(PyExc_ValueError,
                        "shuffle: a 0-d array has no axis to shuffle");
        return 0;
    }
    *n = (size_t)view->shape[0];
    *row = *n ? (size_t)view->len / *n : 0;
    if (*n < 2 || *row == 0) { /* nothing to move: draw nothing */
        PyBuffer_Release(view);
        return -1;
    }
    return 1;
}

static int shuffle_rows(Py_buffer *view, size_t n, size_t row,
                        unsigned threads, fs_rng *rng)
{
    return threads == 1 ? fs_shuffle(view->buf, n, row, rng)
                        : fs_shuffle_threads(view->buf, n, row, threads, rng);
}

static PyObject *core_shuffle(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *obj;
    const char *seed = NULL, *name = NULL;
    unsigned int threads = 1;
    if (!PyArg_ParseTuple(args, "Oz|zI", &obj, &seed, &name, &threads))
        return NULL;
    Py_buffer view;
    size_t n, row;
    int got = get_rows(obj, &view, &n, &row);
    if (got <= 0)
        return got < 0 ? (Py_INCREF(Py_None), Py_None) : NULL;
    fs_rng *rng = make_rng(name, seed);
    if (rng == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = shuffle_rows(&view, n, row, threads, rng);
    Py_END_ALLOW_THREADS
    return finish(rc, rng, &view, "shuffle");
}

/* _sample(n, k, out_buffer, seed, rng) -> None: k distinct indices of
 * [0, n) in uniformly random order, written as uint64 into out. */
static PyObject *core_sample(PyObject *self, PyObject *args)
{
    (void)self;
    uint64_t n, k;
    PyObject *obj;
    const char *seed = NULL, *name = NULL;
    if (!PyArg_ParseTuple(args, "O&O&Oz|z", u64_arg, &n, u64_arg, &k, &obj,
                          &seed, &name))
        return NULL;
    if (k > n) {
        PyErr_Format(PyExc_ValueError,
                     "sample: k = %llu is larger than n = %llu",
                     (unsigned long long)k, (unsigned long long)n);
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

/* open_output hook of fs_lines_config: the library calls it once, after
 * all input is read (so lines(f, f) can never truncate f before reading
 * it), and the output helper opens dst by `lines -o`'s rules. */
static int lines_output(void *arg)
{
    fs__outfile *o = arg;
    return fs__outfile_open(o) == FS_OK ? o->fd : -1;
}

/* _lines(in_fd, dst_path, seed, memory, head, tmpdir, threads)
 *   -> (lines, written)
 * The out-of-core line shuffle (fs_lines_shuffle) from in_fd into dst,
 * written through lib/outfile.h: a regular (or new) dst replaced only on
 * success, a symbolic link followed, a device or FIFO written in place.
 * On any error the new file is removed and dst is as it was. */
static PyObject *core_lines(PyObject *self, PyObject *args)
{
    (void)self;
    int in_fd;
    PyObject *dst_obj;
    const char *seed = NULL, *tmpdir = NULL;
    uint64_t memory = 0, head = UINT64_MAX;
    unsigned int threads = 1;
    if (!PyArg_ParseTuple(args, "iO&zO&O&zI", &in_fd, PyUnicode_FSConverter,
                          &dst_obj, &seed, u64_arg, &memory, u64_arg, &head,
                          &tmpdir, &threads))
        return NULL;
    if (memory > SIZE_MAX) {
        Py_DECREF(dst_obj);
        PyErr_SetString(PyExc_OverflowError, "lines: memory too large");
        return NULL;
    }
    fs__outfile out;
    fs__outfile_init(&out, PyBytes_AS_STRING(dst_obj), NULL, NULL);
    fs_lines_config c;
    memset(&c, 0, sizeof c);
    c.delim = '\n';
    c.head = head;
    c.memory = (size_t)memory;
    c.tmpdir = tmpdir;
    c.threads = threads;
    c.open_output = lines_output;
    c.output_arg = &out;
    int rc = seed ? fs_seed_to_key(seed, c.key) : fs_os_random(c.key, 32);
    if (rc != FS_OK) {
        Py_DECREF(dst_obj);
        return rc == FS_ESEED ? (PyErr_SetString(PyExc_ValueError,
                                                 "invalid seed: empty"),
                                 NULL)
                              : raise_status(rc, "lines");
    }
    fs_lines_result res;
    memset(&res, 0, sizeof res);
    Py_BEGIN_ALLOW_THREADS
    rc = fs_lines_shuffle(in_fd, &c, &res);
    if (rc == FS_OK && fs__outfile_commit(&out) != FS_OK) {
        rc = FS_EIO;
        res.where = FS_LINES_OUTPUT;
        res.err = errno;
    } else if (rc != FS_OK) {
        int e = errno;
        fs__outfile_abort(&out);
        errno = e;
    }
    Py_END_ALLOW_THREADS
    sodium_memzero(c.key, sizeof c.key);
    if (rc != FS_OK) {
        if (rc == FS_EIO) {
            static const char *where[] = {
                "lines", "lines: input", "lines: output",
                "lines: temporary file", "lines: input"};
            PyErr_Format(PyExc_OSError, "%s: %s",
                         where[res.where <= FS_LINES_INPUT_CHANGED ? res.where
                                                                   : 0],
                         fs_lines_strerror(rc, &res));
            Py_DECREF(dst_obj);
            return NULL;
        }
        Py_DECREF(dst_obj);
        return raise_status(rc, "lines");
    }
    Py_DECREF(dst_obj);
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
    /* Batch evaluators (<fairshuf/keyed.h>): `small` without round
     * tables for the first short requests, `big` with them once the
     * positions asked for make the tables pay.  Created with the GIL held
     * and kept until dealloc, so a call running without the GIL never
     * sees one freed. */
    fs_keyed_batch *small, *big;
    uint64_t asked, retry; /* positions mapped so far; when to try tables */
} KeyedObject;

static int keyed_init(KeyedObject *self, PyObject *args, PyObject *kw)
{
    (void)kw;
    uint64_t n, epoch = 0;
    const char *seed;
    if (!PyArg_ParseTuple(args, "O&s|O&", u64_arg, &n, &seed, u64_arg, &epoch))
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
    fs_keyed_batch_free(self->small);
    fs_keyed_batch_free(self->big);
    fs_keyed_wipe(&self->p);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The batch for a request of `count` positions (GIL held): the tabulated
 * one once the positions asked for so far make the tables pay (the
 * library decides: fs_keyed_batch_new's `expected`; retried each time the
 * count doubles), else one without tables; NULL with an exception. */
static fs_keyed_batch *keyed_batch(KeyedObject *self, size_t count)
{
    self->asked += count;
    if (self->big == NULL && self->asked >= self->retry) {
        fs_keyed_batch *b;
        int rc = fs_keyed_batch_new(&b, &self->p, self->asked);
        if (rc != FS_OK) {
            raise_status(rc, "KeyedPermutation");
            return NULL;
        }
        if (fs_keyed_batch_tabulated(b)) {
            self->big = b;
        } else {
            fs_keyed_batch_free(b); /* never published: no thread uses it */
            self->retry = self->asked * 2;
        }
    }
    if (self->big)
        return self->big;
    if (self->small == NULL) {
        int rc = fs_keyed_batch_new(&self->small, &self->p, 0);
        if (rc != FS_OK) {
            raise_status(rc, "KeyedPermutation");
            return NULL;
        }
    }
    return self->small;
}

/* at(i) / inverse(j) for one index; the caller checked 0 <= i < n.
 * Through the same batch as arrays: once enough single indices were
 * asked for, the tabulated one answers them (same values, a few times
 * faster: bench/keyed.sh "single via batch"). */
static PyObject *keyed_one(KeyedObject *self, PyObject *arg, int inverse)
{
    uint64_t i, y;
    if (!u64_arg(arg, &i))
        return NULL;
    fs_keyed_batch *b = keyed_batch(self, 1);
    if (b == NULL)
        return NULL;
    (inverse ? fs_keyed_batch_inverse : fs_keyed_batch_at)(b, &i, &y, 1);
    return PyLong_FromUnsignedLongLong(y);
}

static PyObject *keyed_at(KeyedObject *self, PyObject *arg)
{
    return keyed_one(self, arg, 0);
}

static PyObject *keyed_inverse(KeyedObject *self, PyObject *arg)
{
    return keyed_one(self, arg, 1);
}

/* fill(start, step, out): out[k] = at(start + k*step) for every uint64
 * slot of out (positions computed modulo 2^64; the caller keeps them
 * below n), through the batch call, without the GIL. */
static PyObject *keyed_fill(KeyedObject *self, PyObject *args)
{
    uint64_t start;
    long long step;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O&LO", u64_arg, &start, &step, &obj))
        return NULL;
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) !=
        0)
        return NULL;
    uint64_t *out = view.buf;
    size_t count = (size_t)view.len / sizeof *out;
    fs_keyed_batch *b = keyed_batch(self, count);
    if (b == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    uint64_t i = start;
    for (size_t k = 0; k < count; k++, i += (uint64_t)step)
        out[k] = i;
    fs_keyed_batch_at(b, out, out, count);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* map(in, out, inverse): out[k] = at(in[k]) (inverse: the position of
 * item in[k]) for uint64 buffers of equal length, in may be out.  Raises
 * IndexError, leaving out unspecified, when some in[k] >= n (a negative
 * int64 viewed as uint64 is >= n too). */
static PyObject *keyed_map(KeyedObject *self, PyObject *args)
{
    PyObject *in_obj, *out_obj;
    int inverse;
    if (!PyArg_ParseTuple(args, "OOp", &in_obj, &out_obj, &inverse))
        return NULL;
    Py_buffer in, out;
    if (PyObject_GetBuffer(in_obj, &in, PyBUF_C_CONTIGUOUS) != 0)
        return NULL;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) !=
        0) {
        PyBuffer_Release(&in);
        return NULL;
    }
    size_t count = (size_t)in.len / sizeof(uint64_t);
    if ((size_t)out.len / sizeof(uint64_t) != count) {
        PyBuffer_Release(&in);
        PyBuffer_Release(&out);
        PyErr_SetString(PyExc_ValueError, "map: arrays of different lengths");
        return NULL;
    }
    fs_keyed_batch *b = keyed_batch(self, count);
    size_t bad = count;
    if (b != NULL) {
        const uint64_t *x = in.buf, n = self->p.n;
        Py_BEGIN_ALLOW_THREADS
        for (size_t k = 0; k < count; k++)
            if (x[k] >= n) {
                bad = k;
                break;
            }
        if (bad == count)
            (inverse ? fs_keyed_batch_inverse : fs_keyed_batch_at)(
                b, x, out.buf, count);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&in);
    PyBuffer_Release(&out);
    if (b == NULL)
        return NULL;
    if (bad < count) {
        PyErr_Format(PyExc_IndexError,
                     "KeyedPermutation: %s at index %zu is out of range",
                     inverse ? "item" : "position", bad);
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef keyed_methods[] = {
    {"at", (PyCFunction)keyed_at, METH_O, NULL},
    {"inverse", (PyCFunction)keyed_inverse, METH_O, NULL},
    {"fill", (PyCFunction)keyed_fill, METH_VARARGS, NULL},
    {"map", (PyCFunction)keyed_map, METH_VARARGS, NULL},
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

/* ------------------------------------------------------------------------
 * _Rng: one generator whose stream advances from call to call (the state
 * behind fairshuf.Generator).  A lock serialises calls that run without
 * the GIL, as numpy's Generator does.
 * ---------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    fs_rng *rng;
    PyThread_type_lock lock;
} RngObject;

static int rng_init(RngObject *self, PyObject *args, PyObject *kw)
{
    (void)kw;
    const char *name = NULL, *seed = NULL;
    if (!PyArg_ParseTuple(args, "zz", &name, &seed))
        return -1;
    if (self->lock == NULL && (self->lock = PyThread_allocate_lock()) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    fs_rng_free(self->rng);
    self->rng = NULL;
    int rc = fs_rng_new(&self->rng, name, seed);
    if (rc == FS_OK)
        return 0;
    if (rc == FS_ENOTFOUND)
        PyErr_Format(PyExc_ValueError, "unknown generator '%s'",
                     name ? name : "chacha20");
    else if (rc == FS_ESEED)
        PyErr_SetString(PyExc_ValueError, "invalid seed: empty");
    else
        raise_status(rc, "generator");
    return -1;
}

static void rng_dealloc(RngObject *self)
{
    fs_rng_free(self->rng);
    if (self->lock)
        PyThread_free_lock(self->lock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

#define LOCKED(self, stmt)                                                   \
    do {                                                                     \
        Py_BEGIN_ALLOW_THREADS PyThread_acquire_lock((self)->lock, WAIT_LOCK); \
        stmt;                                                                \
        PyThread_release_lock((self)->lock);                                 \
        Py_END_ALLOW_THREADS                                                 \
    } while (0)

static PyObject *rng_done(RngObject *self, int rc, const char *what)
{
    if (rc == FS_OK)
        rc = fs_rng_error(self->rng);
    if (rc != FS_OK)
        return raise_status(rc, what);
    Py_RETURN_NONE;
}

/* A writable C-contiguous buffer of `size`-byte items: count, or -1. */
static Py_ssize_t out_items(PyObject *obj, Py_buffer *view, size_t size)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0)
        return -1;
    return (Py_ssize_t)((size_t)view->len / size);
}

static PyObject *rng_shuffle(RngObject *self, PyObject *args)
{
    PyObject *obj;
    unsigned int threads = 1;
    if (!PyArg_ParseTuple(args, "O|I", &obj, &threads))
        return NULL;
    Py_buffer view;
    size_t n, row;
    int got = get_rows(obj, &view, &n, &row);
    if (got <= 0)
        return got < 0 ? (Py_INCREF(Py_None), Py_None) : NULL;
    int rc;
    LOCKED(self, rc = shuffle_rows(&view, n, row, threads, self->rng));
    PyBuffer_Release(&view);
    return rng_done(self, rc, "shuffle");
}

/* below(n, out): uniform integers in [0, n) (exact, Lemire) into uint64s;
 * n = 0 stands for 2^64: whole 64-bit words. */
static PyObject *rng_below(RngObject *self, PyObject *args)
{
    uint64_t n;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O&O", u64_arg, &n, &obj))
        return NULL;
    Py_buffer view;
    Py_ssize_t count = out_items(obj, &view, sizeof(uint64_t));
    if (count < 0)
        return NULL;
    uint64_t *out = view.buf;
    LOCKED(self, for (Py_ssize_t k = 0; k < count; k++) out[k] =
                     n ? fs_below(self->rng, n) : fs_rng_u64(self->rng));
    PyBuffer_Release(&view);
    return rng_done(self, FS_OK, "integers");
}

/* doubles(out): uniform doubles in [0, 1), 53 random bits each. */
static PyObject *rng_doubles(RngObject *self, PyObject *args)
{
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O", &obj))
        return NULL;
    Py_buffer view;
    Py_ssize_t count = out_items(obj, &view, sizeof(double));
    if (count < 0)
        return NULL;
    double *out = view.buf;
    LOCKED(self, for (Py_ssize_t k = 0; k < count; k++) out[k] =
                     (double)(fs_rng_u64(self->rng) >> 11) * 0x1p-53);
    PyBuffer_Release(&view);
    return rng_done(self, FS_OK, "random");
}

/* sample(n, k, out): k distinct of [0, n) in random order (fs_sample). */
static PyObject *rng_sample(RngObject *self, PyObject *args)
{
    uint64_t n, k;
    PyObject *obj;
    if (!PyArg_ParseTuple(args, "O&O&O", u64_arg, &n, u64_arg, &k, &obj))
        return NULL;
    if (k > n) {
        PyErr_SetString(PyExc_ValueError,
                        "choice: cannot take a larger sample than the "
                        "population when replace=False");
        return NULL;
    }
    Py_buffer view;
    Py_ssize_t count = out_items(obj, &view, sizeof(uint64_t));
    if (count < 0)
        return NULL;
    int rc = FS_EINVAL;
    if ((uint64_t)count >= k)
        LOCKED(self, rc = fs_sample(n, (size_t)k, view.buf, self->rng));
    PyBuffer_Release(&view);
    return rng_done(self, rc, "choice");
}

/* weighted(w, k, out): k of len(w) without replacement, Efraimidis-
 * Spirakis (fs_weighted_sample); weights positive and finite. */
static PyObject *rng_weighted(RngObject *self, PyObject *args)
{
    PyObject *w_obj, *obj;
    uint64_t k;
    if (!PyArg_ParseTuple(args, "OO&O", &w_obj, u64_arg, &k, &obj))
        return NULL;
    Py_buffer w;
    if (PyObject_GetBuffer(w_obj, &w, PyBUF_C_CONTIGUOUS) != 0)
        return NULL;
    Py_buffer view;
    Py_ssize_t count = out_items(obj, &view, sizeof(uint64_t));
    if (count < 0) {
        PyBuffer_Release(&w);
        return NULL;
    }
    size_t n = (size_t)w.len / sizeof(double), bad = 0;
    int rc = FS_EINVAL;
    if (k <= n && (uint64_t)count >= k)
        LOCKED(self, rc = fs_weighted_sample(w.buf, n, (size_t)k, view.buf,
                                             &bad, self->rng));
    PyBuffer_Release(&w);
    PyBuffer_Release(&view);
    return rng_done(self, rc, "choice");
}

static PyMethodDef rng_methods[] = {
    {"shuffle", (PyCFunction)rng_shuffle, METH_VARARGS, NULL},
    {"below", (PyCFunction)rng_below, METH_VARARGS, NULL},
    {"doubles", (PyCFunction)rng_doubles, METH_VARARGS, NULL},
    {"sample", (PyCFunction)rng_sample, METH_VARARGS, NULL},
    {"weighted", (PyCFunction)rng_weighted, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyTypeObject RngType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "fairshuf._core._Rng",
    .tp_basicsize = sizeof(RngObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)rng_init,
    .tp_dealloc = (destructor)rng_dealloc,
    .tp_methods = rng_methods,
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

/* ---- row keys (fairshuf.lines_keys, fairshuf.dask): the keys of
 * `fairshuf lines --seed`'s records, docs/rowkey.md ------------------- */

/* _seed_key(seed) -> the 32-byte key K of fs_seed_to_key; _groups_key(K)
 * -> fs_lines_groups_key(K). */
static PyObject *core_seed_key(PyObject *self, PyObject *args)
{
    (void)self;
    const char *seed;
    if (!PyArg_ParseTuple(args, "s", &seed))
        return NULL;
    uint8_t K[32];
    int rc = fs_seed_to_key(seed, K);
    if (rc == FS_ESEED) {
        PyErr_SetString(PyExc_ValueError, "invalid seed: empty");
        return NULL;
    }
    if (rc != FS_OK)
        return raise_status(rc, "seed");
    return PyBytes_FromStringAndSize((const char *)K, 32);
}

static PyObject *core_groups_key(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer k;
    if (!PyArg_ParseTuple(args, "y*", &k))
        return NULL;
    uint8_t Kg[32];
    int rc = k.len == 32 ? fs_lines_groups_key(k.buf, Kg) : FS_EINVAL;
    PyBuffer_Release(&k);
    if (rc != FS_OK)
        return raise_status(rc, "groups key");
    return PyBytes_FromStringAndSize((const char *)Kg, 32);
}

/* _lines_keys(K, first, level, out): out (a writable buffer of count
 * uint64) gets fs_lines_keys(K, first, level, ., count); with weights (a
 * buffer of count doubles) out (count doubles) gets instead the --weights
 * keys fs_weighted_key(fs_lines_key(K, first + j, 0), weights[j]). */
static PyObject *core_lines_keys(PyObject *self, PyObject *args)
{
    (void)self;
    Py_buffer k, out, w = {0};
    uint64_t first;
    unsigned int level;
    PyObject *out_obj, *wobj = Py_None;
    if (!PyArg_ParseTuple(args, "y*O&IO|O", &k, u64_arg, &first, &level,
                          &out_obj, &wobj))
        return NULL;
    if (PyObject_GetBuffer(out_obj, &out, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
        != 0) {
        PyBuffer_Release(&k);
        return NULL;
    }
    if (wobj != Py_None &&
        PyObject_GetBuffer(wobj, &w, PyBUF_C_CONTIGUOUS) != 0) {
        PyBuffer_Release(&out);
        PyBuffer_Release(&k);
        return NULL;
    }
    size_t count = (size_t)out.len / 8;
    const char *bad = NULL;
    if (k.len != 32)
        bad = "lines_keys: the key must be 32 bytes";
    else if (out.len % 8 != 0 || (wobj != Py_None && w.len != out.len))
        bad = "lines_keys: buffers of 8-byte items, as many weights as keys";
    else if (count > 0 && first + (count - 1) < first)
        bad = "lines_keys: first + count - 1 is past 2**64 - 1";
    if (bad == NULL) {
        uint64_t *o = out.buf;
        Py_BEGIN_ALLOW_THREADS
        fs_lines_keys(k.buf, first, wobj == Py_None ? level : 0, o, count);
        if (wobj != Py_None) {
            const double *wt = w.buf;
            double *d = out.buf;
            for (size_t j = 0; j < count; j++)
                d[j] = fs_weighted_key(o[j], wt[j]);
        }
        Py_END_ALLOW_THREADS
    }
    if (wobj != Py_None)
        PyBuffer_Release(&w);
    PyBuffer_Release(&out);
    PyBuffer_Release(&k);
    if (bad != NULL) {
        PyErr_SetString(PyExc_ValueError, bad);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* _split_sizes(n, (w1, ..., wk)) -> (size1, ..., sizek):
 * fs_lines_split_sizes, the sizes of `--split=W1,...,Wk` over n records. */
static PyObject *core_split_sizes(PyObject *self, PyObject *args)
{
    (void)self;
    uint64_t n;
    PyObject *seq;
    if (!PyArg_ParseTuple(args, "O&O!", u64_arg, &n, &PyTuple_Type, &seq))
        return NULL;
    Py_ssize_t k = PyTuple_GET_SIZE(seq);
    uint64_t w[64], sizes[64];
    if (k < 1 || k > 64) {
        PyErr_SetString(PyExc_ValueError, "split: 1 to 64 weights");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < k; i++)
        if (!u64_arg(PyTuple_GET_ITEM(seq, i), &w[i]))
            return NULL;
    int rc = fs_lines_split_sizes(n, w, (size_t)k, sizes);
    if (rc != FS_OK)
        return raise_status(rc, "split");
    PyObject *t = PyTuple_New(k);
    for (Py_ssize_t i = 0; t != NULL && i < k; i++) {
        PyObject *v = PyLong_FromUnsignedLongLong(sizes[i]);
        if (v == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static PyMethodDef core_methods[] = {
    {"_seed_key", core_seed_key, METH_VARARGS, NULL},
    {"_groups_key", core_groups_key, METH_VARARGS, NULL},
    {"_lines_keys", core_lines_keys, METH_VARARGS, NULL},
    {"_split_sizes", core_split_sizes, METH_VARARGS, NULL},
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
    if (PyType_Ready(&KeyedType) < 0 || PyType_Ready(&RngType) < 0)
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
    Py_INCREF(&RngType);
    if (PyModule_AddObject(m, "_Rng", (PyObject *)&RngType) < 0) {
        Py_DECREF(&RngType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
