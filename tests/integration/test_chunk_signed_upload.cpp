// Chunk-signed uploads end to end on the real agent (docs/upload-integrity.md, upload
// throughput): the body lands byte for byte with the agent token, a workspace token and `runbox
// cp`; an altered, foreign-keyed, truncated or short body is refused and leaves nothing; the
// 413s are decided on X-Runbox-Decoded-Length before any body byte is sent.
#include "shared/ApiClient.h"
#include "shared/Crypto.h"
#include "shared/RequestSigner.h"
#include "shared/UploadChunkSigner.h"
#include "support/AgentProcess.h"
#include "support/RawHttp.h"
#include "support/TestFiles.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

/// Builds the body from the request's signature (the chain's seed).
using BodyBuilder = std::function<QByteArray(const QByteArray& seed)>;

} // namespace

class TestChunkSignedUpload final : public QObject {
    Q_OBJECT

    AgentProcess m_agent;
    QString m_ws;
    QByteArray m_wsToken;

    QByteArray files(const QByteArray& path, const QByteArray& query = {}) const {
        return "/v1/workspaces/" + m_ws.toUtf8() + "/files/" + path +
               (query.isEmpty() ? QByteArray() : '?' + query);
    }
    QString wsDir() const { return m_agent.workspaceDir(m_ws); }
    bool setQuotas(const QJsonObject& patch) {
        return m_agent.client()->call("PUT", "/v1/settings/quotas", patch).status == 200;
    }

    /// A PUT whose head is signed over the chunk-signing literal with @p token, declaring
    /// @p decodedLength; the body is @p body(seed) (nothing when null: the head alone, with
    /// the Content-Length of a well-formed body).
    RawHttpResponse putSigned(const QByteArray& token, const QByteArray& target,
                              qint64 decodedLength, const BodyBuilder& body,
                              HeaderList extra = {}) const {
        HeaderList headers = RequestSigner::headersForHash(
            token, "PUT", target, upload_chunks::kScheme, QDateTime::currentMSecsSinceEpoch());
        const QByteArray seed = headers.last().second; // X-Runbox-Signature
        headers += {{"X-Runbox-Content-SHA256", upload_chunks::kScheme},
                    {"X-Runbox-Decoded-Length", QByteArray::number(decodedLength)}};
        headers += extra;
        RawHttpConnection c;
        if (!c.connectTo(m_agent.port()))
            return {};
        if (!body)
            headers += {{"Content-Length",
                         QByteArray::number(UploadChunkSigner::encodedLength(decodedLength))}};
        c.send(buildRequest("PUT", target, headers, body ? body(seed) : QByteArray()), 60000);
        return c.readResponse(30000);
    }
    /// The well-formed body of @p data signed with @p key.
    static BodyBuilder encoded(const QByteArray& key, const QByteArray& data,
                               qint64 chunkBytes = 256 * 1024) {
        return [=](const QByteArray& seed) {
            return UploadChunkSigner::encode(key, seed, data, chunkBytes);
        };
    }
    QByteArray get(const QByteArray& path) {
        return m_agent.client()->callRaw("GET", files(path), {}).body;
    }
    int status(const QByteArray& path) {
        return m_agent.client()->callRaw("GET", files(path), {}).status;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY2(m_agent.start(), qPrintable(m_agent.errorString())); }

    void init() {
        QVERIFY(setQuotas({{"uploadMaxFileBytes", 1LL << 30},
                           {"uploadMaxRequestBytes", 10LL << 30},
                           {"maxWorkspaceBytes", 10LL << 30}}));
        m_ws = m_agent.createWorkspace(&m_wsToken);
        QVERIFY2(!m_ws.isEmpty(), qPrintable(m_agent.errorString()));
    }

