// docs/configuration.md is what `runbox-agent --help-markdown` prints from the configuration
// table. Regenerate it with `cmake --build build --target config-doc`.
#include <QFile>
#include <QProcess>
#include <QTest>

class TestConfigDoc final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testCheckedInDocIsCurrent() {
        QProcess agent;
        agent.setProcessEnvironment(QProcessEnvironment()); // the text depends on nothing else
        agent.start(QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"),
                    {QStringLiteral("--help-markdown")});
        QVERIFY(agent.waitForFinished(30000));
        QCOMPARE(agent.exitCode(), 0);
        const QByteArray generated = agent.readAllStandardOutput();
        QVERIFY(generated.startsWith("# Configuration"));
        QFile doc(QStringLiteral(RUNBOX_SOURCE_DIR "/docs/configuration.md"));
        QVERIFY2(doc.open(QIODevice::ReadOnly), "docs/configuration.md is missing");
        const QByteArray checkedIn = doc.readAll();
        QVERIFY2(checkedIn == generated,
                 "docs/configuration.md is out of date: run "
                 "`cmake --build build --target config-doc` and commit the result");
    }
};

QTEST_GUILESS_MAIN(TestConfigDoc)
#include "test_config_doc.moc"
