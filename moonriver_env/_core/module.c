/* The CPython binding of the native core: moonriver_env._native.
 *
 * Config: the checked per-config tables (from the spec vector). Batch: N games owned by the
 * core (their states, the generators that seed their next games, their legal actions), which
 * write their results into NumPy arrays handed over once at construction (held through the
 * buffer protocol for the Batch's life). Every array and every action is checked before any
 * game changes; the loops over games run with the GIL released. State: one game for search
 * (clone, apply, legal actions, scores, redetermine, random rollouts).
 *
 * The Python API is moonriver_env.vector; nothing here is meant to be called directly.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stddef.h>
#include <string.h>

#include "binding.h"
#include "moonriver.h"

/* --- Config -------------------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD mr_config cfg;
} ConfigObject;

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

static int Config_init(ConfigObject *self, PyObject *args, PyObject *kwds) {
    PyObject *spec;
    if (!PyArg_ParseTuple(args, "O", &spec)) {
        return -1;
    }
    Py_buffer view;
    if (get_buffer(spec, &view, "spec", "qlL", 8, mr_spec_length(), 0) < 0) {
        return -1;
    }
    const char *err = mr_config_init(&self->cfg, (const int64_t *)view.buf, (size_t)mr_spec_length());
    PyBuffer_Release(&view);
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        return -1;
    }
    return 0;
}

static PyObject *Config_get_obs_size(ConfigObject *self, void *closure) {
    return PyLong_FromLong(self->cfg.obs_size);
}

static PyObject *Config_get_num_actions(ConfigObject *self, void *closure) {
    return PyLong_FromLong(self->cfg.num_actions);
}

static PyGetSetDef Config_getset[] = {
    {"obs_size", (getter)Config_get_obs_size, NULL, "length of the flat observation", NULL},
    {"num_actions", (getter)Config_get_num_actions, NULL, "number of action ids", NULL},
    {NULL}};

static PyTypeObject ConfigType = {
    NATIVE_TYPE(ConfigObject, "Config",
                "The per-config tables of the native core, read from a spec vector."),
    .tp_new = PyType_GenericNew, .tp_init = (initproc)Config_init, .tp_getset = Config_getset};

/* --- Batch --------------------------------------------------------------------------------- */
enum { OUT_OBS, OUT_MASK, OUT_LEGAL, OUT_NUM_LEGAL, OUT_SEAT, OUT_REWARDS, OUT_TERMINATED,
       OUT_SCORES, NUM_OUT };

typedef struct {
    PyObject_HEAD PyObject *config; /* ConfigObject, kept alive */
    const mr_config *cfg;
    Py_ssize_t num_games;
    mr_state *states;
    mr_pcg64 *seeders;
    int16_t *legal;   /* [num_games][num_actions]: the private, trusted legal lists */
    int32_t *nlegal;  /* [num_games] */
    int32_t *totals;  /* [num_games][n]: ranch totals at the last step (dense reward) */
    float *blocks;    /* [num_games][n][block]: the encoder's cache of ranch blocks */
    int32_t *points;  /* [num_games][n][4]: and of their points */
    uint32_t *keys;   /* [num_games][n]: the ranch versions they were built from */
    int reward_mode;  /* 0 win, 1 score, 2 score_diff */
    double dense;
    int auto_reset, observe;
    Py_buffer out[NUM_OUT];
    int have_out[NUM_OUT];
} BatchObject;

