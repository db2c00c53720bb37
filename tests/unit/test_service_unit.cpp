// installer/systemd/ (docs/service.md): `systemd-analyze verify` accepts runbox-agent.service
// alone and with its light-workspaces.conf drop-in (offline: no systemd as PID 1 is needed), and
// a broken copy is refused (positive control); the drop-in is really applied (its capabilities
// show in `systemd-analyze security --offline=yes`); runbox-agent.sysusers makes the system user
// and runbox-agent.tmpfiles its directories in a scratch root. The one edit to the unit: its
// ExecStart= points at this build's agent (verify checks that the binary exists).
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

const QString kSystemdDir = QStringLiteral(RUNBOX_SOURCE_DIR "/installer/systemd");

struct Run {
    int exitCode = -1;
    QString output; ///< stdout and stderr
};

Run runTool(const QString& program, const QStringList& args) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(program, args);
    Run run;
    if (!process.waitForFinished(60000) || process.exitStatus() != QProcess::NormalExit)
        return run;
    run.exitCode = process.exitCode();
    run.output = QString::fromUtf8(process.readAll());
    return run;
}

QByteArray readSource(const QString& name) {
    QFile file(kSystemdDir + QLatin1Char('/') + name);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFile(const QString& path, const QByteArray& text) {
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(text) == text.size();
}

/// The unit with ExecStart= on this build's agent.
QByteArray unitForThisBuild() {
    QByteArray unit = readSource(QStringLiteral("runbox-agent.service"));
    const qsizetype at = unit.indexOf("\nExecStart=/usr/bin/runbox-agent\n");
    if (at < 0)
        return {};
    return unit.replace(at, qstrlen("\nExecStart=/usr/bin/runbox-agent\n"),
                        "\nExecStart=" RUNBOX_BINARY_DIR "/agent/runbox-agent\n");
}

} // namespace

class TestServiceUnit final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString unitPath() const { return m_dir.filePath(QStringLiteral("runbox-agent.service")); }

private Q_SLOTS:
    void initTestCase() {
        if (QStandardPaths::findExecutable(QStringLiteral("systemd-analyze")).isEmpty())
            QSKIP("systemd-analyze is missing (Debian: systemd; scripts/install-deps)");
        QVERIFY(!unitForThisBuild().isEmpty());
    }

    void testBrokenUnitIsRefused() {
        // Positive control: verify does report a misspelt directive and a bad value.
        QByteArray unit = unitForThisBuild();
        unit.replace("ProtectSystem=strict", "ProtectSistem=strict");
        unit.replace("Type=notify\n", "Type=notifyy\n");
        QVERIFY(writeFile(unitPath(), unit));
        const Run run = runTool(QStringLiteral("systemd-analyze"), {"verify", unitPath()});
        QVERIFY2(run.output.contains("ProtectSistem") && run.output.contains("notifyy"),
                 qPrintable(run.output));
    }

    void testUnitVerifies() {
        QFile::remove(m_dir.filePath("runbox-agent.service.d/light-workspaces.conf"));
        QVERIFY(writeFile(unitPath(), unitForThisBuild()));
        const Run run = runTool(QStringLiteral("systemd-analyze"), {"verify", unitPath()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.output.trimmed().isEmpty(), qPrintable(run.output));
        const Run security =
            runTool(QStringLiteral("systemd-analyze"), {"security", "--offline=yes", unitPath()});
        QVERIFY2(security.output.contains("Overall exposure level for runbox-agent.service"),
                 qPrintable(security.output));
        // Rootless: no capability (docs/service.md "Hardening").
        QVERIFY2(security.output.contains(
                     QRegularExpression("✓ CapabilityBoundingSet=~CAP_SET\\(UID\\|GID\\|PCAP\\)")),
                 qPrintable(security.output));
        qInfo("%s", qPrintable(security.output.section(QLatin1Char('\n'), -2).trimmed()));
    }

    void testUnitWithTheLightDropInVerifies() {
        QVERIFY(writeFile(unitPath(), unitForThisBuild()));
        const QByteArray dropIn = readSource(QStringLiteral("light-workspaces.conf"));
        QVERIFY(dropIn.contains("AmbientCapabilities=CAP_"));
        QVERIFY(writeFile(m_dir.filePath("runbox-agent.service.d/light-workspaces.conf"), dropIn));
        const Run run = runTool(QStringLiteral("systemd-analyze"), {"verify", unitPath()});
        QCOMPARE(run.exitCode, 0);
        QVERIFY2(run.output.trimmed().isEmpty(), qPrintable(run.output));
        // The drop-in is applied: the unit may now change uids.
        const Run security =
            runTool(QStringLiteral("systemd-analyze"), {"security", "--offline=yes", unitPath()});
        QVERIFY2(security.output.contains(
                     QRegularExpression("✗ CapabilityBoundingSet=~CAP_SET\\(UID\\|GID\\|PCAP\\)")),
                 qPrintable(security.output));
        qInfo("with the drop-in: %s",
              qPrintable(security.output.section(QLatin1Char('\n'), -2).trimmed()));
    }

    void testSysusersAndTmpfilesMakeTheUserAndItsDirectories() {
        QTemporaryDir root;
        QDir().mkpath(root.filePath(QStringLiteral("etc")));
        const Run users =
            runTool(QStringLiteral("systemd-sysusers"),
                    {"--root=" + root.path(), kSystemdDir + "/runbox-agent.sysusers"});
        QVERIFY2(users.exitCode == 0, qPrintable(users.output));
        QFile passwd(root.filePath(QStringLiteral("etc/passwd")));
        QVERIFY(passwd.open(QIODevice::ReadOnly));
        const QByteArray entries = passwd.readAll();
        static const QRegularExpression kRunbox(
            QStringLiteral(
                "^runbox:x:(\\d+):(\\d+):Runbox agent:/var/lib/runbox:/usr/sbin/nologin$"),
            QRegularExpression::MultilineOption);
        const auto match = kRunbox.match(QString::fromUtf8(entries));
        QVERIFY2(match.hasMatch(), entries.constData());
        QVERIFY(match.captured(1).toUInt() < 1000); // a system user

        const Run dirs =
            runTool(QStringLiteral("systemd-tmpfiles"),
                    {"--root=" + root.path(), "--create", kSystemdDir + "/runbox-agent.tmpfiles"});
        QVERIFY2(dirs.exitCode == 0, qPrintable(dirs.output));
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(root.filePath("var/lib/runbox")).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0700));
        QCOMPARE(st.st_uid, uid_t(match.captured(1).toUInt()));
        QCOMPARE(::stat(QFile::encodeName(root.filePath("run/runbox")).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0750));
        QCOMPARE(::stat(QFile::encodeName(root.filePath("etc/runbox")).constData(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0755));
    }
};

QTEST_GUILESS_MAIN(TestServiceUnit)
#include "test_service_unit.moc"
