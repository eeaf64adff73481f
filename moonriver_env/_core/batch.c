/* The CPython binding of Moon River's Batch (moonriver_env._native.Batch): N games owned by
 * the core (their states, the generators that seed their next games, their legal actions),
 * which write their results into NumPy arrays handed over once at construction (held through
 * the buffer protocol for the Batch's life). Every array and every action is checked before
 * any game changes; the loops over games run with the GIL released. */
#include "binding.h"

#include <stddef.h>
#include <string.h>

/* --- Batch --------------------------------------------------------------------------------- */
enum { OUT_OBS, OUT_MASK, OUT_LEGAL, OUT_NUM_LEGAL, OUT_SEAT, OUT_REWARDS, OUT_TERMINATED,
       OUT_SCORES, OUT_SIDX, OUT_SVAL, OUT_SNNZ, NUM_OUT };

typedef struct {
    BatchHead head; /* head.config: the ConfigObject, kept alive */
    const mr_config *cfg;
    Py_ssize_t num_games;
    mr_state *states;
    mr_pcg64 *seeders;
    int16_t *legal;   /* [num_games][num_actions]: the private, trusted legal lists */
    int32_t *nlegal;  /* [num_games] */
    int8_t *published; /* [num_games]: the mask row holds exactly legal's first nlegal ids */
    int32_t *totals;  /* [num_games][n]: ranch totals at the last step (dense reward) */
    float *blocks;    /* [num_games][n][block]: the encoder's cache of ranch blocks */
    int32_t *points;  /* [num_games][n][4]: and of their points */
    uint32_t *keys;   /* [num_games][n]: the ranch versions they were built from */
    int64_t *todo;    /* [num_games]: a step's checked actions, or a reset's seeds */
    int reward_mode;  /* 0 win, 1 score, 2 score_diff */
    double dense;
    int auto_reset, observe;
    /* The sparse observation (optional): width entries a row, padded with index obs_size. */
    int sparse, sparse_width, ranch_width;
    int16_t *sidx;    /* [num_games][n][ranch_width]: each ranch's non-zero entries */
    uint8_t *sval;    /* [num_games][n][ranch_width] */
    int32_t *slen;    /* [num_games][n] */
    int32_t *sprev;   /* [num_games]: entries the row held before (padding to rewrite) */
    mr_sparse_prefix *prefix; /* [num_games]: what each row's ranch part was written from */
    Py_buffer out[NUM_OUT];
    int have_out[NUM_OUT];
} BatchObject;

/* Releases everything the Batch holds (the state after a failed __init__ or at the end). */
static void Batch_clear(BatchObject *self) {
    for (int i = 0; i < NUM_OUT; i++) {
        if (self->have_out[i]) {
            PyBuffer_Release(&self->out[i]);
            self->have_out[i] = 0;
        }
    }
    void **blocks[] = {(void **)&self->states, (void **)&self->seeders, (void **)&self->legal,
                       (void **)&self->published,
                       (void **)&self->nlegal, (void **)&self->totals, (void **)&self->blocks,
                       (void **)&self->points, (void **)&self->keys, (void **)&self->todo,
                       (void **)&self->sidx, (void **)&self->sval, (void **)&self->slen,
                       (void **)&self->sprev, (void **)&self->prefix};
    for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        PyMem_Free(*blocks[b]);
        *blocks[b] = NULL;
    }
    Py_CLEAR(self->head.config);
}

