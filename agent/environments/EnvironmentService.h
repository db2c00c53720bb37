#pragma once

#include "agent/Error.h"
#include "agent/environments/EnvironmentRepository.h"
#include "agent/environments/UploadedWheels.h"
#include "agent/execution/ExecRequest.h"
#include "agent/execution/LaunchPlanner.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <map>
#include <memory>
#include <optional>

namespace runbox::execution {
class ExecutionManager;
}
namespace runbox::store {
class ExecutionRepository;
}
namespace runbox::workspace {
struct Workspace;
class WorkspaceRegistry;
} // namespace runbox::workspace

namespace runbox::environments {

class EnvironmentProvisioner;

/// Science environments (docs/environments.md): named environments whose immutable revisions
/// are each built by a provisioning execution (kind `provision`, one the ExecutionManager runs,
/// records and logs like any managed execution) in the environment's own agent-owned strong
/// build workspace, and selected by strong executions through `environmentId` or
/// `environmentRevisionId` (EnvironmentStage binds the prefix). A revision's prefix is
/// `<stateDir>/environments/<environmentId>/<revisionId>`; the current revision moves only when
/// its build completed and its snapshot was read and hashed. Builds of one environment queue in
/// order on its build workspace's lease. Main thread only.
///
/// Errors (runbox::Error): InvalidArgument (the field named; `unknown_environment` for an exec
/// naming none), NotFound `environment_not_found`, Conflict `environment_exists`,
/// `environment_building`, `environment_in_use`, `environment_not_ready`,
/// Unavailable `package_source_not_configured` and
/// `provisioner_unavailable` (the host lacks python3-venv or R, micromamba is not configured or
/// its hash is wrong), and the store's.
class EnvironmentService final : public QObject {
    Q_OBJECT
    Q_DISABLE_COPY_MOVE(EnvironmentService)
public:
    struct Dependencies {
        const store::Database* database = nullptr;
        execution::ExecutionManager* manager = nullptr;
        workspace::WorkspaceRegistry* workspaces = nullptr;
        QString stateDir;
        QString wheelhouse; ///< RUNBOX_ENV_WHEELHOUSE ("" = none: venv installs are refused)
        /// RUNBOX_ENV_CRAN_REPOSITORY ("" = none: r-lib installs are refused)
        QString cranRepository;
        /// RUNBOX_ENV_MICROMAMBA, RUNBOX_ENV_MICROMAMBA_SHA256, RUNBOX_ENV_CONDA_CHANNELS
        QString micromamba;
        QString micromambaSha256;
        QStringList condaChannels;
        /// RUNBOX_ENV_INDEX_URL, RUNBOX_ENV_INDEX_CA_FILE, RUNBOX_ENV_INDEX_PRIVATE_CIDRS: the
        /// venv builds' package index ("" = none), checked at start (config::IndexUrl).
        QString indexUrl;
        /// RUNBOX_ENV_CRAN_URL: the r-lib builds' CRAN-like repository URL ("" = none); the CA
        /// file and private ranges above serve it too.
        QString cranUrl;
        /// RUNBOX_ENV_CONDA_CHANNEL_URLS: the micromamba builds' remote channels.
        QStringList condaChannelUrls;
        QString indexCaFile;
        QStringList indexPrivateCidrs;
        /// The queued and running executions' epochs (which revisions they will bind).
        store::ExecutionRepository* executions = nullptr;
        /// RUNBOX_ENV_REVISION_GRACE_S in ms: how long an unused, non-current revision keeps
        /// its prefix after it was built (sweepRevisions()).
        qint64 revisionGraceMs = 86400000;
        /// RUNBOX_ENV_STARTERS: whether `starter-python` and `starter-r` are built on first use.
        bool starters = true;
        /// RUNBOX_ENV_STARTER_PYTHON_PACKAGES / RUNBOX_ENV_STARTER_R_PACKAGES: what the starters
        /// hold where a package source is configured (docs/environments.md "Starters").
        QStringList starterPythonPackages;
        QStringList starterRPackages;
    };

    explicit EnvironmentService(Dependencies deps, QObject* parent = nullptr);
    ~EnvironmentService() override;

    /// Start-up (after ExecutionManager::recover and after the egress feature, whose epoch
    /// section this one overrides for builds): revisions left `building` by a previous agent
    /// become failed and their half-built prefixes are removed; declares the request fields and
    /// the epoch contributor; checks the starters' package lists; returns warnings to log.
    QStringList start();

