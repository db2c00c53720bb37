// The science environments' package index (docs/environments.md "Package index"): the URL rule
// (config::IndexUrl), the operator's settings refused at start, an install's `indexUrl` refused
// unless it is the operator's, the build command and the build's own network policy.
#include "agent/config/AgentConfig.h"
#include "agent/config/IndexUrl.h"
#include "agent/environments/InstallRequest.h"
#include "agent/environments/VenvProvisioner.h"

#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using namespace runbox;
using namespace runbox::environments;

namespace {

const QString kIndex = QStringLiteral("https://pypi.mirror.test:8443/simple/");

} // namespace

class TestIndexUrl final : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    /// Parses a configuration whose environment sets @p vars; "" when it is accepted.
    QString configError(const QMap<QString, QString>& vars) {
        QProcessEnvironment env;
        env.insert(QStringLiteral("RUNBOX_STATE_DIR"), m_dir.path());
        for (auto it = vars.cbegin(); it != vars.cend(); ++it)
            env.insert(it.key(), it.value());
        config::AgentConfig parsed;
        QString error;
        return parsed.parse({}, env, &error) ? QString() : error;
    }

private Q_SLOTS:
    void testTheRuleAcceptsHttpsDnsNamesOnly_data() {
        QTest::addColumn<QString>("url");
        QTest::addColumn<bool>("ok");
        QTest::newRow("plain") << "https://pypi.org/simple/" << true;
        QTest::newRow("port") << kIndex << true;
        QTest::newRow("no path") << "https://pypi.org" << true;
        QTest::newRow("http") << "http://pypi.org/simple/" << false;
        QTest::newRow("credentials") << "https://user:secret@pypi.org/simple/" << false;
        QTest::newRow("user only") << "https://token@pypi.org/simple/" << false;
        QTest::newRow("query") << "https://pypi.org/simple/?x=1" << false;
        QTest::newRow("fragment") << "https://pypi.org/simple/#x" << false;
        QTest::newRow("ipv4") << "https://10.0.0.1/simple/" << false;
        QTest::newRow("ipv6") << "https://[::1]/simple/" << false;
        // Addresses a resolver reads as IPv4 (inet_aton(3): hex, two parts): the top label of a
        // DNS name starts with a letter (RFC 3696 section 2).
        QTest::newRow("hex ipv4") << "https://0x7f.1/simple/" << false;
        QTest::newRow("numeric top label") << "https://mirror.1/simple/" << false;
        QTest::newRow("hex top label") << "https://mirror.0x7f/simple/" << false;
        QTest::newRow("digits in a lower label") << "https://0x7f.mirror.test/simple/" << true;
        QTest::newRow("single label") << "https://mirror/simple/" << false;
        QTest::newRow("port 0") << "https://pypi.org:0/simple/" << false;
        QTest::newRow("port too big") << "https://pypi.org:70000/simple/" << false;
        QTest::newRow("space") << "https://pypi.org/sim ple/" << false;
        QTest::newRow("quote") << "https://pypi.org/simple/\"" << false;
        QTest::newRow("file") << "file:///srv/simple/" << false;
    }
    void testTheRuleAcceptsHttpsDnsNamesOnly() {
        QFETCH(QString, url);
        QFETCH(bool, ok);
        config::IndexUrl parsed;
        QString why;
        QCOMPARE(config::IndexUrl::parse(url, &parsed, &why), ok);
        QCOMPARE(why.isEmpty(), ok);
        if (ok)
            QCOMPARE(parsed.url, url);
    }

    void testTheAllowlistEntryIsHostAndPort() {
        config::IndexUrl parsed;
        QString why;
        QVERIFY(config::IndexUrl::parse(kIndex, &parsed, &why));
        QCOMPARE(parsed.allowlistEntry(), QStringLiteral("pypi.mirror.test:8443"));
        QVERIFY(config::IndexUrl::parse("https://PyPI.org/simple/", &parsed, &why));
        QCOMPARE(parsed.allowlistEntry(), QStringLiteral("pypi.org:443"));
    }

    void testTheOperatorsSettingsAreCheckedAtStart() {
        QVERIFY(m_dir.isValid());
        QCOMPARE(configError({}), QString()); // positive control: nothing set
        QCOMPARE(configError({{"RUNBOX_ENV_INDEX_URL", kIndex},
                              {"RUNBOX_ENV_INDEX_PRIVATE_CIDRS", "127.0.0.0/8,10.1.0.0/16"}}),
                 QString());
        for (const QString& bad :
             {QStringLiteral("http://pypi.org/simple/"), QStringLiteral("https://u:p@pypi.org/"),
              QStringLiteral("https://pypi.org/simple/?token=1"),
              QStringLiteral("https://127.0.0.1/simple/")}) {
            const QString error = configError({{"RUNBOX_ENV_INDEX_URL", bad}});
            QVERIFY2(error.startsWith(QLatin1String("envIndexUrl")), qPrintable(bad + error));
        }
        QVERIFY(configError({{"RUNBOX_ENV_INDEX_URL", kIndex},
                             {"RUNBOX_ENV_INDEX_PRIVATE_CIDRS", "localhost"}})
                    .startsWith(QLatin1String("envIndexPrivateCidrs")));
        // The CRAN URL and the conda channel URLs follow the same rules.
        QCOMPARE(configError({{"RUNBOX_ENV_CRAN_URL", "https://cran.mirror.test/"},
                              {"RUNBOX_ENV_CONDA_CHANNEL_URLS",
                               "https://conda.mirror.test/a, https://conda.mirror.test/b"}}),
                 QString());
        QVERIFY(configError({{"RUNBOX_ENV_CRAN_URL", "http://cran.mirror.test/"}})
                    .startsWith(QLatin1String("envCranUrl")));
        QVERIFY(configError({{"RUNBOX_ENV_CONDA_CHANNEL_URLS",
                              "https://conda.mirror.test/a https://conda.mirror.test/a"}})
                    .contains("listed twice"));
        QVERIFY(configError({{"RUNBOX_ENV_CONDA_CHANNEL_URLS",
                              "https://conda.mirror.test/a https://u:p@conda.mirror.test/b"}})
                    .startsWith(QLatin1String("envCondaChannelUrls")));
        // A CA bundle or private ranges without a package source URL would do nothing: refused;
        // with any of the three, taken.
        QVERIFY(!configError({{"RUNBOX_ENV_INDEX_CA_FILE", "/etc/ssl/certs/ca.pem"}}).isEmpty());
        QCOMPARE(configError({{"RUNBOX_ENV_CRAN_URL", "https://cran.mirror.test/"},
                              {"RUNBOX_ENV_INDEX_PRIVATE_CIDRS", "10.1.0.0/16"}}),
                 QString());
    }

    void testAnInstallTakesOnlyTheOperatorsIndex() {
        const VenvProvisioner withIndex(QString(), kIndex);
        InstallRequest request;
        QCOMPARE(InstallRequest::parse(
                     QJsonObject{{"packages", QJsonArray{"pkga"}}, {"indexUrl", kIndex}}, withIndex,
                     false, &request),
                 std::nullopt);
        QCOMPARE(request.indexUrl, kIndex);
        const auto refused = [&](const VenvProvisioner& p, const QJsonValue& url, bool uninstall) {
            InstallRequest r;
            const auto err = InstallRequest::parse(
                QJsonObject{{"packages", QJsonArray{"pkga"}}, {"indexUrl", url}}, p, uninstall, &r);
            return err && err->code == QLatin1String("invalid_index_url") &&
                   err->message.startsWith(QLatin1String("indexUrl:")) &&
                   err->kind == ErrorKind::InvalidArgument;
        };
        QVERIFY(refused(withIndex, "https://evil.test/simple/", false));
        QVERIFY(refused(withIndex, "https://pypi.mirror.test:8443/simple", false)); // not exact
        QVERIFY(refused(withIndex, "https://u:p@pypi.mirror.test:8443/simple/", false));
        QVERIFY(refused(withIndex, "http://pypi.mirror.test:8443/simple/", false));
        QVERIFY(refused(withIndex, kIndex + "?x", false));
        QVERIFY(refused(withIndex, 5, false));
        QVERIFY(refused(withIndex, kIndex, true));                   // uninstall keeps its base's
        QVERIFY(refused(VenvProvisioner(QString()), kIndex, false)); // none configured
    }

    void testTheBuildCommandUsesTheIndexOnlyWhenAsked() {
        const VenvProvisioner p(QString(), kIndex, QStringLiteral("/etc/ca.pem"));
        execution::ExecLimits limits;
        EnvironmentProvisioner::BuildInputs inputs;
        inputs.packages = QStringList{"pkga"};
        execution::ExecRequest offline = p.buildRequest(inputs, limits);
        QVERIFY(offline.argv.at(2).contains("pip install --no-index"));
        QVERIFY(!offline.env.contains("PIP_INDEX_URL"));
        inputs.indexUrl = kIndex;
        execution::ExecRequest online = p.buildRequest(inputs, limits);
        QVERIFY(!online.argv.at(2).contains("--no-index"));
        QVERIFY(online.argv.at(2).contains("--index-url \"$PIP_INDEX_URL\""));
        QVERIFY(!online.argv.at(2).contains(kIndex)); // never parsed by the shell
        QCOMPARE(online.env.value("PIP_INDEX_URL"), kIndex);
        QCOMPARE(online.env.value("PIP_CERT"), QLatin1String(VenvProvisioner::kIndexCaMount));
        QCOMPARE(online.argv.mid(4), QStringList{"pkga"});
    }
};

QTEST_GUILESS_MAIN(TestIndexUrl)
#include "test_index_url.moc"
