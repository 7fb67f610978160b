/* The %%tape magic's lean recorder in C: the C side of eagerkernel/runtime/records.py.
 *
 * Under %%tape every op is timed and recorded. In Python that bookkeeping (two reads of
 * time.perf_counter, a Tensor made attribute by attribute, a five-item tuple to extend the
 * tape's list with) costs about as much as a small op itself; here it is one call:
 *
 *     recorder(prim, fwd, xp, device, x, xv, y, yv) -> Tensor, or None
 *
 * runs ``fwd(xp, xv, yv)`` (``fwd(xp, xv)`` when y is None) between two reads of the clock
 * time.perf_counter reads, wraps the result in a Tensor on ``device`` (its slots written
 * directly, as object.__new__ and two stores would), appends the lean record
 *
 *     prim, output, seconds, x, y
 *
 * to the tape's flat list, and returns the output. A thread other than the one that entered
 * the tape gets None and nothing happens: its ops are not this tape's (the caller then takes
 * the general path). An exception from ``fwd`` propagates and records nothing.
 * ``recorder.extend((prim, output, seconds, x, y))`` appends a record made elsewhere (by
 * tape.execute), as list.extend would.
 *
 * The recorder also keeps, per primitive in order of first appearance, the number of records
 * and their total time: ``recorder.stats()``. %%tape's "by op type" table then costs a few
 * lines per distinct op instead of a pass over every record.
 *
 * ``recorder.release`` may hold a list of records to let go of (the lean records of the tape
 * a re-run %%tape cell replaces): each call first drops its last five items, so the memory of
 * the old op's output goes straight to the new one, as in a plain cell, which frees each
 * temporary as it goes. The tape drops what is left when it stops recording.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#ifdef _WIN32
#include <windows.h>
#else
#include <time.h>
#endif

/* The clock time.perf_counter reads (CLOCK_MONOTONIC on POSIX, the performance counter on
 * Windows: CPython's choices), in ticks; `seconds` turns a difference of two into seconds. */
