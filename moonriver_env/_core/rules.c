/* The rules of Moon River (RULES.md sections 2-7), transition for transition as
 * moonriver_env.moonriver.rules plays them: the set-up (table.py), the turn flow and the symbols
 * (state.py), the connection rules and bonus tiles (placement.py), the partners (partners.py)
 * and the scoring (scoring.py). Function names follow the Python methods they mirror. Ranches
 * are bitboards of up to 50 cells (bit = row * 5 + column). */
#include <string.h>

#include "moonriver.h"

#define CORN 4
#define FOREST 3
#define FARM 5
#define DESERT 0
#define CANYON 1
#define MEADOW 2
#define DESPERADO 0
#define CATTLE_THIEF 1
#define GOLD_DIGGER 2
#define TRAPPER 3
#define FARMER 4

static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int lowbit(uint64_t x) { return __builtin_ctzll(x); }

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

static inline uint64_t flood(const mr_config *cfg, uint64_t seed, uint64_t within) {
    uint64_t region = seed;
    for (;;) {
        uint64_t grown = (region | ((region & cfg->not_last_col) << 1) |
                          ((region & cfg->not_first_col) >> 1) | (region << 5) | (region >> 5)) &
                         within;
        if (grown == region) {
            return region;
        }
        region = grown;
    }
}

