/* The observed path of `dispatch` in C: the private accelerator of core/dispatch.py.
 *
 * While a recorder is active (a tape, the %%tape profiler), every op of the recording thread
 * takes `dispatch._observed`: read the thread's context, time the forward if asked, wrap the
 * output, hand the op to each recorder. Written in Python that costs more than a small op;
 * this function does the common case in one call:
 *
 *     observe(prim, inputs[, params]) -> Tensor
 *
 * for a primitive with one output that moves nothing (its forward may return `(output, saved)`
 * when the primitive `saves`: TF's fused kernels' second output, handed to the recorders), one
 * or two Tensor (or Variable) inputs on one device, keyword params or none, no device scope
 * and no --sync. It reads the
 * thread's state (device scope, timed, sync, recorders: `Context.state`, which
 * `context.py` hands to `set_state` whenever it changes), calls the forward
 * (`prim.array_op(a, b)` when set, else `prim.fwd(xp, a[, b])`) between two reads of the
 * clock when a recorder is timed (`forward_clock` below), makes the output Tensor, and
 * calls `record(prim, inputs, output, params, saved, seconds)` for each recorder's `record`
 * (the state holds them bound).
 *
 * Anything else, and any exception from the forward, goes to the Python function `fallback`
 * (`dispatch._observed`, the specification): it runs the op again from the start and raises
 * the error the runtime documents. tests/test_dispatch_native.py compares the two.
 *
 * `BinaryOp` (below) is the other half: the public two-input ops' own fast path (nothing
 * active) in one C call, handing the observed case straight to `observe`.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <float.h>
#include <math.h>
#include <time.h>
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define EK_HAVE_TSC 1
#endif

static struct {
    PyObject *context;   /* the threading.local Context */
    PyObject *fallback;  /* dispatch._observed */
    PyObject *params;    /* the shared empty params dict */
    PyTypeObject *tensor;
    Py_ssize_t value, device, weak;                    /* Tensor slots */
    Py_ssize_t fwd, array_op, saves, moves, n_out;     /* Primitive slots */
    Py_ssize_t xp;                                     /* Device slot */
    PyObject *str_state, *str_record;
    int ready;
    PyObject *key; /* the key of the state in each thread's dict (PyThreadState_GetDict) */
    PyObject *no_recorders; /* () */
    PyObject *active;       /* context.ACTIVE: non-empty while anything observes ops */
    PyTypeObject *ndarray;  /* numpy.ndarray, whose dtype `descr_of` reads */
    int descr_ok;           /* 1 when the ndarray layout below was verified by setup */
    PyObject *globals;      /* dispatch.py's module dict, where BinaryOp reads `_observe` */
    PyObject *str_observe;  /* "_observe" */
    PyObject *observe_fn;   /* this module's `observe`, called directly when `_observe` is it */
    PyObject *object_descr; /* numpy.dtype(object), the dtype of string tensors */
    PyObject *bool_descr;   /* numpy.dtype(bool): most ops take none, as TensorFlow's kernels */
    PyObject *f32_descr, *f64_descr; /* numpy.dtype(float32), numpy.dtype(float64) */
    PyObject *numpy_state;  /* numpy_methods.STATE: NumPy behavior's switches, or NULL */
    Py_ssize_t np_enabled, np_promotion; /* its slots `enabled` and `promotion` */
} S;

/* The last thread's state, read from its dict: every recorded op asks for it, and a dict
 * lookup costs a good share of what recording adds to an op. The entry is good while the
 * thread and its dict are the same and no thread has stored a state since (`stores` counts
 * set_state calls; the GIL orders them). A new thread may get a dead one's PyThreadState
 * address, but not its dict's: the entry holds that dict, so its address is not reused. */
static struct {
    PyThreadState *thread;
    PyObject *dict;  /* strong */
    PyObject *state; /* borrowed from dict; NULL if the thread never stored one */
    unsigned long stores;
} last_state;
static unsigned long stores = 1; /* the entry starts stale (its `stores` is 0) */

