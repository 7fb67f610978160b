/* Fused kernels in C: the C side of eagerkernel/runtime/kernels.py.
 *
 * NumPy runs Adam's update as a dozen array passes with a scratch array in between, and a max
 * pool's gradient, ReLU's and conv2d's col2im as several; each kernel here is one loop that
 * reads each input element once and writes each output element once, with the GIL released
 * (so other threads run meanwhile).
 * The arithmetic is the NumPy kernels', operation for operation and constant for constant
 * (1 - beta is computed in double, as Python does, then rounded to the arrays' precision; a
 * mask multiplies as 0.0 or 1.0, so 0 * inf is still NaN), and setup.py compiles with
 * -ffp-contract=off so that no multiply and add fuse: the results are NumPy's, bit for bit.
 *
 * Floating-point errors are reported, not decided, here: each kernel clears the FPU's sticky
 * flags, runs, and returns the flags raised (overflow, invalid, divide by zero, underflow) as
 * a bit mask; kernels.py then applies NumPy's np.errstate policy to them, as NumPy does after
 * a ufunc loop.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <fenv.h>
#include <math.h>
#include <string.h>

enum { OVERFLOW = 1, INVALID = 2, DIVBYZERO = 4, UNDERFLOW = 8 };

static int taken_flags(void) {
    int raised = fetestexcept(FE_OVERFLOW | FE_INVALID | FE_DIVBYZERO | FE_UNDERFLOW);
    return ((raised & FE_OVERFLOW) ? OVERFLOW : 0) | ((raised & FE_INVALID) ? INVALID : 0) |
           ((raised & FE_DIVBYZERO) ? DIVBYZERO : 0) | ((raised & FE_UNDERFLOW) ? UNDERFLOW : 0);
}

/* Runs FLOAT_CALL or DOUBLE_CALL (by the arrays' format) without the GIL, between clearing
 * and reading the FPU's sticky flags; sets `raised` to the flags the call raised. */
#define RUN_KERNEL(raised, format, FLOAT_CALL, DOUBLE_CALL)                                    \
    do {                                                                                     \
        Py_BEGIN_ALLOW_THREADS                                                               \
        feclearexcept(FE_ALL_EXCEPT);                                                        \
        if ((format) == 'f')                                                                 \
            FLOAT_CALL;                                                                      \
        else                                                                                 \
            DOUBLE_CALL;                                                                     \
        (raised) = taken_flags();                                                            \
        feclearexcept(FE_ALL_EXCEPT);                                                        \
        Py_END_ALLOW_THREADS                                                                 \
    } while (0)

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

/* Gets a C-contiguous buffer of float32 ("f") or float64 ("d") items for argument `name` of
 * `op`: the first array sets *format; every array must have that format, and `items` items
 * (any number when items < 0). Raises TypeError or ValueError naming the argument. */
static int get_array(PyObject *obj, Py_buffer *view, int writable, const char *op,
                     const char *name, char *format, Py_ssize_t items) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) {
        PyErr_Format(PyExc_TypeError,
                     "%s: %s must be a C-contiguous%s float32 or float64 array, got %R", op,
                     name, writable ? ", writable" : "", Py_TYPE(obj));
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    if (f[0] == '<' || f[0] == '=' || f[0] == '@') f++;
    char kind = (strlen(f) == 1 && (f[0] == 'f' || f[0] == 'd')) ? f[0] : 0;
    if (!kind || (*format && kind != *format)) {
        PyErr_Format(PyExc_TypeError, "%s: %s has format '%s'; expected %s", op, name,
                     view->format ? view->format : "B",
                     *format == 'd' ? "float64 ('d')" : *format == 'f' ? "float32 ('f')"
                                                                        : "float32 or float64");
        PyBuffer_Release(view);
        return -1;
    }
    Py_ssize_t n = view->len / view->itemsize;
    if (items >= 0 && n != items) {
        PyErr_Format(PyExc_ValueError, "%s: %s has %zd elements; expected %zd", op, name, n,
                     items);
        PyBuffer_Release(view);
        return -1;
    }
    *format = kind;
    return 0;
}

/* Gets `count` arrays (argument names `names`, the first `readonly` of them read-only) of
 * `items[k]` items each (-1: the first array's count); releases them all on failure. */
