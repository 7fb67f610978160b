/* Fused kernels in C: the C side of eagerkernel/runtime/native/kernels.py.
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

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/ndarraytypes.h>
#include <numpy/ufuncobject.h>

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h> /* streaming stores of big outputs (ew_stream) */
#endif

/* The kernel threads need POSIX threads and C11 atomics; elsewhere (MSVC) every program runs
 * on the calling thread. */
#if !defined(_WIN32) && !defined(__STDC_NO_ATOMICS__)
#define EW_THREADS 1
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#endif

/* numpy.ufunc, for program()'s type check (the module imports NumPy to find it). */
static PyObject *ufunc_type;

enum { OVERFLOW = 1, INVALID = 2, DIVBYZERO = 4, UNDERFLOW = 8 };

/* The elementwise loops are built for AVX-512 and AVX2 beside the baseline, the best picked
 * at load time (GCC's function multiversioning). Each lane does the scalar code's operations
 * (no contraction: -ffp-contract=off), so every clone gives the same bits. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SIMD_CLONES
#endif

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
    SIMD_CLONES static void relu_grad_##T(const T *restrict g, const T *restrict x, T *restrict out,      \
                              Py_ssize_t n) {                                                  \
        for (Py_ssize_t i = 0; i < n; i++) {                                                 \
            const T mask = x[i] > (T)0 ? (T)1 : (T)0; /* a select: vectorized, no branch */  \
            out[i] = g[i] * mask;                                                            \
        }                                                                                    \
    }

RELU_GRAD_LOOP(float)
RELU_GRAD_LOOP(double)

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

/* col2im (conv.py), the adjoint of the im2col window view: cols is (N, OH, OW, KH, KW, C),
 * im2col's own layout (one GEMM of the cotangent with the filters writes it), out the padded
 * input (N, HP, WP, C), written whole. Image by image (its output and its columns stay in
 * cache): zero, then each kernel position's columns added in row-major order of the
 * positions, NumPy's order, so the sums round alike.                                        */
#define COL2IM_LOOP(T)                                                                        \
    static void col2im_##T(const T *restrict cols, T *restrict out, Py_ssize_t kh,            \
                           Py_ssize_t kw, Py_ssize_t n, Py_ssize_t oh, Py_ssize_t ow,         \
                           Py_ssize_t c, Py_ssize_t hp, Py_ssize_t wp, Py_ssize_t sh,         \
                           Py_ssize_t sw, Py_ssize_t dh, Py_ssize_t dw) {                     \
        const Py_ssize_t pixel = kh * kw * c; /* one output pixel's columns */                \
        for (Py_ssize_t b = 0; b < n; b++) {                                                 \
            T *image = out + b * hp * wp * c;                                                \
            const T *bcols = cols + b * oh * ow * pixel;                                     \
            for (Py_ssize_t k = 0; k < hp * wp * c; k++) image[k] = (T)0;                    \
            for (Py_ssize_t ki = 0; ki < kh; ki++)                                           \
                for (Py_ssize_t kj = 0; kj < kw; kj++)                                       \
                    for (Py_ssize_t i = 0; i < oh; i++) {                                    \
                        const T *src = bcols + i * ow * pixel + (ki * kw + kj) * c;          \
                        T *row = image + ((i * sh + ki * dh) * wp + kj * dw) * c;            \
                        for (Py_ssize_t j = 0; j < ow; j++) {                                \
                            T *dst = row + j * sw * c;                                       \
                            const T *s = src + j * pixel;                                    \
                            for (Py_ssize_t k = 0; k < c; k++) dst[k] += s[k];               \
                        }                                                                    \
                    }                                                                        \
        }                                                                                    \
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
    const Py_ssize_t items[2] = {n * oh * ow * kh * kw * c, n * hp * wp * c};
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

/* Elementwise passes of the activation kernels (ops/elementwise.py, ops/activations.py), the
 * C steps of the programs below. Transcendental functions stay NumPy's (its SIMD tanh and
 * log1p loops, run as steps of the same program; its float32 exp algorithm reproduced in C
 * below), so each result is the NumPy formula's, bit for bit; these passes are the
 * arithmetic around them. Each takes n items of float32 or
 * float64 arrays, the output possibly one of the inputs (every loop reads element i before it
 * writes element i).                                                                        */
#define EW_LOOP1(NAME, T, EXPR)                                                               \
    SIMD_CLONES static void NAME##_##T(const T *a, T *out, Py_ssize_t n) {                               \
        for (Py_ssize_t i = 0; i < n; i++) {                                                 \
            const T x = a[i];                                                                \
            out[i] = (EXPR);                                                                 \
        }                                                                                    \
    }
#define EW_LOOP2(NAME, T, EXPR)                                                               \
    SIMD_CLONES static void NAME##_##T(const T *a, const T *b, T *out, Py_ssize_t n) {                   \
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

/* relu: maximum(x, 0) as NumPy's np.maximum computes it: x if x > 0 or x is NaN (its bits
 * kept), else +0 (so -0 gives +0, as NumPy's loop does). NumPy's loop with a scalar operand
 * is not vectorized; this select is. */
EW_LOOP1(relu, float, (x > 0.0f || x != x) ? x : 0.0f)
EW_LOOP1(relu, double, (x > 0.0 || x != x) ? x : 0.0)

/* exp of float32, the algorithm of NumPy's own SIMD float32 exp (its AVX2-FMA3 and AVX-512F
 * loops, the ones np.exp runs on CPUs with FMA), so that the fused sigmoid and softplus give
 * NumPy's bits without calling NumPy's exp loop for each block:
 *   NaN -> NaN (the default quiet NaN), x >= XMAX -> inf, x <= XMIN -> 0, else
 *   k = round(x * log2(e)) (by adding and subtracting 1.5 * 2^23), r = x - k ln 2 in two
 *   fused multiply-adds (ln 2 split in a high and a low part), e = P(r) / Q(r) (degrees 5
 *   and 2, Horner with fused multiply-adds), and e * 2^k, rounded once (two exact-or-once
 *   rounded products by powers of two: the first stays in the normal range).
 * The constants are NumPy's (npy_math's NPY_COEFF_*_EXPf). fmaf is one rounding in every
 * clone (an instruction with FMA, libm's exact fmaf without), so every clone gives the same
 * bits; kernels.py uses this pass only after checking it against np.exp at first use
 * (_exp32_matches), as np.exp is a different loop on CPUs without FMA. Flags: overflow for
 * finite x >= XMAX and underflow for finite x <= XMIN are raised as NumPy's loop raises
 * them; subnormal results raise underflow from the multiply, as NumPy's scaling does.     */
/* XMAX = 88.72283935546875 (0x42b17218), XMIN = -103.97208404541015625 (0xc2cff1b5) */

