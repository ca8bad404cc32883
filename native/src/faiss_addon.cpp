// Thin Node-API addon over libfaiss (Debian libfaiss-dev, faiss 1.7.3).
//
// class FaissIndex {
//   constructor(dim, description, metric: 'ip' | 'l2')   // faiss::index_factory
//   readonly dim, ntotal, isTrained
//   train(vectors: Float32Array): Promise<void>
//   add(vectors: Float32Array, labels: BigInt64Array): Promise<void>   // add_with_ids
//   remove(labels: BigInt64Array): Promise<number>
//   search(queries: Float32Array, k, {nprobe?, efSearch?, allow?: BigInt64Array}?)
//     : Promise<{distances: Float32Array, labels: BigInt64Array}>
//   write(path): Promise<void>
// }
// readIndex(path): Promise<FaissIndex>
// setThreads(n): OpenMP threads for train/add/batched searches (default: all processors)
//
// Every heavy call runs on the libuv thread pool. A shared mutex per index lets
// searches run side by side while train/add/remove/write run alone. Typed arrays
// passed in are referenced (not copied) until the promise settles: callers must
// not modify them meanwhile. C++ exceptions become rejected promises.
#include <node_api.h>
#include <omp.h>

#include <faiss/Index.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIDMap.h>
#include <faiss/IndexIVF.h>
#include <faiss/impl/AuxIndexStructures.h>
#include <faiss/impl/IDSelector.h>
#include <faiss/index_factory.h>
#include <faiss/index_io.h>

#include "ivf_rows_scan.h"

#include <atomic>
#include <cstring>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Wrapped {
  std::unique_ptr<faiss::Index> index;
  std::shared_mutex mutex;
  /** Its number in g_shared once shared with the process's other threads (0: not shared). */
  int32_t handle = 0;
};

// Indexes shared with the process's other threads (share/unshare): a pool thread searches one synchronously
// by its number (searchShared), under the same shared lock as every search. The addon's code and these
// globals are one per process; each thread's JS environment loads its own exports.
std::mutex g_shared_mu;
std::unordered_map<int32_t, std::shared_ptr<Wrapped>> g_shared;
int32_t g_next_handle = 1;

#define CHECK(call)                                         \
  do {                                                      \
    if ((call) != napi_ok) {                                \
      napi_throw_error(env, nullptr, "N-API call failed: " #call); \
      return nullptr;                                       \
    }                                                       \
  } while (0)


// OpenMP threads for train/add/batched search (setThreads); 0: all processors.
std::atomic<int> g_threads{0};

int bulk_threads() {
  int n = g_threads.load();
  return n > 0 ? n : omp_get_num_procs();
}

napi_value throw_type(napi_env env, const char* msg) {
  napi_throw_type_error(env, nullptr, msg);
  return nullptr;
}

// The data of a typed array of the given element type; false for anything else.
template <typename T>
bool get_typed(napi_env env, napi_value v, napi_typedarray_type want, T** data, size_t* length) {
  bool is_ta = false;
  if (napi_is_typedarray(env, v, &is_ta) != napi_ok || !is_ta) return false;
  napi_typedarray_type type;
  void* ptr;
  napi_value ab;
  size_t offset;
  if (napi_get_typedarray_info(env, v, &type, length, &ptr, &ab, &offset) != napi_ok) return false;
  if (type != want) return false;
  *data = static_cast<T*>(ptr);
  return true;
}

bool get_f32(napi_env env, napi_value v, float** data, size_t* length) {
  return get_typed(env, v, napi_float32_array, data, length);
}

bool get_i64(napi_env env, napi_value v, int64_t** data, size_t* length) {
  return get_typed(env, v, napi_bigint64_array, data, length);
}

// One asynchronous job: `run` executes off the JS thread, `finish` builds the result.
struct Job {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  std::vector<napi_ref> keep;  // JS values referenced while running
  std::function<void()> run;
  std::function<napi_value(napi_env)> finish;
  std::string error;
};

void job_execute(napi_env, void* data) {
  Job* job = static_cast<Job*>(data);
  try {
    job->run();
  } catch (const std::exception& e) {
    job->error = e.what();
  } catch (...) {
    job->error = "unknown native error";
  }
}

void job_complete(napi_env env, napi_status status, void* data) {
  Job* job = static_cast<Job*>(data);
  napi_value result = nullptr;
  if (status != napi_ok && job->error.empty()) job->error = "async work cancelled";
  if (job->error.empty() && job->finish) {
    result = job->finish(env);
    if (result == nullptr) {
      bool pending = false;
      napi_is_exception_pending(env, &pending);
      if (pending) {
        napi_value exc;
        napi_get_and_clear_last_exception(env, &exc);
        napi_reject_deferred(env, job->deferred, exc);
        goto cleanup;
      }
    }
  }
  if (!job->error.empty()) {
    napi_value msg, err;
    napi_create_string_utf8(env, job->error.c_str(), NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, nullptr, msg, &err);
    napi_reject_deferred(env, job->deferred, err);
  } else {
    if (result == nullptr) napi_get_undefined(env, &result);
    napi_resolve_deferred(env, job->deferred, result);
  }
cleanup:
  for (napi_ref r : job->keep) napi_delete_reference(env, r);
  napi_delete_async_work(env, job->work);
  delete job;
}

napi_value queue(napi_env env, Job* job, const char* name) {
  napi_value promise, resource_name;
  if (napi_create_promise(env, &job->deferred, &promise) != napi_ok) {
    delete job;
    return nullptr;
  }
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name);
  napi_create_async_work(env, nullptr, resource_name, job_execute, job_complete, job, &job->work);
  napi_queue_async_work(env, job->work);
  return promise;
}

