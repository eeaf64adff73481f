/* The native Moon River core: the rules of RULES.md sections 2-7 as moonriver_env.moonriver.rules plays
 * them, the observation and mask of moonriver_env.moonriver.encoding, and NumPy's random generator
 * (SeedSequence, PCG64 and the Generator methods the set-up uses).
 *
 * Plain C11 with no Python include: the CPython binding (module.c) is a separate file. Every
 * table (component data, action layout, observation layout) is handed in at start by the
 * Python package (moonriver_env.moonriver.vector._spec) as one int64 vector; mr_config_init checks it.
 * A game state is one fixed-size struct, so a clone is a memcpy and a batch of games is one
 * NumPy array of records.
 */
#ifndef MOONRIVER_CORE_H
#define MOONRIVER_CORE_H

#include <stddef.h>
#include <stdint.h>

#define MR_MAX_PLAYERS 4
#define MR_MAX_CELLS 50
#define MR_MAX_CONTENTS 64 /* plot kinds + bonus tile sides */
#define MR_MAX_PLOTS 128
#define MR_MAX_PARTNERS 32
#define MR_MAX_SALOON 8
#define MR_MAX_COLUMN 8
#define MR_MAX_HELD 8 /* held positions: the largest reserve + 1 */
#define MR_MAX_PAIRS 28
#define MR_MAX_TILES 2
#define MR_NUM_LANDS 6
#define MR_NUM_PARTNER_KINDS 5
#define MR_NUM_BOARDS 5 /* camp, mary, wesley, calamity, big_jo */
#define MR_NUM_SCENARIOS 4
#define MR_NUM_SEGMENTS 14
#define MR_MAX_SETUP 8
#define MR_MAX_ACTIONS 8192

/* Phase codes: moonriver_env.moonriver.rules.core.Phase (checked by the tests). */
enum {
    PH_SETUP_CLAIM, PH_EXPAND, PH_MUST_EXPAND, PH_FINAL_EXPAND, PH_DISCARD, PH_SKULL,
    PH_RECRUIT, PH_COWBOY, PH_DESPERADO, PH_THIEF, PH_BONUS, PH_SELECT, PH_GAME_OVER,
    MR_NUM_PHASES
};

/* Landscape codes (moonriver_env.moonriver.rules.components.Landscape order) and partner kinds
 * (PartnerKind order): the codes the component tables of the spec use. */
enum { LAND_DESERT, LAND_CANYON, LAND_MEADOW, LAND_FOREST, LAND_CORNFIELD, LAND_FARM };
enum { PK_DESPERADO, PK_CATTLE_THIEF, PK_GOLD_DIGGER, PK_TRAPPER, PK_FARMER };

/* Action segments in id order: moonriver_env.moonriver.rules.actions.SEGMENTS (checked by the tests). */
enum {
    SEG_CLAIM, SEG_PLACE, SEG_STOP, SEG_DISCARD, SEG_SKULL, SEG_RECRUIT, SEG_COWBOY_MOVE,
    SEG_COWBOY_STOP, SEG_DESPERADO_SWAP, SEG_DESPERADO_SKIP, SEG_THIEF_STEAL, SEG_THIEF_SKIP,
    SEG_BONUS_PLACE, SEG_BONUS_REMOVE
};

/* Ranch channels the encoder writes (their public index comes from the spec). */
enum {
    CH_LAND0, CH_EMPTY = CH_LAND0 + MR_NUM_LANDS, CH_COWS, CH_GOLD, CH_BEAVER, CH_CORN,
    CH_SKULL, CH_CIRCLE, CH_PARTNER0, CH_PROTECTED = CH_PARTNER0 + 2 * MR_NUM_PARTNER_KINDS,
    CH_RIVER, CH_BRIDGE, CH_BONUS_TILE, CH_PIECE, CH_SKULL_TARGET, MR_NUM_CHANNELS
};

/* Feature slices the encoder writes (their start comes from the spec). */
enum {
    F_PHASE, F_ACTOR, F_ROUND, F_FINAL_ROUND, F_FINAL_TURN, F_DOMINOES, F_HELD, F_HELD_COUNT,
    F_RESERVE_SLOTS, F_BOARD, F_CURRENT_COLUMN, F_CURRENT_CLAIMS, F_NEXT_COLUMN, F_NEXT_CLAIMS,
    F_SALOON, F_STACK_SIZE, F_COW_SUPPLY, F_UNSEEN_PLOTS, F_SCORES, F_PENDING_SKULLS,
    F_PENDING_CIRCLES, F_COWBOY_MOVES_LEFT, F_BONUS_TILES_AVAILABLE, F_BONUS_TILE_TAKEN,
    F_SCENARIO, MR_NUM_FEATURE_SLICES
};

