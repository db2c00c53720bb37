#include "agent/environments/EnvironmentService.h"

#include "agent/config/IndexUrl.h"
#include "agent/egress/NetworkEpoch.h"
#include "agent/egress/NetworkPolicy.h"
#include "agent/environments/EnvironmentErrors.h"
#include "agent/environments/EnvironmentSnapshot.h"
#include "agent/environments/EnvironmentSpec.h"
#include "agent/environments/EnvironmentStage.h"
#include "agent/environments/MicromambaProvisioner.h"
#include "agent/environments/RLibProvisioner.h"
#include "agent/environments/RevisionFiles.h"
#include "agent/environments/UploadedWheels.h"
#include "agent/environments/VenvProvisioner.h"
#include "agent/execution/ExecutionManager.h"
#include "agent/store/ExecutionRecord.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/workspace/WorkspaceRegistry.h"
#include "shared/Crypto.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace runbox::environments {

namespace {

constexpr qsizetype kMaxSnapshotBytes = 1 << 20;
const QString kRevisionField = QLatin1String(EnvironmentStage::kRevisionField);
const QString kEnvironmentField = QLatin1String(EnvironmentService::kEnvironmentField);
const QString kBuildField = QLatin1String(EnvironmentStage::kBuildField);

QString newId(char prefix) {
    return QChar(prefix) + QString::fromLatin1(crypto::randomBytes(8).toHex());
}

std::optional<Error> checkIdField(const QJsonValue& value) {
    if (value.isUndefined() || value.isNull() || value.isString())
        return std::nullopt;
    return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_request"),
                 QStringLiteral("environmentId and environmentRevisionId must be strings")};
}

/// The epoch contributor: the selection and the build marker as the request carries them once
/// resolveSelection() / startBuild() set them. A build never gets the policy in force
/// (docs/environments.md "Building a revision"): its egress sections say mode none, so
/// EgressStage adds nothing, or, for a build from the operator's package index, the build's own
/// policy (startBuild: its `network`, that one host). Registered after the egress feature's
/// contributor.
void recordInto(const execution::ExecRequest& request, execution::PermissionEpoch* epoch) {
    epoch->environmentId = request.features.value(kEnvironmentField).toString();
    for (const QString& field : {kRevisionField, kBuildField})
        if (request.hasFeature(field))
            epoch->features.insert(field, request.features.value(field));
    if (request.hasFeature(kBuildField)) {
        epoch->environmentId = request.features.value(kBuildField)
                                   .toObject()
                                   .value(QLatin1String("environmentId"))
                                   .toString();
        const QJsonObject network = request.features.value(kBuildField)
                                        .toObject()
                                        .value(QLatin1String("network"))
                                        .toObject();
        Error error;
        const std::optional<egress::NetworkPolicy> policy =
            network.isEmpty() ? std::nullopt : egress::NetworkPolicy::fromJson(network, &error);
        // A policy that does not parse (never: startBuild made it) leaves the build offline.
        (policy ? egress::NetworkEpoch::of(*policy) : egress::NetworkEpoch{}).writeInto(epoch);
    }
}

} // namespace

EnvironmentService::EnvironmentService(Dependencies deps, QObject* parent)
    : QObject(parent), m_deps(std::move(deps)),
      m_repository(std::make_unique<EnvironmentRepository>(*m_deps.database)) {
    auto add = [this](std::unique_ptr<EnvironmentProvisioner> p) {
        const QString name = p->name();
        m_provisioners[name] = std::move(p);
    };
    add(std::make_unique<VenvProvisioner>(m_deps.wheelhouse, m_deps.indexUrl, m_deps.indexCaFile));
    add(std::make_unique<RLibProvisioner>(m_deps.cranRepository, m_deps.cranUrl,
                                          m_deps.indexCaFile));
    add(std::make_unique<MicromambaProvisioner>(m_deps.micromamba, m_deps.micromambaSha256,
                                                m_deps.condaChannels, m_deps.condaChannelUrls,
                                                m_deps.indexCaFile));
}

const EnvironmentProvisioner* EnvironmentService::provisionerOf(const QString& name) const {
    const auto it = m_provisioners.find(name);
    return it == m_provisioners.end() ? nullptr : it->second.get();
}

EnvironmentService::~EnvironmentService() = default;

