#include "fleet/plan/route_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "fleet/util/build_info.h"
#include "fleet/util/file_type.h"
#include "fleet/util/json_file.h"
#include "fleet/util/read_at.h"

namespace fleet::plan {

namespace {

constexpr char kMagic[8] = {'F', 'R', 'P', 'L', 'A', 'N', '0', '1'};
constexpr char kEndMagic[8] = {'F', 'R', 'P', 'L', 'E', 'N', 'D', '1'};
constexpr size_t kFooterBytes = 40;
constexpr size_t kEntryBytes = 16;
constexpr uint32_t kMaxKeyBytes = 1u << 20;
constexpr uint64_t kMaxMetaBytes = 64ull << 20;
// The routing rules' own version, in every key: bump it with any change to what ShardRouter
// decides (the build id does not change for an uncommitted edit or an unchanged configure).
constexpr int kRouterVersion = 1;
constexpr uint16_t kKnownFlags =
    kRouteFirstOfRecord | kRouteAllWorkers | kRouteSplitPart | kRouteHasShift | kRouteHasMask;

void put_le(char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<char>(v >> (8 * i));
}
uint64_t get_le(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<unsigned char>(p[i])} << (8 * i);
  return v;
}

// get_le(p, 8) as one load where the host is little-endian (the checksum's inner loop).
uint64_t load_le64(const char* p) {
  if constexpr (std::endian::native != std::endian::little) return get_le(p, 8);
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

// A fast checksum over a byte stream fed in pieces: it catches a damaged or truncated plan
// (whose directory is private), it does not authenticate one.
class RouteChecksum {
 public:
  void update(const char* p, size_t n) {
    total_ += n;
    if (!tail_.empty()) {
      const size_t take = std::min(n, 8 - tail_.size());
      tail_.append(p, take);
      p += take;
      n -= take;
      if (tail_.size() < 8) return;
      word(get_le(tail_.data(), 8));
      tail_.clear();
    }
    for (; n >= 8; p += 8, n -= 8) word(load_le64(p));
    tail_.assign(p, n);
  }
  uint64_t value() const {
    uint64_t h = a_ ^ mix(b_ + total_);
    for (unsigned char c : tail_) h = mix(h ^ c);
    return mix(h);
  }

 private:
  void word(uint64_t w) {
    a_ = mix(a_ ^ w) + 0x9E3779B97F4A7C15ull;
    b_ += w * 0xD6E8FEB86659FD93ull;
  }
  uint64_t a_ = 0x243F6A8885A308D3ull, b_ = 0, total_ = 0;
  std::string tail_;
};

namespace {

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

Result<RoutePlanKey> route_plan_key(const std::string& trace_path, const std::string& header_digest,
                                    const RouterOptions& o, uint64_t max_frame_bytes) {
  struct stat st {};
  if (::stat(trace_path.c_str(), &st) != 0)
    return Status::error(trace_path + ": cannot stat: " + std::strerror(errno));
  char line[256];
  std::string t = "fleet route plan 1 router " + std::to_string(kRouterVersion) + "\nbuild " +
                  std::string(util::build_id()) + "\n";
  std::snprintf(
      line, sizeof line, "trace dev=%llu ino=%llu size=%lld mtime=%lld.%09ld ctime=%lld.%09ld\n",
      static_cast<unsigned long long>(st.st_dev), static_cast<unsigned long long>(st.st_ino),
      static_cast<long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec),
      st.st_mtim.tv_nsec, static_cast<long long>(st.st_ctim.tv_sec), st.st_ctim.tv_nsec);
  t += line;
  t += "digest " + header_digest + "\n";
  std::snprintf(line, sizeof line,
                "shard=%s timeline=%s window=%a ttl=%a split_inline=%d max_frame=%llu\n",
                shard_mode_name(o.mode), timeline_name(o.timeline), o.window_s, o.lifecycle_ttl_s,
                o.encode_split_parts ? 1 : 0, static_cast<unsigned long long>(max_frame_bytes));
  t += line;
  for (const auto& n : o.worker_names) t += "worker " + std::to_string(n.size()) + ":" + n + "\n";
  RouteChecksum c;
  c.update(t.data(), t.size());
  return RoutePlanKey{t, hex16(c.value()) + ".route"};
}

uint64_t route_plan_checksum(const char* p, size_t n) {
  RouteChecksum c;
  c.update(p, n);
  return c.value();
}

Status check_route_cache_dir(const std::string& dir) {
  const std::string where = "--route-cache " + dir;
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return Status::error(where + ": cannot create: " + std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return Status::error(where + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return Status::error(where + ": not a directory");
  if (st.st_uid != ::geteuid()) {
    return Status::error(where + ": owned by uid " + std::to_string(st.st_uid) +
                         ", not by this user (a saved plan decides what every worker replays)");
  }
  if ((st.st_mode & 022) != 0) {
    return Status::error(where + ": its mode is " + util::mode_text(st.st_mode) +
                         " (group or others may write plans into it); run: chmod 700 " + dir);
  }
  return Status();
}

// --- writer ---

Result<std::unique_ptr<RoutePlanWriter>> RoutePlanWriter::create(const std::string& dir,
                                                                 RoutePlanKey key) {
  std::string tmpl = dir + "/." + key.file_name + ".XXXXXX";
  const int fd = ::mkstemp(tmpl.data());  // 0600
  if (fd < 0) return Status::error(tmpl + ": cannot create: " + std::strerror(errno));
  std::FILE* file = ::fdopen(fd, "wb");
  if (!file) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmpl.c_str());
    return Status::error(tmpl + ": cannot open: " + std::strerror(err));
  }
  return std::unique_ptr<RoutePlanWriter>(new RoutePlanWriter(dir, std::move(key), tmpl, file));
}

RoutePlanWriter::RoutePlanWriter(std::string dir, RoutePlanKey key, std::string tmp_path,
                                 std::FILE* file)
    : dir_(std::move(dir)),
      tmp_path_(std::move(tmp_path)),
      key_(std::move(key)),
      file_(file),
      checksum_(std::make_unique<RouteChecksum>()) {
  buf_.reserve(1u << 20);
  char len[4];
  put_le(len, key_.text.size(), 4);
  put(kMagic, sizeof kMagic);
  put(len, 4);
  put(key_.text.data(), key_.text.size());
}

RoutePlanWriter::~RoutePlanWriter() {
  if (file_) std::fclose(file_);
  if (!committed_ && !tmp_path_.empty()) ::unlink(tmp_path_.c_str());
}

void RoutePlanWriter::put(const void* p, size_t n) {
  buf_.append(static_cast<const char*>(p), n);
  if (buf_.size() >= (1u << 20)) flush_buffer();
}

void RoutePlanWriter::flush_buffer() {
  if (buf_.empty() || abandoned()) return;
  checksum_->update(buf_.data(), buf_.size());
  if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
    abandon(tmp_path_ + ": write failed: " + std::strerror(errno));
  }
  buf_.clear();
}

void RoutePlanWriter::add(const Route& r, uint64_t file_offset, bool first_of_record,
                          bool all_workers) {
  if (abandoned()) return;
  if (!r.original) {
    abandon("a split call's parts were re-encoded (more keys than a masked reference holds)");
    return;
  }
  uint16_t flags = 0;
  if (first_of_record) flags |= kRouteFirstOfRecord;
  if (all_workers) flags |= kRouteAllWorkers;
  if (!r.key_mask.empty()) flags |= kRouteHasMask | kRouteSplitPart;
  if (r.t_shift != 0.0) flags |= kRouteHasShift;
  char e[kEntryBytes];
  put_le(e, file_offset, 8);
  put_le(e + 8, r.body.size(), 4);
  put_le(e + 12, static_cast<uint64_t>(all_workers ? 0 : r.worker), 2);
  put_le(e + 14, flags, 2);
  put(e, sizeof e);
  entries_bytes_ += sizeof e;
  if (flags & kRouteHasShift) {
    uint64_t bits;
    std::memcpy(&bits, &r.t_shift, 8);
    char s[8];
    put_le(s, bits, 8);
    put(s, 8);
    entries_bytes_ += 8;
  }
  if (flags & kRouteHasMask) {
    char k[2];
    put_le(k, r.mask_keys, 2);
    put(k, 2);
    const size_t mask_bytes = (r.mask_keys + 7u) / 8;
    put(r.key_mask.data(), mask_bytes);
    entries_bytes_ += 2 + mask_bytes;
  }
  ++entries_;
}

void RoutePlanWriter::add_record(const std::vector<Route>& routes, uint64_t file_offset,
                                 bool all_workers) {
  const size_t n = all_workers ? std::min<size_t>(1, routes.size()) : routes.size();
  for (size_t i = 0; i < n; ++i) add(routes[i], file_offset, i == 0, all_workers);
}

void RoutePlanWriter::abandon(std::string why) {
  if (why_abandoned_.empty()) why_abandoned_ = std::move(why);
  buf_.clear();
  buf_.shrink_to_fit();
}

Result<std::string> RoutePlanWriter::commit(const nlohmann::json& meta) {
  if (abandoned()) return Status::error(why_abandoned_);
  const std::string text = meta.dump();
  put(text.data(), text.size());
  flush_buffer();
  if (abandoned()) return Status::error(why_abandoned_);
  char footer[kFooterBytes];
  put_le(footer, entries_bytes_, 8);
  put_le(footer + 8, entries_, 8);
  put_le(footer + 16, text.size(), 8);
  put_le(footer + 24, checksum_->value(), 8);
  std::memcpy(footer + 32, kEndMagic, 8);
  if (std::fwrite(footer, 1, sizeof footer, file_) != sizeof footer || std::fclose(file_) != 0) {
    file_ = nullptr;
    return Status::error(tmp_path_ + ": write failed: " + std::strerror(errno));
  }
  file_ = nullptr;
  const std::string path = dir_ + "/" + key_.file_name;
  if (::rename(tmp_path_.c_str(), path.c_str()) != 0)
    return Status::error(path + ": cannot rename into place: " + std::strerror(errno));
  committed_ = true;
  return path;
}

// --- reader ---

RoutePlanReader::~RoutePlanReader() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::unique_ptr<RoutePlanReader>> RoutePlanReader::open(const std::string& dir,
                                                               const RoutePlanKey& key,
                                                               const Limits& limits) {
  return open_path(dir + "/" + key.file_name, key.text, limits);
}

Result<std::unique_ptr<RoutePlanReader>> RoutePlanReader::open_path(const std::string& path,
                                                                    const std::string& key_text,
                                                                    const Limits& limits) {
  std::unique_ptr<RoutePlanReader> r(new RoutePlanReader());
  r->path_ = path;
  r->limits_ = limits;
  r->fd_ = ::open(r->path_.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (r->fd_ < 0) {
    if (errno == ENOENT) return std::unique_ptr<RoutePlanReader>();  // none saved yet
    return Status::error(r->path_ + ": cannot open: " + std::strerror(errno));
  }
  uint64_t meta_len = 0, checksum = 0;
  std::string why = r->check_layout(key_text, meta_len, checksum);
  if (why.empty()) why = r->check_contents(meta_len, checksum);
  if (!why.empty()) return Status::error(why);
  r->read_.store(0);
  return r;
}

std::string RoutePlanReader::check_layout(const std::string& key_text, uint64_t& meta_len,
                                          uint64_t& checksum) {
  auto bad = [&](const std::string& what) { return path_ + ": " + what; };
  auto read_at = [&](void* out, uint64_t n, uint64_t at) {
    return util::pread_exact(fd_, out, static_cast<size_t>(n), at);
  };
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) return bad("not a regular file");
  // As the directory: a plan someone else wrote, or could have, is not this user's plan.
  if (st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
    return bad("not this user's, or writable by group or others (mode " +
               util::mode_text(st.st_mode) + ")");
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < sizeof kMagic + 4 + kFooterBytes) return bad("too short to be a plan");
  char head[12];
  if (!read_at(head, 12, 0) || std::memcmp(head, kMagic, 8) != 0)
    return bad("not a route plan (bad magic at byte 0)");
  const uint64_t key_len = get_le(head + 8, 4);
  if (key_len > kMaxKeyBytes || key_len != key_text.size())
    return bad("made for another trace or routing (key length)");
  std::string stored_key(key_len, '\0');
  if (!read_at(stored_key.data(), key_len, 12) || stored_key != key_text)
    return bad("made for another trace or routing (key differs)");
  char footer[kFooterBytes];
  if (!read_at(footer, kFooterBytes, size - kFooterBytes) ||
      std::memcmp(footer + 32, kEndMagic, 8) != 0) {
    return bad("truncated (no footer at byte " + std::to_string(size - kFooterBytes) + ")");
  }
  entries_begin_ = 12 + key_len;
  entries_bytes_ = get_le(footer, 8);
  entries_ = get_le(footer + 8, 8);
  meta_len = get_le(footer + 16, 8);
  checksum = get_le(footer + 24, 8);
  if (meta_len > kMaxMetaBytes || entries_bytes_ > size ||
      entries_begin_ + entries_bytes_ + meta_len + kFooterBytes != size ||
      entries_ > entries_bytes_ / kEntryBytes) {
    return bad("footer sizes do not match the file's " + std::to_string(size) + " bytes");
  }
  return "";
}

std::string RoutePlanReader::check_contents(uint64_t meta_len, uint64_t checksum) {
  auto bad = [&](const std::string& what) { return path_ + ": " + what; };
  const uint64_t before_footer = entries_begin_ + entries_bytes_ + meta_len;
  // One pass over everything before the footer for the checksum, one over the entries.
  RouteChecksum c;
  std::vector<char> chunk(std::min<uint64_t>(before_footer, 1u << 20));
  for (uint64_t at = 0; at < before_footer;) {
    const uint64_t n = std::min<uint64_t>(before_footer - at, chunk.size());
    if (!util::pread_exact(fd_, chunk.data(), static_cast<size_t>(n), at))
      return bad("read failed at byte " + std::to_string(at));
    c.update(chunk.data(), n);
    at += n;
  }
  if (c.value() != checksum) return bad("checksum mismatch (damaged)");
  std::string meta_text(meta_len, '\0');
  if (!util::pread_exact(fd_, meta_text.data(), meta_len, entries_begin_ + entries_bytes_))
    return bad("cannot read its metadata");
  Result<nlohmann::json> meta = util::parse_json_bounded(meta_text, path_);
  if (!meta) return bad("metadata: " + meta.status().message());
  meta_ = std::move(meta).value();
  if (!meta_.is_object()) return bad("metadata is not an object");
  if (!limits_.walk_entries) return "";
  try {
    Cursor all = cursor();
    SavedRoute route;
    uint64_t n = 0;
    while (all.next(route)) ++n;
    if (n != entries_) {
      return bad("holds " + std::to_string(n) + " entries, its footer says " +
                 std::to_string(entries_));
    }
  } catch (const std::exception& e) {
    return e.what();  // names the file and the entry's byte
  }
  return "";
}

bool RoutePlanReader::Cursor::fill(size_t need) {
  if (buf_end_ - buf_pos_ >= need) return true;
  const uint64_t buffered = buf_end_ - buf_pos_;
  const uint64_t left = plan_->entries_bytes_ - consumed_ - buffered;
  // Room for the largest entry (16 + 8 + 2 + 8 KiB of mask) and up to 1 MiB of them.
  if (buf_.empty()) buf_.resize(std::clamp<uint64_t>(plan_->entries_bytes_, 16u << 10, 1u << 20));
  std::memmove(buf_.data(), buf_.data() + buf_pos_, buffered);
  buf_pos_ = 0;
  buf_end_ = buffered;
  const size_t want = static_cast<size_t>(std::min<uint64_t>(left, buf_.size() - buf_end_));
  // The plan was checked whole at open: a short read means it changed since (reported as such).
  if (!util::pread_exact(plan_->fd_, buf_.data() + buf_end_, want,
                         plan_->entries_begin_ + consumed_ + buffered)) {
    return false;
  }
  buf_end_ += want;
  return buf_end_ - buf_pos_ >= need;
}

void RoutePlanReader::Cursor::publish_read() {
  plan_->read_.fetch_add(unpublished_, std::memory_order_relaxed);
  unpublished_ = 0;
}

bool RoutePlanReader::Cursor::next(SavedRoute& out) {
  if (consumed_ >= plan_->entries_bytes_) {
    if (unpublished_) publish_read();
    return false;
  }
  auto bad = [&](const std::string& what) {
    throw std::runtime_error(plan_->path_ + ": entry at byte " +
                             std::to_string(plan_->entries_begin_ + consumed_) + ": " + what);
  };
  const Limits& limits = plan_->limits_;
  if (!fill(kEntryBytes)) bad("truncated");
  const char* p = buf_.data() + buf_pos_;
  out.file_offset = get_le(p, 8);
  out.body_size = static_cast<uint32_t>(get_le(p + 8, 4));
  out.worker = static_cast<uint16_t>(get_le(p + 12, 2));
  out.flags = static_cast<uint16_t>(get_le(p + 14, 2));
  size_t len = kEntryBytes;
  if (out.flags & ~kKnownFlags) bad("unknown flags");
  if (!(out.flags & kRouteAllWorkers) && out.worker >= limits.workers)
    bad("worker " + std::to_string(out.worker) + " of " + std::to_string(limits.workers));
  if (out.body_size == 0 || out.body_size > limits.max_frame_bytes ||
      out.file_offset > limits.trace_size ||
      limits.trace_size - out.file_offset < 4 + uint64_t{out.body_size} ||
      out.file_offset < last_offset_) {
    bad("frame at offset " + std::to_string(out.file_offset) + " (" +
        std::to_string(out.body_size) + " bytes) is not inside the trace in order");
  }
  out.t_shift = 0.0;
  if (out.flags & kRouteHasShift) {
    if (!fill(len + 8)) bad("truncated");
    p = buf_.data() + buf_pos_;
    const uint64_t bits = get_le(p + len, 8);
    std::memcpy(&out.t_shift, &bits, 8);
    if (!std::isfinite(out.t_shift)) bad("time shift is not finite");
    len += 8;
  }
  out.mask_keys = 0;
  out.key_mask = {};
  if (out.flags & kRouteHasMask) {
    if (!fill(len + 2)) bad("truncated");
    p = buf_.data() + buf_pos_;
    out.mask_keys = static_cast<uint16_t>(get_le(p + len, 2));
    const size_t mask_bytes = (out.mask_keys + 7u) / 8;
    if (out.mask_keys == 0) bad("a key mask of no keys");
    len += 2;
    if (!fill(len + mask_bytes)) bad("truncated");
    p = buf_.data() + buf_pos_;
    out.key_mask = std::string_view(p + len, mask_bytes);
    len += mask_bytes;
  }
  if (consumed_ + len > plan_->entries_bytes_) bad("runs past the entries");
  last_offset_ = out.file_offset;
  buf_pos_ += len;
  consumed_ += len;
  // One atomic add per 4096 entries, not per entry: the count is for progress only.
  if (++unpublished_ == 4096) publish_read();
  return true;
}

}  // namespace fleet::plan
