// The probed inverted lists of an IVF index (inner product) scored for a pool thread: the lists' 8-bit codes, read
// side by side, shortlist a little more than the answers wanted; the shortlist is scored from the key's own float32 rows
// (the shared store the exact scan reads) by the vector kernel's inner product (dot.h): exact scores, the same to the
// bit as the kernel's scan gives them (same operations in the same order, built without fused multiply-add). The
// rows are the one float32 copy of each vector, and lie anywhere in the store: at 82k reading every listed row cost
// ~100 ns a row, a code ~20 (bench/probes/ivf-codes-shortlist.js; docs/decisions/vector.md, "The lists' codes
// shortlist the rows").
#ifndef KINDRED_IVF_ROWS_SCAN_H
#define KINDRED_IVF_ROWS_SCAN_H

#include <faiss/IndexFlat.h>
#include <faiss/IndexIVF.h>
#include <faiss/IndexScalarQuantizer.h>
#include <faiss/invlists/InvertedLists.h>
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <cmath>
#include <functional>
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
constexpr size_t PREFETCH_ROWS = 32;

// Shortlisted by the lists' 8-bit codes: the k best and a quarter of k more, at least 64 more; the rest are dropped
// unscored. (At 82k real texts and k = 801 the shortlist of 1,001 kept every one of the exact k.)
constexpr size_t CODE_SHORTLIST_SHARE = 4;
constexpr size_t CODE_SHORTLIST_MIN_EXTRA = 64;

using Hit = std::pair<float, int64_t>;

// Hits best first: score descending, ties by label (a strict order).
struct BetterHit {
  bool operator()(const Hit& a, const Hit& b) const { return a.first > b.first || (a.first == b.first && a.second < b.second); }
};

// The k best hits seen (BetterHit's strict order, so the same k whatever order they come in),
// best first once `sorted` is called: hits that beat the k-th best so far are held, cut back to the k best when 2k are
// held (the WASM kernel's kv_topk does the same).
class BestHits {
 public:
  explicit BestHits(size_t k) : want_(k) { held_.reserve(2 * k); }
  void offer(float score, int64_t label) {
    if (held_.size() >= want_ && !BetterHit()(Hit{score, label}, kth_)) return;
    held_.emplace_back(score, label);
    if (held_.size() == 2 * want_) cut();
  }
  std::vector<Hit>& sorted() {
    if (held_.size() > want_) cut();
    std::sort(held_.begin(), held_.end(), BetterHit());
    return held_;
  }

 private:
  void cut() {
    std::nth_element(held_.begin(), held_.begin() + (want_ - 1), held_.end(), BetterHit());
    held_.resize(want_);
    kth_ = held_[want_ - 1];  // nth_element put the k-th best there
  }
  size_t want_;
  Hit kth_{-std::numeric_limits<float>::infinity(), -1};
  std::vector<Hit> held_;
};

// A query's inner product with FAISS's 8-bit codes (QT_8bit: component i decodes to vmin[i] + (c + 0.5) / 255 *
// vdiff[i]), folded into one weight a component and a constant: q·x = base + Σ weight[i] c[i]. The weights are
// rounded to 16-bit integers (each off by at most half a unit, 1/32767 of the largest or less: only the shortlist's
// order depends on it, and its rows are scored exactly), so a row's 64 components are eight multiply-adds of integers.
class CodeScorer {
 public:
  // Null when the index's codes are not 8-bit per-component ones, or decode otherwise than assumed (checked on one code).
  static std::unique_ptr<CodeScorer> of(const faiss::IndexIVF& ivf, const float* query, const uint8_t* sample_code) {
    auto* sq = dynamic_cast<const faiss::IndexIVFScalarQuantizer*>(&ivf);
    const size_t d = static_cast<size_t>(ivf.d);
    if (!sq || sq->sq.qtype != faiss::ScalarQuantizer::QT_8bit || sq->sq.trained.size() != 2 * d || sq->code_size != d) return nullptr;
    const float* vmin = sq->sq.trained.data();
    const float* vdiff = vmin + d;
    std::vector<float> decoded(d);
    sq->sq.decode(sample_code, decoded.data(), 1);
    std::unique_ptr<CodeScorer> scorer(new CodeScorer(d, sq->by_residual));
    std::vector<float> weight(d);
    float largest = 0.0f;
    for (size_t i = 0; i < d; i++) {
      const float ours = vmin[i] + (sample_code[i] + 0.5f) / 255.0f * vdiff[i];
      if (std::abs(ours - decoded[i]) > 1e-5f * (1.0f + std::abs(decoded[i]))) return nullptr;
      weight[i] = query[i] * vdiff[i] / 255.0f;
      largest = std::max(largest, std::abs(weight[i]));
      scorer->base_ += query[i] * (vmin[i] + 0.5f * vdiff[i] / 255.0f);
    }
    // the largest weight as large as 16 bits allow, and as the 32-bit sums of d products with codes up to 255 allow
    const float limit = static_cast<float>(std::min<size_t>(32767, 2147483647u / (255 * d * 2)));
    scorer->unit_ = largest > 0.0f ? largest / limit : 1.0f;
    for (size_t i = 0; i < d; i++) scorer->weight_[i] = static_cast<int16_t>(std::lround(weight[i] / scorer->unit_));
    return scorer;
  }
  // The approximate score of a code in a list whose centroid scores `list_score` (residual codes add to it).
  float score(const uint8_t* code, float list_score) const {
    const __m128i zero = _mm_setzero_si128();
    __m128i sum = _mm_setzero_si128();
    size_t i = 0;
    for (; i + 16 <= d_; i += 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(code + i));
      const __m128i* w = reinterpret_cast<const __m128i*>(&weight_[i]);
      sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_unpacklo_epi8(bytes, zero), _mm_loadu_si128(w)));
      sum = _mm_add_epi32(sum, _mm_madd_epi16(_mm_unpackhi_epi8(bytes, zero), _mm_loadu_si128(w + 1)));
    }
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(1, 0, 3, 2)));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(2, 3, 0, 1)));
    int64_t total = _mm_cvtsi128_si32(sum);
    for (; i < d_; i++) total += static_cast<int32_t>(weight_[i]) * code[i];
    return static_cast<float>(total) * unit_ + base_ + (by_residual_ ? list_score : 0.0f);
  }

 private:
  CodeScorer(size_t d, bool by_residual) : d_(d), by_residual_(by_residual), weight_(d) {}
  size_t d_;
  bool by_residual_;
  float base_ = 0.0f;
  float unit_ = 1.0f;
  std::vector<int16_t> weight_;
};

