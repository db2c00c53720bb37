#pragma once

#include "agent/execution/LaunchPlanner.h"

#include <QJsonValue>
#include <QStringList>

namespace runbox::environments {

class EnvironmentService;

/// The launch stage of science environments (docs/environments.md "Selection", "Building a
/// revision"), reading only its own sections of the permission epoch:
/// - `environmentBuild` (set by EnvironmentService on its provisioning executions only; no
///   request can carry it, ExecRequest::parse refuses unknown fields): the revision being built
///   is bound read-write at /opt/science-env from a descriptor (`--bind-fd`), its provisioner's
///   package source read-only where the provisioner says (`--ro-bind-fd`; /opt/wheelhouse,
///   /opt/cran-repository); refused unless the execution runs in that environment's build
///   workspace.
/// - `environmentRevisionId` (a request's `environmentId` / `environmentRevisionId`, resolved
///   when the execution was created): that ready revision's prefix read-only at
///   /opt/science-env (`--ro-bind-fd`), every host interpreter under /usr/bin (`python3*`,
///   `python`, `pip*`, `R`, `Rscript`) covered by an empty read-only file (`--ro-bind-data` of
///   an empty memfd), `PATH=/opt/science-env/bin:/usr/bin:/bin`, the provisioner's variables
///   (`VIRTUAL_ENV` for venv), and the `python` and `r` kinds' `/usr/bin/python3` and
///   `/usr/bin/R` replaced by the environment's. The revision is held (never removed)
///   until the plan is released.
/// Neither: nothing is added (the launch is unchanged). A revision that is gone or not ready →
/// 503 `environment_unavailable` (the execution ends setup_failed).
class EnvironmentStage final : public execution::LaunchStage {
public:
    /// @p service is not owned. @p maskedPaths: the host files to cover (hostInterpreters()).
    EnvironmentStage(EnvironmentService* service, QStringList maskedPaths)
        : m_service(service), m_masked(std::move(maskedPaths)) {}

    void prepare(const execution::LaunchContext& context, execution::LaunchPlan* plan,
                 std::function<void(std::optional<Error>)> done) override;

    /// The regular files to mask under @p usrBin: entries named `python`, `python3*`, `pip*`,
    /// `R` or `Rscript`
    /// that are regular files (lstat(2): a link is not followed), plus the regular file a
    /// matching link resolves to when it lies under /usr (bwrap's mount over a link lands on its
    /// target, so the target is what must be covered). Sorted, without duplicates.
    static QStringList hostInterpreters(const QString& usrBin = QStringLiteral("/usr/bin"));

    /// The epoch section names (also the request feature fields, EnvironmentService).
    static constexpr char kRevisionField[] = "environmentRevisionId";
    static constexpr char kBuildField[] = "environmentBuild";

private:
    EnvironmentService* m_service;
    QStringList m_masked;
};

} // namespace runbox::environments
