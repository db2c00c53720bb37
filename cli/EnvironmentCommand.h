#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace runbox {
class ApiClient;
}

namespace runbox::cli {

/// `runbox env …`: science environments (docs/environments.md "CLI"), agent token only.
/// - `env ls [--json]`: one line per environment: name, id, status, current revision
/// - `env create NAME --python [--provisioner venv] [--no-wait]`: creates it and follows the
///   build of its first revision (its log on stderr) unless --no-wait
/// - `env install NAME [--wheel WS:PATH]… [--channel C]… [--index-url URL] PKG… [--no-wait]`: a
///   new revision with PKG… and the wheels uploaded into workspace WS (docs/environments.md
///   "Installing"), from the conda channels C (micromamba) or the operator's package index URL
///   (its `indexUrl`), its build followed
/// - `env show NAME [--json]`: the environment, its revisions and the current snapshot
/// - `env rm NAME`
/// NAME is an environment's name or id. Exit status: 0, 1 when the agent refuses or a build
/// did not complete (the agent's message is printed), 2 on usage, 3 when the agent could not be
/// reached.
int runEnvironments(ApiClient& client, const QStringList& args);

/// The id of the environment named (or with id) @p nameOrId, from `GET /v1/environments`;
/// empty with @p error set, and @p exitCode (if given) the exit status that failure calls for
/// (kExitConnection when the agent could not be reached, kExitApiError otherwise).
QString resolveEnvironmentId(ApiClient& client, const QString& nameOrId, QString* error,
                             int* exitCode = nullptr);

/// `runbox exec|run --environment NAME`: replaces the option's name in @p body's
/// `environmentId` by the id (resolveEnvironmentId). Returns an error text ("" on success),
/// with @p exitCode as resolveEnvironmentId sets it.
QString applyEnvironmentOption(ApiClient& client, QJsonObject* body, int* exitCode);

} // namespace runbox::cli