QStringList EnvironmentService::start() {
    QStringList warnings;
    execution::ExecutionManager* manager = m_deps.manager;
    manager->addRequestFeature(kEnvironmentField, &checkIdField);
    manager->addRequestFeature(kRevisionField, &checkIdField);
    manager->addEpochContributor(&recordInto);
    connect(manager, &execution::ExecutionManager::executionFinished, this,
            &EnvironmentService::onExecutionFinished);
    QList<RevisionRow> unfinished;
    if (auto err = m_repository->failUnfinished(&unfinished))
        warnings << QStringLiteral("environments: %1").arg(err->message);
    for (const RevisionRow& r : std::as_const(unfinished)) {
        workspace::removeTree(r.prefixPath);
        warnings << QStringLiteral("environments: revision %1 of %2 was building when the agent "
                                   "stopped: marked failed, its prefix removed")
                        .arg(r.id, r.environmentId);
    }
    // An optional provisioner nobody configured is not a degradation worth a warning (health
    // still says why it is unavailable).
    for (const auto& [name, provisioner] : m_provisioners)
        if (const QString why = provisioner->unavailableReason();
            !why.isEmpty() && provisioner->configured())
            warnings << QStringLiteral("environments: the %1 provisioner is unavailable: %2")
                            .arg(name, why);
    warnings << checkStarters();
    m_sweepTimer = new QTimer(this);
    m_sweepTimer->setInterval(int(std::clamp<qint64>(m_deps.revisionGraceMs / 2, 500, 60000)));
    connect(m_sweepTimer, &QTimer::timeout, this, &EnvironmentService::sweepRevisions);
    m_sweepTimer->start();
    for (const auto& [name, provisioner] : m_provisioners)
        for (const EnvironmentProvisioner::SourceMount& source : provisioner->packageSources())
            if (!QFileInfo(source.hostPath).isDir())
                warnings << QStringLiteral("environments: %1 (%2) is not a directory: %3 "
                                           "installs will fail")
                                .arg(provisioner->packageSourceSetting(), source.hostPath, name);
    return warnings;
}

QString EnvironmentService::prefixOf(const QString& environmentId,
                                     const QString& revisionId) const {
    return m_deps.stateDir + QStringLiteral("/environments/") + environmentId + '/' + revisionId;
}

QJsonObject EnvironmentService::environmentJson(const EnvironmentRow& row) const {
    QList<RevisionRow> revisions;
    m_repository->listRevisions(row.id, &revisions);
    QString status = QStringLiteral("failed");
    QString lastFailure;
    for (const RevisionRow& r : std::as_const(revisions))
        if (r.status == QLatin1String("building"))
            status = r.status;
    if (status != QLatin1String("building") && !revisions.isEmpty()) {
        status = revisions.constLast().status;
        if (status == QLatin1String("failed"))
            lastFailure = revisions.constLast().statusReason;
    }
    QJsonObject o{{"id", row.id},
                  {"name", row.name},
                  {"language", row.language},
                  {"provisioner", row.provisioner},
                  {"status", status},
                  {"currentRevisionId", row.currentRevisionId.isEmpty()
                                            ? QJsonValue()
                                            : QJsonValue(row.currentRevisionId)},
                  {"revisionCount", int(revisions.size())},
                  {"createdAt", store::isoTimestamp(row.createdMs)}};
    // An environment whose latest build failed is still usable at its last good revision.
    if (!lastFailure.isEmpty())
        o.insert(QStringLiteral("lastBuildFailure"), lastFailure);
    return o;
}

QJsonObject EnvironmentService::healthJson() const {
    QJsonObject provisioners;
    for (const auto& [name, provisioner] : m_provisioners) {
        const QString why = provisioner->unavailableReason();
        provisioners.insert(name, QJsonObject{{"available", why.isEmpty()}, {"reason", why}});
    }
    QList<EnvironmentRow> rows;
    m_repository->listEnvironments(&rows);
    const auto pathOrNull = [](const QString& path) {
        return path.isEmpty() ? QJsonValue() : QJsonValue(path);
    };
    return {{"provisioners", provisioners},
            {"wheelhouse", pathOrNull(m_deps.wheelhouse)},
            {"cranRepository", pathOrNull(m_deps.cranRepository)},
            {"indexUrl", pathOrNull(m_deps.indexUrl)},
            {"cranUrl", pathOrNull(m_deps.cranUrl)},
            {"condaChannelUrls", QJsonArray::fromStringList(m_deps.condaChannelUrls)},
            {"environments", int(rows.size())},
            {"starters", startersJson()}};
}

