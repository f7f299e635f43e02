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

Result<nlohmann::json> read_json_file(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return Status::error(path + ": cannot read: " + ec.message());
  if (size > kMaxJsonFileBytes) {
    return Status::error(path + ": " + std::to_string(size) + " bytes, more than the " +
                         std::to_string(kMaxJsonFileBytes) + " a JSON file may have here");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open: " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_bounded(ss.str(), path);
}

}  // namespace fleet::util
