// The class's checks on each row of `cudalab grade`, and the gradebook they fill (class_checks.hpp).
#include "common/grading/class_checks.hpp"

#include <algorithm>
#include <ctime>
#include <set>

#include <fmt/format.h>

#include "common/grading/copies.hpp"
#include "common/grading/source_copies.hpp"

namespace cudalab {

namespace {

// "03 stream-overlap": data.
std::string lesson_text(const Report& r) { return fmt::format("{:02d} {}", r.lesson_number, r.lesson_slug); }

bool counts(const GradeRow& row) { return row.run != nullptr && !row.superseded; }

// What two runs share (copies.hpp, shared_mark): one of its three fixed phrases, words.
Message mark_words(const std::string& mark) { return Message(mark); }

std::string two_digits(int lesson) { return fmt::format("{:02d}", lesson); }

void mark_superseded(std::vector<GradeRow>& rows) {
  std::map<std::pair<std::string, int>, std::size_t> latest;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    GradeRow& row = rows[i];
    if (row.run == nullptr || row.student.empty()) continue;
    const auto [it, fresh] = latest.emplace(std::make_pair(row.student, row.run->report.lesson_number), i);
    if (fresh) continue;
    GradeRow& other = rows[it->second];
    const bool newer = row.submitted_s > other.submitted_s || (row.submitted_s == other.submitted_s && row.file > other.file);
    (newer ? other : row).superseded = true;
    if (newer) it->second = i;
  }
}

// Each counting row that shares a mark (copies.hpp) with a row of another student.
void flag_shared_runs(std::vector<GradeRow>& rows) {
  std::vector<RunMarks> marks(rows.size());
  std::map<std::string, std::vector<std::size_t>> by_mark;  // "kind:value" -> rows
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].run == nullptr) continue;
    marks[i] = marks_of(rows[i].run->report);
    for (const auto& [kind, value] : {std::pair{"id", marks[i].run_id}, std::pair{"digest", marks[i].digest},
                                      std::pair{"samples", marks[i].measurements}}) {
      if (!value.empty()) by_mark[std::string(kind) + ":" + value].push_back(i);
    }
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!counts(rows[i])) continue;
    std::set<std::size_t> others;
    for (const auto& key : {"id:" + marks[i].run_id, "digest:" + marks[i].digest, "samples:" + marks[i].measurements}) {
      const auto found = by_mark.find(key);
      if (found == by_mark.end()) continue;
      for (const std::size_t j : found->second) {
        const bool same_student = !rows[i].student.empty() && rows[j].student == rows[i].student;
        if (j != i && !same_student) others.insert(j);
      }
    }
    for (const std::size_t j : others) {
      const MessageArg mark = arg("mark", mark_words(shared_mark(marks[i], marks[j])));
      const MessageArg file = arg("file", rows[j].file);
      rows[i].flags.push_back(rows[j].student.empty()
                                  ? msg("the same run as {file} ({mark})", file, mark)
                                  : msg("the same run as {file}, handed in by {student} ({mark})", file,
                                        arg("student", rows[j].student), mark));
    }
  }
}

// Each counting exercise run whose source, comments and whitespace aside, is the shipped solution or
// a classmate's counting source (both rows: which of two students wrote it, no file can tell).
void flag_shared_sources(std::vector<GradeRow>& rows, const ClassPolicy& policy) {
  std::vector<std::string> stripped(rows.size());
  std::map<std::string, std::vector<std::size_t>> by_source;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!counts(rows[i]) || !rows[i].run->report.exercise) continue;
    const ExerciseRecord& code = *rows[i].run->report.exercise;
    stripped[i] = stripped_source(code.source);
    const auto shipped = policy.shipped.find(code.id);
    if (shipped != policy.shipped.end() && stripped[i] == shipped->second.starter) continue;
    if (shipped != policy.shipped.end() && stripped[i] == shipped->second.solution) {
      rows[i].flags.push_back(msg("its source is the solution cudalab ships for exercise {exercise}, comments and "
                                  "whitespace aside",
                                  arg("exercise", code.id)));
    }
    by_source[code.id + '\n' + stripped[i]].push_back(i);
  }
  for (const auto& [source, same] : by_source) {
    for (const std::size_t i : same) {
      for (const std::size_t j : same) {
        if (j == i || (!rows[i].student.empty() && rows[j].student == rows[i].student)) continue;
        const MessageArg file = arg("file", rows[j].file);
        rows[i].flags.push_back(rows[j].student.empty()
                                    ? msg("its source is the same as {file}'s, comments and whitespace aside", file)
                                    : msg("its source is the same as {file}'s, handed in by {student}, comments and "
                                          "whitespace aside",
                                          file, arg("student", rows[j].student)));
      }
    }
  }
}

