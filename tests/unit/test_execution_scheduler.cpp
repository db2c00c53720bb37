#include "agent/execution/ExecutionScheduler.h"

#include <QSignalSpy>
#include <QTest>

using runbox::execution::ExecutionScheduler;

class TestExecutionScheduler final : public QObject {
    Q_OBJECT
    QStringList m_started;
    ExecutionScheduler::Job job(const QString& id, const QString& ws, bool counts = true) {
        return {id, ws, [this, id] { m_started << id; }, counts};
    }
private Q_SLOTS:
    void init() { m_started.clear(); }
    void testOneWriterPerWorkspaceInArrivalOrder() {
        ExecutionScheduler s;
        s.enqueue(job("a1", "A"));
        s.enqueue(job("a2", "A"));
        s.enqueue(job("a3", "A"));
        QTRY_COMPARE(m_started, QStringList{"a1"});
        QCOMPARE(s.queuePosition("a2"), 1);
        QCOMPARE(s.queuePosition("a3"), 2);
        s.release("a1");
        QTRY_COMPARE(m_started, (QStringList{"a1", "a2"}));
        s.release("a2");
        QTRY_COMPARE(m_started, (QStringList{"a1", "a2", "a3"}));
    }
    void testOtherWorkspacesAreNotBlockedByAWaitingWriter() {
        ExecutionScheduler s;
        s.enqueue(job("a1", "A"));
        s.enqueue(job("a2", "A"));
        s.enqueue(job("b1", "B"));
        QTRY_COMPARE(m_started.size(), 2);
        QVERIFY(m_started.contains("b1"));
        QVERIFY(s.isQueued("a2"));
    }
    void testGlobalLimitHoldsBackEvenDifferentWorkspaces() {
        ExecutionScheduler s;
        s.setMaxConcurrent(2);
        for (const char* ws : {"A", "B", "C", "D"})
            s.enqueue(job(QStringLiteral("x") + ws, ws));
        QTRY_COMPARE(m_started.size(), 2);
        QTest::qWait(20);
        QCOMPARE(m_started.size(), 2);
        QCOMPARE(s.runningCount(), 2);
        s.release(m_started.first());
        QTRY_COMPARE(m_started.size(), 3);
    }
    void testFileWritesTakeTheLeaseButNoSlot() {
        ExecutionScheduler s;
        s.setMaxConcurrent(1);
        s.enqueue(job("run", "A"));
        s.enqueue(job("upload", "B", false));
        QTRY_COMPARE(m_started.size(), 2);
        s.enqueue(job("upload2", "A", false));
        QTest::qWait(20);
        QVERIFY(s.isQueued("upload2")); // A's lease is held by "run"
    }
    void testQueuedJobThatIsReleasedNeverStarts() {
        ExecutionScheduler s;
        s.enqueue(job("a1", "A"));
        s.enqueue(job("a2", "A"));
        QTRY_COMPARE(m_started.size(), 1);
        QVERIFY(s.release("a2"));
        s.release("a1");
        QTest::qWait(20);
        QCOMPARE(m_started, QStringList{"a1"});
        QVERIFY(!s.workspaceBusy("A"));
    }
};

QTEST_GUILESS_MAIN(TestExecutionScheduler)
#include "test_execution_scheduler.moc"
