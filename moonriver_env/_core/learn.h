/* The learned agent's core: a small network evaluated in C (nnue.c), the game
 * operations both games share (azgames.c), the search that looks past the next reveal and the
 * self-play loop (azsearch.c). Nothing here knows a rule: a game is a table of operations.
 *
 * The network, from a seat's flat observation x (the game's encoder; sparse, ~240 of ~3,300
 * entries non-zero):
 *   h1 = relu(b1 + sum_i x_i W1[i])            (W1: in x h1, read row by row for non-zeros)
 *   h2 = relu(b2 + W2 h1)                      (W2: h2 x h1)
 *   value  = tanh(bv + wv . h2)                (the seat's expected outcome, -1 .. 1)
 * The flat weights are in that order: W1, b1, W2, b2, wv, bv (agents/az/network.py writes
 * them from torch, net_size gives their count). A move's prior is the value of its afterstate:
 * the network has no policy head. */
#ifndef MOONRIVER_LEARN_H
#define MOONRIVER_LEARN_H

#include <stddef.h>
#include <stdint.h>

#include "moonriver.h"

#define LR_MAX_INPUT 8192
#define LR_MAX_H1 512
#define LR_MAX_H2 256
#define LR_MAX_ACTIONS 8192
#define LR_MAX_LEGAL 8192 /* at least MR_MAX_ACTIONS and KD_MAX_LEGAL: any legal list fits */
#define LR_MAX_CANDS 32
#define LR_MAX_LEAVES 64 /* lr_settings.leaves */
#define LR_MAX_SEATS 4
/* The largest magnitude of a weight Net takes: every sum of a network within it stays far
 * inside float (a first layer of at most a few thousand entries of at most 100, then 512 and
 * 256 wide: below 1e33), where weights of 3e38 overflowed to NaN priors and values. A model
 * file's weights and input scales are each at most 1e4 (agents/az/checkpoint.py), their
 * product in the first layer 1e8. */
#define LR_MAX_WEIGHT 1e8f

typedef struct {
    int in, h1, h2;
    int actions; /* the game's action count (a net of another game is refused); no weights */
    const float *w1, *b1, *w2, *b2, *wv, *bv;
} lr_net;

/* The number of floats of a network of these sizes. */
size_t lr_net_size(int in, int h1, int h2);
/* Points net's layers into data (lr_net_size floats, kept by the caller). */
void lr_net_bind(lr_net *net, int in, int h1, int h2, int actions, const float *data);
/* The value of observation x (net->in floats) for its seat; h2 (net->h2 floats) keeps the last
 * hidden layer. */
float lr_forward(const lr_net *net, const float *x, float *h2);
/* lr_forward in two steps: the first layer's sums before its relu (net->h1 floats) ... */
void lr_layer1(const lr_net *net, const float *x, float *h1);
/* ... or those sums for x from the sums h1_base of the observation base (the rows of the entries
 * that differ added, NNUE's incremental update: an afterstate from its parent's) ... */
void lr_layer1_delta(const lr_net *net, const float *base, const float *h1_base, const float *x,
                     float *h1);
/* ... then the value and h2 from the sums. */
float lr_head(const lr_net *net, const float *h1, float *h2);

/* Scratch for one thread: four game states and two observations. */
typedef struct {
    void *root, *det, *sim, *after;
    float *obs, *base; /* base: the observation whose first-layer sums are in h1_base */
    float h2[LR_MAX_H2], h1[LR_MAX_H1], h1_base[LR_MAX_H1];
    /* a rollout's bases (azsearch.c): for each seat an observation of a state of the rollout
     * (seen[seat]) and its first-layer sums; best: the afterstate that leads the argmax so far */
    float *seen_obs[LR_MAX_SEATS], *best;
    float seen_h1[LR_MAX_SEATS][LR_MAX_H1], best_h1[LR_MAX_H1];
    int seen[LR_MAX_SEATS];
    /* the search's bases (the first each seat computes in full), each rollout's starting ones */
    float *first_obs[LR_MAX_SEATS];
    float first_h1[LR_MAX_SEATS][LR_MAX_H1];
    int first[LR_MAX_SEATS];
    float logits[LR_MAX_LEGAL];
    int32_t legal[LR_MAX_LEGAL];
    double values[LR_MAX_LEGAL];
    /* interruption: lr_interrupts() when the call began (set by the caller after
     * lr_work_init); stopped once another interrupt has come (lr_stopped) */
    unsigned mark;
    int stopped;
} lr_work;

