/* A gradient tape's `record` in C: the private accelerator of eagerkernel/runtime/core/tape.py.
 *
 * `GradientTape.record` (and `ProfilingTape.record`) is called by the dispatcher after every op
 * a recording thread runs. Written in Python it costs about as much as a small op itself; this
 * type does the same steps in one vectorcall:
 *
 *     recorder(prim, inputs, output, params, saved, seconds) -> None
 *
 *  1. A Variable input is recorded as its snapshot (`Variable._snapshot()`), keyed by the
 *     Variable's id. A plain tape does that here: in the steady state (it already watches the
 *     Variable, whose snapshot is alive, current and registered in `aliases`), and at the
 *     first read of a trainable floating Variable by a tape that watches what it reads (every
 *     training step's: `first_read`, the twin of `_record_read`'s branch with `_watch_one` and
 *     `Variable._snapshot`). In any other case (a tape that does not watch what it reads, a
 *     frozen or integer Variable, another Tensor subclass, a profiling tape reading a
 *     Variable) the tape class's Python method runs instead (`fallback(tape, ...)`). The tape
 *     is held weakly, so that a tape is freed as soon as nothing refers to it.
 *  2. A plain tape keeps the op only if an input's id is in the tape's tracked set `ids` and
 *     the output is floating (its array's dtype.kind is 'f' or 'c'); the output's id then
 *     joins `ids`. A profiling tape (`profile`) keeps every op and drops `saved`.
 *  3. It appends a `Record` (the Python class, its __slots__ written directly) with the
 *     inputs' ids (None on a profiling tape: they are the inputs' own).
 *
 * `op_totals(records)` gives `Records.by_op` in one C pass: (prim, count, seconds or None)
 * per distinct primitive, in order of first appearance.
 *
 * A profiling tape may hold `release`, the records of the tape a re-run %%tape cell replaces:
 * each call first lets go of the last of them, so that the memory of an old op's output goes
 * straight to a new one (a plain cell frees each temporary as it goes).
 *
 * A profiling tape may also hold `lines` and `internal`: after each record it appends where the
 * op was called from, `(code, line number)` of the innermost Python frame whose file does not
 * start with `internal` (eagerkernel's own directory), or None; the tape's `_source` method is
 * the specification. On CPython 3.11 the frames are read without making frame objects, and
 * each call site (code object, instruction offset) is resolved to its line once per recorder
 * (a small cache), so a loop's ops cost a lookup each.
 *
 * The Python methods are the specification; tests/test_tape_native.py runs the tape tests
 * with and without this type and compares their records.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

/* CPython 3.11: walk the interpreter's frames directly (`append_line`), without making a frame
 * object for each (what PyThreadState_GetFrame and PyFrame_GetBack do). Other versions take
 * the public frame API. */
#if defined(__has_include)
#if __has_include(<internal/pycore_frame.h>)
#define EK_HAVE_FRAME_H 1
#endif
#endif
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000 && !defined(PYPY_VERSION) && \
    defined(EK_HAVE_FRAME_H) && !defined(EK_NO_FRAME_WALK)
#define EK_FRAME_WALK 1
#define Py_BUILD_CORE 1
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE
#endif

/* Call sites whose (code, line) item a profiling tape reuses: a direct-mapped cache keyed by
 * (code object, instruction offset), so that a loop's ops resolve their line once. */
#define LINE_CACHE 64
typedef struct {
    PyObject *code; /* strong: the key's code object cannot be freed and its address reused */
    int lasti;
    PyObject *item; /* (code, line) */
} LineCacheEntry;

/* Whether a code object's file starts with `internal` (the frame walk skips it), cached by the
 * code object, as its file name never changes: each op walks through the runtime's own frames
 * to the user's. */
#define INSIDE_CACHE 64
typedef struct {
    PyObject *code; /* strong, as in LineCacheEntry */
    int inside;
} InsideCacheEntry;

enum { S_PRIM, S_INPUTS, S_IDS, S_OUTPUT, S_PARAMS, S_SAVED, S_SECONDS, N_SLOTS };
static const char *slot_names[N_SLOTS] = {"prim",   "inputs", "_ids",   "output",
                                          "params", "saved",  "seconds"};

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *ids;           /* set of tracked ids */
    PyObject *records;       /* list of Record */
    PyObject *fallback;      /* the tape class's Python record function */
    PyObject *tape;          /* a weak reference to the tape (no cycle through the tape) */
    PyObject *aliases;       /* dict id(snapshot) -> id(Variable) */
    PyObject *watched;       /* None, or the tape's `_watched` list (a plain tape that watches */
    PyObject *variables;     /* what it reads: its `_variables` list and `_snapshots` dict) */
    PyObject *snapshots;
    Py_ssize_t trainable_offset; /* Variable._trainable */
    PyObject *release;       /* None, or a list of records to let go of, one per call */
    PyObject *lines;         /* None, or a list: (code, line) of the op's caller per record */
    PyObject *internal;      /* with `lines`: the path prefix of frames that are not callers */
    PyObject *last_line;     /* the last (code, line) appended, reused when it repeats */
    LineCacheEntry line_cache[LINE_CACHE];
    InsideCacheEntry inside_cache[INSIDE_CACHE];
    PyTypeObject *variable;  /* eagerkernel's Variable */
    Py_ssize_t device_offset; /* Tensor._device */
    Py_ssize_t read_offset;   /* Variable._read: a weak reference to the snapshot, or None */
    PyTypeObject *tensor;    /* eagerkernel's Tensor */
    PyTypeObject *record;    /* eagerkernel's Record */
    Py_ssize_t value_offset; /* Tensor._value */
    Py_ssize_t offsets[N_SLOTS];
    int profile;
} TapeRecorder;

static PyObject *str_dtype, *str_kind;

