/* Kingdomino search in the native core (kingdomino.h): the greedy values, playouts and the
 * Monte Carlo agent's loop of agents/kingdomino_agents.py, on the rules of kingdomino.c. */
#include "kingdomino.h"

#include <limits.h>
#include <string.h>

/* --- search: the greedy values and playouts of agents/kingdomino_agents.py -------------- */

/* The distinct territories of landscape `land` next to `cell`, added to labels. */
static void touching(const KdParams *p, const KdGame *g, int s, const Territories *t, int cell,
                     int land, int16_t *labels, int *count) {
    int side = p->side, r = cell / side, c = cell % side;
    int nb[4] = {r > 0 ? cell - side : -1, r < side - 1 ? cell + side : -1,
                 c > 0 ? cell - 1 : -1, c < side - 1 ? cell + 1 : -1};
    for (int k = 0; k < 4; k++) {
        if (nb[k] < 0 || g->land[s][nb[k]] != land) continue;
        int16_t lab = t->label[nb[k]];
        int known = 0;
        for (int i = 0; i < *count; i++) known |= labels[i] == lab;
        if (!known) labels[(*count)++] = lab;
    }
}

/* Squares x crowns of new squares joined to the territories in labels, less theirs before. */
static int joined_gain(const Territories *t, const int16_t *labels, int count, int squares,
                       int crowns) {
    int old = 0;
    for (int i = 0; i < count; i++) {
        squares += t->squares[labels[i]];
        crowns += t->crowns[labels[i]];
        old += t->squares[labels[i]] * t->crowns[labels[i]];
    }
    return squares * crowns - old;
}

static int outside_centre(const KdParams *p, int cell) {
    int mid = p->size - 1, half = (p->size - 1) / 2;
    int r = cell / p->side, c = cell % p->side;
    return r < mid - half || r > mid + half || c < mid - half || c > mid + half;
}

/* What placement_gains adds on top of the territories: the Harmony a placement completes
 * (+) and the Middle Kingdom it loses (-, applied per placement by `centre_at_risk`). */
typedef struct {
    int bonus, centre_at_risk;
} Bonuses;

static Bonuses placement_bonuses(const KdParams *p, const KdGame *g, int s) {
    Bonuses b;
    b.bonus = p->harmony && g->occupied[s] + 2 == p->size * p->size ? p->harmony_bonus : 0;
    b.centre_at_risk = p->middle && kd_centred(p, g, s);
    return b;
}

/* scoring.py placement_gain of placement a of domino d in seat s's kingdom. */
static int placement_gain(const KdParams *p, const KdGame *g, int s, const Territories *t,
                          Bonuses b, int d, int a) {
    int cell = a % p->cells, o = kd_other_cell(p, cell, a / p->cells), gain;
    int16_t labels[8];
    int count = 0;
    if (p->land1[d] == p->land2[d]) {
        touching(p, g, s, t, cell, p->land1[d], labels, &count);
        touching(p, g, s, t, o, p->land1[d], labels, &count);
        gain = joined_gain(t, labels, count, 2, p->crowns1[d] + p->crowns2[d]);
    } else {
        touching(p, g, s, t, cell, p->land1[d], labels, &count);
        gain = joined_gain(t, labels, count, 1, p->crowns1[d]);
        count = 0;
        touching(p, g, s, t, o, p->land2[d], labels, &count);
        gain += joined_gain(t, labels, count, 1, p->crowns2[d]);
    }
    if (b.centre_at_risk && (outside_centre(p, cell) || outside_centre(p, o)))
        gain -= p->middle_bonus;
    return gain + b.bonus;
}

/* best_gain: the largest gain of placing d (0 if it cannot be placed, or when discarding is
 * allowed and every placement loses points). */
static int best_gain(const KdParams *p, const KdGame *g, int s, const Territories *t, Bonuses b,
                     int d) {
    int32_t ids[4 * KD_MAX_CELLS];
    int k = kd_placements(p, g, s, d, ids), best = INT_MIN;
    for (int i = 0; i < k; i++) {
        int gain = placement_gain(p, g, s, t, b, d, ids[i]);
        if (gain > best) best = gain;
    }
    if (k == 0 || (!p->must_place && best < 0)) best = 0;
    return best;
}

/* Each legal move's greedy gain, in legal's order: a placement's points gain (the discard
 * 0), a pick's best_gain of its domino. The values kd_greedy_action compares. */