static int get_arrays(PyObject **objs, Py_buffer *views, int count, int readonly,
                      const char *op, const char **names, const Py_ssize_t *items,
                      char *format) {
    *format = 0;
    for (int k = 0; k < count; k++) {
        Py_ssize_t want = items[k] >= 0 ? items[k] : (k ? views[0].len / views[0].itemsize : -1);
        if (get_array(objs[k], &views[k], k >= readonly, op, names[k], format, want) < 0) {
            while (k-- > 0) PyBuffer_Release(&views[k]);
            return -1;
        }
    }
    return 0;
}

static void release(Py_buffer *views, int count) {
    for (int k = 0; k < count; k++) PyBuffer_Release(&views[k]);
}

PyDoc_STRVAR(adam_doc,
             "adam(g, var, m, v, beta_1, beta_2, epsilon, lr_t) -> int\n\n"
             "Adam's update of var, m and v in place, one pass (see kernels.adam).\n"
             "Returns the floating-point error flags raised (1 overflow, 2 invalid, 4 divide,\n"
             "8 underflow).");

static PyObject *adam(PyObject *self, PyObject *args) {
    PyObject *objs[4];
    double b1, b2, eps, lr_t;
    if (!PyArg_ParseTuple(args, "OOOOdddd:adam", &objs[0], &objs[1], &objs[2], &objs[3], &b1,
                          &b2, &eps, &lr_t))
        return NULL;
    static const char *names[4] = {"g", "var", "m", "v"};
    static const Py_ssize_t items[4] = {-1, -1, -1, -1};
    Py_buffer views[4];
    char format;
    if (get_arrays(objs, views, 4, 1, "adam", names, items, &format) < 0) return NULL;
    Py_ssize_t n = views[0].len / views[0].itemsize;
    int raised;
    RUN_KERNEL(raised, format,
               adam_float(views[0].buf, views[1].buf, views[2].buf, views[3].buf, n, (float)b1,
                          (float)(1.0 - b1), (float)b2, (float)(1.0 - b2), (float)eps,
                          (float)lr_t),
               adam_double(views[0].buf, views[1].buf, views[2].buf, views[3].buf, n, b1,
                           1.0 - b1, b2, 1.0 - b2, eps, lr_t));
    release(views, 4);
    return PyLong_FromLong(raised);
}

/* ReluGrad (nn.py): out = g * (x > 0), the mask as 0.0 or 1.0.                          */
#define RELU_GRAD_LOOP(T)                                                                     \
    static void relu_grad_##T(const T *restrict g, const T *restrict x, T *restrict out,      \
                              Py_ssize_t n) {                                                  \
        for (Py_ssize_t i = 0; i < n; i++) {                                                 \
            const T mask = x[i] > (T)0 ? (T)1 : (T)0; /* a select: vectorized, no branch */  \
            out[i] = g[i] * mask;                                                            \
        }                                                                                    \
    }

RELU_GRAD_LOOP(float)
RELU_GRAD_LOOP(double)

PyDoc_STRVAR(relu_grad_doc,
             "relu_grad(g, x, out) -> int\n\n"
             "out = g * (x > 0), arrays of one size and dtype (see kernels.relu_grad).\n"
             "Returns the floating-point error flags raised.");

static PyObject *relu_grad(PyObject *self, PyObject *args) {
    PyObject *objs[3];
    if (!PyArg_ParseTuple(args, "OOO:relu_grad", &objs[0], &objs[1], &objs[2])) return NULL;
    static const char *names[3] = {"g", "x", "out"};
    static const Py_ssize_t items[3] = {-1, -1, -1};
    Py_buffer views[3];
    char format;
    if (get_arrays(objs, views, 3, 2, "relu_grad", names, items, &format) < 0) return NULL;
    Py_ssize_t n = views[0].len / views[0].itemsize;
    int raised;
    RUN_KERNEL(raised, format, relu_grad_float(views[0].buf, views[1].buf, views[2].buf, n),
               relu_grad_double(views[0].buf, views[1].buf, views[2].buf, n));
    release(views, 3);
    return PyLong_FromLong(raised);
}

/* MaxPoolGrad of a pool whose windows tile the input (stride = window, no padding; conv.py):
 * x and out are (N, H, W, C), ans and g (N, H / KH, W / KW, C). Each window's cotangent goes
 * to its first maximum in row-major order (an element equal to the pooled value that no
 * earlier element of the window matched): out = hit * g, hit 0.0 or 1.0. `taken` is C items
 * of scratch (1.0 once a channel's maximum was found in the window).                        */
