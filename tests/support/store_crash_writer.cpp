// Helper for test_store_crash: writes executions, logs and settings as fast as it can and
// acknowledges each durable step on stdout, one line each, only after the call returned:
//   INSERT <id> | RUNNING <id> | LOG <id> <o|e> <offset> <size> | SETTING <maxOutputBytes> |
//   FINAL <id> <exitCode>
// The test SIGKILLs it at random moments and checks that everything acknowledged survived.
// Usage: runbox_store_crash_writer STATE_DIR ID_PREFIX SEED
#include "StoreCrashPattern.h"

#include "agent/store/Database.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/LogStore.h"
#include "agent/store/QuotaStore.h"
#include "agent/store/WorkspaceRepository.h"

#include <QCoreApplication>
#include <QRandomGenerator>

#include <cstdio>
#include <unistd.h>

using namespace runbox::store;

namespace {

void ack(const QString& line) {
    const QByteArray bytes = (line + QLatin1Char('\n')).toUtf8();
    qint64 done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(STDOUT_FILENO, bytes.constData() + done, bytes.size() - done);
        if (n <= 0)
            ::_exit(3);
        done += n;
    }
}

[[noreturn]] void fail(const QString& what) {
    std::fprintf(stderr, "crash writer: %s\n", qPrintable(what));
    ::_exit(2);
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc != 4)
        fail(QStringLiteral("usage: STATE_DIR ID_PREFIX SEED"));
    const QString stateDir = QString::fromLocal8Bit(argv[1]);
    const QString prefix = QString::fromLocal8Bit(argv[2]);
    QRandomGenerator rng(QByteArray(argv[3]).toUInt());

    QString error;
    auto db = Database::open(stateDir, &error);
    if (!db)
        fail(error);
    LogStore logs(stateDir);
    if (!logs.initialize(&error))
        fail(error);
    WorkspaceRepository workspaces(*db);
    WorkspaceRecord ws;
    ws.id = QStringLiteral("crash-ws");
    ws.isolation = QStringLiteral("strong");
    ws.rootPath = stateDir + QStringLiteral("/ws");
    if (const auto e = workspaces.insert({ws}); e && e->kind != runbox::ErrorKind::Conflict)
        fail(e->message);
    QuotaStore quotas(*db);
    if (const auto e = quotas.initialize(QuotaSettings::Seeds()))
        fail(e->message);
    ExecutionRepository executions(*db);

    for (int i = 0;; ++i) {
        const QString id = QStringLiteral("%1-%2").arg(prefix).arg(i);
        NewExecution execution;
        execution.executionId = id;
        execution.workspaceId = ws.id;
        ExecutionRepository::InsertResult inserted;
        if (const auto e = executions.insert(execution, &inserted))
            fail(e->message);
        ack(QStringLiteral("INSERT ") + id);
        if (const auto e = executions.markRunning(id, 0, {}))
            fail(e->message);
        ack(QStringLiteral("RUNNING ") + id);
        // Every third log is retention-limited, so segments are created and deleted.
        if (const auto e = logs.create(id, i % 3 == 0 ? 20000 : 0))
            fail(e->message);
        qint64 offset = 0;
        const int chunks = int(rng.bounded(40));
        for (int c = 0; c < chunks; ++c) {
            const qint64 size = 1 + rng.bounded(rng.bounded(4) == 0 ? 70000 : 600);
            const bool out = rng.bounded(3) != 0;
            const qint64 at = logs.append(id, out ? LogStream::Stdout : LogStream::Stderr,
                                          runbox::testsupport::crashPattern(id, offset, size));
            if (at != offset)
                fail(QStringLiteral("append returned %1, expected %2").arg(at).arg(offset));
            ack(QStringLiteral("LOG %1 %2 %3 %4")
                    .arg(id, QLatin1String(out ? "o" : "e"))
                    .arg(offset)
                    .arg(size));
            offset += size;
        }
        if (i % 4 == 0) {
            QuotaSettings applied;
            const qint64 value = 1000000 + i;
            if (const auto e = quotas.update(QJsonObject{{QStringLiteral("maxOutputBytes"), value}},
                                             QStringLiteral("crash-writer"), 0, &applied))
                fail(e->message);
            ack(QStringLiteral("SETTING %1").arg(value));
        }
        if (const auto e = logs.finish(id))
            fail(e->message);
        LogInfo info;
        logs.info(id, &info);
        ExecutionOutcome outcome;
        outcome.state = ExecutionState::Completed;
        outcome.exitCode = i % 256;
        outcome.logBytes = LogByteCounts{info.stdoutBytes, info.stderrBytes, info.droppedBytes};
        if (const auto e = executions.finish(id, outcome))
            fail(e->message);
        ack(QStringLiteral("FINAL %1 %2").arg(id).arg(i % 256));
    }
}
