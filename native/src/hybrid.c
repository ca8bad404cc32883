// N-API addon: the hybrid scorer's loops over its shared arrays (src/models/hybrid/scoring-kernel.ts), on the calling thread
// (a pool thread). Both sum in double precision in the JavaScript loops' order, so their results are the same to
// the bit: the file is built with -ffp-contract=off, so no multiply-add is fused.
#include <stdint.h>

#include "typed_arrays.h"

// dots(out, x, rows, dim, cand, count): out[q] = Σ_{a < dim} x[a] · rows[cand[q] · dim + a] for q < count, summed in
// the order of a. Four candidates at a time: four independent chains of additions keep the adder busy.
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

// add_rows(out, matrix, width, seeds, cand, count): out[q] += matrix[s · width + cand[q]] for each seed s < width, in
// the seeds' order, for the q < count whose cand[q] < width (the EASE rows of the seeds; the matrix is width × width).
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
  napi_create_function(env, "dots", NAPI_AUTO_LENGTH, dots, NULL, &fn);
  napi_set_named_property(env, exports, "dots", fn);
  napi_create_function(env, "addRows", NAPI_AUTO_LENGTH, add_rows, NULL, &fn);
  napi_set_named_property(env, exports, "addRows", fn);
  return exports;
}
