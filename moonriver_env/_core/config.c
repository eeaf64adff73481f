/* The spec (the per-config tables the Python package hands in at start), its checks, the
 * table of state fields the Python side builds its record dtype from, and the check of a
 * state read from outside (set_state), so that no input makes the core index out of bounds. */
#include <stdio.h>
#include <string.h>

#include "moonriver.h"

const mr_spec_key MR_SPEC_KEYS[] = {
    {"num_players", 1},
    {"rows", 1},
    {"legends", 1},
    {"auto_resolve", 1},
    {"scenario", 1},
    {"boards_mode", 1},
    {"boards", MR_MAX_PLAYERS},
    {"num_plot_kinds", 1},
    {"num_contents", 1},
    {"land", MR_MAX_CONTENTS},
    {"gold", MR_MAX_CONTENTS},
    {"beaver", MR_MAX_CONTENTS},
    {"corn", MR_MAX_CONTENTS},
    {"cowsym", MR_MAX_CONTENTS},
    {"skull", MR_MAX_CONTENTS},
    {"circle", MR_MAX_CONTENTS},
    {"back", MR_MAX_CONTENTS},
    {"num_plots", 1},
    {"plot_list", MR_MAX_PLOTS},
    {"num_partners", 1},
    {"partner_list", MR_MAX_PARTNERS},
    {"board_bridges", MR_NUM_BOARDS},
    {"board_slots", MR_NUM_BOARDS},
    {"cows", 1},
    {"saloon_size", 1},
    {"column_size", 1},
    {"num_tiles", 1},
    {"held_positions", 1},
    {"num_pairs", 1},
    {"pair_i", MR_MAX_PAIRS},
    {"pair_j", MR_MAX_PAIRS},
    {"num_actions", 1},
    {"seg_start", MR_NUM_SEGMENTS},
    {"seg_stride", 3 * MR_NUM_SEGMENTS},
    {"channels", MR_NUM_CHANNELS},
    {"num_features", 1},
    {"features", MR_NUM_FEATURE_SLICES},
};
const int MR_NUM_SPEC_KEYS = (int)(sizeof MR_SPEC_KEYS / sizeof MR_SPEC_KEYS[0]);

int mr_spec_length(void) {
    int total = 0;
    for (int i = 0; i < MR_NUM_SPEC_KEYS; i++) {
        total += MR_SPEC_KEYS[i].size;
    }
    return total;
}

#define FIELD(name, type, count) {#name, offsetof(mr_state, name), type, count}
const mr_field MR_STATE_FIELDS[] = {
    MR_RNG_FIELDS(mr_state),
    FIELD(pile_len, 'h', 1), FIELD(removed_len, 'h', 1), FIELD(discarded_len, 'h', 1),
    FIELD(supply, 'h', 1), FIELD(round, 'h', 1), FIELD(dominoes, 'h', 1),
    FIELD(pile, 'b', MR_MAX_PLOTS), FIELD(removed, 'b', MR_MAX_PLOTS),
    FIELD(discarded, 'b', MR_MAX_PLOTS), FIELD(stack_len, 'b', 1),
    FIELD(stack, 'b', MR_MAX_PARTNERS), FIELD(saloon, 'b', MR_MAX_SALOON),
    FIELD(cur_col, 'b', MR_MAX_COLUMN), FIELD(cur_claim, 'b', MR_MAX_COLUMN),
    FIELD(next_col, 'b', MR_MAX_COLUMN), FIELD(next_claim, 'b', MR_MAX_COLUMN),
    FIELD(scenario, 'b', 1), FIELD(boards, 'b', MR_MAX_PLAYERS), FIELD(final_round, 'b', 1),
    FIELD(phase, 'b', 1), FIELD(seat, 'b', 1), FIELD(setup_len, 'b', 1), FIELD(setup_idx, 'b', 1),
    FIELD(setup_order, 'b', MR_MAX_SETUP), FIELD(turn_pos, 'b', 1), FIELD(final_turn, 'b', 1),
    FIELD(held_len, 'b', MR_MAX_PLAYERS), FIELD(held, 'b', MR_MAX_PLAYERS * MR_MAX_HELD),
    FIELD(kinds, 'b', MR_MAX_PLAYERS * MR_MAX_CELLS),
    FIELD(cows, 'b', MR_MAX_PLAYERS * MR_MAX_CELLS),
    FIELD(partners, 'b', MR_MAX_PLAYERS * MR_MAX_CELLS), FIELD(bonus_done, 'b', MR_MAX_PLAYERS),
    FIELD(tiles, 'b', MR_MAX_TILES), FIELD(piece_len, 'b', 1), FIELD(skulls_len, 'b', 1),
    FIELD(circles_len, 'b', 1), FIELD(piece, 'b', 2), FIELD(skulls, 'b', 2),
    FIELD(circles, 'b', 2), FIELD(reached_far, 'b', 1), FIELD(effect_cell, 'b', 1),
    FIELD(cowboy_moves, 'b', 1),
};
const int MR_NUM_STATE_FIELDS = (int)(sizeof MR_STATE_FIELDS / sizeof MR_STATE_FIELDS[0]);

