#include "fleet/trace/l2_record.h"

#include <array>

namespace fleet::trace {

namespace {
constexpr std::array<std::string_view, kL2KindCount - 1> kQualnames = {
    "l2.store.submitted",       "l2.store.completed",     "l2.lookup_task.submitted",
    "l2.lookup_task.completed", "l2.load_task.submitted", "l2.load_task.completed",
    "l2.unlock.submitted",      "l2.delete.submitted",    "l2.trace.end"};
}  // namespace

std::string_view l2_qualname(L2Kind k) {
  const auto i = static_cast<size_t>(k);
  return i < kQualnames.size() ? kQualnames[i] : std::string_view();
}

L2Kind l2_kind_from_qualname(std::string_view qualname) {
  // Every record is classified: the candidate is picked by length and the fourth letter from the
  // end (a 't' in "submitted", an 'e' in "completed"), so one compare decides instead of nine.
  auto is = [&](L2Kind k) { return qualname == kQualnames[static_cast<size_t>(k)]; };
  auto one_of = [&](L2Kind submitted, L2Kind completed) {
    const L2Kind k = qualname[qualname.size() - 4] == 't' ? submitted : completed;  // "tted"
    return is(k) ? k : L2Kind::Unknown;
  };
  switch (qualname.size()) {
    case 18:
      return one_of(L2Kind::StoreSubmitted, L2Kind::StoreCompleted);
    case 24:
      return one_of(L2Kind::LookupSubmitted, L2Kind::LookupCompleted);
    case 22:
      return one_of(L2Kind::LoadSubmitted, L2Kind::LoadCompleted);
    case 19:
      if (is(L2Kind::UnlockSubmitted)) return L2Kind::UnlockSubmitted;
      return is(L2Kind::DeleteSubmitted) ? L2Kind::DeleteSubmitted : L2Kind::Unknown;
    case 12:
      return is(L2Kind::TraceEnd) ? L2Kind::TraceEnd : L2Kind::Unknown;
    default:
      return L2Kind::Unknown;
  }
}

L2Op l2_op_of(L2Kind k) {
  switch (k) {
    case L2Kind::StoreSubmitted:
    case L2Kind::StoreCompleted:
      return L2Op::Store;
    case L2Kind::LookupSubmitted:
    case L2Kind::LookupCompleted:
      return L2Op::LookupTask;
    case L2Kind::LoadSubmitted:
    case L2Kind::LoadCompleted:
      return L2Op::LoadTask;
    case L2Kind::UnlockSubmitted:
      return L2Op::Unlock;
    case L2Kind::DeleteSubmitted:
      return L2Op::Delete;
    default:
      return L2Op::None;
  }
}

std::string_view l2_op_name(L2Op op) {
  switch (op) {
    case L2Op::Store:
      return "store";
    case L2Op::LookupTask:
      return "lookup_task";
    case L2Op::LoadTask:
      return "load_task";
    case L2Op::Unlock:
      return "unlock";
    case L2Op::Delete:
      return "delete";
    case L2Op::None:
      break;
  }
  return "none";
}

bool is_l2_submission(L2Kind k) {
  return k == L2Kind::StoreSubmitted || k == L2Kind::LookupSubmitted ||
         k == L2Kind::LoadSubmitted || k == L2Kind::UnlockSubmitted || k == L2Kind::DeleteSubmitted;
}

bool is_l2_completion(L2Kind k) {
  return k == L2Kind::StoreCompleted || k == L2Kind::LookupCompleted || k == L2Kind::LoadCompleted;
}

std::string_view L2Record::qualname() const {
  return kind == L2Kind::Unknown ? std::string_view(unknown_qualname) : l2_qualname(kind);
}

int64_t L2Record::object_bytes() const {
  int64_t sum = 0;
  for (int64_t s : object_sizes) sum += s;
  return sum;
}

}  // namespace fleet::trace
