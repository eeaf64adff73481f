/* The CPython binding of Kingdomino in the native core (kingdomino.h).
 *
 * KdConfig: the checked parameters of one config (from the int64 vector the Python package
 * builds). KdBatch: N games owned by the core, which publish their legal ids, mask, seat,
 * phase and observation into NumPy arrays handed over once at construction; a step checks
 * every action against the core's own legal lists before any game changes, and the loop
 * over games runs with the GIL released. KdState: one game for search (clone, apply, legal
 * ids, redetermine, playouts and the Monte Carlo agent's batched evaluation).
 *
 * The Python API is moonriver_env.vector.kingdomino and moonriver_env.vector.kdsearch. */
#include "kdbind.h"

#include <string.h>

#include "kingdomino.h"

/* --- KdConfig ------------------------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD KdParams p;
} KdConfigObject;

static int KdConfig_init(KdConfigObject *self, PyObject *args, PyObject *kwds) {
    Py_buffer v;
    if (!PyArg_ParseTuple(args, "y*", &v)) return -1;
    const char *why = "params: not a vector of int64";
    int rc = v.len % 8 ? -1 : kd_params_from(&self->p, (const int64_t *)v.buf, v.len / 8, &why);
    PyBuffer_Release(&v);
    if (rc) {
        PyErr_SetString(PyExc_ValueError, why);
        return -1;
    }
    return 0;
}

static PyObject *KdConfig_get(KdConfigObject *self, void *which) {
    return PyLong_FromLong(which ? self->p.obs_size : self->p.num_actions);
}

static PyGetSetDef KdConfig_getset[] = {
    {"num_actions", (getter)KdConfig_get, NULL, "number of action ids", NULL},
    {"obs_size", (getter)KdConfig_get, NULL, "length of the flat observation", (void *)1},
    {NULL}};

static PyTypeObject KdConfigType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moonriver_env._native.KdConfig",
    .tp_basicsize = sizeof(KdConfigObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)KdConfig_init,
    .tp_getset = KdConfig_getset,
    .tp_doc = "The checked parameters of one Kingdomino config (KdConfig(int64 vector bytes)).",
};

/* A record from outside (bytes of sizeof(KdGame)), checked and rebuilt into *g; 0, or -1
 * with ValueError naming the field (*g unchanged). */
static int load_record(const KdParams *p, PyObject *record, KdGame *g) {
    Py_buffer view;
    if (PyObject_GetBuffer(record, &view, PyBUF_SIMPLE) < 0) return -1;
    if (view.len != (Py_ssize_t)sizeof(KdGame)) {
        PyErr_Format(PyExc_ValueError, "record: expected %zu bytes, got %zd", sizeof(KdGame),
                     view.len);
        PyBuffer_Release(&view);
        return -1;
    }
    KdGame tmp;
    memcpy(&tmp, view.buf, sizeof tmp);
    PyBuffer_Release(&view);
    const char *why = kd_check(p, &tmp);
    if (why) {
        PyErr_SetString(PyExc_ValueError, why);
        return -1;
    }
    kd_rebuild(p, &tmp);
    *g = tmp;
    return 0;
}

static PyObject *rank_keys(const KdParams *p, const KdGame *g) {
    PyObject *out = PyTuple_New(p->n);
    for (int s = 0; out && s < p->n; s++) {
        int32_t pts, big;
        kd_rank_key(p, g, s, &pts, &big);
        PyTuple_SET_ITEM(out, s, Py_BuildValue("(ii)", pts, big));
    }
    return out;
}

/* --- KdBatch ------------------------------------------------------------------------------- */
enum { KO_LEGAL, KO_MASK, KO_NUM_LEGAL, KO_SEAT, KO_PHASE, KO_OBS, KO_COUNT };

typedef struct {
    PyObject_HEAD PyObject *config; /* KdConfigObject, kept alive */
    const KdParams *p;
    Py_ssize_t num_games;
    KdGame *games;
    int16_t *legal; /* [num_games][KD_MAX_LEGAL]: the core's own legal lists */
    int32_t *nlegal;
    Py_buffer out[KO_COUNT];
    int have_out[KO_COUNT];
} KdBatchObject;

