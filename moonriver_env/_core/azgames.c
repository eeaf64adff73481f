/* The two games as lr_game operations (learn.h): Moon River (moonriver.h) and Kingdomino
 * (kingdomino.h). The outcome both share (the value the network learns, -1 .. 1): half the win,
 * 2 x share - 1 (share: 1/k for k tied winners, as the tournaments count it), and half the
 * points, tanh(margin / LR_MARGIN_POINTS) with margin = the seat's points - the best other
 * seat's: a dense signal beside the sparse one. */
#include <math.h>
#include <string.h>

#define MR_AGENT_INTERNAL
#define MR_RULES_INTERNAL
#include "kingdomino.h"
#include "learn.h"

_Static_assert(LR_MAX_LEGAL >= MR_MAX_ACTIONS && LR_MAX_LEGAL >= KD_MAX_LEGAL,
               "a game's legal list must fit the search's buffers");

/* A seat's territory features (LR_FEATURES_PER_SEAT floats) of a game's state. */
typedef void (*seat_features)(const void *params, const void *st, int seat, float *f);

/* After the encoder's observation: every seat's features, the observer's first. */
static void append_features(const lr_game *g, const void *st, int seat, float *out,
                            seat_features fill) {
    float *f = out + g->encoder_size;
    memset(f, 0, sizeof(float) * LR_FEATURES);
    for (int i = 0; i < g->n; i++) {
        fill(g->params, st, (seat + i) % g->n, f + i * LR_FEATURES_PER_SEAT);
    }
}

/* The fields every game's table shares: its sizes (with or without the features) and its
 * operations, prefix##_op_<name>. */
#define GAME_TABLE(prefix, enc_size, features)                                               \
    .obs_size = (enc_size) + ((features) ? LR_FEATURES : 0), .encoder_size = (enc_size),       \
    .with_features = (features), .legal = prefix##_op_legal, .apply = prefix##_op_apply,      \
    .seat = prefix##_op_seat, .over = prefix##_op_over, .reveals = prefix##_op_reveals,       \
    .encode = prefix##_op_encode, .outcome = prefix##_op_outcome,                             \
    .redetermine = prefix##_op_redetermine, .new_game = prefix##_op_new_game,                 \
    .teacher = prefix##_op_teacher

/* --- Moon River -------------------------------------------------------------------------- */
#define MR_CFG(g) ((const mr_config *)(g)->params)

static int mr_op_legal(const lr_game *g, const void *st, int32_t *out) {
    int16_t legal[MR_MAX_ACTIONS];
    int count = mr_legal(MR_CFG(g), (const mr_state *)st, legal);
    for (int i = 0; i < count; i++) {
        out[i] = legal[i];
    }
    return count;
}

static void mr_op_apply(const lr_game *g, void *st, int32_t a) { mr_apply(MR_CFG(g), st, a); }
static int mr_op_seat(const void *st) { return ((const mr_state *)st)->seat; }
static int mr_op_over(const void *st) { return ((const mr_state *)st)->phase == PH_GAME_OVER; }
static int mr_op_reveals(const void *st) { return -((const mr_state *)st)->pile_len; }

/* Moon River's territory features of one seat (LR_FEATURES_PER_SEAT): per landscape, its
 * largest territory (/16), the most a territory of it scores now (size x its herd, /40), its
 * cows (/10) and the empty cells beside its territories that hold cows (their room to grow,
 * /16); then the ranch's empty cells (/25) and the empty cells no domino can fill (no empty
 * neighbour, /5). */
