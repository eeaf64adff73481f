/* The search agents' rollouts in the core (moonriver.h): CPython's random.Random noise, the
 * light heuristic rollout policy of agents/rollout.py, SearchAgent.simulate and leaf_values
 * (agents/search.py), the trained agent's leaves and the heuristic agent's one-ply values,
 * on the evaluation and the rule-based choices of agent.c. */
#include <math.h>
#include <string.h>

#define MR_AGENT_INTERNAL
#include "moonriver.h"

/* --- CPython's random.Random ----------------------------------------------------------- */
#define MT_N 624
#define MT_M 397
typedef struct {
    uint32_t mt[MT_N];
    int mti;
} mt19937;

static void mt_init_genrand(mt19937 *r, uint32_t s) {
    r->mt[0] = s;
    for (int i = 1; i < MT_N; i++) {
        r->mt[i] = 1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    }
    r->mti = MT_N;
}

static void mt_seed(mt19937 *r, uint64_t seed) {
    uint32_t key[2];
    int len = mr_seed_words(seed, key);
    mt_init_genrand(r, 19650218u);
    int i = 1, j = 0;
    for (int k = MT_N > len ? MT_N : len; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) + key[j] +
                   (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
        if (j >= len) {
            j = 0;
        }
    }
    for (int k = MT_N - 1; k; k--) {
        r->mt[i] = (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) -
                   (uint32_t)i;
        i++;
        if (i >= MT_N) {
            r->mt[0] = r->mt[MT_N - 1];
            i = 1;
        }
    }
    r->mt[0] = 0x80000000u;
}

static uint32_t mt_next(mt19937 *r) {
    static const uint32_t mag01[2] = {0x0u, 0x9908b0dfu};
    uint32_t y;
    if (r->mti >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (r->mt[kk] & 0x80000000u) | (r->mt[kk + 1] & 0x7fffffffu);
            r->mt[kk] = r->mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (r->mt[MT_N - 1] & 0x80000000u) | (r->mt[0] & 0x7fffffffu);
        r->mt[MT_N - 1] = r->mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 1u];
        r->mti = 0;
    }
    y = r->mt[r->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= (y >> 18);
    return y;
}