static void Batch_dealloc(BatchObject *self) {
    for (int i = 0; i < NUM_OUT; i++) {
        if (self->have_out[i]) {
            PyBuffer_Release(&self->out[i]);
        }
    }
    PyMem_Free(self->states);
    PyMem_Free(self->seeders);
    PyMem_Free(self->legal);
    PyMem_Free(self->nlegal);
    PyMem_Free(self->totals);
    PyMem_Free(self->blocks);
    PyMem_Free(self->points);
    PyMem_Free(self->keys);
    Py_XDECREF(self->config);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Batch_init(BatchObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"config", "num_games", "reward_mode", "dense", "auto_reset",
                             "observation", "mask", "legal", "num_legal", "seat", "rewards",
                             "terminated", "scores", NULL};
    PyObject *config, *arrays[NUM_OUT];
    Py_ssize_t num_games;
    int reward_mode, auto_reset;
    double dense;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!nidpOOOOOOOO", kwlist, &ConfigType, &config,
                                     &num_games, &reward_mode, &dense, &auto_reset, &arrays[0],
                                     &arrays[1], &arrays[2], &arrays[3], &arrays[4], &arrays[5],
                                     &arrays[6], &arrays[7])) {
        return -1;
    }
    if (self->config) {
        PyErr_SetString(PyExc_RuntimeError, "Batch: already initialised");
        return -1;
    }
    if (num_games < 1 || num_games > (1 << 24) || reward_mode < 0 || reward_mode > 2) {
        PyErr_SetString(PyExc_ValueError, "Batch: num_games or reward_mode out of range");
        return -1;
    }
    Py_INCREF(config);
    self->config = config;
    const mr_config *cfg = self->cfg = &((ConfigObject *)config)->cfg;
    self->num_games = num_games;
    self->reward_mode = reward_mode;
    self->dense = dense;
    self->auto_reset = auto_reset;
    self->observe = arrays[OUT_OBS] != Py_None;
    Py_ssize_t N = num_games, n = cfg->n, A = cfg->num_actions;
    struct {
        const char *name, *format;
        Py_ssize_t itemsize, count;
    } spec[NUM_OUT] = {
        {"observation", "f", 4, N * cfg->obs_size}, {"mask", "bB?", 1, N * A},
        {"legal", "h", 2, N * A},                   {"num_legal", "i", 4, N},
        {"seat", "i", 4, N},                        {"rewards", "d", 8, N * n},
        {"terminated", "?", 1, N},                  {"scores", "i", 4, N * n * 7},
    };
    for (int i = 0; i < NUM_OUT; i++) {
        if (i == OUT_OBS && !self->observe) {
            continue;
        }
        if (get_buffer(arrays[i], &self->out[i], spec[i].name, spec[i].format, spec[i].itemsize,
                       spec[i].count, 1) < 0) {
            return -1;
        }
        self->have_out[i] = 1;
    }
    self->states = PyMem_Calloc((size_t)N, sizeof(mr_state));
    self->seeders = PyMem_Calloc((size_t)N, sizeof(mr_pcg64));
    self->legal = PyMem_Calloc((size_t)(N * A), sizeof(int16_t));
    self->nlegal = PyMem_Calloc((size_t)N, sizeof(int32_t));
    self->totals = PyMem_Calloc((size_t)(N * n), sizeof(int32_t));
    self->points = PyMem_Calloc((size_t)(N * n * 4), sizeof(int32_t));
    self->keys = PyMem_Calloc((size_t)(N * n), sizeof(uint32_t));
    if (self->observe) {
        self->blocks = PyMem_Calloc((size_t)(N * n * mr_block_size(cfg)), sizeof(float));
    }
    if (!self->states || !self->seeders || !self->legal || !self->nlegal || !self->totals ||
        !self->points || !self->keys || (self->observe && !self->blocks)) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int ready(BatchObject *self) {
    if (!self->config) {
        PyErr_SetString(PyExc_RuntimeError, "Batch: not initialised");
        return 0;
    }
    return 1;
}

/* The legal list of game i, its mask, seat and observation into the outputs. */
static void publish(BatchObject *self, Py_ssize_t i) {
    const mr_config *cfg = self->cfg;
    Py_ssize_t A = cfg->num_actions;
    mr_state *st = &self->states[i];
    int16_t *legal = self->legal + i * A;
    int count = st->phase == PH_GAME_OVER ? 0 : mr_legal(cfg, st, legal);
    self->nlegal[i] = count;
    int8_t *mask = (int8_t *)self->out[OUT_MASK].buf + i * A;
    memset(mask, 0, (size_t)A);
    for (int k = 0; k < count; k++) {
        mask[legal[k]] = 1;
    }
    memcpy((int16_t *)self->out[OUT_LEGAL].buf + i * A, legal, sizeof(int16_t) * (size_t)count);
    ((int32_t *)self->out[OUT_NUM_LEGAL].buf)[i] = count;
    ((int32_t *)self->out[OUT_SEAT].buf)[i] = st->phase == PH_GAME_OVER ? -1 : st->seat;
    if (self->observe) {
        int seat = st->phase == PH_GAME_OVER ? 0 : st->seat;
        Py_ssize_t n = cfg->n;
        mr_encode_cached(cfg, st, seat, (float *)self->out[OUT_OBS].buf + i * cfg->obs_size,
                         self->blocks + i * n * mr_block_size(cfg), self->points + i * n * 4,
                         self->keys + i * n);
    }
}