static inline __attribute__((always_inline)) float f32_from_bits(uint32_t b) {
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static inline __attribute__((always_inline)) uint32_t f32_bits(float f) {
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* The cases of exp32, decided on the bit pattern (integer comparisons raise no flag): NaN;
 * x >= XMAX (+inf included); x <= XMIN (-inf included). */
#define EXP32_NAN(b) (((b) & 0x7fffffffu) > 0x7f800000u)
#define EXP32_HI(b) ((b) >= 0x42b17218u && (b) <= 0x7f800000u) /* [XMAX, +inf] */
#define EXP32_LO(b) ((b) >= 0xc2cff1b5u && (b) <= 0xff800000u) /* [-inf, XMIN] */

/* The argument the polynomial part sees: x, or +0 for NaN and the saturated cases (NumPy's
 * loop computes exp(+0) there and overwrites it). Written to a tile by a loop of its own:
 * under -fno-trapping-math GCC may compute a float operation on both sides of a select, so
 * a select inside the computing loop would let NaN, inf and huge values reach the
 * polynomial and raise flags NumPy's loop does not (invalid, overflow, underflow); the
 * computing loop reads only clean arguments. */
static inline __attribute__((always_inline)) float exp32_arg(float x) {
    const uint32_t b = f32_bits(x);
    return (EXP32_NAN(b) | EXP32_HI(b) | EXP32_LO(b)) ? 0.0f : x;
}

/* exp of a clean argument (exp32_arg), NumPy's operations, then its result for the cases
 * (decided on the original x; nonpos: the caller knows x <= 0 or NaN, as -|x| is). */
static inline __attribute__((always_inline)) float exp32_core(float t, float xin,
                                                              const int nonpos) {
    float k = t * 1.442695040888963407359924681001892137f;
    k = (k + 0x1.800000p+23f) - 0x1.800000p+23f; /* round to nearest, ties to even */
    float r = fmaf(k, -6.93145752e-1f, t);
    r = fmaf(k, -1.42860677e-6f, r);
    float p = fmaf(5.082762527590693718096e-04f, r, 6.757896990527504603057e-03f);
    p = fmaf(p, r, 5.114512081637298353406e-02f);
    p = fmaf(p, r, 2.473615434895520810817e-01f);
    p = fmaf(p, r, 7.257664613233124478488e-01f);
    p = fmaf(p, r, 9.999999999980870924916e-01f);
    float q = fmaf(2.159509375685829852307e-02f, r, -2.742335390411667452936e-01f);
    q = fmaf(q, r, 1.0f);
    const int32_t ki = (int32_t)k, k1 = ki >> 1, k2 = ki - k1; /* k1, k2 in [-75, 64] */
    float e = (p / q) * f32_from_bits((uint32_t)(k1 + 127) << 23);
    e = e * f32_from_bits((uint32_t)(k2 + 127) << 23);
    const uint32_t b = f32_bits(xin);
    e = (!nonpos && EXP32_HI(b)) ? INFINITY : e;
    e = EXP32_LO(b) ? 0.0f : e;
    return EXP32_NAN(b) ? f32_from_bits(0x7fc00000u) : e;
}

/* exp32's overflow (finite x >= XMAX) and underflow (finite x <= XMIN) cases, OR-ed into
 * `over` and `under`, as NumPy's loop reports them. */
#define EXP32_CASES(x, over, under)                                                           \
    do {                                                                                     \
        const uint32_t b_ = f32_bits(x);                                                     \
        over |= EXP32_HI(b_) & (b_ != 0x7f800000u);                                          \
        under |= EXP32_LO(b_) & (b_ != 0xff800000u);                                         \
    } while (0)

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define FMA_CLONES __attribute__((target_clones("avx512f", "arch=haswell", "default")))
#else
#define FMA_CLONES
#endif

static void exp32_flags(int over, int under) {
    if (over) feraiseexcept(FE_OVERFLOW);
    if (under) feraiseexcept(FE_UNDERFLOW);
}

/* The exp32 passes work through tiles of EXP32_TILE elements: the cases and their flags, the
 * clean arguments, then the results, each a loop of its own (each vectorizes). ARG is the
 * exp argument for element i, BODY stores out[i] from e = exp(ARG) (x: ARG itself). None of
 * them writes an element before all loops have read it, so out may be an input. */
#define EXP32_TILE 1024 /* a program block (EW_BLOCK) in one tile */
#define EXP32_PASS(ARG, NONPOS, BODY)                                                         \
    int over = 0, under = 0;                                                                 \
    float t[EXP32_TILE];                                                                     \
    for (Py_ssize_t i0 = 0; i0 < n; i0 += EXP32_TILE) {                                      \
        const Py_ssize_t i1 = n - i0 < EXP32_TILE ? n : i0 + EXP32_TILE;                     \
        for (Py_ssize_t i = i0; i < i1; i++) EXP32_CASES(ARG, over, under);                  \
        for (Py_ssize_t i = i0; i < i1; i++) t[i - i0] = exp32_arg(ARG);                     \
        for (Py_ssize_t i = i0; i < i1; i++) {                                               \
            const float e = exp32_core(t[i - i0], ARG, NONPOS);                              \
            BODY;                                                                            \
        }                                                                                    \
    }                                                                                        \
    exp32_flags(over, under)

FMA_CLONES static void exp32_float(const float *a, float *out, Py_ssize_t n) {
    EXP32_PASS(a[i], 0, out[i] = e);
}

/* exp32(-|x|), the stable sigmoid's and softplus's e, in one pass */
FMA_CLONES static void exp32_negabs_float(const float *a, float *out, Py_ssize_t n) {
    EXP32_PASS(-fabsf(a[i]), 1, out[i] = e);
}

/* The float32 sigmoid: e = exp32(-|x|), (x >= 0 ? 1 : e) / (1 + e), the operations of the
 * program's neg_abs, exp and sigmoid_finish steps. Its IEEE flags are ignored (kernels.py),
 * so exp32 runs without its cases, as exp32_negabs_v16 does with intrinsics: t = -|x| raised
 * to -150 at least (the arithmetic gives exp32's +0 at and below XMIN), a NaN flowing through
 * (t < -150 is false for it), k's integer read from the bits of t * log2(e) + 1.5 * 2^23 (no
 * float-to-int conversion of a NaN). The same bits for every float32 (NaN payloads aside),
 * checked on all 2^32 by benchmarks/exhaustive_float32.py --portable. */
FMA_CLONES static void sigmoid32_float(const float *a, float *out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        const float x = a[i];
        float t = -fabsf(x);
        t = t < -150.0f ? -150.0f : t;
        const float km = t * 1.442695040888963407359924681001892137f + 0x1.800000p+23f;
        const float k = km - 0x1.800000p+23f; /* round to nearest, ties to even */
        float r = fmaf(k, -6.93145752e-1f, t);
        r = fmaf(k, -1.42860677e-6f, r);
        float p = fmaf(5.082762527590693718096e-04f, r, 6.757896990527504603057e-03f);
        p = fmaf(p, r, 5.114512081637298353406e-02f);
        p = fmaf(p, r, 2.473615434895520810817e-01f);
        p = fmaf(p, r, 7.257664613233124478488e-01f);
        p = fmaf(p, r, 9.999999999980870924916e-01f);
        float q = fmaf(2.159509375685829852307e-02f, r, -2.742335390411667452936e-01f);
        q = fmaf(q, r, 1.0f);
        const int32_t ki = (int32_t)(f32_bits(km) - 0x4b400000u), k1 = ki >> 1, k2 = ki - k1;
        float e = (p / q) * f32_from_bits((uint32_t)(k1 + 127) << 23);
        e = e * f32_from_bits((uint32_t)(k2 + 127) << 23);
        out[i] = (x >= 0.0f ? 1.0f : e) / (1.0f + e);
    }
}

/* SoftplusGrad of float32: g * sigmoid(x), the sigmoid as sigmoid32_float. */
FMA_CLONES static void softplus_grad32_float(const float *g, const float *a, float *out,
                                             Py_ssize_t n) {
    EXP32_PASS(-fabsf(a[i]), 1, out[i] = g[i] * ((a[i] >= 0.0f ? 1.0f : e) / (1.0f + e)));
}

/* The exact GELU's derivative of float32 around its erf (the program's steps after erf):
 * (0.5 * (1 + erf)) + ((x * exp((-0.5 * x) * x)) * (1 / sqrt(2 pi))), NumPy's float32
 * operations in that order with the constants rounded to float32 first (as NumPy rounds a
 * Python scalar), exp as exp32 (np.exp's bits): what the NumPy steps it replaces compute,
 * bit for bit, in one pass. The exp argument (-0.5 x) x is never above 0. */
FMA_CLONES static void gelu_grad_finish32_float(const float *a, const float *erfv, float *out,
                                                Py_ssize_t n) {
    const float inv_sqrt_2pi = (float)0.3989422804014327; /* 1 / sqrt(2 pi) */
    EXP32_PASS((-0.5f * a[i]) * a[i], 1,
               out[i] = (0.5f * (1.0f + erfv[i])) + (a[i] * e) * inv_sqrt_2pi);
}

/* The same four passes written with AVX-512F intrinsics, for CPUs that have it (chosen at
 * load time, see cpu_avx512f): the operations of exp32_core, lane for lane, with the cases
 * as masks inside one loop (an intrinsic is never moved across a mask blend, so the clean
 * argument needs no loop of its own): a third fewer instructions than GCC's vectorization
 * of the portable code above, which the other CPUs run. Tails use masked loads and stores. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define EXP32_AVX512 1
#include <immintrin.h>

#define EXP32_V16 __attribute__((target("avx512f"), always_inline)) static inline

EXP32_V16 __m512i exp32_u32(uint32_t v) { return _mm512_set1_epi32((int)v); }

/* exp32 of 16 lanes; `over` and `under` collect the lanes of the overflow and underflow
 * cases (EXP32_CASES). nonpos as in exp32_core. */
EXP32_V16 __m512 exp32_v16(__m512 x, __mmask16 *over, __mmask16 *under, const int nonpos) {
    const __m512i b = _mm512_castps_si512(x);
    const __mmask16 nan =
        _mm512_cmpgt_epu32_mask(_mm512_and_si512(b, exp32_u32(0x7fffffffu)), exp32_u32(0x7f800000u));
    __mmask16 hi = 0;
    if (!nonpos) {
        hi = _mm512_cmpge_epu32_mask(b, exp32_u32(0x42b17218u)) &
             _mm512_cmple_epu32_mask(b, exp32_u32(0x7f800000u));
        *over |= hi & _mm512_cmpneq_epu32_mask(b, exp32_u32(0x7f800000u));
    }
    const __mmask16 lo = _mm512_cmpge_epu32_mask(b, exp32_u32(0xc2cff1b5u)) &
                         _mm512_cmple_epu32_mask(b, exp32_u32(0xff800000u));
    *under |= lo & _mm512_cmpneq_epu32_mask(b, exp32_u32(0xff800000u));
    const __m512 t = _mm512_maskz_mov_ps((__mmask16)~(nan | hi | lo), x);
    const __m512 magic = _mm512_set1_ps(0x1.800000p+23f);
    __m512 k = _mm512_mul_ps(t, _mm512_set1_ps(1.442695040888963407359924681001892137f));
    k = _mm512_sub_ps(_mm512_add_ps(k, magic), magic);
    __m512 r = _mm512_fmadd_ps(k, _mm512_set1_ps(-6.93145752e-1f), t);
    r = _mm512_fmadd_ps(k, _mm512_set1_ps(-1.42860677e-6f), r);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(5.082762527590693718096e-04f), r,
                               _mm512_set1_ps(6.757896990527504603057e-03f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.114512081637298353406e-02f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(2.473615434895520810817e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(7.257664613233124478488e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(9.999999999980870924916e-01f));
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(2.159509375685829852307e-02f), r,
                               _mm512_set1_ps(-2.742335390411667452936e-01f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f));
    /* P / Q * 2^k rounded once: vscalefps is that (the two products of exp32_core are too) */
    __m512 e = _mm512_scalef_ps(_mm512_div_ps(p, q), k);
    e = _mm512_mask_mov_ps(e, hi, _mm512_set1_ps(INFINITY));
    e = _mm512_mask_mov_ps(e, lo, _mm512_setzero_ps());
    return _mm512_mask_mov_ps(e, nan, _mm512_castsi512_ps(exp32_u32(0x7fc00000u)));
}

/* -|x|, as -fabsf(x): the sign bit set */
EXP32_V16 __m512 exp32_negabs(__m512 x) {
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(x), exp32_u32(0x80000000u)));
}

/* (x >= 0 ? 1 : e) / (1 + e), as sigmoid32_float; >= as C's (a signalling comparison) */
EXP32_V16 __m512 exp32_sigmoid(__m512 x, __m512 e) {
    const __m512 one = _mm512_set1_ps(1.0f);
    const __mmask16 ge = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GE_OS);
    return _mm512_div_ps(_mm512_mask_mov_ps(e, ge, one), _mm512_add_ps(one, e));
}

