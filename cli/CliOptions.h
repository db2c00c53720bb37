#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QUrl>

namespace runbox::cli {

/// Where the agent is and how to authenticate: --url / RUNBOX_URL / <state>/agent.url, and
/// --token / RUNBOX_TOKEN / --token-file / <state>/agent.token, with --state-dir /
/// RUNBOX_STATE_DIR (default /var/lib/runbox as root, else ~/.local/state/runbox).
struct Connection {
    QUrl url;
    QByteArray token;
    /// Consumes the connection options from @p args (leaving the rest). Returns an error text.
    QString parse(QStringList* args);
};

/// Takes the value of option @p name from @p args (`--name VALUE`), removing both; empty when
/// absent. Sets @p error when the option has no value.
QString takeOption(QStringList* args, const QString& name, QString* error);
/// Removes every `--name VALUE` and returns the values in order.
QStringList takeRepeatedOption(QStringList* args, const QString& name, QString* error);
bool takeFlag(QStringList* args, const QString& name);

} // namespace runbox::cli