static void forget_blocks(BatchObject *self, Py_ssize_t i) {
    for (int s = 0; s < self->cfg->n; s++) {
        self->keys[i * self->cfg->n + s] = MR_NO_KEY;
    }
}

static void new_game(BatchObject *self, Py_ssize_t i) {
    uint64_t game_seed = mr_integers(&self->seeders[i], (1ull << 63) - 1);
    mr_new_game(self->cfg, &self->states[i], game_seed);
    memset(self->totals + i * self->cfg->n, 0, sizeof(int32_t) * (size_t)self->cfg->n);
    forget_blocks(self, i);
}

static void clear_step_outputs(BatchObject *self, Py_ssize_t i) {
    int n = self->cfg->n;
    double *rewards = (double *)self->out[OUT_REWARDS].buf + i * n;
    int32_t *scores = (int32_t *)self->out[OUT_SCORES].buf + i * n * 7;
    for (int s = 0; s < n; s++) {
        rewards[s] = 0.0;
    }
    memset(scores, 0, sizeof(int32_t) * (size_t)(n * 7));
    ((char *)self->out[OUT_TERMINATED].buf)[i] = 0;
}

/* reset(seeds): seeds is None (each game's next seed from its generator) or uint64 (N,):
 * game i's generator becomes numpy.random.default_rng(seeds[i]). */
static PyObject *Batch_reset(BatchObject *self, PyObject *args) {
    PyObject *seeds;
    if (!ready(self) || !PyArg_ParseTuple(args, "O", &seeds)) {
        return NULL;
    }
    Py_buffer view;
    const uint64_t *seed = NULL;
    if (seeds != Py_None) {
        if (get_buffer(seeds, &view, "seeds", "QLK", 8, self->num_games, 0) < 0) {
            return NULL;
        }
        seed = view.buf;
    }
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < self->num_games; i++) {
        if (seed) {
            mr_pcg64_seed(&self->seeders[i], seed[i]);
        }
        new_game(self, i);
        clear_step_outputs(self, i);
        publish(self, i);
    }
    Py_END_ALLOW_THREADS;
    if (seed) {
        PyBuffer_Release(&view);
    }
    Py_RETURN_NONE;
}

static int check_index(BatchObject *self, Py_ssize_t i);

/* reset_game(i, seed or None): a new game in slot i only (seed: its generator becomes
 * default_rng(seed); None: the slot's next game). */
static PyObject *Batch_reset_game(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    PyObject *seed_obj;
    if (!ready(self) || !PyArg_ParseTuple(args, "nO", &i, &seed_obj) || !check_index(self, i)) {
        return NULL;
    }
    if (seed_obj != Py_None) {
        unsigned long long seed = PyLong_AsUnsignedLongLong(seed_obj);
        if (PyErr_Occurred()) {
            return NULL;
        }
        mr_pcg64_seed(&self->seeders[i], seed);
    }
    new_game(self, i);
    clear_step_outputs(self, i);
    publish(self, i);
    Py_RETURN_NONE;
}