#define SLOT_GET(obj, offset) (*(PyObject **)((char *)(obj) + (offset)))

/* The offset of `cls`'s __slots__ member `name`, or -1 with TypeError. */
static Py_ssize_t slot_offset(PyTypeObject *cls, const char *name) {
    PyObject *descr = PyDict_GetItemString(cls->tp_dict, name); /* borrowed */
    if (descr == NULL || !PyObject_TypeCheck(descr, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "TapeRecorder: %s has no __slots__ member %s",
                     cls->tp_name, name);
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "TapeRecorder: %s.%s is not an object slot",
                     cls->tp_name, name);
        return -1;
    }
    return member->offset;
}

/* 1 if the array's dtype is floating or complex, 0 if not, -1 on error. */
static int is_float(PyObject *value) {
    PyObject *dtype = PyObject_GetAttr(value, str_dtype);
    if (dtype == NULL) return -1;
    PyObject *kind = PyObject_GetAttr(dtype, str_kind);
    Py_DECREF(dtype);
    if (kind == NULL) return -1;
    int result = 0;
    if (PyUnicode_Check(kind) && PyUnicode_GET_LENGTH(kind) == 1) {
        Py_UCS4 c = PyUnicode_READ_CHAR(kind, 0);
        result = c == 'f' || c == 'c';
    }
    Py_DECREF(kind);
    return result;
}

#ifdef EK_FRAME_WALK
/* (code, line) for the instruction at `lasti` (in code units) of `code`, from the cache; a new
 * reference, or NULL with an error. */
static PyObject *line_item(TapeRecorder *self, PyCodeObject *code, int lasti) {
    size_t h = (((size_t)code >> 4) ^ (size_t)lasti * 0x9E3779B1u) % LINE_CACHE;
    LineCacheEntry *e = &self->line_cache[h];
    if (e->code == (PyObject *)code && e->lasti == lasti) return Py_NewRef(e->item);
    PyObject *number = PyLong_FromLong(PyCode_Addr2Line(code, lasti * (int)sizeof(_Py_CODEUNIT)));
    PyObject *item = number ? PyTuple_Pack(2, (PyObject *)code, number) : NULL;
    Py_XDECREF(number);
    if (item == NULL) return NULL;
    Py_XSETREF(e->code, Py_NewRef((PyObject *)code));
    Py_XSETREF(e->item, Py_NewRef(item));
    e->lasti = lasti;
    return item;
}
#endif

/* 1 if `code`'s file starts with `internal`, 0 if not, -1 on error; from the cache. */
static int is_inside(TapeRecorder *self, PyCodeObject *code) {
    InsideCacheEntry *e = &self->inside_cache[((size_t)code >> 4) % INSIDE_CACHE];
    if (e->code == (PyObject *)code) return e->inside;
    int inside = (int)PyUnicode_Tailmatch(code->co_filename, self->internal, 0, PY_SSIZE_T_MAX,
                                          -1);
    if (inside < 0) return -1;
    Py_XSETREF(e->code, Py_NewRef((PyObject *)code));
    e->inside = inside;
    return inside;
}

static int append_item(TapeRecorder *self, PyObject *item) {
    if (item == NULL) item = Py_NewRef(Py_None);
    int failed = PyList_Append(self->lines, item) < 0;
    Py_DECREF(item);
    return failed ? -1 : 0;
}

/* Appends (code, line) of the innermost frame outside `internal` to `lines` (or None): the
 * C twin of GradientTape._source. 0 on success, -1 on error. */
static int append_line(TapeRecorder *self) {
#ifdef EK_FRAME_WALK
    _PyInterpreterFrame *f = PyThreadState_Get()->cframe->current_frame;
    for (; f != NULL; f = f->previous) {
        if (_PyFrame_IsIncomplete(f)) continue; /* not started: not a caller yet */
        PyCodeObject *code = f->f_code;
        int inside = is_inside(self, code);
        if (inside < 0) return -1;
        if (inside) continue;
        PyObject *item;
        if (f->frame_obj != NULL && f->frame_obj->f_lineno != 0) {
            /* A tracer set the line (a debugger): the frame's own, as f_lineno reads it. */
            PyObject *number = PyLong_FromLong(PyFrame_GetLineNumber(f->frame_obj));
            item = number ? PyTuple_Pack(2, (PyObject *)code, number) : NULL;
            Py_XDECREF(number);
        } else {
            item = line_item(self, code, _PyInterpreterFrame_LASTI(f));
        }
        if (item == NULL) return -1;
        return append_item(self, item);
    }
    return append_item(self, NULL);
#else
    PyFrameObject *frame = PyThreadState_GetFrame(PyThreadState_Get()); /* new or NULL */
    PyObject *item = NULL;
    while (frame != NULL) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        int inside = is_inside(self, code);
        if (inside < 0) {
            Py_DECREF(code);
            Py_DECREF(frame);
            return -1;
        }
        if (!inside) {
            int line = PyFrame_GetLineNumber(frame);
            PyObject *last = self->last_line;
            if (last != NULL && PyTuple_GET_ITEM(last, 0) == (PyObject *)code &&
                PyLong_AsLong(PyTuple_GET_ITEM(last, 1)) == line) {
                Py_INCREF(last);
                item = last;
            } else {
                PyObject *number = PyLong_FromLong(line);
                item = number ? PyTuple_Pack(2, (PyObject *)code, number) : NULL;
                Py_XDECREF(number);
                if (item != NULL) {
                    Py_INCREF(item);
                    Py_XSETREF(self->last_line, item);
                }
            }
            Py_DECREF(code);
            Py_DECREF(frame);
            if (item == NULL) return -1;
            break;
        }
        Py_DECREF(code);
        PyFrameObject *back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    return append_item(self, item);
#endif
}

/* Aliases `snap` to the Variable whose id is `key` (`_alias`, and `_snapshots[key]`).
 * 0 on success, -1 on error. */
