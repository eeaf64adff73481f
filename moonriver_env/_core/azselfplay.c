/* Self-play (learn.h): whole games played in the core by the search (or, for a warm start, by
 * the game's teacher), each decision with more than one legal action kept as a position: the
 * acting seat's observation (its non-zero entries), the legal actions with the policy target
 * (the search's improved policy; the teacher's move), the search's value of the move played,
 * the seat's outcome and its TD(lambda) target over its own later search values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"

void lr_sparse_free(lr_sparse *m) {
    free(m->off);
    free(m->idx);
    free(m->val);
}

void lr_buffer_free(lr_buffer *b) {
    free(b->game);
    free(b->seat);
    lr_sparse_free(&b->obs);
    free(b->legal_off);
    free(b->legal_id);
    free(b->pi);
    free(b->q);
    free(b->z);
    free(b->target);
    free(b->chosen);
    free(b->aft_off);
    lr_sparse_free(&b->aft);
    free(b->outcomes);
    free(b->lengths);
    memset(b, 0, sizeof *b);
}

static int resize(void **p, int64_t count, size_t item) {
    void *q = realloc(*p, (size_t)count * item);
    if (!q) {
        return -1;
    }
    *p = q;
    return 0;
}

/* The capacity, doubled from cap (or first) until it holds need. */
static int64_t doubled(int64_t cap, int64_t need, int64_t first) {
    int64_t c = cap ? cap : first;
    while (c < need) {
        c *= 2;
    }
    return c;
}

int lr_sparse_add_row(lr_sparse *m, const float *obs, int size) {
    int nnz = 0;
    for (int i = 0; i < size; i++) {
        nnz += obs[i] != 0.0f;
    }
    if (m->rows + 1 > m->cap_rows) {
        int64_t c = doubled(m->cap_rows, m->rows + 1, 4096);
        if (resize((void **)&m->off, c + 1, sizeof(int64_t)) < 0) {
            return -1;
        }
        m->cap_rows = c;
    }
    if (m->nnz + nnz > m->cap_nnz) {
        int64_t c = doubled(m->cap_nnz, m->nnz + nnz, 1 << 20);
        if (resize((void **)&m->idx, c, sizeof(int16_t)) < 0 ||
            resize((void **)&m->val, c, sizeof(float)) < 0) {
            return -1;
        }
        m->cap_nnz = c;
    }
    if (m->rows == 0) {
        m->off[0] = 0;
    }
    int64_t o = m->nnz;
    for (int i = 0; i < size; i++) {
        if (obs[i] != 0.0f) {
            m->idx[o] = (int16_t)i;
            m->val[o++] = obs[i];
        }
    }
    m->nnz = o;
    m->off[++m->rows] = o;
    return 0;
}

/* Room for one more position with count legal actions. */
static int reserve(lr_buffer *b, int count) {
    if (b->positions + 1 > b->cap_pos) {
        int64_t c = doubled(b->cap_pos, b->positions + 1, 4096);
        if (resize((void **)&b->game, c, sizeof(int32_t)) < 0 ||
            resize((void **)&b->seat, c, sizeof(int8_t)) < 0 ||
            resize((void **)&b->q, c, sizeof(float)) < 0 ||
            resize((void **)&b->z, c, sizeof(float)) < 0 ||
            resize((void **)&b->target, c, sizeof(float)) < 0 ||
            resize((void **)&b->chosen, c, sizeof(int16_t)) < 0 ||
            resize((void **)&b->legal_off, c + 1, sizeof(int64_t)) < 0 ||
            resize((void **)&b->aft_off, c + 1, sizeof(int64_t)) < 0) {
            return -1;
        }
        b->cap_pos = c;
    }
    if (b->legal_total + count > b->cap_legal) {
        int64_t c = doubled(b->cap_legal, b->legal_total + count, 1 << 16);
        if (resize((void **)&b->legal_id, c, sizeof(int16_t)) < 0 ||
            resize((void **)&b->pi, c, sizeof(float)) < 0) {
            return -1;
        }
        b->cap_legal = c;
    }
    return 0;
}

/* Keeps a position of st seen from seat (its observation in w->obs); with afterstates, also
 * each legal move's afterstate seen from seat, on one determinization of st. chosen: the
 * index in r->legal of the move played (-1: seen from another seat). */
