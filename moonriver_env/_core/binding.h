/* What the files of the CPython binding share (module.c: the module, Moon River's Config and
 * the shared helpers; batch.c: Moon River's Batch; state.c: its State; kdbind.c: Kingdomino,
 * added to moonriver_env._native by module.c). */
#ifndef MOONRIVER_BINDING_H
#define MOONRIVER_BINDING_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "moonriver.h"

/* --- what every native object shares (safe from any Python caller) ------------------------
 * A config object (Config, KdConfig) starts with this head: ready is set once its __init__
 * has succeeded, and never again (a second __init__ is refused: batches and states read the
 * parameters without the GIL). */
typedef struct {
    PyObject_HEAD int ready;
} ConfigHead;
/* 0 when config (a config object) is initialised, else -1 with RuntimeError "<type> is not
 * initialised". */
int config_ready(PyObject *config);
/* 0 when config has not been initialised yet (its __init__ may run), else -1 with
 * RuntimeError "<type>: already initialised". */
int config_fresh(PyObject *config);
/* The short name of an object's type, for messages ("Batch"). */
const char *type_name(PyObject *obj);

/* A batch object (Batch, KdBatch) starts with this head. ready: its __init__ succeeded (a
 * failed one leaves nothing held and the object unusable); busy: a call is running on it
 * (possibly with the GIL released). Every method runs through batch_call, which refuses an
 * uninitialised batch (RuntimeError "<type> is not initialised") and a batch another call is
 * using (RuntimeError "<type> is in use by another call ..."): a batch is stepped, reset and
 * read by one thread at a time, and a refused call changes nothing. */
typedef struct {
    PyObject_HEAD PyObject *config; /* the config object, kept alive */
    int ready, busy;
} BatchHead;
typedef PyObject *(*batch_method)(PyObject *self, PyObject *args);
PyObject *batch_call(PyObject *self, PyObject *args, batch_method body);
/* 0 when self may be initialised now (not ready, not busy; then busy is set), else -1 with
 * RuntimeError. batch_init_done(self, ok) ends it: ready = ok, busy cleared. */
int batch_init_begin(PyObject *self);
int batch_init_done(PyObject *self, int ok);
/* A batch type's methods from one list: LIST(X, prefix) names each method as
 * X(prefix, name, doc), whose body is prefix##_##name(self, args); BATCH_METHODS(LIST, prefix)
 * defines a guarded function for each (through batch_call) and the table prefix##_methods. */
#define BATCH_GUARD(prefix, name, doc)                                                         \
    static PyObject *prefix##_##name##_guarded(PyObject *self, PyObject *args) {               \
        return batch_call(self, args, (batch_method)prefix##_##name);                          \
    }
#define BATCH_ENTRY(prefix, name, doc) {#name, prefix##_##name##_guarded, METH_VARARGS, doc},
#define BATCH_METHODS(LIST, prefix)                                                            \
    LIST(BATCH_GUARD, prefix)                                                                  \
    static PyMethodDef prefix##_methods[] = {LIST(BATCH_ENTRY, prefix){NULL}};

/* The items of obj (a sequence) as a private tuple, taken before any item is converted so
 * that no __index__ or __float__ can change what the C code reads; NULL with TypeError
 * (message) set. */
PyObject *sequence_snapshot(PyObject *obj, const char *message);
/* The action ids of the sequence obj (every conversion done on a private copy before the
 * caller reads any), each 0..INT32_MAX, at most max of them, as a new PyMem array of *count
 * ints (freed by the caller); NULL with an exception set (ValueError "<name>: action <a> is
 * not legal here" for an id out of that range). The caller checks them against the state it
 * plays after this, with no Python code run in between. */
int *read_action_ids(PyObject *obj, const char *name, Py_ssize_t max, Py_ssize_t *count);

/* Moon River's config object (module.c), its Batch (batch.c) and State (state.c) types. */
typedef struct {
    ConfigHead head;
    mr_config cfg;
} ConfigObject;
extern PyTypeObject ConfigType, BatchType, StateType;
/* The module functions new_state(config, seed) and state_from_record(config, bytes) (state.c). */
PyObject *new_state(PyObject *mod, PyObject *args);
PyObject *state_from_record(PyObject *mod, PyObject *args);

/* Whether a is in the ascending list legal of count ids (binary search). */
int legal_has(const int16_t *legal, int count, int64_t a);
/* mr_check_state, then mr_rebuild when it passes: a record_check for Moon River. */
const char *mr_check_and_rebuild(const void *cfg, void *st);
/* Writes seat's flat observation of st into out (a writable float32 buffer of obs_size):
 * the one body of Batch.observe and State.observe. */