    /// `/v1/health` `scientificEnvs`: `{"provisioners":{"venv":{"available","reason"},
    /// "r-lib":{…},"micromamba":{…}},"wheelhouse":path|null,"cranRepository":path|null,
    /// "environments":N,"starters":{"enabled","environments":[{"id","language","provisioner",
    /// "packages","status","problem"?}]}}` (status `not_built`, `building`, `ready`, `failed`).
    QJsonObject healthJson() const;

    /// `{"environments":[…]}` of the live environments (environmentJson each).
    std::optional<Error> list(QJsonObject* out) const;
    std::optional<Error> get(const QString& id, QJsonObject* out) const;
    /// `POST /v1/environments {"name","language","provisioner"?}`: validated, then the
    /// environment, its build workspace and the build of its first revision (no packages).
    /// 503 `provisioner_unavailable` when the host lacks what the provisioner needs; 400
    /// `invalid_environment_name` for a starter's name.
    /// @p out is environmentJson plus `"executionId"` of that build.
    std::optional<Error> create(const QJsonObject& body, QJsonObject* out);
    /// `POST /v1/environments/{id}/install {"packages":[…]}`: a new revision with the packages
    /// of the latest revision that did not fail (one still building counts) merged with
    /// @p body's (EnvironmentSpec::mergePackages: a project named again takes its new
    /// constraint), built afresh.
    /// `{"environmentId","revisionId","executionId","status":"building"}`. 409
    /// `starter_read_only` for a starter (its packages are a setting).
    std::optional<Error> install(const QString& id, const QJsonObject& body, QJsonObject* out);
    /// `POST /v1/environments/{id}/uninstall {"packages":[names…]}`: a new revision without
    /// them (EnvironmentSpec::removePackages: 400 `package_not_requested` for a package the
    /// environment was not asked for), built afresh; the same answer as install().
    std::optional<Error> uninstall(const QString& id, const QJsonObject& body, QJsonObject* out);
    /// Deletes the environment, its prefixes and its build workspace; refused while a build runs
    /// or a queued or running execution names or holds one of its revisions (409
    /// `environment_building`, `environment_in_use`), and for a starter (409 `starter_read_only`).
    std::optional<Error> remove(const QString& id);
    /// `{"revisions":[RevisionRow::toJson…]}`.
    std::optional<Error> revisions(const QString& id, QJsonObject* out) const;
    /// `{"revisionId","environmentId","sha256","packages":[{"name","version"}…]}` after the
    /// SHA-256 check (EnvironmentSnapshot::verify). 409 `snapshot_unavailable` when not ready.
    std::optional<Error> snapshot(const QString& revisionId, QJsonObject* out) const;

    /// Exec intake (sync and managed, after the tier's checks): turns `environmentId` (its
    /// current revision now) or `environmentRevisionId` into both fields of @p request, which
    /// the epoch contributor records. 400 `unknown_environment`, 409 `environment_not_ready`,
    /// 400 `invalid_request` for both (in a light workspace the tier first puts the workspace's
    /// own revision in, or refuses another with 409 `environment_mismatch`:
    /// LightTier::pinEnvironment),
    /// 400 `environment_language_mismatch` for kind `python` in an R environment or kind `r`
    /// in a Python one (the other language's interpreters are masked). Naming a starter
    /// (`starter-python`, `starter-r`) builds it on its first use and again when its package
    /// setting changed (useStarter()); until its first revision is ready that is 409
    /// `environment_not_ready` naming the build's execution; 503 `starter_misconfigured` when
    /// its package setting does not parse.
    std::optional<Error> resolveSelection(execution::ExecRequest* request);

    /// Whether @p id names a starter environment (`starter-python`, `starter-r`).
    static bool isStarter(const QString& id);

    /// For EnvironmentStage, as a build is launched: the prefix of revision @p revisionId being
    /// built and its environment's provisioner, if @p workspaceId is its environment's build
    /// workspace (else 503 `environment_unavailable`); the build workspace is emptied first, so
    /// nothing an earlier build left there reaches this one. @p wheelStore: the environment's
    /// store of uploaded wheels when its spec names any ("" otherwise).
    std::optional<Error> prepareBuild(const QString& revisionId, const QString& workspaceId,
                                      QString* prefix, const EnvironmentProvisioner** provisioner,
                                      QString* wheelStore);
    /// For EnvironmentStage: the prefix of ready revision @p revisionId and its environment's
    /// provisioner, held until releasePrefix(); 503 `environment_unavailable` when it is gone.
    std::optional<Error> acquirePrefix(const QString& revisionId, QString* prefix,
                                       const EnvironmentProvisioner** provisioner);
    void releasePrefix(const QString& revisionId);
    /// One more hold on revision @p revisionId, which the caller already holds (acquirePrefix):
    /// a light workspace made with it holds it for its life (light::LightEnvironments); released
    /// by releasePrefix().
    void holdPrefix(const QString& revisionId) { m_held[revisionId] += 1; }
    /// Where revisions' prefixes live: `<stateDir>/environments` (each one is
    /// `<prefixRoot>/<environmentId>/<revisionId>`).
    QString prefixRoot() const { return m_deps.stateDir + QStringLiteral("/environments"); }
    /// The id of the live environment whose build workspace is @p workspaceId ("" when none):
    /// such a workspace is deleted with its environment only (`DELETE /v1/workspaces` → 409).
    QString environmentBuiltIn(const QString& workspaceId) const;