#define MAX_POOL_GRAD_LOOP(T)                                                                 \
    static void max_pool_grad_##T(const T *restrict x, const T *restrict ans,                 \
                                  const T *restrict g, T *restrict out, Py_ssize_t n,         \
                                  Py_ssize_t h, Py_ssize_t w, Py_ssize_t c, Py_ssize_t kh,    \
                                  Py_ssize_t kw, T *restrict taken) {                         \
        const Py_ssize_t oh = h / kh, ow = w / kw;                                           \
        for (Py_ssize_t b = 0; b < n; b++)                                                   \
            for (Py_ssize_t i = 0; i < oh; i++)                                              \
                for (Py_ssize_t j = 0; j < ow; j++) {                                        \
                    const T *a = ans + ((b * oh + i) * ow + j) * c;                          \
                    const T *gg = g + ((b * oh + i) * ow + j) * c;                           \
                    for (Py_ssize_t k = 0; k < c; k++) taken[k] = (T)0;                      \
                    for (Py_ssize_t ki = 0; ki < kh; ki++)                                   \
                        for (Py_ssize_t kj = 0; kj < kw; kj++) {                             \
                            const Py_ssize_t p = ((b * h + i * kh + ki) * w + j * kw + kj) * c; \
                            const T *xx = x + p;                                             \
                            T *oo = out + p;                                                 \
                            for (Py_ssize_t k = 0; k < c; k++) {                             \
                                const T hit =                                                \
                                    ((taken[k] == (T)0) & (xx[k] == a[k])) ? (T)1 : (T)0;    \
                                taken[k] += hit;                                             \
                                oo[k] = hit * gg[k];                                         \
                            }                                                                \
                        }                                                                    \
                }                                                                            \
    }

MAX_POOL_GRAD_LOOP(float)
MAX_POOL_GRAD_LOOP(double)

PyDoc_STRVAR(max_pool_grad_doc,
             "max_pool_grad(x, ans, g, out, n, h, w, c, kh, kw) -> int\n\n"
             "The gradient of a tiling max pool into out (see kernels.max_pool_grad).\n"
             "Returns the floating-point error flags raised.");

static PyObject *max_pool_grad(PyObject *self, PyObject *args) {
    PyObject *objs[4];
    Py_ssize_t n, h, w, c, kh, kw;
    if (!PyArg_ParseTuple(args, "OOOOnnnnnn:max_pool_grad", &objs[0], &objs[1], &objs[2],
                          &objs[3], &n, &h, &w, &c, &kh, &kw))
        return NULL;
    if (n < 0 || c < 0 || kh < 1 || kw < 1 || h < 0 || w < 0 || h % kh || w % kw) {
        PyErr_Format(PyExc_ValueError,
                     "max_pool_grad: a %zdx%zd window does not tile a %zdx%zd input", kh, kw, h,
                     w);
        return NULL;
    }
    static const char *names[4] = {"x", "ans", "g", "out"};
    const Py_ssize_t big = n * h * w * c, small = n * (h / kh) * (w / kw) * c;
    const Py_ssize_t items[4] = {big, small, small, big};
    Py_buffer views[4];
    char format;
    if (get_arrays(objs, views, 4, 3, "max_pool_grad", names, items, &format) < 0) return NULL;
    void *taken = PyMem_Malloc((size_t)(c ? c : 1) * (format == 'f' ? sizeof(float) : sizeof(double)));
    if (taken == NULL) {
        release(views, 4);
        return PyErr_NoMemory();
    }
    int raised;
    RUN_KERNEL(raised, format,
               max_pool_grad_float(views[0].buf, views[1].buf, views[2].buf, views[3].buf, n, h,
                                   w, c, kh, kw, taken),
               max_pool_grad_double(views[0].buf, views[1].buf, views[2].buf, views[3].buf, n,
                                    h, w, c, kh, kw, taken));
    PyMem_Free(taken);
    release(views, 4);
    return PyLong_FromLong(raised);
}

/* col2im (conv.py), the adjoint of the im2col window view: cols is (KH, KW, N, OH, OW, C),
 * out the padded input (N, HP, WP, C), written whole: zero, then each kernel position's
 * columns added in row-major order of the positions (NumPy's order, so the sums round
 * alike), reading cols in memory order (faster than sample by sample, measured).          */