/* --- interruption (Ctrl-C) ------------------------------------------------------------------
 * A count of the interrupts asked for. lr_interrupt adds one (async-signal-safe: the
 * binding's SIGINT handler calls it); every search and self-play running, in any thread, whose
 * work's mark is older stops within one rollout decision and says so (lr_search_listed's -1,
 * lr_selfplay's -2). */
void lr_interrupt(void);
unsigned lr_interrupts(void);
/* 1 once an interrupt has come since w->mark (and from then on), else 0. */
int lr_stopped(lr_work *w);

/* --- a game as operations ----------------------------------------------------------------- */
/* Territory features (lr_game.features): per seat in the observer's order, per landscape, what
 * the scoring counts, computed from the board (azgames.c); LR_FEATURES_PER_SEAT a seat, for
 * LR_MAX_SEATS seats (absent seats: zeros). */
#define LR_FEATURES_PER_SEAT 26
#define LR_FEATURES (LR_FEATURES_PER_SEAT * LR_MAX_SEATS)

typedef struct lr_game {
    const void *params;
    int n, obs_size, num_actions; /* obs_size: the encoder's, plus LR_FEATURES with them */
    int encoder_size, with_features;
    size_t state_size;
    int (*legal)(const struct lr_game *g, const void *st, int32_t *out);
    void (*apply)(const struct lr_game *g, void *st, int32_t a);
    int (*seat)(const void *st);   /* the acting seat */
    int (*over)(const void *st);   /* the game is finished */
    int (*reveals)(const void *st); /* grows by one each time hidden pieces are turned up */
    void (*encode)(const struct lr_game *g, const void *st, int seat, float *out);
    /* each seat's outcome of a finished game, -1 .. 1 (azgames.c: half the win, half the
     * points margin) */
    void (*outcome)(const struct lr_game *g, const void *st, double *out);
    void (*redetermine)(const struct lr_game *g, void *st, mr_pcg64 *rng);
    void (*new_game)(const struct lr_game *g, void *st, uint64_t seed);
    /* the game's hand-written teacher (a warm start only): its move among legal; w->values
     * holds every legal action's value to the teacher (in legal's order, larger is better) */
    int32_t (*teacher)(const struct lr_game *g, const void *st, const int32_t *legal, int count,
                       const double *weights, mr_pcg64 *rng, lr_work *w);
} lr_game;

/* The operations of a game; features: append the territory features to the observation. */
void lr_moonriver(lr_game *g, const mr_config *cfg, int features);
void lr_kingdomino(lr_game *g, const void *kd_params, int features);

/* --- the search -------------------------------------------------------------------------- */
typedef struct {
    int k;             /* candidates (the k best by the prior); 0: the raw policy */
    int r;             /* determinizations a candidate is played through */
    int depth;         /* decisions played after the next reveal before the leaf value */
    int max_depth;     /* at most this many decisions in a rollout */
    int leaves;        /* values averaged along a rollout: at depth, 2 depth, ... leaves x depth
                          decisions after the next reveal (1: the one leaf at depth) */
    float rollout_temp; /* the rollouts' policy: 0 its argmax, else sampled at this temperature */
    float tau;         /* the prior: softmax(the value of each move's afterstate / tau); the
                          improved policy: softmax(log prior + (Q - max Q) / tau) */
    float opponent_temp; /* the rollouts' moves of the seats other than the deciding one:
                            sampled at this temperature (0: their argmax); negative: at
                            rollout_temp, as the deciding seat's */
} lr_settings;