static int alias(TapeRecorder *self, PyObject *snap, PyObject *key) {
    PyObject *snap_id = PyLong_FromVoidPtr(snap);
    if (snap_id == NULL) return -1;
    int failed = PySet_Add(self->ids, snap_id) < 0 ||
                 PyDict_SetItem(self->aliases, snap_id, key) < 0 ||
                 PyDict_SetItem(self->snapshots, key, snap) < 0;
    Py_DECREF(snap_id);
    return failed ? -1 : 0;
}

/* The alive snapshot of Variable `x` (borrowed), or NULL. */
static PyObject *live_snapshot(TapeRecorder *self, PyObject *x) {
    PyObject *ref = *(PyObject **)((char *)x + self->read_offset);
    if (ref == NULL || !PyWeakref_CheckRef(ref)) return NULL;
    PyObject *snap = PyWeakref_GetObject(ref);
    return snap == Py_None ? NULL : snap;
}

#define VALUE(t) (*(PyObject **)((char *)(t) + self->value_offset))
#define DEVICE(t) (*(PyObject **)((char *)(t) + self->device_offset))

/* A plain tape's first read of Variable `x` (id `key`), which it does not track yet: the twin
 * of `_record_read` for one Variable when the tape watches what it reads and `x` is trainable
 * and floating: `_watch_one(x)` (track it, list it, alias a snapshot taken before), then
 * `x._snapshot()` (the current value's snapshot, made anew if it is gone or stale) aliased to
 * `x`. Returns the snapshot (a new reference); NULL with an error set; or NULL without one when
 * the Python method must decide (the cases above do not hold). */
static PyObject *first_read(TapeRecorder *self, PyObject *x, PyObject *key) {
    if (self->watched == Py_None) return NULL;
    PyObject *trainable = *(PyObject **)((char *)x + self->trainable_offset);
    if (trainable != Py_True) return NULL;
    PyObject *value = VALUE(x);
    if (value == NULL) return NULL;
    int floating = is_float(value);
    if (floating <= 0) return NULL; /* not floating: Python decides; or is_float's error */
    if (PySet_Add(self->ids, key) < 0 || PyList_Append(self->watched, x) < 0 ||
        PyList_Append(self->variables, x) < 0) {
        return NULL;
    }
    PyObject *snap = live_snapshot(self, x);
    if (snap != NULL && VALUE(snap) == value) { /* read before it was watched */
        if (alias(self, snap, key) < 0) return NULL;
    }
    if (snap == NULL || VALUE(snap) != value) { /* `Variable._snapshot`: a new one */
        snap = self->tensor->tp_alloc(self->tensor, 0);
        if (snap == NULL) return NULL;
        PyObject_GC_UnTrack(snap); /* as the dispatcher's outputs: in no cycle */
        VALUE(snap) = Py_NewRef(value);
        DEVICE(snap) = Py_XNewRef(DEVICE(x));
        PyObject *ref = PyWeakref_NewRef(snap, NULL);
        if (ref == NULL) {
            Py_DECREF(snap);
            return NULL;
        }
        PyObject **slot = (PyObject **)((char *)x + self->read_offset);
        Py_XSETREF(*slot, ref);
    } else {
        Py_INCREF(snap);
    }
    /* `_record_read`: a tracked Variable's snapshot joins the tracked ids, aliased to it */
    PyObject *snap_id = PyLong_FromVoidPtr(snap);
    if (snap_id == NULL) goto error;
    int aliased = PyDict_Contains(self->aliases, snap_id);
    Py_DECREF(snap_id);
    if (aliased < 0 || (!aliased && alias(self, snap, key) < 0)) goto error;
    return snap;
error:
    Py_DECREF(snap);
    return NULL;
}

