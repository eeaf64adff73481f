/* The search agents' evaluation in the core: the leaf evaluation of agents/evaluation.py
 * (Evaluator.seat_value) and the rule-based effect choices of agents/rollout.py, operation
 * for operation so that the floating-point values are the Python ones. The rollouts, the
 * simulation of agents/search.py and the agents' leaves that use them are in rollout.c. */
#include <math.h>
#include <string.h>

#define MR_AGENT_INTERNAL
#include "moonriver.h"

/* --- shared helpers ------------------------------------------------------------------------ */

uint64_t mr_flood(const mr_config *cfg, uint64_t seed, uint64_t within) {
    uint64_t region = seed;
    for (;;) {
        uint64_t grown = (region | nbrs(cfg, region)) & within;
        if (grown == region) {
            return region;
        }
        region = grown;
    }
}

static int seg_of(const mr_config *cfg, int a) {
    int seg = MR_NUM_SEGMENTS - 1;
    while (seg > 0 && (cfg->seg_start[seg] < 0 || a < cfg->seg_start[seg])) {
        seg--;
    }
    return seg;
}

void mr_make_context(const mr_config *cfg, const mr_state *st, context *ctx) {
    memset(ctx, 0, sizeof *ctx);
    for (int i = 0; i < st->pile_len; i++) {
        int k = st->pile[i], lk = cfg->land[k];
        ctx->unseen_land[lk]++;
        ctx->unseen_cows[lk] += cfg->cowsym[k];
        ctx->unseen_gold += cfg->gold[k];
        ctx->unseen_beaver += cfg->beaver[k];
        ctx->unseen_corn += cfg->corn[k];
    }
    int tokens = 0;
    for (int i = 0; i < cfg->saloon_size; i++) {
        tokens += st->saloon[i] >= 0;
    }
    ctx->tokens = tokens + st->stack_len;
    ctx->n = cfg->n;
    ctx->share = 1.0 / cfg->n;
    ctx->frac = (double)st->pile_len / cfg->num_plots;
}

/* pipeline(): held plots, then claimed plots of the current and the next column. */
static int pipeline(const mr_config *cfg, const mr_state *st, int seat, int *out) {
    int len = 0;
    for (int i = 0; i < st->held_len[seat]; i++) {
        out[len++] = st->held[seat][i];
    }
    for (int p = 0; p < cfg->column_size; p++) {
        if (st->cur_claim[p] == seat && st->cur_col[p] >= 0) {
            out[len++] = st->cur_col[p];
        }
    }
    for (int p = 0; p < cfg->column_size; p++) {
        if (st->next_claim[p] == seat && st->next_col[p] >= 0) {
            out[len++] = st->next_col[p];
        }
    }
    return len;
}

/* --- Evaluator.seat_value ------------------------------------------------------------------ */
typedef struct {
    double c;
    int s, front;
    uint64_t t;
} terr;

