/* The CPython binding of the native core: moonriver_env._native.
 *
 * This file: the module, Config (the checked per-config tables, from the spec vector) and
 * the helpers every binding file shares (binding.h). Batch: batch.c; State: state.c;
 * Kingdomino: kdbind.c.
 *
 * The Python API is moonriver_env.vector; nothing here is meant to be called directly.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>

#include "binding.h"
#include "moonriver.h"

/* --- rows shared among threads (binding.h) -------------------------------------------------- */
typedef struct {
    void (*fn)(void *, Py_ssize_t, Py_ssize_t);
    void *ctx;
    Py_ssize_t lo, hi;
} rows_share;

static void *run_share(void *arg) {
    rows_share *share = arg;
    share->fn(share->ctx, share->lo, share->hi);
    return NULL;
}

void parallel_rows(Py_ssize_t N, int threads, void (*fn)(void *, Py_ssize_t, Py_ssize_t),
                   void *ctx) {
    if (threads > N) {
        threads = N > 0 ? (int)N : 1;
    }
    if (threads < 1 || threads > MAX_ROW_THREADS) {
        threads = 1;
    }
    pthread_t tid[MAX_ROW_THREADS];
    rows_share shares[MAX_ROW_THREADS];
    int started[MAX_ROW_THREADS] = {0};
    for (int t = 0; t < threads; t++) {
        shares[t] = (rows_share){fn, ctx, N * t / threads, N * (t + 1) / threads};
    }
    for (int t = 1; t < threads; t++) {
        started[t] = pthread_create(&tid[t], NULL, run_share, &shares[t]) == 0;
    }
    run_share(&shares[0]);
    for (int t = 1; t < threads; t++) {
        if (started[t]) {
            pthread_join(tid[t], NULL);
        } else {
            run_share(&shares[t]);
        }
    }
}

int check_row_threads(int threads) {
    if (threads < 1 || threads > MAX_ROW_THREADS) {
        PyErr_Format(PyExc_ValueError, "threads: expected 1..%d, got %d", MAX_ROW_THREADS,
                     threads);
        return -1;
    }
    return 0;
}

/* --- Config -------------------------------------------------------------------------------- */
int get_buffer(PyObject *obj, Py_buffer *view, const char *name, const char *format,
                      Py_ssize_t itemsize, Py_ssize_t count, int writable) {
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT |
                                          (writable ? PyBUF_WRITABLE : 0)) < 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous%s array", name,
                     writable ? " writable" : "");
        return -1;
    }
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') {
        f++;
    }
    int format_ok = strchr(format, *f) != NULL && f[1] == '\0';
    if (!format_ok || view->itemsize != itemsize || view->len != itemsize * count) {
        PyErr_Format(PyExc_ValueError,
                     "%s: expected %zd items of format %s (itemsize %zd), got format %s, "
                     "%zd bytes",
                     name, count, format, itemsize, view->format ? view->format : "B", view->len);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

const char *type_name(PyObject *obj) {
    const char *name = Py_TYPE(obj)->tp_name, *dot = strrchr(name, '.');
    return dot ? dot + 1 : name;
}

int config_ready(PyObject *config) {
    if (!((ConfigHead *)config)->ready) {
        PyErr_Format(PyExc_RuntimeError, "%s is not initialised", type_name(config));
        return -1;
    }
    return 0;
}

/* Refuses a second __init__ of a config object (batches and states read it without the GIL):
 * 0, or -1 with RuntimeError. */
int config_fresh(PyObject *config) {
    if (((ConfigHead *)config)->ready) {
        PyErr_Format(PyExc_RuntimeError, "%s: already initialised", type_name(config));
        return -1;
    }
    return 0;
}

static int Config_init(ConfigObject *self, PyObject *args, PyObject *kwds) {
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "O", &spec) || config_fresh((PyObject *)self) < 0) {
        return -1;
    }
    Py_buffer view;
    if (get_buffer(spec, &view, "spec", "qlL", 8, mr_spec_length(), 0) < 0) {
        return -1;
    }
    size_t len = (size_t)mr_spec_length();
    int64_t *copy = PyMem_Malloc(len * sizeof(int64_t)); /* the spec as checked and read */
    if (copy) {
        memcpy(copy, view.buf, len * sizeof(int64_t));
    }
    PyBuffer_Release(&view);
    if (!copy || config_fresh((PyObject *)self) < 0) {
        PyMem_Free(copy);
        return copy ? -1 : (PyErr_NoMemory(), -1);
    }
    const char *err = mr_config_init(&self->cfg, copy, len);
    PyMem_Free(copy);
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
    self->head.ready = 1;
    return 0;
}