static PyObject *tape_record(PyObject *op, PyObject *const *args, size_t nargsf,
                             PyObject *kwnames) {
    TapeRecorder *self = (TapeRecorder *)op;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (nargs != 6 || kwnames != NULL) {
        PyErr_Format(PyExc_TypeError,
                     "TapeRecorder: expected 6 positional arguments (prim, inputs, output, "
                     "params, saved, seconds), got %zd",
                     nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0));
        return NULL;
    }
    PyObject *prim = args[0], *inputs = args[1], *output = args[2];
    if (!PyTuple_CheckExact(inputs) || Py_TYPE(output) != self->tensor) goto fallback;
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTypeObject *type = Py_TYPE(PyTuple_GET_ITEM(inputs, i));
        if (type == self->tensor) continue;
        if (type != self->variable || self->profile) goto fallback;
    }
    /* A profiling tape tracks everything: its records keep no ids (None: the inputs' own). */
    PyObject *keys = self->profile ? Py_None : PyTuple_New(n);
    if (keys == NULL) return NULL;
    if (self->profile) {
        Py_INCREF(keys);
    } else {
        PyObject_GC_UnTrack(keys); /* it will hold ints only */
    }
    PyObject *recorded = inputs; /* the inputs as recorded: Variables replaced by snapshots */
    Py_INCREF(recorded);
    int tracked = self->profile;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GET_ITEM(inputs, i);
        if (self->profile) continue; /* every input of a profiling tape is plain (above) */
        PyObject *key = PyLong_FromVoidPtr(x);
        if (key == NULL) goto error_keys;
        PyTuple_SET_ITEM(keys, i, key);
        int hit = PySet_Contains(self->ids, key);
        if (hit < 0) goto error_keys;
        if (Py_TYPE(x) == self->variable) {
            PyObject *snap; /* borrowed from `owned` or the Variable's weak reference */
            PyObject *owned = NULL;
            if (!hit) {
                /* The first read (before any record is written: a fallback starts over). */
                owned = first_read(self, x, key);
                if (owned == NULL) {
                    Py_DECREF(keys);
                    Py_DECREF(recorded);
                    if (PyErr_Occurred()) return NULL;
                    goto fallback;
                }
                snap = owned;
                hit = 1;
            } else {
                /* The steady state: watched, snapshot alive, current and aliased. */
                snap = live_snapshot(self, x);
                if (snap == NULL || VALUE(snap) != VALUE(x) || DEVICE(snap) != DEVICE(x)) {
                    Py_DECREF(keys);
                    Py_DECREF(recorded);
                    goto fallback;
                }
                PyObject *snap_id = PyLong_FromVoidPtr(snap);
                if (snap_id == NULL) goto error_keys;
                int aliased = PyDict_Contains(self->aliases, snap_id);
                Py_DECREF(snap_id);
                if (aliased <= 0) {
                    Py_DECREF(keys);
                    Py_DECREF(recorded);
                    if (aliased < 0) return NULL;
                    goto fallback;
                }
            }
            if (recorded == inputs) {
                Py_DECREF(recorded);
                recorded = PyTuple_New(n); /* a copy to write the snapshot in */
                if (recorded == NULL) {
                    Py_XDECREF(owned);
                    Py_DECREF(keys);
                    return NULL;
                }
                for (Py_ssize_t j = 0; j < n; j++) {
                    PyObject *item = PyTuple_GET_ITEM(inputs, j);
                    Py_INCREF(item);
                    PyTuple_SET_ITEM(recorded, j, item);
                }
            }
            Py_INCREF(snap);
            Py_XDECREF(owned);
            PyObject *old = PyTuple_GET_ITEM(recorded, i);
            PyTuple_SET_ITEM(recorded, i, snap);
            Py_DECREF(old);
        }
        if (!tracked) tracked = hit;
    }
    if (!tracked) {
        Py_DECREF(keys);
        Py_DECREF(recorded);
        Py_RETURN_NONE;
    }
    if (!self->profile) {
        PyObject *value = *(PyObject **)((char *)output + self->value_offset);
        if (value == NULL) {
            PyErr_SetString(PyExc_AttributeError, "TapeRecorder: output has no _value");
            goto error_keys;
        }
        int floating = is_float(value);
        if (floating <= 0) {
            Py_DECREF(keys);
            Py_DECREF(recorded);
            if (floating < 0) return NULL;
            Py_RETURN_NONE;
        }
        PyObject *out_id = PyLong_FromVoidPtr(output);
        if (out_id == NULL) goto error_keys;
        int failed = PySet_Add(self->ids, out_id) < 0;
        Py_DECREF(out_id);
        if (failed) goto error_keys;
    }
    int failed;
    PyObject *release = self->release;
    if (release != Py_None && PyList_GET_SIZE(release) > 0) {
        /* Pop the last record: the list (which this recorder holds) no longer refers to it
         * before it is freed, which may run weakref callbacks. */
        Py_ssize_t m = PyList_GET_SIZE(release);
        PyObject *last = PyList_GET_ITEM(release, m - 1);
        Py_SET_SIZE(release, m - 1);
        Py_DECREF(last);
    }
    PyObject *record = self->record->tp_alloc(self->record, 0);
    if (record == NULL) goto error_keys;
    PyObject *items[N_SLOTS] = {prim,    recorded, keys,   output,
                                args[3], self->profile ? Py_None : args[4], args[5]};
    for (int i = 0; i < N_SLOTS; i++) {
        PyObject *item = items[i];
        /* keys and recorded: the references we hold move in */
        if (i != S_IDS && i != S_INPUTS) Py_INCREF(item);
        *(PyObject **)((char *)record + self->offsets[i]) = item;
    }
    /* A record refers to Tensors, the primitive, the params and the saved arrays, none of
     * which refers back to a record: with the shared empty params (every op without params)
     * it can be in no cycle, and the cyclic GC need not traverse the records a tape keeps. */
    if (PyDict_CheckExact(args[3]) && PyDict_GET_SIZE(args[3]) == 0) {
        PyObject_GC_UnTrack(record);
        /* Likewise the inputs tuple: Tensors, which refer to no tuple. */
        if (PyTuple_CheckExact(recorded)) PyObject_GC_UnTrack(recorded);
    }
    failed = PyList_Append(self->records, record) < 0;
    Py_DECREF(record);
    if (failed) return NULL;
    if (self->lines != Py_None && append_line(self) < 0) return NULL;
    Py_RETURN_NONE;

error_keys:
    Py_DECREF(keys);
    Py_DECREF(recorded);
    return NULL;

fallback: {
    PyObject *tape = PyWeakref_GetObject(self->tape); /* borrowed */
    if (tape == NULL) return NULL;
    if (tape == Py_None) {
        PyErr_SetString(PyExc_RuntimeError, "TapeRecorder: the tape no longer exists");
        return NULL;
    }
    PyObject *call_args[7] = {tape, args[0], args[1], args[2], args[3], args[4], args[5]};
    Py_INCREF(tape);
    PyObject *result = PyObject_Vectorcall(self->fallback, call_args, 7, NULL);
    Py_DECREF(tape);
    return result;
}
}

