// kiln-run end to end: a plan and weights written by the test, run through the CLI,
// its printed tokens and log-probabilities compared exactly.
#include "TestPlan.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sys/wait.h>
#include <fstream>

namespace kiln::test {
namespace {

// Runs `command`, returns stdout; `exitCode` gets the shell's status.
std::string run(const std::string &command, int &exitCode) {
  std::string output;
  FILE *pipe = popen(command.c_str(), "r");
  if (!pipe)
    return output;
  char buffer[512];
  while (size_t n = fread(buffer, 1, sizeof(buffer), pipe))
    output.append(buffer, n);
  int status = pclose(pipe);
  exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return output;
}

std::string writePlan(const std::string &dir) {
  std::vector<uint8_t> bytes = buildPlan(chainPlan());
  std::string path = dir + "/chain.kplan";
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
  return path;
}

TEST(KilnRunTest, GeneratesTheChainPlansTokens) {
  std::string dir = tempDir();
  std::string plan = writePlan(dir), weights = writeChainWeights(dir);
  int exitCode = -1;
  std::string output = run(std::string(KILN_RUN_PATH) + " " + plan + " --weights " + weights +
                               " --prompt 1,2 --max-new 3 --print-logprobs --stats 2>/dev/null",
                           exitCode);
  EXPECT_EQ(exitCode, 0);
  // s[7] accumulates 2*(8*1.25 + position) + token: 21, +24 (prompt), +31, +33.
  EXPECT_EQ(output, "7,7,7\n"
                    "token 7 logprob 45.000000\n"
                    "token 7 logprob 76.000000\n"
                    "token 7 logprob 109.000000\n");
}

// The weight upload's bar: on stderr only when forced (stderr is a pipe here), drawn
// last at 100% with the file's bytes (w: 32, x: 16), the line ended; --quiet wins.
TEST(KilnRunTest, ProgressBarOnlyWhenForced) {
  std::string dir = tempDir();
  std::string plan = writePlan(dir), weights = writeChainWeights(dir);
  std::string command = std::string(KILN_RUN_PATH) + " " + plan + " --weights " + weights +
                        " --prompt 1,2 --max-new 2";
  int exitCode = -1;
  std::string forced = run(command + " --progress 2>&1 >/dev/null", exitCode);
  EXPECT_EQ(exitCode, 0);
  const std::string last =
      "\rkiln-run: weights [########################] 100%  48 B / 48 B  ";
  ASSERT_NE(forced.rfind(last), std::string::npos) << forced;
  EXPECT_EQ(forced.substr(0, forced.find('[')), "\rkiln-run: weights ");
  EXPECT_EQ(forced.back(), '\n');
  EXPECT_EQ(run(command + " 2>&1 >/dev/null", exitCode), "");
  EXPECT_EQ(run(command + " --progress --quiet 2>&1 >/dev/null", exitCode), "");
  EXPECT_EQ(exitCode, 0);
}

TEST(KilnRunTest, MismatchedWeightsExitNonZeroWithOneMessage) {
  std::string dir = tempDir();
  std::string plan = writePlan(dir);
  std::string weights = writeVectorWeights(dir, std::vector<float>(8, 0)); // has no "x"
  int exitCode = -1;
  std::string output = run(std::string(KILN_RUN_PATH) + " " + plan + " --weights " + weights +
                               " --prompt 1 2>&1",
                           exitCode);
  EXPECT_EQ(exitCode, 1);
  EXPECT_EQ(output, "kiln-run: error: NOT_FOUND: weights '" + weights +
                        "': tensor 'x' (plan weights[1]) is missing\n");
}

} // namespace
} // namespace kiln::test
