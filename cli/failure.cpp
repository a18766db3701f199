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

std::string failure_line(const Failure& failure, Lang lang, const std::string& where) {
  const std::string colon = lang == Lang::zh ? "：" : ": ";
  const std::string line = "cudalab" + colon + (where.empty() ? "" : where + colon);
  // Whatever the error quotes (a path, a value typed by someone else) is made printable.
  const Message words = failure.message.mapped([](const std::string& text) { return printable(text); });
  // An error from finished English (CLI11's, the standard library's): the catalogue's patterns.
  const Message spoken = words.is_verbatim() ? Message::verbatim(spoken_message(lang, words.text())) : words;
  return line + tr(lang, msg(failure.frame, arg("message", spoken)));
}

}  // namespace cudalab