/* Runs BODY (computing `res` from the lanes of `m`) over n elements in vectors of 16, the last
 * masked; LOAD(ptr) loads 16 lanes under mask `m`. */
#define EXP32_LOOP_V16(BODY)                                                                  \
    __mmask16 over = 0, under = 0;                                                           \
    for (Py_ssize_t i = 0; i < n; i += 16) {                                                 \
        const __mmask16 m = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1); \
        BODY;                                                                                \
        _mm512_mask_storeu_ps(out + i, m, res);                                              \
    }                                                                                        \
    exp32_flags(over != 0, under != 0)
#define LOAD(ptr) _mm512_maskz_loadu_ps(m, (ptr) + i)

__attribute__((target("avx512f"))) static void exp32_avx512(const float *a, float *out,
                                                            Py_ssize_t n) {
    EXP32_LOOP_V16(__m512 res = exp32_v16(LOAD(a), &over, &under, 0));
}

__attribute__((target("avx512f"))) static void exp32_negabs_avx512(const float *a, float *out,
                                                                   Py_ssize_t n) {
    EXP32_LOOP_V16(__m512 res = exp32_v16(exp32_negabs(LOAD(a)), &over, &under, 1));
}

/* exp32 of t = -|x| for the sigmoid alone (whose flags are ignored, see kernels.py), with
 * exp32_v16's arithmetic but none of its case masks: a NaN flows through the arithmetic
 * (NaN in, NaN out), and t is raised to -150 at least, where the arithmetic gives +0 as
 * exp32's x <= XMIN case does (2^-216 times P / Q in [0.7, 1.4] underflows to +0), so that
 * no -inf or huge argument reaches the reduction; k rounded by vrndscaleps (round to nearest,
 * ties to even: the magic-number addition's result for |k| < 2^22). Eight instructions fewer
 * a vector than exp32_v16 (19 for the whole sigmoid, from 27): 0.33 ns an element on one
 * thread from 0.47, and the same bits for every float32 but NaN payloads (every one of the
 * 2^32 inputs checked by benchmarks/sigmoid32_exhaustive.c). */
EXP32_V16 __m512 exp32_negabs_v16(__m512 x) {
    const __m512 t = _mm512_max_ps(_mm512_set1_ps(-150.0f), exp32_negabs(x)); /* NaN: NaN */
    const __m512 k = _mm512_roundscale_ps(
        _mm512_mul_ps(t, _mm512_set1_ps(1.442695040888963407359924681001892137f)),
        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m512 r = _mm512_fmadd_ps(k, _mm512_set1_ps(-6.93145752e-1f), t);
    r = _mm512_fmadd_ps(k, _mm512_set1_ps(-1.42860677e-6f), r);
    __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(5.082762527590693718096e-04f), r,
                               _mm512_set1_ps(6.757896990527504603057e-03f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(5.114512081637298353406e-02f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(2.473615434895520810817e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(7.257664613233124478488e-01f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(9.999999999980870924916e-01f));
    __m512 q = _mm512_fmadd_ps(_mm512_set1_ps(2.159509375685829852307e-02f), r,
                               _mm512_set1_ps(-2.742335390411667452936e-01f));
    q = _mm512_fmadd_ps(q, r, _mm512_set1_ps(1.0f));
    return _mm512_scalef_ps(_mm512_div_ps(p, q), k);
}

__attribute__((target("avx512f"))) static void sigmoid32_avx512(const float *a, float *out,
                                                                Py_ssize_t n) {
    EXP32_LOOP_V16(const __m512 x = LOAD(a);
                   __m512 res = exp32_sigmoid(x, exp32_negabs_v16(x)));
}

/* SoftplusGrad, g * sigmoid(x), with exp32_negabs_v16 and exp32_v16's IEEE flags: those of
 * the arithmetic (underflow for finite x <= XMIN, as exp32_v16 raises it, and for subnormal
 * inputs and results), except that +-inf, whose -|x| would underflow there, is exp'ed as +0
 * with e forced to +0 (two masked moves: 22 instructions a vector, from 29). */
__attribute__((target("avx512f"))) static void softplus_grad32_avx512(const float *g,
                                                                      const float *a,
                                                                      float *out, Py_ssize_t n) {
    EXP32_LOOP_V16(const __m512 x = LOAD(a);
                   const __mmask16 inf = _mm512_cmpeq_epi32_mask(
                       _mm512_castps_si512(exp32_negabs(x)), exp32_u32(0xff800000u));
                   const __m512 e = _mm512_mask_mov_ps(
                       exp32_negabs_v16(_mm512_mask_mov_ps(x, inf, _mm512_setzero_ps())), inf,
                       _mm512_setzero_ps());
                   __m512 res = _mm512_mul_ps(LOAD(g), exp32_sigmoid(x, e)));
}

/* gelu_grad_finish32_float's arithmetic on 16 lanes; exp32_v16's flags into over, under. */
EXP32_V16 __m512 gelu_grad_finish_v16(__m512 x, __m512 erfv, __mmask16 *over, __mmask16 *under) {
    const __m512 arg = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(-0.5f), x), x);
    const __m512 e = exp32_v16(arg, over, under, 1);
    const __m512 cdf =
        _mm512_mul_ps(_mm512_set1_ps(0.5f), _mm512_add_ps(_mm512_set1_ps(1.0f), erfv));
    const __m512 inv_sqrt_2pi = _mm512_set1_ps((float)0.3989422804014327);
    return _mm512_add_ps(cdf, _mm512_mul_ps(_mm512_mul_ps(x, e), inv_sqrt_2pi));
}

__attribute__((target("avx512f"))) static void gelu_grad_finish32_avx512(const float *a,
                                                                         const float *erfv,
                                                                         float *out,
                                                                         Py_ssize_t n) {
    EXP32_LOOP_V16(__m512 res = gelu_grad_finish_v16(LOAD(a), LOAD(erfv), &over, &under));
}
#undef LOAD
#endif

/* Whether the CPU has AVX-512F (the intrinsic passes above run then), set at import. */
static int cpu_avx512f;

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
#define ERF_LOOP_ATTR __attribute__((target_clones("avx512f", "avx2", "default"), optimize("fp-contract=fast")))
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

#ifdef EXP32_AVX512
/* erf of float32 on AVX-512F CPUs, in float32 arithmetic on 16 lanes (tables from
 * tools/erf32_tables.py): erf(x) = sign(x) * t * Q(t), t = |x|, Q(t) = erf(t) / t. [0, 4) is
 * cut into 32 intervals of width 1/8; on interval i, with d = t - (i + 1/2) / 8 in
 * [-1/16, 1/16] (exact: Sterbenz), Q = QHI[i] + (QLO[i] + d * h(d)), h a degree-4 polynomial
 * (Horner, fused multiply-adds), the tables looked up by vpermt2ps from registers; the last
 * step adds t * QHI[i] exactly in one fused multiply-add, on t scaled by 2^32 so that the small
 * term stays normal for the tiniest t. Largest error 0.58 ulp against the double erf, so at
 * most 1 ulp from the correctly rounded result, as the double polynomial above (every float32
 * checked by benchmarks/exhaustive_float32.py erf). From t = 4 on erf rounds to 1 in float32:
 * t is clamped to 4 (every step stays finite) and the result set to 1; NaN flows through the
 * arithmetic (min(4, NaN) is NaN), -0 stays -0. A third of the double polynomial's
 * instructions per element; the two may differ by 1 ulp, so the float32 erf and GELU of an
 * AVX-512F CPU and of another CPU may too (as NumPy's own float32 SIMD loops do across CPUs).
 * The callers ignore the floating-point flags (underflow for tiny t). */
static const float ERF32_QHI[32] = {
    1.1269116401672363f, 1.1152942180633545f, 1.092699646949768f,
    1.0603386163711548f, 1.0198657512664795f, 0.9732140302658081f,
    0.9224172830581665f, 0.8694425821304321f, 0.8160548210144043f,
    0.7637235522270203f, 0.713576078414917f, 0.6663934588432312f,
    0.6226397752761841f, 0.5825124382972717f, 0.5460031032562256f,
    0.5129583477973938f, 0.4831339418888092f, 0.45623886585235596f,
    0.43196797370910645f, 0.4100239872932434f, 0.3901306688785553f,
    0.3720393478870392f, 0.3555307984352112f, 0.340414434671402f,
    0.3265257775783539f, 0.31372344493865967f, 0.3018859326839447f,
    0.2909087538719177f, 0.2807016372680664f, 0.27118638157844543f,
    0.26229506731033325f, 0.2539682388305664f,
};
static const float ERF32_QLO[32] = {
    3.342029097908039e-09f, 5.9545826047724404e-08f, -1.977108077255707e-08f,
    -2.0380104714945446e-08f, -5.060806529399997e-08f, 2.486347838726033e-08f,
    -2.076747307455662e-08f, -2.099428897395228e-08f, 2.0836427694348458e-08f,
    1.2963115025854677e-09f, -2.1477372769140857e-08f, 6.245897576917514e-09f,
    -2.2431143165135836e-08f, -1.364921331514779e-08f, 6.231468674400276e-10f,
    3.882439258973136e-09f, -2.078106131619961e-09f, -4.685196230980182e-09f,
    -5.406887826353568e-09f, -5.041753237122748e-09f, -3.0703246611807344e-09f,
    -1.3382863706112857e-08f, -7.592707795822662e-09f, -1.2641518054579137e-08f,
    -1.1508242359070664e-08f, -9.691597746552816e-09f, 1.2882324540441914e-08f,
    -2.1117729787079043e-09f, -1.4836366801773693e-08f, 9.227428598990173e-09f,
    -3.650749924588581e-09f, 8.611031887539866e-09f,
};
static const float ERF32_C1[32] = {
    -0.0469057597219944f, -0.13810919225215912f, -0.22177331149578094f,
    -0.29377466440200806f, -0.3511899411678314f, -0.3925022780895233f,
    -0.41760504245758057f, -0.42762449383735657f, -0.4246135950088501f,
    -0.41118350625038147f, -0.39013907313346863f, -0.36417073011398315f,
    -0.3356335759162903f, -0.3064230680465698f, -0.27793794870376587f,
    -0.25110960006713867f, -0.22647331655025482f, -0.20425769686698914f,
    -0.18447467684745789f, -0.1669982522726059f, -0.1516266167163849f,
    -0.13812680542469025f, -0.12626370787620544f, -0.11581705510616302f,
    -0.10658952593803406f, -0.09840934723615646f, -0.09112953394651413f,
    -0.08462557941675186f, -0.07879246026277542f, -0.07354169338941574f,
    -0.06879856437444687f, -0.06449981778860092f,
};
static const float ERF32_C2[32] = {
    -0.373487651348114f, -0.35281622409820557f, -0.3137207329273224f,
    -0.26032716035842896f, -0.1979837268590927f, -0.13245642185211182f,
    -0.06913785636425018f, -0.012411931529641151f, 0.034733302891254425f,
    0.0708165243268013f, 0.0957302376627922f, 0.11043811589479446f,
    0.11659321188926697f, 0.11616058647632599f, 0.11110453307628632f,
    0.10317151993513107f, 0.09377256780862808f, 0.08394982665777206f,
    0.07440256327390671f, 0.06554636359214783f, 0.05758391693234444f,
    0.050572462379932404f, 0.04447965323925018f, 0.0392252616584301f,
    0.03470940887928009f, 0.03082987107336521f, 0.027491433545947075f,
    0.024610018357634544f, 0.022113708779215813f, 0.019942104816436768f,
    0.01804497465491295f, 0.01638069748878479f,
};
static const float ERF32_C3[32] = {
    0.028078552335500717f, 0.08115341514348984f, 0.12549223005771637f,
    0.15685993432998657f, 0.17303988337516785f, 0.17401373386383057f,
    0.16171959042549133f, 0.13948597013950348f, 0.11130327731370926f,
    0.0811067670583725f, 0.05221206322312355f, 0.026981674134731293f,
    0.006732880603522062f, -0.008157609030604362f, -0.01802671141922474f,
    -0.023654254153370857f, -0.026011640205979347f, -0.026068268343806267f,
    -0.024668985977768898f, -0.0224770400673151f, -0.019966373220086098f,
    -0.017444264143705368f, -0.015087609179317951f, -0.012980948202311993f,
    -0.011149422265589237f, -0.009583931416273117f, -0.008258477784693241f,
    -0.0071409959346055984f, -0.006199434865266085f, -0.0054047065787017345f,
    -0.004731759428977966f, -0.0041596475057303905f,
};
static const float ERF32_C4[32] = {
    0.11111533641815186f, 0.09898600727319717f, 0.0767255499958992f,
    0.04788963869214058f, 0.016831541433930397f, -0.012173773720860481f,
    -0.03570207208395004f, -0.051678504794836044f, -0.05952482298016548f,
    -0.05997920408844948f, -0.05469117313623428f, -0.04572923481464386f,
    -0.035129375755786896f, -0.02457093819975853f, -0.015212854370474815f,
    -0.007676110602915287f, -0.002129039028659463f, 0.0015768699813634157f,
    0.0037658510264009237f, 0.004821076523512602f, 0.005105046555399895f,
    0.004916859325021505f, 0.004478449933230877f, 0.003939383663237095f,
    0.0033907738979905844f, 0.0028815018013119698f, 0.00243279617279768f,
    0.0020495096687227488f, 0.001727917231619358f, 0.0014605986652895808f,
    0.0012392039643600583f, 0.0010558327194303274f,
};
static const float ERF32_C5[32] = {
    -0.009988452307879925f, -0.028303170576691628f, -0.042001694440841675f,
    -0.049137890338897705f, -0.049135640263557434f, -0.042793795466423035f,
    -0.03196336701512337f, -0.019018851220607758f, -0.006289120763540268f,
    0.004400459583848715f, 0.011980925686657429f, 0.01616887003183365f,
    0.0173177570104599f, 0.01617315225303173f, 0.013616694137454033f,
    0.010461713187396526f, 0.007330691441893578f, 0.004614129196852446f,
    0.0024905232712626457f, 0.0009798252722248435f, 5.544628947973251e-06f,
    -0.000551262404769659f, -0.0008138702251017094f, -0.0008883316186256707f,
    -0.000855137303005904f, -0.000769415230024606f, -0.0006654083845205605f,
    -0.0005621849559247494f, -0.0004688756016548723f, -0.000388709973776713f,
    -0.00032178335823118687f, -0.00026676562265492976f,
};

typedef struct {
    __m512 qhi[2], qlo[2], c1[2], c2[2], c3[2], c4[2], c5[2];
} erf32_tables_v16;

EXP32_V16 erf32_tables_v16 erf32_load_tables(void) {
    erf32_tables_v16 k;
#define ERF32_LOAD(F, T) k.F[0] = _mm512_loadu_ps(T), k.F[1] = _mm512_loadu_ps((T) + 16)
    ERF32_LOAD(qhi, ERF32_QHI);
    ERF32_LOAD(qlo, ERF32_QLO);
    ERF32_LOAD(c1, ERF32_C1);
    ERF32_LOAD(c2, ERF32_C2);
    ERF32_LOAD(c3, ERF32_C3);
    ERF32_LOAD(c4, ERF32_C4);
    ERF32_LOAD(c5, ERF32_C5);
#undef ERF32_LOAD
    return k;
}

EXP32_V16 __m512 erf32_v16(__m512 x, const erf32_tables_v16 *k) {
    const __m512i sign = exp32_u32(0x80000000u);
    const __m512 t = _mm512_castsi512_ps(_mm512_andnot_si512(sign, _mm512_castps_si512(x)));
    const __m512 tc = _mm512_min_ps(_mm512_set1_ps(4.0f), t);
    const __m512i i = _mm512_cvttps_epi32(
        _mm512_min_ps(_mm512_mul_ps(tc, _mm512_set1_ps(8.0f)), _mm512_set1_ps(31.0f)));
    const __m512 d = _mm512_sub_ps(
        tc, _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(i), _mm512_set1_ps(0.125f)),
                          _mm512_set1_ps(0.0625f)));
#define ERF32_TAB(F) _mm512_permutex2var_ps(k->F[0], i, k->F[1])
    __m512 h = _mm512_fmadd_ps(ERF32_TAB(c5), d, ERF32_TAB(c4));
    h = _mm512_fmadd_ps(h, d, ERF32_TAB(c3));
    h = _mm512_fmadd_ps(h, d, ERF32_TAB(c2));
    h = _mm512_fmadd_ps(h, d, ERF32_TAB(c1));
    const __m512 lo = _mm512_fmadd_ps(d, h, ERF32_TAB(qlo));
    const __m512 ts = _mm512_mul_ps(tc, _mm512_set1_ps(0x1p32f));
    __m512 r = _mm512_mul_ps(_mm512_fmadd_ps(ts, ERF32_TAB(qhi), _mm512_mul_ps(ts, lo)),
                             _mm512_set1_ps(0x1p-32f));
#undef ERF32_TAB
    r = _mm512_min_ps(_mm512_set1_ps(1.0f), r);
    r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(t, _mm512_set1_ps(4.0f), _CMP_GE_OQ),
                           _mm512_set1_ps(1.0f));
    return _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(r),
                                               _mm512_and_si512(sign, _mm512_castps_si512(x))));
}

