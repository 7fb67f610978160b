/* Philox-4x32-10 and the distributions TensorFlow's CPU kernels build on it
 * (random_distributions.h), in C: the twin of eagerkernel/runtime/philox.py, whose docstrings
 * give the conventions (a 64-bit key, a 128-bit counter counted in blocks, four 32-bit words
 * per block). The NumPy twin takes 60-450 ns a number and tens of microseconds a call; this
 * takes a few nanoseconds a number.
 *
 * The float32 normals call the C library's logf and sincosf, as TensorFlow's kernel does, so
 * they are TensorFlow's bit for bit wherever both run on the same C library (libm_float.py
 * reproduces glibc's for the NumPy twin); the float64 normals call log and sincos, as
 * TensorFlow's kernel does. Built with -ffp-contract=off (setup.py): no fused multiply-adds
 * that TensorFlow's build does not make either.
 */
#define _GNU_SOURCE /* sincosf, sincos */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define M0 0xD2511F53u
#define M1 0xCD9E8D57u
#define W0 0x9E3779B9u
#define W1 0xBB67AE85u

/* The Philox-4x32-10 block of the 128-bit counter (lo, hi) under 64-bit key `key`. */
static inline void philox(uint64_t lo, uint64_t hi, uint64_t key, uint32_t out[4]) {
    uint32_t c0 = (uint32_t)lo, c1 = (uint32_t)(lo >> 32);
    uint32_t c2 = (uint32_t)hi, c3 = (uint32_t)(hi >> 32);
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)M0 * c0, p1 = (uint64_t)M1 * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        uint32_t n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += W0;
        k1 += W1;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* The counter one block on, modulo 2**128. */
static inline void next_counter(uint64_t *lo, uint64_t *hi) {
    if (++*lo == 0) ++*hi;
}

/* TF's Uint32ToFloat: a float32 in [0, 1) from the low 23 bits. */
static inline float uint32_to_float(uint32_t x) {
    uint32_t bits = (x & 0x7FFFFFu) | 0x3F800000u;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f - 1.0f;
}

/* TF's Uint64ToDouble: a float64 in [0, 1) from 52 bits of x0, x1. */
static inline double uint64_to_double(uint32_t x0, uint32_t x1) {
    uint64_t bits = ((uint64_t)(x0 & 0xFFFFFu) << 32) | x1 | ((uint64_t)1023 << 52);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d - 1.0;
}

/* TF's BoxMullerFloat: two float32 normals from two words. */
static inline void box_muller_float(uint32_t x0, uint32_t x1, float *f0, float *f1) {
    float u1 = uint32_to_float(x0);
    if (u1 < 1.0e-7f) u1 = 1.0e-7f;
    const float v1 = 2.0f * M_PI * uint32_to_float(x1); /* the product in double, rounded */
    const float u2 = sqrtf(-2.0f * logf(u1));
#ifdef __GLIBC__
    sincosf(v1, f0, f1);
#else
    *f0 = sinf(v1);
    *f1 = cosf(v1);
#endif
    *f0 *= u2;
    *f1 *= u2;
}

/* TF's BoxMullerDouble: two float64 normals from four words. */
static inline void box_muller_double(const uint32_t w[4], double *d0, double *d1) {
    double u1 = uint64_to_double(w[0], w[1]);
    if (u1 < 1.0e-7) u1 = 1.0e-7;
    const double v1 = 2 * M_PI * uint64_to_double(w[2], w[3]);
    const double u2 = sqrt(-2.0 * log(u1));
#ifdef __GLIBC__
    sincos(v1, d0, d1);
#else
    *d0 = sin(v1);
    *d1 = cos(v1);
#endif
    *d0 *= u2;
    *d1 *= u2;
}

/* One block's numbers of distribution `kind` into `out` (4 for 4-byte kinds, 2 for 8-byte
 * ones); returns how many. */
static inline int block_values(char kind, const uint32_t w[4], void *out) {
    float *f = out;
    double *d = out;
    switch (kind) {
    case 'w': memcpy(out, w, 4 * sizeof(uint32_t)); return 4;
    case 'u':
        for (int i = 0; i < 4; i++) f[i] = uint32_to_float(w[i]);
        return 4;
    case 'U':
        d[0] = uint64_to_double(w[0], w[1]);
        d[1] = uint64_to_double(w[2], w[3]);
        return 2;
    case 'n':
        box_muller_float(w[0], w[1], &f[0], &f[1]);
        box_muller_float(w[2], w[3], &f[2], &f[3]);
        return 4;
    case 'N': box_muller_double(w, &d[0], &d[1]); return 2;
    }
    return 0;
}

