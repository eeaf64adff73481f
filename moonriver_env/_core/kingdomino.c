/* Kingdomino's rules and observation (kingdomino.h): the Python engine, function for
 * function, on plain cell arrays (the Mighty Duel's 13 x 13 board does not fit 64 bits). */
#include "kingdomino.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

int kd_params_from(KdParams *p, const int64_t *v, int64_t len, const char **why) {
    if (len != KD_PARAMS_LEN) { *why = "params: wrong length"; return -1; }
    p->n = (int32_t)v[KP_PLAYERS];
    p->size = (int32_t)v[KP_SIZE];
    p->line = (int32_t)v[KP_LINE];
    p->in_play = (int32_t)v[KP_IN_PLAY];
    if (p->n < 2 || p->n > KD_MAX_SEATS) { *why = "params: players"; return -1; }
    if (p->size != 5 && p->size != 7) { *why = "params: size"; return -1; }
    if (p->line < 1 || p->line > KD_MAX_LINE) { *why = "params: line size"; return -1; }
    if (p->in_play < p->line || p->in_play > KD_DOMINOES || p->in_play % p->line) {
        *why = "params: dominoes in play"; return -1;
    }
    p->side = 2 * p->size - 1;
    p->cells = p->side * p->side;
    p->must_place = v[KP_MUST_PLACE] != 0;
    p->harmony = v[KP_HARMONY] != 0;
    p->middle = v[KP_MIDDLE] != 0;
    p->num_games = (int32_t)v[KP_NUM_GAMES];
    if (p->num_games < 1 || p->num_games > KD_MAX_GAMES) { *why = "params: games"; return -1; }
    p->harmony_bonus = (int32_t)v[KP_HARMONY_BONUS];
    p->middle_bonus = (int32_t)v[KP_MIDDLE_BONUS];
    p->discard = (int32_t)v[KP_DISCARD];
    p->pick_base = (int32_t)v[KP_PICK_BASE];
    p->num_actions = (int32_t)v[KP_NUM_ACTIONS];
    p->obs_size = (int32_t)v[KP_OBS_SIZE];
    if (p->discard != 4 * p->cells || p->pick_base != p->discard + 1 ||
        p->num_actions != p->pick_base + p->line) {
        *why = "params: the action layout is not place/discard/pick"; return -1;
    }
    int32_t width = 1 + 6 + 1 + 6 + 1 + 1 + (p->n + 1);
    int32_t expect = p->n * KD_CHANNELS * p->cells + 4 + 1 + 1 + 1 + 2 * p->n +
                     p->line * (width + 1) + p->line * width + KD_DOMINOES;
    if (p->obs_size != expect) { *why = "params: observation size"; return -1; }
    if (v[KP_PHASE_SETUP] != KD_SETUP_PICK || v[KP_PHASE_PLACE] != KD_PLACE ||
        v[KP_PHASE_PICK] != KD_PICK || v[KP_PHASE_OVER] != KD_GAME_OVER) {
        *why = "params: phase numbers"; return -1;
    }
    for (int d = 0; d < KD_DOMINOES; d++) {
        const int64_t *r = v + KP_TABLE + 6 * d;
        if (r[0] < 0 || r[0] > 5 || r[2] < 0 || r[2] > 5 || r[1] < 0 || r[1] > 3 || r[3] < 0 ||
            r[3] > 3 || r[4] < 1 || r[4] > KD_DOMINOES) {
            *why = "params: domino table"; return -1;
        }
        p->land1[d] = (int8_t)r[0];
        p->crowns1[d] = (int8_t)r[1];
        p->land2[d] = (int8_t)r[2];
        p->crowns2[d] = (int8_t)r[3];
        p->number[d] = (int32_t)r[4];
        p->symmetric[d] = r[5] != 0;
    }
    return 0;
}

