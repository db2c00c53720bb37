#include "agent/environments/VenvProvisioner.h"

#include "agent/environments/EnvironmentErrors.h"

#include <QFile>
#include <QFileInfo>

namespace runbox::environments {

VenvProvisioner::VenvProvisioner(QString wheelhouse, QString indexUrl, QString indexCaFile)
    : m_wheelhouse(std::move(wheelhouse)), m_indexUrl(std::move(indexUrl)),
      m_indexCaFile(std::move(indexCaFile)) {
    // python3 -m venv needs the host's interpreter and its ensurepip (python3-venv on Debian).
    const QFileInfo python(QStringLiteral("/usr/bin/python3"));
    const QString ensurepip = QStringLiteral("/usr/lib/%1/ensurepip/__init__.py")
                                  .arg(QFileInfo(python.canonicalFilePath()).fileName());
    if (!python.exists())
        m_unavailable = QStringLiteral("/usr/bin/python3 is missing (install python3)");
    else if (!QFileInfo::exists(ensurepip))
        m_unavailable = QStringLiteral("%1 is missing (install python3-venv)").arg(ensurepip);
}

execution::ExecRequest VenvProvisioner::buildRequest(const BuildInputs& inputs,
                                                     const execution::ExecLimits& limits) const {
    // Uploaded wheels go to pip as files, after the specs; the agent made their paths.
    const QStringList packages = inputs.packages + inputs.wheelFiles;
    const QString prefix = QLatin1String(kPrefixMount);
    // Isolated mode and /tmp as the current directory: nothing planted in the build workspace
    // or the environment can run as venv's or pip's own modules.
    QString script = QStringLiteral("set -eu\n"
                                    "cd /tmp\n"
                                    "echo 'runbox: creating the venv at %1'\n"
                                    "/usr/bin/python3 -I -m venv --copies %1\n")
                         .arg(prefix);
    // Dependencies come from the wheelhouse when one is configured, else only from the
    // uploaded wheels themselves; with an index, from it too. The URL and the CA bundle reach
    // pip through its environment (PIP_INDEX_URL, PIP_CERT: pip's own subprocesses, such as a
    // build-dependency install, inherit them), never through the shell's parsing.
    QString sources = m_wheelhouse.isEmpty()
                          ? QString()
                          : QStringLiteral(" --find-links %1").arg(QLatin1String(kWheelhouseMount));
    sources.prepend(inputs.indexUrl.isEmpty() ? QStringLiteral(" --no-index")
                                              : QStringLiteral(" --index-url \"$PIP_INDEX_URL\""));
    if (!packages.isEmpty())
        script +=
            QStringLiteral("echo \"runbox: installing $*\"\n"
                           "%1/bin/python3 -I -m pip install%2"
                           " --no-cache-dir --disable-pip-version-check --no-input -- \"$@\"\n")
                .arg(prefix, sources);
    script += QStringLiteral("echo 'runbox: revision built'\n");
    execution::ExecRequest request = provisionRequest(script, packages, limits);
    // pip's caches and temporary files go to the sandbox's /tmp, never into the prefix.
    request.env.insert(QStringLiteral("PIP_NO_CACHE_DIR"), QStringLiteral("1"));
    request.env.insert(QStringLiteral("PYTHONNOUSERSITE"), QStringLiteral("1"));
    if (!inputs.indexUrl.isEmpty()) {
        request.env.insert(QStringLiteral("PIP_INDEX_URL"), inputs.indexUrl);
        if (!m_indexCaFile.isEmpty())
            request.env.insert(QStringLiteral("PIP_CERT"), QLatin1String(kIndexCaMount));
    }
    return request;
}

std::optional<Error> VenvProvisioner::buildTools(QList<BuildTool>* out) const {
    return indexCaTool(m_indexCaFile, out);
}

QHash<QString, QString> VenvProvisioner::executionEnvironment() const {
    return {{QStringLiteral("VIRTUAL_ENV"), QLatin1String(kPrefixMount)}};
}

} // namespace runbox::environments
