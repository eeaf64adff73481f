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
#include <string.h>

#include "kdbind.h"
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
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moonriver_env._native.Config",
    .tp_basicsize = sizeof(ConfigObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Config_init,
    .tp_getset = Config_getset,
    .tp_doc = "The per-config tables of the native core, read from a spec vector.",
};

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

/* set_record(i, bytes): checked; then game i plays on from it. */
static PyObject *Batch_set_record(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    Py_buffer view;
    if (!ready(self) || !PyArg_ParseTuple(args, "ny*", &i, &view)) {
        return NULL;
    }
    if (!check_index(self, i)) {
        PyBuffer_Release(&view);
        return NULL;
    }
    if (view.len != (Py_ssize_t)sizeof(mr_state)) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "record: expected %zu bytes, got %zd", sizeof(mr_state),
                     view.len);
        return NULL;
    }
    mr_state st;
    memcpy(&st, view.buf, sizeof st);
    PyBuffer_Release(&view);
    const char *err = mr_check_state(self->cfg, &st);
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    mr_rebuild(self->cfg, &st);
    self->states[i] = st;
    forget_blocks(self, i);
    int n = self->cfg->n;
    for (int s = 0; s < n; s++) {
        self->totals[i * n + s] = mr_total(self->cfg, &st, s);
    }
    clear_step_outputs(self, i);
    publish(self, i);
    Py_RETURN_NONE;
}

/* observe(i, seat, out): game i as seat sees it, into out (float32, obs_size). */
static PyObject *Batch_observe(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    int seat;
    PyObject *out;
    if (!ready(self) || !PyArg_ParseTuple(args, "niO", &i, &seat, &out) || !check_index(self, i)) {
        return NULL;
    }
    if (seat < 0 || seat >= self->cfg->n) {
        PyErr_Format(PyExc_ValueError, "seat: expected 0..%d, got %d", self->cfg->n - 1, seat);
        return NULL;
    }
    Py_buffer view;
    if (get_buffer(out, &view, "out", "f", 4, self->cfg->obs_size, 1) < 0) {
        return NULL;
    }
    mr_encode(self->cfg, &self->states[i], seat, (float *)view.buf);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
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

static PyTypeObject BatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moonriver_env._native.Batch",
    .tp_basicsize = sizeof(BatchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Batch_init,
    .tp_dealloc = (destructor)Batch_dealloc,
    .tp_methods = Batch_methods,
    .tp_doc = "N games of one config, stepped together (see moonriver_env.vector).",
};


/* --- State: one game for search ------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD PyObject *config;
    const mr_config *cfg;
    mr_state st;
} StateObject;

static PyTypeObject StateType;

static void State_dealloc(StateObject *self) {
    Py_XDECREF(self->config);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static StateObject *new_state_object(PyObject *config) {
    StateObject *obj = PyObject_New(StateObject, &StateType);
    if (!obj) {
        return NULL;
    }
    Py_INCREF(config);
    obj->config = config;
    obj->cfg = &((ConfigObject *)config)->cfg;
    return obj;
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
    PyObject *config;
    Py_buffer view;
    if (!PyArg_ParseTuple(args, "O!y*", &ConfigType, &config, &view)) {
        return NULL;
    }
    if (view.len != (Py_ssize_t)sizeof(mr_state)) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "record: expected %zu bytes, got %zd", sizeof(mr_state),
                     view.len);
        return NULL;
    }
    mr_state st;
    memcpy(&st, view.buf, sizeof st);
    PyBuffer_Release(&view);
    const mr_config *cfg = &((ConfigObject *)config)->cfg;
    const char *err = mr_check_state(cfg, &st);
    if (err) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    mr_rebuild(cfg, &st);
    StateObject *obj = new_state_object(config);
    if (obj) {
        obj->st = st;
    }
    return (PyObject *)obj;
}

static PyObject *State_clone(StateObject *self, PyObject *unused) {
    StateObject *obj = new_state_object(self->config);
    if (obj) {
        obj->st = self->st;
    }
    return (PyObject *)obj;
}

static PyObject *State_copy_from(StateObject *self, PyObject *other) {
    if (!PyObject_TypeCheck(other, &StateType) ||
        ((StateObject *)other)->config != self->config) {
        PyErr_SetString(PyExc_TypeError, "copy_from: expected a State of the same Config");
        return NULL;
    }
    self->st = ((StateObject *)other)->st;
    Py_RETURN_NONE;
}

static PyObject *State_legal(StateObject *self, PyObject *unused) {
    int16_t legal[MR_MAX_ACTIONS];
    int count = self->st.phase == PH_GAME_OVER ? 0 : mr_legal(self->cfg, &self->st, legal);
    PyObject *out = PyList_New(count);
    if (!out) {
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        PyList_SET_ITEM(out, i, PyLong_FromLong(legal[i]));
    }
    return out;
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

/* simulate(policy, depth, value_mode, seed, weights) -> tuple of leaf values (in place). */
static PyObject *State_simulate(StateObject *self, PyObject *args) {
    int policy, depth, value_mode;
    unsigned long long seed;
    PyObject *wobj;
    if (!PyArg_ParseTuple(args, "iiiKO", &policy, &depth, &value_mode, &seed, &wobj)) {
        return NULL;
    }
    double w[11];
    PyObject *seq = PySequence_Fast(wobj, "weights: expected a sequence of 11 numbers");
    if (!seq) {
        return NULL;
    }
    if (PySequence_Fast_GET_SIZE(seq) != 11) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "weights: expected 11 numbers");
        return NULL;
    }
    for (int i = 0; i < 11; i++) {
        w[i] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(seq, i));
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) {
        return NULL;
    }
    if (policy < 0 || policy > 1 || value_mode < 0 || value_mode > 1) {
        PyErr_SetString(PyExc_ValueError, "simulate: policy and value_mode are 0 or 1");
        return NULL;
    }
    double values[MR_MAX_PLAYERS];
    mr_simulate(self->cfg, &self->st, policy, depth, value_mode, seed, w, values);
    PyObject *out = PyTuple_New(self->cfg->n);
    if (!out) {
        return NULL;
    }
    for (int s = 0; s < self->cfg->n; s++) {
        PyTuple_SET_ITEM(out, s, PyFloat_FromDouble(values[s]));
    }
    return out;
}

