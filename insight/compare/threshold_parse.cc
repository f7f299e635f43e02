// --fail-on's grammar (threshold.h). Every error quotes the token it is about, so a typo in a
// CI pipeline's flag is found from the message alone.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "fleet/insight/compare/threshold.h"

namespace fleet::compare {

namespace {

constexpr const char* kOpStats[] = {"p50", "p90", "p99", "mean", "count", "errors"};
constexpr const char* kCacheRates[] = {"l1_hit_rate", "l2_hit_rate", "l1_l2_hit_rate", "miss_rate"};
constexpr const char* kLatenessStats[] = {"p50", "p99", "max"};

template <size_t N>
bool one_of(const std::string& s, const char* const (&names)[N]) {
  for (const char* n : names) {
    if (s == n) return true;
  }
  return false;
}

template <size_t N>
std::string listed(const char* const (&names)[N]) {
  std::string out;
  for (const char* n : names) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

[[noreturn]] void fail(const std::string& expression, const std::string& why) {
  throw ThresholdError("--fail-on '" + expression + "': " + why);
}

bool is_operator_char(char c) { return c == '<' || c == '>' || c == '=' || c == '!'; }

void parse_metric(Threshold& t) {
  const std::string& m = t.metric;
  for (char c : m) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      fail(t.text,
           "metric '" + m + "' contains a space (write <op>.<stat>, e.g. finish_write.p99)");
    }
  }
  if (m == "failed") {
    t.family = Threshold::Family::kFailed;
    return;
  }
  if (m == "records_per_s") {
    t.family = Threshold::Family::kRecordsPerS;
    return;
  }
  const size_t dot = m.rfind('.');
  if (dot == std::string::npos) {
    fail(t.text, "unknown metric '" + m +
                     "' (expected <op>.<stat>, cache.<rate>, lateness.<stat>, failed or "
                     "records_per_s)");
  }
  const std::string head = m.substr(0, dot);
  t.stat = m.substr(dot + 1);
  if (head == "cache") {
    t.family = Threshold::Family::kCache;
    if (!one_of(t.stat, kCacheRates)) {
      fail(t.text,
           "unknown cache rate '" + t.stat + "' in '" + m + "' (" + listed(kCacheRates) + ")");
    }
    return;
  }
  if (head == "lateness") {
    t.family = Threshold::Family::kLateness;
    if (!one_of(t.stat, kLatenessStats)) {
      fail(t.text, "unknown lateness statistic '" + t.stat + "' in '" + m + "' (" +
                       listed(kLatenessStats) + ")");
    }
    return;
  }
  t.family = Threshold::Family::kOp;
  t.op_name = head;
  if (head.empty()) fail(t.text, "metric '" + m + "' has no op name before '." + t.stat + "'");
  if (!one_of(t.stat, kOpStats)) {
    fail(t.text, "unknown statistic '" + t.stat + "' in '" + m + "' (" + listed(kOpStats) + ")");
  }
}

void parse_value(Threshold& t, std::string text, const std::string& op_token) {
  if (text.empty()) fail(t.text, "missing VALUE after '" + op_token + "'");
  if (text.back() == '%') {
    t.percent = true;
    text = trim(text.substr(0, text.size() - 1));
    if (text.empty()) fail(t.text, "'%' without a number before it");
  }
  const size_t space = text.find_first_of(" \t");
  if (space != std::string::npos) {
    fail(t.text, "unexpected '" + trim(text.substr(space)) + "' after the value '" +
                     text.substr(0, space) + "'");
  }
  char* end = nullptr;
  t.value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !std::isfinite(t.value)) {
    fail(t.text, "'" + text + (t.percent ? "%" : "") +
                     "' is not a number or a percentage (e.g. 0.5, -0.02, +10%)");
  }
}

}  // namespace

bool Threshold::on_b_value() const {
  if (percent) return false;
  return family == Family::kFailed || (family == Family::kL2 && l2_counter) ||
         (family == Family::kOp && (stat == "count" || stat == "errors"));
}

Threshold parse_threshold(const std::string& text) {
  return parse_threshold_with(text, parse_metric);
}

Threshold parse_threshold_with(const std::string& text,
                               const std::function<void(Threshold&)>& check_metric) {
  Threshold t;
  t.text = trim(text);
  if (t.text.empty()) throw ThresholdError("--fail-on: empty expression (e.g. 'failed > 0')");
  size_t at = 0;
  while (at < t.text.size() && !is_operator_char(t.text[at])) ++at;
  if (at == t.text.size()) {
    fail(t.text, "no comparison operator (>, <, >= or <=) in '" + t.text + "'");
  }
  size_t end = at;
  while (end < t.text.size() && is_operator_char(t.text[end])) ++end;
  const std::string op_token = t.text.substr(at, end - at);
  if (op_token == ">") {
    t.op = Threshold::Op::kGreater;
  } else if (op_token == "<") {
    t.op = Threshold::Op::kLess;
  } else if (op_token == ">=") {
    t.op = Threshold::Op::kGreaterEqual;
  } else if (op_token == "<=") {
    t.op = Threshold::Op::kLessEqual;
  } else {
    fail(t.text, "unknown operator '" + op_token + "' (use >, <, >= or <=)");
  }
  t.metric = trim(t.text.substr(0, at));
  if (t.metric.empty()) fail(t.text, "missing METRIC before '" + op_token + "'");
  check_metric(t);
  parse_value(t, trim(t.text.substr(end)), op_token);
  return t;
}

}  // namespace fleet::compare