static void KdBatch_dealloc(KdBatchObject *self) {
    for (int i = 0; i < KO_COUNT; i++)
        if (self->have_out[i]) PyBuffer_Release(&self->out[i]);
    PyMem_Free(self->games);
    PyMem_Free(self->legal);
    PyMem_Free(self->nlegal);
    Py_XDECREF(self->config);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* KdBatch(config, num_games, legal int16 (N, A), mask int8 (N, A), num_legal int32 (N,),
 * seat int32 (N,), phase int32 (N,), observation float32 (N, O) or None). */
static int KdBatch_init(KdBatchObject *self, PyObject *args, PyObject *kwds) {
    PyObject *config, *arrays[KO_COUNT];
    Py_ssize_t N;
    if (!PyArg_ParseTuple(args, "O!nOOOOOO", &KdConfigType, &config, &N, &arrays[0], &arrays[1],
                          &arrays[2], &arrays[3], &arrays[4], &arrays[5]))
        return -1;
    if (self->config) {
        PyErr_SetString(PyExc_RuntimeError, "KdBatch: already initialised");
        return -1;
    }
    if (N < 1 || N > (1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "KdBatch: num_games out of range");
        return -1;
    }
    Py_INCREF(config);
    self->config = config;
    const KdParams *p = self->p = &((KdConfigObject *)config)->p;
    self->num_games = N;
    Py_ssize_t A = p->num_actions;
    struct {
        const char *name, *format;
        Py_ssize_t itemsize, count;
    } spec[KO_COUNT] = {{"legal", "h", 2, N * A}, {"mask", "bB?", 1, N * A},
                        {"num_legal", "i", 4, N}, {"seat", "i", 4, N},
                        {"phase", "i", 4, N},     {"observation", "f", 4, N * p->obs_size}};
    for (int i = 0; i < KO_COUNT; i++) {
        if (i == KO_OBS && arrays[i] == Py_None) continue;
        if (get_buffer(arrays[i], &self->out[i], spec[i].name, spec[i].format, spec[i].itemsize,
                       spec[i].count, 1) < 0)
            return -1;
        self->have_out[i] = 1;
    }
    self->games = PyMem_Calloc((size_t)N, sizeof(KdGame));
    self->legal = PyMem_Calloc((size_t)N * KD_MAX_LEGAL, sizeof(int16_t));
    self->nlegal = PyMem_Calloc((size_t)N, sizeof(int32_t));
    if (!self->games || !self->legal || !self->nlegal) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static int batch_index(KdBatchObject *self, Py_ssize_t i) {
    if (!self->config) {
        PyErr_SetString(PyExc_RuntimeError, "KdBatch: not initialised");
        return 0;
    }
    if (i < 0 || i >= self->num_games) {
        PyErr_Format(PyExc_IndexError, "game index %zd is outside 0..%zd", i, self->num_games - 1);
        return 0;
    }
    return 1;
}

/* Game i's legal ids, mask, seat, phase and observation into the outputs. */
static void publish(KdBatchObject *self, Py_ssize_t i) {
    const KdParams *p = self->p;
    const KdGame *g = &self->games[i];
    Py_ssize_t A = p->num_actions;
    int32_t ids[KD_MAX_LEGAL];
    int k = kd_legal(p, g, ids);
    int16_t *own = self->legal + i * KD_MAX_LEGAL;
    int16_t *legal = (int16_t *)self->out[KO_LEGAL].buf + i * A;
    int8_t *mask = (int8_t *)self->out[KO_MASK].buf + i * A;
    memset(mask, 0, (size_t)A);
    memset(legal, 0, sizeof(int16_t) * (size_t)A);
    for (int j = 0; j < k; j++) {
        own[j] = legal[j] = (int16_t)ids[j];
        mask[ids[j]] = 1;
    }
    self->nlegal[i] = k;
    ((int32_t *)self->out[KO_NUM_LEGAL].buf)[i] = k;
    ((int32_t *)self->out[KO_SEAT].buf)[i] = g->seat;
    ((int32_t *)self->out[KO_PHASE].buf)[i] = g->phase;
    if (self->have_out[KO_OBS])
        kd_encode(p, g, g->phase == KD_GAME_OVER ? 0 : g->seat,
                  (float *)self->out[KO_OBS].buf + i * p->obs_size);
}

/* new_game(i, seed): the game new_game(config, seed) sets up, in slot i. */
static PyObject *KdBatch_new_game(KdBatchObject *self, PyObject *args) {
    Py_ssize_t i;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "nK", &i, &seed) || !batch_index(self, i)) return NULL;
    kd_new_game(self->p, &self->games[i], seed);
    publish(self, i);
    Py_RETURN_NONE;
}

