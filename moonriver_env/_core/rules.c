/* The rules of Moon River (RULES.md sections 2-7), transition for transition as
 * moonriver_env.moonriver.rules plays them. This file: the set-up (table.py) and the legal actions
 * (state.py, placement.py, partners.py); transitions.c: the turn flow and the symbols;
 * scoring.c: the scoring (scoring.py). Function names follow the Python methods they mirror.
 * Ranches are bitboards of up to 50 cells (bit = row * 5 + column). */
#include <string.h>

#define MR_RULES_INTERNAL
#include "moonriver.h"

/* --- geometry (geometry.py) ------------------------------------------------------------ */
static inline uint64_t neighbours(const mr_config *cfg, uint64_t m) {
    return (((m & cfg->not_last_col) << 1) | ((m & cfg->not_first_col) >> 1) | (m << 5) |
            (m >> 5)) &
           cfg->full;
}

static inline uint64_t back(const mr_config *cfg, uint64_t m, int d) {
    int dl = cfg->delta[d];
    uint64_t shifted = dl > 0 ? m >> dl : m << -dl;
    return shifted & cfg->src[d];
}

/* The ids base + c * cell_stride + d * dir_stride for every cell c of `any` and direction d
 * with bit c in m[d], cell by cell; their count. */
static int direction_ids(uint64_t any, const uint64_t m[4], int base, int cell_stride,
                         int dir_stride, int16_t *out) {
    int count = 0;
    while (any) {
        int c = lowbit(any);
        any &= any - 1;
        for (int d = 0; d < 4; d++) {
            if (m[d] >> c & 1) {
                out[count++] = (int16_t)(base + c * cell_stride + d * dir_stride);
            }
        }
    }
    return count;
}

/* --- small list helpers ------------------------------------------------------------------ */
void mr_remove_at(int8_t *a, int8_t *len, int i) {
    for (int k = i; k < *len - 1; k++) {
        a[k] = a[k + 1];
    }
    (*len)--;
}

/* --- derived fields -------------------------------------------------------------------- */
static void set_boards(const mr_config *cfg, mr_state *st) {
    for (int s = 0; s < cfg->n; s++) {
        int b = st->boards[s];
        st->slots[s] = (int8_t)cfg->board_slots[b];
        st->bridges[s] = (uint64_t)cfg->board_bridges[b] & cfg->river;
    }
}

void mr_rebuild(const mr_config *cfg, mr_state *st) {
    set_boards(cfg, st);
    for (int s = 0; s < cfg->n; s++) {
        memset(st->land_bb[s], 0, sizeof st->land_bb[s]);
        st->occ[s] = st->cow_bb[s] = st->partner_bb[s] = 0;
        for (int c = 0; c < cfg->cells; c++) {
            uint64_t bit = 1ull << c;
            int k = st->kinds[s][c];
            if (k >= 0) {
                st->land_bb[s][cfg->land[k]] |= bit;
                st->occ[s] |= bit;
            }
            if (st->cows[s][c]) {
                st->cow_bb[s] |= bit;
            }
            if (st->partners[s][c] >= 0) {
                st->partner_bb[s] |= bit;
            }
        }
    }
}

/* --- the table (table.py) ------------------------------------------------------------- */
void mr_refill_saloon(const mr_config *cfg, mr_state *st) {
    for (int i = 0; i < cfg->saloon_size; i++) {
        if (st->saloon[i] < 0 && st->stack_len > 0) {
            st->saloon[i] = st->stack[--st->stack_len];
        }
    }
}

static void draw_column(const mr_config *cfg, mr_state *st, int8_t *col) {
    int size = cfg->column_size;
    for (int p = 0; p < size; p++) {
        col[p] = st->pile[--st->pile_len];
    }
    /* A stable sort by the backs: ties keep the draw order. */
    for (int i = 1; i < size; i++) {
        int8_t x = col[i];
        int j = i - 1;
        while (j >= 0 && cfg->back[col[j]] > cfg->back[x]) {
            col[j + 1] = col[j];
            j--;
        }
        col[j + 1] = x;
    }
}

void mr_remove_unclaimed(const mr_config *cfg, mr_state *st, int8_t *col,
                         const int8_t *claim) {
    for (int p = 0; p < cfg->column_size; p++) {
        if (claim[p] < 0 && col[p] >= 0) {
            st->removed[st->removed_len++] = col[p];
            col[p] = -1;
        }
    }
}

