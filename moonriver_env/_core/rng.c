/* NumPy's random generator, the parts the set-up draws from: SeedSequence (entropy from one
 * non-negative integer, no spawn key), PCG64 (XSL-RR output on a 128-bit LCG) with its 32-bit
 * buffer, Generator.integers(high) for int64 (Lemire's bounded method) and random_interval
 * (the masked rejection that Generator.shuffle and permutation use). Written from the
 * published algorithms (O'Neill's PCG paper, NumPy's SeedSequence documentation, Lemire 2019);
 * the differential tests compare every set-up against NumPy itself. */
#include "moonriver.h"

typedef unsigned __int128 u128;

#define SS_INIT_A 0x43b0d7e5u
#define SS_MULT_A 0x931e8875u
#define SS_INIT_B 0x8b51f9ddu
#define SS_MULT_B 0x58f38dedu
#define SS_MIX_MULT_L 0xca01f9ddu
#define SS_MIX_MULT_R 0x4973f715u
#define SS_XSHIFT 16
#define SS_POOL 4

static uint32_t hashmix(uint32_t value, uint32_t *hash_const) {
    value ^= *hash_const;
    *hash_const *= SS_MULT_A;
    value *= *hash_const;
    value ^= value >> SS_XSHIFT;
    return value;
}

static uint32_t mix(uint32_t x, uint32_t y) {
    uint32_t result = SS_MIX_MULT_L * x - SS_MIX_MULT_R * y;
    return result ^ (result >> SS_XSHIFT);
}

static u128 get128(uint64_t hi, uint64_t lo) { return ((u128)hi << 64) | lo; }

static const u128 PCG_MULT_HI = 2549297995355413924ULL;
static const u128 PCG_MULT_LO = 4865540595714422341ULL;

static void step(u128 *state, u128 inc) {
    *state = *state * ((PCG_MULT_HI << 64) | PCG_MULT_LO) + inc;
}

int mr_seed_words(uint64_t seed, uint32_t words[2]) {
    int len = 0;
    do {
        words[len++] = (uint32_t)seed;
        seed >>= 32;
    } while (seed);
    return len;
}

void mr_pcg64_seed(mr_pcg64 *rng, uint64_t seed) {
    /* SeedSequence(seed): the entropy as 32-bit words. */
    uint32_t entropy[2];
    int words = mr_seed_words(seed, entropy);
    uint32_t pool[SS_POOL];
    uint32_t hc = SS_INIT_A;
    for (int i = 0; i < SS_POOL; i++) {
        pool[i] = hashmix(i < words ? entropy[i] : 0u, &hc);
    }
    for (int src = 0; src < SS_POOL; src++) {
        for (int dst = 0; dst < SS_POOL; dst++) {
            if (src != dst) {
                pool[dst] = mix(pool[dst], hashmix(pool[src], &hc));
            }
        }
    }
    /* generate_state(4, uint64): 8 words, read as 4 little-endian 64-bit words. */
    uint32_t out32[8];
    uint32_t hb = SS_INIT_B;
    for (int i = 0; i < 8; i++) {
        uint32_t v = pool[i % SS_POOL];
        v ^= hb;
        hb *= SS_MULT_B;
        v *= hb;
        v ^= v >> SS_XSHIFT;
        out32[i] = v;
    }
    uint64_t val[4];
    for (int i = 0; i < 4; i++) {
        val[i] = (uint64_t)out32[2 * i] | ((uint64_t)out32[2 * i + 1] << 32);
    }
    /* PCG64: seed = val[0]:val[1], increment = val[2]:val[3] (high word first). */
    u128 initstate = get128(val[0], val[1]);
    u128 inc = (get128(val[2], val[3]) << 1) | 1u;
    u128 state = 0;
    step(&state, inc);
    state += initstate;
    step(&state, inc);
    rng->state_hi = (uint64_t)(state >> 64);
    rng->state_lo = (uint64_t)state;
    rng->inc_hi = (uint64_t)(inc >> 64);
    rng->inc_lo = (uint64_t)inc;
    rng->has_uint32 = 0;
    rng->uinteger = 0;
}

uint64_t mr_next_uint64(mr_pcg64 *rng) {
    u128 state = get128(rng->state_hi, rng->state_lo);
    step(&state, get128(rng->inc_hi, rng->inc_lo));
    rng->state_hi = (uint64_t)(state >> 64);
    rng->state_lo = (uint64_t)state;
    uint64_t x = rng->state_hi ^ rng->state_lo;
    unsigned rot = (unsigned)(state >> 122);
    return (x >> rot) | (x << ((64u - rot) & 63u));
}

uint32_t mr_next_uint32(mr_pcg64 *rng) {
    if (rng->has_uint32) {
        rng->has_uint32 = 0;
        return rng->uinteger;
    }
    uint64_t next = mr_next_uint64(rng);
    rng->has_uint32 = 1;
    rng->uinteger = (uint32_t)(next >> 32);
    return (uint32_t)next;
}

uint64_t mr_integers(mr_pcg64 *rng, uint64_t high) {
    /* Generator.integers(high) (int64, low 0): the closed range 0..high-1 as "rng". */
    uint64_t range = high - 1;
    if (range == 0) {
        return 0;
    }
    if (range <= 0xFFFFFFFFull) {
        if (range == 0xFFFFFFFFull) {
            return mr_next_uint32(rng);
        }
        uint32_t excl = (uint32_t)range + 1u;
        uint64_t m = (uint64_t)mr_next_uint32(rng) * excl;
        uint32_t leftover = (uint32_t)m;
        if (leftover < excl) {
            uint32_t threshold = (UINT32_MAX - (uint32_t)range) % excl;
            while (leftover < threshold) {
                m = (uint64_t)mr_next_uint32(rng) * excl;
                leftover = (uint32_t)m;
            }
        }
        return m >> 32;
    }
    if (range == UINT64_MAX) {
        return mr_next_uint64(rng);
    }
    uint64_t excl = range + 1;
    u128 m = (u128)mr_next_uint64(rng) * excl;
    uint64_t leftover = (uint64_t)m;
    if (leftover < excl) {
        uint64_t threshold = (UINT64_MAX - range) % excl;
        while (leftover < threshold) {
            m = (u128)mr_next_uint64(rng) * excl;
            leftover = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

uint64_t mr_interval(mr_pcg64 *rng, uint64_t max) {
    if (max == 0) {
        return 0;
    }
    uint64_t mask = max;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    mask |= mask >> 32;
    uint64_t value;
    if (max <= 0xFFFFFFFFull) {
        while ((value = (mr_next_uint32(rng) & mask)) > max) {
        }
    } else {
        while ((value = (mr_next_uint64(rng) & mask)) > max) {
        }
    }
    return value;
}

void mr_shuffle8(mr_pcg64 *rng, int8_t *a, int len) {
    for (int i = len - 1; i >= 1; i--) {
        int j = (int)mr_interval(rng, (uint64_t)i);
        int8_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

void mr_sort8(int8_t *a, int len) {
    for (int i = 1; i < len; i++) {
        int8_t x = a[i];
        int j = i - 1;
        while (j >= 0 && a[j] > x) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = x;
    }
}

double mr_random(mr_pcg64 *rng) { return (double)(mr_next_uint64(rng) >> 11) * 0x1.0p-53; }
