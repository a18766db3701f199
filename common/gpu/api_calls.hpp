// The CUDA calls a stretch of code makes, as CUPTI's callback API sees them at the driver: the
// copies it asked for (addresses and sizes) and the kernels it launched, each with the correlation
// id that its operation in a traced timeline carries (TimelineOp::correlation). A bench uses it to
// say which piece of the work an operation of the timeline was, when the code that made it is a
// student's (whose own CUDA runtime calls the same driver). CUPTI allows one subscriber per
// process; a TraceSession needs none (it reads activity records), so both can run at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace cudalab {

class ApiCallLog {
 public:
  struct Copy {
    std::uint32_t correlation = 0;
    std::uintptr_t dst = 0;
    std::uintptr_t src = 0;
    std::size_t bytes = 0;
    bool synchronous = false;  // cudaMemcpy: the host waited for it
  };
  struct Launch {
    std::uint32_t correlation = 0;
    int tag = -1;  // set_launch_tag's value when it was launched
  };

  // Subscribes to the driver's API callbacks. Throws CuptiError when CUPTI cannot be used here.
  ApiCallLog();
  ~ApiCallLog();
  ApiCallLog(const ApiCallLog&) = delete;
  ApiCallLog& operator=(const ApiCallLog&) = delete;

  // What the calling thread's next kernel launches are, to the bench (a chunk's index); -1: no tag.
  static void set_launch_tag(int tag);

  std::vector<Copy> copies() const;
  std::vector<Launch> launches() const;

 private:
  static void record_copy(void* log, const Copy& copy);
  static void record_launch(void* log, const Launch& launch);
  friend struct ApiCallbacks;

  void* subscriber_ = nullptr;
  mutable std::mutex mutex_;
  std::vector<Copy> copies_;
  std::vector<Launch> launches_;
};

}  // namespace cudalab
