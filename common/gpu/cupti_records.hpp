// Which CUPTI activity record structs this build reads, chosen by the CUPTI headers' version.
// CUPTI hands out the newest struct version of its release; every version only appends fields,
// so the code reads just the fields common to all versions named here (kind, start, end,
// deviceId, contextId, streamId, correlationId, and per kind: name / copyKind, srcKind, dstKind,
// bytes / bytes, memoryKind / type / counterKind, value, flags). The static_asserts pin those fields to the same offsets as
// in the previous version, which is what makes reading "the common fields" safe.
#pragma once

#include <cupti_activity.h>
#include <cupti_version.h>

#include <cstddef>

namespace cudalab::cupti {

#if CUPTI_API_VERSION >= 130000  // CUDA 13
using KernelRecord = CUpti_ActivityKernel10;
using MemcpyRecord = CUpti_ActivityMemcpy6;
using MemsetRecord = CUpti_ActivityMemset4;
using SyncRecord = CUpti_ActivitySynchronization2;
using UnifiedMemoryRecord = CUpti_ActivityUnifiedMemoryCounter3;
#define CUDALAB_CUPTI_RECORDS "Kernel10, Memcpy6, Memset4, Synchronization2, UnifiedMemoryCounter3"
#elif CUPTI_API_VERSION >= 18  // CUDA 12.x
using KernelRecord = CUpti_ActivityKernel9;
using MemcpyRecord = CUpti_ActivityMemcpy5;
using MemsetRecord = CUpti_ActivityMemset4;
using SyncRecord = CUpti_ActivitySynchronization;
using UnifiedMemoryRecord = CUpti_ActivityUnifiedMemoryCounter2;
#define CUDALAB_CUPTI_RECORDS "Kernel9, Memcpy5, Memset4, Synchronization, UnifiedMemoryCounter2"
#else
#error "cudalab's timeline needs CUPTI from CUDA 12 or newer"
#endif

// A short name for the chosen versions, for messages and tests.
inline constexpr const char* kRecordVersions = CUDALAB_CUPTI_RECORDS;
#undef CUDALAB_CUPTI_RECORDS

#if CUPTI_API_VERSION >= 130000
// The fields we read sit where the previous versions (still declared, deprecated) put them.
static_assert(offsetof(CUpti_ActivityKernel10, start) == offsetof(CUpti_ActivityKernel9, start));
static_assert(offsetof(CUpti_ActivityKernel10, end) == offsetof(CUpti_ActivityKernel9, end));
static_assert(offsetof(CUpti_ActivityKernel10, deviceId) == offsetof(CUpti_ActivityKernel9, deviceId));
static_assert(offsetof(CUpti_ActivityKernel10, streamId) == offsetof(CUpti_ActivityKernel9, streamId));
static_assert(offsetof(CUpti_ActivityKernel10, name) == offsetof(CUpti_ActivityKernel9, name));
static_assert(offsetof(CUpti_ActivityMemcpy6, copyKind) == offsetof(CUpti_ActivityMemcpy5, copyKind));
static_assert(offsetof(CUpti_ActivityMemcpy6, srcKind) == offsetof(CUpti_ActivityMemcpy5, srcKind));
static_assert(offsetof(CUpti_ActivityMemcpy6, dstKind) == offsetof(CUpti_ActivityMemcpy5, dstKind));
static_assert(offsetof(CUpti_ActivityMemcpy6, bytes) == offsetof(CUpti_ActivityMemcpy5, bytes));
static_assert(offsetof(CUpti_ActivityMemcpy6, start) == offsetof(CUpti_ActivityMemcpy5, start));
static_assert(offsetof(CUpti_ActivityMemcpy6, end) == offsetof(CUpti_ActivityMemcpy5, end));
static_assert(offsetof(CUpti_ActivityMemcpy6, deviceId) == offsetof(CUpti_ActivityMemcpy5, deviceId));
static_assert(offsetof(CUpti_ActivityMemcpy6, streamId) == offsetof(CUpti_ActivityMemcpy5, streamId));
static_assert(offsetof(CUpti_ActivitySynchronization2, type) == offsetof(CUpti_ActivitySynchronization, type));
static_assert(offsetof(CUpti_ActivitySynchronization2, start) == offsetof(CUpti_ActivitySynchronization, start));
static_assert(offsetof(CUpti_ActivitySynchronization2, end) == offsetof(CUpti_ActivitySynchronization, end));
static_assert(offsetof(CUpti_ActivitySynchronization2, streamId) == offsetof(CUpti_ActivitySynchronization, streamId));
static_assert(offsetof(CUpti_ActivityUnifiedMemoryCounter3, counterKind) ==
              offsetof(CUpti_ActivityUnifiedMemoryCounter2, counterKind));
static_assert(offsetof(CUpti_ActivityUnifiedMemoryCounter3, value) == offsetof(CUpti_ActivityUnifiedMemoryCounter2, value));
static_assert(offsetof(CUpti_ActivityUnifiedMemoryCounter3, start) == offsetof(CUpti_ActivityUnifiedMemoryCounter2, start));
static_assert(offsetof(CUpti_ActivityUnifiedMemoryCounter3, end) == offsetof(CUpti_ActivityUnifiedMemoryCounter2, end));
static_assert(offsetof(CUpti_ActivityUnifiedMemoryCounter3, flags) == offsetof(CUpti_ActivityUnifiedMemoryCounter2, flags));
#endif

}  // namespace cudalab::cupti
