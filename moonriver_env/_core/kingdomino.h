/* Kingdomino in the native core: one game as a flat struct (kingdomino.c).
 *
 * The rules are the Python engine's (moonriver_env/kingdomino/state.py, kingdom.py,
 * scoring.py) and the observation is kingdomino_encoding.py's, function for function. The
 * domino table, the bonus values and the layout numbers are read from the Python package at
 * start (moonriver_env/vector/kingdomino.py) into a KdParams. The set-up (the shuffled pile
 * and the set-up order) is taken from the engine's new_game, so the deal is the engine's. */
#ifndef MOONRIVER_KINGDOMINO_H
#define MOONRIVER_KINGDOMINO_H

#include <stdint.h>

#define KD_DOMINOES 48
#define KD_MAX_SEATS 4
#define KD_MAX_LINE 4
#define KD_MAX_CELLS 169 /* 13 x 13, the Mighty Duel */
#define KD_EMPTY (-1)
#define KD_CASTLE 6
#define KD_CHANNELS 10
#define KD_MAX_GAMES 3 /* a Dynasty */

enum { KD_SETUP_PICK = 0, KD_PLACE = 1, KD_PICK = 2, KD_GAME_OVER = 3 };

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

/* One game's set-up, as the engine dealt it. */
typedef struct {
    int32_t pile[KD_DOMINOES], npile;
    int8_t in_box[KD_DOMINOES];
    int32_t line[KD_MAX_LINE], order[KD_MAX_LINE];
} KdDeal;

typedef struct {
    int8_t land[KD_MAX_SEATS][KD_MAX_CELLS];   /* KD_EMPTY, a landscape 0-5, KD_CASTLE */
    int8_t crowns[KD_MAX_SEATS][KD_MAX_CELLS];
    int32_t rmin[KD_MAX_SEATS], rmax[KD_MAX_SEATS], cmin[KD_MAX_SEATS], cmax[KD_MAX_SEATS];
    int32_t occupied[KD_MAX_SEATS];
    int32_t pile[KD_DOMINOES];
    int32_t npile;
    int8_t unseen[KD_DOMINOES]; /* in the pile or the box */
    int32_t cur_line[KD_MAX_LINE], cur_kings[KD_MAX_LINE];
    int32_t next_line[KD_MAX_LINE], next_kings[KD_MAX_LINE];
    int32_t has_next;
    int32_t phase, seat, turn_pos;
    int32_t setup_order[KD_MAX_LINE], setup_idx;
    int32_t game;                                   /* 0-2 in a Dynasty, else 0 */
    KdDeal deals[KD_MAX_GAMES];                      /* every game's set-up */
    int32_t results[KD_MAX_GAMES][KD_MAX_SEATS][2]; /* finished games: points, largest */
} KdGame;

/* 0, or -1 naming the bad entry in *why. */
int kd_params_from(KdParams *p, const int64_t *v, int64_t len, const char **why);
/* Take game `slot`'s set-up as the engine dealt it: pile (npile entries, drawn from the
 * end), box (nbox), the first line (line entries, sorted) and the set-up order (line
 * entries). Slot 0 starts the whole match; slots 1-2 (a Dynasty) are played when the game
 * before ends. 0, or -1 with *why (the game unchanged). */
int kd_init(const KdParams *p, KdGame *g, int slot, const int64_t *pile, int64_t npile,
            const int64_t *box, int64_t nbox, const int64_t *line, const int64_t *order,
            const char **why);
/* The legal ids, ascending, into out (room for p->num_actions); their count. */
int kd_legal(const KdParams *p, const KdGame *g, int32_t *out);
/* Play a legal action (the caller checks it against kd_legal). */
void kd_apply(const KdParams *p, KdGame *g, int32_t action);
/* A seat's points and largest territory in the match so far (a Dynasty: totals added, the
 * largest territory of any kingdom, ruling KR5). */
void kd_rank_key(const KdParams *p, const KdGame *g, int seat, int32_t *points, int32_t *largest);
/* Points and largest territory of a seat's kingdom (this game). */
void kd_score(const KdParams *p, const KdGame *g, int seat, int32_t *points, int32_t *largest);
/* The flat observation for seat into out (p->obs_size floats). */
void kd_encode(const KdParams *p, const KdGame *g, int seat, float *out);

#endif