/* NumPy's PCG64 bit generator with its 32-bit buffer (numpy.random.PCG64 .state). */
typedef struct {
    uint64_t state_hi, state_lo, inc_hi, inc_lo;
    uint32_t has_uint32, uinteger;
} mr_pcg64;

/* One game: every field of moonriver_env.moonriver.rules.core.StateCore (lists as length + array),
 * the game's generator after set-up, and the derived bitboards. */
typedef struct {
    mr_pcg64 rng;
    int16_t pile_len, removed_len, discarded_len, supply, round, dominoes;
    int8_t pile[MR_MAX_PLOTS];
    int8_t removed[MR_MAX_PLOTS];
    int8_t discarded[MR_MAX_PLOTS];
    int8_t stack_len;
    int8_t stack[MR_MAX_PARTNERS];
    int8_t saloon[MR_MAX_SALOON];
    int8_t cur_col[MR_MAX_COLUMN], cur_claim[MR_MAX_COLUMN];
    int8_t next_col[MR_MAX_COLUMN], next_claim[MR_MAX_COLUMN];
    int8_t scenario; /* -1: none (base game) */
    int8_t boards[MR_MAX_PLAYERS]; /* 0 camp, 1.. the Legends boards */
    int8_t final_round, phase, seat;
    int8_t setup_len, setup_idx;
    int8_t setup_order[MR_MAX_SETUP];
    int8_t turn_pos, final_turn;
    int8_t held_len[MR_MAX_PLAYERS];
    int8_t held[MR_MAX_PLAYERS][MR_MAX_HELD];
    int8_t kinds[MR_MAX_PLAYERS][MR_MAX_CELLS];
    int8_t cows[MR_MAX_PLAYERS][MR_MAX_CELLS];
    int8_t partners[MR_MAX_PLAYERS][MR_MAX_CELLS];
    int8_t bonus_done[MR_MAX_PLAYERS];
    int8_t tiles[MR_MAX_TILES];
    int8_t piece_len, skulls_len, circles_len;
    int8_t piece[2], skulls[2], circles[2];
    int8_t reached_far, effect_cell, cowboy_moves;
    int8_t slots[MR_MAX_PLAYERS];
    /* Derived from the fields above (mr_rebuild). */
    uint64_t bridges[MR_MAX_PLAYERS];
    uint64_t land_bb[MR_MAX_PLAYERS][MR_NUM_LANDS];
    uint64_t occ[MR_MAX_PLAYERS], cow_bb[MR_MAX_PLAYERS], partner_bb[MR_MAX_PLAYERS];
    /* Counts the changes of each ranch (plots, cows, partners): the encoder's cache key. */
    uint32_t version[MR_MAX_PLAYERS];
} mr_state;

/* The symbol channels of a plot kind (mr_config.symbols), in the encoder's order. */
enum { SYM_GOLD, SYM_BEAVER, SYM_CORN, SYM_SKULL, SYM_CIRCLE, SYM_BONUS_TILE, MR_NUM_SYMBOLS };

/* Per-config tables (read from the spec by mr_config_init; never changed afterwards). */
typedef struct {
    int n, rows, cells, legends, auto_resolve;
    int scenario_cfg; /* -1: drawn at set-up; 0..3 fixed; -2: base game (none) */
    int boards_mode;  /* 0: by seat in order; 1: dealt at random; 2: fixed */
    int boards_fixed[MR_MAX_PLAYERS];
    int num_plot_kinds, num_contents;
    int land[MR_MAX_CONTENTS], gold[MR_MAX_CONTENTS], beaver[MR_MAX_CONTENTS];
    int corn[MR_MAX_CONTENTS], cowsym[MR_MAX_CONTENTS], skull[MR_MAX_CONTENTS];
    int circle[MR_MAX_CONTENTS], back[MR_MAX_CONTENTS];
    uint8_t symbols[MR_MAX_CONTENTS]; /* derived: each kind's symbol channels (SYM_* bits) */
    int num_plots, plot_list[MR_MAX_PLOTS];
    int num_partners, partner_list[MR_MAX_PARTNERS];
    int board_bridges[MR_NUM_BOARDS], board_slots[MR_NUM_BOARDS];
    int cows_total, saloon_size, column_size, num_tiles;
    int held_positions, num_pairs, pair_i[MR_MAX_PAIRS], pair_j[MR_MAX_PAIRS];
    int num_rancheros;
    int num_actions, seg_start[MR_NUM_SEGMENTS], seg_stride[MR_NUM_SEGMENTS][3];
    int channel[MR_NUM_CHANNELS], feature[MR_NUM_FEATURE_SLICES];
    int channel_of[MR_NUM_CHANNELS]; /* the inverse of channel */
    int num_features, plane_size, obs_size;
    uint64_t full, river, far, not_first_col, not_last_col, src[4];
    int delta[4];
} mr_config;