/* This thread's state tuple (borrowed), or NULL with no error if it never stored one. */
static PyObject *thread_state(void) {
    PyThreadState *thread = PyThreadState_Get();
    PyObject *dict = PyThreadState_GetDict(); /* borrowed */
    if (dict == NULL) return NULL;
    if (thread == last_state.thread && dict == last_state.dict && stores == last_state.stores)
        return last_state.state;
    PyObject *state = PyDict_GetItemWithError(dict, S.key); /* borrowed */
    if (state == NULL && PyErr_Occurred()) return NULL;
    last_state.thread = thread;
    Py_INCREF(dict);
    Py_XSETREF(last_state.dict, dict);
    last_state.state = state;
    last_state.stores = stores;
    return state;
}

static PyObject *set_state(PyObject *module, PyObject *state) {
    PyObject *dict = PyThreadState_GetDict(); /* borrowed */
    if (dict == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "set_state: no thread state dict");
        return NULL;
    }
    /* Counted before and after: letting go of the old state may run Python code (a tape's
     * finalizer) that reads the state; what it cached is stale once the store is done. */
    stores++;
    int failed = PyDict_SetItem(dict, S.key, state) < 0;
    stores++;
    if (failed) return NULL;
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

/* The forward clock: CLOCK_MONOTONIC (what time.perf_counter reads), or on x86-64 the CPU's
 * time-stamp counter when the Python side asks for it (`use_tsc`: it does when the kernel's
 * own clocksource is the TSC, so the counter is invariant and synchronized across cores).
 * Reading the counter takes a few nanoseconds where clock_gettime takes about 30, twice per
 * timed op. Its rate is measured against CLOCK_MONOTONIC over at least TSC_WINDOW seconds
 * from the module's import, at the first timed op (waiting out the rest of the window if the
 * import was more recent than that): the error of a rate so measured is under 1e-6. */
#define TSC_WINDOW 0.02
static struct {
    int wanted;        /* use_tsc(True) was called */
    int ready;         /* the rate is measured: ticks convert to seconds */
    uint64_t tick0;    /* the counter at import */
    double time0;      /* CLOCK_MONOTONIC at import */
    double per_tick;   /* seconds per tick */
} TSC;

static uint64_t ticks(void) {
#ifdef EK_HAVE_TSC
    return __rdtsc();
#else
    return 0;
#endif
}

static void tsc_calibrate(void) {
    double t = now();
    while (t - TSC.time0 < TSC_WINDOW) t = now();
    uint64_t k = ticks();
    t = 0.5 * (t + now()); /* the counter was read between the two clock reads */
    if (k > TSC.tick0) {
        TSC.per_tick = (t - TSC.time0) / (double)(k - TSC.tick0);
        TSC.ready = 1;
    } else {
        TSC.wanted = 0; /* a counter that did not advance: keep the monotonic clock */
    }
}

/* A reading of the forward clock, and the seconds between two readings. */
typedef union {
    double seconds;
    uint64_t ticks;
} Reading;

static inline Reading clock_read(void) {
    Reading r;
    if (TSC.ready) {
        r.ticks = ticks();
    } else {
        r.seconds = now();
    }
    return r;
}

static inline double clock_since(Reading start) {
    if (TSC.ready) return (double)(ticks() - start.ticks) * TSC.per_tick;
    return now() - start.seconds;
}

static PyObject *use_tsc(PyObject *module, PyObject *arg) {
    int want = PyObject_IsTrue(arg);
    if (want < 0) return NULL;
#ifdef EK_HAVE_TSC
    TSC.wanted = want;
    if (!want) TSC.ready = 0;
#else
    TSC.wanted = 0;
#endif
    return PyBool_FromLong(TSC.wanted);
}

static PyObject *forward_clock(PyObject *module, PyObject *unused) {
    if (TSC.wanted && !TSC.ready) tsc_calibrate();
    if (TSC.ready) return Py_BuildValue("(sd)", "tsc", TSC.per_tick);
    return Py_BuildValue("(sd)", "monotonic", 0.0);
}

static PyObject *fallback(PyObject *prim, PyObject *inputs, PyObject *params) {
    PyObject *args[3] = {prim, inputs, params};
    return PyObject_Vectorcall(S.fallback, args, 3, NULL);
}

