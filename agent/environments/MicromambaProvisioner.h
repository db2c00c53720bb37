#pragma once

#include "agent/environments/EnvironmentProvisioner.h"

namespace runbox::environments {

/// The `micromamba` provisioner (docs/environments.md "micromamba"): conda packages, Python or R,
/// from the operator's local channels (RUNBOX_ENV_CONDA_CHANNELS: directories, bound read-only
/// at /opt/conda-channels/0, 1, … and named `file:///opt/conda-channels/N`, in that order; no
/// network) and remote ones (RUNBOX_ENV_CONDA_CHANNEL_URLS: https URLs, after the local ones in
/// the channel list; a build that uses one reaches exactly their hosts through the egress
/// gateway's proxy, which micromamba's libcurl reads from `https_proxy`, the operator's CA
/// bundle as MAMBA_SSL_VERIFY), with the operator's micromamba binary (RUNBOX_ENV_MICROMAMBA) whose
/// SHA-256 (RUNBOX_ENV_MICROMAMBA_SHA256) is checked before every use: the build runs the very
/// bytes that were hashed, bound from a sealed memfd at /opt/micromamba/micromamba. The build runs
///
///     micromamba create --yes --no-rc --override-channels -c file:///opt/conda-channels/0 …
///         --prefix /opt/science-env SPEC…
///
/// (the snapshot is then read from the prefix's conda-meta records by the agent)
/// with MAMBA_ROOT_PREFIX (its package cache) in the sandbox's tmpfs /tmp, so packages are
/// copied into the prefix, never linked to another revision's. The first revision of a python
/// environment has `python`, of an r one `r-base`.
class MicromambaProvisioner final : public EnvironmentProvisioner {
public:
    static constexpr char kBinaryMount[] = "/opt/micromamba/micromamba";
    static constexpr char kChannelMount[] = "/opt/conda-channels";
    /// The largest binary read (micromamba's static build is ~15 MB).
    static constexpr qint64 kMaxBinaryBytes = 256ll << 20;

    /// @p binary: the host path of micromamba ("" = not configured), @p sha256: its expected
    /// SHA-256 in hex, @p channels: the host directories of the local channels, @p channelUrls
    /// the remote channels (checked config::IndexUrl), @p caFile the CA bundle builds trust for
    /// them ("" = micromamba's own).
    MicromambaProvisioner(QString binary, QString sha256, QStringList channels,
                          QStringList channelUrls = {}, QString caFile = {});

    QString name() const override { return QStringLiteral("micromamba"); }
    QString manager() const override { return QStringLiteral("conda"); }
    /// The channel directories, then the channel URLs, as configured (an install's `channels`
    /// names some of them).
    QStringList channels() const override { return m_channels + m_channelUrls; }
    /// The remote channels among those the build uses.
    QStringList networkUrls(const BuildInputs& inputs) const override;
    /// Not configured, the binary missing, its hash other than the expected one, no channel.
    /// The binary is hashed again whenever its stat(2) identity (device, inode, size, mtime,
    /// ctime) changed since the last check, not on every call (/v1/health is polled); builds
    /// always hash the bytes they run (buildTools).
    QString unavailableReason() const override;
    /// Whether RUNBOX_ENV_MICROMAMBA is set.
    bool configured() const override { return !m_binary.isEmpty(); }
    EnvironmentSpec::Grammar grammar() const override { return EnvironmentSpec::Grammar::Conda; }
    RevisionFiles::PackageLayout packageLayout() const override {
        return RevisionFiles::PackageLayout::CondaMeta;
    }
    QList<SourceMount> packageSources() const override;
    QString packageSourceSetting() const override {
        return QStringLiteral("RUNBOX_ENV_CONDA_CHANNELS or RUNBOX_ENV_CONDA_CHANNEL_URLS");
    }
    /// The binary's bytes after the SHA-256 check (503 `micromamba_unavailable` otherwise), and
    /// the operator's CA bundle when remote channels and one are configured.
    std::optional<Error> buildTools(QList<BuildTool>* out) const override;
    QStringList initialPackages(const QString& language) const override;
    execution::ExecRequest buildRequest(const BuildInputs& inputs,
                                        const execution::ExecLimits& limits) const override;
    /// `CONDA_PREFIX=/opt/science-env`.
    QHash<QString, QString> executionEnvironment() const override;

private:
    /// The channels @p inputs asks for, in their order, else all of the operator's.
    QStringList chosenChannels(const BuildInputs& inputs) const {
        return inputs.channels.isEmpty() ? channels() : inputs.channels;
    }
    /// Reads the binary and checks its hash: "" and @p bytes, or why not.
    QString readChecked(QByteArray* bytes) const;

    QString m_binary;
    QString m_sha256;
    QStringList m_channels;
    QStringList m_channelUrls;
    QString m_caFile;
    mutable QByteArray m_checkedIdentity; ///< stat identity of the binary last hashed
    mutable QString m_checkedReason;      ///< what that check found
};

} // namespace runbox::environments
