// Lesson 03's variants, looked up by enum: the pipeline on this run's data and the lecture's
// missing-wait bug (the lecture's own program is replayed apart: lecture_replica.hpp).
#pragma once

#include <string>
#include <vector>

namespace cudalab::stream_overlap {

enum class Variant {
  sequential,        // one stream, the whole buffer
  depth_first,       // per chunk: H2D -> kernel -> D2H on stream c % S
  breadth_first,     // all H2D, then all kernels, then all D2H
  pageable,          // depth-first from malloc'd memory
  transfer_compute,  // one transfer stream + one compute stream, handing over by events
  missing_wait,      // the same without the waits, as lecture 002's program wrote it
};

struct VariantInfo {
  Variant variant;
  const char* key;
  const char* label;
};

inline const std::vector<VariantInfo>& variant_table() {
  static const std::vector<VariantInfo> table = {
      {Variant::sequential, "sequential", "sequential (1 stream, whole buffer)"},
      {Variant::depth_first, "depth_first", "depth-first (H2D→kernel→D2H per chunk)"},
      {Variant::breadth_first, "breadth_first", "breadth-first (all H2D, kernels, D2H)"},
      {Variant::pageable, "pageable", "depth-first from pageable memory"},
      {Variant::transfer_compute, "transfer_compute", "transfer stream + compute stream (events)"},
      {Variant::missing_wait, "missing_wait", "transfer + compute stream without the waits"},
  };
  return table;
}

inline const VariantInfo& info_of(Variant v) {
  for (const auto& info : variant_table()) {
    if (info.variant == v) return info;
  }
  return variant_table().front();  // unreachable: every enumerator has a row
}

inline bool uses_pageable_memory(Variant v) { return v == Variant::pageable; }

}  // namespace cudalab::stream_overlap
