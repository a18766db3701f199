// NCCL, loaded at run time: cudalab links nothing of NCCL, so the one binary still starts (and
// every other lesson runs) on a machine without libnccl.so.2. Only the functions cudalab calls
// are resolved; <nccl.h> supplies their types. Every call goes through CUDALAB_NCCL_CHECK, in the
// style of CUDALAB_CUDA_CHECK: it throws with file:line, NCCL's own message and the call's text.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/message.hpp"

namespace cudalab {

// The NCCL entry points cudalab uses, resolved with dlsym from libnccl.so.2.
struct NcclLibrary {
  ncclResult_t (*get_version)(int*) = nullptr;
  const char* (*get_error_string)(ncclResult_t) = nullptr;
  ncclResult_t (*comm_init_all)(ncclComm_t*, int, const int*) = nullptr;
  ncclResult_t (*comm_destroy)(ncclComm_t) = nullptr;
  ncclResult_t (*all_reduce)(const void*, void*, std::size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                             cudaStream_t) = nullptr;
  ncclResult_t (*group_start)() = nullptr;
  ncclResult_t (*group_end)() = nullptr;
  // One process per GPU: a communicator from a unique id shared by rank 0, and the calls that
  // keep every wait on it bounded (non-blocking communicators, their state, abort).
  ncclResult_t (*get_unique_id)(ncclUniqueId*) = nullptr;
  ncclResult_t (*comm_init_rank_config)(ncclComm_t*, int, ncclUniqueId, int, ncclConfig_t*) = nullptr;
  ncclResult_t (*comm_get_async_error)(ncclComm_t, ncclResult_t*) = nullptr;
  ncclResult_t (*comm_abort)(ncclComm_t) = nullptr;
  ncclResult_t (*comm_finalize)(ncclComm_t) = nullptr;
};

// The library, loaded on first use and kept for the life of the process (NCCL's proxy threads
// may still run while communicators are torn down). Throws WaivedError saying what is missing.
const NcclLibrary& nccl();


namespace detail {
[[noreturn]] void throw_nccl_error(ncclResult_t result, const char* call, const char* file, int line);
void report_nccl_error_noexcept(ncclResult_t result, const char* call, const char* file, int line) noexcept;
}  // namespace detail

}  // namespace cudalab

#define CUDALAB_NCCL_CHECK(call)                                                       \
  do {                                                                                 \
    const ncclResult_t cudalab_nccl_ = (call);                                         \
    if (cudalab_nccl_ != ncclSuccess) {                                                \
      ::cudalab::detail::throw_nccl_error(cudalab_nccl_, #call, __FILE__, __LINE__);   \
    }                                                                                  \
  } while (false)

#define CUDALAB_NCCL_CHECK_NOEXCEPT(call)                                                      \
  do {                                                                                         \
    const ncclResult_t cudalab_nccl_ = (call);                                                 \
    if (cudalab_nccl_ != ncclSuccess) {                                                        \
      ::cudalab::detail::report_nccl_error_noexcept(cudalab_nccl_, #call, __FILE__, __LINE__); \
    }                                                                                          \
  } while (false)

namespace cudalab {

// One communicator per device, all in this process (ncclCommInitAll), destroyed together.
class NcclComms {
 public:
  explicit NcclComms(const std::vector<int>& devices);
  ~NcclComms();
  NcclComms(const NcclComms&) = delete;
  NcclComms& operator=(const NcclComms&) = delete;

  ncclComm_t operator[](std::size_t rank) const { return comms_[rank]; }
  std::size_t size() const { return comms_.size(); }

 private:
  std::vector<ncclComm_t> comms_;
};

// The unique id a communicator of several processes is bootstrapped from: made by rank 0
// (ncclGetUniqueId) and handed to the others as text (hex).
std::string new_nccl_unique_id_text();
// Throws RuntimeError when the text is not an id in that form.
ncclUniqueId nccl_unique_id_from_text(std::string_view hex);

// This process's rank of a communicator whose ranks are processes (ncclCommInitRankConfig), one
// GPU each: the device current at construction. Non-blocking (ncclConfig_t::blocking = 0), so
// nothing here waits without a deadline: init, every call that returns ncclInProgress and
// every wait for the GPU poll the communicator's state, and after `timeout_s` without an end,
// or on an error a peer's failure caused, the communicator is aborted (ncclCommAbort stops
// NCCL's kernels, which would otherwise spin waiting for a dead peer) and RuntimeError says so
// in one line. Destroyed with ncclCommDestroy, or aborted when it broke or an exception is
// unwinding.
class NcclRankComm {
 public:
  NcclRankComm(const ncclUniqueId& id, int world_size, int rank, double timeout_s);
  ~NcclRankComm();
  NcclRankComm(const NcclRankComm&) = delete;
  NcclRankComm& operator=(const NcclRankComm&) = delete;

  ncclComm_t get() const { return comm_; }
  int rank() const { return rank_; }
  // Checks what an NCCL call on this communicator returned: waits out ncclInProgress.
  void settle(ncclResult_t result, const char* call);
  // Waits for everything on `stream` to finish, polling the stream and the communicator. `what`
  // says in words what the stream runs ("the step's GPU work"), for the error when it never ends.
  void wait(cudaStream_t stream, const char* what);

 private:
  [[noreturn]] void fail(const Message& why);
  ncclComm_t comm_ = nullptr;
  int world_size_ = 0;
  int rank_ = 0;
  double timeout_s_ = 0;
  bool broken_ = false;
};

// One thread driving several GPUs must issue their collectives inside one NCCL group, or the
// first call would wait forever for its peers. ncclGroupStart on construction; end() closes the
// group and checks it; leaving the scope without end() (an exception) still closes it.
class NcclGroup {
 public:
  NcclGroup();
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;
  void end();

 private:
  bool open_ = true;
};

}  // namespace cudalab
