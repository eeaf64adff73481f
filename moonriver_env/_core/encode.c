/* The observation of moonriver_env.moonriver.encoding.ObservationEncoder.encode_flat, written from
 * scratch for one state and one observing seat: the ranch planes (observer's ranch first,
 * channel-major) and then the features, each per-seat feature in the observer's order. The
 * channel and feature offsets come from the spec (the encoder's own tables). Values are
 * computed in double and stored as float32, as NumPy stores the encoder's Python floats. */
#include <string.h>

#include "moonriver.h"

/* seat's position counted from observer's (both in [0, n)), with no division. */
static inline int rel(int seat, int observer, int n) {
    int r = seat - observer;
    return r < 0 ? r + n : r;
}

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

/* The features go to a sink in ascending index order: dense, every position written (into
 * an observation zeroed first); sparse, the non-zero ones appended as (idx, val) while they
 * fit in width (k counts them all: past width the caller refuses the row). Entries that sum
 * (the held plots, the unseen ones) are counted per kind first. The mode is a constant at
 * each call, so every mode gets its own copy of the code: SINK_SPARSE checks the width at
 * each entry; SINK_ROOMY, taken when the row has room for every feature (each feature
 * position is written at most once), writes each position's slot unconditionally and counts
 * it only when non-zero (no branch on the value); the one slot past the last entry is reset
 * to padding at the end. */
typedef struct {
    float *dense;
    int32_t *idx;
    float *val;
    int k, width, off, pad; /* pad: the padding index (the observation's size) */
    const mr_sparse_prefix *unseen; /* the pile's kinds and counts, where known (else NULL) */
} sink;

enum { SINK_DENSE, SINK_SPARSE, SINK_ROOMY };

static inline __attribute__((always_inline)) void emit(sink *o, int i, float v, int mode) {
    if (mode == SINK_DENSE) {
        o->dense[i] = v;
    } else if (mode == SINK_ROOMY) {
        o->idx[o->k] = o->off + i;
        o->val[o->k] = v;
        o->k += v != 0.0f;
    } else if (v != 0.0f) {
        if (o->k < o->width) {
            o->idx[o->k] = o->off + i;
            o->val[o->k] = v;
        }
        o->k++;
    }
}

/* count[kind]: how many of list's len entries are that kind, for kinds in [0, kinds) (an entry
 * out of range is not counted; a list holds at most MR_MAX_PLOTS, so a count fits a byte). */
static void count_kinds(const int8_t *list, int len, int kinds, uint8_t *count) {
    memset(count, 0, (size_t)kinds);
    for (int i = 0; i < len; i++) {
        if ((unsigned)list[i] < (unsigned)kinds) {
            count[list[i]]++;
        }
    }
}

/* Emits count[kind] at base + kind for every kind (the zeros left out of a sparse row). */
static inline __attribute__((always_inline)) void emit_kind_counts(sink *o, int base,
                                                                  const uint8_t *count,
                                                                  int kinds, int mode) {
    for (int c = 0; c < kinds; c++) {
        emit(o, base + c, (float)count[c], mode);
    }
}

/* Emits the counts of the kinds in list (len entries, each in [0, kinds)) at base + kind:
 * a short list sorted, a long one counted per kind. */
static inline __attribute__((always_inline)) void emit_counts(sink *o, int base,
                                                             const int8_t *list, int len,
                                                             int kinds, int mode) {
    if (len > 8) {
        uint8_t count[MR_MAX_CONTENTS];
        count_kinds(list, len, kinds, count);
        emit_kind_counts(o, base, count, kinds, mode);
        return;
    }
    int8_t sorted[8];
    memcpy(sorted, list, (size_t)len);
    mr_sort8(sorted, len);
    for (int i = 0; i < len;) {
        int j = i + 1;
        while (j < len && sorted[j] == sorted[i]) {
            j++;
        }
        emit(o, base + sorted[i], (float)(j - i), mode);
        i = j;
    }
}

