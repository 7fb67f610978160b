/* Fused elementwise kernels for the optimizers (the C side of eagerkernel/runtime/kernels.py).
 *
 * NumPy runs Adam's update as a dozen array passes with a scratch array in between; this is
 * one loop that reads each element of g, var, m and v once and writes var, m and v once, with
 * the GIL released (so the optimizer's worker threads can run their parts at the same time).
 * The arithmetic is NumPy's, operation for operation and constant for constant (1 - beta is
 * computed in double, as Python does, then rounded to the arrays' precision), and setup.py
 * compiles with -ffp-contract=off so that no multiply and add fuse: the results are the NumPy
 * kernel's, bit for bit.
 *
 * Floating-point errors are reported, not decided, here: each kernel clears the FPU's sticky
 * flags, runs, and returns the flags raised (FE_OVERFLOW, FE_INVALID, FE_DIVBYZERO) as a bit
 * mask; kernels.py then applies NumPy's np.errstate policy (ignore, warn, raise) to them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <fenv.h>
#include <math.h>
#include <string.h>

enum { OVERFLOW = 1, INVALID = 2, DIVBYZERO = 4 };

static int taken_flags(void) {
    int raised = fetestexcept(FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO);
    return ((raised & FE_OVERFLOW) ? OVERFLOW : 0) | ((raised & FE_INVALID) ? INVALID : 0) |
           ((raised & FE_DIVBYZERO) ? DIVBYZERO : 0);
}

/* Adam (Keras's formula, the NumPy kernel of keras/optimizers/adam.py, amsgrad off):
 *   m = m * b1 + g * c1;  v = v * b2 + (g * g) * c2     (c1 = 1 - b1, c2 = 1 - b2)
 *   var -= (m / (sqrt(v) + epsilon)) * lr_t                                               */
#define ADAM_LOOP(T, SQRT)                                                                    \
    static void adam_##T(const T *restrict g, T *restrict var, T *restrict m, T *restrict v, \
                         Py_ssize_t n, T b1, T c1, T b2, T c2, T eps, T lr_t) {              \
        for (Py_ssize_t i = 0; i < n; i++) {                                                 \
            const T gi = g[i];                                                               \
            const T mi = m[i] * b1 + gi * c1;                                                \
            const T vi = v[i] * b2 + (gi * gi) * c2;                                         \
            m[i] = mi;                                                                       \
            v[i] = vi;                                                                       \
            var[i] -= (mi / (SQRT(vi) + eps)) * lr_t;                                        \
        }                                                                                    \
    }

ADAM_LOOP(float, sqrtf)
ADAM_LOOP(double, sqrt)

/* Gets a C-contiguous buffer of n items of format "f" or "d" (the first buffer sets the
 * format and n); raises TypeError or ValueError naming the argument otherwise. */
static int get_array(PyObject *obj, Py_buffer *view, int writable, const char *name,
                     char *format, Py_ssize_t *n) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "adam: %s must be a C-contiguous%s float32 or float64 array, got %R", name,
                     writable ? ", writable" : "", Py_TYPE(obj));
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    char kind = (strlen(f) == 1 && (f[0] == 'f' || f[0] == 'd')) ? f[0] : 0;
    if (!kind || (*format && kind != *format)) {
        PyErr_Format(PyExc_TypeError, "adam: %s has format '%s'; expected %s", name,
                     view->format ? view->format : "B",
                     *format == 'd' ? "float64 ('d')" : *format == 'f' ? "float32 ('f')"
                                                                        : "float32 or float64");
        PyBuffer_Release(view);
        return -1;
    }
    Py_ssize_t items = view->len / view->itemsize;
    if (*format && items != *n) {
        PyErr_Format(PyExc_ValueError, "adam: %s has %zd elements; g has %zd", name, items, *n);
        PyBuffer_Release(view);
        return -1;
    }
    *format = kind;
    *n = items;
    return 0;
}

PyDoc_STRVAR(adam_doc,
             "adam(g, var, m, v, beta_1, beta_2, epsilon, lr_t) -> int\n\n"
             "Adam's update of var, m and v in place, one pass (see kernels.adam).\n"
             "Returns the floating-point error flags raised (1 overflow, 2 invalid, 4 divide).");

static PyObject *adam(PyObject *self, PyObject *args) {
    PyObject *objs[4];
    double b1, b2, eps, lr_t;
    if (!PyArg_ParseTuple(args, "OOOOdddd:adam", &objs[0], &objs[1], &objs[2], &objs[3], &b1,
                          &b2, &eps, &lr_t))
        return NULL;
    static const char *names[4] = {"g", "var", "m", "v"};
    Py_buffer views[4];
    char format = 0;
    Py_ssize_t n = 0;
    for (int k = 0; k < 4; k++) {
        if (get_array(objs[k], &views[k], k > 0, names[k], &format, &n) < 0) {
            while (k-- > 0) PyBuffer_Release(&views[k]);
            return NULL;
        }
    }
    int raised;
    Py_BEGIN_ALLOW_THREADS
    feclearexcept(FE_ALL_EXCEPT);
    if (format == 'f')
        adam_float(views[0].buf, views[1].buf, views[2].buf, views[3].buf, n, (float)b1,
                   (float)(1.0 - b1), (float)b2, (float)(1.0 - b2), (float)eps, (float)lr_t);
    else
        adam_double(views[0].buf, views[1].buf, views[2].buf, views[3].buf, n, b1, 1.0 - b1, b2,
                    1.0 - b2, eps, lr_t);
    raised = taken_flags();
    feclearexcept(FE_ALL_EXCEPT);
    Py_END_ALLOW_THREADS
    for (int k = 0; k < 4; k++) PyBuffer_Release(&views[k]);
    return PyLong_FromLong(raised);
}

static PyMethodDef methods[] = {
    {"adam", adam, METH_VARARGS, adam_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Fused optimizer kernels in C (see eagerkernel/runtime/kernels.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "OVERFLOW", OVERFLOW) < 0 ||
        PyModule_AddIntConstant(m, "INVALID", INVALID) < 0 ||
        PyModule_AddIntConstant(m, "DIVBYZERO", DIVBYZERO) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