/* The record's fields: the engine's state fields and the generator (kingdomino.h). */
#define KD_FIELD(name, type, count) {#name, offsetof(KdGame, name), type, count}
const mr_field KD_GAME_FIELDS[] = {
    MR_RNG_FIELDS(KdGame),
    KD_FIELD(results, 'h', KD_MAX_GAMES * KD_MAX_SEATS * 2),
    KD_FIELD(land, 'b', KD_MAX_SEATS * KD_MAX_CELLS), KD_FIELD(crowns, 'b', KD_MAX_SEATS * KD_MAX_CELLS),
    KD_FIELD(pile, 'b', KD_DOMINOES), KD_FIELD(box, 'b', KD_DOMINOES), KD_FIELD(discarded, 'b', KD_DOMINOES),
    KD_FIELD(placed, 'b', KD_MAX_SEATS * KD_DOMINOES),
    KD_FIELD(pile_len, 'b', 1), KD_FIELD(box_len, 'b', 1), KD_FIELD(discarded_len, 'b', 1),
    KD_FIELD(placed_len, 'b', KD_MAX_SEATS),
    KD_FIELD(cur_line, 'b', KD_MAX_LINE), KD_FIELD(cur_kings, 'b', KD_MAX_LINE),
    KD_FIELD(next_line, 'b', KD_MAX_LINE), KD_FIELD(next_kings, 'b', KD_MAX_LINE),
    KD_FIELD(has_next, 'b', 1), KD_FIELD(setup_order, 'b', KD_MAX_LINE),
    KD_FIELD(phase, 'b', 1), KD_FIELD(seat, 'b', 1), KD_FIELD(turn_pos, 'b', 1),
    KD_FIELD(setup_idx, 'b', 1), KD_FIELD(game, 'b', 1),
};
const int KD_NUM_GAME_FIELDS = (int)(sizeof KD_GAME_FIELDS / sizeof KD_GAME_FIELDS[0]);

const char *KD_POLICY_NAMES[KD_NUM_POLICIES] = {"random", "greedy", "player_greedy"};
const char *KD_VALUE_NAMES[KD_NUM_VALUES] = {"win", "margin"};

static void sort_by_number(const KdParams *p, int8_t *a, int len) {
    for (int i = 1; i < len; i++) {
        int8_t x = a[i];
        int j = i - 1;
        while (j >= 0 && p->number[a[j]] > p->number[x]) { a[j + 1] = a[j]; j--; }
        a[j + 1] = x;
    }
}

static void draw_line(const KdParams *p, KdGame *g, int8_t *line) {
    /* draw_column: pop from the end, sort by number (stable; numbers are distinct) */
    for (int i = 0; i < p->line; i++) {
        line[i] = g->pile[--g->pile_len];
        g->unseen[line[i]] = 0;
    }
    sort_by_number(p, line, p->line);
}

static void draw_next_line(const KdParams *p, KdGame *g) {
    if (g->pile_len > 0) {
        draw_line(p, g, g->next_line);
        for (int i = 0; i < p->line; i++) g->next_kings[i] = -1;
        g->has_next = 1;
    } else {
        for (int i = 0; i < KD_MAX_LINE; i++) g->next_line[i] = g->next_kings[i] = -1;
        g->has_next = 0;
    }
}

