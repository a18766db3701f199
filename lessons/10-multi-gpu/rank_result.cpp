#include "rank_result.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/core/errors.hpp"

namespace cudalab::multi_gpu {

namespace {

constexpr std::string_view kFirstLine = "cudalab-rank-result 1";

// The samples of a step and their names in the text, in one table for both directions.
struct SampleField {
  const char* name;
  std::vector<double> TrainingStep::*field;
};
constexpr SampleField kStepSamples[] = {
    {"layer", &TrainingStep::layer_ms},           {"allreduce", &TrainingStep::allreduce_ms},
    {"serial", &TrainingStep::serial_ms},         {"overlapped", &TrainingStep::overlapped_ms},
    {"priority", &TrainingStep::priority_ms},
};
struct SweepField {
  const char* name;
  std::vector<double> SweepPoint::*field;
};
constexpr SweepField kSweepSamples[] = {
    {"layer", &SweepPoint::layer_ms},
    {"allreduce", &SweepPoint::allreduce_ms},
    {"serial", &SweepPoint::serial_ms},
    {"priority", &SweepPoint::priority_ms}};

std::string numbers(const std::vector<double>& values) {
  std::string out;
  for (const double v : values) out += fmt::format(" {}", v);  // shortest text that reads back exactly
  return out;
}

// A line split at spaces; the rest of the line after `keep_rest_from` words is one word.
std::vector<std::string> words_of(std::string_view line, std::size_t keep_rest_from = 0) {
  std::vector<std::string> words;
  std::size_t at = 0;
  while (at < line.size()) {
    if (keep_rest_from > 0 && words.size() == keep_rest_from) {
      words.emplace_back(line.substr(at));
      break;
    }
    const std::size_t end = std::min(line.find(' ', at), line.size());
    words.emplace_back(line.substr(at, end - at));
    at = end + 1;
  }
  return words;
}

class Reader {
 public:
  explicit Reader(std::size_t line) : line_(line) {}
  [[noreturn]] void fail(const Message& why) const {
    throw RuntimeError(msg("a rank's result, line {line}: {problem}", arg("line", line_), arg("problem", why)));
  }
  double number(const std::string& word) const {
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(word.c_str(), &end);
    if (word.empty() || end != word.c_str() + word.size() || errno == ERANGE || !std::isfinite(v)) {
      fail(msg("'{word}' is not a finite number", arg("word", word.substr(0, 40))));
    }
    return v;
  }
  long long whole(const std::string& word, long long min, long long max) const {
    const double v = number(word);
    if (v != std::floor(v) || v < static_cast<double>(min) || v > static_cast<double>(max)) {
      fail(msg("'{word}' is not a whole number from {min} to {max}", arg("word", word.substr(0, 40)), arg("min", min),
               arg("max", max)));
    }
    return static_cast<long long>(v);
  }
  std::vector<double> samples(const std::vector<std::string>& words, std::size_t from) const {
    std::vector<double> out;
    for (std::size_t i = from; i < words.size(); ++i) out.push_back(number(words[i]));
    return out;
  }

