// CUPTI, loaded at run time: cudalab links nothing of CUPTI, so the one binary still starts on a
// machine with only the driver (libcupti.so.13 comes with the CUDA 13 toolkit). Only the
// functions cudalab calls are resolved; <cupti.h> supplies their types. Every call goes through
// CUDALAB_CUPTI_CHECK, in the style of CUDALAB_CUDA_CHECK: it throws a CuptiError with file:line,
// CUPTI's own name for the result and the call's text. Two users: the activity records of a
// traced run (trace_session.cpp) and the API callbacks that see the calls a student's code makes
// (api_calls.cpp).
#pragma once

#include <cupti.h>

#include <cstdint>

#include "common/core/errors.hpp"

namespace cudalab {

struct CuptiLibrary {
  void* handle = nullptr;
  CUptiResult (*get_version)(uint32_t*) = nullptr;
  CUptiResult (*get_result_string)(CUptiResult, const char**) = nullptr;
  CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) = nullptr;
  CUptiResult (*enable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*disable)(CUpti_ActivityKind) = nullptr;
  CUptiResult (*flush_all)(uint32_t) = nullptr;
  CUptiResult (*next_record)(uint8_t*, size_t, CUpti_Activity**) = nullptr;
  CUptiResult (*dropped_records)(CUcontext, uint32_t, size_t*) = nullptr;
  CUptiResult (*stream_id)(CUcontext, CUstream, uint8_t, uint32_t*) = nullptr;
  CUptiResult (*timestamp)(uint64_t*) = nullptr;
  // The callback API: a subscriber sees every driver call of the process as it enters and leaves.
  CUptiResult (*subscribe)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*) = nullptr;
  CUptiResult (*unsubscribe)(CUpti_SubscriberHandle) = nullptr;
  CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain) = nullptr;
  // Optional: without it the timeline simply has no page faults.
  CUptiResult (*configure_unified_memory)(CUpti_ActivityUnifiedMemoryCounterConfig*, uint32_t) = nullptr;
  Message load_error;  // empty when every function was found
};

// The library, loaded on first use and kept for the life of the process (CUPTI may call back at
// exit). Its load_error says what is missing; the functions are null then.
const CuptiLibrary& cupti_library();

// A CUPTI call failed. A traced run turns it into "no timeline" and one line, never an exit.
struct CuptiError : RuntimeError {
  CuptiError(Message what, CUptiResult code) : RuntimeError(std::move(what)), result(code) {}
  CUptiResult result;
};

// CUPTI's own name for the result (data), or its number when the library cannot say.
Message cupti_error_text(CUptiResult result);
[[noreturn]] void throw_cupti_error(CUptiResult result, const char* call, const char* file, int line);
void report_cupti_error_noexcept(CUptiResult result, const char* call, const char* file, int line) noexcept;
// Why CUPTI refused, in words a student can act on ("" when there is nothing to add).
std::string refusal_hint(CUptiResult result);

}  // namespace cudalab

#define CUDALAB_CUPTI_CHECK(call)                                              \
  do {                                                                         \
    const CUptiResult cudalab_cupti_ = (call);                                 \
    if (cudalab_cupti_ != CUPTI_SUCCESS) {                                     \
      ::cudalab::throw_cupti_error(cudalab_cupti_, #call, __FILE__, __LINE__); \
    }                                                                          \
  } while (false)

#define CUDALAB_CUPTI_CHECK_NOEXCEPT(call)                                               \
  do {                                                                                   \
    const CUptiResult cudalab_cupti_ = (call);                                           \
    if (cudalab_cupti_ != CUPTI_SUCCESS) {                                               \
      ::cudalab::report_cupti_error_noexcept(cudalab_cupti_, #call, __FILE__, __LINE__); \
    }                                                                                    \
  } while (false)