static inline __attribute__((always_inline)) void features_into(const mr_config *cfg,
                                                               const mr_state *st,
                                                               int observer,
                                                               const int32_t *points, sink *o,
                                                               int mode) {
    const int *f = cfg->feature;
    int n = cfg->n, k = cfg->num_plot_kinds, k1 = k + 1;
    int over = st->phase == PH_GAME_OVER;
    int seat_of[MR_MAX_PLAYERS]; /* relative position r -> seat */
    for (int r = 0; r < n; r++) {
        seat_of[r] = observer + r < n ? observer + r : observer + r - n;
    }
    emit(o, f[F_PHASE] + st->phase, 1.0f, mode);
    if (!over) {
        emit(o, f[F_ACTOR] + rel(st->seat, observer, n), 1.0f, mode);
    }
    double rnd = st->round / 24.0;
    emit(o, f[F_ROUND], (float)(rnd < 1.0 ? rnd : 1.0), mode);
    emit(o, f[F_FINAL_ROUND], st->final_round ? 1.0f : 0.0f, mode);
    emit(o, f[F_FINAL_TURN], !over && st->final_turn ? 1.0f : 0.0f, mode);
    emit(o, f[F_DOMINOES], (float)(st->dominoes / 2.0), mode);
    for (int r = 0; r < n; r++) {
        int s = seat_of[r];
        emit_counts(o, f[F_HELD] + r * k, st->held[s], st->held_len[s], k, mode);
    }
    for (int r = 0; r < n; r++) {
        emit(o, f[F_HELD_COUNT] + r, (float)st->held_len[seat_of[r]], mode);
    }
    for (int r = 0; r < n; r++) {
        emit(o, f[F_RESERVE_SLOTS] + r, (float)(st->slots[seat_of[r]] / 4.0), mode);
    }
    for (int r = 0; r < n; r++) {
        emit(o, f[F_BOARD] + r * MR_NUM_BOARDS + st->boards[seat_of[r]], 1.0f, mode);
    }
    const int8_t *cols[2] = {st->cur_col, st->next_col}, *claims[2] = {st->cur_claim,
                                                                          st->next_claim};
    for (int c = 0; c < 2; c++) {
        int col = f[c ? F_NEXT_COLUMN : F_CURRENT_COLUMN];
        int claim = f[c ? F_NEXT_CLAIMS : F_CURRENT_CLAIMS];
        for (int p = 0; p < cfg->column_size; p++) {
            int kind = cols[c][p];
            emit(o, col + p * k1 + (kind >= 0 ? kind : k1 - 1), 1.0f, mode);
        }
        for (int p = 0; p < cfg->column_size; p++) {
            if (claims[c][p] >= 0) {
                emit(o, claim + p * n + rel(claims[c][p], observer, n), 1.0f, mode);
            }
        }
    }
    for (int i = 0; i < cfg->saloon_size; i++) {
        if (st->saloon[i] >= 0) {
            emit(o, f[F_SALOON] + i * MR_NUM_PARTNER_KINDS + st->saloon[i], 1.0f, mode);
        }
    }
    emit(o, f[F_STACK_SIZE],
         cfg->num_partners ? (float)((double)st->stack_len / cfg->num_partners) : 0.0f, mode);
    emit(o, f[F_COW_SUPPLY],
         (float)((double)st->supply / (cfg->cows_total > 1 ? cfg->cows_total : 1)), mode);
    if (o->unseen && mode == SINK_ROOMY) { /* the kinds held, none zero: written in a run */
        const mr_sparse_prefix *u = o->unseen;
        int at = o->off + f[F_UNSEEN_PLOTS];
        for (int j = 0; j < u->unseen_nk; j++) {
            o->idx[o->k + j] = at + u->unseen_kind[j];
            o->val[o->k + j] = u->unseen_count[j];
        }
        o->k += u->unseen_nk;
    } else if (o->unseen) {
        const mr_sparse_prefix *u = o->unseen;
        for (int j = 0; j < u->unseen_nk; j++) {
            emit(o, f[F_UNSEEN_PLOTS] + u->unseen_kind[j], u->unseen_count[j], mode);
        }
    } else {
        emit_counts(o, f[F_UNSEEN_PLOTS], st->pile, st->pile_len, k, mode);
    }
    for (int r = 0; r < n; r++) {
        const int32_t *p = points + 4 * seat_of[r]; /* the tie-break keys are not shown */
        int scores = f[F_SCORES] + r * 5;
        emit(o, scores, (float)(p[0] / 100.0), mode);
        emit(o, scores + 1, (float)(p[1] / 100.0), mode);
        emit(o, scores + 2, (float)(p[2] / 100.0), mode);
        emit(o, scores + 3, (float)(p[3] / 100.0), mode);
        emit(o, scores + 4, (float)((p[0] + p[1] + p[2] + p[3]) / 100.0), mode);
    }
    emit(o, f[F_PENDING_SKULLS], (float)st->skulls_len, mode);
    int c0 = st->circles_len > 0 ? st->circles[0] : -1;
    int c1 = st->circles_len > 1 ? st->circles[1] : -1;
    if (c0 >= 0 && c1 >= 0 && c1 < c0) {
        int t = c0;
        c0 = c1;
        c1 = t;
    }
    if (c0 >= 0) {
        emit(o, f[F_PENDING_CIRCLES] + c0, 1.0f, mode);
    }
    if (c1 >= 0 && c1 != c0) {
        emit(o, f[F_PENDING_CIRCLES] + c1, 1.0f, mode);
    }
    emit(o, f[F_COWBOY_MOVES_LEFT],
         st->phase == PH_COWBOY ? (float)(st->cowboy_moves / 3.0) : 0.0f, mode);
    for (int i = 0; i < cfg->num_tiles && i < 2; i++) {
        emit(o, f[F_BONUS_TILES_AVAILABLE] + i, st->tiles[i] ? 1.0f : 0.0f, mode);
    }
    for (int r = 0; r < n; r++) {
        emit(o, f[F_BONUS_TILE_TAKEN] + r, st->bonus_done[seat_of[r]] ? 1.0f : 0.0f, mode);
    }
    emit(o, f[F_SCENARIO] + (st->scenario < 0 ? 0 : 1 + st->scenario), 1.0f, mode);
}

