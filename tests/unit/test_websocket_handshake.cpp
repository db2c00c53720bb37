// WebSocketRelay's handshake rules (RFC 6455 §4): the client request it accepts and the
// Sec-WebSocket-Accept it expects from the workspace.
#include "agent/proxy/WebSocketRelay.h"

#include <QtTest>

using runbox::http::HttpRequest;
using runbox::proxy::WebSocketRelay;

namespace {
HttpRequest request(const QList<QPair<QByteArray, QByteArray>>& headers,
                    const QByteArray& method = "GET") {
    HttpRequest r;
    r.method = method;
    r.headers = headers;
    return r;
}
const QList<QPair<QByteArray, QByteArray>> kValid = {
    {"upgrade", "websocket"},
    {"connection", "keep-alive, Upgrade"},
    {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="},
    {"sec-websocket-version", "13"}};

QList<QPair<QByteArray, QByteArray>> with(const QByteArray& name, const QByteArray& value) {
    QList<QPair<QByteArray, QByteArray>> h;
    for (const auto& p : kValid)
        if (p.first != name)
            h.append(p);
    if (!value.isNull())
        h.append({name, value});
    return h;
}
} // namespace

class TestWebSocketHandshake final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testAcceptMatchesTheRfcExample() {
        // RFC 6455 §1.3.
        QCOMPARE(WebSocketRelay::acceptFor("dGhlIHNhbXBsZSBub25jZQ=="),
                 QByteArray("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="));
    }

    void testValidHandshakeIsAccepted() {
        QVERIFY(!WebSocketRelay::checkRequest(request(kValid)));
        QVERIFY(!WebSocketRelay::checkRequest(request(with("upgrade", "WebSocket"))));
    }

    void testMalformedHandshakesAreRefused() {
        QCOMPARE(WebSocketRelay::checkRequest(request(kValid, "POST"))->httpStatus, 400);
        QCOMPARE(WebSocketRelay::checkRequest(request(with("upgrade", "h2c")))->httpStatus, 400);
        QCOMPARE(
            WebSocketRelay::checkRequest(request(with("connection", "keep-alive")))->httpStatus,
            400);
        QCOMPARE(WebSocketRelay::checkRequest(request(with("sec-websocket-key", QByteArray())))
                     ->httpStatus,
                 400);
        QCOMPARE(WebSocketRelay::checkRequest(request(with("sec-websocket-key", "c2hvcnQ=")))
                     ->httpStatus,
                 400); // 5 bytes, not 16
        QCOMPARE(WebSocketRelay::checkRequest(
                     request(with("sec-websocket-key", "!!!!!!!!!!!!!!!!!!!!!!==")))
                     ->httpStatus,
                 400);
        const auto version =
            WebSocketRelay::checkRequest(request(with("sec-websocket-version", "8")));
        QVERIFY(version);
        QCOMPARE(version->httpStatus, 426);
    }
};

QTEST_GUILESS_MAIN(TestWebSocketHandshake)
#include "test_websocket_handshake.moc"