/* state.py _start_game: the shuffle, the box, the first line, the set-up order. */
static void start_game(const KdParams *p, KdGame *g) {
    int8_t pile[KD_DOMINOES];
    int out = KD_DOMINOES - p->in_play, mid = p->size - 1;
    for (int i = 0; i < KD_DOMINOES; i++) pile[i] = (int8_t)i;
    mr_shuffle8(&g->rng, pile, KD_DOMINOES);
    memcpy(g->box, pile, (size_t)out);
    mr_sort8(g->box, out);
    g->box_len = (int8_t)out;
    memcpy(g->pile, pile + out, (size_t)p->in_play);
    g->pile_len = (int8_t)p->in_play;
    g->discarded_len = 0;
    memset(g->placed_len, 0, sizeof g->placed_len);
    memset(g->land, KD_EMPTY, sizeof g->land);
    memset(g->crowns, 0, sizeof g->crowns);
    for (int s = 0; s < p->n; s++) g->land[s][mid * p->side + mid] = KD_CASTLE;
    for (int i = 0; i < KD_MAX_LINE; i++) g->cur_line[i] = g->cur_kings[i] = -1;
    kd_rebuild(p, g);
    draw_line(p, g, g->cur_line);
    for (int i = 0; i < KD_MAX_LINE; i++) g->next_line[i] = g->next_kings[i] = -1;
    g->has_next = 0;
    if (p->n == 2) { /* seed line 75: A, B, B, A */
        int8_t first = (int8_t)mr_integers(&g->rng, 2);
        g->setup_order[0] = g->setup_order[3] = first;
        g->setup_order[1] = g->setup_order[2] = (int8_t)(1 - first);
    } else { /* seed line 73: the kings fall in a random order (permutation(n)) */
        for (int s = 0; s < p->n; s++) g->setup_order[s] = (int8_t)s;
        mr_shuffle8(&g->rng, g->setup_order, p->n);
    }
    g->setup_idx = 0;
    g->turn_pos = -1;
    g->phase = KD_SETUP_PICK;
    g->seat = g->setup_order[0];
}

void kd_new_game(const KdParams *p, KdGame *g, uint64_t seed) {
    memset(g, 0, sizeof *g);
    mr_pcg64_seed(&g->rng, seed);
    start_game(p, g);
}

static void next_turn(const KdParams *p, KdGame *g) {
    for (;;) {
        for (int pos = 0; pos < p->line; pos++) {
            if (g->cur_kings[pos] >= 0) {
                g->turn_pos = (int8_t)pos;
                g->seat = g->cur_kings[pos];
                g->phase = KD_PLACE;
                return;
            }
        }
        if (!g->has_next && g->game + 1 < p->num_games) { /* Dynasty: the next game */
            for (int s = 0; s < p->n; s++) {
                int32_t pts, big;
                kd_score(p, g, s, &pts, &big);
                g->results[g->game][s][0] = (int16_t)pts;
                g->results[g->game][s][1] = (int16_t)big;
            }
            g->game++;
            start_game(p, g);
            return;
        }
        if (!g->has_next) {
            g->phase = KD_GAME_OVER;
            g->seat = -1;
            g->turn_pos = -1;
            return;
        }
        memcpy(g->cur_line, g->next_line, sizeof g->cur_line);
        memcpy(g->cur_kings, g->next_kings, sizeof g->cur_kings);
        draw_next_line(p, g);
    }
}

void kd_rebuild(const KdParams *p, KdGame *g) {
    memset(g->unseen, 0, sizeof g->unseen);
    for (int i = 0; i < g->pile_len; i++) g->unseen[g->pile[i]] = 1;
    for (int i = 0; i < g->box_len; i++) g->unseen[g->box[i]] = 1;
    int mid = p->size - 1;
    for (int s = 0; s < KD_MAX_SEATS; s++) {
        g->rmin[s] = g->rmax[s] = g->cmin[s] = g->cmax[s] = (int8_t)mid;
        g->occupied[s] = 0;
        for (int cell = 0; s < p->n && cell < p->cells; cell++) {
            if (g->land[s][cell] == KD_EMPTY) continue;
            int r = cell / p->side, c = cell % p->side;
            g->occupied[s]++;
            if (r < g->rmin[s]) g->rmin[s] = (int8_t)r;
            if (r > g->rmax[s]) g->rmax[s] = (int8_t)r;
            if (c < g->cmin[s]) g->cmin[s] = (int8_t)c;
            if (c > g->cmax[s]) g->cmax[s] = (int8_t)c;
        }
    }
}

