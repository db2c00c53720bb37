#include "agent/config/AgentConfig.h"

#include "agent/config/IndexUrl.h"

#include <QHostAddress>

#include <QRegularExpression>

namespace runbox::config {

bool AgentConfig::parse(const QStringList& args, const QProcessEnvironment& env, QString* error) {
    if (!values.resolve(args, env, error))
        return false;
    const ConfigValues& v = values;
    stateDir = v.text(Key::StateDir);
    listenUnixPath = v.text(Key::ListenUnix);
    QString listen = v.text(Key::Listen);
    if (listen.startsWith(QLatin1String("unix:"))) { // listenUnix's other spelling
        const QString path = listen.mid(5);
        if (!listenUnixPath.isEmpty() && listenUnixPath != path) {
            *error = QStringLiteral("listen unix:%1 and listenUnix %2 name two sockets; give one")
                         .arg(path, listenUnixPath);
            return false;
        }
        listenUnixPath = path;
        listen = QString::fromLatin1(optionSpec(Key::Listen).defaultValue);
    }
    if (!parseHostPort(listen, &listenAddress, &listenPort)) {
        *error = QStringLiteral("listen address \"%1\" is not HOST:PORT").arg(v.text(Key::Listen));
        return false; // resolve() checked it already
    }
    tlsListen = !v.text(Key::ListenTls).isEmpty();
    if (tlsListen && !parseHostPort(v.text(Key::ListenTls), &tlsListenAddress, &tlsListenPort)) {
        *error = QStringLiteral("TLS listen address \"%1\" is not HOST:PORT")
                     .arg(v.text(Key::ListenTls));
        return false; // resolve() checked it already
    }
    tlsCertPath = v.text(Key::TlsCert);
    tlsKeyPath = v.text(Key::TlsKey);
    allowPlaintextRemote = v.boolean(Key::AllowPlaintextRemote);
    listenUnixGroup = v.text(Key::ListenUnixGroup);
    bwrapPath = v.text(Key::Bwrap);
    logLevel = v.text(Key::LogLevel);
    signatureWindowMs = v.number(Key::SignatureWindowMs);
    setupTimeoutMs = v.number(Key::SetupTimeoutMs);
    maxConnections = v.number(Key::MaxConnections);
    maxBufferedRequestBytes = v.number(Key::MaxBufferedRequestBytes);
    idleAfterMs = v.number(Key::IdleAfterMs);
    proxyDomain = v.text(Key::ProxyDomain).toLower();
    static const QRegularExpression domainName(QStringLiteral(
        "^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"));
    if (!domainName.match(proxyDomain).hasMatch()) {
        *error = QStringLiteral("proxyDomain \"%1\" is not a DNS name").arg(proxyDomain);
        return false;
    }
    envWheelhouse = v.text(Key::EnvWheelhouse);
    envCranRepository = v.text(Key::EnvCranRepository);
    envMicromamba = v.text(Key::EnvMicromamba);
    envMicromambaSha256 = v.text(Key::EnvMicromambaSha256);
    envCondaChannels = v.list(Key::EnvCondaChannels);
    envRevisionGraceS = v.number(Key::EnvRevisionGraceS);
    envStarters = v.boolean(Key::EnvStarters);
    // Package lists: space- or comma-separated (EnvironmentService checks each entry).
    static const QRegularExpression kSeparators(QStringLiteral("[\\s,]+"));
    envStarterPythonPackages =
        v.text(Key::EnvStarterPythonPackages).split(kSeparators, Qt::SkipEmptyParts);
    envStarterRPackages = v.text(Key::EnvStarterRPackages).split(kSeparators, Qt::SkipEmptyParts);
    // Every package-source URL follows the same rule (IndexUrl::parse); the message names the
    // setting.
    const auto badUrl = [error](const char* setting, const QString& url) {
        IndexUrl index;
        if (url.isEmpty() || IndexUrl::parse(url, &index, error))
            return false;
        *error = QStringLiteral("%1 \"%2\": %3").arg(QLatin1String(setting), url, *error);
        return true;
    };
    envIndexUrl = v.text(Key::EnvIndexUrl).trimmed();
    envIndexCaFile = v.text(Key::EnvIndexCaFile);
    envCranUrl = v.text(Key::EnvCranUrl).trimmed();
    if (badUrl("envIndexUrl", envIndexUrl) || badUrl("envCranUrl", envCranUrl))
        return false;
    envCondaChannelUrls = v.text(Key::EnvCondaChannelUrls).split(kSeparators, Qt::SkipEmptyParts);
    for (const QString& url : std::as_const(envCondaChannelUrls)) {
        if (badUrl("envCondaChannelUrls", url))
            return false;
        if (envCondaChannelUrls.count(url) > 1) {
            *error = QStringLiteral("envCondaChannelUrls: \"%1\" is listed twice").arg(url);
            return false;
        }
    }
    envIndexPrivateCidrs.clear();
    for (const QString& cidr :
         v.text(Key::EnvIndexPrivateCidrs).split(kSeparators, Qt::SkipEmptyParts)) {
        const auto subnet = QHostAddress::parseSubnet(cidr);
        if (subnet.second < 0 || !cidr.contains(QLatin1Char('/'))) {
            *error = QStringLiteral("envIndexPrivateCidrs: \"%1\" is not a CIDR").arg(cidr);
            return false;
        }
        envIndexPrivateCidrs.append(cidr);
    }
    if (envIndexUrl.isEmpty() && envCranUrl.isEmpty() && envCondaChannelUrls.isEmpty() &&
        (!envIndexCaFile.isEmpty() || !envIndexPrivateCidrs.isEmpty())) {
        *error = QStringLiteral("envIndexCaFile and envIndexPrivateCidrs need envIndexUrl, "
                                "envCranUrl or envCondaChannelUrls");
        return false;
    }
    executionRetentionDays = v.number(Key::ExecutionRetentionDays);
    logStoreMaxBytes = v.number(Key::LogStoreMaxBytes);
    strongUidFirst = v.number(Key::StrongUidFirst);
    strongUidCount = v.number(Key::StrongUidCount);
    uidRangeRegistry = v.text(Key::UidRangeRegistry);
    lightRoot = v.text(Key::LightRoot);
    lightSupervisorPath = v.text(Key::LightSupervisor);
    lightMinLandlockAbi = v.number(Key::LightMinLandlockAbi);
    lightIdleTimeoutS = v.number(Key::LightIdleTimeoutS);
    lightUidFirst = v.number(Key::LightUidFirst);
    lightUidCount = v.number(Key::LightUidCount);
    lightSpareHomes = v.number(Key::LightSpareHomes);
    poolName = v.text(Key::Pool);
    poolCapacity = v.number(Key::PoolCapacity);
    poolLabels = v.text(Key::PoolLabels).split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (QString& label : poolLabels)
        label = label.trimmed();
    exitWhenIdleS = v.number(Key::ExitWhenIdleS);
    poolSecretFile = v.text(Key::PoolSecretFile);
    static const QRegularExpression kPoolName(QStringLiteral("^[A-Za-z0-9_-]{1,64}$"));
    if (!poolName.isEmpty() && !kPoolName.match(poolName).hasMatch()) {
        *error = QStringLiteral("pool name \"%1\" must be 1-64 of A-Z a-z 0-9 _ -").arg(poolName);
        return false;
    }
    if (poolName.isEmpty() &&
        (poolCapacity > 0 || !poolLabels.isEmpty() || !poolSecretFile.isEmpty())) {
        *error = QStringLiteral(
            "--pool-capacity, --pool-labels and --pool-secret-file need --pool NAME");
        return false;
    }
    if (QString e; !parseChipList(v.text(Key::NpuChips), &npuChips, &e)) {
        *error = QStringLiteral("npuChips: %1").arg(e);
        return false;
    }
    testResolverHostsPath = v.text(Key::TestResolverHosts);
    return true;
}

} // namespace runbox::config
