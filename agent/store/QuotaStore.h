#pragma once

#include "agent/store/AuditedSetting.h"
#include "agent/store/QuotaSettings.h"

namespace runbox::store {

/// The quota settings as stored in the settings table (one key per field, `quota.<field>`),
/// with their audit trail. Serves `GET/PUT /v1/settings/quotas` and `/v1/health`.
/// current() is served from memory; update() writes through. Thread-safe.
class QuotaStore final {
public:
    static constexpr const char* kKeyPrefix = "quota.";
    /// The tokenId of audit rows written by first-start seeding.
    static constexpr const char* kSeedTokenId = "agent:first-start";

    explicit QuotaStore(const Database& database)
        : m_setting(database, QLatin1String(kKeyPrefix)) {}

    /// Loads the quotas. Keys not stored yet (first start, or a field added by an upgrade) are
    /// seeded from @p seeds (the fields whose RUNBOX_* variable was set, already parsed by the
    /// configuration table), else from the defaults, with audit rows by kSeedTokenId; stored
    /// values always win over the seeds. @p warnings (optional) receives one line per RUNBOX_*
    /// variable that was ignored because a stored value exists. Errors: an invalid seed or
    /// combination (InvalidArgument (400) `invalid_quota`: refuse to start), invalid stored values
    /// (Internal (500) `store_error`), store errors.
    std::optional<Error> initialize(const QuotaSettings::Seeds& seeds, qint64 nowMs = 0,
                                    QStringList* warnings = nullptr);

    /// The host's pid_max the pair maxConcurrentExecutions × maxProcesses of a PUT is checked
    /// against (QuotaSettings::validateForHost); 0 (the default) = not checked.
    void setHostPidMax(qint64 pidMax) { m_pidMax = pidMax; }

    /// The settings in force (defaults before initialize()).
    QuotaSettings current() const;

    /// Applies @p patch (the PUT body: any subset of the fields; see QuotaSettings::fromJson())
    /// on top of the stored values, as @p tokenId, in one transaction that also writes one audit
    /// row per changed field. @p applied receives the settings now in force.
    std::optional<Error> update(const QJsonObject& patch, const QString& tokenId, qint64 nowMs,
                                QuotaSettings* applied);

    /// The newest quota change (for the console), std::nullopt in @p out if never changed.
    std::optional<Error> lastChange(std::optional<AuditEntry>* out) const;
    /// Quota changes, newest first (see SettingsRepository::audit()).
    std::optional<Error> history(qint64 beforeId, int limit, QList<AuditEntry>* out) const;

private:
    static QList<SettingChange> toChanges(const QuotaSettings& settings);
    static std::optional<Error> fromStored(const QHash<QString, QJsonValue>& stored,
                                           QuotaSettings* out);

    AuditedSetting<QuotaSettings> m_setting;
    qint64 m_pidMax = 0;
};

} // namespace runbox::store
