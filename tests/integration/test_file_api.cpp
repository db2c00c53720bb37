// The workspace file API end to end on the real agent (docs/contracts.md "Workspace file API",
// upload quotas, CLI `runbox cp`): round trips, listings, Range and ETag, checksum and conflict
// refusals, 413 before any byte lands, deletes and moves under the workspace lease, and memory
// that stays flat while large files stream both ways.
#include "shared/ApiClient.h"
#include "shared/Crypto.h"
#include "shared/RequestSigner.h"
#include "support/AgentProcess.h"
#include "support/FileApiRaw.h"
#include "support/TestFiles.h"

#include <QBuffer>
#include <QDateTime>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

struct Reply {
    int status = 0;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;
    QString error;
    QByteArray header(const QByteArray& name) const {
        for (const auto& [n, v] : headers)
            if (n.toLower() == name.toLower())
                return v;
        return {};
    }
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString code() const { return json().value("error").toObject().value("code").toString(); }
};

Reply finish(QNetworkReply* raw, int timeoutMs = 120000) {
    std::unique_ptr<QNetworkReply> reply(raw);
    if (!reply->isFinished()) {
        QEventLoop loop;
        QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
        loop.exec();
    }
    Reply r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    r.headers = reply->rawHeaderPairs();
    r.error = reply->errorString();
    return r;
}

} // namespace

class TestFileApi final : public QObject {
    Q_OBJECT

    AgentProcess m_agent;
    QString m_ws;

    FileApiRaw raw() const { return FileApiRaw(m_agent.port(), m_agent.token()); }
    bool setQuotas(const QJsonObject& patch) {
        return m_agent.client()->call("PUT", "/v1/settings/quotas", patch).status == 200;
    }

