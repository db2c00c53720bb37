// The `runbox` CLI's commands against the real agent (docs/managed.md "CLI"): every command
// refuses an option it does not know, or one without its value, with a usage error and changes
// nothing; workspace create/ls/rm (light batches under a root agent), files ls/stat/rm/mv/mkdir,
// policy show/set/off, npu ls (on a simulated Ascend host too); --json parses; the documented exit
// statuses. The bash completion: test_cli_completion. Managed executions and quotas:
// test_cli_managed.
#include "shared/ApiClient.h"
#include "support/AgentProcess.h"
#include "support/CliRun.h"
#include "support/NpuAgentFixture.h"
#include "support/SimulatedNpuHost.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace runbox;
using namespace runbox::testsupport;

class TestCliCommands final : public QObject {
    Q_OBJECT

    AgentProcess m_agent;
    QString m_ws;

    CliResult cli(const QStringList& args, int timeoutMs = 60000) {
        return runCli(m_agent.cliConnectionArgs() + args, timeoutMs);
    }
    ApiClient& client() { return *m_agent.client(); }
    /// What a refused command must not have changed: workspaces, executions, the policy, the
    /// quotas and the files of m_ws.
    QByteArray agentState() {
        QByteArray state;
        for (const char* route : {"/v1/workspaces", "/v1/executions", "/v1/settings/quotas",
                                  "/v1/settings/network-policy"})
            state += client().call("GET", route).body;
        return state + client().call("GET", "/v1/workspaces/" + m_ws.toUtf8() + "/files/").body;
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_ws = m_agent.createWorkspace();
        QVERIFY(!m_ws.isEmpty());
        // The file the refused rm/mv commands name.
        QCOMPARE(m_agent.shell(m_ws, "echo k > keep").status(), QStringLiteral("completed"));
    }

    void testTheReportedInputIsRefusedAndCreatesNothing() {
        const int before = m_agent.workspaceCount();
        QVERIFY(before >= 1);
        // Positive control: the same command without the bogus flag creates a workspace.
        const CliResult made = cli({"workspace", "create"});
        QCOMPARE(made.exitCode, 0);
        QCOMPARE(m_agent.workspaceCount(), before + 1);
        const CliResult r = cli({"workspace", "create", "--light", "--count", "3", "--bogus"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("unknown option \"--bogus\""), r.err.constData());
        QVERIFY(r.out.isEmpty());
        QCOMPARE(m_agent.workspaceCount(), before + 1);
        QCOMPARE(cli({"workspace", "rm", made.out.split(' ').first()}).exitCode, 0);
    }

    void testEveryCommandRefusesUnknownOptionsAndMissingValues_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("complaint");
        const QString ws = QStringLiteral("WS"); // replaced by m_ws
        const QString unknown = QStringLiteral("unknown option");
        const QString missing = QStringLiteral("needs a value");
        const QList<QStringList> unknownFlag{
            {"health", "--bogus"},
            {"workspaces", "--bogus"},
            {"workspace", "ls", "--bogus"},
            {"workspace", "rm", "--bogus", ws},
            {"workspace", "create", "-x"},
            {"exec", "--bogus", "--", "true"},
            {"exec", "--workspace", ws, "--kind", "shell", "--code", "touch made", "--bogus"},
            {"run", "--bogus", "--", "true"},
            {"ps", "--bogus"},
            {"logs", "--bogus", "x"},
            {"cancel", "--bogus", "x"},
            {"quotas", "--bogus"},
            {"quotas", "set", "--workspace", "1GiB", "--bogus"},
            {"cp", "--bogus", "/etc/hostname", ws + ":copied"},
            {"files", "ls", "--bogus", ws + ":"},
            {"files", "stat", "--bogus", ws + ":"},
            {"files", "rm", "--bogus", ws + ":keep"},
            {"files", "mv", "--bogus", ws + ":keep", ws + ":moved"},
            {"files", "mkdir", "--bogus", ws + ":made"},
            {"policy", "show", "--bogus"},
            {"policy", "set", "--allow", "example.com", "--bogus"},
            {"policy", "off", "--bogus"},
            {"npu", "ls", "--bogus"},
            {"env", "ls", "--bogus"},
            {"env", "create", "e1", "--python", "--bogus"},
        };
        for (const QStringList& args : unknownFlag)
            QTest::newRow(qPrintable(args.join(' '))) << args << unknown;
        const QList<QStringList> missingValue{
            {"workspace", "create", "--light", "--count"},
            {"exec", "--workspace"},
            {"exec", "--kind", "--code", "x"},
            {"ps", "--limit"},
            {"logs", "--offset"},
            {"cp", "--mode"},
            {"quotas", "set", "--concurrency"},
            {"policy", "set", "--allow"},
            {"policy", "set", "--allow", "--json"},
        };
        for (const QStringList& args : missingValue)
            QTest::newRow(qPrintable(args.join(' '))) << args << missing;
        QTest::newRow("workspace create --environment without --light")
            << QStringList{"workspace", "create", "--environment", "e0000000000000000"}
            << QStringLiteral("need --light");
        QTest::newRow("workspace create --light --environment")
            << QStringList{"workspace", "create", "--light", "--environment"} << missing;
        QTest::newRow("files mkdir --parents=yes")
            << QStringList{"files", "mkdir", "--parents=yes", ws + ":made"}
            << QStringLiteral("--parents takes no value");
    }

