// A stand-in for `cudalab 03 --json FILE [--submit]` on a machine without a GPU, for the class
// grading test (tests/class_grade_test.sh). TEST ONLY: the lesson is the fake one
// (fake_lesson.hpp, computed from its flags) and the GPU is a made-up one; everything after the
// lesson is the real code of a lesson run: the class key taken at start, the provenance stamp
// (this process's uid, host, a fresh run id, the scheduler's environment), the class seal and
// digest (seal), the JSON form, and the hand-in to the drop folder. `--build` stands for the cudalab build that made the run, so a test can
// make the run of a class's build, and of a build with uncommitted changes.
//   cudalab_class_fake --json FILE [--lesson NN] [--streams N] [--build VERSION] [--submit DIR]
//   cudalab_class_fake --reseal FILE   what a student's script does to a run it edited: the digest
//                                      computed again (it has no key), the class seal left as it is
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>

#include "cli/drop_folder.hpp"
#include "common/core/errors.hpp"
#include "common/core/version.hpp"
#include "common/report/class_seal.hpp"
#include "common/report/integrity.hpp"
#include "common/report/provenance.hpp"
#include "common/report/report_json.hpp"
#include "fake_lesson.hpp"

namespace {

using namespace cudalab;

constexpr const char* kFakeGpu = "GPU-fa4e0000-0000-0000-0000-000000000000";

struct Options {
  std::string json_path, lesson = "03", streams = "4", build = kToolVersion, submit_dir;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string_view flag(argv[i]);
    std::string& value = flag == "--json"      ? o.json_path
                         : flag == "--lesson"  ? o.lesson
                         : flag == "--streams" ? o.streams
                         : flag == "--build"   ? o.build
                         : flag == "--submit"  ? o.submit_dir
                                               : throw UsageError("unknown flag " + std::string(flag));
    value = argv[i + 1];
  }
  if (o.json_path.empty()) throw UsageError("--json FILE is required");
  return o;
}

Report fake_run(const Options& o) {
  const CourseEntry* entry = find_course_entry(o.lesson);
  if (entry == nullptr) throw UsageError("no lesson " + o.lesson);
  auto lesson = testing_support::make_fake_lesson();
  const Message error = lesson->set_flag("streams", o.streams);
  if (!error.empty()) throw UsageError(msg("--streams: {problem}", arg("problem", error)));
  Report report = lesson->run(RunContext{});
  report.tool_version = o.build;
  report.recorded_at = utc_timestamp_now();
  report.lesson_number = entry->number;
  report.lesson_slug = entry->slug;
  report.lesson_title = Message(entry->title.en);
  report.devices.push_back(DeviceSummary{0, "cudalab test GPU (fake)", 9, 0, 132, 3});
  stamp_provenance(report, {kFakeGpu});  // the real stamp
  seal(report);                          // the real digest
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  // As cudalab's own main(): the class key first (a setgid copy of this binary reads it), then the
  // group is given up, and the run is sealed by the class when a key is held.
  if (const Message failed = take_class_key_at_start(true); !failed.empty()) {
    std::fprintf(stderr, "cudalab_class_fake: %s\n", failed.en().c_str());
    return 3;
  }
  try {
    if (argc == 3 && std::string_view(argv[1]) == "--reseal") {
      std::ifstream in(argv[2]);
      nlohmann::json run = nlohmann::json::parse(in);
      run["digest"] = run_digest(run);
      std::ofstream(argv[2]) << run.dump(2) << "\n";
      return 0;
    }
    const Options o = parse(argc, argv);
    const Report report = fake_run(o);
    const std::string text = report_to_json(report).dump(2) + "\n";
    std::ofstream(o.json_path) << text;
    if (!o.submit_dir.empty()) {
      const std::string name = hand_in(o.submit_dir, text, report);
      std::cout << handed_in_line(report, name, o.submit_dir) << '\n';
    }
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "cudalab_class_fake: %s\n", e.what());
    return 2;
  }
}