PyObject *observe_into(const mr_config *cfg, const mr_state *st, int seat, PyObject *out);

/* The 11 fields of agents.evaluation.Weights from a sequence of numbers (state.c); 0, or -1
 * with an error set. */
int read_weights(PyObject *wobj, double w[11]);
/* Sparse rows times dense matrices (sparsemm.c). */
PyObject *sparse_matmul(PyObject *self, PyObject *args);
PyObject *sparse_matmul_t(PyObject *self, PyObject *args);
/* Kingdomino's search state type (kdbind.c). */
extern PyTypeObject KdStateType;
/* Adds the learned agent's functions and its Net type to the module (azbind.c). */
int az_add_to_module(PyObject *m);

/* Adds the kd_* functions, the KdState type and the Kingdomino constants to the module;
 * 0, or -1 with an exception set. */
int kd_add_to_module(PyObject *m);

/* The most threads a batch method's rows are shared among (observe_rows). */
#define MAX_ROW_THREADS 64

/* Calls fn(ctx, lo, hi) on consecutive shares of the rows 0..N-1, from threads threads
 * (1..MAX_ROW_THREADS; the caller's own included, the others started and joined here; a
 * share whose thread cannot start is done by the caller). No Python may run in fn: call it
 * with the GIL released. */
void parallel_rows(Py_ssize_t N, int threads, void (*fn)(void *, Py_ssize_t, Py_ssize_t),
                   void *ctx);

/* threads checked for parallel_rows: 1 with ValueError set when out of 1..MAX_ROW_THREADS. */
int check_row_threads(int threads);

/* The buffer of obj as count items of one of the struct codes in format (module.c); 0, or
 * -1 with TypeError/ValueError set (nothing held). */
int get_buffer(PyObject *obj, Py_buffer *view, const char *name, const char *format,
               Py_ssize_t itemsize, Py_ssize_t count, int writable);

/* Whether a batch's three sparse outputs (idx, val, nnz: Py_None when not given) are given,
 * and width in 1..obs_size if they are: 1 (given), 0 (none), or -1 with ValueError naming
 * who. */
static inline int sparse_outputs(const char *who, PyObject *idx, PyObject *val, PyObject *nnz,
                                 int width, int obs_size) {
    int given = (idx != Py_None) + (val != Py_None) + (nnz != Py_None);
    if (given != 0 && given != 3) {
        PyErr_Format(PyExc_ValueError, "%s: sparse_idx, sparse_val and sparse_nnz go together",
                     who);
        return -1;
    }
    if (given && (width < 1 || width > obs_size)) {
        PyErr_Format(PyExc_ValueError, "%s: sparse_width must be in 1..%d, got %d", who,
                     obs_size, width);
        return -1;
    }
    return given == 3;
}

/* The sparse form of one dense observation row (moonriver_env.family.sparse): its non-zero
 * entries in index order into idx/val (width entries), the rest of the row up to the *prev
 * entries it held before padded with index size and value 0; *prev becomes the new count.
 * Returns the count, or -1 (the row left all padding) if there are more. */
static inline int pack_dense_row(const float *dense, int size, int32_t *idx, float *val,
                                 int width, int32_t *prev) {
    int k = 0, over = 0;
    for (int j = 0; j < size; j++) {
        if (dense[j] != 0.0f) {
            if (k < width) {
                idx[k] = j;
                val[k++] = dense[j];
            } else {
                over = 1;
            }
        }
    }
    if (over) { /* the row is left all padding */
        k = 0;
    }
    for (int j = k; j < *prev; j++) {
        idx[j] = size;
        val[j] = 0.0f;
    }
    *prev = k;
    return over ? -1 : k;
}

/* Checks a game record read from outside and rebuilds its derived fields; NULL, or a message
 * naming the bad field. */
typedef const char *(*record_check)(const void *params, void *state);
/* Reads a record (a bytes-like of exactly size bytes) into *out if check passes; 0, or -1
 * with ValueError (the size, or check's message) and *out unchanged. */
int load_record(PyObject *record, const void *params, record_check check, void *out,
                size_t size);

/* A search state object (module.c State, kdbind.c KdState): this head, then the game's struct
 * at CORE_STATE_OFFSET (checked with a static assert next to each type). */