#define COL2IM_LOOP(T)                                                                        \
    static void col2im_##T(const T *restrict cols, T *restrict out, Py_ssize_t kh,            \
                           Py_ssize_t kw, Py_ssize_t n, Py_ssize_t oh, Py_ssize_t ow,         \
                           Py_ssize_t c, Py_ssize_t hp, Py_ssize_t wp, Py_ssize_t sh,         \
                           Py_ssize_t sw, Py_ssize_t dh, Py_ssize_t dw) {                     \
        for (Py_ssize_t k = 0; k < n * hp * wp * c; k++) out[k] = (T)0;                      \
        for (Py_ssize_t ki = 0; ki < kh; ki++)                                               \
            for (Py_ssize_t kj = 0; kj < kw; kj++)                                           \
                for (Py_ssize_t b = 0; b < n; b++)                                           \
                    for (Py_ssize_t i = 0; i < oh; i++) {                                    \
                        const T *src = cols + (((ki * kw + kj) * n + b) * oh + i) * ow * c;  \
                        T *row = out + (((b * hp) + i * sh + ki * dh) * wp + kj * dw) * c;   \
                        for (Py_ssize_t j = 0; j < ow; j++) {                                \
                            T *dst = row + j * sw * c;                                       \
                            const T *s = src + j * c;                                        \
                            for (Py_ssize_t k = 0; k < c; k++) dst[k] += s[k];               \
                        }                                                                    \
                    }                                                                        \
    }

COL2IM_LOOP(float)
COL2IM_LOOP(double)

PyDoc_STRVAR(col2im_doc,
             "col2im(cols, out, kh, kw, n, oh, ow, c, hp, wp, sh, sw, dh, dw) -> int\n\n"
             "Sums the window columns back into the padded input out (see kernels.col2im).\n"
             "Returns the floating-point error flags raised.");

static PyObject *col2im(PyObject *self, PyObject *args) {
    PyObject *objs[2];
    Py_ssize_t kh, kw, n, oh, ow, c, hp, wp, sh, sw, dh, dw;
    if (!PyArg_ParseTuple(args, "OOnnnnnnnnnnnn:col2im", &objs[0], &objs[1], &kh, &kw, &n, &oh,
                          &ow, &c, &hp, &wp, &sh, &sw, &dh, &dw))
        return NULL;
    if (kh < 1 || kw < 1 || n < 0 || oh < 0 || ow < 0 || c < 0 || sh < 1 || sw < 1 || dh < 1 ||
        dw < 1 || (oh && (oh - 1) * sh + (kh - 1) * dh >= hp) ||
        (ow && (ow - 1) * sw + (kw - 1) * dw >= wp)) {
        PyErr_SetString(PyExc_ValueError, "col2im: the windows do not fit in the output");
        return NULL;
    }
    static const char *names[2] = {"cols", "out"};
    const Py_ssize_t items[2] = {kh * kw * n * oh * ow * c, n * hp * wp * c};
    Py_buffer views[2];
    char format;
    if (get_arrays(objs, views, 2, 1, "col2im", names, items, &format) < 0) return NULL;
    int raised;
    RUN_KERNEL(raised, format,
               col2im_float(views[0].buf, views[1].buf, kh, kw, n, oh, ow, c, hp, wp, sh, sw, dh,
                            dw),
               col2im_double(views[0].buf, views[1].buf, kh, kw, n, oh, ow, c, hp, wp, sh, sw,
                             dh, dw));
    release(views, 2);
    return PyLong_FromLong(raised);
}

/* Elementwise activation kernels (ops/elementwise.py, ops/activations.py). Transcendental
 * functions stay NumPy's (its SIMD exp, tanh, log1p, run in place between two of these
 * passes), so each result is the NumPy formula's, bit for bit; what these loops save is the
 * temporaries and passes of the arithmetic around them. Each takes n items of float32 or
 * float64 arrays, the output possibly one of the inputs (every loop reads element i before it
 * writes element i).                                                                        */
#define EW_LOOP1(NAME, T, EXPR)                                                               \
    static void NAME##_##T(const T *a, T *out, Py_ssize_t n) {                               \
        for (Py_ssize_t i = 0; i < n; i++) {                                                 \
            const T x = a[i];                                                                \
            out[i] = (EXPR);                                                                 \
        }                                                                                    \
    }
#define EW_LOOP2(NAME, T, EXPR)                                                               \
    static void NAME##_##T(const T *a, const T *b, T *out, Py_ssize_t n) {                   \
        for (Py_ssize_t i = 0; i < n; i++) {                                                 \
            const T x = a[i], y = b[i];                                                      \
            out[i] = (EXPR);                                                                 \
        }                                                                                    \
    }

