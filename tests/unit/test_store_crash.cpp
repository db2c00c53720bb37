// Crash safety of the store (docs/STORE.md "Durability"): a writer process acknowledges each
// durable step and is SIGKILLed at random moments; after every kill the state is reopened and
// recovered, and everything acknowledged must be intact, running executions must be `lost` with the
// reason, and nothing may be left queued or running. The rounds share one state directory, so each
// also recovers on top of the previous rounds' recovered state.
#include "../support/StoreCrashPattern.h"

#include "agent/store/Database.h"
#include "agent/store/ExecutionRepository.h"
#include "agent/store/LogStore.h"
#include "agent/store/QuotaStore.h"

#include <QElapsedTimer>
#include <QHash>
#include <QProcess>
#include <QRandomGenerator>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox::store;

namespace {

const QString kLostReason = QStringLiteral("the agent stopped while it ran (crash test)");

struct LogAck {
    bool stdoutStream = true;
    qint64 offset = 0;
    qint64 size = 0;
};

/// What the writer acknowledged in one round.
struct Acks {
    QStringList inserted;
    QSet<QString> running;
    QHash<QString, int> finalExit;
    QHash<QString, QList<LogAck>> logs;
    qint64 lastSetting = -1;
    int lines = 0;

    void parse(const QByteArray& line) {
        const QList<QByteArray> f = line.split(' ');
        const QString id = f.size() > 1 ? QString::fromUtf8(f.at(1)) : QString();
        ++lines;
        if (f.at(0) == "INSERT")
            inserted.append(id);
        else if (f.at(0) == "RUNNING")
            running.insert(id);
        else if (f.at(0) == "FINAL")
            finalExit.insert(id, f.at(2).toInt());
        else if (f.at(0) == "SETTING")
            lastSetting = f.at(1).toLongLong();
        else if (f.at(0) == "LOG")
            logs[id].append(LogAck{f.at(2) == "o", f.at(3).toLongLong(), f.at(4).toLongLong()});
        else
            qWarning("unknown ack line: %s", line.constData());
    }
};

} // namespace

class TestStoreCrash final : public QObject {
    Q_OBJECT
private:
    /// Runs the writer until the kill moment, SIGKILLs it, returns every complete ack line.
    Acks runAndKill(const QString& stateDir, const QString& prefix, QRandomGenerator& rng) {
        QProcess writer;
        writer.setProcessChannelMode(QProcess::SeparateChannels);
        writer.start(QStringLiteral(STORE_CRASH_WRITER),
                     {stateDir, prefix, QString::number(rng.generate())});
        if (!writer.waitForStarted(10000)) {
            qWarning("cannot start the crash writer: %s", qPrintable(writer.errorString()));
            return {};
        }
        // Kill either after a number of acknowledgements or after a time, both random, so the
        // kill lands anywhere: mid-append, mid-transaction, mid-segment-rollover, between steps.
        const bool byCount = rng.bounded(2) == 0;
        const int killAfterLines = 1 + int(rng.bounded(600));
        const qint64 killAfterUs = 2000 + qint64(rng.bounded(250000));
        QByteArray pending;
        Acks acks;
        QElapsedTimer clock;
        clock.start();
        while (writer.state() == QProcess::Running) {
            if (byCount ? acks.lines >= killAfterLines : clock.nsecsElapsed() / 1000 >= killAfterUs)
                break;
            if (clock.elapsed() > 30000)
                break; // safety net: never hang the test
            writer.waitForReadyRead(byCount ? 100 : 1);
            pending.append(writer.readAllStandardOutput());
            for (qsizetype nl; (nl = pending.indexOf('\n')) >= 0; pending.remove(0, nl + 1))
                acks.parse(pending.left(nl));
        }
        writer.kill(); // SIGKILL
        writer.waitForFinished(10000);
        const QByteArray err = writer.readAllStandardError();
        if (!err.isEmpty())
            qWarning("writer stderr: %s", err.constData());
        // Lines written before the kill are acknowledged too (they were printed after the call
        // returned); a torn last line is not.
        pending.append(writer.readAllStandardOutput());
        for (qsizetype nl; (nl = pending.indexOf('\n')) >= 0; pending.remove(0, nl + 1))
            acks.parse(pending.left(nl));
        return acks;
    }

