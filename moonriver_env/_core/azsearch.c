/* The learned agent's search and self-play (learn.h). A decision: the network's prior over
 * the legal actions (softmax of each move's afterstate value / tau); its k best candidates are each played on r determinizations (the hidden
 * pieces re-dealt, the same r deals and rollout noise for every candidate), every seat then
 * moving by the network's policy (the other seats at their own temperature when
 * opponent_temp is set) until `leaves` x `depth` decisions after the next reveal (at
 * most max_depth), and scored by the mean of the network's values for the deciding seat every
 * `depth` decisions after that reveal (the outcome when the game ended). Every choice and
 * every value comes from the network. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"

static atomic_uint interrupts; /* lr_interrupt's count (lock-free: safe in a signal handler) */

void lr_interrupt(void) {
    atomic_fetch_add_explicit(&interrupts, 1u, memory_order_relaxed);
}

unsigned lr_interrupts(void) {
    return atomic_load_explicit(&interrupts, memory_order_relaxed);
}

int lr_stopped(lr_work *w) {
    if (!w->stopped && lr_interrupts() != w->mark) {
        w->stopped = 1;
    }
    return w->stopped;
}

/* With LR_CHECK_SUMS (the sanitizer build of tests/vector/test_sanitizers.py), every first
 * layer the search computes incrementally is checked against the full computation: a base that
 * is not the observation its sums belong to aborts. */
#ifdef LR_CHECK_SUMS
#include <stdio.h>
/* Aborts unless the incremental sums h1 are the full ones (what: which sums, for the message). */
static void sums_agree(const lr_net *net, const float *full, const float *h1, const char *what) {
    for (int j = 0; j < net->h1; j++) {
        if (fabsf(full[j] - h1[j]) > 1e-3f * (1.0f + fabsf(full[j]))) {
            fprintf(stderr, "azsearch: incremental %s %d is %g, in full %g\n", what, j, h1[j],
                    full[j]);
            abort();
        }
    }
}
static void check_sums(const lr_net *net, const float *x, const float *h1) {
    float full[LR_MAX_H1];
    lr_layer1(net, x, full);
    sums_agree(net, full, h1, "sum");
}
#else
#define check_sums(net, x, h1) ((void)0)
#endif

int lr_work_init(lr_work *w, const lr_game *g) {
    memset(w, 0, sizeof *w);
    w->mark = lr_interrupts();
    w->root = malloc(g->state_size);
    w->det = malloc(g->state_size);
    w->sim = malloc(g->state_size);
    w->after = malloc(g->state_size);
    w->obs = malloc(sizeof(float) * (size_t)g->obs_size);
    w->base = malloc(sizeof(float) * (size_t)g->obs_size);
    w->best = malloc(sizeof(float) * (size_t)g->obs_size);
    int ok = w->root && w->det && w->sim && w->after && w->obs && w->base && w->best;
    for (int p = 0; p < LR_MAX_SEATS; p++) {
        w->seen_obs[p] = malloc(sizeof(float) * (size_t)g->obs_size);
        w->first_obs[p] = malloc(sizeof(float) * (size_t)g->obs_size);
        ok = ok && w->seen_obs[p] && w->first_obs[p];
    }
    if (!ok) {
        lr_work_free(w);
        return -1;
    }
    return 0;
}

void lr_work_free(lr_work *w) {
    free(w->root);
    free(w->det);
    free(w->sim);
    free(w->after);
    free(w->obs);
    free(w->base);
    free(w->best);
    for (int p = 0; p < LR_MAX_SEATS; p++) {
        free(w->seen_obs[p]);
        free(w->first_obs[p]);
    }
    memset(w, 0, sizeof *w);
}

/* The index drawn from softmax(logits / temp) over count entries. */
static int sample_softmax(const float *logits, int count, float temp, mr_pcg64 *rng) {
    float top = logits[0];
    for (int i = 1; i < count; i++) {
        top = logits[i] > top ? logits[i] : top;
    }
    double p[LR_MAX_LEGAL], total = 0.0;
    for (int i = 0; i < count; i++) {
        p[i] = exp((double)(logits[i] - top) / temp);
        total += p[i];
    }
    double u = mr_random(rng) * total;
    for (int i = 0; i < count; i++) {
        u -= p[i];
        if (u < 0.0) {
            return i;
        }
    }
    return count - 1;
}