double mr_seat_value(const mr_config *cfg, const mr_state *st, int seat, const context *ctx,
                     const weights *w) {
    const uint64_t *land_bb = st->land_bb[seat];
    uint64_t cow_bb = st->cow_bb[seat], partner_bb = st->partner_bb[seat];
    const int8_t *cows = st->cows[seat];
    uint64_t empty = cfg->full & ~st->occ[seat];
    double share = ctx->share;
    int pipe[MR_MAX_HELD + 2 * MR_MAX_COLUMN];
    int plen = pipeline(cfg, st, seat, pipe);
    int p_land[MR_NUM_LANDS] = {0}, p_cows[MR_NUM_LANDS] = {0};
    int p_gold = 0, p_beaver = 0, p_corn = 0, p_circles = 0, p_skulls = 0;
    for (int i = 0; i < plen; i++) {
        int k = pipe[i], lk = cfg->land[k];
        p_land[lk]++;
        p_cows[lk] += cfg->cowsym[k];
        p_gold += cfg->gold[k];
        p_beaver += cfg->beaver[k];
        p_corn += cfg->corn[k];
        p_circles += cfg->circle[k];
        p_skulls += cfg->skull[k];
    }
    int p_res = p_gold + p_beaver + p_corn;
    uint64_t fillable = 0;
    int odd = 0;
    for (uint64_t rest = empty; rest;) {
        uint64_t r = mr_flood(cfg, rest & -rest, rest);
        rest &= ~r;
        int size = popc(r);
        if (size > 1) {
            fillable |= r;
        }
        if (size & 1) {
            odd++;
        }
    }
    double frac = ctx->frac;
    double spread = w->spread_w * frac;
    int scen = st->scenario;
    double value = 0.0, risk = 0.0;
    static const int lands[5] = {LAND_DESERT, LAND_CANYON, LAND_MEADOW, LAND_FOREST, LAND_FARM};
    for (int li = 0; li < 5; li++) {
        int lk = lands[li];
        uint64_t mask = land_bb[lk];
        double exp_plots = p_land[lk] + share * ctx->unseen_land[lk];
        double exp_cows =
            w->pipe_cow_w * p_cows[lk] + w->unseen_cow_w * share * ctx->unseen_cows[lk];
        int scen_terr = (scen == 3 && lk == LAND_FARM) || (scen == 0 && lk == LAND_FOREST);
        if (!mask) {
            if (exp_cows != 0.0) {
                value += 2.0 * exp_cows;
            }
            continue;
        }
        terr terrs[MR_MAX_CELLS];
        int nt = 0;
        for (uint64_t rest = mask; rest;) {
            uint64_t t = mr_flood(cfg, rest & -rest, rest);
            rest &= ~t;
            int s = popc(t);
            uint64_t herd = t & cow_bb;
            double c = 0.0;
            if (herd) {
                int ncells = popc(herd), total = 0;
                for (uint64_t h = herd; h; h &= h - 1) {
                    total += cows[low(h)];
                }
                c = ncells + spread * (total - ncells);
                if (!(t & partner_bb)) {
                    risk += s * ncells;
                }
            }
            int front = popc(nbrs(cfg, t) & fillable);
            /* sorted by (-c, -s), stable: insert after every entry that ranks first or ties */
            int at = nt;
            while (at > 0 && (terrs[at - 1].c < c || (terrs[at - 1].c == c && terrs[at - 1].s < s))) {
                terrs[at] = terrs[at - 1];
                at--;
            }
            terrs[at].c = c;
            terrs[at].s = s;
            terrs[at].front = front;
            terrs[at].t = t;
            nt++;
        }
        double left = exp_plots, best_size = 0.0;
        for (int i = 0; i < nt; i++) {
            double grow = 0.0;
            if (left > 0) {
                grow = left < terrs[i].front ? left : (double)terrs[i].front;
            }
            left -= grow;
            double proj = terrs[i].s + w->grow_w * grow;
            value += terrs[i].c * proj;
            if (terrs[i].front && proj > best_size) {
                best_size = proj;
            }
            if (scen_terr && (lk == LAND_FARM || (terrs[i].t & cfg->river)) && terrs[i].s + grow >= 3) {
                value += 10.0 * w->grow_w * grow;
            }
        }
        value += exp_cows * (best_size != 0.0 ? best_size : 2.0);
    }
    int pts[4];
    mr_points(cfg, st, seat, pts);
    value += pts[1] + pts[2] + pts[3];
    value += w->pipe_res_w * p_res;
    for (uint64_t pb = partner_bb; pb; pb &= pb - 1) {
        int code = st->partners[seat][low(pb)];
        if (code & 1) {
            continue;
        }
        int kind = code / 2;
        if (kind == PK_GOLD_DIGGER) {
            value += p_gold + share * ctx->unseen_gold;
        } else if (kind == PK_TRAPPER) {
            value += p_beaver + share * ctx->unseen_beaver;
        } else if (kind == PK_FARMER) {
            value += p_corn + share * ctx->unseen_corn;
        }
    }
    if (ctx->tokens) {
        value += w->circle_w * p_circles;
    }
    value -= w->skull_w * p_skulls;
    value -= w->waste_w * odd;
    value -= w->theft_w * frac * risk;
    return value;
}

/* --- the rule-based choices ------------------------------------------------------------------ */
static uint64_t territory(const mr_config *cfg, const mr_state *st, int seat, int cell) {
    int k = st->kinds[seat][cell];
    if (k < 0) {
        return 0;
    }
    return mr_flood(cfg, 1ull << cell, st->land_bb[seat][cfg->land[k]]);
}

static int cow_territories(const mr_config *cfg, const mr_state *st, int seat, int *sizes,
                           uint64_t *ts) {
    static const int lands[5] = {LAND_DESERT, LAND_CANYON, LAND_MEADOW, LAND_FOREST, LAND_FARM};
    int nt = 0;
    for (int li = 0; li < 5; li++) {
        for (uint64_t rest = st->land_bb[seat][lands[li]]; rest;) {
            uint64_t t = mr_flood(cfg, rest & -rest, rest);
            rest &= ~t;
            int s = popc(t), at = nt;
            while (at > 0 && sizes[at - 1] < s) { /* stable sort by -size */
                sizes[at] = sizes[at - 1];
                ts[at] = ts[at - 1];
                at--;
            }
            sizes[at] = s;
            ts[at] = t;
            nt++;
        }
    }
    return nt;
}