void mr_open_next_column(const mr_config *cfg, mr_state *st) {
    int size = cfg->column_size;
    if (st->pile_len >= size) {
        draw_column(cfg, st, st->next_col);
    } else {
        /* Ruling R6: a short remainder is discarded; the final round follows. */
        for (int i = 0; i < st->pile_len; i++) {
            st->discarded[st->discarded_len++] = st->pile[i];
        }
        st->pile_len = 0;
        for (int p = 0; p < size; p++) {
            st->next_col[p] = -1;
        }
        st->final_round = 1;
    }
    for (int p = 0; p < size; p++) {
        st->next_claim[p] = -1;
    }
}

void mr_new_game(const mr_config *cfg, mr_state *st, uint64_t seed) {
    memset(st, 0, sizeof *st);
    int n = cfg->n;
    mr_pcg64_seed(&st->rng, seed);
    mr_pcg64 *rng = &st->rng;
    st->scenario = -1;
    st->effect_cell = -1;
    st->seat = -1;
    st->supply = (int16_t)cfg->cows_total;
    memset(st->saloon, -1, sizeof st->saloon);
    memset(st->cur_col, -1, sizeof st->cur_col);
    memset(st->cur_claim, -1, sizeof st->cur_claim);
    memset(st->next_col, -1, sizeof st->next_col);
    memset(st->next_claim, -1, sizeof st->next_claim);
    memset(st->kinds, -1, sizeof st->kinds);
    memset(st->partners, -1, sizeof st->partners);
    for (int t = 0; t < cfg->num_tiles; t++) {
        st->tiles[t] = (int8_t)(n == 2);
    }
    if (cfg->legends) {
        int scen = cfg->scenario_cfg;
        if (scen < 0) {
            scen = (int)mr_integers(rng, MR_NUM_SCENARIOS);
        }
        st->scenario = (int8_t)scen;
        if (cfg->boards_mode == 0) {
            for (int s = 0; s < n; s++) {
                st->boards[s] = (int8_t)(1 + s);
            }
        } else if (cfg->boards_mode == 1) {
            int8_t perm[MR_NUM_BOARDS - 1] = {0, 1, 2, 3};
            mr_shuffle8(rng, perm, MR_NUM_BOARDS - 1);
            for (int s = 0; s < n; s++) {
                st->boards[s] = (int8_t)(1 + perm[s]);
            }
        } else {
            for (int s = 0; s < n; s++) {
                st->boards[s] = (int8_t)cfg->boards_fixed[s];
            }
        }
    }
    set_boards(cfg, st);
    st->pile_len = (int16_t)cfg->num_plots;
    for (int i = 0; i < cfg->num_plots; i++) {
        st->pile[i] = (int8_t)cfg->plot_list[i];
    }
    mr_shuffle8(rng, st->pile, st->pile_len);
    st->stack_len = (int8_t)cfg->num_partners;
    for (int i = 0; i < cfg->num_partners; i++) {
        st->stack[i] = (int8_t)cfg->partner_list[i];
    }
    mr_shuffle8(rng, st->stack, st->stack_len);
    mr_refill_saloon(cfg, st);
    draw_column(cfg, st, st->cur_col);
    if (n == 2) {
        int first = (int)mr_integers(rng, 2);
        st->setup_order[0] = (int8_t)first;
        st->setup_order[1] = (int8_t)(1 - first);
        st->setup_order[2] = (int8_t)(1 - first);
        st->setup_order[3] = (int8_t)first;
        st->setup_len = 4;
    } else {
        int8_t perm[MR_MAX_PLAYERS] = {0, 1, 2, 3};
        mr_shuffle8(rng, perm, n);
        for (int s = 0; s < n; s++) {
            st->setup_order[s] = perm[s];
        }
        st->setup_len = (int8_t)n;
    }
    st->setup_idx = 0;
    st->phase = PH_SETUP_CLAIM;
    st->seat = st->setup_order[0];
    if (cfg->auto_resolve) {
        mr_auto_resolve(cfg, st);
    }
}

