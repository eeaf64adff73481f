/* The CPython binding of Kingdomino in the native core (kingdomino.h).
 *
 * KdConfig: the checked parameters of one config (from the int64 vector the Python package
 * builds). KdBatch: N games owned by the core, which publish their legal ids, mask, seat,
 * phase and observation into NumPy arrays handed over once at construction; a step checks
 * every action against the core's own legal lists before any game changes, and the loop
 * over games runs with the GIL released. KdState: one game for search (clone, apply, legal
 * ids, redetermine, playouts and the Monte Carlo agent's batched evaluation).
 *
 * The Python API is moonriver_env.kingdomino.vector.game and moonriver_env.kingdomino.vector.search. */
#include "binding.h"

#include <stddef.h>
#include <string.h>

#include "kingdomino.h"

/* --- KdConfig ------------------------------------------------------------------------------ */
typedef struct {
    ConfigHead head;
    KdParams p;
} KdConfigObject;

static int KdConfig_init(KdConfigObject *self, PyObject *args, PyObject *kwds) {
    Py_buffer b;
    if (!PyArg_ParseTuple(args, "y*", &b)) return -1;
    int64_t v[KD_PARAMS_LEN]; /* a private copy: what is checked is what is kept */
    if (b.len == (Py_ssize_t)sizeof v) memcpy(v, b.buf, sizeof v);
    int64_t len = b.len % 8 ? -1 : b.len / 8;
    PyBuffer_Release(&b);
    if (config_fresh((PyObject *)self) < 0) return -1;
    const char *why = "params: not a vector of int64";
    if (len < 0 || kd_params_from(&self->p, v, len, &why)) {
        PyErr_SetString(PyExc_ValueError, why);
        return -1;
    }
    self->head.ready = 1;
    return 0;
}

static PyTypeObject KdConfigType = {
    NATIVE_TYPE(KdConfigObject, "KdConfig",
                "The checked parameters of one Kingdomino config (KdConfig(int64 vector bytes))."),
    .tp_new = PyType_GenericNew, .tp_init = (initproc)KdConfig_init};