static const char *check_kingdom(const KdParams *p, const KdGame *g, int s) {
    int castle = (p->size - 1) * p->side + (p->size - 1);
    int halves[6][4], squares = 0, rmin = p->side, rmax = -1, cmin = p->side, cmax = -1;
    memset(halves, 0, sizeof halves);
    for (int i = 0; i < g->placed_len[s]; i++) {
        int d = g->placed[s][i];
        halves[p->land1[d]][p->crowns1[d]]++;
        halves[p->land2[d]][p->crowns2[d]]++;
    }
    for (int cell = 0; cell < KD_MAX_CELLS; cell++) {
        int land = g->land[s][cell], k = g->crowns[s][cell];
        if (cell >= p->cells || s >= p->n) {
            if (land != KD_EMPTY || k) return "land: a square outside the board or of no seat";
            continue;
        }
        if ((cell == castle) != (land == KD_CASTLE)) return "land: the castle is not in the middle";
        if (land < KD_EMPTY || land > KD_CASTLE) return "land: not a landscape";
        if (k < 0 || k > 3 || (k && (land == KD_EMPTY || land == KD_CASTLE)))
            return "crowns: out of range or on no landscape";
        if (land == KD_EMPTY) continue;
        int r = cell / p->side, c = cell % p->side;
        rmin = r < rmin ? r : rmin; rmax = r > rmax ? r : rmax;
        cmin = c < cmin ? c : cmin; cmax = c > cmax ? c : cmax;
        if (land == KD_CASTLE) continue;
        squares++;
        if (--halves[land][k] < 0) return "land: the squares are not the halves of the dominoes placed";
    }
    if (s < p->n && (squares != 2 * g->placed_len[s] || rmax - rmin >= p->size || cmax - cmin >= p->size))
        return "land: the squares do not fit the frame or the dominoes placed";
    return NULL;
}

typedef struct {
    const int8_t *ids;
    int len;
} IdList;

