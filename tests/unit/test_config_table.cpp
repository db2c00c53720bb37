// The configuration table (agent/config/ConfigTable.cpp): defaults, precedence (flag > env >
// agent.conf > default), which agent.conf is read (--config, $CONFIGURATION_DIRECTORY, the state
// dir; $STATE_DIRECTORY), broken files refused, bad values refused with the flag/variable/key
// named, the typed consumers (AgentConfig, QuotaSettings) agreeing with the table, and the
// runbox-agent front end
// (--help, --print-config, a bad value's exit status).
#include "agent/config/AgentConfig.h"
#include "agent/config/ConfigText.h"
#include "agent/store/QuotaSettings.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace runbox::config;

namespace {

QString agentBinary() {
    return QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent");
}

/// An environment with only a state dir (so the test's own RUNBOX_* do not leak in).
QProcessEnvironment cleanEnv(const QString& stateDir) {
    QProcessEnvironment env;
    env.insert(QStringLiteral("RUNBOX_STATE_DIR"), stateDir);
    return env;
}

} // namespace

class TestConfigTable final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    void writeConfigFile(const QByteArray& text) {
        QFile file(m_dir.filePath(QStringLiteral("agent.conf")));
        QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text);
    }

private Q_SLOTS:
    void init() { QFile::remove(m_dir.filePath(QStringLiteral("agent.conf"))); }

    void testTableIsWellFormed() {
        QSet<QString> names, envs, flags;
        for (const OptionSpec& spec : configTable()) {
            QVERIFY2(!names.contains(spec.name), spec.name);
            names.insert(spec.name);
            QVERIFY2(spec.envVar || spec.flag, spec.name);
            QVERIFY2(*spec.help, spec.name);
            if (spec.envVar) {
                QVERIFY2(QByteArray(spec.envVar).startsWith("RUNBOX_"), spec.envVar);
                QVERIFY2(!envs.contains(spec.envVar), spec.envVar);
                envs.insert(spec.envVar);
                // Test-only switches say so in their name, and only they do.
                QCOMPARE(QByteArray(spec.envVar).startsWith("RUNBOX_TEST_"),
                         bool(spec.flags & kTestOnly));
            }
            if (spec.flag) {
                QVERIFY2(!flags.contains(spec.flag), spec.flag);
                flags.insert(spec.flag);
            }
            QCOMPARE(spec.group == OptionGroup::TestOnly, bool(spec.flags & kTestOnly));
            if (spec.type == OptionType::Integer)
                QVERIFY2(spec.min <= spec.max && (*spec.defaultValue || spec.defaultNote),
                         spec.name);
            // Every default parses as a value of its own row.
            if (*spec.defaultValue) {
                ConfigValues::Value v;
                QString error;
                QVERIFY2(ConfigValues::parseText(spec, spec.defaultValue, "default", &v, &error),
                         qPrintable(error));
            }
        }
    }

    void testDefaultsMatchTheTypedConsumers() {
        AgentConfig parsed;
        QString error;
        QVERIFY2(parsed.parse({}, cleanEnv(m_dir.path()), &error), qPrintable(error));
        const AgentConfig d; // the member initialisers
        QCOMPARE(parsed.listenAddress, d.listenAddress);
        QCOMPARE(parsed.listenPort, d.listenPort);
        QCOMPARE(parsed.tlsListen, d.tlsListen);
        QCOMPARE(parsed.tlsCertPath, d.tlsCertPath);
        QCOMPARE(parsed.tlsKeyPath, d.tlsKeyPath);
        QCOMPARE(parsed.allowPlaintextRemote, d.allowPlaintextRemote);
        QCOMPARE(parsed.bwrapPath, d.bwrapPath);
        QCOMPARE(parsed.logLevel, d.logLevel);
        QCOMPARE(parsed.signatureWindowMs, d.signatureWindowMs);
        QCOMPARE(parsed.setupTimeoutMs, d.setupTimeoutMs);
        QCOMPARE(parsed.maxConnections, d.maxConnections);
        QCOMPARE(parsed.maxBufferedRequestBytes, d.maxBufferedRequestBytes);
        QCOMPARE(parsed.idleAfterMs, d.idleAfterMs);
        QCOMPARE(parsed.executionRetentionDays, d.executionRetentionDays);
        QCOMPARE(parsed.logStoreMaxBytes, d.logStoreMaxBytes);
        QCOMPARE(parsed.strongUidFirst, d.strongUidFirst);
        QCOMPARE(parsed.strongUidCount, d.strongUidCount);
        QCOMPARE(parsed.uidRangeRegistry, d.uidRangeRegistry);
        QCOMPARE(parsed.lightRoot, d.lightRoot);
        QCOMPARE(parsed.lightSupervisorPath, d.lightSupervisorPath);
        QCOMPARE(parsed.lightMinLandlockAbi, d.lightMinLandlockAbi);
        QCOMPARE(parsed.lightIdleTimeoutS, d.lightIdleTimeoutS);
        QCOMPARE(parsed.lightUidFirst, d.lightUidFirst);
        QCOMPARE(parsed.lightUidCount, d.lightUidCount);
        QCOMPARE(parsed.lightSpareHomes, d.lightSpareHomes);
        QCOMPARE(parsed.testResolverHostsPath, d.testResolverHostsPath);
        QCOMPARE(parsed.stateDir, m_dir.path());
        QVERIFY(parsed.values.quotaSeeds().isEmpty());
        for (const OptionSpec& spec : configTable())
            if (spec.key != Key::StateDir)
                QCOMPARE(parsed.values.describeSource(spec.key), QStringLiteral("default"));
    }

    void testBooleanFlagIsASwitchOrTakesABooleanWord() {
        // docs/contracts.md "TLS and pinning": `--allow-plaintext-remote` alone means true.
        const QProcessEnvironment env = cleanEnv(m_dir.path());
        QString error;
        AgentConfig alone;
        QVERIFY2(alone.parse({"--allow-plaintext-remote", "--listen", "0.0.0.0:0"}, env, &error),
                 qPrintable(error));
        QVERIFY(alone.allowPlaintextRemote);
        QCOMPARE(alone.listenAddress, QHostAddress(QStringLiteral("0.0.0.0")));
        AgentConfig off;
        QVERIFY2(off.parse({"--allow-plaintext-remote", "off"}, env, &error), qPrintable(error));
        QVERIFY(!off.allowPlaintextRemote);
        AgentConfig last;
        QVERIFY2(last.parse({"--allow-plaintext-remote"}, env, &error), qPrintable(error));
        QVERIFY(last.allowPlaintextRemote);
        AgentConfig tls;
        QVERIFY2(tls.parse({"--listen-tls", "[::1]:0"}, env, &error), qPrintable(error));
        QVERIFY(tls.tlsListen);
        QCOMPARE(tls.tlsListenAddress, QHostAddress(QStringLiteral("::1")));
    }

    void testQuotaRowsMatchQuotaSettings() {
        using runbox::store::QuotaSettings;
        const QuotaSettings defaults;
        int rows = 0;
        for (const OptionSpec& spec : configTable()) {
            if (!(spec.flags & kSeedOnly))
                continue;
            ++rows;
            const QuotaSettings::Field* field = nullptr;
            for (const QuotaSettings::Field& f : QuotaSettings::fields())
                if (f.name == QLatin1String(spec.name))
                    field = &f;
            QVERIFY2(field, spec.name);
            QCOMPARE(field->envVar, QString::fromLatin1(spec.envVar));
            QCOMPARE(spec.min, qint64(0));
            QCOMPARE(spec.max, field->ceiling);
            if (spec.defaultNote) // computed on the host (maxMemoryBytes: half the RAM)
                QVERIFY(defaults.*field->member > 0);
            else
                QCOMPARE(QByteArray(spec.defaultValue).toLongLong(), defaults.*field->member);
        }
        QCOMPARE(rows, QuotaSettings::fields().size());
    }

    void testPrecedenceFlagOverEnvOverFileOverDefault() {
        writeConfigFile("maxConnections=100\nlisten=127.0.0.1:5000\nlightSpareHomes=7\n");
        QProcessEnvironment env = cleanEnv(m_dir.path());
        env.insert("RUNBOX_MAX_CONNECTIONS", "200");
        env.insert("RUNBOX_LISTEN", "[::1]:6000");
        AgentConfig c;
        QString error;
        QVERIFY2(c.parse({"--max-connections", "300"}, env, &error), qPrintable(error));
        QCOMPARE(c.maxConnections, qint64(300));
        QCOMPARE(c.values.describeSource(Key::MaxConnections),
                 QStringLiteral("flag --max-connections"));
        QCOMPARE(c.listenAddress, QHostAddress(QStringLiteral("::1")));
        QCOMPARE(c.listenPort, quint16(6000));
        QCOMPARE(c.values.describeSource(Key::Listen), QStringLiteral("env RUNBOX_LISTEN"));
        QCOMPARE(c.lightSpareHomes, qint64(7));
        QCOMPARE(c.values.describeSource(Key::LightSpareHomes),
                 QStringLiteral("file %1/agent.conf").arg(m_dir.path()));
        QCOMPARE(c.values.describeSource(Key::SetupTimeoutMs), QStringLiteral("default"));

        // Without the flag the environment wins; without either, the file.
        QVERIFY(c.parse({}, env, &error));
        QCOMPARE(c.maxConnections, qint64(200));
        env.remove("RUNBOX_MAX_CONNECTIONS");
        QVERIFY(c.parse({}, env, &error));
        QCOMPARE(c.maxConnections, qint64(100));
        // An empty variable counts as unset.
        env.insert("RUNBOX_MAX_CONNECTIONS", "");
        QVERIFY(c.parse({}, env, &error));
        QCOMPARE(c.maxConnections, qint64(100));
        // The state dir itself: flag over env; relative paths are made absolute.
        QVERIFY(c.parse({"--state-dir", "relative/state"}, env, &error));
        QCOMPARE(c.stateDir, QDir::current().absoluteFilePath("relative/state"));
    }

    /// `--listen unix:PATH` (the original runner's form) is listenUnix PATH; the plain listener
    /// keeps its default loopback address.
    void testListenUnixForm() {
        QProcessEnvironment env = cleanEnv(m_dir.path());
        AgentConfig c;
        QString error;
        QVERIFY2(c.parse({"--listen", "unix:/run/runbox//agent.sock"}, env, &error),
                 qPrintable(error));
        QCOMPARE(c.listenUnixPath, QStringLiteral("/run/runbox/agent.sock"));
        QCOMPARE(c.listenAddress, QHostAddress(QHostAddress::LocalHost));
        QCOMPARE(c.listenPort, quint16(4311));
        // The same socket named both ways is one socket.
        QVERIFY2(
            c.parse({"--listen", "unix:/run/a.sock", "--listen-unix", "/run/a.sock"}, env, &error),
            qPrintable(error));
        QCOMPARE(c.listenUnixPath, QStringLiteral("/run/a.sock"));
        env.insert("RUNBOX_LISTEN", "unix:/run/env.sock");
        QVERIFY2(c.parse({}, env, &error), qPrintable(error));
        QCOMPARE(c.listenUnixPath, QStringLiteral("/run/env.sock"));
    }

    void testQuotaVariablesBecomeSeeds() {
        QProcessEnvironment env = cleanEnv(m_dir.path());
        env.insert("RUNBOX_MAX_WORKSPACE_BYTES", " 21474836480 ");
        env.insert("RUNBOX_MAX_OUTPUT_BYTES", "0");
        AgentConfig c;
        QString error;
        QVERIFY2(c.parse({}, env, &error), qPrintable(error));
        const QMap<QString, qint64> expected{{"maxWorkspaceBytes", 21474836480},
                                             {"maxOutputBytes", 0}};
        QCOMPARE(c.values.quotaSeeds(), expected);
    }

    void testBadValuesAreRefusedNamingTheirSource_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("variable");
        QTest::addColumn<QString>("value");
        QTest::addColumn<QString>("named");
        const QStringList none;
        QTest::newRow("range") << none << "RUNBOX_MAX_CONNECTIONS"
                               << "0"
                               << "RUNBOX_MAX_CONNECTIONS";
        QTest::newRow("not a number") << none << "RUNBOX_LIGHT_UID_COUNT"
                                      << "many"
                                      << "RUNBOX_LIGHT_UID_COUNT";
        QTest::newRow("positive") << none << "RUNBOX_SIGNATURE_WINDOW_MS"
                                  << "-5"
                                  << "RUNBOX_SIGNATURE_WINDOW_MS";
        QTest::newRow("listen") << none << "RUNBOX_LISTEN"
                                << "localhost"
                                << "RUNBOX_LISTEN";
        QTest::newRow("uid sum") << none << "RUNBOX_STRONG_UID_FIRST"
                                 << "2147483000"
                                 << "RUNBOX_STRONG_UID_COUNT";
        for (const char* bad : {"-1", "10GiB", "", "1e9", "99999999999999999999"})
            QTest::addRow("quota %s", bad)
                << none << "RUNBOX_UPLOAD_MAX_FILE_BYTES" << bad << "RUNBOX_UPLOAD_MAX_FILE_BYTES";
        QTest::newRow("flag value") << QStringList{"--setup-timeout-ms", "0"} << ""
                                    << ""
                                    << "--setup-timeout-ms";
        QTest::newRow("flag wins, still checked")
            << QStringList{"--max-connections", "x"} << "RUNBOX_MAX_CONNECTIONS"
            << "10"
            << "--max-connections";
        QTest::newRow("log level") << QStringList{"--log-level", "loud"} << ""
                                   << ""
                                   << "--log-level";
        QTest::newRow("unknown flag") << QStringList{"--no-such"} << ""
                                      << ""
                                      << "--no-such";
        QTest::newRow("missing value") << QStringList{"--listen"} << ""
                                       << ""
                                       << "--listen";
        QTest::newRow("listen unix relative") << QStringList{"--listen", "unix:run/a.sock"} << ""
                                              << ""
                                              << "--listen";
        QTest::newRow("listen unix and another listenUnix")
            << QStringList{"--listen", "unix:/run/a.sock", "--listen-unix", "/run/b.sock"} << ""
            << ""
            << "two sockets";
        QTest::newRow("empty state dir") << QStringList{"--state-dir", ""} << ""
                                         << ""
                                         << "--state-dir";
    }
    void testBadValuesAreRefusedNamingTheirSource() {
        QFETCH(QStringList, args);
        QFETCH(QString, variable);
        QFETCH(QString, value);
        QFETCH(QString, named);
        QProcessEnvironment env = cleanEnv(m_dir.path());
        if (!variable.isEmpty())
            env.insert(variable, value);
        AgentConfig c;
        QString error;
        QVERIFY(!c.parse(args, env, &error));
        QVERIFY2(error.contains(named), qPrintable(error));
    }

    void testBadFileValueNamesTheKeyAndFile() {
        writeConfigFile("lightMinLandlockAbi=99\n");
        AgentConfig c;
        QString error;
        QVERIFY(!c.parse({}, cleanEnv(m_dir.path()), &error));
        QVERIFY2(error.contains("lightMinLandlockAbi") && error.contains("agent.conf"),
                 qPrintable(error));
    }

    void testConfigFileFromFlagVariableOrConfigurationDirectory() {
        writeConfigFile("maxConnections=100\n"); // the state dir's file: read only by default
        QTemporaryDir etc;
        {
            QFile file(etc.filePath(QStringLiteral("agent.conf")));
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("; the operator's file\n[General]\nmaxConnections = 42\n");
        }
        const QString etcFile = etc.filePath(QStringLiteral("agent.conf"));
        AgentConfig c;
        QString error;
        QVERIFY2(c.parse({}, cleanEnv(m_dir.path()), &error), qPrintable(error));
        QCOMPARE(c.maxConnections, qint64(100)); // positive control: the state dir's file
        QVERIFY2(c.parse({"--config", etcFile}, cleanEnv(m_dir.path()), &error), qPrintable(error));
        QCOMPARE(c.maxConnections, qint64(42));
        QCOMPARE(c.values.describeSource(Key::MaxConnections),
                 QStringLiteral("file %1").arg(etcFile));
        QCOMPARE(c.values.describeSource(Key::ConfigFile), QStringLiteral("flag --config"));
        QProcessEnvironment env = cleanEnv(m_dir.path());
        env.insert("RUNBOX_CONFIG", etcFile);
        QVERIFY2(c.parse({}, env, &error), qPrintable(error));
        QCOMPARE(c.maxConnections, qint64(42));
        // systemd's ConfigurationDirectory= (its first entry) replaces the state dir's file.
        env = cleanEnv(m_dir.path());
        env.insert("CONFIGURATION_DIRECTORY", etc.path() + QStringLiteral(":/nonexistent"));
        QVERIFY2(c.parse({}, env, &error), qPrintable(error));
        QCOMPARE(c.maxConnections, qint64(42));
        QCOMPARE(c.values.configFilePath(), etcFile);
        QCOMPARE(c.values.describeSource(Key::ConfigFile),
                 QStringLiteral("default ($CONFIGURATION_DIRECTORY)"));
        // A default file may be missing; the state dir's is then not read either.
        QVERIFY(QFile::remove(etcFile));
        QVERIFY2(c.parse({}, env, &error), qPrintable(error));
        QCOMPARE(c.maxConnections, AgentConfig().maxConnections);
    }

    void testStateAndRuntimeDirectoryFromSystemd() {
        QProcessEnvironment env; // no RUNBOX_STATE_DIR
        env.insert("STATE_DIRECTORY", m_dir.path() + QStringLiteral(":/var/lib/other"));
        AgentConfig c;
        QString error;
        QVERIFY2(c.parse({}, env, &error), qPrintable(error));
        QCOMPARE(c.stateDir, m_dir.path());
        QCOMPARE(c.values.describeSource(Key::StateDir),
                 QStringLiteral("default ($STATE_DIRECTORY)"));
        QCOMPARE(c.values.configFilePath(), m_dir.filePath(QStringLiteral("agent.conf")));
        // The flag still wins.
        QVERIFY(c.parse({"--state-dir", "/tmp/elsewhere"}, env, &error));
        QCOMPARE(c.stateDir, QStringLiteral("/tmp/elsewhere"));
        // RuntimeDirectory=: the uid range registry's default follows it.
        QCOMPARE(c.uidRangeRegistry, AgentConfig().uidRangeRegistry);
        env.insert("RUNTIME_DIRECTORY", "/run/runbox-test:/run/other");
        QVERIFY(c.parse({}, env, &error));
        QCOMPARE(c.uidRangeRegistry, QStringLiteral("/run/runbox-test/uid-ranges"));
        QCOMPARE(c.values.describeSource(Key::UidRangeRegistry),
                 QStringLiteral("default ($RUNTIME_DIRECTORY)"));
        env.insert("RUNBOX_UID_RANGE_REGISTRY", "/run/explicit");
        QVERIFY(c.parse({}, env, &error));
        QCOMPARE(c.uidRangeRegistry, QStringLiteral("/run/explicit"));
    }

    void testBrokenConfigFileIsRefused_data() {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QString>("named");
        QTest::newRow("a # comment") << QByteArray("listen=127.0.0.1:1\n# no\n") << "line 2";
        QTest::newRow("no key=value") << QByteArray("maxConnections 10\n") << "line 1";
        QTest::newRow("open section")
            << QByteArray("[General\nlisten=127.0.0.1:1\n") << "malformed";
        QTest::newRow("unknown key") << QByteArray("maxConections=10\n") << "maxConections";
        QTest::newRow("key in a section")
            << QByteArray("[light]\nlightUidFirst=5\n") << "light/lightUidFirst";
        QTest::newRow("no file key") << QByteArray("stateDir=/tmp/x\n") << "stateDir";
    }
    void testBrokenConfigFileIsRefused() {
        QFETCH(QByteArray, text);
        QFETCH(QString, named);
        AgentConfig c;
        QString error;
        writeConfigFile("maxConnections=10\n");
        QVERIFY2(c.parse({}, cleanEnv(m_dir.path()), &error), qPrintable(error)); // control
        writeConfigFile(text);
        QVERIFY(!c.parse({}, cleanEnv(m_dir.path()), &error));
        QVERIFY2(error.contains(named) && error.contains(m_dir.filePath("agent.conf")),
                 qPrintable(error));
    }

    void testNamedConfigFileMustBeReadable() {
        AgentConfig c;
        QString error;
        const QString missing = m_dir.filePath(QStringLiteral("missing.conf"));
        QVERIFY(!c.parse({"--config", missing}, cleanEnv(m_dir.path()), &error));
        QVERIFY2(error.contains(missing) && error.contains("does not exist"), qPrintable(error));
        QVERIFY(!c.parse({"--config", m_dir.path()}, cleanEnv(m_dir.path()), &error));
        QVERIFY2(error.contains("cannot read") && error.contains("directory"), qPrintable(error));
        QVERIFY(!c.parse({"--config", ""}, cleanEnv(m_dir.path()), &error));
        QVERIFY2(error.contains("--config"), qPrintable(error));
        if (::geteuid() != 0) { // root reads a 0000 file anyway
            writeConfigFile("maxConnections=10\n");
            const QString path = m_dir.filePath(QStringLiteral("agent.conf"));
            QVERIFY(QFile::setPermissions(path, QFileDevice::Permissions()));
            QVERIFY(!c.parse({}, cleanEnv(m_dir.path()), &error));
            QVERIFY2(error.contains("cannot read") && error.contains(path), qPrintable(error));
            QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        }
    }

    void testAgentRefusesAMalformedConfigFileWithStatus2() {
        QTemporaryDir etc;
        const QString path = etc.filePath(QStringLiteral("agent.conf"));
        {
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write("listen=127.0.0.1:0\n# a comment in the wrong syntax\n");
        }
        QProcess agent;
        QProcessEnvironment env = cleanEnv(m_dir.filePath("never-created"));
        env.insert("CONFIGURATION_DIRECTORY", etc.path());
        agent.setProcessEnvironment(env);
        agent.start(agentBinary(), {});
        QVERIFY(agent.waitForFinished(30000));
        QCOMPARE(agent.exitStatus(), QProcess::NormalExit);
        QCOMPARE(agent.exitCode(), 2);
        const QString err = QString::fromUtf8(agent.readAllStandardError());
        QVERIFY2(err.contains(path) && err.contains("line 2"), qPrintable(err));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("never-created")));
    }

    void testHelpListsEveryOption() {
        const QString help = usageText();
        for (const OptionSpec& spec : configTable()) {
            if (spec.envVar)
                QVERIFY2(help.contains(QLatin1String(spec.envVar)), spec.envVar);
            if (spec.flag)
                QVERIFY2(help.contains(QLatin1String(spec.flag)), spec.flag);
        }
        QVERIFY(help.contains("--print-config"));
    }

    void testAgentPrintsItsConfigAndStartsNothing() {
        QProcess agent;
        QProcessEnvironment env = cleanEnv(m_dir.filePath("never-created"));
        env.insert("RUNBOX_MAX_CONNECTIONS", "77");
        agent.setProcessEnvironment(env);
        agent.start(agentBinary(), {"--print-config", "--setup-timeout-ms", "1234"});
        QVERIFY(agent.waitForFinished(30000));
        const QString out = QString::fromUtf8(agent.readAllStandardOutput());
        QCOMPARE(agent.exitCode(), 0);
        for (const OptionSpec& spec : configTable())
            QVERIFY2(out.contains(QLatin1String(spec.name) + QLatin1Char(' ')), spec.name);
        QVERIFY2(out.contains(QRegularExpression("maxConnections *= 77  # env "
                                                 "RUNBOX_MAX_CONNECTIONS")),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression("setupTimeoutMs *= 1234  # flag "
                                                 "--setup-timeout-ms")),
                 qPrintable(out));
        QVERIFY2(out.contains(QRegularExpression("signatureWindowMs *= 30000  # default")),
                 qPrintable(out));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("never-created"))); // nothing started
    }

    void testAgentRefusesABadValueWithANonZeroStatus() {
        QProcess agent;
        QProcessEnvironment env = cleanEnv(m_dir.filePath("never-created"));
        env.insert("RUNBOX_NPU_BUSY_POLICY", "sometimes");
        agent.setProcessEnvironment(env);
        agent.start(agentBinary(), {});
        QVERIFY(agent.waitForFinished(30000));
        QCOMPARE(agent.exitStatus(), QProcess::NormalExit);
        QCOMPARE(agent.exitCode(), 2);
        const QString err = QString::fromUtf8(agent.readAllStandardError());
        QVERIFY2(err.contains("RUNBOX_NPU_BUSY_POLICY"), qPrintable(err));
        QVERIFY(!QFileInfo::exists(m_dir.filePath("never-created")));
    }
};

QTEST_GUILESS_MAIN(TestConfigTable)
#include "test_config_table.moc"
