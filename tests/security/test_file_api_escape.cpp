// Attacks on the workspace file API through the real agent (docs/contracts.md
// "Workspace file API"): links to /etc/passwd, /, .. and to a canary directory outside the
// workspace are planted by SANDBOXED code (the exec API) and then read, written, listed, deleted
// and moved through the API; a sandboxed loop swaps a directory for links to / and to the canary
// while GETs and PUTs hammer it; encoded traversal in URLs and move bodies; a workspace token aimed
// at another workspace. The canary is a world-writable directory the agent's user could read
// and write if it ever followed a link. Each attack starts with a positive control.
#include "shared/ApiClient.h"
#include "shared/Crypto.h"
#include "support/AgentProcess.h"
#include "support/FileApiRaw.h"
#include "support/TestFiles.h"

#include <QBuffer>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

QJsonObject jsonOf(const QByteArray& body) {
    return QJsonDocument::fromJson(body).object();
}

} // namespace

class TestFileApiEscape final : public QObject {
    Q_OBJECT

    AgentProcess m_agent;
    QTemporaryDir m_canaryParent;
    QString m_canary;    ///< world-writable directory outside every workspace
    QByteArray m_secret; ///< content of m_canary/secret.txt
    QByteArray m_passwdSha;
    QString m_ws;