static const char *check_and_rebuild(const void *params, void *game) {
    const char *why = kd_check(params, game);
    if (!why) kd_rebuild(params, game);
    return why;
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
enum { KO_LEGAL, KO_MASK, KO_NUM_LEGAL, KO_SEAT, KO_PHASE, KO_OBS, KO_SIDX, KO_SVAL, KO_SNNZ,
       KO_COUNT };

typedef struct {
    BatchHead head; /* head.config: the KdConfigObject, kept alive */
    const KdParams *p;
    Py_ssize_t num_games;
    KdGame *games;
    int16_t *legal; /* [num_games][KD_MAX_LEGAL]: the core's own legal lists */
    int32_t *nlegal;
    int32_t *todo;     /* [num_games]: a step's checked actions (-1: the game sits out) */
    int8_t *published; /* [num_games]: the mask row holds exactly legal's ids */
    int sparse_width;  /* 0: no sparse observation */
    int32_t *sprev;    /* [num_games]: entries the sparse row held before */
    float *scratch;    /* [obs_size]: the dense row the sparse one is packed from */
    Py_buffer out[KO_COUNT];
    int have_out[KO_COUNT];
} KdBatchObject;

/* Releases everything the KdBatch holds (after a failed __init__, or at the end). */
static void KdBatch_clear(KdBatchObject *self) {
    for (int i = 0; i < KO_COUNT; i++) {
        if (self->have_out[i]) PyBuffer_Release(&self->out[i]);
        self->have_out[i] = 0;
    }
    PyMem_Free(self->games); /* one block: the games, nlegal, todo, legal, published */
    self->games = NULL;
    PyMem_Free(self->sprev);
    self->sprev = NULL;
    PyMem_Free(self->scratch);
    self->scratch = NULL;
    Py_CLEAR(self->head.config);
}

static void KdBatch_dealloc(KdBatchObject *self) {
    KdBatch_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* KdBatch_init's work once the arguments are parsed: 0, or -1 with an exception set. */
static int KdBatch_setup(KdBatchObject *self, PyObject *config, Py_ssize_t N, PyObject **arrays,
                         int sparse_width) {
    if (config_ready(config) < 0) return -1;
    if (N < 1 || N > (1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "KdBatch: num_games out of range");
        return -1;
    }
    Py_INCREF(config);
    self->head.config = config;
    const KdParams *p = self->p = &((KdConfigObject *)config)->p;
    self->num_games = N;
    Py_ssize_t A = p->num_actions, W = sparse_width;
    int given = sparse_outputs("KdBatch", arrays[KO_SIDX], arrays[KO_SVAL], arrays[KO_SNNZ],
                               sparse_width, p->obs_size);
    if (given < 0) return -1;
    self->sparse_width = given ? sparse_width : 0;
    struct {
        const char *name, *format;
        Py_ssize_t itemsize, count;
    } spec[KO_COUNT] = {{"legal", "h", 2, N * A}, {"mask", "bB?", 1, N * A},
                        {"num_legal", "i", 4, N}, {"seat", "i", 4, N},
                        {"phase", "i", 4, N},     {"observation", "f", 4, N * p->obs_size},
                        {"sparse_idx", "i", 4, N * W}, {"sparse_val", "f", 4, N * W},
                        {"sparse_nnz", "i", 4, N}};
    for (int i = 0; i < KO_COUNT; i++) {
        if (arrays[i] == Py_None && (i == KO_OBS || i >= KO_SIDX)) continue;
        if (get_buffer(arrays[i], &self->out[i], spec[i].name, spec[i].format, spec[i].itemsize,
                       spec[i].count, 1) < 0)
            return -1;
        self->have_out[i] = 1;
    }
    self->games = PyMem_Calloc((size_t)N, sizeof(KdGame) + 2 * sizeof(int32_t) +
                                              KD_MAX_LEGAL * sizeof(int16_t) + 1);
    if (!self->games) {
        PyErr_NoMemory();
        return -1;
    }
    self->nlegal = (int32_t *)(self->games + N);
    self->todo = self->nlegal + N;
    self->legal = (int16_t *)(self->todo + N);
    self->published = (int8_t *)(self->legal + N * KD_MAX_LEGAL);
    if (self->sparse_width) {
        self->sprev = PyMem_Calloc((size_t)N, sizeof(int32_t));
        self->scratch = PyMem_Calloc((size_t)p->obs_size, sizeof(float));
        if (!self->sprev || !self->scratch) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < N; i++) self->sprev[i] = sparse_width; /* pad it all once */
    }
    return 0;
}

/* KdBatch(config, num_games, legal int16 (N, A), mask int8 (N, A), num_legal int32 (N,),
 * seat int32 (N,), phase int32 (N,), observation float32 (N, O) or None, *, sparse_idx int32
 * (N, W), sparse_val float32 (N, W), sparse_nnz int32 (N,), sparse_width W: the sparse
 * observation, all three or none). */
static int KdBatch_init(KdBatchObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"config", "num_games", "legal", "mask", "num_legal", "seat", "phase",
                             "observation", "sparse_idx", "sparse_val", "sparse_nnz",
                             "sparse_width", NULL};
    PyObject *config, *arrays[KO_COUNT];
    Py_ssize_t N;
    int sparse_width = 0;
    arrays[KO_SIDX] = arrays[KO_SVAL] = arrays[KO_SNNZ] = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!nOOOOOO|$OOOi", kwlist, &KdConfigType,
                                     &config, &N, &arrays[0], &arrays[1], &arrays[2], &arrays[3],
                                     &arrays[4], &arrays[5], &arrays[KO_SIDX], &arrays[KO_SVAL],
                                     &arrays[KO_SNNZ], &sparse_width) ||
        batch_init_begin((PyObject *)self) < 0)
        return -1;
    int rc = KdBatch_setup(self, config, N, arrays, sparse_width);
    if (rc < 0) KdBatch_clear(self); /* nothing held, the KdBatch unusable */
    return batch_init_done((PyObject *)self, rc == 0);
}

static int batch_index(KdBatchObject *self, Py_ssize_t i) {
    if (i < 0 || i >= self->num_games) {
        PyErr_Format(PyExc_IndexError, "game index %zd is outside 0..%zd", i, self->num_games - 1);
        return 0;
    }
    return 1;
}

