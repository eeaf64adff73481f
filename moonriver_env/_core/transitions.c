/* The turn flow and the actions (RULES.md sections 3-6): the transitions of state.py,
 * placement.py and partners.py, from the legal actions of rules.c. */
#include <string.h>

#define MR_RULES_INTERNAL
#include "moonriver.h"

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
    mr_open_next_column(cfg, st);
    mr_refill_saloon(cfg, st);
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
        if (h >= 2 && mr_placements(cfg, st, seat, NULL)) {
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
        st->phase = mr_placements(cfg, st, seat, NULL) ? PH_MUST_EXPAND : PH_DISCARD;
        return;
    }
    if (st->dominoes < 2 && h >= 2 && mr_placements(cfg, st, seat, NULL)) { /* R3 */
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
    mr_remove_unclaimed(cfg, st, st->cur_col, st->cur_claim);
    mr_open_next_column(cfg, st);
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
        mr_remove_unclaimed(cfg, st, st->next_col, st->next_claim);
    }
    next_turn(cfg, st);
}

static void discard(const mr_config *cfg, mr_state *st, int pair) {
    int i = cfg->pair_i[pair], j = cfg->pair_j[pair];
    int seat = st->seat;
    int8_t *held = st->held[seat];
    st->discarded[st->discarded_len++] = held[i];
    st->discarded[st->discarded_len++] = held[j];
    mr_remove_at(held, &st->held_len[seat], j);
    mr_remove_at(held, &st->held_len[seat], i);
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
        if (mr_skull_targets(cfg, st)) {
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
    mr_remove_at(held, &st->held_len[seat], j);
    mr_remove_at(held, &st->held_len[seat], i);
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
            mr_remove_at(st->circles, &st->circles_len, i);
            break;
        }
    }
    st->partners[seat][cell] = (int8_t)(2 * token + side);
    st->version[seat]++;
    st->partner_bb[seat] |= 1ull << cell;
    st->effect_cell = (int8_t)cell;
    if (side) {
        st->cowboy_moves = 3;
        if (mr_cowboy_moves(cfg, st, seat, NULL)) {
            st->phase = PH_COWBOY;
            return;
        }
    } else if (token == DESPERADO) {
        if (mr_swaps(cfg, st, seat, NULL)) {
            st->phase = PH_DESPERADO;
            return;
        }
    } else if (token == CATTLE_THIEF && mr_steals(cfg, st, seat, NULL)) {
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

void mr_auto_resolve(const mr_config *cfg, mr_state *st) {
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
        mr_auto_resolve(cfg, st);
    }
}

void mr_redetermine(mr_state *st, mr_pcg64 *rng) {
    mr_shuffle8(rng, st->pile, st->pile_len);
    mr_shuffle8(rng, st->stack, st->stack_len);
}
