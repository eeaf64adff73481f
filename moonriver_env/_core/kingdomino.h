/* Kingdomino in the native core: one game as a flat struct (kingdomino.c).
 *
 * The rules are the Python engine's (moonriver_env/kingdomino/rules/state.py, kingdom.py,
 * scoring.py) and the observation is kingdomino_encoding.py's, function for function. The
 * domino table, the bonus values and the layout numbers are read from the Python package at
 * start (moonriver_env/kingdomino/vector/game.py) into a KdParams. The set-up is the engine's
 * _start_game drawn from NumPy's generator (rng.c), so the deal is the engine's; the same
 * generator deals a Dynasty's next game when the game before ends.
 *
 * A game is one fixed-size struct (a clone is a memcpy): its fields are the engine's state
 * fields (moonriver_env.kingdomino.rules.core.FIELDS, lists as length + array) and the generator,
 * listed for the Python side in KD_GAME_FIELDS; the few derived ones at its end are rebuilt
 * by kd_rebuild after a record comes in from outside (kd_check first). */
#ifndef MOONRIVER_KINGDOMINO_H
#define MOONRIVER_KINGDOMINO_H

#include <stdint.h>

#include "moonriver.h"

#define KD_DOMINOES 48
#define KD_MAX_SEATS 4
#define KD_MAX_LINE 4
#define KD_MAX_CELLS 169 /* 13 x 13, the Mighty Duel */
#define KD_MAX_LEGAL (4 * KD_MAX_CELLS + 1 + KD_MAX_LINE)
#define KD_EMPTY (-1)
#define KD_CASTLE 6
#define KD_CHANNELS 10
#define KD_MAX_GAMES 3 /* a Dynasty */

enum { KD_SETUP_PICK = 0, KD_PLACE = 1, KD_PICK = 2, KD_GAME_OVER = 3 };

/* Playout policies (agents/kingdomino_agents.py playout) and leaf values (outcome), in the
 * order of KD_POLICY_NAMES and KD_VALUE_NAMES. */
enum { KD_RANDOM, KD_GREEDY, KD_PLAYER_GREEDY, KD_NUM_POLICIES };
enum { KD_WIN, KD_MARGIN, KD_NUM_VALUES };
extern const char *KD_POLICY_NAMES[KD_NUM_POLICIES];
extern const char *KD_VALUE_NAMES[KD_NUM_VALUES];

/* The params vector, in this order (kd_params_from). */
enum {
    KP_PLAYERS, KP_SIZE, KP_LINE, KP_IN_PLAY, KP_MUST_PLACE, KP_HARMONY, KP_MIDDLE,
    KP_HARMONY_BONUS, KP_MIDDLE_BONUS, KP_DISCARD, KP_PICK_BASE, KP_NUM_ACTIONS, KP_OBS_SIZE,
    KP_PHASE_SETUP, KP_PHASE_PLACE, KP_PHASE_PICK, KP_PHASE_OVER, KP_NUM_GAMES,
    KP_TABLE /* then 48 x (land1, crowns1, land2, crowns2, number, symmetric) */
};
#define KD_PARAMS_LEN (KP_TABLE + KD_DOMINOES * 6)

typedef struct {
    int32_t n, size, side, cells, line, in_play, must_place, harmony, middle;
    int32_t num_games, harmony_bonus, middle_bonus, discard, pick_base, num_actions, obs_size;
    int8_t land1[KD_DOMINOES], crowns1[KD_DOMINOES], land2[KD_DOMINOES], crowns2[KD_DOMINOES];
    int8_t symmetric[KD_DOMINOES];
    int32_t number[KD_DOMINOES];
} KdParams;

typedef struct {
    mr_pcg64 rng;                                   /* the engine's generator */
    int16_t results[KD_MAX_GAMES][KD_MAX_SEATS][2]; /* finished games: points, largest */
    int8_t land[KD_MAX_SEATS][KD_MAX_CELLS];        /* KD_EMPTY, a landscape 0-5, KD_CASTLE */
    int8_t crowns[KD_MAX_SEATS][KD_MAX_CELLS];
    int8_t pile[KD_DOMINOES], box[KD_DOMINOES], discarded[KD_DOMINOES];
    int8_t placed[KD_MAX_SEATS][KD_DOMINOES];
    int8_t pile_len, box_len, discarded_len, placed_len[KD_MAX_SEATS];
    int8_t cur_line[KD_MAX_LINE], cur_kings[KD_MAX_LINE];
    int8_t next_line[KD_MAX_LINE], next_kings[KD_MAX_LINE];
    int8_t has_next; /* the engine's next_line is not empty */
    int8_t setup_order[KD_MAX_LINE];
    int8_t phase, seat, turn_pos, setup_idx, game;
    /* derived (kd_rebuild) */
    int8_t unseen[KD_DOMINOES]; /* in the pile or the box */
    int8_t rmin[KD_MAX_SEATS], rmax[KD_MAX_SEATS], cmin[KD_MAX_SEATS], cmax[KD_MAX_SEATS];
    int16_t occupied[KD_MAX_SEATS];
} KdGame;

