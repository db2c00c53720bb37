// ChipReservations: all-or-nothing sets, FIFO per chip, refusal policy.
#include "agent/http/ErrorStatus.h"
#include "agent/npu/ChipReservations.h"

#include <QSignalSpy>
#include <QtTest>

using namespace runbox::npu;
using Outcome = ChipReservations::Outcome;

class TestChipReservations final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testFreeChipsAreGrantedAndHeld() {
        ChipReservations r;
        QCOMPARE(r.acquire("a", {2, 5, 2}).outcome, Outcome::Granted);
        QCOMPARE(r.holders(), (QMap<int, QString>{{2, "a"}, {5, "a"}}));
        QCOMPARE(r.acquire("b", {3}).outcome, Outcome::Granted); // disjoint: side by side
        r.release("a");
        QCOMPARE(r.heldChips(), QSet<int>({3}));
    }

    void testSecondRequestForABusyChipWaitsAndIsGrantedOnRelease() {
        ChipReservations r;
        QSignalSpy granted(&r, &ChipReservations::granted);
        QCOMPARE(r.acquire("a", {2}).outcome, Outcome::Granted);
        QCOMPARE(r.acquire("b", {2, 5}).outcome, Outcome::Queued);
        // All or nothing: chip 5 is free but not taken while 2 is busy.
        QVERIFY(!r.heldChips().contains(5));
        QCOMPARE(r.waiting(), QStringList({"b"}));
        r.release("a");
        QCOMPARE(granted.count(), 1);
        QCOMPARE(granted.at(0).at(0).toString(), QStringLiteral("b"));
        QCOMPARE(granted.at(0).at(1).value<QList<int>>(), QList<int>({2, 5}));
        QCOMPARE(r.holders().value(5), QStringLiteral("b"));
    }

    void testLaterSmallRequestDoesNotOvertakeAWaitingLargeOne() {
        ChipReservations r;
        QCOMPARE(r.acquire("a", {1}).outcome, Outcome::Granted);
        QCOMPARE(r.acquire("big", {1, 2}).outcome, Outcome::Queued);
        // Chip 2 is free, but "big" waits for it: no barging.
        QCOMPARE(r.acquire("small", {2}).outcome, Outcome::Queued);
        QCOMPARE(r.acquire("other", {3}).outcome, Outcome::Granted); // unrelated chip still free
        QSignalSpy granted(&r, &ChipReservations::granted);
        r.release("a");
        QCOMPARE(granted.count(), 1);
        QCOMPARE(granted.at(0).at(0).toString(), QStringLiteral("big"));
        r.release("big");
        QCOMPARE(granted.count(), 2);
        QCOMPARE(granted.at(1).at(0).toString(), QStringLiteral("small"));
    }

    void testRefusePolicyAnswersChipBusy() {
        ChipReservations r(ChipBusyPolicy::Refuse);
        QCOMPARE(r.acquire("a", {4}).outcome, Outcome::Granted);
        const auto result = r.acquire("b", {3, 4});
        QCOMPARE(result.outcome, Outcome::Refused);
        QCOMPARE(runbox::http::httpStatus(result.error.kind), 409);
        QCOMPARE(result.error.code, QStringLiteral("chip_busy"));
        QVERIFY(result.error.message.contains(QLatin1String("NPU 4")));
        QVERIFY(!r.heldChips().contains(3)); // nothing taken
        // The broker can still queue on the same object.
        QCOMPARE(r.acquire("job", {4}, ChipBusyPolicy::Queue).outcome, Outcome::Queued);
    }

    void testReleaseWithdrawsAQueuedRequest() {
        ChipReservations r;
        QSignalSpy granted(&r, &ChipReservations::granted);
        r.acquire("a", {0});
        QCOMPARE(r.acquire("b", {0}).outcome, Outcome::Queued);
        r.release("b");
        QVERIFY(r.waiting().isEmpty());
        r.release("a");
        QCOMPARE(granted.count(), 0);
        QVERIFY(r.heldChips().isEmpty());
    }

    void testDuplicateHolderAndEmptySet() {
        ChipReservations r;
        QCOMPARE(r.acquire("a", {0}).outcome, Outcome::Granted);
        const auto duplicate = r.acquire("a", {1});
        QCOMPARE(duplicate.outcome, Outcome::Refused);
        QCOMPARE(duplicate.error.code, QStringLiteral("duplicate_reservation"));
        QCOMPARE(r.acquire("none", {}).outcome, Outcome::Granted);
        QVERIFY(!r.holders().values().contains("none"));
        r.release("unknown"); // ignored
        QCOMPARE(r.heldChips(), QSet<int>({0}));
    }
};

QTEST_GUILESS_MAIN(TestChipReservations)
#include "test_chip_reservations.moc"