/* step(actions int64 (N,), active bool (N,)) -> -1, or the first active game whose action is
 * not legal (then no game has changed). A finished game (no auto-reset) ignores its action. */
static PyObject *KdBatch_step(KdBatchObject *self, PyObject *args) {
    PyObject *actions, *active_obj;
    if (!PyArg_ParseTuple(args, "OO", &actions, &active_obj) || !batch_index(self, 0)) return NULL;
    Py_buffer av, bv;
    Py_ssize_t N = self->num_games, bad = -1;
    if (get_buffer(actions, &av, "actions", "qlL", 8, N, 0) < 0) return NULL;
    if (get_buffer(active_obj, &bv, "active", "?bB", 1, N, 0) < 0) {
        PyBuffer_Release(&av);
        return NULL;
    }
    const int64_t *act = av.buf;
    const char *active = bv.buf;
    for (Py_ssize_t i = 0; i < N && bad < 0; i++) {
        if (!active[i] || self->games[i].phase == KD_GAME_OVER) continue;
        const int16_t *own = self->legal + i * KD_MAX_LEGAL;
        int ok = 0;
        for (int j = 0; j < self->nlegal[i] && !ok; j++) ok = own[j] == act[i];
        if (!ok) bad = i;
    }
    if (bad < 0) {
        Py_BEGIN_ALLOW_THREADS;
        for (Py_ssize_t i = 0; i < N; i++) {
            if (!active[i] || self->games[i].phase == KD_GAME_OVER) continue;
            kd_apply(self->p, &self->games[i], (int32_t)act[i]);
            publish(self, i);
        }
        Py_END_ALLOW_THREADS;
    }
    PyBuffer_Release(&av);
    PyBuffer_Release(&bv);
    return PyLong_FromSsize_t(bad);
}

/* observe(i, seat, out float32 (O,)) */
static PyObject *KdBatch_observe(KdBatchObject *self, PyObject *args) {
    Py_ssize_t i;
    int seat;
    PyObject *out;
    if (!PyArg_ParseTuple(args, "niO", &i, &seat, &out) || !batch_index(self, i)) return NULL;
    if (seat < 0 || seat >= self->p->n) {
        PyErr_Format(PyExc_ValueError, "seat: expected 0..%d, got %d", self->p->n - 1, seat);
        return NULL;
    }
    Py_buffer view;
    if (get_buffer(out, &view, "out", "f", 4, self->p->obs_size, 1) < 0) return NULL;
    kd_encode(self->p, &self->games[i], seat, view.buf);
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* scores(i) -> per seat (points, largest territory) of the match so far */
static PyObject *KdBatch_scores(KdBatchObject *self, PyObject *args) {
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i) || !batch_index(self, i)) return NULL;
    return rank_keys(self->p, &self->games[i]);
}

static PyObject *KdBatch_get_record(KdBatchObject *self, PyObject *args) {
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i) || !batch_index(self, i)) return NULL;
    return PyBytes_FromStringAndSize((const char *)&self->games[i], sizeof(KdGame));
}

/* set_record(i, record): checked (ValueError naming the field, nothing changed); then game
 * i plays on from it. */
static PyObject *KdBatch_set_record(KdBatchObject *self, PyObject *args) {
    Py_ssize_t i;
    PyObject *record;
    if (!PyArg_ParseTuple(args, "nO", &i, &record) || !batch_index(self, i)) return NULL;
    if (load_record(self->p, record, &self->games[i]) < 0) return NULL;
    publish(self, i);
    Py_RETURN_NONE;
}

static PyMethodDef KdBatch_methods[] = {
    {"new_game", (PyCFunction)KdBatch_new_game, METH_VARARGS, "new_game(i, seed)"},
    {"step", (PyCFunction)KdBatch_step, METH_VARARGS, "step(actions, active) -> -1 or i"},
    {"observe", (PyCFunction)KdBatch_observe, METH_VARARGS, "observe(i, seat, out)"},
    {"scores", (PyCFunction)KdBatch_scores, METH_VARARGS, "scores(i) -> ((points, largest), ...)"},
    {"get_record", (PyCFunction)KdBatch_get_record, METH_VARARGS, "get_record(i) -> bytes"},
    {"set_record", (PyCFunction)KdBatch_set_record, METH_VARARGS, "set_record(i, bytes)"},
    {NULL}};

static PyTypeObject KdBatchType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moonriver_env._native.KdBatch",
    .tp_basicsize = sizeof(KdBatchObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)KdBatch_init,
    .tp_dealloc = (destructor)KdBatch_dealloc,
    .tp_methods = KdBatch_methods,
    .tp_doc = "N Kingdomino games stepped together (see moonriver_env.vector.kingdomino).",
};