// The `probes` lists whose centroids score best against the query (inner product), in no order (the shortlist and the
// answer do not depend on the order lists are read in): by the kernel's inner product over a flat quantizer's
// centroids (FAISS's own loop is the unvectorised reference one in Debian's build), otherwise by FAISS (best first).
inline void nearest_lists(const faiss::IndexIVF& ivf, const float* query, size_t probes, float* scores, faiss::Index::idx_t* lists) {
  auto* flat = dynamic_cast<const faiss::IndexFlat*>(ivf.quantizer);
  const size_t d = static_cast<size_t>(ivf.d);
  if (!flat || flat->metric_type != faiss::METRIC_INNER_PRODUCT || d % 4 != 0) {
    ivf.quantizer->search(1, query, probes, scores, lists);
    return;
  }
  const size_t n = static_cast<size_t>(flat->ntotal);
  const float* centroids = flat->get_xb();
  std::vector<Hit> all(n);
  for (size_t c = 0; c < n; c++) all[c] = {dot(centroids + c * d, query, static_cast<int>(d)), static_cast<int64_t>(c)};
  const size_t keep = std::min(probes, n);
  if (keep < n) std::nth_element(all.begin(), all.begin() + (keep - 1), all.end(), BetterHit());
  for (size_t i = 0; i < probes; i++) {
    scores[i] = i < keep ? all[i].first : -std::numeric_limits<float>::max();
    lists[i] = i < keep ? all[i].second : -1;
  }
}

// The positions of the `keep` best scores (ties at the last one: all of them), ascending. The bar is first guessed
// from every 16th score, a little low, so that only the scores above it are ranked.
inline std::vector<size_t> best_positions(const std::vector<float>& scores, size_t keep) {
  std::vector<size_t> positions;
  if (keep >= scores.size()) {
    positions.resize(scores.size());
    for (size_t i = 0; i < scores.size(); i++) positions[i] = i;
    return positions;
  }
  constexpr size_t STEP = 16;
  float guess = -std::numeric_limits<float>::infinity();
  const size_t sampled_rank = (keep + keep / 2) / STEP;
  if (sampled_rank > 0) {
    std::vector<float> sample;
    sample.reserve(scores.size() / STEP + 1);
    for (size_t i = 0; i < scores.size(); i += STEP) sample.push_back(scores[i]);
    if (sampled_rank < sample.size()) {
      std::nth_element(sample.begin(), sample.begin() + (sampled_rank - 1), sample.end(), std::greater<float>());
      guess = sample[sampled_rank - 1];
    }
  }
  std::vector<float> above;
  for (float score : scores)
    if (score >= guess) above.push_back(score);
  if (above.size() < keep) above = scores;  // guessed too high: rank them all
  std::nth_element(above.begin(), above.begin() + (keep - 1), above.end(), std::greater<float>());
  const float bar = above[keep - 1];
  for (size_t i = 0; i < scores.size(); i++)
    if (scores[i] >= bar) positions.push_back(i);
  return positions;
}