const char *kd_check(const KdParams *p, const KdGame *g) {
    int line = p->line, n = p->n, kings[KD_MAX_SEATS] = {0}, nkings = 0;
    int8_t seen[KD_DOMINOES];
    memset(seen, 0, sizeof seen);
    if (g->rng.has_uint32 > 1) return "rng_has_uint32: 0 or 1";
    if (g->phase < KD_SETUP_PICK || g->phase > KD_GAME_OVER) return "phase: out of range";
    if (g->game < 0 || g->game >= p->num_games) return "game: out of range";
    if (g->pile_len < 0 || g->pile_len > KD_DOMINOES || g->pile_len % line) return "pile_len: out of range";
    if (g->box_len != KD_DOMINOES - p->in_play) return "box_len: not the set-aside dominoes";
    if (g->discarded_len < 0 || g->discarded_len > KD_DOMINOES) return "discarded_len: out of range";
    if (g->has_next != 0 && g->has_next != 1) return "has_next: 0 or 1";
    IdList lists[5 + KD_MAX_SEATS] = {
        {g->pile, g->pile_len}, {g->box, g->box_len}, {g->discarded, g->discarded_len},
        {g->cur_line, line}};
    int nlists = 4;
    if (g->has_next) lists[nlists++] = (IdList){g->next_line, line};
    for (int s = 0; s < KD_MAX_SEATS; s++) {
        if (g->placed_len[s] < 0 || g->placed_len[s] > KD_DOMINOES || (s >= n && g->placed_len[s]))
            return "placed_len: out of range";
        lists[nlists++] = (IdList){g->placed[s], g->placed_len[s]};
    }
    int total = 0;
    for (int l = 0; l < nlists; l++) {
        for (int i = 0; i < lists[l].len; i++) {
            int d = lists[l].ids[i];
            if (l == 3 && d == -1) continue; /* a placed domino's place in the line */
            if (d < 0 || d >= KD_DOMINOES || seen[d]) return "dominoes: each of the 48 exactly once";
            seen[d] = 1;
            total++;
        }
    }
    if (total != KD_DOMINOES) return "dominoes: each of the 48 exactly once";
    for (int pos = 0; pos < line; pos++) {
        int k = g->cur_kings[pos], kn = g->has_next ? g->next_kings[pos] : -1;
        if (k < -1 || k >= n || kn < -1 || kn >= n) return "cur_kings: a king of no seat";
        if (g->setup_order[pos] < 0 || g->setup_order[pos] >= n) return "setup_order: not a seat";
        if (k >= 0 && g->cur_line[pos] < 0 && !(g->phase == KD_PICK && pos == g->turn_pos))
            return "cur_kings: a king on a domino already placed";
        if (k >= 0) { kings[k]++; nkings++; }
        if (kn >= 0) { kings[kn]++; nkings++; }
    }
    int per = line / n;
    for (int s = 0; s < n; s++) {
        if (kings[s] > per) return "cur_kings: a seat with too many kings";
        if ((g->phase == KD_PLACE || g->phase == KD_PICK) && g->has_next && kings[s] != per)
            return "cur_kings: each seat must have its kings on the lines";
    }
    if (g->phase == KD_GAME_OVER) {
        if (g->seat != -1) return "seat: -1 exactly when the game is over";
    } else if (g->seat < 0 || g->seat >= n) {
        return "seat: out of range";
    }
    if (g->phase == KD_SETUP_PICK &&
        (g->setup_idx < 0 || g->setup_idx >= line || nkings != g->setup_idx || g->has_next ||
         g->seat != g->setup_order[g->setup_idx]))
        return "setup_idx: set-up picks and kings on the first line disagree";
    if (g->phase == KD_PLACE || g->phase == KD_PICK) {
        int pos = g->turn_pos;
        if (pos < 0 || pos >= line || g->cur_kings[pos] != g->seat)
            return "turn_pos: the acting seat's king is not at turn_pos";
        if (g->phase == KD_PLACE && g->cur_line[pos] < 0) return "turn_pos: no domino to place";
        if (g->phase == KD_PICK && (!g->has_next || g->cur_line[pos] >= 0))
            return "turn_pos: a pick with no next line or before placing";
        for (int q = 0; q < pos; q++)
            if (g->cur_kings[q] >= 0) return "turn_pos: a king above the acting one has not played";
    }
    for (int k = 0; k < KD_MAX_GAMES; k++)
        for (int s = 0; s < KD_MAX_SEATS; s++)
            if (g->results[k][s][0] < 0 || g->results[k][s][1] < 0 ||
                ((k >= g->game || s >= n) && (g->results[k][s][0] || g->results[k][s][1])))
                return "results: out of range";
    for (int s = 0; s < KD_MAX_SEATS; s++) {
        const char *why = check_kingdom(p, g, s);
        if (why) return why;
    }
    return NULL;
}

/* Cells a new square may take (Board.allowed): rows rmax-s..rmin+s, columns alike. */
static int allowed(const KdParams *p, const KdGame *g, int s, int cell) {
    int r = cell / p->side, c = cell % p->side, k = p->size - 1;
    return r >= g->rmax[s] - k && r <= g->rmin[s] + k && c >= g->cmax[s] - k && c <= g->cmin[s] + k;
}

static int is_free(const KdParams *p, const KdGame *g, int s, int cell) {
    return g->land[s][cell] == KD_EMPTY && allowed(p, g, s, cell);
}

/* Whether a square of landscape `land` on `cell` touches the castle or its own landscape. */
static int touches(const KdParams *p, const KdGame *g, int s, int cell, int land) {
    int side = p->side, r = cell / side, c = cell % side;
    const int8_t *L = g->land[s];
    if (r > 0 && (L[cell - side] == land || L[cell - side] == KD_CASTLE)) return 1;
    if (r < side - 1 && (L[cell + side] == land || L[cell + side] == KD_CASTLE)) return 1;
    if (c > 0 && (L[cell - 1] == land || L[cell - 1] == KD_CASTLE)) return 1;
    if (c < side - 1 && (L[cell + 1] == land || L[cell + 1] == KD_CASTLE)) return 1;
    return 0;
}

