/* Kingdomino's rules and observation (kingdomino.h): the Python engine, function for
 * function, on plain cell arrays (the Mighty Duel's 13 x 13 board does not fit 64 bits). */
#include "kingdomino.h"

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

static void draw_line(const KdParams *p, KdGame *g, int32_t *line) {
    /* draw_column: pop from the end, sort by number (stable; numbers are distinct) */
    for (int i = 0; i < p->line; i++) {
        line[i] = g->pile[--g->npile];
        g->unseen[line[i]] = 0;
    }
    for (int i = 1; i < p->line; i++) {
        int32_t x = line[i];
        int j = i - 1;
        while (j >= 0 && p->number[line[j]] > p->number[x]) { line[j + 1] = line[j]; j--; }
        line[j + 1] = x;
    }
}

static void draw_next_line(const KdParams *p, KdGame *g) {
    if (g->npile > 0) {
        draw_line(p, g, g->next_line);
        for (int i = 0; i < p->line; i++) g->next_kings[i] = -1;
        g->has_next = 1;
    } else {
        g->has_next = 0;
    }
}

static void start_deal(const KdParams *p, KdGame *g);

static void next_turn(const KdParams *p, KdGame *g) {
    for (;;) {
        for (int pos = 0; pos < p->line; pos++) {
            if (g->cur_kings[pos] >= 0) {
                g->turn_pos = pos;
                g->seat = g->cur_kings[pos];
                g->phase = KD_PLACE;
                return;
            }
        }
        if (!g->has_next && g->game + 1 < p->num_games) { /* Dynasty: the next game */
            for (int s = 0; s < p->n; s++)
                kd_score(p, g, s, &g->results[g->game][s][0], &g->results[g->game][s][1]);
            g->game++;
            start_deal(p, g);
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

/* Start game g->game from its deal (state.py _start_game). */
static void start_deal(const KdParams *p, KdGame *g) {
    const KdDeal *d = &g->deals[g->game];
    int mid = p->size - 1;
    int castle = mid * p->side + mid;
    memset(g->crowns, 0, sizeof g->crowns);
    for (int s = 0; s < KD_MAX_SEATS; s++) {
        memset(g->land[s], KD_EMPTY, sizeof g->land[s]);
        g->rmin[s] = g->rmax[s] = g->cmin[s] = g->cmax[s] = mid;
        g->occupied[s] = 0;
        if (s < p->n) {
            g->land[s][castle] = KD_CASTLE;
            g->occupied[s] = 1;
        }
    }
    g->npile = d->npile;
    memcpy(g->pile, d->pile, sizeof g->pile);
    for (int i = 0; i < KD_DOMINOES; i++) g->unseen[i] = d->in_box[i];
    for (int i = 0; i < d->npile; i++) g->unseen[d->pile[i]] = 1;
    for (int i = 0; i < KD_MAX_LINE; i++) {
        g->cur_line[i] = d->line[i];
        g->setup_order[i] = d->order[i];
        g->next_line[i] = -1;
        g->cur_kings[i] = g->next_kings[i] = -1;
    }
    g->has_next = 0;
    g->setup_idx = 0;
    g->turn_pos = -1;
    g->phase = KD_SETUP_PICK;
    g->seat = g->setup_order[0];
}

int kd_init(const KdParams *p, KdGame *g, int slot, const int64_t *pile, int64_t npile,
            const int64_t *box, int64_t nbox, const int64_t *line, const int64_t *order,
            const char **why) {
    int8_t seen[KD_DOMINOES];
    memset(seen, 0, sizeof seen);
    if (slot < 0 || slot >= p->num_games) { *why = "set-up: no such game of the match"; return -1; }
    if (npile < 0 || nbox < 0 || npile + nbox + p->line != KD_DOMINOES || npile % p->line ||
        npile + p->line != p->in_play) {
        *why = "set-up: pile, box and line do not make the dominoes in play"; return -1;
    }
    for (int64_t i = 0; i < npile + nbox + p->line; i++) {
        int64_t d = i < npile ? pile[i] : i < npile + nbox ? box[i - npile] : line[i - npile - nbox];
        if (d < 0 || d >= KD_DOMINOES || seen[d]) { *why = "set-up: a domino twice or out of range"; return -1; }
        seen[d] = 1;
    }
    for (int i = 0; i < p->line; i++) {
        if (order[i] < 0 || order[i] >= p->n) { *why = "set-up: the set-up order"; return -1; }
    }
    if (slot == 0) memset(g, 0, sizeof *g);
    KdDeal *d = &g->deals[slot];
    memset(d, 0, sizeof *d);
    d->npile = (int32_t)npile;
    for (int64_t i = 0; i < npile; i++) d->pile[i] = (int32_t)pile[i];
    for (int64_t i = 0; i < nbox; i++) d->in_box[box[i]] = 1;
    for (int i = 0; i < KD_MAX_LINE; i++) d->line[i] = d->order[i] = -1;
    for (int i = 0; i < p->line; i++) {
        d->line[i] = (int32_t)line[i];
        d->order[i] = (int32_t)order[i];
    }
    if (slot == 0) {
        g->game = 0;
        start_deal(p, g);
    }
    return 0;
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
static int other_cell(const KdParams *p, int cell, int dir) {
    int side = p->side, r = cell / side, c = cell % side;
    switch (dir) {
    case 0: return r < side - 1 ? cell + side : -1;
    case 1: return c < side - 1 ? cell + 1 : -1;
    case 2: return r > 0 ? cell - side : -1;
    default: return c > 0 ? cell - 1 : -1;
    }
}

int kd_legal(const KdParams *p, const KdGame *g, int32_t *out) {
    int n = 0;
    if (g->phase == KD_PLACE) {
        int s = g->seat, d = g->cur_line[g->turn_pos];
        int dirs = p->symmetric[d] ? 2 : 4;
        for (int dir = 0; dir < dirs; dir++) {
            for (int cell = 0; cell < p->cells; cell++) {
                int o = other_cell(p, cell, dir);
                if (o < 0 || !is_free(p, g, s, cell) || !is_free(p, g, s, o)) continue;
                if (touches(p, g, s, cell, p->land1[d]) || touches(p, g, s, o, p->land2[d]))
                    out[n++] = dir * p->cells + cell;
            }
        }
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

static void put_square(const KdParams *p, KdGame *g, int s, int cell, int land, int crowns) {
    int r = cell / p->side, c = cell % p->side;
    g->land[s][cell] = (int8_t)land;
    g->crowns[s][cell] = (int8_t)crowns;
    g->occupied[s]++;
    if (r < g->rmin[s]) g->rmin[s] = r;
    if (r > g->rmax[s]) g->rmax[s] = r;
    if (c < g->cmin[s]) g->cmin[s] = c;
    if (c > g->cmax[s]) g->cmax[s] = c;
}

void kd_apply(const KdParams *p, KdGame *g, int32_t a) {
    if (g->phase == KD_PLACE) {
        int pos = g->turn_pos, s = g->seat, d = g->cur_line[pos];
        if (a != p->discard) {
            int cell = a % p->cells, o = other_cell(p, cell, a / p->cells);
            put_square(p, g, s, cell, p->land1[d], p->crowns1[d]);
            put_square(p, g, s, o, p->land2[d], p->crowns2[d]);
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

void kd_score(const KdParams *p, const KdGame *g, int s, int32_t *points, int32_t *largest) {
    int8_t done[KD_MAX_CELLS];
    int16_t stack[KD_MAX_CELLS];
    const int8_t *L = g->land[s];
    int side = p->side, total = 0, big = 0;
    memset(done, 0, sizeof done);
    for (int start = 0; start < p->cells; start++) {
        int land = L[start];
        if (done[start] || land < 0 || land == KD_CASTLE) continue;
        int top = 0, squares = 0, crowns = 0;
        stack[top++] = (int16_t)start;
        done[start] = 1;
        while (top > 0) {
            int cell = stack[--top], r = cell / side, c = cell % side;
            squares++;
            crowns += g->crowns[s][cell];
            int nb[4] = {r > 0 ? cell - side : -1, r < side - 1 ? cell + side : -1,
                         c > 0 ? cell - 1 : -1, c < side - 1 ? cell + 1 : -1};
            for (int k = 0; k < 4; k++) {
                int x = nb[k];
                if (x >= 0 && !done[x] && L[x] == land) {
                    done[x] = 1;
                    stack[top++] = (int16_t)x;
                }
            }
        }
        total += squares * crowns;
        if (squares > big) big = squares;
    }
    if (p->harmony && g->occupied[s] == p->size * p->size) total += p->harmony_bonus;
    if (p->middle) {
        int mid = p->size - 1, half = (p->size - 1) / 2;
        if (g->rmin[s] >= mid - half && g->rmax[s] <= mid + half && g->cmin[s] >= mid - half &&
            g->cmax[s] <= mid + half)
            total += p->middle_bonus;
    }
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
    f[5] = (float)(g->npile / (double)KD_DOMINOES);
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
