#include "ProgressBar.h"

#include <cstdio>

namespace kiln::tools {

std::string formatBytes(double bytes) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (bytes >= 1024.0 && unit < 4) {
    bytes /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof(text), unit ? "%.1f %s" : "%.0f %s", bytes, units[unit]);
  return text;
}

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)), start_(std::chrono::steady_clock::now()) {}

void ProgressBar::callback(void *self, uint64_t done, uint64_t total) {
  static_cast<ProgressBar *>(self)->update(done, total);
}

void ProgressBar::update(uint64_t done, uint64_t total) {
  if (finished_ || total == 0)
    return;
  const auto now = std::chrono::steady_clock::now();
  const bool last = done >= total;
  if (drawn_ && !last && now - lastDraw_ < std::chrono::milliseconds(100))
    return;
  drawn_ = true;
  finished_ = last;
  lastDraw_ = now;
  constexpr int kWidth = 24;
  const double fraction = last ? 1.0 : static_cast<double>(done) / static_cast<double>(total);
  const int filled = static_cast<int>(fraction * kWidth);
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '.');
  // Trailing spaces clear what a longer earlier line left.
  std::fprintf(stderr, "\r%s [%s] %3d%%  %s / %s  %s/s   %s", label_.c_str(), bar.c_str(),
               static_cast<int>(fraction * 100.0), formatBytes(static_cast<double>(done)).c_str(),
               formatBytes(static_cast<double>(total)).c_str(),
               formatBytes(seconds > 0 ? static_cast<double>(done) / seconds : 0.0).c_str(),
               last ? "\n" : "");
  std::fflush(stderr);
}

} // namespace kiln::tools