static inline int target_seat(int seat, int target, int n) { return (seat + 1 + target) % n; }

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
static void remove_at(int8_t *a, int8_t *len, int i) {
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
static void refill_saloon(const mr_config *cfg, mr_state *st) {
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

static void remove_unclaimed(const mr_config *cfg, mr_state *st, int8_t *col,
                             const int8_t *claim) {
    for (int p = 0; p < cfg->column_size; p++) {
        if (claim[p] < 0 && col[p] >= 0) {
            st->removed[st->removed_len++] = col[p];
            col[p] = -1;
        }
    }
}

static void open_next_column(const mr_config *cfg, mr_state *st) {
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

static void auto_resolve(const mr_config *cfg, mr_state *st);

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
    refill_saloon(cfg, st);
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
        auto_resolve(cfg, st);
    }
}

/* --- legal actions (state.py _generate_legal, placement.py, partners.py) ------------------ */
static int placements(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
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

static int cowboy_moves(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
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

static int swaps(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
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

static int steals(const mr_config *cfg, const mr_state *st, int seat, int16_t *out) {
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

static uint64_t skull_targets(const mr_config *cfg, const mr_state *st) {
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
        count = placements(cfg, st, seat, out);
        out[count++] = (int16_t)cfg->seg_start[SEG_STOP];
        return count;
    case PH_MUST_EXPAND:
    case PH_FINAL_EXPAND:
        return placements(cfg, st, seat, out);
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
        return bit_ids(skull_targets(cfg, st), cfg->seg_start[SEG_SKULL],
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
        count = cowboy_moves(cfg, st, seat, out);
        out[count++] = (int16_t)cfg->seg_start[SEG_COWBOY_STOP];
        return count;
    case PH_DESPERADO:
        count = swaps(cfg, st, seat, out);
        out[count++] = (int16_t)cfg->seg_start[SEG_DESPERADO_SKIP];
        return count;
    case PH_THIEF:
        count = steals(cfg, st, seat, out);
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

/* --- transitions (state.py, placement.py, partners.py) ----------------------------------- */
static void next_turn(const mr_config *cfg, mr_state *st);
static void continue_turn(const mr_config *cfg, mr_state *st);
static void resolve_piece(const mr_config *cfg, mr_state *st);

static void end_game(const mr_config *cfg, mr_state *st) {
    /* Overpopulation: at most one cow per plot; the extras return to the supply. */
    for (int s = 0; s < cfg->n; s++) {
        st->version[s]++;
        for (int c = 0; c < cfg->cells; c++) {
            if (st->cows[s][c] > 1) {
                st->supply = (int16_t)(st->supply + st->cows[s][c] - 1);
                st->cows[s][c] = 1;
            }
        }
    }
    st->phase = PH_GAME_OVER;
    st->seat = -1;
    st->piece_len = st->skulls_len = st->circles_len = 0;
}

static void start_round(const mr_config *cfg, mr_state *st) {
    st->turn_pos = -1;
    next_turn(cfg, st);
}

static void end_round(const mr_config *cfg, mr_state *st) {
    if (st->final_round) {
        end_game(cfg, st);
        return;
    }
    memcpy(st->cur_col, st->next_col, sizeof st->cur_col);
    memcpy(st->cur_claim, st->next_claim, sizeof st->cur_claim);
    open_next_column(cfg, st);
    refill_saloon(cfg, st);
    st->round++;
    start_round(cfg, st);
}

static void start_turn(const mr_config *cfg, mr_state *st) {
    int pos = st->turn_pos;
    int seat = st->seat = st->cur_claim[pos];
    /* Collect (ruling R13: held from now on). */
    st->held[seat][st->held_len[seat]++] = st->cur_col[pos];
    mr_sort8(st->held[seat], st->held_len[seat]);
    st->cur_col[pos] = -1;
    st->dominoes = 0;
    int final = st->final_round;
    if (final) {
        for (int p = pos + 1; p < cfg->column_size; p++) {
            if (st->cur_claim[p] == seat) {
                final = 0;
            }
        }
    }
    st->final_turn = (int8_t)final;
    continue_turn(cfg, st);
}

static void next_turn(const mr_config *cfg, mr_state *st) {
    for (int pos = st->turn_pos + 1; pos < cfg->column_size; pos++) {
        if (st->cur_claim[pos] >= 0) {
            st->turn_pos = (int8_t)pos;
            start_turn(cfg, st);
            return;
        }
    }
    end_round(cfg, st);
}

static void after_expansion(const mr_config *cfg, mr_state *st) {
    if (st->final_round) {
        next_turn(cfg, st);
        return;
    }
    st->phase = PH_SELECT;
}

static void continue_turn(const mr_config *cfg, mr_state *st) {
    int seat = st->seat;
    int h = st->held_len[seat];
    if (st->final_turn) {
        if (h >= 2 && placements(cfg, st, seat, NULL)) {
            st->phase = PH_FINAL_EXPAND;
            return;
        }
        for (int i = 0; i < h; i++) {
            st->discarded[st->discarded_len++] = st->held[seat][i];
        }
        st->held_len[seat] = 0;
        next_turn(cfg, st);
        return;
    }
    if (h > st->slots[seat]) {
        st->phase = placements(cfg, st, seat, NULL) ? PH_MUST_EXPAND : PH_DISCARD;
        return;
    }
    if (st->dominoes < 2 && h >= 2 && placements(cfg, st, seat, NULL)) { /* R3 */
        st->phase = PH_EXPAND;
        return;
    }
    after_expansion(cfg, st);
}

static void setup_claim(const mr_config *cfg, mr_state *st, int pos) {
    st->cur_claim[pos] = st->seat;
    st->setup_idx++;
    if (st->setup_idx < st->setup_len) {
        st->seat = st->setup_order[st->setup_idx];
        return;
    }
    remove_unclaimed(cfg, st, st->cur_col, st->cur_claim);
    open_next_column(cfg, st);
    st->round = 1;
    start_round(cfg, st);
}

static void select_(const mr_config *cfg, mr_state *st, int pos) {
    st->next_claim[pos] = st->seat;
    int claimed = 0;
    for (int p = 0; p < cfg->column_size; p++) {
        claimed += st->next_claim[p] >= 0;
    }
    if (claimed == cfg->num_rancheros) {
        remove_unclaimed(cfg, st, st->next_col, st->next_claim);
    }
    next_turn(cfg, st);
}

static void discard(const mr_config *cfg, mr_state *st, int pair) {
    int i = cfg->pair_i[pair], j = cfg->pair_j[pair];
    int seat = st->seat;
    int8_t *held = st->held[seat];
    st->discarded[st->discarded_len++] = held[i];
    st->discarded[st->discarded_len++] = held[j];
    remove_at(held, &st->held_len[seat], j);
    remove_at(held, &st->held_len[seat], i);
    continue_turn(cfg, st);
}

static void start_piece(const mr_config *cfg, mr_state *st, int seat, const int *cells, int len) {
    for (int i = 0; i < len; i++) {
        int c = cells[i];
        int k = cfg->cowsym[st->kinds[seat][c]];
        if (k) {
            if (k > st->supply) { /* ruling R1: an empty supply places nothing */
                k = st->supply;
            }
            if (k) {
                st->supply = (int16_t)(st->supply - k);
                st->cows[seat][c] = (int8_t)(st->cows[seat][c] + k);
                st->cow_bb[seat] |= 1ull << c;
            }
        }
    }
    st->piece_len = (int8_t)len;
    st->skulls_len = st->circles_len = 0;
    for (int i = 0; i < len; i++) {
        st->piece[i] = (int8_t)cells[i];
        int kind = st->kinds[seat][cells[i]];
        if (cfg->skull[kind]) {
            st->skulls[st->skulls_len++] = (int8_t)cells[i];
        }
    }
    for (int i = 0; i < len; i++) {
        if (cfg->circle[st->kinds[seat][cells[i]]]) {
            st->circles[st->circles_len++] = (int8_t)i;
        }
    }
    resolve_piece(cfg, st);
}

static void resolve_piece(const mr_config *cfg, mr_state *st) {
    while (st->skulls_len) {
        if (skull_targets(cfg, st)) {
            st->phase = PH_SKULL;
            return;
        }
        st->skulls[0] = st->skulls[1];
        st->skulls_len--;
    }
    if (st->circles_len) {
        int any = 0;
        for (int i = 0; i < cfg->saloon_size; i++) {
            any |= st->saloon[i] >= 0;
        }
        if (any) {
            st->phase = PH_RECRUIT;
            return;
        }
        st->circles_len = 0;
    }
    int seat = st->seat;
    if (st->reached_far) {
        st->reached_far = 0;
        /* Ruling R19: first arrival in the far row takes a tile; at most one per player. */
        int any = 0;
        for (int t = 0; t < cfg->num_tiles; t++) {
            any |= st->tiles[t];
        }
        if (!st->bonus_done[seat] && any) {
            st->bonus_done[seat] = 1;
            st->phase = PH_BONUS;
            return;
        }
    }
    st->piece_len = 0;
    continue_turn(cfg, st);
}

static void skull(const mr_config *cfg, mr_state *st, int cell) {
    int seat = st->seat;
    st->cows[seat][cell]--;
    st->version[seat]++;
    if (!st->cows[seat][cell]) {
        st->cow_bb[seat] &= ~(1ull << cell);
    }
    st->supply++;
    st->skulls[0] = st->skulls[1];
    st->skulls_len--;
    resolve_piece(cfg, st);
}

static void put(const mr_config *cfg, mr_state *st, int seat, int cell, int kind) {
    uint64_t bit = 1ull << cell;
    st->kinds[seat][cell] = (int8_t)kind;
    st->version[seat]++;
    st->land_bb[seat][cfg->land[kind]] |= bit;
    st->occ[seat] |= bit;
}

static void place(const mr_config *cfg, mr_state *st, int pair, int cell, int d) {
    int i = cfg->pair_i[pair], j = cfg->pair_j[pair];
    int seat = st->seat;
    int8_t *held = st->held[seat];
    int ka = held[i], kb = held[j];
    remove_at(held, &st->held_len[seat], j);
    remove_at(held, &st->held_len[seat], i);
    int other = cell + cfg->delta[d];
    put(cfg, st, seat, cell, ka);
    put(cfg, st, seat, other, kb);
    st->dominoes++;
    st->reached_far = (int8_t)(cfg->n == 2 && (((1ull << cell) | (1ull << other)) & cfg->far));
    int cells[2] = {cell, other};
    start_piece(cfg, st, seat, cells, 2);
}

static void bonus_place(const mr_config *cfg, mr_state *st, int tile, int side, int cell) {
    int seat = st->seat;
    st->tiles[tile] = 0;
    put(cfg, st, seat, cell, cfg->num_plot_kinds + 2 * tile + side);
    st->reached_far = 0;
    int cells[1] = {cell};
    start_piece(cfg, st, seat, cells, 1);
}

static void bonus_remove(const mr_config *cfg, mr_state *st, int tile) {
    st->tiles[tile] = 0;
    st->piece_len = 0;
    continue_turn(cfg, st);
}

static void recruit(const mr_config *cfg, mr_state *st, int circle, int slot, int side) {
    int seat = st->seat;
    int cell = st->piece[circle];
    int token = st->saloon[slot];
    st->saloon[slot] = -1;
    /* circles.remove(circle) */
    for (int i = 0; i < st->circles_len; i++) {
        if (st->circles[i] == circle) {
            remove_at(st->circles, &st->circles_len, i);
            break;
        }
    }
    st->partners[seat][cell] = (int8_t)(2 * token + side);
    st->version[seat]++;
    st->partner_bb[seat] |= 1ull << cell;
    st->effect_cell = (int8_t)cell;
    if (side) {
        st->cowboy_moves = 3;
        if (cowboy_moves(cfg, st, seat, NULL)) {
            st->phase = PH_COWBOY;
            return;
        }
    } else if (token == DESPERADO) {
        if (swaps(cfg, st, seat, NULL)) {
            st->phase = PH_DESPERADO;
            return;
        }
    } else if (token == CATTLE_THIEF && steals(cfg, st, seat, NULL)) {
        st->phase = PH_THIEF;
        return;
    }
    resolve_piece(cfg, st);
}

static void cowboy_move(const mr_config *cfg, mr_state *st, int cell, int d) {
    int seat = st->seat;
    int target = cell + cfg->delta[d];
    st->cows[seat][cell]--;
    st->cows[seat][target]++;
    st->version[seat]++;
    uint64_t bb = st->cow_bb[seat] | (1ull << target);
    if (!st->cows[seat][cell]) {
        bb &= ~(1ull << cell);
    }
    st->cow_bb[seat] = bb;
    st->cowboy_moves--;
    if (st->cowboy_moves > 0) {
        st->phase = PH_COWBOY;
        return;
    }
    resolve_piece(cfg, st);
}

static void swap(const mr_config *cfg, mr_state *st, int own, int target, int theirs) {
    int seat = st->seat;
    int other = target_seat(seat, target, cfg->n);
    int8_t t = st->held[seat][own];
    st->held[seat][own] = st->held[other][theirs];
    st->held[other][theirs] = t;
    mr_sort8(st->held[seat], st->held_len[seat]);
    mr_sort8(st->held[other], st->held_len[other]);
    resolve_piece(cfg, st);
}

static void steal(const mr_config *cfg, mr_state *st, int target, int cell) {
    int seat = st->seat;
    int victim = target_seat(seat, target, cfg->n);
    st->cows[victim][cell]--;
    st->version[victim]++;
    st->version[seat]++;
    if (!st->cows[victim][cell]) {
        st->cow_bb[victim] &= ~(1ull << cell);
    }
    st->cows[seat][st->effect_cell]++;
    st->cow_bb[seat] |= 1ull << st->effect_cell;
    resolve_piece(cfg, st);
}

static void apply_raw(const mr_config *cfg, mr_state *st, int a) {
    int seg = MR_NUM_SEGMENTS - 1;
    while (seg > 0 && (cfg->seg_start[seg] < 0 || a < cfg->seg_start[seg])) {
        seg--;
    }
    int x = a - cfg->seg_start[seg];
    const int *s = cfg->seg_stride[seg];
    switch (seg) {
    case SEG_CLAIM:
        if (st->phase == PH_SETUP_CLAIM) {
            setup_claim(cfg, st, x / s[0]);
        } else {
            select_(cfg, st, x / s[0]);
        }
        break;
    case SEG_PLACE:
        place(cfg, st, x / s[0], x % s[0] / s[1], x % s[1] / s[2]);
        break;
    case SEG_STOP:
        after_expansion(cfg, st);
        break;
    case SEG_DISCARD:
        discard(cfg, st, x / s[0]);
        break;
    case SEG_SKULL:
        skull(cfg, st, x / s[0]);
        break;
    case SEG_RECRUIT:
        recruit(cfg, st, x / s[0], x % s[0] / s[1], x % s[1] / s[2]);
        break;
    case SEG_COWBOY_MOVE:
        cowboy_move(cfg, st, x / s[0], x % s[0] / s[1]);
        break;
    case SEG_DESPERADO_SWAP:
        swap(cfg, st, x / s[0], x % s[0] / s[1], x % s[1] / s[2]);
        break;
    case SEG_THIEF_STEAL:
        steal(cfg, st, x / s[0], x % s[0] / s[1]);
        break;
    case SEG_BONUS_PLACE:
        bonus_place(cfg, st, x / s[0], x % s[0] / s[1], x % s[1] / s[2]);
        break;
    case SEG_BONUS_REMOVE:
        bonus_remove(cfg, st, x / s[0]);
        break;
    default: /* cowboy_stop, desperado_skip, thief_skip */
        resolve_piece(cfg, st);
        break;
    }
}

static void auto_resolve(const mr_config *cfg, mr_state *st) {
    int16_t legal[MR_MAX_ACTIONS];
    while (st->phase != PH_GAME_OVER) {
        if (mr_legal(cfg, st, legal) != 1) {
            return;
        }
        apply_raw(cfg, st, legal[0]);
    }
}

void mr_apply(const mr_config *cfg, mr_state *st, int action) {
    apply_raw(cfg, st, action);
    if (cfg->auto_resolve) {
        auto_resolve(cfg, st);
    }
}

void mr_redetermine(mr_state *st, mr_pcg64 *rng) {
    mr_shuffle8(rng, st->pile, st->pile_len);
    mr_shuffle8(rng, st->stack, st->stack_len);
}

/* --- scoring (scoring.py) ---------------------------------------------------------------- */
static int scenario_value(int size) { return 10 + 10 * (size - 3); }

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
    case 0: { /* timber_rafting */
        uint64_t forest = bb[FOREST];
        uint64_t seeds = forest & cfg->river;
        while (seeds) {
            uint64_t g = flood(cfg, seeds & -seeds, forest);
            seeds &= ~g;
            if (popcount64(g) >= 3) {
                bonus += scenario_value(popcount64(g));
            }
        }
        break;
    }
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
    case 3: { /* moon_river_city */
        uint64_t farm = bb[FARM];
        while (farm) {
            uint64_t g = flood(cfg, farm & -farm, farm);
            farm &= ~g;
            if (popcount64(g) >= 3) {
                bonus += scenario_value(popcount64(g));
            }
        }
        break;
    }
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
