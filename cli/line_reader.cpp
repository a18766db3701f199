#include "line_reader.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace cudalab {

namespace {

class PlainReader final : public LineReader {
 public:
  std::optional<std::string> read(const std::string& prompt) override {
    if (isatty(STDIN_FILENO) != 0) std::cout << prompt << std::flush;
    std::string line;
    if (!std::getline(std::cin, line)) return std::nullopt;
    return line;
  }
};

// libedit's readline-compatible entry points, declared here so no header is needed to build.
using ReadlineFn = char* (*)(const char*);
using AddHistoryFn = int (*)(const char*);
using CompletionFn = char** (*)(const char*, int, int);
using GeneratorFn = char* (*)(const char*, int);
using MatchesFn = char** (*)(const char*, GeneratorFn);

std::vector<std::string>* g_words = nullptr;  // the completion generator has no user data

char* next_word(const char* text, int state) {
  static std::size_t index = 0;
  if (state == 0) index = 0;
  while (g_words != nullptr && index < g_words->size()) {
    const std::string& w = (*g_words)[index++];
    if (w.rfind(text, 0) == 0) return strdup(w.c_str());  // libedit frees it
  }
  return nullptr;
}

class EditlineReader final : public LineReader {
 public:
  EditlineReader(void* handle, std::vector<std::string> words) : handle_(handle), words_(std::move(words)) {
    readline_ = reinterpret_cast<ReadlineFn>(dlsym(handle_, "readline"));
    add_history_ = reinterpret_cast<AddHistoryFn>(dlsym(handle_, "add_history"));
    matches_ = reinterpret_cast<MatchesFn>(dlsym(handle_, "rl_completion_matches"));
    auto* hook = reinterpret_cast<CompletionFn*>(dlsym(handle_, "rl_attempted_completion_function"));
    g_words = &words_;
    if (hook != nullptr && matches_ != nullptr) {
      s_matches = matches_;
      *hook = [](const char* text, int start, int) -> char** {
        return start == 0 ? s_matches(text, next_word) : nullptr;
      };
    }
  }
  ~EditlineReader() override {
    g_words = nullptr;
    dlclose(handle_);
  }
  bool usable() const { return readline_ != nullptr; }

  std::optional<std::string> read(const std::string& prompt) override {
    char* raw = readline_(prompt.c_str());
    if (raw == nullptr) return std::nullopt;
    std::string line(raw);
    std::free(raw);
    if (!line.empty() && add_history_ != nullptr) add_history_(line.c_str());
    return line;
  }

 private:
  static inline MatchesFn s_matches = nullptr;
  void* handle_;
  std::vector<std::string> words_;
  ReadlineFn readline_ = nullptr;
  AddHistoryFn add_history_ = nullptr;
  MatchesFn matches_ = nullptr;
};

}  // namespace

std::unique_ptr<LineReader> make_line_reader(std::vector<std::string> words) {
  if (isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0) {
    if (void* handle = dlopen("libedit.so.2", RTLD_NOW | RTLD_LOCAL)) {
      auto reader = std::make_unique<EditlineReader>(handle, std::move(words));
      if (reader->usable()) return reader;
    }
  }
  return std::make_unique<PlainReader>();
}

}  // namespace cudalab