/* Game i's legal ids, mask, seat, phase and observation into the outputs. Returns 1 when its
 * sparse row did not fit the width (the row left all padding, its count -1), else 0. */
static int publish(KdBatchObject *self, Py_ssize_t i) {
    const KdParams *p = self->p;
    const KdGame *g = &self->games[i];
    Py_ssize_t A = p->num_actions;
    int32_t ids[KD_MAX_LEGAL];
    int k = kd_legal(p, g, ids);
    int16_t *own = self->legal + i * KD_MAX_LEGAL;
    int16_t *legal = (int16_t *)self->out[KO_LEGAL].buf + i * A;
    int8_t *mask = (int8_t *)self->out[KO_MASK].buf + i * A;
    if (self->published[i]) { /* clear only the ids the last publish marked */
        for (int j = 0; j < self->nlegal[i]; j++) mask[own[j]] = 0;
    } else {
        memset(mask, 0, (size_t)A);
        self->published[i] = 1;
    }
    for (int j = 0; j < k; j++) {
        own[j] = legal[j] = (int16_t)ids[j];
        mask[ids[j]] = 1;
    }
    self->nlegal[i] = k;
    ((int32_t *)self->out[KO_NUM_LEGAL].buf)[i] = k;
    ((int32_t *)self->out[KO_SEAT].buf)[i] = g->seat;
    ((int32_t *)self->out[KO_PHASE].buf)[i] = g->phase;
    float *dense = self->have_out[KO_OBS] ? (float *)self->out[KO_OBS].buf + i * p->obs_size
                                          : self->scratch;
    if (dense) kd_encode(p, g, g->phase == KD_GAME_OVER ? 0 : g->seat, dense);
    if (self->sparse_width) {
        Py_ssize_t W = self->sparse_width;
        int nnz = pack_dense_row(dense, p->obs_size, (int32_t *)self->out[KO_SIDX].buf + i * W,
                                 (float *)self->out[KO_SVAL].buf + i * W, (int)W,
                                 &self->sprev[i]);
        ((int32_t *)self->out[KO_SNNZ].buf)[i] = nnz;
        return nnz < 0;
    }
    return 0;
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
 * not legal (then no game has changed), or -2 when a sparse row did not fit its width (a
 * bug: the row is all padding). A finished game (no auto-reset) ignores its action.
 * Each action is read once from the caller's array into todo and checked there; the games
 * play todo only (the caller's arrays may change meanwhile). */
static PyObject *KdBatch_step(KdBatchObject *self, PyObject *args) {
    PyObject *actions, *active_obj;
    if (!PyArg_ParseTuple(args, "OO", &actions, &active_obj)) return NULL;
    Py_buffer av, bv;
    Py_ssize_t N = self->num_games, bad = -1;
    if (get_buffer(actions, &av, "actions", "qlL", 8, N, 0) < 0) return NULL;
    if (get_buffer(active_obj, &bv, "active", "?bB", 1, N, 0) < 0) {
        PyBuffer_Release(&av);
        return NULL;
    }
    const volatile int64_t *act = av.buf;
    const volatile char *active = bv.buf;
    for (Py_ssize_t i = 0; i < N && bad < 0; i++) {
        self->todo[i] = -1;
        if (!active[i] || self->games[i].phase == KD_GAME_OVER) continue;
        int64_t a = act[i];
        const int16_t *own = self->legal + i * KD_MAX_LEGAL;
        int ok = 0;
        for (int j = 0; j < self->nlegal[i] && !ok; j++) ok = own[j] == a;
        if (!ok) bad = i;
        self->todo[i] = (int32_t)a;
    }
    PyBuffer_Release(&av);
    PyBuffer_Release(&bv);
    int refused = 0;
    if (bad < 0) {
        Py_BEGIN_ALLOW_THREADS;
        for (Py_ssize_t i = 0; i < N; i++) {
            if (self->todo[i] < 0) continue;
            kd_apply(self->p, &self->games[i], self->todo[i]);
            refused |= publish(self, i);
        }
        Py_END_ALLOW_THREADS;
    }
    return PyLong_FromSsize_t(bad < 0 && refused ? -2 : bad);
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

typedef struct {
    const KdBatchObject *self;
    float *rows;
} rows_out;

/* Games lo..hi-1's observations for their acting seats (seat 0 when finished) into rows. */
static void observe_range(void *arg, Py_ssize_t lo, Py_ssize_t hi) {
    const rows_out *job = arg;
    const KdParams *p = job->self->p;
    for (Py_ssize_t i = lo; i < hi; i++) {
        const KdGame *g = &job->self->games[i];
        kd_encode(p, g, g->phase == KD_GAME_OVER ? 0 : g->seat, job->rows + i * p->obs_size);
    }
}

/* observe_rows(out float32 (N, O), writable, C-contiguous, threads=1): each game's
 * observation for its acting seat (seat 0 for a finished game), as publish writes it, into
 * out's row; with threads > 1 from that many threads (parallel_rows). */
static PyObject *KdBatch_observe_rows(KdBatchObject *self, PyObject *args) {
    PyObject *out;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "O|i", &out, &threads) || check_row_threads(threads) < 0)
        return NULL;
    Py_buffer view;
    if (get_buffer(out, &view, "out", "f", 4, self->num_games * self->p->obs_size, 1) < 0)
        return NULL;
    rows_out job = {self, view.buf};
    Py_BEGIN_ALLOW_THREADS;
    parallel_rows(self->num_games, threads, observe_range, &job);
    Py_END_ALLOW_THREADS;
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
    if (load_record(record, self->p, check_and_rebuild, &self->games[i], sizeof(KdGame)) < 0)
        return NULL;
    publish(self, i);
    Py_RETURN_NONE;
}

/* The legal ids of game i with the largest value (agent 0: the greedy gain, 1: the heuristic's
 * value), in the legal list's order: the agent's choices before its tie-break; empty for a
 * finished game. */
static PyObject *best_moves(KdBatchObject *self, PyObject *args, int agent) {
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i) || !batch_index(self, i)) return NULL;
    const KdGame *g = &self->games[i];
    int count = g->phase == KD_GAME_OVER ? 0 : self->nlegal[i];
    int32_t legal[KD_MAX_LEGAL], gain[KD_MAX_LEGAL];
    double value[KD_MAX_LEGAL];
    const int16_t *own = self->legal + i * KD_MAX_LEGAL;
    for (int j = 0; j < count; j++) legal[j] = own[j];
    if (count > 0 && agent == 0) {
        kd_greedy_gains(self->p, g, legal, count, gain);
        for (int j = 0; j < count; j++) value[j] = gain[j];
    } else if (count > 0) {
        kd_heuristic_values(self->p, g, legal, count, value);
    }
    double best = 0.0;
    int ntop = 0;
    for (int j = 0; j < count; j++) {
        if (ntop == 0 || value[j] > best) best = value[j], ntop = 0;
        if (value[j] == best) legal[ntop++] = legal[j];
    }
    PyObject *out = PyTuple_New(ntop);
    for (int j = 0; out && j < ntop; j++) {
        PyObject *a = PyLong_FromLong(legal[j]);
        if (!a) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, j, a);
    }
    return out;
}

