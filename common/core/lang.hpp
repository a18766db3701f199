// The two languages the lab speaks, and how a run picks one when no flag says.
#pragma once

#include <string>

namespace cudalab {

enum class Lang { en, zh };

// "zh" / "en"; throws UsageError for anything else.
Lang parse_lang(const std::string& text);
const char* lang_name(Lang lang);
// zh when LC_ALL (or else LC_MESSAGES, or else LANG) starts with "zh", otherwise en.
Lang lang_from_environment();

}  // namespace cudalab