// "" or why the lesson is not the one the file's name names or the class assigns.
void flag_lesson(GradeRow& row, const ClassPolicy& policy) {
  const Report& r = row.run->report;
  if (row.named_lesson && *row.named_lesson != r.lesson_number) {
    row.flags.push_back(msg("its name says lesson {named}, but it holds lesson {lesson}",
                            arg("named", two_digits(*row.named_lesson)), arg("lesson", lesson_text(r))));
  }
  const auto& assigned = policy.lessons;
  if (!assigned.empty() && std::find(assigned.begin(), assigned.end(), r.lesson_number) == assigned.end()) {
    std::string list;  // "03, 05": lesson numbers, data
    for (const int n : assigned) list += (list.empty() ? "" : ", ") + two_digits(n);
    row.flags.push_back(msg("lesson {lesson} is not assigned (the class assigns {assigned})", arg("lesson", lesson_text(r)),
                            arg("assigned", list)));
  }
}

void flag_maker(GradeRow& row) {
  const Report& r = row.run->report;
  if (!r.provenance) {
    row.flags.push_back("it does not say who made it or where (made by a build from before runs recorded it)");
    return;
  }
  const Provenance& p = *r.provenance;
  // "alice (uid 1001)", or "uid 1001" for a uid the password database does not name.
  const auto who = [](const std::string& name, long long uid) {
    return name.rfind("uid ", 0) == 0 ? verbatim(name) : msg("{user} (uid {uid})", arg("user", name), arg("uid", uid));
  };
  if (row.owner_uid && p.uid != *row.owner_uid) {
    row.flags.push_back(msg("made by {maker}, handed in by {student}", arg("maker", who(p.user, p.uid)),
                            arg("student", who(row.student, *row.owner_uid))));
  }
}

void flag_params(GradeRow& row, const ClassPolicy& policy) {
  const Report& r = row.run->report;
  const auto assigned = policy.params.find(r.lesson_number);
  if (assigned == policy.params.end()) return;
  for (const auto& want : assigned->second) {
    const auto got = std::find_if(r.params.begin(), r.params.end(), [&](const Param& p) { return p.name == want.name; });
    const std::string value = got == r.params.end() ? "—" : got->value;
    if (value != want.value) {
      row.flags.push_back(msg("param {name}={value}, not the assigned {assigned}", arg("name", want.name),
                              arg("value", value), arg("assigned", want.value)));
    }
  }
}

void flag_build(GradeRow& row, const ClassPolicy& policy) {
  const std::string& version = row.run->report.tool_version;
  constexpr std::string_view kDirty = "-dirty";
  const bool dirty = version.size() >= kDirty.size() && version.compare(version.size() - kDirty.size(), kDirty.size(), kDirty) == 0;
  if (dirty) row.flags.push_back(msg("made by a build with uncommitted changes ({version})", arg("version", version)));
  if (!policy.build.empty() && version != policy.build) {
    row.flags.push_back(msg("made by cudalab {version}, not the class's {build}", arg("version", version),
                            arg("build", policy.build)));
  }
}

bool listed(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Inside the class's list when every device's name is listed, or every GPU it measured on is
// listed by UUID.
void flag_gpus(GradeRow& row, const ClassPolicy& policy) {
  if (policy.gpus.empty()) return;
  const Report& r = row.run->report;
  const bool names = !r.devices.empty() && std::all_of(r.devices.begin(), r.devices.end(), [&](const DeviceSummary& d) {
    return listed(policy.gpus, d.name);
  });
  const std::vector<std::string> uuids = r.provenance ? r.provenance->gpu_uuids : std::vector<std::string>{};
  const bool by_uuid = !uuids.empty() && std::all_of(uuids.begin(), uuids.end(), [&](const std::string& u) { return listed(policy.gpus, u); });
  if (names || by_uuid) return;
  std::string gpus;  // device names and UUIDs, data
  for (const auto& d : r.devices) gpus += (gpus.empty() ? "" : " + ") + d.name;
  for (const auto& u : uuids) gpus += (gpus.empty() ? "" : ", ") + u;
  row.flags.push_back(msg("made on {gpus}, not one of the class's GPUs",
                          arg("gpus", gpus.empty() ? Message("no GPU it names") : verbatim(gpus))));
}

// Runs record their time as "YYYY-MM-DDTHH:MM:SSZ", which orders as text.
bool utc_time(const std::string& t) {
  if (t.size() != 20 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':' || t[19] != 'Z') return false;
  for (const std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18}) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  return true;
}

// Seconds since the epoch of a time in that form.
double seconds_of(const std::string& t) {
  std::tm tm{};
  tm.tm_year = std::stoi(t.substr(0, 4)) - 1900, tm.tm_mon = std::stoi(t.substr(5, 2)) - 1, tm.tm_mday = std::stoi(t.substr(8, 2));
  tm.tm_hour = std::stoi(t.substr(11, 2)), tm.tm_min = std::stoi(t.substr(14, 2)), tm.tm_sec = std::stoi(t.substr(17, 2));
  return static_cast<double>(::timegm(&tm));
}