std::optional<Error> EnvironmentService::list(QJsonObject* out) const {
    QList<EnvironmentRow> rows;
    if (auto err = m_repository->listEnvironments(&rows))
        return err;
    QJsonArray array;
    for (const EnvironmentRow& row : std::as_const(rows))
        array.append(environmentJson(row));
    *out = QJsonObject{{"environments", array}};
    return std::nullopt;
}

std::optional<Error> EnvironmentService::get(const QString& id, QJsonObject* out) const {
    EnvironmentRow row;
    if (auto err = m_repository->getEnvironment(id, &row))
        return err;
    *out = environmentJson(row);
    return std::nullopt;
}

std::optional<Error> EnvironmentService::create(const QJsonObject& body, QJsonObject* out) {
    if (auto err = execution::refuseUnknownFields(body, {"name", "language", "provisioner"}))
        return *err;
    EnvironmentRow row;
    if (auto err = EnvironmentSpec::checkName(body.value(QLatin1String("name"))))
        return err;
    if (auto err = EnvironmentSpec::checkLanguage(body.value(QLatin1String("language"))))
        return err;
    row.language = body.value(QLatin1String("language")).toString();
    if (auto err = EnvironmentSpec::checkProvisioner(body.value(QLatin1String("provisioner")),
                                                     row.language, &row.provisioner))
        return err;
    const EnvironmentProvisioner* provisioner = provisionerOf(row.provisioner);
    if (const QString why = provisioner ? provisioner->unavailableReason() : QString();
        !provisioner || !why.isEmpty())
        return Error{
            ErrorKind::Unavailable, QStringLiteral("provisioner_unavailable"),
            QStringLiteral("the %1 provisioner is unavailable here: %2").arg(row.provisioner, why)};
    row.id = newId('e');
    row.name = body.value(QLatin1String("name")).toString();
    if (isStarter(row.name))
        return Error{ErrorKind::InvalidArgument, QStringLiteral("invalid_environment_name"),
                     QStringLiteral("the name %1 is the starter environment's (docs/"
                                    "environments.md \"Starters\"): choose another")
                         .arg(row.name)};
    RevisionRow revision;
    if (auto err = insertWithBuild(&row, provisioner->initialPackages(row.language), &revision))
        return err;
    *out = environmentJson(row);
    out->insert(QStringLiteral("executionId"), revision.executionId);
    return std::nullopt;
}

std::optional<Error> EnvironmentService::insertWithBuild(EnvironmentRow* row,
                                                         const QStringList& packages,
                                                         RevisionRow* revision) {
    row->createdMs = QDateTime::currentMSecsSinceEpoch();
    QList<EnvironmentRow> existing;
    if (auto err = m_repository->listEnvironments(&existing))
        return err;
    for (const EnvironmentRow& e : std::as_const(existing))
        if (e.name == row->name)
            return Error{
                ErrorKind::Conflict, QStringLiteral("environment_exists"),
                QStringLiteral("an environment named \"%1\" exists (%2)").arg(row->name, e.id)};
    workspace::Workspace build;
    if (auto err =
            m_deps.workspaces->create(QStringLiteral("agent:environment:") + row->id, &build))
        return err;
    row->buildWorkspaceId = build.id;
    if (auto err = m_repository->insertEnvironment(*row)) {
        m_deps.workspaces->remove(build.id);
        return err;
    }
    return startBuild(*row, RevisionInputs{packages, {}, {}, {}}, revision);
}

