#pragma once

#include <QCoreApplication>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace runbox::console {

/// What one quota field measures, for its editor.
struct QuotaField {
    enum class Unit { Bytes, Milliseconds, Count, Millicores };
    QString name; ///< JSON field, e.g. "maxWorkspaceBytes"
    Unit unit = Unit::Count;
    qint64 ceiling = 0; ///< largest value the agent accepts (agent/store/QuotaSettings.h)
    /// Translated label, e.g. "Workspace total".
    QString label() const;
    /// Translated one-line help.
    QString help() const;
};

/// GiB = 2^30 bytes.
constexpr qint64 kBytesPerGiB = qint64(1) << 30;
/// Bytes → GiB as shown (not rounded; the editor rounds to two decimals).
double bytesToGib(qint64 bytes);
/// GiB (two decimals as edited) → the nearest whole byte count.
qint64 gibToBytes(double gib);
/// Whether @p bytes shows exactly at two decimals in GiB (else the editor names the bytes).
bool isExactInGib(qint64 bytes);

/// The quotas of `GET/PUT /v1/settings/quotas` (agent/store/QuotaSettings.h): whole numbers, 0 =
/// unlimited. Accepts the fields at the top level or under "quotas"; keeps unknown numeric fields
/// so a newer agent's settings are shown and never dropped.
class QuotaValues final {
    Q_DECLARE_TR_FUNCTIONS(runbox::console::QuotaValues)

public:
    /// The fields the console knows, in display order.
    static const QList<QuotaField>& knownFields();
    /// The field description for @p name (a Count field for unknown names).
    static QuotaField field(const QString& name);

    static QuotaValues fromJson(const QJsonObject& answer);
    /// Field names present, known ones first in display order.
    QStringList names() const;
    bool has(const QString& name) const { return m_values.contains(name); }
    qint64 value(const QString& name) const { return m_values.value(name); }
    void setValue(const QString& name, qint64 value) { m_values.insert(name, value); }

    /// The fields whose value differs from @p base: the body of a PUT that changes only them.
    QJsonObject changesFrom(const QuotaValues& base) const;
    /// Translated problems that the agent would refuse (ranges, default ≤ max timeout);
    /// empty when the values can be sent.
    QStringList validate() const;

    /// The newest audit-trail entry the agent sent with the quotas (`lastChange`, or the first
    /// element of `audit`), formatted "field: before → after, by who, when"; empty if none.
    static QString lastChangeText(const QJsonObject& answer);

private:
    QMap<QString, qint64> m_values;
};

} // namespace runbox::console