static double plan_cowboy(const mr_config *cfg, const mr_state *st, int seat, int moves,
                          int *best_action) {
    uint64_t cow_bb = st->cow_bb[seat];
    *best_action = -1;
    if (!cow_bb || moves <= 0) {
        return 0.0;
    }
    int sizes[MR_MAX_CELLS];
    uint64_t ts[MR_MAX_CELLS];
    int nt = cow_territories(cfg, st, seat, sizes, ts);
    uint64_t walk = st->occ[seat] & ~st->land_bb[seat][LAND_CORNFIELD];
    uint64_t free_ = ~cow_bb;
    double best_gain = 0.5;
    for (uint64_t srcs = cow_bb; srcs; srcs &= srcs - 1) {
        int src = low(srcs);
        int loss = 0;
        if (st->cows[seat][src] == 1) {
            for (int i = 0; i < nt; i++) {
                if (ts[i] >> src & 1) {
                    loss = sizes[i];
                    break;
                }
            }
        }
        for (int d = 0; d < 4; d++) {
            if (!(cfg->src[d] >> src & 1)) {
                continue;
            }
            int y = src + cfg->delta[d];
            if (!(walk >> y & 1)) {
                continue;
            }
            uint64_t reach = 1ull << y;
            for (int k = 0; k < moves - 1; k++) {
                reach |= nbrs(cfg, reach) & walk;
            }
            uint64_t avail = reach & free_;
            for (int i = 0; i < nt; i++) {
                if (sizes[i] - loss <= best_gain) {
                    break;
                }
                if (ts[i] & avail) {
                    best_gain = sizes[i] - loss;
                    *best_action = cfg->seg_start[SEG_COWBOY_MOVE] +
                                   src * cfg->seg_stride[SEG_COWBOY_MOVE][0] +
                                   d * cfg->seg_stride[SEG_COWBOY_MOVE][1];
                    break;
                }
            }
        }
    }
    return best_gain;
}

/* (a, v) becomes the best so far if v beats best_v (the first of equal values stays). */
static inline void keep_best(int a, double v, int *best, double *best_v) {
    if (v > *best_v) {
        *best = a;
        *best_v = v;
    }
}

static int contains(const int16_t *legal, int count, int a) {
    for (int i = 0; i < count; i++) {
        if (legal[i] == a) {
            return 1;
        }
    }
    return 0;
}

static double plot_symbol_value(const mr_config *cfg, int k) {
    return cfg->gold[k] + cfg->beaver[k] + cfg->corn[k] + 3 * cfg->cowsym[k] +
           2 * cfg->circle[k] - 1.5 * cfg->skull[k];
}

static double best_steal_estimate(const mr_config *cfg, const mr_state *st, int seat, int cell) {
    int n = cfg->n;
    uint64_t my_t = territory(cfg, st, seat, cell);
    int gain = st->cows[seat][cell] == 0 ? popc(my_t) : 1;
    double best = 0.0;
    for (int t = 1; t < n; t++) {
        int victim = (seat + t) % n;
        uint64_t cows = st->cow_bb[victim];
        uint64_t unprot = cows ? cows & ~mr_protected(cfg, st, victim) : 0;
        for (; unprot; unprot &= unprot - 1) {
            int x = low(unprot);
            int loss = st->cows[victim][x] == 1 ? popc(territory(cfg, st, victim, x)) : 1;
            if (loss > best) {
                best = loss;
            }
        }
    }
    return best != 0.0 ? best + gain : 0.0;
}

/* --- the greedy agent's keys (moonriver/agents/greedy.py) ----------------------------------- */
/* Its tie-break of action a in st: a placement's same-landscape neighbours (+2 a side joining
 * a territory with cows, +0.5 for one landscape), stop -1, a claim its plot's symbols, a steal
 * the cow's worth to both owners, anything else 0. */
