#include "common/exercise/toolchain.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "common/exercise/child_process.hpp"

namespace cudalab {

namespace {

bool is_executable(const std::string& path) {
  struct stat st {};
  return !path.empty() && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

std::optional<std::string> on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream dirs(path);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty()) continue;
    const std::string candidate = dir + "/" + program;
    if (is_executable(candidate)) return candidate;
  }
  return std::nullopt;
}

// "12" at the start of `text`, up to `end`; false if none.
bool leading_number(const std::string& text, std::size_t begin, std::size_t* end) {
  std::size_t i = begin;
  while (i < text.size() && i - begin < 9 && text[i] >= '0' && text[i] <= '9') ++i;
  *end = i;
  return i > begin;
}

}  // namespace

std::optional<Toolchain> find_toolchain() {
  if (const char* own = std::getenv("CUDALAB_NVCC"); own != nullptr && *own != '\0') {
    if (is_executable(own)) return Toolchain{own, "CUDALAB_NVCC"};
    return std::nullopt;  // named on purpose: never fall back past it
  }
  if (auto found = on_path("nvcc")) return Toolchain{*found, "PATH"};
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home != '\0') {
    const std::string candidate = std::string(home) + "/bin/nvcc";
    if (is_executable(candidate)) return Toolchain{candidate, "CUDA_HOME"};
  }
  if (is_executable("/usr/local/cuda/bin/nvcc")) return Toolchain{"/usr/local/cuda/bin/nvcc", "/usr/local/cuda"};
  return std::nullopt;
}

std::vector<std::string> diagnostics_about(const std::string& output, const std::string& file) {
  constexpr std::size_t kMaxDiagnostics = 50;
  std::vector<std::string> found;
  std::size_t start = 0;
  while (start < output.size() && found.size() < kMaxDiagnostics) {
    std::size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    const std::string line = output.substr(start, std::min<std::size_t>(end - start, 4096));
    start = end + 1;
    if (line.compare(0, file.size(), file) != 0) continue;
    std::size_t i = file.size(), number_end = 0;
    std::string number, rest;
    if (i < line.size() && line[i] == '(' && leading_number(line, i + 1, &number_end) && number_end < line.size() &&
        line[number_end] == ')') {  // nvcc's front end: FILE(12): error: ...
      number = line.substr(i + 1, number_end - i - 1);
      rest = line.substr(number_end + 1);
    } else if (i < line.size() && line[i] == ':' && leading_number(line, i + 1, &number_end)) {  // g++: FILE:12:5: error
      number = line.substr(i + 1, number_end - i - 1);
      std::size_t j = number_end;
      if (j < line.size() && line[j] == ':' && leading_number(line, j + 1, &j)) {
      }
      rest = line.substr(j);
    } else {
      continue;
    }
    while (!rest.empty() && (rest.front() == ':' || rest.front() == ' ')) rest.erase(0, 1);
    if (rest.compare(0, 5, "error") != 0 && rest.compare(0, 7, "warning") != 0 && rest.compare(0, 5, "fatal") != 0) {
      continue;  // notes, "In function" lines
    }
    found.push_back(file + ":" + number + ": " + rest);
  }
  return found;
}

CompileResult compile_student_file(const Toolchain& toolchain, const CompileRequest& request) {
  CompileResult result;
  // -shared -fPIC: a library the child loads; nvcc links its own static CUDA runtime into it.
  // -lineinfo: the bench can name a source line (compute-sanitizer does).
  result.command = {toolchain.nvcc, "-std=c++17", "-O2", "-lineinfo", "-shared", "-Xcompiler", "-fPIC",
                    "-I", request.include_dir};
  if (!request.architecture.empty()) result.command.push_back("-arch=" + request.architecture);
  result.command.insert(result.command.end(), {"-o", request.output, request.source});
  ChildSpec spec;
  spec.argv = result.command;
  spec.time_limit_s = request.time_limit_s;
  spec.output_limit = 256 << 10;
  const ChildOutcome ran = run_child(spec);
  result.seconds = ran.wall_s;
  result.output = ran.output;
  result.timed_out = ran.ending == ChildEnding::timed_out;
  result.ok = ran.ending == ChildEnding::exited && ran.exit_code == 0;
  if (ran.ending == ChildEnding::not_started) result.output = ran.start_error.en();
  result.diagnostics = diagnostics_about(result.output, request.source);
  return result;
}

}  // namespace cudalab
