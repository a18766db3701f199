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

Failure failure(ExitCode code, const char* frame, const std::exception& e) {
  return Failure{to_int(code), frame, words_of(e), false, false};
}

}  // namespace

Failure usage_failure(Message message) {
  return Failure{to_int(ExitCode::usage), "error: {message}", std::move(message), false, false};
}

Failure failure_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const CLI::ParseError& e) {
    return failure(ExitCode::usage, "error: {message}", e);
  } catch (const UsageError& e) {
    return failure(ExitCode::usage, "error: {message}", e);
  } catch (const WaivedError& e) {
    return failure(ExitCode::waived, "waived: {message}", e);
  } catch (const InterruptedError&) {
    return Failure{interrupt_exit_code(), "interrupted; everything was released", Message(), false, true};
  } catch (const QueueTimeoutError& e) {  // the GPU stayed busy for too long: no CUDA call failed
    return failure(ExitCode::runtime, "{message}", e);
  } catch (const QueueUnavailableError& e) {  // the queue's folder, not the GPU
    return failure(ExitCode::runtime, "GPU queue: {message}", e);
  } catch (const RendezvousError& e) {  // another rank did not answer: no CUDA call failed
    return failure(ExitCode::runtime, "{message}", e);
  } catch (const RuntimeError& e) {
    return failure(ExitCode::runtime, "CUDA error: {message}", e);
  } catch (const std::exception& e) {
    Failure f = failure(ExitCode::runtime, "internal error: {message}", e);
    f.internal = true;
    return f;
  } catch (...) {
    return Failure{to_int(ExitCode::runtime), "internal error: {message}", "an exception of unknown type", true, false};
  }
}

std::string failure_line(const Failure& failure, Lang lang, const std::string& where) {
  const std::string colon = lang == Lang::zh ? "：" : ": ";
  const std::string line = "cudalab" + colon + (where.empty() ? "" : where + colon);
  // Whatever the error quotes (a path, a value typed by someone else) is made printable.
  const Message words = failure.message.mapped([](const std::string& text) { return printable(text); });
  // An error with no template (CLI11's own, the standard library's) is data: its English as it is.
  return line + tr(lang, msg(failure.frame, arg("message", words)));
}

}  // namespace cudalab
