// `lct info FILE`: byte-identical to `lmcache trace info FILE` (docs/trace-format.md §6.3,
// newest variant: level_meta rows, events block for events-level files).
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_record.h"
#include "fleet/trace/msgpack_value.h"
#include "fleet/util/pyjson.h"
#include "lct.h"

namespace fleet::lct {

namespace {

using Json = nlohmann::ordered_json;

// Python repr() of a decoded msgpack value (for nested level_meta values).
std::string py_repr(const Json& v);

std::string py_str_literal(const std::string& s) {
  // repr(str): single quotes unless the text has a single quote and no double quote.
  bool sq = s.find('\'') != std::string::npos, dq = s.find('"') != std::string::npos;
  char q = sq && !dq ? '"' : '\'';
  std::string out(1, q);
  for (unsigned char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == static_cast<unsigned char>(q))
      out += std::string("\\") + q;
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else
      out += static_cast<char>(c);
  }
  return out + q;
}

// Python str() of a value: strings bare, everything else as repr().
std::string py_str(const Json& v) { return v.is_string() ? v.get<std::string>() : py_repr(v); }

std::string py_repr(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null:
      return "None";
    case Json::value_t::boolean:
      return v.get<bool>() ? "True" : "False";
    case Json::value_t::number_integer:
      return std::to_string(v.get<int64_t>());
    case Json::value_t::number_unsigned:
      return std::to_string(v.get<uint64_t>());
    case Json::value_t::number_float:
      return util::py_float_repr(v.get<double>());
    case Json::value_t::string:
      return py_str_literal(v.get<std::string>());
    case Json::value_t::array: {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + py_repr(v[i]);
      return out + "]";
    }
    case Json::value_t::object: {
      std::string out = "{";
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        out += (first ? "" : ", ") + py_str_literal(it.key()) + ": " + py_repr(it.value());
        first = false;
      }
      return out + "}";
    }
    default:
      return "None";
  }
}

std::string row(int indent, const std::string& label, const std::string& value) {
  std::string l = label + ":";
  if (l.size() < 28) l.append(28 - l.size(), ' ');
  return std::string(static_cast<size_t>(indent), ' ') + l + value + "\n";
}

// The events block of §6.3, accumulated from events.batch / events.lifecycle records.
struct EventsSummary {
  std::map<std::string, std::set<int64_t>> incarnations;  // instance -> incarnations
  std::map<std::tuple<std::string, std::string, std::string, bool>, uint64_t> batches;
  std::map<std::string, uint64_t> entries;
  int64_t store_bytes = 0;
  uint64_t entries_with_tokens = 0;
  uint64_t starts = 0, stops = 0;
  bool any_lifecycle = false;

  static std::string str_or(const Json& m, const char* k, const std::string& dflt) {
    auto it = m.find(k);
    return it != m.end() && it->is_string() ? it->get<std::string>() : dflt;
  }

  void add(std::string_view qualname, const Json& args) {
    if (qualname == "events.lifecycle") {
      any_lifecycle = true;
      std::string phase = str_or(args, "phase", "");
      if (phase == "start") ++starts;
      if (phase == "stop") ++stops;
      return;
    }
    if (qualname != "events.batch") return;
    std::string id = str_or(args, "instance_id", "?");
    auto& inc = incarnations[id];
    auto it = args.find("incarnation");
    if (it != args.end() && it->is_number_integer()) inc.insert(it->get<int64_t>());
    std::string type = str_or(args, "event_type", "?");
    std::string backend = str_or(args, "backend", "");
    auto sh = args.find("shared");
    bool shared = sh != args.end() && sh->is_boolean() && sh->get<bool>();
    ++batches[{type, str_or(args, "tier", "?"), backend.empty() ? "-" : backend, shared}];
    auto en = args.find("entries");
    if (en == args.end() || !en->is_array()) return;
    entries[type] += en->size();
    if (type != "store") return;
    for (const auto& e : *en) {
      if (!e.is_object()) continue;
      auto sb = e.find("size_bytes");
      if (sb != e.end() && sb->is_number_integer()) store_bytes += sb->get<int64_t>();
      auto tk = e.find("token_ids");
      if (tk != e.end() && tk->is_array() && !tk->empty()) ++entries_with_tokens;
    }
  }