static int keep(const lr_game *g, lr_buffer *b, int game, int seat, const void *st,
                const lr_result *r, float q, const float *pi, int chosen, int afterstates,
                mr_pcg64 *rng, lr_work *w) {
    if (reserve(b, r->count) < 0) {
        return -1;
    }
    int64_t p = b->positions;
    if (p == 0) {
        b->legal_off[0] = 0;
        b->aft_off[0] = b->aft.rows;
    }
    g->encode(g, st, seat, w->obs);
    if (lr_sparse_add_row(&b->obs, w->obs, g->obs_size) < 0) {
        return -1;
    }
    b->game[p] = game;
    b->seat[p] = (int8_t)seat;
    b->q[p] = q;
    b->chosen[p] = (int16_t)chosen;
    b->z[p] = b->target[p] = 0.0f;
    int64_t l = b->legal_total;
    for (int i = 0; i < r->count; i++) {
        b->legal_id[l + i] = (int16_t)r->legal[i];
        b->pi[l + i] = pi[i];
    }
    b->legal_total = l + r->count;
    b->legal_off[p + 1] = b->legal_total;
    if (afterstates) {
        memcpy(w->det, st, g->state_size);
        g->redetermine(g, w->det, rng);
        for (int i = 0; i < r->count; i++) {
            memcpy(w->after, w->det, g->state_size);
            g->apply(g, w->after, r->legal[i]);
            g->encode(g, w->after, seat, w->obs);
            if (lr_sparse_add_row(&b->aft, w->obs, g->obs_size) < 0) {
                return -1;
            }
        }
    }
    b->aft_off[p + 1] = b->aft.rows;
    b->positions = p + 1;
    return 0;
}

/* One game's decisions as self-play goes: the acting seat, the search's value of its move
 * (NaN: none, a teacher's move or a forced one) and the buffer row recorded at it (-1: none). */
typedef struct {
    int count, cap;
    int8_t *actor;
    float *q;
    int64_t *row;
} decisions;

static int note_decision(decisions *d, int actor, float q, int64_t row) {
    if (d->count == d->cap) {
        int cap = d->cap ? 2 * d->cap : 512;
        int8_t *a = realloc(d->actor, (size_t)cap);
        if (a) d->actor = a;
        float *q2 = realloc(d->q, sizeof(float) * (size_t)cap);
        if (q2) d->q = q2;
        int64_t *r = realloc(d->row, sizeof(int64_t) * (size_t)cap);
        if (r) d->row = r;
        if (!a || !q2 || !r) return -1;
        d->cap = cap;
    }
    d->actor[d->count] = (int8_t)actor;
    d->q[d->count] = q;
    d->row[d->count++] = row;
    return 0;
}

/* The outcome z and the TD(lambda) target of each row recorded in the game: for its observer
 * s, G = the outcome, then back over s's own decisions G <- (1 - lambda) q + lambda G (those
 * with a search value); a row's target is G as it stands at its decision (its own q included
 * when s was the actor). */
static void finish_game(lr_buffer *b, const decisions *d, const double *outcome, int n,
                        float lambda) {
    for (int s = 0; s < n; s++) {
        float next = (float)outcome[s];
        for (int i = d->count - 1; i >= 0; i--) {
            if (d->actor[i] == s && !isnan(d->q[i])) {
                next = (1.0f - lambda) * d->q[i] + lambda * next;
            }
            int64_t p = d->row[i];
            if (p >= 0 && b->seat[p] == s) {
                b->z[p] = (float)outcome[s];
                b->target[p] = next;
            }
        }
    }
}

/* The teacher's policy target at a decision where it played a: its move (one-hot), or with
 * temp > 0 the softmax of its values / temp (values: NULL at a forced move). */
static void teacher_target(lr_result *r, int32_t a, const double *values, float temp) {
    if (temp <= 0.0f || !values) {
        for (int i = 0; i < r->count; i++) {
            r->pi[i] = r->legal[i] == a ? 1.0f : 0.0f;
        }
        return;
    }
    double best = values[0], sum = 0.0;
    for (int i = 1; i < r->count; i++) {
        best = values[i] > best ? values[i] : best;
    }
    for (int i = 0; i < r->count; i++) {
        double e = exp((values[i] - best) / temp);
        r->pi[i] = (float)e;
        sum += e;
    }
    for (int i = 0; i < r->count; i++) {
        r->pi[i] = (float)(r->pi[i] / sum);
    }
}

