// N-API addon: the second stage's hot loop over sparse term rows (src/embedding/sparse-kernel.ts). It reads the
// typed arrays where they are (shared term arrays included) on the calling thread, and sums in double precision in
// the same order as the JavaScript it replaced, so scores are bit-for-bit the same (docs/decisions/throughput.md).
#include <node_api.h>
#include <stdint.h>

static int typed(napi_env env, napi_value value, napi_typedarray_type want, void **data, size_t *length) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &type, length, data, &buffer, &offset) != napi_ok) return 0;
  return type == want;
}

// gather(scratch, starts, ends, ids, weights, out, divisor): out[c] = (Σ_{k ∈ [starts[c], ends[c])} scratch[ids[k]] ·
// weights[k]) / divisor for every c < out.length. Ids past the scratch count as 0; spans are clipped to the arrays.
static napi_value gather(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  float *scratch, *weights, *out;
  uint32_t *starts, *ends, *ids;
  size_t n_scratch, n_starts, n_ends, n_ids, n_weights, n_out;
  double divisor;
  int ok = argc == 7 && typed(env, argv[0], napi_float32_array, (void **)&scratch, &n_scratch) &&
           typed(env, argv[1], napi_uint32_array, (void **)&starts, &n_starts) &&
           typed(env, argv[2], napi_uint32_array, (void **)&ends, &n_ends) &&
           typed(env, argv[3], napi_uint32_array, (void **)&ids, &n_ids) &&
           typed(env, argv[4], napi_float32_array, (void **)&weights, &n_weights) &&
           typed(env, argv[5], napi_float32_array, (void **)&out, &n_out) &&
           napi_get_value_double(env, argv[6], &divisor) == napi_ok;
  if (!ok || n_starts < n_out || n_ends < n_out) {
    napi_throw_type_error(env, NULL,
                          "gather(scratch: Float32Array, starts: Uint32Array, ends: Uint32Array, ids: Uint32Array, "
                          "weights: Float32Array, out: Float32Array, divisor: number)");
    return NULL;
  }
  size_t terms = n_ids < n_weights ? n_ids : n_weights;
  for (size_t c = 0; c < n_out; c++) {
    size_t end = ends[c] < terms ? ends[c] : terms;
    double sum = 0;
    for (size_t k = starts[c]; k < end; k++) {
      uint32_t id = ids[k];
      if (id < n_scratch) sum += (double)scratch[id] * (double)weights[k];
    }
    out[c] = (float)(sum / divisor);
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "gather", NAPI_AUTO_LENGTH, gather, NULL, &fn);
  napi_set_named_property(env, exports, "gather", fn);
  return exports;
}