typedef struct {
    PyObject_HEAD PyObject *config; /* the config object, kept alive */
    const void *params;             /* inside config */
} CoreStateHead;
#define CORE_STATE_OFFSET sizeof(CoreStateHead)

/* A new state object of type (its game struct left to the caller) under config, whose
 * parameters are params; NULL with an exception set. */
PyObject *core_state_new(PyTypeObject *type, PyObject *config, const void *params);
void core_state_dealloc(PyObject *self);
/* The methods every state object shares: clone(), copy_from(other), time_clones(k). */
PyObject *core_state_clone(PyObject *self, PyObject *unused);
PyObject *core_state_copy_from(PyObject *self, PyObject *other);
PyObject *core_state_time_clones(PyObject *self, PyObject *arg);
/* An int8 field of the game struct, at the byte offset the closure holds (phase, seat). */
PyObject *core_state_int8(PyObject *self, void *offset);
/* The methods above, for a type's method table (clone, copy_from, record, time_clones). */
#define CORE_STATE_METHODS                                                                     \
    {"clone", core_state_clone, METH_NOARGS, "an independent copy"},                           \
    {"copy_from", core_state_copy_from, METH_O, "become a copy of another state of its type"}, \
    {"record", core_state_record, METH_NOARGS, "the game's record bytes"},                     \
    {"time_clones", core_state_time_clones, METH_O, "benchmark helper"}
/* The getters of the acting seat and the phase, for a game struct G. */
#define CORE_STATE_GETSET(G)                                                                   \
    {"phase", core_state_int8, NULL, "phase code", (void *)offsetof(G, phase)},                \
    {"seat", core_state_int8, NULL, "acting seat (-1 when over)", (void *)offsetof(G, seat)}
/* record() -> the game struct's bytes. */
PyObject *core_state_record(PyObject *self, PyObject *unused);
/* A new state object of type from a record read with load_record; NULL with an exception. */
PyObject *core_state_from_record(PyTypeObject *type, PyObject *config, const void *params,
                                 PyObject *record, record_check check);

/* A NumPy PCG64 generator's state as the Python side passes it, six integers (state and inc
 * in 64-bit halves, has_uint32, uinteger), to and from the core's mr_pcg64. */
int parse_generator(PyObject *words, mr_pcg64 *rng);
PyObject *build_generator(const mr_pcg64 *rng);

/* The head of a type of moonriver_env._native: its struct, name and docstring. */
#define NATIVE_TYPE(Struct, name, doc)                                                         \
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moonriver_env._native." name,                    \
    .tp_basicsize = sizeof(Struct), .tp_flags = Py_TPFLAGS_DEFAULT, .tp_doc = doc

/* A batch type's slots: prefix##_init, prefix##_dealloc and prefix##_methods. */
#define NATIVE_BATCH_TYPE(Struct, prefix, name, doc)                                            \
    NATIVE_TYPE(Struct, name, doc), .tp_new = PyType_GenericNew,                               \
    .tp_init = (initproc)prefix##_init, .tp_dealloc = (destructor)prefix##_dealloc,            \
    .tp_methods = prefix##_methods

/* A state type's slots: the shared dealloc, prefix##_methods and prefix##_getset. */
#define NATIVE_STATE_TYPE(Struct, prefix, name, doc)                                            \
    NATIVE_TYPE(Struct, name, doc), .tp_dealloc = core_state_dealloc,                          \
    .tp_methods = prefix##_methods, .tp_getset = prefix##_getset

/* A tuple (a list when as_list) of count items, item i made by make(data, i); NULL with an
 * exception set. The makers below read data as an array of their type. */
typedef PyObject *(*item_maker)(const void *data, Py_ssize_t i);
PyObject *build_items(int as_list, Py_ssize_t count, item_maker make, const void *data);
PyObject *item_int16(const void *data, Py_ssize_t i);
PyObject *item_int32(const void *data, Py_ssize_t i);
PyObject *item_int64(const void *data, Py_ssize_t i);
PyObject *item_double(const void *data, Py_ssize_t i);
PyObject *item_name(const void *data, Py_ssize_t i);  /* const char *[] */
PyObject *item_field(const void *data, Py_ssize_t i); /* mr_field[]: (name, offset, type, count) */

/* Batch.afterstates and KdBatch.afterstates (azbind.c): kind 0 Moon River (params an
 * mr_config), 1 Kingdomino (KdParams); num_games states of stride bytes from states. */
PyObject *batch_afterstates(int kind, const void *params, const char *states, size_t stride,
                            Py_ssize_t num_games, PyObject *args);

#endif
