// The TLS listener and certificate pinning against the real agent (docs/contracts.md "TLS and
// pinning"): an execution over TLS with the right pin, refusals of a wrong pin and of a swapped
// certificate naming both fingerprints (ApiClient and the CLI), --print-fingerprint, a TLS 1.1
// client refused, the key's mode, the plain listener kept on loopback, and a fleet file's
// fingerprint pinning its agent for the CLI's fleet commands.
#include "shared/ApiClient.h"
#include "shared/TlsPin.h"
#include "support/AgentProcess.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

using namespace runbox;
using namespace runbox::testsupport;

namespace {

struct Run {
    int exitCode = -1;
    QString out;
    QString err;
};

Run runProgram(const QString& program, const QStringList& args, const QByteArray& stdinData = {},
               int timeoutMs = 60000) {
    QProcess p;
    p.start(program, args);
    Run r;
    if (!p.waitForStarted(10000))
        return r;
    p.write(stdinData);
    p.closeWriteChannel();
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished(5000);
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

/// `runbox-agent --print-fingerprint --state-dir DIR`, trimmed; empty on failure.
QString printedFingerprint(const QString& stateDir) {
    const Run r = runProgram(QStringLiteral(RUNBOX_BINARY_DIR "/agent/runbox-agent"),
                             {"--print-fingerprint", "--state-dir", stateDir});
    return r.exitCode == 0 ? r.out.trimmed() : QString();
}

/// A sync exec of `echo` over @p client; its stdout, or the error.
QString echoOver(ApiClient& client, const QString& workspace, const QString& word) {
    const ApiResponse r = client.callRaw(
        "POST", "/v1/workspaces/" + workspace.toUtf8() + "/exec",
        QJsonDocument(QJsonObject{{"argv", QJsonArray{"/bin/echo", word}}}).toJson(), 60000);
    if (!r.ok())
        return QStringLiteral("error %1: %2").arg(r.status).arg(r.errorMessage());
    QString out;
    for (const QByteArray& line : r.body.split('\n'))
        if (const QJsonObject ev = QJsonDocument::fromJson(line).object();
            ev.value(QLatin1String("type")).toString() == QLatin1String("stdout"))
            out += ev.value(QLatin1String("data")).toString();
    return out.trimmed();
}

QByteArray sha256Of(const QString& fingerprint) {
    return tls::parseFingerprint(fingerprint).value_or(QByteArray());
}

} // namespace

class TestTlsPinning final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testPinnedExecutionAndRefusals() {
        AgentProcess agent;
        AgentOptions options;
        options.tls = true;
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QString fingerprint = printedFingerprint(agent.stateDir());
        QVERIFY2(tls::parseFingerprint(fingerprint), qPrintable(fingerprint));
        QTRY_VERIFY2_WITH_TIMEOUT(
            agent.log().contains(QLatin1String("SHA-256 fingerprint ") + fingerprint),
            qPrintable(agent.log()), 5000);