#define LOAD(ptr) _mm512_maskz_loadu_ps(m, (ptr) + i)
__attribute__((target("avx512f"))) static void erf32_avx512(const float *a, float *out,
                                                           Py_ssize_t n) {
    const erf32_tables_v16 k = erf32_load_tables();
    EXP32_LOOP_V16(__m512 res = erf32_v16(LOAD(a), &k));
}

__attribute__((target("avx512f"))) static void gelu32_avx512(const float *a, float *out,
                                                            Py_ssize_t n) {
    const erf32_tables_v16 k = erf32_load_tables();
    EXP32_LOOP_V16(const __m512 x = LOAD(a);
                   const __m512 e = erf32_v16(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f)), &k);
                   __m512 res = _mm512_mul_ps(_mm512_mul_ps(_mm512_set1_ps(0.5f), x),
                                              _mm512_add_ps(_mm512_set1_ps(1.0f), e)));
}
#undef LOAD
#endif

/* GELU's gradient g * finish(x, erf(x * sqrt(1/2))) in one pass over the arrays, the steps of
 * the program "gelu_grad" (kernels.py: NumPy's float32 multiply by the rounded constant, erf,
 * gelu_grad_finish32, NumPy's multiply by g) run on tiles of EXP32_TILE elements. */
FMA_CLONES static void gelu_grad32_float(const float *g, const float *a, float *out,
                                         Py_ssize_t n) {
    float t[EXP32_TILE], u[EXP32_TILE];
    for (Py_ssize_t i0 = 0; i0 < n; i0 += EXP32_TILE) {
        const Py_ssize_t m = n - i0 < EXP32_TILE ? n - i0 : EXP32_TILE;
        for (Py_ssize_t i = 0; i < m; i++) u[i] = a[i0 + i] * 0.70710678118654752f;
        erf32_float(u, t, m);
        gelu_grad_finish32_float(a + i0, t, t, m);
        for (Py_ssize_t i = 0; i < m; i++) out[i0 + i] = g[i0 + i] * t[i];
    }
}

#ifdef EXP32_AVX512
/* The same on 16 lanes: erf32_v16, then gelu_grad_finish_v16. */
#define LOAD(ptr) _mm512_maskz_loadu_ps(m, (ptr) + i)
__attribute__((target("avx512f"))) static void gelu_grad32_avx512(const float *g, const float *a,
                                                                 float *out, Py_ssize_t n) {
    const erf32_tables_v16 k = erf32_load_tables();
    EXP32_LOOP_V16(
        const __m512 x = LOAD(a);
        const __m512 erfv = erf32_v16(_mm512_mul_ps(x, _mm512_set1_ps(0.70710678118654752f)), &k);
        __m512 res = _mm512_mul_ps(LOAD(g), gelu_grad_finish_v16(x, erfv, &over, &under)));
}
#undef LOAD
#endif

