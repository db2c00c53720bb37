#pragma once

#include "cli/CliOptions.h"

#include <QJsonObject>
#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// `runbox quotas [--json]`: shows the quotas in force (`GET /v1/settings/quotas`): sizes in
/// GiB with two decimals, durations as `2h`, counts as numbers, `unlimited` for 0, and the last
/// change (who, when, before → after).
///
/// `runbox quotas set [--workspace SIZE] [--output SIZE] [--upload-file SIZE]
/// [--upload-request SIZE] [--timeout DURATION] [--max-timeout DURATION] [--concurrency N]
/// [--light-workspaces N] [--json]`: changes only the given quotas (`PUT`), then shows them.
/// SIZE / DURATION as in cli/Units.h (`20GiB`, `512MiB`, `2h`, `unlimited`); N a whole number
/// or `unlimited`. Exit status 1 when the agent refuses (its message is printed), 2 on usage.
int runQuotas(ApiClient& client, const QStringList& args);

/// The `runbox quotas` text for a `{"quotas":{…},"lastChange":{…}|null}` body.
QString formatQuotas(const QJsonObject& body);

/// The options of `quotas set` (one per quota, plus --json), for ParsedArgs.
QList<OptionSpec> quotaOptionSpecs();
/// Turns @p args (parsed against quotaOptionSpecs()) into a PUT body (field → number). Returns
/// an error text: a bad size, duration or count, a positional argument, nothing to set.
QString parseQuotaOptions(const ParsedArgs& args, QJsonObject* patch);

} // namespace runbox::cli
