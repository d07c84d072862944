// A one-line progress bar on stderr for long work (kiln-run: the weight upload;
// kiln-synth: the file it writes): the bar, bytes done of the total and the rate, redrawn
// in place at most every 100 ms and once at the end, which ends the line. The tools show
// it only on a terminal (kiln-run also with --progress), never with --quiet.
#ifndef KILN_TOOLS_COMMON_PROGRESSBAR_H
#define KILN_TOOLS_COMMON_PROGRESSBAR_H

#include <chrono>
#include <cstdint>
#include <string>

namespace kiln::tools {

class ProgressBar {
public:
  explicit ProgressBar(std::string label);
  void update(uint64_t done, uint64_t total);
  /// The C API's kiln_progress_fn_t: `self` is a ProgressBar.
  static void callback(void *self, uint64_t done, uint64_t total);

private:
  std::string label_;
  std::chrono::steady_clock::time_point start_, lastDraw_;
  bool drawn_ = false, finished_ = false;
};

/// "512 B", "3.2 KiB", "12.0 MiB", "1.5 GiB".
std::string formatBytes(double bytes);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_PROGRESSBAR_H
