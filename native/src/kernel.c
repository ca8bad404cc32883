/*
 * Exact inner-product top-k kernel for wasm32 + SIMD128.
 *
 * Everything lives in one (shared) linear memory owned by JavaScript. The kernel
 * keeps no globals and no stack arrays, so several instances in several worker
 * threads can run over the same memory at once as long as each call gets its own
 * output buffers.
 *
 * Rows are `stride` floats apart (stride >= dim, stride % 4 == 0, padding zero).
 * A row is scanned only when its bit in `alive` is set and, if `allow` is not 0,
 * its bit in `allow` is set too (bit r lives in word r >> 5, bit r & 31).
 */
#include <stdint.h>

#include "dot.h"

/* Min-heap on scores: heap[0] is the weakest of the kept candidates. */
static inline void sift_down(float *scores, int32_t *rows, int size, int i) {
  float s = scores[i];
  int32_t r = rows[i];
  for (;;) {
    int c = 2 * i + 1;
    if (c >= size) break;
    if (c + 1 < size && scores[c + 1] < scores[c]) c++;
    if (scores[c] >= s) break;
    scores[i] = scores[c];
    rows[i] = rows[c];
    i = c;
  }
  scores[i] = s;
  rows[i] = r;
}

static inline void sift_up(float *scores, int32_t *rows, int i) {
  float s = scores[i];
  int32_t r = rows[i];
  while (i > 0) {
    int p = (i - 1) >> 1;
    if (scores[p] <= s) break;
    scores[i] = scores[p];
    rows[i] = rows[p];
    i = p;
  }
  scores[i] = s;
  rows[i] = r;
}

static inline int offer(float *scores, int32_t *rows, int size, int k, float s, int32_t r) {
  if (size < k) {
    scores[size] = s;
    rows[size] = r;
    sift_up(scores, rows, size);
    return size + 1;
  }
  if (s > scores[0]) {
    scores[0] = s;
    rows[0] = r;
    sift_down(scores, rows, size, 0);
  }
  return size;
}

/* Inner product of two vectors of n floats (n % 4 == 0). */
float kv_dot(const float *a, const float *b, int n) { return dot(a, b, n); }

/* (score sa, row ra) ranks before (sb, rb): the higher score, then the lower row (a total order: rows differ). */
static inline int before(float sa, int32_t ra, float sb, int32_t rb) {
  return sa > sb || (sa == sb && ra < rb);
}

/* Moves the k best of n pairs to the front, in no order (quickselect; n > k > 0). */
static void select_best(float *scores, int32_t *rows, int n, int k) {
  int lo = 0, hi = n - 1;
  while (lo < hi) {
    int mid = lo + ((hi - lo) >> 1);
    float ps = scores[mid];
    int32_t pr = rows[mid];
    int i = lo, j = hi;
    while (i <= j) {
      while (before(scores[i], rows[i], ps, pr)) i++;
      while (before(ps, pr, scores[j], rows[j])) j--;
      if (i <= j) {
        float ts = scores[i];
        int32_t tr = rows[i];
        scores[i] = scores[j];
        rows[i++] = rows[j];
        scores[j] = ts;
        rows[j--] = tr;
      }
    }
    if (k - 1 <= j) hi = j;
    else if (k - 1 >= i) lo = i;
    else break;
  }
}

