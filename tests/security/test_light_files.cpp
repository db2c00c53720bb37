// The file API on light workspaces' homes through the real agent, run as root
// (docs/light-workspaces.md): files written belong to the workspace uid; links planted by a
// workspace never lead out of its home; another workspace's token reaches nothing. Every refusal is
// preceded by a positive control.
#include "LightAgentFixture.h"
#include "LightTestSupport.h"

#include "shared/Crypto.h"

#include <QBuffer>
#include <QFileInfo>
#include <QNetworkReply>
#include <QtTest>

#include <sys/stat.h>

using namespace lightagent;

namespace {

/// A blocking signed upload (`PUT …/files/PATH`): the status and body.
ApiResponse putFile(ApiClient& client, const Workspace& ws, const QByteArray& pathAndQuery,
                    const QByteArray& data) {
    QBuffer buffer;
    buffer.setData(data);
    buffer.open(QIODevice::ReadOnly);
    std::unique_ptr<QNetworkReply> reply(
        client.sendStream("PUT", "/v1/workspaces/" + ws.id.toUtf8() + "/files/" + pathAndQuery,
                          &buffer, runbox::crypto::sha256Hex(data)));
    if (!reply->isFinished()) {
        QEventLoop loop;
        QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(60000, &loop, &QEventLoop::quit);
        loop.exec();
    }
    ApiResponse r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    return r;
}

QByteArray filesPath(const Workspace& ws, const QByteArray& path) {
    return "/v1/workspaces/" + ws.id.toUtf8() + "/files/" + path;
}

uid_t ownerOf(const QString& path) {
    struct stat st {};
    return ::lstat(QFile::encodeName(path).constData(), &st) == 0 ? st.st_uid : uid_t(-1);
}

QByteArray fileBytes(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestLightFiles final : public QObject {
    Q_OBJECT

private:
    Agent m_agent;
    Workspace m_a, m_b;

private Q_SLOTS:
    void initTestCase() {
        QString error;
        const QString skip = m_agent.startWithTwoWorkspaces(44200, 200, &m_a, &m_b, &error);
        if (!skip.isEmpty())
            QSKIP(qPrintable(skip));
        QVERIFY2(error.isEmpty(), qPrintable(error));
    }

    void testFilesWrittenThroughTheApiBelongToTheWorkspaceUid() {
        ApiClient a(m_agent.url(), m_a.token);
        QByteArray data;
        for (int i = 0; i < 70000; ++i)
            data += char(i * 7);
        const ApiResponse put = putFile(a, m_a, "up/dir/data.bin?parents=true", data);
        QCOMPARE(put.status, 201);
        const QString host = m_a.home + QStringLiteral("/up/dir/data.bin");
        QCOMPARE(ownerOf(host), m_a.uid);
        QCOMPARE(ownerOf(m_a.home + QStringLiteral("/up")), m_a.uid);
        QCOMPARE(ownerOf(m_a.home + QStringLiteral("/up/dir")), m_a.uid);
        QVERIFY(fileBytes(host) == data);
        // The workspace's own code reads and changes it (it owns it), and sees it in the listing.
        const Outcome used = sh(a, m_a.id,
                                QStringLiteral("cmp up/dir/data.bin up/dir/data.bin && "
                                               "echo tail >> up/dir/data.bin && ls up/dir"));
        QCOMPARE(used.status(), QStringLiteral("completed"));
        QCOMPARE(used.out, QByteArray("data.bin\n"));
        const ApiResponse got = a.call("GET", filesPath(m_a, "up/dir/data.bin"));
        QCOMPARE(got.status, 200);
        QVERIFY(got.body == data + "tail\n");
        const ApiResponse listing = a.call("GET", filesPath(m_a, "up/dir"));
        QCOMPARE(listing.status, 200);
        QVERIFY(listing.body.contains("data.bin"));

        const QByteArray move = "/v1/workspaces/" + m_a.id.toUtf8() + "/files:move";
        QCOMPARE(a.call("POST", move, {{"from", "up/dir/data.bin"}, {"to", "moved.bin"}}).status,
                 200);
        QCOMPARE(ownerOf(m_a.home + QStringLiteral("/moved.bin")), m_a.uid);
        QCOMPARE(sh(a, m_a.id, QStringLiteral("test -f moved.bin && ! test -e up/dir/data.bin"))
                     .status(),
                 QStringLiteral("completed"));
        QCOMPARE(a.call("DELETE", filesPath(m_a, "moved.bin")).status, 200);
        QVERIFY(!QFileInfo::exists(m_a.home + QStringLiteral("/moved.bin")));
        QCOMPARE(a.call("GET", filesPath(m_a, "moved.bin")).status, 404);
        // Created as the workspace, not as root: a 0600 file of A's is A's to read.
        QCOMPARE(putFile(a, m_a, "private.txt", "p").status, 201);
        QCOMPARE(sh(a, m_a.id, QStringLiteral("chmod 600 private.txt && cat private.txt")).out,
                 QByteArray("p"));
    }

    void testWorkspaceTokenCannotUseAnotherWorkspacesFiles() {
        ApiClient a(m_agent.url(), m_a.token), b(m_agent.url(), m_b.token);
        QCOMPARE(putFile(b, m_b, "b-only.txt", "b-secret").status, 201);
        // Positive control: B reads it.
        QCOMPARE(b.call("GET", filesPath(m_b, "b-only.txt")).body, QByteArray("b-secret"));
        const ApiResponse read = a.call("GET", filesPath(m_b, "b-only.txt"));
        QCOMPARE(read.status, 404);
        QVERIFY(!read.body.contains("b-secret"));
        QCOMPARE(putFile(a, m_b, "planted.txt", "x").status, 404);
        QCOMPARE(a.call("DELETE", filesPath(m_b, "b-only.txt")).status, 404);
        QVERIFY(!QFileInfo::exists(m_b.home + QStringLiteral("/planted.txt")));
        QVERIFY(QFileInfo::exists(m_b.home + QStringLiteral("/b-only.txt")));
    }

    void testFileApiRefusesLinksPlantedByTheWorkspace() {
        ApiClient a(m_agent.url(), m_a.token), b(m_agent.url(), m_b.token);
        QCOMPARE(putFile(b, m_b, "secret", "b-secret\n").status, 201);
        const QByteArray shadowBefore = fileBytes(QStringLiteral("/etc/shadow"));
        QVERIFY(!shadowBefore.isEmpty());
        const Outcome plant = sh(a, m_a.id,
                                 QStringLiteral("echo mine > own && ln -sf /etc/shadow shadow && "
                                                "ln -sf %1/secret bsecret && ln -sfn %1 bhome && "
                                                "ln -sfn /etc etc")
                                     .arg(m_b.home));
        QCOMPARE(plant.status(), QStringLiteral("completed"));
        // Positive control: A's own regular file is served.
        const ApiResponse own = a.call("GET", filesPath(m_a, "own"));
        QCOMPARE(own.status, 200);
        QCOMPARE(own.body, QByteArray("mine\n"));
        for (const char* planted : {"shadow", "bsecret", "bhome/secret", "etc/shadow", "bhome"}) {
            const ApiResponse r = a.call("GET", filesPath(m_a, planted));
            QVERIFY2(r.status >= 400 && r.status < 500, planted);
            QVERIFY2(!r.body.contains("b-secret") && !r.body.contains("root:"), planted);
        }
        // Writes through a linked directory land nowhere; a write over a link replaces the link
        // in A's home at most, never its target.
        QVERIFY(putFile(a, m_a, "bhome/evil", "x").status >= 400);
        QVERIFY(putFile(a, m_a, "etc/evil", "x").status >= 400);
        QVERIFY(!QFileInfo::exists(m_b.home + QStringLiteral("/evil")));
        QVERIFY(!QFileInfo::exists(QStringLiteral("/etc/evil")));
        putFile(a, m_a, "shadow", "overwritten");
        putFile(a, m_a, "bsecret", "overwritten");
        QVERIFY(fileBytes(QStringLiteral("/etc/shadow")) == shadowBefore);
        QCOMPARE(fileBytes(m_b.home + QStringLiteral("/secret")), QByteArray("b-secret\n"));
        // Delete and move through the linked directory are refused too.
        QVERIFY(a.call("DELETE", filesPath(m_a, "bhome/secret")).status >= 400);
        const QByteArray move = "/v1/workspaces/" + m_a.id.toUtf8() + "/files:move";
        QVERIFY(a.call("POST", move, {{"from", "bhome/secret"}, {"to", "stolen"}}).status >= 400);
        QVERIFY(a.call("POST", move, {{"from", "own"}, {"to", "bhome/own"}}).status >= 400);
        QCOMPARE(fileBytes(m_b.home + QStringLiteral("/secret")), QByteArray("b-secret\n"));
        QVERIFY(!QFileInfo::exists(m_a.home + QStringLiteral("/stolen")));
        QVERIFY(!QFileInfo::exists(m_b.home + QStringLiteral("/own")));
        QCOMPARE(sh(a, m_a.id, QStringLiteral("rm -f shadow bsecret bhome etc")).status(),
                 QStringLiteral("completed"));
    }
};

QTEST_GUILESS_MAIN(TestLightFiles)
#include "test_light_files.moc"