/* greedy_top(i), heuristic_top(i): best_moves of the greedy and the heuristic agent. */
static PyObject *KdBatch_greedy_top(KdBatchObject *self, PyObject *args) {
    return best_moves(self, args, 0);
}

static PyObject *KdBatch_heuristic_top(KdBatchObject *self, PyObject *args) {
    return best_moves(self, args, 1);
}

/* afterstates(rows, seed, features) -> (legal, counts, off, idx, val): batch_afterstates. */
static PyObject *KdBatch_afterstates(KdBatchObject *self, PyObject *args) {
    return batch_afterstates(1, self->p, (const char *)self->games, sizeof(KdGame),
                             self->num_games, args);
}

/* Every method runs through batch_call (binding.h): one call at a time on a ready KdBatch. */
#define KDBATCH_LIST(X, P) \
    X(P, new_game, "new_game(i, seed)") \
    X(P, step, "step(actions, active) -> -1, i or -2") \
    X(P, observe, "observe(i, seat, out)") \
    X(P, observe_rows, "observe_rows(out, threads=1): every game's observation, acting seat") \
    X(P, scores, "scores(i) -> ((points, largest), ...)") \
    X(P, get_record, "get_record(i) -> bytes") \
    X(P, set_record, "set_record(i, bytes)") \
    X(P, greedy_top, "greedy_top(i) -> the legal ids with the largest greedy gain") \
    X(P, heuristic_top, "heuristic_top(i) -> the legal ids with the heuristic's best value") \
    X(P, afterstates, "afterstates(rows, seed, features) -> the legal moves' afterstates")