static void mr_seat_features(const void *params, const void *state, int s, float *f) {
    const mr_config *cfg = params;
    const mr_state *st = state;
    uint64_t empty = cfg->full & ~st->occ[s];
    for (int L = 0; L < MR_NUM_LANDS; L++) {
        uint64_t land = st->land_bb[s][L], left = land, room = 0;
        int largest = 0, best = 0, cows = 0;
        while (left) {
            uint64_t t = flood(cfg, left & -left, land);
            left &= ~t;
            int size = popcount64(t), herd = 0;
            for (uint64_t c = t & st->cow_bb[s]; c; c &= c - 1) {
                herd += st->cows[s][lowbit(c)];
            }
            largest = size > largest ? size : largest;
            best = size * herd > best ? size * herd : best;
            cows += herd;
            if (herd) {
                room |= nbrs(cfg, t) & empty;
            }
        }
        f[4 * L] = (float)largest / 16.0f;
        f[4 * L + 1] = (float)best / 40.0f;
        f[4 * L + 2] = (float)cows / 10.0f;
        f[4 * L + 3] = (float)popcount64(room) / 16.0f;
    }
    int lonely = 0;
    for (uint64_t e = empty; e; e &= e - 1) {
        lonely += !(nbrs(cfg, e & -e) & empty);
    }
    f[24] = (float)popcount64(empty) / 25.0f;
    f[25] = (float)lonely / 5.0f;
}

static void mr_op_encode(const lr_game *g, const void *st, int seat, float *out) {
    mr_encode(MR_CFG(g), (const mr_state *)st, seat, out);
    if (g->with_features) {
        append_features(g, st, seat, out, mr_seat_features);
    }
}

#define LR_MARGIN_POINTS 20.0


static void share_outcome(int n, int winners, const int *points, double *out) {
    int k = __builtin_popcount((unsigned)winners);
    for (int s = 0; s < n; s++) {
        int best = -1000000;
        for (int o = 0; o < n; o++) {
            if (o != s && points[o] > best) {
                best = points[o];
            }
        }
        double win = (winners >> s & 1) ? 2.0 / k - 1.0 : -1.0;
        out[s] = 0.5 * win + 0.5 * tanh((points[s] - best) / LR_MARGIN_POINTS);
    }
}

static void mr_op_outcome(const lr_game *g, const void *st, double *out) {
    mr_breakdown sc[MR_MAX_PLAYERS];
    int points[MR_MAX_PLAYERS];
    for (int s = 0; s < g->n; s++) {
        mr_score(MR_CFG(g), (const mr_state *)st, s, &sc[s]);
        points[s] = sc[s].total;
    }
    share_outcome(g->n, mr_winners(MR_CFG(g), sc), points, out);
}

static void mr_op_redetermine(const lr_game *g, void *st, mr_pcg64 *rng) {
    (void)g;
    mr_redetermine((mr_state *)st, rng);
}

static void mr_op_new_game(const lr_game *g, void *st, uint64_t seed) {
    mr_new_game(MR_CFG(g), (mr_state *)st, seed);
}

/* The heuristic agent (agents/heuristic.py): one determinization, the one-ply values of every
 * legal action, the best (ties drawn). */
static int32_t mr_op_teacher(const lr_game *g, const void *st, const int32_t *legal, int count,
                             const double *weights, mr_pcg64 *rng, lr_work *w) {
    memcpy(w->det, st, sizeof(mr_state));
    mr_redetermine((mr_state *)w->det, rng);
    int acts[LR_MAX_LEGAL];
    for (int i = 0; i < count; i++) {
        acts[i] = legal[i];
    }
    mr_action_values(MR_CFG(g), (const mr_state *)w->det, acts, count, weights,
                     (mr_state *)w->sim, w->values);
    double best = w->values[0];
    for (int i = 1; i < count; i++) {
        best = w->values[i] > best ? w->values[i] : best;
    }
    int top[LR_MAX_LEGAL], ntop = 0;
    for (int i = 0; i < count; i++) {
        if (w->values[i] >= best - 1e-9) {
            top[ntop++] = i;
        }
    }
    if (ntop == 0) { /* every value NaN (no comparison holds): the first, never top[0] unset */
        return legal[0];
    }
    return legal[ntop > 1 ? top[mr_integers(rng, (uint64_t)ntop)] : top[0]];
}

void lr_moonriver(lr_game *g, const mr_config *cfg, int features) {
    *g = (lr_game){.params = cfg, .n = cfg->n, .num_actions = cfg->num_actions,
                   .state_size = sizeof(mr_state), GAME_TABLE(mr, cfg->obs_size, features)};
}

/* --- Kingdomino ---------------------------------------------------------------------------- */
#define KD_P(g) ((const KdParams *)(g)->params)