        // The generated key is the agent's alone.
        struct stat st {};
        QCOMPARE(::stat(QFile::encodeName(agent.stateDir() + "/tls-key.pem"), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        QCOMPARE(st.st_uid, agent.agentUid());

        // Positive control: an execution over TLS with the right pin, and /v1/health says
        // which listeners are up with the fingerprint the client saw.
        const QString workspace = agent.createWorkspace();
        QVERIFY2(!workspace.isEmpty(), qPrintable(agent.errorString()));
        ApiClient pinned(agent.tlsUrl(), agent.token());
        pinned.setPinnedSha256(sha256Of(fingerprint));
        QCOMPARE(echoOver(pinned, workspace, QStringLiteral("over-tls")),
                 QStringLiteral("over-tls"));
        const ApiResponse health = pinned.call("GET", "/v1/health");
        QVERIFY2(health.ok(), qPrintable(health.errorMessage()));
        const QJsonObject listeners = health.json().value(QLatin1String("listeners")).toObject();
        QCOMPARE(listeners.value(QLatin1String("tls"))
                     .toObject()
                     .value(QLatin1String("fingerprint"))
                     .toString(),
                 fingerprint);
        QCOMPARE(listeners.value(QLatin1String("tls")).toObject().value(QLatin1String("url")),
                 QJsonValue(agent.tlsUrl().toString()));
        QCOMPARE(listeners.value(QLatin1String("http")).toObject().value(QLatin1String("url")),
                 QJsonValue(agent.baseUrl().toString()));

        // No pin: the self-signed certificate is refused, its fingerprint shown to pin.
        ApiClient unpinned(agent.tlsUrl(), agent.token());
        const ApiResponse refusedUnpinned = unpinned.call("GET", "/v1/workspaces");
        QCOMPARE(refusedUnpinned.status, 0);
        QVERIFY2(refusedUnpinned.networkError.contains(fingerprint) &&
                     refusedUnpinned.networkError.contains(QLatin1String("--fingerprint")),
                 qPrintable(refusedUnpinned.networkError));

        // A wrong pin: refused, both fingerprints named, nothing run.
        QByteArray wrong = sha256Of(fingerprint);
        wrong[31] = char(wrong[31] ^ 0x5a);
        ApiClient wrongPin(agent.tlsUrl(), agent.token());
        wrongPin.setPinnedSha256(wrong);
        const QString refused = echoOver(wrongPin, workspace, QStringLiteral("must-not-run"));
        QVERIFY2(refused.contains(QLatin1String("expected ") + tls::formatFingerprint(wrong)) &&
                     refused.contains(QLatin1String("presented ") + fingerprint),
                 qPrintable(refused));

        // The CLI, the same three ways.
        const QStringList cli{"--url", agent.tlsUrl().toString(), "--token", agent.token()};
        Run r = runProgram(AgentProcess::cliPath(),
                           cli + QStringList{"--fingerprint", fingerprint, "exec", "--workspace",
                                             workspace, "--", "/bin/echo", "cli-over-tls"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(r.out.trimmed(), QStringLiteral("cli-over-tls"));
        r = runProgram(AgentProcess::cliPath(),
                       cli + QStringList{"--fingerprint", tls::formatFingerprint(wrong), "health"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QLatin1String("expected ") + tls::formatFingerprint(wrong)) &&
                     r.err.contains(QLatin1String("presented ") + fingerprint),
                 qPrintable(r.err));
        r = runProgram(AgentProcess::cliPath(), cli + QStringList{"health"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(fingerprint), qPrintable(r.err));

        // The agent restarted with a new certificate: the old pin refuses it, loudly.
        QVERIFY(agent.stop());
        QVERIFY(QFile::remove(agent.stateDir() + "/tls-cert.pem"));
        QVERIFY(QFile::remove(agent.stateDir() + "/tls-key.pem"));
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QString swapped = printedFingerprint(agent.stateDir());
        QVERIFY(!swapped.isEmpty() && swapped != fingerprint);
        ApiClient oldPin(agent.tlsUrl(), agent.token());
        oldPin.setPinnedSha256(sha256Of(fingerprint));
        const QString refusedSwap = echoOver(oldPin, workspace, QStringLiteral("must-not-run"));
        QVERIFY2(refusedSwap.contains(QLatin1String("expected ") + fingerprint) &&
                     refusedSwap.contains(QLatin1String("presented ") + swapped),
                 qPrintable(refusedSwap));
        r = runProgram(AgentProcess::cliPath(),
                       QStringList{"--url", agent.tlsUrl().toString(), "--token", agent.token(),
                                   "--fingerprint", fingerprint, "health"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QLatin1String("presented ") + swapped), qPrintable(r.err));
        ApiClient newPin(agent.tlsUrl(), agent.token());
        newPin.setPinnedSha256(sha256Of(swapped)); // control: the new pin works
        QCOMPARE(echoOver(newPin, workspace, QStringLiteral("new-pin")), QStringLiteral("new-pin"));
    }

    /// `runbox cp` over TLS: a chunk-signed upload streamed through the pinned connection, and
    /// a download back, byte for byte; a wrong pin sends nothing (no file appears).
    /// An answer that closes the connection (a refused token, an unsigned request, a refused
    /// body) reaches a TLS client whole: the agent shut its sending side only after the TLS
    /// records left, not when the TLS layer took the plain text (they were lost: status 0).
    void testRefusalsReachTlsClients() {
        AgentProcess agent;
        AgentOptions options;
        options.tls = true;
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QByteArray pin = sha256Of(printedFingerprint(agent.stateDir()));
        ApiClient pinned(agent.tlsUrl(), agent.token());
        pinned.setPinnedSha256(pin);
        QCOMPARE(pinned.call("GET", "/v1/workspaces").status, 200); // positive control
        ApiClient wrong(agent.tlsUrl(), QByteArray(64, 'a'));
        wrong.setPinnedSha256(pin);
        for (int i = 0; i < 5; ++i) {
            const ApiResponse r = wrong.call("GET", "/v1/workspaces");
            QCOMPARE(r.status, 401);
            QCOMPARE(r.errorCode(), QStringLiteral("unauthorized"));
            const ApiResponse withBody = wrong.call("POST", "/v1/workspaces", QJsonObject{});
            QCOMPARE(withBody.status, 401);
        }
    }

    void testCopyOverTls() {
        AgentProcess agent;
        AgentOptions options;
        options.tls = true;
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QString fingerprint = printedFingerprint(agent.stateDir());
        const QString workspace = agent.createWorkspace();
        QVERIFY(!workspace.isEmpty());
        QTemporaryDir dir;
        QByteArray data(5 * 1024 * 1024 + 17, Qt::Uninitialized);
        for (qsizetype i = 0; i < data.size(); ++i)
            data[i] = char((i * 2654435761u) >> 13);
        QFile source(dir.filePath("payload.bin"));
        QVERIFY(source.open(QIODevice::WriteOnly));
        QCOMPARE(source.write(data), data.size());
        source.close();
        const QStringList pinned{"--url",       agent.tlsUrl().toString(), "--token",
                                 agent.token(), "--fingerprint",           fingerprint};
        Run r = runProgram(AgentProcess::cliPath(),
                           pinned + QStringList{"cp", source.fileName(), workspace + ":in.bin"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile landed(agent.workspaceDir(workspace) + "/in.bin");
        QVERIFY(landed.open(QIODevice::ReadOnly));
        QVERIFY(landed.readAll() == data);
        r = runProgram(AgentProcess::cliPath(),
                       pinned + QStringList{"cp", workspace + ":in.bin", dir.filePath("back.bin")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile back(dir.filePath("back.bin"));
        QVERIFY(back.open(QIODevice::ReadOnly));
        QVERIFY(back.readAll() == data);

        QByteArray wrong = sha256Of(fingerprint);
        wrong[5] = char(wrong[5] ^ 0x10);
        r = runProgram(AgentProcess::cliPath(),
                       QStringList{"--url", agent.tlsUrl().toString(), "--token", agent.token(),
                                   "--fingerprint", tls::formatFingerprint(wrong), "cp",
                                   source.fileName(), workspace + ":refused.bin"});
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.contains(QLatin1String("presented ") + fingerprint), qPrintable(r.err));
        QVERIFY(!QFile::exists(agent.workspaceDir(workspace) + "/refused.bin"));
    }

    /// A fleet file's `fingerprint` pins its agent for every fleet command of the CLI: the
    /// pool survey and a command on a pooled id. A wrong pin or none is refused before a byte
    /// of the request goes out, so nothing runs (docs/contracts.md "Fleet file").
    void testTheFleetFilesFingerprintPinsItsAgent() {
        AgentProcess agent;
        AgentOptions options;
        options.tls = true;
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QString fingerprint = printedFingerprint(agent.stateDir());
        QVERIFY(tls::parseFingerprint(fingerprint));
        const QString workspace = agent.createWorkspace();
        QVERIFY(!workspace.isEmpty());
        QTemporaryDir dir;
        const QString fleetPath = dir.filePath("fleet.json");
        const auto writeFleet = [&](const QString& pin) {
            QJsonObject entry{{"name", "h1"},
                              {"url", agent.tlsUrl().toString()},
                              {"tokenFile", agent.stateDir() + "/agent.token"}};
            if (!pin.isEmpty())
                entry.insert("fingerprint", pin);
            QFile f(fleetPath);
            return f.open(QIODevice::WriteOnly | QIODevice::Truncate) &&
                   f.write(QJsonDocument(QJsonObject{{"agents", QJsonArray{entry}}}).toJson()) > 0;
        };
        const auto survey = [&] {
            const Run r =
                runProgram(AgentProcess::cliPath(), {"--fleet", fleetPath, "pool", "ls", "--json"});
            return QJsonDocument::fromJson(r.out.toUtf8())
                .object()
                .value("hosts")
                .toArray()
                .first()
                .toObject();
        };
        const QString marker = agent.stateDir() + "/workspaces/" + workspace + "/fleet-ran";
        const auto touchThroughFleet = [&] {
            return runProgram(AgentProcess::cliPath(),
                              {"--fleet", fleetPath, "exec", "--workspace", "h1." + workspace, "--",
                               "/bin/sh", "-c", "touch fleet-ran && echo through-fleet"});
        };

        // Positive control: the right pin reaches the agent, both ways.
        QVERIFY(writeFleet(fingerprint));
        QCOMPARE(survey().value("reachable").toBool(), true);
        Run r = touchThroughFleet();
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out.trimmed(), QStringLiteral("through-fleet"));
        QVERIFY(QFile::remove(marker));

        // A command given --url (no --fingerprint) takes the fleet file's pin for that agent.
        const QStringList byUrl{"--fleet", fleetPath,    "--url", agent.tlsUrl().toString(),
                                "--token", agent.token()};
        r = runProgram(AgentProcess::cliPath(), byUrl + QStringList{"health"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));

        QByteArray wrong = sha256Of(fingerprint);
        wrong[0] = char(wrong[0] ^ 0x01);
        for (const QString& pin : {tls::formatFingerprint(wrong), QString()}) {
            QVERIFY(writeFleet(pin));
            const QJsonObject host = survey();
            QCOMPARE(host.value("reachable").toBool(true), false);
            QVERIFY2(host.value("error").toString().contains(fingerprint),
                     qPrintable(host.value("error").toString()));
            r = touchThroughFleet();
            QVERIFY(r.exitCode != 0);
            QVERIFY2(r.err.contains(fingerprint), qPrintable(r.err));
            QVERIFY2(!QFile::exists(marker), qPrintable(pin));
            r = runProgram(AgentProcess::cliPath(), byUrl + QStringList{"health"});
            QVERIFY(r.exitCode != 0);
            QVERIFY2(r.err.contains(fingerprint), qPrintable(r.err));
        }
        // An explicit --fingerprint wins over the fleet file's (wrong) one.
        QVERIFY(writeFleet(tls::formatFingerprint(wrong)));
        r = runProgram(AgentProcess::cliPath(),
                       byUrl + QStringList{"--fingerprint", fingerprint, "health"});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }

    void testTls11ClientIsRefused() {
        const QString openssl = QStandardPaths::findExecutable(QStringLiteral("openssl"));
        if (openssl.isEmpty())
            QSKIP("openssl(1) is not installed: no client that can offer TLS 1.1 "
                  "(QSslSocket in Qt 6 refuses to)");
        AgentProcess agent;
        AgentOptions options;
        options.tls = true;
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QString connect = QStringLiteral("127.0.0.1:%1").arg(agent.tlsUrl().port());
        const QStringList tls11{"-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"};
        // Positive control 1: this openssl can speak TLS 1.1 (to its own s_server).
        QTcpServer portPicker;
        QVERIFY(portPicker.listen(QHostAddress::LocalHost, 0));
        const quint16 port = portPicker.serverPort();
        portPicker.close();
        QProcess server;
        server.start(openssl,
                     QStringList{"s_server", "-accept", QString::number(port), "-cert",
                                 agent.stateDir() + "/tls-cert.pem", "-key",
                                 agent.stateDir() + "/tls-key.pem", "-naccept", "1", "-quiet"} +
                         tls11);
        QVERIFY(server.waitForStarted(10000));
        QTest::qWait(500);
        Run own = runProgram(
            openssl,
            QStringList{"s_client", "-connect", QStringLiteral("127.0.0.1:%1").arg(port)} + tls11,
            {}, 15000);
        server.kill();
        server.waitForFinished(5000);
        QVERIFY2(own.out.contains(QLatin1String("Protocol  : TLSv1.1")) &&
                     !own.out.contains(QLatin1String("Cipher is (NONE)")),
                 qPrintable(own.out + own.err));
        // Positive control 2: the agent speaks TLS 1.2 to the same client.
        Run ok = runProgram(openssl, {"s_client", "-connect", connect, "-tls1_2"}, {}, 15000);
        QVERIFY2(ok.out.contains(QLatin1String("Protocol  : TLSv1.2")) &&
                     !ok.out.contains(QLatin1String("Cipher is (NONE)")),
                 qPrintable(ok.out + ok.err));
        // TLS 1.1 to the agent: refused with a protocol_version alert.
        Run old =
            runProgram(openssl, QStringList{"s_client", "-connect", connect} + tls11, {}, 15000);
        QVERIFY(old.exitCode != 0);
        QVERIFY2(old.out.contains(QLatin1String("Cipher is (NONE)")), qPrintable(old.out));
        QVERIFY2(old.err.contains(QLatin1String("alert protocol version")), qPrintable(old.err));
        // Renegotiation (TLS 1.2, RFC 5246 §7.4.1) asked for by the client: refused.
        Run reneg = runProgram(openssl, {"s_client", "-connect", connect, "-tls1_2"}, "R\n", 15000);
        QVERIFY2(reneg.out.contains(QLatin1String("RENEGOTIATING")) ||
                     reneg.err.contains(QLatin1String("RENEGOTIATING")),
                 qPrintable(reneg.out + reneg.err));
        QVERIFY2(reneg.err.contains(QLatin1String("no renegotiation")), qPrintable(reneg.err));
    }

    void testConnectionCapCountsBothListeners() {
        // docs/contracts.md "HTTP front door": maxConnections holds for the agent, not per
        // listener. Over TLS the canned 503 arrives as plain bytes: the handshake fails.
        AgentProcess agent;
        AgentOptions options;
        options.tls = true;
        options.extraArgs = {"--max-connections", "2"};
        QVERIFY2(agent.start(options), qPrintable(agent.errorString()));
        const QString fingerprint = printedFingerprint(agent.stateDir());
        {
            ApiClient control(agent.tlsUrl(), agent.token()); // its connection closes with it
            control.setPinnedSha256(sha256Of(fingerprint));
            QVERIFY(control.call("GET", "/health").ok()); // positive control
        }
        QTest::qWait(200);
        QTcpSocket a, b;
        for (QTcpSocket* s : {&a, &b}) {
            s->connectToHost(QHostAddress::LocalHost, agent.port());
            QVERIFY(s->waitForConnected(5000));
        }
        QTest::qWait(300); // both accepted: the cap is reached
        ApiClient second(agent.tlsUrl(), agent.token());
        second.setPinnedSha256(sha256Of(fingerprint));
        QCOMPARE(second.call("GET", "/health", {}, 10000).status, 0);
        a.abort();
        QTest::qWait(300);
        ApiClient third(agent.tlsUrl(), agent.token());
        third.setPinnedSha256(sha256Of(fingerprint));
        QTRY_VERIFY_WITH_TIMEOUT(third.call("GET", "/health", {}, 10000).ok(), 10000);
    }

    void testPlainListenerOnAllInterfacesNeedsTheFlag() {
        AgentProcess refused;
        AgentOptions options;
        options.extraArgs = {"--listen", "0.0.0.0:0"}; // the last --listen wins
        QVERIFY(!refused.start(options));
        QVERIFY2(refused.errorString().contains(QLatin1String("(code 2)")),
                 qPrintable(refused.errorString()));
        QVERIFY2(refused.errorString().contains(QLatin1String("not a loopback address")) &&
                     refused.errorString().contains(QLatin1String("confidentiality")) &&
                     refused.errorString().contains(QLatin1String("--allow-plaintext-remote")),
                 qPrintable(refused.errorString()));
        AgentProcess allowed;
        options.extraArgs << "--allow-plaintext-remote";
        QVERIFY2(allowed.start(options), qPrintable(allowed.errorString()));
        const ApiResponse r = allowed.client()->call("GET", "/health");
        QVERIFY2(r.ok(), qPrintable(r.errorMessage()));
    }
};

QTEST_GUILESS_MAIN(TestTlsPinning)
#include "test_tls_pinning.moc"
