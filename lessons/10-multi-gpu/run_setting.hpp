// What lesson 10 records about where it ran, in either shape of the run (one process for every
// GPU, or one process per GPU): the host, each GPU, and the NCCL variables that steer its
// transport; and the check that --transport socket is in force before NCCL starts.
#pragma once

#include <string>

#include "measure.hpp"
#include "params.hpp"

namespace cudalab::multi_gpu {

std::string host_name();
GpuFacts query_gpu(int device);

// The NCCL variables set in this process that choose or forbid a transport.
NcclSettings nccl_transport_settings();

// --transport socket needs NCCL_P2P_DISABLE, NCCL_SHM_DISABLE and NCCL_IB_DISABLE at 1 in this
// process before NCCL starts (NCCL reads them once): --ranks puts them in its ranks'
// environment; anyone else sets them. UsageError saying how, when they are not.
void require_transport(const Params& p);

}  // namespace cudalab::multi_gpu
