#include "common/gpu/nccl_loader.hpp"

#include <dlfcn.h>

#include <cstdio>

#include <fmt/format.h>

#include "common/core/errors.hpp"

namespace cudalab {

namespace {

struct LoadedNccl {
  NcclLibrary functions;
  std::string missing;  // empty when the library and every function were found
};

template <typename Fn>
void resolve(void* handle, const char* symbol, Fn& fn, std::string& missing) {
  fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  if (fn == nullptr && missing.empty()) missing = fmt::format("libnccl.so.2 has no {}", symbol);
}

LoadedNccl load() {
  LoadedNccl lib;
  void* handle = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    lib.missing = "NCCL is not installed: libnccl.so.2 was not found in the library path (install libnccl2)";
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
  return lib;
}

const LoadedNccl& loaded() {
  static const LoadedNccl lib = load();
  return lib;
}

std::string nccl_error_text(ncclResult_t result) {
  const auto get_error_string = loaded().functions.get_error_string;
  const char* text = get_error_string != nullptr ? get_error_string(result) : nullptr;
  return text != nullptr ? text : fmt::format("NCCL error {}", static_cast<int>(result));
}

}  // namespace

const NcclLibrary& nccl() {
  const LoadedNccl& lib = loaded();
  if (!lib.missing.empty()) throw WaivedError(lib.missing);
  return lib.functions;
}

namespace detail {

void throw_nccl_error(ncclResult_t result, const char* call, const char* file, int line) {
  throw RuntimeError(fmt::format("NCCL error {} ({}) in `{}` at {}:{}", static_cast<int>(result),
                                 nccl_error_text(result), call, file, line));
}

void report_nccl_error_noexcept(ncclResult_t result, const char* call, const char* file, int line) noexcept {
  try {
    std::fprintf(stderr, "cudalab: warning: NCCL error %d (%s) in `%s` at %s:%d\n", static_cast<int>(result),
                 nccl_error_text(result).c_str(), call, file, line);
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

NcclGroup::NcclGroup() { CUDALAB_NCCL_CHECK(nccl().group_start()); }

NcclGroup::~NcclGroup() {
  if (open_) CUDALAB_NCCL_CHECK_NOEXCEPT(nccl().group_end());
}

void NcclGroup::end() {
  open_ = false;
  CUDALAB_NCCL_CHECK(nccl().group_end());
}

}  // namespace cudalab
