#include "common/core/lang.hpp"

#include <cstdlib>
#include <string_view>

#include "common/core/errors.hpp"

namespace cudalab {

Lang parse_lang(const std::string& text) {
  if (text == "en") return Lang::en;
  if (text == "zh") return Lang::zh;
  throw UsageError(msg("--lang: '{value}' is not a language; use zh or en", arg("value", text)));
}

const char* lang_name(Lang lang) { return lang == Lang::zh ? "zh" : "en"; }

Lang lang_from_environment() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(var);
    if (value != nullptr && *value != '\0') {
      return std::string_view(value).substr(0, 2) == "zh" ? Lang::zh : Lang::en;
    }
  }
  return Lang::en;
}

}  // namespace cudalab
