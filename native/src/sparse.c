// N-API addon: the second stage's hot loop over sparse term rows (src/embedding/sparse-kernel.ts). It reads the
// typed arrays where they are (shared term arrays included) on the calling thread. It sums in double precision with
// four running sums per candidate (one chain of dependent additions was the loop's limit), so a score differs from
// the single sum's only below float32 precision: bench:second-stage-cpu found no score of 400,000 different from the
// JavaScript loop's (docs/decisions/throughput.md).
#include <stdint.h>

#include "typed_arrays.h"

// gather(scratch, starts, ends, ids, weights, out, divisor): out[c] = (Σ_{k ∈ [starts[c], ends[c])} scratch[ids[k]] ·
// weights[k]) / divisor for every c < out.length. Ids (16-bit in a key's term arrays, 32-bit when packed) past the
// scratch count as 0; spans are clipped to the arrays.
// Candidates' spans lie anywhere in the key's term arrays: every line of the span this many candidates ahead is asked
// for while the current one is summed. In the server the first stage's scan has just streamed the key's vectors
// through the cache, so the spans come from memory (bench:second-stage-cpu's --evict): asking for the span's first
// line only left the rest to the hardware's stream prefetcher, which starts too late for spans of a hundred terms.
#define PREFETCH_AHEAD 2
#define LINE_BYTES 64

// One loop per id width, the same sums in the same order.
#define GATHER_LOOP(NAME, ID)                                                                                        \
  static void NAME(const float *scratch, size_t n_scratch, const uint32_t *starts, const uint32_t *ends, const ID *ids, \
                   const float *weights, size_t terms, float *out, size_t n_out, double divisor) {                     \
    for (size_t c = 0; c < n_out; c++) {                                                                               \
      if (c + PREFETCH_AHEAD < n_out) {                                                                                \
        size_t last = ends[c + PREFETCH_AHEAD] < terms ? ends[c + PREFETCH_AHEAD] : terms;                             \
        size_t first = starts[c + PREFETCH_AHEAD];                                                                     \
        for (size_t k = first; k < last; k += LINE_BYTES / sizeof(float)) __builtin_prefetch(weights + k);             \
        for (size_t k = first; k < last; k += LINE_BYTES / sizeof(ID)) __builtin_prefetch(ids + k);                    \
      }                                                                                                                \
      size_t end = ends[c] < terms ? ends[c] : terms;                                                                  \
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;                                                                           \
      size_t k = starts[c];                                                                                            \
      for (; k + 4 <= end; k += 4) {                                                                                   \
        size_t i0 = ids[k], i1 = ids[k + 1], i2 = ids[k + 2], i3 = ids[k + 3];                                         \
        if (i0 < n_scratch) s0 += (double)scratch[i0] * (double)weights[k];                                            \
        if (i1 < n_scratch) s1 += (double)scratch[i1] * (double)weights[k + 1];                                        \
        if (i2 < n_scratch) s2 += (double)scratch[i2] * (double)weights[k + 2];                                        \
        if (i3 < n_scratch) s3 += (double)scratch[i3] * (double)weights[k + 3];                                        \
      }                                                                                                                \
      for (; k < end; k++) {                                                                                           \
        size_t id = ids[k];                                                                                            \
        if (id < n_scratch) s0 += (double)scratch[id] * (double)weights[k];                                            \
      }                                                                                                                \
      out[c] = (float)(((s0 + s1) + (s2 + s3)) / divisor);                                                             \
    }                                                                                                                  \
  }

GATHER_LOOP(gather16, uint16_t)
GATHER_LOOP(gather32, uint32_t)

static napi_value gather(napi_env env, napi_callback_info info) {
  size_t argc = 7;
  napi_value argv[7];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  float *scratch, *weights, *out;
  uint32_t *starts, *ends;
  void *ids;
  size_t n_scratch, n_starts, n_ends, n_ids, n_weights, n_out;
  double divisor;
  int wide = 0;
  int ok = argc == 7 && typed(env, argv[0], napi_float32_array, (void **)&scratch, &n_scratch) &&
           typed(env, argv[1], napi_uint32_array, (void **)&starts, &n_starts) &&
           typed(env, argv[2], napi_uint32_array, (void **)&ends, &n_ends) &&
           (typed(env, argv[3], napi_uint16_array, &ids, &n_ids) || (wide = typed(env, argv[3], napi_uint32_array, &ids, &n_ids))) &&
           typed(env, argv[4], napi_float32_array, (void **)&weights, &n_weights) &&
           typed(env, argv[5], napi_float32_array, (void **)&out, &n_out) &&
           napi_get_value_double(env, argv[6], &divisor) == napi_ok;
  if (!ok || n_starts < n_out || n_ends < n_out) {
    napi_throw_type_error(env, NULL,
                          "gather(scratch: Float32Array, starts: Uint32Array, ends: Uint32Array, ids: Uint16Array | "
                          "Uint32Array, weights: Float32Array, out: Float32Array, divisor: number)");
    return NULL;
  }
  size_t terms = n_ids < n_weights ? n_ids : n_weights;
  if (wide) gather32(scratch, n_scratch, starts, ends, ids, weights, terms, out, n_out, divisor);
  else gather16(scratch, n_scratch, starts, ends, ids, weights, terms, out, n_out, divisor);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "gather", NAPI_AUTO_LENGTH, gather, NULL, &fn);
  napi_set_named_property(env, exports, "gather", fn);
  return exports;
}
