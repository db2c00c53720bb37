#include "agent/config/AgentConfig.h"

#include <QDir>
#include <QProcessEnvironment>
#include <QSettings>

#include <unistd.h>

namespace runbox::config {

namespace {

bool parseListen(const QString& value, QHostAddress* addr, quint16* port) {
    const qsizetype colon = value.lastIndexOf(':');
    if (colon <= 0)
        return false;
    QString host = value.left(colon);
    if (host.startsWith('[') && host.endsWith(']'))
        host = host.mid(1, host.size() - 2);
    bool ok = false;
    const uint p = value.mid(colon + 1).toUInt(&ok);
    if (!ok || p > 65535 || !addr->setAddress(host))
        return false;
    *port = quint16(p);
    return true;
}

bool parsePositive(const QString& text, qint64* out) {
    bool ok = false;
    const qint64 v = text.toLongLong(&ok);
    if (!ok || v <= 0)
        return false;
    *out = v;
    return true;
}

bool parseInRange(const QString& text, qint64 min, qint64 max, qint64* out) {
    bool ok = false;
    const qint64 v = text.trimmed().toLongLong(&ok);
    if (!ok || v < min || v > max)
        return false;
    *out = v;
    return true;
}

QString defaultStateDir(const QProcessEnvironment& env) {
    const QString systemd = env.value(QStringLiteral("STATE_DIRECTORY"));
    if (!systemd.isEmpty())
        return systemd.split(':').first();
    // root's home is 0700, and a root agent's sandbox uids must reach their workspaces under the
    // state dir by path (docs/contracts.md "No sandbox is host root"): root keeps its state in
    // /var/lib/runbox, as a system service would.
    if (::geteuid() == 0)
        return QStringLiteral("/var/lib/runbox");
    return QDir::homePath() + QStringLiteral("/.local/state/runbox");
}

} // namespace

QString AgentConfig::usage() {
    return QStringLiteral(
        "Usage: runbox-agent [options]\n"
        "  --state-dir DIR      state directory (default $STATE_DIRECTORY, else "
        "/var/lib/runbox as root, else ~/.local/state/runbox)\n"
        "  --listen HOST:PORT   listen address (default 127.0.0.1:4311; port 0 = any free port)\n"
        "  --bwrap PATH         bubblewrap binary (default: bwrap from PATH)\n"
        "  --setup-timeout-ms N kill a sandbox whose set-up takes longer (default 10000)\n"
        "  --log-level LEVEL    debug|info|warning (default info)\n"
        "  --max-connections N  open HTTP connections at most (default 512)\n"
        "  --max-buffered-request-bytes N\n"
        "                       request body bytes held in memory at most (default 268435456)\n"
        "  --help               this text\n"
        "Environment: RUNBOX_STATE_DIR, RUNBOX_LISTEN, RUNBOX_BWRAP, RUNBOX_SIGNATURE_WINDOW_MS,\n"
        "RUNBOX_EXECUTION_TIMEOUT_MS, RUNBOX_MAX_OUTPUT_BYTES, RUNBOX_LIGHT_MIN_LANDLOCK_ABI,\n"
        "RUNBOX_LIGHT_IDLE_TIMEOUT_S, RUNBOX_LIGHT_UID_FIRST, RUNBOX_LIGHT_UID_COUNT,\n"
        "RUNBOX_IDLE_AFTER_MS, RUNBOX_LIGHT_ROOT, RUNBOX_MAX_CONNECTIONS,\n"
        "RUNBOX_MAX_BUFFERED_REQUEST_BYTES, RUNBOX_STRONG_UID_FIRST, RUNBOX_STRONG_UID_COUNT,\n"
        "RUNBOX_UID_RANGE_REGISTRY. Config file: <state-dir>/agent.conf.\n");
}

bool AgentConfig::parse(const QStringList& args, QString* error) {
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    QString listen;
    stateDir = env.value(QStringLiteral("RUNBOX_STATE_DIR"), defaultStateDir(env));
    listen = env.value(QStringLiteral("RUNBOX_LISTEN"));
    bwrapPath = env.value(QStringLiteral("RUNBOX_BWRAP"), bwrapPath);

    QString setupTimeout;
    QString maxConnectionsArg;
    QString maxBufferedArg;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString& a = args[i];
        auto takeValue = [&](QString* out) {
            if (i + 1 >= args.size()) {
                *error = QStringLiteral("option %1 needs a value").arg(a);
                return false;
            }
            *out = args[++i];
            return true;
        };
        bool ok = true;
        if (a == QLatin1String("--state-dir"))
            ok = takeValue(&stateDir);
        else if (a == QLatin1String("--listen"))
            ok = takeValue(&listen);
        else if (a == QLatin1String("--bwrap"))
            ok = takeValue(&bwrapPath);
        else if (a == QLatin1String("--setup-timeout-ms"))
            ok = takeValue(&setupTimeout);
        else if (a == QLatin1String("--log-level"))
            ok = takeValue(&logLevel);
        else if (a == QLatin1String("--max-connections"))
            ok = takeValue(&maxConnectionsArg);
        else if (a == QLatin1String("--max-buffered-request-bytes"))
            ok = takeValue(&maxBufferedArg);
        else {
            *error = QStringLiteral("unknown option %1 (see --help)").arg(a);
            return false;
        }
        if (!ok)
            return false;
    }
    if (stateDir.isEmpty()) {
        *error = QStringLiteral("--state-dir is empty");
        return false;
    }
    stateDir = QDir(stateDir).absolutePath();