static PyObject *tape_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"ids",         "records",       "profile",     "aliases",
                               "fallback",    "tape",          "tensor_type", "variable_type",
                               "record_type", "release",       "lines",       "internal",
                               "watched",     "variables",     "snapshots",   NULL};
    PyObject *ids, *records, *aliases, *fallback, *tape, *release = Py_None;
    PyObject *lines = Py_None, *internal = Py_None;
    PyObject *watched = Py_None, *variables = Py_None, *snapshots = Py_None;
    int profile;
    PyTypeObject *tensor, *variable, *record;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!pO!OOO!O!O!|OOOOOO:TapeRecorder", keywords,
                                     &PySet_Type, &ids, &PyList_Type, &records, &profile,
                                     &PyDict_Type, &aliases, &fallback, &tape, &PyType_Type,
                                     &tensor, &PyType_Type, &variable, &PyType_Type, &record,
                                     &release, &lines, &internal, &watched, &variables,
                                     &snapshots))
        return NULL;
    if (watched != Py_None && (profile || !PyList_CheckExact(watched) ||
                               !PyList_CheckExact(variables) || !PyDict_CheckExact(snapshots))) {
        PyErr_SetString(PyExc_TypeError,
                        "TapeRecorder: watched must be None, or (for a plain tape) a list with "
                        "variables a list and snapshots a dict");
        return NULL;
    }
    if (lines != Py_None && (!PyList_CheckExact(lines) || !PyUnicode_Check(internal))) {
        PyErr_SetString(PyExc_TypeError,
                        "TapeRecorder: lines must be None, or a list with internal a str");
        return NULL;
    }
    if (release != Py_None && !PyList_CheckExact(release)) {
        PyErr_SetString(PyExc_TypeError, "TapeRecorder: release must be a list or None");
        return NULL;
    }
    if (!PyWeakref_CheckRef(tape)) {
        PyErr_SetString(PyExc_TypeError, "TapeRecorder: tape must be a weakref.ref");
        return NULL;
    }
    Py_ssize_t value_offset = slot_offset(tensor, "_value");
    if (value_offset < 0) return NULL;
    Py_ssize_t device_offset = slot_offset(tensor, "_device");
    if (device_offset < 0) return NULL;
    Py_ssize_t read_offset = slot_offset(variable, "_read");
    if (read_offset < 0) return NULL;
    Py_ssize_t trainable_offset = slot_offset(variable, "_trainable");
    if (trainable_offset < 0) return NULL;
    if (!PyType_IsSubtype(variable, tensor)) {
        PyErr_SetString(PyExc_TypeError, "TapeRecorder: variable_type must subclass tensor_type");
        return NULL;
    }
    TapeRecorder *self = (TapeRecorder *)type->tp_alloc(type, 0);
    if (self == NULL) return NULL;
    for (int i = 0; i < N_SLOTS; i++) {
        self->offsets[i] = slot_offset(record, slot_names[i]);
        if (self->offsets[i] < 0) {
            Py_DECREF(self);
            return NULL;
        }
    }
    self->value_offset = value_offset;
    self->device_offset = device_offset;
    self->read_offset = read_offset;
    self->trainable_offset = trainable_offset;
    self->watched = Py_NewRef(watched);
    self->variables = Py_NewRef(variables);
    self->snapshots = Py_NewRef(snapshots);
    Py_INCREF(aliases);
    self->aliases = aliases;
    Py_INCREF(release);
    self->release = release;
    Py_INCREF(lines);
    self->lines = lines;
    Py_INCREF(internal);
    self->internal = internal;
    self->last_line = NULL;
    Py_INCREF(variable);
    self->variable = variable;
    self->profile = profile;
    Py_INCREF(ids);
    self->ids = ids;
    Py_INCREF(records);
    self->records = records;
    Py_INCREF(fallback);
    self->fallback = fallback;
    Py_INCREF(tape);
    self->tape = tape;
    Py_INCREF(tensor);
    self->tensor = tensor;
    Py_INCREF(record);
    self->record = record;
    self->vectorcall = tape_record;
    return (PyObject *)self;
}

static int tape_traverse(TapeRecorder *self, visitproc visit, void *arg) {
    Py_VISIT(self->ids);
    Py_VISIT(self->records);
    Py_VISIT(self->fallback);
    Py_VISIT(self->tape);
    Py_VISIT(self->aliases);
    Py_VISIT(self->watched);
    Py_VISIT(self->variables);
    Py_VISIT(self->snapshots);
    Py_VISIT(self->release);
    Py_VISIT(self->lines);
    Py_VISIT(self->last_line);
    for (int i = 0; i < LINE_CACHE; i++) {
        Py_VISIT(self->line_cache[i].code);
        Py_VISIT(self->line_cache[i].item);
    }
    for (int i = 0; i < INSIDE_CACHE; i++) Py_VISIT(self->inside_cache[i].code);
    Py_VISIT(self->variable);
    Py_VISIT(self->tensor);
    Py_VISIT(self->record);
    return 0;
}

static int tape_clear(TapeRecorder *self) {
    Py_CLEAR(self->ids);
    Py_CLEAR(self->records);
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->tape);
    Py_CLEAR(self->aliases);
    Py_CLEAR(self->watched);
    Py_CLEAR(self->variables);
    Py_CLEAR(self->snapshots);
    Py_CLEAR(self->release);
    Py_CLEAR(self->lines);
    Py_CLEAR(self->internal);
    Py_CLEAR(self->last_line);
    for (int i = 0; i < LINE_CACHE; i++) {
        Py_CLEAR(self->line_cache[i].code);
        Py_CLEAR(self->line_cache[i].item);
    }
    for (int i = 0; i < INSIDE_CACHE; i++) Py_CLEAR(self->inside_cache[i].code);
    Py_CLEAR(self->variable);
    Py_CLEAR(self->tensor);
    Py_CLEAR(self->record);
    return 0;
}

static void tape_dealloc(TapeRecorder *self) {
    PyObject_GC_UnTrack(self);
    tape_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyMemberDef tape_members[] = {
    {"ids", T_OBJECT, offsetof(TapeRecorder, ids), READONLY, "the tracked ids"},
    {"records", T_OBJECT, offsetof(TapeRecorder, records), READONLY, "the tape's records"},
    {NULL},
};

PyDoc_STRVAR(tape_doc,
             "TapeRecorder(ids, records, profile, aliases, fallback, tape, tensor_type, "
             "variable_type, record_type, release=None, lines=None, internal=None, "
             "watched=None, variables=None, snapshots=None)\n\n"
             "A tape's record(prim, inputs, output, params, saved, seconds) in C.");

static PyTypeObject TapeRecorderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "eagerkernel.runtime.native._tape.TapeRecorder",
    .tp_basicsize = sizeof(TapeRecorder),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = tape_doc,
    .tp_new = tape_new,
    .tp_dealloc = (destructor)tape_dealloc,
    .tp_traverse = (traverseproc)tape_traverse,
    .tp_clear = (inquiry)tape_clear,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(TapeRecorder, vectorcall),
    .tp_members = tape_members,
};


