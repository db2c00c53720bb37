// docs/configuration.md is what `runbox-agent --help-markdown` prints from the configuration
// table, installer/agent.conf (the Debian package's /etc/runbox/agent.conf) what `--help-conf`
// prints. Regenerate both with `cmake --build build --target config-doc`. The agent.conf holds
// every agent.conf key of the table, commented out, and the agent reads it as shipped and with
// every key uncommented.
#include "agent/config/ConfigTable.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox::config;

namespace {
struct AgentRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

/// `runbox-agent ARGS` with an empty environment (the texts depend on nothing else).
AgentRun runAgent(const QStringList& args) {
    QProcess agent;
    agent.setProcessEnvironment(QProcessEnvironment());
    agent.start(QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"), args);
    AgentRun run;
    if (!agent.waitForFinished(30000) || agent.exitStatus() != QProcess::NormalExit)
        return run;
    run.exitCode = agent.exitCode();
    run.out = agent.readAllStandardOutput();
    run.err = agent.readAllStandardError();
    return run;
}

QByteArray agentOutput(const QString& flag) {
    const AgentRun run = runAgent({flag});
    return run.exitCode == 0 ? run.out : QByteArray();
}

QByteArray checkedInAgentConf() {
    QFile conf(QStringLiteral(RUNBOX_SOURCE_DIR "/installer/agent.conf"));
    return conf.open(QIODevice::ReadOnly) ? conf.readAll() : QByteArray();
}

/// `runbox-agent --print-config --config FILE` over @p text, in a scratch state directory.
AgentRun printConfigOf(const QByteArray& text) {
    QTemporaryDir dir;
    QFile file(dir.filePath(QStringLiteral("agent.conf")));
    if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
        return {};
    file.close();
    return runAgent({QStringLiteral("--print-config"), QStringLiteral("--config"), file.fileName(),
                     QStringLiteral("--state-dir"), dir.filePath(QStringLiteral("state"))});
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
        QVERIFY(generated.startsWith("; runbox-agent configuration"));
        QVERIFY2(generated.contains("\n;listen = 127.0.0.1:4311\n"), generated.constData());
        for (const OptionSpec& spec : configTable()) {
            if (!spec.fileKey)
                continue;
            const QByteArray line = QByteArray("\n;") + spec.fileKey + " =";
            if (spec.flags & kTestOnly)
                QVERIFY2(!generated.contains(line), spec.fileKey); // for tests, not operators
            else
                QVERIFY2(generated.contains(line), spec.fileKey);
        }
        // Only comments (';': '#' is no INI comment to the agent) and blank lines.
        for (const QByteArray& line : generated.split('\n'))
            QVERIFY2(line.isEmpty() || line.startsWith(';'), line.constData());
        QVERIFY2(!generated.contains(" \n"), "a line ends in a blank");
        const QByteArray checkedIn = checkedInAgentConf();
        QVERIFY2(!checkedIn.isEmpty(), "installer/agent.conf is missing");
        QVERIFY2(checkedIn == generated,
                 "installer/agent.conf is out of date: run "
                 "`cmake --build build --target config-doc` and commit the result");
    }

    void testAgentConfIsReadAsShipped() {
        const AgentRun run = printConfigOf(checkedInAgentConf());
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(!run.out.contains("# file "), run.out.constData()); // every value a default
    }

    void testAgentConfIsReadWithEveryKeyUncommented() {
        // What an operator gets by uncommenting a line: each value as shipped is valid, and is
        // then read from the file.
        const QByteArray text = checkedInAgentConf();
        int keysWithDefault = 0;
        for (const OptionSpec& spec : configTable())
            if (spec.fileKey && !(spec.flags & kTestOnly) && *spec.defaultValue)
                ++keysWithDefault;
        static const QRegularExpression kCommentedKey(QStringLiteral("^;([A-Za-z]\\w* =.*)$"),
                                                      QRegularExpression::MultilineOption);
        QString uncommented = QString::fromUtf8(text);
        int withValue = 0;
        for (auto it = kCommentedKey.globalMatch(uncommented); it.hasNext();) {
            const auto match = it.next();
            if (!match.captured(1).endsWith(QLatin1Char('=')))
                ++withValue;
        }
        uncommented.replace(kCommentedKey, QStringLiteral("\\1"));
        QCOMPARE(withValue, keysWithDefault);
        const AgentRun run = printConfigOf(uncommented.toUtf8());
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QCOMPARE(int(run.out.count("# file ")), withValue);
    }
};

QTEST_GUILESS_MAIN(TestConfigDoc)
#include "test_config_doc.moc"