// The k best (score, label) of one query (`stride` floats, zero past the dimensions) over the `nprobe` lists nearest
// it, best first, as FAISS's search answers (missing results: label -1, score the lowest float). Labels with no row
// are skipped. The lists' 8-bit codes shortlist k labels and a few more (read in list order, a list's codes side
// by side); those are scored exactly from the rows. Without 8-bit codes every listed row is scored. The caller holds
// the index's shared lock.
inline void scan_ivf_rows(const faiss::IndexIVF& ivf, const float* query, const StoreRows& rows, int64_t nprobe, int32_t k,
                          float* scores, int64_t* labels) {
  const size_t probes = static_cast<size_t>(std::max<int64_t>(1, std::min<int64_t>(nprobe, ivf.nlist)));
  std::vector<float> list_scores(probes);
  std::vector<faiss::Index::idx_t> lists(probes);
  nearest_lists(ivf, query, probes, list_scores.data(), lists.data());
  const size_t want = static_cast<size_t>(k);
  const int n_floats = static_cast<int>(rows.stride);
  const auto row_of = [&rows](faiss::Index::idx_t label) -> int64_t {
    if (label <= 0 || static_cast<size_t>(label) >= rows.labels) return -1;
    const int64_t row = static_cast<int64_t>(rows.label_rows[label]) - 1;
    return row >= 0 && static_cast<size_t>(row) < rows.count ? row : -1;
  };
  const auto row_at = [&rows](int64_t row) { return rows.vectors + static_cast<size_t>(row) * rows.stride; };
  const auto prefetch = [&rows, &row_at](int64_t row) {
    if (row < 0) return;
    for (size_t f = 0; f < rows.stride; f += 16) __builtin_prefetch(row_at(row) + f);
  };
  // The labels to score exactly, with their rows: every listed one, or the codes' shortlist.
  std::vector<std::pair<int64_t, int64_t>> listed;  // (label, row)
  std::unique_ptr<CodeScorer> by_codes;
  std::vector<float> code_scores;  // by_codes: each probed list's codes' scores, in probe order
  size_t listed_rows = 0;
  for (size_t p = 0; p < probes; p++) {
    const size_t n = lists[p] < 0 ? 0 : ivf.invlists->list_size(lists[p]);
    // decided once, on the first code met: every list is read the same way
    if (n > 0 && listed_rows == 0) by_codes = CodeScorer::of(ivf, query, faiss::InvertedLists::ScopedCodes(ivf.invlists, lists[p]).get());
    listed_rows += n;
  }
  if (by_codes) code_scores.reserve(listed_rows);
  for (size_t p = 0; p < probes; p++) {
    const faiss::Index::idx_t list = lists[p];
    if (list < 0) continue;
    const size_t n = ivf.invlists->list_size(list);
    if (n == 0) continue;
    if (by_codes) {
      faiss::InvertedLists::ScopedCodes codes(ivf.invlists, list);
      for (size_t i = 0; i < n; i++) code_scores.push_back(by_codes->score(codes.get() + i * ivf.code_size, list_scores[p]));
      continue;
    }
    faiss::InvertedLists::ScopedIds ids(ivf.invlists, list);
    for (size_t i = 0; i < n; i++) {
      const int64_t row = row_of(ids[i]);
      if (row >= 0) listed.emplace_back(ids[i], row);
    }
  }
  if (by_codes) {
    // The shortlist: the best code scores. Labels with no row are dropped after
    // it: too many of them and fewer than k are answered, which the caller takes for a reason to scan.
    const std::vector<size_t> kept = best_positions(code_scores, want + std::max(want / CODE_SHORTLIST_SHARE, CODE_SHORTLIST_MIN_EXTRA));
    size_t at = 0, next = 0;
    for (size_t p = 0; p < probes && next < kept.size(); p++) {
      const faiss::Index::idx_t list = lists[p];
      if (list < 0) continue;
      const size_t n = ivf.invlists->list_size(list);
      if (n == 0) continue;
      faiss::InvertedLists::ScopedIds ids(ivf.invlists, list);
      for (; next < kept.size() && kept[next] < at + n; next++) {
        const faiss::Index::idx_t label = ids[kept[next] - at];
        const int64_t row = row_of(label);
        if (row >= 0) listed.emplace_back(label, row);
      }
      at += n;
    }
  }
  BestHits best(want);
  for (size_t i = 0; i < listed.size(); i++) {
    if (i + PREFETCH_ROWS < listed.size()) prefetch(listed[i + PREFETCH_ROWS].second);
    best.offer(dot(row_at(listed[i].second), query, n_floats), listed[i].first);
  }
  const std::vector<Hit>& held = best.sorted();
  for (size_t i = 0; i < want; i++) {
    scores[i] = i < held.size() ? held[i].first : -std::numeric_limits<float>::max();
    labels[i] = i < held.size() ? held[i].second : -1;
  }
}

}  // namespace kindred

#endif
