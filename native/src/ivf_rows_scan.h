// The probed inverted lists of an IVF index (inner product), each listed row scored from the key's own float32 rows
// (the shared store the exact scan reads) by the vector kernel's inner product (dot.h): exact scores, the same to the
// bit as the kernel's scan gives them (same operations in the same order, built without fused multiply-add). The
// lists' own codes (8-bit, for FAISS's scan of allow-listed searches) are not read: the rows are the one float32 copy
// of each vector (docs/decisions/vector.md, "Lists scored from the store's rows").
#ifndef KINDRED_IVF_ROWS_SCAN_H
#define KINDRED_IVF_ROWS_SCAN_H

#include <faiss/IndexIVF.h>
#include <faiss/invlists/InvertedLists.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

extern "C" {
#include "dot.h"
}

namespace kindred {

// The key's rows as a pool thread sees them: `stride` floats a row (a multiple of 4, zero past the dimensions),
// `count` rows, and each label's row + 1 (0: none).
struct StoreRows {
  const float* vectors;
  size_t stride;
  size_t count;
  const int32_t* label_rows;
  size_t labels;
};

// Whether scan_ivf_rows can answer for this index: IVF, inner product.
inline const faiss::IndexIVF* rows_ivf(const faiss::Index* index) {
  auto* ivf = dynamic_cast<const faiss::IndexIVF*>(index);
  return ivf && ivf->metric_type == faiss::METRIC_INNER_PRODUCT ? ivf : nullptr;
}

// Rows scored ahead of the one being read: a list's rows lie anywhere in the store.
constexpr size_t PREFETCH_ROWS = 4;

// The k best (score, label) of one query (`stride` floats, zero past the dimensions) over the `nprobe` lists nearest
// it, best first, as FAISS's search answers (missing results: label -1, score the lowest float). Labels with no row
// are skipped. The caller holds the index's shared lock.
inline void scan_ivf_rows(const faiss::IndexIVF& ivf, const float* query, const StoreRows& rows, int64_t nprobe, int32_t k,
                          float* scores, int64_t* labels) {
  using Hit = std::pair<float, int64_t>;
  const size_t probes = static_cast<size_t>(std::max<int64_t>(1, std::min<int64_t>(nprobe, ivf.nlist)));
  std::vector<float> list_scores(probes);
  std::vector<faiss::Index::idx_t> lists(probes);
  ivf.quantizer->search(1, query, probes, list_scores.data(), lists.data());
  const auto better = [](const Hit& a, const Hit& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); };
  // Hits beating the k-th best so far, cut back to the k best when 2k are held (the WASM kernel's kv_topk does the same).
  std::vector<Hit> held;
  const size_t want = static_cast<size_t>(k);
  held.reserve(2 * want);
  float bar = -std::numeric_limits<float>::infinity();
  const int n_floats = static_cast<int>(rows.stride);
  const auto row_of = [&rows](faiss::Index::idx_t label) -> int64_t {
    if (label <= 0 || static_cast<size_t>(label) >= rows.labels) return -1;
    const int64_t row = static_cast<int64_t>(rows.label_rows[label]) - 1;
    return row >= 0 && static_cast<size_t>(row) < rows.count ? row : -1;
  };
  for (faiss::Index::idx_t list : lists) {
    if (list < 0) continue;
    const size_t n = ivf.invlists->list_size(list);
    if (n == 0) continue;
    faiss::InvertedLists::ScopedIds ids(ivf.invlists, list);
    const faiss::Index::idx_t* listed = ids.get();
    for (size_t i = 0; i < n; i++) {
      if (i + PREFETCH_ROWS < n) {
        const int64_t ahead = row_of(listed[i + PREFETCH_ROWS]);
        if (ahead >= 0) {
          const float* p = rows.vectors + static_cast<size_t>(ahead) * rows.stride;
          for (size_t f = 0; f < rows.stride; f += 16) __builtin_prefetch(p + f);
        }
      }
      const int64_t row = row_of(listed[i]);
      if (row < 0) continue;
      const float score = dot(rows.vectors + static_cast<size_t>(row) * rows.stride, query, n_floats);
      if (held.size() >= want && !(score > bar)) continue;
      held.emplace_back(score, listed[i]);
      if (held.size() == 2 * want) {
        std::nth_element(held.begin(), held.begin() + (want - 1), held.end(), better);
        held.resize(want);
        bar = held[want - 1].first;  // the k-th best: nth_element put it there
      }
    }
  }
  if (held.size() > want) {
    std::nth_element(held.begin(), held.begin() + (want - 1), held.end(), better);
    held.resize(want);
  }
  std::sort(held.begin(), held.end(), better);
  for (size_t i = 0; i < want; i++) {
    scores[i] = i < held.size() ? held[i].first : -std::numeric_limits<float>::max();
    labels[i] = i < held.size() ? held[i].second : -1;
  }
}

}  // namespace kindred

#endif