static double greedy_tiebreak(const mr_config *cfg, const mr_state *st, int a) {
    int seat = st->seat, seg = seg_of(cfg, a), x = a - cfg->seg_start[seg];
    const int *s = cfg->seg_stride[seg];
    if (seg == SEG_PLACE) {
        int pair = x / s[0], cell = x % s[0] / s[1], d = x % s[1] / s[2];
        int other = cell + cfg->delta[d];
        int la = cfg->land[st->held[seat][cfg->pair_i[pair]]];
        int lb = cfg->land[st->held[seat][cfg->pair_j[pair]]];
        const uint64_t *bb = st->land_bb[seat];
        double v = la == lb ? 0.5 : 0.0;
        int xs[2] = {cell, other}, ys[2] = {other, cell}, ls[2] = {la, lb};
        for (int q = 0; q < 2; q++) {
            uint64_t nb = nbrs(cfg, 1ull << xs[q]) & ~(1ull << ys[q]) & bb[ls[q]];
            v += popc(nb);
            if (nb && (mr_flood(cfg, nb, bb[ls[q]]) & st->cow_bb[seat])) {
                v += 2.0;
            }
        }
        return v;
    }
    if (seg == SEG_STOP) {
        return -1.0;
    }
    if (seg == SEG_CLAIM) {
        const int8_t *col = st->phase == PH_SETUP_CLAIM ? st->cur_col : st->next_col;
        int k = col[x / s[0]];
        return cfg->gold[k] + cfg->beaver[k] + cfg->corn[k] + 2 * cfg->cowsym[k] +
               cfg->circle[k] - cfg->skull[k];
    }
    if (seg == SEG_THIEF_STEAL) {
        int victim = (seat + 1 + x / s[0]) % cfg->n, cell = x % s[0] / s[1]; /* target_seat */
        int eff = st->effect_cell;
        int loss = st->cows[victim][cell] == 1 ? popc(territory(cfg, st, victim, cell)) : 1;
        int gain = st->cows[seat][eff] == 0 ? popc(territory(cfg, st, seat, eff)) : 1;
        return (double)loss + gain;
    }
    return 0.0;
}

void mr_greedy_keys(const mr_config *cfg, const mr_state *det, const int *actions, int count,
                    mr_state *sim, double *gain, double *tiebreak) {
    int seat = det->seat, before = mr_total(cfg, det, seat);
    for (int j = 0; j < count; j++) {
        *sim = *det;
        mr_apply(cfg, sim, actions[j]);
        gain[j] = (double)(mr_total(cfg, sim, seat) - before);
        tiebreak[j] = greedy_tiebreak(cfg, det, actions[j]);
    }
}

