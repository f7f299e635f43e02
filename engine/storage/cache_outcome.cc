#include "fleet/engine/cache_outcome.h"

#include <string>

namespace fleet::engine {

KeyBytes PrefetchOutcome::l2_total() const {
  KeyBytes t;
  for (const KeyBytes& a : l2) t += a;
  return t;
}

KeyBytes PrefetchOutcome::missed() const {
  KeyBytes m = not_found;
  m += load_failed;
  m += trimmed;
  m += abandoned;
  return m;
}

KeyBytes PrefetchOutcome::decided() const {
  KeyBytes d = l1;
  d += l2_total();
  d += missed();
  return d;
}

KeyBytes& PrefetchOutcome::l2_at(size_t adapter) {
  if (l2.size() <= adapter) l2.resize(adapter + 1);
  return l2[adapter];
}

PrefetchOutcome& PrefetchOutcome::operator+=(const PrefetchOutcome& o) {
  requested += o.requested;
  l1 += o.l1;
  for (size_t i = 0; i < o.l2.size(); ++i) l2_at(i) += o.l2[i];
  not_found += o.not_found;
  load_failed += o.load_failed;
  trimmed += o.trimmed;
  abandoned += o.abandoned;
  return *this;
}

CacheOutcome& CacheOutcome::operator+=(const CacheOutcome& o) {
  lookup += o.lookup;
  warm += o.warm;
  write_reserved += o.write_reserved;
  write_refused_oom += o.write_refused_oom;
  write_not_writable_keys += o.write_not_writable_keys;
  stored_keys += o.stored_keys;
  evicted += o.evicted;
  return *this;
}

namespace {

Counters group(const KeyBytes& kb) {
  Counters c;
  c.add("keys", kb.keys);
  c.add("bytes", kb.bytes);
  return c;
}

Counters prefetch_group(const PrefetchOutcome& p) {
  Counters c;
  c.add("requested", group(p.requested));
  c.add("l1", group(p.l1));
  Counters::List l2;
  for (const KeyBytes& a : p.l2) l2.push_back(group(a));
  c.add("l2", std::move(l2));
  c.add("not_found", group(p.not_found));
  c.add("load_failed", group(p.load_failed));
  c.add("trimmed", group(p.trimmed));
  c.add("abandoned", group(p.abandoned));
  return c;
}

}  // namespace

Counters to_counters(const CacheOutcome& c) {
  Counters out;
  out.add("lookup", prefetch_group(c.lookup));
  out.add("warm", prefetch_group(c.warm));
  Counters writes;
  writes.add("reserved", group(c.write_reserved));
  writes.add("refused_oom", group(c.write_refused_oom));
  writes.add("not_writable_keys", c.write_not_writable_keys);
  writes.add("stored_keys", c.stored_keys);
  writes.add("evicted", group(c.evicted));
  out.add("writes", std::move(writes));
  return out;
}

}  // namespace fleet::engine