static void encode_features(const mr_config *cfg, const mr_state *st, int observer,
                            const int32_t *points, sink *out) {
    sink local = *out, *o = &local; /* a local copy: its count stays in a register */
    if (o->dense) {
        memset(o->dense, 0, sizeof(float) * (size_t)cfg->num_features);
        features_into(cfg, st, observer, points, o, SINK_DENSE);
    } else if (o->width - o->k >= cfg->num_features) {
        features_into(cfg, st, observer, points, o, SINK_ROOMY);
        if (o->k < o->width) { /* the slot past the last entry may hold a zero */
            o->idx[o->k] = o->pad;
            o->val[o->k] = 0.0f;
        }
    } else {
        features_into(cfg, st, observer, points, o, SINK_SPARSE);
    }
    out->k = local.k;
}

/* One ranch's non-zero entries (all channels but piece and skull_target), ascending
 * block-relative indices: each channel's cells as a bitboard, then the channels in their
 * public order, each one's cells in order. Returns the count, or -1 past cap entries. */
static int ranch_sparse(const mr_config *cfg, const mr_state *st, int a, int16_t *bi,
                        uint8_t *bv, int cap, uint64_t *sym, int fresh) {
    int cells = cfg->cells;
    uint64_t bb[MR_NUM_CHANNELS] = {0};
    const int8_t *kinds = st->kinds[a], *cows = st->cows[a], *partners = st->partners[a];
    /* The lands, cows, partners and empty cells from the state's own bitboards; the plots'
     * symbols from each occupied cell's kind. */
    uint64_t occ = st->occ[a];
    bb[CH_EMPTY] = cfg->full & ~occ;
    for (int l = 0; l < MR_NUM_LANDS; l++) {
        bb[CH_LAND0 + l] = st->land_bb[a][l];
    }
    bb[CH_COWS] = st->cow_bb[a];
    for (uint64_t m = st->partner_bb[a]; m; m &= m - 1) {
        int c = __builtin_ctzll(m);
        bb[CH_PARTNER0 + partners[c]] |= 1ull << c;
    }
    /* Each symbol's cells, kept in registers (no store per symbol a cell). A plot is only
     * ever put on an empty cell and stays, so with sym (what the last call gathered from
     * this ranch, not since a new game or a set state: fresh) only the cells occupied since
     * then are read. */
    uint64_t gold = 0, beaver = 0, corn = 0, skull = 0, circle = 0, tile = 0, from = occ;
    if (sym && !fresh && !(sym[0] & ~occ)) {
        gold = sym[1], beaver = sym[2], corn = sym[3];
        skull = sym[4], circle = sym[5], tile = sym[6];
        from = occ & ~sym[0];
    }
    for (uint64_t m = from; m; m &= m - 1) {
        int c = __builtin_ctzll(m);
        uint64_t s = cfg->symbols[kinds[c]], bit = 1ull << c;
        gold |= -(s >> SYM_GOLD & 1) & bit;
        beaver |= -(s >> SYM_BEAVER & 1) & bit;
        corn |= -(s >> SYM_CORN & 1) & bit;
        skull |= -(s >> SYM_SKULL & 1) & bit;
        circle |= -(s >> SYM_CIRCLE & 1) & bit;
        tile |= -(s >> SYM_BONUS_TILE & 1) & bit;
    }
    bb[CH_GOLD] = gold;
    bb[CH_BEAVER] = beaver;
    bb[CH_CORN] = corn;
    bb[CH_SKULL] = skull;
    bb[CH_CIRCLE] = circle;
    bb[CH_BONUS_TILE] = tile;
    if (sym) {
        sym[0] = occ, sym[1] = gold, sym[2] = beaver, sym[3] = corn;
        sym[4] = skull, sym[5] = circle, sym[6] = tile;
    }
    bb[CH_PROTECTED] = mr_protected(cfg, st, a);
    bb[CH_RIVER] = cells < 5 ? cfg->full : 0x1full;
    bb[CH_BRIDGE] = st->bridges[a];
    int total = 0;
    for (int ch = 0; ch < MR_NUM_CHANNELS; ch++) {
        total += __builtin_popcountll(bb[ch]);
    }
    if (total > cap) {
        return -1;
    }
    /* Each channel's cells in order. A binary channel's are written four at a time while
     * three spare entries remain (the writes past its last cell are overwritten or lie past
     * the count); a set top bit keeps ctz defined once the mask is spent (no cell is 63). */
    const uint64_t top = 1ull << 63;
    int k = 0;
    for (int pub = 0; pub < MR_NUM_CHANNELS; pub++) {
        int in = cfg->channel_of[pub];
        uint64_t m = bb[in];
        if (!m) {
            continue;
        }
        int base = pub * cells;
        const int *count = in == CH_GOLD     ? cfg->gold
                           : in == CH_BEAVER ? cfg->beaver
                           : in == CH_CORN   ? cfg->corn
                                             : NULL;
        if (count) { /* a symbol's count on the plot */
            for (; m; m &= m - 1) {
                int c = __builtin_ctzll(m);
                bi[k] = (int16_t)(base + c);
                bv[k++] = (uint8_t)count[kinds[c]]; /* at most 20 (config.c) */
            }
        } else if (in == CH_COWS) {
            for (; m; m &= m - 1) {
                int c = __builtin_ctzll(m);
                bi[k] = (int16_t)(base + c);
                bv[k++] = (uint8_t)cows[c]; /* at most 127 (config.c) */
            }
        } else {
            int end = k + __builtin_popcountll(m);
            for (; end + 3 <= cap && k < end; k += 4) {
                bi[k] = (int16_t)(base + __builtin_ctzll(m | top));
                m &= m - 1;
                bi[k + 1] = (int16_t)(base + __builtin_ctzll(m | top));
                m &= m - 1;
                bi[k + 2] = (int16_t)(base + __builtin_ctzll(m | top));
                m &= m - 1;
                bi[k + 3] = (int16_t)(base + __builtin_ctzll(m | top));
                m &= m - 1;
                memset(bv + k, 1, 4);
            }
            for (; k < end; m &= m - 1) { /* near the end of the cache: one at a time */
                bi[k] = (int16_t)(base + __builtin_ctzll(m));
                bv[k++] = 1;
            }
            k = end;
        }
    }
    return k;
}

