/* The scoring of Moon River (RULES.md section 7, scoring.py) and the tie-breaks. */
#include <string.h>

#define MR_RULES_INTERNAL
#include "moonriver.h"

/* --- scoring (scoring.py) ---------------------------------------------------------------- */
static int scenario_value(int size) { return 10 + 10 * (size - 3); }

/* The scenario points of the groups of three or more cells of `land` that hold a cell of
 * `seeds` (timber rafting: forests touching the river; Moon River City: every farm group). */
static int group_bonus(const mr_config *cfg, uint64_t seeds, uint64_t land) {
    int bonus = 0;
    while (seeds) {
        uint64_t g = flood(cfg, seeds & -seeds, land);
        seeds &= ~g;
        if (popcount64(g) >= 3) {
            bonus += scenario_value(popcount64(g));
        }
    }
    return bonus;
}

static void score_points(const mr_config *cfg, const mr_state *st, int seat, int out[4],
                         uint64_t *bandits_out) {
    const uint64_t *bb = st->land_bb[seat];
    const int8_t *kinds = st->kinds[seat];
    const int8_t *cows = st->cows[seat];
    int territories = 0;
    uint64_t herds = st->cow_bb[seat] & ~bb[CORN];
    while (herds) {
        int c = lowbit(herds);
        uint64_t group = flood(cfg, 1ull << c, bb[cfg->land[kinds[c]]]);
        uint64_t in_group = group & herds;
        herds ^= in_group;
        int herd = 0;
        while (in_group) {
            herd += cows[lowbit(in_group)];
            in_group &= in_group - 1;
        }
        territories += popcount64(group) * herd;
    }
    int gold = 0, beaver = 0, corn = 0;
    uint64_t occ = st->occ[seat];
    while (occ) {
        int k = kinds[lowbit(occ)];
        occ &= occ - 1;
        gold += cfg->gold[k];
        beaver += cfg->beaver[k];
        corn += cfg->corn[k];
    }
    int diggers = 0, trappers = 0, farmers = 0;
    uint64_t bandits = 0, rest = st->partner_bb[seat];
    while (rest) {
        int c = lowbit(rest);
        rest &= rest - 1;
        int code = st->partners[seat][c];
        if (code == 2 * GOLD_DIGGER) {
            diggers++;
        } else if (code == 2 * TRAPPER) {
            trappers++;
        } else if (code == 2 * FARMER) {
            farmers++;
        } else if (!(code & 1)) {
            bandits |= 1ull << c;
        }
    }
    int bonus = 0;
    switch (st->scenario) {
    case 0: /* timber_rafting */
        bonus = group_bonus(cfg, bb[FOREST] & cfg->river, bb[FOREST]);
        break;
    case 1: { /* gold_rush */
        uint64_t gold_bb = 0, cand = bb[DESERT] | bb[CANYON] | bb[MEADOW];
        while (cand) {
            int c = lowbit(cand);
            cand &= cand - 1;
            if (cfg->gold[kinds[c]]) {
                gold_bb |= 1ull << c;
            }
        }
        while (gold_bb) {
            uint64_t g = flood(cfg, gold_bb & -gold_bb, gold_bb);
            gold_bb &= ~g;
            if (popcount64(g) >= 3) {
                int size = 0;
                while (g) {
                    size += cfg->gold[kinds[lowbit(g)]];
                    g &= g - 1;
                }
                bonus += scenario_value(size);
            }
        }
        break;
    }
    case 2: { /* outlaws */
        uint64_t rest2 = st->partner_bb[seat];
        while (rest2) {
            uint64_t g = flood(cfg, rest2 & -rest2, rest2);
            rest2 &= ~g;
            if (popcount64(g) >= 3 && (g & bandits)) {
                bonus += scenario_value(popcount64(g));
            }
        }
        break;
    }
    case 3: /* moon_river_city */
        bonus = group_bonus(cfg, bb[FARM], bb[FARM]);
        break;
    default:
        break;
    }
    out[0] = territories;
    out[1] = gold + beaver + corn;
    out[2] = diggers * gold + trappers * beaver + farmers * corn;
    out[3] = bonus;
    if (bandits_out) {
        *bandits_out = bandits;
    }
}

void mr_points(const mr_config *cfg, const mr_state *st, int seat, int out[4]) {
    score_points(cfg, st, seat, out, NULL);
}

int mr_total(const mr_config *cfg, const mr_state *st, int seat) {
    int p[4];
    score_points(cfg, st, seat, p, NULL);
    return p[0] + p[1] + p[2] + p[3];
}

void mr_score(const mr_config *cfg, const mr_state *st, int seat, mr_breakdown *out) {
    int p[4];
    score_points(cfg, st, seat, p, NULL);
    out->territories = p[0];
    out->resources = p[1];
    out->partners = p[2];
    out->scenario = p[3];
    out->total = p[0] + p[1] + p[2] + p[3];
    int largest = 0;
    for (int l = 0; l < MR_NUM_LANDS; l++) {
        uint64_t m = st->land_bb[seat][l];
        while (m) {
            uint64_t g = flood(cfg, m & -m, m);
            m &= ~g;
            if (popcount64(g) > largest) {
                largest = popcount64(g);
            }
        }
    }
    out->largest = largest;
    int cows = 0;
    uint64_t cb = st->cow_bb[seat];
    while (cb) {
        cows += st->cows[seat][lowbit(cb)];
        cb &= cb - 1;
    }
    out->cows = cows;
}

static int key_cmp(const mr_breakdown *a, const mr_breakdown *b) {
    if (a->total != b->total) {
        return a->total < b->total ? -1 : 1;
    }
    if (a->largest != b->largest) {
        return a->largest < b->largest ? -1 : 1;
    }
    if (a->cows != b->cows) {
        return a->cows < b->cows ? -1 : 1;
    }
    return 0;
}

int mr_winners(const mr_config *cfg, const mr_breakdown *scores) {
    int best = 0;
    for (int s = 1; s < cfg->n; s++) {
        if (key_cmp(&scores[s], &scores[best]) > 0) {
            best = s;
        }
    }
    int out = 0;
    for (int s = 0; s < cfg->n; s++) {
        if (key_cmp(&scores[s], &scores[best]) == 0) {
            out |= 1 << s;
        }
    }
    return out;
}
