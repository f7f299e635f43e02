#include "fleet/trace/l2_reader.h"

#include "fleet/trace/errors.h"
#include "fleet/trace/l2_decoder.h"

namespace fleet::trace {

void require_l2_level(const std::string& path, const std::string& level) {
  if (level == kLevelL2) return;
  throw TraceError(path + ": header level is \"" + level +
                   "\", not \"l2\": this is not an L2 adapter-level trace" +
                   (level == "storage" ? " (a storage trace: replay it as one)" : ""));
}

namespace {
// The args are checked while they are decoded (decode_l2_record): one walk of each frame.
ReaderOptions deferring(ReaderOptions o) {
  o.defer_args_check = true;
  return o;
}
}  // namespace

L2Reader::L2Reader(const std::string& path, ReaderOptions options)
    : frames_(path, deferring(options)) {
  require_l2_level(path, frames_.header().level);
}

bool L2Reader::next(L2Record& out) {
  for (;;) {
    if (!frames_.next(view_)) return false;
    try {
      decode_l2_record(view_, out);
      break;
    } catch (const MalformedRecord& e) {  // counted and skipped, as the strict parse would
      frames_.reject_malformed(view_, e.what());
    } catch (const DecodeError& e) {
      // Frame body offsets start after the 4-byte length prefix.
      throw TraceError(path() + ": record " + std::to_string(sequence_) + " at offset " +
                       std::to_string(view_.file_offset) + ": " + e.message() + " at byte " +
                       std::to_string(view_.file_offset + kFramePrefixBytes + e.offset()));
    }
  }
  out.sequence = sequence_++;
  out.file_offset = view_.file_offset;
  return true;
}

}  // namespace fleet::trace