/* --- KdState: one game for search ----------------------------------------------------------- */
typedef struct {
    PyObject_HEAD PyObject *config;
    const KdParams *p;
    KdGame g;
} KdStateObject;

static PyTypeObject KdStateType;

static void KdState_dealloc(KdStateObject *self) {
    Py_XDECREF(self->config);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static KdStateObject *new_kd_state(PyObject *config) {
    KdStateObject *obj = PyObject_New(KdStateObject, &KdStateType);
    if (obj) {
        Py_INCREF(config);
        obj->config = config;
        obj->p = &((KdConfigObject *)config)->p;
    }
    return obj;
}

/* kd_new_state(config, seed): the game new_game(config, seed) sets up. */
static PyObject *kd_new_state(PyObject *mod, PyObject *args) {
    PyObject *config;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "O!K", &KdConfigType, &config, &seed)) return NULL;
    KdStateObject *obj = new_kd_state(config);
    if (obj) kd_new_game(obj->p, &obj->g, seed);
    return (PyObject *)obj;
}

/* kd_state_from_record(config, record): checked like KdBatch.set_record. */
static PyObject *kd_state_from_record(PyObject *mod, PyObject *args) {
    PyObject *config, *record;
    if (!PyArg_ParseTuple(args, "O!O", &KdConfigType, &config, &record)) return NULL;
    KdGame g;
    if (load_record(&((KdConfigObject *)config)->p, record, &g) < 0) return NULL;
    KdStateObject *obj = new_kd_state(config);
    if (obj) obj->g = g;
    return (PyObject *)obj;
}

static PyObject *KdState_clone(KdStateObject *self, PyObject *unused) {
    KdStateObject *obj = new_kd_state(self->config);
    if (obj) obj->g = self->g;
    return (PyObject *)obj;
}

static PyObject *KdState_copy_from(KdStateObject *self, PyObject *other) {
    if (!PyObject_TypeCheck(other, &KdStateType) ||
        ((KdStateObject *)other)->config != self->config) {
        PyErr_SetString(PyExc_TypeError, "copy_from: expected a KdState of the same KdConfig");
        return NULL;
    }
    self->g = ((KdStateObject *)other)->g;
    Py_RETURN_NONE;
}

static PyObject *KdState_legal(KdStateObject *self, PyObject *unused) {
    int32_t ids[KD_MAX_LEGAL];
    int k = kd_legal(self->p, &self->g, ids);
    PyObject *out = PyList_New(k);
    for (int j = 0; out && j < k; j++) PyList_SET_ITEM(out, j, PyLong_FromLong(ids[j]));
    return out;
}

/* apply(a) -> True, or False when a is not legal (then nothing changed). */
static PyObject *KdState_apply(KdStateObject *self, PyObject *arg) {
    long long a = PyLong_AsLongLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    if (!kd_is_legal(self->p, &self->g, a)) Py_RETURN_FALSE;
    kd_apply(self->p, &self->g, (int32_t)a);
    Py_RETURN_TRUE;
}

static PyObject *KdState_scores(KdStateObject *self, PyObject *unused) {
    return rank_keys(self->p, &self->g);
}

static PyObject *KdState_record(KdStateObject *self, PyObject *unused) {
    return PyBytes_FromStringAndSize((const char *)&self->g, sizeof(KdGame));
}

/* A generator's state as six integers (numpy PCG64 .state: state and inc split in 64-bit
 * halves, has_uint32, uinteger) and back. */
static int parse_rng(PyObject *obj, mr_pcg64 *rng) {
    unsigned long long a, b, c, d;
    unsigned int has, u;
    if (!PyArg_ParseTuple(obj, "KKKKII", &a, &b, &c, &d, &has, &u)) return -1;
    rng->state_hi = a;
    rng->state_lo = b;
    rng->inc_hi = c;
    rng->inc_lo = d;
    rng->has_uint32 = has ? 1u : 0u;
    rng->uinteger = u;
    return 0;
}

static PyObject *build_rng(const mr_pcg64 *rng) {
    return Py_BuildValue("(KKKKII)", (unsigned long long)rng->state_hi,
                         (unsigned long long)rng->state_lo, (unsigned long long)rng->inc_hi,
                         (unsigned long long)rng->inc_lo, rng->has_uint32, rng->uinteger);
}