void keep(napi_env env, Job* job, napi_value v) {
  napi_ref r;
  napi_create_reference(env, v, 1, &r);
  job->keep.push_back(r);
}

// A JS FaissIndex holds a shared_ptr to its Wrapped: the g_shared entry of a shared index keeps it too.
std::shared_ptr<Wrapped>* holder_of(napi_env env, napi_callback_info info, size_t* argc, napi_value* argv, napi_value* self) {
  void* ptr = nullptr;
  if (napi_get_cb_info(env, info, argc, argv, self, nullptr) != napi_ok) return nullptr;
  if (napi_unwrap(env, *self, &ptr) != napi_ok) return nullptr;
  return static_cast<std::shared_ptr<Wrapped>*>(ptr);
}

Wrapped* unwrap_this(napi_env env, napi_callback_info info, size_t* argc, napi_value* argv, napi_value* self) {
  auto* holder = holder_of(env, info, argc, argv, self);
  return holder ? holder->get() : nullptr;
}

void finalize(napi_env, void* data, void*) { delete static_cast<std::shared_ptr<Wrapped>*>(data); }

napi_value Construct(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], self;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &self, nullptr));
  auto* w = new Wrapped();
  napi_valuetype t0;
  napi_typeof(env, argv[0], &t0);
  if (argc >= 1 && t0 == napi_external) {
    void* p;
    napi_get_value_external(env, argv[0], &p);
    w->index.reset(static_cast<faiss::Index*>(p));
  } else {
    if (argc < 2) {
      delete w;
      return throw_type(env, "FaissIndex(dim, description, metric)");
    }
    int32_t dim;
    if (napi_get_value_int32(env, argv[0], &dim) != napi_ok || dim <= 0) {
      delete w;
      return throw_type(env, "dim must be a positive integer");
    }
    char desc[256];
    size_t len;
    if (napi_get_value_string_utf8(env, argv[1], desc, sizeof desc, &len) != napi_ok) {
      delete w;
      return throw_type(env, "description must be a string");
    }
    faiss::MetricType metric = faiss::METRIC_INNER_PRODUCT;
    if (argc >= 3) {
      char m[8];
      if (napi_get_value_string_utf8(env, argv[2], m, sizeof m, &len) == napi_ok && std::strcmp(m, "l2") == 0)
        metric = faiss::METRIC_L2;
    }
    try {
      w->index.reset(faiss::index_factory(dim, desc, metric));
    } catch (const std::exception& e) {
      delete w;
      napi_throw_error(env, nullptr, e.what());
      return nullptr;
    }
  }
  auto* holder = new std::shared_ptr<Wrapped>(w);
  if (napi_wrap(env, self, holder, finalize, nullptr, nullptr) != napi_ok) {
    delete holder;
    napi_throw_error(env, nullptr, "N-API call failed: napi_wrap");
    return nullptr;
  }
  return self;
}

napi_value GetDim(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  napi_value self, out;
  Wrapped* w = unwrap_this(env, info, &argc, nullptr, &self);
  if (!w) return nullptr;
  napi_create_int32(env, w->index->d, &out);
  return out;
}

napi_value GetNtotal(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  napi_value self, out;
  Wrapped* w = unwrap_this(env, info, &argc, nullptr, &self);
  if (!w) return nullptr;
  napi_create_double(env, static_cast<double>(w->index->ntotal), &out);
  return out;
}