static char message[256];

static const char *bad(const char *name, long long value) {
    snprintf(message, sizeof message, "spec entry %s: value %lld out of range", name, value);
    return message;
}

#define NEED(cond, name, value)                                                                \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            return bad(name, (long long)(value));                                              \
        }                                                                                      \
    } while (0)

const char *mr_config_init(mr_config *cfg, const int64_t *spec, size_t len) {
    if (len != (size_t)mr_spec_length()) {
        snprintf(message, sizeof message, "spec: expected %d entries, got %zu", mr_spec_length(),
                 len);
        return message;
    }
    memset(cfg, 0, sizeof *cfg);
    const int64_t *p = spec;
    const int64_t *at[64];
    for (int i = 0; i < MR_NUM_SPEC_KEYS; i++) {
        at[i] = p;
        for (int k = 0; k < MR_SPEC_KEYS[i].size; k++) {
            NEED(p[k] >= -1000000 && p[k] <= 1000000, MR_SPEC_KEYS[i].name, p[k]);
        }
        p += MR_SPEC_KEYS[i].size;
    }
    int key = 0;
#define ONE(var, lo, hi)                                                                       \
    do {                                                                                       \
        cfg->var = (int)at[key][0];                                                            \
        NEED(cfg->var >= (lo) && cfg->var <= (hi), MR_SPEC_KEYS[key].name, cfg->var);          \
        key++;                                                                                 \
    } while (0)
#define MANY(var, count, lo, hi)                                                               \
    do {                                                                                       \
        for (int k_ = 0; k_ < (count); k_++) {                                                 \
            (var)[k_] = (int)at[key][k_];                                                      \
            NEED((var)[k_] >= (lo) && (var)[k_] <= (hi), MR_SPEC_KEYS[key].name, (var)[k_]);   \
        }                                                                                      \
        key++;                                                                                 \
    } while (0)
    ONE(n, 2, MR_MAX_PLAYERS);
    ONE(rows, 1, MR_MAX_CELLS / 5);
    ONE(legends, 0, 1);
    ONE(auto_resolve, 0, 1);
    ONE(scenario_cfg, -2, MR_NUM_SCENARIOS - 1);
    ONE(boards_mode, 0, 2);
    MANY(cfg->boards_fixed, cfg->n, 0, MR_NUM_BOARDS - 1);
    ONE(num_plot_kinds, 1, MR_MAX_CONTENTS - 2 * MR_MAX_TILES);
    ONE(num_contents, cfg->num_plot_kinds, MR_MAX_CONTENTS);
    int nc = cfg->num_contents;
    MANY(cfg->land, nc, 0, MR_NUM_LANDS - 1);
    MANY(cfg->gold, nc, 0, 20);
    MANY(cfg->beaver, nc, 0, 20);
    MANY(cfg->corn, nc, 0, 20);
    MANY(cfg->cowsym, nc, 0, 100);
    MANY(cfg->skull, nc, 0, 1);
    MANY(cfg->circle, nc, 0, 1);
    MANY(cfg->back, nc, 0, 100);
    for (int k = 0; k < nc; k++) { /* the encoder's symbol channels, a bit each (SYM_*) */
        cfg->symbols[k] = (uint8_t)((cfg->gold[k] ? 1 << SYM_GOLD : 0) |
                                    (cfg->beaver[k] ? 1 << SYM_BEAVER : 0) |
                                    (cfg->corn[k] ? 1 << SYM_CORN : 0) |
                                    (cfg->skull[k] ? 1 << SYM_SKULL : 0) |
                                    (cfg->circle[k] ? 1 << SYM_CIRCLE : 0) |
                                    (k >= cfg->num_plot_kinds ? 1 << SYM_BONUS_TILE : 0));
    }
    ONE(num_plots, 1, MR_MAX_PLOTS);
    MANY(cfg->plot_list, cfg->num_plots, 0, cfg->num_plot_kinds - 1);
    ONE(num_partners, 0, MR_MAX_PARTNERS);
    MANY(cfg->partner_list, cfg->num_partners, 0, MR_NUM_PARTNER_KINDS - 1);
    MANY(cfg->board_bridges, MR_NUM_BOARDS, 0, 31);
    MANY(cfg->board_slots, MR_NUM_BOARDS, 1, MR_MAX_HELD - 1);
    ONE(cows_total, 0, 127); /* a ranch cell holds them all in an int8 */
    ONE(saloon_size, 1, MR_MAX_SALOON);
    ONE(column_size, 2, MR_MAX_COLUMN);
    ONE(num_tiles, 0, MR_MAX_TILES);
    ONE(held_positions, 2, MR_MAX_HELD);
    ONE(num_pairs, 1, MR_MAX_PAIRS);
    MANY(cfg->pair_i, cfg->num_pairs, 0, cfg->held_positions - 1);
    MANY(cfg->pair_j, cfg->num_pairs, 0, cfg->held_positions - 1);
    ONE(num_actions, 1, MR_MAX_ACTIONS);
    MANY(cfg->seg_start, MR_NUM_SEGMENTS, -1, cfg->num_actions - 1);
    {
        int flat[3 * MR_NUM_SEGMENTS];
        MANY(flat, 3 * MR_NUM_SEGMENTS, 0, MR_MAX_ACTIONS);
        for (int s = 0; s < MR_NUM_SEGMENTS; s++) {
            for (int k = 0; k < 3; k++) {
                cfg->seg_stride[s][k] = flat[3 * s + k] ? flat[3 * s + k] : 1;
            }
        }
    }
    MANY(cfg->channel, MR_NUM_CHANNELS, 0, MR_NUM_CHANNELS - 1);
    ONE(num_features, 1, 100000);
    MANY(cfg->feature, MR_NUM_FEATURE_SLICES, 0, cfg->num_features - 1);
#undef ONE
#undef MANY
    /* Cross-checks the per-key ranges cannot express. */
    for (int i = 0; i < cfg->num_pairs; i++) {
        NEED(cfg->pair_i[i] < cfg->pair_j[i], "pair_i", cfg->pair_i[i]);
    }
    NEED(cfg->n * (cfg->n == 2 ? 2 : 1) <= cfg->column_size, "column_size", cfg->column_size);
    NEED(cfg->num_tiles == 0 || cfg->num_contents == cfg->num_plot_kinds + 2 * cfg->num_tiles,
         "num_contents", cfg->num_contents);
    NEED(cfg->num_contents <= MR_MAX_CONTENTS, "num_contents", cfg->num_contents);
    NEED(cfg->held_positions * (cfg->held_positions - 1) / 2 == cfg->num_pairs, "num_pairs",
         cfg->num_pairs);
    for (int b = 0; b < MR_NUM_BOARDS; b++) {
        /* The boards this mode uses: their reserve plus the collected plot fit the held axis. */
        if ((b == 0) != (cfg->legends == 1)) {
            NEED(cfg->board_slots[b] + 1 <= cfg->held_positions, "board_slots",
                 cfg->board_slots[b]);
        }
    }
    NEED(cfg->seg_start[SEG_CLAIM] == 0, "seg_start", cfg->seg_start[SEG_CLAIM]);
    {
        /* The features' slices one after another in the encoder's order (encoding.py's
         * layout): the encoder writes each slice within its size, in ascending index order. */
        int n = cfg->n, k = cfg->num_plot_kinds, col = cfg->column_size;
        int sizes[MR_NUM_FEATURE_SLICES] = {
            [F_PHASE] = MR_NUM_PHASES, [F_ACTOR] = n, [F_ROUND] = 1, [F_FINAL_ROUND] = 1,
            [F_FINAL_TURN] = 1, [F_DOMINOES] = 1, [F_HELD] = n * k, [F_HELD_COUNT] = n,
            [F_RESERVE_SLOTS] = n, [F_BOARD] = n * MR_NUM_BOARDS, [F_CURRENT_COLUMN] = col * (k + 1),
            [F_CURRENT_CLAIMS] = col * n, [F_NEXT_COLUMN] = col * (k + 1), [F_NEXT_CLAIMS] = col * n,
            [F_SALOON] = cfg->saloon_size * MR_NUM_PARTNER_KINDS, [F_STACK_SIZE] = 1,
            [F_COW_SUPPLY] = 1, [F_UNSEEN_PLOTS] = k, [F_SCORES] = n * 5, [F_PENDING_SKULLS] = 1,
            [F_PENDING_CIRCLES] = 2, [F_COWBOY_MOVES_LEFT] = 1, [F_BONUS_TILES_AVAILABLE] = 2,
            [F_BONUS_TILE_TAKEN] = n, [F_SCENARIO] = 1 + MR_NUM_SCENARIOS};
        int next = 0;
        for (int f = 0; f < MR_NUM_FEATURE_SLICES; f++) {
            NEED(cfg->feature[f] == next, "features", cfg->feature[f]);
            next += sizes[f];
        }
        NEED(next == cfg->num_features, "num_features", cfg->num_features);
    }
    /* The channels are a permutation: channel_of inverts it (public index -> channel). */
    for (int c = 0; c < MR_NUM_CHANNELS; c++) {
        cfg->channel_of[c] = -1;
    }
    for (int c = 0; c < MR_NUM_CHANNELS; c++) {
        NEED(cfg->channel_of[cfg->channel[c]] == -1, "channels", cfg->channel[c]);
        cfg->channel_of[cfg->channel[c]] = c;
    }
    cfg->cells = cfg->rows * 5;
    {
        /* Each segment is the row-major array of its shape (actions.py), one after another. */
        int h = cfg->held_positions, c = cfg->cells, n = cfg->n;
        int t = cfg->n == 2 ? cfg->num_tiles : 0;
        int shapes[MR_NUM_SEGMENTS][3] = {
            {cfg->column_size, 1, 1}, {cfg->num_pairs, c, 4}, {1, 1, 1}, {cfg->num_pairs, 1, 1},
            {c, 1, 1}, {2, cfg->saloon_size, 2}, {c, 4, 1}, {1, 1, 1}, {h, n - 1, h - 1},
            {1, 1, 1}, {n - 1, c, 1}, {1, 1, 1}, {t, 2, c}, {t, 1, 1}};
        int next = 0;
        for (int s = 0; s < MR_NUM_SEGMENTS; s++) {
            int size = shapes[s][0] * shapes[s][1] * shapes[s][2];
            if (!size) {
                NEED(cfg->seg_start[s] == -1, "seg_start", cfg->seg_start[s]);
                continue;
            }
            NEED(cfg->seg_start[s] == next, "seg_start", cfg->seg_start[s]);
            int axes = s == SEG_PLACE || s == SEG_RECRUIT || s == SEG_DESPERADO_SWAP ||
                               s == SEG_BONUS_PLACE
                           ? 3
                       : s == SEG_COWBOY_MOVE || s == SEG_THIEF_STEAL ? 2
                                                                      : 1;
            int stride = 1;
            for (int k = axes - 1; k >= 0; k--) {
                NEED(cfg->seg_stride[s][k] == stride, "seg_stride", cfg->seg_stride[s][k]);
                stride *= shapes[s][k];
            }
            next += size;
        }
        NEED(next == cfg->num_actions, "num_actions", cfg->num_actions);
    }
    cfg->num_rancheros = cfg->n * (cfg->n == 2 ? 2 : 1);
    /* The ids of the last segment end at num_actions: every decoded index stays in range. */
    cfg->plane_size = cfg->n * MR_NUM_CHANNELS * cfg->cells;
    cfg->obs_size = cfg->plane_size + cfg->num_features;
    /* Grid masks (geometry.py). */
    int cells = cfg->cells;
    cfg->full = cells == 64 ? ~0ull : (1ull << cells) - 1;
    uint64_t first_col = 0;
    for (int r = 0; r < cfg->rows; r++) {
        first_col |= 1ull << (r * 5);
    }
    uint64_t last_col = first_col << 4;
    cfg->river = 0x1full;
    cfg->far = 0x1full << ((cfg->rows - 1) * 5);
    cfg->not_first_col = cfg->full & ~first_col;
    cfg->not_last_col = cfg->full & ~last_col;
    cfg->delta[0] = 5;
    cfg->delta[1] = 1;
    cfg->delta[2] = -5;
    cfg->delta[3] = -1;
    cfg->src[0] = cfg->full & ~cfg->far;
    cfg->src[1] = cfg->full & ~last_col;
    cfg->src[2] = cfg->full & ~cfg->river;
    cfg->src[3] = cfg->full & ~first_col;
    return NULL;
}

