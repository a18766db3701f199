#include "cli/class_folder.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <exception>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "cli/course.hpp"
#include "cli/drop_folder.hpp"
#include "common/core/errors.hpp"
#include "common/core/files.hpp"
#include "common/core/identity.hpp"
#include "common/core/text_format.hpp"
#include "common/grading/roster.hpp"
#include "common/grading/source_copies.hpp"

namespace cudalab {

namespace {

namespace fs = std::filesystem;

struct ClassEntry {
  std::string path;   // as the file system knows it
  std::string shown;  // relative to the class folder, printable
  std::string top;    // the subfolder of the class folder it sits in ("" at the top)
  Message problem;      // a subfolder that could not be read, or a student over the limit: why
  std::optional<unsigned> owner_uid;  // known before reading: the owner of a student's files over the limit
  std::string holder;  // whose files it counts among (handed_in_by below), "" when nobody's in particular
};

// Who handed a file in: its owner, when the kernel says it is someone other than the grader (and
// not root); else the student's folder; else its name before the first '-' or '_', unless that
// names a lesson ("03-stream-overlap.json" says nothing of who). Empty when nothing says.
struct HandedInBy {
  std::string student;
  std::optional<unsigned> owner_uid;  // set when the kernel's owner is the student
};

HandedInBy handed_in_by(const ClassEntry& entry, unsigned owner_uid) {
  if (owner_uid != ::geteuid() && owner_uid != 0) return {user_name(static_cast<uid_t>(owner_uid)), owner_uid};
  if (!entry.top.empty()) return {entry.top, std::nullopt};
  const std::string name = fs::path(entry.path).filename().string();
  const std::size_t cut = name.find_first_of("-_");
  const std::string prefix = cut == std::string::npos ? "" : name.substr(0, cut);
  if (!prefix.empty() && find_course_entry(prefix) == nullptr) return {printable_value(prefix, 40), std::nullopt};
  return {};
}

void set_student(GradeRow& row, const ClassEntry& entry, unsigned owner_uid) {
  HandedInBy by = handed_in_by(entry, owner_uid);
  row.student = std::move(by.student);
  if (by.owner_uid) row.owner_uid = *by.owner_uid;
}

// One student's .json entries, counted as the folders are listed: past kMaxStudentFiles none of
// theirs is kept, and one row fails that student alone, naming the limit, while the rest of the
// class is graded (a student cannot block the class with junk files).
struct StudentFiles {
  std::size_t seen = 0;
  unsigned owner_uid = 0;
  ClassEntry first;
};
using StudentCounts = std::map<std::string, StudentFiles>;

// False when the entry is one too many of its student's.
bool count_student_file(StudentCounts& counts, ClassEntry& entry) {
  struct stat st {};
  if (::lstat(entry.path.c_str(), &st) != 0) return true;  // gone already: its row says so
  entry.holder = handed_in_by(entry, st.st_uid).student;
  if (entry.holder.empty()) return true;  // nobody's in particular: only the class's limit holds
  StudentFiles& files = counts[entry.holder];
  if (files.seen++ == 0) {
    files.owner_uid = st.st_uid;
    files.first = entry;
  }
  return files.seen <= kMaxStudentFiles;
}

// The students over the limit: their kept entries go, one row each says why.
void replace_students_over_limit(std::vector<ClassEntry>& found, const StudentCounts& counts) {
  for (const auto& [student, files] : counts) {
    if (files.seen <= kMaxStudentFiles) continue;
    found.erase(std::remove_if(found.begin(), found.end(), [&](const ClassEntry& e) { return e.holder == student; }),
                found.end());
    ClassEntry over = files.first;
    if (!over.top.empty()) over.shown = over.top + "/";
    over.owner_uid = files.owner_uid;
    over.problem = msg("{count} .json files handed in by one student, over the limit of {limit}: none of them is graded",
                       arg("count", files.seen), arg("limit", kMaxStudentFiles));
    found.push_back(std::move(over));
  }
}

// A reader's message names the file by the path it was given; the grade row already names it, so
// the reason says it by its short name only (in the message's text and in each argument).
Message with_short_name(const Message& message, const std::string& path, const std::string& name) {
  const std::string full = printable(path);
  return message.mapped([&](std::string text) {
    for (std::size_t at = text.find(full); at != std::string::npos; at = text.find(full, at + name.size())) {
      text.replace(at, full.size(), name);
    }
    return text;
  });
}

ClassEntry entry_of(const fs::path& dir, const fs::path& path) {
  const fs::path relative = path.lexically_relative(dir);
  const std::string top = std::distance(relative.begin(), relative.end()) > 1 ? relative.begin()->string() : "";
  return {path.string(), printable(relative.string()), printable_value(top, 40), {}, std::nullopt, {}};
}

// One folder's entries: *.json entries into `found`, subfolders onto `folders`.
void list_folder(const fs::path& dir, const fs::path& folder, int depth, std::vector<ClassEntry>& found,
                 std::vector<std::pair<fs::path, int>>& folders, StudentCounts& counts) {
  std::error_code ec;
  fs::directory_iterator it(folder, ec);
  for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.empty() || name[0] == '.') continue;  // hidden: a hand-in still being written
    std::error_code status_error;
    const fs::file_status status = it->symlink_status(status_error);
    if (!status_error && fs::is_directory(status)) {
      if (it->path().extension() == ".json") {  // named like a run: a row that says what it is
        ClassEntry folder_entry = entry_of(dir, it->path());
        folder_entry.problem = Message("a folder, not a run");
        found.push_back(std::move(folder_entry));
      } else if (depth < kMaxClassDepth) {
        folders.emplace_back(it->path(), depth + 1);
      }
      continue;
    }
    if (it->path().extension() == ".json") {
      ClassEntry entry = entry_of(dir, it->path());
      if (count_student_file(counts, entry)) found.push_back(std::move(entry));
    }
    if (found.size() > kMaxClassFiles) {
      throw UsageError(msg("grade: '{dir}' holds over {count} .json files; grade one part of it at a time",
                           arg("dir", printable_value(dir.string())), arg("count", kMaxClassFiles)));
    }
  }
  if (!ec) return;
  if (depth == 0) {
    // The system's words for the error: a fixed table, which the catalogue translates.
    throw UsageError(msg("grade: cannot read '{dir}': {why}", arg("dir", printable_value(dir.string())),
                         arg("why", Message(ec.message()))));
  }
  ClassEntry unreadable = entry_of(dir, folder);
  unreadable.shown += "/";
  // The system's words for the error: a fixed table, which the catalogue translates.
  unreadable.problem = msg("cannot read this folder: {why}", arg("why", Message(ec.message())));
  found.push_back(std::move(unreadable));
}