void kd_greedy_gains(const KdParams *p, const KdGame *g, const int32_t *legal, int count,
                     int32_t *gains) {
    int s = g->seat;
    Territories t;
    kd_territories(p, g, s, &t);
    Bonuses b = placement_bonuses(p, g, s);
    const int8_t *line = g->phase == KD_SETUP_PICK ? g->cur_line : g->next_line;
    for (int i = 0; i < count; i++) {
        int a = legal[i];
        if (g->phase == KD_PLACE)
            gains[i] = a == p->discard ? 0 : placement_gain(p, g, s, &t, b, g->cur_line[g->turn_pos], a);
        else
            gains[i] = best_gain(p, g, s, &t, b, line[a - p->pick_base]);
    }
}

/* --- the heuristic agent's values (kingdomino/agents/heuristic.py) ------------------------- */

/* position_value: the kingdom's points (with the game's bonuses), minus 2 per empty square of
 * the still possible frame (the centred one while the Middle Kingdom holds) with no empty
 * neighbour there, plus 0.5 per crown of each territory with an empty neighbour there. */
static double position_value(const KdParams *p, const KdGame *g, int s) {
    int32_t points, largest;
    kd_score(p, g, s, &points, &largest);
    int side = p->side, k = p->size - 1;
    int r0 = g->rmax[s] - k, r1 = g->rmin[s] + k, c0 = g->cmax[s] - k, c1 = g->cmin[s] + k;
    if (p->middle && kd_centred(p, g, s)) { /* ruling KR3: keep the castle in the middle */
        int mid = p->size - 1, half = (p->size - 1) / 2;
        if (r0 < mid - half) r0 = mid - half;
        if (r1 > mid + half) r1 = mid + half;
        if (c0 < mid - half) c0 = mid - half;
        if (c1 > mid + half) c1 = mid + half;
    }
    if (r0 < 0) r0 = 0;
    if (c0 < 0) c0 = 0;
    if (r1 > side - 1) r1 = side - 1;
    if (c1 > side - 1) c1 = side - 1;
    uint8_t empty[KD_MAX_CELLS];
    memset(empty, 0, (size_t)p->cells);
    for (int r = r0; r <= r1; r++)
        for (int c = c0; c <= c1; c++) empty[r * side + c] = g->land[s][r * side + c] == KD_EMPTY;
    int dead = 0;
    Territories t;
    int count = kd_territories(p, g, s, &t);
    uint8_t open[KD_MAX_CELLS];
    memset(open, 0, (size_t)(count ? count : 1));
    for (int cell = 0; cell < p->cells; cell++) {
        int r = cell / side, c = cell % side;
        int next = (r > 0 && empty[cell - side]) || (r < side - 1 && empty[cell + side]) ||
                   (c > 0 && empty[cell - 1]) || (c < side - 1 && empty[cell + 1]);
        if (empty[cell]) {
            dead += !next;
        } else if (next && t.label[cell] >= 0) {
            open[t.label[cell]] = 1;
        }
    }
    double value = (double)points - 2.0 * dead;
    for (int i = 0; i < count; i++)
        if (open[i]) value += 0.5 * t.crowns[i];
    return value;
}

/* domino_value: the best position_value reachable by placing domino d (or, if allowed or
 * there is no placement, by discarding it). */
static double domino_value(const KdParams *p, const KdGame *g, int s, int d, KdGame *sim) {
    int32_t ids[4 * KD_MAX_CELLS];
    int k = kd_placements(p, g, s, d, ids);
    double best = -1e300;
    for (int i = 0; i < k; i++) {
        memcpy(sim, g, sizeof *sim);
        kd_place(p, sim, s, d, ids[i]);
        double v = position_value(p, sim, s);
        if (v > best) best = v;
    }
    if (k == 0 || !p->must_place) {
        double v = position_value(p, g, s);
        if (v > best) best = v;
    }
    return best;
}

void kd_heuristic_values(const KdParams *p, const KdGame *g, const int32_t *legal, int count,
                         double *values) {
    int s = g->seat;
    KdGame sim;
    const int8_t *line = g->phase == KD_SETUP_PICK ? g->cur_line : g->next_line;
    for (int i = 0; i < count; i++) {
        int a = legal[i];
        if (g->phase != KD_PLACE) {
            values[i] = domino_value(p, g, s, line[a - p->pick_base], &sim);
        } else if (a == p->discard) {
            values[i] = position_value(p, g, s);
        } else {
            memcpy(&sim, g, sizeof sim);
            kd_place(p, &sim, s, g->cur_line[g->turn_pos], a);
            values[i] = position_value(p, &sim, s);
        }
    }
}

