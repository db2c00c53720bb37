#pragma once

#include <QCoreApplication>
#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace runbox::console {

/// One revision of a science environment as `GET /v1/environments/{id}/revisions` lists it
/// (docs/environments.md "Model"): immutable once built, `building` | `ready` | `failed`.
struct EnvironmentRevision {
    QString id; ///< `r` + 16 hex
    QString environmentId;
    int seq = 0;
    QString status;
    QString provisioner;  ///< from the spec
    QStringList packages; ///< the packages of the spec that produced it
    QString executionId;  ///< the provisioning (build) execution
    QString statusReason; ///< why it failed, when it did
    QString snapshotSha256;
    QDateTime createdAt, finishedAt, prefixRemovedAt; ///< UTC; invalid when unknown / none

    static EnvironmentRevision fromJson(const QJsonObject& o);
    /// Every revision of a `{"revisions":[…]}` answer, newest (highest seq) first.
    static QList<EnvironmentRevision> listFromJson(const QJsonObject& answer);
};

/// The package snapshot of a ready revision (`GET /v1/environment-revisions/{id}/snapshot`):
/// `pip list` of the built prefix, sorted by name, with its SHA-256.
struct PackageSnapshot {
    QString revisionId;
    QString environmentId;
    QString sha256;
    QList<QPair<QString, QString>> packages; ///< name, version

    static PackageSnapshot fromJson(const QJsonObject& o);
};

/// The answer to `POST /v1/environments/{id}/install` or `/uninstall` (202), and the build part
/// of `POST /v1/environments` (201): which revision builds in which execution.
struct EnvironmentBuild {
    QString environmentId;
    QString revisionId; ///< empty for a create (the environment carries no revision id yet)
    QString executionId;
    QString status;

    static EnvironmentBuild fromJson(const QJsonObject& o);
};

/// One science environment as `GET /v1/environments[/{id}]` returns it (docs/environments.md):
/// its status is `building` while a revision builds, else its latest revision's; one whose latest
/// build failed stays usable at its current revision and says why in `lastBuildFailure`.
struct EnvironmentInfo {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::EnvironmentInfo)

public:
    QString id; ///< `e` + 16 hex
    QString name;
    QString language;          ///< python | r
    QString provisioner;       ///< venv | r-lib | micromamba
    QString status;            ///< building | ready | failed
    QString currentRevisionId; ///< empty until a first build succeeded
    int revisionCount = 0;
    QString lastBuildFailure;
    QDateTime createdAt;
    QJsonObject raw; ///< the object as received

    static EnvironmentInfo fromJson(const QJsonObject& o);
    /// Every environment of a `{"environments":[…]}` answer, in the agent's order.
    static QList<EnvironmentInfo> listFromJson(const QJsonObject& answer);
    /// Whether an execution can name it (it has a ready current revision).
    bool isUsable() const { return !currentRevisionId.isEmpty(); }

    /// Translated label of an environment's or revision's status ("Building").
    static QString statusLabel(const QString& status);
    /// Translated label of a language ("Python", "R").
    static QString languageLabel(const QString& language);
    /// Resource path of the icon drawn for a status.
    static QString statusIcon(const QString& status);

    /// Splits what an operator typed into package requirements: one per line or separated by
    /// spaces or commas; blank parts and `#` comments are dropped.
    static QStringList parsePackages(const QString& text);
    /// Translated problems the agent would refuse a package list with (400 `invalid_packages`,
    /// EnvironmentSpec::checkPackages): empty, more than 200, longer than 160 characters, an
    /// option, a path, URL, direct reference or marker. Empty when it can be sent.
    static QStringList packageProblems(const QStringList& packages);
    /// Translated reason @p name is refused (400 `invalid_environment_name`), empty when fine:
    /// 1–80 characters of `^[A-Za-z0-9][A-Za-z0-9 ._-]*$`.
    static QString nameProblem(const QString& name);
};

} // namespace runbox::console