// Every entry under `dir`, walked with a list of folders to visit (never by recursion), sorted.
std::vector<ClassEntry> class_entries(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UsageError(msg("grade: '{dir}' is not a directory", arg("dir", printable_value(dir))));
  std::vector<ClassEntry> found;
  std::vector<std::pair<fs::path, int>> folders{{fs::path(dir), 0}};
  StudentCounts counts;
  while (!folders.empty()) {
    const auto [folder, depth] = folders.back();
    folders.pop_back();
    list_folder(fs::path(dir), folder, depth, found, folders, counts);
  }
  replace_students_over_limit(found, counts);
  if (found.empty()) throw UsageError(msg("grade: '{dir}' holds no .json files", arg("dir", printable_value(dir))));
  std::sort(found.begin(), found.end(), [](const ClassEntry& a, const ClassEntry& b) { return a.shown < b.shown; });
  return found;
}

// What reading one entry gave: the file's owner and time, and its runs or why it holds none.
struct ReadEntry {
  bool opened = false;         // the file could be read (its owner and time are known)
  unsigned owner_uid = 0;
  double changed_s = 0;
  std::vector<SavedRun> runs;
  Message problem;             // why it holds no run
  std::exception_ptr failure;  // anything but a bad file: rethrown on the grader's own thread
};

