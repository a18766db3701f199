// Lesson 04's flags, separate from the lesson so unit tests can parse them without a GPU.
#pragma once

#include <CLI/CLI.hpp>

namespace cudalab::priority {

struct PriorityOptions {
  int waves = 20;          // background length, in full waves of every SM
  int block_us = 100;      // how long each background block spins
  int urgent_blocks = 8;   // size of the latency-critical kernel
  int priority = 0;        // for the urgent stream; used only when priority_given
  bool priority_given = false;
};

void add_priority_options(CLI::App& app, PriorityOptions& options);

}  // namespace cudalab::priority
