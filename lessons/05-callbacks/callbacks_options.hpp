// Lesson 05's flags, separate from the lesson so unit tests can parse them without a GPU.
#pragma once

#include <CLI/CLI.hpp>

namespace cudalab::callbacks {

struct CallbacksOptions {
  int callback_ms = 20;          // how long the blocking callback sleeps
  int elements = 65536;          // written by the kernel, checked by the callback
  int batches = 40;              // pipeline length
  int batch_us = 500;            // GPU time per pipeline batch
  int batch_elements = 262144;   // elements per pipeline batch (host prepares and checks each)
};

void add_callbacks_options(CLI::App& app, CallbacksOptions& options);

}  // namespace cudalab::callbacks
