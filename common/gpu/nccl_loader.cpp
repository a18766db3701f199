#include "common/gpu/nccl_loader.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <functional>
#include <thread>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/gpu/cuda_check.hpp"

namespace cudalab {

namespace {

struct LoadedNccl {
  NcclLibrary functions;
  Message missing;  // empty when the library and every function were found
};

template <typename Fn>
void resolve(void* handle, const char* symbol, Fn& fn, Message& missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (fn == nullptr && missing.empty()) {
    missing = msg("libnccl.so.2 has no {symbol}", arg("symbol", std::string(symbol)));
  }
}

// For what only one process per GPU needs (NCCL 2.14 and later): null when absent, and
// NcclRankComm says so.
template <typename Fn>
void resolve_optional(void* handle, const char* symbol, Fn& fn) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
}

LoadedNccl load() {
  LoadedNccl lib;
  void* handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    lib.missing =
        Message("NCCL is not installed: libnccl.so.2 was not found in the library path (install libnccl2)");
    return lib;
  }
  NcclLibrary& f = lib.functions;
  resolve(handle, "ncclGetVersion", f.get_version, lib.missing);
  resolve(handle, "ncclGetErrorString", f.get_error_string, lib.missing);
  resolve(handle, "ncclCommInitAll", f.comm_init_all, lib.missing);
  resolve(handle, "ncclCommDestroy", f.comm_destroy, lib.missing);
  resolve(handle, "ncclAllReduce", f.all_reduce, lib.missing);
  resolve(handle, "ncclGroupStart", f.group_start, lib.missing);
  resolve(handle, "ncclGroupEnd", f.group_end, lib.missing);
  resolve(handle, "ncclGetUniqueId", f.get_unique_id, lib.missing);
  resolve_optional(handle, "ncclCommInitRankConfig", f.comm_init_rank_config);
  resolve_optional(handle, "ncclCommGetAsyncError", f.comm_get_async_error);
  resolve_optional(handle, "ncclCommAbort", f.comm_abort);
  resolve_optional(handle, "ncclCommFinalize", f.comm_finalize);
  return lib;
}

const LoadedNccl& loaded() {
  static const LoadedNccl lib = load();
  return lib;
}

// NCCL's own words for the result (data), or its number when the library cannot say.
Message nccl_error_text(ncclResult_t result) {
  const auto get_error_string = loaded().functions.get_error_string;
  const char* text = get_error_string != nullptr ? get_error_string(result) : nullptr;
  return text != nullptr ? verbatim(text) : msg("NCCL error {code}", arg("code", static_cast<int>(result)));
}

}  // namespace

const NcclLibrary& nccl() {
  const LoadedNccl& lib = loaded();
  if (!lib.missing.empty()) throw WaivedError(lib.missing);
  return lib.functions;
}

namespace detail {

void throw_nccl_error(ncclResult_t result, const char* call, const char* file, int line) {
  throw RuntimeError(msg("NCCL error {code} ({description}) in `{call}` at {file}:{line}",
                         arg("code", static_cast<int>(result)), arg("description", nccl_error_text(result)),
                         arg("call", std::string(call)), arg("file", std::string(file)), arg("line", line)));
}

void report_nccl_error_noexcept(ncclResult_t result, const char* call, const char* file, int line) noexcept {
  try {
    std::fprintf(stderr, "cudalab: warning: NCCL error %d (%s) in `%s` at %s:%d\n", static_cast<int>(result),
                 nccl_error_text(result).en().c_str(), call, file, line);
  } catch (...) {
  }
}

}  // namespace detail

NcclComms::NcclComms(const std::vector<int>& devices) : comms_(devices.size(), nullptr) {
  CUDALAB_NCCL_CHECK(nccl().comm_init_all(comms_.data(), static_cast<int>(devices.size()), devices.data()));
}

NcclComms::~NcclComms() {
  for (ncclComm_t comm : comms_) {
    if (comm != nullptr) CUDALAB_NCCL_CHECK_NOEXCEPT(nccl().comm_destroy(comm));
  }
}

std::string new_nccl_unique_id_text() {
  ncclUniqueId id{};
  CUDALAB_NCCL_CHECK(nccl().get_unique_id(&id));
  std::string hex;
  for (const char c : id.internal) hex += fmt::format("{:02x}", static_cast<unsigned char>(c));
  return hex;
}

ncclUniqueId nccl_unique_id_from_text(std::string_view hex) {
  ncclUniqueId id{};
  if (hex.size() != 2 * sizeof(id.internal)) {
    throw RuntimeError(msg("NCCL unique id: {digits} hex digits, expected {expected}", arg("digits", hex.size()),
                           arg("expected", 2 * sizeof(id.internal))));
  }
  const auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < sizeof(id.internal); ++i) {
    const int hi = digit(hex[2 * i]), lo = digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) throw RuntimeError("NCCL unique id: not lower-case hex");
    id.internal[i] = static_cast<char>(hi * 16 + lo);
  }
  return id;
}

