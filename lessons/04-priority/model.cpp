#include "model.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>

#include "common/core/stats.hpp"

namespace cudalab::priority {

int background_block_count(int sm_count, int blocks_per_sm, int waves) {
  if (sm_count <= 0 || blocks_per_sm <= 0 || waves <= 0) {
    throw std::invalid_argument("background_block_count: every input must be positive");
  }
  const long long blocks = static_cast<long long>(sm_count) * blocks_per_sm * waves;
  if (blocks > INT_MAX) throw std::invalid_argument("background_block_count: too many blocks for one launch");
  return static_cast<int>(blocks);
}

double predict_same_priority_latency_us(double background_us, double enqueue_offset_us, double urgent_alone_us) {
  return std::max(0.0, background_us - enqueue_offset_us) + urgent_alone_us;
}

double predict_high_priority_latency_us(double background_us, int waves, double enqueue_offset_us,
                                        double urgent_alone_us) {
  if (waves <= 0 || background_us <= 0 || enqueue_offset_us >= background_us) return urgent_alone_us;
  const double wave_us = background_us / waves;
  const double into_current_wave = std::fmod(std::max(0.0, enqueue_offset_us), wave_us);
  return (wave_us - into_current_wave) + urgent_alone_us;
}

LectureSample predict_lecture_as_given(double short_alone_ms, double long_alone_ms, int rounds) {
  const double long_round_ms = long_alone_ms / std::max(1, rounds);
  return LectureSample{long_round_ms + short_alone_ms, long_alone_ms + short_alone_ms};
}

LectureSample predict_lecture_swapped(double short_alone_ms, double long_alone_ms) {
  return LectureSample{long_alone_ms + short_alone_ms, long_alone_ms};
}

int rounds_of_blocks(int blocks, int sm_count, int blocks_per_sm) {
  const long long slots = static_cast<long long>(std::max(1, sm_count)) * std::max(1, blocks_per_sm);
  return static_cast<int>(std::max(1LL, (blocks + slots - 1) / slots));
}

Prediction predict(const Params& p, const Measurements& m) {
  const double alone = median_of(m.alone_us);
  Prediction out;
  for (const auto& s : m.same) {
    out.same_us.push_back(predict_same_priority_latency_us(s.background_us, s.enqueue_offset_us, alone));
  }
  for (const auto& s : m.high) {
    out.high_us.push_back(predict_high_priority_latency_us(s.background_us, p.waves, s.enqueue_offset_us, alone));
  }
  if (!m.lecture_short_alone_ms.empty() && !m.lecture_long_alone_ms.empty()) {
    const double short_alone = median_of(m.lecture_short_alone_ms);
    const double long_alone = median_of(m.lecture_long_alone_ms);
    out.lecture_as_given = predict_lecture_as_given(
        short_alone, long_alone, rounds_of_blocks(m.lecture_blocks, m.sm_count, m.lecture_blocks_per_sm));
    out.lecture_swapped = predict_lecture_swapped(short_alone, long_alone);
  }
  return out;
}

}  // namespace cudalab::priority
