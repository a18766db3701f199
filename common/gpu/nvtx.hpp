// NVTX ranges in a "cudalab" domain, so a run under Nsight Systems shows the lesson's phases
// ("sequential", "overlapped", ...) above the GPU rows. Costs next to nothing when no tool is
// attached. Usage: { NvtxRange phase("overlapped"); run_overlapped(); }
#pragma once

#include <nvtx3/nvToolsExt.h>

namespace cudalab {

class NvtxRange {
 public:
  explicit NvtxRange(const char* name) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name;
    nvtxDomainRangePushEx(domain(), &attributes);
  }
  ~NvtxRange() { nvtxDomainRangePop(domain()); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;

 private:
  static nvtxDomainHandle_t domain() {
    static const nvtxDomainHandle_t handle = nvtxDomainCreateA("cudalab");
    return handle;
  }
};

}  // namespace cudalab