/* The second half's cell in direction dir (S, E, N, W), or -1 off the board. */
int kd_other_cell(const KdParams *p, int cell, int dir) {
    int side = p->side, r = cell / side, c = cell % side;
    switch (dir) {
    case 0: return r < side - 1 ? cell + side : -1;
    case 1: return c < side - 1 ? cell + 1 : -1;
    case 2: return r > 0 ? cell - side : -1;
    default: return c > 0 ? cell - 1 : -1;
    }
}

/* The placements of domino d in seat s's kingdom (placement_ids), ascending; their count.
 * Only the window a new square may take (Board.allowed) is read: each of its cells once for
 * being empty and touching each half's landscape, then every direction. */
int kd_placements(const KdParams *p, const KdGame *g, int s, int d, int32_t *out) {
    int side = p->side, k = p->size - 1, n = 0, dirs = p->symmetric[d] ? 2 : 4;
    int r0 = g->rmax[s] - k > 0 ? g->rmax[s] - k : 0;
    int r1 = g->rmin[s] + k < side - 1 ? g->rmin[s] + k : side - 1;
    int c0 = g->cmax[s] - k > 0 ? g->cmax[s] - k : 0;
    int c1 = g->cmin[s] + k < side - 1 ? g->cmin[s] + k : side - 1;
    int8_t empty[KD_MAX_CELLS], first[KD_MAX_CELLS], second[KD_MAX_CELLS];
    for (int r = r0; r <= r1; r++) {
        for (int c = c0; c <= c1; c++) {
            int cell = r * side + c;
            empty[cell] = g->land[s][cell] == KD_EMPTY;
            if (!empty[cell]) continue;
            first[cell] = (int8_t)touches(p, g, s, cell, p->land1[d]);
            second[cell] = p->land2[d] == p->land1[d] ? first[cell]
                                                      : (int8_t)touches(p, g, s, cell, p->land2[d]);
        }
    }
    for (int dir = 0; dir < dirs; dir++) {
        int dr = dir == 0 ? 1 : dir == 2 ? -1 : 0, dc = dir == 1 ? 1 : dir == 3 ? -1 : 0;
        for (int r = r0; r <= r1; r++) {
            if (r + dr < r0 || r + dr > r1) continue;
            for (int c = c0; c <= c1; c++) {
                int cell = r * side + c, o = cell + dr * side + dc;
                if (c + dc < c0 || c + dc > c1 || !empty[cell] || !empty[o]) continue;
                if (first[cell] || second[o]) out[n++] = dir * p->cells + cell;
            }
        }
    }
    return n;
}

int kd_legal(const KdParams *p, const KdGame *g, int32_t *out) {
    int n = 0;
    if (g->phase == KD_PLACE) {
        n = kd_placements(p, g, g->seat, g->cur_line[g->turn_pos], out);
        if (n == 0 || !p->must_place) out[n++] = p->discard;
    } else if (g->phase == KD_PICK) {
        for (int pos = 0; pos < p->line; pos++)
            if (g->next_kings[pos] < 0) out[n++] = p->pick_base + pos;
    } else if (g->phase == KD_SETUP_PICK) {
        for (int pos = 0; pos < p->line; pos++)
            if (g->cur_kings[pos] < 0) out[n++] = p->pick_base + pos;
    }
    return n;
}

int kd_is_legal(const KdParams *p, const KdGame *g, int64_t a) {
    int32_t ids[KD_MAX_LEGAL];
    int k = kd_legal(p, g, ids);
    for (int j = 0; j < k; j++)
        if (ids[j] == a) return 1;
    return 0;
}

