// The rules for values typed by a person (on the command line, in a preset, at the live prompt):
// whole numbers in a range, sizes with units, one word of a list. Each check returns "" when the
// text is accepted, else one printable line that says what is allowed; the value it echoes is
// escaped and cut (printable_value), so a hostile value cannot break the line or the terminal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/message.hpp"

namespace cudalab {

// "4096", "64KiB", "64MiB", "1GiB", "2TiB", "16K", "1.5MiB" (binary units up to PiB; KB/MB/GB/TB/PB are
// decimal).
// nullopt when the text is not a size or does not fit in 64 bits.
std::optional<std::uint64_t> parse_size(std::string_view text);

// A whole number in [min, max]: refuses "1e3", " 4" and "4.5", which a stream parser would take.
std::optional<long long> parse_whole_number(std::string_view text);

// Why a typed value is refused, as a template with its arguments (message.hpp): empty when the
// text is accepted.
Message whole_number_problem(std::string_view text, long long min, long long max);
Message size_problem(std::string_view text, std::uint64_t min_bytes, std::uint64_t max_bytes);
Message choice_problem(std::string_view text, const std::vector<std::string>& choices);
// "true"/"false", "on"/"off", "1"/"0", "yes"/"no": nullopt for anything else.
std::optional<bool> parse_switch(std::string_view text);

// "a|b|c", "a, b, c"
std::string join_words(const std::vector<std::string>& words, const char* separator);

}  // namespace cudalab
