#include "fleet/engine/fs_l2_adapter.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "fleet/engine/json_options.h"
#include "fleet/engine/payload.h"
#include "fleet/trace/msgpack_value.h"

namespace fleet::storage {

namespace fs = std::filesystem;

namespace {
// Lowercase hex of raw bytes: the trace library's helper.
std::string hex(std::string_view bytes) { return trace::to_hex(bytes); }

bool write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

std::string errno_text(const char* call, const fs::path& path) {
  return std::string(call) + " " + path.string() + ": " +
         std::error_code(errno, std::generic_category()).message();
}

// Writes `size` bytes to `tmp` and renames it to `final_path`: "" on success, else which call
// failed on which file, and why (ENOSPC: "No space left on device").
std::string write_object(const fs::path& tmp, const fs::path& final_path, const char* payload,
                         uint64_t size) {
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_text("open", tmp);
  std::string why = write_all(fd, payload, size) ? "" : errno_text("write", tmp);
  if (::close(fd) != 0 && why.empty()) why = errno_text("close", tmp);
  if (why.empty() && ::rename(tmp.c_str(), final_path.c_str()) != 0)
    why = errno_text("rename", final_path);
  return why;
}
}  // namespace

Result<FsL2Config> FsL2Config::from_json(const nlohmann::json& j) {
  JsonOptions o(j, "fs adapter");
  FsL2Config c;
  c.base_path = o.required_string("base_path", /*non_empty=*/true);
  o.optional_string("relative_tmp_dir", c.relative_tmp_dir);
  int64_t read_ahead = 0;
  o.optional_int("read_ahead_size", read_ahead, 1);
  if (read_ahead > 0) c.read_ahead_size = read_ahead;
  o.optional_bool("use_odirect", c.use_odirect);
  o.optional_number("max_capacity_gb", c.max_capacity_gb, 0);
  o.optional_bool("recover_on_start", c.recover_on_start);
  if (!o.ok()) return o.status();
  return c;
}

std::string fs_object_file_name(const trace::ObjectKey& k) {
  std::string model;
  for (char ch : k.model_name) {
    if (ch == '/')
      model += "-SEP-";
    else
      model.push_back(ch);
  }
  char rank[32];
  std::snprintf(rank, sizeof(rank), "0x%08llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(k.kv_rank)));
  char group[32];
  std::snprintf(group, sizeof(group), "%llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(k.object_group_id)));
  std::string name = model + "@" + rank + "@" + group + "@" + hex(k.chunk_hash);
  if (!k.cache_salt.empty()) name += "@" + k.cache_salt;
  name += ".data";
  // The name must stay one plain entry of base_path.
  if (name.find('/') != std::string::npos || name.find('\0') != std::string::npos ||
      name.size() > 255)
    return "";
  return name;
}

std::string fs_temp_file_name(const trace::ObjectKey& k) {
  std::string n = fs_object_file_name(k);
  if (n.empty()) return n;
  return n.substr(0, n.size() - 5) + ".tmp";
}

Result<std::unique_ptr<FsL2Adapter>> FsL2Adapter::open(const FsL2Config& cfg, size_t io_threads) {
  std::error_code ec;
  fs::create_directories(cfg.base_path, ec);
  if (!fs::is_directory(cfg.base_path))  // every store would fail: say so before the replay
    return Status::error("fs adapter: base_path '" + cfg.base_path + "' is not a usable directory" +
                         (ec ? " (" + ec.message() + ")" : std::string()));
  return std::unique_ptr<FsL2Adapter>(new FsL2Adapter(cfg, io_threads));
}

FsL2Adapter::FsL2Adapter(const FsL2Config& cfg, size_t io_threads)
    : cfg_(cfg),
      capacity_(static_cast<uint64_t>(cfg.max_capacity_gb * 1073741824.0)),
      io_threads_(io_threads) {
  std::error_code ec;
  if (cfg_.relative_tmp_dir)
    fs::create_directories(fs::path(cfg_.base_path) / *cfg_.relative_tmp_dir, ec);
  if (capacity_ > 0 && cfg_.recover_on_start) {
    for (const auto& e : fs::directory_iterator(cfg_.base_path, ec)) {
      if (!e.is_regular_file(ec)) continue;
      const std::string n = e.path().filename().string();
      if (n.size() < 5 || n.compare(n.size() - 5, 5, ".data") != 0) continue;
      uint64_t sz = e.file_size(ec);
      sizes_[n] = sz;
      used_ += sz;
    }
  }
}

FsL2Adapter::~FsL2Adapter() { close(); }

void FsL2Adapter::attach(L2AdapterContext ctx) {
  ctx_ = std::move(ctx);
  if (!ctx_.synchronous) pool_ = std::make_unique<IoWorkerPool>(io_threads_);
}

// Queued I/O is dropped, not run: the engine has closed and abandoned its requests, and a stopped
// run must not keep writing to a shared L2 (the fault tests' orphan-load check).
void FsL2Adapter::close() {
  if (pool_) pool_->cancel_queued();
  if (pool_) pool_->shutdown();
}

void FsL2Adapter::run(std::function<void()> fn) {
  if (pool_) {
    pool_->submit([fn = std::move(fn)](size_t) { fn(); });
  } else {
    fn();
  }
}

std::string FsL2Adapter::path_for(const trace::ObjectKey& key) const {
  std::string n = fs_object_file_name(key);
  return n.empty() ? n : (fs::path(cfg_.base_path) / n).string();
}

uint64_t FsL2Adapter::refused_keys() const {
  std::lock_guard<std::mutex> g(mu_);
  return refused_;
}

L2Usage FsL2Adapter::usage() const {
  std::lock_guard<std::mutex> g(mu_);
  return {used_, capacity_};
}

L2Completion FsL2Adapter::do_store(uint64_t id, const std::vector<trace::ObjectKey>& keys,
                                   const std::vector<uint64_t>& sizes) {
  L2Completion c;
  c.kind = L2OpKind::Store;
  c.task_id = id;
  c.num_keys = keys.size();
  uint64_t max_size = 0;
  for (auto s : sizes) max_size = std::max(max_size, s);
  auto payload = zero_payload(max_size);
  if (ctx_.report_keys) c.bitmap.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string name = fs_object_file_name(keys[i]);
    if (name.empty()) {
      std::lock_guard<std::mutex> g(mu_);
      refused_++;
      if (c.success) c.error = "a key has no file name (longer than 255 bytes, or a '/' in it)";
      c.success = false;
      continue;
    }
    const fs::path final_path = fs::path(cfg_.base_path) / name;
    std::error_code ec;
    if (fs::exists(final_path, ec)) {  // exists-skip, no bytes
      if (ctx_.report_keys) c.bitmap[i] = 1;
      continue;
    }
    const fs::path tmp = cfg_.relative_tmp_dir
                             ? fs::path(cfg_.base_path) / *cfg_.relative_tmp_dir / name
                             : fs::path(cfg_.base_path) / fs_temp_file_name(keys[i]);
    const std::string why = write_object(tmp, final_path, payload.get(), sizes[i]);
    if (!why.empty()) {
      ::unlink(tmp.c_str());
      if (c.success) c.error = why;
      c.success = false;
      continue;
    }
    c.bytes += sizes[i];
    if (ctx_.report_keys) c.bitmap[i] = 1;
    if (capacity_ > 0) {
      std::lock_guard<std::mutex> g(mu_);
      if (sizes_.emplace(name, sizes[i]).second) used_ += sizes[i];
    }
  }
  return c;
}

L2Completion FsL2Adapter::do_lookup(uint64_t id, const std::vector<trace::ObjectKey>& keys) {
  L2Completion c;
  c.kind = L2OpKind::Lookup;
  c.task_id = id;
  c.num_keys = keys.size();
  c.bitmap.assign(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string name = fs_object_file_name(keys[i]);
    if (name.empty()) continue;
    std::error_code ec;
    if (!fs::exists(fs::path(cfg_.base_path) / name, ec)) continue;
    c.bitmap[i] = 1;
    if (capacity_ > 0) {
      std::lock_guard<std::mutex> g(mu_);
      locks_[name]++;
    }
  }
  return c;
}

L2Completion FsL2Adapter::do_load(uint64_t id, const std::vector<trace::ObjectKey>& keys,
                                  const std::vector<uint64_t>& sizes) {
  L2Completion c;
  c.kind = L2OpKind::Load;
  c.task_id = id;
  c.num_keys = keys.size();
  c.bitmap.assign(keys.size(), 0);
  std::vector<char> buf;
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string path = path_for(keys[i]);
    if (path.empty()) continue;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    buf.resize(std::max<size_t>(buf.size(), sizes[i]));
    size_t got = 0;
    while (got < sizes[i]) {
      ssize_t r = ::read(fd, buf.data() + got, sizes[i] - got);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) break;
      got += static_cast<size_t>(r);
    }
    ::close(fd);
    if (got == sizes[i]) {  // short read = miss; a longer file is fine
      c.bitmap[i] = 1;
      c.bytes += got;
    }
  }
  return c;
}

