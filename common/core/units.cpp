#include "common/core/units.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/core/text_format.hpp"

namespace cudalab {

namespace {

// A size as written: a number and a unit's bytes; nullopt when it is not one at all (as opposed
// to one too large for 64 bits, which size_problem calls out of range).
struct WrittenSize {
  double bytes = 0;  // may be infinite, or beyond 64 bits
};

std::optional<WrittenSize> read_size(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == 0 || i > 64) return std::nullopt;
  const std::string number(text.substr(0, i));
  if (number.find('.') != number.rfind('.') || number == ".") return std::nullopt;
  std::string unit(text.substr(i));
  for (auto& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const struct {
    const char* unit;
    double scale;
  } kUnits[] = {{"", 1},       {"b", 1},         {"k", 0x1p10},    {"kib", 0x1p10}, {"m", 0x1p20},
                {"mib", 0x1p20}, {"g", 0x1p30},    {"gib", 0x1p30},  {"t", 0x1p40},   {"tib", 0x1p40},
                {"p", 0x1p50},   {"pib", 0x1p50},  {"kb", 1e3},      {"mb", 1e6},     {"gb", 1e9},
                {"tb", 1e12},    {"pb", 1e15}};
  for (const auto& u : kUnits) {
    // strtod, not stod: many digits overflow to infinity here instead of throwing out_of_range.
    if (unit == u.unit) return WrittenSize{std::strtod(number.c_str(), nullptr) * u.scale};
  }
  return std::nullopt;
}

bool fits_64_bits(double bytes) { return std::isfinite(bytes) && bytes < 1.8e19; }

}  // namespace

std::optional<std::uint64_t> parse_size(std::string_view text) {
  const auto written = read_size(text);
  if (!written || !fits_64_bits(written->bytes)) return std::nullopt;
  const double rounded = std::floor(written->bytes);
  if (rounded != written->bytes) return std::nullopt;  // "1.3B" is not a whole number of bytes
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

Message whole_number_problem(std::string_view text, long long min, long long max) {
  const auto v = parse_whole_number(text);
  const bool digits_only = !text.empty() && text.size() <= 24 &&
                           text.find_first_not_of("+-0123456789") == std::string_view::npos;
  if (!v && !digits_only) {
    return msg("'{value}' is not a whole number; allowed {min} to {max}", arg("value", printable_value(text)),
               arg("min", min), arg("max", max));
  }
  if (!v || *v < min || *v > max) {
    return msg("{value} is out of range; allowed {min} to {max}", arg("value", printable_value(text)), arg("min", min),
               arg("max", max));
  }
  return {};
}

Message size_problem(std::string_view text, std::uint64_t min_bytes, std::uint64_t max_bytes) {
  const auto parsed = parse_size(text);
  const auto written = read_size(text);
  const auto out_of_range = [&] {
    return msg("{value} is out of range; allowed {min} to {max}", arg("value", printable_value(text)),
               arg("min", format_bytes(min_bytes)), arg("max", format_bytes(max_bytes)));
  };
  if (!parsed && written && !fits_64_bits(written->bytes)) return out_of_range();
  if (!parsed) {
    return msg("'{value}' is not a size; write e.g. 4096, 64KiB, 64MiB or 1GiB (allowed {min} to {max})",
               arg("value", printable_value(text)), arg("min", format_bytes(min_bytes)),
               arg("max", format_bytes(max_bytes)));
  }
  if (*parsed < min_bytes || *parsed > max_bytes) return out_of_range();
  return {};
}

Message choice_problem(std::string_view text, const std::vector<std::string>& choices) {
  for (const auto& c : choices) {
    if (c == text) return {};
  }
  return msg("'{value}' is not allowed; use one of {choices}", arg("value", printable_value(text)),
             arg("choices", join_words(choices, ", ")));
}

std::optional<bool> parse_switch(std::string_view text) {
  if (text == "true" || text == "on" || text == "1" || text == "yes") return true;
  if (text == "false" || text == "off" || text == "0" || text == "no") return false;
  return std::nullopt;
}

std::string join_words(const std::vector<std::string>& words, const char* separator) {
  std::string out;
  // By position, not by what is written so far: an empty word keeps its place (a CSV's empty cell).
  for (std::size_t i = 0; i < words.size(); ++i) out += (i == 0 ? "" : separator) + words[i];
  return out;
}

}  // namespace cudalab