static void put_square(const KdParams *p, KdGame *g, int s, int cell, int land, int crowns) {
    int r = cell / p->side, c = cell % p->side;
    g->land[s][cell] = (int8_t)land;
    g->crowns[s][cell] = (int8_t)crowns;
    g->occupied[s]++;
    if (r < g->rmin[s]) g->rmin[s] = (int8_t)r;
    if (r > g->rmax[s]) g->rmax[s] = (int8_t)r;
    if (c < g->cmin[s]) g->cmin[s] = (int8_t)c;
    if (c > g->cmax[s]) g->cmax[s] = (int8_t)c;
}

void kd_place(const KdParams *p, KdGame *g, int s, int d, int32_t a) {
    int cell = a % p->cells, o = kd_other_cell(p, cell, a / p->cells);
    put_square(p, g, s, cell, p->land1[d], p->crowns1[d]);
    put_square(p, g, s, o, p->land2[d], p->crowns2[d]);
}

void kd_apply(const KdParams *p, KdGame *g, int32_t a) {
    if (g->phase == KD_PLACE) {
        int pos = g->turn_pos, s = g->seat, d = g->cur_line[pos];
        if (a != p->discard) {
            kd_place(p, g, s, d, a);
            g->placed[s][g->placed_len[s]++] = (int8_t)d;
        } else {
            g->discarded[g->discarded_len++] = (int8_t)d;
        }
        g->cur_line[pos] = -1;
        if (g->has_next) {
            g->phase = KD_PICK;
        } else {
            g->cur_kings[pos] = -1;
            next_turn(p, g);
        }
    } else if (g->phase == KD_PICK) {
        g->next_kings[a - p->pick_base] = g->seat;
        g->cur_kings[g->turn_pos] = -1;
        next_turn(p, g);
    } else if (g->phase == KD_SETUP_PICK) {
        g->cur_kings[a - p->pick_base] = g->seat;
        g->setup_idx++;
        if (g->setup_idx < p->line) {
            g->seat = g->setup_order[g->setup_idx];
            return;
        }
        draw_next_line(p, g);
        next_turn(p, g);
    }
}


int kd_territories(const KdParams *p, const KdGame *g, int s, Territories *t) {
    int16_t stack[KD_MAX_CELLS];
    const int8_t *L = g->land[s];
    int side = p->side, count = 0;
    for (int cell = 0; cell < p->cells; cell++) t->label[cell] = -1;
    for (int start = 0; start < p->cells; start++) {
        int land = L[start];
        if (t->label[start] >= 0 || land < 0 || land == KD_CASTLE) continue;
        int top = 0, squares = 0, crowns = 0;
        stack[top++] = (int16_t)start;
        t->label[start] = (int16_t)count;
        while (top > 0) {
            int cell = stack[--top], r = cell / side, c = cell % side;
            squares++;
            crowns += g->crowns[s][cell];
            int nb[4] = {r > 0 ? cell - side : -1, r < side - 1 ? cell + side : -1,
                         c > 0 ? cell - 1 : -1, c < side - 1 ? cell + 1 : -1};
            for (int k = 0; k < 4; k++) {
                int x = nb[k];
                if (x >= 0 && t->label[x] < 0 && L[x] == land) {
                    t->label[x] = (int16_t)count;
                    stack[top++] = (int16_t)x;
                }
            }
        }
        t->squares[count] = (int16_t)squares;
        t->crowns[count] = (int16_t)crowns;
        count++;
    }
    return count;
}

/* Ruling KR3: every square within (size - 1) / 2 rows and columns of the castle. */
int kd_centred(const KdParams *p, const KdGame *g, int s) {
    int mid = p->size - 1, half = (p->size - 1) / 2;
    return g->rmin[s] >= mid - half && g->rmax[s] <= mid + half && g->cmin[s] >= mid - half &&
           g->cmax[s] <= mid + half;
}