/* The territories of one kingdom: each square's territory, and each territory's squares
 * and crowns (scoring.py placement_gains finds them once per decision the same way). */
typedef struct {
    int16_t label[KD_MAX_CELLS];
    int16_t squares[KD_MAX_CELLS], crowns[KD_MAX_CELLS];
} Territories;

/* --- shared by kingdomino.c and kdsearch.c --------------------------------------------- */
/* The territories of seat s's kingdom into t; their count. */
int kd_territories(const KdParams *p, const KdGame *g, int s, Territories *t);
/* Ruling KR3: every square within (size - 1) / 2 rows and columns of the castle. */
int kd_centred(const KdParams *p, const KdGame *g, int s);
/* The second half's cell in direction dir (S, E, N, W), or -1 off the board. */
int kd_other_cell(const KdParams *p, int cell, int dir);
/* Domino d's squares into seat s's kingdom at placement a (a legal placement id): the
 * kingdom only (Kingdom.place), nothing else of the game changes. */
void kd_place(const KdParams *p, KdGame *g, int s, int d, int32_t a);
/* The placements of domino d in seat s's kingdom (placement_ids), ascending; their count. */
int kd_placements(const KdParams *p, const KdGame *g, int s, int d, int32_t *out);

/* The record's fields (every field above the derived ones), for the Python side. */
extern const mr_field KD_GAME_FIELDS[];
extern const int KD_NUM_GAME_FIELDS;

/* 0, or -1 naming the bad entry in *why. */
int kd_params_from(KdParams *p, const int64_t *v, int64_t len, const char **why);
/* The game new_game(config, seed=seed) sets up. */
void kd_new_game(const KdParams *p, KdGame *g, uint64_t seed);
/* Checks a record read from outside (every index the rules read is in range, every domino
 * once, kings, phase and seat agree, each kingdom its castle and its placed halves inside
 * the frame); NULL or a message naming the field. Then kd_rebuild. */
const char *kd_check(const KdParams *p, const KdGame *g);
void kd_rebuild(const KdParams *p, KdGame *g);
/* The legal ids, ascending, into out (room for KD_MAX_LEGAL); their count. */
int kd_legal(const KdParams *p, const KdGame *g, int32_t *out);
/* Whether a is legal now. */
int kd_is_legal(const KdParams *p, const KdGame *g, int64_t a);
/* Play a legal action (the caller checks it). */
void kd_apply(const KdParams *p, KdGame *g, int32_t action);
/* A seat's points and largest territory in the match so far (a Dynasty: totals added, the
 * largest territory of any kingdom, ruling KR5). */
void kd_rank_key(const KdParams *p, const KdGame *g, int seat, int32_t *points, int32_t *largest);
/* Points and largest territory of a seat's kingdom (this game). */
void kd_score(const KdParams *p, const KdGame *g, int seat, int32_t *points, int32_t *largest);
/* The flat observation for seat into out (p->obs_size floats). */
void kd_encode(const KdParams *p, const KdGame *g, int seat, float *out);

/* --- search (the agents of agents/kingdomino_agents.py) ------------------------------- */
/* KingdominoState.redetermine(rng): the unseen dominoes sorted, shuffled, split again. */
void kd_redetermine(KdGame *g, mr_pcg64 *rng);
/* playout(state, policy, rng, me) to the end; the decisions played. */
int kd_playout(const KdParams *p, KdGame *g, int policy, int me, mr_pcg64 *rng);
/* Each legal move's greedy gain (count <= KD_MAX_LEGAL), in legal's order: the values the
 * greedy agent compares (a placement's points gain, the discard 0, a pick's best gain). */
void kd_greedy_gains(const KdParams *p, const KdGame *g, const int32_t *legal, int count,
                     int32_t *gains);
/* Each legal move's value to the heuristic agent (kingdomino/agents/heuristic.py), in legal's
 * order: a placement's position_value after it (the discard: as things stand), a pick's
 * domino_value of its domino. */
void kd_heuristic_values(const KdParams *p, const KdGame *g, const int32_t *legal, int count,
                         double *values);
/* The greedy agent's move among legal (count > 1): the best points gain, ties drawn with rng;
 * gains (NULL: not wanted) gets every legal action's gain, in legal's order. */
int32_t kd_greedy_action(const KdParams *p, const KdGame *g, const int32_t *legal, int count,
                         mr_pcg64 *rng, double *gains);
/* outcome(state, seat, value) of a finished game. */
double kd_outcome(const KdParams *p, const KdGame *g, int seat, int value);
/* MonteCarloKingdominoAgent.choose's loop with a sims budget: rounds of one redetermine of
 * root with rng, one rng.integers(2**62) playout seed, and every candidate played from that
 * deal (default_rng(seed) playouts), until sims playouts; totals and counts per candidate
 * (zeroed here). The candidates must be legal in root. */
void kd_monte_carlo(const KdParams *p, const KdGame *root, const int32_t *cands, int ncands,
                    int64_t sims, int policy, int value, int seat, mr_pcg64 *rng, double *totals,
                    int64_t *counts);

#endif