/* -- Record: one recorded op, the C twin of core/records.py's Python class -------------------
 *
 * The same fields (prim, inputs, _ids, output, params, saved, seconds), the same constructor
 * Record(prim, inputs, ids, output, params=<empty dict>, saved=None, seconds=None), the `ids`
 * and `outputs` properties and the repr. A static type: allocating one and letting go of it
 * costs less than an instance of a Python class with __slots__, and a tape makes one per op.
 */
typedef struct {
    PyObject_HEAD
    PyObject *fields[N_SLOTS]; /* in slot_names order */
} RecordObject;

static PyObject *empty_params; /* the default params: one shared empty dict */

static int record_init(RecordObject *self, PyObject *args, PyObject *kwds) {
    static char *keywords[] = {"prim", "inputs", "ids", "output", "params", "saved", "seconds",
                               NULL};
    PyObject *v[N_SLOTS] = {NULL, NULL, NULL, NULL, empty_params, Py_None, Py_None};
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOO|OOO:Record", keywords, &v[0], &v[1],
                                     &v[2], &v[3], &v[4], &v[5], &v[6]))
        return -1;
    for (int i = 0; i < N_SLOTS; i++) {
        Py_INCREF(v[i]);
        Py_XSETREF(self->fields[i], v[i]);
    }
    return 0;
}

static int record_traverse(RecordObject *self, visitproc visit, void *arg) {
    for (int i = 0; i < N_SLOTS; i++) Py_VISIT(self->fields[i]);
    return 0;
}

static int record_clear(RecordObject *self) {
    for (int i = 0; i < N_SLOTS; i++) Py_CLEAR(self->fields[i]);
    return 0;
}