    void testEveryCommandRefusesUnknownOptionsAndMissingValues() {
        QFETCH(QStringList, args);
        QFETCH(QString, complaint);
        for (QString& a : args)
            a.replace(QLatin1String("WS"), m_ws);
        const QByteArray before = agentState();
        const CliResult r = cli(args);
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains(complaint.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains("usage: runbox"), r.err.constData());
        QCOMPARE(agentState(), before);
    }

    void testWorkspaceCreateListRemove() {
        const CliResult made = cli({"workspace", "create", "--json"});
        QCOMPARE(made.exitCode, 0);
        const QJsonObject item =
            made.json().object().value("workspaces").toArray().first().toObject();
        const QString id = item.value("id").toString();
        QVERIFY(!id.isEmpty());
        QVERIFY(!item.value("token").toString().isEmpty());
        QCOMPARE(item.value("isolation").toString(), QStringLiteral("strong"));
        const CliResult plain = cli({"workspace", "create"});
        QCOMPARE(plain.exitCode, 0);
        const QList<QByteArray> idAndToken = plain.out.trimmed().split(' ');
        QCOMPARE(idAndToken.size(), 2);

        for (const QStringList& ls :
             {QStringList{"workspace", "ls", "--json"}, QStringList{"workspaces", "--json"},
              QStringList{"workspace", "ls", "--strong", "--json"}}) {
            const CliResult listed = cli(ls);
            QCOMPARE(listed.exitCode, 0);
            QStringList ids;
            for (const QJsonValue& v : listed.json().object().value("workspaces").toArray())
                ids << v.toObject().value("id").toString();
            QVERIFY2(ids.contains(id) && ids.contains(QString::fromUtf8(idAndToken.first())),
                     listed.out.constData());
        }
        const CliResult table = cli({"workspace", "ls"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.startsWith("ID"));
        QVERIFY(table.out.contains(id.toUtf8()));
        QCOMPARE(cli({"workspace", "ls", "--light", "--json"})
                     .json()
                     .object()
                     .value("workspaces")
                     .toArray()
                     .size(),
                 0);

        const CliResult removed =
            cli({"workspace", "rm", id, QString::fromUtf8(idAndToken.first())});
        QCOMPARE(removed.exitCode, 0);
        QVERIFY(!cli({"workspace", "ls"}).out.contains(id.toUtf8()));
        // Every id is tried; the status is the failure's.
        const CliResult again = cli({"workspace", "rm", id});
        QCOMPARE(again.exitCode, 1);
        QVERIFY2(again.err.contains("404"), again.err.constData());
        QCOMPARE(cli({"workspace", "create", "--count", "2"}).exitCode, 2);
        QCOMPARE(cli({"workspace", "rm"}).exitCode, 2);
        QCOMPARE(cli({"workspace", "frobnicate"}).exitCode, 2);
    }

    void testWorkspaceUsage() {
        const QString id = m_agent.createWorkspace();
        QVERIFY(!id.isEmpty());
        QCOMPARE(m_agent.shell(id, "head -c 1048576 /dev/urandom > one-mib").status(),
                 QStringLiteral("completed"));
        const CliResult json = cli({"workspace", "usage", id, m_ws, "--json"});
        QVERIFY2(json.exitCode == 0, json.err.constData());
        const QJsonArray items = json.json().object().value("workspaces").toArray();
        QCOMPARE(items.size(), 2);
        QCOMPARE(items.at(0).toObject().value("id").toString(), id);
        const double allocated = items.at(0).toObject().value("allocatedBytes").toDouble();
        QVERIFY2(allocated >= 1048576 && allocated < 3 * 1048576,
                 qPrintable(QString::number(allocated)));
        QVERIFY(items.at(1).toObject().value("allocatedBytes").toDouble() < 1048576);
        const CliResult table = cli({"workspace", "usage", id});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.startsWith("ID") && table.out.contains(id.toUtf8()) &&
                     table.out.contains("MiB"),
                 table.out.constData());
        // The listing's table counts recorded executions (a sync exec is not recorded).
        const CliResult listed = cli({"workspace", "ls"});
        QVERIFY2(listed.out.contains("EXECUTIONS"), listed.out.constData());
        // Each id is tried; an unknown one fails the command with the agent's 404.
        const CliResult unknown = cli({"workspace", "usage", "wffffffffffffffff", id});
        QCOMPARE(unknown.exitCode, 1);
        QVERIFY2(unknown.err.contains("404") && unknown.out.contains(id.toUtf8()),
                 unknown.err.constData());
        QCOMPARE(cli({"workspace", "usage"}).exitCode, 2);
    }

