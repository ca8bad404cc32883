// The typed arrays an N-API call was given, where they are (shared and growable buffers included).
#ifndef KINDRED_TYPED_ARRAYS_H
#define KINDRED_TYPED_ARRAYS_H
#include <node_api.h>

// Whether `value` is a typed array of type `want`; its data and length (in elements) when it is.
static inline int typed(napi_env env, napi_value value, napi_typedarray_type want, void **data, size_t *length) {
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &type, length, data, &buffer, &offset) != napi_ok) return 0;
  return type == want;
}

#endif