/* One seat's score (moonriver_env.moonriver.rules.scoring.ScoreBreakdown, same column order). */
typedef struct {
    int32_t territories, resources, partners, scenario, total, largest, cows;
} mr_breakdown;

/* The names and sizes of the spec entries, in order (the binding exports them). */
typedef struct {
    const char *name;
    int size;
} mr_spec_key;
extern const mr_spec_key MR_SPEC_KEYS[];
extern const int MR_NUM_SPEC_KEYS;
int mr_spec_length(void);

/* The fields of mr_state for the Python side's record dtype. */
typedef struct {
    const char *name;
    size_t offset;
    char type; /* 'b' int8, 'h' int16, 'I' uint32, 'Q' uint64 */
    int count;
} mr_field;
/* The record fields of a struct's generator `rng` (the Python side's six words). */
#define MR_RNG_FIELDS(type)                                                                    \
    {"rng_state_hi", offsetof(type, rng.state_hi), 'Q', 1},                                    \
    {"rng_state_lo", offsetof(type, rng.state_lo), 'Q', 1},                                    \
    {"rng_inc_hi", offsetof(type, rng.inc_hi), 'Q', 1},                                        \
    {"rng_inc_lo", offsetof(type, rng.inc_lo), 'Q', 1},                                        \
    {"rng_has_uint32", offsetof(type, rng.has_uint32), 'I', 1},                                \
    {"rng_uinteger", offsetof(type, rng.uinteger), 'I', 1}
extern const mr_field MR_STATE_FIELDS[];
extern const int MR_NUM_STATE_FIELDS;

/* Reads and checks a spec; returns NULL or a message naming the first bad entry. */
const char *mr_config_init(mr_config *cfg, const int64_t *spec, size_t len);

/* --- NumPy's random generator (rng.c) ----------------------------------------------- */
void mr_pcg64_seed(mr_pcg64 *rng, uint64_t seed); /* numpy.random.default_rng(seed) */
/* A seed as the 32-bit words Python's seeding reads (SeedSequence's entropy, random.Random's
 * init_by_array key): least significant first, [0] for 0; returns how many (1 or 2). */
int mr_seed_words(uint64_t seed, uint32_t words[2]);
uint64_t mr_next_uint64(mr_pcg64 *rng);
uint32_t mr_next_uint32(mr_pcg64 *rng);
uint64_t mr_integers(mr_pcg64 *rng, uint64_t high); /* Generator.integers(high) */
double mr_random(mr_pcg64 *rng);                   /* Generator.random(): [0, 1), 53 bits */
uint64_t mr_interval(mr_pcg64 *rng, uint64_t max);  /* random_interval (shuffles) */
/* Generator.shuffle of a small list (Fisher-Yates from the end with random_interval). */
void mr_shuffle8(mr_pcg64 *rng, int8_t *a, int len);
/* Sorts a small list ascending (insertion sort). */
void mr_sort8(int8_t *a, int len);

/* --- the rules (rules.c) --------------------------------------------------------------- */
/* A new game as moonriver_env.moonriver.rules.new_game(config, seed=seed) sets it up. */
void mr_new_game(const mr_config *cfg, mr_state *st, uint64_t seed);
/* The legal action ids, ascending, into out (room for cfg->num_actions); returns the count. */
int mr_legal(const mr_config *cfg, const mr_state *st, int16_t *out);
/* Plays a legal action (the caller checked it); then the auto-resolve of the config. */
void mr_apply(const mr_config *cfg, mr_state *st, int action);
/* Recomputes the derived bitboards from the per-cell fields and the boards. */
void mr_rebuild(const mr_config *cfg, mr_state *st);
/* Checks every field of a state read from outside; NULL or a message naming the field. */
const char *mr_check_state(const mr_config *cfg, const mr_state *st);
void mr_score(const mr_config *cfg, const mr_state *st, int seat, mr_breakdown *out);
/* (territories, resources, partners, scenario) of one seat. */
void mr_points(const mr_config *cfg, const mr_state *st, int seat, int out[4]);
/* (territories + resources + partners + scenario) of one seat, cheaper than mr_score. */
int mr_total(const mr_config *cfg, const mr_state *st, int seat);
/* Seats that win after the tie-breaks, as a bit set (R18). */
int mr_winners(const mr_config *cfg, const mr_breakdown *scores);
/* The skull's territory (a bitboard) while a skull is pending, else 0. */
uint64_t mr_skull_territory(const mr_config *cfg, const mr_state *st);
uint64_t mr_protected(const mr_config *cfg, const mr_state *st, int seat);
/* Re-shuffles the hidden order of the pile and the stack with rng (for search). */
void mr_redetermine(mr_state *st, mr_pcg64 *rng);

