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
    void toErrorKeepsEveryKindsStatus_data() { everyKindMapsToItsStatus_data(); }
    void toErrorKeepsEveryKindsStatus() {
        // The bridge for errors of folders not converted yet: the wire error's status comes back.
        QFETCH(int, kind);
        QFETCH(int, status);
        const Error error = http::toError(
            ApiError{status, QStringLiteral("store_busy"), QStringLiteral("try again")});
        QCOMPARE(int(error.kind), kind);
        QCOMPARE(error.code, QStringLiteral("store_busy"));
        QCOMPARE(error.message, QStringLiteral("try again"));
        QCOMPARE(http::toApiError(error).httpStatus, status);
    }
    void toErrorOfAnOptionalKeepsEmpty() {
        QVERIFY(!http::toError(std::optional<ApiError>()));
        const std::optional<Error> error = http::toError(std::optional<ApiError>(
            ApiError{503, QStringLiteral("store_busy"), QStringLiteral("try again")}));
        QVERIFY(error);
        QCOMPARE(int(error->kind), int(ErrorKind::Unavailable));
    }
    void toErrorOfAStatusWithoutKindIsInternal() {
        const Error error =
            http::toError(ApiError{431, QStringLiteral("head_too_large"), QStringLiteral("x")});
        QCOMPARE(int(error.kind), int(ErrorKind::Internal));
        QCOMPARE(error.code, QStringLiteral("head_too_large"));
    }
    void toApiErrorOfAnOptionalKeepsEmptyEmpty() {
        QVERIFY(!http::toApiError(std::optional<Error>()));
        const std::optional<ApiError> wire = http::toApiError(std::optional<Error>(
            Error{ErrorKind::Conflict, QStringLiteral("chip_busy"), QStringLiteral("NPU 1")}));
        QVERIFY(wire);
        QCOMPARE(wire->httpStatus, 409);
        QCOMPARE(wire->code, QStringLiteral("chip_busy"));
        QCOMPARE(wire->message, QStringLiteral("NPU 1"));
    }
};

QTEST_GUILESS_MAIN(TestErrorStatus)
#include "test_error_status.moc"
