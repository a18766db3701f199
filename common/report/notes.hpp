// Course notes, embedded at build time from course-notes/<lang>/NN-slug.md.
//
// A notes file is Markdown split into sections by marker lines of the form
//     <!-- key: idea -->
// The text from a marker to the next one is that section; its first "#" heading is the human
// title and is not printed. Lessons refer to sections by key, so the explanation a lesson
// prints is exactly the paragraph in the notes.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/core/lang.hpp"

namespace cudalab {

struct Report;

// The body of one section, without its heading, its figures filled in from the lesson's reference
// run (notes_figures.hpp); nullopt when the file or key is missing.
std::optional<std::string> notes_section(Lang lang, std::string_view file, std::string_view key);
// The same section as shown with `run` (a live run, a run read from a file, or a built-in reference
// run): its claims and figures are that run's own, only another lesson's figures come from that
// lesson's reference run. nullopt when the run's notes file or the key is missing.
std::optional<std::string> notes_section(Lang lang, const Report& run, std::string_view key);
// The same as written, with its {{...}} references (for tests).
std::optional<std::string> notes_section_source(Lang lang, std::string_view file, std::string_view key);

// The text of another embedded file: `folder` "zh/labels" holds the label catalogues
// (course-notes/zh/labels/<file>.po, gettext catalogues), "figures" the named figures the notes quote
// (course-notes/figures/constants.txt). nullopt when there is none.
std::optional<std::string_view> embedded_file(std::string_view folder, std::string_view file);

// Every key in one notes file, in order (for tests: en and zh must carry the same keys).
std::vector<std::string> notes_keys(Lang lang, std::string_view file);

namespace detail {
struct EmbeddedNote {
  const char* lang;
  const char* file;
  const char* text;
};
extern const EmbeddedNote kEmbeddedNotes[];
extern const std::size_t kEmbeddedNoteCount;

// Parsing, separate from the embedded table so it can be tested on any text.
std::optional<std::string> find_section(std::string_view text, std::string_view key);
std::vector<std::string> section_keys(std::string_view text);
}  // namespace detail

}  // namespace cudalab