/* Scores every eligible row of [begin, end) and passes it to `take`; the word-at-a-time mask walk of both scans. */
#define FOR_EACH_ELIGIBLE(base, stride, begin, end, q, alive, allow, take)                 \
  do {                                                                                        \
    int r = (begin);                                                                          \
    while (r < (end)) {                                                                       \
      int w = r >> 5;                                                                         \
      uint32_t bits = (alive)[w];                                                             \
      if (allow) bits &= (allow)[w];                                                          \
      int word_end = (w + 1) << 5;                                                            \
      if (word_end > (end)) word_end = (end);                                                 \
      bits >>= (r & 31);                                                                      \
      if (bits == 0xffffffffu >> (r & 31) && word_end - r == 32 - (r & 31)) {                 \
        /* every row of this word is eligible: no per-row bit test */                         \
        for (; r < word_end; r++) {                                                           \
          float s = dot((base) + (intptr_t)r * (stride), (q), (stride));                      \
          take;                                                                               \
        }                                                                                     \
        continue;                                                                             \
      }                                                                                       \
      while (bits != 0 && r < word_end) {                                                     \
        int skip = __builtin_ctz(bits);                                                       \
        r += skip;                                                                            \
        bits >>= skip;                                                                        \
        if (r >= word_end) break;                                                             \
        float s = dot((base) + (intptr_t)r * (stride), (q), (stride));                        \
        take;                                                                                 \
        r++;                                                                                  \
        bits >>= 1;                                                                           \
      }                                                                                       \
      r = word_end;                                                                           \
    }                                                                                         \
  } while (0)

/*
 * Top-k of rows [begin, end) by inner product with q: the k best by score, ties to the lower row. Writes up to k
 * (score, row) pairs, unordered, to out_scores/out_rows and returns how many. The outputs hold `cap` pairs: with
 * room for 2k, rows that beat the k-th best so far are appended and the buffer cut back to its k best whenever it
 * fills (a few quickselects per scan); with less, a heap of k (at k = 800 of 5,000 rows the heap's sifts cost as
 * much as the dot products).
 */
int kv_topk(const float *base, int stride, int begin, int end, const float *q,
            const uint32_t *alive, const uint32_t *allow, int k, int cap,
            float *out_scores, int32_t *out_rows) {
  if (k <= 0) return 0;
  int size = 0;
  if (cap < 2 * k) {
    FOR_EACH_ELIGIBLE(base, stride, begin, end, q, alive, allow,
                      size = offer(out_scores, out_rows, size, k, s, r));
    return size;
  }
  /* the k-th best of the pairs kept at the last cut: a row must rank before it to matter */
  int cut = 0;
  float worst_score = 0;
  int32_t worst_row = 0;
  FOR_EACH_ELIGIBLE(base, stride, begin, end, q, alive, allow, {
    if (!cut || before(s, r, worst_score, worst_row)) {
      out_scores[size] = s;
      out_rows[size++] = r;
      if (size == cap) {
        select_best(out_scores, out_rows, size, k);
        size = k;
        cut = 1;
        worst_score = out_scores[0];
        worst_row = out_rows[0];
        for (int i = 1; i < k; i++) {
          if (before(worst_score, worst_row, out_scores[i], out_rows[i])) {
            worst_score = out_scores[i];
            worst_row = out_rows[i];
          }
        }
      }
    }
  });
  if (size > k) {
    select_best(out_scores, out_rows, size, k);
    size = k;
  }
  return size;
}

/*
 * Several queries over the same rows [begin, end): each eligible row is loaded once and
 * scored against every query while it sits in cache (scans are memory-bound).
 * desc holds nq records of 4 int32: query pointer, k, output scores pointer, output
 * rows pointer. sizes[j] receives how many pairs query j kept.
 */
void kv_topk_multi(const float *base, int stride, int begin, int end,
                   const int32_t *desc, int nq, const uint32_t *alive, int32_t *sizes) {
  for (int j = 0; j < nq; j++) sizes[j] = 0;
  int r = begin;
  while (r < end) {
    int w = r >> 5;
    uint32_t bits = alive[w] >> (r & 31);
    int word_end = (w + 1) << 5;
    if (word_end > end) word_end = end;
    while (bits != 0 && r < word_end) {
      int skip = __builtin_ctz(bits);
      r += skip;
      bits >>= skip;
      if (r >= word_end) break;
      const float *row = base + (intptr_t)r * stride;
      for (int j = 0; j < nq; j++) {
        const int32_t *d = desc + 4 * j;
        float s = dot(row, (const float *)(intptr_t)d[0], stride);
        sizes[j] = offer((float *)(intptr_t)d[2], (int32_t *)(intptr_t)d[3], sizes[j], d[1], s, r);
      }
      r++;
      bits >>= 1;
    }
    r = word_end;
  }
}