BATCH_METHODS(KDBATCH_LIST, KdBatch)

static PyTypeObject KdBatchType = {NATIVE_BATCH_TYPE(
    KdBatchObject, KdBatch, "KdBatch",
    "N Kingdomino games stepped together (see moonriver_env.kingdomino.vector.game).")};

/* --- KdState: one game for search ----------------------------------------------------------- */
typedef struct {
    CoreStateHead head; /* head.params: the KdParams */
    KdGame g;
} KdStateObject;
#define STATE_PARAMS(self) ((const KdParams *)(self)->head.params)

PyTypeObject KdStateType;

_Static_assert(offsetof(KdStateObject, g) == CORE_STATE_OFFSET, "KdState: a CoreStateHead first");

static KdStateObject *new_kd_state(PyObject *config) {
    return (KdStateObject *)core_state_new(&KdStateType, config, &((KdConfigObject *)config)->p);
}

/* kd_new_state(config, seed): the game new_game(config, seed) sets up. */
static PyObject *kd_new_state(PyObject *mod, PyObject *args) {
    PyObject *config;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "O!K", &KdConfigType, &config, &seed) || config_ready(config) < 0)
        return NULL;
    KdStateObject *obj = new_kd_state(config);
    if (obj) kd_new_game(STATE_PARAMS(obj), &obj->g, seed);
    return (PyObject *)obj;
}

/* kd_state_from_record(config, record): checked like KdBatch.set_record. */
static PyObject *kd_state_from_record(PyObject *mod, PyObject *args) {
    PyObject *config, *record;
    if (!PyArg_ParseTuple(args, "O!O", &KdConfigType, &config, &record) || config_ready(config) < 0)
        return NULL;
    return core_state_from_record(&KdStateType, config, &((KdConfigObject *)config)->p, record,
                                  check_and_rebuild);
}

static PyObject *KdState_legal(KdStateObject *self, PyObject *unused) {
    int32_t ids[KD_MAX_LEGAL];
    return build_items(1, kd_legal(STATE_PARAMS(self), &self->g, ids), item_int32, ids);
}

/* apply(a) -> True, or False when a is not legal (then nothing changed). */
static PyObject *KdState_apply(KdStateObject *self, PyObject *arg) {
    long long a = PyLong_AsLongLong(arg);
    if (a == -1 && PyErr_Occurred()) return NULL;
    if (!kd_is_legal(STATE_PARAMS(self), &self->g, a)) Py_RETURN_FALSE;
    kd_apply(STATE_PARAMS(self), &self->g, (int32_t)a);
    Py_RETURN_TRUE;
}

static PyObject *KdState_scores(KdStateObject *self, PyObject *unused) {
    return rank_keys(STATE_PARAMS(self), &self->g);
}


/* redetermine(rng state) -> the generator's state after (KingdominoState.redetermine). */
static PyObject *KdState_redetermine(KdStateObject *self, PyObject *arg) {
    mr_pcg64 rng;
    if (parse_generator(arg, &rng) < 0) return NULL;
    kd_redetermine(&self->g, &rng);
    return build_generator(&rng);
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
        check_policy(policy, 0, me, STATE_PARAMS(self)->n) < 0)
        return NULL;
    mr_pcg64 rng;
    mr_pcg64_seed(&rng, seed);
    return PyLong_FromLong(kd_playout(STATE_PARAMS(self), &self->g, policy, me, &rng));
}

/* monte_carlo(candidates, sims, policy, value, seat, rng state) -> (totals, counts, rng state
 * after): kd_monte_carlo on a copy of this game, with the GIL released. */