/* neg_abs: -|x|, the argument of exp in the stable sigmoid and softplus. */
EW_LOOP1(neg_abs, float, -fabsf(x))
EW_LOOP1(neg_abs, double, -fabs(x))
/* sigmoid_finish(x, e = exp(-|x|)): x >= 0 ? 1 / (1 + e) : e / (1 + e) (NaN x: e / (1 + e)),
 * as one division of a selected numerator (a select, not a branch: it vectorizes).       */
EW_LOOP2(sigmoid_finish, float, (x >= 0.0f ? 1.0f : y) / (1.0f + y))
EW_LOOP2(sigmoid_finish, double, (x >= 0.0 ? 1.0 : y) / (1.0 + y))
/* softplus_finish(x, l = log1p(exp(-|x|))): l + maximum(x, 0), NaN-propagating as NumPy's. */
EW_LOOP2(softplus_finish, float, y + ((x >= 0.0f || x != x) ? x : 0.0f))
EW_LOOP2(softplus_finish, double, y + ((x >= 0.0 || x != x) ? x : 0.0))
/* SigmoidGrad(g, y) = g * y * (1 - y);  TanhGrad(g, y) = g * (1 - y * y), NumPy's order.  */
EW_LOOP2(sigmoid_grad, float, (x * y) * (1.0f - y))
EW_LOOP2(sigmoid_grad, double, (x * y) * (1.0 - y))
EW_LOOP2(tanh_grad, float, x * (1.0f - y * y))
EW_LOOP2(tanh_grad, double, x * (1.0 - y * y))


/* erf of a float32 argument, evaluated in double and rounded once to float32, as SciPy's
 * float32 erf is (its double erf, rounded). erf(x) = x * p(s), s = min(x * x, 16) / 8 - 1,
 * where p is the degree-18 polynomial interpolating erf(sqrt(u)) / sqrt(u) at the Chebyshev
 * points of u in [0, 16] (numpy.polynomial.chebyshev.chebinterpolate with SciPy's double
 * erf, converted to powers of s): relative error below 4e-10, far under float32's half ulp
 * (3e-8), so the result is the correctly rounded erf or its neighbour, at most 1 ulp from
 * SciPy's (tests/test_fused_elementwise.py counts how often). Beyond |x| = 4 erf rounds to
 * +-1 in float32: the clamped u and the cap at 1 give exactly that; NaN stays NaN, -0 stays
 * -0. Estrin's scheme (a shallow tree instead of Horner's chain) and the absence of branches
 * let the loop vectorize and overlap; GCC builds an AVX2 clone beside the baseline one. No
 * operation here can overflow or divide by zero, and the comparisons' flags on NaN are not
 * NumPy's business: the callers ignore the flags.                                          */
static const double ERF_POLY[20] = {
    0.3535309956434049,
    -0.1765762358003929,
    0.13167511777583008,
    -0.10771029288637649,
    0.0902089413427898,
    -0.07473048679757296,
    0.059887829583056336,
    -0.04574431267171725,
    0.03305329169588628,
    -0.02256255830424042,
    0.014381038744725426,
    -0.008384044254958969,
    0.004774946220279435,
    -0.0029097129787577338,
    0.0014101528933356117,
    -0.0003255196142593992,
    0.0001732295034487736,
    -0.000246422017593623,
    9.403816578637098e-05,
    0.0,
};

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define ERF_LOOP_ATTR __attribute__((target_clones("avx2", "default")))
#else
#define ERF_LOOP_ATTR
#endif

static inline double erf_poly(double x) {
    const double *m = ERF_POLY;
    double u = x * x;
    u = u < 16.0 ? u : 16.0; /* NaN passes through */
    const double s = u * 0.125 - 1.0, s2 = s * s, s4 = s2 * s2, s8 = s4 * s4, s16 = s8 * s8;
    const double q0 = m[0] + m[1] * s, q1 = m[2] + m[3] * s, q2 = m[4] + m[5] * s,
                 q3 = m[6] + m[7] * s, q4 = m[8] + m[9] * s, q5 = m[10] + m[11] * s,
                 q6 = m[12] + m[13] * s, q7 = m[14] + m[15] * s, q8 = m[16] + m[17] * s;
    const double r0 = q0 + q1 * s2, r1 = q2 + q3 * s2, r2 = q4 + q5 * s2, r3 = q6 + q7 * s2,
                 r4 = q8 + m[18] * s2;
    const double p = ((r0 + r1 * s4) + (r2 + r3 * s4) * s8) + r4 * s16;
    double e = x * p;
    e = e > 1.0 ? 1.0 : e;
    return e < -1.0 ? -1.0 : e;
}

