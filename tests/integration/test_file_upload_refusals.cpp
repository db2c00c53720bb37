// Uploads the agent refuses, end to end on the real agent (docs/contracts.md "Workspace file
// API", upload quotas, docs/upload-integrity.md): a checksum mismatch or a quota crossed leaves
// nothing behind (not even the directories the upload made), a streamed upload must declare its
// hash, conflicts are 409, and 413 comes before any byte lands, answered even to a client that
// reads only after sending. Transfers that succeed: test_file_api.
#include "FileApiFixture.h"
#include "support/TestFiles.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::testsupport;

class TestFileUploadRefusals final : public FileApiFixture {
    Q_OBJECT

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void init() { QVERIFY2(freshWorkspace(), qPrintable(m_agent.errorString())); }

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
};

QTEST_GUILESS_MAIN(TestFileUploadRefusals)
#include "test_file_upload_refusals.moc"