/* sum(a * b) without the product array, added in NumPy's pairwise order (its
 * loops_utils.h: blocks of at most 128 items summed in 8 accumulators, halves split at
 * multiples of 8, -0.0 as the start of short runs) and added to +0 as NumPy's reduction
 * starts, so the result is np.sum(a * b)'s bit for bit: each product is the one NumPy's
 * multiply would store, each addition NumPy's.                                            */
#define MUL_PAIRWISE(T)                                                                       \
    SIMD_CLONES static T mul_pairwise_##T(const T *a, const T *b, Py_ssize_t n) {                        \
        if (n < 8) {                                                                         \
            T res = -0.0;                                                                    \
            for (Py_ssize_t i = 0; i < n; i++) res += a[i] * b[i];                           \
            return res;                                                                      \
        }                                                                                    \
        if (n <= 128) {                                                                      \
            T r[8];                                                                          \
            Py_ssize_t i;                                                                    \
            for (int j = 0; j < 8; j++) r[j] = a[j] * b[j];                                  \
            for (i = 8; i < n - (n % 8); i += 8)                                             \
                for (int j = 0; j < 8; j++) r[j] += a[i + j] * b[i + j];                     \
            T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));      \
            for (; i < n; i++) res += a[i] * b[i];                                           \
            return res;                                                                      \
        }                                                                                    \
        Py_ssize_t n2 = n / 2;                                                               \
        n2 -= n2 % 8;                                                                        \
        return mul_pairwise_##T(a, b, n2) + mul_pairwise_##T(a + n2, b + n2, n - n2);        \
    }

MUL_PAIRWISE(float)
MUL_PAIRWISE(double)

PyDoc_STRVAR(mul_sum_doc,
             "mul_sum(a, b) -> (float, int)\n\n"
             "sum(a * b) of two C-contiguous arrays of one size and dtype (float32 or float64),\n"
             "in NumPy's pairwise order (see kernels.mul_sum), and the floating-point flags\n"
             "raised.");

static PyObject *mul_sum(PyObject *self, PyObject *args) {
    PyObject *objs[2];
    if (!PyArg_ParseTuple(args, "OO:mul_sum", &objs[0], &objs[1])) return NULL;
    static const char *names[2] = {"a", "b"};
    static const Py_ssize_t items[2] = {-1, -1};
    Py_buffer views[2];
    char format;
    if (get_arrays(objs, views, 2, 2, "mul_sum", names, items, &format) < 0) return NULL;
    Py_ssize_t n = views[0].len / views[0].itemsize;
    double res = 0.0;
    int raised;
    RUN_KERNEL(raised, format, res = mul_pairwise_float(views[0].buf, views[1].buf, n),
               res = mul_pairwise_double(views[0].buf, views[1].buf, n));
    release(views, 2);
    res = 0.0 + res; /* NumPy's reduction starts from its identity, +0 (so -0 sums to +0) */
    return Py_BuildValue("di", res, raised);
}

/* ---- Fused, blocked and threaded elementwise programs -------------------------------------
 *
 * A program is a short list of steps over one flat range of n elements: each step is a
 * one-dimensional ufunc inner loop, either NumPy's own (the loop np.exp, np.multiply, ...
 * runs for that dtype, taken from the ufunc object, so each step computes exactly what the
 * NumPy call would, bit for bit) or one of the C passes above. Steps read and write the
 * program's inputs, its output, scalar constants (stride 0, as NumPy broadcasts a scalar) and
 * a few scratch registers of EW_BLOCK elements. The range runs block by block, every step on
 * one block before the next block, so the intermediates stay in cache and memory is read and
 * written once; big ranges are split into contiguous parts run by a small pool of threads
 * (each element's result does not depend on which thread or block computed it). Each thread
 * collects its own floating-point flags (the FPU state is per thread); the run returns them
 * all, OR-ed.                                                                               */
#define EW_BLOCK 1024
#define EW_REGS 4
#define EW_MAX_STEPS 16
#define EW_MAX_CONSTS 8
#define EW_MAX_INPUTS 4
#define EW_MAX_THREADS 64
/* Operand references: registers 0..3, inputs 16 + k, constants 32 + k, the output 48. */
enum { EW_IN = 16, EW_CONST = 32, EW_OUT = 48 };

typedef void (*ew_loop)(char **args, const npy_intp *dims, const npy_intp *steps, void *data);

typedef struct {
    ew_loop fn;
    void *data;
    int nargs;
    int refs[3];
} ew_step;

typedef struct {
    int nsteps, ninputs, nconsts;
    char format; /* 'f' or 'd' */
    npy_intp itemsize;
    ew_step steps[EW_MAX_STEPS];
    float cf[EW_MAX_CONSTS];
    double cd[EW_MAX_CONSTS];
} ew_program;

/* The C passes with the ufunc loop signature (contiguous operands: the program only gives
 * them registers, inputs and the output). */
#define EW_UFUNC1(NAME, T)                                                                    \
    static void u_##NAME##_##T(char **args, const npy_intp *dims, const npy_intp *steps,      \
                               void *data) {                                                  \
        NAME##_##T((const T *)args[0], (T *)args[1], dims[0]);                               \
    }
#define EW_UFUNC2(NAME, T)                                                                    \
    static void u_##NAME##_##T(char **args, const npy_intp *dims, const npy_intp *steps,      \
                               void *data) {                                                  \
        NAME##_##T((const T *)args[0], (const T *)args[1], (T *)args[2], dims[0]);          \
    }
EW_UFUNC1(neg_abs, float)
EW_UFUNC1(neg_abs, double)
EW_UFUNC2(sigmoid_finish, float)
EW_UFUNC2(sigmoid_finish, double)
EW_UFUNC2(softplus_finish, float)
EW_UFUNC2(softplus_finish, double)
EW_UFUNC2(sigmoid_grad, float)
EW_UFUNC2(sigmoid_grad, double)
EW_UFUNC2(tanh_grad, float)
EW_UFUNC2(tanh_grad, double)
EW_UFUNC2(relu_grad, float)
EW_UFUNC2(relu_grad, double)
EW_UFUNC1(relu, float)
EW_UFUNC1(relu, double)
#ifdef EXP32_AVX512
/* The exp32 passes: with intrinsics on AVX-512F CPUs, else GCC's clones of the portable C. */
#define EW_UFUNC_EXP32_1(NAME)                                                                \
    static void u_##NAME##_float(char **args, const npy_intp *dims, const npy_intp *steps,    \
                                 void *data) {                                                \
        if (cpu_avx512f)                                                                     \
            NAME##_avx512((const float *)args[0], (float *)args[1], dims[0]);                \
        else                                                                                 \
            NAME##_float((const float *)args[0], (float *)args[1], dims[0]);                 \
    }
#define EW_UFUNC_EXP32_2(NAME)                                                                \
    static void u_##NAME##_float(char **args, const npy_intp *dims, const npy_intp *steps,    \
                                 void *data) {                                                \
        if (cpu_avx512f)                                                                     \
            NAME##_avx512((const float *)args[0], (const float *)args[1], (float *)args[2],  \
                          dims[0]);                                                          \
        else                                                                                 \
            NAME##_float((const float *)args[0], (const float *)args[1], (float *)args[2],   \
                         dims[0]);                                                           \
    }
EW_UFUNC_EXP32_1(exp32)
EW_UFUNC_EXP32_1(exp32_negabs)
EW_UFUNC_EXP32_1(sigmoid32)
EW_UFUNC_EXP32_2(softplus_grad32)
EW_UFUNC_EXP32_2(gelu_grad_finish32)
EW_UFUNC_EXP32_2(gelu_grad32)
#else
EW_UFUNC1(exp32, float)
EW_UFUNC1(exp32_negabs, float)
EW_UFUNC1(sigmoid32, float)
EW_UFUNC2(softplus_grad32, float)
EW_UFUNC2(gelu_grad_finish32, float)
EW_UFUNC2(gelu_grad32, float)
#endif

/* The erf passes: the float32 tables on AVX-512F CPUs, else the double polynomial. */
#define EW_UFUNC_ERF32(NAME)                                                                  \
    static void u_##NAME##_float(char **args, const npy_intp *dims, const npy_intp *steps,    \
                                 void *data) {                                                \
        const float *a = (const float *)args[0];                                             \
        float *out = (float *)args[1];                                                       \
        ERF32_DISPATCH(NAME, a, out, dims[0]);                                               \
    }
#ifdef EXP32_AVX512
#define ERF32_DISPATCH(NAME, a, out, n)                                                       \
    if (cpu_avx512f)                                                                         \
        NAME##_avx512(a, out, n);                                                            \
    else                                                                                     \
        NAME##_float(a, out, n)
#else
#define ERF32_DISPATCH(NAME, a, out, n) NAME##_float(a, out, n)
#endif
EW_UFUNC_ERF32(erf32)
EW_UFUNC_ERF32(gelu32)

/* The C passes by kind (kernels.py's numbering): float and double
 * loops (NULL: no such loop) and the number of operands, output last. */
