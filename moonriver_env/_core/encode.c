/* The observation of moonriver_env.encoding.ObservationEncoder.encode_flat, written from
 * scratch for one state and one observing seat: the ranch planes (observer's ranch first,
 * channel-major) and then the features, each per-seat feature in the observer's order. The
 * channel and feature offsets come from the spec (the encoder's own tables). Values are
 * computed in double and stored as float32, as NumPy stores the encoder's Python floats. */
#include <string.h>

#include "moonriver.h"

static inline int rel(int seat, int observer, int n) { return (seat - observer + n) % n; }

static void encode_planes(const mr_config *cfg, const mr_state *st, int observer, float *out) {
    int n = cfg->n, cells = cfg->cells;
    const int *ch = cfg->channel;
    int npk = cfg->num_plot_kinds;
    for (int r = 0; r < n; r++) {
        int a = (observer + r) % n;
        float *base = out + (size_t)r * MR_NUM_CHANNELS * cells;
#define AT(channel, cell) base[(size_t)ch[channel] * cells + (cell)]
        for (int c = 0; c < cells; c++) {
            int k = st->kinds[a][c];
            if (k < 0) {
                AT(CH_EMPTY, c) = 1.0f;
                continue;
            }
            AT(CH_LAND0 + cfg->land[k], c) = 1.0f;
            if (cfg->gold[k]) {
                AT(CH_GOLD, c) = (float)cfg->gold[k];
            }
            if (cfg->beaver[k]) {
                AT(CH_BEAVER, c) = (float)cfg->beaver[k];
            }
            if (cfg->corn[k]) {
                AT(CH_CORN, c) = (float)cfg->corn[k];
            }
            if (cfg->skull[k]) {
                AT(CH_SKULL, c) = 1.0f;
            }
            if (cfg->circle[k]) {
                AT(CH_CIRCLE, c) = 1.0f;
            }
            if (k >= npk) {
                AT(CH_BONUS_TILE, c) = 1.0f;
            }
            int p = st->partners[a][c];
            if (p >= 0) {
                AT(CH_PARTNER0 + p, c) = 1.0f;
            }
            if (st->cows[a][c]) {
                AT(CH_COWS, c) = (float)st->cows[a][c];
            }
        }
        uint64_t prot = mr_protected(cfg, st, a);
        while (prot) {
            AT(CH_PROTECTED, __builtin_ctzll(prot)) = 1.0f;
            prot &= prot - 1;
        }
        for (int c = 0; c < 5 && c < cells; c++) {
            AT(CH_RIVER, c) = 1.0f;
        }
        uint64_t bridges = st->bridges[a];
        while (bridges) {
            AT(CH_BRIDGE, __builtin_ctzll(bridges)) = 1.0f;
            bridges &= bridges - 1;
        }
        if (a == st->seat && st->piece_len && st->phase != PH_SELECT &&
            st->phase != PH_SETUP_CLAIM && st->phase != PH_GAME_OVER) {
            for (int i = 0; i < st->piece_len; i++) {
                AT(CH_PIECE, st->piece[i]) = 1.0f;
            }
            if (st->phase == PH_SKULL) {
                uint64_t t = mr_skull_territory(cfg, st);
                while (t) {
                    AT(CH_SKULL_TARGET, __builtin_ctzll(t)) = 1.0f;
                    t &= t - 1;
                }
            }
        }
#undef AT
    }
}

static void write_column(const mr_config *cfg, const int8_t *col, const int8_t *claim,
                         int observer, float *cols, float *claims) {
    int k1 = cfg->num_plot_kinds + 1, n = cfg->n;
    for (int p = 0; p < cfg->column_size; p++) {
        int kind = col[p];
        cols[p * k1 + (kind >= 0 ? kind : k1 - 1)] = 1.0f;
        if (claim[p] >= 0) {
            claims[p * n + rel(claim[p], observer, n)] = 1.0f;
        }
    }
}