static PyObject *observe(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 && nargs != 3) {
        PyErr_Format(PyExc_TypeError,
                     "observe: expected (prim, inputs[, params]), got %zd arguments", nargs);
        return NULL;
    }
    if (!S.ready) {
        PyErr_SetString(PyExc_RuntimeError, "observe: _dispatch.setup was not called");
        return NULL;
    }
    PyObject *prim = args[0], *inputs = args[1];
    /* The op's keyword params, passed to the forward and the recorders as they are; none:
     * the shared empty dict. */
    PyObject *params = nargs == 3 ? args[2] : S.params;
    if (!PyDict_CheckExact(params)) return fallback(prim, inputs, params);
    int with_params = PyDict_GET_SIZE(params) > 0;
    if (!PyTuple_CheckExact(inputs)) return fallback(prim, inputs, params);
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    if (n < 1 || n > 2) return fallback(prim, inputs, params);
    if (SLOT(prim, S.moves) != Py_False) return fallback(prim, inputs, params);
    PyObject *saves = SLOT(prim, S.saves);
    if (saves != Py_False && saves != Py_True) return fallback(prim, inputs, params);
    PyObject *n_out = SLOT(prim, S.n_out);
    if (n_out == NULL || !PyLong_CheckExact(n_out) || PyLong_AsLong(n_out) != 1) {
        return fallback(prim, inputs, params);
    }
    PyObject *x = PyTuple_GET_ITEM(inputs, 0), *y = n == 2 ? PyTuple_GET_ITEM(inputs, 1) : NULL;
    if (!PyObject_TypeCheck(x, S.tensor) || (y != NULL && !PyObject_TypeCheck(y, S.tensor))) {
        return fallback(prim, inputs, params);
    }
    PyObject *device = SLOT(x, S.device);
    if (device == NULL || (y != NULL && SLOT(y, S.device) != device)) {
        return fallback(prim, inputs, params);
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
            return fallback(prim, inputs, params); /* a device scope, or --sync */
        }
        timed = PyTuple_GET_ITEM(state, 1) == Py_True;
        recorders = PyTuple_GET_ITEM(state, 3);
        if (!PyTuple_CheckExact(recorders)) return fallback(prim, inputs, params);
    }
    Py_INCREF(recorders); /* a recorder may push or pop others while it records */

    PyObject *a = SLOT(x, S.value), *b = y != NULL ? SLOT(y, S.value) : NULL;
    PyObject *array_op = SLOT(prim, S.array_op);
    if (timed && TSC.wanted && !TSC.ready) tsc_calibrate();
    Reading t0 = timed ? clock_read() : (Reading){0};
    PyObject *out;
    if (b != NULL && array_op != NULL && array_op != Py_None && !with_params) {
        PyObject *call_args[2] = {a, b};
        out = PyObject_Vectorcall(array_op, call_args, 2, NULL);
    } else {
        PyObject *xp = SLOT(device, S.xp);
        PyObject *call_args[3] = {xp, a, b};
        out = PyObject_VectorcallDict(SLOT(prim, S.fwd), call_args, b != NULL ? 3 : 2,
                                      with_params ? params : NULL);
    }
    double seconds = timed ? clock_since(t0) : 0.0;
    PyObject *saved = NULL; /* what a primitive that `saves` returned beside its output */
    if (out != NULL && saves == Py_True) {
        /* `(output, saved)`, as the Python path unpacks it; anything else: the Python path */
        if (!PyTuple_CheckExact(out) || PyTuple_GET_SIZE(out) != 2) {
            Py_CLEAR(out);
            Py_DECREF(recorders);
            return fallback(prim, inputs, params);
        }
        PyObject *pair = out;
        out = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
        saved = Py_NewRef(PyTuple_GET_ITEM(pair, 1));
        Py_DECREF(pair);
    }
    if (out != NULL && PyBytes_CheckExact(out)) {
        /* Two 0-d string arrays added: NumPy gives the bytes object; the Python path wraps
         * it in a 0-d array. */
        Py_CLEAR(out);
        Py_XDECREF(saved);
        Py_DECREF(recorders);
        return fallback(prim, inputs, params);
    }
    if (out == NULL) {
        Py_DECREF(recorders);
        /* A KeyboardInterrupt (Ctrl-C) or SystemExit goes up as it is; an error runs the op
         * again on the Python path, which raises the error the runtime documents. */
        if (!PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
        PyErr_Clear();
        return fallback(prim, inputs, params);
    }
    PyObject *output = S.tensor->tp_alloc(S.tensor, 0);
    if (output == NULL) {
        Py_DECREF(out);
        Py_XDECREF(saved);
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
        PyObject *record_args[6] = {prim,   inputs, output, params, saved ? saved : Py_None,
                                    time};
        PyObject *result =
            PyObject_Vectorcall(PyTuple_GET_ITEM(recorders, i), record_args, 6, NULL);
        if (result == NULL) goto error_time;
        Py_DECREF(result);
    }
    Py_DECREF(time);
    Py_XDECREF(saved);
    Py_DECREF(recorders);
    return output;

error_time:
    Py_DECREF(time);
error:
    Py_XDECREF(saved);
    Py_DECREF(recorders);
    Py_DECREF(output);
    return NULL;
}

