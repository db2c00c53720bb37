#include "agent/environments/RLibProvisioner.h"

#include <QFileInfo>

namespace runbox::environments {

namespace {

/// Run by the prefix's Rscript with the packages as trailing arguments: installs them from
/// RUNBOX_CRAN_URL when the build has one, else from the local repository; fails when one is
/// missing afterwards.
constexpr char kInstallScript[] = R"R(
lib <- "/opt/science-env/library"
pkgs <- commandArgs(trailingOnly = TRUE)
repo <- Sys.getenv("RUNBOX_CRAN_URL", "file:///opt/cran-repository")
if (length(pkgs) > 0) {
  install.packages(pkgs, lib = lib, repos = repo, type = "source",
                   dependencies = NA, Ncpus = 1L)
  missing <- setdiff(pkgs, rownames(installed.packages(lib.loc = lib)))
  if (length(missing) > 0) stop("not installed: ", paste(missing, collapse = ", "))
}
)R";

} // namespace

RLibProvisioner::RLibProvisioner(QString repository, QString cranUrl, QString caFile)
    : m_repository(std::move(repository)), m_cranUrl(std::move(cranUrl)),
      m_caFile(std::move(caFile)) {
    for (const char* tool : {"/usr/lib/R/bin/R", "/usr/lib/R/bin/Rscript"})
        if (!QFileInfo(QLatin1String(tool)).isExecutable()) {
            m_unavailable = QStringLiteral("%1 is missing (install r-base-core)").arg(tool);
            break;
        }
}

execution::ExecRequest RLibProvisioner::buildRequest(const BuildInputs& inputs,
                                                     const execution::ExecLimits& limits) const {
    const QStringList& packages = inputs.packages;
    const QString prefix = QLatin1String(kPrefixMount);
    // The wrappers: the host's R with the revision's library first and no site library.
    QString script =
        QStringLiteral(
            "set -eu\n"
            "cd /tmp\n"
            "echo 'runbox: creating the R library at %2'\n"
            "mkdir -p %1/bin %2\n"
            "for tool in R Rscript; do\n"
            "  printf '#!/bin/sh\\nR_LIBS=%2\\nR_LIBS_USER=%2\\nR_LIBS_SITE=/usr/lib/R/library\\n"
            "export R_LIBS R_LIBS_USER R_LIBS_SITE\\nexec /usr/lib/R/bin/%s \"$@\"\\n' "
            "\"$tool\" > %1/bin/$tool\n"
            "  chmod 755 %1/bin/$tool\n"
            "done\n")
            .arg(prefix, QLatin1String(kLibrary));
    if (!packages.isEmpty())
        script += QStringLiteral("echo \"runbox: installing $*\"\n");
    script += QStringLiteral("%1/bin/Rscript --vanilla -e '%2' \"$@\"\n"
                             "echo 'runbox: revision built'\n")
                  .arg(prefix, QString::fromLatin1(kInstallScript).trimmed());
    execution::ExecRequest request = provisionRequest(script, packages, limits);
    // The URL and the CA bundle reach R through its environment, never through the shell's or
    // R's parsing.
    if (!inputs.indexUrl.isEmpty()) {
        request.env.insert(QStringLiteral("RUNBOX_CRAN_URL"), inputs.indexUrl);
        if (!m_caFile.isEmpty())
            request.env.insert(QStringLiteral("CURL_CA_BUNDLE"), QLatin1String(kIndexCaMount));
    }
    return request;
}

} // namespace runbox::environments
