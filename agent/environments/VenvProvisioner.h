#pragma once

#include "agent/environments/EnvironmentProvisioner.h"

namespace runbox::environments {

/// The `venv` provisioner (docs/environments.md "Building a revision"): Python from the host,
/// packages from the operator's offline wheelhouse (RUNBOX_ENV_WHEELHOUSE) bound read-only at
/// /opt/wheelhouse. The build runs
///
///     cd /tmp
///     python3 -I -m venv --copies /opt/science-env
///     /opt/science-env/bin/python3 -I -m pip install --no-index --find-links /opt/wheelhouse
///         --no-cache-dir --disable-pip-version-check --no-input -- PKG…
///
/// or, with the operator's package index (BuildInputs::indexUrl), `--index-url URL` instead of
/// `--no-index` (URL in PIP_INDEX_URL; PIP_CERT=/opt/runbox-index-ca.pem with the operator's CA
/// bundle): the build's network is then that one host through the egress gateway's proxy
/// (EnvironmentService::buildNetwork, EgressStage's HTTPS_PROXY).
/// (`-I`: no current directory, user site or PYTHON* variable can put a module before the
/// standard library's; python(1)).
/// `--copies` gives the prefix its own interpreter, so masking the host's under /usr/bin does
/// not break it (venv(1)); the packages reach pip only after `--`, as positional arguments of
/// `sh -c` ("$@"), never where pip or the shell parses options (CODING_GUIDELINES.md "System
/// resources").
class VenvProvisioner final : public EnvironmentProvisioner {
public:
    static constexpr char kWheelhouseMount[] = "/opt/wheelhouse";

    /// @p wheelhouse: the host directory of wheels ("" = none); @p indexUrl: the operator's
    /// package index ("" = none), @p indexCaFile the CA bundle pip trusts for it ("" = pip's
    /// own). Probes the host's /usr/bin/python3 and its ensurepip (Debian's python3-venv).
    explicit VenvProvisioner(QString wheelhouse, QString indexUrl = {}, QString indexCaFile = {});

    QString name() const override { return QStringLiteral("venv"); }
    QString manager() const override { return QStringLiteral("pip"); }
    /// Wheels uploaded into a workspace: installed by file, their dependencies from the
    /// wheelhouse (or among themselves when none is configured).
    bool takesWheels() const override { return true; }
    QString indexUrl() const override { return m_indexUrl; }
    QString indexUrlSetting() const override { return QStringLiteral("RUNBOX_ENV_INDEX_URL"); }
    QString unavailableReason() const override { return m_unavailable; }
    EnvironmentSpec::Grammar grammar() const override { return EnvironmentSpec::Grammar::Pip; }
    RevisionFiles::PackageLayout packageLayout() const override {
        return RevisionFiles::PackageLayout::PythonSitePackages;
    }
    QList<SourceMount> packageSources() const override {
        if (m_wheelhouse.isEmpty())
            return {};
        return {{m_wheelhouse, QLatin1String(kWheelhouseMount)}};
    }
    QString packageSourceSetting() const override {
        return QStringLiteral("RUNBOX_ENV_WHEELHOUSE");
    }
    /// The operator's CA bundle at kIndexCaMount, when one is configured.
    std::optional<Error> buildTools(QList<BuildTool>* out) const override;
    /// Without packages no pip install runs (a bare venv).
    execution::ExecRequest buildRequest(const BuildInputs& inputs,
                                        const execution::ExecLimits& limits) const override;
    /// `VIRTUAL_ENV=/opt/science-env`.
    QHash<QString, QString> executionEnvironment() const override;

private:
    QString m_wheelhouse;
    QString m_indexUrl;
    QString m_indexCaFile;
    QString m_unavailable;
};

} // namespace runbox::environments
