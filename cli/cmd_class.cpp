// `cudalab class check`: what an instructor runs, as a student would, after installing the class's
// cudalab (docs/grade.md, "The class seal"). It says whether this process read the class key,
// gave up the group it was installed with, and cannot be ptraced or read by its user, each a line
// the kernel vouches for (/proc/self/status, prctl), and whether the user who runs it can read the
// key file itself, which a student must not. It reads nothing of the user's.
#include <sys/prctl.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <string>

#include "cli/commands.hpp"
#include "cli/flags.hpp"
#include "cli/help_format.hpp"
#include "common/core/errors.hpp"
#include "common/core/text_format.hpp"
#include "common/report/class_seal.hpp"
#include "common/report/translate.hpp"

namespace cudalab {

namespace {

// The "Gid:" line of /proc/self/status: real, effective, saved and filesystem gid, as the kernel
// holds them; "" when it cannot be read.
std::string kernel_gids() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Gid:", 0) == 0) return line.substr(4);
  }
  return {};
}

// Whether every id of the line is `gid`.
bool all_are(const std::string& ids, gid_t gid) {
  std::size_t count = 0, start = 0;
  while ((start = ids.find_first_not_of(" \t", start)) != std::string::npos) {
    const std::size_t end = std::min(ids.find_first_of(" \t", start), ids.size());
    if (ids.substr(start, end - start) != std::to_string(gid)) return false;
    ++count;
    start = end;
  }
  return count == 4;
}

}  // namespace

void setup_class(CLI::App& app, CommandSetup& setup) {
  CLI::App* sub = app.add_subcommand("class", "check the class's install as a student sees it (docs/grade.md)");
  sub->footer(help_footer());
  sub->add_option_function<std::string>(
         "ACTION", [setup](const std::string& action) { setup.inv.class_action = action; },
         "check (the only one, and the default): whether this cudalab holds the class key, gave up its group and cannot be read by its user")
      ->check(CLI::IsMember({"check"}))
      ->type_name("check");
  add_common_options(*sub, setup.inv.flags, {"lang", "color"});
  sub->callback([setup, sub] {
    setup.inv.command = Command::class_check;
    setup.parsed = sub;
  });
}

int run_class(const Invocation& inv) {
  const Lang lang = inv.output.lang();
  const auto say = [&](const char* label, const Message& what) {
    std::cout << pad_right(tr(lang, label), 12) << ' ' << tr(lang, what) << '\n';
  };
  const std::string key_id = held_class_key_id();
  const MessageArg file = arg("file", printable_value(class_key_path()));
  say("class key", key_id.empty() ? msg("none held: {why}", arg("why", class_key_problem()))
                                  : msg("{file}: held, key {key}", file, arg("key", key_id)));
  const std::string gids = kernel_gids();
  const bool dropped = all_are(gids, ::getgid());
  say("group", dropped ? msg("given up: every gid of this process is {gid}, the user's own", arg("gid", static_cast<long long>(::getgid())))
                       : msg("NOT given up: the kernel says Gid:{gids}", arg("gids", printable_value(gids))));
  const bool dumpable = ::prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) != 0;
  say("memory", dumpable ? Message("readable: this user's other processes may ptrace this one or read its memory")
                         : Message("not dumpable: no other process of this user may ptrace it or read its memory"));
  const bool user_reads_key = ::access(class_key_path().c_str(), R_OK) == 0;
  say("you", user_reads_key ? msg("can read {file} yourself: right for the instructor, wrong for a student", file)
                            : msg("cannot read {file} yourself, as a student must not", file));
  const bool sound = !key_id.empty() && dropped && !dumpable;
  if (!sound) {
    std::cerr << tr(lang, "cudalab: class check: this install cannot seal runs for the class (docs/grade.md)") << '\n';
  }
  return to_int(sound ? ExitCode::success : ExitCode::verify_failed);
}

}  // namespace cudalab
