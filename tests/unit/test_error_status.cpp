// The one mapping of domain error kinds to HTTP statuses (agent/http/ErrorStatus.h,
// docs/contracts.md "Errors"): every kind maps to its status, code and message pass unchanged.
#include "agent/http/ErrorStatus.h"

#include <QTest>

using namespace runbox;

class TestErrorStatus : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyKindMapsToItsStatus_data() {
        QTest::addColumn<int>("kind");
        QTest::addColumn<int>("status");
        QTest::newRow("InvalidArgument") << int(ErrorKind::InvalidArgument) << 400;
        QTest::newRow("Unauthenticated") << int(ErrorKind::Unauthenticated) << 401;
        QTest::newRow("PermissionDenied") << int(ErrorKind::PermissionDenied) << 403;
        QTest::newRow("NotFound") << int(ErrorKind::NotFound) << 404;
        QTest::newRow("Conflict") << int(ErrorKind::Conflict) << 409;
        QTest::newRow("TooLarge") << int(ErrorKind::TooLarge) << 413;
        QTest::newRow("RangeNotSatisfiable") << int(ErrorKind::RangeNotSatisfiable) << 416;
        QTest::newRow("Internal") << int(ErrorKind::Internal) << 500;
        QTest::newRow("NotImplemented") << int(ErrorKind::NotImplemented) << 501;
        QTest::newRow("UpstreamFailed") << int(ErrorKind::UpstreamFailed) << 502;
        QTest::newRow("Unavailable") << int(ErrorKind::Unavailable) << 503;
    }
    void everyKindMapsToItsStatus() {
        QFETCH(int, kind);
        QFETCH(int, status);
        QCOMPARE(http::httpStatus(ErrorKind(kind)), status);
    }
    void toApiErrorKeepsCodeAndMessage() {
        const ApiError wire = http::toApiError(Error{
            ErrorKind::NotFound, QStringLiteral("workspace_not_found"), QStringLiteral("no")});
        QCOMPARE(wire.httpStatus, 404);
        QCOMPARE(wire.code, QStringLiteral("workspace_not_found"));
        QCOMPARE(wire.message, QStringLiteral("no"));
    }
    void toApiErrorGivesEveryKindItsStatus_data() { everyKindMapsToItsStatus_data(); }
    void toApiErrorGivesEveryKindItsStatus() {
        QFETCH(int, kind);
        QFETCH(int, status);
        const ApiError wire = http::toApiError(
            Error{ErrorKind(kind), QStringLiteral("store_busy"), QStringLiteral("try again")});
        QCOMPARE(wire.httpStatus, status);
        QCOMPARE(wire.code, QStringLiteral("store_busy"));
        QCOMPARE(wire.message, QStringLiteral("try again"));
    }
};

QTEST_GUILESS_MAIN(TestErrorStatus)
#include "test_error_status.moc"