/* `n` numbers of `kind` ('w' words, 'u'/'U' uniform float32/64, 'n'/'N' normal float32/64)
 * from consecutive blocks starting at counter (lo, hi). */
static void fill_stream(char kind, uint64_t key, uint64_t lo, uint64_t hi, char *out,
                        Py_ssize_t n, int itemsize) {
    uint32_t w[4];
    char values[32];
    Py_ssize_t i = 0;
    while (i < n) {
        philox(lo, hi, key, w);
        next_counter(&lo, &hi);
        int got = block_values(kind, w, values);
        int take = n - i < got ? (int)(n - i) : got;
        memcpy(out + i * itemsize, values, (size_t)take * itemsize);
        i += take;
    }
}

/* TF's TruncatedNormalDistribution: output group g (4 float32s, or 2 float64s) reads its own
 * blocks from counter + 64 * 4 * g (64 * 2 * g) and keeps, in order, the normals of magnitude
 * below 2. */
static void fill_truncated(int wide, uint64_t key, uint64_t lo, uint64_t hi, char *out,
                           Py_ssize_t n) {
    const int per = wide ? 2 : 4;
    const uint64_t skip = 64 * (uint64_t)per;
    uint32_t w[4];
    for (Py_ssize_t g = 0; g * per < n; g++) {
        uint64_t offset = skip * (uint64_t)g; /* g < 2**62: no overflow of the product */
        uint64_t glo = lo + offset, ghi = hi + (glo < lo);
        int kept = 0, want = n - g * per < per ? (int)(n - g * per) : per;
        while (kept < want) {
            philox(glo, ghi, key, w);
            next_counter(&glo, &ghi);
            if (wide) {
                double z[2];
                box_muller_double(w, &z[0], &z[1]);
                for (int j = 0; j < 2 && kept < want; j++) {
                    if (fabs(z[j]) < 2.0) ((double *)out)[g * per + kept++] = z[j];
                }
            } else {
                float z[4];
                box_muller_float(w[0], w[1], &z[0], &z[1]);
                box_muller_float(w[2], w[3], &z[2], &z[3]);
                for (int j = 0; j < 4 && kept < want; j++) {
                    if (fabsf(z[j]) < 2.0f) ((float *)out)[g * per + kept++] = z[j];
                }
            }
        }
    }
}

PyDoc_STRVAR(fill_doc,
             "fill(out, kind, key, counter_lo, counter_hi)\n--\n\n"
             "Fills the writable contiguous buffer ``out`` with Philox numbers of ``kind`` "
             "from 64-bit ``key`` and the 128-bit counter ``counter_hi * 2**64 + "
             "counter_lo``: 'w' the raw uint32 words, 'u'/'U' uniform float32/float64 in "
             "[0, 1), 'n'/'N' normal float32/float64, 't'/'T' truncated normal "
             "float32/float64, each as TensorFlow's CPU kernels consume the words (see "
             "eagerkernel/runtime/philox.py). ``out``'s item size must be the kind's (4 or "
             "8 bytes); ValueError otherwise. The GIL is released while it fills.");

static PyObject *fill(PyObject *module, PyObject *args) {
    Py_buffer view;
    int kind;
    unsigned long long key, lo, hi;
    if (!PyArg_ParseTuple(args, "w*CKKK:fill", &view, &kind, &key, &lo, &hi)) return NULL;
    int itemsize = strchr("wunt", kind) ? 4 : strchr("UNT", kind) ? 8 : 0;
    if (itemsize == 0 || view.itemsize != itemsize || view.len % itemsize != 0 ||
        !PyBuffer_IsContiguous(&view, 'C')) {
        PyErr_Format(PyExc_ValueError,
                     "philox fill: kind %c needs a C-contiguous buffer of %d-byte items; "
                     "received items of %zd bytes",
                     kind, itemsize, view.itemsize);
        PyBuffer_Release(&view);
        return NULL;
    }
    Py_ssize_t n = view.len / itemsize;
    Py_BEGIN_ALLOW_THREADS;
    if (kind == 't' || kind == 'T') {
        fill_truncated(kind == 'T', key, lo, hi, view.buf, n);
    } else {
        fill_stream((char)kind, key, lo, hi, view.buf, n, itemsize);
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"fill", fill, METH_VARARGS, fill_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_philox",
    "Philox-4x32-10 and TensorFlow's distributions on it, in C (see "
    "eagerkernel/runtime/philox.py).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__philox(void) { return PyModule_Create(&module); }