/* dispatch.py's global `_observe` (borrowed), or NULL (with an error, or none if it is not
 * set). Every op a recording thread runs reads it; on CPython 3.11 the lookup is kept while the
 * module dict's version tag says that the dict has not changed (any change, of any name,
 * bumps it). */
static PyObject *observe_global(void) {
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000 && !defined(PYPY_VERSION)
    static uint64_t version; /* 0: nothing kept (a dict's tag is never 0 once it has a key) */
    static PyObject *kept;
    uint64_t now = ((PyDictObject *)S.globals)->ma_version_tag;
    if (version != 0 && now == version) return kept;
    kept = PyDict_GetItemWithError(S.globals, S.str_observe);
    version = kept != NULL ? now : 0;
    return kept;
#else
    return PyDict_GetItemWithError(S.globals, S.str_observe);
#endif
}

/* -- BinaryOp: the no-recorder path of a two-input public op --------------------------------
 *
 * `dispatch.binary(prim, doc, array_op)` makes the public op (``ek.multiply``, what ``x * y``
 * calls) a `BinaryOp` when this module is built: a C callable that does the Python op's fast
 * path in one call, for two Tensors (or Variables) of one dtype on one device:
 *
 *   - nothing active (`context.ACTIVE` empty): ``out = array_op(x._value, y._value)`` wrapped
 *     in a new Tensor on their device, as the Python op's fast path (two weak tensors of the
 *     new type promotion excepted: their output is weak, which the Python op decides);
 *   - something active: dispatch's `_observe(prim, (x, y))`, as the Python op calls it (this
 *     module's `observe`, called without a call layer, unless a test replaced it).
 *
 *   - nothing active, a float32 or float64 Tensor and a Python float or int on either side
 *     (``x * 2.0``, ``1 - x``), NumPy behavior off: ``array_op`` on the array and the number,
 *     which NumPy converts to the array's dtype as TensorFlow converts it (`scalar_call`).
 *
 * Anything else (a number that float32 cannot hold, a NumPy value or list to convert, a
 * composite tensor, strings or bools, dtypes or devices that differ, a `name=` keyword, any exception from the
 * forward) calls `fallback`, the Python op (the specification), which runs the op from the
 * start and raises the documented error.
 * A BinaryOp binds as a method (a function-like descriptor) and keeps a __dict__ for
 * __name__, __doc__ and __wrapped__ (the Python op). tests/test_dispatch_native.py compares
 * the two. */

/* The leading fields of NumPy's PyArrayObject (numpy/ndarraytypes.h, PyArrayObject_fields, the
 * same in NumPy 1.x and 2.x): `descr` is the array's dtype. `setup` checks this layout against
 * `ndarray.dtype` on sample arrays and leaves `S.descr_ok` 0 (read `.dtype` instead) if it does
 * not hold. */
typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
} ArrayHead;

/* `value`'s dtype as a new reference, or NULL with an error set. */
static PyObject *dtype_of(PyObject *value) {
    if (S.descr_ok && Py_TYPE(value) == S.ndarray) {
        return Py_NewRef(((ArrayHead *)value)->descr);
    }
    return PyObject_GetAttrString(value, "dtype");
}

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *prim;
    PyObject *array_op;
    PyObject *fallback;
    PyObject *dict;
} BinaryOp;

