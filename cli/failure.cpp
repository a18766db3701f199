#include "cli/failure.hpp"

#include <CLI/CLI.hpp>

#include "common/core/errors.hpp"
#include "common/core/interrupt.hpp"
#include "common/core/text_format.hpp"
#include "common/queue/gpu_queue.hpp"
#include "common/queue/rendezvous.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

Failure failure(ExitCode code, std::string frame, const std::exception& e) {
  return Failure{to_int(code), std::move(frame), e.what(), false, false};
}

}  // namespace

Failure usage_failure(std::string message) {
  return Failure{to_int(ExitCode::usage), "error: {}", std::move(message), false, false};
}

Failure failure_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const CLI::ParseError& e) {
    return failure(ExitCode::usage, "error: {}", e);
  } catch (const UsageError& e) {
    return failure(ExitCode::usage, "error: {}", e);
  } catch (const WaivedError& e) {
    return failure(ExitCode::waived, "waived: {}", e);
  } catch (const InterruptedError&) {
    return Failure{interrupt_exit_code(), "interrupted; everything was released", "", false, true};
  } catch (const QueueTimeoutError& e) {  // the GPU stayed busy for too long: no CUDA call failed
    return failure(ExitCode::runtime, "{}", e);
  } catch (const QueueUnavailableError& e) {  // the queue's folder, not the GPU
    return failure(ExitCode::runtime, "GPU queue: {}", e);
  } catch (const RendezvousError& e) {  // another rank did not answer: no CUDA call failed
    return failure(ExitCode::runtime, "{}", e);
  } catch (const RuntimeError& e) {
    return failure(ExitCode::runtime, "CUDA error: {}", e);
  } catch (const std::exception& e) {
    Failure f = failure(ExitCode::runtime, "internal error: {}", e);
    f.internal = true;
    return f;
  } catch (...) {
    return Failure{to_int(ExitCode::runtime), "internal error: {}", "an exception of unknown type", true, false};
  }
}

// The frame and the message are translated apart: a pattern of the message must not swallow the
// frame.
std::string failure_line(const Failure& failure, Lang lang, const std::string& where) {
  const std::string colon = lang == Lang::zh ? "：" : ": ";
  std::string line = "cudalab" + colon + (where.empty() ? "" : where + colon);
  const std::string frame = tr(lang, failure.frame);
  const std::size_t at = frame.find("{}");
  if (at == std::string::npos) return line + frame;
  return line + frame.substr(0, at) + tr(lang, printable(failure.message)) + frame.substr(at + 2);
}

}  // namespace cudalab
