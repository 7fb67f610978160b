/* The observed path of `dispatch` in C: the private accelerator of core/dispatch.py.
 *
 * While a recorder is active (a tape, the %%tape profiler), every op of the recording thread
 * takes `dispatch._observed`: read the thread's context, time the forward if asked, wrap the
 * output, hand the op to each recorder. Written in Python that costs more than a small op;
 * this function does the common case in one call:
 *
 *     observe(prim, inputs) -> Tensor
 *
 * for a primitive with one output that saves nothing and moves nothing, one or two Tensor (or
 * Variable) inputs on one device, no params, no device scope and no --sync. It reads the
 * thread's state (device scope, timed, sync, recorders: `Context.state`, which
 * `context.py` hands to `set_state` whenever it changes), calls the forward
 * (`prim.array_op(a, b)` when set, else `prim.fwd(xp, a[, b])`) between two reads of the
 * clock `time.perf_counter` reads when a recorder is timed, makes the output Tensor, and
 * calls `record(prim, inputs, output, params, None, seconds)` for each recorder's `record`
 * (the state holds them bound).
 *
 * Anything else, and any exception from the forward, goes to the Python function `fallback`
 * (`dispatch._observed`, the specification): it runs the op again from the start and raises
 * the error the runtime documents. tests/test_dispatch_native.py compares the two.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <time.h>

static struct {
    PyObject *context;   /* the threading.local Context */
    PyObject *fallback;  /* dispatch._observed */
    PyObject *params;    /* the shared empty params dict */
    PyTypeObject *tensor;
    Py_ssize_t value, device;                          /* Tensor slots */
    Py_ssize_t fwd, array_op, saves, moves, n_out;     /* Primitive slots */
    Py_ssize_t xp;                                     /* Device slot */
    PyObject *str_state, *str_record;
    int ready;
    PyObject *key; /* the key of the state in each thread's dict (PyThreadState_GetDict) */
    PyObject *no_recorders; /* () */
} S;

/* This thread's state tuple (borrowed), or NULL with no error if it never stored one. */
static PyObject *thread_state(void) {
    PyObject *dict = PyThreadState_GetDict(); /* borrowed */
    if (dict == NULL) return NULL;
    return PyDict_GetItemWithError(dict, S.key); /* borrowed */
}

static PyObject *set_state(PyObject *module, PyObject *state) {
    PyObject *dict = PyThreadState_GetDict(); /* borrowed */
    if (dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_state: no thread state dict");
        return NULL;
    }
    if (PyDict_SetItem(dict, S.key, state) < 0) return NULL;
    Py_RETURN_NONE;
}

static Py_ssize_t slot_offset(PyTypeObject *cls, const char *name) {
    PyObject *descr = PyDict_GetItemString(cls->tp_dict, name); /* borrowed */
    if (descr == NULL || !PyObject_TypeCheck(descr, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "_dispatch: %s has no __slots__ member %s", cls->tp_name,
                     name);
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "_dispatch: %s.%s is not an object slot", cls->tp_name,
                     name);
        return -1;
    }
    return member->offset;
}

#define SLOT(obj, offset) (*(PyObject **)((char *)(obj) + (offset)))

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static PyObject *fallback(PyObject *prim, PyObject *inputs) {
    PyObject *args[3] = {prim, inputs, S.params};
    return PyObject_Vectorcall(S.fallback, args, 3, NULL);
}

