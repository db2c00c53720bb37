#pragma once

#include "agent/Error.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace runbox::npu {

/// One allow-listed host workload (operator file). Template expressions in program and args:
/// `${workspace}` (the workspace's canonical path), `${input:NAME}` (a workspace-relative path
/// the request supplies, opened beneath the workspace and passed as `/proc/self/fd/N` of the
/// pinned descriptor, see BrokerInput), `${env:NAME}` and
/// `${env:NAME:-default}` (the agent's environment; default is literal text). The program may
/// use only `${env:…}` and must expand to an absolute path.
struct Workload {
    QString id;          ///< `^[a-z0-9][a-z0-9._-]*$`, unique
    QString label;       ///< human name
    QString description; ///< optional
    QString program;
    QStringList args;
    QStringList inputs;    ///< NAMEs of `${input:NAME}`, inferred, sorted
    qint64 timeoutMs = 0;  ///< wall clock; 0 = the broker default
    QList<int> npuDevices; ///< default chip set (host logic ids); empty = the host queue

    /// Public listing: `{id, label, description, inputs, npuDevices, timeoutMs}` (no argv).
    QJsonObject toJson() const;

    /// The argv (program first) for one job. @p resolvedInputs maps each input NAME to the
    /// text that replaces it (BrokerInput::procPath()); @p workspace is canonical. Errors:
    /// `${env:X}` unset with no default, or a program that is not absolute after expansion →
    /// Internal `workload_misconfigured`.
    QStringList expand(const QString& workspace, const QMap<QString, QString>& resolvedInputs,
                       const QProcessEnvironment& env, Error* error) const;
};

/// The operator's workload allowlist for the host broker, loaded from a JSON file:
/// `{"workloads": [{"id", "label", "description"?, "program", "args"?: [string],
/// "timeoutMs"?: int>0, "npuDevices"?: [int]}]}` (a bare array is accepted too). Any invalid
/// entry rejects the whole file (fail closed) with a message naming it.
class WorkloadCatalog final {
public:
    /// Parses @p json; false with @p error on any problem (the catalog is left unchanged).
    bool parse(const QByteArray& json, QString* error);
    /// Reads and parses @p path (at most 1 MiB).
    bool loadFile(const QString& path, QString* error);

    const Workload* find(const QString& id) const;
    const QList<Workload>& workloads() const { return m_workloads; }
    /// `[Workload::toJson()…]` for `GET /v1/npu/workloads`.
    QJsonArray toJson() const;

private:
    QList<Workload> m_workloads;
};

} // namespace runbox::npu
