#pragma once

#include <QStringList>

namespace runbox::cli {

struct FleetChoice;

/// `runbox pool ls [NAME] | create NAME … (runPoolCreate) | add NAME COUNT [--light|--strong] |
/// rm NAME` over the agents of the
/// fleet file (docs/contracts.md "Fleet file", "Pool hosts"): needs no connection options.
/// Returns the exit status (kExitUsage, kExitApiError when the pool refuses, kExitConnection
/// when no agent of the fleet answers).
int runPool(const QStringList& args, const FleetChoice& fleet);

} // namespace runbox::cli
