// resources/completion/runbox.bash offers only options the CLI's commands accept (docs/managed.md
// "CLI"): for each command, every option the completion offers is given to this build's runbox
// against an agent that is not there, and none may be an unknown option (the parser refuses
// before anything is sent, so no agent is needed).
#include <QFile>
#include <QProcess>
#include <QTest>

namespace {

QString cliPath() {
    return QStringLiteral(RUNBOX_BINARY_DIR "/cli/runbox");
}

} // namespace

class TestCliCompletion final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testBashCompletionOffersOnlyAcceptedOptions() {
        const QString script =
            QStringLiteral(RUNBOX_SOURCE_DIR "/resources/completion/runbox.bash");
        QVERIFY(QFile::exists(script));
        const QList<QStringList> commands{{"health"},
                                          {"workspaces"},
                                          {"workspace", "create"},
                                          {"workspace", "ls"},
                                          {"workspace", "rm"},
                                          {"workspace", "usage"},
                                          {"exec"},
                                          {"run"},
                                          {"ps"},
                                          {"logs"},
                                          {"cancel"},
                                          {"quotas"},
                                          {"quotas", "set"},
                                          {"cp"},
                                          {"files", "ls"},
                                          {"files", "stat"},
                                          {"files", "rm"},
                                          {"files", "mv"},
                                          {"files", "mkdir"},
                                          {"policy", "show"},
                                          {"policy", "set"},
                                          {"policy", "off"},
                                          {"npu", "ls"},
                                          {"env", "ls"},
                                          {"env", "create"},
                                          {"env", "install"},
                                          {"env", "show"},
                                          {"pool", "ls"},
                                          {"pool", "create"},
                                          {"pool", "add"},
                                          {"pool", "rm"}};
        const QStringList valued{"--per-host",
                                 "--host",
                                 "--slurm",
                                 "--max-hosts",
                                 "--exit-when-idle",
                                 "--sbatch-script",
                                 "--workspace",
                                 "--kind",
                                 "--code",
                                 "--code-file",
                                 "--cwd",
                                 "--env",
                                 "--timeout",
                                 "--timeout-ms",
                                 "--max-output",
                                 "--max-output-bytes",
                                 "--stdin",
                                 "--id",
                                 "--environment",
                                 "--revision",
                                 "--count",
                                 "--offset",
                                 "--state",
                                 "--limit",
                                 "--cursor",
                                 "--mode",
                                 "--allow",
                                 "--allow-private",
                                 "--provisioner",
                                 "--output",
                                 "--upload-file",
                                 "--upload-request",
                                 "--max-timeout",
                                 "--concurrency",
                                 "--light-workspaces",
                                 "--memory",
                                 "--processes",
                                 "--cpus",
                                 "--idle-timeout"};
        int checked = 0;
        for (const QStringList& words : commands) {
            QProcess bash;
            const QString line = "runbox " + words.join(' ') + " -";
            bash.start("bash", {"-c", QStringLiteral("source '%1'; COMP_WORDS=(%2); "
                                                     "COMP_CWORD=%3; _runbox; "
                                                     "printf '%s\\n' \"${COMPREPLY[@]}\"")
                                          .arg(script, line)
                                          .arg(words.size() + 1)});
            QVERIFY(bash.waitForFinished(30000));
            const QStringList offered =
                QString::fromUtf8(bash.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
            QVERIFY2(!offered.isEmpty(), qPrintable(line));
            for (const QString& option : offered) {
                if (option == QLatin1String("--"))
                    continue;
                QStringList args = words;
                args << option;
                if (valued.contains(option))
                    args << "1";
                // An unreachable agent: an accepted option gets past the parser.
                QProcess cli;
                cli.start(cliPath(),
                          QStringList{"--url", "http://127.0.0.1:9", "--token", "00"} + args);
                QVERIFY(cli.waitForFinished(60000));
                const QByteArray err = cli.readAllStandardError();
                QVERIFY2(!err.contains("unknown option"),
                         qPrintable(args.join(' ') + ": " + QString::fromUtf8(err)));
                ++checked;
            }
        }
        QVERIFY(checked > 60);
    }
};

QTEST_GUILESS_MAIN(TestCliCompletion)
#include "test_cli_completion.moc"