static int is_legal(const int16_t *legal, int count, int64_t a) {
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

static void final_rewards(const mr_config *cfg, const mr_breakdown *sc, int mode, double *out) {
    int n = cfg->n;
    for (int s = 0; s < n; s++) {
        if (mode == 0) {
            int beats = 0, beaten = 0;
            for (int o = 0; o < n; o++) {
                const mr_breakdown *a = &sc[s], *b = &sc[o];
                int cmp = a->total != b->total ? (a->total > b->total ? 1 : -1)
                          : a->largest != b->largest ? (a->largest > b->largest ? 1 : -1)
                          : a->cows != b->cows ? (a->cows > b->cows ? 1 : -1)
                                               : 0;
                beats += cmp > 0;
                beaten += cmp < 0;
            }
            out[s] = (double)(beats - beaten) / (double)(n - 1);
        } else if (mode == 1) {
            out[s] = (double)sc[s].total;
        } else {
            int best = -2147483647;
            for (int o = 0; o < n; o++) {
                if (o != s && sc[o].total > best) {
                    best = sc[o].total;
                }
            }
            out[s] = (double)sc[s].total - (double)best;
        }
    }
}

/* step(actions, active=None): int64 (N,) and bool (N,) or None. Returns -1, or the index of
 * the first game whose action is not legal (then nothing changed). A finished game
 * (auto_reset off) ignores its action; a game whose active entry is false is left as it is,
 * its outputs included. */
static PyObject *Batch_step(BatchObject *self, PyObject *args) {
    PyObject *actions, *active_obj = Py_None;
    if (!ready(self) || !PyArg_ParseTuple(args, "O|O", &actions, &active_obj)) {
        return NULL;
    }
    Py_buffer view, active_view;
    const char *active = NULL;
    if (active_obj != Py_None) {
        if (get_buffer(active_obj, &active_view, "active", "?bB", 1, self->num_games, 0) < 0) {
            return NULL;
        }
        active = active_view.buf;
    }
    if (get_buffer(actions, &view, "actions", "qlL", 8, self->num_games, 0) < 0) {
        if (active) {
            PyBuffer_Release(&active_view);
        }
        return NULL;
    }
    const int64_t *act = view.buf;
    const mr_config *cfg = self->cfg;
    Py_ssize_t A = cfg->num_actions, N = self->num_games;
    Py_ssize_t bad = -1;
    for (Py_ssize_t i = 0; i < N; i++) {
        if (self->states[i].phase == PH_GAME_OVER || (active && !active[i])) {
            continue;
        }
        if (!is_legal(self->legal + i * A, self->nlegal[i], act[i])) {
            bad = i;
            break;
        }
    }
    if (bad >= 0) {
        PyBuffer_Release(&view);
        if (active) {
            PyBuffer_Release(&active_view);
        }
        return PyLong_FromSsize_t(bad);
    }
    int n = cfg->n;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < N; i++) {
        if (active && !active[i]) {
            continue;
        }
        mr_state *st = &self->states[i];
        double *rewards = (double *)self->out[OUT_REWARDS].buf + i * n;
        char *terminated = (char *)self->out[OUT_TERMINATED].buf + i;
        if (st->phase == PH_GAME_OVER) {
            for (int s = 0; s < n; s++) {
                rewards[s] = 0.0;
            }
            continue; /* stays terminated (auto_reset off) */
        }
        int was_done = *terminated;
        mr_apply(cfg, st, (int)act[i]);
        for (int s = 0; s < n; s++) {
            rewards[s] = 0.0;
        }
        if (self->dense != 0.0) {
            int32_t *last = self->totals + i * n;
            for (int s = 0; s < n; s++) {
                int total = mr_total(cfg, st, s);
                rewards[s] += self->dense * (double)(total - last[s]);
                last[s] = total;
            }
        }
        int32_t *scores = (int32_t *)self->out[OUT_SCORES].buf + i * n * 7;
        if (was_done) {
            memset(scores, 0, sizeof(int32_t) * (size_t)(n * 7));
        }
        if (st->phase == PH_GAME_OVER) {
            mr_breakdown sc[MR_MAX_PLAYERS];
            double fin[MR_MAX_PLAYERS];
            for (int s = 0; s < n; s++) {
                mr_score(cfg, st, s, &sc[s]);
                memcpy(scores + 7 * s, &sc[s], sizeof(int32_t) * 7);
            }
            final_rewards(cfg, sc, self->reward_mode, fin);
            for (int s = 0; s < n; s++) {
                rewards[s] += fin[s];
            }
            *terminated = 1;
            if (self->auto_reset) {
                new_game(self, i);
            }
        } else {
            *terminated = 0;
            if (was_done) {
                memset(scores, 0, sizeof(int32_t) * (size_t)(n * 7));
            }
        }
        publish(self, i);
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&view);
    if (active) {
        PyBuffer_Release(&active_view);
    }
    return PyLong_FromLong(-1);
}

static int check_index(BatchObject *self, Py_ssize_t i) {
    if (i < 0 || i >= self->num_games) {
        PyErr_Format(PyExc_IndexError, "game index %zd is outside 0..%zd", i,
                     self->num_games - 1);
        return 0;
    }
    return 1;
}

