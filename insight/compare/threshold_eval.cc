// Checking parsed thresholds against a Comparison: which quantity a threshold compares (B's
// value, the change, or the relative change), whether the change is significant, and a message
// that says what was compared and by how much.
#include "fleet/insight/compare/threshold.h"
#include "number_text.h"

namespace fleet::compare {

namespace {

const char* op_text(Threshold::Op op) {
  switch (op) {
    case Threshold::Op::kGreater:
      return ">";
    case Threshold::Op::kLess:
      return "<";
    case Threshold::Op::kGreaterEqual:
      return ">=";
    case Threshold::Op::kLessEqual:
      break;
  }
  return "<=";
}

bool holds(double observed, Threshold::Op op, double limit) {
  switch (op) {
    case Threshold::Op::kGreater:
      return observed > limit;
    case Threshold::Op::kLess:
      return observed < limit;
    case Threshold::Op::kGreaterEqual:
      return observed >= limit;
    case Threshold::Op::kLessEqual:
      break;
  }
  return observed <= limit;
}

// The op a threshold names: its qualname, else its short name, else a dotted suffix of one
// qualname (`StorageManager.finish_write`).
const OpComparison& find_op(const Threshold& t, const Comparison& c) {
  for (const OpComparison& op : c.ops) {
    if (op.qualname == t.op_name) return op;
  }
  for (const auto& matches :
       {+[](const OpComparison&op, const std::string&name) { return op.short_name == name; },
        +[](const OpComparison&op, const std::string&name) {
          return op.qualname.size() > name.size() && op.qualname.ends_with("." + name);
        }}) {
    std::vector<const OpComparison*> found;
    for (const OpComparison& op : c.ops) {
      if (matches(op, t.op_name)) found.push_back(&op);
    }
    if (found.size() == 1) return *found.front();
    if (found.size() > 1) {
      std::string names;
      for (const auto* op : found) names += "\n  " + op->qualname;
      throw ThresholdError("--fail-on '" + t.text + "': op '" + t.op_name +
                           "' is ambiguous; write one of the qualnames:" + names);
    }
  }
  std::string known;
  for (const OpComparison& op : c.ops) known += (known.empty() ? "" : ", ") + op.short_name;
  throw ThresholdError(
      "--fail-on '" + t.text + "': no op '" + t.op_name + "' in either run" +
      (known.empty() ? std::string(" (they recorded none)") : " (ops: " + known + ")"));
}

const Change* find_metric(const Threshold& t, const Comparison& c) {
  switch (t.family) {
    case Threshold::Family::kOp:
      return find_change(find_op(t, c).stats, t.stat);
    case Threshold::Family::kCache:
      return find_change(c.cache, t.stat);
    case Threshold::Family::kLateness:
      return find_change(c.lateness, t.stat);
    case Threshold::Family::kFailed:
      return find_change(c.records, "failed");
    case Threshold::Family::kRecordsPerS:
    case Threshold::Family::kL2:  // evaluate_l2's (an L2 run's thresholds never reach here)
      break;
  }
  return find_change(c.records, "records_per_s");
}

std::string unit_of(const Threshold& t) {
  if (t.family == Threshold::Family::kOp && t.stat != "count" && t.stat != "errors") return " ms";
  if (t.family == Threshold::Family::kLateness) return " us";
  if (t.family == Threshold::Family::kRecordsPerS) return " records/s";
  return "";
}

std::string interval_text(const Interval& i, const std::string& unit) {
  return "[" + number_text(i.low, true) + ", " + number_text(i.high, true) + "]" + unit;
}

// The quantity a threshold compares (relative change in %, B's value, or the change) and how
// it and the limit read in a message; no value when a side lacks the metric.
struct Observed {
  std::optional<double> value;
  std::string text, limit;
};

Observed observe(const Threshold& t, const Change& change, const std::string& unit) {
  Observed o;
  if (t.percent) {
    if (const auto r = change.relative()) {
      o.value = *r * 100;
      o.text = percent_text(*r);
    }
    o.limit = percent_text(t.value / 100);
  } else if (t.on_b_value()) {
    o.value = change.b;
    if (o.value) o.text = "B " + number_text(*o.value);
    o.limit = number_text(t.value);
  } else {
    if (change.comparable()) {
      o.value = change.delta();
      o.text = "change " + number_text(*o.value, true) + unit;
    }
    o.limit = number_text(t.value, true) + unit;
  }
  return o;
}

}  // namespace

ThresholdOutcome evaluate(const Threshold& t, const Comparison& c, bool strict) {
  return evaluate_change(t, find_metric(t, c), unit_of(t), strict);
}

ThresholdOutcome evaluate_change(const Threshold& t, const Change* change, const std::string& unit,
                                 bool strict) {
  ThresholdOutcome out;
  out.expression = t.text;
  const std::string values =
      change ? "A " + number_text(change->a) + ", B " + number_text(change->b) + unit : "";
  const Observed o = change ? observe(t, *change, unit) : Observed{};
  const std::optional<double>& observed = o.value;
  const std::string& observed_text = o.text;
  const std::string& limit_text = o.limit;
  if (!observed) {
    out.message = t.text + ": not evaluated: " +
                  (change ? values + " (a side lacks the metric)" : "neither run has it");
    return out;
  }
  out.evaluated = true;
  const bool crossed = holds(*observed, t.op, t.value);
  const std::string compared = observed_text + " " + op_text(t.op) + " " + limit_text;
  // A change inside its own noise does not fail a pipeline unless asked to (--strict).
  const bool noise = !t.on_b_value() && change->significance() == Significance::kNotSignificant;
  const std::string ci =
      change->ci ? ", 95 % CI of the change " + interval_text(*change->ci, unit) : "";
  if (crossed && noise && !strict) {
    out.not_significant = true;
    out.message = t.text + ": not counted: " + compared + " (" + values + ci +
                  " contains 0: no significant change; --strict counts it)";
    return out;
  }
  out.crossed = crossed;
  const double margin = *observed - t.value;
  const std::string by = " by " + number_text(margin, true) + (t.percent ? " points" : unit);
  out.message = t.text +
                (crossed ? ": CROSSED: " + compared + by
                         : ": ok: " + observed_text + ", not " + op_text(t.op) + " " + limit_text) +
                " (" + values + ci + ")";
  return out;
}

std::vector<ThresholdOutcome> evaluate_all(const std::vector<Threshold>& thresholds,
                                           const Comparison& c, bool strict) {
  std::vector<ThresholdOutcome> out;
  for (const Threshold& t : thresholds) out.push_back(evaluate(t, c, strict));
  return out;
}

}  // namespace fleet::compare