ReadEntry read_entry(const ClassEntry& entry) {
  ReadEntry read;
  if (!entry.problem.empty()) {
    read.problem = entry.problem;
    return read;
  }
  try {
    const UntrustedFile file = read_untrusted_file(entry.path, kMaxRunFileBytes, "a saved run");
    read.opened = true;
    read.owner_uid = file.owner_uid;
    read.changed_s = file.changed_s;
    read.runs = parse_saved_runs(file.text, entry.path);
  } catch (const UsageError& e) {
    read.problem = with_short_name(words_of(e), entry.path, entry.shown);
  } catch (...) {
    read.failure = std::current_exception();
  }
  return read;
}

// Every entry read, on as many threads as the machine has CPUs (up to 8): a class's runs of
// lesson 11 are tens of megabytes of JSON, and parsing them is nearly all of grade's time. Each
// thread takes the next unread entry; what it reads lands in that entry's place. The helpers are
// futures, as in lessons/shared/training-step: each one's destructor waits for its thread.
std::vector<ReadEntry> read_entries(const std::vector<ClassEntry>& entries) {
  std::vector<ReadEntry> read(entries.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < entries.size(); i = next++) read[i] = read_entry(entries[i]);
  };
  const std::size_t threads = std::min<std::size_t>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u), entries.size());
  std::vector<std::future<void>> helpers;
  try {
    while (helpers.size() + 1 < threads) helpers.push_back(std::async(std::launch::async, work));
  } catch (const std::system_error&) {
    // No more threads to be had: the ones started and this one read the rest.
  }
  work();
  for (auto& helper : helpers) helper.get();  // read_entry keeps every exception in its entry
  return read;
}

// The rows of one entry: one per run it holds, or one that says why it holds none.
void add_rows(ClassRuns& out, const ClassEntry& entry, ReadEntry read) {
  if (read.failure) std::rethrow_exception(read.failure);
  GradeRow row;
  row.file = entry.shown;
  row.named_lesson = lesson_named_by(fs::path(entry.path).filename().string());
  if (read.opened) {
    set_student(row, entry, read.owner_uid);
    row.submitted_s = read.changed_s;
  } else if (entry.owner_uid) {
    set_student(row, entry, *entry.owner_uid);
  }
  if (!read.problem.empty()) {
    row.problem = read.problem;
    out.rows.push_back(std::move(row));
    return;
  }
  for (std::size_t k = 0; k < read.runs.size(); ++k) {
    out.runs.push_back(std::move(read.runs[k]));
    GradeRow one = row;
    if (read.runs.size() > 1) one.file = fmt::format("{} [{}]", entry.shown, k + 1);
    one.run = &out.runs.back();
    out.rows.push_back(std::move(one));
  }
}

// The assigned flags of one lesson's section, as the lesson prints them in its runs' params: set
// through the lesson's own flag rows, so "64MiB" and "67108864" are one value.
std::vector<Param> assigned_params(const PresetFile& file, const PresetSection& section, const CourseEntry& entry) {
  const std::unique_ptr<Lesson> lesson = entry.make();
  const std::vector<FlagSpec> specs = lesson->flags();
  std::set<std::string> names;
  for (const auto& v : section.values) {
    const auto spec = std::find_if(specs.begin(), specs.end(), [&](const FlagSpec& f) { return f.name == v.key; });
    if (spec == specs.end()) continue;  // a common flag (strict, lang): no param of the run
    const std::string text = spec->kind == FlagKind::on_off ? (v.text == "true" ? "on" : "off") : v.text;
    const auto error = lesson->set_flag(v.key, text);
    if (!error.empty()) {
      throw UsageError(msg("--config {origin}: {problem}", arg("origin", preset_origin(file, section, v)),
                           arg("problem", msg("--{flag}: {problem}", arg("flag", v.key), arg("problem", error)))));
    }
    names.insert(v.key);
  }
  std::vector<Param> assigned;
  for (const auto& p : lesson->params()) {
    if (names.count(p.name) > 0) assigned.push_back(p);
  }
  return assigned;
}