std::string utc_text(double seconds) {
  const auto whole = static_cast<std::time_t>(seconds);
  std::tm tm{};
  ::gmtime_r(&whole, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// The student's due time: their extension, else the class's ("" for none).
const std::string& due_for(const GradeRow& row, const ClassPolicy& policy) {
  const auto extension = policy.extensions.find(row.student);
  return extension != policy.extensions.end() ? extension->second : policy.due;
}

void flag_seal(GradeRow& row, const ClassPolicy& policy) {
  if (policy.class_seal && !row.run->class_seal.sealed()) row.flags.push_back(row.run->class_seal.describe());
}

// Made inside the dates (the run's own time, which its seal covers), and handed in by the due time
// plus the grace, by the kernel's clock (GradeRow::submitted_s): late is flagged with the time.
void flag_dates(GradeRow& row, const ClassPolicy& policy) {
  const std::string& due = utc_time(due_for(row, policy)) ? due_for(row, policy) : policy.due;
  const MessageArg due_arg = arg("due", due);
  const bool extended = policy.extensions.count(row.student) > 0;
  const double until = utc_time(due) ? seconds_of(due) + 60.0 * policy.grace_minutes : 0;
  if (!policy.opens.empty() || !due.empty()) {
    const std::string& made = row.run->report.recorded_at;
    if (!utc_time(made)) {
      row.flags.push_back(msg("its time '{time}' is not a UTC time, so it cannot be held to the dates", arg("time", made)));
    } else if (!policy.opens.empty() && made < policy.opens) {
      row.flags.push_back(msg("made {time}, before the assignment opened at {opens}", arg("time", made),
                              arg("opens", policy.opens)));
    } else if (utc_time(due) && seconds_of(made) > until) {
      row.flags.push_back(extended ? msg("made {time}, after the extension to {due}", arg("time", made), due_arg)
                                   : msg("made {time}, after it was due at {due}", arg("time", made), due_arg));
    }
  }
  if (utc_time(due) && row.submitted_s > until) {
    const MessageArg handed = arg("time", utc_text(row.submitted_s));
    row.flags.push_back(extended ? msg("handed in {time}, after the extension to {due}", handed, due_arg)
                                 : msg("handed in {time}, after it was due at {due}", handed, due_arg));
  }
}

}  // namespace

void check_class_runs(std::vector<GradeRow>& rows, const ClassPolicy& policy) {
  mark_superseded(rows);
  for (auto& row : rows) {
    if (!counts(row)) continue;
    if (const auto copy = copied_reference(row.run->report)) {
      row.flags.push_back(msg("a copy of the built-in reference run {reference} ({mark})", arg("reference", copy->reference),
                              arg("mark", mark_words(copy->mark))));
    }
  }
  flag_shared_runs(rows);
  flag_shared_sources(rows, policy);
  for (auto& row : rows) {
    if (!counts(row)) continue;
    flag_lesson(row, policy);
    flag_maker(row);
    flag_params(row, policy);
    flag_build(row, policy);
    flag_gpus(row, policy);
    flag_dates(row, policy);
    flag_seal(row, policy);
  }
}

const GradeRow* Gradebook::cell(const std::string& student, int lesson) const {
  const auto found = cells.find({student, lesson});
  return found == cells.end() ? nullptr : found->second;
}

std::string Gradebook::lesson_name(int lesson) const {
  const auto found = lesson_names.find(lesson);
  return found != lesson_names.end() ? found->second : two_digits(lesson);
}

std::size_t Gradebook::passed(const std::string& student) const {
  std::size_t n = 0;
  for (const int lesson : lessons) {
    const GradeRow* row = cell(student, lesson);
    n += row != nullptr && grade_passes(*row) ? 1 : 0;
  }
  return n;
}

Gradebook make_gradebook(const std::vector<GradeRow>& rows, const ClassPolicy& policy) {
  Gradebook book;
  book.lessons = policy.lessons;
  book.lesson_names = policy.lesson_names;
  book.prediction_points = policy.prediction_points;
  std::set<std::string> students;
  std::set<int> seen;
  for (const auto& row : rows) {
    if (!counts(row) || row.student.empty()) continue;
    const Report& r = row.run->report;
    students.insert(row.student);
    seen.insert(r.lesson_number);
    book.cells[{row.student, r.lesson_number}] = &row;
    book.lesson_names.emplace(r.lesson_number, lesson_text(r));
  }
  if (book.lessons.empty()) book.lessons.assign(seen.begin(), seen.end());
  for (const auto& s : policy.roster) {
    students.insert(s.user);
    book.roster.emplace(s.user, s);
  }
  book.students.assign(students.begin(), students.end());
  return book;
}

std::vector<std::pair<std::string, std::vector<int>>> Gradebook::missing() const {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  for (const auto& [user, student] : roster) {
    std::vector<int> lacking;
    for (const int lesson : lessons) {
      if (cell(user, lesson) == nullptr) lacking.push_back(lesson);
    }
    if (!lacking.empty()) out.emplace_back(user, std::move(lacking));
  }
  return out;
}

}  // namespace cudalab