    void testLightWorkspacesInBatches() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("light workspaces need a root agent; run this test as root");
        AgentProcess root;
        AgentOptions options;
        options.runAsRoot = true;
        // This test's own uid ranges: other root agents' tests may run at the same time.
        options.extraEnv = {{"RUNBOX_STRONG_UID_FIRST", "1882260000"},
                            {"RUNBOX_STRONG_UID_COUNT", "64"},
                            {"RUNBOX_LIGHT_UID_FIRST", "1882210000"},
                            {"RUNBOX_LIGHT_UID_COUNT", "64"}};
        QVERIFY2(root.start(options), qPrintable(root.errorString()));
        const QJsonObject light =
            root.client()->call("GET", "/v1/health").json().value("light").toObject();
        if (!light.value("available").toBool())
            QSKIP(qPrintable("light tier unavailable here: " + light.value("reason").toString()));
        const QStringList connect = root.cliConnectionArgs();
        const CliResult made = runCli(
            connect + QStringList{"workspace", "create", "--light", "--count", "3", "--json"},
            180000);
        QCOMPARE(made.exitCode, 0);
        const QJsonArray items = made.json().object().value("workspaces").toArray();
        QCOMPARE(items.size(), 3);
        QStringList ids;
        for (const QJsonValue& v : items) {
            QCOMPARE(v.toObject().value("isolation").toString(), QStringLiteral("light"));
            ids << v.toObject().value("id").toString();
        }
        const CliResult listed =
            runCli(connect + QStringList{"workspace", "ls", "--light", "--json"});
        QCOMPARE(listed.json().object().value("workspaces").toArray().size(), 3);
        QCOMPARE(runCli(connect + QStringList{"workspace", "rm"} + ids, 180000).exitCode, 0);
        QCOMPARE(root.workspaceCount(), 0);
    }

    void testFilesCommands() {
        const QString ws = m_ws + QLatin1Char(':');
        QCOMPARE(cli({"files", "mkdir", "-p", ws + "a/b"}).exitCode, 0);
        const CliResult exists = cli({"files", "mkdir", ws + "a/b"});
        QCOMPARE(exists.exitCode, 1);
        QVERIFY2(exists.err.contains("409 file_exists"), exists.err.constData());
        QTemporaryDir local;
        QFile f(local.filePath("f.txt"));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("hello");
        f.close();
        QCOMPARE(cli({"cp", f.fileName(), ws + "a/b/f.txt"}).exitCode, 0);

        const CliResult listing = cli({"files", "ls", "--json", ws + "a/b"});
        QCOMPARE(listing.exitCode, 0);
        const QJsonArray entries = listing.json().object().value("entries").toArray();
        QCOMPARE(entries.size(), 1);
        QCOMPARE(entries.first().toObject().value("name").toString(), QStringLiteral("f.txt"));
        // "." segments name the same place (an HTTP client would drop them from the signed
        // target: these were 401 signature_invalid); ".." is refused before anything is sent.
        QCOMPARE(cli({"files", "ls", "--json", ws + "./a/./b/."}).json().object().value("entries"),
                 QJsonValue(entries));
        QVERIFY(cli({"files", "ls", ws + "."}).out.contains(" a\n"));
        for (const QStringList& dotDot :
             {QStringList{"files", "ls", ws + "a/.."}, QStringList{"files", "stat", ws + "../x"},
              QStringList{"cp", f.fileName(), ws + "a/../../f.txt"},
              QStringList{"files", "mv", ws + "a/b/f.txt", "../f.txt"}}) {
            const CliResult refused = cli(dotDot);
            QCOMPARE(refused.exitCode, 2);
            QVERIFY2(refused.err.contains("'..' is not allowed"), refused.err.constData());
        }
        const CliResult table = cli({"files", "ls", ws + "a"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains("directory") && table.out.contains(" b\n"),
                 table.out.constData());
        const CliResult stat = cli({"files", "stat", "--json", ws + "a/b/f.txt"});
        QCOMPARE(stat.exitCode, 0);
        QCOMPARE(stat.json().object().value("size").toInteger(), 5);
        QCOMPARE(stat.json().object().value("type").toString(), QStringLiteral("file"));
        QVERIFY(cli({"files", "stat", ws + "a/b/f.txt"}).out.contains("type: file\n"));
        // ls of a file is its own line, never its bytes.
        const CliResult fileLs = cli({"files", "ls", ws + "a/b/f.txt"});
        QVERIFY(fileLs.out.contains("f.txt") && !fileLs.out.contains("hello"));

        QCOMPARE(cli({"files", "mv", ws + "a/b/f.txt", "g.txt"}).exitCode, 0);
        QCOMPARE(cli({"files", "stat", ws + "g.txt"}).exitCode, 0);
        QCOMPARE(cli({"files", "stat", ws + "a/b/f.txt"}).exitCode, 1);
        QCOMPARE(cli({"files", "mv", ws + "g.txt", "other-ws:g.txt"}).exitCode, 2);
        QCOMPARE(cli({"files", "mv", "--parents", ws + "g.txt", ws + "x/y/g.txt"}).exitCode, 0);
        const CliResult notEmpty = cli({"files", "rm", ws + "a"});
        QCOMPARE(notEmpty.exitCode, 1);
        QVERIFY(notEmpty.err.contains("directory_not_empty"));
        QCOMPARE(cli({"files", "rm", "-r", ws + "a", ws + "x"}).exitCode, 0);
        QCOMPARE(cli({"files", "stat", ws + "a"}).exitCode, 1);

        // A link planted by the workspace's code is shown as a link.
        QCOMPARE(m_agent.shell(m_ws, "ln -s / out").status(), QStringLiteral("completed"));
        const QJsonObject link = cli({"files", "stat", "--json", ws + "out"}).json().object();
        QCOMPARE(link.value("type").toString(), QStringLiteral("symlink"));
        QCOMPARE(link.value("linkTarget").toString(), QStringLiteral("/"));
        QVERIFY(cli({"files", "ls", ws}).out.contains("out -> /"));
        QCOMPARE(cli({"files", "mkdir", ws + "out/tmp/x"}).exitCode, 1);
        QCOMPARE(cli({"files", "rm", ws + "out"}).exitCode, 0);
        QCOMPARE(cli({"files", "ls", "/etc/local-path"}).exitCode, 2);
        QCOMPARE(cli({"files", "bogus", ws}).exitCode, 2);
    }

    void testPolicyCommands() {
        const CliResult shown = cli({"policy", "show", "--json"});
        QCOMPARE(shown.exitCode, 0);
        const QJsonObject original = shown.json().object();
        QVERIFY(original.contains("mode"));
        const CliResult set = cli({"policy", "set", "--allow", "example.com", "--allow",
                                   "*.example.org", "pypi.org", "--json"});
        QCOMPARE(set.exitCode, 0);
        QCOMPARE(set.json().object().value("mode").toString(), QStringLiteral("domain-allowlist"));
        const QJsonObject stored = client().call("GET", "/v1/settings/network-policy").json();
        QCOMPARE(stored.value("allowedDomains").toArray().size(), 3);
        QVERIFY(cli({"policy", "show"}).out.contains("allow: example.com\n"));
        const QByteArray before = client().call("GET", "/v1/settings/network-policy").body;
        const CliResult bad = cli({"policy", "set", "--allow", "not a domain!"});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains("400"), bad.err.constData());
        QCOMPARE(client().call("GET", "/v1/settings/network-policy").body, before);
        QCOMPARE(cli({"policy", "set"}).exitCode, 2);
        const CliResult off = cli({"policy", "off"});
        QCOMPARE(off.exitCode, 0);
        QVERIFY(off.out.contains("mode: none"));
        QCOMPARE(client().call("GET", "/v1/settings/network-policy").json().value("mode"),
                 QJsonValue("none"));
        QJsonObject restore = original;
        restore.remove("revision");
        QCOMPARE(client().call("PUT", "/v1/settings/network-policy", restore).status, 200);
    }

    void testNpuList() {
        const CliResult listed = cli({"npu", "ls", "--json"});
        QCOMPARE(listed.exitCode, 0);
        QVERIFY(listed.json().object().value("chips").isArray());
        QVERIFY(listed.json().object().contains("source"));
        const CliResult refreshed = cli({"npu", "ls", "--refresh"});
        QCOMPARE(refreshed.exitCode, 0);
        QVERIFY(refreshed.out.startsWith("LOGIC-ID"));
        QVERIFY(refreshed.err.contains("source: "));
    }

    void testNpuTableOnASimulatedHost() {
        if (!AgentProcess::runningAsRoot())
            QSKIP("the simulated host needs root (mknod)");
        tests::SimulatedNpuHost host(2);
        QVERIFY2(host.isValid(), qPrintable(host.error()));
        QVERIFY(shareWithAgent(host.root()));
        AgentProcess agent;
        AgentOptions options;
        options.extraEnv = simulatedNpuEnvironment(host);
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QStringList connect = agent.cliConnectionArgs();
        const CliResult listed = runCli(connect + QStringList{"npu", "ls", "--refresh", "--json"});
        QCOMPARE(listed.exitCode, 0);
        const QJsonArray chips = listed.json().object().value("chips").toArray();
        QCOMPARE(chips.size(), 2);
        const CliResult table = runCli(connect + QStringList{"npu", "ls"});
        QCOMPARE(table.exitCode, 0);
        const QList<QByteArray> lines = table.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 1 + chips.size());
        QVERIFY2(lines.first().startsWith("LOGIC-ID"), table.out.constData());
        // One row per chip, in the answer's order, with its id, name, health and probe verdict;
        // the columns start where the header's names do (a name may hold spaces).
        QList<qsizetype> starts;
        for (const char* column : {"LOGIC-ID", "NAME", "HEALTH", "USABLE", "HBM-MB", "HELD"})
            starts << lines.first().indexOf(column);
        QVERIFY2(!starts.contains(-1), lines.first().constData());
        for (qsizetype i = 0; i < chips.size(); ++i) {
            const QJsonObject chip = chips.at(i).toObject();
            const QByteArray& row = lines.at(i + 1);
            QList<QByteArray> cells;
            for (qsizetype c = 0; c < starts.size(); ++c)
                cells << row.mid(starts.at(c),
                                 c + 1 < starts.size() ? starts.at(c + 1) - starts.at(c) : -1)
                             .trimmed();
            QCOMPARE(cells.at(0), QByteArray::number(chip.value("logicId").toInteger()));
            QCOMPARE(cells.at(1), chip.value("name").toString().toUtf8());
            QCOMPARE(cells.at(2), chip.value("health").toString().toUtf8());
            QCOMPARE(cells.at(3), chip.value("probe").toObject().value("usable").toBool()
                                      ? QByteArray("yes")
                                      : QByteArray("no"));
            const QJsonValue used = chip.value("hbmUsedMb"), total = chip.value("hbmTotalMb");
            QCOMPARE(cells.at(4), used.isDouble() && total.isDouble()
                                      ? QByteArray::number(used.toInteger()) + '/' +
                                            QByteArray::number(total.toInteger())
                                      : QByteArray("-"));
            QCOMPARE(cells.at(5), QByteArray("no")); // nothing holds it
        }
        QVERIFY2(table.err.contains("source: npu-smi"), table.err.constData());
    }

    void testExitStatuses() {
        QCOMPARE(cli({"exec", "--workspace", m_ws, "--", "/bin/sh", "-c", "exit 7"}).exitCode, 7);
        QCOMPARE(cli({"exec", "--workspace", m_ws, "--", "/bin/true"}).exitCode, 0);
        const CliResult timedOut =
            cli({"exec", "--workspace", m_ws, "--timeout", "1s", "--", "/bin/sleep", "60"});
        QCOMPARE(timedOut.exitCode, 124);
        QVERIFY(timedOut.err.contains("timed_out"));
        QCOMPARE(cli({"exec", "--workspace", m_ws, "--", "/bin/sh", "-c", "kill -9 $$"}).exitCode,
                 128 + 9);
        // API errors and usage errors are told apart, and both from an unreachable agent.
        const CliResult api = cli({"exec", "--workspace", "no-such-workspace", "--", "/bin/true"});
        QCOMPARE(api.exitCode, 1);
        QVERIFY2(api.err.contains("404"), api.err.constData());
        QCOMPARE(cli({"logs", "no-such-execution"}).exitCode, 1);
        QCOMPARE(cli({"exec", "--workspace", m_ws, "stray", "--", "/bin/true"}).exitCode, 2);
        QCOMPARE(cli({"frobnicate"}).exitCode, 2);
        // The discard port, which nothing listens on here: no HTTP answer at all.
        const QStringList unreachable{"--url", "http://127.0.0.1:9", "--token", "00"};
        for (const QStringList& args :
             {QStringList{"health"}, QStringList{"workspace", "ls"},
              QStringList{"exec", "--workspace", m_ws, "--", "/bin/true"},
              QStringList{"files", "stat", m_ws + ":x"}, QStringList{"logs", "x"},
              QStringList{"env", "ls"}, QStringList{"env", "show", "numpy"},
              QStringList{"env", "rm", "numpy"}, QStringList{"env", "install", "numpy", "six"},
              QStringList{"env", "create", "py", "--python"},
              QStringList{"exec", "--environment", "numpy", "--", "/bin/true"},
              QStringList{"run", "--environment", "numpy", "--", "/bin/true"}}) {
            const CliResult r = runCli(unreachable + args);
            QVERIFY2(r.exitCode == 3, qPrintable(args.join(' ') + ": " + r.err));
        }
        const CliResult help = runCli({"--help"});
        QCOMPARE(help.exitCode, 0);
        for (const char* documented : {"Exit status", "124", "125", "128+N", "3 the agent"})
            QVERIFY2(help.out.contains(documented), documented);
    }
};

QTEST_GUILESS_MAIN(TestCliCommands)
#include "test_cli_commands.moc"