    /// Restart + checks. Returns normally; failures are reported through QVERIFY.
    void recoverAndVerify(const QString& stateDir, const Acks& acks) {
        QString error;
        auto db = Database::open(stateDir, &error);
        QVERIFY2(db, qPrintable(error));
        {
            QSqlQuery check(db->connection());
            QVERIFY(check.exec(QStringLiteral("PRAGMA integrity_check")) && check.next());
            QCOMPARE(check.value(0).toString(), QStringLiteral("ok"));
        }
        // Start-up recovery, in the order the agent does it.
        ExecutionRepository executions(*db);
        QStringList lostIds;
        QVERIFY(!executions.markRunningAsLost(kLostReason, 0, &lostIds));
        LogStore logs(stateDir);
        QVERIFY(logs.initialize(&error));
        QStringList logErrors;
        logs.recoverAll(kLostReason, &logErrors);
        QVERIFY2(logErrors.isEmpty(), qPrintable(logErrors.join(QLatin1Char('\n'))));

        for (const QString& id : acks.inserted) {
            ExecutionRecord r;
            const auto missing = executions.get(id, &r);
            QVERIFY2(!missing, qPrintable(QStringLiteral("acknowledged insert lost: ") + id));
            QVERIFY2(isTerminal(r.state), qPrintable(id + QLatin1Char(' ') + toString(r.state)));
            if (acks.finalExit.contains(id)) {
                QCOMPARE(toString(r.state), toString(ExecutionState::Completed));
                QCOMPARE(r.exitCode, std::optional<int>(acks.finalExit.value(id)));
                LogInfo info;
                QVERIFY(!logs.info(id, &info));
                QVERIFY2(info.finished && !info.lost, qPrintable(id));
                qint64 total = 0;
                for (const LogAck& a : acks.logs.value(id))
                    total += a.size;
                QCOMPARE(info.endOffset, total);
                QCOMPARE(r.logBytes.stdoutBytes, info.stdoutBytes);
            } else if (r.state == ExecutionState::Lost) {
                QVERIFY(r.statusReason.startsWith(kLostReason));
                QVERIFY(lostIds.contains(id));
            } else {
                // Finished but killed before printing FINAL: legal, and then complete.
                QCOMPARE(toString(r.state), toString(ExecutionState::Completed));
            }
        }
        for (auto it = acks.logs.constBegin(); it != acks.logs.constEnd(); ++it)
            verifyLog(logs, it.key(), it.value());

        QSqlQuery unfinished(db->connection());
        QVERIFY(unfinished.exec(
            QStringLiteral("SELECT count(*) FROM executions WHERE state IN ('queued','running')")));
        QVERIFY(unfinished.next());
        QCOMPARE(unfinished.value(0).toInt(), 0);

        if (acks.lastSetting >= 0) {
            QuotaStore quotas(*db);
            QVERIFY(!quotas.initialize(QuotaSettings::Seeds()));
            // Values only grow in the writer; a later unacknowledged one may have landed.
            QVERIFY(quotas.current().maxOutputBytes >= acks.lastSetting);
            std::optional<AuditEntry> last;
            QVERIFY(!quotas.lastChange(&last));
            QVERIFY(last);
            QCOMPARE(last->after.toInteger(), quotas.current().maxOutputBytes);
        }
    }

    void verifyLog(const LogStore& logs, const QString& id, const QList<LogAck>& acked) {
        LogInfo info;
        QVERIFY2(!logs.info(id, &info), qPrintable(id));
        QVERIFY(info.finished);
        for (const LogAck& a : acked) {
            QVERIFY(a.offset + a.size <= info.endOffset);
            LogReadResult result;
            QVERIFY(!logs.read(id, a.offset, a.size, &result));
            qint64 at = a.offset;
            for (const LogChunk& chunk : std::as_const(result.chunks)) {
                QCOMPARE(chunk.offset, at);
                if (chunk.kind == LogChunk::Kind::Gap) {
                    QVERIFY2(info.droppedBytes > 0, qPrintable(id)); // only retention drops
                } else {
                    const qint64 n = std::min<qint64>(chunk.data.size(), a.offset + a.size - at);
                    QVERIFY2(chunk.data.left(n) ==
                                 runbox::testsupport::crashPattern(id, chunk.offset, n),
                             qPrintable(QStringLiteral("%1 bytes at %2 differ").arg(id).arg(at)));
                    QCOMPARE(chunk.kind == LogChunk::Kind::Stdout, a.stdoutStream);
                }
                at = chunk.endOffset();
                if (at >= a.offset + a.size)
                    break;
            }
        }
    }

private Q_SLOTS:
    void testAcknowledgedStateSurvivesSigkillAtRandomMoments() {
        const quint32 seed = QRandomGenerator::global()->generate();
        qInfo("seed %u", seed);
        QRandomGenerator rng(seed);
        QTemporaryDir dir;
        const QString stateDir = dir.filePath(QStringLiteral("state"));
        int totalAcks = 0, totalLost = 0;
        for (int round = 0; round < 12; ++round) {
            const Acks acks = runAndKill(stateDir, QStringLiteral("r%1").arg(round), rng);
            totalAcks += acks.lines;
            recoverAndVerify(stateDir, acks);
            if (QTest::currentTestFailed()) {
                qWarning("failed in round %d (seed %u)", round, seed);
                return;
            }
            totalLost += acks.running.size() - acks.finalExit.size();
        }
        qInfo("%d acknowledgements checked, about %d executions lost mid-run", totalAcks,
              totalLost);
        QVERIFY(totalAcks > 0); // the writer really ran
    }
};

QTEST_GUILESS_MAIN(TestStoreCrash)
#include "test_store_crash.moc"
