#include "callbacks_options.hpp"

#include "common/bench/options.hpp"

namespace cudalab::callbacks {

void add_callbacks_options(CLI::App& app, CallbacksOptions& o) {
  add_int_option(app, "--callback-ms", o.callback_ms, 0, 1000,
                 "how long the blocking callback sleeps, in ms (0: no sleep)");
  add_int_option(app, "--elements", o.elements, 1, 1 << 24,
                 "elements the kernel writes and the callback checks");
  add_int_option(app, "--batches", o.batches, 2, 1000, "batches in the pipeline comparison");
  add_int_option(app, "--batch-us", o.batch_us, 10, 100000, "GPU time per pipeline batch, in us");
  add_int_option(app, "--batch-elements", o.batch_elements, 1024, 1 << 24,
                 "elements per pipeline batch (the host prepares and checks each one)");
}

}  // namespace cudalab::callbacks
