#include "console/connection/TokenVault.h"

#include "console/connection/KeychainJobs.h"

#include <QPointer>
#include <QTimer>

namespace runbox::console {

TokenVault::TokenVault(const QString& service, Backend backend, QObject* parent)
    : QObject(parent), m_service(service), m_backend(backend) {
    if (m_backend == Backend::SessionOnly)
        m_keychainProblem = tr("Tokens are kept for this session only (keychain disabled).");
}

void TokenVault::noteUnavailable(const QString& keychainMessage) {
    const bool first = m_keychainProblem.isEmpty();
    m_keychainProblem =
        tr("No keychain service is reachable (%1). Tokens are kept for this session only and "
           "are never written to disk; you will be asked again next time.")
            .arg(keychainMessage.isEmpty() ? tr("unknown error") : keychainMessage);
    if (first)
        Q_EMIT keychainUnavailable(m_keychainProblem);
}

void TokenVault::store(const QString& profileId, const QByteArray& token,
                       std::function<void(const StoreResult&)> done) {
    m_sessionTokens.insert(profileId, token);
    if (m_backend == Backend::SessionOnly || !keychainAvailable()) {
        const StoreResult r{false, m_keychainProblem};
        QTimer::singleShot(0, this, [r, done] { done(r); });
        return;
    }
    auto* job = new KeychainWriteJob(m_service, profileId, token, this);
    connect(job, &KeychainJob::finished, this, [this, done](const KeychainResult& result) {
        if (result.status == KeychainResult::Status::Ok)
            return done(StoreResult{true, {}});
        noteUnavailable(result.message);
        done(StoreResult{false, m_keychainProblem});
    });
    job->start();
}

void TokenVault::load(const QString& profileId, std::function<void(const LoadResult&)> done) {
    if (m_sessionTokens.contains(profileId) || m_backend == Backend::SessionOnly ||
        !keychainAvailable()) {
        LoadResult r;
        r.found = m_sessionTokens.contains(profileId);
        r.token = m_sessionTokens.value(profileId);
        if (!r.found)
            r.message = m_keychainProblem;
        QTimer::singleShot(0, this, [r, done] { done(r); });
        return;
    }
    auto* job = new KeychainReadJob(m_service, profileId, this);
    connect(job, &KeychainJob::finished, this,
            [this, profileId, done](const KeychainResult& result) {
                LoadResult r;
                if (result.status == KeychainResult::Status::Ok) {
                    r.found = true;
                    r.token = result.token;
                    m_sessionTokens.insert(profileId, result.token);
                } else if (result.status == KeychainResult::Status::Unavailable) {
                    noteUnavailable(result.message);
                    r.message = m_keychainProblem;
                }
                done(r);
            });
    job->start();
}

void TokenVault::forget(const QString& profileId) {
    m_sessionTokens.remove(profileId);
    if (m_backend == Backend::SessionOnly || !keychainAvailable())
        return;
    auto* job = new KeychainDeleteJob(m_service, profileId, this);
    job->start();
}

} // namespace runbox::console