static PyObject *binary_fallback(BinaryOp *self, PyObject *const *args, size_t nargsf,
                                 PyObject *kwnames) {
    return PyObject_Vectorcall(self->fallback, args, nargsf, kwnames);
}

/* A new Tensor on `device` holding the array `out` (a reference it takes over), or NULL with
 * an error. */
static PyObject *wrap(PyObject *out, PyObject *device) {
    PyObject *output = S.tensor->tp_alloc(S.tensor, 0);
    if (output == NULL) {
        Py_DECREF(out);
        return NULL;
    }
    PyObject_GC_UnTrack(output); /* as in `observe`: a Tensor is in no cycle */
    SLOT(output, S.value) = out;
    SLOT(output, S.device) = Py_NewRef(device);
    return output;
}

/* Whether `number` converts to the float dtype `descr` as TensorFlow converts it beside a
 * tensor (`cast_python`: the value rounded to the dtype), which is what NumPy does with a
 * Python number beside an array of that dtype: a float (not one beyond float32's range, which
 * NumPy and the Python path report differently) or an int of at most 64 bits; not a bool. */
static int plain_number(PyObject *number, PyObject *descr) {
    if (PyFloat_CheckExact(number)) {
        double v = PyFloat_AS_DOUBLE(number);
        return descr == S.f64_descr || !isfinite(v) || fabs(v) <= FLT_MAX;
    }
    if (PyLong_CheckExact(number)) {
        int overflow;
        PyLong_AsLongLongAndOverflow(number, &overflow);
        if (PyErr_Occurred()) {
            PyErr_Clear();
            return 0;
        }
        return !overflow;
    }
    return 0;
}

/* A BinaryOp on one Tensor and one Python number (see the comment above): the output Tensor,
 * or NULL without an error when the Python op must run it, or with one for a KeyboardInterrupt. */
static PyObject *scalar_call(BinaryOp *self, PyObject *const *args, int tensor_first) {
    PyObject *t = args[tensor_first ? 0 : 1], *number = args[tensor_first ? 1 : 0];
    if (!S.descr_ok || S.numpy_state == NULL || PyList_GET_SIZE(S.active) != 0) return NULL;
    if (SLOT(S.numpy_state, S.np_enabled) != Py_False ||
        SLOT(S.numpy_state, S.np_promotion) != Py_None || SLOT(t, S.weak) != NULL) {
        return NULL; /* NumPy behavior, or a weak tensor: the Python op promotes */
    }
    PyObject *a = SLOT(t, S.value), *device = SLOT(t, S.device);
    if (a == NULL || device == NULL || Py_TYPE(a) != S.ndarray) return NULL;
    PyObject *descr = ((ArrayHead *)a)->descr;
    if ((descr != S.f32_descr && descr != S.f64_descr) || !plain_number(number, descr)) {
        return NULL;
    }
    PyObject *call_args[2] = {tensor_first ? a : number, tensor_first ? number : a};
    PyObject *out = PyObject_Vectorcall(self->array_op, call_args, 2, NULL);
    if (out == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_Exception)) return NULL; /* Ctrl-C goes up */
        PyErr_Clear();
        return NULL;
    }
    if (Py_TYPE(out) != S.ndarray || ((ArrayHead *)out)->descr != descr) {
        Py_DECREF(out); /* a 0-d result is a NumPy scalar: the Python op wraps it */
        return NULL;
    }
    return wrap(out, device);
}