 private:
  std::size_t line_;
};

constexpr long long kMaxInt = 2147483647;
constexpr long long kMaxCount = 1ll << 53;  // exact in a double

void read_gpu(const Reader& in, const std::vector<std::string>& w, GpuFacts& gpu) {
  if (w.size() != 9) in.fail(Message("gpu needs 7 numbers and a name"));
  gpu.summary.index = static_cast<int>(in.whole(w[1], 0, kMaxInt));
  gpu.summary.cc_major = static_cast<int>(in.whole(w[2], 0, 100));
  gpu.summary.cc_minor = static_cast<int>(in.whole(w[3], 0, 100));
  gpu.summary.sm_count = static_cast<int>(in.whole(w[4], 0, kMaxInt));
  gpu.summary.copy_engines = static_cast<int>(in.whole(w[5], 0, 1000));
  gpu.least_priority = static_cast<int>(in.whole(w[6], -1000, 1000));
  gpu.greatest_priority = static_cast<int>(in.whole(w[7], -1000, 1000));
  gpu.summary.name = w[8];
}

// One line into `r`; false when its key is not a step or sweep field.
bool read_samples(const Reader& in, const std::vector<std::string>& w, RankResult& r) {
  if (w[0] == "samples" && w.size() >= 2) {
    for (const auto& f : kStepSamples) {
      if (w[1] == f.name) {
        r.step.*f.field = in.samples(w, 2);
        return true;
      }
    }
    in.fail(msg("no samples named '{name}'", arg("name", w[1].substr(0, 40))));
  }
  if (w[0] == "sweep" && w.size() >= 3) {
    const auto bytes = static_cast<std::uint64_t>(in.whole(w[1], 1, kMaxCount));
    if (r.step.sweep.empty() || r.step.sweep.back().grad_bytes != bytes) r.step.sweep.push_back({bytes, {}, {}, {}, {}});
    for (const auto& f : kSweepSamples) {
      if (w[2] == f.name) {
        r.step.sweep.back().*f.field = in.samples(w, 3);
        return true;
      }
    }
    in.fail(msg("no sweep samples named '{name}'", arg("name", w[2].substr(0, 40))));
  }
  return false;
}

void read_line(const Reader& in, std::string_view line, RankResult& r) {
  // The words after which the rest of the line is one value (a name may hold spaces).
  const std::size_t rest_from = line.rfind("gpu ", 0) == 0 ? 8 : line.rfind("host ", 0) == 0 ? 1
                                : line.rfind("nccl-setting ", 0) == 0 ? 2 : 0;
  const auto w = words_of(line, rest_from);
  if (w.empty()) in.fail(Message("an empty line"));
  if (read_samples(in, w, r)) return;
  const auto words_needed = [&](std::size_t n) {
    if (w.size() != n) in.fail(msg("{key} needs {count} values", arg("key", w[0]), arg("count", n - 1)));
  };
  if (w[0] == "rank") {
    words_needed(2);
    r.rank = static_cast<int>(in.whole(w[1], 0, kMaxInt));
  } else if (w[0] == "host") {
    words_needed(2);
    r.host = w[1];
  } else if (w[0] == "gpu") {
    read_gpu(in, w, r.gpu);
  } else if (w[0] == "nccl-setting") {
    words_needed(3);
    r.nccl_settings.emplace_back(w[1], w[2]);
  } else if (w[0] == "step") {
    words_needed(5);
    r.step.nccl_version = static_cast<int>(in.whole(w[1], 0, kMaxInt));
    r.step.layer_blocks = static_cast<int>(in.whole(w[2], 0, kMaxInt));
    r.step.compute_priority = static_cast<int>(in.whole(w[3], -1000, 1000));
    r.step.comm_priority = static_cast<int>(in.whole(w[4], -1000, 1000));
  } else if (w[0] == "gradients") {
    words_needed(3);
    r.step.gradients.correct = static_cast<std::size_t>(in.whole(w[1], 0, kMaxCount));
    r.step.gradients.checked = static_cast<std::size_t>(in.whole(w[2], 0, kMaxCount));
  } else {
    in.fail(msg("unknown key '{key}'", arg("key", w[0].substr(0, 40))));
  }
}

// Element by element, the larger: the step is over when the slowest GPU's is.
std::vector<double> slowest(const std::vector<double>& a, const std::vector<double>& b, const char* what) {
  if (a.size() != b.size()) {
    throw RuntimeError(msg("the ranks took {a} and {b} samples of {samples}: did they run with the same flags?",
                           arg("a", a.size()), arg("b", b.size()), arg("samples", std::string(what))));
  }
  std::vector<double> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = std::max(a[i], b[i]);
  return out;
}

void merge_step(TrainingStep& into, const TrainingStep& from) {
  for (const auto& f : kStepSamples) into.*f.field = slowest(into.*f.field, from.*f.field, f.name);
  if (into.sweep.size() != from.sweep.size()) throw RuntimeError("the ranks swept different gradient sizes");
  for (std::size_t i = 0; i < into.sweep.size(); ++i) {
    if (into.sweep[i].grad_bytes != from.sweep[i].grad_bytes) throw RuntimeError("the ranks swept different gradient sizes");
    for (const auto& f : kSweepSamples) into.sweep[i].*f.field = slowest(into.sweep[i].*f.field, from.sweep[i].*f.field, f.name);
  }
  into.gradients.add(from.gradients);
}

}  // namespace

std::string encode_rank_result(const RankResult& r) {
  const auto& g = r.gpu;
  std::string text = fmt::format("{}\nrank {}\nhost {}\ngpu {} {} {} {} {} {} {} {}\n", kFirstLine, r.rank, r.host,
                                 g.summary.index, g.summary.cc_major, g.summary.cc_minor, g.summary.sm_count,
                                 g.summary.copy_engines, g.least_priority, g.greatest_priority, g.summary.name);
  for (const auto& [name, value] : r.nccl_settings) text += fmt::format("nccl-setting {} {}\n", name, value);
  const TrainingStep& s = r.step;
  text += fmt::format("step {} {} {} {}\ngradients {} {}\n", s.nccl_version, s.layer_blocks, s.compute_priority,
                      s.comm_priority, s.gradients.correct, s.gradients.checked);
  for (const auto& f : kStepSamples) text += fmt::format("samples {}{}\n", f.name, numbers(s.*f.field));
  for (const auto& point : s.sweep) {
    for (const auto& f : kSweepSamples) text += fmt::format("sweep {} {}{}\n", point.grad_bytes, f.name, numbers(point.*f.field));
  }
  return text;
}

RankResult decode_rank_result(std::string_view text) {
  if (text.size() > kMaxRankResultBytes) throw RuntimeError("a rank's result is larger than 4 MiB");
  RankResult r;
  std::size_t line_number = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    const Reader in(++line_number);
    if (line_number == 1) {
      if (line != kFirstLine) in.fail(Message("not a rank's result"));
      continue;
    }
    read_line(in, line, r);
  }
  if (line_number == 0) throw RuntimeError("a rank's result is empty");
  return r;
}

Measurements merge_rank_results(const std::vector<RankResult>& results, const std::string& source) {
  Measurements m;
  m.processes.world_size = static_cast<int>(results.size());
  m.processes.source = source;
  if (results.empty()) return m;
  m.nccl_settings = results.front().nccl_settings;
  m.visible_gpus = static_cast<int>(results.size());
  m.step = results.front().step;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].rank != static_cast<int>(i)) {
      throw RuntimeError(msg("the result in place {place} says it is rank {rank}", arg("place", i),
                             arg("rank", results[i].rank)));
    }
    m.processes.hosts.push_back(results[i].host);
    m.gpus.push_back(results[i].gpu);
    if (i > 0) merge_step(m.step, results[i].step);
  }
  return m;
}

}  // namespace cudalab::multi_gpu
