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
    PyTypeObject *tensor;   /* eagerkernel's Tensor */
    Py_ssize_t value_offset, device_offset; /* where Tensor's _value and _device slots live */
    unsigned long thread;   /* the thread that entered the tape */
    vectorcallfunc vectorcall;
} Recorder;

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
    ticks_t t0 = ticks();
    PyObject *out = PyObject_Vectorcall(fwd, call_args, y == Py_None ? 2 : 3, NULL);
    double seconds = (double)(ticks() - t0) * tick_seconds;
    if (out == NULL) return NULL;

    PyObject *tensor = self->tensor->tp_alloc(self->tensor, 0);
    if (tensor == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    *(PyObject **)((char *)tensor + self->value_offset) = out; /* the reference we hold */
    Py_INCREF(device);
    *(PyObject **)((char *)tensor + self->device_offset) = device;

    PyObject *time = PyFloat_FromDouble(seconds);
    if (time == NULL) {
        Py_DECREF(tensor);
        return NULL;
    }
    /* All five or none: a failed append takes back the ones before it. */
    PyObject *records = self->records;
    Py_ssize_t before = PyList_GET_SIZE(records);
    if (PyList_Append(records, prim) < 0 || PyList_Append(records, tensor) < 0 ||
        PyList_Append(records, time) < 0 || PyList_Append(records, x) < 0 ||
        PyList_Append(records, y) < 0) {
        PyList_SetSlice(records, before, PyList_GET_SIZE(records), NULL);
        Py_DECREF(time);
        Py_DECREF(tensor);
        return NULL;
    }
    Py_DECREF(time);
    return tensor;
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
    return 0;
}

static int recorder_clear(Recorder *self) {
    Py_CLEAR(self->records);
    Py_CLEAR(self->tensor);
    return 0;
}

static void recorder_dealloc(Recorder *self) {
    PyObject_GC_UnTrack(self);
    recorder_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef recorder_members[] = {
    {"records", T_OBJECT, offsetof(Recorder, records), READONLY,
     "The tape's flat list of lean records this recorder appends to."},
    {"thread", T_ULONG, offsetof(Recorder, thread), READONLY,
     "The thread ident whose ops are recorded."},
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
    .tp_name = "eagerkernel.runtime._records.LeanRecorder",
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