    void testUploadLandsTheSameBytes() {
        const QByteArray data = randomBytes(3 * 1024 * 1024 + 5);
        const RawHttpResponse r = putSigned(m_agent.token(), files("a/data.bin", "parents=true"),
                                            data.size(), encoded(m_agent.token(), data));
        QCOMPARE(r.status, 201);
        QCOMPARE(r.json().value("size").toInteger(), data.size());
        QVERIFY(get("a/data.bin") == data);
        // The empty file: the final chunk alone.
        QCOMPARE(putSigned(m_agent.token(), files("empty"), 0, encoded(m_agent.token(), {})).status,
                 201);
        QCOMPARE(QFileInfo(wsDir() + "/empty").size(), 0);
        // The HTTP framing stays the transport's: the signed chunks inside a chunked body.
        const QByteArray small = randomBytes(100 * 1024);
        const RawHttpResponse chunked =
            putSigned(m_agent.token(), files("chunked.bin"), small.size(),
                      [&](const QByteArray& seed) {
                          return chunkedBody(
                              UploadChunkSigner::encode(m_agent.token(), seed, small, 40000), 7777);
                      },
                      {{"Transfer-Encoding", "chunked"}});
        QCOMPARE(chunked.status, 201);
        QVERIFY(get("chunked.bin") == small);
    }

    void testWorkspaceTokenSignsItsChunks() {
        const QByteArray data = randomBytes(600 * 1024);
        QCOMPARE(
            putSigned(m_wsToken, files("ws.bin"), data.size(), encoded(m_wsToken, data)).status,
            201);
        QVERIFY(get("ws.bin") == data);
        // The chunks must be signed with the key that signed the head: the agent token's
        // chunks under a workspace-token head do not verify.
        const RawHttpResponse mixed =
            putSigned(m_wsToken, files("mixed.bin"), data.size(), encoded(m_agent.token(), data));
        QCOMPARE(mixed.status, 400);
        QCOMPARE(mixed.errorCode(), QStringLiteral("chunk_signature_mismatch"));
        QCOMPARE(hostEntries(wsDir()), QStringList{"ws.bin"});
    }

    void testTamperedChunkIs400AndNothingIsCommitted() {
        const QByteArray data = randomBytes(3 * 1024 * 1024);
        const BodyBuilder good = encoded(m_agent.token(), data, 1024 * 1024);
        QCOMPARE(putSigned(m_agent.token(), files("control.bin"), data.size(), good).status,
                 201); // positive control
        const BodyBuilder tampered = [&](const QByteArray& seed) {
            QByteArray body = good(seed);
            body[body.size() / 2] = char(body[body.size() / 2] ^ 0x20); // in chunk 2's data
            return body;
        };
        const RawHttpResponse r = putSigned(m_agent.token(), files("new/dir/t.bin", "parents=true"),
                                            data.size(), tampered);
        QCOMPARE(r.status, 400);
        QCOMPARE(r.errorCode(), QStringLiteral("chunk_signature_mismatch"));
        QCOMPARE(status("new/dir/t.bin"), 404);
        // Neither the file, nor its temporary, nor the directories it made are left.
        QCOMPARE(hostEntries(wsDir()), QStringList{"control.bin"});
    }

    void testIncompleteOrShortBodiesCommitNothing() {
        const QByteArray data = randomBytes(512 * 1024);
        const QByteArray token = m_agent.token();
        // Every data chunk verified, but the final chunk is missing.
        const RawHttpResponse noFinal =
            putSigned(token, files("x.bin"), data.size(), [&](const QByteArray& seed) {
                const QByteArray body = UploadChunkSigner::encode(token, seed, data, 128 * 1024);
                return body.left(body.lastIndexOf("0;chunk-signature="));
            });
        QCOMPARE(noFinal.status, 400);
        QCOMPARE(noFinal.errorCode(), QStringLiteral("invalid_chunk"));
        // Chunks that add up to less than the declared length.
        const RawHttpResponse shorter =
            putSigned(token, files("x.bin"), data.size() + 1, encoded(token, data));
        QCOMPARE(shorter.status, 400);
        QCOMPARE(shorter.errorCode(), QStringLiteral("decoded_length_mismatch"));
        // A plain body sent under the chunk-signing head.
        const RawHttpResponse plain =
            putSigned(token, files("x.bin"), data.size(), [&](const QByteArray&) { return data; });
        QCOMPARE(plain.status, 400);
        QCOMPARE(plain.errorCode(), QStringLiteral("invalid_chunk"));
        QCOMPARE(hostEntries(wsDir()), QStringList());
    }

