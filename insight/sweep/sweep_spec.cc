#include "fleet/insight/sweep/sweep_spec.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

namespace fleet::sweep {

Result<SweepAxis> parse_sweep_axis(const std::string& spec) {
  const size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Status::error("--sweep " + spec + ": expected NAME=V1,V2,... (e.g. l1-size-gb=4,8,16)");
  }
  SweepAxis axis;
  axis.name = spec.substr(0, eq);
  if (axis.name.rfind("--", 0) == 0) axis.name = axis.name.substr(2);
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (size_t i = eq + 1; i < spec.size(); ++i) {
    const char c = spec[i];
    if (quoted) {
      if (c == '\\' && i + 1 < spec.size()) {
        cur += c;
        cur += spec[++i];
        continue;
      }
      quoted = c != '"';
    } else if (c == '"') {
      quoted = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      axis.values.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  axis.values.push_back(cur);
  for (const auto& v : axis.values) {
    if (v.empty()) return Status::error("--sweep " + spec + ": an empty value");
  }
  if (axis.values.size() < 2) {
    return Status::error("--sweep " + spec + ": a sweep needs at least two values");
  }
  return axis;
}

namespace {

bool plain_word(const std::string& v) {
  if (v.empty() || v.size() > 32) return false;
  for (char c : v) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::vector<Variant> expand_grid(const std::vector<SweepAxis>& axes) {
  std::vector<Variant> out(1);
  for (const SweepAxis& a : axes) {
    std::vector<Variant> next;
    for (const Variant& base : out) {
      for (size_t i = 0; i < a.values.size(); ++i) {
        Variant v = base;
        v.values.emplace_back(a.name, a.values[i]);
        const std::string part =
            a.name + (plain_word(a.values[i]) ? "=" + a.values[i] : "#" + std::to_string(i));
        v.label += (v.label.empty() ? "" : ",") + part;
        next.push_back(std::move(v));
      }
    }
    out = std::move(next);
  }
  return out;
}

std::string key_namespace(const Variant& v) {
  std::string ns = "sweep-";
  for (char c : v.label) {
    ns += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '_';
  }
  if (ns.size() <= 64) return ns;
  // Too long: a prefix and a hash of the whole label, so two long labels never share one.
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : v.label) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return ns.substr(0, 64 - 17) + "-" + hex;
}

Result<SweepGoal> parse_sweep_goal(const std::string& spec) {
  SweepGoal g;
  const size_t colon = spec.rfind(':');
  g.metric = colon == std::string::npos ? spec : spec.substr(0, colon);
  if (g.metric.empty()) return Status::error("--sweep-goal " + spec + ": no metric");
  const bool latency =
      g.metric.find(".p") != std::string::npos && g.metric.find("rate") == std::string::npos;
  g.maximize = !latency && g.metric.find("miss") == std::string::npos;
  if (colon != std::string::npos) {
    const std::string dir = spec.substr(colon + 1);
    if (dir != "max" && dir != "min") {
      return Status::error("--sweep-goal " + spec + ": '" + dir + "' is not max or min");
    }
    g.maximize = dir == "max";
  }
  return g;
}

}  // namespace fleet::sweep
