#pragma once

#include "agent/environments/EnvironmentSpec.h"
#include "agent/environments/RevisionFiles.h"
#include "agent/execution/ExecRequest.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace runbox::environments {

/// One way of building a revision of a science environment (docs/environments.md "Building a
/// revision"): the command of the provisioning execution, run inside a strong sandbox with no
/// network where the new revision's prefix is the only writable bind (at kPrefixMount) and the
/// operator's offline package sources are bound read-only (packageSources()). Every build
/// starts from an empty prefix and an emptied build workspace and installs the whole package
/// list; what the revision contains is then read by the agent from the prefix
/// (RevisionFiles::installedPackages with packageLayout()), never taken from the build.
/// Packages reach the build only as positional arguments (`sh -c SCRIPT sh PKG…`), after
/// EnvironmentSpec checked them with grammar().
class EnvironmentProvisioner {
public:
    /// Where every revision is built and later mounted (scripts and records embed the path).
    static constexpr char kPrefixMount[] = "/opt/science-env";

    virtual ~EnvironmentProvisioner() = default;

    /// What one build installs, checked (InstallRequest) and merged with the revision it
    /// starts from.
    struct BuildInputs {
        QStringList packages; ///< specs, checked with grammar()
        /// Paths inside the build of uploaded wheels (UploadedWheels::Wheel::buildPath), for a
        /// provisioner that takesWheels().
        QStringList wheelFiles;
        /// The channels to use, in order, each one of channels(); empty: all of them.
        QStringList channels;
        /// The package index this build installs from (indexUrl(); "" = offline). The build
        /// then reaches that host only, through the egress gateway's proxy.
        QString indexUrl;
    };

    /// "venv", "r-lib" or "micromamba" (the `provisioner` of an environment).
    virtual QString name() const = 0;
    /// The package manager its installs go through: "pip", "cran" or "conda" (an install's
    /// `manager`, when given, must be this one).
    virtual QString manager() const = 0;
    /// The operator's channels an install may choose among (none by default).
    virtual QStringList channels() const { return {}; }
    /// The operator's package index URL an install may use ("" = none: builds stay offline).
    virtual QString indexUrl() const { return {}; }
    /// The setting that names indexUrl() (for messages; "" where the provisioner takes none).
    virtual QString indexUrlSetting() const { return {}; }
    /// The operator's URLs a build of @p inputs reaches through the egress gateway (none: the
    /// build stays offline): by default its package index.
    virtual QStringList networkUrls(const BuildInputs& inputs) const {
        return inputs.indexUrl.isEmpty() ? QStringList() : QStringList{inputs.indexUrl};
    }
    /// Whether it installs wheels uploaded into a workspace (BuildInputs::wheelFiles).
    virtual bool takesWheels() const { return false; }
    /// Why this provisioner cannot build on this host ("" when it can).
    virtual QString unavailableReason() const = 0;
    /// Whether the operator asked for it (false for an optional one left unset: its being
    /// unavailable is then not warned about at start).
    virtual bool configured() const { return true; }
    /// The package grammar its installs are checked with.
    virtual EnvironmentSpec::Grammar grammar() const = 0;
    /// Where a built prefix records its packages (the snapshot the agent reads).
    virtual RevisionFiles::PackageLayout packageLayout() const = 0;
    /// A host directory a build sees read-only at @c mount.
    struct SourceMount {
        QString hostPath;
        QString mount;
    };
    /// An executable a build runs, as the bytes that were checked (bound read-only, mode 0555,
    /// at @c mount from a sealed memfd: what runs is what was hashed).
    struct BuildTool {
        QByteArray bytes;
        QString mount;
    };

    /// The operator's offline package sources (none configured: installs are 503), where a
    /// build sees each, and the setting that names them (for messages).
    virtual QList<SourceMount> packageSources() const = 0;
    virtual QString packageSourceSetting() const = 0;
    /// The tools a build runs besides the host's, and files it reads such as a CA bundle (none
    /// by default). Read and checked at every build; 503 (the build ends setup_failed) when one
    /// cannot be used.
    virtual std::optional<Error> buildTools(QList<BuildTool>* out) const {
        out->clear();
        return std::nullopt;
    }
    /// The packages of an environment's first revision in @p language (none by default).
    virtual QStringList initialPackages(const QString& language) const {
        Q_UNUSED(language);
        return {};
    }
    /// The provisioning request: kind `provision`, argv `/bin/sh -c SCRIPT sh PKG…`, the
    /// default timeout and output limit of @p limits.
    virtual execution::ExecRequest buildRequest(const BuildInputs& inputs,
                                                const execution::ExecLimits& limits) const = 0;
    /// Variables an execution that selects one of its revisions gets besides PATH.
    virtual QHash<QString, QString> executionEnvironment() const = 0;

    /// Where a build sees the operator's CA bundle for its package index (envIndexCaFile).
    static constexpr char kIndexCaMount[] = "/opt/runbox-index-ca.pem";
    static constexpr qint64 kMaxCaBytes = 4 << 20;

protected:
    /// Reads the operator's CA bundle @p caFile ("" = none: @p out stays empty) as the build
    /// tool at kIndexCaMount; 503 (environmentUnavailable) when it cannot be read or is over
    /// kMaxCaBytes.
    static std::optional<Error> indexCaTool(const QString& caFile, QList<BuildTool>* out);

    /// The request every provisioner's build is: kind `provision`, argv
    /// `/bin/sh -c SCRIPT sh PKG…` (@p script reads the packages as "$@"), the default timeout
    /// and output limit of @p limits.
    static execution::ExecRequest provisionRequest(const QString& script,
                                                   const QStringList& packages,
                                                   const execution::ExecLimits& limits) {
        execution::ExecRequest request;
        request.kind = QStringLiteral("provision");
        request.argv = QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script,
                                   QStringLiteral("sh")} +
                       packages;
        request.timeoutMs = limits.defaultTimeoutMs;
        request.maxOutputBytes = limits.defaultMaxOutputBytes;
        return request;
    }
};

} // namespace runbox::environments
