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

namespace {

// A message in the student's language. Many are "WHERE: what", the flag or command a check names
// in front of its own words ("--lang: 'fr' is not allowed; ...", "grade: '/nope' is not a
// directory"): when the catalogue knows no entry that speaks the whole, or knows it only through
// a pattern that left the head in English ("{} is not a directory"), the words are translated
// apart and the head kept as typed.
std::string spoken_message(Lang lang, const std::string& message) {
  const std::string whole = tr(lang, message);
  const std::size_t colon = message.find(": ");
  const bool one_word = colon != std::string::npos && colon > 0 && colon <= 40 &&
                        message.find_first_of(" \t") > colon;
  if (lang == Lang::en || !one_word) return whole;
  const std::string head = message.substr(0, colon);
  const bool known = whole != message;
  if (known && whole.rfind(head + ": ", 0) != 0) return whole;  // an entry that speaks the head too
  const std::string what = message.substr(colon + 2);
  const std::string spoken = tr(lang, what);
  if (known && spoken == what) return whole;
  return head + "：" + spoken;
}

}  // namespace

// The frame and the message are translated apart: a pattern of the message must not swallow the
// frame.
std::string failure_line(const Failure& failure, Lang lang, const std::string& where) {
  const std::string colon = lang == Lang::zh ? "：" : ": ";
  std::string line = "cudalab" + colon + (where.empty() ? "" : where + colon);
  const std::string frame = tr(lang, failure.frame);
  const std::size_t at = frame.find("{}");
  if (at == std::string::npos) return line + frame;
  return line + frame.substr(0, at) + spoken_message(lang, printable(failure.message)) + frame.substr(at + 2);
}

}  // namespace cudalab
