// Reading the live prompt: with line editing, history and completion of parameter names when
// stdin is a terminal and libedit (BSD licence, Debian's libedit2) can be loaded at run time;
// plain lines otherwise (scripted input, tests), so the binary never needs libedit to start.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace cudalab {

class LineReader {
 public:
  virtual ~LineReader() = default;
  // The next line, or nullopt at end of input.
  virtual std::optional<std::string> read(const std::string& prompt) = 0;
};

// `words` are offered as completions of the first word on the line.
std::unique_ptr<LineReader> make_line_reader(std::vector<std::string> words);

}  // namespace cudalab
