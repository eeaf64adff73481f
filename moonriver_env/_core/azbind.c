/* The CPython binding of the learned agent's core (learn.h): the Net type (weights copied in at
 * construction, never changed after: safe to share between threads), az_search (one decision)
 * and az_selfplay (whole games), both on a copy of the caller's state object with the GIL
 * released while they play. */
#include "binding.h"
#include "kingdomino.h"
#include "learn.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    PyObject_HEAD int ready;
    float *data;
    lr_net net;
} NetObject;

static void Net_dealloc(NetObject *self) {
    free(self->data);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Net(inputs, hidden1, hidden2, actions, weights float32 (lr_net_size,)): actions is the
 * game's action count (a net is refused by another game), not a layer */
static int Net_init(NetObject *self, PyObject *args, PyObject *kwds) {
    int in, h1, h2, actions;
    PyObject *wobj;
    static char *kwlist[] = {"inputs", "hidden1", "hidden2", "actions", "weights", NULL};
    if (self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Net: already initialised (a Net never changes)");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "iiiiO", kwlist, &in, &h1, &h2, &actions, &wobj)) {
        return -1;
    }
    if (in < 1 || in > LR_MAX_INPUT || h1 < 1 || h1 > LR_MAX_H1 || h2 < 1 || h2 > LR_MAX_H2 ||
        actions < 1 || actions > LR_MAX_ACTIONS) {
        PyErr_Format(PyExc_ValueError,
                     "Net: sizes out of range (inputs 1..%d, hidden1 1..%d, hidden2 1..%d, "
                     "actions 1..%d), got %d, %d, %d, %d",
                     LR_MAX_INPUT, LR_MAX_H1, LR_MAX_H2, LR_MAX_ACTIONS, in, h1, h2, actions);
        return -1;
    }
    size_t size = lr_net_size(in, h1, h2);
    Py_buffer view;
    if (get_buffer(wobj, &view, "weights", "f", sizeof(float), (Py_ssize_t)size, 0) < 0) {
        return -1;
    }
    float *data = malloc(sizeof(float) * size);
    if (!data) {
        PyBuffer_Release(&view);
        PyErr_NoMemory();
        return -1;
    }
    memcpy(data, view.buf, sizeof(float) * size);
    PyBuffer_Release(&view);
    for (size_t i = 0; i < size; i++) {
        if (!isfinite(data[i])) {
            free(data);
            PyErr_Format(PyExc_ValueError, "Net: weight %zu is not finite", i);
            return -1;
        }
        if (fabsf(data[i]) > LR_MAX_WEIGHT) {
            char text[64]; /* PyErr_Format has no %g */
            snprintf(text, sizeof text, "%g, over %g", (double)data[i], (double)LR_MAX_WEIGHT);
            PyErr_Format(PyExc_ValueError,
                         "Net: weight %zu is %s in magnitude (the network's sums could overflow)",
                         i, text);
            free(data);
            return -1;
        }
    }
    self->data = data;
    lr_net_bind(&self->net, in, h1, h2, actions, data);
    self->ready = 1;
    return 0;
}

static int net_ready(PyObject *obj) {
    if (!((NetObject *)obj)->ready) {
        PyErr_SetString(PyExc_RuntimeError, "Net is not initialised (its __init__ did not succeed)");
        return -1;
    }
    return 0;
}

/* evaluate(obs float32 (inputs,)) -> the value */
static PyObject *Net_evaluate(NetObject *self, PyObject *args) {
    PyObject *obs;
    if (net_ready((PyObject *)self) < 0 || !PyArg_ParseTuple(args, "O", &obs)) {
        return NULL;
    }
    Py_buffer view;
    if (get_buffer(obs, &view, "obs", "f", sizeof(float), self->net.in, 0) < 0) {
        return NULL;
    }
    float *x = malloc(sizeof(float) * (size_t)self->net.in);
    if (!x) {
        PyBuffer_Release(&view);
        return PyErr_NoMemory();
    }
    memcpy(x, view.buf, sizeof(float) * (size_t)self->net.in);
    PyBuffer_Release(&view);
    float h2[LR_MAX_H2];
    float v = lr_forward(&self->net, x, h2);
    free(x);
    return PyFloat_FromDouble((double)v);
}

static PyObject *Net_sizes(NetObject *self, void *unused) {
    if (net_ready((PyObject *)self) < 0) {
        return NULL;
    }
    return Py_BuildValue("(iiii)", self->net.in, self->net.h1, self->net.h2, self->net.actions);
}

static PyMethodDef Net_methods[] = {
    {"evaluate", (PyCFunction)Net_evaluate, METH_VARARGS, "evaluate(obs) -> the value"},
    {NULL}};
static PyGetSetDef Net_getset[] = {
    {"sizes", (getter)Net_sizes, NULL, "(inputs, hidden1, hidden2, actions)", NULL}, {NULL}};

static PyTypeObject NetType = {
    NATIVE_TYPE(NetObject, "Net", "The learned agent's network (learn.h), weights copied in."),
    .tp_new = PyType_GenericNew, .tp_init = (initproc)Net_init,
    .tp_dealloc = (destructor)Net_dealloc, .tp_methods = Net_methods, .tp_getset = Net_getset};

/* --- the game of a state object, and the settings ------------------------------------------ */
/* g from a search state (State or KdState), checked against net when given; 0 or -1. */
/* g from a search state (State or KdState): with the territory features when net (or, with
 * no net, features) says so; a net must fit the game's observation, with or without them. */
static int game_of(PyObject *state, NetObject *net, int features, lr_game *g) {
    int kind;
    if (PyObject_TypeCheck(state, &StateType)) {
        kind = 0;
    } else if (PyObject_TypeCheck(state, &KdStateType)) {
        kind = 1;
    } else {
        PyErr_Format(PyExc_TypeError, "state: expected a State or KdState, got %s",
                     Py_TYPE(state)->tp_name);
        return -1;
    }
    const void *params = ((CoreStateHead *)state)->params;
    for (int pass = 0; pass < 2; pass++) {
        int with = net ? pass : features;
        if (kind == 0) {
            lr_moonriver(g, params, with);
        } else {
            lr_kingdomino(g, params, with);
        }
        if (!net || net->net.in == g->obs_size) {
            break;
        }
    }
    if (net && (net->net.in != g->obs_size || net->net.actions != g->num_actions)) {
        PyErr_Format(PyExc_ValueError,
                     "net: made for %d inputs and %d actions, the game has %d (or %d with the "
                     "territory features) and %d",
                     net->net.in, net->net.actions, g->encoder_size,
                     g->encoder_size + LR_FEATURES, g->num_actions);
        return -1;
    }
    if (g->obs_size > LR_MAX_INPUT || g->n > LR_MAX_SEATS) {
        PyErr_SetString(PyExc_ValueError, "state: the game is larger than the search allows");
        return -1;
    }
    return 0;
}

static NetObject *as_net(PyObject *obj, int optional) {
    if (optional && obj == Py_None) {
        return NULL;
    }
    if (!PyObject_TypeCheck(obj, &NetType)) {
        PyErr_Format(PyExc_TypeError, "net: expected a Net, got %s", Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return net_ready(obj) < 0 ? NULL : (NetObject *)obj;
}

#define SETTINGS_RANGES                                                                            \
    "settings: k 0..%d, r 0..4096, depth and max_depth 0..100000, leaves 1..%d, rollout_temp "     \
    "0..100, tau > 0 (up to 100), opponent_temp up to 100 (negative: rollout_temp's)"

/* settings: (k, r, depth, max_depth, leaves, rollout_temp, tau, opponent_temp); anything else
 * is a TypeError naming them (PyArg_ParseTuple alone raises SystemError for a list or None),
 * an integer too large for C a ValueError with the ranges. */
static int read_settings(PyObject *obj, lr_settings *s) {
    if (!PyTuple_Check(obj) ||
        !PyArg_ParseTuple(obj, "iiiiifff", &s->k, &s->r, &s->depth, &s->max_depth, &s->leaves,
                          &s->rollout_temp, &s->tau, &s->opponent_temp)) {
        if (PyErr_Occurred() && PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, SETTINGS_RANGES, LR_MAX_CANDS, LR_MAX_LEAVES);
        } else {
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError,
                         "settings: expected a tuple (k, r, depth, max_depth, leaves, "
                         "rollout_temp, tau, opponent_temp) of 5 integers and 3 numbers, got %s",
                         Py_TYPE(obj)->tp_name);
        }
        return -1;
    }
    if (s->k < 0 || s->k > LR_MAX_CANDS || s->r < 0 || s->r > 4096 || s->depth < 0 ||
        s->depth > 100000 || s->max_depth < 0 || s->max_depth > 100000 || s->leaves < 1 ||
        s->leaves > LR_MAX_LEAVES ||
        !(s->rollout_temp >= 0.0f && s->rollout_temp <= 100.0f) ||
        !(s->tau > 0.0f && s->tau <= 100.0f) || !(s->opponent_temp <= 100.0f)) {
        PyErr_Format(PyExc_ValueError, SETTINGS_RANGES, LR_MAX_CANDS, LR_MAX_LEAVES);
        return -1;
    }
    return 0;
}

static PyObject *floats(const float *v, int count) {
    PyObject *t = PyTuple_New(count);
    for (int i = 0; t && i < count; i++) {
        PyTuple_SET_ITEM(t, i, PyFloat_FromDouble(v[i]));
    }
    return t;
}

/* --- Ctrl-C during a search or self-play --------------------------------------------------
 * They run without the GIL, where Python's own SIGINT handler only notes the signal for later.
 * While any of them runs (in any thread), SIGINT goes first to on_sigint, which counts an
 * interrupt (lr_interrupt: every search and self-play running stops within one rollout
 * decision) and then calls the handler it replaced (Python's: KeyboardInterrupt when the main
 * thread next runs Python). The first call in installs it, the last one out puts the one before
 * back. A SIGINT ignored (SIG_IGN: a worker process) or left to the system (SIG_DFL) is left
 * as it is. */
static pthread_mutex_t sigint_lock = PTHREAD_MUTEX_INITIALIZER;
static int sigint_users;             /* calls between sigint_enter and sigint_leave */
static int sigint_ours;              /* on_sigint is installed */
static struct sigaction sigint_before; /* the handler on_sigint replaced (and calls) */

static void on_sigint(int sig, siginfo_t *info, void *ctx) {
    lr_interrupt();
    if (sigint_before.sa_flags & SA_SIGINFO) {
        sigint_before.sa_sigaction(sig, info, ctx);
    } else if (sigint_before.sa_handler != SIG_DFL && sigint_before.sa_handler != SIG_IGN) {
        sigint_before.sa_handler(sig);
    }
}

/* Before a search or self-play (GIL held): on_sigint installed if SIGINT has a handler;
 * returns the interrupts so far (the call's mark: a SIGINT after it stops the call). The caller
 * then acts on a SIGINT Python noted before (PyErr_CheckSignals), and calls sigint_leave. */
static unsigned sigint_enter(void) {
    pthread_mutex_lock(&sigint_lock);
    if (sigint_users++ == 0) {
        struct sigaction now;
        if (sigaction(SIGINT, NULL, &now) == 0 &&
            ((now.sa_flags & SA_SIGINFO) ||
             (now.sa_handler != SIG_DFL && now.sa_handler != SIG_IGN))) {
            struct sigaction ours;
            memset(&ours, 0, sizeof ours);
            ours.sa_sigaction = on_sigint;
            ours.sa_flags = SA_SIGINFO | (now.sa_flags & (SA_ONSTACK | SA_RESTART));
            ours.sa_mask = now.sa_mask;
            sigint_before = now;
            sigint_ours = sigaction(SIGINT, &ours, NULL) == 0;
        }
    }
    pthread_mutex_unlock(&sigint_lock);
    return lr_interrupts();
}

/* After the call (GIL held): the handler before put back when this was the last call in (and
 * nobody has installed another since). */
static void sigint_leave(void) {
    pthread_mutex_lock(&sigint_lock);
    if (--sigint_users == 0 && sigint_ours) {
        struct sigaction now;
        if (sigaction(SIGINT, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
            now.sa_sigaction == on_sigint) {
            sigaction(SIGINT, &sigint_before, NULL);
        }
        sigint_ours = 0;
    }
    pthread_mutex_unlock(&sigint_lock);
}

/* The exception of a call an interrupt stopped (GIL held): the one Python's handler raises
 * (KeyboardInterrupt, in the main thread), else KeyboardInterrupt naming what stopped. */
static PyObject *interrupted(const char *what) {
    if (PyErr_CheckSignals() < 0) {
        return NULL;
    }
    PyErr_Format(PyExc_KeyboardInterrupt, "%s: interrupted (SIGINT)", what);
    return NULL;
}

/* az_interrupt(): every search and self-play running in this process, in any thread, stops
 * (as at a SIGINT) and raises KeyboardInterrupt; later calls are not affected. */
static PyObject *az_interrupt(PyObject *mod, PyObject *unused) {
    (void)mod;
    (void)unused;
    lr_interrupt();
    Py_RETURN_NONE;
}

/* az_search(state, net, settings, seed, sample) -> (action, legal, prior, q, pi, value, evals) */
static PyObject *az_search(PyObject *mod, PyObject *args) {
    PyObject *state, *nobj, *sobj;
    unsigned long long seed;
    int sample;
    lr_settings s;
    lr_game g;
    if (!PyArg_ParseTuple(args, "OOOKp", &state, &nobj, &sobj, &seed, &sample)) {
        return NULL;
    }
    NetObject *net = as_net(nobj, 0);
    if (!net || game_of(state, net, 0, &g) < 0 || read_settings(sobj, &s) < 0) {
        return NULL;
    }
    lr_work w;
    lr_result *r = malloc(sizeof *r);
    if (!r || lr_work_init(&w, &g) < 0) {
        free(r);
        return PyErr_NoMemory();
    }
    memcpy(w.root, (char *)state + CORE_STATE_OFFSET, g.state_size);
    if (g.over(w.root)) {
        free(r);
        lr_work_free(&w);
        PyErr_SetString(PyExc_ValueError, "az_search: the game is over");
        return NULL;
    }
    w.mark = sigint_enter();
    if (PyErr_CheckSignals() < 0) {
        sigint_leave();
        free(r);
        lr_work_free(&w);
        return NULL;
    }
    PyObject *config = ((CoreStateHead *)state)->config;
    Py_INCREF(config);
    Py_INCREF(net);
    mr_pcg64 rng;
    mr_pcg64_seed(&rng, seed);
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = lr_search(&g, &net->net, w.root, &s, sample, &rng, &w, r);
    Py_END_ALLOW_THREADS Py_DECREF(net);
    Py_DECREF(config);
    sigint_leave();
    if (rc < 0) {
        free(r);
        lr_work_free(&w);
        return interrupted("az_search");
    }
    PyObject *legal = PyTuple_New(r->count);
    for (int i = 0; legal && i < r->count; i++) {
        PyTuple_SET_ITEM(legal, i, PyLong_FromLong(r->legal[i]));
    }
    PyObject *out = legal ? Py_BuildValue("(iNNNNdL)", r->action, legal, floats(r->prior, r->count),
                                          floats(r->q, r->count), floats(r->pi, r->count),
                                          (double)r->value, (long long)r->evals)
                          : NULL;
    free(r);
    lr_work_free(&w);
    return out;
}

#define BYTES(ptr, n, type) PyBytes_FromStringAndSize((const char *)(ptr), (Py_ssize_t)(n) * (Py_ssize_t)sizeof(type))


/* The body of Batch.afterstates and KdBatch.afterstates (binding.h): args (rows, seed,
 * features); rows: int64 game indices as bytes, each game still being played. For each row in
 * order: the game's state redetermined once (a generator seeded from seed and the game's
 * index, so a game's draw does not depend on the other rows: the hidden pieces as the seat to
 * act could imagine them), then each of its legal
 * moves (ascending) applied to that determinization and the result encoded for the seat that
 * moved (with features: the territory features appended). -> (legal int32, counts int32 per
 * row, off int64 rows+1 over the moves, idx int16, val float32), each as bytes. Nothing of the
 * batch changes. */
PyObject *batch_afterstates(int kind, const void *params, const char *states, size_t stride,
                            Py_ssize_t num_games, PyObject *args) {
    Py_buffer rb;
    unsigned long long seed;
    int features;
    if (!PyArg_ParseTuple(args, "y*Kp", &rb, &seed, &features)) {
        return NULL;
    }
    if (rb.len % (Py_ssize_t)sizeof(int64_t)) {
        PyBuffer_Release(&rb);
        PyErr_SetString(PyExc_ValueError, "rows: not a vector of int64 (its length is not a multiple of 8)");
        return NULL;
    }
    Py_ssize_t count = rb.len / (Py_ssize_t)sizeof(int64_t);
    int64_t *rows = malloc(sizeof(int64_t) * (size_t)(count ? count : 1));
    if (!rows) {
        PyBuffer_Release(&rb);
        return PyErr_NoMemory();
    }
    if (count) memcpy(rows, rb.buf, sizeof(int64_t) * (size_t)count); /* checked, then used */
    PyBuffer_Release(&rb);
    lr_game g;
    if (kind == 0) {
        lr_moonriver(&g, params, features);
    } else {
        lr_kingdomino(&g, params, features);
    }
    if (g.state_size != stride || g.obs_size > LR_MAX_INPUT) { /* (idx is int16) */
        free(rows);
        PyErr_SetString(PyExc_RuntimeError, "afterstates: the batch's states are not the game's, "
                                            "or its observation is larger than they allow");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < count; j++) {
        if (rows[j] < 0 || rows[j] >= num_games) {
            PyErr_Format(PyExc_IndexError, "rows: game %lld is not in 0..%zd", (long long)rows[j],
                         num_games - 1);
            free(rows);
            return NULL;
        }
        if (g.over(states + (size_t)rows[j] * stride)) {
            PyErr_Format(PyExc_ValueError, "rows: game %lld is over (it has no moves)",
                         (long long)rows[j]);
            free(rows);
            return NULL;
        }
    }
    int room = g.num_actions + KD_MAX_LEGAL;
    int32_t *legal = malloc(sizeof(int32_t) * (size_t)room);
    int32_t *counts = malloc(sizeof(int32_t) * (size_t)(count ? count : 1));
    float *obs = malloc(sizeof(float) * (size_t)g.obs_size);
    char *det = malloc(stride), *after = malloc(stride);
    int32_t *ids = NULL;
    int64_t total = 0, cap = 0;
    lr_sparse out;
    memset(&out, 0, sizeof out);
    int failed = !legal || !counts || !obs || !det || !after;
    mr_pcg64 rng;
    for (Py_ssize_t j = 0; !failed && j < count; j++) {
        const char *st = states + (size_t)rows[j] * stride;
        mr_pcg64_seed(&rng, seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(rows[j] + 1)));
        int seat = g.seat(st);
        int n = g.legal(&g, st, legal);
        counts[j] = n;
        if (total + n > cap) {
            int64_t c = cap ? cap : 4096;
            while (c < total + n) c *= 2;
            int32_t *more = realloc(ids, sizeof(int32_t) * (size_t)c);
            if (!more) {
                failed = 1;
                break;
            }
            ids = more;
            cap = c;
        }
        memcpy(det, st, stride);
        g.redetermine(&g, det, &rng);
        for (int i = 0; i < n; i++) {
            ids[total++] = legal[i];
            memcpy(after, det, stride);
            g.apply(&g, after, legal[i]);
            g.encode(&g, after, seat, obs);
            if (lr_sparse_add_row(&out, obs, g.obs_size) < 0) {
                failed = 1;
                break;
            }
        }
    }
    PyObject *res = NULL;
    if (failed) {
        PyErr_NoMemory();
    } else {
        if (out.rows == 0) { /* no move at all: off is the one 0 */
            out.off = malloc(sizeof(int64_t));
            if (out.off) out.off[0] = 0;
        }
        res = out.off ? Py_BuildValue("(NNNNN)", BYTES(ids, total, int32_t),
                                      BYTES(counts, count, int32_t),
                                      BYTES(out.off, out.rows + 1, int64_t),
                                      BYTES(out.idx, out.nnz, int16_t),
                                      BYTES(out.val, out.nnz, float))
                      : PyErr_NoMemory();
    }
    free(rows);
    free(legal);
    free(counts);
    free(obs);
    free(det);
    free(after);
    free(ids);
    lr_sparse_free(&out);
    return res;
}

/* az_selfplay(state, net or None, games, seed, settings, teacher, explore, lambda, keep,
 * afterstates, weights or None[, features[, teacher_temp]]): features (with no net: teacher
 * games) appends the territory features to the recorded observations (a net decides by its
 * inputs); teacher_temp > 0: the teacher's policy target is the softmax of its values /
 * teacher_temp (0: its move) -> dict of the positions' arrays as bytes
 * (training/az/selfplay.py reads them). state: a State or KdState of the game to play (its
 * position is not used). */
static PyObject *az_selfplay(PyObject *mod, PyObject *args) {
    PyObject *state, *nobj, *sobj, *wobj;
    int games, teacher, explore;
    unsigned long long seed;
    float lambda, keep, afterstates;
    lr_selfplay_settings ss;
    lr_game g;
    double weights[11] = {0};
    int features = 0;
    float teacher_temp = 0.0f;
    if (!PyArg_ParseTuple(args, "OOiKOpifffO|pf", &state, &nobj, &games, &seed, &sobj, &teacher,
                          &explore, &lambda, &keep, &afterstates, &wobj, &features,
                          &teacher_temp)) {
        return NULL;
    }
    NetObject *net = as_net(nobj, teacher);
    if ((!net && PyErr_Occurred()) || game_of(state, net, features, &g) < 0 ||
        read_settings(sobj, &ss.search) < 0) {
        return NULL;
    }
    if (games < 1 || games > 1000000 || explore < 0 || !(lambda >= 0.0f && lambda <= 1.0f) ||
        !(keep > 0.0f && keep <= 1.0f) || !(afterstates >= 0.0f && afterstates <= 1.0f) ||
        !(teacher_temp >= 0.0f && teacher_temp <= 1000.0f)) {
        PyErr_SetString(PyExc_ValueError, "az_selfplay: games 1..1000000, explore >= 0, lambda "
                                          "0..1, keep (0, 1], afterstates 0..1, teacher_temp "
                                          "0..1000");
        return NULL;
    }
    if (teacher && PyObject_TypeCheck(state, &StateType) &&
        (wobj == Py_None || read_weights(wobj, weights) < 0)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "az_selfplay: Moon River's teacher needs weights");
        }
        return NULL;
    }
    for (int i = 0; i < 11; i++) { /* NaN values would leave the teacher no best move */
        if (!isfinite(weights[i])) {
            PyErr_Format(PyExc_ValueError, "weights: weight %d is not finite", i);
            return NULL;
        }
    }
    ss.teacher = teacher;
    ss.explore = explore;
    ss.lambda = lambda;
    ss.keep = keep;
    ss.afterstates = afterstates;
    ss.teacher_temp = teacher_temp;
    lr_buffer b;
    memset(&b, 0, sizeof b);
    ss.mark = sigint_enter();
    if (PyErr_CheckSignals() < 0) {
        sigint_leave();
        return NULL;
    }
    PyObject *config = ((CoreStateHead *)state)->config;
    Py_INCREF(config);
    Py_XINCREF(net);
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = lr_selfplay(&g, net ? &net->net : NULL, games, seed, &ss, weights, &b);
    Py_END_ALLOW_THREADS Py_XDECREF(net);
    Py_DECREF(config);
    sigint_leave();
    if (rc < 0) {
        lr_buffer_free(&b);
        return rc == -2 ? interrupted("az_selfplay") : PyErr_NoMemory();
    }
    int64_t P = b.positions, A = b.aft.rows;
    PyObject *out = Py_BuildValue(
        "{sNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsNsLsL}", "game", BYTES(b.game, P, int32_t), "seat",
        BYTES(b.seat, P, int8_t), "obs_off", BYTES(b.obs.off, P ? P + 1 : 0, int64_t), "obs_idx",
        BYTES(b.obs.idx, b.obs.nnz, int16_t), "obs_val", BYTES(b.obs.val, b.obs.nnz, float),
        "legal_off", BYTES(b.legal_off, P ? P + 1 : 0, int64_t), "legal_id",
        BYTES(b.legal_id, b.legal_total, int16_t), "pi", BYTES(b.pi, b.legal_total, float), "q",
        BYTES(b.q, P, float), "z", BYTES(b.z, P, float), "target", BYTES(b.target, P, float),
        "chosen", BYTES(b.chosen, P, int16_t), "aft_off", BYTES(b.aft_off, P ? P + 1 : 0, int64_t), "aft_obs_off",
        BYTES(b.aft.off, A ? A + 1 : 0, int64_t), "aft_idx", BYTES(b.aft.idx, b.aft.nnz, int16_t),
        "aft_val", BYTES(b.aft.val, b.aft.nnz, float), "outcomes",
        BYTES(b.outcomes, b.games * g.n, float), "lengths", BYTES(b.lengths, b.games, int32_t),
        "evals", (long long)b.evals, "positions", (long long)P);
    lr_buffer_free(&b);
    return out;
}