static int kd_op_legal(const lr_game *g, const void *st, int32_t *out) {
    return kd_legal(KD_P(g), (const KdGame *)st, out);
}

static void kd_op_apply(const lr_game *g, void *st, int32_t a) { kd_apply(KD_P(g), st, a); }
static int kd_op_seat(const void *st) { return ((const KdGame *)st)->seat; }
static int kd_op_over(const void *st) { return ((const KdGame *)st)->phase == KD_GAME_OVER; }
static int kd_op_reveals(const void *st) { return -((const KdGame *)st)->pile_len; }

/* Kingdomino's territory features of one seat: per landscape, its largest territory (/10),
 * the most a territory of it scores (size x crowns, /20), its crowns (/5) and its squares (/10);
 * then the kingdom's empty squares within reach (/25) and its points so far (/100). */
static void kd_seat_features(const void *params, const void *state, int s, float *f) {
    const KdParams *p = params;
    const KdGame *g = state;
    Territories t;
    int count = kd_territories(p, g, s, &t);
    int largest[6] = {0}, best[6] = {0}, crowns[6] = {0}, squares[6] = {0};
    int seen[KD_MAX_CELLS];
    memset(seen, 0, sizeof(int) * (size_t)(count > 0 ? count : 1));
    for (int cell = 0; cell < p->cells; cell++) {
        int id = t.label[cell], land = g->land[s][cell];
        if (id < 0 || land < 0 || land >= 6 || seen[id]) {
            continue;
        }
        seen[id] = 1;
        int size = t.squares[id], c = t.crowns[id];
        largest[land] = size > largest[land] ? size : largest[land];
        best[land] = size * c > best[land] ? size * c : best[land];
        crowns[land] += c;
        squares[land] += size;
    }
    for (int L = 0; L < 6; L++) {
        f[4 * L] = (float)largest[L] / 10.0f;
        f[4 * L + 1] = (float)best[L] / 20.0f;
        f[4 * L + 2] = (float)crowns[L] / 5.0f;
        f[4 * L + 3] = (float)squares[L] / 10.0f;
    }
    int32_t points, big;
    kd_score(p, g, s, &points, &big);
    f[24] = (float)(p->size * p->size - g->occupied[s]) / 25.0f;
    f[25] = (float)points / 100.0f;
}

static void kd_op_encode(const lr_game *g, const void *st, int seat, float *out) {
    kd_encode(KD_P(g), (const KdGame *)st, seat, out);
    if (g->with_features) {
        append_features(g, st, seat, out, kd_seat_features);
    }
}

static void kd_op_outcome(const lr_game *g, const void *st, double *out) {
    int winners = 0, points[KD_MAX_SEATS];
    for (int s = 0; s < g->n; s++) {
        winners |= (kd_outcome(KD_P(g), (const KdGame *)st, s, KD_WIN) > 0.0) << s;
        int32_t pts, largest;
        kd_rank_key(KD_P(g), (const KdGame *)st, s, &pts, &largest);
        points[s] = pts;
    }
    share_outcome(g->n, winners, points, out);
}

static void kd_op_redetermine(const lr_game *g, void *st, mr_pcg64 *rng) {
    (void)g;
    kd_redetermine((KdGame *)st, rng);
}

static void kd_op_new_game(const lr_game *g, void *st, uint64_t seed) {
    kd_new_game(KD_P(g), (KdGame *)st, seed);
}

/* The greedy agent (kingdomino/agents/greedy.py). */
static int32_t kd_op_teacher(const lr_game *g, const void *st, const int32_t *legal, int count,
                             const double *weights, mr_pcg64 *rng, lr_work *w) {
    (void)weights;
    return kd_greedy_action(KD_P(g), (const KdGame *)st, legal, count, rng, w->values);
}

void lr_kingdomino(lr_game *g, const void *kd_params, int features) {
    const KdParams *p = kd_params;
    *g = (lr_game){.params = p, .n = p->n, .num_actions = p->num_actions,
                   .state_size = sizeof(KdGame), GAME_TABLE(kd, p->obs_size, features)};
}
