#include "request_lists.h"

namespace fleet::l2replay::detail {

namespace {

bool has_request(L2Op op) {
  return op == L2Op::LookupTask || op == L2Op::LoadTask || op == L2Op::Unlock;
}

size_t slot_hash(int64_t request_id) {
  const uint64_t h = static_cast<uint64_t>(request_id) * 0x9E3779B97F4A7C15ull;
  return static_cast<size_t>(h ^ (h >> 32));
}

}  // namespace

RequestLists::RequestLists(const L2Plan& plan) : request_of_(plan.ops.size(), UINT32_MAX) {
  // First pass: each op's request and the lists' lengths.
  std::vector<uint32_t>& lookup_n = lookups_.at;
  std::vector<uint32_t>& load_n = loads_.at;
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    const L2PlanOp& op = plan.ops[i];
    if (!has_request(op.op)) continue;
    const uint32_t r = request_of_[i] = index_of(op.request_id);
    if (r + 2 > lookup_n.size()) lookup_n.resize(r + 2, 0), load_n.resize(r + 2, 0);
    lookup_n[r + 1] += op.op == L2Op::LookupTask;
    load_n[r + 1] += op.op == L2Op::LoadTask;
  }
  lookup_n.resize(requests_ + 1, 0), load_n.resize(requests_ + 1, 0);
  for (uint32_t r = 1; r <= requests_; ++r)
    lookup_n[r] += lookup_n[r - 1], load_n[r] += load_n[r - 1];
  // Second pass: the lists, in file order.
  lookups_.ops.resize(lookups_.at.back());
  loads_.ops.resize(loads_.at.back());
  std::vector<uint32_t> lookup_fill(lookups_.at.begin(), lookups_.at.end() - 1);
  std::vector<uint32_t> load_fill(loads_.at.begin(), loads_.at.end() - 1);
  for (uint32_t i = 0; i < plan.ops.size(); ++i) {
    const L2Op op = plan.ops[i].op;
    if (op == L2Op::LookupTask) lookups_.ops[lookup_fill[request_of_[i]]++] = i;
    if (op == L2Op::LoadTask) loads_.ops[load_fill[request_of_[i]]++] = i;
  }
  slots_ = {};  // the index is not needed once the lists are built
}

uint32_t RequestLists::index_of(int64_t request_id) {
  if ((requests_ + 1) * 2 > slots_.size()) grow();
  for (size_t s = slot_hash(request_id) & mask_;; s = (s + 1) & mask_) {
    Slot& slot = slots_[s];
    if (slot.index_plus_1 == 0) {
      slot = {request_id, ++requests_};
      return requests_ - 1;
    }
    if (slot.request_id == request_id) return slot.index_plus_1 - 1;
  }
}

void RequestLists::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  for (const Slot& o : old) {
    if (o.index_plus_1 == 0) continue;
    size_t s = slot_hash(o.request_id) & mask_;
    while (slots_[s].index_plus_1 != 0) s = (s + 1) & mask_;
    slots_[s] = o;
  }
}

}  // namespace fleet::l2replay::detail
