#include "fleet/trace/key_parts.h"

#include <mutex>
#include <stdexcept>
#include <unordered_set>

namespace fleet::trace {

namespace {

struct SymbolTable {
  std::mutex mu;
  std::unordered_set<std::string> strings;  // node-based: element addresses are stable
};

SymbolTable& table() {
  static auto* t = new SymbolTable();  // never destroyed: Symbols may outlive static teardown
  return *t;
}

}  // namespace

// Constant-initialised where the compiler can (GCC); clang 14 cannot constant-evaluate
// libstdc++ 12's empty std::string, so there it is initialised before main, dynamically: no
// Symbol is read during static initialisation.
#if defined(__clang__)
const std::string Symbol::kEmpty;
#else
constinit const std::string Symbol::kEmpty;
#endif

const std::string* Symbol::try_intern(std::string_view v) {
  // Keys of one record (and usually of a whole trace) share their model name: a per-thread
  // last-hit cache skips the lock and the hash for them.
  thread_local const std::string* last = nullptr;
  if (v.empty()) return &empty_string();
  if (last && *last == v) return last;
  SymbolTable& t = table();
  std::lock_guard lock(t.mu);
  auto it = t.strings.find(std::string(v));
  if (it == t.strings.end()) {
    if (t.strings.size() >= kMaxSymbols) return nullptr;
    it = t.strings.emplace(v).first;
  }
  last = &*it;
  return last;
}

const std::string* Symbol::intern(std::string_view v) {
  const std::string* s = try_intern(v);
  if (!s)
    throw std::length_error("more than " + std::to_string(kMaxSymbols) +
                            " distinct model names / cache salts");
  return s;
}

bool Symbol::try_assign_slow(std::string_view v) {
  const std::string* s = try_intern(v);
  if (!s) return false;
  s_ = s;
  return true;
}

size_t Symbol::interned_count() {
  SymbolTable& t = table();
  std::lock_guard lock(t.mu);
  return t.strings.size();
}

std::string operator+(const std::string& a, const Symbol& b) { return a + b.str(); }
std::string operator+(const char* a, const Symbol& b) { return a + b.str(); }

void ChunkHash::assign_slow(std::string_view bytes) {
  if (bytes.size() <= kInline) {
    // `bytes` may point into our own heap buffer (self-assignment through a view).
    char tmp[kInline];
    std::memcpy(tmp, bytes.data(), bytes.size());
    release();
    std::memcpy(inline_, tmp, bytes.size());
    size_ = static_cast<uint32_t>(bytes.size());
    return;
  }
  if (bytes.size() > UINT32_MAX) throw std::length_error("chunk hash longer than 4 GiB");
  char* buf = new char[bytes.size()];
  std::memcpy(buf, bytes.data(), bytes.size());
  release();
  heap_ = buf;
  size_ = static_cast<uint32_t>(bytes.size());
}

void ChunkHash::append(size_t n, char c) {
  std::string s(view());
  s.append(n, c);
  assign(s);
}

}  // namespace fleet::trace
