#include "fleet/l2replay/l2_plan_digest.h"

#include <algorithm>
#include <variant>
#include <vector>

#include "fleet/util/pyjson.h"
#include "fleet/util/sha256.h"

namespace fleet::l2replay {

namespace {

// A JSON list of strings and ints. std::vector's < orders it as Python orders lists (element by
// element, a prefix first); a str is never compared with an int, as every item's first element
// is a str and names its shape.
using Item = std::vector<std::variant<std::string, int64_t>>;

void append_item(std::string& out, const Item& item) {
  out += '[';
  for (size_t i = 0; i < item.size(); ++i) {
    if (i) out += ',';
    if (const auto* s = std::get_if<std::string>(&item[i])) {
      util::append_py_json_string(out, *s);
    } else {
      out += std::to_string(std::get<int64_t>(item[i]));
    }
  }
  out += ']';
}

std::string dumps_sorted(std::vector<std::vector<Item>> items) {
  std::sort(items.begin(), items.end());
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    if (items[i].size() == 1) {  // a flat item
      append_item(out, items[i][0]);
      continue;
    }
    out += '[';
    for (size_t j = 0; j < items[i].size(); ++j) {
      if (j) out += ',';
      append_item(out, items[i][j]);
    }
    out += ']';
  }
  return out + "]";
}

Item task_item(const L2PlanOp& op) {
  return {std::string(trace::l2_op_name(op.op)), op.adapter_index, op.task_id};
}

std::string hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

}  // namespace

std::string edge_list_json(const L2Plan& plan) {
  std::vector<std::vector<Item>> items;
  for (const L2PlanOp& op : plan.ops) {
    const Item dependent = op.op == L2Op::Unlock
                               ? Item{std::string("unlock"), static_cast<int64_t>(op.sequence)}
                               : task_item(op);
    for (uint32_t d : plan.deps(op)) items.push_back({dependent, task_item(plan.ops[d])});
  }
  return dumps_sorted(std::move(items));
}

std::string prepare_keys_json(const L2Plan& plan) {
  std::vector<std::vector<Item>> items;
  for (const L2PreparedObject& p : plan.prepare) {
    const trace::ObjectKey& k = p.key;
    items.push_back({Item{hex(k.chunk_hash.view()), k.model_name.str(), k.kv_rank,
                          k.object_group_id, k.cache_salt.str(), static_cast<int64_t>(p.size)}});
  }
  return dumps_sorted(std::move(items));
}

std::string edge_list_sha256(const L2Plan& plan) { return util::sha256_hex(edge_list_json(plan)); }

std::string prepare_keys_sha256(const L2Plan& plan) {
  return util::sha256_hex(prepare_keys_json(plan));
}

}  // namespace fleet::l2replay
