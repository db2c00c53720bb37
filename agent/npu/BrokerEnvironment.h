#pragma once

#include <QList>
#include <QProcessEnvironment>
#include <QString>

namespace runbox::npu {

/// The environment of a host broker job: a scrubbed copy of the agent's (docs/npu.md "Host broker";
/// the original runner's allowlist, sciencediscovery.md §6.1).
class BrokerEnvironment final {
public:
    /// Keeps HOME, LANG, LC_ALL, LC_CTYPE, PATH, LD_LIBRARY_PATH, PYTHONPATH, DEVICE_ID, TZ and
    /// every name starting with ASCEND_, CANN_, MS_, MINDSPORE_, MINDSCIENCE_, HCCL_, NPU_, RANK_;
    /// then drops every name containing TOKEN, SECRET, PASSWORD, PASSWD, KEY or CREDENTIAL (any
    /// case), whatever its prefix.
    static QProcessEnvironment scrub(const QProcessEnvironment& source);
    /// Whether @p name survives scrub().
    static bool keeps(const QString& name);

    /// scrub(@p source) plus the job's own variables: RUNBOX_NPU_BROKER=1,
    /// RUNBOX_NPU_WORKSPACE=<workspace>, RUNBOX_NPU_JOB_ID=<jobId>, PATH defaulting to
    /// /usr/local/bin:/usr/bin:/bin, and ASCEND_RT_VISIBLE_DEVICES=<host ids> when @p chips is
    /// not empty (host namespace: no renumbering).
    static QProcessEnvironment forJob(const QProcessEnvironment& source, const QString& workspace,
                                      const QString& jobId, const QList<int>& chips);
};

} // namespace runbox::npu