static void record_dealloc(RecordObject *self) {
    PyObject_GC_UnTrack(self);
    record_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *record_ids(RecordObject *self, void *closure) {
    PyObject *ids = self->fields[S_IDS], *inputs = self->fields[S_INPUTS];
    if (ids != NULL && ids != Py_None) return Py_NewRef(ids);
    if (inputs == NULL || !PyTuple_Check(inputs)) {
        PyErr_SetString(PyExc_AttributeError, "Record: no inputs");
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(inputs);
    PyObject *out = PyTuple_New(n);
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *key = PyLong_FromVoidPtr(PyTuple_GET_ITEM(inputs, i));
        if (key == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, key);
    }
    return out;
}

static PyObject *record_outputs(RecordObject *self, void *closure) {
    PyObject *output = self->fields[S_OUTPUT];
    if (output == NULL) {
        PyErr_SetString(PyExc_AttributeError, "Record: no output");
        return NULL;
    }
    if (PyTuple_Check(output)) return Py_NewRef(output);
    return PyTuple_Pack(1, output);
}

static PyObject *record_repr(RecordObject *self) {
    PyObject *prim = self->fields[S_PRIM];
    PyObject *name = prim ? PyObject_GetAttrString(prim, "name") : NULL;
    if (name == NULL) {
        PyErr_Clear();
        return PyUnicode_FromString("<Record>");
    }
    PyObject *text = PyUnicode_FromFormat("<Record %U>", name);
    Py_DECREF(name);
    return text;
}

#define FIELD(i) offsetof(RecordObject, fields) + (i) * sizeof(PyObject *)
static PyMemberDef record_members[] = {
    {"prim", T_OBJECT_EX, FIELD(S_PRIM), 0, "the Primitive"},
    {"inputs", T_OBJECT_EX, FIELD(S_INPUTS), 0, "the input Tensors (snapshots for Variables)"},
    {"_ids", T_OBJECT_EX, FIELD(S_IDS), 0, "the input ids as stored (None: the inputs' own)"},
    {"output", T_OBJECT_EX, FIELD(S_OUTPUT), 0, "the output Tensor, or a tuple of them"},
    {"params", T_OBJECT_EX, FIELD(S_PARAMS), 0, "the op's keyword parameters"},
    {"saved", T_OBJECT_EX, FIELD(S_SAVED), 0, "what the forward saved for the VJP, or None"},
    {"seconds", T_OBJECT_EX, FIELD(S_SECONDS), 0, "the forward time, or None"},
    {NULL},
};

static PyGetSetDef record_getset[] = {
    {"ids", (getter)record_ids, NULL, "id of each input as the backward pass keys it", NULL},
    {"outputs", (getter)record_outputs, NULL, "the outputs as a tuple", NULL},
    {NULL},
};

static PyTypeObject RecordType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "eagerkernel.runtime.native._tape.Record",
    .tp_basicsize = sizeof(RecordObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "One recorded op (the C twin of core/records.py's Record).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)record_init,
    .tp_dealloc = (destructor)record_dealloc,
    .tp_traverse = (traverseproc)record_traverse,
    .tp_clear = (inquiry)record_clear,
    .tp_repr = (reprfunc)record_repr,
    .tp_members = record_members,
    .tp_getset = record_getset,
};

#define FEW 16
/* op_totals(records, record_type) -> [(prim, count, seconds or None)], first appearance. */
static PyObject *op_totals(PyObject *module, PyObject *args) {
    PyObject *records;
    PyTypeObject *record_type;
    if (!PyArg_ParseTuple(args, "O!O!:op_totals", &PyList_Type, &records, &PyType_Type,
                          &record_type))
        return NULL;
    Py_ssize_t prim_at = slot_offset(record_type, "prim");
    Py_ssize_t seconds_at = slot_offset(record_type, "seconds");
    if (prim_at < 0 || seconds_at < 0) return NULL;
    PyObject *index = PyDict_New(), *prims = PyList_New(0);
    Py_ssize_t n = PyList_GET_SIZE(records), distinct = 0;
    Py_ssize_t *counts = PyMem_Calloc(n ? n : 1, sizeof(Py_ssize_t));
    double *totals = PyMem_Calloc(n ? n : 1, sizeof(double));
    char *timed = PyMem_Calloc(n ? n : 1, 1);
    PyObject *result = NULL;
    if (index == NULL || prims == NULL || counts == NULL || totals == NULL || timed == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(records); i++) {
        PyObject *r = PyList_GET_ITEM(records, i);
        if (!PyObject_TypeCheck(r, record_type)) {
            PyErr_Format(PyExc_TypeError, "op_totals: item %zd is not a Record", i);
            goto done;
        }
        PyObject *prim = SLOT_GET(r, prim_at), *seconds = SLOT_GET(r, seconds_at);
        if (prim == NULL || seconds == NULL) {
            PyErr_SetString(PyExc_AttributeError, "op_totals: a Record without prim/seconds");
            goto done;
        }
        /* The first FEW primitives are found by address: a tape's ops are mostly of a few
         * types, and hashing into the dict costs more than the rest of the pass. */
        Py_ssize_t j = -1;
        for (Py_ssize_t q = 0; q < distinct && q < FEW; q++) {
            if (PyList_GET_ITEM(prims, q) == prim) {
                j = q;
                break;
            }
        }
        PyObject *k = j >= 0 || distinct < FEW ? NULL : PyDict_GetItemWithError(index, prim);
        if (j >= 0) {
            /* found */
        } else if (k == NULL) {
            if (PyErr_Occurred()) goto done;
            j = distinct++;
            PyObject *at = PyLong_FromSsize_t(j);
            if (at == NULL) goto done;
            int failed = PyDict_SetItem(index, prim, at) < 0 || PyList_Append(prims, prim) < 0;
            Py_DECREF(at);
            if (failed) goto done;
        } else {
            j = PyLong_AsSsize_t(k);
        }
        counts[j] += 1;
        if (seconds != Py_None) {
            double s = PyFloat_AsDouble(seconds);
            if (s == -1.0 && PyErr_Occurred()) goto done;
            totals[j] += s;
            timed[j] = 1;
        }
    }
    result = PyList_New(distinct);
    if (result == NULL) goto done;
    for (Py_ssize_t j = 0; j < distinct; j++) {
        PyObject *row = timed[j] ? Py_BuildValue("(Ond)", PyList_GET_ITEM(prims, j), counts[j],
                                                 totals[j])
                                 : Py_BuildValue("(OnO)", PyList_GET_ITEM(prims, j), counts[j],
                                                 Py_None);
        if (row == NULL) {
            Py_CLEAR(result);
            goto done;
        }
        PyList_SET_ITEM(result, j, row);
    }
done:
    Py_XDECREF(index);
    Py_XDECREF(prims);
    PyMem_Free(counts);
    PyMem_Free(totals);
    PyMem_Free(timed);
    return result;
}

/* -- owned_bytes: what a tape's outputs hold, in one pass --------------------------------------
 *
 * The leading fields of NumPy's PyArrayObject (numpy/ndarraytypes.h, PyArrayObject_fields, the
 * same in NumPy 1.x and 2.x). `setup_arrays` checks them against `ndim`, `shape`, `base` and
 * `dtype` on sample arrays; if they do not hold, every array takes the attribute reads. */
typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
} ArrayHead;

static struct {
    PyTypeObject *ndarray;
    int layout_ok;
    PyObject *descr;    /* the last dtype seen, and its itemsize */
    Py_ssize_t itemsize;
} A;

static int array_layout_holds(PyObject *arr) {
    if (Py_TYPE(arr) != A.ndarray) return 0;
    ArrayHead *h = (ArrayHead *)arr;
    PyObject *ndim = PyObject_GetAttrString(arr, "ndim");
    PyObject *shape = PyObject_GetAttrString(arr, "shape");
    PyObject *base = PyObject_GetAttrString(arr, "base");
    PyObject *dtype = PyObject_GetAttrString(arr, "dtype");
    int ok = ndim && shape && base && dtype && PyTuple_Check(shape) &&
             PyLong_AsLong(ndim) == h->nd && PyTuple_GET_SIZE(shape) == h->nd &&
             (h->base == NULL ? base == Py_None : h->base == base) && h->descr == dtype;
    for (int i = 0; ok && i < h->nd; i++) {
        ok = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i)) == h->dimensions[i];
    }
    Py_XDECREF(ndim);
    Py_XDECREF(shape);
    Py_XDECREF(base);
    Py_XDECREF(dtype);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        return 0;
    }
    return ok;
}

static PyObject *setup_arrays(PyObject *module, PyObject *args) {
    PyTypeObject *ndarray;
    PyObject *samples;
    if (!PyArg_ParseTuple(args, "O!O!:setup_arrays", &PyType_Type, &ndarray, &PyList_Type,
                          &samples))
        return NULL;
    Py_XSETREF(A.ndarray, (PyTypeObject *)Py_NewRef(ndarray));
    int ok = PyList_GET_SIZE(samples) > 0 &&
             ndarray->tp_basicsize >= (Py_ssize_t)sizeof(ArrayHead);
    for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(samples); i++) {
        ok = array_layout_holds(PyList_GET_ITEM(samples, i));
    }
    A.layout_ok = ok;
    return PyBool_FromLong(ok);
}

