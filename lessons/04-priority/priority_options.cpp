#include "priority_options.hpp"

#include "options.hpp"

namespace cudalab::priority {

void add_priority_options(CLI::App& app, PriorityOptions& o) {
  // Zero waves is refused: with no background there is nothing for priority to jump over.
  add_int_option(app, "--waves", o.waves, 1, 100,
                 "background length in waves (each wave fills every SM once)");
  // At least 10 us: %globaltimer ticks as coarsely as 1 us on some GPUs. At most 5 ms, so the
  // longest background (100 waves) stays under a second.
  add_int_option(app, "--block-us", o.block_us, 10, 5000, "how long each background block runs, in us");
  add_int_option(app, "--urgent-blocks", o.urgent_blocks, 1, 1024, "thread blocks in the urgent kernel");
  // Any whole number is accepted on purpose: CUDA clamps values outside the device's range and
  // the lesson shows the value it got. Non-numbers are usage errors.
  add_int_option(app, "--priority", o.priority, -1000, 1000,
                 "priority of the urgent stream (lower = more urgent; default: the device's highest)")
      ->default_str("highest")
      ->each([&o](const std::string&) { o.priority_given = true; });
}

}  // namespace cudalab::priority