NcclRankComm::NcclRankComm(const ncclUniqueId& id, int world_size, int rank, double timeout_s)
    : world_size_(world_size), rank_(rank), timeout_s_(timeout_s) {
  const NcclLibrary& lib = nccl();
  if (lib.comm_init_rank_config == nullptr || lib.comm_get_async_error == nullptr || lib.comm_abort == nullptr) {
    throw WaivedError("libnccl.so.2 is older than NCCL 2.14: it has no non-blocking communicators, which one "
                      "process per GPU needs here");
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // every wait below polls, with a deadline
  settle(lib.comm_init_rank_config(&comm_, world_size, id, rank, &config), "ncclCommInitRankConfig");
}

NcclRankComm::~NcclRankComm() {
  if (comm_ == nullptr) return;
  const NcclLibrary& lib = nccl();
  if (broken_ || std::uncaught_exceptions() > 0) {
    CUDALAB_NCCL_CHECK_NOEXCEPT(lib.comm_abort(comm_));
    return;
  }
  try {
    if (lib.comm_finalize != nullptr) settle(lib.comm_finalize(comm_), "ncclCommFinalize");
    CUDALAB_NCCL_CHECK_NOEXCEPT(lib.comm_destroy(comm_));
  } catch (const std::exception& e) {  // settle aborted it already
    std::fprintf(stderr, "cudalab: warning: %s\n", e.what());
  }
}

void NcclRankComm::fail(const Message& why) {
  broken_ = true;
  if (comm_ != nullptr) {
    CUDALAB_NCCL_CHECK_NOEXCEPT(nccl().comm_abort(comm_));
    comm_ = nullptr;
  }
  throw RuntimeError(msg("rank {rank} of {ranks}: {problem}", arg("rank", rank_), arg("ranks", world_size_),
                         arg("problem", why)));
}

// Polls until `done()` says the wait is over; gives up (aborting the communicator) on an error
// the communicator reports, on Ctrl-C or SIGTERM, and after the timeout. `what` names the wait:
// words ("the step's GPU work") or an NCCL call's name (data).
template <typename Done>
void poll_until(NcclRankComm& comm, double timeout_s, const Message& what, Done&& done,
                const std::function<void(const Message&)>& fail) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (done()) return;
    ncclResult_t state = ncclSuccess;
    CUDALAB_NCCL_CHECK(nccl().comm_get_async_error(comm.get(), &state));
    if (state != ncclSuccess && state != ncclInProgress) {
      fail(msg("{what}: NCCL reports {error} (another rank failed?)", arg("what", what),
               arg("error", nccl_error_text(state))));
    }
    if (interrupted()) fail(msg("{what}: interrupted", arg("what", what)));
    if (std::chrono::steady_clock::now() > deadline) {
      fail(msg("{what} did not finish within {seconds} s: has another rank stopped? (CUDALAB_RANK_TIMEOUT sets the "
               "limit)",
               arg("what", what), arg("seconds", fmt::format("{:.0f}", timeout_s))));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(50));  // short: Ctrl-C is seen at once
  }
}

void NcclRankComm::settle(ncclResult_t result, const char* call) {
  if (result == ncclSuccess) return;
  if (result != ncclInProgress) {
    fail(msg("{call} failed: {error}", arg("call", std::string(call)), arg("error", nccl_error_text(result))));
  }
  poll_until(
      *this, timeout_s_, verbatim(call),
      [&] {
        ncclResult_t state = ncclInProgress;
        CUDALAB_NCCL_CHECK(nccl().comm_get_async_error(comm_, &state));
        return state == ncclSuccess;
      },
      [&](const Message& why) { fail(why); });
}

void NcclRankComm::wait(cudaStream_t stream, const char* what) {
  poll_until(
      *this, timeout_s_, Message(what),
      [&] {
        const cudaError_t status = cudaStreamQuery(stream);
        if (status == cudaErrorNotReady) return false;
        CUDALAB_CUDA_CHECK(status);
        return true;
      },
      [&](const Message& why) { fail(why); });
}

NcclGroup::NcclGroup() { CUDALAB_NCCL_CHECK(nccl().group_start()); }

NcclGroup::~NcclGroup() {
  if (open_) CUDALAB_NCCL_CHECK_NOEXCEPT(nccl().group_end());
}

void NcclGroup::end() {
  open_ = false;
  CUDALAB_NCCL_CHECK(nccl().group_end());
}

}  // namespace cudalab