int mr_effect_choice(const mr_config *cfg, const mr_state *st, const context *ctx,
                     const int16_t *legal, int count) {
    int seat = st->seat, n = cfg->n;
    switch (st->phase) {
    case PH_COWBOY: {
        int a;
        plan_cowboy(cfg, st, seat, st->cowboy_moves, &a);
        if (a >= 0 && contains(legal, count, a)) {
            return a;
        }
        return cfg->seg_start[SEG_COWBOY_STOP];
    }
    case PH_RECRUIT: {
        int gold = 0, beaver = 0, corn = 0;
        for (int c = 0; c < cfg->cells; c++) {
            int k = st->kinds[seat][c];
            if (k >= 0 && k < cfg->num_plot_kinds) {
                gold += cfg->gold[k];
                beaver += cfg->beaver[k];
                corn += cfg->corn[k];
            }
        }
        int pipe[MR_MAX_HELD + 2 * MR_MAX_COLUMN];
        int plen = pipeline(cfg, st, seat, pipe);
        for (int i = 0; i < plen; i++) {
            gold += cfg->gold[pipe[i]];
            beaver += cfg->beaver[pipe[i]];
            corn += cfg->corn[pipe[i]];
        }
        double gold_f = gold + ctx->share * ctx->unseen_gold;
        double beaver_f = beaver + ctx->share * ctx->unseen_beaver;
        double corn_f = corn + ctx->share * ctx->unseen_corn;
        int have_cowboy = 0;
        double cowboy_v = 0.0;
        int best = -1;
        double best_v = 0.0;
        const int *s = cfg->seg_stride[SEG_RECRUIT];
        for (int i = 0; i < count; i++) {
            int x = legal[i] - cfg->seg_start[SEG_RECRUIT];
            int circle = x / s[0], slot = x % s[0] / s[1], side = x % s[1] / s[2];
            int token = st->saloon[slot];
            int cell = st->piece[circle];
            double v;
            if (side) {
                if (!have_cowboy) {
                    int unused;
                    cowboy_v = plan_cowboy(cfg, st, seat, 3, &unused);
                    have_cowboy = 1;
                }
                v = cowboy_v;
            } else if (token == PK_GOLD_DIGGER) {
                v = gold_f;
            } else if (token == PK_TRAPPER) {
                v = beaver_f;
            } else if (token == PK_FARMER) {
                v = corn_f;
            } else if (token == PK_CATTLE_THIEF) {
                v = 0.0;
                if (cfg->land[st->kinds[seat][cell]] != LAND_CORNFIELD) {
                    v = best_steal_estimate(cfg, st, seat, cell);
                }
            } else {
                v = 0.5;
            }
            v = v - 0.01 * circle;
            /* max by (value, -action): the first of the highest values (legal is ascending) */
            if (best < 0 || v > best_v) {
                best = legal[i];
                best_v = v;
            }
        }
        return best;
    }
    case PH_SKULL: {
        int best = -1, best_cows = -1;
        for (int i = 0; i < count; i++) {
            int cell = (legal[i] - cfg->seg_start[SEG_SKULL]) / cfg->seg_stride[SEG_SKULL][0];
            if (st->cows[seat][cell] > best_cows) {
                best = legal[i];
                best_cows = st->cows[seat][cell];
            }
        }
        return best;
    }
    case PH_THIEF: {
        int best = legal[count - 1];
        double best_v = 0.0;
        int totals[MR_MAX_PLAYERS];
        int have_totals = 0;
        const int *s = cfg->seg_stride[SEG_THIEF_STEAL];
        for (int i = 0; i < count - 1; i++) {
            int x = legal[i] - cfg->seg_start[SEG_THIEF_STEAL];
            int t = x / s[0], cell = x % s[0] / s[1];
            int victim = (seat + 1 + t) % n;
            double loss =
                st->cows[victim][cell] == 1 ? popc(territory(cfg, st, victim, cell)) : 1;
            int eff = st->effect_cell;
            int gain = st->cows[seat][eff] == 0 ? popc(territory(cfg, st, seat, eff)) : 1;
            if (n > 2) {
                if (!have_totals) {
                    for (int q = 0; q < n; q++) {
                        totals[q] = mr_total(cfg, st, q);
                    }
                    have_totals = 1;
                }
                int top = -2147483647;
                for (int q = 0; q < n; q++) {
                    if (q != seat && totals[q] > top) {
                        top = totals[q];
                    }
                }
                if (totals[victim] == top) {
                    loss *= 1.5;
                }
            }
            double v = loss + gain;
            keep_best(legal[i], v, &best, &best_v);
        }
        return best;
    }
    case PH_DESPERADO: {
        int best = cfg->seg_start[SEG_DESPERADO_SKIP];
        double best_v = 1.0;
        const int *s = cfg->seg_stride[SEG_DESPERADO_SWAP];
        for (int i = 0; i < count; i++) {
            if (seg_of(cfg, legal[i]) != SEG_DESPERADO_SWAP) {
                continue;
            }
            int x = legal[i] - cfg->seg_start[SEG_DESPERADO_SWAP];
            int own = x / s[0], t = x % s[0] / s[1], theirs = x % s[1] / s[2];
            int other = (seat + 1 + t) % n;
            double v = plot_symbol_value(cfg, st->held[other][theirs]) -
                       plot_symbol_value(cfg, st->held[seat][own]);
            keep_best(legal[i], v, &best, &best_v);
        }
        return best;
    }
    case PH_BONUS: {
        int best = -1;
        double best_v = -1.0;
        const int *s = cfg->seg_stride[SEG_BONUS_PLACE];
        for (int i = 0; i < count; i++) {
            double v;
            if (seg_of(cfg, legal[i]) == SEG_BONUS_REMOVE) {
                v = -0.5;
            } else {
                int x = legal[i] - cfg->seg_start[SEG_BONUS_PLACE];
                int tile = x / s[0], side = x % s[0] / s[1], cell = x % s[1] / s[2];
                int lk = cfg->land[cfg->num_plot_kinds + 2 * tile + side];
                uint64_t t =
                    mr_flood(cfg, 1ull << cell, st->land_bb[seat][lk] | (1ull << cell));
                v = popc(t) * (1 + popc(t & st->cow_bb[seat]));
            }
            keep_best(legal[i], v, &best, &best_v);
        }
        return best;
    }
    case PH_DISCARD: {
        int best = -1;
        double best_v = INFINITY;
        for (int i = 0; i < count; i++) {
            int pair = (legal[i] - cfg->seg_start[SEG_DISCARD]) / cfg->seg_stride[SEG_DISCARD][0];
            double v = plot_symbol_value(cfg, st->held[seat][cfg->pair_i[pair]]) +
                       plot_symbol_value(cfg, st->held[seat][cfg->pair_j[pair]]);
            if (v < best_v) {
                best = legal[i];
                best_v = v;
            }
        }
        return best;
    }
    default:
        return legal[0];
    }
}
