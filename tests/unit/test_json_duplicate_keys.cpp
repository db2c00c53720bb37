// Request bodies with a member name twice in one object are refused (RFC 8259 §4;
// agent/api/JsonDuplicateKeys.h): the scanner alone, then parseJsonObject's 400 invalid_json.
#include "agent/api/ApiService.h"
#include "agent/api/JsonDuplicateKeys.h"

#include <QJsonDocument>
#include <QTest>

using namespace runbox;
using namespace runbox::api;

// Rows whose JSON holds an escaped quote are ordinary string literals: moc misreads a raw
// string literal that contains \".
class TestJsonDuplicateKeys final : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void testUniqueNamesPass_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::newRow("empty object") << QByteArray("{}");
        QTest::newRow("flat") << QByteArray(R"({"kind":"shell","code":"id"})");
        QTest::newRow("same name in sibling objects") << QByteArray(R"({"a":{"x":1},"b":{"x":2}})");
        QTest::newRow("same name in objects of an array")
            << QByteArray(R"({"list":[{"x":1},{"x":2},{"x":3}]})");
        QTest::newRow("same name at two depths") << QByteArray(R"({"x":{"x":{"x":1}}})");
        QTest::newRow("name used as a value") << QByteArray(R"({"a":"a","b":["a","a"]})");
        QTest::newRow("escaped quote inside a name")
            << QByteArray("{\"a\\\"b\":1,\"a\":2,\"b\":3}");
        QTest::newRow("brace and comma inside strings")
            << QByteArray("{\"code\":\"{\\\"code\\\":1},\\\"code\\\"\",\"x\":\"}]\"}");
        QTest::newRow("names differing in case") << QByteArray(R"({"Code":1,"code":2})");
        QTest::newRow("top-level array") << QByteArray(R"([{"a":1},{"a":1}])");
        QTest::newRow("whitespace everywhere")
            << QByteArray(" \r\n{ \"a\" : 1 ,\t\"b\" : [ { \"a\" : 1 } ] } \n");
    }
    void testUniqueNamesPass() {
        QFETCH(QByteArray, json);
        QVERIFY2(!QJsonDocument::fromJson(json).isNull(), json.constData()); // valid JSON
        const std::optional<QString> name = findDuplicateJsonKey(json);
        QVERIFY2(!name, qPrintable(name.value_or(QString())));
    }

    void testDuplicateNamesAreFound_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("name");
        QTest::newRow("top level")
            << QByteArray(R"({"code":"id","code":"echo DUP"})") << QStringLiteral("code");
        QTest::newRow("not adjacent")
            << QByteArray(R"({"code":"id","kind":"shell","code":"echo DUP"})")
            << QStringLiteral("code");
        QTest::newRow("nested object")
            << QByteArray(R"({"env":{"A":"1","B":"2","A":"3"}})") << QStringLiteral("A");
        QTest::newRow("deeply nested")
            << QByteArray(R"({"a":{"b":{"c":{"d":1,"d":2}}}})") << QStringLiteral("d");
        QTest::newRow("object in an array")
            << QByteArray(R"({"list":[{"x":1},{"x":1,"x":2}]})") << QStringLiteral("x");
        QTest::newRow("after a closed inner object")
            << QByteArray(R"({"a":{"a":1},"b":[1,{"c":2}],"a":3})") << QStringLiteral("a");
        QTest::newRow("unicode escape")
            << QByteArray(R"({"a":1,"\u0061":2})") << QStringLiteral("a");
        QTest::newRow("escaped solidus")
            << QByteArray(R"({"a/b":1,"a\/b":2})") << QStringLiteral("a/b");
        QTest::newRow("escaped control character")
            << QByteArray(R"({"a\nb":1,"a\u000ab":2})") << QStringLiteral("a\nb");
        QTest::newRow("surrogate pair against UTF-8")
            << QByteArray("{\"\xf0\x9f\x98\x80\":1,\"\\ud83d\\ude00\":2}")
            << QString::fromUtf8("\xf0\x9f\x98\x80");
        QTest::newRow("escaped quote")
            << QByteArray("{\"a\\\"\":1,\"a\\u0022\":2}") << QStringLiteral("a\"");
        QTest::newRow("empty name") << QByteArray(R"({"":1,"":2})") << QString();
        QTest::newRow("inside a top-level array")
            << QByteArray(R"([1,{"k":[],"k":{}}])") << QStringLiteral("k");
    }
    void testDuplicateNamesAreFound() {
        QFETCH(QByteArray, json);
        QFETCH(QString, name);
        QVERIFY2(!QJsonDocument::fromJson(json).isNull(), json.constData()); // valid JSON
        const std::optional<QString> found = findDuplicateJsonKey(json);
        QVERIFY2(found.has_value(), json.constData());
        QCOMPARE(*found, name);
    }

    void testParseRefusesDuplicateWithInvalidJson() {
        QJsonObject out;
        QVERIFY(!parseJsonObject(R"({"kind":"shell","code":"id"})", &out)); // positive control
        QCOMPARE(out.value("code").toString(), QStringLiteral("id"));

        const std::optional<ApiError> err =
            parseJsonObject(R"({"kind":"shell","code":"id","code":"echo DUP"})", &out);
        QVERIFY(err.has_value());
        QCOMPARE(err->httpStatus, 400);
        QCOMPARE(err->code, QStringLiteral("invalid_json"));
        QVERIFY2(err->message.contains(QLatin1String("\"code\"")), qPrintable(err->message));
    }

    void testNestedDuplicateIsRefused() {
        QJsonObject out;
        const std::optional<ApiError> err =
            parseJsonObject(R"({"argv":["sh"],"env":{"X":"1","\u0058":"2"}})", &out);
        QVERIFY(err.has_value());
        QCOMPARE(err->code, QStringLiteral("invalid_json"));
        QVERIFY2(err->message.contains(QLatin1String("\"X\"")), qPrintable(err->message));
    }

    void testQuotedNameIsCapped() {
        const QString longName(10000, QLatin1Char('n'));
        const QByteArray json =
            "{\"" + longName.toLatin1() + "\":1,\"" + longName.toLatin1() + "\":2}";
        QJsonObject out;
        const std::optional<ApiError> err = parseJsonObject(json, &out);
        QVERIFY(err.has_value());
        QCOMPARE(err->code, QStringLiteral("invalid_json"));
        QVERIFY2(err->message.size() < 300, qPrintable(err->message.left(400)));
        QVERIFY(err->message.contains(QString(64, QLatin1Char('n')) + QChar(0x2026)));
        QVERIFY(!err->message.contains(QString(65, QLatin1Char('n'))));
    }

    void testEmptyBodyIsStillAnEmptyObject() {
        QJsonObject out{{"stale", 1}};
        QVERIFY(!parseJsonObject(QByteArray(" \n"), &out));
        QVERIFY(out.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestJsonDuplicateKeys)
#include "test_json_duplicate_keys.moc"
