#pragma once

#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// `runbox policy …`: the network policy of new executions (agent/egress/README.md,
/// `GET/PUT /v1/settings/network-policy`), agent token only.
/// - `policy show [--json]`: mode, revision and the allowlist, one entry a line.
/// - `policy set --allow DOMAIN [--allow DOMAIN…] [DOMAIN…] [--allow-private CIDR…] [--json]`:
///   replaces the policy by `domain-allowlist` with these entries (the agent checks their
///   grammar: 400 invalid_network_policy naming the entry).
/// - `policy off [--json]`: mode `none` (no network), the lists emptied.
/// Each prints the stored policy as `show` does. Exit status: 0; 1 when the agent refuses; 2 on
/// usage; 3 when it cannot be reached.
int runPolicy(ApiClient& client, const QStringList& args);

} // namespace runbox::cli