    // The config file is read after the state dir is known; env and command line still win.
    QSettings file(stateDir + QStringLiteral("/agent.conf"), QSettings::IniFormat);
    auto fileValue = [&](const char* key) { return file.value(QLatin1String(key)).toString(); };
    if (listen.isEmpty())
        listen = fileValue("listen");
    if (!args.contains(QStringLiteral("--bwrap")) &&
        !env.contains(QStringLiteral("RUNBOX_BWRAP")) && !fileValue("bwrap").isEmpty())
        bwrapPath = fileValue("bwrap");

    if (!listen.isEmpty() && !parseListen(listen, &listenAddress, &listenPort)) {
        *error = QStringLiteral("--listen expects HOST:PORT, got \"%1\"").arg(listen);
        return false;
    }
    struct NumberSource {
        const char* envName;
        const char* fileKey;
        qint64* target;
        bool zeroIsUnlimited; ///< also a quota seed (store::QuotaSettings), where 0 = unlimited
    };
    const NumberSource numbers[] = {
        {"RUNBOX_SIGNATURE_WINDOW_MS", "signatureWindowMs", &signatureWindowMs, false},
        {"RUNBOX_EXECUTION_TIMEOUT_MS", "executionTimeoutMs", &defaultExecutionTimeoutMs, true},
        {"RUNBOX_MAX_OUTPUT_BYTES", "maxOutputBytes", &maxOutputBytes, true},
        {"RUNBOX_SETUP_TIMEOUT_MS", "setupTimeoutMs", &setupTimeoutMs, false},
    };
    for (const NumberSource& n : numbers) {
        QString text = env.value(QLatin1String(n.envName));
        if (text.isEmpty())
            text = fileValue(n.fileKey);
        if (text.isEmpty() || (n.zeroIsUnlimited && text.trimmed() == QLatin1String("0")))
            continue; // 0: unlimited; the quota store validates and keeps the value
        if (!parsePositive(text, n.target)) {
            *error =
                QStringLiteral("%1 must be a positive integer%2, got \"%3\"")
                    .arg(QLatin1String(n.envName),
                         n.zeroIsUnlimited ? QStringLiteral(" or 0 (unlimited)") : QString(), text);
            return false;
        }
    }
    lightRoot = env.value(QStringLiteral("RUNBOX_LIGHT_ROOT"), fileValue("lightRoot"));
    if (!lightRoot.isEmpty())
        lightRoot = QDir(lightRoot).absolutePath();
    struct RangeSource {
        const char* envName;
        const char* fileKey;
        qint64 min, max;
        qint64* target;
    };
    const RangeSource ranges[] = {
        {"RUNBOX_LIGHT_MIN_LANDLOCK_ABI", "lightMinLandlockAbi", 1, 64, &lightMinLandlockAbi},
        {"RUNBOX_LIGHT_IDLE_TIMEOUT_S", "lightIdleTimeoutS", 0, 7 * 86400, &lightIdleTimeoutS},
        {"RUNBOX_LIGHT_UID_FIRST", "lightUidFirst", 1000, 4000000000LL, &lightUidFirst},
        {"RUNBOX_LIGHT_UID_COUNT", "lightUidCount", 1, 1000000, &lightUidCount},
        {"RUNBOX_LIGHT_SPARE_HOMES", "lightSpareHomes", 0, 4096, &lightSpareHomes},
        {"RUNBOX_IDLE_AFTER_MS", "idleAfterMs", 0, 365LL * 86400 * 1000, &idleAfterMs},
        {"RUNBOX_STRONG_UID_FIRST", "strongUidFirst", 1000, 2147483646LL, &strongUidFirst},
        {"RUNBOX_STRONG_UID_COUNT", "strongUidCount", 2, 16777216, &strongUidCount},
        {"RUNBOX_MAX_CONNECTIONS", "maxConnections", 1, 1000000, &maxConnections},
        {"RUNBOX_MAX_BUFFERED_REQUEST_BYTES", "maxBufferedRequestBytes", 64 * 1024, 1LL << 40,
         &maxBufferedRequestBytes},
    };
    for (const RangeSource& r : ranges) {
        // The command line wins over the environment, which wins over the file.
        QString text = r.target == &maxConnections            ? maxConnectionsArg
                       : r.target == &maxBufferedRequestBytes ? maxBufferedArg
                                                              : QString();
        const bool fromCommandLine = !text.isEmpty();
        if (text.isEmpty())
            text = env.value(QLatin1String(r.envName));
        if (text.isEmpty())
            text = fileValue(r.fileKey);
        if (!text.isEmpty() && !parseInRange(text, r.min, r.max, r.target)) {
            *error = QStringLiteral("%1 must be a whole number from %2 to %3, got \"%4\"")
                         .arg(!fromCommandLine ? QString::fromLatin1(r.envName)
                              : r.target == &maxConnections
                                  ? QStringLiteral("--max-connections")
                                  : QStringLiteral("--max-buffered-request-bytes"))
                         .arg(r.min)
                         .arg(r.max)
                         .arg(text);
            return false;
        }
    }
    if (strongUidFirst + strongUidCount > 2147483647LL) {
        *error = QStringLiteral("RUNBOX_STRONG_UID_FIRST + RUNBOX_STRONG_UID_COUNT must not pass "
                                "2147483647 (uids stay positive 32-bit integers)");
        return false;
    }
    uidRangeRegistry =
        env.value(QStringLiteral("RUNBOX_UID_RANGE_REGISTRY"), fileValue("uidRangeRegistry"));
    if (uidRangeRegistry.isEmpty())
        uidRangeRegistry = QStringLiteral("/run/runbox/uid-ranges");
    if (!setupTimeout.isEmpty() && !parsePositive(setupTimeout, &setupTimeoutMs)) {
        *error = QStringLiteral("--setup-timeout-ms must be a positive integer");
        return false;
    }
    return true;
}

} // namespace runbox::config