std::vector<int> assigned_lessons(const PresetFile& file, const ClassSettings& settings) {
  std::set<int> lessons;
  for (const auto& word : settings.lessons) {
    const CourseEntry* e = find_course_entry(word);
    if (e == nullptr) {
      const std::string origin =
          fmt::format("{}:{} [{}] lessons", printable_value(file.path, 200), settings.line, kClassSection);
      throw UsageError(msg("--config {origin}: {problem}", arg("origin", origin),
                           arg("problem", msg("'{lesson}' is not a lesson (01 to {last})", arg("lesson", printable_value(word)),
                                              arg("last", fmt::format("{:02d}", course().back().number))))));
    }
    lessons.insert(e->number);
  }
  return {lessons.begin(), lessons.end()};
}

// The roster file, beside the preset when its path is relative (the two travel together).
std::vector<RosterStudent> read_roster(const std::string& preset_path, const std::string& roster) {
  const std::filesystem::path named(roster);
  const std::string path =
      named.is_absolute() ? roster : (std::filesystem::path(preset_path).parent_path() / named).lexically_normal().string();
  return parse_roster(read_regular_file(path, kMaxRosterBytes, Message("the roster")), roster);
}

}  // namespace

ClassPolicy class_policy(const Invocation& inv) {
  ClassPolicy policy;
  for (const auto& e : course()) policy.lesson_names[e.number] = fmt::format("{:02d} {}", e.number, e.slug);
  for (const auto& e : registered_exercises()) {
    policy.shipped[e.id()] = ClassPolicy::ShippedCode{stripped_source(e.solution), stripped_source(e.starter)};
  }
  if (!inv.presets) return policy;
  const PresetFile& file = *inv.presets;
  if (const ClassSettings* settings = inv.class_settings()) {
    policy.lessons = assigned_lessons(file, *settings);
    policy.build = settings->build;
    policy.gpus = settings->gpus;
    policy.opens = settings->opens;
    policy.due = settings->due;
    policy.grace_minutes = settings->grace_minutes;
    policy.prediction_points = settings->prediction_points;
    policy.extensions = settings->extensions;
    policy.class_seal = settings->class_seal;
    if (!settings->roster.empty()) policy.roster = read_roster(file.path, settings->roster);
  }
  for (const auto& section : file.sections) {
    const CourseEntry* e = find_course_entry(section.name);
    if (e == nullptr || e->make == nullptr || section.name != e->slug) continue;  // [all], [show]
    policy.params[e->number] = assigned_params(file, section, *e);
  }
  return policy;
}

std::string grade_folder(const Invocation& inv) {
  if (!inv.grade_dir.empty()) return inv.grade_dir;
  const std::string drop = drop_folder_path(inv.class_settings());
  if (drop.empty()) {
    throw UsageError("grade: give a folder of runs, or set CUDALAB_CLASS_DIR, or drop = \"DIR\" under [grade] in --config");
  }
  return drop;
}

ClassRuns read_class_runs(const std::string& dir) {
  ClassRuns out;
  const std::vector<ClassEntry> entries = class_entries(dir);
  std::vector<ReadEntry> read = read_entries(entries);
  for (std::size_t i = 0; i < entries.size(); ++i) add_rows(out, entries[i], std::move(read[i]));
  return out;
}

std::optional<int> lesson_named_by(const std::string& file_name) {
  std::set<int> named;
  const std::string stem = fs::path(file_name).stem().string();
  for (const auto& e : course()) {
    if (stem.find(e.slug) != std::string::npos) named.insert(e.number);
  }
  std::size_t start = 0;
  while (start <= stem.size()) {
    const std::size_t end = std::min(stem.find_first_of("-_. ", start), stem.size());
    const std::string token = stem.substr(start, end - start);
    const bool two_digits = token.size() == 2 && std::isdigit(static_cast<unsigned char>(token[0])) &&
                            std::isdigit(static_cast<unsigned char>(token[1]));
    if (const CourseEntry* e = two_digits ? find_course_entry(token) : nullptr) named.insert(e->number);
    start = end + 1;
  }
  return named.size() == 1 ? std::optional<int>(*named.begin()) : std::nullopt;
}

}  // namespace cudalab
