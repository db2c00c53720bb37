// LightExecMessage: env/cwd/ports validation, env layering, and the wire Exec encoding.
#include "agent/http/ErrorStatus.h"
#include "agent/light/LightExecMessage.h"
#include "agent/light/helper/SupervisorProtocol.h"

#include <QTest>

#include <cstring>

using namespace runbox::light;

class TestLightExecMessage final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testEnvValidation() {
        QVERIFY(!LightExecMessage::validateEnv({{QStringLiteral("A"), QStringLiteral("1")}}));
        for (const QString& bad :
             {QString(), QStringLiteral("A=B"), QStringLiteral("A") + QChar(0)}) {
            const auto error = LightExecMessage::validateEnv({{bad, QStringLiteral("v")}});
            QVERIFY(error);
            QCOMPARE(runbox::http::httpStatus(error->kind), 400);
            QCOMPARE(error->code, QStringLiteral("invalid_env"));
        }
        QVERIFY(LightExecMessage::validateEnv(
            {{QStringLiteral("A"), QString(70000, QLatin1Char('x'))}}));
    }

    void testCwdMustStayRelative() {
        QVERIFY(!LightExecMessage::validateCwd(QString()));
        QVERIFY(!LightExecMessage::validateCwd(QStringLiteral("sub/dir")));
        QVERIFY(LightExecMessage::validateCwd(QStringLiteral("/etc")));
        QVERIFY(LightExecMessage::validateCwd(QStringLiteral("a/../../b")));
    }

    void testControlPlanePortIsForbidden() {
        QVERIFY(!LightExecMessage::validatePorts({443}, {4311}));
        const auto forbidden = LightExecMessage::validatePorts({443, 4311}, {4311});
        QVERIFY(forbidden);
        QCOMPARE(runbox::http::httpStatus(forbidden->kind), 403);
        QVERIFY(LightExecMessage::validatePorts({0}, {}));
    }

    void testEnvLayersBaseThenWorkspaceThenRequest() {
        const auto env = LightExecMessage::buildEnv(QStringLiteral("abc"), QStringLiteral("/h/abc"),
                                                    {{QStringLiteral("X"), QStringLiteral("ws")},
                                                     {QStringLiteral("Y"), QStringLiteral("ws")}},
                                                    {{QStringLiteral("Y"), QStringLiteral("req")}});
        QCOMPARE(env.value(QStringLiteral("HOME")), QStringLiteral("/h/abc"));
        QCOMPARE(env.value(QStringLiteral("TMPDIR")), QStringLiteral("/h/abc/.tmp"));
        QVERIFY(env.value(QStringLiteral("PATH")).startsWith(QStringLiteral("/h/abc/.local/bin:")));
        QCOMPARE(env.value(QStringLiteral("RUNBOX_WORKSPACE_ID")), QStringLiteral("abc"));
        QCOMPARE(env.value(QStringLiteral("X")), QStringLiteral("ws"));
        QCOMPARE(env.value(QStringLiteral("Y")), QStringLiteral("req"));
    }

    void testEncodingCarriesArgvEnvAndCwd() {
        LightExecRequest request;
        request.argv = {QStringLiteral("echo"), QStringLiteral("héllo")};
        request.cwd = QStringLiteral("sub");
        request.killTreeOnExit = true;
        QByteArray message;
        QVERIFY(!LightExecMessage::encode(7, request, {{QStringLiteral("A"), QStringLiteral("1")}},
                                          QStringLiteral("/h"), false, &message));
        wire::ExecRequest header;
        QVERIFY(message.size() > static_cast<qsizetype>(sizeof(header)));
        std::memcpy(&header, message.constData(), sizeof(header));
        QCOMPARE(header.header.execId, 7u);
        QCOMPARE(header.header.size, static_cast<std::uint32_t>(message.size()));
        QCOMPARE(header.argc, 2u);
        QCOMPARE(header.envc, 1u);
        QCOMPARE(header.flags, wire::kExecKillTreeOnExit);
        const QByteArray strings = message.mid(sizeof(header));
        QCOMPARE(strings, QByteArray("echo\0h\xc3\xa9llo\0A=1\0/h/sub\0", 23));
    }

    void testEncodingRefusesBadArgvAndHugeRequests() {
        QByteArray message;
        LightExecRequest empty;
        QCOMPARE(
            LightExecMessage::encode(1, empty, {}, QStringLiteral("/h"), false, &message)->code,
            QStringLiteral("invalid_argv"));
        LightExecRequest huge;
        huge.argv = {QStringLiteral("echo"), QString(300000, QLatin1Char('x'))};
        QCOMPARE(
            runbox::http::httpStatus(
                LightExecMessage::encode(1, huge, {}, QStringLiteral("/h"), false, &message)->kind),
            413);
    }
};

QTEST_GUILESS_MAIN(TestLightExecMessage)
#include "test_light_exec_message.moc"