/* --- legal actions (state.py _generate_legal, placement.py, partners.py) ------------------ */
int mr_placements(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
    int h = st->held_len[seat];
    if (h < 2) {
        return 0;
    }
    const int8_t *held = st->held[seat];
    const uint64_t *bb = st->land_bb[seat];
    uint64_t bridge = st->bridges[seat];
    uint64_t empty = cfg->full & ~st->occ[seat];
    uint64_t free_[4], attach[MR_NUM_LANDS];
    int have_attach = 0;
    for (int d = 0; d < 4; d++) {
        free_[d] = empty & back(cfg, empty, d);
    }
    int start = cfg->seg_start[SEG_PLACE];
    int pair_stride = cfg->seg_stride[SEG_PLACE][0];
    int cell_stride = cfg->seg_stride[SEG_PLACE][1];
    int dir_stride = cfg->seg_stride[SEG_PLACE][2];
    int count = 0;
    for (int k = 0; k < cfg->num_pairs; k++) {
        int i = cfg->pair_i[k], j = cfg->pair_j[k];
        if (j >= h) {
            continue;
        }
        int la = cfg->land[held[i]], lb = cfg->land[held[j]];
        if (!(have_attach >> la & 1)) {
            attach[la] = bridge | neighbours(cfg, bb[la]);
            have_attach |= 1 << la;
        }
        if (!(have_attach >> lb & 1)) {
            attach[lb] = bridge | neighbours(cfg, bb[lb]);
            have_attach |= 1 << lb;
        }
        uint64_t m[4], any = 0;
        for (int d = 0; d < 4; d++) {
            m[d] = free_[d] & (attach[la] | back(cfg, attach[lb], d));
            any |= m[d];
        }
        if (!out) {
            if (any) {
                return 1;
            }
            continue;
        }
        count += direction_ids(any, m, start + k * pair_stride, cell_stride, dir_stride,
                               out + count);
    }
    return count;
}

static int bit_ids(uint64_t m, int base, int stride, int16_t *out) {
    int count = 0;
    while (m) {
        int c = lowbit(m);
        m &= m - 1;
        out[count++] = (int16_t)(base + c * stride);
    }
    return count;
}

uint64_t mr_protected(const mr_config *cfg, const mr_state *st, int seat) {
    uint64_t partners = st->partner_bb[seat];
    if (!partners) {
        return 0;
    }
    uint64_t out = 0;
    for (int l = 0; l < MR_NUM_LANDS; l++) {
        uint64_t seeds = partners & st->land_bb[seat][l];
        if (seeds) {
            out |= flood(cfg, seeds, st->land_bb[seat][l]);
        }
    }
    return out;
}

static uint64_t unprotected_cows(const mr_config *cfg, const mr_state *st, int seat) {
    uint64_t cows = st->cow_bb[seat];
    return cows ? cows & ~mr_protected(cfg, st, seat) : 0;
}

int mr_cowboy_moves(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
    uint64_t target = st->occ[seat] & ~st->land_bb[seat][CORN];
    uint64_t cows = st->cow_bb[seat];
    uint64_t m[4], any = 0;
    for (int d = 0; d < 4; d++) {
        m[d] = cows & back(cfg, target, d);
        any |= m[d];
    }
    if (!out) {
        return any != 0;
    }
    int start = cfg->seg_start[SEG_COWBOY_MOVE];
    int cs = cfg->seg_stride[SEG_COWBOY_MOVE][0], ds = cfg->seg_stride[SEG_COWBOY_MOVE][1];
    return direction_ids(any, m, start, cs, ds, out);
}

int mr_swaps(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
    int n = cfg->n;
    int mine = st->held_len[seat];
    int count = 0;
    int start = cfg->seg_start[SEG_DESPERADO_SWAP];
    const int *s = cfg->seg_stride[SEG_DESPERADO_SWAP];
    for (int own = 0; own < mine; own++) {
        for (int t = 0; t < n - 1; t++) {
            int theirs = st->held_len[target_seat(seat, t, n)];
            if (theirs > cfg->held_positions - 1) {
                theirs = cfg->held_positions - 1;
            }
            for (int x = 0; x < theirs; x++) {
                if (!out) {
                    return 1;
                }
                out[count++] = (int16_t)(start + own * s[0] + t * s[1] + x * s[2]);
            }
        }
    }
    return count;
}

int mr_steals(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
    /* Ruling R4: a thief on a cornfield cannot steal. */
    int kind = st->kinds[seat][st->effect_cell];
    if (kind < 0 || cfg->land[kind] == CORN) {
        return 0;
    }
    int n = cfg->n;
    int count = 0;
    int start = cfg->seg_start[SEG_THIEF_STEAL];
    const int *s = cfg->seg_stride[SEG_THIEF_STEAL];
    for (int t = 0; t < n - 1; t++) {
        uint64_t m = unprotected_cows(cfg, st, target_seat(seat, t, n));
        if (!out) {
            if (m) {
                return 1;
            }
            continue;
        }
        count += bit_ids(m, start + t * s[0], s[1], out + count);
    }
    return count;
}

uint64_t mr_skull_territory(const mr_config *cfg, const mr_state *st) {
    if (!st->skulls_len) {
        return 0;
    }
    int seat = st->seat;
    int cell = st->skulls[0];
    int k = st->kinds[seat][cell];
    if (k < 0) {
        return 0;
    }
    return flood(cfg, 1ull << cell, st->land_bb[seat][cfg->land[k]]);
}