static int argmax(const float *v, int count) {
    int best = 0;
    for (int i = 1; i < count; i++) {
        if (v[i] > v[best]) {
            best = i;
        }
    }
    return best;
}

/* The value for seat of st after action a (st a determinization): the outcome when the game
 * ends there (kept = 0), else the network's, its first layer from the observation base of
 * seat with sums h1_base; the afterstate's observation and sums stay in w->obs and w->h1
 * (kept = 1). Counts evaluations. */
static float afterstate_value(const lr_game *g, const lr_net *net, const void *st, int32_t a,
                              int seat, const float *base, const float *h1_base, lr_work *w,
                              int64_t *evals, int *kept) {
    memcpy(w->after, st, g->state_size);
    g->apply(g, w->after, a);
    if (g->over(w->after)) {
        double o[LR_MAX_SEATS];
        g->outcome(g, w->after, o);
        *kept = 0;
        return (float)o[seat];
    }
    g->encode(g, w->after, seat, w->obs);
    lr_layer1_delta(net, base, h1_base, w->obs, w->h1);
    check_sums(net, w->obs, w->h1);
    (*evals)++;
    *kept = 1;
    return lr_head(net, w->h1, w->h2);
}

/* The network's logits of the count legal actions (in legal) of st for its acting seat: each
 * afterstate's value for that seat / tau (st must be a determinization: applying a move may
 * turn up hidden pieces). Counts evaluations. The afterstates' first-layer sums are updated
 * from the observation for that seat the caller has put in w->base (w->h1_base its sums; any
 * observation of the seat serves: every entry that differs is added). */
static void move_logits(const lr_game *g, const lr_net *net, const void *st, const int32_t *legal,
                        int count, const lr_settings *s, lr_work *w, float *out, int64_t *evals) {
    int seat = g->seat(st);
    for (int i = 0; i < count; i++) {
        int kept;
        out[i] = afterstate_value(g, net, st, legal[i], seat, w->base, w->h1_base, w, evals,
                                  &kept) / s->tau;
    }
}

/* The first-layer sums of observation x for seat into h1, from the rollout's base of that seat
 * (any observation of the seat serves: every entry that differs is added), else in full, which
 * then becomes the seat's base (and the search's, for the rollouts after, when it has none). */
static void rollout_layer1(const lr_game *g, const lr_net *net, int seat, const float *x,
                           float *h1, lr_work *w) {
    if (w->seen[seat]) {
        lr_layer1_delta(net, w->seen_obs[seat], w->seen_h1[seat], x, h1);
        check_sums(net, x, h1);
        return;
    }
    size_t bytes = sizeof(float) * (size_t)g->obs_size, sums = sizeof(float) * (size_t)net->h1;
    lr_layer1(net, x, h1);
    memcpy(w->seen_obs[seat], x, bytes);
    memcpy(w->seen_h1[seat], h1, sums);
    w->seen[seat] = 1;
    if (!w->first[seat]) {
        memcpy(w->first_obs[seat], x, bytes);
        memcpy(w->first_h1[seat], h1, sums);
        w->first[seat] = 1;
    }
}

/* A rollout starts from the search's bases: no drift of the sums from one rollout to the next. */
static void rollout_bases(const lr_game *g, const lr_net *net, lr_work *w) {
    for (int p = 0; p < g->n; p++) {
        w->seen[p] = w->first[p];
        if (w->first[p]) {
            memcpy(w->seen_obs[p], w->first_obs[p], sizeof(float) * (size_t)g->obs_size);
            memcpy(w->seen_h1[p], w->first_h1[p], sizeof(float) * (size_t)net->h1);
        }
    }
}

/* The network's move for st's acting seat among its count legal actions (in w->legal), in a
 * rollout. Each afterstate's sums come from the seat's rollout base (not from st's own
 * observation: one encoding and one full first layer fewer a decision); with the argmax the
 * afterstate played becomes the seat's base (the next decision's afterstates differ from it in
 * a few entries). */