static PyObject *KdState_monte_carlo(KdStateObject *self, PyObject *args) {
    PyObject *cands_obj, *rng_obj;
    long long sims;
    int policy, value, seat;
    if (!PyArg_ParseTuple(args, "OLiiiO!", &cands_obj, &sims, &policy, &value, &seat,
                          &PyTuple_Type, &rng_obj) ||
        check_policy(policy, value, seat, STATE_PARAMS(self)->n) < 0)
        return NULL;
    mr_pcg64 rng;
    if (parse_generator(rng_obj, &rng) < 0) return NULL;
    if (seat < 0 || sims < 1 || sims > ((long long)1 << 40)) {
        PyErr_SetString(PyExc_ValueError, "monte_carlo: a seat and sims >= 1 expected");
        return NULL;
    }
    Py_ssize_t k;
    int *ids = read_action_ids(cands_obj, "candidates", KD_MAX_LEGAL, &k);
    if (!ids) return NULL;
    int32_t cands[KD_MAX_LEGAL];
    for (Py_ssize_t i = 0; i < k; i++) cands[i] = ids[i];
    PyMem_Free(ids);
    if (k < 1) {
        PyErr_SetString(PyExc_ValueError, "candidates: expected 1 or more legal actions");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < k; i++) { /* after every conversion: no Python code runs now */
        if (!kd_is_legal(STATE_PARAMS(self), &self->g, cands[i])) {
            PyErr_Format(PyExc_ValueError, "candidates: action %d is not legal", (int)cands[i]);
            return NULL;
        }
    }
    double totals[KD_MAX_LEGAL];
    int64_t counts[KD_MAX_LEGAL];
    KdGame root = self->g;
    Py_BEGIN_ALLOW_THREADS;
    kd_monte_carlo(STATE_PARAMS(self), &root, cands, (int)k, sims, policy, value, seat, &rng, totals, counts);
    Py_END_ALLOW_THREADS;
    PyObject *t = build_items(0, k, item_double, totals);
    PyObject *c = build_items(0, k, item_int64, counts);
    PyObject *r = build_generator(&rng);
    if (!t || !c || !r) {
        Py_XDECREF(t);
        Py_XDECREF(c);
        Py_XDECREF(r);
        return NULL;
    }
    return Py_BuildValue("(NNN)", t, c, r);
}

#define STATE_METHOD(name, flags, doc) {#name, (PyCFunction)KdState_##name, flags, doc}
static PyMethodDef KdState_methods[] = {
    CORE_STATE_METHODS,
    STATE_METHOD(legal, METH_NOARGS, "legal action ids, ascending"),
    STATE_METHOD(apply, METH_O, "apply(a) -> False if a is not legal"),
    STATE_METHOD(scores, METH_NOARGS, "per seat (points, largest)"),
    STATE_METHOD(redetermine, METH_O, "redetermine(rng state) -> rng state after"),
    STATE_METHOD(rollout, METH_VARARGS, "rollout(policy, seed, me)"),
    STATE_METHOD(monte_carlo, METH_VARARGS,
                 "monte_carlo(candidates, sims, policy, value, seat, rng) -> (totals, counts, rng)"),
    {NULL}};

static PyGetSetDef KdState_getset[] = {CORE_STATE_GETSET(KdGame), {NULL}};

PyTypeObject KdStateType = {NATIVE_STATE_TYPE(
    KdStateObject, KdState, "KdState",
    "One Kingdomino game in the core, for search (moonriver_env.kingdomino.vector.search).")};

/* --- module -------------------------------------------------------------------------------- */
static PyMethodDef kd_functions[] = {
    {"kd_new_state", kd_new_state, METH_VARARGS, "kd_new_state(config, seed) -> KdState"},
    {"kd_state_from_record", kd_state_from_record, METH_VARARGS,
     "kd_state_from_record(config, record) -> KdState (checked)"},
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
        /* the record's fields: (name, byte offset, type code, count) */
        PyModule_AddObject(m, "KD_GAME_FIELDS",
                           build_items(0, KD_NUM_GAME_FIELDS, item_field, KD_GAME_FIELDS)) < 0 ||
        PyModule_AddIntConstant(m, "KD_PARAMS_LEN", KD_PARAMS_LEN) < 0 ||
        PyModule_AddObject(m, "KD_POLICIES", build_items(0, KD_NUM_POLICIES, item_name, KD_POLICY_NAMES)) < 0 ||
        PyModule_AddObject(m, "KD_VALUES", build_items(0, KD_NUM_VALUES, item_name, KD_VALUE_NAMES)) < 0)
        return -1;
    return 0;
}
