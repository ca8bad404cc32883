// N-API addon: inner products of a query with listed rows of the key's vectors (src/vector/dense-kernel.ts), read
// where they are (the shared WebAssembly memory included) on the calling thread. The rows lie anywhere in the store:
// every line of the row a few places ahead is asked for while the current one is summed, which the WASM kernel
// cannot do (0.35–0.45× its time on 800 rows of 64 floats read from memory). Sums are made in the WASM kernel's
// order (four float32x4 running sums, then their lanes left to right; built with -ffp-contract=off), so a row's score
// is the same to the bit as the kernel's scan gives it.
#include <immintrin.h>
#include <stdint.h>

#include "typed_arrays.h"

#define PREFETCH_AHEAD 4
#define LINE_FLOATS 16

static inline float dot(const float *a, const float *b, int n) {
  __m128 s0 = _mm_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
    s1 = _mm_add_ps(s1, _mm_mul_ps(_mm_loadu_ps(a + i + 4), _mm_loadu_ps(b + i + 4)));
    s2 = _mm_add_ps(s2, _mm_mul_ps(_mm_loadu_ps(a + i + 8), _mm_loadu_ps(b + i + 8)));
    s3 = _mm_add_ps(s3, _mm_mul_ps(_mm_loadu_ps(a + i + 12), _mm_loadu_ps(b + i + 12)));
  }
  for (; i + 4 <= n; i += 4) s0 = _mm_add_ps(s0, _mm_mul_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
  float lanes[4];
  _mm_storeu_ps(lanes, _mm_add_ps(_mm_add_ps(s0, s1), _mm_add_ps(s2, s3)));
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}

// scoreRows(vectors, stride, rows, query, out): out[i] = <row rows[i] of vectors, query> for i < out.length, a row
// being `stride` floats from vectors[rows[i] * stride] (stride % 4 == 0, query.length >= stride). A row outside
// `vectors` throws.
static napi_value score_rows(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  float *vectors, *query, *out;
  int32_t *rows;
  int32_t stride;
  size_t n_vectors, n_rows, n_query, n_out;
  int ok = argc == 5 && typed(env, argv[0], napi_float32_array, (void **)&vectors, &n_vectors) &&
           napi_get_value_int32(env, argv[1], &stride) == napi_ok &&
           typed(env, argv[2], napi_int32_array, (void **)&rows, &n_rows) &&
           typed(env, argv[3], napi_float32_array, (void **)&query, &n_query) &&
           typed(env, argv[4], napi_float32_array, (void **)&out, &n_out);
  if (!ok || stride <= 0 || stride % 4 != 0 || n_query < (size_t)stride || n_rows < n_out) {
    napi_throw_type_error(env, NULL,
                          "scoreRows(vectors: Float32Array, stride: multiple of 4, rows: Int32Array, "
                          "query: Float32Array of stride floats, out: Float32Array no longer than rows)");
    return NULL;
  }
  size_t count = n_vectors / (size_t)stride;
  for (size_t i = 0; i < n_out; i++) {
    if (rows[i] < 0 || (size_t)rows[i] >= count) {
      napi_throw_range_error(env, NULL, "scoreRows: a row outside the vectors");
      return NULL;
    }
  }
  for (size_t i = 0; i < n_out; i++) {
    if (i + PREFETCH_AHEAD < n_out) {
      const float *ahead = vectors + (size_t)rows[i + PREFETCH_AHEAD] * stride;
      for (int j = 0; j < stride; j += LINE_FLOATS) __builtin_prefetch(ahead + j);
    }
    out[i] = dot(vectors + (size_t)rows[i] * stride, query, stride);
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "scoreRows", NAPI_AUTO_LENGTH, score_rows, NULL, &fn);
  napi_set_named_property(env, exports, "scoreRows", fn);
  return exports;
}