static PyObject *Config_get_obs_size(ConfigObject *self, void *closure) {
    return config_ready((PyObject *)self) < 0 ? NULL : PyLong_FromLong(self->cfg.obs_size);
}

static PyObject *Config_get_num_actions(ConfigObject *self, void *closure) {
    return config_ready((PyObject *)self) < 0 ? NULL : PyLong_FromLong(self->cfg.num_actions);
}

static PyGetSetDef Config_getset[] = {
    {"obs_size", (getter)Config_get_obs_size, NULL, "length of the flat observation", NULL},
    {"num_actions", (getter)Config_get_num_actions, NULL, "number of action ids", NULL},
    {NULL}};

PyTypeObject ConfigType = {
    NATIVE_TYPE(ConfigObject, "Config",
                "The per-config tables of the native core, read from a spec vector."),
    .tp_new = PyType_GenericNew, .tp_init = (initproc)Config_init, .tp_getset = Config_getset};

/* --- the batches' guard -------------------------------------------------------------------- */
static int batch_free(PyObject *self) {
    BatchHead *head = (BatchHead *)self;
    if (head->busy) {
        PyErr_Format(PyExc_RuntimeError,
                     "%s is in use by another call (a batch is stepped, reset and read by one "
                     "thread at a time)",
                     type_name(self));
        return -1;
    }
    return 0;
}

PyObject *batch_call(PyObject *self, PyObject *args, batch_method body) {
    BatchHead *head = (BatchHead *)self;
    if (!head->ready) {
        PyErr_Format(PyExc_RuntimeError, "%s is not initialised", type_name(self));
        return NULL;
    }
    if (batch_free(self) < 0) {
        return NULL;
    }
    head->busy = 1;
    PyObject *out = body(self, args);
    head->busy = 0;
    return out;
}

int batch_init_begin(PyObject *self) {
    BatchHead *head = (BatchHead *)self;
    if (head->ready) {
        PyErr_Format(PyExc_RuntimeError, "%s: already initialised", type_name(self));
        return -1;
    }
    if (batch_free(self) < 0) {
        return -1;
    }
    head->busy = 1;
    return 0;
}

int batch_init_done(PyObject *self, int ok) {
    BatchHead *head = (BatchHead *)self;
    head->ready = ok;
    head->busy = 0;
    return ok ? 0 : -1;
}

/* --- sequences from Python ---------------------------------------------------------------- */
PyObject *sequence_snapshot(PyObject *obj, const char *message) {
    PyObject *seq = PySequence_Fast(obj, message);
    if (!seq) {
        return NULL;
    }
    PyObject *tuple = PySequence_Tuple(seq); /* a list is copied; a tuple cannot change */
    Py_DECREF(seq);
    return tuple;
}

int *read_action_ids(PyObject *obj, const char *name, Py_ssize_t max, Py_ssize_t *count) {
    char message[96];
    PyOS_snprintf(message, sizeof message, "%s: expected a sequence of action ids", name);
    PyObject *items = sequence_snapshot(obj, message);
    if (!items) {
        return NULL;
    }
    Py_ssize_t k = PyTuple_GET_SIZE(items);
    int *ids = k <= max ? PyMem_Malloc((size_t)(k ? k : 1) * sizeof(int)) : NULL;
    if (!ids) {
        Py_DECREF(items);
        if (k <= max) {
            return (int *)PyErr_NoMemory();
        }
        PyErr_Format(PyExc_ValueError, "%s: expected at most %zd action ids, got %zd", name,
                     max, k);
        return NULL;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        long long a = PyLong_AsLongLong(PyTuple_GET_ITEM(items, j));
        if (a == -1 && PyErr_Occurred()) {
            break;
        }
        if (a < 0 || a > INT32_MAX) {
            PyErr_Format(PyExc_ValueError, "%s: action %lld is not legal here", name, a);
            break;
        }
        ids[j] = (int)a;
    }
    Py_DECREF(items);
    if (PyErr_Occurred()) {
        PyMem_Free(ids);
        return NULL;
    }
    *count = k;
    return ids;
}