    QByteArray files(const QByteArray& path, const QByteArray& query = {}) const {
        return "/v1/workspaces/" + m_ws.toUtf8() + "/files/" + path +
               (query.isEmpty() ? QByteArray() : '?' + query);
    }
    Reply put(const QByteArray& path, const QByteArray& data, const QByteArray& query = {},
              const QByteArray& declaredSha = {}) {
        QBuffer buffer;
        buffer.setData(data);
        buffer.open(QIODevice::ReadOnly);
        return finish(m_agent.client()->sendStream("PUT", files(path, query), &buffer,
                                                   declaredSha.isEmpty() ? crypto::sha256Hex(data)
                                                                         : declaredSha));
    }
    Reply get(const QByteArray& path, const QList<QPair<QByteArray, QByteArray>>& headers = {},
              const QByteArray& method = "GET") {
        return finish(m_agent.client()->send(method, path.startsWith('/') ? path : files(path), {},
                                             "application/json", headers));
    }
    Reply call(const QByteArray& method, const QByteArray& target, const QJsonObject& body = {}) {
        return finish(m_agent.client()->send(
            method, target,
            body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact)));
    }
    QString wsDir() const { return m_agent.workspaceDir(m_ws); }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void init() {
        QVERIFY(setQuotas({{"uploadMaxFileBytes", 1LL << 30},
                           {"uploadMaxRequestBytes", 10LL << 30},
                           {"maxWorkspaceBytes", 10LL << 30}}));
        m_ws = m_agent.createWorkspace();
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }

    void testFileRoundTripAndDirectoryListing() {
        const QByteArray data = randomBytes(3 * 1024 * 1024 + 7);
        const Reply created = put("dir/sub/data.bin", data, "parents=true&mode=640");
        QCOMPARE(created.status, 201);
        QCOMPARE(created.json().value("size").toInteger(), data.size());
        QCOMPARE(created.json().value("mode").toString(), QStringLiteral("0640"));
        QCOMPARE(created.json().value("path").toString(), QStringLiteral("dir/sub/data.bin"));
        QVERIFY(!created.header("ETag").isEmpty());

        const Reply back = get("dir/sub/data.bin");
        QCOMPARE(back.status, 200);
        QCOMPARE(back.header("X-Runbox-Entry-Type"), QByteArray("file"));
        QCOMPARE(back.header("Content-Type"), QByteArray("application/octet-stream"));
        QCOMPARE(back.header("ETag"), created.header("ETag"));
        QVERIFY(back.body == data);
        // What the agent wrote is the file on disk, owned by the agent.
        QFile onDisk(wsDir() + "/dir/sub/data.bin");
        QVERIFY(onDisk.open(QIODevice::ReadOnly));
        QVERIFY(onDisk.readAll() == data);

        for (const char* name : {"e", "a", "d", "c", "b"})
            QCOMPARE(put(QByteArray("dir/") + name, name).status, 201);
        const Reply page1 = get(files("dir", "limit=2"));
        QCOMPARE(page1.status, 200);
        QCOMPARE(page1.header("X-Runbox-Entry-Type"), QByteArray("directory"));
        const QJsonObject l1 = page1.json();
        QCOMPARE(l1.value("total").toInt(), 6);
        QCOMPARE(l1.value("nextOffset").toInt(), 2);
        QStringList names;
        for (const QJsonValue& e : l1.value("entries").toArray())
            names << e.toObject().value("name").toString();
        QCOMPARE(names, (QStringList{"a", "b"}));
        const QJsonObject l3 = get(files("dir", "offset=4&limit=2")).json();
        QCOMPARE(l3.value("entries").toArray().size(), 2);
        QVERIFY(l3.value("nextOffset").isNull());
        QCOMPARE(l3.value("entries").toArray().at(1).toObject().value("type").toString(),
                 QStringLiteral("directory"));
        // The root, with and without the trailing slash.
        QCOMPARE(get(files("")).json().value("total").toInt(), 1);
        QCOMPARE(get("/v1/workspaces/" + m_ws.toUtf8() + "/files").json().value("total").toInt(),
                 1);
        QCOMPARE(get(files("dir", "limit=x")).status, 400);
        QCOMPARE(get(files("dir", "bogus=1")).status, 400);
        QCOMPARE(get("missing").code(), QStringLiteral("not_found"));
    }

    void testEmptyFileAndOverwrite() {
        QCOMPARE(put("empty", {}).status, 201);
        const Reply e = get("empty");
        QCOMPARE(e.status, 200);
        QVERIFY(e.body.isEmpty());
        QCOMPARE(put("empty", "now full", "conflict=overwrite").status, 200);
        QCOMPARE(get("empty").body, QByteArray("now full"));
    }

    void testRangeAndEtag() {
        QByteArray data;
        for (int i = 0; i < 1000; ++i)
            data += char('a' + i % 26);
        const Reply created = put("r.txt", data);
        QCOMPARE(created.status, 201);
        const QByteArray etag = created.header("ETag");

        const Reply part = get("r.txt", {{"Range", "bytes=10-19"}});
        QCOMPARE(part.status, 206);
        QCOMPARE(part.body, data.mid(10, 10));
        QCOMPARE(part.header("Content-Range"), QByteArray("bytes 10-19/1000"));
        QCOMPARE(part.header("Accept-Ranges"), QByteArray("bytes"));
        const Reply tail = get("r.txt", {{"Range", "bytes=-5"}});
        QCOMPARE(tail.status, 206);
        QCOMPARE(tail.body, data.right(5));
        const Reply open = get("r.txt", {{"Range", "bytes=995-"}});
        QCOMPARE(open.body, data.right(5));
        const Reply beyond = get("r.txt", {{"Range", "bytes=1000-"}});
        QCOMPARE(beyond.status, 416);
        QCOMPARE(beyond.header("Content-Range"), QByteArray("bytes */1000"));
        QCOMPARE(beyond.code(), QStringLiteral("range_not_satisfiable"));
        const Reply several = get("r.txt", {{"Range", "bytes=0-1,5-6"}});
        QCOMPARE(several.status, 200);
        QCOMPARE(several.body, data);
        // If-Range with the current tag applies the range; with an old one, the whole file.
        QCOMPARE(get("r.txt", {{"Range", "bytes=0-0"}, {"If-Range", etag}}).status, 206);
        QCOMPARE(get("r.txt", {{"Range", "bytes=0-0"}, {"If-Range", "\"old\""}}).status, 200);

        const Reply same = get("r.txt", {{"If-None-Match", etag}});
        QCOMPARE(same.status, 304);
        QVERIFY(same.body.isEmpty());
        QCOMPARE(same.header("ETag"), etag);
        QCOMPARE(get("r.txt", {{"If-None-Match", "\"other\""}}).status, 200);

        const Reply head = get(files("r.txt"), {}, "HEAD");
        QCOMPARE(head.status, 200);
        QCOMPARE(head.header("Content-Length"), QByteArray("1000"));
        QVERIFY(head.body.isEmpty());

        QCOMPARE(put("r.txt", "changed", "conflict=overwrite").status, 200);
        const Reply changed = get("r.txt", {{"If-None-Match", etag}});
        QCOMPARE(changed.status, 200);
        QCOMPARE(changed.body, QByteArray("changed"));
        QVERIFY(changed.header("ETag") != etag);
    }

    void testChecksumMismatchLeavesNothing() {
        const QByteArray data = randomBytes(2 * 1024 * 1024);
        QByteArray wrong = crypto::sha256Hex(data);
        wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
        const Reply r = put("bad.bin", data, {}, wrong);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.code(), QStringLiteral("checksum_mismatch"));
        QCOMPARE(get("bad.bin").status, 404);
        QCOMPARE(hostEntries(wsDir()), QStringList());
        // Positive control: the right hash lands the same bytes.
        QCOMPARE(put("bad.bin", data).status, 201);
    }

    void testFailedUploadWithParentsRemovesOnlyTheDirectoriesItMade() {
        QCOMPARE(put("keep/x", "x", "parents=true").status, 201); // "keep" exists before
        const QStringList before{"keep"};
        QCOMPARE(hostEntries(wsDir()), before);
        const QString keepDir = wsDir() + QStringLiteral("/keep");

        // A bad hash: refused at commit, after the directories were made.
        const QByteArray data = randomBytes(256 * 1024);
        QByteArray wrong = crypto::sha256Hex(data);
        wrong[0] = wrong[0] == 'a' ? 'b' : 'a';
        const Reply bad = put("keep/new1/new2/bad.bin", data, "parents=true", wrong);
        QCOMPARE(bad.status, 400);
        QCOMPARE(bad.code(), QStringLiteral("checksum_mismatch"));
        QCOMPARE(hostEntries(wsDir()), before);
        QCOMPARE(hostEntries(keepDir), QStringList{"x"});

        // The workspace quota crossed while a chunked body streams (no Content-Length to
        // refuse it on the head): 413 mid-body.
        QVERIFY(setQuotas({{"maxWorkspaceBytes", 1 << 20}}));
        const QByteArray hash = crypto::sha256Hex("whatever");
        QByteArray framed;
        for (int i = 0; i < 40; ++i)
            framed += "10000\r\n" + QByteArray(0x10000, 'z') + "\r\n";
        framed += "0\r\n\r\n";
        const RawHttpResponse over = raw().send(
            "PUT", files("keep/q1/q2/big.bin", "parents=true"),
            {{"Transfer-Encoding", "chunked"}, {"X-Runbox-Content-SHA256", hash}}, framed, hash);
        QCOMPARE(over.status, 413);
        QVERIFY(over.body.contains("workspace_quota_exceeded"));
        QCOMPARE(hostEntries(wsDir()), before);
        QCOMPARE(hostEntries(keepDir), QStringList{"x"});

        // Refused before the upload starts (target is a directory that exists): nothing made.
        QCOMPARE(put("keep", "x", "parents=true&conflict=overwrite").status, 409);
        QCOMPARE(hostEntries(keepDir), QStringList{"x"});

        // Positive control: the same uploads with a right hash land with their directories.
        QVERIFY(setQuotas({{"maxWorkspaceBytes", 10LL << 30}}));
        QCOMPARE(put("keep/new1/new2/bad.bin", data, "parents=true").status, 201);
        QCOMPARE(hostEntries(keepDir), (QStringList{"new1", "x"}));
        QCOMPARE(get("keep/new1/new2/bad.bin").body, data);
    }

    void testStreamedUploadWithoutDeclaredHashIs400() {
        const FileApiRaw raw = this->raw();
        const RawHttpResponse r =
            raw.send("PUT", files("x"), {{"Content-Length", "3"}}, "abc"); // signed over "abc"
        QCOMPARE(r.status, 400);
        QVERIFY(r.body.contains("content_sha256_required"));
        QCOMPARE(get("x").status, 404);
        // A declared hash the signature does not cover is refused as unauthenticated.
        const RawHttpResponse forged = raw.send(
            "PUT", files("x"),
            {{"Content-Length", "3"}, {"X-Runbox-Content-SHA256", crypto::sha256Hex("abc")}}, "abc",
            crypto::sha256Hex("xyz"));
        QCOMPARE(forged.status, 401);
        QCOMPARE(raw.put(files("x"), "abc").status, 201); // positive control
    }

    void testChunkedUploadAndConflictRejectIs409() {
        const FileApiRaw raw = this->raw();
        const QByteArray body = "hello chunked world";
        const QByteArray hash = crypto::sha256Hex(body);
        const QByteArray framed = "5\r\nhello\r\n" + QByteArray::number(body.size() - 5, 16) +
                                  "\r\n" + body.mid(5) + "\r\n0\r\n\r\n";
        const RawHttpResponse r = raw.send(
            "PUT", files("c.txt"),
            {{"Transfer-Encoding", "chunked"}, {"X-Runbox-Content-SHA256", hash}}, framed, hash);
        QCOMPARE(r.status, 201);
        QCOMPARE(get("c.txt").body, body);
        const Reply again = put("c.txt", "other");
        QCOMPARE(again.status, 409);
        QCOMPARE(again.code(), QStringLiteral("file_exists"));
        QCOMPARE(get("c.txt").body, body);
        QCOMPARE(put("c.txt", "x", "conflict=sometimes").status, 400);
        QCOMPARE(put("c.txt", "x", "conflict=overwrite&mode=4755").status, 400);
    }

    void test413BeforeAnyByteLands() {
        QVERIFY(setQuotas({{"uploadMaxFileBytes", 1 << 20}}));
        // Only the head is sent: the answer cannot have waited for the body.
        const FileApiRaw raw = this->raw();
        const QByteArray hash = crypto::sha256Hex("whatever");
        const RawHttpResponse tooBig = raw.send(
            "PUT", files("big.bin"),
            {{"Content-Length", QByteArray::number(2 << 20)}, {"X-Runbox-Content-SHA256", hash}},
            {}, hash, 10000);
        QCOMPARE(tooBig.status, 413);
        QVERIFY(tooBig.body.contains("upload_too_large"));
        QCOMPARE(hostEntries(wsDir()), QStringList());

        // A chunked body that crosses the limit stops with 413; nothing is left.
        QByteArray framed;
        for (int i = 0; i < 40; ++i)
            framed += "10000\r\n" + QByteArray(0x10000, 'z') + "\r\n";
        framed += "0\r\n\r\n";
        const RawHttpResponse crossing = raw.send(
            "PUT", files("big.bin"),
            {{"Transfer-Encoding", "chunked"}, {"X-Runbox-Content-SHA256", hash}}, framed, hash);
        QCOMPARE(crossing.status, 413);
        QCOMPARE(hostEntries(wsDir()), QStringList());
        // A client library still sending when the 413 comes gets the answer, not a reset.
        const Reply viaClient = put("big.bin", randomBytes(64 << 20));
        QCOMPARE(viaClient.status, 413);
        QCOMPARE(viaClient.code(), QStringLiteral("upload_too_large"));
        QCOMPARE(hostEntries(wsDir()), QStringList());

        // The workspace quota: usage + Content-Length over maxWorkspaceBytes.
        QVERIFY(setQuotas({{"uploadMaxFileBytes", 0}, {"maxWorkspaceBytes", 1 << 20}}));
        QCOMPARE(put("first.bin", randomBytes(600 * 1024)).status, 201);
        const RawHttpResponse over = raw.send(
            "PUT", files("second.bin"),
            {{"Content-Length", QByteArray::number(600 * 1024)}, {"X-Runbox-Content-SHA256", hash}},
            {}, hash, 10000);
        QCOMPARE(over.status, 413);
        QVERIFY(over.body.contains("workspace_quota_exceeded"));
        QCOMPARE(hostEntries(wsDir()), QStringList{"first.bin"});
        // Overwriting frees the old file's blocks: the same size again fits.
        QCOMPARE(put("first.bin", randomBytes(600 * 1024), "conflict=overwrite").status, 200);
    }

    void testRefusedLargeUploadIsAnsweredToAQtClient() {
        // Qt's QNetworkAccessManager reads the answer only once it has sent the whole body: the
        // agent must keep reading a refused upload (a 4 GiB sparse file, over the 1 GiB
        // uploadMaxFileBytes) rather than close on it.
        QTemporaryDir local;
        QFile sparse(local.filePath("sparse.bin"));
        QVERIFY(sparse.open(QIODevice::ReadWrite));
        QVERIFY(sparse.resize(4LL << 30));
        const QByteArray hash = ApiClient::sha256OfDevice(&sparse);
        const Reply r =
            finish(m_agent.client()->sendStream("PUT", files("huge.bin"), &sparse, hash));
        QCOMPARE(r.status, 413);
        QCOMPARE(r.code(), QStringLiteral("upload_too_large"));
        QCOMPARE(hostEntries(wsDir()), QStringList());
    }

    void testDeleteAndMove() {
        QCOMPARE(put("a/b/one", "1", "parents=true").status, 201);
        QCOMPARE(put("a/two", "2").status, 201);
        const Reply notEmpty = call("DELETE", files("a"));
        QCOMPARE(notEmpty.status, 409);
        QCOMPARE(notEmpty.code(), QStringLiteral("directory_not_empty"));
        QCOMPARE(call("DELETE", files("a/two")).status, 200);
        QCOMPARE(get("a/two").status, 404);

        const QByteArray move = "/v1/workspaces/" + m_ws.toUtf8() + "/files:move";
        QCOMPARE(call("POST", move, {{"from", "a/b/one"}, {"to", "moved"}}).status, 200);
        QCOMPARE(get("moved").body, QByteArray("1"));
        QCOMPARE(put("other", "o").status, 201);
        const Reply clash = call("POST", move, {{"from", "moved"}, {"to", "other"}});
        QCOMPARE(clash.status, 409);
        QCOMPARE(
            call("POST", move, {{"from", "moved"}, {"to", "other"}, {"overwrite", true}}).status,
            200);
        QCOMPARE(get("other").body, QByteArray("1"));
        QCOMPARE(call("POST", move, {{"from", "other"}, {"to", "x/y/z"}, {"parents", true}}).status,
                 200);
        QCOMPARE(call("POST", move, {{"from", "nope"}, {"to", "q"}}).status, 404);
        QCOMPARE(call("POST", move, {{"from", "x"}, {"to", "q"}, {"extra", 1}}).status, 400);
        QCOMPARE(call("POST", move, {{"from", 1}, {"to", "q"}}).status, 400);

        QCOMPARE(call("DELETE", files("a", "recursive=true")).status, 200);
        QCOMPARE(call("DELETE", files("x", "recursive=true")).status, 200);
        QCOMPARE(call("DELETE", files("")).status, 400);
        QCOMPARE(hostEntries(wsDir()), QStringList());
    }

    void testWritesWaitForTheLeaseAndReadsDoNot() {
        QCOMPARE(put("keep", "k").status, 201);
        QCOMPARE(put("victim", "v").status, 201);
        QStringList order;
        bool started = false;
        QNetworkReply* exec = m_agent.client()->stream(
            "POST", "/v1/workspaces/" + m_ws.toUtf8() + "/exec",
            R"({"kind":"shell","code":"sleep 3"})",
            [&](const QJsonObject& ev) {
                const QString type = ev.value("type").toString();
                if (type == QLatin1String("started"))
                    started = true;
                if (type == QLatin1String("exit"))
                    order << "exit";
            },
            [&](const ApiResponse&) { order << "exec-end"; });
        Q_UNUSED(exec);
        QTRY_VERIFY_WITH_TIMEOUT(started, 30000);
        QNetworkReply* del = m_agent.client()->send("DELETE", files("victim"));
        connect(del, &QNetworkReply::finished, this, [&] { order << "delete"; });
        QNetworkReply* read = m_agent.client()->send("GET", files("keep"));
        connect(read, &QNetworkReply::finished, this, [&] { order << "get"; });
        QTRY_VERIFY_WITH_TIMEOUT(order.contains("delete") && order.contains("exec-end"), 60000);
        QVERIFY2(order.indexOf("get") < order.indexOf("exit"), qPrintable(order.join(',')));
        QVERIFY2(order.indexOf("exit") < order.indexOf("delete"), qPrintable(order.join(',')));
        QCOMPARE(del->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
        del->deleteLater();
        read->deleteLater();
    }

    void testCliCopyRoundTrip() {
        QTemporaryDir local;
        const QByteArray data = randomBytes(64 * 1024 * 1024); // still being sent when refused
        QFile src(local.filePath("src.bin"));
        QVERIFY(src.open(QIODevice::WriteOnly));
        src.write(data);
        src.close();
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("RUNBOX_URL", m_agent.baseUrl().toString());
        env.insert("RUNBOX_TOKEN", QString::fromLatin1(m_agent.token()));
        auto runCli = [&](const QStringList& args) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.setProcessChannelMode(QProcess::MergedChannels);
            p.start(QStringLiteral(RUNBOX_BINARY_DIR "/cli/runbox"), args);
            p.waitForFinished(120000);
            return QPair<int, QByteArray>(p.exitCode(), p.readAll());
        };
        auto up = runCli({"cp", "--parents", src.fileName(), m_ws + ":in/dir/"});
        QVERIFY2(up.first == 0, up.second.constData());
        QVERIFY(get("in/dir/src.bin").body == data);
        auto again = runCli({"cp", src.fileName(), m_ws + ":in/dir/src.bin"});
        QCOMPARE(again.first, 1);
        QVERIFY(again.second.contains("file_exists"));
        QCOMPARE(runCli({"cp", "--overwrite", src.fileName(), m_ws + ":in/dir/src.bin"}).first, 0);

        auto down = runCli({"cp", m_ws + ":in/dir/src.bin", local.filePath("back.bin")});
        QVERIFY2(down.first == 0, down.second.constData());
        QFile back(local.filePath("back.bin"));
        QVERIFY(back.open(QIODevice::ReadOnly));
        QVERIFY(back.readAll() == data);
        auto dir = runCli({"cp", m_ws + ":in", local.filePath("d")});
        QCOMPARE(dir.first, 1);
        QVERIFY(!QFile::exists(local.filePath("d")));
        QVERIFY(setQuotas({{"uploadMaxFileBytes", 1 << 20}}));
        auto tooBig = runCli({"cp", src.fileName(), m_ws + ":big.bin"});
        QCOMPARE(tooBig.first, 1);
        QVERIFY2(tooBig.second.contains("413 upload_too_large"), tooBig.second.constData());
        auto missing = runCli({"cp", m_ws + ":nope", local.filePath("n")});
        QCOMPARE(missing.first, 1);
        QVERIFY(missing.second.contains("not_found"));
        QVERIFY(!QFile::exists(local.filePath("n")));
    }

    void testLargeTransfersKeepAgentMemoryFlat() {
        const qint64 size = 256LL * 1024 * 1024;
        QTemporaryDir local;
        QFile src(local.filePath("big.bin"));
        QVERIFY(src.open(QIODevice::ReadWrite));
        const QByteArray block = randomBytes(1024 * 1024);
        for (qint64 i = 0; i < size; i += block.size())
            src.write(block);
        QVERIFY(src.seek(0));
        const QByteArray hash = ApiClient::sha256OfDevice(&src);
        const qint64 before = m_agent.rssKiB();
        QVERIFY(before > 0);
        qint64 peak = before;
        QTimer sampler;
        connect(&sampler, &QTimer::timeout, this, [&] { peak = std::max(peak, m_agent.rssKiB()); });
        sampler.start(20);
        const Reply up = finish(m_agent.client()->sendStream("PUT", files("big.bin"), &src, hash));
        QCOMPARE(up.status, 201);
        QCOMPARE(up.json().value("size").toInteger(), size);
        // A client that does not read: the agent must not queue the file in memory.
        QTcpSocket slow;
        slow.setReadBufferSize(64 * 1024);
        slow.connectToHost(QHostAddress::LocalHost, m_agent.port());
        QVERIFY(slow.waitForConnected(5000));
        QByteArray req = "GET " + files("big.bin") + " HTTP/1.1\r\nHost: x\r\n";
        for (const auto& [n, v] : RequestSigner::headersFor(
                 m_agent.token(), "GET", files("big.bin"), {}, QDateTime::currentMSecsSinceEpoch()))
            req += n + ": " + v + "\r\n";
        slow.write(req + "\r\n");
        QTRY_VERIFY(slow.bytesAvailable() > 0);
        QTest::qWait(1500); // give a buffering agent time to show it
        sampler.stop();
        peak = std::max(peak, m_agent.rssKiB());
        slow.abort();
        qInfo() << "agent RSS" << before << "KiB before, peak" << peak << "KiB";
        QVERIFY2(peak - before < 64 * 1024,
                 qPrintable(QStringLiteral("agent RSS grew by %1 KiB").arg(peak - before)));
        // Positive control: the whole file does come back intact to a reading client.
        const Reply back = get("big.bin");
        QCOMPARE(back.body.size(), size);
        QCOMPARE(crypto::sha256Hex(back.body), hash);

        // runbox cp streams both ways too: its peak resident size (VmHWM, sampled while it runs)
        // stays far below the file's size.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("RUNBOX_URL", m_agent.baseUrl().toString());
        env.insert("RUNBOX_TOKEN", QString::fromLatin1(m_agent.token()));
#if defined(__SANITIZE_ADDRESS__)
        // ASan keeps up to 256 MiB of freed memory in quarantine, which the peak size counts:
        // shrink it so that the check measures the CLI's buffering, not the allocator's.
        env.insert("ASAN_OPTIONS", env.value("ASAN_OPTIONS") + ":quarantine_size_mb=8");
#endif
        for (const QStringList& args :
             {QStringList{"cp", m_ws + ":big.bin", local.filePath("down.bin")},
              QStringList{"cp", src.fileName(), m_ws + ":again.bin"}}) {
            QProcess cli;
            cli.setProcessEnvironment(env);
            cli.start(QStringLiteral(RUNBOX_BINARY_DIR "/cli/runbox"), args);
            QVERIFY(cli.waitForStarted());
            const QString status = QStringLiteral("/proc/%1/status").arg(cli.processId());
            qint64 hwmKiB = 0;
            while (cli.state() != QProcess::NotRunning) {
                QFile f(status);
                if (f.open(QIODevice::ReadOnly))
                    for (const QByteArray& line : f.readAll().split('\n'))
                        if (line.startsWith("VmHWM:"))
                            hwmKiB =
                                std::max(hwmKiB, line.mid(6).trimmed().split(' ')[0].toLongLong());
                cli.waitForFinished(5);
            }
            QCOMPARE(cli.exitCode(), 0);
            qInfo() << args.join(' ') << "peak RSS" << hwmKiB << "KiB";
            QVERIFY2(hwmKiB < 96 * 1024, qPrintable(args.join(' ')));
        }
        QFile down(local.filePath("down.bin"));
        QVERIFY(down.open(QIODevice::ReadOnly));
        QCOMPARE(ApiClient::sha256OfDevice(&down), hash);
    }
};

QTEST_GUILESS_MAIN(TestFileApi)
#include "test_file_api.moc"
