// The execution pipeline is tier-agnostic: a test-double IsolationTier (a fake backend that
// emits output and a result, no process at all) registered under a workspace's isolation name
// is all it takes for ExecutionStream to make the sync events of it and for ExecutionManager to
// run a managed execution through it to its record and log. A third tier needs this one
// interface and nothing else (docs/ARCHITECTURE.md "Isolation tiers").
#include "agent/execution/ExecutionManager.h"
#include "agent/execution/ExecutionStream.h"
#include "agent/execution/IsolationTier.h"
#include "agent/store/Database.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/LogStore.h"
#include "agent/store/QuotaStore.h"
#include "agent/store/WorkspaceRepository.h"
#include "agent/workspace/WorkspaceRegistry.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace runbox;
using namespace runbox::execution;

namespace {

/// Emits "héllo" split inside the é (UTF-8 carry-over), one invalid byte on stderr, then
/// completes with exit code 0; or ends as stopped.
class FakeBackend final : public ExecutionBackend {
public:
    using ExecutionBackend::ExecutionBackend;
    int starts = 0;
    QString stoppedWith;
    bool paused = false;

    void start() override {
        ++starts;
        QTimer::singleShot(0, this, [this] {
            const QByteArray hello = QByteArrayLiteral("h\xc3\xa9llo\n");
            Q_EMIT output(OutputStream::Stdout, hello.left(2));
            Q_EMIT output(OutputStream::Stdout, hello.mid(2));
            Q_EMIT output(OutputStream::Stderr, QByteArrayLiteral("\xff"));
            QTimer::singleShot(0, this, [this] {
                if (!stoppedWith.isEmpty())
                    return;
                ExecutionResult r;
                r.status = QStringLiteral("completed");
                r.exitCode = 0;
                r.durationMs = 5;
                r.changes.created = {QStringLiteral("out.txt")};
                Q_EMIT finished(r);
            });
        });
    }
    void stop(const QString& status, const QString& reason) override {
        if (!stoppedWith.isEmpty())
            return;
        stoppedWith = status;
        QTimer::singleShot(0, this, [this, status, reason] {
            ExecutionResult r;
            r.status = status;
            r.reason = reason;
            r.signal = QStringLiteral("SIGKILL");
            Q_EMIT finished(r);
        });
    }
    void setPaused(bool p) override { paused = p; }
};

/// A tier of its own: concurrent executions under keys of their own, no global slot.
class FakeTier final : public IsolationTier {
public:
    explicit FakeTier(QString name) : m_name(std::move(name)) {}
    QString name() const override { return m_name; }
    TierAdmission admission(const QString& id, const QString&) const override {
        return {QStringLiteral("fake:") + id, false};
    }
    std::optional<Error> validate(const ExecRequest& request,
                                  const workspace::Workspace&) override {
        if (request.kind == QLatin1String("r"))
            return Error{ErrorKind::InvalidArgument, QStringLiteral("fake_refuses_r"),
                         QStringLiteral("no R")};
        return std::nullopt;
    }
    void createBackend(const TierLaunch& launch, QObject* parent, BackendReady ready) override {
        launches.append(launch.executionId);
        managed.append(launch.managed);
        TierBackend made;
        made.backend = new FakeBackend(parent);
        made.provenance = {{"isolation", m_name},
                           {"argv", QJsonArray::fromStringList(launch.request.argv)}};
        ready(made);
    }
    QStringList launches;
    QList<bool> managed;

private:
    QString m_name;
};

ExecRequest argvRequest(const QStringList& argv) {
    ExecRequest r;
    r.kind = QStringLiteral("argv");
    r.argv = argv;
    return r;
}

} // namespace

