// The unit tests run as the class's cudalab does: holding a class key (a test's own), so a run they
// seal is sealed by the class, and a file that is not says so (common/report/class_seal.hpp).
#include <gtest/gtest.h>

#include "common/report/class_seal.hpp"
#include "test_support.hpp"

namespace {

class TestClassKey : public ::testing::Environment {
 public:
  void SetUp() override { ASSERT_TRUE(cudalab::hold_class_key(cudalab::testing_support::kTestClassKey)); }
  void TearDown() override { cudalab::forget_class_key(); }
};

const auto* const kEnvironment = ::testing::AddGlobalTestEnvironment(new TestClassKey);

}  // namespace