std::optional<Error> EnvironmentService::startBuild(const EnvironmentRow& environment,
                                                    const RevisionInputs& inputs,
                                                    RevisionRow* out) {
    const QStringList& packages = inputs.packages;
    const workspace::Workspace* build = m_deps.workspaces->find(environment.buildWorkspaceId);
    const EnvironmentProvisioner* provisioner = provisionerOf(environment.provisioner);
    if (!provisioner)
        return environmentUnavailable(
            QStringLiteral("this agent has no %1 provisioner").arg(environment.provisioner));
    if (!build)
        return environmentUnavailable(
            QStringLiteral("the build workspace of environment %1 is gone").arg(environment.id));
    RevisionRow revision;
    revision.id = newId('r');
    revision.environmentId = environment.id;
    revision.status = QStringLiteral("building");
    revision.prefixPath = prefixOf(environment.id, revision.id);
    revision.createdMs = QDateTime::currentMSecsSinceEpoch();
    QJsonArray sources;
    for (const EnvironmentProvisioner::SourceMount& source : provisioner->packageSources())
        sources.append(source.hostPath);
    revision.spec = QJsonObject{{"provisioner", environment.provisioner},
                                {"packages", QJsonArray::fromStringList(packages)},
                                {"packageSources", packages.isEmpty() ? QJsonArray() : sources}};
    if (!inputs.wheels.isEmpty())
        revision.spec.insert(QStringLiteral("wheels"), UploadedWheels::toJson(inputs.wheels));
    if (!inputs.channels.isEmpty())
        revision.spec.insert(QStringLiteral("channels"),
                             QJsonArray::fromStringList(inputs.channels));
    EnvironmentProvisioner::BuildInputs buildInputs{packages, {}, inputs.channels, inputs.indexUrl};
    for (const UploadedWheels::Wheel& wheel : inputs.wheels)
        buildInputs.wheelFiles.append(wheel.buildPath());
    QJsonObject network;
    if (auto err = buildNetwork(provisioner->networkUrls(buildInputs), &network))
        return err;
    if (!inputs.indexUrl.isEmpty())
        revision.spec.insert(QStringLiteral("indexUrl"), inputs.indexUrl);
    // A fresh, empty prefix: never a copy or a hard link of an earlier revision.
    const QByteArray prefix = QFile::encodeName(revision.prefixPath);
    // Nobody but the agent lists environments or revisions: their directories are 0711 (bwrap,
    // running as a sandbox uid, resolves the prefix descriptor it is handed to its path, so
    // the path must stay traversable; the ids are 64 random bits).
    const QString environmentDir = QFileInfo(revision.prefixPath).path();
    if (!QDir().mkpath(environmentDir) ||
        ::chmod(QFile::encodeName(QFileInfo(environmentDir).path()).constData(), 0711) != 0 ||
        ::chmod(QFile::encodeName(environmentDir).constData(), 0711) != 0 ||
        ::mkdir(prefix.constData(), 0755) != 0 ||
        (build->uid && ::chown(prefix.constData(), *build->uid, *build->uid) != 0))
        return Error{ErrorKind::Internal, QStringLiteral("environment_build_failed"),
                     QStringLiteral("cannot make the prefix of revision %1").arg(revision.id)};
    if (auto err = m_repository->insertRevision(&revision)) {
        workspace::removeTree(revision.prefixPath);
        return err;
    }
    execution::ExecRequest request =
        provisioner->buildRequest(buildInputs, m_deps.manager->limits());
    QJsonObject buildField{{"revisionId", revision.id}, {"environmentId", environment.id}};
    if (!network.isEmpty())
        buildField.insert(QStringLiteral("network"), network);
    request.features.insert(kBuildField, buildField);
    store::ExecutionRecord record;
    if (auto err = m_deps.manager->submit(request, build->id, &record)) {
        m_repository->finishRevision(revision.id, false, {}, {}, err->message);
        workspace::removeTree(revision.prefixPath);
        return *err;
    }
    revision.executionId = record.executionId;
    m_repository->setRevisionExecution(revision.id, record.executionId);
    m_builds.insert(record.executionId, revision.id);
    *out = revision;
    return std::nullopt;
}

std::optional<Error> EnvironmentService::buildNetwork(const QStringList& urls,
                                                      QJsonObject* out) const {
    *out = QJsonObject();
    if (urls.isEmpty())
        return std::nullopt;
    QJsonArray allowed;
    for (const QString& url : urls) {
        config::IndexUrl index;
        QString why;
        if (!config::IndexUrl::parse(url, &index, &why))
            return environmentUnavailable(
                QStringLiteral("the package source %1 cannot be reached: %2").arg(url, why));
        if (!allowed.contains(index.allowlistEntry()))
            allowed.append(index.allowlistEntry());
    }
    Error error;
    const std::optional<egress::NetworkPolicy> policy = egress::NetworkPolicy::fromJson(
        QJsonObject{{"mode", "domain-allowlist"},
                    {"allowedDomains", allowed},
                    {"allowPrivateCidrs", QJsonArray::fromStringList(m_deps.indexPrivateCidrs)}},
        &error);
    if (!policy)
        return environmentUnavailable(QStringLiteral("the package sources %1 cannot be reached: %2")
                                          .arg(urls.join(QLatin1String(", ")), error.message));
    *out = policy->toJson();
    return std::nullopt;
}