static void sort8(int8_t *a, int len) {
    for (int i = 1; i < len; i++) {
        int8_t x = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}

/* determinize(state_hi, state_lo, inc_hi, inc_lo, has_uint32, uinteger) -> the generator's
 * state after: the pile and the stack sorted, then shuffled with that PCG64 (as
 * agents.base.determinize with a NumPy generator in that state). */
static PyObject *State_determinize(StateObject *self, PyObject *args) {
    mr_pcg64 rng;
    unsigned long long a, b, c, d;
    unsigned int has, u;
    if (!PyArg_ParseTuple(args, "KKKKII", &a, &b, &c, &d, &has, &u)) {
        return NULL;
    }
    rng.state_hi = a;
    rng.state_lo = b;
    rng.inc_hi = c;
    rng.inc_lo = d;
    rng.has_uint32 = has ? 1u : 0u;
    rng.uinteger = u;
    sort8(self->st.pile, self->st.pile_len);
    sort8(self->st.stack, self->st.stack_len);
    mr_redetermine(&self->st, &rng);
    return Py_BuildValue("(KKKKII)", (unsigned long long)rng.state_hi,
                         (unsigned long long)rng.state_lo, (unsigned long long)rng.inc_hi,
                         (unsigned long long)rng.inc_lo, rng.has_uint32, rng.uinteger);
}

static PyObject *State_record(StateObject *self, PyObject *unused) {
    return PyBytes_FromStringAndSize((const char *)&self->st, sizeof(mr_state));
}

/* time_clones(k) -> k: copies the state k times inside the core (the clone's own cost,
 * without Python's object allocation), for the benchmark. */
static PyObject *State_time_clones(StateObject *self, PyObject *arg) {
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred()) {
        return NULL;
    }
    static mr_state sink[2];
    volatile int8_t keep = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (long i = 0; i < k; i++) {
        memcpy(&sink[i & 1], &self->st, sizeof(mr_state));
        keep = (int8_t)(keep + sink[i & 1].phase);
    }
    Py_END_ALLOW_THREADS;
    (void)keep;
    return PyLong_FromLong(k);
}

