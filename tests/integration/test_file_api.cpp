// The workspace file API end to end on the real agent (docs/contracts.md "Workspace file API",
// CLI `runbox cp`): round trips, listings, Range and ETag, deletes and moves under the workspace
// lease, and memory that stays flat while large files stream both ways. Uploads the agent
// refuses (checksum, conflict, 413 before any byte lands): test_file_upload_refusals.
#include "FileApiFixture.h"
#include "shared/RequestSigner.h"
#include "support/TestFiles.h"

#include <QDateTime>
#include <QJsonArray>
#include <QProcess>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestFileApi final : public FileApiFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void init() { QVERIFY2(freshWorkspace(), qPrintable(m_agent.errorString())); }

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
