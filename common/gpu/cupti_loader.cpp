#include "common/gpu/cupti_loader.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <string>

namespace cudalab {

namespace {

template <typename Fn>
bool resolve(void* handle, const char* symbol, Fn& fn, Message& error) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (fn == nullptr && error.empty()) error = msg("libcupti has no {symbol}", arg("symbol", std::string(symbol)));
  return fn != nullptr;
}

}  // namespace

const CuptiLibrary& cupti_library() {
  static const CuptiLibrary library = [] {
    CuptiLibrary lib;
    // The soname first (LD_LIBRARY_PATH, ldconfig), then where the CUDA toolkit puts it.
    for (const char* path : {"libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
                             "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13"}) {
      lib.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
      if (lib.handle != nullptr) break;
    }
    if (lib.handle == nullptr) {
      lib.load_error = Message("libcupti.so.13 was not found (it comes with the CUDA 13 toolkit)");
      return lib;
    }
    Message& e = lib.load_error;
    resolve(lib.handle, "cuptiGetVersion", lib.get_version, e);
    resolve(lib.handle, "cuptiGetResultString", lib.get_result_string, e);
    resolve(lib.handle, "cuptiActivityRegisterCallbacks", lib.register_callbacks, e);
    resolve(lib.handle, "cuptiActivityEnable", lib.enable, e);
    resolve(lib.handle, "cuptiActivityDisable", lib.disable, e);
    resolve(lib.handle, "cuptiActivityFlushAll", lib.flush_all, e);
    resolve(lib.handle, "cuptiActivityGetNextRecord", lib.next_record, e);
    resolve(lib.handle, "cuptiActivityGetNumDroppedRecords", lib.dropped_records, e);
    resolve(lib.handle, "cuptiGetStreamIdEx", lib.stream_id, e);
    resolve(lib.handle, "cuptiGetTimestamp", lib.timestamp, e);
    resolve(lib.handle, "cuptiSubscribe", lib.subscribe, e);
    resolve(lib.handle, "cuptiUnsubscribe", lib.unsubscribe, e);
    resolve(lib.handle, "cuptiEnableDomain", lib.enable_domain, e);
    Message optional_missing;
    resolve(lib.handle, "cuptiActivityConfigureUnifiedMemoryCounter", lib.configure_unified_memory, optional_missing);
    return lib;  // kept loaded for the life of the process: CUPTI may call back at exit
  }();
  return library;
}

Message cupti_error_text(CUptiResult result) {
  const char* text = nullptr;
  if (cupti_library().get_result_string == nullptr || cupti_library().get_result_string(result, &text) != CUPTI_SUCCESS ||
      text == nullptr) {
    return msg("CUPTI error {code}", arg("code", static_cast<int>(result)));
  }
  return verbatim(text);
}

void throw_cupti_error(CUptiResult result, const char* call, const char* file, int line) {
  throw CuptiError(msg("{error} in `{call}` at {file}:{line}", arg("error", cupti_error_text(result)),
                       arg("call", std::string(call)), arg("file", std::string(file)), arg("line", line)),
                   result);
}

void report_cupti_error_noexcept(CUptiResult result, const char* call, const char* file, int line) noexcept {
  std::fprintf(stderr, "cudalab: warning: %s in `%s` at %s:%d\n", cupti_error_text(result).en().c_str(), call, file,
               line);
}

std::string refusal_hint(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
      return " — another profiler (Nsight Systems/Compute?) is already attached";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
      return " — this user may not profile the GPU (see NVreg_RestrictProfilingToAdminUsers)";
    case CUPTI_ERROR_NOT_INITIALIZED:
      return " — CUPTI could not initialise (driver too old for this CUPTI?)";
    default:
      return "";
  }
}

}  // namespace cudalab