static int32_t policy_move(const lr_game *g, const lr_net *net, const void *st, int count,
                           const lr_settings *s, mr_pcg64 *rng, lr_work *w, int64_t *evals) {
    float temp = s->rollout_temp;
    int seat = g->seat(st);
    if (!w->seen[seat]) {
        g->encode(g, st, seat, w->obs);
        rollout_layer1(g, net, seat, w->obs, w->h1, w);
    }
    int lead = -1, lead_kept = 0; /* the argmax so far; whether w->best holds its afterstate */
    for (int i = 0; i < count; i++) {
        int kept;
        float v = afterstate_value(g, net, st, w->legal[i], seat, w->seen_obs[seat],
                                   w->seen_h1[seat], w, evals, &kept);
        w->logits[i] = v / s->tau;
        if (temp <= 0.0f && (lead < 0 || w->logits[i] > w->logits[lead])) {
            lead = i; /* argmax's rule: the first of the largest */
            lead_kept = kept;
            if (kept) {
                float *t = w->best;
                w->best = w->obs;
                w->obs = t;
                memcpy(w->best_h1, w->h1, sizeof(float) * (size_t)net->h1);
            }
        }
    }
    if (temp > 0.0f) {
        return w->legal[sample_softmax(w->logits, count, temp, rng)];
    }
    if (lead_kept) { /* the state the move leads to, observed by the seat: its new base */
        float *t = w->seen_obs[seat];
        w->seen_obs[seat] = w->best;
        w->best = t;
        memcpy(w->seen_h1[seat], w->best_h1, sizeof(float) * (size_t)net->h1);
    }
    return w->legal[lead];
}

/* The value of sim for seat: the outcome when the game has ended, else the network's. */
static float leaf_value(const lr_game *g, const lr_net *net, const void *sim, int seat,
                        lr_work *w, int64_t *evals) {
    if (g->over(sim)) {
        double out[LR_MAX_SEATS];
        g->outcome(g, sim, out);
        return (float)out[seat];
    }
    g->encode(g, sim, seat, w->obs);
    (*evals)++;
    rollout_layer1(g, net, seat, w->obs, w->h1, w);
    return lr_head(net, w->h1, w->h2);
}

/* Plays sim on by the network's policy; returns its value for seat, the mean of the values at
 * depth, 2 depth, ... leaves x depth decisions after the next reveal (where the game ends or
 * max_depth stops the rollout first, its value there counts for every leaf not reached), and
 * counts evaluations. */
static float rollout(const lr_game *g, const lr_net *net, void *sim, int seat, int reveals,
                     const lr_settings *s, mr_pcg64 *rng, lr_work *w, int64_t *evals) {
    int after = -1, taken = 0; /* after: decisions since the next reveal; taken: leaves */
    double total = 0.0;
    lr_settings others = *s; /* the other seats' moves: sampled at opponent_temp when set */
    if (s->opponent_temp >= 0.0f) {
        others.rollout_temp = s->opponent_temp;
    }
    rollout_bases(g, net, w);
    for (int played = 0; played < s->max_depth && !g->over(sim); played++) {
        if (lr_stopped(w)) {
            return 0.0f; /* the search is abandoned (lr_search_listed) */
        }
        if (after < 0 && g->reveals(sim) > reveals) {
            after = 0;
        }
        while (after >= 0 && taken < s->leaves && after >= s->depth * (taken + 1)) {
            total += leaf_value(g, net, sim, seat, w, evals);
            taken++;
        }
        if (taken == s->leaves) {
            return (float)(total / s->leaves);
        }
        after += after >= 0;
        int count = g->legal(g, sim, w->legal);
        int32_t a = w->legal[0];
        if (count > 1) {
            a = policy_move(g, net, sim, count, g->seat(sim) == seat ? s : &others, rng, w, evals);
        }
        g->apply(g, sim, a);
    }
    float last = leaf_value(g, net, sim, seat, w, evals);
    return (float)((total + (double)(s->leaves - taken) * last) / s->leaves);
}

int lr_search(const lr_game *g, const lr_net *net, const void *st, const lr_settings *s,
              int sample, mr_pcg64 *rng, lr_work *w, lr_result *out) {
    out->count = g->legal(g, st, out->legal);
    return lr_search_listed(g, net, st, s, sample, rng, w, out);
}

