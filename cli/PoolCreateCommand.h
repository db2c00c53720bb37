#pragma once

#include <QStringList>

namespace runbox::cli {

struct FleetChoice;

/// `runbox [--fleet FILE] pool create NAME --per-host N --host
/// HOST=https://ADDRESS:PORT[,FINGERPRINT]… [--json]`: defines a pool with no workspace yet
/// (docs/contracts.md "Pool credential"). Makes the pool's secret (shared/PoolSecret::readOrCreate
/// at PoolSecret::defaultPath(NAME): kept when it exists, refused when others may read it), adds
/// each host to the fleet file as `{"name","url","pool":NAME}` (the file made when missing; a host
/// already listed the same way is kept, one listed otherwise is refused and nothing is written),
/// and prints the `runbox-agent` options each host runs with (`--pool NAME --pool-capacity N
/// --pool-secret-file FILE`): the hosts carry the pool's configuration, nothing else records it.
/// Sends nothing. Exit kExitOk, kExitUsage (bad arguments, a refused secret or fleet file, a
/// conflicting host).
int runPoolCreate(const QStringList& args, const FleetChoice& fleet);

} // namespace runbox::cli
