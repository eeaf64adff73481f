/* The CPython binding of Moon River's State (moonriver_env._native.State): one game for
 * search (clone, apply, legal actions, scores, redetermine, random rollouts, the agents'
 * simulations and leaves). */
#include "binding.h"

#include <stddef.h>
#include <string.h>

/* --- State: one game for search ------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD PyObject *config;
    const mr_config *cfg;
    mr_state st;
} StateObject;

_Static_assert(offsetof(StateObject, st) == CORE_STATE_OFFSET, "State: a CoreStateHead first");

static StateObject *new_state_object(PyObject *config) {
    return (StateObject *)core_state_new(&StateType, config, &((ConfigObject *)config)->cfg);
}

/* new_state(config, seed): the game new_game(config, seed=seed) sets up. */
PyObject *new_state(PyObject *mod, PyObject *args) {
    PyObject *config;
    unsigned long long seed;
    if (!PyArg_ParseTuple(args, "O!K", &ConfigType, &config, &seed) || config_ready(config) < 0) {
        return NULL;
    }
    StateObject *obj = new_state_object(config);
    if (obj) {
        mr_new_game(obj->cfg, &obj->st, seed);
    }
    return (PyObject *)obj;
}

/* state_from_record(config, bytes): checked like Batch.set_record. */
PyObject *state_from_record(PyObject *mod, PyObject *args) {
    PyObject *config, *record;
    if (!PyArg_ParseTuple(args, "O!O", &ConfigType, &config, &record) ||
        config_ready(config) < 0) {
        return NULL;
    }
    return core_state_from_record(&StateType, config, &((ConfigObject *)config)->cfg, record,
                                  mr_check_and_rebuild);
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
    if (!legal_has(legal, count, a)) {
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
int read_weights(PyObject *wobj, double w[11]) {
    PyObject *seq = sequence_snapshot(wobj, "weights: expected a sequence of 11 numbers");
    if (!seq) {
        return -1;
    }
    if (PyTuple_GET_SIZE(seq) != 11) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "weights: expected 11 numbers");
        return -1;
    }
    for (int i = 0; i < 11 && !PyErr_Occurred(); i++) {
        w[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(seq, i));
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

/* 0 when each of the k ids acts is legal in this state, else -1 with ValueError. The ids
 * were read by read_action_ids before, and no Python code runs between this check and
 * their use. */
static int check_legal(StateObject *self, const int *acts, Py_ssize_t k) {
    int16_t legal[MR_MAX_ACTIONS];
    int num_legal = self->st.phase == PH_GAME_OVER ? 0 : mr_legal(self->cfg, &self->st, legal);
    for (Py_ssize_t j = 0; j < k; j++) {
        if (!legal_has(legal, num_legal, acts[j])) {
            PyErr_Format(PyExc_ValueError, "actions: action %d is not legal here", acts[j]);
            return -1;
        }
    }
    return 0;
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
    int *acts = read_action_ids(actions_obj, "actions", PY_SSIZE_T_MAX / 8, &k);
    if (!acts || check_legal(self, acts, k) < 0) {
        PyMem_Free(acts);
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

/* greedy_keys(actions) -> (gains, tiebreaks): the greedy agent's keys of each action (legal
 * here) for the acting seat, on this state (a determinization), which stays as it is. */
static PyObject *State_greedy_keys(StateObject *self, PyObject *args) {
    PyObject *actions_obj;
    if (!PyArg_ParseTuple(args, "O", &actions_obj)) {
        return NULL;
    }
    Py_ssize_t k;
    int *acts = read_action_ids(actions_obj, "actions", PY_SSIZE_T_MAX / 16, &k);
    if (!acts || check_legal(self, acts, k) < 0) {
        PyMem_Free(acts);
        return NULL;
    }
    double *gain = PyMem_Malloc((k ? k : 1) * sizeof(double));
    double *tie = PyMem_Malloc((k ? k : 1) * sizeof(double));
    mr_state *sim = PyMem_Malloc(sizeof(mr_state));
    PyObject *out = NULL;
    if (gain && tie && sim) {
        mr_greedy_keys(self->cfg, &self->st, acts, (int)k, sim, gain, tie);
        PyObject *g = build_items(0, k, item_double, gain);
        PyObject *t = g ? build_items(0, k, item_double, tie) : NULL;
        out = t ? PyTuple_Pack(2, g, t) : NULL;
        Py_XDECREF(g);
        Py_XDECREF(t);
    } else {
        PyErr_NoMemory();
    }
    PyMem_Free(acts);
    PyMem_Free(gain);
    PyMem_Free(tie);
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
    int *acts = read_action_ids(actions_obj, "actions", PY_SSIZE_T_MAX / 8, &k);
    if (!acts) {
        return NULL;
    }
    Py_ssize_t width = cfg->obs_size + cfg->n + 1;
    Py_buffer view;
    if (get_buffer(rows_obj, &view, "rows", "f", 4, k * width, 1) < 0) {
        PyMem_Free(acts);
        return NULL;
    }
    if (check_legal(self, acts, k) < 0) { /* after the last Python code: the buffer's */
        PyBuffer_Release(&view);
        PyMem_Free(acts);
        return NULL;
    }
    double *margins = PyMem_Malloc((k ? k : 1) * sizeof(double));
    int *ended = PyMem_Malloc((k ? k : 1) * sizeof(int));
    mr_state *sim = PyMem_Malloc(sizeof(mr_state));
    PyObject *out = NULL;
    if (!margins || !ended || !sim) {
        PyErr_NoMemory();
    } else {
        float *rows = view.buf;
        for (Py_ssize_t j = 0; j < k; j++) { /* with the GIL held, no Python code run since */
            *sim = self->st;                 /* check_legal (no object made before the end) */
            ended[j] = mr_value_leaf(cfg, sim, seat, acts[j], depth, seed, w, rows + j * width,
                                     &margins[j]);
        }
        out = PyTuple_New(k);
        for (Py_ssize_t j = 0; out && j < k; j++) {
            PyObject *item = ended[j] ? PyFloat_FromDouble(margins[j]) : Py_NewRef(Py_None);
            if (!item) {
                Py_CLEAR(out);
                break;
            }
            PyTuple_SET_ITEM(out, j, item);
        }
    }
    PyMem_Free(sim);
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
    {"greedy_keys", (PyCFunction)State_greedy_keys, METH_VARARGS,
     "greedy_keys(actions) -> (gains, tiebreaks): the greedy agent's keys"},
    {"value_leaves", (PyCFunction)State_value_leaves, METH_VARARGS,
     "value_leaves(seat, actions, depth, seed, weights, rows) -> margins or None"},
    {"observe", (PyCFunction)State_observe, METH_VARARGS, "observe(seat, out)"},
    {"determinize", (PyCFunction)State_determinize, METH_VARARGS,
     "determinize(*pcg64_state) -> the generator state after"},
    {NULL}};

static PyGetSetDef State_getset[] = {CORE_STATE_GETSET(mr_state), {NULL}};

PyTypeObject StateType = {NATIVE_STATE_TYPE(
    StateObject, State, "State", "One game in the core, for search (see moonriver_env.moonriver.vector.search).")};