static PyObject *State_get_phase(StateObject *self, void *closure) {
    return PyLong_FromLong(self->st.phase);
}

static PyObject *State_get_seat(StateObject *self, void *closure) {
    return PyLong_FromLong(self->st.seat);
}

static PyMethodDef State_methods[] = {
    {"clone", (PyCFunction)State_clone, METH_NOARGS, "an independent copy"},
    {"copy_from", (PyCFunction)State_copy_from, METH_O, "become a copy of another State"},
    {"legal", (PyCFunction)State_legal, METH_NOARGS, "legal action ids, ascending"},
    {"apply", (PyCFunction)State_apply, METH_O, "apply(a) -> False if a is not legal"},
    {"scores", (PyCFunction)State_scores, METH_NOARGS, "one 7-tuple per seat"},
    {"redetermine", (PyCFunction)State_redetermine, METH_O, "re-shuffle the hidden order"},
    {"rollout", (PyCFunction)State_rollout, METH_VARARGS, "rollout(seed, depth)"},
    {"record", (PyCFunction)State_record, METH_NOARGS, "the state's record bytes"},
    {"simulate", (PyCFunction)State_simulate, METH_VARARGS,
     "simulate(policy, depth, value_mode, seed, weights) -> leaf values"},
    {"determinize", (PyCFunction)State_determinize, METH_VARARGS,
     "determinize(*pcg64_state) -> the generator state after"},
    {"time_clones", (PyCFunction)State_time_clones, METH_O, "benchmark helper"},
    {NULL}};

static PyGetSetDef State_getset[] = {
    {"phase", (getter)State_get_phase, NULL, "phase code", NULL},
    {"seat", (getter)State_get_seat, NULL, "acting seat (-1 when over)", NULL},
    {NULL}};

static PyTypeObject StateType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moonriver_env._native.State",
    .tp_basicsize = sizeof(StateObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)State_dealloc,
    .tp_methods = State_methods,
    .tp_getset = State_getset,
    .tp_doc = "One game in the core, for search (see moonriver_env.vector.search).",
};

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

static PyObject *names(const char **list, int count) {
    PyObject *out = PyTuple_New(count);
    if (!out) {
        return NULL;
    }
    for (int i = 0; i < count; i++) {
        PyTuple_SET_ITEM(out, i, PyUnicode_FromString(list[i]));
    }
    return out;
}

static PyObject *spec_keys(PyObject *mod, PyObject *unused) {
    PyObject *out = PyTuple_New(MR_NUM_SPEC_KEYS);
    if (!out) {
        return NULL;
    }
    for (int i = 0; i < MR_NUM_SPEC_KEYS; i++) {
        PyTuple_SET_ITEM(out, i, Py_BuildValue("(si)", MR_SPEC_KEYS[i].name, MR_SPEC_KEYS[i].size));
    }
    return out;
}

static PyObject *state_fields(PyObject *mod, PyObject *unused) {
    PyObject *out = PyTuple_New(MR_NUM_STATE_FIELDS);
    if (!out) {
        return NULL;
    }
    for (int i = 0; i < MR_NUM_STATE_FIELDS; i++) {
        const mr_field *f = &MR_STATE_FIELDS[i];
        char type[2] = {f->type, 0};
        PyTuple_SET_ITEM(out, i, Py_BuildValue("(snsi)", f->name, (Py_ssize_t)f->offset, type,
                                               f->count));
    }
    return out;
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
