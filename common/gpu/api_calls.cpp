#include "common/gpu/api_calls.hpp"

#include <cupti.h>

#include "common/gpu/cupti_loader.hpp"

namespace cudalab {

namespace {

thread_local int g_launch_tag = -1;

// Every variant of a copy call lays out its first three parameters alike: destination, source,
// byte count (generated_cuda_meta.h), whatever the spelling of their names.
struct CopyParams {
  std::uintptr_t dst;
  std::uintptr_t src;
  std::size_t bytes;
};

bool is_async_copy(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz: return true;
    default: return false;
  }
}

bool is_sync_copy(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds:
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy_ptds: return true;
    default: return false;
  }
}

bool is_launch(CUpti_CallbackId cbid) {
  switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: return true;
    default: return false;
  }
}

}  // namespace

struct ApiCallbacks {
  static void CUPTIAPI on_call(void* log, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data) {
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API) return;
    const auto* call = static_cast<const CUpti_CallbackData*>(data);
    if (call->callbackSite != CUPTI_API_ENTER) return;
    if (is_async_copy(cbid) || is_sync_copy(cbid)) {
      const auto* p = static_cast<const CopyParams*>(call->functionParams);
      ApiCallLog::record_copy(log, {call->correlationId, p->dst, p->src, p->bytes, is_sync_copy(cbid)});
    } else if (is_launch(cbid)) {
      ApiCallLog::record_launch(log, {call->correlationId, g_launch_tag});
    }
  }
};

ApiCallLog::ApiCallLog() {
  const CuptiLibrary& lib = cupti_library();
  if (!lib.load_error.empty()) throw CuptiError(lib.load_error, CUPTI_ERROR_UNKNOWN);
  CUpti_SubscriberHandle handle = nullptr;
  CUDALAB_CUPTI_CHECK(lib.subscribe(&handle, &ApiCallbacks::on_call, this));
  subscriber_ = handle;
  try {
    CUDALAB_CUPTI_CHECK(lib.enable_domain(1, handle, CUPTI_CB_DOMAIN_DRIVER_API));
  } catch (...) {
    CUDALAB_CUPTI_CHECK_NOEXCEPT(lib.unsubscribe(handle));
    throw;
  }
}

ApiCallLog::~ApiCallLog() {
  CUDALAB_CUPTI_CHECK_NOEXCEPT(cupti_library().unsubscribe(static_cast<CUpti_SubscriberHandle>(subscriber_)));
}

void ApiCallLog::set_launch_tag(int tag) { g_launch_tag = tag; }

void ApiCallLog::record_copy(void* log, const Copy& copy) {
  auto* self = static_cast<ApiCallLog*>(log);
  const std::lock_guard<std::mutex> lock(self->mutex_);
  self->copies_.push_back(copy);
}

void ApiCallLog::record_launch(void* log, const Launch& launch) {
  auto* self = static_cast<ApiCallLog*>(log);
  const std::lock_guard<std::mutex> lock(self->mutex_);
  self->launches_.push_back(launch);
}

std::vector<ApiCallLog::Copy> ApiCallLog::copies() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return copies_;
}

std::vector<ApiCallLog::Launch> ApiCallLog::launches() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return launches_;
}

}  // namespace cudalab
