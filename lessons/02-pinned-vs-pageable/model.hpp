// Lesson 02's predictions: t(n) = latency + n / bandwidth fitted per memory kind and direction,
// and when pinning pays for itself. Pure C++, unit-tested.
#pragma once

#include <map>
#include <optional>

#include "measure.hpp"
#include "params.hpp"
#include "transfer_model.hpp"

namespace cudalab::pinned {

// When pinning pays: the extra setup cost against what each copy saves, for the first
// direction measured at the probe size.
struct BreakEven {
  Direction direction = Direction::h2d;
  double saving_ms = 0;          // pageable copy - pinned copy, per copy
  double alloc_extra_ms = 0;     // cudaMallocHost - (malloc + first touch); may be negative
  double alloc_copies = 0;       // copies before cudaMallocHost beats malloc (0 when not dearer)
  double register_ms = 0;        // cudaHostRegister of memory already touched
  double register_copies = 0;    // copies before registering pays
};

struct Prediction {
  std::map<Case, TransferFit> fits;  // when the sweep has two or more sizes
  std::optional<BreakEven> break_even;  // when pinned and pageable were both measured
};

Prediction predict(const Params& p, const Measurements& m);

}  // namespace cudalab::pinned
