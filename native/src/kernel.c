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
#include <wasm_simd128.h>

static inline float dot(const float *a, const float *b, int n) {
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0, s2 = s0, s3 = s0;
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(wasm_v128_load(a + i + 4), wasm_v128_load(b + i + 4)));
    s2 = wasm_f32x4_add(s2, wasm_f32x4_mul(wasm_v128_load(a + i + 8), wasm_v128_load(b + i + 8)));
    s3 = wasm_f32x4_add(s3, wasm_f32x4_mul(wasm_v128_load(a + i + 12), wasm_v128_load(b + i + 12)));
  }
  for (; i + 4 <= n; i += 4) {
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  }
  v128_t s = wasm_f32x4_add(wasm_f32x4_add(s0, s1), wasm_f32x4_add(s2, s3));
  return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) +
         wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3);
}

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

/*
 * Top-k of rows [begin, end) by inner product with q. Writes up to k (score, row)
 * pairs, unordered, to out_scores/out_rows and returns how many.
 */
int kv_topk(const float *base, int stride, int begin, int end, const float *q,
            const uint32_t *alive, const uint32_t *allow, int k,
            float *out_scores, int32_t *out_rows) {
  int size = 0;
  if (k <= 0) return 0;
  int r = begin;
  while (r < end) {
    int w = r >> 5;
    uint32_t bits = alive[w];
    if (allow) bits &= allow[w];
    int word_end = (w + 1) << 5;
    if (word_end > end) word_end = end;
    bits >>= (r & 31);
    if (bits == 0xffffffffu >> (r & 31) && word_end - r == 32 - (r & 31)) {
      /* every row of this word is eligible: no per-row bit test */
      for (; r < word_end; r++) {
        float s = dot(base + (intptr_t)r * stride, q, stride);
        size = offer(out_scores, out_rows, size, k, s, r);
      }
      continue;
    }
    while (bits != 0 && r < word_end) {
      int skip = __builtin_ctz(bits);
      r += skip;
      bits >>= skip;
      if (r >= word_end) break;
      float s = dot(base + (intptr_t)r * stride, q, stride);
      size = offer(out_scores, out_rows, size, k, s, r);
      r++;
      bits >>= 1;
    }
    r = word_end;
  }
  return size;
}

/* Scores of the listed rows (no mask): out[i] = <row rows[i], q>. */
void kv_score_rows(const float *base, int stride, const int32_t *rows, int n,
                   const float *q, float *out) {
  for (int i = 0; i < n; i++) out[i] = dot(base + (intptr_t)rows[i] * stride, q, stride);
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