uint64_t mr_skull_targets(const mr_config *cfg, const mr_state *st) {
    return mr_skull_territory(cfg, st) & st->cow_bb[st->seat];
}

static int bonus_options(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
    uint64_t empty = cfg->full & ~st->occ[seat];
    uint64_t bridge = st->bridges[seat];
    int count = 0;
    int16_t removes[MR_MAX_TILES];
    int nremove = 0;
    int pstart = cfg->seg_start[SEG_BONUS_PLACE];
    const int *ps = cfg->seg_stride[SEG_BONUS_PLACE];
    for (int t = 0; t < cfg->num_tiles; t++) {
        if (!st->tiles[t]) {
            continue;
        }
        int fits = 0;
        for (int side = 0; side < 2; side++) {
            int land = cfg->land[cfg->num_plot_kinds + 2 * t + side];
            uint64_t m = empty & (bridge | neighbours(cfg, st->land_bb[seat][land]));
            if (m) {
                fits = 1;
                count += bit_ids(m, pstart + t * ps[0] + side * ps[1], ps[2], out + count);
            }
        }
        if (!fits) {
            removes[nremove++] = (int16_t)(cfg->seg_start[SEG_BONUS_REMOVE] +
                                           t * cfg->seg_stride[SEG_BONUS_REMOVE][0]);
        }
    }
    for (int i = 0; i < nremove; i++) {
        out[count++] = removes[i];
    }
    return count;
}

int mr_legal(const mr_config *cfg, const mr_state *st, int16_t *out) {
    int seat = st->seat;
    int count = 0;
    switch (st->phase) {
    case PH_EXPAND:
        count = mr_placements(cfg, st, seat, out);
        out[count++] = (int16_t)cfg->seg_start[SEG_STOP];
        return count;
    case PH_MUST_EXPAND:
    case PH_FINAL_EXPAND:
        return mr_placements(cfg, st, seat, out);
    case PH_SELECT:
    case PH_SETUP_CLAIM: {
        const int8_t *claim = st->phase == PH_SELECT ? st->next_claim : st->cur_claim;
        const int8_t *col = st->phase == PH_SELECT ? st->next_col : st->cur_col;
        for (int p = 0; p < cfg->column_size; p++) {
            if (claim[p] < 0 && col[p] >= 0) {
                out[count++] = (int16_t)(cfg->seg_start[SEG_CLAIM] + p * cfg->seg_stride[SEG_CLAIM][0]);
            }
        }
        return count;
    }
    case PH_SKULL:
        return bit_ids(mr_skull_targets(cfg, st), cfg->seg_start[SEG_SKULL],
                       cfg->seg_stride[SEG_SKULL][0], out);
    case PH_RECRUIT: {
        int circles[2] = {st->circles[0], st->circles[1]};
        int nc = st->circles_len;
        if (nc == 2 && circles[0] > circles[1]) {
            circles[0] = st->circles[1];
            circles[1] = st->circles[0];
        }
        const int *s = cfg->seg_stride[SEG_RECRUIT];
        for (int i = 0; i < nc; i++) {
            for (int slot = 0; slot < cfg->saloon_size; slot++) {
                if (st->saloon[slot] >= 0) {
                    for (int side = 0; side < 2; side++) {
                        out[count++] = (int16_t)(cfg->seg_start[SEG_RECRUIT] + circles[i] * s[0] +
                                                 slot * s[1] + side * s[2]);
                    }
                }
            }
        }
        return count;
    }
    case PH_COWBOY:
        count = mr_cowboy_moves(cfg, st, seat, out);
        out[count++] = (int16_t)cfg->seg_start[SEG_COWBOY_STOP];
        return count;
    case PH_DESPERADO:
        count = mr_swaps(cfg, st, seat, out);
        out[count++] = (int16_t)cfg->seg_start[SEG_DESPERADO_SKIP];
        return count;
    case PH_THIEF:
        count = mr_steals(cfg, st, seat, out);
        out[count++] = (int16_t)cfg->seg_start[SEG_THIEF_SKIP];
        return count;
    case PH_DISCARD: {
        int h = st->held_len[seat];
        for (int k = 0; k < cfg->num_pairs; k++) {
            if (cfg->pair_j[k] < h) {
                out[count++] = (int16_t)(cfg->seg_start[SEG_DISCARD] + k * cfg->seg_stride[SEG_DISCARD][0]);
            }
        }
        return count;
    }
    case PH_BONUS:
        return bonus_options(cfg, st, seat, out);
    default:
        return 0;
    }
}
