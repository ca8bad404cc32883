// The inner product of the vector kernel, one definition for both of its builds: WASM SIMD (kernel.c, the scans)
// and x86 SSE (dense.c, listed rows). The same float32 operations in the same order on either, so a row scores the
// same to the bit wherever it is scored: four running sums of four lanes, then the sums added pairwise and the
// lanes left to right (both built without fused multiply-add).
#ifndef KINDRED_DOT_H
#define KINDRED_DOT_H

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
typedef v128_t f32x4;
#define F32X4_ZERO() wasm_f32x4_splat(0.0f)
#define F32X4_LOAD(p) wasm_v128_load(p)
#define F32X4_ADD(a, b) wasm_f32x4_add(a, b)
#define F32X4_MUL(a, b) wasm_f32x4_mul(a, b)
#define F32X4_LANE(v, i) wasm_f32x4_extract_lane(v, i)
#else
#include <immintrin.h>
typedef __m128 f32x4;
#define F32X4_ZERO() _mm_setzero_ps()
#define F32X4_LOAD(p) _mm_loadu_ps(p)
#define F32X4_ADD(a, b) _mm_add_ps(a, b)
#define F32X4_MUL(a, b) _mm_mul_ps(a, b)
#define F32X4_LANE(v, i) _mm_cvtss_f32(_mm_shuffle_ps(v, v, _MM_SHUFFLE(i, i, i, i)))
#endif

// Inner product of two vectors of n floats (n % 4 == 0).
static inline float dot(const float *a, const float *b, int n) {
  f32x4 s0 = F32X4_ZERO(), s1 = s0, s2 = s0, s3 = s0;
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = F32X4_ADD(s0, F32X4_MUL(F32X4_LOAD(a + i), F32X4_LOAD(b + i)));
    s1 = F32X4_ADD(s1, F32X4_MUL(F32X4_LOAD(a + i + 4), F32X4_LOAD(b + i + 4)));
    s2 = F32X4_ADD(s2, F32X4_MUL(F32X4_LOAD(a + i + 8), F32X4_LOAD(b + i + 8)));
    s3 = F32X4_ADD(s3, F32X4_MUL(F32X4_LOAD(a + i + 12), F32X4_LOAD(b + i + 12)));
  }
  for (; i + 4 <= n; i += 4) s0 = F32X4_ADD(s0, F32X4_MUL(F32X4_LOAD(a + i), F32X4_LOAD(b + i)));
  f32x4 s = F32X4_ADD(F32X4_ADD(s0, s1), F32X4_ADD(s2, s3));
  return F32X4_LANE(s, 0) + F32X4_LANE(s, 1) + F32X4_LANE(s, 2) + F32X4_LANE(s, 3);
}

#endif
