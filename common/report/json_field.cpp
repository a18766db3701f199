#include "common/report/json_field.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"

namespace cudalab {

using nlohmann::json;

namespace {

struct TooDeep {};

// nlohmann's own document builder, behind a count of open containers: the parser stops at the
// first one deeper than the limit. (The parser-callback form of the same check rescans the parent
// array at the end of each element, quadratic over a timeline of a million operations.)
class DepthLimitedBuilder {
 public:
  explicit DepthLimitedBuilder(json& root) : dom_(root, true) {}
  bool null() { return dom_.null(); }
  bool boolean(bool value) { return dom_.boolean(value); }
  bool number_integer(json::number_integer_t value) { return dom_.number_integer(value); }
  bool number_unsigned(json::number_unsigned_t value) { return dom_.number_unsigned(value); }
  bool number_float(json::number_float_t value, const json::string_t& text) { return dom_.number_float(value, text); }
  bool string(json::string_t& value) { return dom_.string(value); }
  bool binary(json::binary_t& value) { return dom_.binary(value); }
  bool key(json::string_t& value) { return dom_.key(value); }
  bool start_object(std::size_t size) { return open() && dom_.start_object(size); }
  bool end_object() { return close() && dom_.end_object(); }
  bool start_array(std::size_t size) { return open() && dom_.start_array(size); }
  bool end_array() { return close() && dom_.end_array(); }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);
  }

 private:
  bool open() {
    if (++depth_ > kMaxJsonDepth) throw TooDeep{};
    return true;
  }
  bool close() {
    --depth_;
    return true;
  }
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  int depth_ = 0;
};

// nlohmann's messages start with their id ("[json.exception.parse_error.101] "): the rest is
// words, cut short so that a long bad token cannot flood the line.
std::string without_library_id(const std::string& what) {
  const std::size_t end = what.rfind("[json.exception.", 0) == 0 ? what.find("] ") : std::string::npos;
  return printable_value(end == std::string::npos ? what : what.substr(end + 2), 160);
}

// Where `target` sits below `node`, appended to `path`; false when it is not there. Recursion
// is bounded by kMaxJsonDepth, which the parser enforced.
bool find_path(const json& node, const json* target, std::string& path) {
  if (&node == target) return true;
  const std::size_t mark = path.size();
  if (node.is_object()) {
    for (const auto& [key, value] : node.items()) {
      path += (path.empty() ? "" : ".") + printable_value(key, 40);
      if (find_path(value, target, path)) return true;
      path.resize(mark);
    }
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      path += fmt::format("[{}]", i);
      if (find_path(node[i], target, path)) return true;
      path.resize(mark);
    }
  }
  return false;
}

}  // namespace

json parse_untrusted_json(const std::string& text, const std::string& name) {
  // The parser keeps its own stack (no recursion); the builder stops it at the first container
  // deeper than the limit, before the document exists to be walked.
  try {
    json document;
    DepthLimitedBuilder builder(document);
    json::sax_parse(text, &builder);
    return document;
  } catch (const TooDeep&) {
    throw UsageError(msg("{name} nests deeper than {depth} levels: not a cudalab run", arg("name", name),
                         arg("depth", kMaxJsonDepth)));
  } catch (const json::parse_error& e) {
    // Where it breaks, in our words (the library's own text names its internals).
    const std::size_t at = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    const std::size_t line = 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
    const std::size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t column = at - (line_start == std::string::npos || at == 0 ? 0 : line_start + 1) + 1;
    throw UsageError(
        msg("{name} is not valid JSON (truncated or not a run?): it breaks at line {line}, column {column}",
            arg("name", name), arg("line", line), arg("column", column)));
  } catch (const json::exception& e) {
    throw UsageError(msg("{name} is not valid JSON (truncated or not a run?): {problem}", arg("name", name),
                         arg("problem", without_library_id(e.what()))));
  }
}

Message json_kind(const json& value) {
  switch (value.type()) {
    case json::value_t::null: return Message("null");
    case json::value_t::object: return Message("an object");
    case json::value_t::array: return Message("an array");
    case json::value_t::string: return Message("a string");
    case json::value_t::boolean: return Message("a boolean");
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return Message("a number");
    default: return Message("something else");
  }
}

JsonField::JsonField(const json& root, std::string root_path)
    : value_(&root), root_(&root), root_path_(std::move(root_path)) {}

JsonField::JsonField(const json& value, const JsonField& from)
    : value_(&value), root_(from.root_), root_path_(from.root_path_) {}

std::string JsonField::place() const {
  std::string path;
  find_path(*root_, value_, path);
  if (!root_path_.empty()) path = root_path_ + (path.empty() || path.front() == '[' ? "" : ".") + path;
  return path;
}

std::string JsonField::path() const {
  const std::string path = place();
  return path.empty() ? "(the run)" : path;
}