int lr_search_listed(const lr_game *g, const lr_net *net, const void *st, const lr_settings *s,
                     int sample, mr_pcg64 *rng, lr_work *w, lr_result *out) {
    int seat = g->seat(st);
    int count = out->count;
    memset(w->first, 0, sizeof w->first); /* the search's bases: none yet */
    out->searched = 0;
    out->evals = 1;
    g->encode(g, st, seat, w->base); /* the root's sums: its value and the afterstates' base */
    lr_layer1(net, w->base, w->h1_base);
    out->value = lr_head(net, w->h1_base, w->h2);
    memcpy(w->det, st, g->state_size); /* the prior on one determinization: nothing leaks */
    g->redetermine(g, w->det, rng);
    move_logits(g, net, w->det, out->legal, count, s, w, w->logits, &out->evals);
    float top = w->logits[argmax(w->logits, count)];
    double total = 0.0;
    for (int i = 0; i < count; i++) {
        total += exp((double)(w->logits[i] - top));
    }
    for (int i = 0; i < count; i++) {
        out->prior[i] = (float)(exp((double)(w->logits[i] - top)) / total);
        out->q[i] = out->value;
        out->pi[i] = out->prior[i];
    }
    int k = s->k < count ? s->k : count;
    if (k > LR_MAX_CANDS) {
        k = LR_MAX_CANDS;
    }
    if (count == 1 || k <= 0 || s->r <= 0) {
        int i = sample ? sample_softmax(w->logits, count, 1.0f, rng) : argmax(w->logits, count);
        out->action = out->legal[i];
        out->chosen_q = w->logits[i] * s->tau; /* its afterstate's value (TD over afterstates) */
        return 0;
    }
    /* the k best by the prior (ties: the lower index) */
    int cand[LR_MAX_CANDS];
    char taken[LR_MAX_LEGAL] = {0};
    for (int j = 0; j < k; j++) {
        int best = -1;
        for (int i = 0; i < count; i++) {
            if (!taken[i] && (best < 0 || out->prior[i] > out->prior[best])) {
                best = i;
            }
        }
        taken[best] = 1;
        cand[j] = best;
    }
    double sum[LR_MAX_CANDS] = {0};
    int reveals = g->reveals(st);
    for (int d = 0; d < s->r; d++) {
        if (lr_stopped(w)) {
            return -1;
        }
        memcpy(w->det, st, g->state_size);
        g->redetermine(g, w->det, rng);
        uint64_t noise = mr_next_uint64(rng);
        for (int j = 0; j < k; j++) {
            mr_pcg64 crn; /* the same rollout noise for every candidate */
            mr_pcg64_seed(&crn, noise);
            memcpy(w->sim, w->det, g->state_size);
            g->apply(g, w->sim, out->legal[cand[j]]);
            sum[j] += rollout(g, net, w->sim, seat, reveals, s, &crn, w, &out->evals);
        }
    }
    if (lr_stopped(w)) {
        return -1;
    }
    out->searched = 1;
    float qmax = -2.0f;
    for (int j = 0; j < k; j++) {
        float q = (float)(sum[j] / s->r);
        out->q[cand[j]] = q;
        qmax = q > qmax ? q : qmax;
    }
    /* pi: softmax(log prior + (Q - max Q) / tau) over the candidates, 0 elsewhere */
    double z[LR_MAX_CANDS], zt = 0.0;
    for (int j = 0; j < k; j++) {
        int i = cand[j];
        z[j] = (double)out->prior[i] * exp((double)(out->q[i] - qmax) / s->tau);
        zt += z[j];
    }
    float pil[LR_MAX_LEGAL];
    for (int i = 0; i < count; i++) {
        out->pi[i] = 0.0f;
    }
    for (int j = 0; j < k; j++) {
        out->pi[cand[j]] = (float)(z[j] / zt);
    }
    int pick;
    if (sample) {
        for (int j = 0; j < k; j++) {
            pil[j] = (float)log(z[j] / zt + 1e-30);
        }
        pick = cand[sample_softmax(pil, k, 1.0f, rng)];
    } else { /* the best Q; ties: the better prior (the earlier candidate) */
        pick = cand[0];
        for (int j = 1; j < k; j++) {
            if (out->q[cand[j]] > out->q[pick]) {
                pick = cand[j];
            }
        }
    }
    out->action = out->legal[pick];
    out->chosen_q = out->q[pick];
    return 0;
}