static const struct {
    ew_loop f, d;
    int nargs;
} EW_KINDS[] = {
    {u_neg_abs_float, u_neg_abs_double, 2},
    {u_sigmoid_finish_float, u_sigmoid_finish_double, 3},
    {u_softplus_finish_float, u_softplus_finish_double, 3},
    {u_sigmoid_grad_float, u_sigmoid_grad_double, 3},
    {u_tanh_grad_float, u_tanh_grad_double, 3},
    {u_erf32_float, NULL, 2},
    {u_gelu32_float, NULL, 2},
    {u_relu_grad_float, u_relu_grad_double, 3},
    {u_relu_float, u_relu_double, 2},
    {u_exp32_float, NULL, 2},
    {u_sigmoid32_float, NULL, 2},
    {u_softplus_grad32_float, NULL, 3},
    {u_gelu_grad_finish32_float, NULL, 3},
    {u_exp32_negabs_float, NULL, 2},
    {u_gelu_grad32_float, NULL, 3},
};
#define EW_NKINDS ((int)(sizeof(EW_KINDS) / sizeof(EW_KINDS[0])))

static void ew_program_free(PyObject *capsule) {
    PyMem_Free(PyCapsule_GetPointer(capsule, "eagerkernel.ew_program"));
}

/* Finds ufunc's inner loop whose operands all have type number `typenum`. */
static int ew_ufunc_loop(PyObject *obj, int typenum, ew_step *step) {
    PyUFuncObject *uf = (PyUFuncObject *)obj;
    if (uf->nout != 1 || uf->nargs > 3) {
        PyErr_Format(PyExc_ValueError, "program: %s is not a ufunc of 1 or 2 inputs and 1 output",
                     uf->name);
        return -1;
    }
    for (int i = 0; i < uf->ntypes; i++) {
        int all = 1;
        for (int j = 0; j < uf->nargs; j++) all &= uf->types[i * uf->nargs + j] == typenum;
        if (all && uf->functions != NULL && uf->functions[i] != NULL) {
            step->fn = (ew_loop)uf->functions[i];
            step->data = uf->data != NULL ? uf->data[i] : NULL;
            step->nargs = uf->nargs;
            return 0;
        }
    }
    PyErr_Format(PyExc_ValueError, "program: %s has no inner loop for this dtype", uf->name);
    return -1;
}

PyDoc_STRVAR(program_doc,
             "program(format, ninputs, constants, steps) -> capsule\n\n"
             "Compiles an elementwise program for float32 ('f') or float64 ('d') arrays.\n"
             "steps: (op, refs) pairs, op a NumPy ufunc or a C pass's kind (0-13), refs its\n"
             "operands, output last: registers 0-3, input k as 16 + k, constant k as 32 + k,\n"
             "the output as 48. See kernels.py.");

static PyObject *program(PyObject *self, PyObject *args) {
    const char *format;
    int ninputs;
    PyObject *consts, *steps;
    if (!PyArg_ParseTuple(args, "siO!O!:program", &format, &ninputs, &PyTuple_Type, &consts,
                          &PyTuple_Type, &steps))
        return NULL;
    if ((format[0] != 'f' && format[0] != 'd') || format[1]) {
        PyErr_SetString(PyExc_ValueError, "program: format must be 'f' or 'd'");
        return NULL;
    }
    if (ninputs < 1 || ninputs > EW_MAX_INPUTS || PyTuple_GET_SIZE(consts) > EW_MAX_CONSTS ||
        PyTuple_GET_SIZE(steps) < 1 || PyTuple_GET_SIZE(steps) > EW_MAX_STEPS) {
        PyErr_SetString(PyExc_ValueError, "program: too many inputs, constants or steps");
        return NULL;
    }
    ew_program *p = PyMem_Calloc(1, sizeof(ew_program));
    if (p == NULL) return PyErr_NoMemory();
    p->format = format[0];
    p->itemsize = format[0] == 'f' ? sizeof(float) : sizeof(double);
    p->ninputs = ninputs;
    p->nconsts = (int)PyTuple_GET_SIZE(consts);
    p->nsteps = (int)PyTuple_GET_SIZE(steps);
    for (int k = 0; k < p->nconsts; k++) {
        double c = PyFloat_AsDouble(PyTuple_GET_ITEM(consts, k));
        if (c == -1.0 && PyErr_Occurred()) goto fail;
        p->cd[k] = c;
        p->cf[k] = (float)c;
    }
    for (int s = 0; s < p->nsteps; s++) {
        PyObject *item = PyTuple_GET_ITEM(steps, s), *op, *refs;
        ew_step *st = &p->steps[s];
        if (!PyArg_ParseTuple(item, "OO!:program step", &op, &PyTuple_Type, &refs)) goto fail;
        if (PyLong_Check(op)) {
            long kind = PyLong_AsLong(op);
            if (kind < 0 || kind >= EW_NKINDS) {
                PyErr_Format(PyExc_ValueError, "program: unknown kind %ld", kind);
                goto fail;
            }
            st->fn = format[0] == 'f' ? EW_KINDS[kind].f : EW_KINDS[kind].d;
            st->nargs = EW_KINDS[kind].nargs;
            if (st->fn == NULL) {
                PyErr_Format(PyExc_TypeError, "program: kind %ld takes float32 only", kind);
                goto fail;
            }
        } else if (PyObject_IsInstance(op, ufunc_type) == 1) {
            if (ew_ufunc_loop(op, format[0] == 'f' ? NPY_FLOAT : NPY_DOUBLE, st) < 0) goto fail;
        } else {
            PyErr_Format(PyExc_TypeError, "program: step %d: expected a ufunc or an int, got %R",
                         s, Py_TYPE(op));
            goto fail;
        }
        if (PyTuple_GET_SIZE(refs) != st->nargs) {
            PyErr_Format(PyExc_ValueError, "program: step %d takes %d operands, got %zd", s,
                         st->nargs, PyTuple_GET_SIZE(refs));
            goto fail;
        }
        for (int j = 0; j < st->nargs; j++) {
            long r = PyLong_AsLong(PyTuple_GET_ITEM(refs, j));
            int ok = (r >= 0 && r < EW_REGS) || (r >= EW_IN && r < EW_IN + ninputs) ||
                     (r >= EW_CONST && r < EW_CONST + p->nconsts && PyLong_Check(op) == 0) ||
                     r == EW_OUT;
            int is_out = j == st->nargs - 1;
            if (ok && is_out) ok = r < EW_REGS || r == EW_OUT;
            if (!ok) {
                if (!PyErr_Occurred())
                    PyErr_Format(PyExc_ValueError, "program: step %d: bad operand %ld", s, r);
                goto fail;
            }
            st->refs[j] = (int)r;
        }
    }
    return PyCapsule_New(p, "eagerkernel.ew_program", ew_program_free);
fail:
    PyMem_Free(p);
    return NULL;
}

/* Copies a block to its place in a big output with streaming (non-temporal) stores: they
 * write whole cache lines to memory without first reading them into the cache (a plain
 * store reads each line before writing it: a third of the traffic of a read-one-write-one
 * op, measured 15-25% of its time on a 31 MB array), and leave the cache to the inputs.
 * Only for outputs far beyond the cache of memory-bound programs (`stream` in run(), which
 * kernels.py sets: a burst of these stores per block stalls a program bound by its arithmetic,
 * measured), as a small output is better left in
 * the cache for the op that reads it next. The caller fences before the output is used. */
static void ew_stream(char *dst, const char *src, npy_intp nbytes) {
#if defined(__SSE2__)
    npy_intp head = (npy_intp)((16 - ((uintptr_t)dst & 15)) & 15);
    if (head > nbytes) head = nbytes;
    memcpy(dst, src, (size_t)head);
    npy_intp i = head;
    for (; i + 64 <= nbytes; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(src + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(src + i + 48));
        _mm_stream_si128((__m128i *)(dst + i), a);
        _mm_stream_si128((__m128i *)(dst + i + 16), b);
        _mm_stream_si128((__m128i *)(dst + i + 32), c);
        _mm_stream_si128((__m128i *)(dst + i + 48), d);
    }
    memcpy(dst + i, src + i, (size_t)(nbytes - i));
#else
    memcpy(dst, src, (size_t)nbytes);
#endif
}

/* Runs the program over elements [lo, hi), block by block. */
static void ew_exec(const ew_program *p, char *const *in, char *out, npy_intp lo, npy_intp hi,
                    int stream) {
    static const npy_intp zero = 0;
    double regs[EW_REGS + 1][EW_BLOCK]; /* the last: the output block, when streamed */
    const npy_intp isz = p->itemsize;
    for (npy_intp start = lo; start < hi; start += EW_BLOCK) {
        npy_intp len = hi - start < EW_BLOCK ? hi - start : EW_BLOCK;
        for (int s = 0; s < p->nsteps; s++) {
            const ew_step *st = &p->steps[s];
            char *args[3];
            npy_intp strides[3];
            for (int j = 0; j < st->nargs; j++) {
                const int r = st->refs[j];
                strides[j] = isz;
                if (r < EW_REGS)
                    args[j] = (char *)regs[r];
                else if (r < EW_CONST)
                    args[j] = in[r - EW_IN] + start * isz;
                else if (r < EW_OUT) {
                    args[j] = p->format == 'f' ? (char *)&p->cf[r - EW_CONST]
                                               : (char *)&p->cd[r - EW_CONST];
                    strides[j] = zero;
                } else
                    args[j] = stream ? (char *)regs[EW_REGS] : out + start * isz;
            }
            st->fn(args, &len, strides, st->data);
        }
        if (stream) ew_stream(out + start * isz, (const char *)regs[EW_REGS], len * isz);
    }
}

/* The pool: up to EW_MAX_THREADS - 1 workers, started on first need, waiting on a condition
 * variable (no spinning: an idle pool costs nothing). A run posts a job and works on it
 * itself; the job's range is dealt out in chunks from an atomic counter, so a thread that
 * runs late (a busy machine) takes fewer chunks instead of holding the others up. A chunk is
 * an eighth of a thread's share, between EW_CHUNK and EW_CHUNK_MAX elements: small ones keep
 * that balance on arrays just past PARALLEL_MIN, big ones let the memory-bound programs read
 * and write long runs (each chunk restarts the hardware prefetcher's streams: ReLU on 31 MB
 * took 1.2-1.3 ms in 16 K chunks and 0.8-0.95 ms in 64 K-256 K ones, best of runs,
 * measured). The run returns once its chunks are done and every worker that joined has left; a
 * worker that wakes after that finds no job. A second run while one is in flight (another
 * Python thread) runs alone on its own thread. After fork() the child has no workers: it
 * starts new ones. */