    /// Removes the prefix of every ready revision that is not its environment's current one,
    /// was built more than the grace period ago, and that no queued or running execution names
    /// (their epochs' `environmentRevisionId`) or holds; marks it removed (row, spec and
    /// snapshot stay). Runs on a timer (every half grace period, 0.5–60 s) from start().
    /// Returns how many prefixes it removed.
    int sweepRevisions();

    /// The request fields (ExecutionManager::addRequestFeature).
    static constexpr char kEnvironmentField[] = "environmentId";

private:
    void onExecutionFinished(const QString& executionId);
    /// The revisions a queued or running execution names (its epoch's `environmentRevisionId`)
    /// or a running one holds; nullopt when the store cannot be read.
    std::optional<QSet<QString>> revisionsInUse() const;
    /// The provisioner named @p name (nullptr for one this agent does not have).
    const EnvironmentProvisioner* provisionerOf(const QString& name) const;
    /// install() and uninstall() (EnvironmentInstall.cpp): the packages, wheels and channels of
    /// the latest revision that did not fail, changed by @p body's (InstallRequest), then
    /// startBuild().
    std::optional<Error> rebuild(const QString& id, const QJsonObject& body, bool remove,
                                 QJsonObject* out);
    /// What a revision is built from (its spec's `packages`, `wheels` and `channels`).
    struct RevisionInputs {
        QStringList packages;
        QList<UploadedWheels::Wheel> wheels;
        QStringList channels; ///< empty: all of the operator's
        QString indexUrl;     ///< the package index the build uses ("" = offline)
    };
    /// The network policy a build that reaches @p urls gets (EnvironmentProvisioner::
    /// networkUrls: domain-allowlist with exactly their `host:port`s, allowPrivateCidrs the
    /// operator's indexPrivateCidrs), as NetworkPolicy::toJson(); empty for none (no network).
    std::optional<Error> buildNetwork(const QStringList& urls, QJsonObject* out) const;
    std::optional<Error> startBuild(const EnvironmentRow& environment, const RevisionInputs& inputs,
                                    RevisionRow* out);
    /// The environment's store of uploaded wheels (UploadedWheels).
    QString wheelStoreOf(const QString& environmentId) const;
    /// Inserts @p row (id, name, language, provisioner set) with a new build workspace, then
    /// starts the build of its first revision with @p packages.
    std::optional<Error> insertWithBuild(EnvironmentRow* row, const QStringList& packages,
                                         RevisionRow* revision);
    /// The starters (EnvironmentStarters.cpp): checks their package settings at start-up
    /// (warnings to log; a bad one makes that starter unusable, saying why).
    QStringList checkStarters();
    /// Makes starter @p id exist and start building what its setting names when its latest
    /// revision was built from another list (or failed before this agent started); nullopt when
    /// it has a ready revision to run in.
    std::optional<Error> useStarter(const QString& id);
    /// The packages starter @p id is to hold now: its provisioner's initial packages, plus the
    /// setting's list where a package source is configured.
    QStringList starterPackages(const QString& id) const;
    QJsonObject startersJson() const;
    QJsonObject environmentJson(const EnvironmentRow& row) const;
    QString prefixOf(const QString& environmentId, const QString& revisionId) const;

    Dependencies m_deps;
    std::unique_ptr<EnvironmentRepository> m_repository;
    QHash<QString, QString> m_builds; ///< provisioning execution id → revision id
    QHash<QString, int> m_held;       ///< revision id → executions holding its prefix
    std::map<QString, std::unique_ptr<EnvironmentProvisioner>> m_provisioners; ///< by name
    QTimer* m_sweepTimer = nullptr;
    QHash<QString, QString> m_starterProblems; ///< starter id → why its setting is unusable
    QSet<QString> m_startersBuilt;             ///< starters this agent started a build of
};

} // namespace runbox::environments
