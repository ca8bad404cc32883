/*
 * Implicit-ALS conjugate-gradient row solver for wasm32 + SIMD128 (see src/models/als/kernels.ts for the JS twin).
 *
 * All arrays live in one shared linear memory owned by JavaScript. No globals, no stack arrays: several instances in
 * several worker threads run over the same memory at once; each call gets its own scratch (4 * k floats).
 * k must be a multiple of 4. conf holds alpha * count (confidence - 1); lambdas one penalty per row.
 */
#include <stdint.h>
#include <wasm_simd128.h>

static inline float hsum(v128_t s) {
  return wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1) + wasm_f32x4_extract_lane(s, 2) +
         wasm_f32x4_extract_lane(s, 3);
}

static inline float dot(const float *a, const float *b, int k) {
  v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0;
  int i = 0;
  for (; i + 8 <= k; i += 8) {
    s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
    s1 = wasm_f32x4_add(s1, wasm_f32x4_mul(wasm_v128_load(a + i + 4), wasm_v128_load(b + i + 4)));
  }
  for (; i < k; i += 4) s0 = wasm_f32x4_add(s0, wasm_f32x4_mul(wasm_v128_load(a + i), wasm_v128_load(b + i)));
  return hsum(wasm_f32x4_add(s0, s1));
}

/* out += w * y */
static inline void axpy(float w, const float *y, float *out, int k) {
  v128_t vw = wasm_f32x4_splat(w);
  for (int i = 0; i < k; i += 4) {
    wasm_v128_store(out + i, wasm_f32x4_add(wasm_v128_load(out + i), wasm_f32x4_mul(vw, wasm_v128_load(y + i))));
  }
}

/* out = lambda * v + gram v */
static inline void gram_times(const float *gram, const float *v, float lambda, float *out, int k) {
  for (int a = 0; a < k; a++) out[a] = lambda * v[a] + dot(gram + a * k, v, k);
}

void als_solve(float *target, const float *fixed, const int32_t *indptr, const int32_t *indices, const float *conf,
               const float *lambdas, int k, const float *gram, int start, int end, int cg_steps, float *scratch) {
  float *x = scratch, *r = scratch + k, *p = scratch + 2 * k, *ap = scratch + 3 * k;
  for (int u = start; u < end; u++) {
    float *row = target + (int64_t)u * k;
    for (int a = 0; a < k; a += 4) wasm_v128_store(x + a, wasm_v128_load(row + a));
    const int e0 = indptr[u], e1 = indptr[u + 1];
    const float lambda = lambdas[u];
    /* r = b - A x, b = sum (1 + d) y_i, A x = (gram + lambda I) x + sum d (y_i . x) y_i */
    gram_times(gram, x, lambda, r, k);
    for (int a = 0; a < k; a += 4) wasm_v128_store(r + a, wasm_f32x4_neg(wasm_v128_load(r + a)));
    for (int e = e0; e < e1; e++) {
      const float d = conf[e];
      const float *y = fixed + (int64_t)indices[e] * k;
      axpy(1.0f + d - d * dot(y, x, k), y, r, k);
    }
    float rs_old = dot(r, r, k);
    if (rs_old < 1e-20f) continue;
    for (int a = 0; a < k; a += 4) wasm_v128_store(p + a, wasm_v128_load(r + a));
    for (int step = 0; step < cg_steps; step++) {
      gram_times(gram, p, lambda, ap, k);
      for (int e = e0; e < e1; e++) {
        const float d = conf[e];
        const float *y = fixed + (int64_t)indices[e] * k;
        axpy(d * dot(y, p, k), y, ap, k);
      }
      const float pap = dot(p, ap, k);
      if (!(pap > 0.0f)) break;
      const float alpha = rs_old / pap;
      v128_t va = wasm_f32x4_splat(alpha);
      for (int a = 0; a < k; a += 4) {
        wasm_v128_store(x + a, wasm_f32x4_add(wasm_v128_load(x + a), wasm_f32x4_mul(va, wasm_v128_load(p + a))));
        wasm_v128_store(r + a, wasm_f32x4_sub(wasm_v128_load(r + a), wasm_f32x4_mul(va, wasm_v128_load(ap + a))));
      }
      const float rs_new = dot(r, r, k);
      if (rs_new < 1e-20f) break;
      v128_t vb = wasm_f32x4_splat(rs_new / rs_old);
      for (int a = 0; a < k; a += 4) {
        wasm_v128_store(p + a, wasm_f32x4_add(wasm_v128_load(r + a), wasm_f32x4_mul(vb, wasm_v128_load(p + a))));
      }
      rs_old = rs_new;
    }
    for (int a = 0; a < k; a += 4) wasm_v128_store(row + a, wasm_v128_load(x + a));
  }
}
