#include "common/core/units.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab {

std::optional<std::uint64_t> parse_size(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0 || i > 64) return std::nullopt;
  const std::string number(text.substr(0, i));
  if (number.find('.') != number.rfind('.') || number == ".") return std::nullopt;
  std::string unit(text.substr(i));
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double scale = 0;
  if (unit.empty() || unit == "b") scale = 1;
  else if (unit == "k" || unit == "kib") scale = 1024.0;
  else if (unit == "m" || unit == "mib") scale = 1024.0 * 1024;
  else if (unit == "g" || unit == "gib") scale = 1024.0 * 1024 * 1024;
  else if (unit == "kb") scale = 1e3;
  else if (unit == "mb") scale = 1e6;
  else if (unit == "gb") scale = 1e9;
  else return std::nullopt;
  // strtod, not stod: many digits overflow to infinity here instead of throwing out_of_range.
  const double bytes = std::strtod(number.c_str(), nullptr) * scale;
  if (!std::isfinite(bytes) || bytes >= 1.8e19) return std::nullopt;
  const double rounded = std::floor(bytes);
  if (rounded != bytes) return std::nullopt;  // "1.3B" is not a whole number of bytes
  return static_cast<std::uint64_t>(rounded);
}

std::optional<long long> parse_whole_number(std::string_view text) {
  const std::size_t sign = (text.size() > 1 && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
  if (sign == text.size() || text.size() > 24) return std::nullopt;
  for (std::size_t k = sign; k < text.size(); ++k) {
    if (!std::isdigit(static_cast<unsigned char>(text[k]))) return std::nullopt;
  }
  errno = 0;
  const std::string digits(text);
  const long long v = std::strtoll(digits.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return v;
}

std::string check_whole_number(std::string_view text, long long min, long long max) {
  const auto v = parse_whole_number(text);
  const bool digits_only = !text.empty() && text.size() <= 24 &&
                           text.find_first_not_of("+-0123456789") == std::string_view::npos;
  if (!v && !digits_only) {
    return fmt::format("'{}' is not a whole number; allowed {} to {}", printable_value(text), min, max);
  }
  if (!v || *v < min || *v > max) return fmt::format("{} is out of range; allowed {} to {}", printable_value(text), min, max);
  return {};
}

std::string check_size(std::string_view text, std::uint64_t min_bytes, std::uint64_t max_bytes) {
  const std::string allowed = fmt::format("allowed {} to {}", format_bytes(min_bytes), format_bytes(max_bytes));
  const auto parsed = parse_size(text);
  if (!parsed) {
    return fmt::format("'{}' is not a size; write e.g. 4096, 64KiB, 64MiB or 1GiB ({})", printable_value(text), allowed);
  }
  if (*parsed < min_bytes || *parsed > max_bytes) return fmt::format("{} is out of range; {}", printable_value(text), allowed);
  return {};
}

std::string check_choice(std::string_view text, const std::vector<std::string>& choices) {
  for (const auto& c : choices) {
    if (c == text) return {};
  }
  return fmt::format("'{}' is not allowed; use one of {}", printable_value(text), join_words(choices, ", "));
}

std::optional<bool> parse_switch(std::string_view text) {
  if (text == "true" || text == "on" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "off" || text == "0" || text == "no") return false;
  return std::nullopt;
}

std::string join_words(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : separator) + w;
  return out;
}

}  // namespace cudalab
