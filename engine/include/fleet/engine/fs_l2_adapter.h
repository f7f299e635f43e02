// LMCache's `fs` L2 adapter (docs/era3-reference.md §6.3): one flat file per key in base_path with
// LMCache's file names, so directories are interchangeable with Python LMCache; atomic
// tmp + rename stores that skip existing files; loads that read exactly the object's logical
// size. Real I/O on worker threads (inline under a virtual clock).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>

#include "fleet/engine/io_worker_pool.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/util/status.h"

namespace fleet::storage {

struct FsL2Config {
  std::string base_path;
  std::optional<std::string> relative_tmp_dir;
  std::optional<int64_t> read_ahead_size;
  bool use_odirect = false;
  double max_capacity_gb = 0;
  bool recover_on_start = true;
  static Result<FsL2Config> from_json(const nlohmann::json& j);  // or which field is wrong
};

// `<model with "/" -> "-SEP-">@0x<rank %08x>@<group hex>@<hash hex>[@<salt>].data`, or "" when
// the result would not be a plain file name inside base_path (e.g. a salt with '/').
std::string fs_object_file_name(const trace::ObjectKey& key);
// The temp name: `.data` replaced by `.tmp`.
std::string fs_temp_file_name(const trace::ObjectKey& key);

class FsL2Adapter final : public L2Adapter {
 public:
  // Makes base_path (and the tmp dir) and counts what a bounded adapter recovers; refused when
  // base_path is not a usable directory (every store would fail: said before the replay).
  static Result<std::unique_ptr<FsL2Adapter>> open(const FsL2Config& cfg, size_t io_threads = 4);
  ~FsL2Adapter() override;
  std::string_view type() const override { return "fs"; }
  void attach(L2AdapterContext ctx) override;

  uint64_t submit_store(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) override;
  uint64_t submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) override;
  uint64_t submit_load(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) override;
  void submit_unlock(std::vector<trace::ObjectKey> keys) override;
  std::vector<trace::ObjectKey> delete_keys(const std::vector<trace::ObjectKey>& keys) override;
  L2Usage usage() const override;
  void close() override;

  std::string path_for(const trace::ObjectKey& key) const;  // "" if the key is refused
  uint64_t refused_keys() const;

 private:
  FsL2Adapter(const FsL2Config& cfg, size_t io_threads);
  void run(std::function<void()> fn);
  L2Completion do_store(uint64_t id, const std::vector<trace::ObjectKey>& keys,
                        const std::vector<uint64_t>& sizes);
  L2Completion do_lookup(uint64_t id, const std::vector<trace::ObjectKey>& keys);
  L2Completion do_load(uint64_t id, const std::vector<trace::ObjectKey>& keys,
                       const std::vector<uint64_t>& sizes);

  FsL2Config cfg_;
  uint64_t capacity_;
  size_t io_threads_;
  std::unique_ptr<IoWorkerPool> pool_;
  mutable std::mutex mu_;
  uint64_t next_task_ = 0;
  uint64_t used_ = 0;
  uint64_t refused_ = 0;
  std::unordered_map<std::string, int64_t> locks_;   // capacity > 0 only
  std::unordered_map<std::string, uint64_t> sizes_;  // accounted files, capacity > 0 only
};

}  // namespace fleet::storage