/* The seat whose view a decision of actor is recorded from: the actor with probability
 * 1/2, else another seat (so the value also learns positions where others are to move: the
 * afterstates it scores). */
static int observer(int actor, int n, mr_pcg64 *rng) {
    if (mr_integers(rng, 2) == 0) {
        return actor;
    }
    return (actor + 1 + (int)mr_integers(rng, (uint64_t)(n - 1))) % n;
}

int lr_selfplay(const lr_game *g, const lr_net *net, int games, uint64_t seed,
                const lr_selfplay_settings *s, const double *teacher_weights, lr_buffer *out) {
    lr_work w;
    lr_result *r = malloc(sizeof *r);
    float *none = malloc(sizeof(float) * LR_MAX_LEGAL);
    void *st = malloc(g->state_size);
    decisions dec = {0};
    int64_t g0 = out->games;
    float *grown_out = realloc(out->outcomes, sizeof(float) * (size_t)(g0 + games) * g->n);
    if (grown_out) {
        out->outcomes = grown_out;
    }
    int32_t *grown_len = realloc(out->lengths, sizeof(int32_t) * (size_t)(g0 + games));
    if (grown_len) {
        out->lengths = grown_len;
    }
    if (!r || !st || !none || !grown_out || !grown_len || lr_work_init(&w, g) < 0) {
        free(r);
        free(st);
        free(none);
        return -1;
    }
    w.mark = s->mark; /* an interrupt since the call began stops the games */
    for (int i = 0; i < LR_MAX_LEGAL; i++) {
        none[i] = NAN; /* no policy target: a row seen from another seat than the actor's */
    }
    mr_pcg64 rng;
    mr_pcg64_seed(&rng, seed ^ 0x9e3779b97f4a7c15ull);
    int failed = 0; /* 1: memory ran out; 2: interrupted */
    for (int game = 0; game < games && !failed; game++) {
        g->new_game(g, st, seed + (uint64_t)game);
        dec.count = 0;
        int decisions_played = 0;
        while (!g->over(st)) {
            if (lr_stopped(&w)) {
                failed = 2;
                break;
            }
            int seat = g->seat(st);
            int32_t a;
            float q = NAN;
            r->count = g->legal(g, st, r->legal); /* listed once: the search reads them */
            if (s->teacher) {
                a = r->count == 1 ? r->legal[0]
                                  : g->teacher(g, st, r->legal, r->count, teacher_weights, &rng, &w);
                teacher_target(r, a, r->count > 1 ? w.values : NULL, s->teacher_temp);
            } else if (r->count == 1) {
                a = r->legal[0]; /* a forced move: nothing to search, nothing kept */
            } else {
                if (lr_search_listed(g, net, st, &s->search, decisions_played < s->explore, &rng,
                                     &w, r) < 0) {
                    failed = 2;
                    break;
                }
                out->evals += r->evals;
                a = r->action;
                q = r->chosen_q;
            }
            int64_t row = -1;
            if (r->count > 1 && mr_random(&rng) < s->keep) {
                int o = observer(seat, g->n, &rng);
                int with_after = o == seat && mr_random(&rng) < s->afterstates;
                const float *pi = o == seat ? r->pi : none;
                int chosen = -1;
                for (int i = 0; o == seat && i < r->count; i++) {
                    chosen = r->legal[i] == a ? i : chosen;
                }
                row = out->positions;
                failed = keep(g, out, (int)(g0 + game), o, st, r, q, pi, chosen, with_after, &rng,
                              &w) < 0;
            }
            failed = failed || note_decision(&dec, seat, q, row) < 0;
            g->apply(g, st, a);
            decisions_played++;
            if (failed) {
                break;
            }
        }
        double outcome[LR_MAX_SEATS] = {0};
        if (!failed) {
            g->outcome(g, st, outcome);
            finish_game(out, &dec, outcome, g->n, s->lambda);
        }
        for (int i = 0; i < g->n; i++) {
            out->outcomes[(g0 + game) * g->n + i] = (float)outcome[i];
        }
        out->lengths[g0 + game] = decisions_played;
        out->games = g0 + game + 1;
    }
    lr_work_free(&w);
    free(dec.actor);
    free(dec.q);
    free(dec.row);
    free(r);
    free(none);
    free(st);
    return failed ? -failed : 0;
}