void JsonField::fail(const Message& problem) const {
  // Where the field sits is data; the root, which has no path, is named in words.
  const std::string path = place();
  throw UsageError(msg("{field}: {problem}", arg("field", path.empty() ? Message("(the run)") : verbatim(path)),
                       arg("problem", problem)));
}

void JsonField::wrong_type(const Message& expected) const {
  fail(msg("expected {expected}, found {found}", arg("expected", expected), arg("found", json_kind(*value_))));
}

void JsonField::expect_array() const {
  if (!value_->is_array()) wrong_type(Message("an array"));
}

JsonField JsonField::at(std::string_view key) const {
  if (auto member = find(key)) return *member;
  fail(msg("missing its field \"{key}\"", arg("key", std::string(key))));
}

std::optional<JsonField> JsonField::find(std::string_view key) const {
  if (!value_->is_object()) wrong_type(Message("an object"));
  const auto it = value_->find(key);
  if (it == value_->end()) return std::nullopt;
  return JsonField(*it, *this);
}

std::string JsonField::text() const {
  if (!value_->is_string()) wrong_type(Message("a string"));
  return value_->get_ref<const std::string&>();
}

double JsonField::number() const {
  if (!value_->is_number()) wrong_type(Message("a number"));
  return value_->get<double>();
}

bool JsonField::flag() const {
  if (!value_->is_boolean()) wrong_type(Message("true or false"));
  return value_->get<bool>();
}

std::int64_t JsonField::integer(std::int64_t lowest, std::int64_t highest) const {
  const auto out_of_range = [&] {
    fail(msg("expected a whole number from {lowest} to {highest}", arg("lowest", lowest), arg("highest", highest)));
  };
  if (value_->is_number_unsigned()) {
    const auto v = value_->get<std::uint64_t>();
    if (v > static_cast<std::uint64_t>(highest)) out_of_range();
    return static_cast<std::int64_t>(v);
  }
  if (!value_->is_number_integer()) wrong_type(Message("a whole number"));
  const auto v = value_->get<std::int64_t>();
  if (v < lowest || v > highest) out_of_range();
  return v;
}

std::uint64_t JsonField::count() const {
  if (!value_->is_number_unsigned()) {
    if (value_->is_number_integer()) fail(Message("expected a whole number from 0 up, found a negative one"));
    wrong_type(Message("a whole number"));
  }
  return value_->get<std::uint64_t>();
}

std::vector<std::string> JsonField::texts() const {
  std::vector<std::string> out;
  each([&](const JsonField& element) { out.push_back(element.text()); });
  return out;
}

std::vector<double> JsonField::numbers() const {
  expect_array();
  std::vector<double> out;
  out.reserve(value_->size());
  for (const auto& element : *value_) {
    if (!element.is_number()) JsonField(element, *this).wrong_type(Message("a number"));
    out.push_back(element.get<double>());
  }
  return out;
}

namespace {

// A message: a template without arguments as a string; data as {"text": ...}; a template with
// arguments as {"template", "args"}, the outermost with its English too ("en"), for programs that
// read the file and want the words.
json message_json(const Message& m, bool outermost) {
  if (m.is_verbatim()) return json{{"text", m.text()}};
  if (m.args().empty()) return m.text();
  json args = json::object();
  for (const auto& a : m.args()) args[a.name] = message_json(a.value, false);
  json j{{"template", m.text()}, {"args", std::move(args)}};
  if (outermost) j["en"] = m.en();
  return j;
}

// A message nests as deep as its arguments do: a lesson's go three deep; a file's may not go
// past this, nor hold more arguments than a template has room for.
constexpr int kMaxStoredMessageDepth = 6;
constexpr std::size_t kMaxMessageArgs = 16;

Message read_message_at(const JsonField& f, int depth) {
  if (f.value().is_string()) return Message(f.text());
  if (!f.value().is_object()) {
    f.fail(msg("expected words (a string or an object), found {kind}", arg("kind", json_kind(f.value()))));
  }
  if (const auto text = f.find("text")) return Message::verbatim(text->text());
  Message m(f.at("template").text());
  const JsonField args = f.at("args");
  if (!args.value().is_object()) {
    args.fail(msg("expected an object of arguments, found {kind}", arg("kind", json_kind(args.value()))));
  }
  if (args.value().size() > kMaxMessageArgs) {
    args.fail(msg("more than {limit} arguments", arg("limit", kMaxMessageArgs)));
  }
  if (depth >= kMaxStoredMessageDepth) args.fail("arguments nested too deep");
  for (const auto& item : args.value().items()) {
    if (!is_placeholder_name(item.key())) args.fail("an argument's name is not a placeholder name");
    m.with(MessageArg{item.key(), read_message_at(args.at(item.key()), depth + 1)});
  }
  return m;
}

}  // namespace

void to_json(nlohmann::json& j, const Message& m) { j = message_json(m, true); }

Message read_message(const JsonField& f) { return read_message_at(f, 0); }

}  // namespace cudalab
