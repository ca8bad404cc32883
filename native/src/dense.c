// N-API addon: inner products of a query with listed rows of the key's vectors (src/vector/dense-kernel.ts), read
// where they are (the shared WebAssembly memory included) on the calling thread. The rows lie anywhere in the store:
// every line of the row a few places ahead is asked for while the current one is summed, which the WASM kernel
// cannot do (docs/decisions/throughput.md, "Tenth session"). The inner product is the WASM kernel's own (dot.h), so a
// row's score is the same to the bit as the kernel's scan gives it.
#include <stdint.h>

#include "dot.h"
#include "typed_arrays.h"

#define PREFETCH_AHEAD 4
#define LINE_FLOATS 16

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
