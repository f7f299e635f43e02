// The two value types an ObjectKey is made of, chosen so that decoding, copying, hashing and
// comparing a key never allocates on the replay's hot path:
//  * Symbol — an interned, immutable string (model names and cache salts repeat on every key
//    of a trace): copying is a pointer copy, equality a pointer comparison;
//  * ChunkHash — a byte string stored inline up to 32 bytes (LMCache's hashes are 4–32 bytes),
//    on the heap beyond that, so no length is ever rejected.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "fleet/util/fixed_bytes.h"

namespace fleet::trace {

using util::same_bytes;

class Symbol {
 public:
  // Distinct strings a process may intern; a hostile trace that names more model names or
  // salts than this gets a decode error (the record is skipped), not unbounded memory.
  static constexpr size_t kMaxSymbols = 1u << 20;

  Symbol() : s_(&kEmpty) {}
  Symbol(std::string_view v) : s_(intern(v)) {}           // NOLINT: implicit, like std::string
  Symbol(const char* v) : Symbol(std::string_view(v)) {}  // NOLINT
  Symbol(const std::string& v) : Symbol(std::string_view(v)) {}  // NOLINT
  // Interns `v` unless the table is full; false then (and *this unchanged). Re-assigning the
  // value a key already holds (the decoder reuses its keys record after record) is one compare.
  bool try_assign(std::string_view v) {
    if (s_->size() == v.size() && same_bytes(s_->data(), v.data(), v.size())) return true;
    return try_assign_slow(v);
  }

  operator std::string_view() const { return *s_; }  // NOLINT
  const std::string& str() const { return *s_; }
  const char* data() const { return s_->data(); }
  size_t size() const { return s_->size(); }
  bool empty() const { return s_->empty(); }
  auto begin() const { return s_->begin(); }
  auto end() const { return s_->end(); }
  // Stable for the process lifetime: interned strings are never freed.
  const void* id() const { return s_; }

  bool operator==(const Symbol& o) const { return s_ == o.s_; }
  bool operator==(std::string_view o) const {
    return s_->size() == o.size() && same_bytes(s_->data(), o.data(), o.size());
  }
  bool operator==(const char* o) const { return *s_ == o; }
  std::strong_ordering operator<=>(const Symbol& o) const {
    if (s_ == o.s_) return std::strong_ordering::equal;
    return std::string_view(*s_) <=> std::string_view(*o.s_);
  }

  static size_t interned_count();

 private:
  bool try_assign_slow(std::string_view v);
  static const std::string& empty_string() { return kEmpty; }
  static const std::string kEmpty;  // the interned "" (constant-initialised: no guard per key)
  static const std::string* intern(std::string_view v);      // throws std::length_error when full
  static const std::string* try_intern(std::string_view v);  // nullptr when full

  const std::string* s_;
};

std::string operator+(const std::string& a, const Symbol& b);
std::string operator+(const char* a, const Symbol& b);

class ChunkHash {
 public:
  static constexpr size_t kInline = 32;

  ChunkHash() = default;
  ChunkHash(std::string_view bytes) { assign(bytes); }  // NOLINT: implicit, like std::string
  ChunkHash(const char* bytes) : ChunkHash(std::string_view(bytes)) {}         // NOLINT
  ChunkHash(const std::string& bytes) : ChunkHash(std::string_view(bytes)) {}  // NOLINT
  // Copies and moves of short hashes copy the whole inline buffer: a fixed-size copy is a few
  // instructions where a length-dependent memmove is a call (keys are copied a lot).
  ChunkHash(const ChunkHash& o) {
    if (o.size_ <= kInline) {
      std::memcpy(inline_, o.inline_, kInline);
      size_ = o.size_;
    } else {
      assign_slow(o.view());
    }
  }
  ChunkHash(ChunkHash&& o) noexcept : size_(o.size_) {
    if (size_ > kInline) {
      heap_ = o.heap_;
      o.size_ = 0;
    } else {
      std::memcpy(inline_, o.inline_, kInline);
    }
  }
  ChunkHash& operator=(const ChunkHash& o) {
    if (this != &o) {
      if (o.size_ <= kInline && size_ <= kInline) {
        std::memcpy(inline_, o.inline_, kInline);
        size_ = o.size_;
      } else {
        assign(o.view());
      }
    }
    return *this;
  }
  ChunkHash& operator=(ChunkHash&& o) noexcept {
    if (this == &o) return *this;
    release();
    size_ = o.size_;
    if (size_ > kInline) {
      heap_ = o.heap_;
      o.size_ = 0;
    } else {
      std::memcpy(inline_, o.inline_, kInline);
    }
    return *this;
  }
  ~ChunkHash() { release(); }

  void assign(std::string_view bytes) {
    if (bytes.size() <= kInline && size_ <= kInline) {
      std::memmove(inline_, bytes.data(), bytes.size());  // may alias our own bytes
      size_ = static_cast<uint32_t>(bytes.size());
    } else {
      assign_slow(bytes);
    }
  }
  void assign(const char* data, size_t n) { assign(std::string_view(data, n)); }
  void append(size_t n, char c);

  std::string_view view() const { return {data(), size_}; }
  operator std::string_view() const { return view(); }  // NOLINT
  const char* data() const { return size_ <= kInline ? inline_ : heap_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const char* begin() const { return data(); }
  const char* end() const { return data() + size_; }

  bool operator==(const ChunkHash& o) const {
    return size_ == o.size_ && std::memcmp(data(), o.data(), size_) == 0;
  }
  bool operator==(std::string_view o) const { return view() == o; }
  bool operator==(const char* o) const { return view() == o; }
  std::strong_ordering operator<=>(const ChunkHash& o) const { return view() <=> o.view(); }

 private:
  void assign_slow(std::string_view bytes);
  void release() {
    if (size_ > kInline) delete[] heap_;
    size_ = 0;
  }

  uint32_t size_ = 0;
  union {
    char inline_[kInline] = {};  // defined bytes: whole-buffer copies read all of them
    char* heap_;
  };
};

}  // namespace fleet::trace