/* get_record(i) -> bytes: the mr_state of game i. */
static PyObject *Batch_get_record(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    if (!ready(self) || !PyArg_ParseTuple(args, "n", &i) || !check_index(self, i)) {
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)&self->states[i], sizeof(mr_state));
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

static const char *check_and_rebuild(const void *cfg, void *st) {
    const char *err = mr_check_state(cfg, st);
    if (!err) {
        mr_rebuild(cfg, st);
    }
    return err;
}

/* set_record(i, bytes): checked; then game i plays on from it. */
static PyObject *Batch_set_record(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    PyObject *record;
    if (!ready(self) || !PyArg_ParseTuple(args, "nO", &i, &record) || !check_index(self, i) ||
        load_record(record, self->cfg, check_and_rebuild, &self->states[i], sizeof(mr_state)) < 0) {
        return NULL;
    }
    forget_blocks(self, i);
    int n = self->cfg->n;
    for (int s = 0; s < n; s++) {
        self->totals[i * n + s] = mr_total(self->cfg, &self->states[i], s);
    }
    clear_step_outputs(self, i);
    publish(self, i);
    Py_RETURN_NONE;
}

/* observe(i, seat, out): game i as seat sees it, into out (float32, obs_size). */
/* Write seat's flat observation of st into out (a writable float32 buffer of obs_size):
 * the one body of Batch.observe and State.observe. */
static PyObject *observe_into(const mr_config *cfg, const mr_state *st, int seat, PyObject *out) {
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

static PyObject *Batch_observe(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    int seat;
    PyObject *out;
    if (!ready(self) || !PyArg_ParseTuple(args, "niO", &i, &seat, &out) || !check_index(self, i)) {
        return NULL;
    }
    return observe_into(self->cfg, &self->states[i], seat, out);
}

/* phase(i) -> int */
static PyObject *Batch_phase(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    if (!ready(self) || !PyArg_ParseTuple(args, "n", &i) || !check_index(self, i)) {
        return NULL;
    }
    return PyLong_FromLong(self->states[i].phase);
}

static PyMethodDef Batch_methods[] = {
    {"reset", (PyCFunction)Batch_reset, METH_VARARGS, "reset(seeds or None)"},
    {"step", (PyCFunction)Batch_step, METH_VARARGS, "step(actions) -> -1 or a bad index"},
    {"reset_game", (PyCFunction)Batch_reset_game, METH_VARARGS, "reset_game(i, seed or None)"},
    {"get_record", (PyCFunction)Batch_get_record, METH_VARARGS, "get_record(i) -> bytes"},
    {"set_record", (PyCFunction)Batch_set_record, METH_VARARGS, "set_record(i, bytes)"},
    {"phase", (PyCFunction)Batch_phase, METH_VARARGS, "phase(i) -> phase code"},
    {"observe", (PyCFunction)Batch_observe, METH_VARARGS, "observe(i, seat, out)"},
    {NULL}};

static PyTypeObject BatchType = {NATIVE_BATCH_TYPE(
    BatchObject, Batch, "Batch",
    "N games of one config, stepped together (see moonriver_env.vector).")};


/* --- State: one game for search ------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD PyObject *config;
    const mr_config *cfg;
    mr_state st;
} StateObject;

static PyTypeObject StateType;

_Static_assert(offsetof(StateObject, st) == CORE_STATE_OFFSET, "State: a CoreStateHead first");

static StateObject *new_state_object(PyObject *config) {
    return (StateObject *)core_state_new(&StateType, config, &((ConfigObject *)config)->cfg);
}

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
    Py_BEGIN_ALLOW_THREADS;
    for (long i = 0; i < k; i++) {
        memcpy(sink + (i & 1) * size, (char *)self + CORE_STATE_OFFSET, size);
        keep = (char)(keep + sink[(i & 1) * size]);
    }
    Py_END_ALLOW_THREADS;
    (void)keep;
    PyMem_Free(sink);
    return PyLong_FromLong(k);
}

/* new_state(config, seed): the game new_game(config, seed=seed) sets up. */
static PyObject *new_state(PyObject *mod, PyObject *args) {
    PyObject *config;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "O!K", &ConfigType, &config, &seed)) {
        return NULL;
    }
    StateObject *obj = new_state_object(config);
    if (obj) {
        mr_new_game(obj->cfg, &obj->st, seed);
    }
    return (PyObject *)obj;
}