int load_record(PyObject *record, const void *params, record_check check, void *out,
                size_t size) {
    Py_buffer view;
    if (PyObject_GetBuffer(record, &view, PyBUF_SIMPLE) < 0) {
        return -1;
    }
    void *tmp = view.len == (Py_ssize_t)size ? PyMem_Malloc(size) : NULL;
    if (!tmp) {
        if (view.len == (Py_ssize_t)size) {
            PyErr_NoMemory();
        } else {
            PyErr_Format(PyExc_ValueError, "record: expected %zu bytes, got %zd", size, view.len);
        }
        PyBuffer_Release(&view);
        return -1;
    }
    memcpy(tmp, view.buf, size);
    PyBuffer_Release(&view);
    const char *err = check(params, tmp);
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
    } else {
        memcpy(out, tmp, size);
    }
    PyMem_Free(tmp);
    return err ? -1 : 0;
}

const char *mr_check_and_rebuild(const void *cfg, void *st) {
    const char *err = mr_check_state(cfg, st);
    if (!err) {
        mr_rebuild(cfg, st);
    }
    return err;
}

int legal_has(const int16_t *legal, int count, int64_t a) {
    int lo = 0, hi = count;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (legal[mid] < a) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < count && legal[lo] == a;
}

/* Write seat's flat observation of st into out (a writable float32 buffer of obs_size):
 * the one body of Batch.observe and State.observe. */
PyObject *observe_into(const mr_config *cfg, const mr_state *st, int seat, PyObject *out) {
    if (seat < 0 || seat >= cfg->n) {
        PyErr_Format(PyExc_ValueError, "seat: expected 0..%d, got %d", cfg->n - 1, seat);
        return NULL;
    }
    Py_buffer view;
    if (get_buffer(out, &view, "out", "f", 4, cfg->obs_size, 1) < 0) {
        return NULL;
    }
    mr_encode(cfg, st, seat, (float *)view.buf);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* --- the state objects' shared head (binding.h CoreStateHead) ------------------------------ */
static size_t state_size(PyObject *self) {
    return (size_t)Py_TYPE(self)->tp_basicsize - CORE_STATE_OFFSET;
}

PyObject *core_state_new(PyTypeObject *type, PyObject *config, const void *params) {
    CoreStateHead *obj = (CoreStateHead *)_PyObject_New(type);
    if (obj) {
        Py_INCREF(config);
        obj->config = config;
        obj->params = params;
    }
    return (PyObject *)obj;
}

void core_state_dealloc(PyObject *self) {
    Py_XDECREF(((CoreStateHead *)self)->config);
    Py_TYPE(self)->tp_free(self);
}

PyObject *core_state_clone(PyObject *self, PyObject *unused) {
    CoreStateHead *head = (CoreStateHead *)self;
    PyObject *obj = core_state_new(Py_TYPE(self), head->config, head->params);
    if (obj) {
        memcpy((char *)obj + CORE_STATE_OFFSET, (char *)self + CORE_STATE_OFFSET, state_size(self));
    }
    return obj;
}

PyObject *core_state_copy_from(PyObject *self, PyObject *other) {
    if (Py_TYPE(other) != Py_TYPE(self) ||
        ((CoreStateHead *)other)->config != ((CoreStateHead *)self)->config) {
        PyErr_Format(PyExc_TypeError, "copy_from: expected a %s of the same config",
                     Py_TYPE(self)->tp_name);
        return NULL;
    }
    memcpy((char *)self + CORE_STATE_OFFSET, (char *)other + CORE_STATE_OFFSET, state_size(self));
    Py_RETURN_NONE;
}

PyObject *core_state_int8(PyObject *self, void *offset) {
    return PyLong_FromLong(*((const int8_t *)self + CORE_STATE_OFFSET + (size_t)offset));
}

PyObject *core_state_record(PyObject *self, PyObject *unused) {
    return PyBytes_FromStringAndSize((const char *)self + CORE_STATE_OFFSET,
                                     (Py_ssize_t)state_size(self));
}

PyObject *core_state_from_record(PyTypeObject *type, PyObject *config, const void *params,
                                 PyObject *record, record_check check) {
    PyObject *obj = core_state_new(type, config, params);
    size_t size = (size_t)type->tp_basicsize - CORE_STATE_OFFSET;
    if (obj && load_record(record, params, check, (char *)obj + CORE_STATE_OFFSET, size) < 0) {
        Py_CLEAR(obj);
    }
    return obj;
}

/* time_clones(k) -> k: copies the state k times inside the core (the clone's own cost,
 * without Python's object allocation), for the benchmark. */
PyObject *core_state_time_clones(PyObject *self, PyObject *arg) {
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred()) {
        return NULL;
    }
    size_t size = state_size(self);
    char *sink = PyMem_Malloc(2 * size);
    if (!sink) {
        return PyErr_NoMemory();
    }
    volatile char keep = 0;
    char *from = sink + size; /* a private copy: the loop runs without the GIL */
    memcpy(from, (char *)self + CORE_STATE_OFFSET, size);
    Py_BEGIN_ALLOW_THREADS;
    for (long i = 0; i < k; i++) {
        memcpy(sink, from, size);
        keep = (char)(keep + sink[i % (long)size]);
    }
    Py_END_ALLOW_THREADS;
    (void)keep;
    PyMem_Free(sink);
    return PyLong_FromLong(k);
}


