#include "agent/environments/MicromambaProvisioner.h"

#include "shared/Crypto.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

#include <sys/stat.h>

namespace runbox::environments {

MicromambaProvisioner::MicromambaProvisioner(QString binary, QString sha256, QStringList channels,
                                             QStringList channelUrls, QString caFile)
    : m_binary(std::move(binary)), m_sha256(sha256.trimmed().toLower()),
      m_channels(std::move(channels)), m_channelUrls(std::move(channelUrls)),
      m_caFile(std::move(caFile)) {}

QString MicromambaProvisioner::readChecked(QByteArray* bytes) const {
    static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
    if (m_binary.isEmpty())
        return QStringLiteral("no micromamba binary is configured (RUNBOX_ENV_MICROMAMBA)");
    if (!hex.match(m_sha256).hasMatch())
        return QStringLiteral("RUNBOX_ENV_MICROMAMBA_SHA256 must be the binary's SHA-256, 64 hex "
                              "digits");
    QFile file(m_binary);
    if (!QFileInfo(m_binary).isFile() || !file.open(QIODevice::ReadOnly) ||
        file.size() > kMaxBinaryBytes)
        return QStringLiteral("%1 is not a readable file of at most %2 bytes")
            .arg(m_binary)
            .arg(kMaxBinaryBytes);
    *bytes = file.readAll();
    const QString actual = QString::fromLatin1(crypto::sha256Hex(*bytes));
    if (actual != m_sha256)
        return QStringLiteral("the SHA-256 of %1 is %2, not the configured %3 "
                              "(RUNBOX_ENV_MICROMAMBA_SHA256): refusing to run it")
            .arg(m_binary, actual, m_sha256);
    return {};
}

QString MicromambaProvisioner::unavailableReason() const {
    struct stat st {};
    const QByteArray identity = ::stat(QFile::encodeName(m_binary).constData(), &st) == 0
                                    ? QByteArray::number(quint64(st.st_dev)) + ':' +
                                          QByteArray::number(quint64(st.st_ino)) + ':' +
                                          QByteArray::number(qint64(st.st_size)) + ':' +
                                          QByteArray::number(qint64(st.st_mtim.tv_sec)) + '.' +
                                          QByteArray::number(qint64(st.st_mtim.tv_nsec)) + ':' +
                                          QByteArray::number(qint64(st.st_ctim.tv_sec)) + '.' +
                                          QByteArray::number(qint64(st.st_ctim.tv_nsec))
                                    : QByteArray();
    if (identity.isEmpty() || identity != m_checkedIdentity) {
        QByteArray bytes;
        m_checkedReason = readChecked(&bytes);
        m_checkedIdentity = identity;
    }
    if (!m_checkedReason.isEmpty())
        return m_checkedReason;
    if (m_channels.isEmpty() && m_channelUrls.isEmpty())
        return QStringLiteral("no conda channel is configured (RUNBOX_ENV_CONDA_CHANNELS or "
                              "RUNBOX_ENV_CONDA_CHANNEL_URLS)");
    return {};
}

QList<EnvironmentProvisioner::SourceMount> MicromambaProvisioner::packageSources() const {
    QList<SourceMount> out;
    for (qsizetype i = 0; i < m_channels.size(); ++i)
        out.append({m_channels.at(i), QStringLiteral("%1/%2").arg(kChannelMount).arg(i)});
    return out;
}

std::optional<Error> MicromambaProvisioner::buildTools(QList<BuildTool>* out) const {
    QByteArray bytes;
    if (const QString why = readChecked(&bytes); !why.isEmpty())
        return Error{ErrorKind::Unavailable, QStringLiteral("micromamba_unavailable"), why};
    if (m_channelUrls.isEmpty()) {
        out->clear();
    } else if (auto err = indexCaTool(m_caFile, out)) {
        return err;
    }
    out->prepend({bytes, QLatin1String(kBinaryMount)});
    return std::nullopt;
}

QStringList MicromambaProvisioner::initialPackages(const QString& language) const {
    return {language == QLatin1String("r") ? QStringLiteral("r-base") : QStringLiteral("python")};
}

execution::ExecRequest
MicromambaProvisioner::buildRequest(const BuildInputs& inputs,
                                    const execution::ExecLimits& limits) const {
    const QStringList& packages = inputs.packages;
    // The channels asked for, in their order, else all of the operator's. A local one is bound
    // at the index of its place in the operator's list (packageSources()); a remote one reaches
    // micromamba through the environment, never through the shell's parsing.
    QString channelArgs;
    QHash<QString, QString> urlVariables;
    for (const QString& channel : chosenChannels(inputs)) {
        if (const qsizetype i = m_channels.indexOf(channel); i >= 0) {
            channelArgs += QStringLiteral(" -c file://%1/%2").arg(kChannelMount).arg(i);
        } else if (const qsizetype u = m_channelUrls.indexOf(channel); u >= 0) {
            const QString variable = QStringLiteral("RUNBOX_CONDA_CHANNEL_%1").arg(u);
            channelArgs += QStringLiteral(" -c \"$%1\"").arg(variable);
            urlVariables.insert(variable, channel);
        }
    }
    const QString script =
        QStringLiteral("set -eu\n"
                       "cd /tmp\n"
                       "echo \"runbox: creating the conda environment at %1 with $*\"\n"
                       "%2 create --yes --no-rc --override-channels%3 --prefix %1 \"$@\"\n"
                       "echo 'runbox: revision built'\n")
            .arg(QLatin1String(kPrefixMount), QLatin1String(kBinaryMount), channelArgs);
    execution::ExecRequest request = provisionRequest(script, packages, limits);
    // Its package cache and state go to the sandbox's tmpfs, never into the prefix.
    request.env.insert(QStringLiteral("MAMBA_ROOT_PREFIX"), QStringLiteral("/tmp/mamba-root"));
    for (auto it = urlVariables.cbegin(); it != urlVariables.cend(); ++it)
        request.env.insert(it.key(), it.value());
    if (!urlVariables.isEmpty() && !m_caFile.isEmpty())
        request.env.insert(QStringLiteral("MAMBA_SSL_VERIFY"), QLatin1String(kIndexCaMount));
    return request;
}

QStringList MicromambaProvisioner::networkUrls(const BuildInputs& inputs) const {
    QStringList out;
    for (const QString& channel : chosenChannels(inputs))
        if (m_channelUrls.contains(channel))
            out.append(channel);
    return out;
}

QHash<QString, QString> MicromambaProvisioner::executionEnvironment() const {
    return {{QStringLiteral("CONDA_PREFIX"), QLatin1String(kPrefixMount)}};
}

} // namespace runbox::environments
