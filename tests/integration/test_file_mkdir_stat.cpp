// `POST …/files:mkdir` and `GET …/files/{path}?stat=true` on the real agent (docs/contracts.md
// "Workspace file API"): the entry they answer, each refusal the other verbs have (traversal,
// links on the way, existing entries, the workspace quota, bad bodies), and a link planted by
// sandboxed code that points outside: stat shows the link, mkdir through it makes nothing
// outside. Every refusal follows a positive control. Light workspaces: test_light_files_mkdir_stat.
#include "FileApiFixture.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestFileMkdirStat final : public FileApiFixture {
    Q_OBJECT

    QByteArray mkdirTarget() const { return "/v1/workspaces/" + m_ws.toUtf8() + "/files:mkdir"; }
    Reply mkdir(const QJsonObject& body) { return call("POST", mkdirTarget(), body); }
    Reply mkdirRaw(const QByteArray& body) {
        return finish(m_agent.client()->send("POST", mkdirTarget(), body));
    }
    Reply stat(const QByteArray& path) { return get(files(path, "stat=true")); }
    static bool isError(const Reply& r, int status, const char* code) {
        const QJsonObject e = r.json().value("error").toObject();
        return r.status == status && e.value("code").toString() == QLatin1String(code) &&
               !e.value("message").toString().isEmpty();
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }
    void init() { QVERIFY2(freshWorkspace(), qPrintable(m_agent.errorString())); }

    void testMkdirAnswersTheNewEntry() {
        const Reply made = mkdir({{"path", "data"}});
        QCOMPARE(made.status, 201);
        const QJsonObject e = made.json();
        QCOMPARE(e.value("path").toString(), QStringLiteral("data"));
        QCOMPARE(e.value("name").toString(), QStringLiteral("data"));
        QCOMPARE(e.value("type").toString(), QStringLiteral("directory"));
        QCOMPARE(e.value("mode").toString(), QStringLiteral("0755"));
        QVERIFY(!e.value("mtime").toString().isEmpty());
        QVERIFY(!e.contains("linkTarget"));
        QVERIFY(QFileInfo(wsDir() + "/data").isDir());
        // The directory is usable by the other verbs and listed by its parent.
        QCOMPARE(put("data/f.txt", "x").status, 201);
        QVERIFY(get(files("")).body.contains("\"data\""));

        const Reply deep = mkdir({{"path", "a/b/c"}, {"parents", true}});
        QCOMPARE(deep.status, 201);
        QCOMPARE(deep.json().value("path").toString(), QStringLiteral("a/b/c"));
        QVERIFY(QFileInfo(wsDir() + "/a/b/c").isDir());
        // With parents an existing directory is fine: 200, the same entry, nothing changed.
        const Reply again = mkdir({{"path", "a/b/c"}, {"parents", true}});
        QCOMPARE(again.status, 200);
        QCOMPARE(again.json().value("type").toString(), QStringLiteral("directory"));
    }

    void testMkdirRefusals() {
        QCOMPARE(mkdir({{"path", "here"}}).status, 201); // positive control
        QVERIFY(isError(mkdir({{"path", "here"}}), 409, "file_exists"));
        QCOMPARE(put("file.txt", "f").status, 201);
        QVERIFY(isError(mkdir({{"path", "file.txt"}}), 409, "file_exists"));
        QVERIFY(isError(mkdir({{"path", "file.txt"}, {"parents", true}}), 409, "file_exists"));
        QVERIFY(isError(mkdir({{"path", "file.txt/sub"}}), 400, "not_a_directory"));
        QVERIFY(isError(mkdir({{"path", "missing/sub"}}), 404, "not_found"));
        QVERIFY(!QFileInfo::exists(wsDir() + "/missing"));
        QVERIFY(isError(mkdir({{"path", ""}}), 409, "file_exists")); // the root
        for (const char* bad : {"../x", "a/../b", "/abs", "a//b", "./x", "x/."})
            QVERIFY2(isError(mkdir({{"path", bad}, {"parents", true}}), 400, "invalid_path"), bad);
        QVERIFY(!QFileInfo::exists(QFileInfo(wsDir()).path() + "/x"));
    }

    void testStatOfEachType() {
        QCOMPARE(put("dir/f.bin", QByteArray(1234, 'z'), "parents=true&mode=640").status, 201);
        const Reply file = stat("dir/f.bin");
        QCOMPARE(file.status, 200);
        QCOMPARE(file.header("Content-Type"), QByteArray("application/json; charset=utf-8"));
        const QJsonObject f = file.json();
        QCOMPARE(f.value("path").toString(), QStringLiteral("dir/f.bin"));
        QCOMPARE(f.value("type").toString(), QStringLiteral("file"));
        QCOMPARE(f.value("size").toInteger(), 1234);
        QCOMPARE(f.value("mode").toString(), QStringLiteral("0640"));
        QVERIFY(f.value("mtimeMs").toInteger() > 0);

        const QJsonObject d = stat("dir").json();
        QCOMPARE(d.value("type").toString(), QStringLiteral("directory"));
        QCOMPARE(d.value("path").toString(), QStringLiteral("dir"));
        const QJsonObject root = stat("").json();
        QCOMPARE(root.value("type").toString(), QStringLiteral("directory"));
        QCOMPARE(root.value("path").toString(), QString());

        QVERIFY(isError(stat("dir/missing"), 404, "not_found"));
        QVERIFY(isError(stat("dir/f.bin/x"), 400, "not_a_directory"));
        QVERIFY(isError(get(files("dir", "stat=maybe")), 400, "invalid_argument"));
        QVERIFY(isError(get(files("dir", "stat=true&limit=2")), 400, "invalid_argument"));
        // stat=false is the ordinary GET: the file's bytes.
        QCOMPARE(get(files("dir/f.bin", "stat=false")).body, QByteArray(1234, 'z'));
    }

    void testLinkPointingOutsideIsShownAndNeverFollowed() {
        QTemporaryDir outside;
        QVERIFY(outside.isValid());
        QVERIFY(QFile::setPermissions(outside.path(),
                                      QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                          QFileDevice::WriteOther | QFileDevice::ExeOther));
        // Sandboxed code plants a link to / and a relative one that climbs out.
        const ExecOutcome planted =
            m_agent.shell(m_ws, "mkdir real && ln -s / out && ln -s ../.. up && ln -s real inside");
        QCOMPARE(planted.status(), QStringLiteral("completed"));
        // Positive control: through a real directory mkdir and stat work.
        QCOMPARE(mkdir({{"path", "real/sub"}}).status, 201);
        QCOMPARE(stat("real/sub").json().value("type").toString(), QStringLiteral("directory"));

        const QJsonObject link = stat("out").json();
        QCOMPARE(link.value("type").toString(), QStringLiteral("symlink"));
        QCOMPARE(link.value("linkTarget").toString(), QStringLiteral("/"));
        QCOMPARE(link.value("size").toInteger(), 1); // the link's own size, not /'s
        QCOMPARE(stat("up").json().value("linkTarget").toString(), QStringLiteral("../.."));
        // Even a link that stays inside is not followed.
        QCOMPARE(stat("inside").json().value("type").toString(), QStringLiteral("symlink"));

        // Through each link: into the writable directory outside, into the state directory
        // two levels up, and into the workspace's own directory.
        const QByteArray viaRoot = "out/" + outside.path().mid(1).toUtf8() + "/made";
        for (const QByteArray& path : {viaRoot, QByteArray("up/made"), QByteArray("inside/sub2")}) {
            QVERIFY2(
                isError(mkdir({{"path", QString::fromUtf8(path)}}), 400, "symlink_not_followed"),
                path.constData());
            QVERIFY2(isError(mkdir({{"path", QString::fromUtf8(path)}, {"parents", true}}), 400,
                             "symlink_not_followed"),
                     path.constData());
            QVERIFY2(isError(stat(path), 400, "symlink_not_followed"), path.constData());
        }
        QVERIFY(isError(mkdir({{"path", "out"}, {"parents", true}}), 409, "file_exists"));
        QVERIFY(QDir(outside.path()).isEmpty());
        QVERIFY(!QFileInfo::exists(m_agent.stateDir() + "/made"));
        QVERIFY(!QFileInfo::exists(wsDir() + "/real/sub2"));
    }

    void testMkdirRefusedWhileTheWorkspaceIsFull() {
        QVERIFY(setQuotas({{"maxWorkspaceBytes", 1 << 20}}));
        QCOMPARE(mkdir({{"path", "first"}}).status, 201); // positive control: room left
        QFile fill(wsDir() + "/fill"); // what a run could have written, here from the host side
        QVERIFY(fill.open(QIODevice::WriteOnly));
        QVERIFY(fill.write(QByteArray(2 << 20, 'f')) == 2 << 20);
        fill.close();
        QVERIFY(isError(mkdir({{"path", "second"}}), 413, "workspace_quota_exceeded"));
        QVERIFY(isError(mkdir({{"path", "second/x"}, {"parents", true}}), 413,
                        "workspace_quota_exceeded"));
        QVERIFY(!QFileInfo::exists(wsDir() + "/second"));
        // Reads still work; after a delete there is room again.
        QCOMPARE(stat("first").status, 200);
        QCOMPARE(call("DELETE", files("fill")).status, 200);
        QCOMPARE(mkdir({{"path", "second"}}).status, 201);
    }

    void testBadBodies() {
        QCOMPARE(mkdirRaw(R"({"path":"ok"})").status, 201); // positive control
        QVERIFY(isError(mkdirRaw("not json"), 400, "invalid_json"));
        QVERIFY(isError(mkdirRaw("[1]"), 400, "invalid_json"));
        QVERIFY(isError(mkdirRaw(R"({"path":"a","path":"b"})"), 400, "invalid_json"));
        QVERIFY(isError(mkdirRaw(R"({"path":7})"), 400, "invalid_argument"));
        QVERIFY(isError(mkdirRaw(R"({})"), 400, "invalid_argument"));
        QVERIFY(isError(mkdirRaw(R"({"path":"b","parents":"yes"})"), 400, "invalid_argument"));
        QVERIFY(isError(mkdirRaw(R"({"path":"b","mode":"0700"})"), 400, "invalid_argument"));
        QVERIFY(isError(call("POST", mkdirTarget() + "?parents=true", {{"path", "b"}}), 400,
                        "invalid_argument"));
        QVERIFY(!QFileInfo::exists(wsDir() + "/b"));
    }

    void testAnotherWorkspacesTokenReachesNothing() {
        QByteArray otherToken;
        const QString other = m_agent.createWorkspace(&otherToken);
        QVERIFY(!other.isEmpty());
        QCOMPARE(put("mine.txt", "m").status, 201);
        ApiClient foreign(m_agent.baseUrl(), otherToken);
        // Positive control: the other workspace's token works on its own workspace.
        QCOMPARE(finish(foreign.send("POST", "/v1/workspaces/" + other.toUtf8() + "/files:mkdir",
                                     R"({"path":"own"})"))
                     .status,
                 201);
        QVERIFY(isError(finish(foreign.send("POST", mkdirTarget(), R"({"path":"theirs"})")), 404,
                        "workspace_not_found"));
        QVERIFY(isError(finish(foreign.send("GET", files("mine.txt", "stat=true"))), 404,
                        "workspace_not_found"));
        QVERIFY(!QFileInfo::exists(wsDir() + "/theirs"));
    }
};

QTEST_GUILESS_MAIN(TestFileMkdirStat)
#include "test_file_mkdir_stat.moc"
