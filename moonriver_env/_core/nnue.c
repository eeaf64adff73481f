/* The learned evaluation (learn.h): a sparse first layer read row by row for the observation's
 * non-zero entries (or, as NNUE does, updated from a parent's sums for the entries an afterstate
 * changed), two small dense layers and a value. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "learn.h"

size_t lr_net_size(int in, int h1, int h2) {
    return (size_t)in * h1 + h1 + (size_t)h2 * h1 + h2 + h2 + 1;
}

void lr_net_bind(lr_net *net, int in, int h1, int h2, int actions, const float *data) {
    net->in = in;
    net->h1 = h1;
    net->h2 = h2;
    net->actions = actions;
    net->w1 = data;
    data += (size_t)in * h1;
    net->b1 = data;
    data += h1;
    net->w2 = data;
    data += (size_t)h1 * h2;
    net->b2 = data;
    data += h2;
    net->wv = data;
    data += h2;
    net->bv = data;
}

static inline void add_row(float *restrict acc, const float *restrict row, float x, int n) {
    if (x == 1.0f) {
        for (int j = 0; j < n; j++) {
            acc[j] += row[j];
        }
    } else if (x == -1.0f) { /* a one-hot entry turned off (lr_layer1_delta) */
        for (int j = 0; j < n; j++) {
            acc[j] -= row[j];
        }
    } else {
        for (int j = 0; j < n; j++) {
            acc[j] += x * row[j];
        }
    }
}

static inline float dot(const float *restrict a, const float *restrict b, int n) {
    float s0 = 0.0f, s1 = 0.0f, s2 = 0.0f, s3 = 0.0f;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        s0 += a[j] * b[j];
        s1 += a[j + 1] * b[j + 1];
        s2 += a[j + 2] * b[j + 2];
        s3 += a[j + 3] * b[j + 3];
    }
    for (; j < n; j++) {
        s0 += a[j] * b[j];
    }
    return (s0 + s1) + (s2 + s3);
}

/* With AVX2 where the machine has it (GCC picks the clone at load time), plain SSE2 else. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define LR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LR_CLONES
#endif

LR_CLONES void lr_layer1(const lr_net *net, const float *x, float *h1) {
    int n1 = net->h1;
    memcpy(h1, net->b1, sizeof(float) * (size_t)n1);
    for (int i = 0; i < net->in; i++) {
        if (x[i] != 0.0f) {
            add_row(h1, net->w1 + (size_t)i * n1, x[i], n1);
        }
    }
}

/* Blocks of LR_BLOCK entries are compared at once, as bits (an entry whose bits differ while
 * its value does not, 0 and -0, adds a zero row); only a block that differs is read entry by
 * entry (an afterstate's observation differs from its parent's in a few blocks). */
#define LR_BLOCK 32
typedef uint32_t lr_bits __attribute__((may_alias));

/* h1 += the rows of the entries from..to-1 where x differs from base, by their difference. */
static inline void add_changed(const lr_net *net, const float *base, const float *x, float *h1,
                               int from, int to) {
    for (int i = from; i < to; i++) {
        if (x[i] != base[i]) {
            add_row(h1, net->w1 + (size_t)i * net->h1, x[i] - base[i], net->h1);
        }
    }
}

LR_CLONES void lr_layer1_delta(const lr_net *net, const float *base, const float *h1_base,
                               const float *x, float *h1) {
    int n1 = net->h1, in = net->in;
    memcpy(h1, h1_base, sizeof(float) * (size_t)n1);
    const lr_bits *xb = (const lr_bits *)x, *bb = (const lr_bits *)base;
    int i0 = 0;
    for (; i0 + LR_BLOCK <= in; i0 += LR_BLOCK) {
        uint32_t differ = 0;
        for (int i = i0; i < i0 + LR_BLOCK; i++) {
            differ |= xb[i] ^ bb[i];
        }
        if (differ) {
            add_changed(net, base, x, h1, i0, i0 + LR_BLOCK);
        }
    }
    add_changed(net, base, x, h1, i0, in); /* the last, shorter block */
}

LR_CLONES float lr_head(const lr_net *net, const float *h1, float *h2) {
    float acc[LR_MAX_H2];
    int n1 = net->h1, n2 = net->h2;
    memcpy(acc, net->b2, sizeof(float) * (size_t)n2);
    for (int j = 0; j < n1; j++) {
        if (h1[j] > 0.0f) { /* relu: the zeros add nothing */
            add_row(acc, net->w2 + (size_t)j * n2, h1[j], n2);
        }
    }
    for (int k = 0; k < n2; k++) {
        h2[k] = acc[k] > 0.0f ? acc[k] : 0.0f;
    }
    return tanhf(net->bv[0] + dot(net->wv, h2, n2));
}

float lr_forward(const lr_net *net, const float *x, float *h2) {
    float h1[LR_MAX_H1];
    lr_layer1(net, x, h1);
    return lr_head(net, h1, h2);
}