#define EW_CHUNK (16 * EW_BLOCK)
#define EW_CHUNK_MAX (256 * EW_BLOCK)

typedef struct {
    const ew_program *p;
    char *const *in;
    char *out;
    npy_intp n;
    npy_intp chunk; /* elements a take hands out (ew_run sets it) */
#ifdef EW_THREADS
    atomic_llong next; /* the first element not yet dealt out */
#else
    long long next;
#endif
    int stream;        /* write the output with streaming stores (ew_stream) */
    int joined;        /* workers inside the job (under pool_mu) */
    int flags;         /* the workers' floating-point flags, OR-ed (under pool_mu) */
} ew_job;

#ifdef EW_THREADS
#define EW_TAKE(job) ((npy_intp)atomic_fetch_add(&(job)->next, (job)->chunk))
#define EW_START(job) atomic_init(&(job)->next, 0)
#else
#define EW_TAKE(job) ((npy_intp)(((job)->next += (job)->chunk) - (job)->chunk))
#define EW_START(job) ((job)->next = 0)
#endif

#ifdef EW_THREADS
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static int pool_workers;       /* started worker threads */
static unsigned long pool_gen; /* bumped for each job */
static int pool_busy;          /* a run holds the pool */
static ew_job *pool_job;       /* the job in flight, NULL once its chunks are all done */
static int pool_wanted;        /* how many workers the job in flight may take */
static unsigned long pool_first_gen[EW_MAX_THREADS]; /* pool_gen when worker k started */

#ifdef __linux__
#include <sched.h>
/* Linux's scheduler sometimes wakes a worker onto the CPU of the thread that posted the job
 * (which goes on working there) and leaves it there for a stretch of calls: the two then take
 * turns on one CPU and a big op takes twice its time (seen as runs of 4 ms GELUs among 2 ms
 * ones on two CPUs, the worker on the caller's CPU). So each worker records the CPU it ran
 * on, and a run that finds a worker last ran on its own CPU moves that worker off it (its
 * affinity: the caller's CPUs but the caller's current one) before waking it: sched_getcpu
 * per run (a vDSO call), a system call only when they met. */
static pthread_t pool_threads[EW_MAX_THREADS];
static int pool_cpu_of[EW_MAX_THREADS]; /* the CPU worker k last ran on, -1 unknown */

static void pool_spread(int workers) {
    const int here = sched_getcpu();
    if (here < 0) return;
    int met = 0;
    for (int k = 1; k <= workers; k++) met |= pool_cpu_of[k] == here;
    if (!met) return;
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2) return;
    CPU_CLR(here, &allowed);
    for (int k = 1; k <= workers; k++)
        if (pool_cpu_of[k] == here &&
            pthread_setaffinity_np(pool_threads[k], sizeof allowed, &allowed) == 0)
            pool_cpu_of[k] = -1;
}
#define POOL_RAN_ON(id) (pool_cpu_of[id] = sched_getcpu())
#else
#define pool_spread(workers) ((void)0)
#define POOL_RAN_ON(id) ((void)0)
#endif
#endif

/* Takes chunks of the job until none is left; returns the floating-point flags raised. */
static int ew_work(ew_job *job) {
    feclearexcept(FE_ALL_EXCEPT);
    for (;;) {
        npy_intp lo = EW_TAKE(job);
        if (lo >= job->n) break;
        npy_intp hi = lo + job->chunk < job->n ? lo + job->chunk : job->n;
        ew_exec(job->p, job->in, job->out, lo, hi, job->stream);
    }
#if defined(__SSE2__)
    if (job->stream) _mm_sfence(); /* the streamed stores are visible before the run returns */
#endif
    int raised = taken_flags();
    feclearexcept(FE_ALL_EXCEPT);
    return raised;
}

#ifdef EW_THREADS
static void *pool_worker(void *arg) {
    const int id = (int)(intptr_t)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals go to Python's threads */
    pthread_mutex_lock(&pool_mu);
    unsigned long seen = pool_first_gen[id]; /* a job posted since then is this worker's too */
    for (;;) {
        while (pool_gen == seen) pthread_cond_wait(&pool_wake, &pool_mu);
        seen = pool_gen;
        ew_job *job = pool_job;
        if (job == NULL || id >= pool_wanted) continue; /* finished already, or not wanted */
        job->joined++;
        pthread_mutex_unlock(&pool_mu);
        int raised = ew_work(job);
        pthread_mutex_lock(&pool_mu);
        POOL_RAN_ON(id);
        job->flags |= raised;
        if (--job->joined == 0) pthread_cond_signal(&pool_done);
    }
    return NULL;
}

static void pool_after_fork_child(void) {
    pthread_mutex_init(&pool_mu, NULL);
    pthread_cond_init(&pool_wake, NULL);
    pthread_cond_init(&pool_done, NULL);
    pool_workers = 0;
    pool_busy = 0;
    pool_job = NULL;
#ifdef __linux__
    for (int k = 0; k < EW_MAX_THREADS; k++) pool_cpu_of[k] = -1;
#endif
}

/* Runs the job on up to `threads` threads (this one included; fewer if workers cannot start
 * or the pool is busy); returns the flags raised. Called without the GIL. */
#endif

static int ew_run(ew_job *job, int threads) {
    if (threads > EW_MAX_THREADS) threads = EW_MAX_THREADS;
    npy_intp chunk = job->n / (8 * (npy_intp)threads);
    chunk = chunk < EW_CHUNK ? EW_CHUNK : chunk > EW_CHUNK_MAX ? EW_CHUNK_MAX : chunk;
    job->chunk = chunk - chunk % EW_BLOCK; /* whole blocks */
    EW_START(job);
    job->joined = 0;
    job->flags = 0;
    int pooled = 0;
#ifdef EW_THREADS
    if (threads > 1) {
        pthread_mutex_lock(&pool_mu);
        if (!pool_busy) {
            while (pool_workers < threads - 1) {
                pthread_t t;
                pthread_attr_t attr;
                pthread_attr_init(&attr);
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
                /* registers (4 x 8 KB) and the ufunc loops' frames: 1 MB is ample */
                pthread_attr_setstacksize(&attr, 1 << 20);
                pool_first_gen[pool_workers + 1] = pool_gen;
                int err = pthread_create(&t, &attr, pool_worker, (void *)(intptr_t)(pool_workers + 1));
                pthread_attr_destroy(&attr);
                if (err) break;
                pool_workers++;
#ifdef __linux__
                pool_threads[pool_workers] = t;
                pool_cpu_of[pool_workers] = -1;
#endif
            }
            if (pool_workers > 0) {
                pooled = 1;
                pool_busy = 1;
                pool_job = job;
                pool_wanted = threads; /* workers 1 .. threads - 1 */
                pool_spread(threads - 1 < pool_workers ? threads - 1 : pool_workers);
                pool_gen++;
                pthread_cond_broadcast(&pool_wake);
            }
        }
        pthread_mutex_unlock(&pool_mu);
    }
#endif
    int raised = ew_work(job);
#ifdef EW_THREADS
    if (pooled) {
        pthread_mutex_lock(&pool_mu);
        pool_job = NULL; /* every chunk is dealt out: late workers stay out */
        while (job->joined > 0) pthread_cond_wait(&pool_done, &pool_mu);
        raised |= job->flags;
        pool_busy = 0;
        pthread_mutex_unlock(&pool_mu);
    }
#endif
    (void)pooled;
    return raised;
}

PyDoc_STRVAR(run_doc,
             "run(program, inputs, out, threads, stream=False) -> int\n\n"
             "Runs a program (see program()) over the inputs (a tuple of C-contiguous arrays of\n"
             "the program's dtype and out's size) into out, on up to `threads` threads; with\n"
             "stream, out is written with streaming stores (for outputs beyond the cache).\n"
             "Returns the floating-point error flags raised.");