static const char *bad_state(const char *name, int value) {
    snprintf(message, sizeof message, "state field %s: value %d out of range", name, value);
    return message;
}

#define CHECK(cond, name, value)                                                               \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            return bad_state(name, (int)(value));                                              \
        }                                                                                      \
    } while (0)

static const char *check_list(const int8_t *a, int len, int lo, int hi, const char *name) {
    for (int i = 0; i < len; i++) {
        CHECK(a[i] >= lo && a[i] <= hi, name, a[i]);
    }
    return NULL;
}

#define LIST(a, len, lo, hi, name)                                                             \
    do {                                                                                       \
        const char *e_ = check_list((a), (len), (lo), (hi), (name));                           \
        if (e_) {                                                                              \
            return e_;                                                                         \
        }                                                                                      \
    } while (0)

const char *mr_check_state(const mr_config *cfg, const mr_state *st) {
    int n = cfg->n, cells = cfg->cells, kmax = cfg->num_plot_kinds - 1;
    int cmax = cfg->n == 2 ? cfg->num_contents - 1 : kmax;
    CHECK(st->pile_len >= 0 && st->pile_len <= MR_MAX_PLOTS, "pile_len", st->pile_len);
    LIST(st->pile, st->pile_len, 0, kmax, "pile");
    CHECK(st->removed_len >= 0 && st->removed_len <= MR_MAX_PLOTS, "removed_len",
          st->removed_len);
    LIST(st->removed, st->removed_len, 0, kmax, "removed");
    CHECK(st->discarded_len >= 0 && st->discarded_len <= MR_MAX_PLOTS, "discarded_len",
          st->discarded_len);
    LIST(st->discarded, st->discarded_len, 0, kmax, "discarded");
    /* Every plot that can still be discarded or removed fits the lists. */
    int loose = st->pile_len + st->removed_len + st->discarded_len;
    for (int s = 0; s < cfg->n; s++) {
        loose += st->held_len[s] > 0 ? st->held_len[s] : 0;
    }
    for (int p = 0; p < cfg->column_size; p++) {
        loose += (st->cur_col[p] >= 0) + (st->next_col[p] >= 0);
    }
    CHECK(loose <= MR_MAX_PLOTS, "discarded_len", loose);
    CHECK(st->stack_len >= 0 && st->stack_len <= MR_MAX_PARTNERS, "stack_len", st->stack_len);
    LIST(st->stack, st->stack_len, 0, MR_NUM_PARTNER_KINDS - 1, "stack");
    LIST(st->saloon, cfg->saloon_size, -1, MR_NUM_PARTNER_KINDS - 1, "saloon");
    LIST(st->cur_col, cfg->column_size, -1, kmax, "cur_col");
    LIST(st->next_col, cfg->column_size, -1, kmax, "next_col");
    LIST(st->cur_claim, cfg->column_size, -1, n - 1, "cur_claim");
    LIST(st->next_claim, cfg->column_size, -1, n - 1, "next_claim");
    CHECK(st->supply >= 0 && st->supply <= cfg->cows_total, "supply", st->supply);
    CHECK(st->round >= 0 && st->round <= MR_MAX_PLOTS, "round", st->round);
    CHECK(st->dominoes >= 0 && st->dominoes <= cells, "dominoes", st->dominoes);
    CHECK(st->scenario >= (cfg->legends ? 0 : -1) && st->scenario <= (cfg->legends ? 3 : -1),
          "scenario", st->scenario);
    LIST(st->boards, n, cfg->legends ? 1 : 0, cfg->legends ? MR_NUM_BOARDS - 1 : 0, "boards");
    CHECK(st->final_round == 0 || st->final_round == 1, "final_round", st->final_round);
    CHECK(st->phase >= 0 && st->phase < MR_NUM_PHASES, "phase", st->phase);
    CHECK(st->seat >= (st->phase == PH_GAME_OVER ? -1 : 0) &&
              st->seat <= (st->phase == PH_GAME_OVER ? -1 : n - 1),
          "seat", st->seat);
    CHECK(st->setup_len == cfg->num_rancheros, "setup_len", st->setup_len);
    LIST(st->setup_order, st->setup_len, 0, n - 1, "setup_order");
    CHECK(st->setup_idx >= 0 && st->setup_idx <= st->setup_len, "setup_idx", st->setup_idx);
    CHECK(st->turn_pos >= -1 && st->turn_pos < cfg->column_size, "turn_pos", st->turn_pos);
    CHECK(st->final_turn == 0 || st->final_turn == 1, "final_turn", st->final_turn);
    for (int s = 0; s < n; s++) {
        CHECK(st->held_len[s] >= 0 && st->held_len[s] <= cfg->held_positions, "held_len",
              st->held_len[s]);
        LIST(st->held[s], st->held_len[s], 0, kmax, "held");
        LIST(st->kinds[s], cells, -1, cmax, "kinds");
        LIST(st->cows[s], cells, 0, cfg->cows_total, "cows");
        LIST(st->partners[s], cells, -1, 2 * MR_NUM_PARTNER_KINDS - 1, "partners");
        CHECK(st->bonus_done[s] == 0 || st->bonus_done[s] == 1, "bonus_done", st->bonus_done[s]);
        int total = 0;
        for (int c = 0; c < cells; c++) {
            total += st->cows[s][c];
            /* Cows and partners stand on plots. */
            CHECK(st->kinds[s][c] >= 0 || (!st->cows[s][c] && st->partners[s][c] < 0), "kinds",
                  c);
        }
        CHECK(total <= cfg->cows_total, "cows", total);
    }
    LIST(st->tiles, cfg->num_tiles, 0, n == 2 ? 1 : 0, "tiles");
    CHECK(st->piece_len >= 0 && st->piece_len <= 2, "piece_len", st->piece_len);
    LIST(st->piece, st->piece_len, 0, cells - 1, "piece");
    CHECK(st->skulls_len >= 0 && st->skulls_len <= st->piece_len, "skulls_len", st->skulls_len);
    LIST(st->skulls, st->skulls_len, 0, cells - 1, "skulls");
    CHECK(st->circles_len >= 0 && st->circles_len <= st->piece_len, "circles_len",
          st->circles_len);
    LIST(st->circles, st->circles_len, 0, st->piece_len - 1, "circles");
    CHECK(st->reached_far == 0 || st->reached_far == 1, "reached_far", st->reached_far);
    CHECK(st->effect_cell >= -1 && st->effect_cell < cells, "effect_cell", st->effect_cell);
    CHECK(st->cowboy_moves >= 0 && st->cowboy_moves <= 3, "cowboy_moves", st->cowboy_moves);
    /* The phases that read a cell or a piece need one. */
    if (st->phase == PH_THIEF) {
        CHECK(st->effect_cell >= 0 && st->kinds[st->seat][st->effect_cell] >= 0, "effect_cell",
              st->effect_cell);
    }
    if (st->phase == PH_RECRUIT || st->phase == PH_SKULL) {
        CHECK(st->piece_len > 0, "piece_len", st->piece_len);
    }
    if (st->phase == PH_SKULL) {
        CHECK(st->skulls_len > 0 && st->kinds[st->seat][st->skulls[0]] >= 0, "skulls",
              st->skulls_len);
    }
    for (int i = 0; i < st->piece_len; i++) {
        CHECK(st->seat < 0 || st->kinds[st->seat][st->piece[i]] >= 0, "piece", st->piece[i]);
    }
    return NULL;
}