static PyObject *binary_call(PyObject *op, PyObject *const *args, size_t nargsf,
                             PyObject *kwnames) {
    BinaryOp *self = (BinaryOp *)op;
    if (PyVectorcall_NARGS(nargsf) != 2 || kwnames != NULL || !S.ready) {
        return binary_fallback(self, args, nargsf, kwnames);
    }
    PyObject *x = args[0], *y = args[1];
    int x_tensor = PyObject_TypeCheck(x, S.tensor), y_tensor = PyObject_TypeCheck(y, S.tensor);
    if (x_tensor != y_tensor && self->array_op != NULL) { /* a tensor and a Python number? */
        PyObject *result = scalar_call(self, args, x_tensor);
        if (result != NULL || PyErr_Occurred()) return result;
        return binary_fallback(self, args, nargsf, kwnames);
    }
    if (!x_tensor || !y_tensor) return binary_fallback(self, args, nargsf, kwnames);
    if (SLOT(x, S.weak) != NULL && SLOT(y, S.weak) != NULL) {
        /* Two weak tensors (the new type promotion): the Python op marks the output weak. */
        return binary_fallback(self, args, nargsf, kwnames);
    }
    PyObject *a = SLOT(x, S.value), *b = SLOT(y, S.value);
    PyObject *device = SLOT(x, S.device);
    if (a == NULL || b == NULL || device == NULL) {
        return binary_fallback(self, args, nargsf, kwnames);
    }
    if (!(S.descr_ok && Py_TYPE(a) == S.ndarray && Py_TYPE(b) == S.ndarray &&
          ((ArrayHead *)a)->descr == ((ArrayHead *)b)->descr)) {
        /* Not two arrays of one dtype object: compare the dtypes' identity the slow way. */
        PyObject *da = dtype_of(a);
        if (da == NULL) goto error_fallback;
        PyObject *db = dtype_of(b);
        Py_DECREF(da);
        if (db == NULL) goto error_fallback;
        Py_DECREF(db);
        if (da != db || da == S.object_descr || da == S.bool_descr) {
            return binary_fallback(self, args, nargsf, kwnames);
        }
    } else if (((ArrayHead *)a)->descr == S.object_descr ||
               ((ArrayHead *)a)->descr == S.bool_descr) {
        /* Strings and bools: the Python op decides (most ops take neither, as TensorFlow's
         * kernels). */
        return binary_fallback(self, args, nargsf, kwnames);
    }
    if (PyList_GET_SIZE(S.active) != 0) {
        /* As the Python op: `_observe(prim, (x, y))`, dispatch's global of that name (tests
         * set it to the Python `_observed`); this module's `observe` without a call layer. */
        PyObject *observe_fn = observe_global(); /* borrowed */
        if (observe_fn == NULL) {
            if (PyErr_Occurred()) return NULL;
            return binary_fallback(self, args, nargsf, kwnames);
        }
        PyObject *inputs = PyTuple_Pack(2, x, y);
        if (inputs == NULL) return NULL;
        PyObject *observe_args[2] = {self->prim, inputs};
        PyObject *result = observe_fn == S.observe_fn
                               ? observe(NULL, observe_args, 2)
                               : PyObject_Vectorcall(observe_fn, observe_args, 2, NULL);
        Py_DECREF(inputs);
        return result;
    }
    if (SLOT(y, S.device) != device) return binary_fallback(self, args, nargsf, kwnames);
    PyObject *call_args[2] = {a, b};
    PyObject *out = PyObject_Vectorcall(self->array_op, call_args, 2, NULL);
    if (out == NULL) goto error_fallback;
    if (PyBytes_CheckExact(out)) { /* 0-d strings added: the Python op wraps the bytes */
        Py_DECREF(out);
        return binary_fallback(self, args, nargsf, kwnames);
    }
    return wrap(out, device);

error_fallback:
    /* A KeyboardInterrupt (Ctrl-C) or SystemExit goes up as it is; on an error the Python op
     * runs again and raises the error the runtime documents. */
    if (!PyErr_ExceptionMatches(PyExc_Exception)) return NULL;
    PyErr_Clear();
    return binary_fallback(self, args, nargsf, kwnames);
}

