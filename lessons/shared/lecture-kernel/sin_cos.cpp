#include "sin_cos.hpp"

#include <cmath>

namespace cudalab::lecture {

std::vector<double> sin_cos_on_cpu(int iterations) {
  std::vector<double> out;
  for (int v = 0; v < kDistinctInputs; ++v) {
    double x = input(static_cast<std::size_t>(v));
    for (int k = 0; k < iterations; ++k) x = std::sin(x) + std::cos(x);
    out.push_back(x);
  }
  return out;
}

Tally count_matching(const float* out, std::size_t count, const std::vector<double>& expected, std::size_t first) {
  std::size_t correct = 0;
  // The input index wraps by hand rather than by a division per element: lesson 04 checks a
  // million elements about a hundred times inside its GPU turn.
  std::size_t k = first % kDistinctInputs;
  for (std::size_t i = 0; i < count; ++i) {
    // Written so that NaN (the poison) fails: every comparison with NaN is false.
    correct += std::fabs(out[i] - expected[k]) <= kTolerance ? 1 : 0;
    if (++k == kDistinctInputs) k = 0;
  }
  Tally t;
  t.add(correct, count);
  return t;
}

}  // namespace cudalab::lecture
