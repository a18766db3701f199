// Every text a user sees, as a template with named arguments, translated before it is formatted
// (gettext's model). The catalogue (course-notes/zh/*.po, report/translate.hpp) is keyed by the
// English template; the Chinese has the same placeholders, in its own order:
//
//   msgid  "{streams} streams are {speedup}× faster than one"
//   msgstr "{streams} 个流比一个流快 {speedup}×"
//
// An argument is data or words. Data (a number the producer formatted, a size, a file name, a
// device name) is a std::string and is printed as it is in every language. Words are a Message
// of their own (a string literal is one) and are translated too:
//
//   msg("{streams} streams are {speedup}× faster", arg("streams", 4), arg("speedup", format_number(s)))
//   msg("{variant} run within {limit}% of the model", arg("variant", "depth-first"), ...)
//
// A placeholder is {name} with name in [a-z0-9_], starting with a letter; any other brace is
// text. A Message that is data itself (a fact's value "4", a device name) is verbatim().
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace cudalab {

struct MessageArg;

class Message {
 public:
  Message() = default;
  // A string literal is a template: the words a user reads, looked up in the catalogue as written.
  Message(const char* templ);  // NOLINT(google-explicit-constructor): "copy engines" is a Message
  // A built string as a template. Only for text that is the same in every run (a template kept
  // in a table, a description CLI11 holds); anything holding a number or a name is msg(...) or
  // verbatim(...). Explicit: a formatted English line must not become a template unnoticed.
  explicit Message(std::string templ);
  // Data, not words: printed as it is in every language and never looked up.
  static Message verbatim(std::string text);

  // The template (or, for verbatim data, the text itself).
  const std::string& text() const { return text_; }
  const std::vector<MessageArg>& args() const;
  bool is_verbatim() const { return verbatim_; }
  // No text at all (an absent note): renders as "".
  bool empty() const;
  // The English rendering: what the template says with its arguments filled in.
  std::string en() const;

  // The argument named `name`, or null.
  const Message* find_arg(std::string_view name) const;
  // One more argument (msg() is the usual way to give them).
  Message& with(MessageArg arg);
  // A copy with `f` applied to its text and to every argument's, at every depth (argument names
  // stay): for making a file's texts printable.
  template <class F>
  Message mapped(F f) const;

  // Same kind, text and arguments (in any order: a file keeps them sorted by name).
  friend bool operator==(const Message& a, const Message& b);
  friend bool operator!=(const Message& a, const Message& b) { return !(a == b); }

 private:
  std::string text_;
  std::vector<MessageArg> args_;
  bool verbatim_ = false;
};

// A message's English, for logs and test failures.
std::ostream& operator<<(std::ostream& out, const Message& message);

// Message::verbatim, shorter: data where a message goes (a fact's value "4", a device's name).
inline Message verbatim(std::string text) { return Message::verbatim(std::move(text)); }

// Marks a literal that is kept as a plain string and looked up later, as gettext's N_ does (a
// page fault's name in a timeline, which a run stores as data): xgettext collects it, so the
// catalogue test (tests/templates_translated.sh) asks for its Chinese.
constexpr const char* N_(const char* templ) { return templ; }

struct MessageArg {
  std::string name;
  Message value;
};

// Data: printed as it is.
MessageArg arg(std::string name, std::string data);
// Words: translated with the message around them. A string literal is words.
MessageArg arg(std::string name, Message words);
MessageArg arg(std::string name, const char* words);
// A whole number, written with plain digits ("16777216"; format_count first for "16,777,216").
template <class Int, std::enable_if_t<std::is_integral_v<Int> && !std::is_same_v<Int, bool>, int> = 0>
MessageArg arg(std::string name, Int number) {
  return arg(std::move(name), std::to_string(number));
}
// A real number has no language-independent default format: format it first (format_number).
MessageArg arg(std::string name, double) = delete;
MessageArg arg(std::string name, bool) = delete;

template <class... Args>
Message msg(const char* templ, Args&&... args) {
  Message m(templ);
  (m.with(std::forward<Args>(args)), ...);
  return m;
}

// The items one after another with `separator` between them ("; ", " · "): a template of
// placeholders and punctuation, which needs no translation of its own. Empty for no items.
Message join(const std::vector<Message>& items, const std::string& separator);

// Whether a template has words of its own to translate: a letter, or a character outside ASCII
// that is no punctuation or symbol, outside its placeholders. "{noise}, {outliers}" and
// "{a} · {b}" have none and need no catalogue entry.
bool has_words(const std::string& template_text);

// `template_text` with each {name} replaced by fill(name) where fill returns true; any other
// brace is copied as it is. The one substitution every rendering uses (translate.hpp's too).
template <class Fill>
std::string substitute(const std::string& template_text, Fill fill);

// Whether `name` can be a placeholder: [a-z][a-z0-9_]*, at most 32 characters.
bool is_placeholder_name(std::string_view name);
// The placeholder names of a template, in order of appearance, each once.
std::vector<std::string> placeholders_of(const std::string& template_text);

// ---- implementation ----------------------------------------------------------------------

template <class F>
Message Message::mapped(F f) const {
  Message m = *this;
  m.text_ = f(text_);
  for (auto& a : m.args_) a.value = a.value.mapped(f);
  return m;
}

template <class Fill>
std::string substitute(const std::string& template_text, Fill fill) {
  std::string out;
  out.reserve(template_text.size());
  for (std::size_t i = 0; i < template_text.size(); ++i) {
    if (template_text[i] == '{') {
      const std::size_t close = template_text.find('}', i + 1);
      if (close != std::string::npos && close - i - 1 <= 32) {
        const std::string_view name(template_text.data() + i + 1, close - i - 1);
        if (is_placeholder_name(name) && fill(name, out)) {
          i = close;
          continue;
        }
      }
    }
    out += template_text[i];
  }
  return out;
}

}  // namespace cudalab
