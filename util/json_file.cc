#include "fleet/util/json_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fleet::util {

namespace {

// Thrown by the parser's callback to stop it before it recurses deeper, and caught in
// parse_json_bounded: nlohmann's callback has no other way to abort the parse.
struct TooDeep {};

}  // namespace

Result<nlohmann::json> parse_json_bounded(const std::string& text, const std::string& what) {
  // The parser recurses per level: refuse depth before it recurses too far.
  const nlohmann::json::parser_callback_t limit = [](int depth, nlohmann::json::parse_event_t,
                                                     nlohmann::json&) {
    if (depth > kMaxJsonDepth) throw TooDeep{};
    return true;
  };
  try {
    return nlohmann::json::parse(text, limit);
  } catch (const TooDeep&) {
    return Status::error(what + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                         " levels");
  } catch (const nlohmann::json::exception& e) {
    return Status::error(what + ": not valid JSON: " + e.what());
  }
}

Status check_regular_file(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) return Status::error(path + ": cannot read: " + ec.message());
  if (!std::filesystem::is_regular_file(status))
    return Status::error(path + ": not a regular file (a FIFO, a device or a directory)");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Status::error(path + ": cannot read: " + ec.message());
  if (size > max_bytes) {
    return Status::error(path + ": " + std::to_string(size) + " bytes, more than the " +
                         std::to_string(max_bytes) + " such a file may have here");
  }
  return Status();
}

Result<nlohmann::json> read_json_file(const std::string& path) {
  if (Status s = check_regular_file(path, kMaxJsonFileBytes); !s) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open: " + std::strerror(errno));
  std::string text;  // read once, straight into the string the parser takes
  std::error_code ec;
  text.resize(static_cast<size_t>(std::filesystem::file_size(path, ec)));
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return parse_json_bounded(text, path);
}

}  // namespace fleet::util