static void Batch_dealloc(BatchObject *self) {
    Batch_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Batch_init's work once the arguments are parsed: 0, or -1 with an exception set. */
static int Batch_setup(BatchObject *self, PyObject *config, Py_ssize_t num_games,
                       int reward_mode, double dense, int auto_reset, PyObject **arrays,
                       int sparse_width, int ranch_width);

static int Batch_init(BatchObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"config", "num_games", "reward_mode", "dense", "auto_reset",
                             "observation", "mask", "legal", "num_legal", "seat", "rewards",
                             "terminated", "scores", "sparse_idx", "sparse_val",
                             "sparse_nnz", "sparse_width", "ranch_width", NULL};
    PyObject *config, *arrays[NUM_OUT] = {NULL};
    Py_ssize_t num_games;
    int reward_mode, auto_reset, sparse_width = 0, ranch_width = 0;
    double dense;
    arrays[OUT_SIDX] = arrays[OUT_SVAL] = arrays[OUT_SNNZ] = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!nidpOOOOOOOO|$OOOii", kwlist, &ConfigType,
                                     &config, &num_games, &reward_mode, &dense, &auto_reset,
                                     &arrays[0], &arrays[1], &arrays[2], &arrays[3], &arrays[4],
                                     &arrays[5], &arrays[6], &arrays[7], &arrays[OUT_SIDX],
                                     &arrays[OUT_SVAL], &arrays[OUT_SNNZ], &sparse_width,
                                     &ranch_width)) {
        return -1;
    }
    if (batch_init_begin((PyObject *)self) < 0) {
        return -1;
    }
    int rc = Batch_setup(self, config, num_games, reward_mode, dense, auto_reset, arrays,
                         sparse_width, ranch_width);
    if (rc < 0) {
        Batch_clear(self); /* a failed __init__ holds nothing and leaves the Batch unusable */
    }
    return batch_init_done((PyObject *)self, rc == 0);
}

