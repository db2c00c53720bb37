#pragma once

#include "agent/environments/EnvironmentProvisioner.h"

namespace runbox::environments {

/// The `r-lib` provisioner (docs/environments.md "Building a revision"): R from the host
/// (Debian's r-base-core under /usr/lib/R), packages installed from source with
/// install.packages(3) into the revision's own library `/opt/science-env/library`, from the
/// operator's local CRAN-like repository (RUNBOX_ENV_CRAN_REPOSITORY: a directory with
/// `src/contrib/PACKAGES`, as tools::write_PACKAGES makes it) bound read-only at
/// /opt/cran-repository and named `file:///opt/cran-repository` (no network), or, for a build
/// given the operator's CRAN-like repository URL (RUNBOX_ENV_CRAN_URL, BuildInputs::indexUrl),
/// from that URL through the egress gateway's proxy (R's libcurl reads `https_proxy`; the
/// operator's CA bundle reaches it as `CURL_CA_BUNDLE`: ?download.file). Dependencies
/// (Depends, Imports, LinkingTo) come from the same repository; a package that did not install
/// fails the build (install.packages only warns). The prefix gets `bin/R` and `bin/Rscript`
/// wrappers that run the host's R (/usr/lib/R/bin, which the masks of /usr/bin/R and
/// /usr/bin/Rscript leave alone) with `R_LIBS` and `R_LIBS_USER` the revision's library and
/// `R_LIBS_SITE` R's own base library, so the host's site libraries are not seen ("R
/// Installation and Administration" 6.1, Debian's /etc/R/Renviron keeps values already set).
class RLibProvisioner final : public EnvironmentProvisioner {
public:
    static constexpr char kRepositoryMount[] = "/opt/cran-repository";
    static constexpr char kLibrary[] = "/opt/science-env/library";

    /// @p repository: the host directory of the CRAN-like repository ("" = none); @p cranUrl:
    /// the operator's CRAN-like repository URL ("" = none), @p caFile the CA bundle builds
    /// trust for it ("" = R's own). Probes /usr/lib/R/bin/R and /usr/lib/R/bin/Rscript.
    explicit RLibProvisioner(QString repository, QString cranUrl = {}, QString caFile = {});

    QString name() const override { return QStringLiteral("r-lib"); }
    QString manager() const override { return QStringLiteral("cran"); }
    QString unavailableReason() const override { return m_unavailable; }
    EnvironmentSpec::Grammar grammar() const override { return EnvironmentSpec::Grammar::Cran; }
    RevisionFiles::PackageLayout packageLayout() const override {
        return RevisionFiles::PackageLayout::RLibrary;
    }
    QList<SourceMount> packageSources() const override {
        if (m_repository.isEmpty())
            return {};
        return {{m_repository, QLatin1String(kRepositoryMount)}};
    }
    QString packageSourceSetting() const override {
        return QStringLiteral("RUNBOX_ENV_CRAN_REPOSITORY or RUNBOX_ENV_CRAN_URL");
    }
    QString indexUrl() const override { return m_cranUrl; }
    QString indexUrlSetting() const override { return QStringLiteral("RUNBOX_ENV_CRAN_URL"); }
    /// The operator's CA bundle at kIndexCaMount, when one is configured.
    std::optional<Error> buildTools(QList<BuildTool>* out) const override {
        return indexCaTool(m_caFile, out);
    }
    /// Without packages only the library and the wrappers are made.
    execution::ExecRequest buildRequest(const BuildInputs& inputs,
                                        const execution::ExecLimits& limits) const override;
    /// None: the wrappers set R's library paths.
    QHash<QString, QString> executionEnvironment() const override { return {}; }

private:
    QString m_repository;
    QString m_cranUrl;
    QString m_caFile;
    QString m_unavailable;
};

} // namespace runbox::environments