/* --- inside the rules (rules.c, transitions.c, scoring.c; MR_RULES_INTERNAL) ------------ */
#ifdef MR_RULES_INTERNAL
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

/* The helpers one rules file lends another (rules.c: the table and the legal actions;
 * transitions.c: the auto-resolve). */
void mr_auto_resolve(const mr_config *cfg, mr_state *st);
int mr_cowboy_moves(const mr_config *cfg, const mr_state *st, int seat, int16_t *out);
void mr_open_next_column(const mr_config *cfg, mr_state *st);
int mr_placements(const mr_config *cfg, const mr_state *st, int seat, int16_t *out);
void mr_refill_saloon(const mr_config *cfg, mr_state *st);
void mr_remove_at(int8_t *a, int8_t *len, int i);
void mr_remove_unclaimed(const mr_config *cfg, mr_state *st, int8_t *col, const int8_t *claim);
uint64_t mr_skull_targets(const mr_config *cfg, const mr_state *st);
int mr_steals(const mr_config *cfg, const mr_state *st, int seat, int16_t *out);
int mr_swaps(const mr_config *cfg, const mr_state *st, int seat, int16_t *out);
#endif

/* --- the search agents' simulations (agent.c, rollout.c) ------------------------------- */
/* Rolls st forward (policy 0: random, 1: the light heuristic of agents/rollout.py) for depth
 * decisions (0: to the end) with random.Random(seed) noise, then writes every seat's leaf
 * value (value_mode 0: margin, 1: win) as agents.search.SearchAgent.leaf_values; weights:
 * the 11 fields of agents.evaluation.Weights in order. Returns the decisions played. */
int mr_simulate(const mr_config *cfg, mr_state *st, int policy, int depth, int value_mode,
                uint64_t seed, const double *weights, double *values);

/* The trained agent's leaf of one candidate (agents/trained.py, TrainedAgent): st (a copy of
 * a determinization, changed in place) plays action, then seat's pending effects with the
 * rule-based choices; with depth >= 0, a rollout of depth decisions (0: to the end) with the
 * light heuristic and random.Random(seed) noise follows, and a finished game writes seat's
 * final margin and returns 1. Otherwise row (cfg->obs_size + n + 1 floats) gets the
 * network input of agents.trained.state_inputs for seat (the evaluation with the leaf's own
 * context, or with depth < 0, the decision's: candidate_inputs) and 0 is returned. */
int mr_value_leaf(const mr_config *cfg, mr_state *st, int seat, int action, int depth,
                  uint64_t seed, const double *weights, float *row, double *margin);

/* The heuristic agent's one-ply value of each of actions (legal in det, a determinization)
 * for the acting seat (agents.heuristic.HeuristicAgent.action_values): the action applied to
 * sim (a copy of det), the seat's pending effects with the rule-based choices, then the
 * evaluation relative to the opponents, plus the claim order bonus. */
void mr_action_values(const mr_config *cfg, const mr_state *det, const int *actions, int count,
                      const double *weights, mr_state *sim, double *out);

/* The greedy agent's keys of each of actions (legal in det, a determinization) for the acting
 * seat (moonriver.agents.greedy.GreedyAgent): gain, the change of its total when the action is
 * applied to sim (a copy of det); tiebreak, the agent's documented tie-break key. */
void mr_greedy_keys(const mr_config *cfg, const mr_state *det, const int *actions, int count,
                    mr_state *sim, double *gain, double *tiebreak);

/* --- inside the agents (agent.c, rollout.c; MR_AGENT_INTERNAL) ------------------------- */
#ifdef MR_AGENT_INTERNAL
static inline int popc(uint64_t x) { return __builtin_popcountll(x); }
static inline int low(uint64_t x) { return __builtin_ctzll(x); }
static inline uint64_t nbrs(const mr_config *cfg, uint64_t m) {
    return (((m & cfg->not_last_col) << 1) | ((m & cfg->not_first_col) >> 1) | (m << 5) |
            (m >> 5)) &
           cfg->full;
}