static PyObject *observe(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "observe: expected (prim, inputs), got %zd arguments",
                     nargs);
        return NULL;
    }
    if (!S.ready) {
        PyErr_SetString(PyExc_RuntimeError, "observe: _dispatch.setup was not called");
        return NULL;
    }
    PyObject *prim = args[0], *inputs = args[1];
    if (!PyTuple_CheckExact(inputs)) return fallback(prim, inputs);
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    if (n < 1 || n > 2) return fallback(prim, inputs);
    if (SLOT(prim, S.saves) != Py_False || SLOT(prim, S.moves) != Py_False) {
        return fallback(prim, inputs);
    }
    PyObject *n_out = SLOT(prim, S.n_out);
    if (n_out == NULL || !PyLong_CheckExact(n_out) || PyLong_AsLong(n_out) != 1) {
        return fallback(prim, inputs);
    }
    PyObject *x = PyTuple_GET_ITEM(inputs, 0), *y = n == 2 ? PyTuple_GET_ITEM(inputs, 1) : NULL;
    if (!PyObject_TypeCheck(x, S.tensor) || (y != NULL && !PyObject_TypeCheck(y, S.tensor))) {
        return fallback(prim, inputs);
    }
    PyObject *device = SLOT(x, S.device);
    if (device == NULL || (y != NULL && SLOT(y, S.device) != device)) {
        return fallback(prim, inputs);
    }
    PyObject *state = thread_state(); /* borrowed */
    int timed = 0;
    PyObject *recorders;
    if (state == NULL) {
        /* This thread never entered a scope or pushed a recorder (a Dataset worker while the
         * notebook's thread records): the op runs unobserved, without the Python path. */
        if (PyErr_Occurred()) return NULL;
        recorders = S.no_recorders;
    } else {
        if (!PyTuple_CheckExact(state) || PyTuple_GET_SIZE(state) != 4 ||
            PyTuple_GET_ITEM(state, 0) != Py_None || PyTuple_GET_ITEM(state, 2) != Py_False) {
            return fallback(prim, inputs); /* a device scope, or --sync */
        }
        timed = PyTuple_GET_ITEM(state, 1) == Py_True;
        recorders = PyTuple_GET_ITEM(state, 3);
        if (!PyTuple_CheckExact(recorders)) return fallback(prim, inputs);
    }
    Py_INCREF(recorders); /* a recorder may push or pop others while it records */

    PyObject *a = SLOT(x, S.value), *b = y != NULL ? SLOT(y, S.value) : NULL;
    PyObject *array_op = SLOT(prim, S.array_op);
    double t0 = timed ? now() : 0.0;
    PyObject *out;
    if (b != NULL && array_op != NULL && array_op != Py_None) {
        PyObject *call_args[2] = {a, b};
        out = PyObject_Vectorcall(array_op, call_args, 2, NULL);
    } else {
        PyObject *xp = SLOT(device, S.xp);
        PyObject *call_args[3] = {xp, a, b};
        out = PyObject_Vectorcall(SLOT(prim, S.fwd), call_args, b != NULL ? 3 : 2, NULL);
    }
    double seconds = timed ? now() - t0 : 0.0;
    if (out == NULL) {
        /* The Python path runs the op again and raises the error the runtime documents. */
        Py_DECREF(recorders);
        PyErr_Clear();
        return fallback(prim, inputs);
    }
    PyObject *output = S.tensor->tp_alloc(S.tensor, 0);
    if (output == NULL) {
        Py_DECREF(out);
        Py_DECREF(recorders);
        return NULL;
    }
    /* The cyclic GC need not track the output: a Tensor refers to its array (NumPy arrays take
     * no part in cycles) and its Device only, so it is never part of garbage cycle. Tracked,
     * the outputs a tape keeps are traversed by every young collection while it records. */
    PyObject_GC_UnTrack(output);
    SLOT(output, S.value) = out; /* the reference we hold */
    Py_INCREF(device);
    SLOT(output, S.device) = device;

    PyObject *time = Py_None;
    if (timed) {
        time = PyFloat_FromDouble(seconds);
        if (time == NULL) goto error;
    } else {
        Py_INCREF(time);
    }
    Py_ssize_t k = PyTuple_GET_SIZE(recorders);
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *record_args[6] = {prim, inputs, output, S.params, Py_None, time};
        PyObject *result =
            PyObject_Vectorcall(PyTuple_GET_ITEM(recorders, i), record_args, 6, NULL);
        if (result == NULL) goto error_time;
        Py_DECREF(result);
    }
    Py_DECREF(time);
    Py_DECREF(recorders);
    return output;

error_time:
    Py_DECREF(time);
error:
    Py_DECREF(recorders);
    Py_DECREF(output);
    return NULL;
}

static PyObject *setup(PyObject *module, PyObject *args) {
    PyObject *context, *fallback_fn, *params;
    PyTypeObject *tensor, *primitive, *device;
    if (!PyArg_ParseTuple(args, "OOO!O!O!O!:setup", &context, &fallback_fn, &PyDict_Type,
                          &params, &PyType_Type, &tensor, &PyType_Type, &primitive,
                          &PyType_Type, &device))
        return NULL;
    Py_ssize_t offsets[8];
    PyTypeObject *owners[8] = {tensor,    tensor,    primitive, primitive,
                               primitive, primitive, primitive, device};
    const char *names[8] = {"_value", "_device", "fwd", "array_op", "saves", "moves", "n_out",
                            "xp"};
    for (int i = 0; i < 8; i++) {
        offsets[i] = slot_offset(owners[i], names[i]);
        if (offsets[i] < 0) return NULL;
    }
    Py_XSETREF(S.context, Py_NewRef(context));
    Py_XSETREF(S.fallback, Py_NewRef(fallback_fn));
    Py_XSETREF(S.params, Py_NewRef(params));
    Py_XSETREF(S.tensor, (PyTypeObject *)Py_NewRef(tensor));
    S.value = offsets[0];
    S.device = offsets[1];
    S.fwd = offsets[2];
    S.array_op = offsets[3];
    S.saves = offsets[4];
    S.moves = offsets[5];
    S.n_out = offsets[6];
    S.xp = offsets[7];
    S.ready = 1;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"observe", (PyCFunction)(void (*)(void))observe, METH_FASTCALL,
     "observe(prim, inputs) -> Tensor: dispatch's observed path for the common case."},
    {"set_state", set_state, METH_O,
     "set_state(state): this thread's (device, timed, sync, records), as Context.state."},
    {"setup", setup, METH_VARARGS,
     "setup(context, fallback, params, tensor_type, primitive_type, device_type)"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_dispatch", "dispatch's observed path in C (see dispatch.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__dispatch(void) {
    S.str_state = PyUnicode_InternFromString("state");
    S.str_record = PyUnicode_InternFromString("record");
    S.key = PyUnicode_InternFromString("eagerkernel.runtime.native._dispatch.state");
    S.no_recorders = PyTuple_New(0);
    if (S.str_state == NULL || S.str_record == NULL || S.key == NULL || !S.no_recorders) {
        return NULL;
    }
    return PyModule_Create(&module);
}