static int Batch_setup(BatchObject *self, PyObject *config, Py_ssize_t num_games,
                       int reward_mode, double dense, int auto_reset, PyObject **arrays,
                       int sparse_width, int ranch_width) {
    if (config_ready(config) < 0) {
        return -1;
    }
    if (num_games < 1 || num_games > (1 << 24) || reward_mode < 0 || reward_mode > 2) {
        PyErr_SetString(PyExc_ValueError, "Batch: num_games or reward_mode out of range");
        return -1;
    }
    Py_INCREF(config);
    self->head.config = config;
    const mr_config *cfg = self->cfg = &((ConfigObject *)config)->cfg;
    self->num_games = num_games;
    self->reward_mode = reward_mode;
    self->dense = dense;
    self->auto_reset = auto_reset;
    self->observe = arrays[OUT_OBS] != Py_None;
    int sparse = sparse_outputs("Batch", arrays[OUT_SIDX], arrays[OUT_SVAL], arrays[OUT_SNNZ],
                                sparse_width, cfg->obs_size);
    if (sparse < 0) {
        return -1;
    }
    self->sparse = sparse;
    /* ranch_width: the sparse observation's (required), or observe_rows's lists (0: the
     * block's size) */
    if ((self->sparse || ranch_width) && (ranch_width < 1 || ranch_width > mr_block_size(cfg))) {
        PyErr_Format(PyExc_ValueError, "Batch: ranch_width must be in 1..%d, got %d",
                     mr_block_size(cfg), ranch_width);
        return -1;
    }
    self->sparse_width = sparse_width;
    self->ranch_width = ranch_width;
    Py_ssize_t N = num_games, n = cfg->n, A = cfg->num_actions, W = sparse_width;
    struct {
        const char *name, *format;
        Py_ssize_t itemsize, count;
    } spec[NUM_OUT] = {
        {"observation", "f", 4, N * cfg->obs_size}, {"mask", "bB?", 1, N * A},
        {"legal", "h", 2, N * A},                   {"num_legal", "i", 4, N},
        {"seat", "i", 4, N},                        {"rewards", "d", 8, N * n},
        {"terminated", "?", 1, N},                  {"scores", "i", 4, N * n * 7},
        {"sparse_idx", "i", 4, N * W},              {"sparse_val", "f", 4, N * W},
        {"sparse_nnz", "i", 4, N},
    };
    for (int i = 0; i < NUM_OUT; i++) {
        if ((i == OUT_OBS && !self->observe) || (i >= OUT_SIDX && !self->sparse)) {
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
    self->published = PyMem_Calloc((size_t)N, 1);
    self->totals = PyMem_Calloc((size_t)(N * n), sizeof(int32_t));
    self->points = PyMem_Calloc((size_t)(N * n * 4), sizeof(int32_t));
    self->keys = PyMem_Calloc((size_t)(N * n), sizeof(uint32_t));
    self->todo = PyMem_Calloc((size_t)N, sizeof(int64_t));
    size_t cached = (size_t)(N * n * mr_block_size(cfg));
    if (self->observe) {
        self->blocks = PyMem_Calloc(cached, sizeof(float));
    }
    if (self->sparse) {
        self->sidx = PyMem_Calloc((size_t)(N * n * ranch_width), sizeof(int16_t));
        self->sval = PyMem_Calloc((size_t)(N * n * ranch_width), sizeof(uint8_t));
        self->slen = PyMem_Calloc((size_t)(N * n), sizeof(int32_t));
        self->sprev = PyMem_Calloc((size_t)N, sizeof(int32_t));
        self->prefix = PyMem_Calloc((size_t)N, sizeof(mr_sparse_prefix));
    }
    if (!self->states || !self->seeders || !self->legal || !self->nlegal || !self->published ||
        !self->totals ||
        !self->points || !self->keys || !self->todo ||
        (self->observe && !self->blocks) ||
        (self->sparse && (!self->sidx || !self->sval || !self->slen || !self->sprev ||
                          !self->prefix))) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; self->sparse && i < N; i++) {
        self->sprev[i] = sparse_width; /* the first publish pads the whole row */
        self->prefix[i].len = self->prefix[i].unseen_len = -1;
    }
    return 0;
}

/* Asks the cache for the memory game i's step and publish read first (its state, its cached
 * ranch lists, the heads of its rows), while the game before it is played: with hundreds of
 * games a step, each game's lines have left the nearer caches since its last step. Only hints:
 * a prefetch never faults and changes nothing. */
static void prefetch_game(const BatchObject *self, Py_ssize_t i) {
    const char *st = (const char *)&self->states[i];
    for (size_t b = 0; b < sizeof(mr_state); b += 64) {
        __builtin_prefetch(st + b);
    }
    Py_ssize_t A = self->cfg->num_actions;
    __builtin_prefetch(self->legal + i * A);
    __builtin_prefetch((int16_t *)self->out[OUT_LEGAL].buf + i * A);
    if (self->sparse) {
        int n = self->cfg->n;
        for (int s = 0; s < n; s++) {
            size_t at = (size_t)(i * n + s) * (size_t)self->ranch_width;
            __builtin_prefetch(self->sidx + at);
            if (self->ranch_width > 32) { /* its second line, inside the list */
                __builtin_prefetch(self->sidx + at + 32);
            }
            __builtin_prefetch(self->sval + at);
        }
        __builtin_prefetch(&self->prefix[i]);
        __builtin_prefetch((int32_t *)self->out[OUT_SIDX].buf + i * self->sparse_width, 1);
        __builtin_prefetch((float *)self->out[OUT_SVAL].buf + i * self->sparse_width, 1);
    }
}

static int publish_observation(BatchObject *self, Py_ssize_t i);
static void publish_moves(BatchObject *self, Py_ssize_t i);

/* The legal list of game i, its mask, seat and observation into the outputs. Returns 1 when
 * its sparse row did not fit the width (the row left all padding, its count -1), else 0. */
static int publish(BatchObject *self, Py_ssize_t i) {
    publish_moves(self, i);
    return publish_observation(self, i);
}

/* publish without the observation: the legal list, the mask and the seat. */
static void publish_moves(BatchObject *self, Py_ssize_t i) {
    const mr_config *cfg = self->cfg;
    Py_ssize_t A = cfg->num_actions;
    mr_state *st = &self->states[i];
    int16_t *legal = self->legal + i * A;
    int8_t *mask = (int8_t *)self->out[OUT_MASK].buf + i * A;
    if (self->published[i]) { /* clear only the ids the last publish marked */
        for (int k = 0; k < self->nlegal[i]; k++) {
            mask[legal[k]] = 0;
        }
    } else {
        memset(mask, 0, (size_t)A);
        self->published[i] = 1;
    }
    int count = st->phase == PH_GAME_OVER ? 0 : mr_legal(cfg, st, legal);
    self->nlegal[i] = count;
    for (int k = 0; k < count; k++) {
        mask[legal[k]] = 1;
    }
    memcpy((int16_t *)self->out[OUT_LEGAL].buf + i * A, legal, sizeof(int16_t) * (size_t)count);
    ((int32_t *)self->out[OUT_NUM_LEGAL].buf)[i] = count;
    ((int32_t *)self->out[OUT_SEAT].buf)[i] = st->phase == PH_GAME_OVER ? -1 : st->seat;
}

/* publish's observation forms (those the Batch writes) of game i: 1 when its sparse row did
 * not fit the width, else 0. */
static int publish_observation(BatchObject *self, Py_ssize_t i) {
    const mr_config *cfg = self->cfg;
    mr_state *st = &self->states[i];
    Py_ssize_t n = cfg->n;
    int refused = 0;
    if (self->sparse) { /* first: its block refresh also lists the blocks' entries */
        int seat = st->phase == PH_GAME_OVER ? 0 : st->seat;
        Py_ssize_t W = self->sparse_width;
        int32_t *idx = (int32_t *)self->out[OUT_SIDX].buf + i * W;
        float *val = (float *)self->out[OUT_SVAL].buf + i * W;
        mr_sparse_cache c = {self->blocks ? self->blocks + i * n * mr_block_size(cfg) : NULL,
                             self->points + i * n * 4,
                             self->keys + i * n, self->sidx + i * n * self->ranch_width,
                             self->sval + i * n * self->ranch_width, self->slen + i * n,
                             self->ranch_width, self->prefix + i};
        int k = mr_encode_sparse(cfg, st, seat, &c, idx, val, (int)W);
        /* The widths are the encoder's bounds; should a row still not fit, nothing is
         * written past them: the row is left all padding and its count says -1. */
        int count = k < 0 ? 0 : k;
        int upto = k < 0 ? (int)W : self->sprev[i]; /* a refused row may hold partial entries */
        for (int j = count; j < upto; j++) {
            idx[j] = cfg->obs_size;
            val[j] = 0.0f;
        }
        self->sprev[i] = count;
        ((int32_t *)self->out[OUT_SNNZ].buf)[i] = k;
        refused = k < 0;
    }
    if (self->observe) {
        int seat = st->phase == PH_GAME_OVER ? 0 : st->seat;
        mr_encode_cached(cfg, st, seat, (float *)self->out[OUT_OBS].buf + i * cfg->obs_size,
                         self->blocks + i * n * mr_block_size(cfg), self->points + i * n * 4,
                         self->keys + i * n);
    }
    return refused;
}

static void forget_blocks(BatchObject *self, Py_ssize_t i) {
    for (int s = 0; s < self->cfg->n; s++) {
        self->keys[i * self->cfg->n + s] = MR_NO_KEY;
    }
    if (self->prefix) {
        /* the ranch versions and the pile's length may repeat in the new state */
        self->prefix[i].len = self->prefix[i].unseen_len = -1;
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
    if (!PyArg_ParseTuple(args, "O", &seeds)) {
        return NULL;
    }
    const uint64_t *seed = NULL; /* a private copy: the loop runs without the GIL */
    if (seeds != Py_None) {
        Py_buffer view;
        if (get_buffer(seeds, &view, "seeds", "QLK", 8, self->num_games, 0) < 0) {
            return NULL;
        }
        memcpy(self->todo, view.buf, sizeof(int64_t) * (size_t)self->num_games);
        PyBuffer_Release(&view);
        seed = (const uint64_t *)self->todo;
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
    Py_RETURN_NONE;
}

static int check_index(BatchObject *self, Py_ssize_t i);

/* reset_game(i, seed or None): a new game in slot i only (seed: its generator becomes
 * default_rng(seed); None: the slot's next game). */
static PyObject *Batch_reset_game(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    PyObject *seed_obj;
    if (!PyArg_ParseTuple(args, "nO", &i, &seed_obj) || !check_index(self, i)) {
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

/* Game i (not finished) plays action (legal): its rewards, terminated flag and scores into
 * the outputs as a step shows them; a game that ends starts the next when auto_reset. The
 * legal list, the mask and the observation are left to publish. */
static void play_move(BatchObject *self, Py_ssize_t i, int action) {
    const mr_config *cfg = self->cfg;
    int n = cfg->n;
    mr_state *st = &self->states[i];
    double *rewards = (double *)self->out[OUT_REWARDS].buf + i * n;
    char *terminated = (char *)self->out[OUT_TERMINATED].buf + i;
    int was_done = *terminated;
    mr_apply(cfg, st, action);
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
    }
}

/* step(actions, active=None): int64 (N,) and bool (N,) or None. Returns -1, or the index of
 * the first game whose action is not legal (then nothing changed), or -2 when a sparse row
 * did not fit its width (the encoder's bound broken: a bug; the row is all padding). A
 * finished game (auto_reset off) ignores its action; a game whose active entry is false is
 * left as it is, its outputs included. Each action is read once from the caller's array into
 * todo and checked there; the games play todo only (the caller's arrays may change
 * meanwhile). */
enum { TODO_INACTIVE = -1, TODO_OVER = -2 };

static PyObject *Batch_step(BatchObject *self, PyObject *args) {
    PyObject *actions, *active_obj = Py_None;
    if (!PyArg_ParseTuple(args, "O|O", &actions, &active_obj)) {
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
    const volatile int64_t *act = view.buf;
    const mr_config *cfg = self->cfg;
    Py_ssize_t A = cfg->num_actions, N = self->num_games;
    Py_ssize_t bad = -1;
    int64_t *todo = self->todo;
    for (Py_ssize_t i = 0; i < N && bad < 0; i++) {
        if (active && !((const volatile char *)active)[i]) {
            todo[i] = TODO_INACTIVE;
        } else if (self->states[i].phase == PH_GAME_OVER) {
            todo[i] = TODO_OVER;
        } else {
            todo[i] = act[i];
            bad = legal_has(self->legal + i * A, self->nlegal[i], todo[i]) ? -1 : i;
        }
    }
    PyBuffer_Release(&view);
    if (active) {
        PyBuffer_Release(&active_view);
    }
    if (bad >= 0) {
        return PyLong_FromSsize_t(bad);
    }
    int refused = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < N; i++) {
        if (i + 1 < N && todo[i + 1] != TODO_INACTIVE) {
            prefetch_game(self, i + 1);
        }
        if (todo[i] == TODO_INACTIVE) {
            continue;
        }
        if (self->states[i].phase == PH_GAME_OVER) {
            double *rewards = (double *)self->out[OUT_REWARDS].buf + i * cfg->n;
            for (int s = 0; s < cfg->n; s++) {
                rewards[s] = 0.0;
            }
            continue; /* stays terminated (auto_reset off) */
        }
        play_move(self, i, (int)todo[i]);
        refused |= publish(self, i);
    }
    Py_END_ALLOW_THREADS;
    return PyLong_FromLong(refused ? -2 : -1);
}

/* The random opponents' stream: splitmix64 (Steele, Lea and Flood), game i's from seed + i *
 * RANDOM_GAME_STRIDE; a draw among count legal ids takes (r * count) >> 64 (as
 * moonriver_env.family.batch.random_stream draws). */
#define RANDOM_GAME_STRIDE 0xD1B54A32D192ED03ull

static inline uint64_t splitmix64(uint64_t *x) {
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* play_random(seats int32 (N,), seed uint64, gained float64 (N,), ended bool (N,)) -> -1, or
 * -2 when a sparse row did not fit its width (a bug, as step). In every game, uniformly random
 * legal moves (the stream above) while the game is not finished and seats[i] is not to act;
 * a game that ends stops there (the next game begun when auto_reset). gained[i]: the sum of
 * seats[i]'s rewards over game i's moves; ended[i]: whether game i ended. The outputs show
 * each game as step leaves it after its last move; a game that did not move is untouched.
 * The seats are checked (0..n-1) and copied before anything is played. */
static PyObject *Batch_play_random(BatchObject *self, PyObject *args) {
    PyObject *seats_obj, *seed_obj, *gained_obj, *ended_obj;
    if (!PyArg_ParseTuple(args, "OOOO", &seats_obj, &seed_obj, &gained_obj, &ended_obj)) {
        return NULL;
    }
    unsigned long long seed = PyLong_AsUnsignedLongLong(seed_obj); /* no int of 0..2**64-1: */
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) {        /* refused, not wrapped */
        return NULL;
    }
    const mr_config *cfg = self->cfg;
    Py_ssize_t N = self->num_games, A = cfg->num_actions;
    Py_buffer sv, gv, ev;
    if (get_buffer(seats_obj, &sv, "seats", "i", 4, N, 0) < 0) {
        return NULL;
    }
    int64_t *todo = self->todo;
    Py_ssize_t bad = -1;
    for (Py_ssize_t i = 0; i < N && bad < 0; i++) {
        int32_t seat = ((const volatile int32_t *)sv.buf)[i];
        todo[i] = seat;
        bad = seat < 0 || seat >= cfg->n ? i : -1;
    }
    PyBuffer_Release(&sv);
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "seats: expected seats 0..%d, got %lld at %zd", cfg->n - 1,
                     (long long)todo[bad], bad);
        return NULL;
    }
    if (get_buffer(gained_obj, &gv, "gained", "d", 8, N, 1) < 0) {
        return NULL;
    }
    if (get_buffer(ended_obj, &ev, "ended", "?", 1, N, 1) < 0) {
        PyBuffer_Release(&gv);
        return NULL;
    }
    double *gained = gv.buf;
    char *ended = ev.buf;
    const char *terminated = (const char *)self->out[OUT_TERMINATED].buf;
    int refused = 0;
    Py_BEGIN_ALLOW_THREADS;
    for (Py_ssize_t i = 0; i < N; i++) {
        mr_state *st = &self->states[i];
        int seat = (int)todo[i], moved = 0;
        const double *rewards = (const double *)self->out[OUT_REWARDS].buf + i * cfg->n;
        uint64_t x = (uint64_t)seed + (uint64_t)i * RANDOM_GAME_STRIDE;
        gained[i] = 0.0;
        ended[i] = 0;
        while (st->phase != PH_GAME_OVER && st->seat != seat && self->nlegal[i] > 0) {
            uint64_t r = splitmix64(&x);
            int k = (int)(((unsigned __int128)r * (uint64_t)self->nlegal[i]) >> 64);
            play_move(self, i, self->legal[i * A + k]);
            publish_moves(self, i);
            moved = 1;
            gained[i] += rewards[seat];
            if (terminated[i]) {
                ended[i] = 1;
                break;
            }
        }
        if (moved) {
            refused |= publish_observation(self, i);
        }
    }
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&gv);
    PyBuffer_Release(&ev);
    return PyLong_FromLong(refused ? -2 : -1);
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
    if (!PyArg_ParseTuple(args, "n", &i) || !check_index(self, i)) {
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)&self->states[i], sizeof(mr_state));
}