#ifdef _WIN32
typedef LONGLONG ticks_t;
static double tick_seconds;
static ticks_t ticks(void) {
    LARGE_INTEGER now;
    QueryPerformanceCounter(&now);
    return now.QuadPart;
}
#else
typedef long long ticks_t;
static const double tick_seconds = 1e-9;
static ticks_t ticks(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (ticks_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
#endif

typedef struct {
    PyObject_HEAD
    PyObject *records;      /* the tape's flat list of lean records */
    PyObject *release;      /* NULL, None or a list of records to let go of, five per call */
    PyTypeObject *tensor;   /* eagerkernel's Tensor */
    Py_ssize_t value_offset, device_offset; /* where Tensor's _value and _device slots live */
    unsigned long thread;   /* the thread that entered the tape */
    vectorcallfunc vectorcall;
    /* Per distinct primitive, in order of first appearance: records and total seconds. */
    PyObject *prims;        /* list */
    Py_ssize_t *counts;
    double *seconds;
    Py_ssize_t capacity;    /* of counts and seconds */
    Py_ssize_t last;        /* the slot the previous record counted in */
    Py_ssize_t recorded;    /* records counted since the last reset_stats() */
} Recorder;

/* Counts one record of `prim` taking `seconds`. Ops in a loop come back in the same order,
 * so the search starts at the slot after the previous record's: usually the first compare
 * hits. Returns -1 with MemoryError set when a new slot cannot be made. */
static int count(Recorder *self, PyObject *prim, double seconds) {
    Py_ssize_t n = PyList_GET_SIZE(self->prims), k = -1;
    for (Py_ssize_t i = 1; i <= n; i++) {
        Py_ssize_t j = (self->last + i) % n;
        if (PyList_GET_ITEM(self->prims, j) == prim) {
            k = j;
            break;
        }
    }
    if (k < 0) {
        if (n == self->capacity) {
            Py_ssize_t capacity = n ? 2 * n : 8;
            Py_ssize_t *counts = PyMem_Realloc(self->counts, capacity * sizeof(Py_ssize_t));
            if (counts == NULL) goto no_memory;
            self->counts = counts;
            double *totals = PyMem_Realloc(self->seconds, capacity * sizeof(double));
            if (totals == NULL) goto no_memory;
            self->seconds = totals;
            self->capacity = capacity;
        }
        if (PyList_Append(self->prims, prim) < 0) return -1;
        k = n;
        self->counts[k] = 0;
        self->seconds[k] = 0.0;
    }
    self->counts[k] += 1;
    self->seconds[k] += seconds;
    self->last = k;
    self->recorded += 1;
    return 0;
no_memory:
    PyErr_NoMemory();
    return -1;
}

/* Appends the five items of a record to `records`, all or none. */
static int append_record(PyObject *records, PyObject *const *items) {
    Py_ssize_t before = PyList_GET_SIZE(records);
    for (int i = 0; i < 5; i++) {
        if (PyList_Append(records, items[i]) < 0) {
            PyList_SetSlice(records, before, PyList_GET_SIZE(records), NULL);
            return -1;
        }
    }
    return 0;
}

/* The offset of `cls`'s __slots__ member `name` (an object slot), or -1 with TypeError. */
static Py_ssize_t slot_offset(PyTypeObject *cls, const char *name) {
    PyObject *descr = PyDict_GetItemString(cls->tp_dict, name); /* borrowed */
    if (descr == NULL || !PyObject_TypeCheck(descr, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "LeanRecorder: %s has no __slots__ member %s",
                     cls->tp_name, name);
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "LeanRecorder: %s.%s is not an object slot",
                     cls->tp_name, name);
        return -1;
    }
    return member->offset;
}

static PyObject *recorder_call(PyObject *op, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames) {
    Recorder *self = (Recorder *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 8 || kwnames != NULL) {
        PyErr_Format(PyExc_TypeError,
                     "LeanRecorder: expected 8 positional arguments (prim, fwd, xp, device, "
                     "x, xv, y, yv), got %zd",
                     nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0));
        return NULL;
    }
    if (PyThread_get_thread_ident() != self->thread) Py_RETURN_NONE;
    PyObject *prim = args[0], *fwd = args[1], *device = args[3], *x = args[4], *y = args[6];
    PyObject *call_args[3] = {args[2], args[5], args[7]}; /* xp, xv, yv */
    PyObject *release = self->release;
    if (release != NULL && PyList_CheckExact(release) && PyList_GET_SIZE(release) > 0) {
        /* Before the clock starts. Freeing may run a weakref callback, which may even drop
         * the list from self->release: hold it meanwhile. */
        Py_ssize_t n = PyList_GET_SIZE(release);
        Py_INCREF(release);
        int failed = PyList_SetSlice(release, n > 5 ? n - 5 : 0, n, NULL) < 0;
        Py_DECREF(release);
        if (failed) return NULL;
    }
    ticks_t t0 = ticks();
    PyObject *out = PyObject_Vectorcall(fwd, call_args, y == Py_None ? 2 : 3, NULL);
    double seconds = (double)(ticks() - t0) * tick_seconds;
    if (out == NULL) return NULL;

    PyObject *tensor = self->tensor->tp_alloc(self->tensor, 0);
    if (tensor == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    /* The cyclic GC need not track the output: a Tensor refers to its array and its Device
     * only, and neither refers back to anything (NumPy arrays are not tracked themselves), so
     * it can never be part of a cycle. Tracked, the outputs a %%tape cell keeps would be
     * traversed again by every collection of the youngest generation while the cell runs
     * (their count triggers several per 2000 ops), where a plain cell frees its Tensors at
     * once and triggers none. */
    PyObject_GC_UnTrack(tensor);
    *(PyObject **)((char *)tensor + self->value_offset) = out; /* the reference we hold */
    Py_INCREF(device);
    *(PyObject **)((char *)tensor + self->device_offset) = device;

    PyObject *time = PyFloat_FromDouble(seconds);
    if (time == NULL) {
        Py_DECREF(tensor);
        return NULL;
    }
    PyObject *items[5] = {prim, tensor, time, x, y};
    int failed = append_record(self->records, items) < 0;
    Py_DECREF(time);
    if (failed || count(self, prim, seconds) < 0) {
        /* A record the stats miss would only make them disagree with the list: the caller's
         * Records then recounts (see records.py); the record itself stays. */
        if (failed) {
            Py_DECREF(tensor);
            return NULL;
        }
        PyErr_Clear();
    }
    return tensor;
}

static PyObject *recorder_extend(Recorder *self, PyObject *record) {
    if (!PyTuple_Check(record) || PyTuple_GET_SIZE(record) != 5) {
        PyErr_Format(PyExc_TypeError,
                     "LeanRecorder.extend: expected a tuple (prim, output, seconds, x, y), "
                     "got %R",
                     record);
        return NULL;
    }
    /* A lean record is always timed: its tape profiles (records.py). */
    double seconds = PyFloat_AsDouble(PyTuple_GET_ITEM(record, 2));
    if (seconds == -1.0 && PyErr_Occurred()) return NULL;
    if (append_record(self->records, &PyTuple_GET_ITEM(record, 0)) < 0) return NULL;
    if (count(self, PyTuple_GET_ITEM(record, 0), seconds) < 0) PyErr_Clear();
    Py_RETURN_NONE;
}

static PyObject *recorder_stats(Recorder *self, PyObject *unused) {
    Py_ssize_t n = PyList_GET_SIZE(self->prims);
    PyObject *rows = PyList_New(n);
    if (rows == NULL) return NULL;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *row = Py_BuildValue("(Ond)", PyList_GET_ITEM(self->prims, k),
                                      self->counts[k], self->seconds[k]);
        if (row == NULL) {
            Py_DECREF(rows);
            return NULL;
        }
        PyList_SET_ITEM(rows, k, row);
    }
    return Py_BuildValue("(nN)", self->recorded, rows);
}