static double mt_random(mt19937 *r) {
    uint32_t a = mt_next(r) >> 5, b = mt_next(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* --- the light rollout policy (agents/rollout.py) ---------------------------------------------- */
static int light_place(const mr_config *cfg, const mr_state *st, const int16_t *legal, int count,
                       mt19937 *rnd) {
    int seat = st->seat;
    int stop = cfg->seg_start[SEG_STOP];
    const int8_t *held = st->held[seat];
    const uint64_t *bb = st->land_bb[seat];
    uint64_t cow_bb = st->cow_bb[seat];
    uint64_t empty = cfg->full & ~st->occ[seat];
    uint64_t herd[MR_NUM_LANDS] = {0};
    if (cow_bb) {
        for (int lk = 0; lk < MR_NUM_LANDS; lk++) {
            uint64_t seeds = cow_bb & bb[lk];
            if (seeds) {
                herd[lk] = mr_flood(cfg, seeds, bb[lk]);
            }
        }
    }
    const int *s = cfg->seg_stride[SEG_PLACE];
    int best_i = 0;
    double best = 0.0;
    for (int i = 0; i < count; i++) {
        double v;
        int a = legal[i];
        if (a == stop) {
            v = -1e9;
        } else {
            int x = a - cfg->seg_start[SEG_PLACE];
            int pair = x / s[0], cell = x % s[0] / s[1], d = x % s[1] / s[2];
            int other = cell + cfg->delta[d];
            int ka = held[cfg->pair_i[pair]], kb = held[cfg->pair_j[pair]];
            v = 0.0;
            int xs[2] = {cell, other}, ks[2] = {ka, kb};
            for (int q = 0; q < 2; q++) {
                int k = ks[q], lk = cfg->land[k];
                uint64_t nb = nbrs(cfg, 1ull << xs[q]) & bb[lk];
                double pv = (double)popc(nb);
                if (nb & herd[lk]) {
                    pv += 2.0 + 2.0 * cfg->cowsym[k];
                    if (cfg->skull[k]) {
                        pv -= 4.0;
                    }
                } else if (cfg->cowsym[k] && nb) {
                    pv += cfg->cowsym[k];
                }
                v += pv;
            }
            if (cfg->land[ka] == cfg->land[kb]) {
                v += 1.0;
            }
            uint64_t pairbits = (1ull << cell) | (1ull << other);
            uint64_t after = empty & ~pairbits;
            for (uint64_t z = nbrs(cfg, pairbits) & after; z; z &= z - 1) {
                if (!(nbrs(cfg, 1ull << low(z)) & after)) {
                    v -= 3.0;
                }
            }
            v += mt_random(rnd) * 0.5;
        }
        if (i == 0 || v > best) {
            best = v;
            best_i = i;
        }
    }
    if (legal[count - 1] == stop && best < 1.0) {
        return stop;
    }
    return legal[best_i];
}

static int light_claim(const mr_config *cfg, const mr_state *st, const int16_t *legal, int count,
                       mt19937 *rnd) {
    int seat = st->seat;
    const int8_t *col = st->phase == PH_SETUP_CLAIM ? st->cur_col : st->next_col;
    int best_i = 0;
    double best = 0.0;
    for (int i = 0; i < count; i++) {
        int p = (legal[i] - cfg->seg_start[SEG_CLAIM]) / cfg->seg_stride[SEG_CLAIM][0];
        int k = col[p];
        double v = 3.0 * cfg->cowsym[k] + cfg->gold[k] + cfg->beaver[k] + cfg->corn[k] +
                   1.5 * cfg->circle[k] - 1.5 * cfg->skull[k] +
                   (st->land_bb[seat][cfg->land[k]] ? 2.0 : 0.0) - 0.3 * p;
        v += mt_random(rnd);
        if (i == 0 || v > best) {
            best = v;
            best_i = i;
        }
    }
    return legal[best_i];
}

static int light_action(const mr_config *cfg, const mr_state *st, const context *ctx,
                        mt19937 *rnd, int16_t *legal) {
    int count = mr_legal(cfg, st, legal);
    if (count == 1) {
        return legal[0];
    }
    switch (st->phase) {
    case PH_EXPAND:
    case PH_MUST_EXPAND:
    case PH_FINAL_EXPAND:
        return light_place(cfg, st, legal, count, rnd);
    case PH_SETUP_CLAIM:
    case PH_SELECT:
        return light_claim(cfg, st, legal, count, rnd);
    default:
        return mr_effect_choice(cfg, st, ctx, legal, count);
    }
}

/* --- SearchAgent.simulate + leaf_values ---------------------------------------------------- */
static double final_margin(const mr_config *cfg, const mr_breakdown *sc, int seat) {
    int n = cfg->n, best = -1;
    for (int s = 0; s < n; s++) {
        if (s == seat) {
            continue;
        }
        if (best < 0 || sc[s].total > sc[best].total ||
            (sc[s].total == sc[best].total &&
             (sc[s].largest > sc[best].largest ||
              (sc[s].largest == sc[best].largest && sc[s].cows > sc[best].cows)))) {
            best = s;
        }
    }
    double margin = (double)(sc[seat].total - sc[best].total);
    if (margin == 0) {
        const mr_breakdown *a = &sc[seat], *b = &sc[best];
        int cmp = a->largest != b->largest ? (a->largest > b->largest ? 1 : -1)
                  : a->cows != b->cows     ? (a->cows > b->cows ? 1 : -1)
                                           : 0;
        margin = cmp > 0 ? 0.5 : (cmp < 0 ? -0.5 : 0.0);
    }
    return margin;
}

/* The opponents' reference value of agents.evaluation.rel_from_values: the one other seat's
 * value, else the mean of the best and the average of the others (summed in this order). */
static double opponents_value(const double *others, int m) {
    if (m == 1) {
        return others[0];
    }
    double top = others[0], sum = 0.0;
    for (int o = 0; o < m; o++) {
        if (others[o] > top) {
            top = others[o];
        }
        sum += others[o];
    }
    return 0.5 * (top + sum / m);
}

/* agents.evaluation.rel_from_values: seat's value less opp_w x its opponents'. */
static double relative_value(const double *vals, int n, int seat, double opp_w) {
    double others[MR_MAX_PLAYERS] = {0};
    int m = 0;
    for (int o = 0; o < n; o++) {
        if (o != seat) {
            others[m++] = vals[o];
        }
    }
    return vals[seat] - opp_w * opponents_value(others, m);
}

/* Every seat's Evaluator.seat_value of st, with st's own context. */
static void seat_values(const mr_config *cfg, const mr_state *st, const weights *w,
                        double *vals) {
    context ctx;
    mr_make_context(cfg, st, &ctx);
    for (int s = 0; s < cfg->n; s++) {
        vals[s] = mr_seat_value(cfg, st, s, &ctx, w);
    }
}

/* agents.rollout.rollout: plays st forward with the policy (0 random, 1 the light heuristic)
 * for depth decisions (0: to the end), the noise from random.Random(seed) and the context of
 * st as it starts. Returns the decisions played. */
static int play_out(const mr_config *cfg, mr_state *st, int policy, int depth, uint64_t seed) {
    mt19937 rnd;
    mt_seed(&rnd, seed);
    context ctx;
    mr_make_context(cfg, st, &ctx);
    int16_t legal[MR_MAX_ACTIONS];
    int played = 0;
    while (st->phase != PH_GAME_OVER && (depth <= 0 || played < depth)) {
        int a;
        if (policy == 1) {
            a = light_action(cfg, st, &ctx, &rnd, legal);
        } else {
            int count = mr_legal(cfg, st, legal);
            /* random.Random.randrange(count): _randbelow by getrandbits */
            int bits = 32 - __builtin_clz((unsigned)count);
            uint32_t r;
            do {
                r = mt_next(&rnd) >> (32 - bits);
            } while ((int)r >= count);
            a = legal[r];
        }
        mr_apply(cfg, st, a);
        played++;
    }
    return played;
}

int mr_simulate(const mr_config *cfg, mr_state *st, int policy, int depth, int value_mode,
                uint64_t seed, const double *wvec, double *values) {
    weights w;
    memcpy(&w, wvec, sizeof w);
    int played = play_out(cfg, st, policy, depth, seed);
    int n = cfg->n;
    if (st->phase == PH_GAME_OVER) {
        mr_breakdown sc[MR_MAX_PLAYERS];
        for (int s = 0; s < n; s++) {
            mr_score(cfg, st, s, &sc[s]);
        }
        for (int s = 0; s < n; s++) {
            double m = final_margin(cfg, sc, s);
            values[s] = value_mode ? (m > 0 ? 1.0 : (m < 0 ? -1.0 : 0.0)) : m;
        }
        return played;
    }
    double vals[MR_MAX_PLAYERS];
    seat_values(cfg, st, &w, vals);
    for (int s = 0; s < n; s++) {
        double rel = relative_value(vals, n, s, 1.0);
        values[s] = value_mode ? tanh(rel / 20.0) : rel;
    }
    return played;
}

/* --- the trained agent's leaves (agents/trained.py) ---------------------------------------- */
/* agents.evaluation.complete_effects: seat's pending effects (and forced discards) played
 * with the rule-based choices of the context ctx. */
static void complete_effects(const mr_config *cfg, mr_state *st, int seat, const context *ctx) {
    int16_t legal[MR_MAX_ACTIONS];
    for (int step = 0; step < 40; step++) {
        int ph = st->phase;
        int effect = ph == PH_SKULL || ph == PH_RECRUIT || ph == PH_COWBOY ||
                     ph == PH_DESPERADO || ph == PH_THIEF || ph == PH_BONUS || ph == PH_DISCARD;
        if (st->seat != seat || !effect) {
            return;
        }
        int count = mr_legal(cfg, st, legal);
        mr_apply(cfg, st, count == 1 ? legal[0] : mr_effect_choice(cfg, st, ctx, legal, count));
    }
}

int mr_value_leaf(const mr_config *cfg, mr_state *st, int seat, int action, int depth,
                  uint64_t seed, const double *wvec, float *row, double *margin) {
    weights w;
    memcpy(&w, wvec, sizeof w);
    context ctx; /* the decision's: a determinization keeps the public multisets */
    mr_make_context(cfg, st, &ctx);
    mr_apply(cfg, st, action);
    complete_effects(cfg, st, seat, &ctx);
    if (depth >= 0) {
        play_out(cfg, st, 1, depth, seed);
        if (st->phase == PH_GAME_OVER) {
            mr_breakdown sc[MR_MAX_PLAYERS];
            for (int s = 0; s < cfg->n; s++) {
                mr_score(cfg, st, s, &sc[s]);
            }
            *margin = final_margin(cfg, sc, seat);
            return 1;
        }
    }
    int n = cfg->n;
    double vals[MR_MAX_PLAYERS] = {0}, own[MR_MAX_PLAYERS] = {0};
    if (depth >= 0) {
        seat_values(cfg, st, &w, vals);
    } else {
        for (int s = 0; s < n; s++) {
            vals[s] = mr_seat_value(cfg, st, s, &ctx, &w);
        }
    }
    for (int i = 0; i < n; i++) {
        own[i] = vals[(seat + i) % n];
    }
    mr_encode(cfg, st, seat, row);
    float *block = row + cfg->obs_size;
    for (int i = 0; i < n; i++) {
        block[i] = (float)own[i];
    }
    block[n] = (float)(own[0] - w.opp_w * opponents_value(own + 1, n - 1));
    for (int i = 0; i <= n; i++) { /* float32 / EVAL_SCALE, as NumPy divides the row */
        block[i] = block[i] / 100.0f;
    }
    *margin = 0.0;
    return 0;
}

/* --- the heuristic agent's one-ply values (agents/heuristic.py) ---------------------------- */
void mr_action_values(const mr_config *cfg, const mr_state *det, const int *actions, int count,
                      const double *wvec, mr_state *sim, double *out) {
    weights w;
    memcpy(&w, wvec, sizeof w);
    context ctx; /* the decision's: a determinization keeps the public multisets */
    mr_make_context(cfg, det, &ctx);
    int seat = det->seat, n = cfg->n;
    int claim = det->phase == PH_SETUP_CLAIM || det->phase == PH_SELECT;
    for (int j = 0; j < count; j++) {
        *sim = *det;
        mr_apply(cfg, sim, actions[j]);
        complete_effects(cfg, sim, seat, &ctx);
        double vals[MR_MAX_PLAYERS] = {0};
        for (int s = 0; s < n; s++) {
            vals[s] = mr_seat_value(cfg, sim, s, &ctx, &w);
        }
        double v = relative_value(vals, n, seat, w.opp_w);
        if (claim) {
            int position = (actions[j] - cfg->seg_start[SEG_CLAIM]) / cfg->seg_stride[SEG_CLAIM][0];
            v += w.order_w * (cfg->column_size - 1 - position);
        }
        out[j] = v;
    }
}
