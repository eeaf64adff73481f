/* The observation of moonriver_env.moonriver.encoding.ObservationEncoder.encode_flat, written from
 * scratch for one state and one observing seat: the ranch planes (observer's ranch first,
 * channel-major) and then the features, each per-seat feature in the observer's order. The
 * channel and feature offsets come from the spec (the encoder's own tables). Values are
 * computed in double and stored as float32, as NumPy stores the encoder's Python floats. */
#include <string.h>

#include "moonriver.h"

static inline int rel(int seat, int observer, int n) { return (seat - observer + n) % n; }

int mr_block_size(const mr_config *cfg) { return MR_NUM_CHANNELS * cfg->cells; }

/* One ranch's block (all channels but piece and skull_target), channel-major, and its points
 * (territories, resources, partners, scenario). */
static void ranch_block(const mr_config *cfg, const mr_state *st, int a, float *base,
                        int32_t *points) {
    int cells = cfg->cells;
    const int *ch = cfg->channel;
    int npk = cfg->num_plot_kinds;
    memset(base, 0, sizeof(float) * (size_t)mr_block_size(cfg));
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
#undef AT
    int p[4];
    mr_points(cfg, st, a, p);
    for (int i = 0; i < 4; i++) {
        points[i] = p[i];
    }
}

/* The planes from the blocks (observer's ranch first), then the pending piece. */
static void encode_planes(const mr_config *cfg, const mr_state *st, int observer,
                          const float *blocks, float *out) {
    int n = cfg->n, cells = cfg->cells, size = mr_block_size(cfg);
    for (int r = 0; r < n; r++) {
        int a = (observer + r) % n;
        float *base = out + (size_t)r * size;
        memcpy(base, blocks + (size_t)a * size, sizeof(float) * (size_t)size);
        if (a == st->seat && st->piece_len && st->phase != PH_SELECT &&
            st->phase != PH_SETUP_CLAIM && st->phase != PH_GAME_OVER) {
            const int *ch = cfg->channel;
            for (int i = 0; i < st->piece_len; i++) {
                base[(size_t)ch[CH_PIECE] * cells + st->piece[i]] = 1.0f;
            }
            if (st->phase == PH_SKULL) {
                uint64_t t = mr_skull_territory(cfg, st);
                while (t) {
                    base[(size_t)ch[CH_SKULL_TARGET] * cells + __builtin_ctzll(t)] = 1.0f;
                    t &= t - 1;
                }
            }
        }
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

static void encode_features(const mr_config *cfg, const mr_state *st, int observer,
                            const int32_t *points, float *f) {
    memset(f, 0, sizeof(float) * (size_t)cfg->num_features);
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
        const int32_t *p = points + 4 * s; /* the tie-break keys are not shown */
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

void mr_encode_cached(const mr_config *cfg, const mr_state *st, int seat, float *out,
                      float *blocks, int32_t *points, uint32_t *keys) {
    int size = mr_block_size(cfg);
    for (int a = 0; a < cfg->n; a++) {
        if (keys[a] != st->version[a] || keys[a] == MR_NO_KEY) {
            ranch_block(cfg, st, a, blocks + (size_t)a * size, points + 4 * a);
            keys[a] = st->version[a];
        }
    }
    encode_planes(cfg, st, seat, blocks, out);
    encode_features(cfg, st, seat, points, out + cfg->plane_size);
}

void mr_encode(const mr_config *cfg, const mr_state *st, int seat, float *out) {
    /* Without a cache: every block is built afresh in a per-thread scratch area. */
    static _Thread_local float scratch[MR_MAX_PLAYERS * MR_NUM_CHANNELS * MR_MAX_CELLS];
    int32_t points[4 * MR_MAX_PLAYERS];
    uint32_t keys[MR_MAX_PLAYERS];
    for (int a = 0; a < cfg->n; a++) {
        keys[a] = MR_NO_KEY;
    }
    mr_encode_cached(cfg, st, seat, out, scratch, points, keys);
}