napi_value GetIsTrained(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  napi_value self, out;
  Wrapped* w = unwrap_this(env, info, &argc, nullptr, &self);
  if (!w) return nullptr;
  napi_get_boolean(env, w->index->is_trained, &out);
  return out;
}

napi_value Train(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self;
  Wrapped* w = unwrap_this(env, info, &argc, argv, &self);
  if (!w) return nullptr;
  float* x;
  size_t len;
  if (argc < 1 || !get_f32(env, argv[0], &x, &len)) return throw_type(env, "train(vectors: Float32Array)");
  size_t d = w->index->d;
  if (len % d != 0) return throw_type(env, "vector array length is not a multiple of dim");
  auto* job = new Job();
  keep(env, job, argv[0]);
  keep(env, job, self);
  job->run = [w, x, n = len / d]() {
    omp_set_num_threads(bulk_threads());  // this pool thread may have run a single-threaded search
    std::unique_lock<std::shared_mutex> lock(w->mutex);
    // The caller chooses how many points train an IVF index's lists (src/vector/approximate.ts): fewer than FAISS's
    // 39 a list is on purpose, not worth a warning on stderr.
    if (auto* ivf = dynamic_cast<faiss::IndexIVF*>(w->index.get())) ivf->cp.min_points_per_centroid = 1;
    w->index->train(n, x);
  };
  return queue(env, job, "faiss.train");
}

napi_value Add(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], self;
  Wrapped* w = unwrap_this(env, info, &argc, argv, &self);
  if (!w) return nullptr;
  float* x;
  int64_t* ids;
  size_t len, nids;
  if (argc < 2 || !get_f32(env, argv[0], &x, &len) || !get_i64(env, argv[1], &ids, &nids))
    return throw_type(env, "add(vectors: Float32Array, labels: BigInt64Array)");
  size_t d = w->index->d;
  if (len % d != 0 || len / d != nids) return throw_type(env, "vectors.length must equal labels.length * dim");
  auto* job = new Job();
  keep(env, job, argv[0]);
  keep(env, job, argv[1]);
  keep(env, job, self);
  job->run = [w, x, ids, nids]() {
    omp_set_num_threads(bulk_threads());
    std::unique_lock<std::shared_mutex> lock(w->mutex);
    w->index->add_with_ids(nids, x, ids);
  };
  return queue(env, job, "faiss.add");
}

napi_value Remove(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self;
  Wrapped* w = unwrap_this(env, info, &argc, argv, &self);
  if (!w) return nullptr;
  int64_t* ids;
  size_t nids;
  if (argc < 1 || !get_i64(env, argv[0], &ids, &nids)) return throw_type(env, "remove(labels: BigInt64Array)");
  auto* job = new Job();
  keep(env, job, argv[0]);
  keep(env, job, self);
  auto removed = std::make_shared<size_t>(0);
  job->run = [w, ids, nids, removed]() {
    std::unique_lock<std::shared_mutex> lock(w->mutex);
    faiss::IDSelectorBatch sel(nids, ids);
    *removed = w->index->remove_ids(sel);
  };
  job->finish = [removed](napi_env env) {
    napi_value out;
    napi_create_double(env, static_cast<double>(*removed), &out);
    return out;
  };
  return queue(env, job, "faiss.remove");
}

bool get_int_prop(napi_env env, napi_value obj, const char* name, int64_t* out) {
  bool has = false;
  if (napi_has_named_property(env, obj, name, &has) != napi_ok || !has) return false;
  napi_value v;
  napi_get_named_property(env, obj, name, &v);
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t != napi_number) return false;
  return napi_get_value_int64(env, v, out) == napi_ok;
}

// Finds the IVF or HNSW index inside IDMap wrappers, to apply per-search parameters.
faiss::Index* inner_index(faiss::Index* idx) {
  for (;;) {
    if (auto* m = dynamic_cast<faiss::IndexIDMap*>(idx)) {
      idx = m->index;
      continue;
    }
    return idx;
  }
}

