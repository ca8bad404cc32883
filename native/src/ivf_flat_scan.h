// The probed inverted lists of an IVF index of float32 codes (`IVF<n>,Flat`, inner product), scored by the vector
// kernel's own inner product (dot.h) rather than FAISS's scanner: Debian's libfaiss is a generic build whose
// scanner sums one float at a time, where each list's rows lie side by side and SSE sums four lanes at a time
// (docs/decisions/throughput.md, "Eleventh session"). A row's score is the same to the bit as the kernel's scan
// gives it (same operations in the same order, built without fused multiply-add).
#ifndef KINDRED_IVF_FLAT_SCAN_H
#define KINDRED_IVF_FLAT_SCAN_H

#include <faiss/IndexIVFFlat.h>
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

// Whether scan_ivf_flat can answer for this index: float32 codes, inner product, rows a multiple of 4 floats.
inline const faiss::IndexIVFFlat* flat_ivf(const faiss::Index* index) {
  auto* ivf = dynamic_cast<const faiss::IndexIVFFlat*>(index);
  if (!ivf || ivf->metric_type != faiss::METRIC_INNER_PRODUCT || ivf->d % 4 != 0) return nullptr;
  if (ivf->code_size != ivf->d * sizeof(float)) return nullptr;
  return ivf;
}

// The k best (score, label) of one query over the `nprobe` lists nearest it, best first, as FAISS's search answers
// (missing results: label -1, score the lowest float). The caller holds the index's shared lock.
inline void scan_ivf_flat(const faiss::IndexIVFFlat& ivf, const float* query, int64_t nprobe, int32_t k, float* scores,
                          int64_t* labels) {
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
  const int d = static_cast<int>(ivf.d);
  for (faiss::Index::idx_t list : lists) {
    if (list < 0) continue;
    const size_t n = ivf.invlists->list_size(list);
    if (n == 0) continue;
    faiss::InvertedLists::ScopedCodes codes(ivf.invlists, list);
    faiss::InvertedLists::ScopedIds ids(ivf.invlists, list);
    const float* rows = reinterpret_cast<const float*>(codes.get());
    for (size_t i = 0; i < n; i++) {
      const float score = dot(rows + i * d, query, d);
      if (held.size() >= want && !(score > bar)) continue;
      held.emplace_back(score, ids.get()[i]);
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
