#include "shared/ParallelCalls.h"

#include <QEventLoop>
#include <QNetworkReply>
#include <QPointer>
#include <QTimer>

namespace runbox {

void runParallel(QList<ParallelCall>* calls, int timeoutMs) {
    if (calls->isEmpty())
        return;
    QEventLoop loop;
    int open = int(calls->size());
    QList<QPointer<QNetworkReply>> replies;
    for (ParallelCall& call : *calls) {
        QNetworkReply* reply = call.client->send(call.method, call.pathAndQuery, call.body);
        replies << reply;
        QObject::connect(reply, &QNetworkReply::finished, &loop, [&call, reply, &open, &loop] {
            call.response = ApiClient::responseOf(reply, reply->readAll());
            reply->deleteLater();
            if (--open == 0)
                loop.quit();
        });
    }
    QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
    if (open > 0)
        loop.exec();
    for (qsizetype i = 0; i < replies.size(); ++i) {
        QNetworkReply* reply = replies[i];
        if (!reply || reply->isFinished())
            continue;
        reply->disconnect(&loop);
        reply->abort();
        reply->deleteLater();
        (*calls)[i].response.status = 0;
        (*calls)[i].response.networkError = QStringLiteral("no answer within %1 ms").arg(timeoutMs);
    }
}

} // namespace runbox