/* redetermine(rng state) -> the generator's state after (KingdominoState.redetermine). */
static PyObject *KdState_redetermine(KdStateObject *self, PyObject *arg) {
    mr_pcg64 rng;
    if (!PyTuple_Check(arg) || parse_rng(arg, &rng) < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "redetermine: a generator state");
        return NULL;
    }
    kd_redetermine(&self->g, &rng);
    return build_rng(&rng);
}

static int check_policy(int policy, int value, int me, int n) {
    if (policy < 0 || policy >= KD_NUM_POLICIES || value < 0 || value >= KD_NUM_VALUES ||
        me < -1 || me >= n) {
        PyErr_SetString(PyExc_ValueError, "kingdomino: policy, value or seat out of range");
        return -1;
    }
    return 0;
}

/* rollout(policy, seed, me) -> decisions played: playout(state, policy, default_rng(seed),
 * me) to the end, in place. */
static PyObject *KdState_rollout(KdStateObject *self, PyObject *args) {
    int policy, me;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "iKi", &policy, &seed, &me) ||
        check_policy(policy, 0, me, self->p->n) < 0)
        return NULL;
    mr_pcg64 rng;
    mr_pcg64_seed(&rng, seed);
    return PyLong_FromLong(kd_playout(self->p, &self->g, policy, me, &rng));
}

/* monte_carlo(candidates, sims, policy, value, seat, rng state) -> (totals, counts, rng state
 * after): kd_monte_carlo on a copy of this game, with the GIL released. */
static PyObject *KdState_monte_carlo(KdStateObject *self, PyObject *args) {
    PyObject *cands_obj, *rng_obj;
    long long sims;
    int policy, value, seat;
    if (!PyArg_ParseTuple(args, "OLiiiO!", &cands_obj, &sims, &policy, &value, &seat,
                          &PyTuple_Type, &rng_obj) ||
        check_policy(policy, value, seat, self->p->n) < 0)
        return NULL;
    mr_pcg64 rng;
    if (parse_rng(rng_obj, &rng) < 0) return NULL;
    if (seat < 0 || sims < 1 || sims > ((long long)1 << 40)) {
        PyErr_SetString(PyExc_ValueError, "monte_carlo: a seat and sims >= 1 expected");
        return NULL;
    }
    PyObject *seq = PySequence_Fast(cands_obj, "candidates: expected a sequence of action ids");
    if (!seq) return NULL;
    Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    int32_t cands[KD_MAX_LEGAL];
    if (k < 1 || k > KD_MAX_LEGAL) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "candidates: expected 1 or more legal actions");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        long long a = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (a == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (!kd_is_legal(self->p, &self->g, a)) {
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "candidates: action %lld is not legal", a);
            return NULL;
        }
        cands[i] = (int32_t)a;
    }
    Py_DECREF(seq);
    double totals[KD_MAX_LEGAL];
    int64_t counts[KD_MAX_LEGAL];
    KdGame root = self->g;
    Py_BEGIN_ALLOW_THREADS;
    kd_monte_carlo(self->p, &root, cands, (int)k, sims, policy, value, seat, &rng, totals, counts);
    Py_END_ALLOW_THREADS;
    PyObject *t = PyTuple_New(k), *c = PyTuple_New(k);
    for (Py_ssize_t i = 0; t && c && i < k; i++) {
        PyTuple_SET_ITEM(t, i, PyFloat_FromDouble(totals[i]));
        PyTuple_SET_ITEM(c, i, PyLong_FromLongLong(counts[i]));
    }
    PyObject *r = build_rng(&rng);
    if (!t || !c || !r) {
        Py_XDECREF(t);
        Py_XDECREF(c);
        Py_XDECREF(r);
        return NULL;
    }
    return Py_BuildValue("(NNN)", t, c, r);
}

/* time_clones(k) -> k: copies the game k times inside the core (the clone's own cost). */
static PyObject *KdState_time_clones(KdStateObject *self, PyObject *arg) {
    long k = PyLong_AsLong(arg);
    if (k == -1 && PyErr_Occurred()) return NULL;
    static KdGame sink[2];
    volatile int8_t keep = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (long i = 0; i < k; i++) {
        memcpy(&sink[i & 1], &self->g, sizeof(KdGame));
        keep = (int8_t)(keep + sink[i & 1].phase);
    }
    Py_END_ALLOW_THREADS;
    (void)keep;
    return PyLong_FromLong(k);
}