  std::string render() const {
    std::string out = "  events:\n";
    out += row(4, "instances", std::to_string(incarnations.size()));
    for (const auto& [id, inc] : incarnations) {
      std::string list = "[";
      bool first = true;
      for (int64_t i : inc) {
        list += (first ? "" : ", ") + std::to_string(i);
        first = false;
      }
      list += "]";
      size_t restarts = inc.empty() ? 0 : inc.size() - 1;
      out +=
          "      " + id + ": incarnations=" + list + " restarts=" + std::to_string(restarts) + "\n";
    }
    out += "    batches (type/tier/backend/shared):\n";
    for (const auto& [k, n] : batches) {
      out += "      " + std::get<0>(k) + "/" + std::get<1>(k) + "/" + std::get<2>(k) + "/" +
             (std::get<3>(k) ? "shared" : "local") + ": " + std::to_string(n) + "\n";
    }
    out += "    entries:\n";
    for (const auto& [t, n] : entries) out += "      " + t + ": " + std::to_string(n) + "\n";
    out += row(4, "store_bytes", std::to_string(store_bytes));
    out += row(4, "entries_with_tokens", std::to_string(entries_with_tokens));
    if (any_lifecycle) {
      out += row(4, "lifecycle",
                 "start=" + std::to_string(starts) + ", stop=" + std::to_string(stops));
    }
    return out;
  }
};

}  // namespace

void print_error(const char* cmd, const std::string& msg) {
  std::fprintf(stderr, "lct %s: error: %s\n", cmd, msg.c_str());
}

std::unique_ptr<trace::FrameReader> open_trace(const char* cmd, const std::string& file,
                                               uint32_t max_frame_mb) {
  trace::ReaderOptions ro;
  ro.max_frame_bytes = max_frame_mb << 20;
  try {
    return std::make_unique<trace::FrameReader>(file, ro);
  } catch (const trace::TraceError& e) {
    print_error(cmd, e.what());
    return nullptr;
  }
}

ExitCode run_info(const std::string& file, uint32_t max_frame_mb) {
  std::unique_ptr<trace::FrameReader> reader = open_trace("info", file, max_frame_mb);
  if (!reader) return ExitCode::kBadInput;
  const trace::Header& h = reader->header();
  if (h.level == trace::kLevelL2) return run_l2_info(file, max_frame_mb);
  bool events = h.level == trace::kLevelEvents;
  std::map<std::string, uint64_t> ops;  // byte order == code-point order for UTF-8
  EventsSummary ev;
  double duration = 0.0;
  bool any = false;
  uint64_t total = 0;
  trace::RecordView rec;
  try {
    while (reader->next(rec)) {
      ++total;
      duration = any ? std::max(duration, rec.t_mono) : rec.t_mono;
      any = true;
      ++ops[std::string(rec.qualname)];
      if (events) {
        trace::MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
        ev.add(rec.qualname, trace::msgpack_to_json(r, trace::BinAs::Hex));
      }
    }
  } catch (const std::exception& e) {
    print_error("info", e.what());
    return ExitCode::kRecordsFailed;
  }

  std::string out = "Trace file: " + file + "\n";
  out += row(2, "level", h.level);
  out += row(2, "format_version", std::to_string(h.format_version));
  out += row(2, "trace_schema_version", std::to_string(h.trace_schema_version));
  char dur[64];
  std::snprintf(dur, sizeof dur, "%.3fs", duration);
  out += row(2, "duration", dur);
  out += row(2, "sm_config_digest", h.sm_config_digest.empty() ? "(none)" : h.sm_config_digest);
  if (h.level_meta.is_object()) {
    std::map<std::string, std::string> meta;  // sorted keys, as Python's sorted()
    for (auto it = h.level_meta.begin(); it != h.level_meta.end(); ++it) {
      meta[it.key()] = py_str(it.value());
    }
    for (const auto& [k, v] : meta) out += row(2, k, v);
  }
  out += row(2, "total_records", std::to_string(total));
  if (ops.empty()) {
    out += "  ops: (none)\n";
  } else {
    out += "  ops:\n";
    for (const auto& [q, n] : ops) out += "    " + q + ": " + std::to_string(n) + "\n";
  }
  if (events) out += ev.render();
  std::fwrite(out.data(), 1, out.size(), stdout);
  return std::fflush(stdout) == 0 ? ExitCode::kOk : ExitCode::kRecordsFailed;
}

}  // namespace fleet::lct