/* state_from_record(config, bytes): checked like Batch.set_record. */
static PyObject *state_from_record(PyObject *mod, PyObject *args) {
    PyObject *config, *record;
    if (!PyArg_ParseTuple(args, "O!O", &ConfigType, &config, &record)) {
        return NULL;
    }
    return core_state_from_record(&StateType, config, &((ConfigObject *)config)->cfg, record,
                                  check_and_rebuild);
}

static PyObject *State_legal(StateObject *self, PyObject *unused) {
    int16_t legal[MR_MAX_ACTIONS];
    int count = self->st.phase == PH_GAME_OVER ? 0 : mr_legal(self->cfg, &self->st, legal);
    return build_items(1, count, item_int16, legal);
}

/* apply(a) -> True, or False when a is not legal (then nothing changed). */
static PyObject *State_apply(StateObject *self, PyObject *arg) {
    long long a = PyLong_AsLongLong(arg);
    if (a == -1 && PyErr_Occurred()) {
        return NULL;
    }
    int16_t legal[MR_MAX_ACTIONS];
    int count = self->st.phase == PH_GAME_OVER ? 0 : mr_legal(self->cfg, &self->st, legal);
    if (!is_legal(legal, count, a)) {
        Py_RETURN_FALSE;
    }
    mr_apply(self->cfg, &self->st, (int)a);
    Py_RETURN_TRUE;
}

static PyObject *State_scores(StateObject *self, PyObject *unused) {
    int n = self->cfg->n;
    PyObject *out = PyTuple_New(n);
    if (!out) {
        return NULL;
    }
    for (int s = 0; s < n; s++) {
        mr_breakdown b;
        mr_score(self->cfg, &self->st, s, &b);
        PyTuple_SET_ITEM(out, s, Py_BuildValue("(iiiiiii)", b.territories, b.resources,
                                               b.partners, b.scenario, b.total, b.largest,
                                               b.cows));
    }
    return out;
}

/* redetermine(seed): as GameState.redetermine(numpy.random.default_rng(seed)). */
static PyObject *State_redetermine(StateObject *self, PyObject *arg) {
    unsigned long long seed = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred()) {
        return NULL;
    }
    mr_pcg64 rng;
    mr_pcg64_seed(&rng, seed);
    mr_redetermine(&self->st, &rng);
    Py_RETURN_NONE;
}

/* rollout(seed, depth) -> decisions played: uniformly random legal actions, each
 * legal[rng.integers(len(legal))] with rng = numpy.random.default_rng(seed), for depth
 * decisions (0: to the end). */
static PyObject *State_rollout(StateObject *self, PyObject *args) {
    unsigned long long seed;
    int depth;
    if (!PyArg_ParseTuple(args, "Ki", &seed, &depth)) {
        return NULL;
    }
    int played = 0; /* with the GIL held: nothing else may touch this state meanwhile */
    mr_pcg64 rng;
    mr_pcg64_seed(&rng, seed);
    int16_t legal[MR_MAX_ACTIONS];
    while (self->st.phase != PH_GAME_OVER && (depth <= 0 || played < depth)) {
        int count = mr_legal(self->cfg, &self->st, legal);
        mr_apply(self->cfg, &self->st, legal[mr_integers(&rng, (uint64_t)count)]);
        played++;
    }
    return PyLong_FromLong(played);
}

/* The 11 fields of agents.evaluation.Weights from a sequence of numbers; -1 with an error
 * set when it is not one. */
static int read_weights(PyObject *wobj, double w[11]) {
    PyObject *seq = PySequence_Fast(wobj, "weights: expected a sequence of 11 numbers");
    if (!seq) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(seq) != 11) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "weights: expected 11 numbers");
        return -1;
    }
    for (int i = 0; i < 11; i++) {
        w[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
    }
    Py_DECREF(seq);
    return PyErr_Occurred() ? -1 : 0;
}

