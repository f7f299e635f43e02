#include "fleet/util/json_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fleet::util {

nlohmann::json parse_json_bounded(const std::string& text, const std::string& what) {
  // The parser recurses per level: refuse depth before it recurses too far.
  const nlohmann::json::parser_callback_t limit = [&](int depth, nlohmann::json::parse_event_t,
                                                      nlohmann::json&) {
    if (depth > kMaxJsonDepth) {
      throw std::runtime_error(what + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                               " levels");
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, limit);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(what + ": not valid JSON: " + e.what());
  }
}

nlohmann::json read_json_file(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw std::runtime_error(path + ": cannot read: " + ec.message());
  if (size > kMaxJsonFileBytes) {
    throw std::runtime_error(path + ": " + std::to_string(size) + " bytes, more than the " +
                             std::to_string(kMaxJsonFileBytes) + " a JSON file may have here");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_json_bounded(ss.str(), path);
}

}  // namespace fleet::util