int parse_generator(PyObject *words, mr_pcg64 *rng) {
    unsigned long long a, b, c, d;
    unsigned int has, u;
    if (!PyTuple_Check(words)) {
        PyErr_SetString(PyExc_TypeError, "a generator state: a tuple of six integers");
        return -1;
    }
    if (!PyArg_ParseTuple(words, "KKKKII", &a, &b, &c, &d, &has, &u)) {
        return -1;
    }
    rng->state_hi = a;
    rng->state_lo = b;
    rng->inc_hi = c;
    rng->inc_lo = d;
    rng->has_uint32 = has ? 1u : 0u;
    rng->uinteger = u;
    return 0;
}

PyObject *build_generator(const mr_pcg64 *rng) {
    return Py_BuildValue("(KKKKII)", (unsigned long long)rng->state_hi,
                         (unsigned long long)rng->state_lo, (unsigned long long)rng->inc_hi,
                         (unsigned long long)rng->inc_lo, rng->has_uint32, rng->uinteger);
}

/* --- module -------------------------------------------------------------------------------- */
/* The names of the core's enums, in their order; the Python side maps them to its own tables
 * (encoding.RANCH_CHANNEL_NAMES, the encoder's feature slices, Phase, actions.SEGMENTS) and
 * refuses to load when one is missing. */
static const char *CHANNEL_NAMES[MR_NUM_CHANNELS] = {
    "land_desert", "land_canyon", "land_meadow", "land_forest", "land_cornfield", "land_farm",
    "empty", "cows", "gold", "beaver", "corn", "skull", "circle",
    "partner_desperado_specialist", "partner_desperado_cowboy",
    "partner_cattle_thief_specialist", "partner_cattle_thief_cowboy",
    "partner_gold_digger_specialist", "partner_gold_digger_cowboy",
    "partner_trapper_specialist", "partner_trapper_cowboy", "partner_farmer_specialist",
    "partner_farmer_cowboy", "protected", "river", "bridge", "bonus_tile", "piece",
    "skull_target"};
static const char *FEATURE_NAMES[MR_NUM_FEATURE_SLICES] = {
    "phase", "actor", "round", "final_round", "final_turn", "dominoes_this_turn", "held",
    "held_count", "reserve_slots", "board", "current_column", "current_claims", "next_column",
    "next_claims", "saloon", "stack_size", "cow_supply", "unseen_plots", "scores",
    "pending_skulls", "pending_circles", "cowboy_moves_left", "bonus_tiles_available",
    "bonus_tile_taken", "scenario"};
static const char *PHASE_NAMES[MR_NUM_PHASES] = {
    "SETUP_CLAIM", "EXPAND", "MUST_EXPAND", "FINAL_EXPAND", "DISCARD", "SKULL", "RECRUIT",
    "COWBOY", "DESPERADO", "THIEF", "BONUS", "SELECT", "GAME_OVER"};
static const char *SEGMENT_NAMES[MR_NUM_SEGMENTS] = {
    "claim", "place", "stop", "discard", "skull", "recruit", "cowboy_move", "cowboy_stop",
    "desperado_swap", "desperado_skip", "thief_steal", "thief_skip", "bonus_place",
    "bonus_remove"};

PyObject *build_items(int as_list, Py_ssize_t count, item_maker make, const void *data) {
    PyObject *out = as_list ? PyList_New(count) : PyTuple_New(count);
    for (Py_ssize_t i = 0; out && i < count; i++) {
        PyObject *item = make(data, i);
        if (!item) {
            Py_DECREF(out);
            return NULL;
        }
        if (as_list) {
            PyList_SET_ITEM(out, i, item);
        } else {
            PyTuple_SET_ITEM(out, i, item);
        }
    }
    return out;
}