void kd_score(const KdParams *p, const KdGame *g, int s, int32_t *points, int32_t *largest) {
    Territories t;
    int count = kd_territories(p, g, s, &t), total = 0, big = 0;
    for (int k = 0; k < count; k++) {
        total += t.squares[k] * t.crowns[k];
        if (t.squares[k] > big) big = t.squares[k];
    }
    if (p->harmony && g->occupied[s] == p->size * p->size) total += p->harmony_bonus;
    if (p->middle && kd_centred(p, g, s)) total += p->middle_bonus;
    *points = total;
    *largest = big;
}

void kd_rank_key(const KdParams *p, const KdGame *g, int s, int32_t *points, int32_t *largest) {
    kd_score(p, g, s, points, largest);
    for (int k = 0; k < g->game && k < KD_MAX_GAMES; k++) {
        *points += g->results[k][s][0];
        if (g->results[k][s][1] > *largest) *largest = g->results[k][s][1];
    }
}

static void domino_features(const KdParams *p, int d, float *f) {
    f[0] = 1.0f;
    f[1 + p->land1[d]] = 1.0f;
    f[7] = (float)(p->crowns1[d] / 3.0);
    f[8 + p->land2[d]] = 1.0f;
    f[14] = (float)(p->crowns2[d] / 3.0);
    f[15] = (float)(p->number[d] / (double)KD_DOMINOES);
}

void kd_encode(const KdParams *p, const KdGame *g, int seat, float *out) {
    int n = p->n, cells = p->cells;
    memset(out, 0, sizeof(float) * (size_t)p->obs_size);
    for (int i = 0; i < n; i++) {
        int s = (seat + i) % n;
        float *block = out + (size_t)i * KD_CHANNELS * cells;
        for (int cell = 0; cell < cells; cell++) {
            int land = g->land[s][cell];
            if (land >= 0 && land < 6) block[land * cells + cell] = 1.0f;
            for (int k = 0; k < g->crowns[s][cell] && k < 3; k++)
                block[(6 + k) * cells + cell] = 1.0f;
            if (is_free(p, g, s, cell)) block[9 * cells + cell] = 1.0f;
        }
    }
    float *f = out + (size_t)n * KD_CHANNELS * cells;
    f[g->phase] = 1.0f;
    f[4] = (float)(g->game / 3.0);
    f[5] = (float)(g->pile_len / (double)KD_DOMINOES);
    if (!g->has_next) f[6] = 1.0f;
    int acting = g->phase != KD_GAME_OVER ? g->seat : -1;
    int at = 7;
    for (int i = 0; i < n; i++) {
        int s = (seat + i) % n;
        int32_t pts, big;
        kd_rank_key(p, g, s, &pts, &big);
        f[at] = (float)((pts < 200 ? pts : 200) / 200.0);
        if (s == acting) f[at + 1] = 1.0f;
        at += 2;
    }
    int width = 1 + 6 + 1 + 6 + 1 + 1 + (n + 1);
    int placing = g->phase == KD_PLACE ? g->turn_pos : -1;
    for (int pos = 0; pos < p->line; pos++) {
        int d = g->cur_line[pos], k = g->cur_kings[pos];
        if (d >= 0) domino_features(p, d, f + at);
        f[at + 16 + (k < 0 ? n : (k - seat + n) % n)] = 1.0f;
        if (pos == placing) f[at + width] = 1.0f;
        at += width + 1;
    }
    for (int pos = 0; pos < p->line; pos++) {
        int base = at + pos * width;
        if (g->has_next) {
            int d = g->next_line[pos], k = g->next_kings[pos];
            if (d >= 0) domino_features(p, d, f + base);
            f[base + 16 + (k < 0 ? n : (k - seat + n) % n)] = 1.0f;
        } else {
            f[base + 16 + n] = 1.0f;
        }
    }
    at += p->line * width;
    for (int d = 0; d < KD_DOMINOES; d++)
        if (g->unseen[d]) f[at + d] = 1.0f;
}