/* The greedy choice among legal (count > 1): greedy_placements or greedy_picks, ties drawn
 * with rng.integers as the playout does. */
int32_t kd_greedy_action(const KdParams *p, const KdGame *g, const int32_t *legal, int count,
                             mr_pcg64 *rng, double *gains) {
    int32_t top[KD_MAX_LEGAL], gain[KD_MAX_LEGAL];
    int ntop = 0, best = INT_MIN;
    kd_greedy_gains(p, g, legal, count, gain);
    for (int i = 0; i < count; i++) {
        if (gains) gains[i] = gain[i];
        if (gain[i] > best) {
            best = gain[i];
            ntop = 0;
        }
        if (gain[i] == best) top[ntop++] = legal[i];
    }
    return ntop > 1 ? top[mr_integers(rng, (uint64_t)ntop)] : top[0];
}

int kd_playout(const KdParams *p, KdGame *g, int policy, int me, mr_pcg64 *rng) {
    int32_t legal[KD_MAX_LEGAL];
    int played = 0;
    while (g->phase != KD_GAME_OVER) {
        int count = kd_legal(p, g, legal);
        if (count <= 0) break; /* only a record kd_check refused could get here */
        int32_t a;
        if (count == 1)
            a = legal[0];
        else if (policy == KD_RANDOM || (policy == KD_PLAYER_GREEDY && g->seat != me))
            a = legal[mr_integers(rng, (uint64_t)count)];
        else
            a = kd_greedy_action(p, g, legal, count, rng, NULL);
        kd_apply(p, g, a);
        played++;
    }
    return played;
}

double kd_outcome(const KdParams *p, const KdGame *g, int seat, int value) {
    int32_t pts[KD_MAX_SEATS] = {0}, big[KD_MAX_SEATS] = {0};
    for (int s = 0; s < p->n; s++) kd_rank_key(p, g, s, &pts[s], &big[s]);
    if (value == KD_WIN) {
        int bs = 0, winners = 0;
        for (int s = 1; s < p->n; s++)
            if (pts[s] > pts[bs] || (pts[s] == pts[bs] && big[s] > big[bs])) bs = s;
        for (int s = 0; s < p->n; s++) winners += pts[s] == pts[bs] && big[s] == big[bs];
        return pts[seat] == pts[bs] && big[seat] == big[bs] ? 1.0 / winners : 0.0;
    }
    int other = INT_MIN;
    for (int s = 0; s < p->n; s++)
        if (s != seat && pts[s] > other) other = pts[s];
    return (pts[seat] - other) / 100.0;
}

void kd_redetermine(KdGame *g, mr_pcg64 *rng) {
    int8_t unseen[KD_DOMINOES];
    int count = 0;
    for (int d = 0; d < KD_DOMINOES; d++)
        if (g->unseen[d]) unseen[count++] = (int8_t)d;
    mr_shuffle8(rng, unseen, count);
    memcpy(g->pile, unseen, (size_t)g->pile_len);
    g->box_len = (int8_t)(count - g->pile_len);
    memcpy(g->box, unseen + g->pile_len, (size_t)g->box_len);
    mr_sort8(g->box, g->box_len);
}

void kd_monte_carlo(const KdParams *p, const KdGame *root, const int32_t *cands, int ncands,
                    int64_t sims, int policy, int value, int seat, mr_pcg64 *rng, double *totals,
                    int64_t *counts) {
    KdGame det, sim;
    int64_t done = 0;
    for (int i = 0; i < ncands; i++) {
        totals[i] = 0.0;
        counts[i] = 0;
    }
    while (done < sims) {
        det = *root;
        kd_redetermine(&det, rng);
        uint64_t seed = mr_integers(rng, (uint64_t)1 << 62);
        for (int i = 0; i < ncands && done < sims; i++) {
            mr_pcg64 playout_rng;
            mr_pcg64_seed(&playout_rng, seed);
            sim = det;
            kd_apply(p, &sim, cands[i]);
            kd_playout(p, &sim, policy, seat, &playout_rng);
            totals[i] += kd_outcome(p, &sim, seat, value);
            counts[i]++;
            done++;
        }
    }
}
