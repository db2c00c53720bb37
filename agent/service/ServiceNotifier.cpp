#include "agent/service/ServiceNotifier.h"

#include <QByteArray>

#include <cstdlib>
#include <systemd/sd-daemon.h>

namespace runbox::service {

namespace {

/// One sd_notify(3) datagram: newline-separated assignments; a status keeps to one line.
void send(const QByteArray& assignments, const QString& status) {
    if (!ServiceNotifier::active())
        return;
    QByteArray text = assignments;
    if (!status.isEmpty()) {
        QString line = status;
        line.replace(QLatin1Char('\n'), QLatin1Char(' '));
        text += "\nSTATUS=" + line.left(1024).toUtf8();
    }
    // unset_environment = 0: STOPPING=1 still finds the socket; no child inherits the agent's
    // environment (every launch sets its own).
    [[maybe_unused]] const int r = ::sd_notify(0, text.constData());
}

} // namespace

bool ServiceNotifier::active() {
    const char* socket = std::getenv("NOTIFY_SOCKET");
    return socket && *socket;
}

void ServiceNotifier::ready(const QString& statusText) {
    send(QByteArrayLiteral("READY=1"), statusText);
}

void ServiceNotifier::status(const QString& statusText) {
    if (!statusText.isEmpty())
        send(QByteArray(), statusText);
}

void ServiceNotifier::stopping(const QString& statusText) {
    send(QByteArrayLiteral("STOPPING=1"), statusText);
}

} // namespace runbox::service