typedef struct {
    int n;
    double share, frac;
    int unseen_land[MR_NUM_LANDS], unseen_cows[MR_NUM_LANDS];
    int unseen_gold, unseen_beaver, unseen_corn, tokens;
} context;

typedef struct {
    double grow_w, pipe_cow_w, unseen_cow_w, pipe_res_w, circle_w, skull_w, waste_w, theft_w,
        spread_w, order_w, opp_w;
} weights;

/* The helpers agent.c lends rollout.c: the flood fill, the evaluation's context of a state,
 * Evaluator.seat_value and the rule-based choice of a pending effect. */
int mr_effect_choice(const mr_config *cfg, const mr_state *st, const context *ctx, const int16_t *legal, int count);
uint64_t mr_flood(const mr_config *cfg, uint64_t seed, uint64_t within);
void mr_make_context(const mr_config *cfg, const mr_state *st, context *ctx);
double mr_seat_value(const mr_config *cfg, const mr_state *st, int seat, const context *ctx, const weights *w);
#endif

/* --- the observation (encode.c) ------------------------------------------------------- */
/* Writes the flat observation (planes, then features) of st as seen by seat into out
 * (cfg->obs_size floats), exactly as ObservationEncoder.encode_flat. */
void mr_encode(const mr_config *cfg, const mr_state *st, int seat, float *out);
/* Floats of one ranch block: the ranch's channels, channel-major (cfg->plane_size / n). */
int mr_block_size(const mr_config *cfg);
/* The same with a cache of each seat's ranch block and points (blocks: n blocks, points:
 * 4 per seat, keys: n), rebuilt only for ranches whose version changed; a key of
 * MR_NO_KEY forces a rebuild. */
#define MR_NO_KEY 0xFFFFFFFFu
/* Whether the cache of ranch a, built at key, must be rebuilt for st. */
static inline int mr_ranch_stale(uint32_t key, const mr_state *st, int a) {
    return key != st->version[a] || key == MR_NO_KEY;
}
void mr_encode_cached(const mr_config *cfg, const mr_state *st, int seat, float *out,
                      float *blocks, int32_t *points, uint32_t *keys);
/* What the ranch part of a game's sparse row was written from (the row's first len entries):
 * the observing seat, the ranches' versions, the pending piece's cells and the skull
 * territory shown, on the acting seat's ranch; and the pile's count of each kind when it held
 * unseen_len plots. len and unseen_len -1: nothing known (a new game, a set state; len also a
 * refused row). */
typedef struct {
    uint32_t keys[MR_MAX_PLAYERS];
    uint64_t piece, skull;
    int32_t len, seat, actor, unseen_len;
    uint64_t sym[MR_MAX_PLAYERS][7];       /* each ranch's occupied cells and, among them,
                                            * each symbol's (SYM_*), as last gathered */
    int32_t unseen_nk;                     /* the kinds the pile holds: how many, */
    uint8_t unseen_kind[MR_MAX_CONTENTS];  /* which (ascending) */
    float unseen_count[MR_MAX_CONTENTS];   /* and how many of each */
} mr_sparse_prefix;
/* One game's caches for the sparse observation: the ranch blocks of mr_encode_cached (blocks,
 * NULL where no dense observation is kept; points, keys: n entries each), each ranch's
 * non-zero entries (sidx/sval: n x ranch_width, slen: n), and the row's ranch part (prefix:
 * where it is unchanged, only the features are written again). */
typedef struct {
    float *blocks;
    int32_t *points;
    uint32_t *keys;
    int16_t *sidx;
    uint8_t *sval; /* the entries' values: small whole numbers */
    int32_t *slen; /* -1: the ranch had more entries than ranch_width */
    int ranch_width;
    mr_sparse_prefix *prefix;
} mr_sparse_cache;
/* The non-zero entries of mr_encode's observation in ascending index order (idx, val);
 * returns their count, or -1 (the outputs partly written) if there are more than width.
 * With c->prefix, idx/val must hold what the last call for this game wrote (the prefix says
 * what that was): a caller whose rows anyone else may write passes no prefix. */
int mr_encode_sparse(const mr_config *cfg, const mr_state *st, int seat, mr_sparse_cache *c,
                     int32_t *idx, float *val, int width);

#endif