uint64_t FsL2Adapter::submit_store(std::vector<trace::ObjectKey> keys,
                                   std::vector<uint64_t> sizes) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> g(mu_);
    id = next_task_++;
  }
  const int64_t t0 = ctx_.clock->now_ns();
  run([this, id, t0, keys = std::move(keys), sizes = std::move(sizes)] {
    L2Completion c = do_store(id, keys, sizes);
    if (ctx_.report_keys) c.keys = keys;
    c.submit_ns = t0;
    c.end_ns = std::max(t0, ctx_.clock->now_ns());
    ctx_.deliver(c.end_ns, std::move(c));
  });
  return id;
}

uint64_t FsL2Adapter::submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> g(mu_);
    id = next_task_++;
  }
  const int64_t t0 = ctx_.clock->now_ns();
  run([this, id, t0, keys = std::move(keys)] {
    L2Completion c = do_lookup(id, keys);
    c.submit_ns = t0;
    c.end_ns = std::max(t0, ctx_.clock->now_ns());
    ctx_.deliver(c.end_ns, std::move(c));
  });
  return id;
}

uint64_t FsL2Adapter::submit_load(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> g(mu_);
    id = next_task_++;
  }
  const int64_t t0 = ctx_.clock->now_ns();
  run([this, id, t0, keys = std::move(keys), sizes = std::move(sizes)] {
    L2Completion c = do_load(id, keys, sizes);
    if (ctx_.report_keys) c.keys = keys;
    c.submit_ns = t0;
    c.end_ns = std::max(t0, ctx_.clock->now_ns());
    ctx_.deliver(c.end_ns, std::move(c));
  });
  return id;
}

void FsL2Adapter::submit_unlock(std::vector<trace::ObjectKey> keys) {
  if (capacity_ == 0) return;  // legacy: a no-op
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& k : keys) {
    auto it = locks_.find(fs_object_file_name(k));
    if (it != locks_.end() && --it->second <= 0) locks_.erase(it);
  }
}

std::vector<trace::ObjectKey> FsL2Adapter::delete_keys(const std::vector<trace::ObjectKey>& keys) {
  std::vector<trace::ObjectKey> deleted;
  for (const auto& k : keys) {
    const std::string name = fs_object_file_name(k);
    if (name.empty()) continue;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (locks_.count(name)) continue;  // locked keys are skipped
      auto it = sizes_.find(name);
      if (it != sizes_.end()) {
        used_ -= std::min(used_, it->second);
        sizes_.erase(it);
      }
    }
    if (::unlink((fs::path(cfg_.base_path) / name).c_str()) == 0) deleted.push_back(k);
  }
  return deleted;
}

}  // namespace fleet::storage