static void encode_features(const mr_config *cfg, const mr_state *st, int observer, float *f) {
    const int *o = cfg->feature;
    int n = cfg->n, k = cfg->num_plot_kinds;
    int over = st->phase == PH_GAME_OVER;
    f[o[F_PHASE] + st->phase] = 1.0f;
    if (!over) {
        f[o[F_ACTOR] + rel(st->seat, observer, n)] = 1.0f;
        if (st->final_turn) {
            f[o[F_FINAL_TURN]] = 1.0f;
        }
    }
    if (st->final_round) {
        f[o[F_FINAL_ROUND]] = 1.0f;
    }
    for (int i = 0; i < st->circles_len; i++) {
        f[o[F_PENDING_CIRCLES] + st->circles[i]] = 1.0f;
    }
    for (int t = 0; t < cfg->num_tiles && t < 2; t++) {
        if (st->tiles[t]) {
            f[o[F_BONUS_TILES_AVAILABLE] + t] = 1.0f;
        }
    }
    double rnd = st->round / 24.0;
    f[o[F_ROUND]] = (float)(rnd < 1.0 ? rnd : 1.0);
    f[o[F_DOMINOES]] = (float)(st->dominoes / 2.0);
    f[o[F_STACK_SIZE]] = cfg->num_partners ? (float)((double)st->stack_len / cfg->num_partners)
                                           : 0.0f;
    f[o[F_COW_SUPPLY]] =
        (float)((double)st->supply / (cfg->cows_total > 1 ? cfg->cows_total : 1));
    f[o[F_PENDING_SKULLS]] = (float)st->skulls_len;
    f[o[F_COWBOY_MOVES_LEFT]] =
        st->phase == PH_COWBOY ? (float)(st->cowboy_moves / 3.0) : 0.0f;
    for (int s = 0; s < n; s++) {
        int r = rel(s, observer, n);
        float *held = f + o[F_HELD] + r * k;
        for (int i = 0; i < st->held_len[s]; i++) {
            held[st->held[s][i]] += 1.0f;
        }
        f[o[F_HELD_COUNT] + r] = (float)st->held_len[s];
        f[o[F_BOARD] + r * MR_NUM_BOARDS + st->boards[s]] = 1.0f;
        f[o[F_RESERVE_SLOTS] + r] = (float)(st->slots[s] / 4.0);
        if (st->bonus_done[s]) {
            f[o[F_BONUS_TILE_TAKEN] + r] = 1.0f;
        }
        int p[4]; /* the four point categories (the tie-break keys are not shown) */
        mr_points(cfg, st, s, p);
        float *scores = f + o[F_SCORES] + r * 5;
        scores[0] = (float)(p[0] / 100.0);
        scores[1] = (float)(p[1] / 100.0);
        scores[2] = (float)(p[2] / 100.0);
        scores[3] = (float)(p[3] / 100.0);
        scores[4] = (float)((p[0] + p[1] + p[2] + p[3]) / 100.0);
    }
    write_column(cfg, st->cur_col, st->cur_claim, observer, f + o[F_CURRENT_COLUMN],
                 f + o[F_CURRENT_CLAIMS]);
    write_column(cfg, st->next_col, st->next_claim, observer, f + o[F_NEXT_COLUMN],
                 f + o[F_NEXT_CLAIMS]);
    for (int i = 0; i < cfg->saloon_size; i++) {
        if (st->saloon[i] >= 0) {
            f[o[F_SALOON] + i * MR_NUM_PARTNER_KINDS + st->saloon[i]] = 1.0f;
        }
    }
    for (int i = 0; i < st->pile_len; i++) {
        f[o[F_UNSEEN_PLOTS] + st->pile[i]] += 1.0f;
    }
    f[o[F_SCENARIO] + (st->scenario < 0 ? 0 : 1 + st->scenario)] = 1.0f;
}

void mr_encode(const mr_config *cfg, const mr_state *st, int seat, float *out) {
    memset(out, 0, sizeof(float) * (size_t)cfg->obs_size);
    encode_planes(cfg, st, seat, out);
    encode_features(cfg, st, seat, out + cfg->plane_size);
}