/* Rebuilds the cached ranch blocks (with blocks; and their points) whose ranch changed since
 * they were built; with sidx, also each such ranch's non-zero entries. */
static void refresh_blocks(const mr_config *cfg, const mr_state *st, float *blocks,
                           int32_t *points, uint32_t *keys, int16_t *sidx, uint8_t *sval,
                           int32_t *slen, int cap, uint64_t (*sym)[7]) {
    int size = mr_block_size(cfg);
    for (int a = 0; a < cfg->n; a++) {
        if (mr_ranch_stale(keys[a], st, a)) {
            if (blocks) {
                ranch_block(cfg, st, a, blocks + (size_t)a * size, points + 4 * a);
            } else {
                int p[4];
                mr_points(cfg, st, a, p);
                for (int i = 0; i < 4; i++) {
                    points[4 * a + i] = p[i];
                }
            }
            int fresh = keys[a] == MR_NO_KEY;
            keys[a] = st->version[a];
            if (sidx) {
                slen[a] = ranch_sparse(cfg, st, a, sidx + (size_t)a * cap,
                                       sval + (size_t)a * cap, cap, sym ? sym[a] : NULL, fresh);
            }
        }
    }
}

void mr_encode_cached(const mr_config *cfg, const mr_state *st, int seat, float *out,
                      float *blocks, int32_t *points, uint32_t *keys) {
    refresh_blocks(cfg, st, blocks, points, keys, NULL, NULL, NULL, 0, NULL);
    encode_planes(cfg, st, seat, blocks, out);
    sink o = {out + cfg->plane_size, NULL, NULL, 0, 0, 0, 0, NULL};
    encode_features(cfg, st, seat, points, &o);
}

