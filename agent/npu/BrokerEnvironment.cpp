#include "agent/npu/BrokerEnvironment.h"

#include <QRegularExpression>
#include <QStringList>

namespace runbox::npu {

bool BrokerEnvironment::keeps(const QString& name) {
    static const QRegularExpression secret(
        QStringLiteral("TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL"),
        QRegularExpression::CaseInsensitiveOption);
    if (name.isEmpty() || secret.match(name).hasMatch())
        return false;
    static const char* const exact[] = {"HOME",       "LANG",      "LC_ALL",
                                        "LC_CTYPE",   "PATH",      "LD_LIBRARY_PATH",
                                        "PYTHONPATH", "DEVICE_ID", "TZ"};
    for (const char* candidate : exact)
        if (name == QLatin1String(candidate))
            return true;
    static const char* const prefixes[] = {"ASCEND_",      "CANN_", "MS_",  "MINDSPORE_",
                                           "MINDSCIENCE_", "HCCL_", "NPU_", "RANK_"};
    for (const char* prefix : prefixes)
        if (name.startsWith(QLatin1String(prefix)))
            return true;
    return false;
}

QProcessEnvironment BrokerEnvironment::scrub(const QProcessEnvironment& source) {
    QProcessEnvironment kept;
    for (const QString& name : source.keys())
        if (keeps(name))
            kept.insert(name, source.value(name));
    return kept;
}

QProcessEnvironment BrokerEnvironment::forJob(const QProcessEnvironment& source,
                                              const QString& workspace, const QString& jobId,
                                              const QList<int>& chips) {
    QProcessEnvironment env = scrub(source);
    if (env.value(QStringLiteral("PATH")).isEmpty())
        env.insert(QStringLiteral("PATH"), QStringLiteral("/usr/local/bin:/usr/bin:/bin"));
    env.insert(QStringLiteral("RUNBOX_NPU_BROKER"), QStringLiteral("1"));
    env.insert(QStringLiteral("RUNBOX_NPU_WORKSPACE"), workspace);
    env.insert(QStringLiteral("RUNBOX_NPU_JOB_ID"), jobId);
    if (!chips.isEmpty()) {
        QStringList ids;
        for (int chip : chips)
            ids << QString::number(chip);
        env.insert(QStringLiteral("ASCEND_RT_VISIBLE_DEVICES"), ids.join(QLatin1Char(',')));
    }
    return env;
}

} // namespace runbox::npu