static PyMethodDef az_functions[] = {
    {"az_interrupt", az_interrupt, METH_NOARGS,
     "az_interrupt(): stops every az_search and az_selfplay running now, in any thread (each "
     "raises KeyboardInterrupt), as a SIGINT does"},
    {"az_search", az_search, METH_VARARGS,
     "az_search(state, net, settings, seed, sample) -> (action, legal, prior, q, pi, value, "
     "evals)"},
    {"az_selfplay", az_selfplay, METH_VARARGS,
     "az_selfplay(state, net, games, seed, settings, teacher, explore, lambda, keep, "
     "afterstates, weights) -> "
     "dict of arrays as bytes"},
    {NULL}};

int az_add_to_module(PyObject *m) {
    if (PyType_Ready(&NetType) < 0) {
        return -1;
    }
    Py_INCREF(&NetType);
    if (PyModule_AddFunctions(m, az_functions) < 0 ||
        PyModule_AddObject(m, "Net", (PyObject *)&NetType) < 0 ||
        PyModule_AddIntConstant(m, "AZ_MAX_CANDIDATES", LR_MAX_CANDS) < 0 ||
        PyModule_AddIntConstant(m, "AZ_MAX_LEAVES", LR_MAX_LEAVES) < 0 ||
        PyModule_AddObject(m, "AZ_MAX_WEIGHT", PyFloat_FromDouble(LR_MAX_WEIGHT)) < 0 ||
        PyModule_AddIntConstant(m, "AZ_FEATURES", LR_FEATURES) < 0) {
        return -1;
    }
    return 0;
}