/* Appends cnt cached entries at k, their indices shifted by base; returns the new count. */
static inline int copy_shifted(int32_t *idx, float *val, int k, const int16_t *bi,
                               const uint8_t *bv, int cnt, int base) {
    int32_t *out = idx + k;
    float *vout = val + k;
    for (int j = 0; j < cnt; j++) {
        out[j] = base + bi[j];
        vout[j] = (float)bv[j];
    }
    return k + cnt;
}

int mr_encode_sparse(const mr_config *cfg, const mr_state *st, int seat, mr_sparse_cache *c,
                     int32_t *idx, float *val, int width) {
    refresh_blocks(cfg, st, c->blocks, c->points, c->keys, c->sidx, c->sval, c->slen,
                   c->ranch_width, c->prefix ? c->prefix->sym : NULL);
    int n = cfg->n, cells = cfg->cells, size = mr_block_size(cfg);
    /* The acting seat's pending piece and skull territory: entries of channels the cached
     * blocks leave empty, merged in index order. */
    uint64_t piece = 0, skull = 0;
    if (st->piece_len && st->phase != PH_SELECT && st->phase != PH_SETUP_CLAIM &&
        st->phase != PH_GAME_OVER) {
        for (int i = 0; i < st->piece_len; i++) {
            piece |= 1ull << st->piece[i];
        }
        if (st->phase == PH_SKULL) {
            skull = mr_skull_territory(cfg, st);
        }
    }
    mr_sparse_prefix *memo = c->prefix;
    int k = 0;
    int actor = piece | skull ? st->seat : -1; /* whose ranch shows them */
    if (memo && memo->len >= 0 && memo->seat == seat && memo->actor == actor &&
        memo->piece == piece && memo->skull == skull &&
        !memcmp(memo->keys, c->keys, sizeof(uint32_t) * (size_t)n)) {
        k = memo->len; /* the row's ranch part is as the last call wrote it */
    } else {
        if (memo) {
            memo->len = -1;
        }
        int32_t extra[2 * MR_MAX_CELLS];
        int ne = 0;
        const int *ch = cfg->channel;
        uint64_t first = piece, second = skull;
        int at1 = ch[CH_PIECE] * cells, at2 = ch[CH_SKULL_TARGET] * cells;
        if (at2 < at1) {
            first = skull, second = piece;
            at1 = at2, at2 = ch[CH_PIECE] * cells;
        }
        for (; first; first &= first - 1) {
            extra[ne++] = at1 + __builtin_ctzll(first);
        }
        for (; second; second &= second - 1) {
            extra[ne++] = at2 + __builtin_ctzll(second);
        }
        for (int r = 0; r < n; r++) {
            int a = (seat + r) % n;
            const int16_t *bi = c->sidx + (size_t)a * c->ranch_width;
            const uint8_t *bv = c->sval + (size_t)a * c->ranch_width;
            int len = c->slen[a], base = r * size;
            int ex = a == st->seat ? ne : 0;
            if (len < 0 || k + len + ex > width) {
                return -1;
            }
            if (!ex) { /* the common case: a straight copy, shifted by the ranch's base */
                k = copy_shifted(idx, val, k, bi, bv, len, base);
                continue;
            }
            /* The extra entries go in between runs of the cached list, each run copied
             * whole: the first cached entry past the next extra one is found by bisection. */
            int e = 0, j = 0;
            while (e < ex) {
                int lo = j, hi = len;
                while (lo < hi) {
                    int mid = (lo + hi) >> 1;
                    if (bi[mid] < extra[e]) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                k = copy_shifted(idx, val, k, bi + j, bv + j, lo - j, base);
                j = lo;
                while (e < ex && (j == len || extra[e] < bi[j])) {
                    idx[k] = base + extra[e++];
                    val[k++] = 1.0f;
                }
            }
            k = copy_shifted(idx, val, k, bi + j, bv + j, len - j, base);
        }
        if (memo) {
            memcpy(memo->keys, c->keys, sizeof(uint32_t) * (size_t)n);
            memo->piece = piece;
            memo->skull = skull;
            memo->seat = seat;
            memo->actor = actor;
            memo->len = k;
        }
    }
    /* The features, appended in index order. */
    sink o = {NULL, idx, val, k, width, cfg->plane_size, cfg->obs_size, NULL};
    if (memo) { /* the pile only shrinks in a game (a shuffle keeps its kinds): its counts
                 * change with its length */
        if (memo->unseen_len != st->pile_len) {
            uint8_t count[MR_MAX_CONTENTS];
            count_kinds(st->pile, st->pile_len, cfg->num_plot_kinds, count);
            int nk = 0;
            for (int kind = 0; kind < cfg->num_plot_kinds; kind++) {
                if (count[kind]) {
                    memo->unseen_kind[nk] = (uint8_t)kind;
                    memo->unseen_count[nk++] = (float)count[kind];
                }
            }
            memo->unseen_nk = nk;
            memo->unseen_len = st->pile_len;
        }
        o.unseen = memo;
    }
    encode_features(cfg, st, seat, c->points, &o);
    if (o.k > width) {
        if (memo) {
            memo->len = -1; /* the caller pads the refused row whole */
        }
        return -1;
    }
    return o.k;
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
