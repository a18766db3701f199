// One process per GPU without a GPU: the launcher's environment read into a rank, and the
// rendezvous through a folder, with ranks as threads of this test.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/core/errors.hpp"
#include "common/core/rank_environment.hpp"
#include "common/queue/rendezvous.hpp"
#include "common/report/provenance.hpp"
#include "tests/unit/test_support.hpp"

using namespace cudalab;

namespace {

EnvironmentLookup lookup_in(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

std::string usage_error_of(const std::map<std::string, std::string>& vars) {
  try {
    (void)rank_environment(lookup_in(vars));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

struct ExpectedRank {
  int rank, world_size, local_rank;
  std::string source, run_key;
};

void expect_rank(const std::optional<RankEnvironment>& env, const ExpectedRank& want) {
  ASSERT_TRUE(env.has_value());
  EXPECT_EQ(env->rank, want.rank);
  EXPECT_EQ(env->world_size, want.world_size);
  EXPECT_EQ(env->local_rank, want.local_rank);
  EXPECT_EQ(env->source, want.source);
  EXPECT_EQ(env->run_key, want.run_key);
}

}  // namespace

TEST(RankEnvironment, NoLauncherOrOneProcessIsNotARank) {
  EXPECT_FALSE(rank_environment(lookup_in({})).has_value());
  EXPECT_FALSE(rank_environment(lookup_in({{"RANK", "0"}, {"WORLD_SIZE", "1"}})).has_value());
  // A batch script carries SLURM_PROCID and SLURM_NTASKS too, but no job step: one process.
  EXPECT_FALSE(rank_environment(lookup_in({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "2"}, {"SLURM_JOB_ID", "7"}}))
                   .has_value());
}

TEST(RankEnvironment, TorchrunVariables) {
  const auto env = rank_environment(lookup_in(
      {{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29500"}}));
  expect_rank(env, {1, 2, 1, "RANK/WORLD_SIZE", "torch-127.0.0.1-29500--0"});
  // By hand on one host: LOCAL_RANK left out is the rank; CUDALAB_RUN_ID names the run first.
  const auto by_hand = rank_environment(lookup_in({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"CUDALAB_RUN_ID", "my run/1"}}));
  ASSERT_TRUE(by_hand.has_value());
  EXPECT_EQ(by_hand->local_rank, 1);
  EXPECT_EQ(by_hand->run_key, "my_run_1");
}

TEST(RankEnvironment, SlurmJobStep) {
  const auto env = rank_environment(lookup_in({{"SLURM_PROCID", "3"}, {"SLURM_NTASKS", "4"}, {"SLURM_LOCALID", "1"},
                                               {"SLURM_JOB_ID", "812"}, {"SLURM_STEP_ID", "0"}}));
  expect_rank(env, {3, 4, 1, "SLURM_PROCID/SLURM_NTASKS", "slurm-812.0"});
  // torchrun inside an srun task: torchrun's own variables win.
  const auto nested = rank_environment(lookup_in({{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_STEP_ID", "0"},
                                                  {"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}));
  ASSERT_TRUE(nested.has_value());
  EXPECT_EQ(nested->rank, 1);
}

TEST(RankEnvironment, BadValuesAreOneLineNamingTheVariable) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"RANK", "one"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}, "RANK"},
      {{{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}, "RANK"},
      {{{"RANK", "-1"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}, "RANK"},
      {{{"RANK", "0"}}, "WORLD_SIZE"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "0"}}, "WORLD_SIZE"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "99999"}}, "WORLD_SIZE"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "x"}, {"MASTER_PORT", "1"}}, "LOCAL_RANK"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "2"}}, "MASTER_PORT"},
      {{{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "2"}, {"SLURM_STEP_ID", "0"}}, "SLURM_PROCID"},
  };
  for (const auto& [vars, name] : cases) {
    const std::string why = usage_error_of(vars);
    EXPECT_NE(why.find(name), std::string::npos) << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
}

TEST(RankEnvironment, DeviceOfRank) {
  RankEnvironment env;
  env.rank = 1;
  env.world_size = 2;
  env.local_rank = 1;
  EXPECT_EQ(device_of_rank(env, 2), 1);
  EXPECT_EQ(device_of_rank(env, 8), 1);
  EXPECT_EQ(device_of_rank(env, 1), 0);  // one GPU per task: it is device 0 to this process
  env.local_rank = 3;
  EXPECT_THROW(device_of_rank(env, 2), UsageError);
}

// The run a rank makes records the place it measured from: the provenance stamp reads the same
// variables the rank did, torchrun's before srun's, so `grade` and `show` say rank 1 of 2 for
// the rank that measured as rank 1 of 2, and the node and job of the srun task it ran in.
TEST(RankEnvironment, TheRunRecordsTheRankItMeasuredAs) {
  const std::map<std::string, std::string> srun_task = {
      {"SLURM_PROCID", "1"},   {"SLURM_NTASKS", "2"},          {"SLURM_LOCALID", "1"},  {"SLURM_STEP_ID", "0"},
      {"SLURM_JOB_ID", "812"}, {"SLURMD_NODENAME", "gpu-n7"}, {"SLURM_JOB_GPUS", "2,3"}};
  const auto env = rank_environment(lookup_in(srun_task));
  const SchedulerContext s = scheduler_context(lookup_in(srun_task));
  ASSERT_TRUE(env.has_value());
  EXPECT_EQ(s.rank, std::to_string(env->rank));
  EXPECT_EQ(s.world_size, std::to_string(env->world_size));
  EXPECT_EQ(s.local_rank, std::to_string(env->local_rank));
  EXPECT_EQ(s.job_id, "812");
  EXPECT_EQ(s.node, "gpu-n7");
  EXPECT_EQ(s.gpus, "2,3");
  // What `cudalab 10 --ranks 2` gives its second process (cli/ranks.cpp).
  const std::map<std::string, std::string> started = {
      {"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "1"}, {"LOCAL_WORLD_SIZE", "2"}, {"CUDALAB_RUN_ID", "ranks-0a"}};
  const auto child = rank_environment(lookup_in(started));
  const SchedulerContext c = scheduler_context(lookup_in(started));
  ASSERT_TRUE(child.has_value());
  EXPECT_EQ(c.rank, "1");
  EXPECT_EQ(c.world_size, "2");
  EXPECT_EQ(c.local_rank, "1");
  EXPECT_TRUE(c.job_id.empty() && c.node.empty());
  EXPECT_EQ(child->run_key, "ranks-0a");
}

namespace {

// A fresh folder under the test's temporary directory.
std::string fresh_folder(const std::string& name) {
  const std::string path = ::testing::TempDir() + "rdv-" + name + "-" + std::to_string(::getpid());
  std::system(("rm -rf '" + path + "'").c_str());
  return path;
}

RendezvousOptions options_for(const std::string& folder, int rank, int world, double timeout_s = 5) {
  RendezvousOptions o;
  o.folder = folder;
  o.rank = rank;
  o.world_size = world;
  o.timeout_s = timeout_s;
  o.poll_s = 0.005;
  return o;
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST(Rendezvous, RanksTradeIdsAndResults) {
  const std::string folder = fresh_folder("trade");
  constexpr int kWorld = 3;
  std::vector<std::future<std::vector<std::string>>> ranks;
  for (int r = kWorld - 1; r >= 0; --r) {  // rank 0 last: the others wait for it
    ranks.push_back(std::async(std::launch::async, [&folder, r] {
      Rendezvous rdv = Rendezvous::join(options_for(folder, r, kWorld), "GPU-" + std::to_string(r));
      std::vector<std::string> seen = rdv.labels();
      seen.push_back(rdv.broadcast("nccl-id", r == 0 ? "id from rank 0\nwith two lines" : "ignored"));
      rdv.post("turn");
      rdv.wait_for("turn", {0, 1, 2});
      for (auto& v : rdv.gather("result", "result of " + std::to_string(r))) seen.push_back(v);
      return seen;
    }));
  }
  const auto rank2 = ranks[0].get(), rank1 = ranks[1].get(), rank0 = ranks[2].get();
  const std::vector<std::string> labels = {"GPU-0", "GPU-1", "GPU-2"};
  for (const auto* seen : {&rank0, &rank1, &rank2}) {
    EXPECT_EQ(std::vector<std::string>(seen->begin(), seen->begin() + 3), labels);
    EXPECT_EQ((*seen)[3], "id from rank 0\nwith two lines");
  }
  EXPECT_EQ(std::vector<std::string>(rank0.begin() + 4, rank0.end()),
            (std::vector<std::string>{"result of 0", "result of 1", "result of 2"}));
  EXPECT_EQ(std::vector<std::string>(rank1.begin() + 4, rank1.end()), std::vector<std::string>{"result of 1"});
  // Rank 0 cleaned up after the run, folder and all.
  struct stat st {};
  EXPECT_NE(::stat(folder.c_str(), &st), 0);
}

TEST(Rendezvous, StaleFilesOfAnEarlierRunAreNeverTaken) {
  const std::string folder = fresh_folder("stale");
  ASSERT_EQ(::mkdir(folder.c_str(), 0700), 0);
  // An earlier run left everything behind: a hello of rank 1, a member list, an id, a result.
  write_file(folder + "/hello.1", "cudalab-rendezvous hello\nold-nonce\nGPU-old\n");
  write_file(folder + "/members.0", "cudalab-rendezvous members\nold-run\nold0 GPU-old\nold-nonce GPU-old\n");
  write_file(folder + "/nccl-id.0", "cudalab-rendezvous nccl-id\nold-run\nstale id");
  write_file(folder + "/result.1", "cudalab-rendezvous result\nold-run\nstale result");
  auto member = std::async(std::launch::async, [&folder] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));  // arrives after rank 0 saw the stale hello
    Rendezvous rdv = Rendezvous::join(options_for(folder, 1, 2), "GPU-new");
    const std::string id = rdv.broadcast("nccl-id", "");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    (void)rdv.gather("result", "fresh result");
    return id;
  });
  Rendezvous root = Rendezvous::join(options_for(folder, 0, 2), "GPU-0");
  EXPECT_EQ(root.labels()[1], "GPU-new");
  EXPECT_EQ(root.broadcast("nccl-id", "fresh id"), "fresh id");
  EXPECT_EQ(root.gather("result", "mine")[1], "fresh result");
  EXPECT_EQ(member.get(), "fresh id");
}

TEST(Rendezvous, ASilentRankEndsTheWaitInOneLine) {
  const std::string folder = fresh_folder("silent");
  const auto started = std::chrono::steady_clock::now();
  try {
    (void)Rendezvous::join(options_for(folder, 0, 3, 0.3), "GPU-0");
    FAIL() << "joined without ranks 1 and 2";
  } catch (const RendezvousError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("ranks 1, 2 did not check in"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  // A member whose rank 0 never comes says so too.
  EXPECT_THROW((void)Rendezvous::join(options_for(fresh_folder("silent-root"), 1, 2, 0.3), "GPU-1"), RendezvousError);
}

TEST(Rendezvous, WaitForGivesUpOnlyOnARankWithoutSignsOfLife) {
  const std::string folder = fresh_folder("beat");
  auto slow = std::async(std::launch::async, [&folder] {
    Rendezvous rdv = Rendezvous::join(options_for(folder, 1, 2, 0.3), "GPU-1");
    // Waits 0.6 s (twice the timeout) before its turn, beating all along: rank 0 keeps waiting.
    for (int i = 0; i < 60; ++i) {
      rdv.beat();
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    rdv.post("turn");
    return true;
  });
  Rendezvous root = Rendezvous::join(options_for(folder, 0, 2, 0.3), "GPU-0");
  EXPECT_NO_THROW(root.wait_for("turn", {1}));
  EXPECT_TRUE(slow.get());
  // Nobody beats for "never": the wait ends after the timeout, naming the rank.
  try {
    root.wait_for("never", {1});
    FAIL();
  } catch (const RendezvousError& e) {
    EXPECT_NE(std::string(e.what()).find("ranks 1 neither posted never"), std::string::npos) << e.what();
  }
}

TEST(Rendezvous, RefusesAFolderThatIsNotItsOwn) {
  const std::string target = fresh_folder("target");
  ASSERT_EQ(::mkdir(target.c_str(), 0700), 0);
  const std::string link = fresh_folder("link");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  EXPECT_THROW((void)Rendezvous::join(options_for(link, 0, 2, 0.1), "GPU-0"), RendezvousError);
  const std::string file = fresh_folder("file");
  write_file(file, "not a folder");
  EXPECT_THROW((void)Rendezvous::join(options_for(file, 0, 2, 0.1), "GPU-0"), RendezvousError);
}

// ---- the command line, without a GPU ----------------------------------------------------------

namespace {

// Sets the launcher's variables for one test (each test runs in a process of its own).
struct LauncherEnvironment {
  explicit LauncherEnvironment(std::vector<std::pair<const char*, const char*>> vars) : vars_(std::move(vars)) {
    for (const auto& [name, value] : vars_) setenv(name, value, 1);
  }
  ~LauncherEnvironment() {
    for (const auto& [name, value] : vars_) unsetenv(name);
  }
  std::vector<std::pair<const char*, const char*>> vars_;
};

}  // namespace

TEST(RanksCli, LaunchingWithoutAGpuIsWaivedInOneLine) {
  cudalab::testing_support::hide_gpus();
  const auto o = cudalab::testing_support::run_cudalab({"10", "--ranks", "2"});
  EXPECT_EQ(o.code, 77);
  EXPECT_TRUE(cudalab::testing_support::one_line(o.err)) << o.err;
  EXPECT_EQ(o.out, "");
}

TEST(RanksCli, ARankWithoutAGpuIsWaivedBeforeItWaitsForTheOthers) {
  cudalab::testing_support::hide_gpus();
  const LauncherEnvironment env({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"CUDALAB_RUN_ID", "unit-test-no-gpu"}});
  const auto started = std::chrono::steady_clock::now();
  const auto o = cudalab::testing_support::run_cudalab({"10"});
  EXPECT_EQ(o.code, 77) << o.err;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(RanksCli, ALauncherAndRanksThatDisagreeIsAUsageError) {
  cudalab::testing_support::hide_gpus();
  {
    const LauncherEnvironment env({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"CUDALAB_RUN_ID", "unit-test"}});
    const auto o = cudalab::testing_support::run_cudalab({"10", "--ranks", "4"});
    EXPECT_EQ(o.code, 2);
    EXPECT_NE(o.err.find("already rank 0 of 2"), std::string::npos) << o.err;
  }
  {
    const LauncherEnvironment env({{"RANK", "0"}, {"WORLD_SIZE", "2"}});  // nothing names the run
    const auto o = cudalab::testing_support::run_cudalab({"10"});
    EXPECT_EQ(o.code, 2);
    EXPECT_NE(o.err.find("MASTER_PORT"), std::string::npos) << o.err;
    EXPECT_TRUE(cudalab::testing_support::one_line(o.err)) << o.err;
  }
  // A lesson that does not run as ranks ignores the launcher's variables.
  const LauncherEnvironment env({{"RANK", "0"}, {"WORLD_SIZE", "2"}});
  EXPECT_EQ(cudalab::testing_support::run_cudalab({"03"}).code, 77);
}