/* nbytes of an array that owns its memory, or -1 if it is a view (or -2 with an error). */
static Py_ssize_t owned_nbytes(PyObject *value) {
    if (A.layout_ok && Py_TYPE(value) == A.ndarray) {
        ArrayHead *h = (ArrayHead *)value;
        if (h->base != NULL) return -1;
        if (h->descr != A.descr) {
            PyObject *size = PyObject_GetAttrString(h->descr, "itemsize");
            if (size == NULL) return -2;
            Py_ssize_t itemsize = PyLong_AsSsize_t(size);
            Py_DECREF(size);
            if (itemsize < 0) return -2;
            Py_XSETREF(A.descr, Py_NewRef(h->descr));
            A.itemsize = itemsize;
        }
        Py_ssize_t n = A.itemsize;
        for (int i = 0; i < h->nd; i++) n *= h->dimensions[i];
        return n;
    }
    PyObject *base = PyObject_GetAttrString(value, "base");
    if (base == NULL) return -2;
    int view = base != Py_None;
    Py_DECREF(base);
    if (view) return -1;
    PyObject *nbytes = PyObject_GetAttrString(value, "nbytes");
    if (nbytes == NULL) return -2;
    Py_ssize_t n = PyLong_AsSsize_t(nbytes);
    Py_DECREF(nbytes);
    return (n == -1 && PyErr_Occurred()) ? -2 : n;
}

/* The offset of the object slot `name` of `type` (its __slots__ member), or -1 if it has none:
 * for the outputs' type, read once per call of owned_bytes. */
static Py_ssize_t member_offset(PyTypeObject *type, PyObject *name) {
    PyObject *descr = _PyType_Lookup(type, name); /* borrowed */
    if (descr == NULL || !PyObject_TypeCheck(descr, &PyMemberDescr_Type)) return -1;
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    return member->type == T_OBJECT_EX ? member->offset : -1;
}

/* owned_bytes(records, record_type, value_name) -> (total, views) or None: see
 * Records.owned_bytes. Reads each record's `output` and the output's `value_name` slot
 * directly (the attribute lookups cost more than the rest of the pass). */
static PyObject *owned_bytes(PyObject *module, PyObject *args) {
    PyObject *records, *value_name;
    PyTypeObject *record_type;
    if (!PyArg_ParseTuple(args, "O!O!U:owned_bytes", &PyList_Type, &records, &PyType_Type,
                          &record_type, &value_name))
        return NULL;
    Py_ssize_t output_at = slot_offset(record_type, "output");
    if (output_at < 0) return NULL;
    Py_ssize_t n = PyList_GET_SIZE(records);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *r = PyList_GET_ITEM(records, i);
        if (!PyObject_TypeCheck(r, record_type)) {
            PyErr_Format(PyExc_TypeError, "owned_bytes: item %zd is not a Record", i);
            return NULL;
        }
        PyObject *output = SLOT_GET(r, output_at);
        if (output == NULL) {
            PyErr_SetString(PyExc_AttributeError, "owned_bytes: a Record without output");
            return NULL;
        }
        if (PyTuple_Check(output)) Py_RETURN_NONE;
    }
    PyObject *views = PyList_New(0);
    if (views == NULL) return NULL;
    long long total = 0;
    PyTypeObject *known = NULL; /* the last output type, and its value slot's offset */
    Py_ssize_t value_at = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *output = SLOT_GET(PyList_GET_ITEM(records, i), output_at);
        if (Py_TYPE(output) != known) {
            known = Py_TYPE(output);
            value_at = member_offset(known, value_name);
        }
        PyObject *value = value_at >= 0 ? SLOT_GET(output, value_at) : NULL;
        if (value != NULL) {
            Py_INCREF(value);
        } else {
            value = PyObject_GetAttr(output, value_name);
            if (value == NULL) goto error;
        }
        Py_ssize_t nbytes = owned_nbytes(value);
        Py_DECREF(value);
        if (nbytes == -2) goto error;
        if (nbytes >= 0) {
            total += nbytes;
            continue;
        }
        PyObject *index = PyLong_FromSsize_t(i);
        int failed = index == NULL || PyList_Append(views, index) < 0;
        Py_XDECREF(index);
        if (failed) goto error;
    }
    return Py_BuildValue("(LN)", total, views);
error:
    Py_DECREF(views);
    return NULL;
}

static PyMethodDef module_methods[] = {
    {"op_totals", op_totals, METH_VARARGS,
     "op_totals(records, record_type) -> [(prim, count, seconds or None)]"},
    {"owned_bytes", owned_bytes, METH_VARARGS,
     "owned_bytes(records, record_type, value_name) -> (bytes of the output arrays that own "
     "their memory, indices of the views), or None if an output is a tuple"},
    {"setup_arrays", setup_arrays, METH_VARARGS,
     "setup_arrays(ndarray_type, sample_arrays) -> whether the array layout read holds"},
    {NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_tape", "A gradient tape's record in C (see tape.py).", -1,
    module_methods,
};

PyMODINIT_FUNC PyInit__tape(void) {
    str_dtype = PyUnicode_InternFromString("dtype");
    str_kind = PyUnicode_InternFromString("kind");
    if (str_dtype == NULL || str_kind == NULL) return NULL;
    if (PyType_Ready(&TapeRecorderType) < 0 || PyType_Ready(&RecordType) < 0) return NULL;
    empty_params = PyDict_New();
    if (empty_params == NULL) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    Py_INCREF(&RecordType);
    if (PyModule_AddObject(m, "Record", (PyObject *)&RecordType) < 0) {
        Py_DECREF(&RecordType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&TapeRecorderType);
    if (PyModule_AddObject(m, "TapeRecorder", (PyObject *)&TapeRecorderType) < 0) {
        Py_DECREF(&TapeRecorderType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
