#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace runbox::console {

/// What the run dialog asks for: one execution (docs/contracts.md "Exec request").
struct RunRequest {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::RunRequest)

public:
    QString workspaceId;                    ///< empty: create a new strong workspace first
    QString kind = QStringLiteral("shell"); ///< shell | python | r
    QString code;
    QString cwd; ///< workspace-relative, "" = the workspace root
    QList<QPair<QString, QString>> env;
    qint64 timeoutMs = 0;  ///< 0 = the agent's default
    QList<int> npuDevices; ///< chip logic ids, ascending, unique
    /// The science environment to run in (docs/environments.md "Selection"), its current
    /// revision; empty: the host's interpreters. Strong workspaces only.
    QString environmentId;

    /// Body of the sync `POST /v1/workspaces/{id}/exec`.
    QJsonObject toExecBody() const;
    /// Body of the managed `POST /v1/executions` (adds "workspace").
    QJsonObject toManagedBody(const QString& workspaceId) const;
    /// Translated problems the agent would refuse with 400 (kind, empty script, cwd rules of
    /// ExecRequest::validateCwd, env names, duplicate names); empty when it can be sent.
    QStringList validate() const;

    /// Whether @p name is a usable environment variable name ([A-Za-z_][A-Za-z0-9_]*).
    static bool isValidEnvName(const QString& name);
    /// Empty when @p cwd is a valid workspace-relative directory, else why not (translated).
    static QString cwdProblem(const QString& cwd);
    /// Parses "2, 5 7" into logic ids; @p ok false on anything else.
    static QList<int> parseChipList(const QString& text, bool* ok);
};

} // namespace runbox::console
