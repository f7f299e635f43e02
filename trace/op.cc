#include "fleet/trace/op.h"

#include "fleet/trace/format.h"
#include "fleet/trace/key_parts.h"

namespace fleet::trace {

namespace {
struct KindInfo {
  OpKind kind;
  std::string_view short_name;
  std::string_view qualname;
};
constexpr KindInfo kKinds[] = {
    {OpKind::ReserveWrite, "reserve_write", kQualReserveWrite},
    {OpKind::FinishWrite, "finish_write", kQualFinishWrite},
    {OpKind::AbortWrite, "abort_write", kQualAbortWrite},
    {OpKind::SubmitPrefetch, "submit_prefetch_task", kQualSubmitPrefetch},
    {OpKind::ReadEnter, "read_prefetched_results.enter", kQualReadEnter},
    {OpKind::ReadExit, "read_prefetched_results.exit", kQualReadExit},
    {OpKind::FinishRead, "finish_read_prefetched", kQualFinishRead},
};
}  // namespace

std::string_view op_kind_name(OpKind k) {
  for (const auto& i : kKinds)
    if (i.kind == k) return i.short_name;
  return "unknown";
}

OpKind op_kind_from_qualname(std::string_view q) {
  // All known qualnames share the StorageManager prefix; compare the tail only.
  if (q.size() <= kQualPrefix.size() || q.substr(0, kQualPrefix.size()) != kQualPrefix) {
    return OpKind::Unknown;
  }
  // The prefix matched: compare only the tails, and only where the lengths agree.
  const std::string_view tail = q.substr(kQualPrefix.size());
  for (const auto& i : kKinds) {
    const std::string_view known = i.qualname.substr(kQualPrefix.size());
    if (known.size() == tail.size() && same_bytes(known.data(), tail.data(), tail.size()))
      return i.kind;
  }
  return OpKind::Unknown;
}

std::string_view Op::qualname() const {
  for (const auto& i : kKinds)
    if (i.kind == kind) return i.qualname;
  return unknown_qualname;
}

}  // namespace fleet::trace
