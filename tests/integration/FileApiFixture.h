#pragma once
// The set-up shared by the workspace file API tests on the real agent (test_file_api,
// test_file_upload_refusals): the agent, a fresh workspace per test with generous upload quotas,
// and the request helpers.
#include "shared/ApiClient.h"
#include "shared/Crypto.h"
#include "support/AgentProcess.h"
#include "support/FileApiRaw.h"

#include <QBuffer>
#include <QEventLoop>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QTimer>

#include <memory>

namespace runbox::testsupport {

/// A finished reply of the agent, read whole.
struct Reply {
    int status = 0;
    QByteArray body;
    QList<QNetworkReply::RawHeaderPair> headers;
    QString error;
    QByteArray header(const QByteArray& name) const {
        for (const auto& [n, v] : headers)
            if (n.toLower() == name.toLower())
                return v;
        return {};
    }
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString code() const { return json().value("error").toObject().value("code").toString(); }
};

inline Reply finish(QNetworkReply* raw, int timeoutMs = 120000) {
    std::unique_ptr<QNetworkReply> reply(raw);
    if (!reply->isFinished()) {
        QEventLoop loop;
        QObject::connect(reply.get(), &QNetworkReply::finished, &loop, &QEventLoop::quit);
        QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
        loop.exec();
    }
    Reply r;
    r.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    r.body = reply->readAll();
    r.headers = reply->rawHeaderPairs();
    r.error = reply->errorString();
    return r;
}

/// Base of the file API test classes: owns the agent and the workspace of the running test. The
/// test class starts m_agent in initTestCase() and calls freshWorkspace() from init().
class FileApiFixture : public QObject {
protected:
    AgentProcess m_agent;
    QString m_ws;

    FileApiRaw raw() const { return FileApiRaw(m_agent.port(), m_agent.token()); }
    bool setQuotas(const QJsonObject& patch) {
        return m_agent.client()->call("PUT", "/v1/settings/quotas", patch).status == 200;
    }

    QByteArray files(const QByteArray& path, const QByteArray& query = {}) const {
        return "/v1/workspaces/" + m_ws.toUtf8() + "/files/" + path +
               (query.isEmpty() ? QByteArray() : '?' + query);
    }
    Reply put(const QByteArray& path, const QByteArray& data, const QByteArray& query = {},
              const QByteArray& declaredSha = {}) {
        QBuffer buffer;
        buffer.setData(data);
        buffer.open(QIODevice::ReadOnly);
        return finish(m_agent.client()->sendStream("PUT", files(path, query), &buffer,
                                                   declaredSha.isEmpty() ? crypto::sha256Hex(data)
                                                                         : declaredSha));
    }
    Reply get(const QByteArray& path, const QList<QPair<QByteArray, QByteArray>>& headers = {},
              const QByteArray& method = "GET") {
        return finish(m_agent.client()->send(method, path.startsWith('/') ? path : files(path), {},
                                             "application/json", headers));
    }
    Reply call(const QByteArray& method, const QByteArray& target, const QJsonObject& body = {}) {
        return finish(m_agent.client()->send(
            method, target,
            body.isEmpty() ? QByteArray() : QJsonDocument(body).toJson(QJsonDocument::Compact)));
    }
    QString wsDir() const { return m_agent.workspaceDir(m_ws); }

    /// Resets the upload quotas to generous values (1 GiB a file, 10 GiB a request and a
    /// workspace) and creates a new workspace in m_ws. False on failure (see
    /// m_agent.errorString()).
    bool freshWorkspace() {
        if (!setQuotas({{"uploadMaxFileBytes", 1LL << 30},
                        {"uploadMaxRequestBytes", 10LL << 30},
                        {"maxWorkspaceBytes", 10LL << 30}}))
            return false;
        m_ws = m_agent.createWorkspace();
        return !m_ws.isEmpty();
    }
};

} // namespace runbox::testsupport