PyObject *item_int16(const void *data, Py_ssize_t i) {
    return PyLong_FromLong(((const int16_t *)data)[i]);
}

PyObject *item_int32(const void *data, Py_ssize_t i) {
    return PyLong_FromLong(((const int32_t *)data)[i]);
}

PyObject *item_int64(const void *data, Py_ssize_t i) {
    return PyLong_FromLongLong(((const int64_t *)data)[i]);
}

PyObject *item_double(const void *data, Py_ssize_t i) {
    return PyFloat_FromDouble(((const double *)data)[i]);
}

PyObject *item_name(const void *data, Py_ssize_t i) {
    return PyUnicode_FromString(((const char *const *)data)[i]);
}

PyObject *item_field(const void *data, Py_ssize_t i) {
    const mr_field *f = (const mr_field *)data + i;
    char type[2] = {f->type, 0};
    return Py_BuildValue("(snsi)", f->name, (Py_ssize_t)f->offset, type, f->count);
}

static PyObject *item_spec_key(const void *data, Py_ssize_t i) {
    const mr_spec_key *key = (const mr_spec_key *)data + i;
    return Py_BuildValue("(si)", key->name, key->size);
}

static PyObject *names(const char **list, int count) {
    return build_items(0, count, item_name, list);
}

static PyObject *spec_keys(PyObject *mod, PyObject *unused) {
    return build_items(0, MR_NUM_SPEC_KEYS, item_spec_key, MR_SPEC_KEYS);
}

static PyObject *state_fields(PyObject *mod, PyObject *unused) {
    return build_items(0, MR_NUM_STATE_FIELDS, item_field, MR_STATE_FIELDS);
}


static PyMethodDef module_methods[] = {
    {"new_state", new_state, METH_VARARGS, "new_state(config, seed) -> State"},
    {"state_from_record", state_from_record, METH_VARARGS,
     "state_from_record(config, bytes) -> State (checked)"},
    {"spec_keys", spec_keys, METH_NOARGS, "The spec entries: (name, size) in order."},
    {"sparse_matmul", sparse_matmul, METH_VARARGS,
     "sparse_matmul(crow, idx, val, w, out, d, e): out = x @ w for CSR rows x (sparsemm.c)"},
    {"sparse_matmul_t", sparse_matmul_t, METH_VARARGS,
     "sparse_matmul_t(crow, idx, val, g, out, d, e): out += x.T @ g (sparsemm.c)"},
    {"state_fields", state_fields, METH_NOARGS,
     "The game record's fields: (name, byte offset, type code, count)."},
    {NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "moonriver_env._native",
    "The native Moon River core (see moonriver_env.vector).", -1, module_methods};

PyMODINIT_FUNC PyInit__native(void) {
    if (PyType_Ready(&ConfigType) < 0 || PyType_Ready(&BatchType) < 0 ||
        PyType_Ready(&StateType) < 0) {
        return NULL;
    }
    PyObject *m = PyModule_Create(&module_def);
    if (!m) {
        return NULL;
    }
    Py_INCREF(&ConfigType);
    Py_INCREF(&BatchType);
    if (PyModule_AddObject(m, "Config", (PyObject *)&ConfigType) < 0 ||
        PyModule_AddObject(m, "Batch", (PyObject *)&BatchType) < 0 ||
        PyModule_AddIntConstant(m, "RECORD_SIZE", (long)sizeof(mr_state)) < 0 ||
        PyModule_AddIntConstant(m, "MAX_PLAYERS", MR_MAX_PLAYERS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_ROW_THREADS", MAX_ROW_THREADS) < 0 ||
        kd_add_to_module(m) < 0 || az_add_to_module(m) < 0 ||
        PyModule_AddIntConstant(m, "NUM_PHASES", MR_NUM_PHASES) < 0 ||
        PyModule_AddObject(m, "CHANNELS", names(CHANNEL_NAMES, MR_NUM_CHANNELS)) < 0 ||
        PyModule_AddObject(m, "FEATURES", names(FEATURE_NAMES, MR_NUM_FEATURE_SLICES)) < 0 ||
        PyModule_AddObject(m, "PHASES", names(PHASE_NAMES, MR_NUM_PHASES)) < 0 ||
        PyModule_AddObject(m, "SEGMENTS", names(SEGMENT_NAMES, MR_NUM_SEGMENTS)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