static PyObject *KdState_get(KdStateObject *self, void *which) {
    return PyLong_FromLong(which ? self->g.seat : self->g.phase);
}

static PyMethodDef KdState_methods[] = {
    {"clone", (PyCFunction)KdState_clone, METH_NOARGS, "an independent copy"},
    {"copy_from", (PyCFunction)KdState_copy_from, METH_O, "become a copy of another KdState"},
    {"legal", (PyCFunction)KdState_legal, METH_NOARGS, "legal action ids, ascending"},
    {"apply", (PyCFunction)KdState_apply, METH_O, "apply(a) -> False if a is not legal"},
    {"scores", (PyCFunction)KdState_scores, METH_NOARGS, "per seat (points, largest)"},
    {"record", (PyCFunction)KdState_record, METH_NOARGS, "the game's record bytes"},
    {"redetermine", (PyCFunction)KdState_redetermine, METH_O,
     "redetermine(rng state) -> rng state after"},
    {"rollout", (PyCFunction)KdState_rollout, METH_VARARGS, "rollout(policy, seed, me)"},
    {"monte_carlo", (PyCFunction)KdState_monte_carlo, METH_VARARGS,
     "monte_carlo(candidates, sims, policy, value, seat, rng) -> (totals, counts, rng)"},
    {"time_clones", (PyCFunction)KdState_time_clones, METH_O, "benchmark helper"},
    {NULL}};

static PyGetSetDef KdState_getset[] = {
    {"phase", (getter)KdState_get, NULL, "phase code", NULL},
    {"seat", (getter)KdState_get, NULL, "acting seat (-1 when over)", (void *)1},
    {NULL}};

static PyTypeObject KdStateType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "moonriver_env._native.KdState",
    .tp_basicsize = sizeof(KdStateObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)KdState_dealloc,
    .tp_methods = KdState_methods,
    .tp_getset = KdState_getset,
    .tp_doc = "One Kingdomino game in the core, for search (moonriver_env.vector.kdsearch).",
};

/* --- module -------------------------------------------------------------------------------- */
static PyObject *kd_game_fields(PyObject *mod, PyObject *unused) {
    PyObject *out = PyTuple_New(KD_NUM_GAME_FIELDS);
    for (int i = 0; out && i < KD_NUM_GAME_FIELDS; i++) {
        const mr_field *f = &KD_GAME_FIELDS[i];
        char type[2] = {f->type, 0};
        PyTuple_SET_ITEM(out, i, Py_BuildValue("(snsi)", f->name, (Py_ssize_t)f->offset, type,
                                               f->count));
    }
    return out;
}

static PyObject *name_tuple(const char **names, int count) {
    PyObject *out = PyTuple_New(count);
    for (int i = 0; out && i < count; i++) PyTuple_SET_ITEM(out, i, PyUnicode_FromString(names[i]));
    return out;
}

static PyMethodDef kd_functions[] = {
    {"kd_new_state", kd_new_state, METH_VARARGS, "kd_new_state(config, seed) -> KdState"},
    {"kd_state_from_record", kd_state_from_record, METH_VARARGS,
     "kd_state_from_record(config, record) -> KdState (checked)"},
    {"kd_game_fields", kd_game_fields, METH_NOARGS,
     "The Kingdomino record's fields: (name, byte offset, type code, count)."},
    {NULL}};

int kd_add_to_module(PyObject *m) {
    if (PyType_Ready(&KdConfigType) < 0 || PyType_Ready(&KdBatchType) < 0 ||
        PyType_Ready(&KdStateType) < 0)
        return -1;
    Py_INCREF(&KdConfigType);
    Py_INCREF(&KdBatchType);
    if (PyModule_AddFunctions(m, kd_functions) < 0 ||
        PyModule_AddObject(m, "KdConfig", (PyObject *)&KdConfigType) < 0 ||
        PyModule_AddObject(m, "KdBatch", (PyObject *)&KdBatchType) < 0 ||
        PyModule_AddIntConstant(m, "KD_RECORD_SIZE", (long)sizeof(KdGame)) < 0 ||
        PyModule_AddIntConstant(m, "KD_PARAMS_LEN", KD_PARAMS_LEN) < 0 ||
        PyModule_AddObject(m, "KD_POLICIES", name_tuple(KD_POLICY_NAMES, KD_NUM_POLICIES)) < 0 ||
        PyModule_AddObject(m, "KD_VALUES", name_tuple(KD_VALUE_NAMES, KD_NUM_VALUES)) < 0)
        return -1;
    return 0;
}
