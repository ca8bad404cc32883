// N-API addon: the second stage's hot loop over sparse term rows (src/embedding/sparse-kernel.ts), and the hybrid
// scorer's dot products of one vector with candidate rows and its sums of matrix rows (src/models/hybrid/dots.ts). It reads the
// typed arrays where they are (shared term arrays included) on the calling thread. It sums in double precision with
// four running sums per candidate (one chain of dependent additions was the loop's limit), so a score differs from
// the single sum's only below float32 precision: bench:second-stage-cpu found no score of 400,000 different from the
// JavaScript loop's (docs/decisions/throughput.md).
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
// Candidates' spans lie anywhere in the key's term arrays: every line of the span this many candidates ahead is asked
// for while the current one is summed. In the server the first stage's scan has just streamed the key's vectors
// through the cache, so the spans come from memory (bench:second-stage-cpu's --evict): asking for the span's first
// line only left the rest to the hardware's stream prefetcher, which starts too late for spans of a hundred terms.
#define PREFETCH_AHEAD 2
#define LINE_TERMS 16

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
    if (c + PREFETCH_AHEAD < n_out) {
      size_t last = ends[c + PREFETCH_AHEAD] < terms ? ends[c + PREFETCH_AHEAD] : terms;
      for (size_t k = starts[c + PREFETCH_AHEAD]; k < last; k += LINE_TERMS) {
        __builtin_prefetch(ids + k);
        __builtin_prefetch(weights + k);
      }
    }
    size_t end = ends[c] < terms ? ends[c] : terms;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t k = starts[c];
    for (; k + 4 <= end; k += 4) {
      uint32_t i0 = ids[k], i1 = ids[k + 1], i2 = ids[k + 2], i3 = ids[k + 3];
      if (i0 < n_scratch) s0 += (double)scratch[i0] * (double)weights[k];
      if (i1 < n_scratch) s1 += (double)scratch[i1] * (double)weights[k + 1];
      if (i2 < n_scratch) s2 += (double)scratch[i2] * (double)weights[k + 2];
      if (i3 < n_scratch) s3 += (double)scratch[i3] * (double)weights[k + 3];
    }
    for (; k < end; k++) {
      uint32_t id = ids[k];
      if (id < n_scratch) s0 += (double)scratch[id] * (double)weights[k];
    }
    out[c] = (float)(((s0 + s1) + (s2 + s3)) / divisor);
  }
  return NULL;
}

// dots(out, x, rows, dim, cand, count): out[q] = Σ_{a < dim} x[a] · rows[cand[q] · dim + a] for q < count, each sum in
// double precision in the order of a (the JavaScript loop's sums, to the bit: built with -ffp-contract=off, so no
// multiply-add is fused). Four candidates at a time: four independent chains of additions keep the adder busy.
static napi_value dots(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  double *out, *x;
  float *rows;
  int32_t *cand;
  size_t n_out, n_x, n_rows, n_cand;
  uint32_t dim, count;
  int ok = argc == 6 && typed(env, argv[0], napi_float64_array, (void **)&out, &n_out) &&
           typed(env, argv[1], napi_float64_array, (void **)&x, &n_x) &&
           typed(env, argv[2], napi_float32_array, (void **)&rows, &n_rows) &&
           napi_get_value_uint32(env, argv[3], &dim) == napi_ok &&
           typed(env, argv[4], napi_int32_array, (void **)&cand, &n_cand) &&
           napi_get_value_uint32(env, argv[5], &count) == napi_ok && count <= n_out && count <= n_cand && dim <= n_x;
  if (ok) {
    for (uint32_t q = 0; q < count && ok; q++) ok = cand[q] >= 0 && ((size_t)cand[q] + 1) * dim <= n_rows;
  }
  if (!ok) {
    napi_throw_type_error(env, NULL,
                          "dots(out: Float64Array, x: Float64Array, rows: Float32Array, dim, cand: Int32Array, count): "
                          "every candidate's row within rows");
    return NULL;
  }
  uint32_t q = 0;
  for (; q + 3 < count; q += 4) {
    const float *r0 = rows + (size_t)cand[q] * dim, *r1 = rows + (size_t)cand[q + 1] * dim;
    const float *r2 = rows + (size_t)cand[q + 2] * dim, *r3 = rows + (size_t)cand[q + 3] * dim;
    double d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (uint32_t a = 0; a < dim; a++) {
      double xa = x[a];
      d0 += xa * (double)r0[a];
      d1 += xa * (double)r1[a];
      d2 += xa * (double)r2[a];
      d3 += xa * (double)r3[a];
    }
    out[q] = d0;
    out[q + 1] = d1;
    out[q + 2] = d2;
    out[q + 3] = d3;
  }
  for (; q < count; q++) {
    const float *r = rows + (size_t)cand[q] * dim;
    double d = 0;
    for (uint32_t a = 0; a < dim; a++) d += x[a] * (double)r[a];
    out[q] = d;
  }
  return NULL;
}

// add_rows(out, matrix, width, seeds, cand, count): out[q] += matrix[s · width + cand[q]] for each seed s < width in
// seeds' order, for the q < count whose cand[q] < width (the hybrid scorer's EASE rows of the seeds, summed in double
// precision in the JavaScript loop's order). Seeds at or past width are skipped; the matrix is width × width.
static napi_value add_rows(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  double *out;
  float *matrix;
  int32_t *seeds, *cand;
  size_t n_out, n_matrix, n_seeds, n_cand;
  uint32_t width, count;
  int ok = argc == 6 && typed(env, argv[0], napi_float64_array, (void **)&out, &n_out) &&
           typed(env, argv[1], napi_float32_array, (void **)&matrix, &n_matrix) &&
           napi_get_value_uint32(env, argv[2], &width) == napi_ok &&
           typed(env, argv[3], napi_int32_array, (void **)&seeds, &n_seeds) &&
           typed(env, argv[4], napi_int32_array, (void **)&cand, &n_cand) &&
           napi_get_value_uint32(env, argv[5], &count) == napi_ok && count <= n_out && count <= n_cand &&
           (size_t)width * width <= n_matrix;
  if (!ok) {
    napi_throw_type_error(env, NULL,
                          "addRows(out: Float64Array, matrix: Float32Array (width × width), width, seeds: Int32Array, "
                          "cand: Int32Array, count)");
    return NULL;
  }
  for (size_t j = 0; j < n_seeds; j++) {
    if (seeds[j] < 0 || (uint32_t)seeds[j] >= width) continue;
    const float *row = matrix + (size_t)seeds[j] * width;
    for (uint32_t q = 0; q < count; q++) {
      int32_t i = cand[q];
      if (i >= 0 && (uint32_t)i < width) out[q] += (double)row[i];
    }
  }
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "gather", NAPI_AUTO_LENGTH, gather, NULL, &fn);
  napi_set_named_property(env, exports, "gather", fn);
  napi_create_function(env, "dots", NAPI_AUTO_LENGTH, dots, NULL, &fn);
  napi_set_named_property(env, exports, "dots", fn);
  napi_create_function(env, "addRows", NAPI_AUTO_LENGTH, add_rows, NULL, &fn);
  napi_set_named_property(env, exports, "addRows", fn);
  return exports;
}
