// N-API addon: tunes glibc malloc for a long-lived process with several threads and large buffers that come
// and go (docs/decisions/memory.md).
#include <malloc.h>
#include <node_api.h>

static int int_arg(napi_env env, napi_value value, int *out) {
  int32_t v;
  if (napi_get_value_int32(env, value, &v) != napi_ok) return 0;
  *out = v;
  return 1;
}

// tune(arenaMax, mmapThreshold, trimThreshold): true when glibc took all three.
static napi_value tune(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  int arena_max, mmap_threshold, trim_threshold;
  int ok = argc == 3 && int_arg(env, argv[0], &arena_max) && int_arg(env, argv[1], &mmap_threshold) &&
           int_arg(env, argv[2], &trim_threshold);
  if (ok) ok = mallopt(M_ARENA_MAX, arena_max) && mallopt(M_MMAP_THRESHOLD, mmap_threshold) &&
               mallopt(M_TRIM_THRESHOLD, trim_threshold);
  napi_value result;
  napi_get_boolean(env, ok, &result);
  return result;
}

// trim(): hands the free pages of every arena back to the system; true when some were.
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  napi_get_boolean(env, malloc_trim(0), &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "tune", NAPI_AUTO_LENGTH, tune, NULL, &fn);
  napi_set_named_property(env, exports, "tune", fn);
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  return exports;
}