typedef struct {
    int count, action, searched; /* searched: 0 when one legal action or the raw policy */
    int32_t legal[LR_MAX_LEGAL];
    float prior[LR_MAX_LEGAL], q[LR_MAX_LEGAL], pi[LR_MAX_LEGAL];
    float value, chosen_q; /* the root's value; Q of the action played (the value when none) */
    int64_t evals;         /* network evaluations */
} lr_result;


int lr_work_init(lr_work *w, const lr_game *g);
void lr_work_free(lr_work *w);

/* Searches st for its acting seat (st is not changed); sample: draw the move from pi (else
 * the best Q, or the prior's argmax without search). 0, or -1 when an interrupt stopped it
 * (lr_stopped: out holds no decision). */
int lr_search(const lr_game *g, const lr_net *net, const void *st, const lr_settings *s,
              int sample, mr_pcg64 *rng, lr_work *w, lr_result *out);
/* lr_search where the caller has listed st's legal actions in out->legal and out->count. */
int lr_search_listed(const lr_game *g, const lr_net *net, const void *st, const lr_settings *s,
                     int sample, mr_pcg64 *rng, lr_work *w, lr_result *out);

/* --- self-play ----------------------------------------------------------------------------- */
/* Rows of sparse observations (CSR): row i's non-zero entries are idx/val[off[i] .. off[i+1]). */
typedef struct {
    int64_t rows, nnz, cap_rows, cap_nnz;
    int64_t *off; /* rows + 1 */
    int16_t *idx; /* nnz */
    float *val;   /* nnz */
} lr_sparse;

/* Appends obs's non-zero entries (of size) as a row of m; 0, or -1 when memory ran out. */
int lr_sparse_add_row(lr_sparse *m, const float *obs, int size);
/* Frees m's arrays (m itself is the caller's). */
void lr_sparse_free(lr_sparse *m);

/* Growing arrays of positions: decisions with more than one legal action, each kept with
 * probability keep and seen from one seat (seat[]: the actor half the time, else another
 * seat; pi is NaN then: no policy target). A position seen by its actor may also keep the
 * observation of each legal move's afterstate (on one determinization, for the actor):
 * positions' aft_off[i] .. aft_off[i+1] index rows of aft, one per legal action in order
 * (none: an empty range). */
typedef struct {
    int64_t positions, legal_total, games;
    int64_t cap_pos, cap_legal;
    int32_t *game;   /* positions */
    int8_t *seat;    /* positions */
    lr_sparse obs;   /* a row per position */
    int64_t *legal_off; /* positions + 1 */
    int16_t *legal_id;  /* legal_total */
    float *pi;          /* legal_total: the policy target */
    float *q, *z, *target; /* positions: search value, outcome, TD(lambda) target */
    int16_t *chosen;       /* positions: the move played, its index in the position's legal
                              actions (-1: seen from another seat than the actor's) */
    int64_t *aft_off;      /* positions + 1: rows of aft */
    lr_sparse aft;         /* the afterstates' observations */
    float *outcomes;       /* games x n */
    int32_t *lengths;      /* games: decisions played */
    int64_t evals;
} lr_buffer;

void lr_buffer_free(lr_buffer *b);

typedef struct {
    lr_settings search;
    int teacher;       /* 1: the game's teacher plays (a warm start) */
    int explore;       /* decisions of a game drawn from pi; argmax afterwards */
    float lambda;      /* TD(lambda) over each seat's search values */
    float keep;        /* share of the decisions recorded (drawn at random) */
    float afterstates; /* share of the actor's recorded positions that keep their afterstates */
    float teacher_temp; /* the teacher's policy target: 0 its move (one-hot), else the softmax
                           of its values / teacher_temp */
    unsigned mark;      /* lr_interrupts() when the call began: a later interrupt stops it */
} lr_selfplay_settings;

/* Plays games games (game i set up with seed + i) and appends their positions to out; 0, -1
 * when memory ran out, or -2 when an interrupt stopped it (out then only to be freed). */
int lr_selfplay(const lr_game *g, const lr_net *net, int games, uint64_t seed,
                const lr_selfplay_settings *s, const double *teacher_weights, lr_buffer *out);

#endif