// nq queries' top k, under the index's shared lock: `sel` restricts labels (IVF and flat indexes). With the key's
// rows (`rows`) and no allow-list, an IVF index's probed lists are scored from them by ivf_rows_scan.h (exact scores);
// otherwise FAISS scans its own codes.
void search_into(Wrapped* w, const float* q, size_t nq, int32_t k, int64_t nprobe, int64_t ef, faiss::IDSelector* sel,
                 float* dist, int64_t* labels, const kindred::StoreRows* rows = nullptr) {
  std::shared_lock<std::shared_mutex> lock(w->mutex);
  const faiss::IndexIVF* ivf = rows && !sel ? kindred::rows_ivf(w->index.get()) : nullptr;
  if (ivf && rows->stride >= static_cast<size_t>(ivf->d) && rows->stride % 4 == 0) {
    std::vector<float> padded(rows->stride, 0.0f);  // the store's rows are zero past the dimensions: so is the query
    for (size_t i = 0; i < nq; i++) {
      std::copy(q + i * ivf->d, q + (i + 1) * ivf->d, padded.begin());
      kindred::scan_ivf_rows(*ivf, padded.data(), *rows, nprobe > 0 ? nprobe : ivf->nprobe, k, dist + i * k, labels + i * k);
    }
    return;
  }
  faiss::Index* inner = inner_index(w->index.get());
  std::unique_ptr<faiss::SearchParameters> params;
  if (dynamic_cast<faiss::IndexIVF*>(inner)) {
    auto* p = new faiss::SearchParametersIVF();
    p->nprobe = nprobe > 0 ? nprobe : dynamic_cast<faiss::IndexIVF*>(inner)->nprobe;
    params.reset(p);
  } else if (dynamic_cast<faiss::IndexHNSW*>(inner)) {
    auto* p = new faiss::SearchParametersHNSW();
    p->efSearch = ef > 0 ? ef : dynamic_cast<faiss::IndexHNSW*>(inner)->hnsw.efSearch;
    params.reset(p);
  } else if (sel) {
    params.reset(new faiss::SearchParameters());
  }
  if (params) params->sel = sel;
  auto* idmap = dynamic_cast<faiss::IndexIDMap*>(w->index.get());
  if (idmap && params) {
    // faiss 1.7.3's IndexIDMap refuses search parameters: search the inner index
    // and translate its sequential ids ourselves (selectors would see inner ids).
    if (sel) throw std::runtime_error("allow is not supported on IDMap indexes");
    idmap->index->search(nq, q, k, dist, labels, params.get());
    for (size_t i = 0; i < nq * k; i++)
      if (labels[i] >= 0) labels[i] = idmap->id_map[labels[i]];
  } else {
    w->index->search(nq, q, k, dist, labels, params.get());
  }
}

// {distances, labels} over two array buffers of n results each.
napi_value search_result(napi_env env, napi_value dab, napi_value lab, size_t n) {
  napi_value dta, lta, out;
  napi_create_typedarray(env, napi_float32_array, n, dab, 0, &dta);
  napi_create_typedarray(env, napi_bigint64_array, n, lab, 0, &lta);
  napi_create_object(env, &out);
  napi_set_named_property(env, out, "distances", dta);
  napi_set_named_property(env, out, "labels", lta);
  return out;
}

// share(): this index's number for searchShared from any thread of the process (the same number each call).
napi_value Share(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  napi_value self, out;
  auto* holder = holder_of(env, info, &argc, nullptr, &self);
  if (!holder) return nullptr;
  std::lock_guard<std::mutex> guard(g_shared_mu);
  if ((*holder)->handle == 0) {
    (*holder)->handle = g_next_handle++;
    g_shared[(*holder)->handle] = *holder;
  }
  napi_create_int32(env, (*holder)->handle, &out);
  return out;
}

// unshare(handle): other threads can no longer search it (searches under way finish).
napi_value Unshare(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  int32_t handle;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &handle) != napi_ok) return throw_type(env, "unshare(handle: integer)");
  std::lock_guard<std::mutex> guard(g_shared_mu);
  g_shared.erase(handle);
  return nullptr;
}

