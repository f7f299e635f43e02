// Headless Chromium for the report tests: open a local HTML file and read back the DOM after its
// scripts ran, or take a screenshot. Each run gets its own HOME and profile directory (parallel
// runs never share a profile) and is killed after a deadline. When no browser is installed or
// it cannot start, `available` is false with the reason, so a test can GTEST_SKIP with it.
#pragma once

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "process_util.h"

namespace fleet::test {

struct BrowserCheck {
  bool available = false;
  std::string skip_reason;  // why the browser could not be used (when !available)
  std::string dom;          // the serialized DOM after the page's scripts ran
  std::string stderr_text;  // Chromium's own stderr: mostly noise, useful when a test fails
};

struct BrowserOptions {
  int width = 1400;
  int height = 4000;
  std::chrono::seconds timeout{60};
};

// The first of $FLEET_CHROMIUM, chromium, chromium-browser, google-chrome found on PATH; "".
inline std::string find_chromium() {
  if (const char* forced = std::getenv("FLEET_CHROMIUM"); forced && *forced) return forced;
  const char* path = std::getenv("PATH");
  for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
    std::istringstream dirs(path ? path : "/usr/bin:/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
      std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

struct BrowserRun {
  std::optional<int> exit_code;  // nullopt: killed at the deadline
  std::string out;
  std::string err;
};

// Runs chromium headless on `url` with `extra` flags; stdout/stderr captured.
inline BrowserRun run_chromium(const std::string& binary, const std::string& url,
                               const std::vector<std::string>& extra,
                               const BrowserOptions& options) {
  // A short name, not the test's: the browser binds TMPDIR/org.chromium.Chromium.XXXXXX/
  // SingletonSocket, and a unix socket's path must fit in 108 bytes.
  ScratchDir home("chromium");
  // env(1) gives the browser its own HOME and TMPDIR without touching this process's
  // environment: its temp files (org.chromium.Chromium.*) go with the directory, also when the
  // browser is killed at the deadline.
  std::vector<std::string> argv = {
      "/usr/bin/env",
      "HOME=" + home.path().string(),
      "TMPDIR=" + home.path().string(),
      binary,
      "--headless",
      "--no-sandbox",  // needed as root, harmless otherwise
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-extensions",
      "--disable-background-networking",
      "--allow-file-access-from-files",
      "--hide-scrollbars",
      "--user-data-dir=" + home / "profile",
      "--virtual-time-budget=5000",
      "--window-size=" + std::to_string(options.width) + "," + std::to_string(options.height)};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back(url);
  Process browser(argv, home.path().string(), "chromium");
  BrowserRun run;
  run.exit_code = browser.wait_exit(options.timeout);
  browser.kill_group(SIGKILL);  // also reaps renderer processes left behind
  run.out = browser.out();
  run.err = browser.err();
  return run;
}

inline std::string file_url(const std::string& path) {
  return "file://" + std::filesystem::absolute(path).string();
}

// The browser, once it proved it can start (dumping about:blank); "" and `why` otherwise.
inline std::string usable_chromium(std::string* why) {
  static const std::pair<std::string, std::string> probe = [] {
    std::string binary = find_chromium();
    if (binary.empty()) {
      return std::pair<std::string, std::string>{
          "", "no chromium, chromium-browser or google-chrome on PATH (set FLEET_CHROMIUM)"};
    }
    BrowserRun run = run_chromium(binary, "about:blank", {"--dump-dom"}, {});
    if (run.exit_code != 0 || run.out.find("<body") == std::string::npos) {
      std::string tail = run.err.size() > 600 ? run.err.substr(run.err.size() - 600) : run.err;
      return std::pair<std::string, std::string>{
          "", binary + " cannot start (exit " +
                  (run.exit_code ? std::to_string(*run.exit_code) : std::string("timeout")) +
                  "): " + tail};
    }
    return std::pair<std::string, std::string>{binary, ""};
  }();
  if (why) *why = probe.second;
  return probe.first;
}

// Opens `html_path` and returns the DOM after its scripts ran (--dump-dom).
inline BrowserCheck open_in_browser(const std::string& html_path,
                                    const BrowserOptions& options = {}) {
  BrowserCheck check;
  std::string binary = usable_chromium(&check.skip_reason);
  if (binary.empty()) return check;
  check.available = true;
  BrowserRun run = run_chromium(binary, file_url(html_path), {"--dump-dom"}, options);
  check.dom = run.out;
  check.stderr_text = run.err;
  if (!run.exit_code) check.stderr_text += "\n[killed after the deadline]";
  return check;
}

// Saves a PNG of `html_path` (options.width x options.height). False with `why` on failure,
// including when no browser is usable.
inline bool screenshot(const std::string& html_path, const std::string& png_path, std::string* why,
                       const BrowserOptions& options = {}) {
  std::string binary = usable_chromium(why);
  if (binary.empty()) return false;
  std::error_code ec;
  std::filesystem::remove(png_path, ec);
  BrowserRun run =
      run_chromium(binary, file_url(html_path),
                   {"--screenshot=" + std::filesystem::absolute(png_path).string()}, options);
  const std::string png = read_file(png_path);
  if (png.size() > 8 && png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0) return true;
  if (why)
    *why = "no PNG written (exit " +
           (run.exit_code ? std::to_string(*run.exit_code) : std::string("timeout")) +
           "): " + run.err.substr(run.err.size() > 600 ? run.err.size() - 600 : 0);
  return false;
}

// --- Reading the dumped DOM (Chromium serializes attributes as name="value") ---------------

// The value of attribute `name` on <body>, or nullopt.
inline std::optional<std::string> body_attribute(const std::string& dom, const std::string& name) {
  size_t body = dom.find("<body");
  if (body == std::string::npos) return std::nullopt;
  size_t end = dom.find('>', body);
  std::string tag = dom.substr(body, end == std::string::npos ? std::string::npos : end - body);
  size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) return std::nullopt;
  at += name.size() + 3;
  return tag.substr(at, tag.find('"', at) - at);
}

// The raw content of the element with id `id` up to its first nested tag or end tag: the text
// of a leaf element such as <pre id="report-errors">. nullopt when there is no such element.
inline std::optional<std::string> element_text(const std::string& dom, const std::string& id) {
  size_t at = dom.find(" id=\"" + id + "\"");
  if (at == std::string::npos) return std::nullopt;
  size_t start = dom.find('>', at);
  if (start == std::string::npos) return std::nullopt;
  ++start;
  return dom.substr(start, dom.find('<', start) - start);
}

// Rows (<tr) in <tbody id="id">; -1 when there is no such tbody.
inline int tbody_row_count(const std::string& dom, const std::string& id) {
  size_t start = dom.find("<tbody id=\"" + id + "\"");
  if (start == std::string::npos) return -1;
  size_t end = dom.find("</tbody>", start);
  int rows = 0;
  for (size_t at = dom.find("<tr", start); at < end; at = dom.find("<tr", at + 1)) ++rows;
  return rows;
}

}  // namespace fleet::test