    void testDecodedLengthIsRequiredAndWellFormed() {
        for (const QByteArray& bad : {QByteArray(), QByteArray("-1"), QByteArray("12x"),
                                      QByteArray("1e6"), QByteArray(" ")}) {
            HeaderList headers = RequestSigner::headersForHash(
                m_agent.token(), "PUT", files("d.bin"), upload_chunks::kScheme,
                QDateTime::currentMSecsSinceEpoch());
            headers += {{"X-Runbox-Content-SHA256", upload_chunks::kScheme}};
            if (!bad.isEmpty())
                headers += {{"X-Runbox-Decoded-Length", bad}};
            const RawHttpResponse r =
                rawRoundTrip(m_agent.port(), buildRequest("PUT", files("d.bin"), headers, "x"));
            QCOMPARE(r.status, 400);
            QCOMPARE(r.errorCode(), QStringLiteral("decoded_length_required"));
        }
        QCOMPARE(hostEntries(wsDir()), QStringList());
    }

    void test413OnTheDecodedLengthBeforeAnyByte() {
        // Only the head is sent: the answer cannot have waited for the body.
        QVERIFY(setQuotas({{"uploadMaxFileBytes", 1 << 20}}));
        const RawHttpResponse tooBig =
            putSigned(m_agent.token(), files("big.bin"), (1 << 20) + 1, nullptr);
        QCOMPARE(tooBig.status, 413);
        QCOMPARE(tooBig.errorCode(), QStringLiteral("upload_too_large"));
        // Exactly at the limit fits, although the encoded body is larger than the limit.
        const QByteArray atLimit = randomBytes(1 << 20);
        QCOMPARE(putSigned(m_agent.token(), files("limit.bin"), atLimit.size(),
                           encoded(m_agent.token(), atLimit, 64 * 1024))
                     .status,
                 201);
        QVERIFY(setQuotas({{"uploadMaxFileBytes", 0}, {"maxWorkspaceBytes", 2 << 20}}));
        const RawHttpResponse over =
            putSigned(m_agent.token(), files("over.bin"), 1536 * 1024, nullptr);
        QCOMPARE(over.status, 413);
        QCOMPARE(over.errorCode(), QStringLiteral("workspace_quota_exceeded"));
        QCOMPARE(hostEntries(wsDir()), QStringList{"limit.bin"});
    }

    void testCliUploadWithAWorkspaceToken() {
        QTemporaryDir local;
        const QByteArray data = randomBytes(5 * 1024 * 1024 + 3); // several 1 MiB chunks
        QFile src(local.filePath("src.bin"));
        QVERIFY(src.open(QIODevice::WriteOnly));
        src.write(data);
        src.close();
        QProcess cli;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("RUNBOX_URL", m_agent.baseUrl().toString());
        env.insert("RUNBOX_TOKEN", QString::fromLatin1(m_wsToken));
        cli.setProcessEnvironment(env);
        cli.setProcessChannelMode(QProcess::MergedChannels);
        cli.start(AgentProcess::cliPath(), {"cp", src.fileName(), m_ws + ":up.bin"});
        QVERIFY(cli.waitForFinished(60000));
        QVERIFY2(cli.exitCode() == 0, cli.readAll().constData());
        QVERIFY(get("up.bin") == data);
    }
};

QTEST_GUILESS_MAIN(TestChunkSignedUpload)
#include "test_chunk_signed_upload.moc"
