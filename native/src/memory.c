// N-API addon: hands memory back to the system. Tunes and trims glibc malloc for a long-lived process with
// several threads and large buffers that come and go, and unmaps the resident pages of a shared file mapping
// (docs/decisions/memory.md).
#define _GNU_SOURCE
#include <malloc.h>
#include <node_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

// releaseMapped(path): drops this process's page-table entries for every shared mapping of the file at `path`
// (as /proc/self/maps names it); resolves to the number of mappings released, -1 when the maps could not be read.
// Only shared file mappings are touched: for them MADV_DONTNEED leaves the data in the page cache and the file,
// and the next read faults the page back in. On a private or anonymous mapping it would discard data.
static napi_value release_mapped(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  char path[4096];
  size_t path_len = 0;
  napi_value result;
  if (argc != 1 || napi_get_value_string_utf8(env, argv[0], path, sizeof path, &path_len) != napi_ok ||
      path_len == 0 || path_len >= sizeof path - 1) {
    napi_throw_type_error(env, NULL, "releaseMapped(path): path must be a non-empty string");
    return NULL;
  }
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps) {
    napi_create_int32(env, -1, &result);
    return result;
  }
  int released = 0;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, maps)) > 0) {
    if (line[n - 1] == '\n') line[--n] = '\0';
    unsigned long start, end;
    char perms[5];
    int name_at = 0;
    if (sscanf(line, "%lx-%lx %4s %*s %*s %*s %n", &start, &end, perms, &name_at) < 3 || name_at == 0) continue;
    if (perms[3] != 's' || strcmp(line + name_at, path) != 0) continue;
    if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) released++;
  }
  free(line);
  fclose(maps);
  napi_create_int32(env, released, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "tune", NAPI_AUTO_LENGTH, tune, NULL, &fn);
  napi_set_named_property(env, exports, "tune", fn);
  napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn);
  napi_set_named_property(env, exports, "trim", fn);
  napi_create_function(env, "releaseMapped", NAPI_AUTO_LENGTH, release_mapped, NULL, &fn);
  napi_set_named_property(env, exports, "releaseMapped", fn);
  return exports;
}
