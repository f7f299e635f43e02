// The `.lct` format as constants (docs/trace-format.md §1-§3): framing, header keys, schema
// versions and the recorded qualnames. One place, so reader, writer and tools never disagree.
#pragma once

#include <cstdint>
#include <string_view>

namespace fleet::trace {

inline constexpr std::string_view kMagic = "LMCT";
inline constexpr int64_t kFormatVersion = 1;
inline constexpr int64_t kSchemaVersion = 2;  // what the writer emits
inline constexpr int64_t kReadableSchemas[] = {1, 2};
inline constexpr int64_t kReplayableSchema = 2;
inline constexpr uint32_t kDefaultMaxFrameBytes = 64u << 20;
inline constexpr size_t kFramePrefixBytes = 4;

inline constexpr std::string_view kLevelStorage = "storage";
inline constexpr std::string_view kLevelEvents = "events";

inline constexpr std::string_view kQualPrefix =
    "lmcache.v1.distributed.storage_manager.StorageManager.";
inline constexpr std::string_view kQualReserveWrite =
    "lmcache.v1.distributed.storage_manager.StorageManager.reserve_write";
inline constexpr std::string_view kQualReserveWriteWithStatus =
    "lmcache.v1.distributed.storage_manager.StorageManager.reserve_write_with_status";
inline constexpr std::string_view kQualFinishWrite =
    "lmcache.v1.distributed.storage_manager.StorageManager.finish_write";
inline constexpr std::string_view kQualAbortWrite =
    "lmcache.v1.distributed.storage_manager.StorageManager.abort_write";
inline constexpr std::string_view kQualSubmitPrefetch =
    "lmcache.v1.distributed.storage_manager.StorageManager.submit_prefetch_task";
inline constexpr std::string_view kQualReadEnter =
    "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__enter__";
inline constexpr std::string_view kQualReadExit =
    "lmcache.v1.distributed.storage_manager.StorageManager.read_prefetched_results.__exit__";
inline constexpr std::string_view kQualFinishRead =
    "lmcache.v1.distributed.storage_manager.StorageManager.finish_read_prefetched";

}  // namespace fleet::trace
