/* Products of sparse rows with a dense matrix, for the first layer of networks that read the
 * sparse observation (training/ppo/ppo.py): CSR rows x (crow, idx, val) times w (D x E),
 * and x's transpose times g (B x E), accumulated into a D x E gradient. Every array is
 * checked before the loops; the loops read each index and row bound once, through volatile
 * pointers, and check it again, so arrays changed by another thread meanwhile cannot send a
 * read or a write out of bounds (such a row is skipped and the call raises ValueError). */
#include "binding.h"

#include <string.h>

typedef struct {
    Py_buffer crow, idx, val, dense, out;
    Py_ssize_t rows, nnz, d, e;
} sparse_args;

static void release(sparse_args *a, int n) {
    Py_buffer *views[] = {&a->crow, &a->idx, &a->val, &a->dense, &a->out};
    for (int i = 0; i < n; i++) {
        PyBuffer_Release(views[i]);
    }
}

/* Reads (crow, idx, val, dense, out, d, e) where dense has dense_rows x e floats and out
 * out_rows x e; rows = len(crow) - 1, d the number of columns of x. 0, or -1 with an error. */
static int parse(PyObject *args, sparse_args *a, int dense_is_w) {
    PyObject *crow, *idx, *val, *dense, *out;
    if (!PyArg_ParseTuple(args, "OOOOOnn", &crow, &idx, &val, &dense, &out, &a->d, &a->e)) {
        return -1;
    }
    if (a->d < 1 || a->e < 1 || a->d > (1 << 24) || a->e > (1 << 16)) {
        PyErr_SetString(PyExc_ValueError, "d and e must be in 1..2**24 and 1..2**16");
        return -1;
    }
    if (PyObject_GetBuffer(crow, &a->crow, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        return -1;
    }
    a->rows = a->crow.len / 8 - 1;
    PyBuffer_Release(&a->crow);
    if (a->rows < 0 || a->rows > (1 << 26)) {
        PyErr_SetString(PyExc_ValueError, "crow: expected 1 to 2**26 + 1 entries");
        return -1;
    }
    if (get_buffer(crow, &a->crow, "crow", "qlL", 8, a->rows + 1, 0) < 0) {
        return -1;
    }
    if (PyObject_GetBuffer(idx, &a->idx, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        release(a, 1);
        return -1;
    }
    a->nnz = a->idx.len / 8;
    PyBuffer_Release(&a->idx);
    if (get_buffer(idx, &a->idx, "idx", "qlL", 8, a->nnz, 0) < 0) {
        release(a, 1);
        return -1;
    }
    if (get_buffer(val, &a->val, "val", "f", 4, a->nnz, 0) < 0) {
        release(a, 2);
        return -1;
    }
    Py_ssize_t dense_rows = dense_is_w ? a->d : a->rows, out_rows = dense_is_w ? a->rows : a->d;
    if (get_buffer(dense, &a->dense, dense_is_w ? "w" : "g", "f", 4, dense_rows * a->e, 0) < 0) {
        release(a, 3);
        return -1;
    }
    if (get_buffer(out, &a->out, "out", "f", 4, out_rows * a->e, 1) < 0) {
        release(a, 4);
        return -1;
    }
    return 0;
}

/* The entries of row r: [*lo, *hi) within 0..nnz, read once; 0 if the bounds are bad. */
static int row_bounds(const volatile int64_t *crow, Py_ssize_t r, Py_ssize_t nnz, int64_t *lo,
                      int64_t *hi) {
    *lo = crow[r];
    *hi = crow[r + 1];
    return *lo >= 0 && *lo <= *hi && *hi <= nnz;
}

/* The one loop of both products: for each entry (row r, column j, value v) of x, adds
 * v * dense[transposed ? r : j] to out[transposed ? j : r]. None, or NULL with ValueError naming
 * name when a row bound or an index is out of range (that entry or row skipped). */
static PyObject *product(PyObject *args, int transposed, const char *name) {
    sparse_args a;
    if (parse(args, &a, !transposed) < 0) {
        return NULL;
    }
    const volatile int64_t *crow = a.crow.buf, *idx = a.idx.buf;
    const float *val = a.val.buf, *dense = a.dense.buf;
    float *out = a.out.buf;
    Py_ssize_t e = a.e, bad = 0;
    Py_BEGIN_ALLOW_THREADS;
    if (!transposed) { /* x @ w is written whole; x^T @ g adds to the caller's gradient */
        memset(out, 0, sizeof(float) * (size_t)(a.rows * e));
    }
    for (Py_ssize_t r = 0; r < a.rows; r++) {
        int64_t lo, hi;
        if (!row_bounds(crow, r, a.nnz, &lo, &hi)) {
            bad = 1;
            continue;
        }
        for (int64_t k = lo; k < hi; k++) {
            int64_t j = idx[k];
            if (j < 0 || j >= a.d) {
                bad = 1;
                continue;
            }
            float *o = out + (transposed ? j : r) * e;
            const float *src = dense + (transposed ? r : j) * e;
            float v = val[k];
            for (Py_ssize_t c = 0; c < e; c++) {
                o[c] += v * src[c];
            }
        }
    }
    Py_END_ALLOW_THREADS;
    release(&a, 5);
    if (bad) {
        PyErr_Format(PyExc_ValueError, "%s: a row bound or an index is out of range", name);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* sparse_matmul(crow, idx, val, w, out, d, e): out (B x e) = x @ w, w (d x e). */
PyObject *sparse_matmul(PyObject *self, PyObject *args) {
    (void)self;
    return product(args, 0, "sparse_matmul");
}

/* sparse_matmul_t(crow, idx, val, g, out, d, e): out (d x e) += x^T @ g, g (B x e). */
PyObject *sparse_matmul_t(PyObject *self, PyObject *args) {
    (void)self;
    return product(args, 1, "sparse_matmul_t");
}
