// Reading an untrusted JSON document (a run file) field by field: each value knows where it sits
// ("sections[3].metrics[2].median"), so a problem is one line that names the field and says in
// words what is wrong with it ("expected a number, found a string"), never a library's id.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/core/message.hpp"

namespace cudalab {

// Deeper nesting than this is refused before anything walks the document: no real run comes
// near it (a run nests 6 levels), and every walk below stays far from the stack's end.
inline constexpr int kMaxJsonDepth = 64;

// `text` as JSON, refused (UsageError, one line naming `name`) when it is not valid JSON or
// nests deeper than kMaxJsonDepth; the depth is counted as the parser reads, before any
// recursion over the document.
nlohmann::json parse_untrusted_json(const std::string& text, const std::string& name);

// One value of a parsed document. Cheap to copy; valid while the document is. Where it sits is
// worked out only when something is wrong with it (a search from the root), so reading a run of
// millions of values builds no paths.
class JsonField {
 public:
  // The document's root; `root_path` prefixes every path ("" for a single run, "[2]" for the
  // third run of an array).
  JsonField(const nlohmann::json& root, std::string root_path);

  const nlohmann::json& value() const { return *value_; }
  // A member that must be there (the value must be an object).
  JsonField at(std::string_view key) const;
  // A member that may be missing.
  std::optional<JsonField> find(std::string_view key) const;

  std::string text() const;
  double number() const;
  bool flag() const;
  std::int64_t integer(std::int64_t lowest, std::int64_t highest) const;
  std::uint64_t count() const;  // a whole number >= 0
  std::vector<std::string> texts() const;
  std::vector<double> numbers() const;
  // Calls read(element) for each element of an array.
  template <class Read>
  void each(Read read) const {
    expect_array();
    for (const auto& element : *value_) read(JsonField(element, *this));
  }

  // Throws UsageError "path: problem"; `problem` is words (a template).
  [[noreturn]] void fail(const Message& problem) const;
  // "sections[3].metrics[2]"; "(the run)" for the root.
  std::string path() const;

 private:
  JsonField(const nlohmann::json& value, const JsonField& from);
  // As path(), but "" for the root.
  std::string place() const;
  void expect_array() const;
  [[noreturn]] void wrong_type(const Message& expected) const;  // expected, in words: "a number"

  const nlohmann::json* value_;
  const nlohmann::json* root_;
  std::string root_path_;  // short ("[2]"): copied with the field
};

// "a string", "an object", "null", ...: a JSON value's kind, in words for messages.
Message json_kind(const nlohmann::json& value);

// A message in a run file: a template without arguments as a string; data as {"text": ...}; a
// template with arguments as {"template", "args"}, the outermost with its English too ("en"), for
// programs that read the file and want the words.
void to_json(nlohmann::json& j, const Message& m);
Message read_message(const JsonField& f);

}  // namespace cudalab