ERF_LOOP_ATTR static void erf32_float(const float *restrict a, float *restrict out,
                                      Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) out[i] = (float)erf_poly((double)a[i]);
}

/* The exact GELU, 0.5 * x * (1 + erf(x * sqrt(1/2))), in NumPy's float32 order
 * ((0.5 * x) * (1 + e), the constant rounded to float32 first, as NumPy does). */
ERF_LOOP_ATTR static void gelu32_float(const float *restrict a, float *restrict out,
                                       Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        const float x = a[i];
        const float e = (float)erf_poly((double)(x * 0.70710678118654752f));
        out[i] = (0.5f * x) * (1.0f + e);
    }
}

PyDoc_STRVAR(elementwise_doc,
             "elementwise(kind, a, b, out) -> int\n\n"
             "One elementwise pass (see kernels.py): kind 0 neg_abs(a) (b ignored), 1\n"
             "sigmoid_finish(a, b), 2 softplus_finish(a, b), 3 sigmoid_grad(a, b), 4\n"
             "tanh_grad(a, b), 5 erf(a) (float32 only), 6 gelu(a) (float32 only).\n"
             "Returns the floating-point error flags raised.");

static PyObject *elementwise(PyObject *self, PyObject *args) {
    int kind;
    PyObject *objs[3];
    if (!PyArg_ParseTuple(args, "iOOO:elementwise", &kind, &objs[0], &objs[1], &objs[2]))
        return NULL;
    if (kind < 0 || kind > 6) {
        PyErr_Format(PyExc_ValueError, "elementwise: unknown kind %d", kind);
        return NULL;
    }
    static const char *names[3] = {"a", "b", "out"};
    static const Py_ssize_t items[3] = {-1, -1, -1};
    Py_buffer views[3];
    char format;
    if (get_arrays(objs, views, 3, 2, "elementwise", names, items, &format) < 0) return NULL;
    Py_ssize_t n = views[0].len / views[0].itemsize;
    void *a = views[0].buf, *b = views[1].buf, *out = views[2].buf;
    int raised;
    switch (kind) {
        case 0:
            RUN_KERNEL(raised, format, neg_abs_float(a, out, n), neg_abs_double(a, out, n));
            break;
        case 1:
            RUN_KERNEL(raised, format, sigmoid_finish_float(a, b, out, n),
                       sigmoid_finish_double(a, b, out, n));
            break;
        case 2:
            RUN_KERNEL(raised, format, softplus_finish_float(a, b, out, n),
                       softplus_finish_double(a, b, out, n));
            break;
        case 3:
            RUN_KERNEL(raised, format, sigmoid_grad_float(a, b, out, n),
                       sigmoid_grad_double(a, b, out, n));
            break;
        case 4:
            RUN_KERNEL(raised, format, tanh_grad_float(a, b, out, n),
                       tanh_grad_double(a, b, out, n));
            break;
        default:
            if (format != 'f') {
                release(views, 3);
                PyErr_SetString(PyExc_TypeError, "elementwise: erf and gelu take float32 only");
                return NULL;
            }
            if (kind == 5)
                RUN_KERNEL(raised, format, erf32_float(a, out, n), (void)0);
            else
                RUN_KERNEL(raised, format, gelu32_float(a, out, n), (void)0);
    }
    release(views, 3);
    return PyLong_FromLong(raised);
}

static PyMethodDef methods[] = {
    {"adam", adam, METH_VARARGS, adam_doc},
    {"relu_grad", relu_grad, METH_VARARGS, relu_grad_doc},
    {"max_pool_grad", max_pool_grad, METH_VARARGS, max_pool_grad_doc},
    {"col2im", col2im, METH_VARARGS, col2im_doc},
    {"elementwise", elementwise, METH_VARARGS, elementwise_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Fused kernels in C (see eagerkernel/runtime/kernels.py).", -1, methods,
};

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    if (PyModule_AddIntConstant(m, "OVERFLOW", OVERFLOW) < 0 ||
        PyModule_AddIntConstant(m, "INVALID", INVALID) < 0 ||
        PyModule_AddIntConstant(m, "DIVBYZERO", DIVBYZERO) < 0 ||
        PyModule_AddIntConstant(m, "UNDERFLOW", UNDERFLOW) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
