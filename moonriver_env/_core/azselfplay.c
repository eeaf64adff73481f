/* Self-play (learn.h): whole games played in the core by the search (or, for a warm start, by
 * the game's teacher), each decision with more than one legal action kept as a position: the
 * acting seat's observation (its non-zero entries), the legal actions with the policy target
 * (the search's improved policy; the teacher's move), the search's value of the move played,
 * the seat's outcome and its TD(lambda) target over its own later search values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "learn.h"

void lr_buffer_free(lr_buffer *b) {
    free(b->game);
    free(b->seat);
    free(b->obs_off);
    free(b->obs_idx);
    free(b->obs_val);
    free(b->legal_off);
    free(b->legal_id);
    free(b->pi);
    free(b->q);
    free(b->z);
    free(b->target);
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

/* Room for one more position with nnz entries and count legal actions. */
static int reserve(lr_buffer *b, int nnz, int count) {
    if (b->positions + 1 > b->cap_pos) {
        int64_t c = doubled(b->cap_pos, b->positions + 1, 4096);
        if (resize((void **)&b->game, c, sizeof(int32_t)) < 0 ||
            resize((void **)&b->seat, c, sizeof(int8_t)) < 0 ||
            resize((void **)&b->q, c, sizeof(float)) < 0 ||
            resize((void **)&b->z, c, sizeof(float)) < 0 ||
            resize((void **)&b->target, c, sizeof(float)) < 0 ||
            resize((void **)&b->obs_off, c + 1, sizeof(int64_t)) < 0 ||
            resize((void **)&b->legal_off, c + 1, sizeof(int64_t)) < 0) {
            return -1;
        }
        b->cap_pos = c;
    }
    if (b->nnz + nnz > b->cap_nnz) {
        int64_t c = doubled(b->cap_nnz, b->nnz + nnz, 1 << 20);
        if (resize((void **)&b->obs_idx, c, sizeof(int16_t)) < 0 ||
            resize((void **)&b->obs_val, c, sizeof(float)) < 0) {
            return -1;
        }
        b->cap_nnz = c;
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

static int keep(lr_buffer *b, int game, int seat, const float *obs, int obs_size,
                const lr_result *r, float q, const float *pi) {
    int nnz = 0;
    for (int i = 0; i < obs_size; i++) {
        nnz += obs[i] != 0.0f;
    }
    if (reserve(b, nnz, r->count) < 0) {
        return -1;
    }
    int64_t p = b->positions;
    if (p == 0) {
        b->obs_off[0] = 0;
        b->legal_off[0] = 0;
    }
    b->game[p] = game;
    b->seat[p] = (int8_t)seat;
    b->q[p] = q;
    b->z[p] = b->target[p] = 0.0f;
    int64_t o = b->nnz;
    for (int i = 0; i < obs_size; i++) {
        if (obs[i] != 0.0f) {
            b->obs_idx[o] = (int16_t)i;
            b->obs_val[o++] = obs[i];
        }
    }
    b->nnz = o;
    b->obs_off[p + 1] = o;
    int64_t l = b->legal_total;
    for (int i = 0; i < r->count; i++) {
        b->legal_id[l + i] = (int16_t)r->legal[i];
        b->pi[l + i] = pi[i];
    }
    b->legal_total = l + r->count;
    b->legal_off[p + 1] = b->legal_total;
    b->positions = p + 1;
    return 0;
}

/* The outcome and TD(lambda) targets of the positions first .. b->positions (one game). */
static void finish_game(lr_buffer *b, int64_t first, const double *outcome, int n, float lambda) {
    for (int s = 0; s < n; s++) {
        float next = (float)outcome[s];
        for (int64_t p = b->positions - 1; p >= first; p--) {
            if (b->seat[p] != s) {
                continue;
            }
            b->z[p] = (float)outcome[s];
            float q = b->q[p];
            next = isnan(q) ? next : (1.0f - lambda) * q + lambda * next;
            b->target[p] = next;
        }
    }
}

int lr_selfplay(const lr_game *g, const lr_net *net, int games, uint64_t seed,
                const lr_selfplay_settings *s, const double *teacher_weights, lr_buffer *out) {
    lr_work w;
    lr_result *r = malloc(sizeof *r);
    void *st = malloc(g->state_size);
    int64_t g0 = out->games;
    float *grown_out = realloc(out->outcomes, sizeof(float) * (size_t)(g0 + games) * g->n);
    if (grown_out) {
        out->outcomes = grown_out;
    }
    int32_t *grown_len = realloc(out->lengths, sizeof(int32_t) * (size_t)(g0 + games));
    if (grown_len) {
        out->lengths = grown_len;
    }
    if (!r || !st || !grown_out || !grown_len || lr_work_init(&w, g) < 0) {
        free(r);
        free(st);
        return -1;
    }
    mr_pcg64 rng;
    mr_pcg64_seed(&rng, seed ^ 0x9e3779b97f4a7c15ull);
    int failed = 0;
    for (int game = 0; game < games && !failed; game++) {
        g->new_game(g, st, seed + (uint64_t)game);
        int64_t first = out->positions;
        int decisions = 0;
        while (!g->over(st)) {
            int seat = g->seat(st);
            int32_t a;
            if (s->teacher) {
                r->count = g->legal(g, st, r->legal);
                a = r->count == 1 ? r->legal[0]
                                  : g->teacher(g, st, r->legal, r->count, teacher_weights, &rng, &w);
                if (r->count > 1) {
                    for (int i = 0; i < r->count; i++) {
                        r->pi[i] = r->legal[i] == a ? 1.0f : 0.0f;
                    }
                    g->encode(g, st, seat, w.obs);
                    failed = keep(out, (int)(g0 + game), seat, w.obs, g->obs_size, r, NAN, r->pi) < 0;
                }
            } else {
                lr_search(g, net, st, &s->search, decisions < s->explore, &rng, &w, r);
                out->evals += r->evals;
                a = r->action;
                if (r->count > 1) {
                    g->encode(g, st, seat, w.obs);
                    failed = keep(out, (int)(g0 + game), seat, w.obs, g->obs_size, r,
                                  r->chosen_q, r->pi) < 0;
                }
            }
            g->apply(g, st, a);
            decisions++;
            if (failed) {
                break;
            }
        }
        double outcome[LR_MAX_SEATS] = {0};
        if (!failed) {
            g->outcome(g, st, outcome);
            finish_game(out, first, outcome, g->n, s->lambda);
        }
        for (int i = 0; i < g->n; i++) {
            out->outcomes[(g0 + game) * g->n + i] = (float)outcome[i];
        }
        out->lengths[g0 + game] = decisions;
        out->games = g0 + game + 1;
    }
    lr_work_free(&w);
    free(r);
    free(st);
    return failed ? -1 : 0;
}