// searchShared(handle, query: Float32Array, k, nprobe, rows?: {vectors: Float32Array, stride, labelRows: Int32Array}):
// one query's top k on the calling thread (a pool thread), {distances, labels}; null when the handle names no shared
// index (closed meanwhile). With the key's rows (`stride` floats each) and each label's row + 1, an IVF index's probed
// lists are scored from those rows (ivf_rows_scan.h).
napi_value SearchShared(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  int32_t handle, k, nprobe = 0;
  float* q;
  size_t len;
  if (argc < 3 || napi_get_value_int32(env, argv[0], &handle) != napi_ok || !get_f32(env, argv[1], &q, &len) ||
      napi_get_value_int32(env, argv[2], &k) != napi_ok || k <= 0)
    return throw_type(env, "searchShared(handle, query: Float32Array, k: positive integer, nprobe?)");
  if (argc >= 4) napi_get_value_int32(env, argv[3], &nprobe);
  kindred::StoreRows store_rows{};
  bool with_rows = false;
  napi_valuetype rows_type = napi_undefined;
  if (argc >= 5) napi_typeof(env, argv[4], &rows_type);
  if (rows_type == napi_object) {
    napi_value vectors_v, labels_v;
    float* vectors;
    int32_t* label_rows;
    size_t n_floats, n_labels;
    int64_t stride = 0;
    napi_get_named_property(env, argv[4], "vectors", &vectors_v);
    napi_get_named_property(env, argv[4], "labelRows", &labels_v);
    if (!get_f32(env, vectors_v, &vectors, &n_floats) || !get_int_prop(env, argv[4], "stride", &stride) || stride <= 0 ||
        !get_typed(env, labels_v, napi_int32_array, &label_rows, &n_labels))
      return throw_type(env, "searchShared(handle, query, k, nprobe, rows: {vectors: Float32Array, stride: positive integer, labelRows: Int32Array})");
    store_rows = {vectors, static_cast<size_t>(stride), n_floats / static_cast<size_t>(stride), label_rows, n_labels};
    with_rows = true;
  }
  std::shared_ptr<Wrapped> w;
  {
    std::lock_guard<std::mutex> guard(g_shared_mu);
    auto found = g_shared.find(handle);
    if (found != g_shared.end()) w = found->second;
  }
  napi_value out;
  if (!w) {
    napi_get_null(env, &out);
    return out;
  }
  if (len != static_cast<size_t>(w->index->d)) return throw_type(env, "query length is not the index's dim");
  void* dp;
  void* lp;
  napi_value dab, lab;
  CHECK(napi_create_arraybuffer(env, k * sizeof(float), &dp, &dab));
  CHECK(napi_create_arraybuffer(env, k * sizeof(int64_t), &lp, &lab));
  try {
    omp_set_num_threads(1);
    search_into(w.get(), q, 1, k, nprobe, 0, nullptr, static_cast<float*>(dp), static_cast<int64_t*>(lp), with_rows ? &store_rows : nullptr);
  } catch (const std::exception& e) {
    napi_throw_error(env, nullptr, e.what());
    return nullptr;
  }
  return search_result(env, dab, lab, k);
}

napi_value Search(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], self;
  Wrapped* w = unwrap_this(env, info, &argc, argv, &self);
  if (!w) return nullptr;
  float* q;
  size_t len;
  int32_t k;
  if (argc < 2 || !get_f32(env, argv[0], &q, &len) || napi_get_value_int32(env, argv[1], &k) != napi_ok || k <= 0)
    return throw_type(env, "search(queries: Float32Array, k: positive integer, params?)");
  size_t d = w->index->d;
  if (len % d != 0) return throw_type(env, "query array length is not a multiple of dim");
  int64_t nprobe = 0, ef = 0;
  int64_t* allow = nullptr;
  size_t nallow = 0;
  bool has_allow = false;
  auto* job = new Job();
  if (argc >= 3) {
    napi_valuetype t;
    napi_typeof(env, argv[2], &t);
    if (t == napi_object) {
      get_int_prop(env, argv[2], "nprobe", &nprobe);
      get_int_prop(env, argv[2], "efSearch", &ef);
      bool has = false;
      napi_has_named_property(env, argv[2], "allow", &has);
      if (has) {
        napi_value a;
        napi_get_named_property(env, argv[2], "allow", &a);
        napi_valuetype ta;
        napi_typeof(env, a, &ta);
        if (ta != napi_undefined) {
          if (!get_i64(env, a, &allow, &nallow)) {
            delete job;
            return throw_type(env, "params.allow must be a BigInt64Array");
          }
          has_allow = true;
          keep(env, job, a);
        }
      }
    }
  }
  size_t nq = len / d;
  keep(env, job, argv[0]);
  keep(env, job, self);
  auto dist = std::make_shared<std::vector<float>>(nq * k);
  auto labels = std::make_shared<std::vector<int64_t>>(nq * k);
  job->run = [w, q, nq, k, nprobe, ef, allow, nallow, has_allow, dist, labels]() {
    // single queries run on this pool thread alone; batches may use OpenMP
    omp_set_num_threads(nq < 4 ? 1 : bulk_threads());
    std::unique_ptr<faiss::IDSelectorBatch> sel;
    if (has_allow) sel.reset(new faiss::IDSelectorBatch(nallow, allow));
    search_into(w, q, nq, k, nprobe, ef, sel.get(), dist->data(), labels->data());
  };
  job->finish = [dist, labels](napi_env env) -> napi_value {
    size_t n = dist->size();
    napi_value dab, lab;
    void* dp;
    void* lp;
    napi_create_arraybuffer(env, n * sizeof(float), &dp, &dab);
    napi_create_arraybuffer(env, n * sizeof(int64_t), &lp, &lab);
    std::memcpy(dp, dist->data(), n * sizeof(float));
    std::memcpy(lp, labels->data(), n * sizeof(int64_t));
    return search_result(env, dab, lab, n);
  };
  return queue(env, job, "faiss.search");
}