static PyObject *recorder_reset_stats(Recorder *self, PyObject *unused) {
    if (PyList_SetSlice(self->prims, 0, PyList_GET_SIZE(self->prims), NULL) < 0) return NULL;
    self->last = 0;
    self->recorded = 0;
    Py_RETURN_NONE;
}

static PyObject *recorder_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"records", "tensor_type", "thread", NULL};
    PyObject *records, *tensor;
    unsigned long thread;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!k:LeanRecorder", keywords, &PyList_Type,
                                     &records, &PyType_Type, &tensor, &thread))
        return NULL;
    PyTypeObject *cls = (PyTypeObject *)tensor;
    Py_ssize_t value_offset = slot_offset(cls, "_value");
    if (value_offset < 0) return NULL;
    Py_ssize_t device_offset = slot_offset(cls, "_device");
    if (device_offset < 0) return NULL;
    Recorder *self = (Recorder *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->prims = PyList_New(0);
    if (self->prims == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    /* The cyclic GC does not track the records list either: tracked, a young list of
     * thousands of items is traversed by every collection while the cell runs. It holds
     * primitives, Tensors (untracked, see recorder_call), floats and None. A cycle through it
     * would need a primitive whose forward function's globals hold the tape and are otherwise
     * garbage (a deleted module that defined its own op and kept a tape): that cycle would
     * not be collected, a leak judged unlikely enough for the speed. */
    PyObject_GC_UnTrack(records);
    Py_INCREF(records);
    self->records = records;
    Py_INCREF(tensor);
    self->tensor = cls;
    self->value_offset = value_offset;
    self->device_offset = device_offset;
    self->thread = thread;
    self->vectorcall = recorder_call;
    return (PyObject *)self;
}

static int recorder_traverse(Recorder *self, visitproc visit, void *arg) {
    Py_VISIT(self->records);
    Py_VISIT(self->tensor);
    Py_VISIT(self->prims);
    Py_VISIT(self->release);
    return 0;
}

static int recorder_clear(Recorder *self) {
    Py_CLEAR(self->records);
    Py_CLEAR(self->tensor);
    Py_CLEAR(self->prims);
    Py_CLEAR(self->release);
    return 0;
}

static void recorder_dealloc(Recorder *self) {
    PyObject_GC_UnTrack(self);
    recorder_clear(self);
    PyMem_Free(self->counts);
    PyMem_Free(self->seconds);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef recorder_members[] = {
    {"release", T_OBJECT, offsetof(Recorder, release), 0,
     "A list of records to let go of, five items before each op recorded (or None)."},
    {"records", T_OBJECT, offsetof(Recorder, records), READONLY,
     "The tape's flat list of lean records this recorder appends to."},
    {"thread", T_ULONG, offsetof(Recorder, thread), READONLY,
     "The thread ident whose ops are recorded."},
    {NULL},
};

static PyMethodDef recorder_methods[] = {
    {"extend", (PyCFunction)recorder_extend, METH_O,
     "extend((prim, output, seconds, x, y)): appends a record made elsewhere and counts it."},
    {"stats", (PyCFunction)recorder_stats, METH_NOARGS,
     "stats() -> (records, [(prim, count, seconds), ...]): per primitive, in order of first\n"
     "appearance, the records counted since reset_stats() and their total forward time."},
    {"reset_stats", (PyCFunction)recorder_reset_stats, METH_NOARGS,
     "Forgets the counts (the tape turned its lean records into Entries)."},
    {NULL},
};

PyDoc_STRVAR(recorder_doc,
             "LeanRecorder(records, tensor_type, thread)\n--\n\n"
             "Times, wraps and records one op of a %%tape cell (see records.py):\n"
             "recorder(prim, fwd, xp, device, x, xv, y, yv) runs fwd(xp, xv, yv) (or\n"
             "fwd(xp, xv) when y is None), appends prim, output, seconds, x, y to records\n"
             "and returns the output Tensor; None, doing nothing, on another thread.");

static PyTypeObject RecorderType = {
    .ob_base = PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "eagerkernel.runtime.native._records.LeanRecorder",
    .tp_basicsize = sizeof(Recorder),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = recorder_doc,
    .tp_new = recorder_new,
    .tp_dealloc = (destructor)recorder_dealloc,
    .tp_traverse = (traverseproc)recorder_traverse,
    .tp_clear = (inquiry)recorder_clear,
    .tp_vectorcall_offset = offsetof(Recorder, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_members = recorder_members,
    .tp_methods = recorder_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_records",
    "The %%tape magic's lean recorder in C (see eagerkernel/runtime/records.py).", -1, NULL,
};

PyMODINIT_FUNC PyInit__records(void) {
#ifdef _WIN32
    LARGE_INTEGER freq;
    QueryPerformanceFrequency(&freq);
    tick_seconds = 1.0 / (double)freq.QuadPart;
#endif
    if (PyType_Ready(&RecorderType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&RecorderType);
    if (PyModule_AddObject(m, "LeanRecorder", (PyObject *)&RecorderType) < 0) {
        Py_DECREF(&RecorderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
