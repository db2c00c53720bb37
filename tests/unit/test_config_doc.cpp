// docs/configuration.md is what `runbox-agent --help-markdown` prints from the configuration
// table, installer/agent.conf what `--help-conf` prints. Regenerate both with
// `cmake --build build --target config-doc`.
#include <QFile>
#include <QProcess>
#include <QTest>

namespace {
/// What `runbox-agent FLAG` prints, with an empty environment (the text depends on nothing else).
QByteArray agentOutput(const QString& flag) {
    QProcess agent;
    agent.setProcessEnvironment(QProcessEnvironment());
    agent.start(QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"), {flag});
    if (!agent.waitForFinished(30000) || agent.exitCode() != 0)
        return {};
    return agent.readAllStandardOutput();
}
} // namespace

class TestConfigDoc final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testCheckedInDocIsCurrent() {
        const QByteArray generated = agentOutput(QStringLiteral("--help-markdown"));
        QVERIFY(generated.startsWith("# Configuration"));
        QFile doc(QStringLiteral(RUNBOX_SOURCE_DIR "/docs/configuration.md"));
        QVERIFY2(doc.open(QIODevice::ReadOnly), "docs/configuration.md is missing");
        const QByteArray checkedIn = doc.readAll();
        QVERIFY2(checkedIn == generated,
                 "docs/configuration.md is out of date: run "
                 "`cmake --build build --target config-doc` and commit the result");
    }

    void testCheckedInAgentConfIsCurrent() {
        const QByteArray generated = agentOutput(QStringLiteral("--help-conf"));
        QVERIFY(generated.startsWith("# runbox-agent configuration"));
        QVERIFY2(generated.contains("\n#listen = 127.0.0.1:4311\n"), generated.constData());
        QVERIFY2(!generated.contains("Test-only"), "test-only rows belong in no agent.conf");
        QFile conf(QStringLiteral(RUNBOX_SOURCE_DIR "/installer/agent.conf"));
        QVERIFY2(conf.open(QIODevice::ReadOnly), "installer/agent.conf is missing");
        QVERIFY2(conf.readAll() == generated,
                 "installer/agent.conf is out of date: run "
                 "`cmake --build build --target config-doc` and commit the result");
    }
};

QTEST_GUILESS_MAIN(TestConfigDoc)
#include "test_config_doc.moc"