napi_value Write(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self;
  Wrapped* w = unwrap_this(env, info, &argc, argv, &self);
  if (!w) return nullptr;
  char path[4096];
  size_t len;
  if (argc < 1 || napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len) != napi_ok)
    return throw_type(env, "write(path: string)");
  auto* job = new Job();
  keep(env, job, self);
  job->run = [w, p = std::string(path)]() {
    std::shared_lock<std::shared_mutex> lock(w->mutex);
    faiss::write_index(w->index.get(), p.c_str());
  };
  return queue(env, job, "faiss.write");
}

napi_value ReadIndex(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  char path[4096];
  size_t len;
  if (argc < 1 || napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len) != napi_ok)
    return throw_type(env, "readIndex(path: string)");
  auto* job = new Job();
  auto loaded = std::make_shared<faiss::Index*>(nullptr);
  job->run = [loaded, p = std::string(path)]() { *loaded = faiss::read_index(p.c_str()); };
  job->finish = [loaded](napi_env env) -> napi_value {
    napi_value ext, ctor, obj;
    napi_create_external(env, *loaded, nullptr, nullptr, &ext);
    void* data = nullptr;
    napi_get_instance_data(env, &data);
    napi_get_reference_value(env, *static_cast<napi_ref*>(data), &ctor);
    if (napi_new_instance(env, ctor, 1, &ext, &obj) != napi_ok) return nullptr;
    return obj;
  };
  return queue(env, job, "faiss.read");
}

napi_value SetThreads(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr));
  int32_t n;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &n) != napi_ok || n <= 0)
    return throw_type(env, "setThreads(n: positive integer)");
  g_threads.store(n);
  return nullptr;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"dim", nullptr, nullptr, GetDim, nullptr, nullptr, napi_default, nullptr},
      {"ntotal", nullptr, nullptr, GetNtotal, nullptr, nullptr, napi_default, nullptr},
      {"isTrained", nullptr, nullptr, GetIsTrained, nullptr, nullptr, napi_default, nullptr},
      {"train", nullptr, Train, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"add", nullptr, Add, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"remove", nullptr, Remove, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"search", nullptr, Search, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"write", nullptr, Write, nullptr, nullptr, nullptr, napi_default, nullptr},
      {"share", nullptr, Share, nullptr, nullptr, nullptr, napi_default, nullptr},
  };
  napi_value cls;
  CHECK(napi_define_class(env, "FaissIndex", NAPI_AUTO_LENGTH, Construct, nullptr,
                          sizeof props / sizeof props[0], props, &cls));
  // One constructor per JS environment (the main thread's, each pool thread's): readIndex builds its own.
  napi_ref* ref = new napi_ref;
  CHECK(napi_create_reference(env, cls, 1, ref));
  CHECK(napi_set_instance_data(env, ref, [](napi_env env, void* data, void*) {
    auto* r = static_cast<napi_ref*>(data);
    napi_delete_reference(env, *r);
    delete r;
  }, nullptr));
  napi_set_named_property(env, exports, "FaissIndex", cls);
  napi_value fn;
  napi_create_function(env, "readIndex", NAPI_AUTO_LENGTH, ReadIndex, nullptr, &fn);
  napi_set_named_property(env, exports, "readIndex", fn);
  napi_create_function(env, "setThreads", NAPI_AUTO_LENGTH, SetThreads, nullptr, &fn);
  napi_set_named_property(env, exports, "setThreads", fn);
  napi_create_function(env, "unshare", NAPI_AUTO_LENGTH, Unshare, nullptr, &fn);
  napi_set_named_property(env, exports, "unshare", fn);
  napi_create_function(env, "searchShared", NAPI_AUTO_LENGTH, SearchShared, nullptr, &fn);
  napi_set_named_property(env, exports, "searchShared", fn);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
