// What Engine::counters() returns: an insertion-ordered list of named values, without JSON
// (docs/engine.md § Counters). A value is a bool, a signed or unsigned integer, a double, a
// string, a nested group (a JSON object at the edge) or a list of groups (an array of objects).
// Integers keep their signedness and doubles stay doubles, so to_json() (counters_json.h)
// produces exactly the JSON the engines used to build directly.
#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace fleet::engine {

class Counters {
 public:
  struct Entry;
  using List = std::vector<Counters>;

  // Appends `name` (names are unique within a group; adding one twice keeps the first position
  // and the last value, as assigning a JSON key twice does).
  void add(std::string name, bool v);
  template <std::integral T>
  requires(!std::same_as<T, bool>) void add(std::string name, T v) {
    if constexpr (std::is_signed_v<T>) {
      put(std::move(name), static_cast<int64_t>(v));
    } else {
      put(std::move(name), static_cast<uint64_t>(v));
    }
  }
  void add(std::string name, double v);
  void add(std::string name, std::string v);
  void add(std::string name, std::string_view v) { add(std::move(name), std::string(v)); }
  void add(std::string name, const char* v) { add(std::move(name), std::string(v)); }
  void add(std::string name, Counters group);
  void add(std::string name, List groups);

  const std::vector<Entry>& entries() const { return entries_; }
  // The entry named `name`, or nullptr.
  const Entry* find(std::string_view name) const;
  // Defined after Entry: clang instantiates vector<Entry>'s constexpr members where they are
  // used, and Entry is incomplete inside the class.
  bool empty() const;
  size_t size() const;

 private:
  template <class V>
  void put(std::string name, V v);
  std::vector<Entry> entries_;
};

struct Counters::Entry {
  using Value = std::variant<bool, int64_t, uint64_t, double, std::string, Counters, List>;
  std::string name;
  Value value;
};

template <class V>
void Counters::put(std::string name, V v) {
  for (auto& e : entries_) {
    if (e.name == name) {
      e.value = std::move(v);
      return;
    }
  }
  entries_.push_back(Entry{std::move(name), Entry::Value(std::move(v))});
}

inline void Counters::add(std::string name, bool v) { put(std::move(name), v); }
inline void Counters::add(std::string name, double v) { put(std::move(name), v); }
inline void Counters::add(std::string name, std::string v) { put(std::move(name), std::move(v)); }
inline void Counters::add(std::string name, Counters group) {
  put(std::move(name), std::move(group));
}
inline void Counters::add(std::string name, List groups) {
  put(std::move(name), std::move(groups));
}

inline bool Counters::empty() const { return entries_.empty(); }
inline size_t Counters::size() const { return entries_.size(); }

inline const Counters::Entry* Counters::find(std::string_view name) const {
  for (const auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace fleet::engine
