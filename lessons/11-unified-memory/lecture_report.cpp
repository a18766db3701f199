// Lesson 11's "lecture" section: what lecture 002 says of pinned, unified and zero-copy memory,
// each claim beside the figure this run measured for it. Pure.
#include "report_parts.hpp"

namespace cudalab::unified_memory {

void add_lecture(ReportBuilder& b) {
  b.section("lecture", "lecture 002 on memory, and this run")
      .table("claims", {"the lecture says (lecture 002)", "lecture", "this run"},
             {{text_cell("§5.2 prefetching needs pinned memory"), text_cell("no figure"), metric_cell("way.explicit")},
              {text_cell("§5.2 ... or unified memory, prefetched"), text_cell("no figure"),
               metric_cell("way.prefetched")},
              {text_cell("(not run) unified memory, no prefetch"), text_cell("-"), metric_cell("way.on_demand")},
              {text_cell("§5.3 streams with zero-copy memory"), text_cell("no figure"), metric_cell("way.zero_copy")},
              {text_cell("§6 managed memory may be slower than explicit copies: on demand"), text_cell("no figure"),
               metric_cell("ratio.on_demand")},
              {text_cell("§6 ... prefetched on streams"), text_cell("no figure"), metric_cell("ratio.prefetched")}});
}

}  // namespace cudalab::unified_memory
