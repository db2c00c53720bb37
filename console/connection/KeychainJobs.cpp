#include "console/connection/KeychainJobs.h"

#include <qt6keychain/keychain.h>

namespace runbox::console {

namespace {

KeychainResult resultOf(QKeychain::Job* job) {
    KeychainResult r;
    switch (job->error()) {
    case QKeychain::NoError:
        r.status = KeychainResult::Status::Ok;
        break;
    case QKeychain::EntryNotFound:
        r.status = KeychainResult::Status::NotFound;
        break;
    default:
        r.status = KeychainResult::Status::Unavailable;
        r.message = job->errorString();
        break;
    }
    return r;
}

// Common set-up: never the insecure plain-text fallback, never auto-delete under us.
template <typename Job> Job* makeJob(const QString& service, const QString& key, QObject* parent) {
    auto* job = new Job(service, parent);
    job->setAutoDelete(false);
    job->setInsecureFallback(false);
    job->setKey(key);
    return job;
}

} // namespace

KeychainJob::KeychainJob(const QString& service, const QString& key, QObject* parent)
    : QObject(parent), m_service(service), m_key(key) {}

KeychainJob::~KeychainJob() = default;

void KeychainJob::finish(const KeychainResult& result) {
    Q_EMIT finished(result);
    deleteLater();
}

void KeychainReadJob::start() {
    auto* job = makeJob<QKeychain::ReadPasswordJob>(m_service, m_key, this);
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        KeychainResult r = resultOf(job);
        if (r.status == KeychainResult::Status::Ok)
            r.token = job->binaryData();
        job->deleteLater();
        finish(r);
    });
    job->start();
}

KeychainWriteJob::KeychainWriteJob(const QString& service, const QString& key,
                                   const QByteArray& secret, QObject* parent)
    : KeychainJob(service, key, parent), m_secret(secret) {}

void KeychainWriteJob::start() {
    auto* job = makeJob<QKeychain::WritePasswordJob>(m_service, m_key, this);
    job->setBinaryData(m_secret);
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        const KeychainResult r = resultOf(job);
        job->deleteLater();
        finish(r);
    });
    job->start();
}

void KeychainDeleteJob::start() {
    auto* job = makeJob<QKeychain::DeletePasswordJob>(m_service, m_key, this);
    connect(job, &QKeychain::Job::finished, this, [this, job] {
        KeychainResult r = resultOf(job);
        if (r.status == KeychainResult::Status::NotFound)
            r.status = KeychainResult::Status::Ok;
        job->deleteLater();
        finish(r);
    });
    job->start();
}

} // namespace runbox::console