static PyObject *binary_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    PyObject *prim, *array_op, *fallback_fn;
    if (kwds != NULL && PyDict_GET_SIZE(kwds) != 0) {
        PyErr_SetString(PyExc_TypeError, "BinaryOp takes no keyword arguments");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OOO:BinaryOp", &prim, &array_op, &fallback_fn)) return NULL;
    if (!PyCallable_Check(array_op) || !PyCallable_Check(fallback_fn)) {
        PyErr_SetString(PyExc_TypeError, "BinaryOp: array_op and fallback must be callable");
        return NULL;
    }
    BinaryOp *self = (BinaryOp *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    self->prim = Py_NewRef(prim);
    self->array_op = Py_NewRef(array_op);
    self->fallback = Py_NewRef(fallback_fn);
    self->dict = PyDict_New();
    if (self->dict == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    self->vectorcall = binary_call;
    return (PyObject *)self;
}

static int binary_traverse(BinaryOp *self, visitproc visit, void *arg) {
    Py_VISIT(self->prim);
    Py_VISIT(self->array_op);
    Py_VISIT(self->fallback);
    Py_VISIT(self->dict);
    return 0;
}

static int binary_clear(BinaryOp *self) {
    Py_CLEAR(self->prim);
    Py_CLEAR(self->array_op);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->dict);
    return 0;
}

static void binary_dealloc(BinaryOp *self) {
    PyObject_GC_UnTrack(self);
    binary_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Binds as a Python function does: an attribute of a class becomes a method. */
static PyObject *binary_get(PyObject *self, PyObject *obj, PyObject *type) {
    if (obj == NULL || obj == Py_None) return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *binary_repr(BinaryOp *self) {
    PyObject *name = PyDict_GetItemString(self->dict, "__name__"); /* borrowed */
    if (name != NULL && PyUnicode_Check(name)) return PyUnicode_FromFormat("<op %U>", name);
    return PyUnicode_FromString("<op>");
}

/* Copies are the op itself, as `copy` treats Python functions. */
static PyObject *binary_copy(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    return Py_NewRef(self);
}

static PyMethodDef binary_methods[] = {
    {"__copy__", (PyCFunction)(void (*)(void))binary_copy, METH_FASTCALL, "The op itself."},
    {"__deepcopy__", (PyCFunction)(void (*)(void))binary_copy, METH_FASTCALL, "The op itself."},
    {NULL},
};

static PyMemberDef binary_members[] = {
    {"prim", T_OBJECT, offsetof(BinaryOp, prim), READONLY, "the Primitive"},
    {NULL},
};

static PyTypeObject BinaryOpType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "eagerkernel.runtime.native._dispatch.BinaryOp",
    .tp_basicsize = sizeof(BinaryOp),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "BinaryOp(prim, array_op, fallback): a two-input public op's fast path in C.",
    .tp_new = binary_new,
    .tp_dealloc = (destructor)binary_dealloc,
    .tp_traverse = (traverseproc)binary_traverse,
    .tp_clear = (inquiry)binary_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(BinaryOp, vectorcall),
    .tp_descr_get = binary_get,
    .tp_dictoffset = offsetof(BinaryOp, dict),
    .tp_repr = (reprfunc)binary_repr,
    .tp_members = binary_members,
    .tp_methods = binary_methods,
};

static PyObject *setup(PyObject *module, PyObject *args) {
    PyObject *context, *fallback_fn, *params, *active, *samples, *globals;
    PyObject *numpy_state = NULL;
    PyTypeObject *tensor, *primitive, *device, *ndarray;
    if (!PyArg_ParseTuple(args, "OOO!O!O!O!O!O!O!O!|O:setup", &context, &fallback_fn,
                          &PyDict_Type, &params, &PyType_Type, &tensor, &PyType_Type,
                          &primitive, &PyType_Type, &device, &PyList_Type, &active,
                          &PyType_Type, &ndarray, &PyList_Type, &samples, &PyDict_Type,
                          &globals, &numpy_state))
        return NULL;
    Py_ssize_t np_enabled = -1, np_promotion = -1;
    if (numpy_state != NULL) {
        np_enabled = slot_offset(Py_TYPE(numpy_state), "enabled");
        if (np_enabled < 0) return NULL;
        np_promotion = slot_offset(Py_TYPE(numpy_state), "promotion");
        if (np_promotion < 0) return NULL;
    }
    PyObject *observe_fn = PyObject_GetAttrString(module, "observe");
    if (observe_fn == NULL) return NULL;
    /* The ndarray layout `dtype_of` reads, checked on the sample arrays: their `descr` field
     * must be their `.dtype`. */
    int descr_ok = PyList_GET_SIZE(samples) > 0 && ndarray->tp_basicsize >= (Py_ssize_t)sizeof(ArrayHead);
    for (Py_ssize_t i = 0; descr_ok && i < PyList_GET_SIZE(samples); i++) {
        PyObject *arr = PyList_GET_ITEM(samples, i);
        if (Py_TYPE(arr) != ndarray) {
            descr_ok = 0;
            break;
        }
        PyObject *dtype = PyObject_GetAttrString(arr, "dtype");
        if (dtype == NULL) {
            Py_DECREF(observe_fn);
            return NULL;
        }
        descr_ok = ((ArrayHead *)arr)->descr == dtype;
        Py_DECREF(dtype);
    }
    Py_ssize_t offsets[9];
    PyTypeObject *owners[9] = {tensor,    tensor,    primitive, primitive, primitive,
                               primitive, primitive, device,    tensor};
    const char *names[9] = {"_value", "_device", "fwd", "array_op", "saves", "moves", "n_out",
                            "xp",     "_weak"};
    for (int i = 0; i < 9; i++) {
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
    S.weak = offsets[8];
    PyObject *numpy = PyImport_ImportModule("numpy");
    PyObject *object_descr = numpy ? PyObject_CallMethod(numpy, "dtype", "s", "O") : NULL;
    PyObject *f32_descr = numpy ? PyObject_CallMethod(numpy, "dtype", "s", "float32") : NULL;
    PyObject *f64_descr = numpy ? PyObject_CallMethod(numpy, "dtype", "s", "float64") : NULL;
    PyObject *bool_descr = numpy ? PyObject_CallMethod(numpy, "dtype", "s", "bool") : NULL;
    Py_XDECREF(numpy);
    if (object_descr == NULL || f32_descr == NULL || f64_descr == NULL || bool_descr == NULL) {
        Py_XDECREF(object_descr);
        Py_XDECREF(bool_descr);
        Py_XDECREF(f32_descr);
        Py_XDECREF(f64_descr);
        Py_DECREF(observe_fn);
        return NULL;
    }
    Py_XSETREF(S.object_descr, object_descr);
    Py_XSETREF(S.bool_descr, bool_descr);
    Py_XSETREF(S.f32_descr, f32_descr);
    Py_XSETREF(S.f64_descr, f64_descr);
    Py_XSETREF(S.numpy_state, Py_XNewRef(numpy_state));
    S.np_enabled = np_enabled;
    S.np_promotion = np_promotion;
    Py_XSETREF(S.active, Py_NewRef(active));
    Py_XSETREF(S.ndarray, (PyTypeObject *)Py_NewRef(ndarray));
    S.descr_ok = descr_ok;
    Py_XSETREF(S.globals, Py_NewRef(globals));
    Py_XSETREF(S.observe_fn, observe_fn);
    S.ready = 1;
    Py_RETURN_NONE;
}

static PyObject *descr_verified(PyObject *module, PyObject *unused) {
    return PyBool_FromLong(S.descr_ok);
}

static PyMethodDef methods[] = {
    {"observe", (PyCFunction)(void (*)(void))observe, METH_FASTCALL,
     "observe(prim, inputs) -> Tensor: dispatch's observed path for the common case."},
    {"set_state", set_state, METH_O,
     "set_state(state): this thread's (device, timed, sync, records), as Context.state."},
    {"setup", setup, METH_VARARGS,
     "setup(context, fallback, params, tensor_type, primitive_type, device_type, active, "
     "ndarray_type, sample_arrays, dispatch_globals[, numpy_state])"},
    {"use_tsc", use_tsc, METH_O,
     "use_tsc(flag) -> bool: time observed forwards with the CPU's time-stamp counter (x86-64;\n"
     "False elsewhere), calibrated against CLOCK_MONOTONIC at the first timed op."},
    {"forward_clock", forward_clock, METH_NOARGS,
     "forward_clock() -> (name, seconds per tick): the clock observed forwards are timed with,\n"
     "'tsc' (calibrating it now if needed) or 'monotonic'."},
    {"descr_verified", descr_verified, METH_NOARGS,
     "Whether setup verified the ndarray layout (the dtype check reads the array's descr)."},
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
    TSC.tick0 = ticks();
    TSC.time0 = now();
    S.str_observe = PyUnicode_InternFromString("_observe");
    if (S.str_observe == NULL) return NULL;
    if (S.str_state == NULL || S.str_record == NULL || S.key == NULL || !S.no_recorders) {
        return NULL;
    }
    if (PyType_Ready(&BinaryOpType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddObjectRef(m, "BinaryOp", (PyObject *)&BinaryOpType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