/* simulate(policy, depth, value_mode, seed, weights) -> tuple of leaf values (in place). */
static PyObject *State_simulate(StateObject *self, PyObject *args) {
    int policy, depth, value_mode;
    unsigned long long seed;
    PyObject *wobj;
    if (!PyArg_ParseTuple(args, "iiiKO", &policy, &depth, &value_mode, &seed, &wobj)) {
        return NULL;
    }
    double w[11];
    if (read_weights(wobj, w) < 0) {
        return NULL;
    }
    if (policy < 0 || policy > 1 || value_mode < 0 || value_mode > 1) {
        PyErr_SetString(PyExc_ValueError, "simulate: policy and value_mode are 0 or 1");
        return NULL;
    }
    double values[MR_MAX_PLAYERS];
    mr_simulate(self->cfg, &self->st, policy, depth, value_mode, seed, w, values);
    return build_items(0, self->cfg->n, item_double, values);
}

/* The ids of the sequence actions_obj, each legal in this state, as a new PyMem array of
 * *count ints (freed by the caller); NULL with an error set when one is not. */
static int *legal_actions_of(StateObject *self, PyObject *actions_obj, Py_ssize_t *count) {
    PyObject *seq = PySequence_Fast(actions_obj, "actions: expected a sequence of action ids");
    if (!seq) {
        return NULL;
    }
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    int16_t legal[MR_MAX_ACTIONS];
    int num_legal = self->st.phase == PH_GAME_OVER ? 0 : mr_legal(self->cfg, &self->st, legal);
    int *acts = PyMem_Malloc((k ? k : 1) * sizeof(int));
    if (!acts) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t j = 0; j < k; j++) {
        long long a = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, j));
        if (a == -1 && PyErr_Occurred()) {
            break;
        }
        if (!is_legal(legal, num_legal, a)) {
            PyErr_Format(PyExc_ValueError, "actions: %lld is not legal here", a);
            break;
        }
        acts[j] = (int)a;
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) {
        PyMem_Free(acts);
        return NULL;
    }
    *count = k;
    return acts;
}

/* action_values(actions, weights) -> the heuristic agent's one-ply value of each action (legal
 * here) for the acting seat, on this state (a determinization), which stays as it is. */
static PyObject *State_action_values(StateObject *self, PyObject *args) {
    PyObject *actions_obj, *wobj;
    if (!PyArg_ParseTuple(args, "OO", &actions_obj, &wobj)) {
        return NULL;
    }
    double w[11];
    if (read_weights(wobj, w) < 0) {
        return NULL;
    }
    Py_ssize_t k;
    int *acts = legal_actions_of(self, actions_obj, &k);
    if (!acts) {
        return NULL;
    }
    double *values = PyMem_Malloc((k ? k : 1) * sizeof(double));
    mr_state *sim = PyMem_Malloc(sizeof(mr_state));
    PyObject *out = NULL;
    if (values && sim) {
        /* with the GIL held: nothing else may touch this state meanwhile */
        mr_action_values(self->cfg, &self->st, acts, (int)k, w, sim, values);
        out = build_items(0, k, item_double, values);
    } else {
        PyErr_NoMemory();
    }
    PyMem_Free(acts);
    PyMem_Free(values);
    PyMem_Free(sim);
    return out;
}

/* value_leaves(seat, actions, depth, seed, weights, rows) -> one entry per action: the
 * final margin of a leaf whose game ended, None when its network input went into its row of
 * rows (float32, len(actions) x (obs_size + n + 1)); this state is left as it was
 * (mr_value_leaf on a copy for each action). Every action must be legal here. */
