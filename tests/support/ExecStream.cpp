#include "support/ExecStream.h"

#include "shared/ApiClient.h"
#include "shared/ApiError.h"

#include <QEventLoop>
#include <QJsonDocument>
#include <QNetworkReply>
#include <QTimer>

namespace runbox::testsupport {

QString ExecOutcome::status() const {
    return exitEvent.value(QLatin1String("status")).toString();
}

int ExecOutcome::exitCode() const {
    return exitEvent.value(QLatin1String("exitCode")).toInt(-1);
}

QJsonObject ExecOutcome::errorJson() const {
    return QJsonDocument::fromJson(errorBody).object().value(QLatin1String("error")).toObject();
}

QString ExecOutcome::errorCode() const {
    return errorJson().value(QLatin1String("code")).toString();
}

QString ExecOutcome::describe() const {
    return QStringLiteral("http %1, status \"%2\", exitCode %3, reason \"%4\", stdout \"%5\", "
                          "stderr \"%6\", error \"%7\"%8%9")
        .arg(httpStatus)
        .arg(status())
        .arg(exitCode())
        .arg(exitEvent.value(QLatin1String("reason")).toString())
        .arg(QString::fromUtf8(stdoutBytes.left(300)))
        .arg(QString::fromUtf8(stderrBytes.left(600)))
        .arg(QString::fromUtf8(errorBody.left(300)))
        .arg(waitTimedOut ? QStringLiteral(", the test's wait timed out") : QString())
        .arg(transportError.isEmpty() ? QString() : QStringLiteral(", ") + transportError);
}

QByteArray ExecOutcome::eventBytes(const QJsonObject& event) {
    if (event.contains(QLatin1String("dataBase64")))
        return QByteArray::fromBase64(
            event.value(QLatin1String("dataBase64")).toString().toLatin1());
    return event.value(QLatin1String("data")).toString().toUtf8();
}

ExecStream::ExecStream(ApiClient* client, const QString& workspaceId, const QJsonObject& body,
                       QObject* parent)
    : QObject(parent) {
    m_clock.start();
    QPointer<ExecStream> self(this);
    m_reply = client->stream(
        "POST", "/v1/workspaces/" + workspaceId.toUtf8() + "/exec",
        QJsonDocument(body).toJson(QJsonDocument::Compact),
        [self](const QJsonObject& ev) {
            if (self)
                self->onEvent(ev);
        },
        [self](const ApiResponse& r) {
            if (!self || self->m_finished)
                return;
            self->m_outcome.httpStatus = r.status;
            if (r.status != 200)
                self->m_outcome.errorBody = r.body;
            if (self->m_reply && self->m_reply->error() != QNetworkReply::NoError)
                self->m_outcome.transportError = self->m_reply->errorString();
            self->m_finished = true;
            Q_EMIT self->finished();
        });
}

ExecStream::~ExecStream() {
    if (m_reply && !m_finished)
        m_reply->abort();
}

void ExecStream::onEvent(const QJsonObject& ev) {
    const qint64 at = m_clock.elapsed();
    m_outcome.httpStatus = 200;
    const QString type = ev.value(QLatin1String("type")).toString();
    const bool isOutput = type == QLatin1String("stdout") || type == QLatin1String("stderr");
    if (type == QLatin1String("stdout"))
        m_outcome.stdoutBytes += ExecOutcome::eventBytes(ev);
    else if (type == QLatin1String("stderr"))
        m_outcome.stderrBytes += ExecOutcome::eventBytes(ev);
    else if (type == QLatin1String("exit"))
        m_outcome.exitEvent = ev;
    if (!isOutput || m_keepOutputEvents) {
        m_outcome.events.append(ev);
        m_outcome.arrivalMs.append(at);
    }
    Q_EMIT eventReceived(ev, at);
}

bool ExecStream::waitForFinished(int timeoutMs) {
    if (m_finished)
        return true;
    QEventLoop loop;
    connect(this, &ExecStream::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    loop.exec();
    return m_finished;
}

bool ExecStream::waitForEvent(const std::function<bool(const QJsonObject&)>& pred, int timeoutMs) {
    auto seen = [&] {
        for (const QJsonObject& ev : std::as_const(m_outcome.events))
            if (pred(ev))
                return true;
        return false;
    };
    if (seen())
        return true;
    QEventLoop loop;
    bool hit = false;
    connect(this, &ExecStream::eventReceived, &loop, [&](const QJsonObject& ev) {
        if (pred(ev)) {
            hit = true;
            loop.quit();
        }
    });
    connect(this, &ExecStream::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (!m_finished)
        loop.exec();
    return hit || seen();
}

void ExecStream::abort() {
    if (m_reply && !m_finished)
        m_reply->abort();
}

QJsonObject runToExitEvent(ApiClient* client, const QString& workspaceId, const QJsonObject& body,
                           int timeoutMs) {
    ExecStream run(client, workspaceId, body);
    if (!run.waitForFinished(timeoutMs))
        return {};
    if (run.outcome().httpStatus != 200)
        qWarning("exec: %s", qPrintable(run.outcome().describe()));
    QJsonObject exit = run.outcome().exitEvent;
    exit.insert(QStringLiteral("stdout"), run.outcome().stdoutText().right(400));
    exit.insert(QStringLiteral("stderr"), run.outcome().stderrText().right(400));
    return exit;
}

} // namespace runbox::testsupport