static PyObject *run(PyObject *self, PyObject *args) {
    PyObject *capsule, *inputs, *outobj;
    int threads, stream = 0;
    if (!PyArg_ParseTuple(args, "OO!Oi|p:run", &capsule, &PyTuple_Type, &inputs, &outobj,
                          &threads, &stream))
        return NULL;
    ew_program *p = PyCapsule_GetPointer(capsule, "eagerkernel.ew_program");
    if (p == NULL) return NULL;
    if (PyTuple_GET_SIZE(inputs) != p->ninputs) {
        PyErr_Format(PyExc_ValueError, "run: the program takes %d inputs, got %zd", p->ninputs,
                     PyTuple_GET_SIZE(inputs));
        return NULL;
    }
    static const char *names[EW_MAX_INPUTS + 1] = {"out", "input 0", "input 1", "input 2",
                                                   "input 3"};
    Py_buffer views[EW_MAX_INPUTS + 1];
    char format = p->format;
    if (get_array(outobj, &views[0], 1, "run", names[0], &format, -1) < 0) return NULL;
    const Py_ssize_t n = views[0].len / views[0].itemsize;
    for (int k = 0; k < p->ninputs; k++) {
        if (get_array(PyTuple_GET_ITEM(inputs, k), &views[k + 1], 0, "run", names[k + 1], &format,
                      n) < 0) {
            release(views, k + 1);
            return NULL;
        }
    }
    char *in[EW_MAX_INPUTS];
    for (int k = 0; k < p->ninputs; k++) in[k] = views[k + 1].buf;
    ew_job job;
    job.p = p;
    job.in = in;
    job.out = views[0].buf;
    job.n = n;
    job.stream = stream;
    int raised;
    Py_BEGIN_ALLOW_THREADS
    raised = ew_run(&job, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    release(views, p->ninputs + 1);
    return PyLong_FromLong(raised);
}

/* ---- multiply(a, b): NumPy's a * b, big products on the kernel threads ----------------------
 *
 * The array function of ek.multiply (dispatch's `array_op` for Mul: every product of two
 * tensors calls it, so it must cost nothing for small ones): two C-contiguous, aligned,
 * native-order float32 or float64 NumPy arrays of one shape with at least `parallel_min`
 * elements are multiplied by NumPy's own multiply loop for the dtype (so bit for bit what
 * a * b gives) run as a program on the kernel threads, the output of at least `stream_min`
 * bytes written with streaming stores; anything else is PyNumber_Multiply(a, b), which is
 * what a * b calls. When the loop raised an IEEE flag that np.geterr() does not ignore, the
 * result is dropped and NumPy computes the product again, warning or raising as it does.  */
static PyObject *ndarray_type, *np_multiply, *np_empty_like, *np_geterr;
static Py_ssize_t mul_parallel_min = 1 << 17, mul_stream_min = 8 << 20;
static int mul_threads = 1;
static ew_program mul_programs[2]; /* float32, float64; compiled at first use */
static int mul_compiled[2];

/* Whether np.geterr() ignores every flag in `raised`; -1 on error. */
static int mul_flags_ignored(int raised) {
    static const char *keys[4] = {"over", "invalid", "divide", "under"};
    static const int bits[4] = {OVERFLOW, INVALID, DIVBYZERO, UNDERFLOW};
    PyObject *policy = PyObject_CallNoArgs(np_geterr);
    if (policy == NULL) return -1;
    int ignored = 1;
    for (int k = 0; k < 4 && ignored; k++) {
        if (!(raised & bits[k])) continue;
        PyObject *mode = PyDict_GetItemString(policy, keys[k]); /* borrowed */
        ignored = mode != NULL && PyUnicode_Check(mode) &&
                  PyUnicode_CompareWithASCIIString(mode, "ignore") == 0;
    }
    Py_DECREF(policy);
    return ignored;
}

PyDoc_STRVAR(multiply_doc,
             "multiply(a, b) -> a * b\n\n"
             "NumPy's a * b; two big C-contiguous float arrays of one shape and dtype are\n"
             "multiplied by NumPy's loop on the kernel threads (see kernels.multiply).");

static PyObject *multiply(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "multiply: takes 2 arguments, got %zd", nargs);
        return NULL;
    }
    PyObject *a = args[0], *b = args[1];
    if (Py_TYPE(a) != (PyTypeObject *)ndarray_type || Py_TYPE(b) != (PyTypeObject *)ndarray_type)
        return PyNumber_Multiply(a, b);
    PyArrayObject *x = (PyArrayObject *)a, *y = (PyArrayObject *)b;
    const int nd = PyArray_NDIM(x);
    const int need = NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED;
    if (nd != PyArray_NDIM(y) || (PyArray_FLAGS(x) & need) != need ||
        (PyArray_FLAGS(y) & need) != need)
        return PyNumber_Multiply(a, b);
    npy_intp n = 1;
    for (int k = 0; k < nd; k++) {
        if (PyArray_DIMS(x)[k] != PyArray_DIMS(y)[k]) return PyNumber_Multiply(a, b);
        n *= PyArray_DIMS(x)[k];
    }
    const int type = PyArray_DESCR(x)->type_num;
    if (n < mul_parallel_min || (type != NPY_FLOAT && type != NPY_DOUBLE) ||
        PyArray_DESCR(y)->type_num != type || !PyArray_ISNOTSWAPPED(x) || !PyArray_ISNOTSWAPPED(y))
        return PyNumber_Multiply(a, b);
    const int d = type == NPY_DOUBLE;
    ew_program *p = &mul_programs[d];
    if (!mul_compiled[d]) {
        memset(p, 0, sizeof *p);
        p->format = d ? 'd' : 'f';
        p->itemsize = d ? sizeof(double) : sizeof(float);
        p->ninputs = 2;
        p->nsteps = 1;
        if (ew_ufunc_loop(np_multiply, type, &p->steps[0]) < 0) return NULL;
        p->steps[0].refs[0] = EW_IN;
        p->steps[0].refs[1] = EW_IN + 1;
        p->steps[0].refs[2] = EW_OUT;
        mul_compiled[d] = 1;
    }
    PyObject *out = PyObject_CallOneArg(np_empty_like, a);
    if (out == NULL) return NULL;
    if (Py_TYPE(out) != (PyTypeObject *)ndarray_type ||
        !(PyArray_FLAGS((PyArrayObject *)out) & NPY_ARRAY_C_CONTIGUOUS)) {
        Py_DECREF(out);
        return PyNumber_Multiply(a, b);
    }
    char *in[2] = {PyArray_DATA(x), PyArray_DATA(y)};
    ew_job job;
    job.p = p;
    job.in = in;
    job.out = PyArray_DATA((PyArrayObject *)out);
    job.n = n;
    job.stream = (Py_ssize_t)n * p->itemsize >= mul_stream_min;
    npy_intp most = n / (mul_parallel_min / 2 > 0 ? mul_parallel_min / 2 : 1);
    int threads = most < mul_threads ? (int)most : mul_threads;
    int raised;
    Py_BEGIN_ALLOW_THREADS
    raised = ew_run(&job, threads < 1 ? 1 : threads);
    Py_END_ALLOW_THREADS
    if (raised) {
        int ignored = mul_flags_ignored(raised);
        if (ignored != 1) {
            Py_DECREF(out);
            return ignored < 0 ? NULL : PyNumber_Multiply(a, b);
        }
    }
    return out;
}

PyDoc_STRVAR(configure_multiply_doc,
             "_configure_multiply([parallel_min, stream_min, threads]) -> tuple\n\n"
             "Sets multiply()'s thresholds (elements, bytes) and thread count (kernels.py does);\n"
             "returns the settings in force.");

static PyObject *configure_multiply(PyObject *self, PyObject *args) {
    Py_ssize_t parallel_min = mul_parallel_min, stream_min = mul_stream_min;
    int threads = mul_threads;
    if (!PyArg_ParseTuple(args, "|nni:_configure_multiply", &parallel_min, &stream_min,
                          &threads))
        return NULL;
    if (parallel_min < 2 || stream_min < 0 || threads < 1 || threads > EW_MAX_THREADS) {
        PyErr_SetString(PyExc_ValueError, "_configure_multiply: a value out of range");
        return NULL;
    }
    mul_parallel_min = parallel_min;
    mul_stream_min = stream_min;
    mul_threads = threads;
    return Py_BuildValue("nni", mul_parallel_min, mul_stream_min, mul_threads);
}

PyDoc_STRVAR(use_avx512_doc,
             "_use_avx512(flag) -> bool\n\n"
             "For tests: whether the exp32 passes use their AVX-512F intrinsics (flag true and the\n"
             "CPU has AVX-512F) or the portable C; returns the previous setting.");

static PyObject *use_avx512(PyObject *self, PyObject *arg) {
    int flag = PyObject_IsTrue(arg);
    if (flag < 0) return NULL;
    int before = cpu_avx512f;
#ifdef EXP32_AVX512
    cpu_avx512f = flag && __builtin_cpu_supports("avx512f");
#endif
    return PyBool_FromLong(before);
}

static PyMethodDef methods[] = {
    {"_use_avx512", use_avx512, METH_O, use_avx512_doc},
    {"adam", adam, METH_VARARGS, adam_doc},
    {"max_pool_grad", max_pool_grad, METH_VARARGS, max_pool_grad_doc},
    {"col2im", col2im, METH_VARARGS, col2im_doc},
    {"program", program, METH_VARARGS, program_doc},
    {"mul_sum", mul_sum, METH_VARARGS, mul_sum_doc},
    {"run", run, METH_VARARGS, run_doc},
    {"multiply", (PyCFunction)(void (*)(void))multiply, METH_FASTCALL, multiply_doc},
    {"_configure_multiply", configure_multiply, METH_VARARGS, configure_multiply_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels",
    "Fused kernels in C (see eagerkernel/runtime/kernels.py).", -1, methods,
};

/* Whether the CPU has AVX2 and FMA: where it does, np.exp runs NumPy's SIMD float32 exp,
 * which exp32 reproduces (kernels.py still checks the bits at first use). */
static int cpu_fma(void) {
#if defined(__GNUC__) && defined(__x86_64__)
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

PyMODINIT_FUNC PyInit__kernels(void) {
    PyObject *m = PyModule_Create(&module);
    if (m == NULL) return NULL;
    PyObject *numpy = PyImport_ImportModule("numpy");
    if (numpy == NULL) {
        Py_DECREF(m);
        return NULL;
    }
    ufunc_type = PyObject_GetAttrString(numpy, "ufunc");
    ndarray_type = PyObject_GetAttrString(numpy, "ndarray");
    np_multiply = PyObject_GetAttrString(numpy, "multiply");
    np_empty_like = PyObject_GetAttrString(numpy, "empty_like");
    np_geterr = PyObject_GetAttrString(numpy, "geterr");
    Py_DECREF(numpy);
    if (ufunc_type == NULL || ndarray_type == NULL || np_multiply == NULL ||
        np_empty_like == NULL || np_geterr == NULL) {
        Py_DECREF(m);
        return NULL;
    }
#ifdef EW_THREADS
    pthread_atfork(NULL, NULL, pool_after_fork_child);
#endif
#ifdef EXP32_AVX512
    cpu_avx512f = __builtin_cpu_supports("avx512f");
#endif
    if (PyModule_AddIntConstant(m, "OVERFLOW", OVERFLOW) < 0 ||
        PyModule_AddIntConstant(m, "INVALID", INVALID) < 0 ||
        PyModule_AddIntConstant(m, "DIVBYZERO", DIVBYZERO) < 0 ||
        PyModule_AddIntConstant(m, "UNDERFLOW", UNDERFLOW) < 0 ||
        PyModule_AddIntConstant(m, "CPU_FMA", cpu_fma()) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