    QByteArray files(const QByteArray& tail, const QString& ws = {}) const {
        return "/v1/workspaces/" + (ws.isEmpty() ? m_ws : ws).toUtf8() + "/files/" + tail;
    }
    QByteArray moveTarget(const QString& ws = {}) const {
        return "/v1/workspaces/" + (ws.isEmpty() ? m_ws : ws).toUtf8() + "/files:move";
    }
    RawHttpResponse get(const QByteArray& tail) const {
        return FileApiRaw(m_agent.port(), m_agent.token()).send("GET", files(tail));
    }
    RawHttpResponse put(const QByteArray& tail, const QByteArray& data) const {
        return FileApiRaw(m_agent.port(), m_agent.token()).put(files(tail), data);
    }
    RawHttpResponse del(const QByteArray& tail) const {
        return FileApiRaw(m_agent.port(), m_agent.token()).send("DELETE", files(tail));
    }
    RawHttpResponse move(const QJsonObject& body) const {
        const QByteArray json = QJsonDocument(body).toJson(QJsonDocument::Compact);
        return FileApiRaw(m_agent.port(), m_agent.token())
            .send("POST", moveTarget(),
                  {{"Content-Type", "application/json"},
                   {"Content-Length", QByteArray::number(json.size())}},
                  json);
    }
    /// The outside world is exactly as the test made it.
    void verifyCanaryIntact() const {
        QCOMPARE(hostEntries(m_canary), QStringList{"secret.txt"});
        QCOMPARE(readFile(m_canary + "/secret.txt"), m_secret);
        QCOMPARE(crypto::sha256Hex(readFile("/etc/passwd")), m_passwdSha);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString()));
        m_canary = m_canaryParent.filePath("canary");
        QVERIFY(QDir().mkdir(m_canary));
        QVERIFY(::chmod(QFile::encodeName(m_canary).constData(), 0777) == 0);
        ::chmod(QFile::encodeName(m_canaryParent.path()).constData(), 0755);
        m_secret = "CANARY-" + crypto::randomBytes(8).toHex();
        QFile secret(m_canary + "/secret.txt");
        QVERIFY(secret.open(QIODevice::WriteOnly));
        secret.write(m_secret);
        secret.close();
        QVERIFY(::chmod(QFile::encodeName(secret.fileName()).constData(), 0666) == 0);
        m_passwdSha = crypto::sha256Hex(readFile("/etc/passwd"));
        QVERIFY(readFile("/etc/passwd").contains("root:"));
    }

    void init() {
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }

    void cleanup() { verifyCanaryIntact(); }

    void testLinksPlantedBySandboxedCodeAreNeverFollowed() {
        const ExecOutcome planted = m_agent.shell(
            m_ws, QStringLiteral("mkdir real && echo inside > real/f && "
                                 "ln -s /etc/passwd pw && ln -s / rootlink && ln -s .. up && "
                                 "ln -s %1/secret.txt secret && ln -s %1 cdir && "
                                 "ln -s real/f inner")
                      .arg(m_canary));
        QVERIFY2(planted.status() == QLatin1String("completed"), qPrintable(planted.describe()));
        // Positive control: what sandboxed code wrote is readable through the API.
        const RawHttpResponse ok = get("real/f");
        QCOMPARE(ok.status, 200);
        QCOMPARE(ok.body, QByteArray("inside\n"));

        // Read: never through a link, wherever it points (even inside the workspace).
        for (const char* tail : {"pw", "rootlink/etc/passwd", "up", "up/up", "secret",
                                 "cdir/secret.txt", "inner", "rootlink", "cdir"}) {
            const RawHttpResponse r = get(tail);
            QVERIFY2(r.status == 400, tail);
            QCOMPARE(r.errorCode(), QStringLiteral("symlink_not_followed"));
            QVERIFY(!r.body.contains("root:") && !r.body.contains(m_secret));
        }
        // List: links are shown as links with their target text.
        const RawHttpResponse root = get("");
        QCOMPARE(root.status, 200);
        QMap<QString, QJsonObject> byName;
        for (const QJsonValue& e : jsonOf(root.body).value("entries").toArray())
            byName.insert(e.toObject().value("name").toString(), e.toObject());
        QCOMPARE(byName.keys(),
                 (QStringList{"cdir", "inner", "pw", "real", "rootlink", "secret", "up"}));
        QCOMPARE(byName["pw"].value("type").toString(), QStringLiteral("symlink"));
        QCOMPARE(byName["pw"].value("target").toString(), QStringLiteral("/etc/passwd"));
        QCOMPARE(byName["rootlink"].value("type").toString(), QStringLiteral("symlink"));
        QCOMPARE(byName["up"].value("target").toString(), QStringLiteral(".."));
        QCOMPARE(byName["real"].value("type").toString(), QStringLiteral("directory"));

        // Write: neither through a link as the file nor through a link in the path.
        for (const char* tail : {"secret?conflict=overwrite", "pw?conflict=overwrite",
                                 "cdir/new.txt", "cdir/secret.txt?conflict=overwrite",
                                 "rootlink/tmp/x", "up/escaped", "cdir/x?parents=true"}) {
            const RawHttpResponse r = put(tail, "pwned");
            QVERIFY2(r.status == 400, tail);
            verifyCanaryIntact();
        }

        // Move: never out through a link, never in through one, links move as links.
        const RawHttpResponse stolen = move({{"from", "cdir/secret.txt"}, {"to", "stolen"}});
        QCOMPARE(stolen.status, 400);
        QCOMPARE(move({{"from", "rootlink/etc/passwd"}, {"to", "stolen"}}).status, 400);
        QCOMPARE(move({{"from", "real/f"}, {"to", "cdir/f"}}).status, 400);
        QCOMPARE(move({{"from", "real"}, {"to", "up/real"}}).status, 400);
        QCOMPARE(move({{"from", "pw"}, {"to", "pw2"}}).status, 200);
        QCOMPARE(move({{"from", "secret"}, {"to", "real/secret"}}).status, 200);
        QCOMPARE(get("pw2").status, 400);
        QCOMPARE(get("real/secret").status, 400);
        QFileInfo movedLink(m_agent.workspaceDir(m_ws) + "/pw2");
        QVERIFY(movedLink.isSymLink());
        QCOMPARE(movedLink.symLinkTarget(), QStringLiteral("/etc/passwd"));
        verifyCanaryIntact();

        // Delete: the link goes, its target stays.
        QCOMPARE(del("real/secret").status, 200);
        QCOMPARE(del("cdir?recursive=true").status, 200);
        QCOMPARE(del("rootlink/tmp?recursive=true").status, 400);
        QCOMPARE(del("up?recursive=true").status, 200);
        QCOMPARE(del("pw2").status, 200);
        QVERIFY(QFileInfo::exists(m_agent.workspaceDir(m_ws)));
        QCOMPARE(hostEntries(m_agent.workspaceDir(m_ws)),
                 (QStringList{"inner", "real", "rootlink"}));
    }

    void testSwappingADirectoryForLinksNeverLeaksOrWritesOutside() {
        // Sandboxed code swaps d between a real directory and links to / and to the canary.
        // Each real directory is moved aside (kept inside the workspace) rather than deleted, so
        // a write that resolved it can still land there.
        const QString loop =
            QStringLiteral("mkdir keep; i=0; end=$((SECONDS+8)); "
                           "while [ $SECONDS -lt $end ]; do i=$((i+1)); "
                           "mkdir -p d/etc; echo inside > d/etc/passwd; "
                           "echo inside > d/w.txt; mv d keep/a$i; ln -s / d; rm d; "
                           "mkdir -p d/etc; echo inside > d/etc/passwd; "
                           "echo inside > d/w.txt; mv d keep/b$i; ln -s %1 d; rm d; "
                           "done")
                .arg(m_canary);
        bool execDone = false;
        bool execStarted = false;
        QString execStatus;
        // ApiClient::stream deletes its reply when it finishes.
        m_agent.client()->stream(
            "POST", "/v1/workspaces/" + m_ws.toUtf8() + "/exec",
            QJsonDocument(QJsonObject{{"kind", "shell"}, {"code", loop}})
                .toJson(QJsonDocument::Compact),
            [&](const QJsonObject& ev) {
                if (ev.value("type").toString() == QLatin1String("started"))
                    execStarted = true;
                if (ev.value("type").toString() == QLatin1String("exit"))
                    execStatus = ev.value("status").toString();
            },
            [&](const ApiResponse&) { execDone = true; });

        int served = 0, refused = 0;
        std::vector<std::unique_ptr<RawHttpConnection>> puts;
        const FileApiRaw raw(m_agent.port(), m_agent.token());
        QTRY_VERIFY_WITH_TIMEOUT(execStarted || execDone, 30000);
        for (int round = 0; !execDone; ++round) {
            for (const char* tail : {"d/etc/passwd", "d/w.txt"}) {
                const RawHttpResponse r = raw.send("GET", files(tail));
                QVERIFY(!r.body.contains("root:") && !r.body.contains(m_secret));
                if (r.status == 200) {
                    // The loop's own file, maybe caught between its creation and its write.
                    QVERIFY2(r.body == "inside\n" || r.body.isEmpty(), r.body.constData());
                    ++served;
                } else {
                    QVERIFY2(r.status == 400 || r.status == 404 || r.status == 409,
                             QByteArray::number(r.status).constData());
                    ++refused;
                }
            }
            const RawHttpResponse secret = raw.send("GET", files("d/secret.txt"));
            QVERIFY2(secret.status != 200, "read the canary through a swapped directory");
            const RawHttpResponse listing = raw.send("GET", files("d"));
            if (listing.status == 200) {
                for (const QJsonValue& e : jsonOf(listing.body).value("entries").toArray()) {
                    const QString name = e.toObject().value("name").toString();
                    QVERIFY2(name == QLatin1String("etc") || name == QLatin1String("w.txt"),
                             qPrintable(name));
                }
            }
            // Writes resolve their directory now (racing the swap) and commit under the lease
            // once the loop's execution ends, into the directory they resolved.
            if (round % 8 == 0 && puts.size() < 90) {
                for (const QByteArray& tail : {QByteArray("d/w.txt?conflict=overwrite"),
                                               QByteArray("d/secret.txt?conflict=overwrite"),
                                               "d/new-" + QByteArray::number(puts.size())}) {
                    puts.push_back(raw.startPut(files(tail), "api-wrote"));
                    QVERIFY(puts.back());
                }
            }
            QTest::qWait(1);
        }
        QCOMPARE(execStatus, QStringLiteral("completed"));
        QMap<int, int> putStatuses;
        for (const auto& p : puts) {
            const RawHttpResponse r = p->readResponse(60000);
            ++putStatuses[r.status];
            QVERIFY2(r.status != 0, "no answer to a PUT");
        }
        // The race really happened: some reads went through the real directory, some hit links.
        QVERIFY2(served > 0 && refused > 0,
                 qPrintable(QStringLiteral("served %1 refused %2").arg(served).arg(refused)));
        qInfo() << "reads served" << served << "refused" << refused << "PUT statuses"
                << putStatuses;
        // Some writes raced the swap and still landed, inside: in a directory moved to keep/.
        QVERIFY(putStatuses.value(200) + putStatuses.value(201) > 0);
        QVERIFY(hostEntries(m_agent.workspaceDir(m_ws)) == QStringList{"keep"});
        verifyCanaryIntact();
        for (const char* outside : {"/w.txt", "/secret.txt", "/new-0", "/etc/w.txt"})
            QVERIFY2(!QFileInfo::exists(QString::fromLatin1(outside)), outside);
    }

    void testEncodedTraversalIsRefused() {
        const ExecOutcome planted = m_agent.shell(m_ws, QStringLiteral("echo hi > 'my file.txt'"));
        QCOMPARE(planted.status(), QStringLiteral("completed"));
        // Positive controls: an encoded space and a literal '%' that is no escape.
        QCOMPARE(get("my%20file.txt").body, QByteArray("hi\n"));
        QCOMPARE(put("100%25", "p").status, 201); // the name "100%", its '%' encoded

        const QList<QByteArray> tails{"%2e%2e/%2e%2e/etc/passwd",
                                      "%2E%2E/x",
                                      "..%2f..%2fetc%2fpasswd",
                                      "a%2fb",
                                      "%252e%252e/%252e%252e/etc/passwd",
                                      "%252e%252e",
                                      "a%5c..%5c..%5cetc",
                                      "..%5c..%5cetc%5cpasswd",
                                      "a%00b",
                                      "%00",
                                      "/etc/passwd",
                                      "//etc/passwd",
                                      "../../etc/passwd",
                                      "..",
                                      "./x",
                                      "a/../../b",
                                      "a//b",
                                      "x/",
                                      "%",
                                      "%zz",
                                      "x%2"};
        for (const QByteArray& tail : tails) {
            const RawHttpResponse g = get(tail);
            QVERIFY2(g.status == 400 || g.status == 404, tail);
            QVERIFY(!g.body.contains("root:"));
            const RawHttpResponse p = put(tail + "?parents=true", "pwned");
            QVERIFY2(p.status == 400 || p.status == 404, tail);
            const RawHttpResponse d = del(tail + "?recursive=true");
            QVERIFY2(d.status == 400 || d.status == 404, tail);
        }
        // A workspace id is one plain segment.
        for (const QByteArray& target :
             {QByteArray("/v1/workspaces/..%2f/files/x"),
              QByteArray("/v1/workspaces/%2e%2e/files/x"), QByteArray("/v1/workspaces/../files/x")})
            QCOMPARE(FileApiRaw(m_agent.port(), m_agent.token()).send("GET", target).status, 404);

        const QList<QPair<QString, QString>> moves{{"../x", "y"},
                                                   {"my file.txt", "../../tmp/y"},
                                                   {"%2e%2e/x", "y"},
                                                   {"/etc/passwd", "y"},
                                                   {"my file.txt", "//etc/passwd"},
                                                   {QString::fromUtf8("a\0b", 3), "y"},
                                                   {"a\\..\\b", "y"},
                                                   {"my file.txt", "%2e%2e/y"},
                                                   {"my file.txt", ""},
                                                   {"my file.txt", "x/"},
                                                   {"my file.txt", "a/./b"},
                                                   {"%252e%252e", "y"}};
        for (const auto& [from, to] : moves) {
            const RawHttpResponse r = move({{"from", from}, {"to", to}});
            QVERIFY2(r.status == 400 || r.status == 404, qPrintable(from + " -> " + to));
        }
        QCOMPARE(move({{"from", "my file.txt"}, {"to", "renamed.txt"}}).status, 200);
        QCOMPARE(hostEntries(m_agent.workspaceDir(m_ws)), (QStringList{"100%", "renamed.txt"}));
    }

    void testWorkspaceTokenReachesOnlyItsWorkspace() {
        QByteArray tokenA;
        const QString a = m_agent.createWorkspace(&tokenA);
        const QString b = m_ws;
        QVERIFY(!a.isEmpty() && !tokenA.isEmpty());
        const FileApiRaw asA(m_agent.port(), tokenA);
        // Positive control: its own workspace, fully.
        QCOMPARE(asA.put(files("mine", a), "m").status, 201);
        QCOMPARE(asA.send("GET", files("mine", a)).body, QByteArray("m"));
        QCOMPARE(put("theirs", "t").status, 201); // b, with the agent token

        QCOMPARE(asA.send("GET", files("theirs", b)).status, 404);
        QCOMPARE(asA.send("GET", files("", b)).status, 404);
        QCOMPARE(asA.put(files("planted", b), "x").status, 404);
        QCOMPARE(asA.send("DELETE", files("theirs", b)).status, 404);
        const QByteArray json = R"({"from":"theirs","to":"gone"})";
        QCOMPARE(asA.send("POST", moveTarget(b),
                          {{"Content-Type", "application/json"},
                           {"Content-Length", QByteArray::number(json.size())}},
                          json)
                     .status,
                 404);
        QCOMPARE(hostEntries(m_agent.workspaceDir(b)), QStringList{"theirs"});
    }
};

QTEST_GUILESS_MAIN(TestFileApiEscape)
#include "test_file_api_escape.moc"