void EnvironmentService::onExecutionFinished(const QString& executionId) {
    const QString revisionId = m_builds.take(executionId);
    if (revisionId.isEmpty())
        return;
    RevisionRow revision;
    EnvironmentRow environment;
    store::ExecutionRecord record;
    if (m_repository->getRevision(revisionId, &revision) ||
        m_repository->getEnvironment(revision.environmentId, &environment) ||
        m_deps.manager->get(executionId, &record))
        return;
    QString reason;
    EnvironmentSnapshot snapshot;
    if (record.state != store::ExecutionState::Completed) {
        reason = QStringLiteral("the build ended %1: %2")
                     .arg(store::toString(record.state), record.statusReason);
    } else if (const EnvironmentProvisioner* provisioner = provisionerOf(environment.provisioner);
               !provisioner) {
        reason = QStringLiteral("this agent has no %1 provisioner").arg(environment.provisioner);
    } else {
        // Every process of the build is gone: the agent makes the prefix its own and reads
        // what it contains itself; nothing the build wrote decides either
        // (docs/environments.md "Sealing and the snapshot").
        QJsonArray packages;
        auto err = RevisionFiles::seal(revision.prefixPath);
        if (!err)
            err = RevisionFiles::installedPackages(revision.prefixPath,
                                                   provisioner->packageLayout(), &packages);
        if (!err)
            err = EnvironmentSnapshot::fromPipList(QJsonDocument(packages).toJson(), &snapshot,
                                                   kMaxSnapshotBytes);
        if (err)
            reason = err->message;
    }
    // The current revision moves only here, with a verified snapshot (finishRevision).
    m_repository->finishRevision(revisionId, reason.isEmpty(), snapshot.json, snapshot.sha256,
                                 reason);
    if (!reason.isEmpty())
        workspace::removeTree(revision.prefixPath);
}

std::optional<Error> EnvironmentService::remove(const QString& id) {
    EnvironmentRow row;
    if (auto err = m_repository->getEnvironment(id, &row))
        return err;
    if (isStarter(id))
        return starterReadOnly(id);
    QList<RevisionRow> revisions;
    if (auto err = m_repository->listRevisions(id, &revisions))
        return err;
    const std::optional<QSet<QString>> used = revisionsInUse();
    if (!used)
        return environmentUnavailable(
            QStringLiteral("cannot read which executions use environment %1").arg(id));
    for (const RevisionRow& r : std::as_const(revisions)) {
        if (r.status == QLatin1String("building"))
            return Error{ErrorKind::Conflict, QStringLiteral("environment_building"),
                         QStringLiteral("revision %1 of environment %2 is being built (execution "
                                        "%3): cancel it or wait")
                             .arg(r.id, id, r.executionId)};
        if (used->contains(r.id))
            return Error{ErrorKind::Conflict, QStringLiteral("environment_in_use"),
                         QStringLiteral("revision %1 of environment %2 is used by a queued or "
                                        "running execution")
                             .arg(r.id, id)};
    }
    if (auto err = m_repository->markEnvironmentDeleted(id))
        return err;
    workspace::removeTree(m_deps.stateDir + QStringLiteral("/environments/") + id);
    if (!row.buildWorkspaceId.isEmpty())
        m_deps.workspaces->remove(row.buildWorkspaceId);
    return std::nullopt;
}

std::optional<Error> EnvironmentService::revisions(const QString& id, QJsonObject* out) const {
    EnvironmentRow row;
    if (auto err = m_repository->getEnvironment(id, &row))
        return err;
    QList<RevisionRow> rows;
    if (auto err = m_repository->listRevisions(id, &rows))
        return err;
    QJsonArray array;
    for (const RevisionRow& r : std::as_const(rows))
        array.append(r.toJson());
    *out = QJsonObject{{"revisions", array}};
    return std::nullopt;
}

std::optional<Error> EnvironmentService::snapshot(const QString& revisionId,
                                                  QJsonObject* out) const {
    RevisionRow r;
    if (auto err = m_repository->getRevision(revisionId, &r))
        return err;
    if (r.status != QLatin1String("ready"))
        return Error{ErrorKind::Conflict, QStringLiteral("snapshot_unavailable"),
                     QStringLiteral("revision %1 is %2: only a ready revision has a snapshot")
                         .arg(revisionId, r.status)};
    QJsonArray packages;
    if (auto err = EnvironmentSnapshot::verify(r.snapshot, r.snapshotSha256, &packages))
        return err;
    *out = QJsonObject{{"revisionId", r.id},
                       {"environmentId", r.environmentId},
                       {"sha256", r.snapshotSha256},
                       {"packages", packages}};
    return std::nullopt;
}

} // namespace runbox::environments
