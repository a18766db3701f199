#include "common/core/message.hpp"

#include <algorithm>
#include <cctype>
#include <ostream>

namespace cudalab {

Message::Message(const char* templ) : text_(templ == nullptr ? "" : templ) {}

Message::Message(std::string templ) : text_(std::move(templ)) {}

Message Message::verbatim(std::string text) {
  Message m;
  m.text_ = std::move(text);
  m.verbatim_ = true;
  return m;
}

const std::vector<MessageArg>& Message::args() const { return args_; }

bool Message::empty() const { return text_.empty(); }

const Message* Message::find_arg(std::string_view name) const {
  for (const auto& a : args_) {
    if (a.name == name) return &a.value;
  }
  return nullptr;
}

Message& Message::with(MessageArg arg) {
  args_.push_back(std::move(arg));
  return *this;
}

std::string Message::en() const {
  if (verbatim_ || args_.empty()) return text_;
  return substitute(text_, [this](std::string_view name, std::string& out) {
    for (const auto& a : args_) {
      if (a.name == name) {
        out += a.value.en();
        return true;
      }
    }
    return false;
  });
}

bool operator==(const Message& a, const Message& b) {
  if (a.verbatim_ != b.verbatim_ || a.text_ != b.text_ || a.args_.size() != b.args_.size()) return false;
  return std::all_of(a.args_.begin(), a.args_.end(), [&](const MessageArg& x) {
    return std::any_of(b.args_.begin(), b.args_.end(),
                       [&](const MessageArg& y) { return x.name == y.name && x.value == y.value; });
  });
}

std::ostream& operator<<(std::ostream& out, const Message& message) { return out << message.en(); }

MessageArg arg(std::string name, std::string data) { return MessageArg{std::move(name), Message::verbatim(std::move(data))}; }
MessageArg arg(std::string name, Message words) { return MessageArg{std::move(name), std::move(words)}; }
MessageArg arg(std::string name, const char* words) { return MessageArg{std::move(name), Message(words)}; }

Message join(const std::vector<Message>& items, const std::string& separator) {
  if (items.size() == 1) return items.front();
  std::string templ;
  for (std::size_t i = 0; i < items.size(); ++i) templ += (i == 0 ? "" : separator) + "{m" + std::to_string(i) + "}";
  Message m(templ);
  for (std::size_t i = 0; i < items.size(); ++i) m.with(MessageArg{"m" + std::to_string(i), items[i]});
  return m;
}

namespace {

// Punctuation and symbols outside ASCII that separate or mark words but are none: "·", "×",
// "；", "：", "—", "→", "✓", "✗". Everything else outside ASCII (Chinese above all) is words.
bool is_symbol(char32_t c) {
  return (c >= 0xA0 && c <= 0xBF) || c == 0xD7 || c == 0xF7 || (c >= 0x2000 && c <= 0x2BFF) ||
         (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF01 && c <= 0xFF0F) || (c >= 0xFF1A && c <= 0xFF20);
}

}  // namespace

bool has_words(const std::string& template_text) {
  const std::string outside = substitute(template_text, [](std::string_view, std::string&) { return true; });
  for (std::size_t i = 0; i < outside.size();) {
    const auto byte = static_cast<unsigned char>(outside[i]);
    if (byte < 0x80) {
      if (std::isalpha(byte) != 0) return true;
      ++i;
      continue;
    }
    // One UTF-8 sequence: its length from the lead byte, its code point from the rest.
    const std::size_t length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1;
    char32_t c = length == 1 ? byte : byte & (0x7F >> length);
    for (std::size_t k = 1; k < length && i + k < outside.size(); ++k) c = (c << 6) | (outside[i + k] & 0x3F);
    if (!is_symbol(c)) return true;
    i += length;
  }
  return false;
}

bool is_placeholder_name(std::string_view name) {
  if (name.empty() || name.size() > 32 || name[0] < 'a' || name[0] > 'z') return false;
  return std::all_of(name.begin(), name.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

std::vector<std::string> placeholders_of(const std::string& template_text) {
  std::vector<std::string> names;
  substitute(template_text, [&](std::string_view name, std::string&) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
    return true;
  });
  return names;
}

}  // namespace cudalab