static PyObject *State_value_leaves(StateObject *self, PyObject *args) {
    int seat, depth;
    unsigned long long seed;
    PyObject *actions_obj, *wobj, *rows_obj;
    if (!PyArg_ParseTuple(args, "iOiKOO", &seat, &actions_obj, &depth, &seed, &wobj, &rows_obj)) {
        return NULL;
    }
    const mr_config *cfg = self->cfg;
    double w[11];
    if (read_weights(wobj, w) < 0) {
        return NULL;
    }
    if (seat < 0 || seat >= cfg->n) {
        PyErr_Format(PyExc_ValueError, "seat: expected 0..%d, got %d", cfg->n - 1, seat);
        return NULL;
    }
    Py_ssize_t k;
    int *acts = legal_actions_of(self, actions_obj, &k);
    if (!acts) {
        return NULL;
    }
    Py_ssize_t width = cfg->obs_size + cfg->n + 1;
    Py_buffer view;
    if (get_buffer(rows_obj, &view, "rows", "f", 4, k * width, 1) < 0) {
        PyMem_Free(acts);
        return NULL;
    }
    double *margins = PyMem_Malloc((k ? k : 1) * sizeof(double));
    int *ended = PyMem_Malloc((k ? k : 1) * sizeof(int));
    PyObject *out = margins && ended ? PyTuple_New(k) : PyErr_NoMemory();
    if (out) {
        mr_state *sim = PyMem_Malloc(sizeof(mr_state));
        if (!sim) {
            Py_CLEAR(out);
            PyErr_NoMemory();
        } else {
            float *rows = view.buf;
            for (Py_ssize_t j = 0; j < k; j++) { /* with the GIL held, as above */
                *sim = self->st;
                ended[j] = mr_value_leaf(cfg, sim, seat, acts[j], depth, seed, w,
                                         rows + j * width, &margins[j]);
            }
            PyMem_Free(sim);
            for (Py_ssize_t j = 0; j < k; j++) {
                PyObject *item = ended[j] ? PyFloat_FromDouble(margins[j]) : Py_NewRef(Py_None);
                if (!item) {
                    Py_CLEAR(out);
                    break;
                }
                PyTuple_SET_ITEM(out, j, item);
            }
        }
    }
    PyBuffer_Release(&view);
    PyMem_Free(acts);
    PyMem_Free(margins);
    PyMem_Free(ended);
    return out;
}

/* observe(seat, out): seat's flat observation of this game into out (float32, obs_size). */
static PyObject *State_observe(StateObject *self, PyObject *args) {
    int seat;
    PyObject *out;
    if (!PyArg_ParseTuple(args, "iO", &seat, &out)) {
        return NULL;
    }
    return observe_into(self->cfg, &self->st, seat, out);
}

/* determinize(state_hi, state_lo, inc_hi, inc_lo, has_uint32, uinteger) -> the generator's
 * state after: the pile and the stack sorted, then shuffled with that PCG64 (as
 * agents.base.determinize with a NumPy generator in that state). */
static PyObject *State_determinize(StateObject *self, PyObject *args) {
    mr_pcg64 rng;
    if (parse_generator(args, &rng) < 0) {
        return NULL;
    }
    mr_sort8(self->st.pile, self->st.pile_len);
    mr_sort8(self->st.stack, self->st.stack_len);
    mr_redetermine(&self->st, &rng);
    return build_generator(&rng);
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


static PyMethodDef State_methods[] = {
    CORE_STATE_METHODS,
    {"legal", (PyCFunction)State_legal, METH_NOARGS, "legal action ids, ascending"},
    {"apply", (PyCFunction)State_apply, METH_O, "apply(a) -> False if a is not legal"},
    {"scores", (PyCFunction)State_scores, METH_NOARGS, "one 7-tuple per seat"},
    {"redetermine", (PyCFunction)State_redetermine, METH_O, "re-shuffle the hidden order"},
    {"rollout", (PyCFunction)State_rollout, METH_VARARGS, "rollout(seed, depth)"},
    {"simulate", (PyCFunction)State_simulate, METH_VARARGS,
     "simulate(policy, depth, value_mode, seed, weights) -> leaf values"},
    {"action_values", (PyCFunction)State_action_values, METH_VARARGS,
     "action_values(actions, weights) -> the heuristic's one-ply values"},
    {"value_leaves", (PyCFunction)State_value_leaves, METH_VARARGS,
     "value_leaves(seat, actions, depth, seed, weights, rows) -> margins or None"},
    {"observe", (PyCFunction)State_observe, METH_VARARGS, "observe(seat, out)"},
    {"determinize", (PyCFunction)State_determinize, METH_VARARGS,
     "determinize(*pcg64_state) -> the generator state after"},
    {NULL}};

static PyGetSetDef State_getset[] = {CORE_STATE_GETSET(mr_state), {NULL}};

static PyTypeObject StateType = {NATIVE_STATE_TYPE(
    StateObject, State, "State", "One game in the core, for search (see moonriver_env.moonriver.vector.search).")};

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
        kd_add_to_module(m) < 0 ||
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