/* set_record(i, bytes): checked; then game i plays on from it. */
static PyObject *Batch_set_record(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    PyObject *record;
    if (!PyArg_ParseTuple(args, "nO", &i, &record) || !check_index(self, i) ||
        load_record(record, self->cfg, mr_check_and_rebuild, &self->states[i], sizeof(mr_state)) < 0) {
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

static PyObject *Batch_observe(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    int seat;
    PyObject *out;
    if (!PyArg_ParseTuple(args, "niO", &i, &seat, &out) || !check_index(self, i)) {
        return NULL;
    }
    return observe_into(self->cfg, &self->states[i], seat, out);
}

typedef struct {
    BatchObject *self;
    float *rows;
} rows_out;

/* Games lo..hi-1's observations for their acting seats (seat 0 when finished) into rows, from
 * the dense blocks' cache (a Batch that writes the dense observation). The ranch keys are
 * shared with the sparse lists' cache, which this refresh (dense blocks only) leaves as they
 * are: right because every change of a game is published (step, play_random, reset,
 * set_record) before any other call, and a sparse publish refreshes the lists. */
static void observe_range(void *arg, Py_ssize_t lo, Py_ssize_t hi) {
    const rows_out *job = arg;
    BatchObject *self = job->self;
    const mr_config *cfg = self->cfg;
    Py_ssize_t n = cfg->n;
    for (Py_ssize_t i = lo; i < hi; i++) {
        const mr_state *st = &self->states[i];
        int seat = st->phase == PH_GAME_OVER ? 0 : st->seat;
        mr_encode_cached(cfg, st, seat, job->rows + i * cfg->obs_size,
                         self->blocks + i * n * mr_block_size(cfg), self->points + i * n * 4,
                         self->keys + i * n);
    }
}

/* Whether game i's ranch lists are those of its state (none to rebuild). */
static int lists_current(const BatchObject *self, const mr_state *st, Py_ssize_t i) {
    const uint32_t *keys = self->keys + i * self->cfg->n;
    for (int a = 0; a < self->cfg->n; a++) {
        if (mr_ranch_stale(keys[a], st, a)) {
            return 0;
        }
    }
    return 1;
}

/* observe_range for a Batch without the dense blocks: each row cleared, then its non-zero
 * entries (mr_encode_sparse from the private ranch lists, into scratch lists: no prefix, which
 * describes the published rows) written in, where rebuilding and copying dense blocks would
 * read and write megabytes more. Every index is the encoder's (below obs_size); checked
 * anyway before the write. A row is written by mr_encode instead when its lists do not fit
 * ranch_width, without scratch memory, or, on a Batch that publishes the sparse observation,
 * when its lists are not its state's: those lists are rebuilt only by publish, which keeps
 * their symbols' memo (prefix->sym) with them. (Every change of a game is published before
 * any other call, so they always are.) */
static void observe_range_sparse(void *arg, Py_ssize_t lo, Py_ssize_t hi) {
    const rows_out *job = arg;
    BatchObject *self = job->self;
    const mr_config *cfg = self->cfg;
    Py_ssize_t n = cfg->n;
    int size = cfg->obs_size;
    int32_t *idx = PyMem_RawMalloc(sizeof(int32_t) * (size_t)size);
    float *val = PyMem_RawMalloc(sizeof(float) * (size_t)size);
    for (Py_ssize_t i = lo; i < hi; i++) {
        const mr_state *st = &self->states[i];
        int seat = st->phase == PH_GAME_OVER ? 0 : st->seat;
        float *row = job->rows + i * size;
        int k = -1;
        if (idx && val && (!self->sparse || lists_current(self, st, i))) {
            mr_sparse_cache c = {NULL, self->points + i * n * 4, self->keys + i * n,
                                 self->sidx + i * n * self->ranch_width,
                                 self->sval + i * n * self->ranch_width, self->slen + i * n,
                                 self->ranch_width, NULL};
            k = mr_encode_sparse(cfg, st, seat, &c, idx, val, size);
        }
        if (k < 0) {
            mr_encode(cfg, st, seat, row);
            continue;
        }
        memset(row, 0, sizeof(float) * (size_t)size);
        for (int j = 0; j < k; j++) {
            if ((uint32_t)idx[j] < (uint32_t)size) {
                row[idx[j]] = val[j];
            }
        }
    }
    PyMem_RawFree(idx);
    PyMem_RawFree(val);
}

/* The ranch lists' cache of a Batch built without the sparse observation, made on
 * observe_rows's first call (every game's keys forgotten, so that nothing is read from it
 * unbuilt): 0, or -1 with MemoryError set (nothing kept). */
static int make_ranch_lists(BatchObject *self) {
    Py_ssize_t N = self->num_games, n = self->cfg->n;
    int width = self->ranch_width > 0 ? self->ranch_width : mr_block_size(self->cfg);
    int16_t *sidx = PyMem_Calloc((size_t)(N * n * width), sizeof(int16_t));
    uint8_t *sval = PyMem_Calloc((size_t)(N * n * width), sizeof(uint8_t));
    int32_t *slen = PyMem_Calloc((size_t)(N * n), sizeof(int32_t));
    if (!sidx || !sval || !slen) {
        PyMem_Free(sidx);
        PyMem_Free(sval);
        PyMem_Free(slen);
        PyErr_NoMemory();
        return -1;
    }
    self->sidx = sidx, self->sval = sval, self->slen = slen;
    self->ranch_width = width;
    for (Py_ssize_t i = 0; i < N; i++) {
        forget_blocks(self, i);
    }
    return 0;
}

/* observe_rows(out float32 (N, O), writable, C-contiguous, threads=1): each game's
 * observation for its acting seat (seat 0 for a finished game), as publish writes it, into
 * out's row; for a Batch built without the dense observation (the steps write none). With
 * threads > 1, that many threads write consecutive shares of the rows (parallel_rows: each
 * game reads and writes only its own cache and row). A Batch that writes the dense
 * observation copies its ranch blocks (observe_range); any other writes each row from its
 * ranch lists (observe_range_sparse: the sparse observation's own, or, without it, lists made
 * on the first call, make_ranch_lists). */
static PyObject *Batch_observe_rows(BatchObject *self, PyObject *args) {
    PyObject *out;
    int threads = 1;
    if (!PyArg_ParseTuple(args, "O|i", &out, &threads) || check_row_threads(threads) < 0) {
        return NULL;
    }
    const mr_config *cfg = self->cfg;
    Py_ssize_t N = self->num_games;
    Py_buffer view;
    if (get_buffer(out, &view, "out", "f", 4, N * cfg->obs_size, 1) < 0) {
        return NULL;
    }
    if (!self->observe && !self->sidx && make_ranch_lists(self) < 0) {
        PyBuffer_Release(&view);
        return NULL;
    }
    rows_out job = {self, view.buf};
    Py_BEGIN_ALLOW_THREADS;
    parallel_rows(N, threads, self->observe ? observe_range : observe_range_sparse, &job);
    Py_END_ALLOW_THREADS;
    PyBuffer_Release(&view);
    Py_RETURN_NONE;
}

/* phase(i) -> int */
static PyObject *Batch_phase(BatchObject *self, PyObject *args) {
    Py_ssize_t i;
    if (!PyArg_ParseTuple(args, "n", &i) || !check_index(self, i)) {
        return NULL;
    }
    return PyLong_FromLong(self->states[i].phase);
}

/* afterstates(rows, seed, features) -> (legal, counts, off, idx, val): batch_afterstates. */
static PyObject *Batch_afterstates(BatchObject *self, PyObject *args) {
    return batch_afterstates(0, self->cfg, (const char *)self->states, sizeof(mr_state),
                             self->num_games, args);
}

/* Every method runs through batch_call (binding.h): one call at a time on a ready Batch. */
#define BATCH_LIST(X, P) \
    X(P, reset, "reset(seeds or None)") \
    X(P, step, "step(actions) -> -1 or a bad index") \
    X(P, reset_game, "reset_game(i, seed or None)") \
    X(P, get_record, "get_record(i) -> bytes") \
    X(P, set_record, "set_record(i, bytes)") \
    X(P, phase, "phase(i) -> phase code") \
    X(P, observe, "observe(i, seat, out)") \
    X(P, observe_rows, "observe_rows(out, threads=1): every game's observation, acting seat") \
    X(P, play_random, "play_random(seats, seed, gained, ended) -> -1 or -2") \
    X(P, afterstates, "afterstates(rows, seed, features) -> the legal moves' afterstates")
BATCH_METHODS(BATCH_LIST, Batch)

PyTypeObject BatchType = {NATIVE_BATCH_TYPE(
    BatchObject, Batch, "Batch",
    "N games of one config, stepped together (see moonriver_env.vector).")};