class TestIsolationTier final : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void testStreamMakesTheSyncEventsOfAnyBackend() {
        FakeBackend backend;
        ExecutionStream stream(&backend, {QStringLiteral("x1"), QStringLiteral("w1"), 0,
                                          QJsonObject{{"isolation", "fake"}}});
        QList<QJsonObject> events;
        std::optional<ExecutionResult> result;
        connect(&stream, &ExecutionStream::event, this,
                [&](const QJsonObject& e) { events.append(e); });
        connect(&stream, &ExecutionStream::finished, this,
                [&](const ExecutionResult& r) { result = r; });
        stream.start();
        QTRY_VERIFY(result.has_value());
        QCOMPARE(backend.starts, 1);
        QVERIFY(events.size() >= 3);
        QCOMPARE(events[0].value("type").toString(), QStringLiteral("started"));
        QCOMPARE(events[0].value("executionId").toString(), QStringLiteral("x1"));
        QCOMPARE(events[0].value("workspace").toString(), QStringLiteral("w1"));
        QCOMPARE(events[0].value("isolation").toString(), QStringLiteral("fake"));
        QVERIFY(events[0].contains("startedAt"));
        QByteArray out, err;
        for (const QJsonObject& e : events.mid(1)) {
            const QString type = e.value("type").toString();
            QVERIFY2(type == "stdout" || type == "stderr", qPrintable(type));
            const QByteArray data =
                e.contains("dataBase64")
                    ? QByteArray::fromBase64(e.value("dataBase64").toString().toLatin1())
                    : e.value("data").toString().toUtf8();
            (type == "stdout" ? out : err) += data;
            if (type == "stdout") // text stays text: the é was not cut into invalid halves
                QVERIFY(e.contains("data"));
            else
                QVERIFY(e.contains("dataBase64")); // an invalid byte goes as base64
        }
        QCOMPARE(out, QByteArrayLiteral("h\xc3\xa9llo\n")); // the é was carried over, not split
        QCOMPARE(err, QByteArrayLiteral("\xff"));
        QCOMPARE(result->status, QStringLiteral("completed"));
        QCOMPARE(result->stdoutBytes, 7);
        QCOMPARE(result->stderrBytes, 1);
        const QJsonObject exit = result->toEvent();
        QCOMPARE(exit.value("type").toString(), QStringLiteral("exit"));
        QCOMPARE(exit.value("createdFiles").toArray().size(), 1);
    }

    void testStreamCutsAtTheOutputLimitAndStopsTheBackend() {
        FakeBackend backend;
        ExecutionStream stream(&backend, {QStringLiteral("x2"), QStringLiteral("w1"), 3, {}});
        QByteArray out;
        std::optional<ExecutionResult> result;
        connect(&stream, &ExecutionStream::event, this, [&](const QJsonObject& e) {
            if (e.value("type") == "stdout")
                out += e.value("data").toString().toUtf8();
            QVERIFY(e.value("type") != "stderr"); // past the limit: dropped
        });
        connect(&stream, &ExecutionStream::finished, this,
                [&](const ExecutionResult& r) { result = r; });
        stream.start();
        QTRY_VERIFY(result.has_value());
        QCOMPARE(backend.stoppedWith, QStringLiteral("output_limited"));
        QCOMPARE(result->status, QStringLiteral("output_limited"));
        QCOMPARE(result->stdoutBytes + result->stderrBytes, 3);
        QCOMPARE(out, QByteArrayLiteral("h\xc3\xa9"));
    }

    void testManagedExecutionRunsThroughTheWorkspacesTier() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;
        auto db = store::Database::open(dir.path(), &error);
        QVERIFY2(db, qPrintable(error));
        store::ExecutionRepository repository(*db);
        store::LogStore logs(dir.path());
        QVERIFY2(logs.initialize(&error), qPrintable(error));
        store::QuotaStore quotas(*db);
        store::WorkspaceRepository workspaceRows(*db);
        QVERIFY(QDir(dir.path()).mkpath("workspaces"));
        workspace::WorkspaceRegistry registry(dir.path() + "/workspaces", &workspaceRows);
        registry.load();
        workspace::Workspace ws;
        QVERIFY(!registry.create(QStringLiteral("owner"), &ws));
        SandboxHost host;
        host.stateDir = dir.path();
        ExecutionManager manager({&repository, &logs, &quotas, &registry, &host, false});

        // Positive control: without a tier for the isolation the execution cannot run.
        store::ExecutionRecord record;
        QVERIFY(!manager.submit(argvRequest({"echo", "one"}), ws.id, &record));
        const QString untiered = record.executionId;
        QTRY_VERIFY(!manager.get(untiered, &record) &&
                    record.state == store::ExecutionState::SetupFailed);
        QVERIFY2(record.statusReason.contains("not available"), qPrintable(record.statusReason));

        auto* tier = new FakeTier(ws.isolation);
        manager.addTier(std::unique_ptr<IsolationTier>(tier));
        Error noTier;
        // The manager puts each tier under the resource bounds (BoundedTier): same name.
        QVERIFY(manager.tierOf(ws, &noTier) != nullptr);
        QCOMPARE(manager.tierOf(ws, &noTier)->name(), ws.isolation);
        QVERIFY(tier->validate(argvRequest({"echo"}), ws) == std::nullopt);

        QStringList finished;
        connect(&manager, &ExecutionManager::executionFinished, this,
                [&](const QString& id) { finished.append(id); });
        QVERIFY(!manager.submit(argvRequest({"echo", "two"}), ws.id, &record));
        const QString id = record.executionId;
        QTRY_VERIFY(finished.contains(id));
        QCOMPARE(tier->launches, QStringList{id});
        QCOMPARE(tier->managed, QList<bool>{true});
        QVERIFY(!manager.get(id, &record));
        QVERIFY(record.state == store::ExecutionState::Completed);
        QVERIFY(record.exitCode == std::optional<int>(0));
        QCOMPARE(record.createdFiles, QStringList{"out.txt"});
        QCOMPARE(record.provenance.value("isolation").toString(), ws.isolation);
        QCOMPARE(record.provenance.value("kind").toString(), QStringLiteral("argv"));
        QCOMPARE(record.logBytes.stdoutBytes, 7);
        QCOMPARE(record.logBytes.stderrBytes, 1);
        store::LogReadResult log;
        QVERIFY(!logs.read(id, 0, 1 << 20, &log));
        QByteArray out;
        for (const store::LogChunk& c : log.chunks)
            if (c.kind == store::LogChunk::Kind::Stdout)
                out += c.data;
        QCOMPARE(out, QByteArrayLiteral("h\xc3\xa9llo\n"));
        QVERIFY(log.finished);

        // The tier's admission: its own key, no global slot, so a sync job of the same
        // workspace is admitted while nothing holds the workspace's lease.
        bool admitted = false;
        manager.scheduleSync(QStringLiteral("sync:s1"), ws.id, *tier, [&] { admitted = true; });
        QTRY_VERIFY(admitted);
        QCOMPARE(manager.runningCount(), 1);
        QVERIFY(!manager.workspaceBusy(ws.id)); // under "fake:sync:s1", not the workspace id
        manager.releaseSync(QStringLiteral("sync:s1"));
    }
};

QTEST_GUILESS_MAIN(TestIsolationTier)
#include "test_isolation_tier.moc"
