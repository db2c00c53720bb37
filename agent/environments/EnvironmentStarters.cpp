// EnvironmentService, the starters: `starter-python` and `starter-r`, built on their first use
// from the package settings (docs/environments.md "Starters"). The rest is
// EnvironmentService.cpp.
#include "agent/environments/EnvironmentProvisioner.h"
#include "agent/environments/EnvironmentService.h"

#include <QJsonArray>

namespace runbox::environments {

namespace {

/// One starter: its id (also its name), language, provisioner and the setting of its packages.
struct StarterKind {
    const char* id;
    const char* language;
    const char* provisioner;
    const char* setting;
};

constexpr StarterKind kStarters[] = {
    {"starter-python", "python", "venv", "RUNBOX_ENV_STARTER_PYTHON_PACKAGES"},
    {"starter-r", "r", "r-lib", "RUNBOX_ENV_STARTER_R_PACKAGES"},
};

const StarterKind* starterKind(const QString& id) {
    for (const StarterKind& kind : kStarters)
        if (id == QLatin1String(kind.id))
            return &kind;
    return nullptr;
}

Error notReady(const QString& id, const QString& why) {
    return Error{ErrorKind::Conflict, QStringLiteral("environment_not_ready"),
                 QStringLiteral("starter environment %1 %2").arg(id, why)};
}

} // namespace

bool EnvironmentService::isStarter(const QString& id) {
    return starterKind(id) != nullptr;
}

QStringList EnvironmentService::checkStarters() {
    QStringList warnings;
    for (const StarterKind& kind : kStarters) {
        const QString id = QLatin1String(kind.id);
        const QStringList& configured = id == QLatin1String("starter-r")
                                            ? m_deps.starterRPackages
                                            : m_deps.starterPythonPackages;
        const EnvironmentProvisioner* provisioner = provisionerOf(QLatin1String(kind.provisioner));
        if (!provisioner || configured.isEmpty())
            continue;
        QStringList parsed;
        if (auto err = EnvironmentSpec::checkPackages(QJsonArray::fromStringList(configured),
                                                      &parsed, provisioner->grammar())) {
            m_starterProblems.insert(
                id, QStringLiteral("%1 is not a package list: %2").arg(kind.setting, err->message));
            if (m_deps.starters)
                warnings << QStringLiteral("environments: %1 cannot be built: %2")
                                .arg(id, m_starterProblems.value(id));
        }
    }
    return warnings;
}

QStringList EnvironmentService::starterPackages(const QString& id) const {
    const StarterKind* kind = starterKind(id);
    const EnvironmentProvisioner* provisioner =
        kind ? provisionerOf(QLatin1String(kind->provisioner)) : nullptr;
    if (!provisioner)
        return {};
    QStringList packages = provisioner->initialPackages(QLatin1String(kind->language));
    // Without a package source a starter holds its interpreter only; once one is configured,
    // the next use builds the setting's packages (a changed list counts as a change).
    if (!provisioner->packageSources().isEmpty())
        packages = EnvironmentSpec::mergePackages(packages,
                                                  id == QLatin1String("starter-r")
                                                      ? m_deps.starterRPackages
                                                      : m_deps.starterPythonPackages,
                                                  provisioner->grammar());
    return packages;
}

std::optional<Error> EnvironmentService::useStarter(const QString& id) {
    const StarterKind* kind = starterKind(id);
    EnvironmentRow row;
    const bool exists = !m_repository->getEnvironment(id, &row);
    if (!m_deps.starters) {
        if (exists)
            return std::nullopt; // built before they were turned off: it stays usable
        return Error{ErrorKind::InvalidArgument, QStringLiteral("unknown_environment"),
                     QStringLiteral("environmentId %1: starter environments are turned off on "
                                    "this agent (RUNBOX_ENV_STARTERS)")
                         .arg(id)};
    }
    if (const QString problem = m_starterProblems.value(id); !problem.isEmpty())
        return Error{ErrorKind::Unavailable, QStringLiteral("starter_misconfigured"),
                     QStringLiteral("starter environment %1 cannot be built: %2").arg(id, problem)};
    const EnvironmentProvisioner* provisioner = provisionerOf(QLatin1String(kind->provisioner));
    if (const QString why = provisioner ? provisioner->unavailableReason() : QString();
        !provisioner || !why.isEmpty())
        return Error{ErrorKind::Unavailable, QStringLiteral("provisioner_unavailable"),
                     QStringLiteral("starter environment %1 needs the %2 provisioner, "
                                    "unavailable here: %3")
                         .arg(id, QLatin1String(kind->provisioner), why)};
    const QStringList packages = starterPackages(id);
    RevisionRow started;
    if (!exists) {
        row.id = id;
        row.name = id;
        row.language = QLatin1String(kind->language);
        row.provisioner = QLatin1String(kind->provisioner);
        if (auto err = insertWithBuild(&row, packages, &started))
            return err;
        m_startersBuilt.insert(id);
        return notReady(id, QStringLiteral("is being built on its first use (execution %1); "
                                           "run again once GET /v1/environments/%2 is ready")
                                .arg(started.executionId, id));
    }
    QList<RevisionRow> revisions;
    if (auto err = m_repository->listRevisions(id, &revisions))
        return err;
    QString building;
    for (const RevisionRow& r : std::as_const(revisions))
        if (r.status == QLatin1String("building"))
            building = r.executionId;
    if (building.isEmpty()) {
        // A new list (the setting or the package source changed), or a build that failed before
        // this agent started, is built once more; the current revision serves meanwhile.
        QStringList latest;
        if (!revisions.isEmpty())
            for (const QJsonValue& p :
                 revisions.constLast().spec.value(QLatin1String("packages")).toArray())
                latest.append(p.toString());
        const bool failedEarlier = !revisions.isEmpty() &&
                                   revisions.constLast().status == QLatin1String("failed") &&
                                   !m_startersBuilt.contains(id);
        if (revisions.isEmpty() || latest != packages || failedEarlier) {
            m_startersBuilt.insert(id);
            if (auto err = startBuild(row, RevisionInputs{packages, {}, {}, {}}, &started);
                err && row.currentRevisionId.isEmpty())
                return err;
            building = started.executionId;
        }
    }
    if (!row.currentRevisionId.isEmpty())
        return std::nullopt;
    if (!building.isEmpty())
        return notReady(id, QStringLiteral("is being built (execution %1); run again once GET "
                                           "/v1/environments/%2 is ready")
                                .arg(building, id));
    return notReady(id,
                    QStringLiteral("could not be built: %1 (its packages come from %2; the "
                                   "agent tries again after a restart)")
                        .arg(revisions.isEmpty() ? QString() : revisions.constLast().statusReason,
                             QLatin1String(kind->setting)));
}

QJsonObject EnvironmentService::startersJson() const {
    QJsonArray starters;
    for (const StarterKind& kind : kStarters) {
        const QString id = QLatin1String(kind.id);
        QJsonObject o{{"id", id},
                      {"language", QLatin1String(kind.language)},
                      {"provisioner", QLatin1String(kind.provisioner)},
                      {"packages", QJsonArray::fromStringList(starterPackages(id))}};
        EnvironmentRow row;
        o.insert(QStringLiteral("status"),
                 m_repository->getEnvironment(id, &row)
                     ? QStringLiteral("not_built")
                     : environmentJson(row).value(QLatin1String("status")).toString());
        if (const QString problem = m_starterProblems.value(id); !problem.isEmpty())
            o.insert(QStringLiteral("problem"), problem);
        starters.append(o);
    }
    return {{"enabled", m_deps.starters}, {"environments", starters}};
}

} // namespace runbox::environments
